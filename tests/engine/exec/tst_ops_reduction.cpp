// Reductions and the softmax family: hand-computed values, dtypes, shapes, contiguous outputs
// and errors.
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

bool fails(std::string_view op, std::vector<Value> args, std::vector<std::pair<std::string, Value>> kw = {}) {
    fxray::ExecContext ctx(0);
    return !fxray::invokeOp(op, std::move(args), std::move(kw), &ctx).ok();
}

using Shape = std::vector<int64_t>;
const double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace

class TestOpsReduction : public QObject {
    Q_OBJECT
private slots:
    void sumOverDims() {
        auto x = tv({2, 3}, {1, 2, 3, 4, 5, 6});
        auto r = run("aten.sum.dim_IntList", {x, ilist({1})});
        QCOMPARE(r.t.shape(), (Shape{2}));
        FX_COMPARE_VEC(values(r), (std::vector<double>{6, 15}), 0);
        auto k = run("aten.sum.dim_IntList", {x, ilist({0}), bv(true)});
        QCOMPARE(k.t.shape(), (Shape{1, 3}));
        QCOMPARE(k.t.strides(), (Shape{3, 1}));
        FX_COMPARE_VEC(values(k), (std::vector<double>{5, 7, 9}), 0);
        auto all = run("aten.sum.dim_IntList", {x, Value::none()});
        QCOMPARE(all.t.shape(), Shape{});
        FX_COMPARE_VEC(values(all), (std::vector<double>{21}), 0);
        auto empty = run("aten.sum.dim_IntList", {x, ilist({}), bv(true)});
        QCOMPARE(empty.t.shape(), (Shape{1, 1}));
        FX_COMPARE_VEC(values(empty), (std::vector<double>{21}), 0);
        auto neg = run("aten.sum.dim_IntList", {x, ilist({-1, 0})});
        FX_COMPARE_VEC(values(neg), (std::vector<double>{21}), 0);
        FX_COMPARE_VEC(values(run("aten.sum.default", {x})), (std::vector<double>{21}), 0);
    }
    void sumDtypes() {
        auto b = run("aten.sum.default", {tv({3}, {1, 1, 0}, DType::Bool)});
        QCOMPARE(b.t.dtype(), DType::Int64);
        FX_COMPARE_VEC(values(b), (std::vector<double>{2}), 0);
        auto u = run("aten.sum.default", {tv({2}, {200, 200}, DType::UInt8)});
        QCOMPARE(u.t.dtype(), DType::Int64);
        FX_COMPARE_VEC(values(u), (std::vector<double>{400}), 0);
        auto h = run("aten.sum.dim_IntList", {tv({1, 2}, {1, 2}, DType::Int32), ilist({1})},
                     {{"dtype", Value::ofDType(DType::Float16)}});
        QCOMPARE(h.t.dtype(), DType::Float16);
        FX_COMPARE_VEC(values(h), (std::vector<double>{3}), 0);
    }
    void reductionOutputsAreContiguous() {
        // A transposed [3, 2] view of [[1, 2, 3], [4, 5, 6]]: rows are (1, 4), (2, 5), (3, 6).
        auto t = strided({3, 2}, {1, 3}, {1, 2, 3, 4, 5, 6});
        auto r = run("aten.sum.dim_IntList", {t, ilist({1}), bv(true)});
        QCOMPARE(r.t.shape(), (Shape{3, 1}));
        QCOMPARE(r.t.strides(), (Shape{1, 1}));
        FX_COMPARE_VEC(values(r), (std::vector<double>{5, 7, 9}), 0);
        auto m = run("aten.amax.default", {t, ilist({0})});
        QCOMPARE(m.t.strides(), (Shape{1}));
        FX_COMPARE_VEC(values(m), (std::vector<double>{3, 6}), 0);
    }
    void meanAndItsDtypeRules() {
        auto r = run("aten.mean.dim", {tv({2, 2}, {1, 2, 3, 4}), ilist({0})});
        FX_COMPARE_VEC(values(r), (std::vector<double>{2, 3}), 0);
        auto k = run("aten.mean.dim", {tv({1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}), ilist({-1, -2}), bv(true)});
        QCOMPARE(k.t.shape(), (Shape{1, 2, 1, 1}));
        QCOMPARE(k.t.strides(), (Shape{2, 1, 1, 1}));
        FX_COMPARE_VEC(values(k), (std::vector<double>{2.5, 6.5}), 0);
        QVERIFY(fails("aten.mean.default", {tv({2}, {1, 2}, DType::Int64)}));
        auto i = run("aten.mean.default", {tv({2}, {1, 2}, DType::Int64)}, {{"dtype", Value::ofDType(DType::Float32)}});
        QCOMPARE(i.t.dtype(), DType::Float32);
        FX_COMPARE_VEC(values(i), (std::vector<double>{1.5}), 0);
        auto empty = run("aten.mean.dim", {tv({2, 0}, {}), ilist({1})});
        QCOMPARE(empty.t.shape(), (Shape{2}));
        QVERIFY(std::isnan(values(empty)[0]));
    }
    void amaxAminPropagateNaN() {
        auto r = run("aten.amax.default", {tv({2, 3}, {1, kNaN, 3, 4, 5, 6}), ilist({1})});
        auto v = values(r);
        QVERIFY(std::isnan(v[0]));
        QCOMPARE(v[1], 6.0);
        FX_COMPARE_VEC(values(run("aten.amin.default", {tv({2, 2}, {1, 5, 7, 2}, DType::Int64)})),
                       (std::vector<double>{1}), 0);
        auto b = run("aten.amax.default", {tv({2}, {1, 0}, DType::Bool)});
        QCOMPARE(b.t.dtype(), DType::Bool);
    }
    void reductionErrors() {
        QVERIFY(fails("aten.amax.default", {tv({2, 0}, {}), ilist({1})}));
        QVERIFY(fails("aten.sum.dim_IntList", {tv({2, 3}, {1, 2, 3, 4, 5, 6}), ilist({1, -1})}));
        QVERIFY(fails("aten.sum.dim_IntList", {tv({2, 3}, {1, 2, 3, 4, 5, 6}), ilist({2})}));
        QVERIFY(fails("aten.max.dim", {tv({2, 0}, {}), iv(1)}));
        QVERIFY(fails("aten.argmax.default", {tv({0}, {})}));
    }
    void maxMinDimReturnFirstIndex() {
        auto r = run("aten.max.dim", {tv({3}, {3, 1, 3}), iv(0)});
        QVERIFY(r.isList() && r.list.size() == 2);
        FX_COMPARE_VEC(values(r.list[0]), (std::vector<double>{3}), 0);
        QCOMPARE(r.list[1].t.dtype(), DType::Int64);
        FX_COMPARE_VEC(values(r.list[1]), (std::vector<double>{0}), 0);
        auto mn = run("aten.min.dim", {tv({2, 3}, {3, 1, 1, 0, 5, 0}), iv(1), bv(true)});
        QCOMPARE(mn.list[0].t.shape(), (Shape{2, 1}));
        FX_COMPARE_VEC(values(mn.list[0]), (std::vector<double>{1, 0}), 0);
        FX_COMPARE_VEC(values(mn.list[1]), (std::vector<double>{1, 0}), 0);
        // NaN is the maximum; its first position is reported.
        auto n = run("aten.max.dim", {tv({4}, {1, kNaN, 3, kNaN}), iv(0)});
        QVERIFY(std::isnan(values(n.list[0])[0]));
        FX_COMPARE_VEC(values(n.list[1]), (std::vector<double>{1}), 0);
        auto col = run("aten.max.dim", {tv({2, 2}, {1, 5, 7, 2}), iv(0)});
        FX_COMPARE_VEC(values(col.list[0]), (std::vector<double>{7, 5}), 0);
        FX_COMPARE_VEC(values(col.list[1]), (std::vector<double>{1, 0}), 0);
    }
    void argmaxFlattensWithoutDim() {
        auto x = tv({2, 2}, {1, 5, 7, 2});
        auto r = run("aten.argmax.default", {x});
        QCOMPARE(r.t.shape(), Shape{});
        FX_COMPARE_VEC(values(r), (std::vector<double>{2}), 0);
        auto k = run("aten.argmax.default", {x, Value::none(), bv(true)});
        QCOMPARE(k.t.shape(), (Shape{1, 1}));
        FX_COMPARE_VEC(values(run("aten.argmax.default", {tv({2, 2}, {1, 5, 7, 2}, DType::Int64), iv(1)})),
                       (std::vector<double>{1, 0}), 0);
        FX_COMPARE_VEC(values(run("aten.argmax.default", {tv({3}, {3, 1, 3})})), (std::vector<double>{0}), 0);
    }
    void varianceWithCorrections() {
        // [1, 2, 4]: mean 7/3, squared deviations sum to 14/3.
        auto x = tv({3}, {1, 2, 4});
        FX_COMPARE_VEC(values(run("aten.var.correction", {x})), (std::vector<double>{7.0 / 3}), 1e-6);
        FX_COMPARE_VEC(values(run("aten.var.correction", {x}, {{"correction", iv(0)}})),
                       (std::vector<double>{14.0 / 9}), 1e-6);
        auto vm = run("aten.var_mean.correction", {tv({1, 3}, {1, 2, 4}), ilist({1})},
                      {{"correction", iv(2)}, {"keepdim", bv(true)}});
        QCOMPARE(vm.list[0].t.shape(), (Shape{1, 1}));
        FX_COMPARE_VEC(values(vm.list[0]), (std::vector<double>{14.0 / 3}), 1e-5);
        FX_COMPARE_VEC(values(vm.list[1]), (std::vector<double>{7.0 / 3}), 1e-6);
        QVERIFY(std::isnan(values(run("aten.var.correction", {tv({1}, {1})}))[0]));
        auto h = run("aten.var.correction", {tv({3}, {1, 2, 4}, DType::Float16)});
        QCOMPARE(h.t.dtype(), DType::Float16);
        QVERIFY(fails("aten.var.correction", {tv({2}, {1, 2}, DType::Int64)}));
    }
    void softmaxValuesAndDtypes() {
        // softmax([1, 2]) = [1/(1+e), e/(1+e)].
        auto r = run("aten._softmax.default", {tv({1, 2}, {1, 2}), iv(-1), bv(false)});
        FX_COMPARE_VEC(values(r), (std::vector<double>{0.2689414213699951, 0.7310585786300049}), 1e-7);
        // Along dim 0 of [[0, 0], [ln 3, 0]]: columns (1/4, 3/4) and (1/2, 1/2).
        auto c = run("aten._softmax.default", {tv({2, 2}, {0, 0, std::log(3.0), 0}), iv(0), bv(false)});
        FX_COMPARE_VEC(values(c), (std::vector<double>{0.25, 0.5, 0.75, 0.5}), 1e-7);
        auto h = run("aten._softmax.default", {tv({1, 2}, {1, 2}, DType::Float16), iv(-1), bv(true)});
        QCOMPARE(h.t.dtype(), DType::Float32);
        QVERIFY(fails("aten._softmax.default", {tv({1, 2}, {1, 2}, DType::Int64), iv(-1), bv(false)}));
        QVERIFY(fails("aten._softmax.default", {tv({1, 2}, {1, 2}), iv(2), bv(false)}));
        auto d = run("aten.softmax.int", {tv({1, 2}, {1, 2}, DType::Int64), iv(1), Value::ofDType(DType::Float64)});
        QCOMPARE(d.t.dtype(), DType::Float64);
        FX_COMPARE_VEC(values(d), (std::vector<double>{0.2689414213699951, 0.7310585786300049}), 1e-12);
        auto inf = run("aten._softmax.default", {tv({2}, {-INFINITY, -INFINITY}), iv(0), bv(false)});
        QVERIFY(std::isnan(values(inf)[0]));
    }
    void softmaxOutputIsContiguousLogSoftmaxBackwardFollowsInputs() {
        auto t = strided({3, 2}, {1, 3}, {0, 0, 0, 0, 0, 0});
        auto s = run("aten._softmax.default", {t, iv(1), bv(false)});
        QCOMPARE(s.t.strides(), (Shape{2, 1}));
        FX_COMPARE_VEC(values(s), (std::vector<double>{0.5, 0.5, 0.5, 0.5, 0.5, 0.5}), 1e-7);
        auto l = run("aten._log_softmax.default", {t, iv(1), bv(false)});
        QCOMPARE(l.t.strides(), (Shape{2, 1}));
        auto b = run("aten._softmax_backward_data.default", {t, t, iv(1), Value::ofDType(DType::Float32)});
        QCOMPARE(b.t.strides(), (Shape{2, 1}));
        auto lb = run("aten._log_softmax_backward_data.default", {t, t, iv(1), Value::ofDType(DType::Float32)});
        QCOMPARE(lb.t.strides(), (Shape{1, 3}));
    }
    void softmaxBackward() {
        // y * (g - sum(g * y)): g = [1, 2], y = [0.5, 0.5], sum = 1.5.
        auto r = run("aten._softmax_backward_data.default",
                     {tv({1, 2}, {1, 2}), tv({1, 2}, {0.5, 0.5}), iv(-1), Value::ofDType(DType::Float16)});
        QCOMPARE(r.t.dtype(), DType::Float16);
        FX_COMPARE_VEC(values(r), (std::vector<double>{-0.25, 0.25}), 0);
        QVERIFY(fails("aten._softmax_backward_data.default",
                      {tv({1, 2}, {1, 2}), tv({1, 3}, {0.5, 0.5, 0}), iv(-1), Value::ofDType(DType::Float32)}));
        QVERIFY(fails("aten._softmax_backward_data.default",
                      {tv({1, 2}, {1, 2}), tv({1, 2}, {0.5, 0.5}), iv(2), Value::ofDType(DType::Float32)}));
    }
    void logSoftmaxAndBackward() {
        auto r = run("aten._log_softmax.default", {tv({1, 2}, {0, 0}), iv(1), bv(false)});
        FX_COMPARE_VEC(values(r), (std::vector<double>{-std::log(2.0), -std::log(2.0)}), 1e-7);
        // g - exp(y) * sum(g): g = [1, 2], y = [0, 0] -> [1 - 3, 2 - 3].
        auto b = run("aten._log_softmax_backward_data.default",
                     {tv({1, 2}, {1, 2}), tv({1, 2}, {0, 0}), iv(1), Value::ofDType(DType::Float32)});
        FX_COMPARE_VEC(values(b), (std::vector<double>{-2, -1}), 0);
    }
    void prepareSoftmaxOnline() {
        // Rows [1, 2] and [3, 3]: max 2 and 3; sums exp(-1) + 1 and 2.
        auto r = run("prims.prepare_softmax_online.default", {tv({2, 2}, {1, 2, 3, 3}), iv(1)});
        QVERIFY(r.isList() && r.list.size() == 2);
        QCOMPARE(r.list[0].t.shape(), (Shape{2, 1}));
        FX_COMPARE_VEC(values(r.list[0]), (std::vector<double>{2, 3}), 0);
        FX_COMPARE_VEC(values(r.list[1]), (std::vector<double>{1.3678794411714423, 2}), 1e-6);
        auto h = run("prims.prepare_softmax_online.default", {tv({1, 2}, {1, 2}, DType::Float16), iv(-1)});
        QCOMPARE(h.list[1].t.dtype(), DType::Float16);
    }
};

QTEST_GUILESS_MAIN(TestOpsReduction)
#include "tst_ops_reduction.moc"
