// Lowering torch-level Dynamo graphs to ATen, judged by PyTorch: every corpus numerics/dynamo.py,
// lowered and executed on its recorded inputs, reproduces the recorded outputs; every
// graphs/dynamo_graph.py lowers to the ATen ops that torch.export recorded for the same model
// (graphs/export_graph.py); and rule-level checks against PyTorch's documented semantics.
#include "test_util.h"

#include "exec/compare.h"
#include "exec/run_check.h"
#include "exec/shape_inference.h"
#include "import/dynamo_lowering.h"
#include "import/fx_text_reader.h"
#include "import/loader.h"
#include "import/npy.h"
#include "ir/op_registry.h"
#include "ir/printer.h"

#include <filesystem>
#include <functional>
#include <set>

using namespace fxray;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> modelsWith(const char* rel) {
    std::vector<std::string> out;
    if (!fxtest::haveCorpus()) return out;
    for (const auto& m : fs::directory_iterator(fxtest::corpus()))
        if (fs::exists(m.path() / rel)) out.push_back(m.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
}

/// Call targets that are not ATen-level (what lowering must have removed), recursively.
void torchLevelNodes(const Graph& g, std::vector<std::string>& out) {
    for (const auto& n : g.nodes()) {
        if (n->kind() == NodeKind::CallMethod || n->kind() == NodeKind::CallModule ||
            (n->kind() == NodeKind::CallFunction && n->target().rfind("torch.ops.", 0) != 0 &&
             n->target() != "operator.getitem"))
            out.push_back(n->name() + " = " + n->target());
    }
    for (const auto& [k, sub] : g.subgraphs()) torchLevelNodes(*sub, out);
}

std::string joinStrings(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : "; ") + x;
    return s;
}

/// Lowers, verifies and re-resolves a graph; fails the test on any problem. Returns false then.
bool lowerAndCheck(Graph& g, const std::string& what) {
    Status st = lowerToAten(g);
    if (!st.ok()) {
        QTest::qFail((what + ": " + st.error().str()).c_str(), __FILE__, __LINE__);
        return false;
    }
    Status v = g.verify();
    if (!v.ok()) {
        QTest::qFail((what + ": verify: " + v.error().str()).c_str(), __FILE__, __LINE__);
        return false;
    }
    std::vector<std::string> left;
    torchLevelNodes(g, left);
    if (!left.empty()) {
        QTest::qFail((what + ": not lowered: " + joinStrings(left)).c_str(), __FILE__, __LINE__);
        return false;
    }
    if (isTorchLevel(g)) {
        QTest::qFail((what + ": isTorchLevel after lowering").c_str(), __FILE__, __LINE__);
        return false;
    }
    auto unknown = resolveOps(g);
    if (!unknown.empty()) {
        QTest::qFail((what + ": unknown ops " + joinStrings(unknown)).c_str(), __FILE__, __LINE__);
        return false;
    }
    InferenceReport rep = inferMeta(g);
    if (!rep.mismatches.empty()) {
        std::string s;
        for (const auto& m : rep.mismatches)
            s += "\n  " + m.graph + "/" + m.node + " " + m.what + ": annotated " + m.annotated + ", inferred " +
                 m.inferred;
        QTest::qFail((what + ": inference disagrees with annotations:" + s).c_str(), __FILE__, __LINE__);
        return false;
    }
    if (!rep.unresolved.empty()) {
        QTest::qFail((what + ": inference could not compute " + joinStrings(rep.unresolved)).c_str(), __FILE__,
                     __LINE__);
        return false;
    }
    if (rep.checked == 0) {
        QTest::qFail((what + ": no annotation was checked").c_str(), __FILE__, __LINE__);
        return false;
    }
    return true;
}

/// Nodes whose value is a function of random ops alone (randperm and views/slices of it).
/// Dropout with p == 0 is deterministic (the numerics runs set it so).
std::set<const Node*> purelyRandom(const Graph& g) {
    std::set<const Node*> out;
    for (const auto& n : g.nodes()) {
        bool random = n->op() && n->op()->category == OpCategory::Random;
        if (random && n->target().find("dropout") != std::string::npos && n->args.size() > 1 && n->args[1].isNumber() &&
            (n->args[1].kind == Argument::Kind::Float ? n->args[1].f : double(n->args[1].i)) == 0.0)
            random = false;
        auto ins = n->inputNodes();
        bool allRandom = !ins.empty();
        for (Node* in : ins) allRandom = allRandom && out.count(in);
        if (random || (allRandom && n->kind() == NodeKind::CallFunction)) out.insert(n.get());
    }
    return out;
}

/// Nodes that contribute to the output, plus in-place ops (buffer updates such as
/// num_batches_tracked.add_(1) are effects without users) and what they need. Both Dynamo and
/// export keep some dead nodes (unused aranges, `_assert_tensor_metadata` checks).
std::set<const Node*> liveNodes(const Graph& g) {
    std::set<const Node*> live;
    std::vector<const Node*> work;
    for (const auto& n : g.nodes()) {
        std::string op = n->opName();
        auto dot = op.rfind('.');
        bool inplace = n->kind() == NodeKind::CallFunction && dot != std::string::npos && dot > 0 &&
                       op[dot - 1] == '_' && op != "aten.detach_.default";
        if (n->kind() == NodeKind::Output || inplace) work.push_back(n.get());
    }
    while (!work.empty()) {
        const Node* n = work.back();
        work.pop_back();
        if (!live.insert(n).second) continue;
        for (Node* in : n->inputNodes()) work.push_back(in);
    }
    return live;
}

/// A node's call with node references blanked: `aten.view.default(%, [2, 32, 4, 16])`.
std::string callSignature(const Node& n) {
    std::function<std::string(const Argument&)> rep = [&](const Argument& a) -> std::string {
        if (a.isNode()) return "%";
        if (a.isSequence()) {
            std::string s = a.kind == Argument::Kind::List ? "[" : "(";
            for (size_t i = 0; i < a.items.size(); ++i) s += (i ? ", " : "") + rep(a.items[i]);
            if (a.kind == Argument::Kind::Tuple && a.items.size() == 1) s += ",";
            return s + (a.kind == Argument::Kind::List ? "]" : ")");
        }
        return a.repr();
    };
    std::string s = n.opName() + "(";
    bool first = true;
    for (const auto& a : n.args) {
        s += (first ? "" : ", ") + rep(a);
        first = false;
    }
    for (const auto& [k, a] : n.kwargs) {
        s += (first ? "" : ", ") + k + "=" + rep(a);
        first = false;
    }
    return s + ")";
}

/// The live ATen call targets of a lowered Dynamo graph in order. Activation-checkpoint bodies
/// are inlined (torch.export traces through torch.utils.checkpoint), with the getitem of their
/// result.
void loweredOps(const Graph& g, std::vector<std::string>& out) {
    std::set<const Node*> inlined;
    auto live = liveNodes(g);
    for (const auto& n : g.nodes()) {
        if (n->kind() != NodeKind::CallFunction || !live.count(n.get())) continue;
        if (n->opName() == "higher_order.tag_activation_checkpoint" && !n->args.empty() && n->args[0].isNode()) {
            if (const Graph* body = g.subgraph(n->args[0].node->target())) {
                loweredOps(*body, out);
                inlined.insert(n.get());
                continue;
            }
        }
        if (n->target() == "operator.getitem" && !n->args.empty() && n->args[0].isNode() &&
            inlined.count(n->args[0].node))
            continue;
        out.push_back(callSignature(*n));
    }
}

/// The live ATen call targets of an export graph in order, without what pre-dispatch export
/// records beyond the values: `detach_` of lifted constants, and `aten.to.*` (export keeps
/// Tensor.to; ATen lowering, as AOT does, drops a `to` that changes nothing and makes
/// `_to_copy` of one that converts).
std::vector<std::string> exportOps(const Graph& g) {
    auto live = liveNodes(g);
    std::vector<std::string> out;
    for (const auto& n : g.nodes()) {
        if (n->kind() != NodeKind::CallFunction || !live.count(n.get())) continue;
        std::string op = n->opName();
        if (op == "aten.detach_.default") continue;
        if (op.rfind("aten.to.", 0) == 0) {
            const Node* in = n->args.empty() || !n->args[0].isNode() ? nullptr : n->args[0].node;
            bool converts = !in || in->meta.empty() || n->meta.empty() || in->meta[0].dtype != n->meta[0].dtype;
            if (converts) out.push_back("aten._to_copy.default");
            continue;
        }
        out.push_back(callSignature(*n));
    }
    return out;
}

std::unique_ptr<Graph> parse(const std::string& text) {
    auto g = readFxText(text, "test.py");
    if (!g.ok()) {
        QTest::qFail(g.error().str().c_str(), __FILE__, __LINE__);
        return nullptr;
    }
    return std::move(g).value();
}

/// A graph around one torch-level line: `x` f32[2, 3], `y` f32[2, 3], `i` i64[2] are inputs.
std::string oneLine(const std::string& body, const std::string& ret = "r") {
    return "class GraphModule(torch.nn.Module):\n"
           "    def forward(self, x: \"f32[2, 3][3, 1]cpu\", y: \"f32[2, 3][3, 1]cpu\", i: \"i64[2][1]cpu\"):\n" +
           body + "        return (" + ret + ",)\n";
}

Value runOne(Graph& g, std::vector<Value> inputs) {
    auto unknown = resolveOps(g);
    (void)inferMeta(g);
    RunRequest req;
    req.inputs = std::move(inputs);
    auto r = runAndCheck(g, req, nullptr);
    if (!r.ok()) {
        QTest::qFail(r.error().str().c_str(), __FILE__, __LINE__);
        return {};
    }
    return r->outputs.at(0);
}

std::vector<Value> xyi() {
    return {fxtest::tv({2, 3}, {1, -2, 3, -4, 5, -6}), fxtest::tv({2, 3}, {0.5, 1, 2, 4, 8, 16}),
            fxtest::tv({2}, {1, 0}, DType::Int64)};
}

}  // namespace

class TestDynamoLowering : public QObject {
    Q_OBJECT
private slots:
    /// F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)
    /// (torch/nn/functional.py) -> aten.batch_norm(input, weight, bias, running_mean,
    /// running_var, ...): the operands are reordered, and eval mode normalizes with the running
    /// statistics: (x - mean) / sqrt(var + eps) * weight + bias.
    void batchNormArgumentOrder() {
        auto g = parse("class GraphModule(torch.nn.Module):\n"
                       "    def forward(self, x: \"f32[1, 2, 1, 1][2, 1, 1, 1]cpu\", rm: \"f32[2][1]cpu\", rv: "
                       "\"f32[2][1]cpu\", w: \"f32[2][1]cpu\", b: \"f32[2][1]cpu\"):\n"
                       "        bn: \"f32[1, 2, 1, 1][2, 1, 1, 1]cpu\" = torch.nn.functional.batch_norm(x, rm, rv, w, "
                       "b, False, 0.1, 0.0)\n"
                       "        return (bn,)\n");
        QVERIFY(g);
        QVERIFY(lowerToAten(*g).ok());
        Node* bn = g->find("bn");
        QVERIFY(bn);
        QCOMPARE(bn->target(), std::string("torch.ops.aten.batch_norm.default"));
        QCOMPARE(bn->args[1].node->name(), std::string("w"));
        QCOMPARE(bn->args[2].node->name(), std::string("b"));
        QCOMPARE(bn->args[3].node->name(), std::string("rm"));
        QCOMPARE(bn->args[4].node->name(), std::string("rv"));
        Value out = runOne(*g, {fxtest::tv({1, 2, 1, 1}, {3, 10}), fxtest::tv({2}, {1, 2}), fxtest::tv({2}, {4, 16}),
                                fxtest::tv({2}, {2, 3}), fxtest::tv({2}, {0.5, -1})});
        // (3 - 1) / 2 * 2 + 0.5 = 2.5; (10 - 2) / 4 * 3 - 1 = 5
        FX_COMPARE_VEC(fxtest::values(out), std::vector<double>({2.5, 5}), 1e-6);
    }

    /// A number on the left uses Tensor's reflected operators: `1.0 - x` is rsub(x, 1.0),
    /// `2.0 / y` is y.reciprocal() * 2.0 (Tensor.__rtruediv__), `0 < x` is x > 0.
    void reflectedOperators() {
        auto g = parse(oneLine("        a: \"f32[2, 3][3, 1]cpu\" = 1.0 - x\n"
                               "        q: \"f32[2, 3][3, 1]cpu\" = 2.0 / y\n"
                               "        p: \"b8[2, 3][3, 1]cpu\" = 0 < x\n"
                               "        r: \"f32[2, 3][3, 1]cpu\" = torch.where(p, a, q)\n"));
        QVERIFY(g);
        QVERIFY(lowerToAten(*g).ok());
        QCOMPARE(g->find("a")->target(), std::string("torch.ops.aten.rsub.Scalar"));
        QCOMPARE(g->find("a")->args[0].node->name(), std::string("x"));
        Node* recip = g->find("reciprocal");
        QVERIFY2(recip, "the extra node of 2.0 / y is named after its op");
        QCOMPARE(recip->target(), std::string("torch.ops.aten.reciprocal.default"));
        QCOMPARE(g->find("q")->target(), std::string("torch.ops.aten.mul.Tensor"));
        QCOMPARE(g->find("p")->target(), std::string("torch.ops.aten.gt.Scalar"));
        QCOMPARE(g->find("r")->target(), std::string("torch.ops.aten.where.self"));
        Value out = runOne(*g, xyi());
        // x = [1, -2, 3, -4, 5, -6]: where x > 0 take 1 - x, else 2 / y (y = [.5, 1, 2, 4, 8, 16])
        FX_COMPARE_VEC(fxtest::values(out), std::vector<double>({0, 2, -2, 0.5, -4, 0.125}), 1e-6);
    }

    /// Tensor.__getitem__: None -> unsqueeze, int -> select, slice -> slice, `...` skips dims,
    /// full slices record nothing, integer tensors -> aten.index.
    void indexingValues() {
        auto g = parse(oneLine("        a: \"f32[1, 2][6, 3]cpu\" = x[(None, slice(None, None, None), 1)]\n"
                               "        b: \"f32[2, 2][3, 1]cpu\" = x[(slice(None, None, None), slice(1, 3, None))]\n"
                               "        c: \"f32[2][3]cpu\" = x[(Ellipsis, -1)]\n"
                               "        d: \"f32[2, 3][3, 1]cpu\" = x[i]\n",
                               "a, b, c, d"));
        QVERIFY(g);
        QVERIFY(lowerToAten(*g).ok());
        QCOMPARE(g->find("a")->target(), std::string("torch.ops.aten.select.int"));
        QCOMPARE(g->find("unsqueeze")->target(), std::string("torch.ops.aten.unsqueeze.default"));
        QCOMPARE(g->find("b")->target(), std::string("torch.ops.aten.slice.Tensor"));
        QCOMPARE(g->find("b")->args[1].i, int64_t(1));  // the full slice of dim 0 records nothing
        QCOMPARE(g->find("c")->target(), std::string("torch.ops.aten.select.int"));
        QCOMPARE(g->find("c")->args[1].i, int64_t(1));  // Ellipsis skipped dim 0
        QCOMPARE(g->find("d")->target(), std::string("torch.ops.aten.index.Tensor"));
        QVERIFY(g->verify().ok());
        (void)resolveOps(*g);
        auto rep = inferMeta(*g);
        for (const auto& m : rep.mismatches)
            qWarning("%s: %s vs %s", m.node.c_str(), m.annotated.c_str(), m.inferred.c_str());
        QVERIFY(rep.mismatches.empty());
        QCOMPARE(rep.checked, 4);
        RunRequest req;
        req.inputs = xyi();
        auto r = runAndCheck(*g, req, nullptr);
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().str().c_str());
        FX_COMPARE_VEC(fxtest::values(r->outputs[0]), std::vector<double>({-2, 5}), 0);
        FX_COMPARE_VEC(fxtest::values(r->outputs[1]), std::vector<double>({-2, 3, 5, -6}), 0);
        FX_COMPARE_VEC(fxtest::values(r->outputs[2]), std::vector<double>({3, -6}), 0);
        FX_COMPARE_VEC(fxtest::values(r->outputs[3]), std::vector<double>({-4, 5, -6, 1, -2, 3}), 0);
    }

    /// x.size(), x.shape[i] and arithmetic on sizes fold into the users' arguments; no node of
    /// theirs remains.
    void sizesFold() {
        auto g = parse(oneLine("        size = x.size()\n"
                               "        getitem = size[1];  size = None\n"
                               "        getattr_1 = x.shape\n"
                               "        getitem_1 = getattr_1[0];  getattr_1 = None\n"
                               "        mul = getitem * getitem_1;  getitem = getitem_1 = None\n"
                               "        r: \"f32[6][1]cpu\" = x.view(mul);  mul = None\n"));
        QVERIFY(g);
        QVERIFY(lowerToAten(*g).ok());
        QCOMPARE(g->size(), size_t(5));  // 3 placeholders, the view, the output
        Node* r = g->find("r");
        QCOMPARE(r->target(), std::string("torch.ops.aten.view.default"));
        QCOMPARE(r->args[1].repr(), std::string("[6]"));
    }

    /// x.type(dtype) / x.to(dtype) of a tensor that already has it is x (Tensor.to returns
    /// self); a real conversion is _to_copy.
    void conversions() {
        auto g = parse(
            oneLine("        t: \"f32[2, 3][3, 1]cpu\" = x.type(torch.float32)\n"
                    "        h: \"f16[2, 3][3, 1]cpu\" = t.to(torch.float16)\n"
                    "        r: \"f16[2, 3][3, 1]cpu\" = h.to(dtype = torch.float16, device = device(type='cpu'))\n"));
        QVERIFY(g);
        QVERIFY(lowerToAten(*g).ok());
        QVERIFY(!g->find("t"));
        QVERIFY(!g->find("r"));
        Node* h = g->find("h");
        QCOMPARE(h->target(), std::string("torch.ops.aten._to_copy.default"));
        QCOMPARE(h->args[0].node->name(), std::string("x"));
        QCOMPARE(g->outputs()[0].node, h);
    }

    /// torch.tensor(literal) becomes FX's lifted constant: `_tensor_constant0` holding the
    /// literal and aten.lift_fresh_copy of it, named like the torch.tensor node.
    void tensorLiterals() {
        auto g = parse(oneLine("        t: \"i64[2, 2][2, 1]cpu\" = torch.tensor([[1, 2], [3, 4]])\n"
                               "        e: \"f32[0][1]cpu\" = torch.tensor([], dtype = torch.float32)\n"
                               "        h: \"f32[][]cpu\" = torch.tensor(0.5)\n"
                               "        s: \"f32[2, 2][2, 1]cpu\" = t * h\n"
                               "        r: \"f32[2, 2][2, 1]cpu\" = torch.cat([e, s])\n"));
        QVERIFY(g);
        QVERIFY(lowerToAten(*g).ok());
        QCOMPARE(g->constants.size(), size_t(3));
        QVERIFY(g->constants.count("_tensor_constant0"));
        QCOMPARE(g->constants["_tensor_constant0"].dtype(), DType::Int64);
        QCOMPARE(g->constants["_tensor_constant1"].shape(), std::vector<int64_t>({0}));
        QCOMPARE(g->constants["_tensor_constant2"].dtype(), DType::Float32);
        QCOMPARE(g->find("t")->target(), std::string("torch.ops.aten.lift_fresh_copy.default"));
        QCOMPARE(g->find("t")->args[0].node->kind(), NodeKind::GetAttr);
        Value out = runOne(*g, xyi());
        FX_COMPARE_VEC(fxtest::values(out), std::vector<double>({0.5, 1, 1.5, 2}), 0);
    }

    /// The lowered node keeps the torch node's name, annotation and provenance comment;
    /// F.relu(inplace=True) is relu_; side-effect calls disappear.
    void keepsNamesAndDropsSideEffects() {
        auto g =
            parse(oneLine("        _set_grad_enabled = torch._C._set_grad_enabled(False);  _set_grad_enabled = None\n"
                          "        # File: m.py:3 in forward, code: y = F.linear(x, w)\n"
                          "        w: \"f32[2, 3][3, 1]cpu\" = y[(slice(None, 2, None),)]\n"
                          "        linear: \"f32[2, 2][2, 1]cpu\" = torch._C._nn.linear(x, w)\n"
                          "        r: \"f32[2, 2][2, 1]cpu\" = torch.nn.functional.relu(linear, inplace = True)\n"));
        QVERIFY(g);
        QVERIFY(lowerToAten(*g).ok());
        QVERIFY(!g->find("_set_grad_enabled"));
        Node* lin = g->find("linear");
        QCOMPARE(lin->target(), std::string("torch.ops.aten.linear.default"));
        QVERIFY(lin->annotated);
        QCOMPARE(lin->meta[0].annotation(true, true), std::string("f32[2, 2][2, 1]cpu"));
        QVERIFY(lin->sourceComment.find("m.py:3") != std::string::npos);
        QCOMPARE(g->find("r")->target(), std::string("torch.ops.aten.relu_.default"));
    }

    /// An unsupported call is left as it was with a Diagnostic naming the node and the target;
    /// the rest is lowered and the graph stays valid.
    void unsupportedTargetDiagnostic() {
        auto g = parse(oneLine("        a: \"f32[2, 3][3, 1]cpu\" = x.relu()\n"
                               "        b: \"f32[2, 3][3, 1]cpu\" = torch.frobnicate(a)\n"
                               "        r: \"f32[2, 3][3, 1]cpu\" = b + y\n"));
        QVERIFY(g);
        Status st = lowerToAten(*g);
        QVERIFY(!st.ok());
        QCOMPARE(st.error().node, std::string("b"));
        QCOMPARE(st.error().file, std::string("test.py"));
        QCOMPARE(st.error().line, 4);
        QVERIFY2(st.error().message.find("'torch.frobnicate'") != std::string::npos, st.error().message.c_str());
        QVERIFY2(st.error().message.find("no ATen op 'frobnicate'") != std::string::npos, st.error().message.c_str());
        QVERIFY(g->verify().ok());
        QCOMPARE(g->find("a")->target(), std::string("torch.ops.aten.relu.default"));
        QCOMPARE(g->find("b")->target(), std::string("torch.frobnicate"));
        QCOMPARE(g->find("r")->target(), std::string("torch.ops.aten.add.Tensor"));
        QVERIFY(isTorchLevel(*g));
    }

    /// ATen graphs (AOT, export) are not torch-level, and lowering leaves them unchanged.
    void atenGraphsUnchanged() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found at FXRAY_CORPUS_DIR");
        int seen = 0;
        for (const auto& m : modelsWith("graphs")) {
            for (const auto& f : fs::directory_iterator(fxtest::corpus() / m / "graphs")) {
                if (f.path().filename() == "dynamo_graph.py") continue;
                auto g = readFxFile(f.path());
                QVERIFY2(g.ok(), f.path().c_str());
                QVERIFY2(!isTorchLevel(**g), f.path().c_str());
                uint64_t before = (*g)->fingerprint();
                QVERIFY(lowerToAten(**g).ok());
                QVERIFY2((*g)->fingerprint() == before, f.path().c_str());
                ++seen;
            }
        }
        QVERIFY(seen > 20);
    }

    /// User-facing messages of lowering rules, each naming the node.
    void errorMessages_data() {
        QTest::addColumn<QString>("line");
        QTest::addColumn<QString>("message");
        QTest::newRow("method")
            << "r = x.frobnicate()"
            << "cannot lower method 'frobnicate' to ATen: unsupported method (no ATen op 'frobnicate' in fxray)";
        QTest::newRow("module path") << "r = torch.sparse.mm(x, x)"
                                     << "cannot lower 'torch.sparse.mm' to ATen: unsupported torch-level function";
        QTest::newRow("inplace dropout") << "r = torch.nn.functional.dropout(x, 0.5, True, True)"
                                         << "in-place dropout is not supported";
        QTest::newRow("dropout p") << "r = torch.nn.functional.dropout(x, 2.0)"
                                   << "dropout probability must be a number in [0, 1]";
        QTest::newRow("where nonzero") << "r = torch.where(x)"
                                       << "torch.where(condition) (nonzero) is not supported";
        QTest::newRow("index range") << "r = x[5]"
                                     << "index 5 is out of bounds for dimension 0 with size 2";
        QTest::newRow("too many indices") << "r = x[(0, 0, 0)]"
                                          << "too many indices for a tensor of dimension 2";
        QTest::newRow("bool mask") << "r = x[p]"
                                   << "boolean mask indexing is not supported";
        QTest::newRow("view dtype") << "r = x.view(torch.int32)"
                                    << "reinterpreting a tensor as another dtype is not supported";
        QTest::newRow("item") << "r = x.item()"
                              << "the result depends on tensor data (a graph break in Dynamo); not supported";
        QTest::newRow("type string") << "r = x.type('torch.FloatTensor')"
                                     << "only x.type(<torch dtype>) is supported (the string forms are not)";
        QTest::newRow("unexpected keyword") << "r = torch._C._nn.linear(x, y, bogus = 1)"
                                            << "unexpected keyword argument 'bogus'";
        QTest::newRow("too many args") << "r = torch.nn.functional.relu(x, False, 3)"
                                       << "takes at most 2 positional arguments but 3 were given";
        QTest::newRow("max_norm") << "r = torch.nn.functional.embedding(i, x, None, 1.0)"
                                  << "max_norm renormalizes the weight in place; not supported";
        QTest::newRow("softmax dim") << "r = torch.nn.functional.softmax(x)"
                                     << "softmax without an explicit dim is not supported";
        QTest::newRow("no overload") << "r = torch.transpose(x, 0.5, 1)"
                                     << "arguments match no overload of aten.transpose";
        QTest::newRow("missing op") << "r = torch.linalg.cholesky(x)"
                                    << "no ATen op 'linalg_cholesky' in fxray";
        QTest::newRow("autocast on cpu")
            << "a = torch.amp.autocast_mode._enter_autocast('cpu', torch.bfloat16, True, None)\n        r = x + 1"
            << "autocast on 'cpu' is not supported";
        QTest::newRow("autocast to float32")
            << "a = torch.amp.autocast_mode._enter_autocast('cuda', torch.float32, True, None)\n        r = x + 1"
            << "autocast dtype must be torch.float16 or torch.bfloat16";
        QTest::newRow("bad operand") << "r = x + 'a'"
                                     << "operands must be tensors or numbers";
        QTest::newRow("overflow") << "d = 9223372036854775807 + 1\n        r = x.view(d)"
                                  << "integer overflow in size arithmetic";
        QTest::newRow("division by zero") << "d = 6 // 0\n        r = x.view(d)"
                                          << "division by zero";
    }
    void errorMessages() {
        QFETCH(QString, line);
        QFETCH(QString, message);
        std::string body = "        p: \"b8[2, 3][3, 1]cpu\" = x > 0\n        " + line.toStdString() + "\n";
        auto g = parse(oneLine(body));
        if (!g) return;
        Status st = lowerToAten(*g);
        QVERIFY2(!st.ok(), "lowering succeeded");
        QVERIFY2(st.error().message.find(message.toStdString()) != std::string::npos, st.error().message.c_str());
        QVERIFY(!st.error().node.empty());
        QVERIFY(g->verify().ok());
    }

    /// The acceptance check: numerics/dynamo.py lowered and run on the recorded inputs
    /// reproduces PyTorch's recorded outputs.
    /// Torch-level forms that popular models' graphs hold (bench/gen_popular.py): factories with
    /// varargs sizes, min/max of two tensors, outer, and functionals that are ATen ops under the
    /// same name. x = [[1, -2, 3], [-4, 5, -6]], y = [[.5, 1, 2], [4, 8, 16]], i = [1, 0].
    void popularFunctionForms_data() {
        QTest::addColumn<QString>("line");
        QTest::addColumn<QString>("target");
        QTest::addColumn<std::vector<double>>("expected");
        const double h = 1.0 / 3.0;
        QTest::newRow("torch.ones varargs") << "torch.ones(2, 3, device = device(type='cpu'))"
                                            << "aten.ones.default" << std::vector<double>(6, 1.0);
        QTest::newRow("new_zeros varargs") << "y.new_zeros(2, 3)"
                                           << "aten.new_zeros.default" << std::vector<double>(6, 0.0);
        QTest::newRow("torch.min of two tensors")
            << "torch.min(x, y)"
            << "aten.minimum.default" << std::vector<double>{0.5, -2, 2, -4, 5, -6};
        QTest::newRow("torch.max of two tensors") << "torch.max(x, y)"
                                                  << "aten.maximum.default" << std::vector<double>{1, 1, 3, 4, 8, 16};
        // hardswish: x * relu6(x + 3) / 6; hardsigmoid: relu6(x + 3) / 6; relu6: clamp to [0, 6].
        QTest::newRow("F.hardswish") << "torch.nn.functional.hardswish(x)"
                                     << "aten.hardswish.default"
                                     << std::vector<double>{4 * h / 2, -2 * h / 2, 3, 0, 5, 0};
        QTest::newRow("F.hardsigmoid") << "torch.nn.functional.hardsigmoid(x, inplace = False)"
                                       << "aten.hardsigmoid.default"
                                       << std::vector<double>{4 * h / 2, h / 2, 1, 0, 1, 0};
        QTest::newRow("F.relu6") << "torch.nn.functional.relu6(x)"
                                 << "aten.hardtanh.default" << std::vector<double>{1, 0, 3, 0, 5, 0};
        // group_norm with one group over the 3 channels of each row, no affine.
        std::vector<double> gn;
        for (std::vector<double> row : {std::vector<double>{1, -2, 3}, std::vector<double>{-4, 5, -6}}) {
            const double m = (row[0] + row[1] + row[2]) / 3;
            double v = 0;
            for (double e : row) v += (e - m) * (e - m) / 3;
            for (double e : row) gn.push_back((e - m) / std::sqrt(v + 1e-5));
        }
        QTest::newRow("F.group_norm") << "torch.nn.functional.group_norm(x, 1, None, None, 1e-05)"
                                      << "aten.group_norm.default" << gn;
    }
    void popularFunctionForms() {
        QFETCH(QString, line);
        QFETCH(QString, target);
        QFETCH(std::vector<double>, expected);
        auto g = parse(oneLine("        r: \"f32[2, 3][3, 1]cpu\" = " + line.toStdString() + "\n"));
        QVERIFY(g);
        Status s = lowerToAten(*g);
        QVERIFY2(s.ok(), s.ok() ? "" : s.error().str().c_str());
        QCOMPARE(g->find("r")->target(), "torch.ops." + target.toStdString());
        FX_COMPARE_VEC(fxtest::values(runOne(*g, xyi())), expected, 1e-6);
    }

    /// A tuple given for a list parameter (torch.cat((a, b), dim=-1), as Dynamo prints it) is a
    /// list in the ATen node, as in PyTorch's ATen graphs (the CUDA backend's cat reads a list).
    void tuplesForListParameters() {
        auto g = parse(oneLine("        r: \"f32[2, 6][6, 1]cpu\" = torch.cat((x, y), dim = -1)\n"));
        QVERIFY(g);
        QVERIFY(lowerToAten(*g).ok());
        Node* r = g->find("r");
        QCOMPARE(r->target(), std::string("torch.ops.aten.cat.default"));
        QVERIFY(!r->args.empty());
        QVERIFY(r->args[0].kind == Argument::Kind::List);
        FX_COMPARE_VEC(fxtest::values(runOne(*g, xyi())),
                       std::vector<double>({1, -2, 3, 0.5, 1, 2, -4, 5, -6, 4, 8, 16}), 0.0);
    }

    /// torch.outer(a, b) is a[:, None] * b.
    void outerProduct() {
        auto g = parse(oneLine("        j: \"i64[2][1]cpu\" = i + 2\n"
                               "        r: \"i64[2, 2][2, 1]cpu\" = torch.outer(i, j)\n"));
        QVERIFY(g);
        QVERIFY(lowerToAten(*g).ok());
        QCOMPARE(g->find("r")->target(), std::string("torch.ops.aten.mul.Tensor"));
        FX_COMPARE_VEC(fxtest::values(runOne(*g, xyi())), std::vector<double>({3, 2, 0, 0}), 0.0);
    }

    /// Shape-changing forms of popular models: repeat_interleave (GQA's key/value heads),
    /// F.interpolate (UNet, YOLO) and F.pad's reflect/replicate modes on u = x.unsqueeze(0),
    /// [1, 2, 3].
    void resamplingForms_data() {
        QTest::addColumn<QString>("line");
        QTest::addColumn<QString>("ann");
        QTest::addColumn<std::vector<double>>("expected");
        const std::vector<double> twice{1, 1, -2, -2, 3, 3, -4, -4, 5, 5, -6, -6};
        QTest::newRow("repeat_interleave dim 1") << "x.repeat_interleave(2, dim = 1)"
                                                 << "f32[2, 6][6, 1]" << twice;
        QTest::newRow("repeat_interleave flat") << "torch.repeat_interleave(x, 2)"
                                                << "f32[12][1]" << twice;
        QTest::newRow("interpolate nearest x2")
            << "torch.nn.functional.interpolate(u, scale_factor = 2.0, mode = 'nearest')"
            << "f32[1, 2, 6][12, 6, 1]" << twice;
        // linear, align_corners=False: source position (o + 0.5) / 2 - 0.5, clamped at the edges.
        QTest::newRow("interpolate linear size 6")
            << "torch.nn.functional.interpolate(u, size = 6, mode = 'linear', align_corners = False)"
            << "f32[1, 2, 6][12, 6, 1]"
            << std::vector<double>{1, 0.25, -1.25, -0.75, 1.75, 3, -4, -1.75, 2.75, 2.25, -3.25, -6};
        // F.pad's other modes over the last dim: rows [1, -2, 3] and [-4, 5, -6] padded (2, 1).
        QTest::newRow("pad reflect") << "torch.nn.functional.pad(u, (2, 1), mode = 'reflect')"
                                     << "f32[1, 2, 6][12, 6, 1]"
                                     << std::vector<double>{3, -2, 1, -2, 3, -2, -6, 5, -4, 5, -6, 5};
        QTest::newRow("pad replicate") << "torch.nn.functional.pad(u, (2, 1), 'replicate')"
                                       << "f32[1, 2, 6][12, 6, 1]"
                                       << std::vector<double>{1, 1, 1, -2, 3, 3, -4, -4, -4, 5, -6, -6};
    }
    void resamplingForms() {
        QFETCH(QString, line);
        QFETCH(QString, ann);
        QFETCH(std::vector<double>, expected);
        auto g = parse(oneLine("        u: \"f32[1, 2, 3][6, 3, 1]cpu\" = x.unsqueeze(0)\n"
                               "        r: \"" +
                               ann.toStdString() + "cpu\" = " + line.toStdString() + "\n"));
        QVERIFY(g);
        Status s = lowerToAten(*g);
        QVERIFY2(s.ok(), s.ok() ? "" : s.error().str().c_str());
        FX_COMPARE_VEC(fxtest::values(runOne(*g, xyi())), expected, 1e-6);
    }

    /// F.multi_head_attention_forward (nn.MultiheadAttention, no weights asked) against the same
    /// attention written out with torch-level ops in the graph: in_proj slices, q k^T / sqrt(d),
    /// softmax, the value product and out_proj. One head of two dims, query length 3, batch 1.
    void multiHeadAttention() {
        auto g = parse(
            "class GraphModule(torch.nn.Module):\n"
            "    def forward(self, x: \"f32[3, 1, 2][2, 2, 1]cpu\", w: \"f32[6, 2][2, 1]cpu\", b: \"f32[6][1]cpu\", "
            "wo: \"f32[2, 2][2, 1]cpu\", bo: \"f32[2][1]cpu\"):\n"
            "        mha = torch.nn.functional.multi_head_attention_forward(x, x, x, 2, 1, w, b, None, None, False, "
            "0.0, wo, bo, training = True, key_padding_mask = None, need_weights = False, attn_mask = None, "
            "average_attn_weights = True, is_causal = False)\n"
            "        r = mha[0]\n"
            "        wq = w[slice(0, 2, None)]\n"
            "        wk = w[slice(2, 4, None)]\n"
            "        wv = w[slice(4, 6, None)]\n"
            "        bq = b[slice(0, 2, None)]\n"
            "        bk = b[slice(2, 4, None)]\n"
            "        bv = b[slice(4, 6, None)]\n"
            "        q = torch._C._nn.linear(x, wq, bq)\n"
            "        k = torch._C._nn.linear(x, wk, bk)\n"
            "        v = torch._C._nn.linear(x, wv, bv)\n"
            "        qb = q.transpose(0, 1)\n"
            "        kt = k.permute(1, 2, 0)\n"
            "        vb = v.transpose(0, 1)\n"
            "        s = torch.matmul(qb, kt)\n"
            "        s2 = s * 0.7071067811865476\n"
            "        p = torch.softmax(s2, -1)\n"
            "        o = torch.matmul(p, vb)\n"
            "        ot = o.transpose(0, 1)\n"
            "        e = torch._C._nn.linear(ot, wo, bo)\n"
            "        d = r - e\n"
            "        return (d, r)\n");
        QVERIFY(g);
        Status s = lowerToAten(*g);
        QVERIFY2(s.ok(), s.ok() ? "" : s.error().str().c_str());
        std::vector<Value> in;
        uint32_t seed = 7;
        for (std::vector<int64_t> shape : {std::vector<int64_t>{3, 1, 2}, {6, 2}, {6}, {2, 2}, {2}}) {
            std::vector<double> v(static_cast<size_t>(kern::product(shape)));
            for (auto& x : v) x = ((seed = seed * 1664525u + 1013904223u) >> 8) / 16777216.0 - 0.5;
            in.push_back(fxtest::tv(shape, v));
        }
        Value d = runOne(*g, in);
        for (double x : fxtest::values(d)) QVERIFY2(std::abs(x) < 1e-6, qPrintable(QString::number(x)));
        // bias_k (a learned key appended to every sequence) is refused with a message naming it
        // (need_weights=True is lowered now: tst_dynamo_popular checks it).
        auto w = parse(oneLine("        r = torch.nn.functional.multi_head_attention_forward(x, x, x, 3, 1, y, None, "
                               "y, None, False, 0.0, y, None, need_weights = True)\n"));
        QVERIFY(w);
        Status ws = lowerToAten(*w);
        QVERIFY(!ws.ok());
        QVERIFY2(ws.error().str().find("bias_k") != std::string::npos, ws.error().str().c_str());
    }

    void numerics_data() {
        QTest::addColumn<QString>("model");
        for (const auto& m : modelsWith("numerics/dynamo.py")) QTest::newRow(m.c_str()) << QString::fromStdString(m);
    }
    void numerics() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found at FXRAY_CORPUS_DIR");
        QFETCH(QString, model);
        fs::path num = fxtest::corpus() / model.toStdString() / "numerics";
        auto f = loadFile(num / "dynamo.py");
        QVERIFY2(f.ok(), f.ok() ? "" : f.error().str().c_str());
        Graph& g = *f->graphs[0].graph;
        QVERIFY(isTorchLevel(g));
        if (!lowerAndCheck(g, model.toStdString())) return;

        auto phs = g.placeholders();
        auto inputs = readNpyFolder(num / "dynamo" / "inputs", phs.size());
        QVERIFY2(inputs.ok(), inputs.ok() ? "" : inputs.error().str().c_str());
        for (size_t i = 0; i < inputs->size(); ++i)
            if ((*inputs)[i].isTensor()) (*inputs)[i].t = withAnnotatedStrides((*inputs)[i].t, *phs[i]);
        RunRequest req;
        // fxray does not reproduce PyTorch's CUDA generator: a value computed from random ops
        // alone is pinned to what the forward graph of the same run saved under the same source
        // line, dtype and shape (randperm_index_add's index, saved for the backward).
        auto random = purelyRandom(g);
        if (!random.empty()) {
            auto fw = loadFile(num / "forward.py");
            QVERIFY(fw.ok());
            auto fwOuts = fw->graphs[0].graph->outputs();
            auto fwVals = readNpyFolder(num / "forward" / "outputs", fwOuts.size());
            QVERIFY(fwVals.ok());
            for (const Node* n : random) {
                if (n->meta.empty()) continue;
                for (size_t i = 0; i < fwOuts.size(); ++i) {
                    const Node* o = fwOuts[i].isNode() ? fwOuts[i].node : nullptr;
                    if (o && !o->meta.empty() && o->sourceComment == n->sourceComment &&
                        o->meta[0].shape == n->meta[0].shape && o->meta[0].dtype == n->meta[0].dtype &&
                        (*fwVals)[i].isTensor()) {
                        req.pins[n->name()] = (*fwVals)[i];
                        qInfo("pinned %s to forward output %zu (%s)", n->name().c_str(), i, o->name().c_str());
                    }
                }
            }
            QVERIFY2(!req.pins.empty(), "random values are used but none was recorded");
        }
        if (model == "randperm_index_add") {
            QCOMPARE(req.pins.size(), size_t(1));
            QVERIFY(req.pins.count("index"));
        }
        req.inputs = std::move(inputs).value();
        auto expect = readNpyFolder(num / "dynamo" / "outputs", g.outputs().size());
        QVERIFY(expect.ok());
        auto res = runAndCheck(g, req, &*expect);
        QVERIFY2(res.ok(), res.ok() ? "" : res.error().str().c_str());
        int compared = 0;
        for (const auto& c : res->comparisons) {
            if (!c.ok)
                QFAIL(qPrintable(QString("output %1: rel_err %2 (tolerance %3) max_abs_err %4 %5")
                                     .arg(c.index)
                                     .arg(c.relErr)
                                     .arg(c.tolerance)
                                     .arg(c.maxAbsErr)
                                     .arg(QString::fromStdString(c.note))));
            compared += (*expect)[c.index].isTensor();
        }
        QVERIFY(compared > 0);
        qInfo("%s: %zu nodes after lowering, %d outputs match PyTorch", model.toUtf8().constData(), g.size(), compared);
    }

    /// Every graphs/dynamo_graph.py lowers, verifies, resolves and infers in agreement with its
    /// annotations, and gives the op sequence torch.export recorded for the same model.
    void graphs_data() {
        QTest::addColumn<QString>("model");
        for (const auto& m : modelsWith("graphs/dynamo_graph.py"))
            QTest::newRow(m.c_str()) << QString::fromStdString(m);
    }
    void graphs() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found at FXRAY_CORPUS_DIR");
        QFETCH(QString, model);
        fs::path dir = fxtest::corpus() / model.toStdString() / "graphs";
        auto f = loadFile(dir / "dynamo_graph.py");
        QVERIFY2(f.ok(), f.ok() ? "" : f.error().str().c_str());
        Graph& g = *f->graphs[0].graph;
        if (!lowerAndCheck(g, model.toStdString())) return;
        // The lowered graph prints in FX's form and reads back to the same text.
        std::string text = printGraph(g);
        auto again = readFxText(text, "lowered.py");
        QVERIFY2(again.ok(), again.ok() ? "" : again.error().str().c_str());
        QCOMPARE(printGraph(**again), text);
        if (!fs::exists(dir / "export_graph.py")) return;
        auto ex = readFxFile(dir / "export_graph.py");
        QVERIFY(ex.ok());
        std::vector<std::string> ours;
        loweredOps(g, ours);
        auto theirs = exportOps(**ex);
        if (ours != theirs) {
            std::string diff;
            for (size_t i = 0; i < std::max(ours.size(), theirs.size()); ++i) {
                std::string a = i < ours.size() ? ours[i] : "-", b = i < theirs.size() ? theirs[i] : "-";
                if (a != b) {
                    diff = "first difference at op " + std::to_string(i) + ": ours " + a + ", export " + b;
                    break;
                }
            }
            QFAIL(
                qPrintable(QString::fromStdString(model.toStdString() + ": " + std::to_string(ours.size()) +
                                                  " ops vs export's " + std::to_string(theirs.size()) + "; " + diff)));
        }
        qInfo("%s: %zu ATen calls, the same ops and constant arguments as torch.export", model.toUtf8().constData(),
              ours.size());
    }
};

QTEST_GUILESS_MAIN(TestDynamoLowering)
#include "tst_dynamo_lowering.moc"
