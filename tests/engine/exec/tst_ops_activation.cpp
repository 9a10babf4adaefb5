// Activation functions and their backward ops: values from the documented formulas, dtypes,
// output layouts and errors.
#include "test_util.h"

#include <cmath>
#include <limits>

using namespace fxtest;
using fxray::DType;
using fxray::Value;

namespace {

Value strided(std::vector<int64_t> shape, std::vector<int64_t> strides, std::vector<double> storage,
              DType dt = DType::Float32) {
    fxray::Tensor base = tensor({static_cast<int64_t>(storage.size())}, storage, dt);
    fxray::TensorMeta m = base.meta;
    m.shape = std::move(shape);
    m.strides = std::move(strides);
    return Value::ofTensor(base.view(m));
}

Value str(const char* s) {
    Value v;
    v.kind = Value::Kind::String;
    v.s = s;
    return v;
}

bool fails(std::string_view op, std::vector<Value> args, std::vector<std::pair<std::string, Value>> kw = {}) {
    fxray::ExecContext ctx(0);
    return !fxray::invokeOp(op, std::move(args), std::move(kw), &ctx).ok();
}

const double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace

class TestOpsActivation : public QObject {
    Q_OBJECT
private slots:
    void reluKeepsNaNAndIntegers() {
        auto r = run("aten.relu.default", {tv({4}, {-1, 0, 2, kNaN})});
        auto v = values(r);
        QCOMPARE(v[0], 0.0);
        QCOMPARE(v[1], 0.0);
        QCOMPARE(v[2], 2.0);
        QVERIFY(std::isnan(v[3]));
        auto i = run("aten.relu.default", {tv({2}, {-1, 2}, DType::Int64)});
        QCOMPARE(i.t.dtype(), DType::Int64);
        FX_COMPARE_VEC(values(i), (std::vector<double>{0, 2}), 0);
        QVERIFY(fails("aten.relu.default", {tv({1}, {1}, DType::Bool)}));
    }
    void reluInplaceWritesIntoSelf() {
        auto self = tv({3}, {-1, 0.5, -2});
        auto r = run("aten.relu_.default", {self});
        QCOMPARE(r.t.storage.get(), self.t.storage.get());
        FX_COMPARE_VEC(values(self), (std::vector<double>{0, 0.5, 0}), 0);
    }
    void thresholdBackwardMasksByInputAndFollowsItsLayout() {
        // self <= threshold -> 0, else grad. NaN <= 0 is false, so NaN passes grad through.
        auto r = run("aten.threshold_backward.default", {tv({4}, {1, 2, 3, 4}), tv({4}, {-1, 0, 1, kNaN}), iv(0)});
        FX_COMPARE_VEC(values(r), (std::vector<double>{0, 0, 3, 4}), 0);
        // grad contiguous, self transposed: PyTorch adds self first, so self's layout wins.
        auto self = strided({2, 3}, {1, 2}, {1, -1, 1, -1, 1, -1});
        auto t = run("aten.threshold_backward.default", {tv({2, 3}, {1, 2, 3, 4, 5, 6}), self, iv(0)});
        QCOMPARE(t.t.strides(), (std::vector<int64_t>{1, 2}));
        FX_COMPARE_VEC(values(t), (std::vector<double>{1, 2, 3, 0, 0, 0}), 0);
        auto h = run("aten.threshold_backward.default", {tv({1}, {1}, DType::Float16), tv({1}, {1}), iv(0)});
        QCOMPARE(h.t.dtype(), DType::Float32);
    }
    void geluBothForms() {
        // 0.5 x (1 + erf(x / sqrt 2)) and 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
        FX_COMPARE_VEC(values(run("aten.gelu.default", {tv({3}, {1, -1, 0})})),
                       (std::vector<double>{0.8413447460685429, -0.15865525393145707, 0}), 1e-7);
        FX_COMPARE_VEC(values(run("aten.gelu.default", {tv({1}, {1})}, {{"approximate", str("tanh")}})),
                       (std::vector<double>{0.8411919906082768}), 1e-7);
        auto h = run("aten.gelu.default", {tv({1}, {1}, DType::Float16)});
        QCOMPARE(h.t.dtype(), DType::Float16);
        QVERIFY(fails("aten.gelu.default", {tv({1}, {1})}, {{"approximate", str("fast")}}));
        QVERIFY(fails("aten.gelu.default", {tv({1}, {1}, DType::Int64)}));
    }
    void geluBackwardBothForms() {
        // none: cdf(x) + x pdf(x) at x = 1; tanh: derivative of the tanh form at x = 1.
        FX_COMPARE_VEC(values(run("aten.gelu_backward.default", {tv({2}, {1, 2}), tv({2}, {1, 0})})),
                       (std::vector<double>{1.0833154705876864, 1.0}), 1e-6);
        FX_COMPARE_VEC(
            values(run("aten.gelu_backward.default", {tv({1}, {1}), tv({1}, {1})}, {{"approximate", str("tanh")}})),
            (std::vector<double>{1.0829640838457826}), 1e-6);
        QVERIFY(fails("aten.gelu_backward.default", {tv({1}, {1}), tv({1}, {1})}, {{"approximate", str("x")}}));
    }
    void tanhAndSigmoidWithBackwards() {
        auto t = run("aten.tanh.default", {tv({1}, {0}, DType::Int64)});
        QCOMPARE(t.t.dtype(), DType::Float32);
        FX_COMPARE_VEC(values(t), (std::vector<double>{0}), 0);
        // grad * (1 - y^2) and grad * y * (1 - y).
        FX_COMPARE_VEC(values(run("aten.tanh_backward.default", {tv({2}, {2, 1}), tv({2}, {0.5, 0})})),
                       (std::vector<double>{1.5, 1}), 1e-7);
        FX_COMPARE_VEC(values(run("aten.sigmoid.default", {tv({2}, {0, 1})})),
                       (std::vector<double>{0.5, 0.7310585786300049}), 1e-7);
        FX_COMPARE_VEC(values(run("aten.sigmoid_backward.default", {tv({2}, {2, 1}), tv({2}, {0.5, 1})})),
                       (std::vector<double>{0.5, 0}), 1e-7);
        auto mixed = run("aten.sigmoid_backward.default", {tv({1}, {1}, DType::Float16), tv({1}, {0.5})});
        QCOMPARE(mixed.t.dtype(), DType::Float32);
        QVERIFY(fails("aten.tanh_backward.default", {tv({1}, {1}, DType::Int64), tv({1}, {1}, DType::Int64)}));
    }
    void backwardLayoutFollowsGradFirst() {
        // tanh_backward adds grad_output first: contiguous grad, transposed output -> contiguous.
        auto y = strided({2, 3}, {1, 2}, {0, 0, 0, 0, 0, 0});
        auto r = run("aten.tanh_backward.default", {tv({2, 3}, {1, 2, 3, 4, 5, 6}), y});
        QCOMPARE(r.t.strides(), (std::vector<int64_t>{3, 1}));
        FX_COMPARE_VEC(values(r), (std::vector<double>{1, 2, 3, 4, 5, 6}), 0);
    }
    void otherActivations() {
        FX_COMPARE_VEC(values(run("aten.silu.default", {tv({2}, {1, 0})})),
                       (std::vector<double>{0.7310585786300049, 0}), 1e-7);
        QVERIFY(fails("aten.silu.default", {tv({1}, {1}, DType::Int64)}));
        FX_COMPARE_VEC(values(run("aten.hardtanh.default", {tv({3}, {-3, 0.5, 3})})), (std::vector<double>{-1, 0.5, 1}),
                       0);
        FX_COMPARE_VEC(values(run("aten.hardtanh.default", {tv({3}, {-3, 0.5, 3}), dv(0), dv(6)})),
                       (std::vector<double>{0, 0.5, 3}), 0);
        auto hi = run("aten.hardtanh.default", {tv({2}, {-3, 0}, DType::Int64)});
        QCOMPARE(hi.t.dtype(), DType::Int64);
        FX_COMPARE_VEC(values(hi), (std::vector<double>{-1, 0}), 0);
        FX_COMPARE_VEC(values(run("aten.leaky_relu.default", {tv({2}, {-2, 3}), dv(0.1)})),
                       (std::vector<double>{-0.2, 3}), 1e-7);
        FX_COMPARE_VEC(values(run("aten.leaky_relu.default", {tv({1}, {-100})})), (std::vector<double>{-1}), 1e-6);
        // elu: x <= 0 -> alpha * scale * (exp(x * input_scale) - 1), else scale * x.
        FX_COMPARE_VEC(values(run("aten.elu.default", {tv({2}, {-1, 2}), dv(2), dv(3), dv(0.5)})),
                       (std::vector<double>{-2.3608160417241995, 6}), 1e-6);
        QVERIFY(fails("aten.leaky_relu.default", {tv({1}, {1}, DType::Int64)}));
    }
};

QTEST_GUILESS_MAIN(TestOpsActivation)
#include "tst_ops_activation.moc"
