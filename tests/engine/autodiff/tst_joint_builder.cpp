// The joint-graph builder on hand-written graphs: signature (primals, tangents, outputs), which
// inputs get gradients, decompositions as at::linear / matmul spell them, functionalised
// mutations, dead-code removal, FX naming, checkpoint bodies, and the error for each bad input.
#include "test_util.h"

#include "autodiff/fx_namer.h"
#include "autodiff/joint_builder.h"
#include "exec/run_check.h"
#include "exec/shape_inference.h"
#include "import/fx_text_reader.h"
#include "ir/printer.h"

using namespace fxray;

namespace {

std::unique_ptr<Graph> parse(const std::string& params, const std::string& body) {
    std::string text = "class GraphModule(torch.nn.Module):\n    def forward(self, " + params + "):\n" + body;
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

/// Call targets of the joint graph in order, without the `torch.ops.aten.` prefix (getitem and
/// get_attr shown as such).
std::vector<std::string> ops(const Graph& g) {
    std::vector<std::string> out;
    for (const auto& n : g.nodes()) {
        if (n->kind() == NodeKind::GetAttr) out.push_back("get_attr");
        if (n->kind() != NodeKind::CallFunction) continue;
        std::string t = n->opName();
        if (t.rfind("aten.", 0) == 0) t = t.substr(5);
        if (t == "operator.getitem") t = "getitem";
        out.push_back(t);
    }
    return out;
}

std::vector<std::string> names(const std::vector<Node*>& nodes) {
    std::vector<std::string> out;
    for (const Node* n : nodes) out.push_back(n->name());
    return out;
}

std::string outputsText(const Graph& g) {
    std::string s;
    for (const auto& a : g.outputs()) s += (s.empty() ? "" : ", ") + a.repr();
    return s;
}

}  // namespace

class TestJointBuilder : public QObject {
    Q_OBJECT
private slots:
    /// An export-style graph: parameters require grad, the user input and the integer buffer
    /// do not; the buffer's in-place update comes first among the outputs.
    void signature() {
        auto g = parse(R"(p_w: "f32[4, 3]", b_n: "i64[]", x: "f32[2, 3]")",
                       "        add_ = torch.ops.aten.add_.Tensor(b_n, 1)\n"
                       "        linear = torch.ops.aten.linear.default(x, p_w)\n"
                       "        relu = torch.ops.aten.relu.default(linear)\n"
                       "        return (relu,)\n");
        auto j = buildJointGraph(*g);
        QVERIFY2(j.ok(), j.ok() ? "" : j.error().str().c_str());
        const Graph& jg = *j->graph;
        QCOMPARE(jg.className, std::string("inner_f"));
        QCOMPARE(jg.signature.pytreeGroups, (std::vector<std::string>{"primals", "tangents"}));
        QVERIFY(jg.signature.pytreeReturn);
        QCOMPARE(names(jg.placeholders()),
                 (std::vector<std::string>{"primals_1", "primals_2", "primals_3", "tangents_1"}));
        QCOMPARE(j->primalSources, (std::vector<std::string>{"p_w", "b_n", "x"}));
        QCOMPARE(j->requiresGrad, (std::vector<bool>{true, false, false}));
        QCOMPARE(j->numMutatedInputs, size_t(1));
        QCOMPARE(j->numForwardOutputs, size_t(1));
        QCOMPARE(j->tangentOutputs, (std::vector<size_t>{1}));
        // x is 2-D without bias: matmul(x, w.t()) = mm; relu saves its result (detach pairs).
        QCOMPARE(ops(jg), (std::vector<std::string>{"add.Tensor", "t.default", "mm.default", "relu.default",
                                                    "detach.default", "detach.default", "threshold_backward.default",
                                                    "t.default", "mm.default", "t.default", "t.default"}));
        QCOMPARE(outputsText(jg), std::string("add, relu, t_3, None, None"));
        QVERIFY(jg.verify().ok());
    }

    void gradInputPolicies() {
        auto plain = parse(R"(a: "f32[3]", b: "f32[3]", i: "i64[3]")", "        mul = torch.ops.aten.mul.Tensor(a, b)\n"
                                                                       "        return (mul,)\n");
        auto all = buildJointGraph(*plain);
        QVERIFY(all.ok());
        QCOMPARE(all->requiresGrad, (std::vector<bool>{true, true, false}));
        JointOptions listed;
        listed.gradInputs = GradInputs::Listed;
        listed.requiresGrad = {"b"};
        auto one = buildJointGraph(*plain, listed);
        QVERIFY(one.ok());
        QCOMPARE(one->requiresGrad, (std::vector<bool>{false, true, false}));
        // d(a*b)/db = grad * a: one mul in the backward.
        QCOMPARE(ops(*one->graph), (std::vector<std::string>{"mul.Tensor", "mul.Tensor"}));
        listed.requiresGrad = {"i"};
        auto bad = buildJointGraph(*plain, listed);
        QVERIFY(!bad.ok());
        QCOMPARE(bad.error().node, std::string("i"));
        QVERIFY(bad.error().message.find("not floating point") != std::string::npos);
        // Nothing requires grad: no tangents, every gradient None.
        listed.requiresGrad = {};
        auto none = buildJointGraph(*plain, listed);
        QVERIFY(none.ok());
        QCOMPARE(none->numTangents, size_t(0));
        QCOMPARE(outputsText(*none->graph), std::string("mul, None, None, None"));
    }

    void primalOrder() {
        auto g = parse(R"(p_w: "f32[3]", x: "f32[3]")", "        mul = torch.ops.aten.mul.Tensor(x, p_w)\n"
                                                        "        return (mul,)\n");
        JointOptions o;
        o.primalOrder = {"x", "p_w"};
        auto j = buildJointGraph(*g, o);
        QVERIFY(j.ok());
        QCOMPARE(j->primalSources, (std::vector<std::string>{"x", "p_w"}));
        QCOMPARE(outputsText(*j->graph), std::string("mul, None, mul_1"));
        for (auto [order, msg] : {std::pair<std::vector<std::string>, const char*>{{"x"}, "leaves out input 'p_w'"},
                                  {{"x", "x", "p_w"}, "names 'x' twice"},
                                  {{"x", "p_w", "y"}, "'y', which is not an input"}}) {
            o.primalOrder = order;
            auto r = buildJointGraph(*g, o);
            QVERIFY(!r.ok());
            QVERIFY2(r.error().message.find(msg) != std::string::npos, r.error().message.c_str());
        }
    }

    /// at::linear: addmm for 2-D inputs with a bias; for contiguous 3-D inputs the flatten +
    /// addmm + view path; for a non-contiguous 3-D input matmul's folded mm plus the bias.
    void linearDecompositions() {
        auto g = parse(R"(p_w: "f32[5, 4]", p_b: "f32[5]", x: "f32[2, 3, 4]")",
                       "        transpose = torch.ops.aten.transpose.int(x, 0, 1)\n"
                       "        linear = torch.ops.aten.linear.default(x, p_w, p_b)\n"
                       "        linear_1 = torch.ops.aten.linear.default(transpose, p_w, p_b)\n"
                       "        return (linear, linear_1)\n");
        auto j = buildJointGraph(*g);
        QVERIFY2(j.ok(), j.ok() ? "" : j.error().str().c_str());
        auto o = ops(*j->graph);
        std::vector<std::string> fwd(o.begin(), o.begin() + 11);
        QCOMPARE(fwd, (std::vector<std::string>{"transpose.int", "view.default", "t.default", "addmm.default",
                                                "view.default", "t.default", "clone.default", "_unsafe_view.default",
                                                "mm.default", "_unsafe_view.default", "add.Tensor"}));
        QCOMPARE(j->numTangents, size_t(2));
    }

    /// Unused forward values disappear; the names they took stay taken, and FX never names a
    /// node after a Python builtin.
    void deadCodeAndNames() {
        auto g = parse(R"(x: "f32[2, 3]")", "        sum_1 = torch.ops.aten.sum.dim_IntList(x, [1])\n"
                                            "        exp = torch.ops.aten.exp.default(x)\n"
                                            "        sum_2 = torch.ops.aten.sum.dim_IntList(x, [0])\n"
                                            "        return (sum_2,)\n");
        JointOptions o;
        o.skipDeadSourceNodes = false;
        auto j = buildJointGraph(*g, o);
        QVERIFY(j.ok());
        QCOMPARE(ops(*j->graph), (std::vector<std::string>{"sum.dim_IntList", "unsqueeze.default", "expand.default"}));
        QCOMPARE(j->graph->nodes()[2]->name(), std::string("sum_2"));
        QCOMPARE(j->deadNodesRemoved, size_t(3));  // sum_1, exp and exp's saved detach
        FxNamer n;
        QCOMPARE(n.create("sum"), std::string("sum_1"));
        QCOMPARE(n.create("sum"), std::string("sum_2"));
        QCOMPARE(n.create("view"), std::string("view"));
        QCOMPARE(n.create("view"), std::string("view_1"));
        QCOMPARE(n.create("primals_3"), std::string("primals_3"));
        QCOMPARE(n.create("slice"), std::string("slice_1"));
        QCOMPARE(opPacketName("aten._softmax.default"), std::string_view("_softmax"));
    }

    /// Lifted constants become `_tensor_constantN` attributes where first used, with their values.
    void constants() {
        auto g = parse(R"(p_w: "f32[3]", c_lifted_tensor_0: "f32[]", x: "f32[3]")",
                       "        lift_fresh_copy = torch.ops.aten.lift_fresh_copy.default(c_lifted_tensor_0)\n"
                       "        detach_ = torch.ops.aten.detach_.default(lift_fresh_copy)\n"
                       "        mul = torch.ops.aten.mul.Tensor(p_w, detach_)\n"
                       "        return (mul,)\n");
        JointOptions o;
        o.constantValues["c_lifted_tensor_0"] = fxtest::tensor({}, {2.5});
        auto j = buildJointGraph(*g, o);
        QVERIFY2(j.ok(), j.ok() ? "" : j.error().str().c_str());
        QCOMPARE(j->primalSources, (std::vector<std::string>{"p_w", "x"}));
        QCOMPARE(ops(*j->graph),
                 (std::vector<std::string>{"get_attr", "lift_fresh_copy.default", "mul.Tensor", "mul.Tensor"}));
        QVERIFY(j->graph->constants.count("_tensor_constant0"));
        QCOMPARE(fxtest::values(Value::ofTensor(j->graph->constants.at("_tensor_constant0"))),
                 std::vector<double>{2.5});
    }

    /// An in-place op's saved output is detached in the backward (as in PyTorch's resnet18 joint).
    void inplaceSavedResult() {
        auto g = parse(R"(x: "f32[4]")", "        mul = torch.ops.aten.mul.Tensor(x, 2.0)\n"
                                         "        relu_ = torch.ops.aten.relu_.default(mul)\n"
                                         "        return (relu_,)\n");
        auto j = buildJointGraph(*g);
        QVERIFY(j.ok());
        QCOMPARE(ops(*j->graph),
                 (std::vector<std::string>{"mul.Tensor", "relu.default", "detach.default", "detach.default",
                                           "threshold_backward.default", "mul.Tensor"}));
        // The live pair is detach_3/detach_4: names of the dead ones PyTorch also emits are taken.
        QCOMPARE(j->graph->nodes()[4]->name(), std::string("detach_3"));
    }

    /// A checkpointed body is traced inline; its forward nodes carry the region id.
    void checkpointBody() {
        const char* text = "class GraphModule(torch.nn.Module):\n"
                           "    def forward(self, x: \"f32[3]\"):\n"
                           "        wrap_body_0 = self.wrap_body_0\n"
                           "        tag_activation_checkpoint = "
                           "torch.ops.higher_order.tag_activation_checkpoint(wrap_body_0, x, use_reentrant = False)\n"
                           "        getitem = tag_activation_checkpoint[0]\n"
                           "        mul = torch.ops.aten.mul.Tensor(getitem, 3.0)\n"
                           "        return (mul,)\n"
                           "    class wrap_body_0(torch.nn.Module):\n"
                           "        def forward(self, x: \"f32[3]\"):\n"
                           "            sin = torch.ops.aten.exp.default(x)\n"
                           "            return (sin,)\n";
        auto g = readFxText(text, "ckpt.py");
        QVERIFY2(g.ok(), g.ok() ? "" : g.error().str().c_str());
        resolveOps(**g);
        inferMeta(**g);
        auto j = buildJointGraph(**g);
        QVERIFY2(j.ok(), j.ok() ? "" : j.error().str().c_str());
        QCOMPARE(ops(*j->graph), (std::vector<std::string>{"exp.default", "detach.default", "mul.Tensor", "mul.Tensor",
                                                           "detach.default", "mul.Tensor"}));
        QCOMPARE(j->checkpointRegion.size(), size_t(2));  // exp and its saved detach
        QCOMPARE(j->checkpointRegion.at("exp"), 1);
    }

    /// embedding's gradient skips the padding row (PyTorch's semantics, not the derivative of
    /// the forward), computed by embedding_dense_backward with the padding index.
    void embeddingPadding() {
        auto g = parse(R"(p_w: "f32[3, 2]", idx: "i64[3]")",
                       "        embedding = torch.ops.aten.embedding.default(p_w, idx, 2)\n"
                       "        return (embedding,)\n");
        auto j = buildJointGraph(*g);
        QVERIFY(j.ok());
        QCOMPARE(ops(*j->graph), (std::vector<std::string>{"embedding.default", "embedding_dense_backward.default"}));
        RunRequest req;
        req.inputs = {fxtest::tv({3, 2}, {1, 2, 3, 4, 5, 6}), fxtest::tv({3}, {0, 2, 2}, DType::Int64),
                      fxtest::tv({3, 2}, {1, 1, 1, 1, 1, 1})};
        auto r = runAndCheck(*j->graph, req, nullptr);
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().str().c_str());
        FX_COMPARE_VEC(fxtest::values(r->outputs[1]), (std::vector<double>{1, 1, 0, 0, 0, 0}), 0.0);
    }

    /// Each bad input gives a Diagnostic that names the node and says why.
    void errors() {
        struct Bad {
            const char* params;
            const char* body;
            const char* node;
            const char* message;
        };
        const Bad cases[] = {
            {R"(x: "f32[3, 4]")",
             "        svd = torch.ops.aten._linalg_svd.default(x)\n        u = svd[0]\n        return (u,)\n", "svd",
             "no VJP rule for aten._linalg_svd.default"},
            {R"(x: "f32[3, 4]")", "        relu = x.relu()\n        return (relu,)\n", "relu",
             "lower the graph to ATen first"},
            {R"(x: "f32[3, 4]")", "        foo = torch.ops.aten.not_an_op.default(x)\n        return (foo,)\n", "foo",
             "unknown op"},
            {R"(x: "f32[3, 4]")", "        s = torch.ops.aten.slice.Tensor(x, 1, 0, 4, 2)\n        return (s,)\n",
             "slice_1", "slice with step 2"},
        };
        for (const auto& c : cases) {
            auto g = parse(c.params, c.body);
            auto r = buildJointGraph(*g);
            QVERIFY2(!r.ok(), c.message);
            QVERIFY2(r.error().str().find(c.node) != std::string::npos, r.error().str().c_str());
            QVERIFY2(r.error().message.find(c.message) != std::string::npos, r.error().message.c_str());
        }
        // A joint or backward graph is not a forward graph.
        auto joint = parse(R"(primals_1: "f32[3]", tangents_1: "f32[3]")",
                           "        mul = torch.ops.aten.mul.Tensor(tangents_1, primals_1)\n        return (mul,)\n");
        auto rj = buildJointGraph(*joint);
        QVERIFY(!rj.ok());
        QCOMPARE(rj.error().node, std::string("tangents_1"));
        QVERIFY(rj.error().message.find("already takes tangents") != std::string::npos);
        // A placeholder without tensor metadata (an unannotated repro).
        auto g = readFxText("class Repro(torch.nn.Module):\n    def forward(self, x):\n"
                            "        relu = torch.ops.aten.relu.default(x)\n        return (relu,)\n",
                            "repro.py");
        QVERIFY(g.ok());
        resolveOps(**g);
        auto r = buildJointGraph(**g);
        QVERIFY(!r.ok());
        QCOMPARE(r.error().node, std::string("x"));
        QVERIFY(r.error().message.find("no tensor metadata") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestJointBuilder)
#include "tst_joint_builder.moc"
