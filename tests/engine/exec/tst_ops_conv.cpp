// Hand-computed expectations for convolution (strided, padded, dilated, grouped, transposed;
// forward and backward) and 2-D pooling (max with indices, average, adaptive average; forward and
// backward), including output layouts and argument errors.
#include "test_util.h"

#include <cmath>

using namespace fxtest;
using fxray::DType;
using fxray::Value;

namespace {

using Shape = std::vector<int64_t>;
using Vec = std::vector<double>;

Value blist(std::vector<bool> bs) {
    std::vector<Value> items;
    for (bool b : bs) items.push_back(bv(b));
    return Value::ofList(std::move(items));
}

Vec iota(int n, double start = 1) {
    Vec v(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) v[i] = start + i;
    return v;
}

/// A 4-D tensor in channels-last layout on cuda:0 (values given in logical NCHW order).
Value channelsLast(Shape shape, const Vec& vals, DType dt = DType::Float32) {
    auto m = fxray::TensorMeta::contiguous(shape, dt, fxray::Device{"cuda", 0});
    m.strides = {shape[1] * shape[2] * shape[3], 1, shape[3] * shape[1], shape[1]};
    return Value::ofTensor(fxray::kern::makeTensor(m, vals));
}

Value onCuda(Value v) {
    v.t.meta.device = fxray::Device{"cuda", 0};
    return v;
}

/// convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
std::vector<Value> convArgs(Value x, Value w, Value b, Shape stride, Shape pad, Shape dil, bool transposed,
                            Shape outPad, int64_t groups) {
    return {x, w, b, ilist(stride), ilist(pad), ilist(dil), bv(transposed), ilist(outPad), iv(groups)};
}

fxray::Diagnostic runError(std::string_view op, std::vector<Value> args) {
    fxray::ExecContext ctx(0);
    auto r = fxray::invokeOp(op, std::move(args), {}, &ctx);
    if (r.ok()) return fxray::makeError("");
    return r.error();
}

}  // namespace

class TestOpsConv : public QObject {
    Q_OBJECT
private slots:
    void conv2dBasicWithBias() {
        // x = 1..9 (3×3), w = [[1, 0], [0, 1]]: out[i, j] = x[i, j] + x[i+1, j+1] (+ bias 1)
        auto r = run("aten.convolution.default", convArgs(tv({1, 1, 3, 3}, iota(9)), tv({1, 1, 2, 2}, {1, 0, 0, 1}),
                                                          tv({1}, {1}), {1, 1}, {0, 0}, {1, 1}, false, {0, 0}, 1));
        QCOMPARE(r.t.shape(), (Shape{1, 1, 2, 2}));
        QCOMPARE(r.t.strides(), (Shape{4, 4, 2, 1}));
        FX_COMPARE_VEC(values(r), (Vec{7, 9, 13, 15}), 0);
    }
    void conv2dPaddedStrided() {
        // 3×3 ones kernel, padding 1, stride 2: each output sums a clipped 2×2 corner of x.
        auto r = run("aten.convolution.default", convArgs(tv({1, 1, 3, 3}, iota(9)), tv({1, 1, 3, 3}, Vec(9, 1)),
                                                          Value::none(), {2, 2}, {1, 1}, {1, 1}, false, {0, 0}, 1));
        QCOMPARE(r.t.shape(), (Shape{1, 1, 2, 2}));
        FX_COMPARE_VEC(values(r), (Vec{12, 16, 24, 28}), 0);
    }
    void groupedAndDilated() {
        auto g = run("aten.convolution.default", convArgs(tv({1, 2, 1, 1}, {2, 3}), tv({2, 1, 1, 1}, {10, 100}),
                                                          Value::none(), {1, 1}, {0, 0}, {1, 1}, false, {0, 0}, 2));
        FX_COMPARE_VEC(values(g), (Vec{20, 300}), 0);
        // 1-D, kernel [1, 1] with dilation 2: x[i] + x[i+2]
        auto d = run("aten.convolution.default", convArgs(tv({1, 1, 5}, iota(5)), tv({1, 1, 2}, {1, 1}), Value::none(),
                                                          {1}, {0}, {2}, false, {0}, 1));
        QCOMPARE(d.t.shape(), (Shape{1, 1, 3}));
        FX_COMPARE_VEC(values(d), (Vec{4, 6, 8}), 0);
    }
    void transposedConvolution() {
        // x = [1, 2], kernel [1, 1, 1], stride 2: x0 spreads over 0..2, x1 over 2..4.
        auto r = run("aten.convolution.default", convArgs(tv({1, 1, 2}, {1, 2}), tv({1, 1, 3}, {1, 1, 1}),
                                                          Value::none(), {2}, {0}, {1}, true, {0}, 1));
        QCOMPARE(r.t.shape(), (Shape{1, 1, 5}));
        FX_COMPARE_VEC(values(r), (Vec{1, 1, 3, 2, 2}), 0);
        auto p = run("aten.convolution.default", convArgs(tv({1, 1, 2}, {1, 2}), tv({1, 1, 3}, {1, 1, 1}),
                                                          Value::none(), {2}, {0}, {1}, true, {1}, 1));
        FX_COMPARE_VEC(values(p), (Vec{1, 1, 3, 2, 2, 0}), 0);
    }
    void convolutionBackward() {
        // The conv2dBasic case with grad_output = ones.
        auto r = run("aten.convolution_backward.default",
                     {tv({1, 1, 2, 2}, Vec(4, 1)), tv({1, 1, 3, 3}, iota(9)), tv({1, 1, 2, 2}, {1, 0, 0, 1}),
                      ilist({1}), ilist({1, 1}), ilist({0, 0}), ilist({1, 1}), bv(false), ilist({0, 0}), iv(1),
                      blist({true, true, true})});
        FX_COMPARE_VEC(values(r.list[0]), (Vec{1, 1, 0, 1, 2, 1, 0, 1, 1}), 0);
        FX_COMPARE_VEC(values(r.list[1]), (Vec{12, 16, 24, 28}), 0);
        FX_COMPARE_VEC(values(r.list[2]), (Vec{4}), 0);
        auto m = run("aten.convolution_backward.default",
                     {tv({1, 1, 2, 2}, Vec(4, 1)), tv({1, 1, 3, 3}, iota(9)), tv({1, 1, 2, 2}, {1, 0, 0, 1}),
                      ilist({1}), ilist({1, 1}), ilist({0, 0}), ilist({1, 1}), bv(false), ilist({0, 0}), iv(1),
                      blist({false, true, false})});
        QVERIFY(m.list[0].isNone());
        QCOMPARE(m.list[1].t.shape(), (Shape{1, 1, 2, 2}));
        QVERIFY(m.list[2].isNone());
    }
    void transposedConvolutionBackward() {
        // The transposed case above with grad_output = 1..5:
        // grad_x[i] = sum of gy[2i .. 2i+2]; grad_w[k] = sum_i x[i] * gy[2i + k].
        auto r = run("aten.convolution_backward.default",
                     {tv({1, 1, 5}, iota(5)), tv({1, 1, 2}, {1, 2}), tv({1, 1, 3}, {1, 1, 1}), ilist({1}), ilist({2}),
                      ilist({0}), ilist({1}), bv(true), ilist({0}), iv(1), blist({true, true, true})});
        FX_COMPARE_VEC(values(r.list[0]), (Vec{6, 12}), 0);
        FX_COMPARE_VEC(values(r.list[1]), (Vec{7, 10, 13}), 0);
        FX_COMPARE_VEC(values(r.list[2]), (Vec{15}), 0);
    }
    void outputLayouts() {
        // cuDNN keeps channels-last; float64 falls back to contiguous kernels.
        auto x = channelsLast({1, 2, 2, 2}, iota(8));
        auto cl = run("aten.convolution.default", convArgs(x, onCuda(tv({3, 2, 1, 1}, iota(6))), Value::none(), {1, 1},
                                                           {0, 0}, {1, 1}, false, {0, 0}, 1));
        QCOMPARE(cl.t.strides(), (Shape{12, 1, 6, 3}));
        // out[c] = sum over input channels of w[c, ci] * x[ci]: w rows {1,2}, {3,4}, {5,6}
        FX_COMPARE_VEC(values(cl), (Vec{11, 14, 17, 20, 23, 30, 37, 44, 35, 46, 57, 68}), 0);
        auto x64 = channelsLast({1, 2, 2, 2}, iota(8), DType::Float64);
        auto c64 = run("aten.convolution.default", convArgs(x64, onCuda(tv({3, 2, 1, 1}, iota(6), DType::Float64)),
                                                            Value::none(), {1, 1}, {0, 0}, {1, 1}, false, {0, 0}, 1));
        QCOMPARE(c64.t.strides(), (Shape{12, 4, 2, 1}));
        // Backward: input and weight gradients take the forward's layout, the bias gradient is 1-D.
        auto bw = run("aten.convolution_backward.default",
                      {channelsLast({1, 3, 2, 2}, Vec(12, 1)), x, onCuda(tv({3, 2, 1, 1}, iota(6))), ilist({3}),
                       ilist({1, 1}), ilist({0, 0}), ilist({1, 1}), bv(false), ilist({0, 0}), iv(1),
                       blist({true, true, true})});
        QCOMPARE(bw.list[0].t.strides(), (Shape{8, 1, 4, 2}));
        QCOMPARE(bw.list[1].t.strides(), (Shape{2, 1, 2, 2}));
        // grad_weight[c, ci] = sum of x[ci] = {10, 26}; grad_input[ci] = sum over c of w[c, ci]
        FX_COMPARE_VEC(values(bw.list[1]), (Vec{10, 26, 10, 26, 10, 26}), 0);
        FX_COMPARE_VEC(values(bw.list[0]), (Vec{9, 9, 9, 9, 12, 12, 12, 12}), 0);
        FX_COMPARE_VEC(values(bw.list[2]), (Vec{4, 4, 4}), 0);
        auto mp = run("aten.max_pool2d_with_indices.default", {x, ilist({2, 2})});
        QCOMPARE(mp.list[0].t.strides(), (Shape{2, 1, 2, 2}));
        QCOMPARE(mp.list[1].t.dtype(), DType::Int64);
    }
    void convNdWrappers() {
        // Unbatched conv2d input: [C, H, W] in, [C_out, H_out, W_out] out.
        auto u = run("aten.conv2d.default", {tv({1, 3, 3}, iota(9)), tv({1, 1, 2, 2}, {1, 0, 0, 1})});
        QCOMPARE(u.t.shape(), (Shape{1, 2, 2}));
        FX_COMPARE_VEC(values(u), (Vec{6, 8, 12, 14}), 0);
        // padding="same" with an even kernel pads one more at the end: [1+2, 2+3, 3+4, 4+0]
        Value same;
        same.kind = Value::Kind::String;
        same.s = "same";
        auto s = run("aten.conv1d.padding",
                     {tv({1, 1, 4}, iota(4)), tv({1, 1, 2}, {1, 1}), Value::none(), ilist({1}), same});
        QCOMPARE(s.t.shape(), (Shape{1, 1, 4}));
        FX_COMPARE_VEC(values(s), (Vec{3, 5, 7, 4}), 0);
        auto t = run("aten.conv_transpose1d.input",
                     {tv({1, 1, 2}, {1, 2}), tv({1, 1, 3}, {1, 1, 1}), Value::none(), ilist({2})});
        FX_COMPARE_VEC(values(t), (Vec{1, 1, 3, 2, 2}), 0);
    }
    void maxPoolWithIndices() {
        auto r =
            run("aten.max_pool2d_with_indices.default", {tv({1, 1, 4, 4}, iota(16)), ilist({2, 2}), ilist({2, 2})});
        QCOMPARE(r.list[0].t.shape(), (Shape{1, 1, 2, 2}));
        FX_COMPARE_VEC(values(r.list[0]), (Vec{6, 8, 14, 16}), 0);
        FX_COMPARE_VEC(values(r.list[1]), (Vec{5, 7, 13, 15}), 0);
        // ceil_mode: a 3×3 input with kernel 2, stride 2 gives 2×2 (the last window is partial).
        auto c = run("aten.max_pool2d_with_indices.default",
                     {tv({1, 1, 3, 3}, iota(9)), ilist({2, 2}), ilist({2, 2}), ilist({0, 0}), ilist({1, 1}), bv(true)});
        FX_COMPARE_VEC(values(c.list[0]), (Vec{5, 6, 8, 9}), 0);
        FX_COMPARE_VEC(values(c.list[1]), (Vec{4, 5, 7, 8}), 0);
        // padding 1, kernel 3, stride 1: corner window covers x[0..1, 0..1]
        auto p =
            run("aten.max_pool2d.default", {tv({1, 1, 3, 3}, iota(9)), ilist({3, 3}), ilist({1, 1}), ilist({1, 1})});
        FX_COMPARE_VEC(values(p), (Vec{5, 6, 6, 8, 9, 9, 8, 9, 9}), 0);
        // NaN wins.
        auto n = run("aten.max_pool2d_with_indices.default", {tv({1, 1, 1, 3}, {1, NAN, 2}), ilist({1, 3})});
        QVERIFY(std::isnan(values(n.list[0])[0]));
        FX_COMPARE_VEC(values(n.list[1]), (Vec{1}), 0);
    }
    void maxPoolBackwardAccumulatesAtIndices() {
        // Overlapping windows [1, 3] and [3, 2] both pick index 1.
        auto x = tv({1, 1, 1, 3}, {1, 3, 2});
        auto fw = run("aten.max_pool2d_with_indices.default", {x, ilist({1, 2}), ilist({1, 1})});
        FX_COMPARE_VEC(values(fw.list[1]), (Vec{1, 1}), 0);
        auto gi = run("aten.max_pool2d_with_indices_backward.default",
                      {tv({1, 1, 1, 2}, {1, 2}), x, ilist({1, 2}), ilist({1, 1}), ilist({0, 0}), ilist({1, 1}),
                       bv(false), fw.list[1]});
        QCOMPARE(gi.t.shape(), (Shape{1, 1, 1, 3}));
        FX_COMPARE_VEC(values(gi), (Vec{0, 3, 0}), 0);
    }
    void avgPool() {
        auto r = run("aten.avg_pool2d.default", {tv({1, 1, 3, 3}, iota(9)), ilist({2, 2}), ilist({1, 1})});
        FX_COMPARE_VEC(values(r), (Vec{3, 4, 6, 7}), 0);
        // padding 1, kernel 2, stride 2: the corner window holds only x[0, 0] = 1.
        auto inc =
            run("aten.avg_pool2d.default", {tv({1, 1, 3, 3}, iota(9)), ilist({2, 2}), ilist({2, 2}), ilist({1, 1})});
        QCOMPARE(values(inc)[0], 0.25);
        auto exc = run("aten.avg_pool2d.default",
                       {tv({1, 1, 3, 3}, iota(9)), ilist({2, 2}), ilist({2, 2}), ilist({1, 1}), bv(false), bv(false)});
        QCOMPARE(values(exc)[0], 1.0);
        auto div = run("aten.avg_pool2d.default", {tv({1, 1, 3, 3}, iota(9)), ilist({2, 2}), ilist({2, 2}),
                                                   ilist({1, 1}), bv(false), bv(true), iv(2)});
        QCOMPARE(values(div)[0], 0.5);
        auto gi = run("aten.avg_pool2d_backward.default",
                      {tv({1, 1, 2, 2}, Vec(4, 1)), tv({1, 1, 3, 3}, iota(9)), ilist({2, 2}), ilist({1, 1}),
                       ilist({0, 0}), bv(false), bv(true), Value::none()});
        FX_COMPARE_VEC(values(gi), (Vec{0.25, 0.5, 0.25, 0.5, 1, 0.5, 0.25, 0.5, 0.25}), 0);
    }
    void adaptiveAvgPool() {
        // 5 -> 3 bins: [0, 2), [1, 4), [3, 5)
        auto r = run("aten._adaptive_avg_pool2d.default", {tv({1, 1, 1, 5}, iota(5)), ilist({1, 3})});
        QCOMPARE(r.t.shape(), (Shape{1, 1, 1, 3}));
        FX_COMPARE_VEC(values(r), (Vec{1.5, 3, 4.5}), 1e-7);
        auto one = run("aten.adaptive_avg_pool2d.default", {tv({1, 2, 1, 2}, {1, 3, 5, 7}), ilist({1, 1})});
        QCOMPARE(one.t.strides(), (Shape{2, 1, 1, 1}));
        FX_COMPARE_VEC(values(one), (Vec{2, 6}), 0);
        auto gi =
            run("aten._adaptive_avg_pool2d_backward.default", {tv({1, 1, 1, 3}, Vec(3, 1)), tv({1, 1, 1, 5}, iota(5))});
        FX_COMPARE_VEC(values(gi), (Vec{0.5, 0.5 + 1.0 / 3, 1.0 / 3, 1.0 / 3 + 0.5, 0.5}), 1e-7);
    }
    void badArgumentsAreErrors() {
        auto e =
            runError("aten.convolution.default", convArgs(tv({1, 2, 3, 3}, Vec(18, 1)), tv({1, 3, 2, 2}, Vec(12, 1)),
                                                          Value::none(), {1, 1}, {0, 0}, {1, 1}, false, {0, 0}, 1));
        QVERIFY2(e.message.find("channels") != std::string::npos, e.message.c_str());
        e = runError("aten.convolution.default", convArgs(tv({1, 1, 2, 2}, Vec(4, 1)), tv({1, 1, 3, 3}, Vec(9, 1)),
                                                          Value::none(), {1, 1}, {0, 0}, {1, 1}, false, {0, 0}, 1));
        QVERIFY2(e.message.find("kernel size") != std::string::npos, e.message.c_str());
        e = runError("aten.max_pool2d_with_indices.default",
                     {tv({1, 1, 4, 4}, iota(16)), ilist({2, 2}), ilist({1, 1}), ilist({2, 2})});
        QVERIFY2(e.message.find("pad should be at most half") != std::string::npos, e.message.c_str());
        e = runError("aten.convolution_backward.default",
                     {tv({1, 1, 3, 3}, Vec(9, 1)), tv({1, 1, 3, 3}, iota(9)), tv({1, 1, 2, 2}, {1, 0, 0, 1}),
                      Value::none(), ilist({1, 1}), ilist({0, 0}), ilist({1, 1}), bv(false), ilist({0, 0}), iv(1),
                      blist({true, true, false})});
        QVERIFY2(e.message.find("grad_output") != std::string::npos, e.message.c_str());
    }
};

QTEST_GUILESS_MAIN(TestOpsConv)
#include "tst_ops_conv.moc"
