// Hand-computed expectations for the matrix-product ops (mm, bmm, addmm, baddbmm, addmv, dot,
// mv, matmul, linear): values, output shapes/strides/dtypes, and shape errors.
#include "test_util.h"

#include <cmath>
#include <random>

using namespace fxtest;
using fxray::DType;
using fxray::Value;

namespace {

using Shape = std::vector<int64_t>;

/// The transpose of a 2-D tensor as a view (strides swapped), like Tensor.t().
Value transposedView(const Value& v) {
    fxray::TensorMeta m = v.t.meta;
    std::swap(m.shape[0], m.shape[1]);
    std::swap(m.strides[0], m.strides[1]);
    return Value::ofTensor(v.t.view(m));
}

fxray::Diagnostic runError(std::string_view op, std::vector<Value> args) {
    fxray::ExecContext ctx(0);
    auto r = fxray::invokeOp(op, std::move(args), {}, &ctx);
    if (r.ok()) return fxray::makeError("");
    return r.error();
}

}  // namespace

class TestOpsLinalg : public QObject {
    Q_OBJECT
private slots:
    void mmMultipliesAndIsRowMajor() {
        auto r = run("aten.mm.default", {tv({2, 2}, {1, 2, 3, 4}), tv({2, 3}, {5, 6, 0, 7, 8, 1})});
        QCOMPARE(r.t.shape(), (Shape{2, 3}));
        QCOMPARE(r.t.strides(), (Shape{3, 1}));
        QCOMPARE(r.t.dtype(), DType::Float32);
        FX_COMPARE_VEC(values(r), (std::vector<double>{19, 22, 2, 43, 50, 4}), 0);
    }
    void mmOfTransposedViewGivesContiguousOutput() {
        // [[1, 2], [3, 4]]ᵀ = [[1, 3], [2, 4]]
        auto r = run("aten.mm.default", {transposedView(tv({2, 2}, {1, 2, 3, 4})), tv({2, 2}, {1, 0, 0, 1})});
        QCOMPARE(r.t.strides(), (Shape{2, 1}));
        FX_COMPARE_VEC(values(r), (std::vector<double>{1, 3, 2, 4}), 0);
    }
    void mmHalfRoundsOnlyTheResult() {
        // 1 + 2^-11 + 2^-11: fp16 step-by-step rounding would give 1; the exact sum 1 + 2^-10
        // is representable, and PyTorch accumulates in fp32, so it must come out exactly.
        const double e = std::ldexp(1.0, -11);
        auto r = run("aten.mm.default", {tv({1, 3}, {1, e, e}, DType::Float16), tv({3, 1}, {1, 1, 1}, DType::Float16)});
        QCOMPARE(r.t.dtype(), DType::Float16);
        FX_COMPARE_VEC(values(r), (std::vector<double>{1 + 2 * e}), 0);
    }
    void bmmMultipliesPerBatch() {
        auto r = run("aten.bmm.default", {tv({2, 1, 2}, {1, 2, 3, 4}), tv({2, 2, 1}, {5, 6, 7, 8})});
        QCOMPARE(r.t.shape(), (Shape{2, 1, 1}));
        FX_COMPARE_VEC(values(r), (std::vector<double>{17, 53}), 0);
    }
    void addmmScalesAndBroadcastsBias() {
        // 2 * [1, 10] + 3 * ([1, 2] @ I)
        auto r = run("aten.addmm.default", {tv({2}, {1, 10}), tv({1, 2}, {1, 2}), tv({2, 2}, {1, 0, 0, 1})},
                     {{"beta", iv(2)}, {"alpha", iv(3)}});
        QCOMPARE(r.t.shape(), (Shape{1, 2}));
        FX_COMPARE_VEC(values(r), (std::vector<double>{5, 26}), 0);
    }
    void addmmWithZeroBetaIgnoresNaNBias() {
        auto r = run("aten.addmm.default", {tv({1}, {NAN}), tv({1, 1}, {2}), tv({1, 1}, {3})}, {{"beta", iv(0)}});
        FX_COMPARE_VEC(values(r), (std::vector<double>{6}), 0);
    }
    void baddbmmAddsPerBatch() {
        auto r = run("aten.baddbmm.default", {tv({1}, {1}), tv({2, 1, 1}, {2, 3}), tv({2, 1, 1}, {4, 5})},
                     {{"alpha", dv(0.5)}});
        QCOMPARE(r.t.shape(), (Shape{2, 1, 1}));
        FX_COMPARE_VEC(values(r), (std::vector<double>{5, 8.5}), 0);
    }
    void dotMvAddmv() {
        auto d = run("aten.dot.default", {tv({3}, {1, 2, 3}), tv({3}, {4, 5, 6})});
        QCOMPARE(d.t.dim(), int64_t(0));
        FX_COMPARE_VEC(values(d), (std::vector<double>{32}), 0);
        auto m = run("aten.mv.default", {tv({2, 3}, {1, 2, 3, 4, 5, 6}), tv({3}, {1, 0, -1})});
        FX_COMPARE_VEC(values(m), (std::vector<double>{-2, -2}), 0);
        auto am = run("aten.addmv.default", {tv({2}, {1, 1}), tv({2, 3}, {1, 2, 3, 4, 5, 6}), tv({3}, {1, 0, -1})},
                      {{"beta", iv(3)}});
        FX_COMPARE_VEC(values(am), (std::vector<double>{1, 1}), 0);
    }
    void matmulHandlesEveryRank() {
        auto s = run("aten.matmul.default", {tv({2}, {1, 2}), tv({2}, {3, 4})});
        QCOMPARE(s.t.shape(), Shape{});
        FX_COMPARE_VEC(values(s), (std::vector<double>{11}), 0);
        auto mv = run("aten.matmul.default", {tv({2, 2}, {1, 2, 3, 4}), tv({2}, {1, 1})});
        QCOMPARE(mv.t.shape(), (Shape{2}));
        FX_COMPARE_VEC(values(mv), (std::vector<double>{3, 7}), 0);
        auto vm = run("aten.matmul.default", {tv({2}, {1, 1}), tv({2, 2}, {1, 2, 3, 4})});
        QCOMPARE(vm.t.shape(), (Shape{2}));
        FX_COMPARE_VEC(values(vm), (std::vector<double>{4, 6}), 0);
        // Batched 3-D @ 1-D and 1-D @ 3-D.
        auto bv = run("aten.matmul.default", {tv({2, 1, 2}, {1, 2, 3, 4}), tv({2}, {1, 10})});
        QCOMPARE(bv.t.shape(), (Shape{2, 1}));
        FX_COMPARE_VEC(values(bv), (std::vector<double>{21, 43}), 0);
        auto vb = run("aten.matmul.default", {tv({2}, {1, 10}), tv({2, 2, 1}, {1, 2, 3, 4})});
        QCOMPARE(vb.t.shape(), (Shape{2, 1}));
        FX_COMPARE_VEC(values(vb), (std::vector<double>{21, 43}), 0);
    }
    void matmulBroadcastsBatchDims() {
        // [2, 1, 1, 2] @ [3, 2, 1] -> [2, 3, 1, 1]: every pair of (row of a, column of b).
        auto r = run("aten.matmul.default", {tv({2, 1, 1, 2}, {1, 0, 0, 1}), tv({3, 2, 1}, {1, 2, 3, 4, 5, 6})});
        QCOMPARE(r.t.shape(), (Shape{2, 3, 1, 1}));
        QCOMPARE(r.t.strides(), (Shape{3, 1, 1, 1}));
        FX_COMPARE_VEC(values(r), (std::vector<double>{1, 3, 5, 2, 4, 6}), 0);
    }
    void linearIsXTimesWeightTransposedPlusBias() {
        // x [2, 2], w [3, 2], b [3]
        auto r = run("aten.linear.default",
                     {tv({2, 2}, {1, 2, 3, 4}), tv({3, 2}, {1, 0, 0, 1, 1, 1}), tv({3}, {0, 10, 100})});
        QCOMPARE(r.t.shape(), (Shape{2, 3}));
        FX_COMPARE_VEC(values(r), (std::vector<double>{1, 12, 103, 3, 14, 107}), 0);
        auto v = run("aten.linear.default", {tv({2}, {1, 2}), tv({3, 2}, {1, 0, 0, 1, 1, 1})});
        QCOMPARE(v.t.shape(), (Shape{3}));
        FX_COMPARE_VEC(values(v), (std::vector<double>{1, 2, 3}), 0);
    }
    void shapeAndDtypeErrors() {
        auto e = runError("aten.mm.default", {tv({2, 3}, {1, 2, 3, 4, 5, 6}), tv({2, 2}, {1, 2, 3, 4})});
        QVERIFY2(e.message.find("cannot be multiplied") != std::string::npos, e.message.c_str());
        e = runError("aten.mm.default", {tv({1, 1}, {1}), tv({1, 1}, {1}, DType::Float16)});
        QVERIFY2(e.message.find("same dtype") != std::string::npos, e.message.c_str());
        e = runError("aten.bmm.default", {tv({2, 2}, {1, 2, 3, 4}), tv({2, 2}, {1, 2, 3, 4})});
        QVERIFY2(e.message.find("3-D") != std::string::npos, e.message.c_str());
        e = runError("aten.matmul.default",
                     {tv({2, 3, 4}, std::vector<double>(24, 1)), tv({3, 2}, std::vector<double>(6, 1))});
        QVERIFY2(e.message.find("cannot be multiplied") != std::string::npos, e.message.c_str());
        e = runError("aten.addmm.default", {tv({3}, {1, 2, 3}), tv({1, 2}, {1, 2}), tv({2, 2}, {1, 0, 0, 1})});
        QVERIFY2(e.message.find("broadcast") != std::string::npos, e.message.c_str());
    }
    void largeHalfMmIsExact() {
        // The pad_mm corpus shape. Spot-check entries against a direct double dot product.
        // (Its speed is measured by bench/, not asserted here.)
        const int64_t M = 1023, K = 1001, N = 511;
        std::mt19937 rng(7);
        std::uniform_int_distribution<int> d(-8, 8);
        std::vector<double> a(M * K), b(K * N);
        for (auto& x : a) x = d(rng) / 8.0;
        for (auto& x : b) x = d(rng) / 8.0;
        auto av = tv({M, K}, a, DType::Float16), bv = tv({K, N}, b, DType::Float16);
        auto r = run("aten.mm.default", {av, bv});
        auto out = values(r);
        for (auto [i, j] : {std::pair<int64_t, int64_t>{0, 0}, {M - 1, N - 1}, {517, 3}, {4, 509}}) {
            double s = 0;
            for (int64_t k = 0; k < K; ++k) s += a[i * K + k] * b[k * N + j];
            // Products of eighths sum exactly; only the final fp16 rounding remains.
            QCOMPARE(out[i * N + j], fxray::kern::roundTo(s, DType::Float16));
        }
    }
};

QTEST_GUILESS_MAIN(TestOpsLinalg)
#include "tst_ops_linalg.moc"
