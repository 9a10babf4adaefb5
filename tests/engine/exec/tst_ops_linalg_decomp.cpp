// Hand-computed expectations for the linear-algebra ops beyond products (addbmm, addr, block_diag,
// linalg_cross, triangular_solve, _linalg_slogdet, linalg_lu_solve, _linalg_svd, linalg_pinv,
// linalg_matrix_exp) and for linspace/logspace: values, LAPACK-style strides, errors.
#include "test_util.h"

#include <cmath>

using namespace fxtest;
using fxray::DType;
using fxray::Value;

namespace {

using Shape = std::vector<int64_t>;
using Vec = std::vector<double>;

fxray::Diagnostic runError(std::string_view op, std::vector<Value> args) {
    fxray::ExecContext ctx(0);
    auto r = fxray::invokeOp(op, std::move(args), {}, &ctx);
    if (r.ok()) return fxray::makeError("");
    return r.error();
}

/// n x n row-major product.
Vec matmul(const Vec& a, const Vec& b, int64_t n, int64_t m, int64_t p) {
    Vec c(static_cast<size_t>(n * p), 0.0);
    for (int64_t i = 0; i < n; ++i)
        for (int64_t k = 0; k < m; ++k)
            for (int64_t j = 0; j < p; ++j) c[i * p + j] += a[i * m + k] * b[k * p + j];
    return c;
}

}  // namespace

class TestOpsLinalgDecomp : public QObject {
    Q_OBJECT
private slots:
    void addbmmSumsTheBatchAndBetaZeroIgnoresSelf() {
        auto r = run("aten.addbmm.default", {tv({1}, {NAN}), tv({2, 1, 1}, {2, 3}), tv({2, 1, 2}, {1, 2, 3, 4})},
                     {{"beta", dv(0.0)}, {"alpha", dv(2.0)}});
        QCOMPARE(r.t.shape(), (Shape{1, 2}));
        FX_COMPARE_VEC(values(r), (Vec{2 * (2 + 9), 2 * (4 + 12)}), 0);
    }
    void addrAddsTheOuterProduct() {
        auto r = run("aten.addr.default", {tv({}, {1}), tv({2}, {1, 2}), tv({3}, {1, 0, -1})});
        QCOMPARE(r.t.shape(), (Shape{2, 3}));
        QCOMPARE(r.t.strides(), (Shape{3, 1}));
        FX_COMPARE_VEC(values(r), (Vec{2, 1, 0, 3, 1, -1}), 0);
    }
    void blockDiagPlacesBlocksAndPromotes() {
        Value list = Value::ofList({tv({}, {5}, DType::Int64), tv({2}, {1, 2}), tv({2, 1}, {3, 4})});
        auto r = run("aten.block_diag.default", {list});
        QCOMPARE(r.t.shape(), (Shape{4, 4}));
        QCOMPARE(r.t.dtype(), DType::Float32);
        FX_COMPARE_VEC(values(r), (Vec{5, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 3, 0, 0, 0, 4}), 0);
    }
    void crossAlongADim() {
        // Columns are the vectors (dim 0): e1 x e2 = e3, e2 x e1 = -e3.
        auto r = run("aten.linalg_cross.default", {tv({3, 2}, {1, 0, 0, 1, 0, 0}), tv({3, 2}, {0, 1, 1, 0, 0, 0})},
                     {{"dim", iv(0)}});
        FX_COMPARE_VEC(values(r), (Vec{0, 0, 0, 0, 1, -1}), 0);
        QVERIFY(runError("aten.linalg_cross.default", {tv({2}, {1, 2}), tv({2}, {1, 2})}).message.find("length 3") !=
                std::string::npos);
    }
    void triangularSolveIsColumnMajor() {
        // [[2, 1], [0, 4]] x = [4, 8] -> x = [1, 2]; the lower triangle (9) is never read.
        auto r = run("aten.triangular_solve.default", {tv({2, 1}, {4, 8}), tv({2, 2}, {2, 1, 9, 4})});
        QCOMPARE(r.list[0].t.strides(), (Shape{1, 2}));
        QCOMPARE(r.list[1].t.strides(), (Shape{1, 2}));
        FX_COMPARE_VEC(values(r.list[0]), (Vec{1, 2}), 1e-6);
        FX_COMPARE_VEC(values(r.list[1]), (Vec{2, 1, 9, 4}), 0);
        // Transposed and unit diagonal: [[1, 0], [1, 1]] x = [4, 8] -> x = [4, 4].
        auto t = run("aten.triangular_solve.default",
                     {tv({2, 1}, {4, 8}), tv({2, 2}, {2, 1, 9, 4}), bv(true), bv(true), bv(true)});
        FX_COMPARE_VEC(values(t.list[0]), (Vec{4, 4}), 1e-6);
    }
    void slogdetSignAndLog() {
        auto r = run("aten._linalg_slogdet.default", {tv({2, 2, 2}, {0, 1, 1, 0, 2, 0, 0, 3})});
        QCOMPARE(r.list[0].t.shape(), (Shape{2}));
        QCOMPARE(r.list[2].t.strides(), (Shape{4, 1, 2}));
        QCOMPARE(r.list[3].t.dtype(), DType::Int32);
        QCOMPARE(r.list[3].t.shape(), (Shape{2, 2}));
        FX_COMPARE_VEC(values(r.list[0]), (Vec{-1, 1}), 0);
        FX_COMPARE_VEC(values(r.list[1]), (Vec{0, std::log(6.0)}), 1e-6);
    }
    void luSolveWithSlogdetFactors() {
        // A contiguous real A is factored transposed (as PyTorch does): lu_solve(LU, piv, B) then
        // solves Aᵀ X = B, and with adjoint A X = B.
        const Vec A{4, 3, 6, 3}, B{1, 2, 3, 4};
        auto f = run("aten._linalg_slogdet.default", {tv({2, 2}, A)});
        auto x = run("aten.linalg_lu_solve.default", {f.list[2], f.list[3], tv({2, 2}, B)});
        QCOMPARE(x.t.strides(), (Shape{1, 2}));
        const Vec At{4, 6, 3, 3};
        FX_COMPARE_VEC(matmul(At, values(x), 2, 2, 2), B, 1e-5);
        auto y = run("aten.linalg_lu_solve.default", {f.list[2], f.list[3], tv({2, 2}, B)}, {{"adjoint", bv(true)}});
        FX_COMPARE_VEC(matmul(A, values(y), 2, 2, 2), B, 1e-5);
        auto z = run("aten.linalg_lu_solve.default", {f.list[2], f.list[3], tv({2, 2}, B)}, {{"left", bv(false)}});
        QCOMPARE(z.t.strides(), (Shape{2, 1}));
        FX_COMPARE_VEC(matmul(values(z), At, 2, 2, 2), B, 1e-5);
    }
    void svdReconstructsWithDescendingValues() {
        const Vec A{3, 0, 0, -2, 1, 1};  // 3 x 2
        auto r = run("aten._linalg_svd.default", {tv({3, 2}, A)});
        const Vec U = values(r.list[0]), S = values(r.list[1]), Vh = values(r.list[2]);
        QCOMPARE(r.list[0].t.shape(), (Shape{3, 2}));
        QCOMPARE(r.list[0].t.strides(), (Shape{1, 3}));
        QVERIFY(S[0] >= S[1]);
        Vec US = U;
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 2; ++j) US[i * 2 + j] *= S[j];
        FX_COMPARE_VEC(matmul(US, Vh, 3, 2, 2), A, 1e-5);
        for (int j = 0; j < 2; ++j) {  // the largest-magnitude entry of each left vector is positive
            double best = 0;
            for (int i = 0; i < 3; ++i)
                if (std::abs(U[i * 2 + j]) > std::abs(best)) best = U[i * 2 + j];
            QVERIFY(best > 0);
        }
        QVERIFY(runError("aten._linalg_svd.default", {tv({2, 2}, {1, 2, 3, 4}, DType::Int64)})
                    .message.find("floating point") != std::string::npos);
    }
    void pinvOfARankOneMatrix() {
        // [[1, 2], [2, 4]] = 5·u·uᵀ with u = [1, 2]/√5: its pseudo-inverse is A / 25.
        auto r = run("aten.linalg_pinv.atol_rtol_tensor", {tv({2, 2}, {1, 2, 2, 4})});
        FX_COMPARE_VEC(values(r), (Vec{0.04, 0.08, 0.08, 0.16}), 1e-6);
        auto w = run("aten.linalg_pinv.atol_rtol_tensor", {tv({1, 3}, {1, 2, 2})});
        QCOMPARE(w.t.shape(), (Shape{3, 1}));
        FX_COMPARE_VEC(values(w), (Vec{1.0 / 9, 2.0 / 9, 2.0 / 9}), 1e-6);
    }
    void matrixExpOfNilpotentAndDiagonal() {
        auto r = run("aten.linalg_matrix_exp.default", {tv({2, 2, 2}, {0, 1, 0, 0, 1, 0, 0, 2})});
        FX_COMPARE_VEC(values(r), (Vec{1, 1, 0, 1, std::exp(1.0), 0, 0, std::exp(2.0)}), 1e-5);
        auto big = run("aten.linalg_matrix_exp.default", {tv({1, 1}, {10})});
        FX_COMPARE_VEC(values(big), (Vec{fxray::kern::roundTo(std::exp(10.0), DType::Float32)}), 1e-2);
    }
    void linspaceAndLogspace() {
        auto r = run("aten.linspace.Tensor_Tensor", {tv({}, {0}), tv({}, {1}), iv(5)});
        QCOMPARE(r.t.dtype(), DType::Float32);
        FX_COMPARE_VEC(values(r), (Vec{0, 0.25, 0.5, 0.75, 1}), 0);
        auto l = run("aten.logspace.Tensor_Scalar", {tv({}, {0}), iv(2), iv(3)});
        FX_COMPARE_VEC(values(l), (Vec{1, 10, 100}), 1e-4);
        auto i = run("aten.linspace.default", {iv(0), iv(10), iv(4)}, {{"dtype", Value::ofDType(DType::Int64)}});
        FX_COMPARE_VEC(values(i), (Vec{0, 3, 6, 10}), 0);
        QVERIFY(runError("aten.linspace.Tensor_Scalar", {tv({1}, {0}), iv(1), iv(3)}).message.find("0-dimensional") !=
                std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestOpsLinalgDecomp)
#include "tst_ops_linalg_decomp.moc"
