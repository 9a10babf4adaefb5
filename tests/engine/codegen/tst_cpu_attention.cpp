// The CPU backend's fused-attention extern kernels (codegen/cpu/extern_attention.cpp).
// 1. Against PyTorch: every corpus joint graph in which the joint pipeline's fuse_attention puts
//    a fused attention op is compiled for the CPU after the pipeline and run on PyTorch's
//    recorded inputs; the outputs (loss, activations, every gradient) must match PyTorch's
//    recorded outputs (rel_err <= 1e-4), with no reference-kernel fallback for the fused ops.
// 2. Against the reference kernels (exec/ops/attention.cpp, fp64) on the cases the corpus does
//    not reach: a causal mask, a broadcast additive bias with its gradient, dropout (same seed:
//    both use the same keep-mask), for the forward and the backward.
// 3. Graphs of cuDNN's attention (forward and backward, fp32 and bf16, causal, bias) and of
//    _efficient_attention_forward / _efficient_attention_backward's bottom-right causal mask
//    compile with no fallback and match
//    the reference executor; they lower for CUDA with no fallback too.
#include "cpu_lowering_check.h"
#include "numerics_case.h"

#include "codegen/cpu/cpu_backend.h"
#include "codegen/cpu/extern_table.h"
#include "exec/compare.h"
#include "exec/exec_context.h"
#include "exec/interpreter.h"
#include "exec/ops/kernel_util.h"
#include "exec/run_check.h"
#include "transforms/passes.h"

#include <random>

using namespace fxray;

namespace {

Value randn(std::vector<int64_t> shape, uint32_t seed) {
    TensorMeta m = TensorMeta::contiguous(shape, DType::Float32, Device{});
    std::mt19937 gen(seed);
    std::normal_distribution<double> dist(0.0, 1.0);
    std::vector<double> v(static_cast<size_t>(m.numel()));
    for (auto& x : v) x = dist(gen);
    return Value::ofTensor(kern::makeTensor(m, v));
}

/// Allocated outputs shaped like the meta function says (what the compiled backend passes).
/// The CPU backend's extern kernel `name`, run as CompiledGraph::run dispatches it.
bool runExtern(const char* name, const OpArgs& a, const std::vector<Tensor*>& outs, ExecContext& ctx) {
    const cg::cpu::CpuExtern* x = cg::cpu::findCpuExtern(name);
    return x && x->run(a, outs, ctx);
}

std::vector<Tensor> allocateLike(const Value& meta) {
    std::vector<Tensor> r;
    for (const auto& v : meta.list) {
        if (!v.isTensor()) {
            r.emplace_back();
            continue;
        }
        r.push_back(kern::makeTensor(v.t.meta, std::vector<double>(static_cast<size_t>(v.t.meta.numel()), 0.0)));
    }
    return r;
}

void expectClose(const Tensor& ours, const Tensor& ref, const char* what) {
    auto c = compareValues(0, Value::ofTensor(ours), Value::ofTensor(ref));
    QVERIFY2(c.ok, qPrintable(QString("%1: rel_err %2 max_abs_err %3").arg(what).arg(c.relErr).arg(c.maxAbsErr)));
    QCOMPARE(ours.meta.strides, ref.meta.strides);
}

}  // namespace

class TestCpuAttention : public QObject {
    Q_OBJECT
private slots:

    void jointPipeline_data() {
        QTest::addColumn<QString>("model");
        if (!fxtest::haveCorpus()) return;
        for (const auto& m : std::filesystem::directory_iterator(fxtest::corpus()))
            if (std::filesystem::exists(m.path() / "numerics" / "joint.py"))
                QTest::newRow(m.path().filename().string().c_str())
                    << QString::fromStdString(m.path().filename().string());
    }

    void jointPipeline() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found at FXRAY_CORPUS_DIR");
        QFETCH(QString, model);
        fxtest::NumericsCase nc;
        const std::string problem = fxtest::loadNumericsCase(model.toStdString(), "joint", nc);
        QVERIFY2(problem.empty(), problem.c_str());
        Graph& g = nc.graph();
        auto pm = buildPipeline("joint");
        QVERIFY(pm.ok());
        CompileTrace trace = (*pm)->run(g);
        QVERIFY(trace.failures.empty());
        int fused = 0;
        for (const auto& n : g.nodes()) fused += n->target().find("scaled_dot_product") != std::string::npos;
        if (fused == 0) QSKIP("fuse_attention puts no fused attention op into this model's joint graph");
        for (const auto& [name, v] : nc.req.pins) QVERIFY(g.find(name));
        cg::cpu::CpuRunInfo info;
        auto res = cg::cpu::runAndCheckCpu(g, nc.req, &nc.expect, &info);
        QVERIFY2(res.ok(), res.ok() ? "" : res.error().str().c_str());
        int compared = 0;
        for (const auto& c : res->comparisons) {
            QVERIFY2(c.ok, qPrintable(QString("output %1: rel_err %2 (tolerance %3) %4")
                                          .arg(c.index)
                                          .arg(c.relErr)
                                          .arg(c.tolerance)
                                          .arg(QString::fromStdString(c.note))));
            compared += nc.expect[c.index].isTensor();
        }
        QVERIFY(compared > 0);
        for (const auto& [op, n] : info.fallbacks)
            QVERIFY2(op.find("scaled_dot_product") == std::string::npos,
                     qPrintable(QString::fromStdString("fallback: " + op)));
    }

    void againstReference_data() {
        QTest::addColumn<bool>("causal");
        QTest::addColumn<bool>("bias");
        QTest::addColumn<double>("dropout");
        QTest::newRow("plain") << false << false << 0.0;
        QTest::newRow("causal") << true << false << 0.0;
        QTest::newRow("bias") << false << true << 0.0;
        QTest::newRow("dropout") << false << false << 0.3;
        QTest::newRow("causal+bias+dropout") << true << true << 0.2;
    }

    void againstReference() {
        QFETCH(bool, causal);
        QFETCH(bool, bias);
        QFETCH(double, dropout);
        const int64_t B = 2, H = 3, M = 5, N = 7, K = 4, Kv = 6;
        Value q = randn({B, H, M, K}, 1), k = randn({B, H, N, K}, 2), v = randn({B, H, N, Kv}, 3);
        Value b = bias ? randn({1, H, M, N}, 4) : Value::none();
        std::vector<Value> args{q, k, v, b, Value::ofBool(true), Value::ofDouble(dropout), Value::ofBool(causal)};
        ExecContext refCtx(42), ourCtx(42);
        auto ref = invokeOp("aten._scaled_dot_product_efficient_attention.default", args, {}, &refCtx);
        QVERIFY2(ref.ok(), ref.ok() ? "" : ref.error().str().c_str());
        auto meta = invokeOp("aten._scaled_dot_product_efficient_attention.default", args);
        QVERIFY(meta.ok());
        auto outs = allocateLike(*meta);
        std::vector<Tensor*> ptrs;
        for (auto& t : outs) ptrs.push_back(&t);
        auto op = OpRegistry::instance().find("aten._scaled_dot_product_efficient_attention.default");
        QVERIFY(op);
        auto bound = bindArgs(*op, args, {});
        QVERIFY(bound.ok());
        QVERIFY(runExtern("sdpa_efficient", *bound, ptrs, ourCtx));
        expectClose(outs[0], ref->list[0].t, "output");
        // logsumexp: the rows past M are padding (+inf on both sides).
        auto lo = kern::toDoubles(outs[1]), lr = kern::toDoubles(ref->list[1].t);
        QCOMPARE(lo.size(), lr.size());
        for (size_t i = 0; i < lo.size(); ++i)
            QVERIFY2(std::isinf(lr[i]) ? std::isinf(lo[i]) : std::abs(lo[i] - lr[i]) < 1e-4,
                     qPrintable(QString("lse %1").arg(i)));
        QCOMPARE(kern::toDoubles(outs[2]), kern::toDoubles(ref->list[2].t));  // the dropout seed

        // Backward from the reference forward's output, logsumexp and seed.
        Value gO = randn({B, H, M, Kv}, 5);
        Value mask =
            Value::ofList({Value::ofBool(true), Value::ofBool(true), Value::ofBool(true), Value::ofBool(bias)});
        std::vector<Value> bargs{gO,
                                 q,
                                 k,
                                 v,
                                 b,
                                 ref->list[0],
                                 ref->list[1],
                                 ref->list[2],
                                 ref->list[3],
                                 Value::ofDouble(dropout),
                                 mask,
                                 Value::ofBool(causal)};
        ExecContext ctx2(0);
        auto refB = invokeOp("aten._scaled_dot_product_efficient_attention_backward.default", bargs, {}, &ctx2);
        QVERIFY2(refB.ok(), refB.ok() ? "" : refB.error().str().c_str());
        auto metaB = invokeOp("aten._scaled_dot_product_efficient_attention_backward.default", bargs);
        QVERIFY(metaB.ok());
        auto gouts = allocateLike(*metaB);
        std::vector<Tensor*> gptrs;
        for (size_t i = 0; i < gouts.size(); ++i) gptrs.push_back(metaB->list[i].isTensor() ? &gouts[i] : nullptr);
        auto opB = OpRegistry::instance().find("aten._scaled_dot_product_efficient_attention_backward.default");
        auto boundB = bindArgs(*opB, bargs, {});
        QVERIFY(boundB.ok());
        QVERIFY(runExtern("sdpa_efficient_backward", *boundB, gptrs, ctx2));
        expectClose(gouts[0], refB->list[0].t, "grad_query");
        expectClose(gouts[1], refB->list[1].t, "grad_key");
        expectClose(gouts[2], refB->list[2].t, "grad_value");
        QCOMPARE(refB->list[3].isTensor(), bias);
        if (bias) expectClose(gouts[3], refB->list[3].t, "grad_bias");
    }

    void graphsWithoutFallback_data() {
        QTest::addColumn<QString>("op");  // cudnn | efficient
        QTest::addColumn<QString>("dtype");
        QTest::addColumn<bool>("causal");
        QTest::addColumn<bool>("bias");
        QTest::addColumn<QString>("dims");  // M,N
        QTest::newRow("cudnn f32 causal") << "cudnn"
                                          << "f32" << true << false << "6,6";
        QTest::newRow("cudnn bf16 bias") << "cudnn"
                                         << "bf16" << false << true << "5,7";
        QTest::newRow("cudnn bf16 causal+bias") << "cudnn"
                                                << "bf16" << true << true << "7,7";
        QTest::newRow("efficient bottom-right M < N") << "efficient"
                                                      << "f32" << true << false << "5,9";
        QTest::newRow("efficient bottom-right M > N, bias") << "efficient"
                                                            << "f32" << true << true << "9,4";
        QTest::newRow("efficient bottom-right M == N, bf16") << "efficient"
                                                             << "bf16" << true << false << "6,6";
    }

    void graphsWithoutFallback() {
        QFETCH(QString, op);
        QFETCH(QString, dtype);
        QFETCH(bool, causal);
        QFETCH(bool, bias);
        QFETCH(QString, dims);
        const int64_t B = 2, H = 3, K = 8, Kv = 8;
        const int64_t M = dims.section(',', 0, 0).toLongLong(), N = dims.section(',', 1, 1).toLongLong();
        const std::string t = dtype.toStdString();
        auto annS = [&](std::vector<int64_t> shape, std::vector<int64_t> strides, const std::string& dt) {
            auto str = [](const std::vector<int64_t>& v) {
                std::string r;
                for (size_t i = 0; i < v.size(); ++i) r += (i ? ", " : "") + std::to_string(v[i]);
                return r;
            };
            return "\"" + dt + "[" + str(shape) + "][" + str(strides) + "]cpu\"";
        };
        auto dense = [&](std::vector<int64_t> shape, const std::string& dt) {
            return annS(shape, TensorMeta::contiguousStrides(shape), dt);
        };
        std::string params, body;
        const std::string bArg = bias ? "b" : "None";
        if (op == "cudnn") {
            // [B, H, S, D] views of [B, S, H, D] storage, as SDPA's callers pass them.
            auto view = [&](int64_t S, int64_t D) { return annS({B, H, S, D}, {S * H * D, D, H * D, 1}, t); };
            params = "q: " + view(M, K) + ", k: " + view(N, K) + ", v: " + view(N, Kv) + ", go: " + view(M, Kv);
            if (bias) params += ", b: " + dense({1, H, M, N}, t);
            const std::string c = causal ? "True" : "False";
            body = "        fwd = torch.ops.aten._scaled_dot_product_cudnn_attention.default(q, k, v, " + bArg +
                   ", True, 0.0, " + c +
                   ", False, scale = 0.3)\n"
                   "        out: " +
                   view(M, Kv) +
                   " = fwd[0]\n"
                   "        lse: " +
                   dense({B, H, M, 1}, "f32") +
                   " = fwd[1]\n"
                   "        seed: \"i64[][]cpu\" = fwd[6]\n"
                   "        offset: \"i64[][]cpu\" = fwd[7];  fwd = None\n"
                   "        bwd = torch.ops.aten._scaled_dot_product_cudnn_attention_backward.default(go, q, k, v, "
                   "out, lse, seed, offset, " +
                   bArg + ", None, None, " + std::to_string(M) + ", " + std::to_string(N) + ", 0.0, " + c +
                   ", scale = 0.3)\n"
                   "        dq: " +
                   view(M, K) +
                   " = bwd[0]\n"
                   "        dk: " +
                   view(N, K) +
                   " = bwd[1]\n"
                   "        dv: " +
                   view(N, Kv) +
                   " = bwd[2];  bwd = None\n"
                   "        return (out, lse, dq, dk, dv)\n";
        } else {
            // Forward and backward with the bottom-right mask, BMHK tensors.
            const int64_t L = (M + 31) / 32 * 32, Np = (N + 15) / 16 * 16;
            params = "q: " + dense({B, M, H, K}, t) + ", k: " + dense({B, N, H, K}, t) +
                     ", v: " + dense({B, N, H, Kv}, t) + ", go: " + dense({B, M, H, Kv}, t);
            if (bias) params += ", b: " + dense({B, H, M, N}, t);
            body = "        fwd = torch.ops.aten._efficient_attention_forward.default(q, k, v, " + bArg +
                   ", None, None, None, None, 0.0, 2, True, scale = 0.35)\n"
                   "        out: " +
                   dense({B, M, H, Kv}, t) +
                   " = fwd[0]\n"
                   "        lse: " +
                   dense({B, H, L}, "f32") +
                   " = fwd[1]\n"
                   "        seed: \"i64[][]cpu\" = fwd[2]\n"
                   "        offset: \"i64[][]cpu\" = fwd[3];  fwd = None\n"
                   "        bwd = torch.ops.aten._efficient_attention_backward.default(go, q, k, v, " +
                   bArg + ", out, None, None, " + std::to_string(M) + ", " + std::to_string(N) +
                   ", lse, 0.0, seed, offset, 2, " + (bias ? "True" : "False") +
                   ", scale = 0.35)\n"
                   "        dq: " +
                   dense({B, M, H, K}, t) +
                   " = bwd[0]\n"
                   "        dk: " +
                   dense({B, N, H, K}, t) +
                   " = bwd[1]\n"
                   "        dv: " +
                   dense({B, N, H, Kv}, t) + " = bwd[2]\n";
            if (bias) body += "        db: " + annS({B, H, M, N}, {H * M * Np, M * Np, Np, 1}, t) + " = bwd[3]\n";
            body += std::string("        return (out, lse, dq, dk, dv") + (bias ? ", db)\n" : ")\n");
        }
        auto g = fxtest::parseForward(params, body);
        QVERIFY(g);
        auto in = randomInputs(*g, 5);
        QVERIFY2(in.ok(), in.ok() ? "" : in.error().str().c_str());
        RunRequest req;
        req.inputs = *in;
        auto ref = runAndCheck(*g, req, nullptr);
        QVERIFY2(ref.ok(), ref.ok() ? "" : ref.error().str().c_str());
        std::vector<Value> out;
        fxtest::runCpuWithoutFallback(*g, *in, out);
        if (QTest::currentTestFailed()) return;
        QCOMPARE(out.size(), ref->outputs.size());
        for (size_t i = 0; i < out.size(); ++i) {
            auto c = compareValues(i, out[i], ref->outputs[i]);
            QVERIFY2(c.ok, qPrintable(QString("output %1: rel_err %2").arg(i).arg(c.relErr)));
            QCOMPARE(out[i].t.meta.strides, ref->outputs[i].t.meta.strides);
        }
        if (!fxtest::cudaLowersWithoutFallback(*g, *in))
            QSKIP("NVRTC cannot be loaded: the CUDA lowering is not checked");
    }

    void declinesWhatItDoesNotHandle() {
        // Integer inputs are not attention: the extern declines and leaves the outputs alone.
        TensorMeta m = TensorMeta::contiguous({1, 1, 2, 2}, DType::Int64, Device{});
        Value qi = Value::ofTensor(kern::makeTensor(m, {1, 2, 3, 4}));
        auto op = OpRegistry::instance().find("aten._scaled_dot_product_efficient_attention.default");
        QVERIFY(op);
        auto bound = bindArgs(*op, {qi, qi, qi, Value::none(), Value::ofBool(true)}, {});
        QVERIFY(bound.ok());
        ExecContext ctx(0);
        std::vector<Tensor*> none(4, nullptr);
        QVERIFY(!runExtern("sdpa_efficient", *bound, none, ctx));
    }
};

QTEST_GUILESS_MAIN(TestCpuAttention)
#include "tst_cpu_attention.moc"
