// Hand-computed expectations for layer norm, batch norm (functional, in-place and eval flavours)
// and group norm, forward and backward, including the saved statistics' shapes and dtypes.
#include "test_util.h"

#include <cmath>

using namespace fxtest;
using fxray::DType;
using fxray::Value;

namespace {

using Shape = std::vector<int64_t>;

Value onCuda(Value v) {
    v.t.meta.device = fxray::Device{"cuda", 0};
    return v;
}

Value blist(std::vector<bool> bs) {
    std::vector<Value> items;
    for (bool b : bs) items.push_back(bv(b));
    return Value::ofList(std::move(items));
}

fxray::Diagnostic runError(std::string_view op, std::vector<Value> args) {
    fxray::ExecContext ctx(0);
    auto r = fxray::invokeOp(op, std::move(args), {}, &ctx);
    if (r.ok()) return fxray::makeError("");
    return r.error();
}

fxray::Value metaOf(std::string_view op, std::vector<Value> args) {
    auto r = fxray::invokeOp(op, std::move(args), {}, nullptr);
    if (!r.ok()) {
        QTest::qFail(r.error().str().c_str(), __FILE__, __LINE__);
        return {};
    }
    return std::move(r).value();
}

}  // namespace

class TestOpsNorm : public QObject {
    Q_OBJECT
private slots:
    void nativeLayerNormNormalisesTheLastDims() {
        // mean 2.5, biased var 1.25, rstd 1/sqrt(1.25)
        const double r = 1.0 / std::sqrt(1.25);
        auto out = run("aten.native_layer_norm.default",
                       {tv({1, 4}, {1, 2, 3, 4}), ilist({4}), tv({4}, {1, 1, 2, 2}), tv({4}, {0, 0, 0, 1}), dv(0.0)});
        QCOMPARE(out.list.size(), size_t(3));
        FX_COMPARE_VEC(values(out.list[0]), (std::vector<double>{-1.5 * r, -0.5 * r, 1.0 * r, 3.0 * r + 1}), 1e-6);
        QCOMPARE(out.list[1].t.shape(), (Shape{1, 1}));
        FX_COMPARE_VEC(values(out.list[1]), (std::vector<double>{2.5}), 1e-7);
        FX_COMPARE_VEC(values(out.list[2]), (std::vector<double>{r}), 1e-6);
    }
    void layerNormStatsShapeAndDtype() {
        // Two normalised dims: mean/rstd keep the leading dims and get 1s for the others.
        auto m = metaOf("aten.native_layer_norm.default", {tv({2, 3, 4}, std::vector<double>(24, 1)), ilist({3, 4}),
                                                           Value::none(), Value::none(), dv(1e-5)});
        QCOMPARE(m.list[0].t.strides(), (Shape{12, 4, 1}));
        QCOMPARE(m.list[1].t.shape(), (Shape{2, 1, 1}));
        QCOMPARE(m.list[1].t.strides(), (Shape{1, 1, 1}));
        // f16 input: statistics in f32 on an accelerator (acc type), f16 on CPU.
        auto half = tv({2, 4}, std::vector<double>(8, 1), DType::Float16);
        auto gpu = metaOf("aten.native_layer_norm.default",
                          {onCuda(half), ilist({4}), Value::none(), Value::none(), dv(1e-5)});
        QCOMPARE(gpu.list[0].t.dtype(), DType::Float16);
        QCOMPARE(gpu.list[2].t.dtype(), DType::Float32);
        auto cpu = metaOf("aten.native_layer_norm.default", {half, ilist({4}), Value::none(), Value::none(), dv(1e-5)});
        QCOMPARE(cpu.list[2].t.dtype(), DType::Float16);
    }
    void layerNormReturnsOnlyTheOutput() {
        // Default eps 1e-5: row {1, 3} -> ±1/sqrt(1 + 1e-5); a constant row gives 0, not NaN.
        auto out = run("aten.layer_norm.default", {tv({2, 2}, {1, 3, 5, 5}), ilist({2})});
        QVERIFY(out.isTensor());
        const double r = 1.0 / std::sqrt(1.0 + 1e-5);
        FX_COMPARE_VEC(values(out), (std::vector<double>{-r, r, 0, 0}), 1e-6);
    }
    void layerNormBackward() {
        // x = [1, 2, 3], mean 2, rstd 1 -> x̂ = [-1, 0, 1]; grad_out [1, 0, 0], weight [2, 1, 1]:
        // g = [2, 0, 0], sum g = 2, sum g·x̂ = -2,
        // d_input = rstd / 3 * (3 g - 2 + 2 x̂) = [2/3, -2/3, 0]
        auto r = run("aten.native_layer_norm_backward.default",
                     {tv({1, 3}, {1, 0, 0}), tv({1, 3}, {1, 2, 3}), ilist({3}), tv({1, 1}, {2}), tv({1, 1}, {1}),
                      tv({3}, {2, 1, 1}), tv({3}, {0, 0, 0}), blist({true, true, true})});
        FX_COMPARE_VEC(values(r.list[0]), (std::vector<double>{2.0 / 3, -2.0 / 3, 0}), 1e-6);
        FX_COMPARE_VEC(values(r.list[1]), (std::vector<double>{-1, 0, 0}), 0);
        FX_COMPARE_VEC(values(r.list[2]), (std::vector<double>{1, 0, 0}), 0);
        auto masked = run("aten.native_layer_norm_backward.default",
                          {tv({1, 3}, {1, 0, 0}), tv({1, 3}, {1, 2, 3}), ilist({3}), tv({1, 1}, {2}), tv({1, 1}, {1}),
                           tv({3}, {2, 1, 1}), tv({3}, {0, 0, 0}), blist({true, false, true})});
        QVERIFY(masked.list[0].isTensor());
        QVERIFY(masked.list[1].isNone());
        QVERIFY(masked.list[2].isTensor());
    }
    void layerNormBackwardLayout() {
        // A transposed (column-major) input: f32 keeps grad_out's layout, f16 is cast to a
        // contiguous f32 copy first and comes out row-major.
        for (DType dt : {DType::Float32, DType::Float16}) {
            auto m = fxray::TensorMeta::contiguous({3, 2}, dt);
            m.strides = {1, 3};
            auto x = Value::ofTensor(fxray::kern::makeTensor(m, {1, 2, 3, 4, 5, 6}));
            auto r = metaOf("aten.native_layer_norm_backward.default",
                            {x, x, ilist({2}), tv({3, 1}, {0, 0, 0}), tv({3, 1}, {1, 1, 1}), Value::none(),
                             Value::none(), blist({true, false, false})});
            QCOMPARE(r.list[0].t.strides(), dt == DType::Float32 ? (Shape{1, 3}) : (Shape{2, 1}));
        }
    }
    void batchNormFunctionalTraining() {
        // x [N=2, C=2]: channel 0 = {1, 3} (mean 2, var 1), channel 1 = {10, 30} (mean 20, var 100)
        auto rm = tv({2}, {0, 0}), rv = tv({2}, {1, 1});
        auto r =
            run("aten._native_batch_norm_legit_functional.default",
                {tv({2, 2}, {1, 10, 3, 30}), tv({2}, {2, 1}), tv({2}, {0, 5}), rm, rv, bv(true), dv(0.1), dv(0.0)});
        QCOMPARE(r.list.size(), size_t(5));
        FX_COMPARE_VEC(values(r.list[0]), (std::vector<double>{-2, 4, 2, 6}), 1e-6);
        FX_COMPARE_VEC(values(r.list[1]), (std::vector<double>{2, 20}), 1e-6);
        FX_COMPARE_VEC(values(r.list[2]), (std::vector<double>{1, 0.1}), 1e-7);
        // Running stats: momentum 0.1, unbiased variance {2, 200}.
        FX_COMPARE_VEC(values(r.list[3]), (std::vector<double>{0.2, 2.0}), 1e-6);
        FX_COMPARE_VEC(values(r.list[4]), (std::vector<double>{1.1, 20.9}), 1e-5);
        // The functional flavour leaves its inputs alone.
        FX_COMPARE_VEC(values(rm), (std::vector<double>{0, 0}), 0);
        FX_COMPARE_VEC(values(rv), (std::vector<double>{1, 1}), 0);
    }
    void batchNormEvalUsesRunningStatsAndSavesPerDevice() {
        // (x - 1) / sqrt(3 + 1) = (x - 1) / 2
        std::vector<Value> args{tv({1, 1, 2}, {3, 5}), Value::none(), Value::none(), tv({1}, {1}),
                                tv({1}, {3}),          bv(false),     dv(0.1),       dv(1.0)};
        auto r = run("aten._native_batch_norm_legit_functional.default", args);
        FX_COMPARE_VEC(values(r.list[0]), (std::vector<double>{1, 2}), 1e-7);
        QCOMPARE(r.list[1].t.shape(), (Shape{0}));  // CPU: empty saved stats
        args[0] = onCuda(args[0]);
        auto g = run("aten._native_batch_norm_legit_functional.default", args);
        QCOMPARE(g.list[1].t.shape(), (Shape{1}));
        FX_COMPARE_VEC(values(g.list[2]), (std::vector<double>{0.5}), 1e-7);
        auto nt = run("aten._native_batch_norm_legit_no_training.default",
                      {onCuda(tv({1, 1, 2}, {3, 5})), Value::none(), Value::none(), tv({1}, {1}), tv({1}, {3}), dv(0.1),
                       dv(1.0)});
        QCOMPARE(nt.list.size(), size_t(3));
        FX_COMPARE_VEC(values(nt.list[0]), (std::vector<double>{1, 2}), 1e-7);
    }
    void batchNormSavedStatsDtypeOnGpuHalf() {
        auto m = metaOf("aten._native_batch_norm_legit_functional.default",
                        {onCuda(tv({2, 3}, std::vector<double>(6, 1), DType::Float16)), Value::none(), Value::none(),
                         tv({3}, {0, 0, 0}), tv({3}, {1, 1, 1}), bv(true), dv(0.1), dv(1e-5)});
        QCOMPARE(m.list[0].t.dtype(), DType::Float16);
        QCOMPARE(m.list[1].t.dtype(), DType::Float32);
        QCOMPARE(m.list[3].t.dtype(), DType::Float32);
    }
    void mutatingBatchNormsUpdateRunningStatsInPlace() {
        auto rm = tv({2}, {0, 0}), rv = tv({2}, {1, 1});
        auto r = run("aten.native_batch_norm.default",
                     {tv({2, 2}, {1, 10, 3, 30}), Value::none(), Value::none(), rm, rv, bv(true), dv(0.1), dv(0.0)});
        FX_COMPARE_VEC(values(r.list[0]), (std::vector<double>{-1, -1, 1, 1}), 1e-6);
        FX_COMPARE_VEC(values(rm), (std::vector<double>{0.2, 2.0}), 1e-6);
        FX_COMPARE_VEC(values(rv), (std::vector<double>{1.1, 20.9}), 1e-5);
        auto rm2 = tv({2}, {0, 0}), rv2 = tv({2}, {1, 1});
        auto out = run("aten.batch_norm.default", {tv({2, 2}, {1, 10, 3, 30}), Value::none(), Value::none(), rm2, rv2,
                                                   bv(true), dv(0.5), dv(0.0), bv(true)});
        QVERIFY(out.isTensor());
        FX_COMPARE_VEC(values(rm2), (std::vector<double>{1, 10}), 1e-6);
    }
    void batchNormBackwardTrainAndEval() {
        // One channel, x = [1, 2, 3], saved mean 2, invstd 1, weight 2, grad_out [1, 0, 0]:
        // sum g = 1, dot = -1, grad_input = 2 * (g - (x - 2) * (-1/3) - 1/3) = [2/3, -2/3, 0]
        auto x = tv({1, 1, 3}, {1, 2, 3}), go = tv({1, 1, 3}, {1, 0, 0});
        auto r = run("aten.native_batch_norm_backward.default",
                     {go, x, tv({1}, {2}), tv({1}, {0}), tv({1}, {3}), tv({1}, {2}), tv({1}, {1}), bv(true), dv(1.0),
                      blist({true, true, true})});
        FX_COMPARE_VEC(values(r.list[0]), (std::vector<double>{2.0 / 3, -2.0 / 3, 0}), 1e-6);
        FX_COMPARE_VEC(values(r.list[1]), (std::vector<double>{-1}), 1e-7);
        FX_COMPARE_VEC(values(r.list[2]), (std::vector<double>{1}), 0);
        // Eval: running mean 0, invstd 1/sqrt(3 + 1) = 0.5; grad_input = g * 0.5 * 2.
        auto e = run("aten.native_batch_norm_backward.default",
                     {go, x, tv({1}, {2}), tv({1}, {0}), tv({1}, {3}), Value::none(), Value::none(), bv(false), dv(1.0),
                      blist({true, true, false})});
        FX_COMPARE_VEC(values(e.list[0]), (std::vector<double>{1, 0, 0}), 1e-7);
        FX_COMPARE_VEC(values(e.list[1]), (std::vector<double>{0.5}), 1e-7);
        QVERIFY(e.list[2].isNone());
    }
    void groupNorm() {
        // groups {1, 3} (mean 2, var 1) and {10, 20} (mean 15, var 25)
        auto r = run("aten.native_group_norm.default", {tv({1, 4, 1}, {1, 3, 10, 20}), Value::none(), Value::none(),
                                                        iv(1), iv(4), iv(1), iv(2), dv(0.0)});
        FX_COMPARE_VEC(values(r.list[0]), (std::vector<double>{-1, 1, -1, 1}), 1e-6);
        QCOMPARE(r.list[1].t.shape(), (Shape{1, 2}));
        FX_COMPARE_VEC(values(r.list[2]), (std::vector<double>{1, 0.2}), 1e-7);
        auto g = run("aten.group_norm.default",
                     {tv({1, 4, 1}, {1, 3, 10, 20}), iv(2), Value::none(), tv({4}, {0, 0, 1, 1})}, {{"eps", dv(0.0)}});
        FX_COMPARE_VEC(values(g), (std::vector<double>{-1, 1, 0, 2}), 1e-6);
    }
    void badShapesAreErrors() {
        auto e = runError("aten.native_layer_norm.default",
                          {tv({2, 3}, std::vector<double>(6, 1)), ilist({4}), Value::none(), Value::none(), dv(1e-5)});
        QVERIFY2(e.message.find("normalized_shape") != std::string::npos, e.message.c_str());
        e = runError("aten._native_batch_norm_legit_functional.default",
                     {tv({2, 3}, std::vector<double>(6, 1)), tv({2}, {1, 1}), Value::none(), tv({3}, {0, 0, 0}),
                      tv({3}, {1, 1, 1}), bv(true), dv(0.1), dv(1e-5)});
        QVERIFY2(e.message.find("3 elements") != std::string::npos, e.message.c_str());
        e = runError("aten.native_batch_norm.default",
                     {tv({2, 3}, std::vector<double>(6, 1)), Value::none(), Value::none(), Value::none(), Value::none(),
                      bv(false), dv(0.1), dv(1e-5)});
        QVERIFY2(e.message.find("running_mean") != std::string::npos, e.message.c_str());
        e = runError("aten.group_norm.default", {tv({1, 3, 1}, {1, 2, 3}), iv(2)});
        QVERIFY2(e.message.find("divisible") != std::string::npos, e.message.c_str());
    }
};

QTEST_GUILESS_MAIN(TestOpsNorm)
#include "tst_ops_norm.moc"
