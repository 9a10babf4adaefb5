// The FFT ops (_fft_r2c, _fft_c2c, _fft_c2r): graphs run through the complex rewrite (DFT
// matrices as GEMMs; exec/complex_fft.cpp) on the reference executor and on the CPU backend with
// no fallback, against a DFT by hand, against the ops' direct kernels (a plain DFT per dim,
// exec/ops/fft.cpp: an independent implementation) and round trips.
#include "cpu_lowering_check.h"
#include "test_util.h"

#include "exec/interpreter.h"
#include "exec/run_check.h"

#include <cmath>

using namespace fxray;
using V = std::vector<double>;

namespace {

std::vector<Value> runRef(const Graph& g, const std::vector<Value>& in) {
    RunRequest req;
    req.inputs = in;
    auto r = runAndCheck(g, req, nullptr);
    if (!r.ok()) {
        QTest::qFail(r.error().str().c_str(), __FILE__, __LINE__);
        return {};
    }
    return r->outputs;
}

Value ints(std::vector<int64_t> v) {
    std::vector<Value> items;
    for (int64_t x : v) items.push_back(Value::ofInt(x));
    return Value::ofList(std::move(items));
}

V ramp(size_t n, double a, double b) {
    V v(n);
    for (size_t i = 0; i < n; ++i) v[i] = std::sin(a * double(i) + b) + 0.1 * double(i % 3);
    return v;
}

}  // namespace

class TestFft : public QObject {
    Q_OBJECT
private slots:
    // rfft([1, 2, 3, 4]) = [10, -2 + 2i, -2]; fft of the same (two-sided) adds -2 - 2i; the
    // orthonormal inverse of the full spectrum gives x * 2 (1/sqrt(4) twice would give x: here
    // the forward is unnormalized).
    void dftByHand() {
        auto g = fxtest::parseForward(
            "x: \"f32[4][1]cpu\"",
            "        r: \"c64[3][1]cpu\" = torch.ops.aten._fft_r2c.default(x, [0], 0, True)\n"
            "        rr: \"f32[3, 2][2, 1]cpu\" = torch.ops.aten.view_as_real.default(r)\n"
            "        f: \"c64[4][1]cpu\" = torch.ops.aten._fft_r2c.default(x, [0], 0, False)\n"
            "        fr: \"f32[4, 2][2, 1]cpu\" = torch.ops.aten.view_as_real.default(f)\n"
            "        i: \"c64[4][1]cpu\" = torch.ops.aten._fft_c2c.default(f, [0], 1, False)\n"
            "        ir: \"f32[4, 2][2, 1]cpu\" = torch.ops.aten.view_as_real.default(i)\n"
            "        return (rr, fr, ir)\n");
        QVERIFY(g);
        const std::vector<Value> in{fxtest::tv({4}, {1, 2, 3, 4})};
        const V r = {10, 0, -2, 2, -2, 0}, f = {10, 0, -2, 2, -2, 0, -2, -2}, i = {2, 0, 4, 0, 6, 0, 8, 0};
        auto ref = runRef(*g, in);
        if (QTest::currentTestFailed()) return;
        FX_COMPARE_VEC(fxtest::values(ref[0]), r, 1e-5);
        FX_COMPARE_VEC(fxtest::values(ref[1]), f, 1e-5);
        FX_COMPARE_VEC(fxtest::values(ref[2]), i, 1e-5);
        std::vector<Value> cpu;
        fxtest::runCpuWithoutFallback(*g, in, cpu);
        if (QTest::currentTestFailed()) return;
        FX_COMPARE_VEC(fxtest::values(cpu[0]), r, 1e-5);
        FX_COMPARE_VEC(fxtest::values(cpu[2]), i, 1e-5);
    }

    // 2-D and 3-D transforms over several dims, odd and even lengths, each normalization: the
    // rewritten graph against the direct kernels, and irfftn(rfftn(x)) = x.
    void rewriteAgreesWithDirectKernels() {
        auto g = fxtest::parseForward(
            "x: \"f64[3, 5, 6][30, 6, 1]cpu\"",
            "        a: \"c128[3, 5, 4][20, 4, 1]cpu\" = torch.ops.aten._fft_r2c.default(x, [1, 2], 1, True)\n"
            "        ar: \"f64[3, 5, 4, 2][40, 8, 2, 1]cpu\" = torch.ops.aten.view_as_real.default(a)\n"
            "        b: \"c128[3, 5, 4][20, 4, 1]cpu\" = torch.ops.aten._fft_c2c.default(a, [0, 1], 2, True)\n"
            "        br: \"f64[3, 5, 4, 2][40, 8, 2, 1]cpu\" = torch.ops.aten.view_as_real.default(b)\n"
            "        c: \"f64[3, 5, 6][30, 6, 1]cpu\" = torch.ops.aten._fft_c2r.default(a, [1, 2], 1, 6)\n"
            "        d: \"f64[3, 5, 7][35, 7, 1]cpu\" = torch.ops.aten._fft_c2r.default(a, [2], 0, 7)\n"
            "        e: \"c128[3, 5, 6][30, 6, 1]cpu\" = torch.ops.aten._fft_r2c.default(x, [0], 0, False)\n"
            "        er: \"f64[3, 5, 6, 2][60, 12, 2, 1]cpu\" = torch.ops.aten.view_as_real.default(e)\n"
            "        return (ar, br, c, d, er)\n");
        QVERIFY(g);
        const std::vector<Value> in{fxtest::tv({3, 5, 6}, ramp(90, 0.37, 0.2), DType::Float64)};
        auto ref = runRef(*g, in);
        if (QTest::currentTestFailed()) return;
        // The direct kernels, op by op.
        ExecContext ctx;
        auto a = invokeOp("aten._fft_r2c.default", {in[0], ints({1, 2}), Value::ofInt(1), Value::ofBool(true)}, {}, &ctx);
        QVERIFY2(a.ok(), a.ok() ? "" : a.error().str().c_str());
        auto b = invokeOp("aten._fft_c2c.default", {*a, ints({0, 1}), Value::ofInt(2), Value::ofBool(true)}, {}, &ctx);
        QVERIFY(b.ok());
        auto c = invokeOp("aten._fft_c2r.default", {*a, ints({1, 2}), Value::ofInt(1), Value::ofInt(6)}, {}, &ctx);
        QVERIFY(c.ok());
        auto d = invokeOp("aten._fft_c2r.default", {*a, ints({2}), Value::ofInt(0), Value::ofInt(7)}, {}, &ctx);
        QVERIFY(d.ok());
        auto e = invokeOp("aten._fft_r2c.default", {in[0], ints({0}), Value::ofInt(0), Value::ofBool(false)}, {}, &ctx);
        QVERIFY(e.ok());
        auto asReal = [](const Value& v) { return fxtest::values(Value::ofTensor(complexAsReal(v.t))); };
        FX_COMPARE_VEC(fxtest::values(ref[0]), asReal(*a), 1e-9);
        FX_COMPARE_VEC(fxtest::values(ref[1]), asReal(*b), 1e-9);
        FX_COMPARE_VEC(fxtest::values(ref[2]), fxtest::values(*c), 1e-9);
        FX_COMPARE_VEC(fxtest::values(ref[3]), fxtest::values(*d), 1e-9);
        FX_COMPARE_VEC(fxtest::values(ref[4]), asReal(*e), 1e-9);
        // Orthonormal forward and inverse over the same dims: x again.
        FX_COMPARE_VEC(fxtest::values(ref[2]), fxtest::values(in[0]), 1e-9);
    }

    // The same transforms of a float32 signal on the CPU backend (its GEMM externs take fp32; a
    // float64 product runs the reference kernel), with no fallback, against the reference.
    void cpuBackendRunsFloatSignals() {
        auto g = fxtest::parseForward(
            "x: \"f32[3, 5, 6][30, 6, 1]cpu\"",
            "        a: \"c64[3, 5, 4][20, 4, 1]cpu\" = torch.ops.aten._fft_r2c.default(x, [1, 2], 1, True)\n"
            "        ar: \"f32[3, 5, 4, 2][40, 8, 2, 1]cpu\" = torch.ops.aten.view_as_real.default(a)\n"
            "        b: \"c64[3, 5, 4][20, 4, 1]cpu\" = torch.ops.aten._fft_c2c.default(a, [0, 1], 2, False)\n"
            "        br: \"f32[3, 5, 4, 2][40, 8, 2, 1]cpu\" = torch.ops.aten.view_as_real.default(b)\n"
            "        c: \"f32[3, 5, 6][30, 6, 1]cpu\" = torch.ops.aten._fft_c2r.default(a, [1, 2], 1, 6)\n"
            "        return (ar, br, c)\n");
        QVERIFY(g);
        const std::vector<Value> in{fxtest::tv({3, 5, 6}, ramp(90, 0.37, 0.2))};
        auto ref = runRef(*g, in);
        if (QTest::currentTestFailed()) return;
        std::vector<Value> cpu;
        fxtest::runCpuWithoutFallback(*g, in, cpu);
        if (QTest::currentTestFailed()) return;
        for (size_t i = 0; i < ref.size(); ++i) FX_COMPARE_VEC(fxtest::values(cpu[i]), fxtest::values(ref[i]), 1e-4);
        FX_COMPARE_VEC(fxtest::values(cpu[2]), fxtest::values(in[0]), 1e-4);
    }

    void badArgumentsAreErrors() {
        ExecContext ctx;
        const Value x = fxtest::tv({4}, {1, 2, 3, 4});
        QVERIFY(!invokeOp("aten._fft_r2c.default", {x, ints({1}), Value::ofInt(0), Value::ofBool(true)}, {}, &ctx).ok());
        QVERIFY(!invokeOp("aten._fft_c2c.default", {x, ints({0}), Value::ofInt(0), Value::ofBool(true)}, {}, &ctx).ok());
        QVERIFY(!invokeOp("aten._fft_r2c.default", {x, ints({0, 0}), Value::ofInt(0), Value::ofBool(true)}, {}, &ctx).ok());
    }
};

QTEST_GUILESS_MAIN(TestFft)
#include "tst_fft.moc"
