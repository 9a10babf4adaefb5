// Attention variants on the CUDA backend (label gpu): cuDNN's SDPA ops
// (`_scaled_dot_product_cudnn_attention` and its backward, what PyTorch 2.11 traces for fp16/bf16
// SDPA on sm_90) and `_efficient_attention_forward` / `_efficient_attention_backward` with the
// bottom-right causal mask (custom_mask_type 2: row m sees keys n <= m + N - M, rows that see
// none give output 0 and logsumexp 0), run on the device's fused kernels (kernels/attention.cu, attention_tc.cu) and
// the cuBLAS path (attention_gemm.cpp), each compared with the reference executor (itself
// checked against attention composed from its definition in tst_ops_attention_variants) and
// asserted to run with no host op. Skipped with the reason without a device.
#include "cuda_exec_util.h"
#include "test_util.h"

#include "codegen/cuda/cuda_api.h"
#include "exec/compare.h"

#include <QScopeGuard>

using namespace fxray;
using namespace cudatest;

namespace {

std::string annS(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides, const std::string& t) {
    return "\"" + t + "[" + shapeStr(shape) + "][" + shapeStr(strides) + "]cuda:0\"";
}

/// Runs g on the device and on the reference executor and compares every output; the device run
/// must have no host op and `externs` device extern calls.
void compareWithReference(const Graph& g, size_t externs, double fp32Tol) {
    auto in = randomInputs(g, 11);
    QVERIFY2(in.ok(), in.ok() ? "" : in.error().str().c_str());
    auto ref = reference(g, *in);
    QVERIFY(!ref.empty());
    SKIP_WITHOUT_DEVICE();
    auto r = runOnDevice(g, *in);
    QVERIFY2(r.error.empty(), r.error.c_str());
    QCOMPARE(r.outputs.size(), ref.size());
    QString errs;
    for (size_t i = 0; i < r.outputs.size(); ++i) {
        auto cmp = compareValues(i, r.outputs[i], ref[i]);
        QVERIFY2(cmp.ok,
                 qPrintable(
                     QString("output %1 rel_err %2 %3").arg(i).arg(cmp.relErr).arg(QString::fromStdString(cmp.note))));
        if (r.outputs[i].isTensor() && r.outputs[i].t.dtype() == DType::Float32)
            QVERIFY2(cmp.relErr < fp32Tol, qPrintable(QString("fp32 output %1 rel_err %2").arg(i).arg(cmp.relErr)));
        errs += QString(" %1").arg(cmp.relErr, 0, 'g', 2);
    }
    qInfo("%s: rel_err vs reference:%s", QTest::currentDataTag(), qPrintable(errs));
    QVERIFY2(r.stats.hostOps.empty(), hostOps(r).c_str());
    QCOMPARE(r.stats.deviceExterns, externs);
}

/// FXRAY_ATTENTION=path for the scope (empty: the default pick), unless the run forces one.
struct ForcePath {
    explicit ForcePath(const QString& path) : set(!path.isEmpty() && qgetenv("FXRAY_ATTENTION").isEmpty()) {
        if (set) qputenv("FXRAY_ATTENTION", path.toUtf8());
    }
    ~ForcePath() {
        if (set) qunsetenv("FXRAY_ATTENTION");
    }
    bool set;
};

}  // namespace

class TestCudaExecAttention : public QObject {
    Q_OBJECT
private slots:
    void cudnn_vs_reference_data() {
        QTest::addColumn<QString>("dims");  // B,H,M,N,K,Kv
        QTest::addColumn<QString>("dtype");
        QTest::addColumn<bool>("causal");
        QTest::addColumn<bool>("bias");
        QTest::addColumn<QString>("path");  // FXRAY_ATTENTION for fp32 (empty: default)
        QTest::newRow("bf16 vit-like 197 tokens") << "2,3,197,197,64,64"
                                                  << "bf16" << false << false << "";
        QTest::newRow("bf16 llama-like causal") << "2,4,128,128,64,64"
                                                << "bf16" << true << false << "";
        QTest::newRow("f16 causal, bias, M < N") << "1,2,37,50,64,64"
                                                 << "f16" << true << true << "";
        QTest::newRow("bf16 head dim 128, bias") << "1,2,70,70,128,128"
                                                 << "bf16" << false << true << "";
        QTest::newRow("f32 causal (tensor cores)") << "2,2,97,97,64,64"
                                                   << "f32" << true << false << "";
        QTest::newRow("f32 bias (fused)") << "2,2,40,33,32,32"
                                          << "f32" << false << true << "fused";
        QTest::newRow("f32 causal (gemm)") << "2,2,40,40,32,32"
                                           << "f32" << true << false << "gemm";
    }

    void cudnn_vs_reference() {
        // Forward and backward of cuDNN's SDPA ops, q/k/v/grad_out as [B, H, S, D] views of
        // [B, S, H, D] storage (what SDPA's callers pass), logsumexp [B, H, M, 1].
        QFETCH(QString, dims);
        QFETCH(QString, dtype);
        QFETCH(bool, causal);
        QFETCH(bool, bias);
        QFETCH(QString, path);
        std::vector<int64_t> d;
        for (const auto& p : dims.split(',')) d.push_back(p.toLongLong());
        const int64_t B = d[0], H = d[1], M = d[2], N = d[3], K = d[4], Kv = d[5];
        const std::string t = dtype.toStdString();
        auto view = [&](int64_t S, int64_t D) { return annS({B, H, S, D}, {S * H * D, D, H * D, 1}, t); };
        std::string params = "q: " + view(M, K) + ", k: " + view(N, K) + ", v: " + view(N, Kv) + ", go: " + view(M, Kv);
        if (bias) params += ", b: " + ann({1, H, M, N}, t);
        const std::string bArg = bias ? "b" : "None", c = causal ? "True" : "False";
        const std::string body =
            "        fwd = torch.ops.aten._scaled_dot_product_cudnn_attention.default(q, k, v, " + bArg +
            ", True, 0.0, " + c + ", False, scale = 0.125)\n        out: " + view(M, Kv) +
            " = fwd[0]\n        lse: " + ann({B, H, M, 1}, "f32") +
            " = fwd[1]\n        seed: \"i64[][]cuda:0\" = fwd[6]\n        offset: \"i64[][]cuda:0\" = fwd[7];  "
            "fwd = None\n        bwd = torch.ops.aten._scaled_dot_product_cudnn_attention_backward.default(go, q, k, "
            "v, out, lse, seed, offset, " +
            bArg + ", None, None, " + std::to_string(M) + ", " + std::to_string(N) + ", 0.0, " + c +
            ", scale = 0.125)\n        dq: " + view(M, K) + " = bwd[0]\n        dk: " + view(N, K) +
            " = bwd[1]\n        dv: " + view(N, Kv) + " = bwd[2];  bwd = None\n        return (out, lse, dq, dk, dv)\n";
        auto g = fxtest::parseForward(params, body);
        QVERIFY(g);
        ForcePath force(path);
        compareWithReference(*g, 2, 1e-5);
    }

    void efficient_bottom_right_vs_reference_data() {
        QTest::addColumn<QString>("dims");  // B,H,M,N,K,Kv
        QTest::addColumn<QString>("dtype");
        QTest::addColumn<bool>("bias");
        QTest::addColumn<QString>("path");
        // Each size on each fp32 path: the tensor cores (default for head dims <= 64 on sm_80+),
        // the fused SIMT kernels and cuBLAS; M > N has rows that see no key (the first M - N).
        for (const char* p : {"", "fused", "gemm"}) {
            const QString tag = QString(*p ? p : "default");
            QTest::newRow(qPrintable(tag + ": M < N")) << "2,2,37,100,64,64"
                                                       << "f32" << false << p;
            QTest::newRow(qPrintable(tag + ": M == N, bias")) << "1,2,70,70,32,32"
                                                              << "f32" << true << p;
            QTest::newRow(qPrintable(tag + ": M > N")) << "2,2,100,37,64,64"
                                                       << "f32" << false << p;
            QTest::newRow(qPrintable(tag + ": M > N, bias, head dim 40")) << "1,3,90,61,40,40"
                                                                          << "f32" << true << p;
        }
        QTest::newRow("bf16: M > N") << "2,2,80,33,64,64"
                                     << "bf16" << false << "";
        QTest::newRow("f16: M < N, head dim 128") << "1,2,33,80,128,128"
                                                  << "f16" << false << "";
    }

    void efficient_bottom_right_vs_reference() {
        // _efficient_attention_forward and _efficient_attention_backward (BMHK tensors) with
        // custom_mask_type 2.
        QFETCH(QString, dims);
        QFETCH(QString, dtype);
        QFETCH(bool, bias);
        QFETCH(QString, path);
        std::vector<int64_t> d;
        for (const auto& p : dims.split(',')) d.push_back(p.toLongLong());
        const int64_t B = d[0], H = d[1], M = d[2], N = d[3], K = d[4], Kv = d[5];
        const std::string t = dtype.toStdString();
        const int64_t L = (M + 31) / 32 * 32, Np = (N + 15) / 16 * 16;
        std::string params = "q: " + ann({B, M, H, K}, t) + ", k: " + ann({B, N, H, K}, t) +
                             ", v: " + ann({B, N, H, Kv}, t) + ", go: " + ann({B, M, H, Kv}, t);
        if (bias) params += ", b: " + ann({B, H, M, N}, t);
        const std::string bArg = bias ? "b" : "None";
        std::string body =
            "        fwd = torch.ops.aten._efficient_attention_forward.default(q, k, v, " + bArg +
            ", None, None, None, None, 0.0, 2, True, scale = 0.2)\n        out: " + ann({B, M, H, Kv}, t) +
            " = fwd[0]\n        lse: " + ann({B, H, L}, "f32") +
            " = fwd[1]\n        seed: \"i64[][]cpu\" = fwd[2]\n        offset: \"i64[][]cpu\" = fwd[3];  "
            "fwd = None\n        bwd = torch.ops.aten._efficient_attention_backward.default(go, q, k, v, " +
            bArg + ", out, None, None, " + std::to_string(M) + ", " + std::to_string(N) +
            ", lse, 0.0, seed, offset, 2, " + (bias ? "True" : "False") +
            ", scale = 0.2)\n        dq: " + ann({B, M, H, K}, t) + " = bwd[0]\n        dk: " + ann({B, N, H, K}, t) +
            " = bwd[1]\n        dv: " + ann({B, N, H, Kv}, t) + " = bwd[2]\n";
        if (bias) body += "        db: " + annS({B, H, M, N}, {H * M * Np, M * Np, Np, 1}, t) + " = bwd[3]\n";
        body += std::string("        return (out, lse, dq, dk, dv") + (bias ? ", db)\n" : ")\n");
        auto g = fxtest::parseForward(params, body);
        QVERIFY(g);
        ForcePath force(path);
        compareWithReference(*g, 2, 1e-5);
    }

    void grouped_query_heads_vs_reference() {
        // scaled_dot_product_attention(..., enable_gqa=True) with 8 query heads over 2 key/value
        // heads (key and value repeated into scratch on the device), causal and with a float
        // mask: one device extern each, no host op, against the reference kernel.
        const std::string t = "f32";
        auto g = fxtest::parseForward(
            "q: " + ann({2, 8, 40, 64}, t) + ", k: " + ann({2, 2, 40, 64}, t) + ", v: " + ann({2, 2, 40, 64}, t) +
                ", m: " + ann({2, 1, 40, 40}, t),
            "        a: " + ann({2, 8, 40, 64}, t) +
                " = torch.ops.aten.scaled_dot_product_attention.default(q, k, v, None, 0.0, True, enable_gqa = "
                "True)\n"
                "        b: " +
                ann({2, 8, 40, 64}, t) +
                " = torch.ops.aten.scaled_dot_product_attention.default(q, k, v, m, enable_gqa = True)\n"
                "        return (a, b)\n");
        QVERIFY(g);
        compareWithReference(*g, 2, 1e-5);
    }
};

QTEST_GUILESS_MAIN(TestCudaExecAttention)
#include "tst_cuda_exec_attention.moc"
