// Hand-computed expectations for the pointwise ops.
#include "test_util.h"

using namespace fxtest;
using fxray::DType;

class TestOpsPointwise : public QObject {
    Q_OBJECT
private slots:
    void addBroadcastsAndScalesByAlpha() {
        auto r = run("aten.add.Tensor", {tv({2, 2}, {1, 2, 3, 4}), tv({2}, {10, 20})}, {{"alpha", iv(2)}});
        QCOMPARE(r.t.shape(), (std::vector<int64_t>{2, 2}));
        FX_COMPARE_VEC(values(r), (std::vector<double>{21, 42, 23, 44}), 0);
    }
    void mulByPythonFloatKeepsHalf() {
        auto r = run("aten.mul.Tensor", {tv({2}, {1.5, -3}, DType::Float16), dv(2.0)});
        QCOMPARE(r.t.dtype(), DType::Float16);
        FX_COMPARE_VEC(values(r), (std::vector<double>{3, -6}), 0);
    }
    void mulIntTensorByFloatPromotesToFloat() {
        auto r = run("aten.mul.Tensor", {tv({2}, {1, 2}, DType::Int64), dv(0.5)});
        QCOMPARE(r.t.dtype(), DType::Float32);
        FX_COMPARE_VEC(values(r), (std::vector<double>{0.5, 1}), 0);
    }
};

QTEST_GUILESS_MAIN(TestOpsPointwise)
#include "tst_ops_pointwise.moc"
