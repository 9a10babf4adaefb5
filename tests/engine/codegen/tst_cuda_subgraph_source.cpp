// The CUDA backend compiles subgraph ops' subgraphs ahead, without a GPU (NVRTC to PTX):
// cond_subgraph's two branches (PyTorch's recorded inference graph), a nested cond (a branch
// holding a cond: compiled recursively) and checkpointed's activation-checkpoint body each
// become kernels of their own, and the ops are no longer host fallbacks (what `compile
// --backend cuda --json` reports as backend.fallbacks).
#include "numerics_case.h"
#include "subgraph_cases.h"

#include "codegen/cuda/cuda_backend.h"

using namespace fxray;

namespace {

/// The extern call step of node `name` in so's program and its subgraph entry.
const cg::cuda::SubgraphSources* subgraphsOf(const cg::cuda::SourceOnly& so, const std::string& name) {
    for (const auto& [ci, ss] : so.subgraphs)
        if (so.program.lowered.calls[ci].node->name() == name) return &ss;
    return nullptr;
}

bool hasKernelFor(const cg::cuda::SourceOnly& so, const std::string& node) {
    for (const auto& k : so.program.kernels)
        for (const auto& n : k.nodes)
            if (n == node) return true;
    return false;
}

std::string fallbacksOf(const cg::cuda::SourceOnly& so) {
    std::string s;
    for (const auto& [op, n] : so.fallbacks) s += op + " x" + std::to_string(n) + " ";
    return s;
}

/// Every kernel of so (and of its subgraphs) is in its PTX.
bool ptxHasKernels(const cg::cuda::SourceOnly& so) {
    for (const auto& plan : so.source.plans)
        if (so.compiled.image.find(plan.name) == std::string::npos) return false;
    for (const auto& [ci, ss] : so.subgraphs)
        for (const auto& sg : ss.graphs)
            if (!ptxHasKernels(sg)) return false;
    return true;
}

}  // namespace

class TestCudaSubgraphSource : public QObject {
    Q_OBJECT
private slots:
    void init() {
        const auto& rt = cg::cuda::runtime();
        if (!rt.haveNvrtc) QSKIP(qPrintable(QString::fromStdString("NVRTC cannot be loaded: " + rt.whyNoNvrtc)));
    }

    void cond_branches_compiled() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found at FXRAY_CORPUS_DIR");
        fxtest::NumericsCase nc;
        const std::string problem = fxtest::loadNumericsCase("cond_subgraph", "inference", nc);
        QVERIFY2(problem.empty(), problem.c_str());
        auto so = cg::cuda::compileSourceOnly(nc.graph(), nc.req.inputs, "compute_80");
        QVERIFY2(so.ok(), so.ok() ? "" : so.error().str().c_str());
        QVERIFY2(so->fallbacks.empty(), fallbacksOf(*so).c_str());
        QVERIFY(so->program.lowered.fallbackOps.empty());
        // The cond is an extern step ("subgraph"), as the step reports show it.
        bool condStep = false;
        for (const auto& gr : so->program.groups)
            if (gr.node == "cond") condStep = gr.kind == cg::NodeGroup::Kind::Extern && gr.kernelName == "subgraph";
        QVERIFY(condStep);
        const cg::cuda::SubgraphSources* ss = subgraphsOf(*so, "cond");
        QVERIFY(ss);
        QVERIFY(ss->call.isCond);
        QCOMPARE(ss->graphs.size(), size_t(2));
        QCOMPARE(ss->graphs[0].graph, nc.graph().subgraph("true_graph_0"));
        QCOMPARE(ss->graphs[1].graph, nc.graph().subgraph("false_graph_0"));
        // Operands (arg2_1 b, arg1_1 W, arg0_1 x): the branches are compiled for their metadata.
        QCOMPARE(ss->call.operandMetas.size(), size_t(3));
        QCOMPARE(ss->call.operandMetas[0].t.shape(), std::vector<int64_t>({32}));
        QCOMPARE(ss->call.operandMetas[2].t.shape(), std::vector<int64_t>({8, 32}));
        // relu in the true branch, sigmoid in the false one: each a generated kernel in the PTX.
        QVERIFY(hasKernelFor(ss->graphs[0], "relu"));
        QVERIFY(hasKernelFor(ss->graphs[1], "sigmoid"));
        QVERIFY(!hasKernelFor(ss->graphs[0], "sigmoid"));
        QVERIFY(ss->graphs[0].compiled.image.find(".entry") != std::string::npos);
        QVERIFY(ss->graphs[1].compiled.image.find(".entry") != std::string::npos);
        QVERIFY(ptxHasKernels(*so));
        for (const auto& sg : ss->graphs) QVERIFY2(sg.fallbacks.empty(), fallbacksOf(sg).c_str());
    }

    void nested_cond_compiled_recursively() {
        auto f = fxtest::loadSubgraphCase("nested_cond.py");
        QVERIFY(f);
        Graph& g = f->graphs[0].executable();
        auto inputs = cg::cuda::annotatedInputs(g);
        QVERIFY2(inputs.ok(), inputs.ok() ? "" : inputs.error().str().c_str());
        auto so = cg::cuda::compileSourceOnly(g, *inputs, "compute_80");
        QVERIFY2(so.ok(), so.ok() ? "" : so.error().str().c_str());
        QVERIFY2(so->fallbacks.empty(), fallbacksOf(*so).c_str());
        const cg::cuda::SubgraphSources* outer = subgraphsOf(*so, "cond");
        QVERIFY(outer);
        QCOMPARE(outer->graphs.size(), size_t(2));
        // The transposed operand keeps its layout in the branches' inputs.
        QCOMPARE(outer->call.operandMetas[1].t.meta.strides, std::vector<int64_t>({1, 4}));
        const cg::cuda::SourceOnly& trueBranch = outer->graphs[0];
        QVERIFY(hasKernelFor(trueBranch, "mul"));
        QVERIFY(subgraphsOf(outer->graphs[1], "cond") == nullptr);
        const cg::cuda::SubgraphSources* inner = subgraphsOf(trueBranch, "cond");
        QVERIFY(inner);
        QCOMPARE(inner->graphs.size(), size_t(2));
        QCOMPARE(inner->graphs[0].graph, g.subgraph("true_graph_0")->subgraph("true_graph_0"));
        QVERIFY(hasKernelFor(inner->graphs[0], "add"));
        QVERIFY(hasKernelFor(inner->graphs[1], "exp"));
        QVERIFY(ptxHasKernels(*so));
    }

    void checkpoint_body_compiled() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found at FXRAY_CORPUS_DIR");
        auto f = loadFile(fxtest::corpus() / "checkpointed" / "numerics" / "dynamo.py");
        QVERIFY2(f.ok(), f.ok() ? "" : f.error().str().c_str());
        Graph& g = f->graphs[0].executable();
        std::string hop;
        for (const auto& n : g.nodes())
            if (n->opName() == "higher_order.tag_activation_checkpoint") hop = n->name();
        QVERIFY(!hop.empty());
        auto inputs = cg::cuda::annotatedInputs(g);
        QVERIFY2(inputs.ok(), inputs.ok() ? "" : inputs.error().str().c_str());
        auto so = cg::cuda::compileSourceOnly(g, *inputs, "compute_80");
        QVERIFY2(so.ok(), so.ok() ? "" : so.error().str().c_str());
        QVERIFY2(so->fallbacks.count("higher_order.tag_activation_checkpoint") == 0, fallbacksOf(*so).c_str());
        const cg::cuda::SubgraphSources* ss = subgraphsOf(*so, hop);
        QVERIFY(ss);
        QVERIFY(!ss->call.isCond);
        QCOMPARE(ss->graphs.size(), size_t(1));
        QCOMPARE(ss->call.operandMetas.size(), size_t(5));
        QVERIFY(!ss->graphs[0].program.kernels.empty());
        QVERIFY(ptxHasKernels(*so));
        qInfo("fallbacks (the body's included): %s", fallbacksOf(*so).c_str());
    }
};

QTEST_GUILESS_MAIN(TestCudaSubgraphSource)
#include "tst_cuda_subgraph_source.moc"
