// The min-cut partitioner: max-flow and knapsack on hand-solved instances, a small joint graph
// partitioned by hand, the bad-input diagnostics, and every training model of the corpus against
// PyTorch (saved bytes at most PyTorch's, forward-then-backward reproducing the joint graph's
// outputs exactly, lower budgets saving no more).
#include "test_util.h"

#include "exec/compare.h"
#include "exec/interpreter.h"
#include "exec/run_check.h"
#include "exec/shape_binding.h"
#include "exec/shape_inference.h"
#include "import/fx_text_reader.h"
#include "import/loader.h"
#include "import/npy.h"
#include "ir/printer.h"
#include "partition/joint_analysis.h"
#include "partition/joint_shape.h"
#include "partition/knapsack.h"
#include "partition/max_flow.h"
#include "partition/partitioner.h"
#include "partition/sym_bytes.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

using namespace fxray;
using namespace fxray::partition;
namespace fs = std::filesystem;

namespace {

std::unique_ptr<Graph> parse(const std::string& text) {
    auto g = readFxText(text, "test.py");
    if (!g.ok()) {
        QTest::qFail(g.error().str().c_str(), __FILE__, __LINE__);
        return nullptr;
    }
    resolveOps(**g);
    inferMeta(**g);
    (*g)->rebuildUsers();
    return std::move(g).value();
}

std::vector<std::string> savedNames(const PartitionResult& r) {
    std::vector<std::string> v;
    for (const auto& s : r.saved) v.push_back(s.name);
    return v;
}

std::vector<std::string> placeholderNames(const Graph& g) {
    std::vector<std::string> v;
    for (Node* p : g.placeholders()) v.push_back(p->name());
    return v;
}

std::vector<std::string> callNames(const Graph& g) {
    std::vector<std::string> v;
    for (const auto& n : g.nodes())
        if (n->kind() == NodeKind::CallFunction) v.push_back(n->name());
    return v;
}

// x -> tanh -> exp is the forward; the backward (a made-up one, structure is what matters) needs
// tanh(tanh(x)) and exp(x).
const char* kTanhExp = R"(class inner_f(torch.nn.Module):
    def forward(self, primals, tangents):
        primals_1: "f32[4][1]cpu"; tangents_1: "f32[4][1]cpu"; 

        primals_1, tangents_1, = fx_pytree.tree_flatten_spec([primals, tangents], self._in_spec)
        tanh: "f32[4][1]cpu" = torch.ops.aten.tanh.default(primals_1)
        exp: "f32[4][1]cpu" = torch.ops.aten.exp.default(tanh)
        tanh_1: "f32[4][1]cpu" = torch.ops.aten.tanh.default(tanh);  tanh = None
        neg: "f32[4][1]cpu" = torch.ops.aten.neg.default(tanh_1);  tanh_1 = None
        mul: "f32[4][1]cpu" = torch.ops.aten.mul.Tensor(tangents_1, neg);  tangents_1 = neg = None
        exp_1: "f32[4][1]cpu" = torch.ops.aten.exp.default(primals_1);  primals_1 = None
        mul_1: "f32[4][1]cpu" = torch.ops.aten.mul.Tensor(mul, exp_1);  mul = exp_1 = None
        return pytree.tree_unflatten([exp, mul_1], self._out_spec)
)";

/// Runs g on copies of inputs with a fresh seeded generator.
std::vector<Value> runGraph(const Graph& g, const std::vector<Value>& inputs, uint64_t seed) {
    ExecContext ctx(seed);
    Interpreter in(Interpreter::Mode::Execute, &ctx);
    std::vector<Value> copies;
    for (const auto& v : inputs) copies.push_back(deepCopy(v));
    auto r = in.run(g, std::move(copies));
    if (!r.ok()) {
        QTest::qFail(r.error().str().c_str(), __FILE__, __LINE__);
        return {};
    }
    return std::move(r).value();
}

/// Runs the joint graph, then the forward and the backward on the forward's saved values, and
/// checks that every output is bit-identical. Returns false (after QFAIL) on a mismatch.
bool reproducesJoint(const Graph& joint, const PartitionResult& r, const std::vector<Value>& inputs, QString& why) {
    const uint64_t seed = 1234;
    auto jointOut = runGraph(joint, inputs, seed);
    std::map<std::string, Value> byName;
    auto jphs = joint.placeholders();
    std::vector<Value> fwdIn;
    for (size_t i = 0; i < jphs.size(); ++i) byName[jphs[i]->name()] = inputs[i];
    for (Node* p : r.forward->placeholders()) fwdIn.push_back(byName.at(p->name()));
    auto fwdOut = runGraph(*r.forward, fwdIn, seed);
    auto fwdRets = r.forward->outputs();
    if (fwdOut.size() != fwdRets.size() || jointOut.empty()) {
        why = "forward run failed";
        return false;
    }
    for (size_t k = r.numFwdOutputs; k < fwdRets.size(); ++k) byName[fwdRets[k].node->name()] = fwdOut[k];
    std::vector<Value> bwdIn;
    for (Node* p : r.backward->placeholders()) {
        auto it = byName.find(p->name());
        if (it == byName.end()) {
            why = QString("backward placeholder %1 is neither saved nor a tangent")
                      .arg(QString::fromStdString(p->name()));
            return false;
        }
        bwdIn.push_back(it->second);
    }
    auto bwdOut = runGraph(*r.backward, bwdIn, seed + 1);
    std::vector<Value> ours(fwdOut.begin(), fwdOut.begin() + static_cast<std::ptrdiff_t>(r.numFwdOutputs));
    ours.insert(ours.end(), bwdOut.begin(), bwdOut.end());
    if (ours.size() != jointOut.size()) {
        why = QString("%1 outputs vs %2 of the joint graph").arg(ours.size()).arg(jointOut.size());
        return false;
    }
    for (size_t k = 0; k < ours.size(); ++k) {
        auto c = compareValues(k, ours[k], jointOut[k]);
        bool same = c.ok && c.maxAbsErr == 0.0 && (!ours[k].isTensor() || ours[k].t.dtype() == jointOut[k].t.dtype());
        if (!same) {
            why = QString("output %1 differs: max_abs_err %2 %3")
                      .arg(k)
                      .arg(c.maxAbsErr)
                      .arg(QString::fromStdString(c.note));
            return false;
        }
    }
    return true;
}

std::vector<std::string> trainingModels() {
    std::vector<std::string> models;
    if (!fxtest::haveCorpus()) return models;
    for (const auto& d : fs::directory_iterator(fxtest::corpus())) {
        auto summary = d.path() / "summary.json";
        if (!fs::exists(summary) || !fs::exists(d.path() / "graphs" / "aot_joint_graph.py")) continue;
        std::ifstream is(summary);
        auto j = nlohmann::json::parse(is, nullptr, false);
        if (j.is_object() && j.value("mode", "") == "train") models.push_back(d.path().filename().string());
    }
    std::sort(models.begin(), models.end());
    return models;
}

nlohmann::json summaryOf(const std::string& model) {
    std::ifstream is(fxtest::corpus() / model / "summary.json");
    return nlohmann::json::parse(is, nullptr, false);
}

/// The joint graph's inputs: PyTorch's recorded ones when the model has numerics, else seeded
/// random values from the annotations.
std::vector<Value> jointInputs(const std::string& model, const Graph& g) {
    auto dir = fxtest::corpus() / model / "numerics" / "joint" / "inputs";
    auto phs = g.placeholders();
    if (fs::is_directory(dir)) {
        auto v = readNpyFolder(dir, phs.size());
        if (v.ok()) {
            for (size_t i = 0; i < v->size(); ++i)
                if ((*v)[i].isTensor()) (*v)[i].t = withAnnotatedStrides((*v)[i].t, *phs[i]);
            return std::move(v).value();
        }
    }
    auto v = randomInputs(g, 7);
    return v.ok() ? std::move(v).value() : std::vector<Value>{};
}

/// Parameters and buffers among the primals, from the Dynamo graph of the same run.
std::vector<std::string> staticInputs(const std::string& model, const Graph& joint) {
    for (const char* rel : {"numerics/dynamo.py", "graphs/dynamo_graph.py"}) {
        auto path = fxtest::corpus() / model / rel;
        if (!fs::exists(path)) continue;
        auto g = readFxFile(path);
        if (!g.ok()) continue;
        auto names = staticInputsFromDynamo(joint, **g);
        if (!names.empty()) return names;
    }
    return {};
}

}  // namespace

class TestPartition : public QObject {
    Q_OBJECT
private slots:
    void maxFlowHandSolved() {
        // s=0, t=1: s->a->t carries 4, s->a->b->t 1, s->b->t 2: max flow 7. Two cuts of value 7
        // exist, {s->a, s->b} and {a->t, a->b, s->b}; the one with the smaller sink side {b, t}
        // is reported (b -> t keeps 7 - 3 = 4 of residual capacity, a has none left towards t).
        FlowNetwork net(4);
        const int s = 0, t = 1, a = 2, b = 3;
        net.addEdge(s, a, 5);
        net.addEdge(a, t, 4);
        net.addEdge(s, b, 2);
        net.addEdge(b, t, 7);
        net.addEdge(a, b, 1);
        QVERIFY(net.infinitePath(s, t).empty());
        QCOMPARE(net.maxFlow(s, t), int64_t(7));
        auto sink = net.sinkSide(t);
        QCOMPARE(int(sink[a]), 0);
        QCOMPARE(int(sink[b]), 1);
        QCOMPARE(int(sink[s]), 0);
    }

    void maxFlowSmallestSinkSide() {
        // A chain s -> a -> b -> t with capacities 1, 1, 5: two minimum cuts (s->a or a->b).
        // networkx reports the one with the smallest sink side: a->b.
        FlowNetwork net(4);
        net.addEdge(0, 2, 1);
        net.addEdge(2, 3, 1);
        net.addEdge(3, 1, 5);
        QCOMPARE(net.maxFlow(0, 1), int64_t(1));
        auto sink = net.sinkSide(1);
        QCOMPARE(int(sink[2]), 0);
        QCOMPARE(int(sink[3]), 1);
    }

    void maxFlowInfinitePath() {
        FlowNetwork net(4);
        net.addEdge(0, 2, FlowNetwork::kInfinite);
        net.addEdge(2, 3, FlowNetwork::kInfinite);
        net.addEdge(3, 1, FlowNetwork::kInfinite);
        net.addEdge(0, 3, 7);
        auto p = net.infinitePath(0, 1);
        QCOMPARE(p, (std::vector<int>{0, 2, 3, 1}));
    }

    void knapsackDp() {
        // Capacity 0.5: items (0.3, 10) (0.2, 7) (0.4, 12): best is {0, 1} with 17.
        auto r = dpKnapsack({0.3, 0.2, 0.4}, {10, 7, 12}, 0.5);
        QCOMPARE(r.saved, (std::vector<int>{0, 1}));
        QCOMPARE(r.recomputed, (std::vector<int>{2}));
        QCOMPARE(r.runtime, 17.0);
        // Greedy by ratio takes item 1 (35/unit), then 0 (33.3/unit), then item 2 no longer fits.
        auto g = greedyKnapsack({0.3, 0.2, 0.4}, {10, 7, 12}, 0.5);
        QCOMPARE(g.saved, (std::vector<int>{1, 0}));
        QCOMPARE(g.recomputed, (std::vector<int>{2}));
        // Where greedy is not optimal: (0.6, 6) (0.5, 4) (0.5, 4) under 1.0.
        auto d2 = dpKnapsack({0.6, 0.5, 0.5}, {6, 4, 4}, 1.0);
        QCOMPARE(d2.runtime, 8.0);
        auto g2 = greedyKnapsack({0.6, 0.5, 0.5}, {6, 4, 4}, 1.0);
        QCOMPARE(g2.runtime, 6.0);
    }

    void recomputeTag() {
        int id = -1;
        QCOMPARE(parseRecomputeTag("ac_graph_id: 3 - PREFER_RECOMPUTE File: x.py:1 in f", &id),
                 RecomputePolicy::PreferRecompute);
        QCOMPARE(id, 3);
        QCOMPARE(parseRecomputeTag("ac_graph_id: 12 - MUST_SAVE", &id), RecomputePolicy::MustSave);
        QCOMPARE(id, 12);
        QCOMPARE(parseRecomputeTag("File: x.py:1 in f, code: y", &id), RecomputePolicy::None);
    }

    void tanhExpByHand() {
        auto g = parse(kTanhExp);
        QVERIFY(g);
        auto r = partitionJoint(*g);
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().str().c_str());
        // Saving the input (17 after the 1.1 distance weight) is cheaper than saving tanh, which
        // is fusible into both users and so weighs 2 * 17; exp_1 needs the input anyway.
        QCOMPARE(savedNames(*r), (std::vector<std::string>{"primals_1"}));
        QCOMPARE(r->savedBytes, int64_t(16));
        QCOMPARE(r->recomputed, (std::vector<std::string>{"tanh"}));
        QCOMPARE(placeholderNames(*r->forward), (std::vector<std::string>{"primals_1"}));
        QCOMPARE(callNames(*r->forward), (std::vector<std::string>{"tanh", "exp"}));
        QCOMPARE(r->forward->outputs().size(), size_t(2));  // exp, primals_1
        QCOMPARE(r->forward->outputs()[1].node->name(), std::string("primals_1"));
        QCOMPARE(placeholderNames(*r->backward), (std::vector<std::string>{"primals_1", "tangents_1"}));
        QCOMPARE(callNames(*r->backward), (std::vector<std::string>{"tanh", "tanh_1", "neg", "mul", "exp_1", "mul_1"}));
        QCOMPARE(r->numFwdOutputs, size_t(1));
        QCOMPARE(r->strategy, std::string("min-cut"));
        QCOMPARE(r->cut.size(), size_t(1));
        QCOMPARE(r->cut[0].capacity, int64_t(17));  // int(16 * 1.1): primals_1 is 1 from the backward
        // Inputs are never recomputed; exp is returned by the graph, which PyTorch counts as a
        // non-fusible use outside the forward ("materialized in backward").
        QCOMPARE(r->banned.size(), size_t(2));
        QCOMPARE(r->banned[0].name, std::string("primals_1"));
        QCOMPARE(r->banned[0].rule, std::string("input"));
        QCOMPARE(r->banned[1].name, std::string("exp"));
        QCOMPARE(r->banned[1].rule, std::string("materialized in backward"));
        QString why;
        std::vector<Value> in{fxtest::tv({4}, {0.1, 0.5, -1.0, 2.0}), fxtest::tv({4}, {1, -2, 3, 0.5})};
        QVERIFY2(reproducesJoint(*g, *r, in, why), qPrintable(why));
        // The printed graphs parse back.
        QVERIFY(readFxText(printGraph(*r->forward), "fwd.py").ok());
        QVERIFY(readFxText(printGraph(*r->backward), "bwd.py").ok());
    }

    void budgetZeroSavesInputs() {
        auto g = parse(kTanhExp);
        QVERIFY(g);
        PartitionOptions o;
        o.memoryBudget = 0.0;
        auto r = partitionJoint(*g, o);
        QVERIFY(r.ok());
        QCOMPARE(savedNames(*r), (std::vector<std::string>{"primals_1"}));
        QCOMPARE(r->strategy, std::string("inputs"));
    }

    void cseMergesDuplicates() {
        // Two identical exp(primals_1) calls become one; a random op is never merged.
        auto g = parse(R"(class inner_f(torch.nn.Module):
    def forward(self, primals, tangents):
        primals_1: "f32[4][1]cpu"; tangents_1: "f32[4][1]cpu"; 

        primals_1, tangents_1, = fx_pytree.tree_flatten_spec([primals, tangents], self._in_spec)
        exp: "f32[4][1]cpu" = torch.ops.aten.exp.default(primals_1)
        rand_like: "f32[4][1]cpu" = torch.ops.aten.rand_like.default(primals_1)
        rand_like_1: "f32[4][1]cpu" = torch.ops.aten.rand_like.default(primals_1)
        add: "f32[4][1]cpu" = torch.ops.aten.add.Tensor(rand_like, rand_like_1)
        mul_2: "f32[4][1]cpu" = torch.ops.aten.mul.Tensor(exp, add)
        exp_1: "f32[4][1]cpu" = torch.ops.aten.exp.default(primals_1)
        mul: "f32[4][1]cpu" = torch.ops.aten.mul.Tensor(tangents_1, exp_1)
        return pytree.tree_unflatten([mul_2, mul], self._out_spec)
)");
        QVERIFY(g);
        auto r = partitionJoint(*g);
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().str().c_str());
        QCOMPARE(r->removedByCse, size_t(1));
        auto bwdCalls = callNames(*r->backward);
        QVERIFY(std::find(bwdCalls.begin(), bwdCalls.end(), "exp_1") == bwdCalls.end());
        auto fwdCalls = callNames(*r->forward);
        QVERIFY(std::find(fwdCalls.begin(), fwdCalls.end(), "rand_like_1") != fwdCalls.end());
    }

    void badInputNoTangents() {
        auto g = parse(R"(class GraphModule(torch.nn.Module):
    def forward(self, primals_1: "f32[4][1]cpu"):
        tanh: "f32[4][1]cpu" = torch.ops.aten.tanh.default(primals_1)
        return (tanh,)
)");
        QVERIFY(g);
        auto r = partitionJoint(*g);
        QVERIFY(!r.ok());
        QVERIFY2(r.error().message.find("no tangents_*") != std::string::npos, r.error().str().c_str());
    }

    // The app partitions a loaded graph on its own only when it is a joint graph: a backward graph
    // takes tangents too (its saved activations besides), and the stage name decides first.
    void jointShape() {
        auto joint = parse(R"(class GraphModule(torch.nn.Module):
    def forward(self, primals_1: "f32[4][1]cpu", tangents_1: "f32[4][1]cpu"):
        tanh: "f32[4][1]cpu" = torch.ops.aten.tanh.default(primals_1)
        mul: "f32[4][1]cpu" = torch.ops.aten.mul.Tensor(tangents_1, tanh)
        return (tanh, mul)
)");
        auto backward = parse(R"(class GraphModule(torch.nn.Module):
    def forward(self, primals_1: "f32[4][1]cpu", tanh: "f32[4][1]cpu", tangents_1: "f32[4][1]cpu"):
        mul: "f32[4][1]cpu" = torch.ops.aten.mul.Tensor(tangents_1, tanh)
        return (mul,)
)");
        auto seeded = parse(R"(class GraphModule(torch.nn.Module):
    def forward(self, primals_1: "f32[4][1]cpu", fwd_seed: "i64[][]cpu", tangents_1: "f32[4][1]cpu"):
        tanh: "f32[4][1]cpu" = torch.ops.aten.tanh.default(primals_1)
        return (tanh, tangents_1)
)");
        QVERIFY(joint && backward && seeded);
        QVERIFY(!whyNotJoint(*joint, ""));
        QVERIFY(!whyNotJoint(*seeded, "repro"));
        auto why = whyNotJoint(*backward, "");
        QVERIFY(why);
        QVERIFY2(why->find("'tanh'") != std::string::npos, why->c_str());
        QVERIFY(whyNotJoint(*joint, "inductor_post_grad_graph"));
        QVERIFY(whyNotJoint(*joint, "aot_backward_graph"));
        QVERIFY(!whyNotJoint(*backward, "aot_joint_graph"));
        auto forward = parse(R"(class GraphModule(torch.nn.Module):
    def forward(self, primals_1: "f32[4][1]cpu"):
        tanh: "f32[4][1]cpu" = torch.ops.aten.tanh.default(primals_1)
        return (tanh,)
)");
        QVERIFY(forward);
        why = whyNotJoint(*forward, "");
        QVERIFY(why && why->find("no tangents_*") != std::string::npos);
    }

    // PyTorch's own AOT graphs by shape alone (no stage name): every joint is one, every backward
    // and forward graph is not.
    void jointShapeCorpus() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        int joints = 0, others = 0;
        for (const auto& e : fs::directory_iterator(fxtest::corpus())) {
            for (const char* stage : {"joint", "forward", "backward"}) {
                fs::path py = e.path() / "numerics" / (std::string(stage) + ".py");
                if (!fs::exists(py)) continue;
                auto f = loadFile(py);
                QVERIFY2(f.ok(), py.string().c_str());
                const bool isJoint = std::string(stage) == "joint";
                auto why = whyNotJoint(f->graphs.at(0).executable(), "");
                QVERIFY2(isJoint == !why, (py.string() + ": " + why.value_or("joint")).c_str());
                (isJoint ? joints : others) += 1;
            }
        }
        QVERIFY(joints >= 5 && others >= 10);
    }

    void badInputBudget() {
        auto g = parse(kTanhExp);
        QVERIFY(g);
        for (double b : {1.5, -0.1, std::nan("")}) {
            PartitionOptions o;
            o.memoryBudget = b;
            auto r = partitionJoint(*g, o);
            QVERIFY(!r.ok());
            QVERIFY2(r.error().message.find("outside [0, 1]") != std::string::npos, r.error().str().c_str());
        }
    }

    void badInputForwardNeedsTangents() {
        auto g = parse(kTanhExp);
        QVERIFY(g);
        PartitionOptions o;
        o.numFwdOutputs = 2;  // mul_1 is a gradient, not a forward output
        auto r = partitionJoint(*g, o);
        QVERIFY(!r.ok());
        QCOMPARE(r.error().node, std::string("mul_1"));
        QVERIFY2(r.error().message.find("depends on the tangents") != std::string::npos, r.error().str().c_str());
    }

    void badInputImpossibleCut() {
        // native_dropout is random (banned from recomputation) and returns a tuple (which cannot
        // be saved), while its getitem is tagged MUST_RECOMPUTE: every path goes through
        // infinite edges.
        auto g = parse(R"(class inner_f(torch.nn.Module):
    def forward(self, primals, tangents):
        primals_1: "f32[4][1]cpu"; tangents_1: "f32[4][1]cpu"; 

        primals_1, tangents_1, = fx_pytree.tree_flatten_spec([primals, tangents], self._in_spec)
        native_dropout = torch.ops.aten.native_dropout.default(primals_1, 0.5, True);  primals_1 = None
        # ac_graph_id: 1 - MUST_RECOMPUTE File: x.py:1 in f, code: y = dropout(x)
        getitem: "f32[4][1]cpu" = native_dropout[0]
        getitem_1: "b8[4][1]cpu" = native_dropout[1];  native_dropout = None

        # File: x.py:2 in f, code: y.backward()
        mul: "f32[4][1]cpu" = torch.ops.aten.mul.Tensor(tangents_1, getitem_1);  tangents_1 = getitem_1 = None
        return pytree.tree_unflatten([getitem, mul], self._out_spec)
)");
        QVERIFY(g);
        auto r = partitionJoint(*g);
        QVERIFY(!r.ok());
        const auto& e = r.error();
        QCOMPARE(e.node, std::string("native_dropout"));
        QVERIFY2(e.message.find("no finite cut") != std::string::npos, e.str().c_str());
        QVERIFY2(e.message.find("source -> native_dropout_in -> native_dropout_out -> getitem") != std::string::npos,
                 e.str().c_str());
        QVERIFY2(e.message.find("-> sink") != std::string::npos, e.str().c_str());
    }

    void checkpointedMatchesPyTorch() {
        // torch.utils.checkpoint's region is tagged PREFER_RECOMPUTE: PyTorch saves only the
        // inputs and recomputes the whole block in the backward.
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        auto f = loadFile(fxtest::corpus() / "checkpointed" / "graphs" / "aot_joint_graph.py");
        QVERIFY(f.ok());
        auto r = partitionJoint(*f->graphs[0].graph);
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().str().c_str());
        const auto summary = summaryOf("checkpointed");
        std::vector<std::string> expected;
        for (const auto& s : summary["saved"]) expected.push_back(s["name"].get<std::string>());
        QCOMPARE(savedNames(*r), expected);
        QCOMPARE(r->savedBytes, summary["saved_bytes"].get<int64_t>());
        for (const char* n : {"addmm", "sigmoid", "addmm_1", "tanh"})
            QVERIFY2(std::find(r->recomputed.begin(), r->recomputed.end(), n) != r->recomputed.end(), n);
    }

    void staticInputsFromDynamoGraph() {
        // mlp's Dynamo graph: weight, bias, the input, weight, bias.
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        auto joint = readFxFile(fxtest::corpus() / "mlp" / "graphs" / "aot_joint_graph.py");
        auto dynamo = readFxFile(fxtest::corpus() / "mlp" / "numerics" / "dynamo.py");
        QVERIFY(joint.ok() && dynamo.ok());
        QCOMPARE(staticInputsFromDynamo(**joint, **dynamo),
                 (std::vector<std::string>{"primals_1", "primals_2", "primals_4", "primals_5"}));
        // A graph with other placeholders says nothing.
        auto other = readFxFile(fxtest::corpus() / "gpt2" / "numerics" / "dynamo.py");
        QVERIFY(other.ok());
        QVERIFY(staticInputsFromDynamo(**joint, **other).empty());
    }

    void symbolicBytes() {
        // Bytes of symbolic tensors as sympy prints a sum: constant factors collected, higher
        // degree first, the constant last; what is not a polynomial stays whole.
        TensorMeta a;
        a.shape = {0, 128};
        a.setSize(0, SymInt::parse("s33").value());
        auto pa = bytesPoly(a);
        QVERIFY(pa.ok());
        QCOMPARE(QString::fromStdString(pa->str()), QString("512*s33"));
        TensorMeta b;
        b.dtype = DType::Float16;
        b.shape = {0, 0};
        b.setSize(0, SymInt::parse("s0").value());
        b.setSize(1, SymInt::parse("2*s1 + 8").value());
        auto pb = bytesPoly(b);
        QVERIFY(pb.ok());
        QCOMPARE(QString::fromStdString(pb->str()), QString("4*s0*s1 + 16*s0"));
        TensorMeta c = TensorMeta::contiguous({64, 128}, DType::Float32);
        auto pc = bytesPoly(c);
        QVERIFY(pc.ok());
        SymPoly sum = *pa + *pb + *pc + *pa;
        QCOMPARE(QString::fromStdString(sum.str()), QString("4*s0*s1 + 16*s0 + 1024*s33 + 32768"));
        sym::Binding at{{"s0", sym::Num::ofInt(3)}, {"s1", sym::Num::ofInt(5)}, {"s33", sym::Num::ofInt(16)}};
        auto v = sum.eval(at);
        QVERIFY(v.ok());
        QCOMPARE(*v, int64_t(4 * 3 * 5 + 16 * 3 + 1024 * 16 + 32768));
        TensorMeta d;
        d.shape = {0, 8};
        d.setSize(0, SymInt::parse("((s77//2))").value());
        auto pd = bytesPoly(d);
        QVERIFY(pd.ok());
        QCOMPARE(QString::fromStdString(pd->str()), QString("32*(s77//2)"));
        auto vd = pd->eval({{"s77", sym::Num::ofInt(9)}});
        QVERIFY(vd.ok());
        QCOMPARE(*vd, int64_t(32 * 4));
        QCOMPARE(QString::fromStdString((*pa - *pa).str()), QString("0"));
        QVERIFY(!pa->eval({}).ok());  // s33 unbound: an error, not a number
    }

    void dynamicTraceMatchesPyTorch() {
        // The recompile of a Linear-GELU-Linear with a dynamic batch s33 (create_symbol hint 16):
        // PyTorch's own symbolic joint graph, and what its partitioner saved.
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        const fs::path trace = fxtest::corpus().parent_path() / "traces" / "recompiles" / "trace";
        if (!fs::exists(trace)) QSKIP("traces/recompiles not found");
        auto f = loadFile(trace);
        QVERIFY2(f.ok(), f.ok() ? "" : f.error().str().c_str());
        const Graph *joint = nullptr, *fwd = nullptr, *bwd = nullptr, *dynamo = nullptr;
        for (const auto& lg : f->graphs) {
            if (lg.compileId != "0/1" || !lg.graph) continue;
            if (lg.stage == "aot_joint_graph") joint = lg.graph.get();
            if (lg.stage == "aot_forward_graph") fwd = lg.graph.get();
            if (lg.stage == "aot_backward_graph") bwd = lg.graph.get();
            if (lg.stage == "dynamo_output_graph") dynamo = lg.graph.get();
        }
        QVERIFY(joint && fwd && bwd);
        PartitionOptions o;
        o.sizes = {{"s33", sym::Num::ofInt(16)}};
        if (dynamo) o.staticLifetimeInputs = staticInputsFromDynamo(*joint, *dynamo);
        if (o.staticLifetimeInputs.empty())
            o.staticLifetimeInputs = {"primals_1", "primals_2", "primals_5", "primals_6"};
        auto r = partitionJoint(*joint, o);
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().str().c_str());

        // PyTorch's saved values: the forward's outputs after its one real output.
        std::set<std::string> theirs, ours;
        auto fo = fwd->outputs();
        for (size_t k = 1; k < fo.size(); ++k)
            if (fo[k].isNode()) theirs.insert(fo[k].node->name());
        for (const auto& s : r->saved) ours.insert(s.name);
        QCOMPARE(ours, theirs);

        // Their bytes from PyTorch's backward annotations at the hint (s33=16): the saved
        // tensors are its placeholders other than the tangents; a SymInt counts 1 as in _size_of.
        int64_t pytorchBytes = 0;
        for (Node* p : bwd->placeholders()) {
            if (p->name().rfind("tangents", 0) == 0) continue;
            if (p->meta.empty()) {
                pytorchBytes += 1;
                continue;
            }
            auto m = bindMeta(p->meta[0], o.sizes);
            QVERIFY(m.ok());
            pytorchBytes += m->nbytes();
        }
        QCOMPARE(r->savedBytes, pytorchBytes);
        // 4*s33*64 (primals_4) + 4*s33*128 (addmm, mul_4) + 4*64*128 (primals_5) + 1 (primals_3).
        QCOMPARE(QString::fromStdString(r->savedBytesExpr), QString("1280*s33 + 32769"));
        QCOMPARE(r->binding.at("s33").i, int64_t(16));
        for (const auto& s : r->saved) {
            auto e = sym::parse(s.bytesExpr);
            QVERIFY2(e.ok(), s.bytesExpr.c_str());
            auto v = sym::eval(**e, r->binding);
            QVERIFY(v.ok());
            QCOMPARE(v->i, s.bytes);
        }

        // The partition is right at any size: forward then backward reproduce the joint graph.
        for (int64_t n : {5, 16}) {
            sym::Binding at{{"s33", sym::Num::ofInt(n)}};
            auto in = randomInputs(*joint, 11, &at);
            QVERIFY2(in.ok(), in.ok() ? "" : in.error().str().c_str());
            QString why;
            QVERIFY2(reproducesJoint(*joint, *r, *in, why), qPrintable(QString("s33=%1: %2").arg(n).arg(why)));
        }

        // Without a given size the binding falls back to the hints, else 8.
        PartitionOptions plain = o;
        plain.sizes.clear();
        auto r8 = partitionJoint(*joint, plain);
        QVERIFY(r8.ok());
        const int64_t hint = joint->symbolHints.count("s33") ? joint->symbolHints.at("s33").i : 8;
        QCOMPARE(r8->savedBytes, 1280 * hint + 32769);
        QCOMPARE(QString::fromStdString(r8->savedBytesExpr), QString("1280*s33 + 32769"));
    }

    void corpus_data() {
        QTest::addColumn<QString>("model");
        for (const auto& m : trainingModels()) QTest::newRow(m.c_str()) << QString::fromStdString(m);
    }

    void corpus() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        QFETCH(QString, model);
        const std::string m = model.toStdString();
        auto f = loadFile(fxtest::corpus() / m / "graphs" / "aot_joint_graph.py");
        QVERIFY2(f.ok(), f.ok() ? "" : f.error().str().c_str());
        const Graph& joint = *f->graphs[0].graph;
        auto summary = summaryOf(m);

        auto r = partitionJoint(joint);
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().str().c_str());
        QCOMPARE(int64_t(r->numFwdOutputs), summary["num_fwd_outputs"].get<int64_t>());
        const int64_t theirs = summary["saved_bytes"].get<int64_t>();
        qInfo("%s: saved %lld bytes (PyTorch %lld), %zu values (PyTorch %zu), fwd %zu / bwd %zu nodes", m.c_str(),
              (long long)r->savedBytes, (long long)theirs, r->saved.size(), summary["saved"].size(), r->forward->size(),
              r->backward->size());
        QVERIFY2(r->savedBytes <= theirs,
                 qPrintable(QString("saved %1 bytes, PyTorch %2").arg(r->savedBytes).arg(theirs)));

        // With Inductor's static inputs (parameters saved for free), compare the choice itself.
        PartitionOptions withParams;
        withParams.staticLifetimeInputs = staticInputs(m, joint);
        auto rp = partitionJoint(joint, withParams);
        QVERIFY(rp.ok());
        std::set<std::string> ours, pts;
        for (const auto& s : rp->saved) ours.insert(s.name);
        for (const auto& s : summary["saved"]) pts.insert(s["name"].get<std::string>());
        std::vector<std::string> onlyOurs, onlyTheirs;
        std::set_difference(ours.begin(), ours.end(), pts.begin(), pts.end(), std::back_inserter(onlyOurs));
        std::set_difference(pts.begin(), pts.end(), ours.begin(), ours.end(), std::back_inserter(onlyTheirs));
        std::string d;
        for (auto& s : onlyOurs) d += " +" + s;
        for (auto& s : onlyTheirs) d += " -" + s;
        qInfo("%s with parameters free to save: %lld bytes, saved set %s%s", m.c_str(), (long long)rp->savedBytes,
              d.empty() ? "identical to PyTorch's" : "differs:", d.c_str());
        // Then the graphs are PyTorch's, line for line (names, order, annotations, comments).
        QCOMPARE(rp->savedBytes, theirs);
        auto fwdText = readTextFile(fxtest::corpus() / m / "graphs" / "aot_forward_graph.py");
        auto bwdText = readTextFile(fxtest::corpus() / m / "graphs" / "aot_backward_graph.py");
        QVERIFY(fwdText.ok() && bwdText.ok());
        QCOMPARE(printGraph(*rp->forward), *fwdText);
        QCOMPARE(printGraph(*rp->backward), *bwdText);

        auto inputs = jointInputs(m, joint);
        QVERIFY(!inputs.empty());
        QString why;
        QVERIFY2(reproducesJoint(joint, *r, inputs, why), qPrintable(why));
        QVERIFY2(reproducesJoint(joint, *rp, inputs, why), qPrintable(why));

        // Lower budgets save no more: no more bytes for budgets above 0, and no more activation
        // bytes (beyond the inputs) down to 0, where PyTorch saves exactly the inputs (all
        // primals the backward uses, which can be more bytes than the runtime-optimal set).
        int64_t prev = r->savedBytes, prevAct = r->activationBytes;
        for (double b : {0.8, 0.5, 0.2, 0.0}) {
            PartitionOptions o;
            o.memoryBudget = b;
            auto rb = partitionJoint(joint, o);
            QVERIFY2(rb.ok(), rb.ok() ? "" : rb.error().str().c_str());
            qInfo("%s: budget %.1f saves %lld bytes, %lld beyond the inputs (%s)", m.c_str(), b,
                  (long long)rb->savedBytes, (long long)rb->activationBytes, rb->strategy.c_str());
            if (b > 0)
                QVERIFY2(rb->savedBytes <= prev,
                         qPrintable(QString("budget %1 saves %2 > %3").arg(b).arg(rb->savedBytes).arg(prev)));
            QVERIFY2(
                rb->activationBytes <= prevAct,
                qPrintable(
                    QString("budget %1 keeps %2 activation bytes > %3").arg(b).arg(rb->activationBytes).arg(prevAct)));
            if (b == 0) QCOMPARE(rb->activationBytes, int64_t(0));
            prev = rb->savedBytes;
            prevAct = rb->activationBytes;
        }
    }
};

QTEST_GUILESS_MAIN(TestPartition)
#include "tst_partition.moc"
