// Hand-computed expectations for the binary and ternary pointwise ops of binary.cpp: values at
// the edges (signs, NaN, infinities, integer widths), result dtypes, broadcasting and errors.
#include "test_util.h"

#include <cmath>
#include <limits>

using namespace fxtest;
using fxray::DType;
using fxray::Value;

namespace {

bool fails(std::string_view op, std::vector<Value> args, std::vector<std::pair<std::string, Value>> kw = {}) {
    fxray::ExecContext ctx(0);
    return !fxray::invokeOp(op, std::move(args), std::move(kw), &ctx).ok();
}

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

/// Element-wise equality where NaN equals NaN.
bool sameValues(const std::vector<double>& a, const std::vector<double>& b, double tol = 0.0) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
        if (std::isnan(a[i]) && std::isnan(b[i])) continue;
        if (std::isinf(b[i]) ? a[i] != b[i] : std::fabs(a[i] - b[i]) > tol) return false;
    }
    return true;
}

}  // namespace

class TestOpsBinary : public QObject {
    Q_OBJECT
private slots:
    /// remainder takes the divisor's sign (Python's %), fmod the dividend's (C's fmod).
    void remainderAndFmodSigns() {
        auto x = tv({4}, {-3, 3, -3, 3});
        auto y = tv({4}, {2, -2, -2, 2});
        FX_COMPARE_VEC(values(run("aten.remainder.Tensor", {x, y})), (std::vector<double>{1, -1, -1, 1}), 0);
        FX_COMPARE_VEC(values(run("aten.fmod.Tensor", {x, y})), (std::vector<double>{-1, 1, -1, 1}), 0);
        auto xi = tv({4}, {-3, 3, -3, 3}, DType::Int64);
        auto yi = tv({4}, {2, -2, -2, 2}, DType::Int64);
        auto ri = run("aten.remainder.Tensor", {xi, yi});
        QCOMPARE(ri.t.dtype(), DType::Int64);
        FX_COMPARE_VEC(values(ri), (std::vector<double>{1, -1, -1, 1}), 0);
        FX_COMPARE_VEC(values(run("aten.fmod.Tensor", {xi, yi})), (std::vector<double>{-1, 1, -1, 1}), 0);
        FX_COMPARE_VEC(values(run("aten.remainder.Scalar", {tv({2}, {-1, 2}), dv(1.5)})),
                       (std::vector<double>{0.5, 0.5}), 0);
        QVERIFY(std::isnan(values(run("aten.remainder.Tensor", {tv({1}, {1}), tv({1}, {0})}))[0]));
        QVERIFY(fails("aten.remainder.Tensor", {xi, tv({1}, {0}, DType::Int64)}));
        QVERIFY(fails("aten.fmod.Scalar", {xi, iv(0)}));
        QVERIFY(fails("aten.remainder.Tensor", {tv({1}, {1}, DType::Bool), tv({1}, {1}, DType::Bool)}));
    }

    void floorDivideRoundsDown() {
        auto r = run("aten.floor_divide.default", {tv({2}, {-7, 7}, DType::Int64), tv({2}, {2, 2}, DType::Int64)});
        QCOMPARE(r.t.dtype(), DType::Int64);
        FX_COMPARE_VEC(values(r), (std::vector<double>{-4, 3}), 0);
        FX_COMPARE_VEC(values(run("aten.floor_divide.Scalar", {tv({2}, {-7, 7}), dv(2.0)})),
                       (std::vector<double>{-4, 3}), 0);
        QVERIFY(fails("aten.floor_divide.default", {tv({1}, {1}, DType::Int64), tv({1}, {0}, DType::Int64)}));
    }

    /// atan2, copysign and xlogy turn integer operands into the default float dtype; hypot,
    /// logaddexp, nextafter and igamma have no integer kernels.
    void floatPromotionAndFloatOnlyOps() {
        auto i = tv({2}, {1, 2}, DType::Int64);
        auto a = run("aten.atan2.default", {i, i});
        QCOMPARE(a.t.dtype(), DType::Float32);
        FX_COMPARE_VEC(values(a), (std::vector<double>{M_PI / 4, M_PI / 4}), 1e-6);
        auto c = run("aten.copysign.Tensor", {i, tv({2}, {-1.0, -0.0})});
        QCOMPARE(c.t.dtype(), DType::Float32);
        FX_COMPARE_VEC(values(c), (std::vector<double>{-1, -2}), 0);
        QCOMPARE(run("aten.xlogy.Tensor", {i, i}).t.dtype(), DType::Float32);
        for (const char* op : {"aten.hypot.default", "aten.logaddexp.default", "aten.logaddexp2.default",
                               "aten.nextafter.default", "aten.igamma.default", "aten.igammac.default"})
            QVERIFY2(fails(op, {i, i}), op);
        FX_COMPARE_VEC(values(run("aten.hypot.default", {tv({1}, {3}), tv({1}, {4})})), (std::vector<double>{5}), 0);
    }

    void fmaxFminIgnoreNaN() {
        auto x = tv({3}, {kNaN, 1, kNaN});
        auto y = tv({3}, {1, kNaN, kNaN});
        QVERIFY(sameValues(values(run("aten.fmax.default", {x, y})), {1, 1, kNaN}));
        QVERIFY(sameValues(values(run("aten.fmin.default", {tv({2}, {2, 3}), tv({2}, {kNaN, -1})})), {2, -1}));
    }

    void logaddexpEdges() {
        auto r = run("aten.logaddexp.default", {tv({4}, {-kInf, kInf, 0, 1000}), tv({4}, {-kInf, kInf, 0, 1000})});
        QVERIFY(sameValues(values(r), {-kInf, kInf, std::log(2.0), 1000 + std::log(2.0)}, 1e-4));
        FX_COMPARE_VEC(values(run("aten.logaddexp2.default", {tv({1}, {1}), tv({1}, {1})})), (std::vector<double>{2}),
                       1e-6);
        QVERIFY(sameValues(values(run("aten.logaddexp.default", {tv({1}, {kNaN}), tv({1}, {1})})), {kNaN}));
    }

    /// xlogy is 0 where x is 0, except that a NaN y stays NaN.
    void xlogyZeroAndNaN() {
        auto r = run("aten.xlogy.Tensor", {tv({3}, {0, 0, 2}), tv({3}, {0, kNaN, std::exp(1.0)})});
        QVERIFY(sameValues(values(r), {0, kNaN, 2}, 1e-6));
        FX_COMPARE_VEC(values(run("aten.xlogy.Scalar_Self", {dv(3.0), tv({1}, {1})})), (std::vector<double>{0}), 0);
    }

    void ldexpMultipliesByPowersOfTwo() {
        auto r = run("aten.ldexp.Tensor", {tv({2}, {1, 3}), tv({2}, {2, -1}, DType::Int64)});
        QCOMPARE(r.t.dtype(), DType::Float32);
        FX_COMPARE_VEC(values(r), (std::vector<double>{4, 1.5}), 0);
        auto ii = run("aten.ldexp.Tensor", {tv({1}, {1}, DType::Int64), tv({1}, {3}, DType::Int64)});
        QCOMPARE(ii.t.dtype(), DType::Float32);
        QCOMPARE(run("aten.ldexp.Tensor", {tv({1}, {1}), tv({1}, {3}, DType::Float64)}).t.dtype(), DType::Float64);
    }

    /// One step in the output dtype: float, half and bfloat16 steps differ.
    void nextafterStepsInTheDtype() {
        FX_COMPARE_VEC(values(run("aten.nextafter.default", {tv({1}, {1}), tv({1}, {2})})),
                       (std::vector<double>{1 + std::ldexp(1.0, -23)}), 0);
        auto h =
            run("aten.nextafter.default", {tv({3}, {1, 0, 1}, DType::Float16), tv({3}, {2, -1, 1}, DType::Float16)});
        FX_COMPARE_VEC(values(h), (std::vector<double>{1 + std::ldexp(1.0, -10), -std::ldexp(1.0, -24), 1}), 0);
        auto b = run("aten.nextafter.default", {tv({1}, {1}, DType::BFloat16), tv({1}, {0}, DType::BFloat16)});
        FX_COMPARE_VEC(values(b), (std::vector<double>{1 - std::ldexp(1.0, -8)}), 0);
        auto n = run("aten.nextafter.default", {tv({1}, {-1}, DType::Float16), tv({1}, {-2}, DType::Float16)});
        FX_COMPARE_VEC(values(n), (std::vector<double>{-1 - std::ldexp(1.0, -10)}), 0);
    }

    void heavisideUsesValuesAtZero() {
        auto r = run("aten.heaviside.default", {tv({4}, {-1, 0, 2, kNaN}), tv({4}, {5, 5, 5, 5})});
        FX_COMPARE_VEC(values(r), (std::vector<double>{0, 5, 1, 0}), 0);
        QVERIFY(fails("aten.heaviside.default", {tv({1}, {1}), tv({1}, {1}, DType::Float64)}));
    }

    /// P(1, x) = 1 - exp(-x) and Q(1/2, x) = erfc(sqrt(x)), on both sides of x = a + 1 (series
    /// and continued fraction); PyTorch's values at the domain's edges.
    void incompleteGamma() {
        auto p =
            run("aten.igamma.default", {tv({3}, {1, 1, 1}, DType::Float64), tv({3}, {0.5, 3, 30}, DType::Float64)});
        FX_COMPARE_VEC(values(p), (std::vector<double>{1 - std::exp(-0.5), 1 - std::exp(-3.0), 1 - std::exp(-30.0)}),
                       1e-13);
        auto q = run("aten.igammac.default", {tv({2}, {0.5, 0.5}, DType::Float64), tv({2}, {0.3, 2}, DType::Float64)});
        FX_COMPARE_VEC(values(q), (std::vector<double>{std::erfc(std::sqrt(0.3)), std::erfc(std::sqrt(2.0))}), 1e-13);
        auto e = run("aten.igamma.default", {tv({5}, {0, 0, -1, 1, kInf}), tv({5}, {1, 0, 1, 0, 1})});
        QVERIFY(sameValues(values(e), {1, kNaN, kNaN, 0, 0}));
        auto ec = run("aten.igammac.default", {tv({3}, {0, 1, kInf}), tv({3}, {1, kInf, 1})});
        QVERIFY(sameValues(values(ec), {0, 0, 1}));
    }

    void powWithScalarBase() {
        auto r = run("aten.pow.Scalar", {iv(2), tv({3}, {3, 0, -1}, DType::Int64)});
        QCOMPARE(r.t.dtype(), DType::Int64);
        FX_COMPARE_VEC(values(r), (std::vector<double>{8, 1, 0}), 0);
        auto f = run("aten.pow.Scalar", {dv(2.0), tv({2}, {3, -1}, DType::Int64)});
        QCOMPARE(f.t.dtype(), DType::Float32);
        FX_COMPARE_VEC(values(f), (std::vector<double>{8, 0.5}), 0);
    }

    void gcdAndLcm() {
        auto g = run("aten.gcd.default", {tv({3}, {12, -18, 0}, DType::Int64), tv({3}, {18, 12, 0}, DType::Int64)});
        FX_COMPARE_VEC(values(g), (std::vector<double>{6, 6, 0}), 0);
        auto l = run("aten.lcm.default", {tv({3}, {4, -6, 0}, DType::Int64), tv({3}, {6, 4, 5}, DType::Int64)});
        FX_COMPARE_VEC(values(l), (std::vector<double>{12, 12, 0}), 0);
        QVERIFY(fails("aten.gcd.default", {tv({1}, {4}), tv({1}, {6})}));
        QVERIFY(fails("aten.lcm.default", {tv({1}, {1}, DType::Bool), tv({1}, {1}, DType::Bool)}));
    }

    /// Shifts by a negative amount or by the dtype's width or more give 0 (or the sign fill of a
    /// signed right shift); left shifts wrap in the dtype.
    void bitwiseXorAndShifts() {
        FX_COMPARE_VEC(
            values(run("aten.bitwise_xor.Tensor", {tv({2}, {5, -1}, DType::Int64), tv({2}, {3, 1}, DType::Int64)})),
            (std::vector<double>{6, -2}), 0);
        auto bx = run("aten.bitwise_xor.Tensor", {tv({2}, {1, 1}, DType::Bool), tv({2}, {0, 1}, DType::Bool)});
        QCOMPARE(bx.t.dtype(), DType::Bool);
        FX_COMPARE_VEC(values(bx), (std::vector<double>{1, 0}), 0);
        auto l = run("aten.bitwise_left_shift.Tensor",
                     {tv({4}, {1, 1, 3, -1}, DType::Int32), tv({4}, {31, 32, 1, -1}, DType::Int32)});
        FX_COMPARE_VEC(values(l), (std::vector<double>{-2147483648.0, 0, 6, 0}), 0);
        auto r = run("aten.bitwise_right_shift.Tensor",
                     {tv({3}, {-8, -8, 8}, DType::Int32), tv({3}, {1, 40, 40}, DType::Int32)});
        FX_COMPARE_VEC(values(r), (std::vector<double>{-4, -1, 0}), 0);
        auto u = run("aten.bitwise_left_shift.Tensor", {tv({1}, {255}, DType::UInt8), tv({1}, {1}, DType::UInt8)});
        FX_COMPARE_VEC(values(u), (std::vector<double>{254}), 0);
        QVERIFY(fails("aten.bitwise_left_shift.Tensor", {tv({1}, {1}), tv({1}, {1})}));
        QVERIFY(fails("aten.bitwise_xor.Tensor", {tv({1}, {1}), tv({1}, {1})}));
    }

    void logicalOrXor() {
        auto o = run("aten.logical_or.default", {tv({3}, {0, 2, 0}), tv({3}, {0, 0, kNaN})});
        QCOMPARE(o.t.dtype(), DType::Bool);
        FX_COMPARE_VEC(values(o), (std::vector<double>{0, 1, 1}), 0);
        FX_COMPARE_VEC(values(run("aten.logical_xor.default", {tv({3}, {0, 2, 3}), tv({3}, {0, 0, 1}, DType::Int64)})),
                       (std::vector<double>{0, 1, 0}), 0);
    }

    /// clamp with tensor bounds: all operands broadcast and promote together; a NaN anywhere
    /// gives NaN; min > max gives max.
    void clampWithTensorBounds() {
        auto r = run("aten.clamp.Tensor", {tv({4}, {1, 5, kNaN, 3}), tv({4}, {2, 2, 2, kNaN}), tv({4}, {4, 4, 4, 4})});
        QVERIFY(sameValues(values(r), {2, 4, kNaN, kNaN}));
        auto b = run("aten.clamp.Tensor", {tv({2}, {0, 10}), tv({2, 1}, {1, 20}), Value::none()});
        QCOMPARE(b.t.shape(), (std::vector<int64_t>{2, 2}));
        FX_COMPARE_VEC(values(b), (std::vector<double>{1, 10, 20, 20}), 0);
        FX_COMPARE_VEC(values(run("aten.clamp.Tensor", {tv({1}, {3}), tv({1}, {5}), tv({1}, {1})})),
                       (std::vector<double>{1}), 0);
        auto p = run("aten.clamp_min.Tensor", {tv({2}, {1, 5}, DType::Int64), tv({2}, {2.5, 2.5})});
        QCOMPARE(p.t.dtype(), DType::Float32);
        FX_COMPARE_VEC(values(p), (std::vector<double>{2.5, 5}), 0);
        QVERIFY(sameValues(values(run("aten.clamp_max.Tensor", {tv({2}, {1, 5}), tv({2}, {kNaN, 2})})), {kNaN, 2}));
        QVERIFY(fails("aten.clamp.Tensor", {tv({1}, {1}), Value::none(), Value::none()}));
        // A NaN scalar bound fills the result with NaN (ATen's clamp_out).
        QVERIFY(sameValues(values(run("aten.clamp.default", {tv({2}, {1, 5}), dv(kNaN), dv(3)})), {kNaN, kNaN}));
        QVERIFY(sameValues(values(run("aten.clamp_min.default", {tv({1}, {1}), dv(kNaN)})), {kNaN}));
    }

    void addcmulAddcdiv() {
        FX_COMPARE_VEC(
            values(run("aten.addcmul.default", {tv({1}, {1}), tv({1}, {2}), tv({1}, {3})}, {{"value", dv(2.0)}})),
            (std::vector<double>{13}), 0);
        FX_COMPARE_VEC(
            values(run("aten.addcdiv.default", {tv({1}, {1}), tv({1}, {6}), tv({1}, {3})}, {{"value", dv(0.5)}})),
            (std::vector<double>{2}), 0);
        auto s = run("aten.addcmul.default", {tv({2, 1}, {1, 2}), tv({3}, {1, 1, 1}), tv({1}, {1})});
        QCOMPARE(s.t.shape(), (std::vector<int64_t>{2, 3}));
        QVERIFY(fails("aten.addcdiv.default", {tv({1}, {1}), tv({1}, {6}, DType::Int64), tv({1}, {3}, DType::Int64)}));
    }

    /// lerp reaches its ends exactly, and needs one floating dtype for self, end and weight.
    void lerpEndsAndDtypes() {
        FX_COMPARE_VEC(values(run("aten.lerp.Scalar", {tv({2}, {0, 10}), tv({2}, {10, 20}), dv(0.4)})),
                       (std::vector<double>{4, 14}), 1e-6);
        auto t = run("aten.lerp.Tensor", {tv({2}, {0.1, 0.3}), tv({2}, {0.7, 0.9}), tv({2}, {0, 1})});
        FX_COMPARE_VEC(values(t), (std::vector<double>{static_cast<float>(0.1), static_cast<float>(0.9)}), 0);
        QVERIFY(fails("aten.lerp.Scalar", {tv({1}, {1}), tv({1}, {1}, DType::Float64), dv(0.5)}));
        QVERIFY(fails("aten.lerp.Tensor", {tv({1}, {1}), tv({1}, {1}), tv({1}, {1}, DType::Float64)}));
        QVERIFY(fails("aten.lerp.Scalar", {tv({1}, {1}, DType::Int64), tv({1}, {1}, DType::Int64), dv(0.5)}));
    }

    void rsubTensor() {
        FX_COMPARE_VEC(values(run("aten.rsub.Tensor", {tv({1}, {1}), tv({1}, {5})}, {{"alpha", iv(2)}})),
                       (std::vector<double>{3}), 0);
        QVERIFY(fails("aten.rsub.Tensor", {tv({1}, {1}, DType::Bool), tv({1}, {1})}));
    }
};

QTEST_GUILESS_MAIN(TestOpsBinary)
#include "tst_ops_binary.moc"
