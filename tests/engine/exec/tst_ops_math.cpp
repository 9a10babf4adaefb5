// Unary math, special functions and the extra activations: values at PyTorch's edges (NaN, inf,
// poles, ties), dtypes, tuple outputs and errors. Reference values from SciPy / the formulas.
#include "test_util.h"

#include <cmath>
#include <limits>
#include <numbers>

using namespace fxtest;
using fxray::DType;
using fxray::Value;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();
constexpr double kPi = std::numbers::pi;

bool fails(std::string_view op, std::vector<Value> args, std::vector<std::pair<std::string, Value>> kw = {}) {
    fxray::ExecContext ctx(0);
    return !fxray::invokeOp(op, std::move(args), std::move(kw), &ctx).ok();
}

/// A float64 tensor of the values, so special functions are checked to double precision.
Value f64(std::vector<double> v) {
    const auto n = static_cast<int64_t>(v.size());
    return tv({n}, std::move(v), DType::Float64);
}

}  // namespace

class TestOpsMath : public QObject {
    Q_OBJECT
private slots:
    void unaryFloatOpsPromoteIntegers() {
        auto r = run("aten.sin.default", {tv({2}, {0, 1}, DType::Int64)});
        QCOMPARE(r.t.dtype(), DType::Float32);
        FX_COMPARE_VEC(values(r), (std::vector<double>{0, std::sin(1.0f)}), 1e-7);
        QCOMPARE(run("aten.exp2.default", {tv({1}, {3}, DType::Float16)}).t.dtype(), DType::Float16);
        FX_COMPARE_VEC(values(run("aten.log2.default", {f64({8, 0, -1})})), (std::vector<double>{3, -kInf, kNaN}), 0);
    }
    void signIsZeroForNaNAndKeepsDtype() {
        // PyTorch's sign is (0 < x) - (x < 0): NaN gives 0, not NaN.
        auto r = run("aten.sgn.default", {tv({4}, {-2, 0, 3, kNaN})});
        FX_COMPARE_VEC(values(r), (std::vector<double>{-1, 0, 1, 0}), 0);
        QCOMPARE(run("aten.sign.default", {tv({1}, {-5}, DType::Int64)}).t.dtype(), DType::Int64);
        auto b = run("aten.signbit.default", {tv({3}, {-0.0, 0.0, -1})});
        QCOMPARE(b.t.dtype(), DType::Bool);
        FX_COMPARE_VEC(values(b), (std::vector<double>{1, 0, 1}), 0);
    }
    void classificationGivesBool() {
        auto in = tv({4}, {1, kNaN, kInf, -kInf});
        FX_COMPARE_VEC(values(run("aten.isnan.default", {in})), (std::vector<double>{0, 1, 0, 0}), 0);
        FX_COMPARE_VEC(values(run("aten.isinf.default", {in})), (std::vector<double>{0, 0, 1, 1}), 0);
        FX_COMPARE_VEC(values(run("aten.isposinf.default", {in})), (std::vector<double>{0, 0, 1, 0}), 0);
        FX_COMPARE_VEC(values(run("aten.isneginf.default", {in})), (std::vector<double>{0, 0, 0, 1}), 0);
        QCOMPARE(run("aten.isnan.default", {in}).t.dtype(), DType::Bool);
    }
    void roundingHalfToEvenAndDecimals() {
        FX_COMPARE_VEC(values(run("aten.round.default", {tv({4}, {0.5, 1.5, 2.5, -0.5})})),
                       (std::vector<double>{0, 2, 2, -0.0}), 0);
        auto d = run("aten.round.decimals", {tv({3}, {1.2345f, 2.5f, 1234.5f})}, {{"decimals", iv(3)}});
        FX_COMPARE_VEC(values(d), (std::vector<double>{1.234f, 2.5, 1234.5}), 0);
        auto n = run("aten.round.decimals", {tv({2}, {1500, 2500})}, {{"decimals", iv(-3)}});
        FX_COMPARE_VEC(values(n), (std::vector<double>{2000, 2000}), 0);
        QVERIFY(fails("aten.round.decimals", {tv({1}, {1}, DType::Int64)}, {{"decimals", iv(2)}}));
        QCOMPARE(run("aten.floor.default", {tv({1}, {7}, DType::Int32)}).t.dtype(), DType::Int32);
        QVERIFY(fails("aten.floor.default", {tv({1}, {1}, DType::Bool)}));
        QVERIFY(fails("aten.frac.default", {tv({1}, {1}, DType::Int64)}));
        FX_COMPARE_VEC(values(run("aten.frac.default", {f64({-2.25, 3.5})})), (std::vector<double>{-0.25, 0.5}), 0);
    }
    void frexpGivesMantissaAndInt32Exponent() {
        auto r = run("aten.frexp.Tensor", {tv({3}, {8, -0.375, 0})});
        QVERIFY(r.isList() && r.list.size() == 2);
        FX_COMPARE_VEC(values(r.list[0]), (std::vector<double>{0.5, -0.75, 0}), 0);
        QCOMPARE(r.list[1].t.dtype(), DType::Int32);
        FX_COMPARE_VEC(values(r.list[1]), (std::vector<double>{4, -1, 0}), 0);
        QVERIFY(fails("aten.frexp.Tensor", {tv({1}, {1}, DType::Int64)}));
    }
    void nanToNumUsesDtypeLimits() {
        auto r = run("aten.nan_to_num.default", {tv({4}, {kNaN, kInf, -kInf, 2})});
        FX_COMPARE_VEC(values(r), (std::vector<double>{0, 3.4028234663852886e38, -3.4028234663852886e38, 2}), 0);
        auto c = run("aten.nan_to_num.default", {tv({3}, {kNaN, kInf, -kInf}, DType::Float16)},
                     {{"nan", dv(1)}, {"neginf", dv(-7)}});
        FX_COMPARE_VEC(values(c), (std::vector<double>{1, 65504, -7}), 0);
    }
    void angleAndDegrees() {
        auto a = run("aten.angle.default", {tv({3}, {-1, 0, kNaN})});
        QCOMPARE(values(a)[0], static_cast<double>(static_cast<float>(kPi)));
        QCOMPARE(values(a)[1], 0.0);
        QVERIFY(std::isnan(values(a)[2]));
        FX_COMPARE_VEC(values(run("aten.deg2rad.default", {f64({180})})), (std::vector<double>{kPi}), 1e-15);
        FX_COMPARE_VEC(values(run("aten.sinc.default", {f64({0, 0.5, 1})})), (std::vector<double>{1, 2 / kPi, 0}),
                       1e-15);
    }
    void gammaFamilyPolesAndValues() {
        FX_COMPARE_VEC(values(run("aten.digamma.default", {f64({1, -0.5})})),
                       (std::vector<double>{-0.5772156649015329, 0.03648997397857651}), 1e-14);
        // psi(+-0) = -+inf; negative integers are NaN.
        auto p = values(run("aten.digamma.default", {f64({0.0, -0.0, -2})}));
        QCOMPARE(p[0], -kInf);
        QCOMPARE(p[1], kInf);
        QVERIFY(std::isnan(p[2]));
        FX_COMPARE_VEC(values(run("aten.polygamma.default", {iv(1), f64({0.25})})),
                       (std::vector<double>{17.197329154507113}), 1e-12);
        FX_COMPARE_VEC(values(run("aten.polygamma.default", {iv(3), f64({-1.5})})),
                       (std::vector<double>{194.59427621918758}), 1e-11);
        FX_COMPARE_VEC(values(run("aten.polygamma.default", {iv(2), f64({7.5})})),
                       (std::vector<double>{-0.02030525253664467}), 1e-15);
        QCOMPARE(values(run("aten.polygamma.default", {iv(2), f64({0})}))[0], -kInf);
        QVERIFY(fails("aten.polygamma.default", {iv(-1), f64({1})}));
        FX_COMPARE_VEC(values(run("aten.lgamma.default", {f64({0.5})})), (std::vector<double>{0.5723649429247004}),
                       1e-15);
    }
    void mvlgammaChecksItsDomain() {
        auto r = run("aten.mvlgamma.default", {f64({2.5}), iv(3)});
        FX_COMPARE_VEC(values(r), (std::vector<double>{1.8809954616117743}), 1e-14);
        QCOMPARE(run("aten.mvlgamma.default", {tv({1}, {3}, DType::Int64), iv(1)}).t.dtype(), DType::Float32);
        QVERIFY(fails("aten.mvlgamma.default", {f64({1.0}), iv(3)}));  // needs x > (p-1)/2
        QVERIFY(fails("aten.mvlgamma.default", {f64({1.0}), iv(0)}));
    }
    void besselAndErfinv() {
        FX_COMPARE_VEC(values(run("aten.i0.default", {f64({1, -1})})),
                       (std::vector<double>{1.2660658777520082, 1.2660658777520082}), 1e-15);
        FX_COMPARE_VEC(values(run("aten.special_i1.default", {f64({-2})})), (std::vector<double>{-1.5906368546373295}),
                       1e-15);
        FX_COMPARE_VEC(values(run("aten.erfinv.default", {f64({0.5, -0.999})})),
                       (std::vector<double>{0.4769362762044699, -2.3267537655135246}), 1e-14);
        auto e = values(run("aten.erfinv.default", {f64({1, -1, 1.5})}));
        QCOMPARE(e[0], kInf);
        QCOMPARE(e[1], -kInf);
        QVERIFY(std::isnan(e[2]));
    }
    void hardActivations() {
        auto in = f64({-4, -1, 2, 4});
        FX_COMPARE_VEC(values(run("aten.hardswish.default", {in})), (std::vector<double>{0, -1.0 / 3, 5.0 / 3, 4}),
                       1e-15);
        FX_COMPARE_VEC(values(run("aten.hardsigmoid.default", {in})), (std::vector<double>{0, 1.0 / 3, 5.0 / 6, 1}),
                       1e-15);
        auto g = f64({6, 6, 6, 6});
        FX_COMPARE_VEC(values(run("aten.hardswish_backward.default", {g, in})), (std::vector<double>{0, 1, 7, 6}),
                       1e-14);
        FX_COMPARE_VEC(values(run("aten.hardsigmoid_backward.default", {g, in})), (std::vector<double>{0, 1, 1, 0}),
                       1e-15);
        FX_COMPARE_VEC(values(run("aten.hardtanh_backward.default", {g, in, dv(-1), dv(3)})),
                       (std::vector<double>{0, 0, 6, 0}), 0);
        QVERIFY(fails("aten.hardswish.default", {tv({1}, {1}, DType::Int64)}));
    }
    void shrinkAndThreshold() {
        auto in = tv({4}, {-1, 0.25, 2, kNaN});
        auto s = values(run("aten.softshrink.default", {in}));
        FX_COMPARE_VEC((std::vector<double>{s[0], s[1], s[2]}), (std::vector<double>{-0.5, 0, 1.5}), 0);
        QVERIFY(std::isnan(s[3]));
        auto h = values(run("aten.hardshrink.default", {in, dv(1)}));
        FX_COMPARE_VEC((std::vector<double>{h[0], h[1], h[2]}), (std::vector<double>{0, 0, 2}), 0);
        QVERIFY(std::isnan(h[3]));
        QVERIFY(fails("aten.softshrink.default", {in, dv(-1)}));
        auto g = tv({4}, {1, 1, 1, 1});
        FX_COMPARE_VEC(values(run("aten.softshrink_backward.default", {g, in, dv(0.5)})),
                       (std::vector<double>{1, 0, 1, 1}), 0);
        auto t = run("aten.threshold.default", {tv({3}, {1, 2, 3}, DType::Int64), dv(2.5), iv(-7)});
        QCOMPARE(t.t.dtype(), DType::Int64);
        FX_COMPARE_VEC(values(t), (std::vector<double>{-7, -7, 3}), 0);
    }
    void mishAndLogSigmoid() {
        FX_COMPARE_VEC(values(run("aten.mish.default", {f64({1.5})})), (std::vector<double>{1.4033782663958028}),
                       1e-15);
        auto r = run("aten.log_sigmoid_forward.default", {f64({-2, 800})});
        QVERIFY(r.isList() && r.list.size() == 2);
        FX_COMPARE_VEC(values(r.list[0]), (std::vector<double>{-2.1269280110429727, 0}), 1e-15);
        // On CPU the buffer holds exp(-|x|); the CUDA kernels leave it empty.
        QCOMPARE(r.list[1].t.shape(), (std::vector<int64_t>{2}));
        auto g = run("aten.log_sigmoid_backward.default", {f64({1, 1}), f64({0, -800}), r.list[1]});
        FX_COMPARE_VEC(values(g), (std::vector<double>{0.5, 1}), 1e-15);
    }
    void logitClampsWithEps() {
        FX_COMPARE_VEC(values(run("aten.logit.default", {f64({0.25})})), (std::vector<double>{-1.0986122886681098}),
                       1e-15);
        auto c = values(run("aten.logit.default", {f64({0, 1})}, {{"eps", dv(0.25)}}));
        FX_COMPARE_VEC(c, (std::vector<double>{-1.0986122886681098, 1.0986122886681098}), 1e-15);
        auto b = values(run("aten.logit_backward.default", {f64({1, 1, 1}), f64({0.5, 1.5, 0.1})}));
        QCOMPARE(b[0], 4.0);
        QVERIFY(std::isnan(b[1]));
        auto be = values(run("aten.logit_backward.default", {f64({1, 1}), f64({0.5, 0.1})}, {{"eps", dv(0.2)}}));
        FX_COMPARE_VEC(be, (std::vector<double>{4, 0}), 0);
    }
};

QTEST_GUILESS_MAIN(TestOpsMath)
#include "tst_ops_math.moc"
