// The reference kernels of cuDNN's attention (`_scaled_dot_product_cudnn_attention` and its
// backward, what PyTorch 2.11 traces for fp16/bf16 SDPA on sm_90) and of
// `_efficient_attention_forward` / `_efficient_attention_backward` with the bottom-right causal
// mask (custom_mask_type 2), checked
// against attention composed here from its definition: S = scale q kᵀ + bias, masked entries
// -inf, P = softmax(S) row-wise, out = P v, lse = log Σ exp(S); a row that sees no key gives
// output 0 and logsumexp 0 (PyTorch's memory-efficient kernel, kernel_forward.h). The backward:
// dV = Pᵀ dO, dS = P ∘ (dO vᵀ − rowsum(P ∘ dO vᵀ)), dQ = scale dS k, dK = scale dSᵀ q. Layouts
// as PyTorch's meta functions: the output in the query's dimension order, logsumexp fp32
// [B, H, M, 1], the gradients empty_like their inputs.
#include "test_util.h"

#include "exec/exec_context.h"
#include "exec/interpreter.h"
#include "exec/ops/kernel_util.h"

#include <cmath>
#include <limits>
#include <random>

using namespace fxray;

namespace {

/// [B, H, R, E] of random values; bmhk: stored as [B, R, H, E] and viewed (PyTorch's usual layout).
Tensor randn(int64_t B, int64_t H, int64_t R, int64_t E, DType t, uint32_t seed, bool bmhk = false) {
    TensorMeta m = TensorMeta::contiguous({B, H, R, E}, t, Device{});
    if (bmhk) m.strides = {R * H * E, E, H * E, 1};
    std::mt19937 gen(seed);
    std::normal_distribution<double> dist(0.0, 1.0);
    std::vector<double> v(static_cast<size_t>(m.numel()));
    for (auto& x : v) x = dist(gen);
    return kern::makeTensor(m, v);
}

struct Composed {
    std::vector<double> out, lse, dq, dk, dv;  // [B, H, rows, dims] row-major
    std::vector<double> dbias;                 // [B, H, M, N]
};

/// Attention of [B, H, M, K] q, [B, H, N, K] k, [B, H, N, Kv] v with a [B, H, M, N] bias (or
/// none): key n is masked for row m when n > m + shift (causal) — from the definition, in double.
Composed compose(const Tensor& q, const Tensor& k, const Tensor& v, const std::vector<double>& bias, bool causal,
                 int64_t shift, double scale, const Tensor* gradOut) {
    const auto& qs = q.shape();
    const int64_t B = qs[0], H = qs[1], M = qs[2], K = qs[3], N = k.shape()[2], Kv = v.shape()[3];
    const auto Q = kern::toDoubles(q), Kt = kern::toDoubles(k), V = kern::toDoubles(v);
    const std::vector<double> dO = gradOut ? kern::toDoubles(*gradOut) : std::vector<double>{};
    Composed c;
    c.out.assign(static_cast<size_t>(B * H * M * Kv), 0.0);
    c.lse.assign(static_cast<size_t>(B * H * M), 0.0);
    c.dq.assign(Q.size(), 0.0), c.dk.assign(Kt.size(), 0.0), c.dv.assign(V.size(), 0.0);
    c.dbias.assign(static_cast<size_t>(B * H * M * N), 0.0);
    auto at = [](int64_t bh, int64_t r, int64_t rows, int64_t e, int64_t dims) {
        return static_cast<size_t>((bh * rows + r) * dims + e);
    };
    for (int64_t bh = 0; bh < B * H; ++bh)
        for (int64_t m = 0; m < M; ++m) {
            std::vector<double> s(static_cast<size_t>(N));
            double mx = -std::numeric_limits<double>::infinity();
            for (int64_t n = 0; n < N; ++n) {
                double dot = 0.0;
                for (int64_t e = 0; e < K; ++e) dot += Q[at(bh, m, M, e, K)] * Kt[at(bh, n, N, e, K)];
                s[n] = dot * scale + (bias.empty() ? 0.0 : bias[at(bh, m, M, n, N)]);
                if (causal && n > m + shift) s[n] = -std::numeric_limits<double>::infinity();
                mx = std::max(mx, s[n]);
            }
            if (std::isinf(mx)) continue;  // no key: output 0, lse 0, no gradient
            double sum = 0.0;
            for (double x : s) sum += std::exp(x - mx);
            c.lse[static_cast<size_t>(bh * M + m)] = mx + std::log(sum);
            std::vector<double> p(static_cast<size_t>(N)), dp(static_cast<size_t>(N), 0.0);
            for (int64_t n = 0; n < N; ++n) p[n] = std::exp(s[n] - mx) / sum;
            for (int64_t n = 0; n < N; ++n)
                for (int64_t e = 0; e < Kv; ++e) c.out[at(bh, m, M, e, Kv)] += p[n] * V[at(bh, n, N, e, Kv)];
            if (!gradOut) continue;
            double rowDot = 0.0;
            for (int64_t n = 0; n < N; ++n) {
                for (int64_t e = 0; e < Kv; ++e) {
                    dp[n] += dO[at(bh, m, M, e, Kv)] * V[at(bh, n, N, e, Kv)];
                    c.dv[at(bh, n, N, e, Kv)] += p[n] * dO[at(bh, m, M, e, Kv)];
                }
                rowDot += p[n] * dp[n];
            }
            for (int64_t n = 0; n < N; ++n) {
                const double ds = p[n] * (dp[n] - rowDot);
                c.dbias[at(bh, m, M, n, N)] = ds;
                for (int64_t e = 0; e < K; ++e) {
                    c.dq[at(bh, m, M, e, K)] += scale * ds * Kt[at(bh, n, N, e, K)];
                    c.dk[at(bh, n, N, e, K)] += scale * ds * Q[at(bh, m, M, e, K)];
                }
            }
        }
    return c;
}

/// max |a - b| <= tol * max(1, max |b|).
void expectClose(const std::vector<double>& a, const std::vector<double>& b, double tol, const char* what) {
    QCOMPARE(a.size(), b.size());
    double worst = 0.0, scale = 1.0;
    for (size_t i = 0; i < a.size(); ++i) {
        worst = std::max(worst, std::abs(a[i] - b[i]));
        scale = std::max(scale, std::abs(b[i]));
    }
    QVERIFY2(worst <= tol * scale,
             qPrintable(QString("%1: max abs err %2 (scale %3)").arg(what).arg(worst).arg(scale)));
}

Value tv(const Tensor& t) { return Value::ofTensor(t); }

}  // namespace

class TestOpsAttentionVariants : public QObject {
    Q_OBJECT
private slots:
    void cudnnAgainstComposition_data() {
        QTest::addColumn<QString>("dtype");
        QTest::addColumn<bool>("causal");
        QTest::addColumn<bool>("bias");
        QTest::addColumn<bool>("bmhk");
        for (const char* t : {"f32", "bf16"}) {
            QTest::newRow(qPrintable(QString("%1 plain").arg(t))) << QString(t) << false << false << true;
            QTest::newRow(qPrintable(QString("%1 causal").arg(t))) << QString(t) << true << false << false;
            QTest::newRow(qPrintable(QString("%1 bias").arg(t))) << QString(t) << false << true << true;
            QTest::newRow(qPrintable(QString("%1 causal+bias").arg(t))) << QString(t) << true << true << false;
        }
    }

    void cudnnAgainstComposition() {
        QFETCH(QString, dtype);
        QFETCH(bool, causal);
        QFETCH(bool, bias);
        QFETCH(bool, bmhk);
        const DType t = dtype == "bf16" ? DType::BFloat16 : DType::Float32;
        // bf16 rounds the outputs and gradients to 8 significant bits.
        const double tol = t == DType::BFloat16 ? 1e-2 : 1e-6;  // fp32 storage: 24 bits
        const int64_t B = 2, H = 3, M = 5, N = 7, K = 4, Kv = 6;
        Tensor q = randn(B, H, M, K, t, 1, bmhk), k = randn(B, H, N, K, t, 2, bmhk), v = randn(B, H, N, Kv, t, 3, bmhk);
        Tensor b = randn(1, H, M, N, t, 4);
        const double scale = 0.3;
        std::vector<Value> args{tv(q),
                                tv(k),
                                tv(v),
                                bias ? tv(b) : Value::none(),
                                Value::ofBool(true),
                                Value::ofDouble(0.0),
                                Value::ofBool(causal),
                                Value::ofBool(false)};
        ExecContext ctx(7);
        auto fwd = invokeOp("aten._scaled_dot_product_cudnn_attention.default", args,
                            {{"scale", Value::ofDouble(scale)}}, &ctx);
        QVERIFY2(fwd.ok(), fwd.ok() ? "" : fwd.error().str().c_str());
        QCOMPARE(fwd->list.size(), size_t(9));
        const Tensor& out = fwd->list[0].t;
        const Tensor& lse = fwd->list[1].t;
        // The output takes the query's layout; logsumexp is dense fp32 [B, H, M, 1].
        QCOMPARE(out.shape(), (std::vector<int64_t>{B, H, M, Kv}));
        QCOMPARE(out.meta.strides, bmhk ? (std::vector<int64_t>{M * H * Kv, Kv, H * Kv, 1})
                                        : TensorMeta::contiguousStrides({B, H, M, Kv}));
        QCOMPARE(out.dtype(), t);
        QCOMPARE(lse.shape(), (std::vector<int64_t>{B, H, M, 1}));
        QCOMPARE(lse.dtype(), DType::Float32);
        QVERIFY(fwd->list[2].isNone() && fwd->list[3].isNone() && fwd->list[8].isNone());
        QCOMPARE(fwd->list[4].i, M);
        QCOMPARE(fwd->list[5].i, N);
        const std::vector<double> fullBias = bias ? kern::toDoublesBroadcast(b, {B, H, M, N}) : std::vector<double>{};
        Tensor gO = randn(B, H, M, Kv, t, 5, bmhk);
        const Composed c = compose(q, k, v, fullBias, causal, 0, scale, &gO);
        expectClose(kern::toDoubles(out), c.out, tol, "output");
        expectClose(kern::toDoubles(lse), c.lse, 1e-6, "logsumexp");

        std::vector<Value> bargs{tv(gO),
                                 tv(q),
                                 tv(k),
                                 tv(v),
                                 fwd->list[0],
                                 fwd->list[1],
                                 fwd->list[6],
                                 fwd->list[7],
                                 bias ? tv(b) : Value::none(),
                                 Value::none(),
                                 Value::none(),
                                 Value::ofInt(M),
                                 Value::ofInt(N),
                                 Value::ofDouble(0.0),
                                 Value::ofBool(causal)};
        auto bwd = invokeOp("aten._scaled_dot_product_cudnn_attention_backward.default", bargs,
                            {{"scale", Value::ofDouble(scale)}}, &ctx);
        QVERIFY2(bwd.ok(), bwd.ok() ? "" : bwd.error().str().c_str());
        QCOMPARE(bwd->list.size(), size_t(3));
        // empty_like: each gradient in its input's layout.
        QCOMPARE(bwd->list[0].t.meta.strides, q.meta.strides);
        QCOMPARE(bwd->list[1].t.meta.strides, k.meta.strides);
        QCOMPARE(bwd->list[2].t.meta.strides, v.meta.strides);
        expectClose(kern::toDoubles(bwd->list[0].t), c.dq, tol, "grad_query");
        expectClose(kern::toDoubles(bwd->list[1].t), c.dk, tol, "grad_key");
        expectClose(kern::toDoubles(bwd->list[2].t), c.dv, tol, "grad_value");
    }

    void cudnnDefaultScaleAndHeadDims() {
        // No scale: 1/sqrt(head dim); the value's head dim may differ (the output takes it).
        const int64_t B = 1, H = 2, M = 3, N = 4, K = 9, Kv = 5;
        Tensor q = randn(B, H, M, K, DType::Float32, 11), k = randn(B, H, N, K, DType::Float32, 12),
               v = randn(B, H, N, Kv, DType::Float32, 13);
        ExecContext ctx(0);
        auto fwd = invokeOp("aten._scaled_dot_product_cudnn_attention.default",
                            {tv(q), tv(k), tv(v), Value::none(), Value::ofBool(true)}, {}, &ctx);
        QVERIFY2(fwd.ok(), fwd.ok() ? "" : fwd.error().str().c_str());
        const Composed c = compose(q, k, v, {}, false, 0, 1.0 / 3.0, nullptr);
        expectClose(kern::toDoubles(fwd->list[0].t), c.out, 1e-6, "output");
        // A head dim that differs: the layout is dense in the query's dimension order.
        QCOMPARE(fwd->list[0].t.meta.strides, TensorMeta::contiguousStrides({B, H, M, Kv}));
    }

    void cudnnBadArguments() {
        Tensor q = randn(1, 2, 3, 4, DType::Float32, 1), k = randn(1, 2, 5, 6, DType::Float32, 2);
        auto r = invokeOp("aten._scaled_dot_product_cudnn_attention.default",
                          {tv(q), tv(k), tv(k), Value::none(), Value::ofBool(true)});
        QVERIFY(!r.ok());
        QVERIFY2(r.error().message.find("head dimension") != std::string::npos, r.error().message.c_str());
    }

    void efficientBottomRight_data() {
        QTest::addColumn<int>("M");
        QTest::addColumn<int>("N");
        QTest::addColumn<bool>("bias");
        QTest::newRow("M < N") << 5 << 9 << false;
        QTest::newRow("M == N, bias") << 6 << 6 << true;
        QTest::newRow("M > N: the first rows see no key") << 9 << 4 << false;
        QTest::newRow("M > N, bias") << 7 << 3 << true;
    }

    void efficientBottomRight() {
        // _efficient_attention_forward takes BMHK tensors ([batch, seq, heads, dim]); mask type 2:
        // row m sees keys n <= m + N - M.
        QFETCH(int, M);
        QFETCH(int, N);
        QFETCH(bool, bias);
        const int64_t B = 2, H = 2, K = 8, Kv = 8;
        Tensor q = randn(B, H, M, K, DType::Float32, 21, true), k = randn(B, H, N, K, DType::Float32, 22, true),
               v = randn(B, H, N, Kv, DType::Float32, 23, true);
        Tensor b = randn(B, H, M, N, DType::Float32, 24);
        auto bmhk = [](Tensor t) {  // the BHMK view above as its BMHK storage order
            std::swap(t.meta.shape[1], t.meta.shape[2]);
            std::swap(t.meta.strides[1], t.meta.strides[2]);
            return Value::ofTensor(t);
        };
        const double scale = 0.35;
        std::vector<Value> args{bmhk(q),
                                bmhk(k),
                                bmhk(v),
                                bias ? tv(b) : Value::none(),
                                Value::none(),
                                Value::none(),
                                Value::none(),
                                Value::none(),
                                Value::ofDouble(0.0),
                                Value::ofInt(2),
                                Value::ofBool(true)};
        ExecContext ctx(0);
        auto r = invokeOp("aten._efficient_attention_forward.default", args, {{"scale", Value::ofDouble(scale)}}, &ctx);
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().str().c_str());
        Tensor gO = randn(B, H, M, Kv, DType::Float32, 25, true);
        const Composed c = compose(q, k, v, bias ? kern::toDoublesBroadcast(b, {B, H, M, N}) : std::vector<double>{},
                                   true, N - M, scale, &gO);
        // The output is [B, M, H, Kv]: compare through its BHMK view.
        Tensor o = r->list[0].t;
        std::swap(o.meta.shape[1], o.meta.shape[2]);
        std::swap(o.meta.strides[1], o.meta.strides[2]);
        expectClose(kern::toDoubles(o), c.out, 1e-6, "output");
        // logsumexp [B, H, ceil(M/32)*32]: rows past M are +inf padding.
        const auto L = kern::toDoubles(r->list[1].t);
        const int64_t lseLen = r->list[1].t.shape()[2];
        QCOMPARE(lseLen, int64_t((M + 31) / 32 * 32));
        std::vector<double> rows;
        for (int64_t bh = 0; bh < B * H; ++bh)
            for (int64_t m = 0; m < lseLen; ++m) {
                const double x = L[static_cast<size_t>(bh * lseLen + m)];
                if (m < M)
                    rows.push_back(x);
                else
                    QVERIFY(std::isinf(x) && x > 0);
            }
        expectClose(rows, c.lse, 1e-6, "logsumexp");
        if (M > N) {
            // Row 0 sees no key: output 0 and logsumexp 0, as PyTorch's kernel writes them.
            QCOMPARE(L[0], 0.0);
            for (int64_t e = 0; e < Kv; ++e) QCOMPARE(kern::toDoubles(o)[static_cast<size_t>(e)], 0.0);
        }

        // _efficient_attention_backward from the forward's output, logsumexp and philox state.
        std::vector<Value> bargs{bmhk(gO),
                                 bmhk(q),
                                 bmhk(k),
                                 bmhk(v),
                                 bias ? tv(b) : Value::none(),
                                 r->list[0],
                                 Value::none(),
                                 Value::none(),
                                 Value::ofInt(M),
                                 Value::ofInt(N),
                                 r->list[1],
                                 Value::ofDouble(0.0),
                                 r->list[2],
                                 r->list[3],
                                 Value::ofInt(2),
                                 Value::ofBool(bias)};
        auto g =
            invokeOp("aten._efficient_attention_backward.default", bargs, {{"scale", Value::ofDouble(scale)}}, &ctx);
        QVERIFY2(g.ok(), g.ok() ? "" : g.error().str().c_str());
        QCOMPARE(g->list.size(), size_t(4));
        const char* names[] = {"grad_query", "grad_key", "grad_value"};
        const std::vector<double>* want[] = {&c.dq, &c.dk, &c.dv};
        for (size_t i = 0; i < 3; ++i) {
            Tensor gi = g->list[i].t;  // BMHK like its input (empty_like)
            QCOMPARE(gi.meta.strides, bargs[i + 1].t.meta.strides);
            std::swap(gi.meta.shape[1], gi.meta.shape[2]);
            std::swap(gi.meta.strides[1], gi.meta.strides[2]);
            expectClose(kern::toDoubles(gi), *want[i], 1e-6, names[i]);
        }
        if (bias) {
            // The bias's shape, its last dim's storage padded to a multiple of 16 (PyTorch's meta).
            QCOMPARE(g->list[3].t.shape(), b.shape());
            QCOMPARE(g->list[3].t.meta.strides[2], int64_t((N + 15) / 16 * 16));
            expectClose(kern::toDoubles(g->list[3].t), c.dbias, 1e-6, "grad_bias");
        } else {
            QCOMPARE(g->list[3].t.dim(), int64_t(0));
        }
    }
};

QTEST_GUILESS_MAIN(TestOpsAttentionVariants)
#include "tst_ops_attention_variants.moc"
