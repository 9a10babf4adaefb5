// Core ATen overloads that popular models' graphs carry and fxray lacked (bitwise_and.Scalar,
// bitwise_or.Scalar, div.Scalar_mode, max.other, min.other, var.dim, std.dim, var_mean.dim): the
// reference executor's values worked out by hand (PyTorch's documented semantics: floor division
// rounds down, unbiased=False divides by N), then the CPU backend compiles them with no reference
// fallback and gives the same values, and the CUDA backend lowers them with no fallback (its
// source is generated and compiled without a device).
#include "cpu_lowering_check.h"
#include "test_util.h"

#include "exec/run_check.h"

using namespace fxray;
using D = std::vector<double>;

class TestCpuCoreOverloads : public QObject {
    Q_OBJECT
private slots:
    void overloadsRunEverywhere() {
        auto g = fxtest::parseForward(
            "x: \"i64[4][1]cpu\", y: \"f32[2, 3][3, 1]cpu\", z: \"f32[2, 3][3, 1]cpu\"",
            "        bitwise_and: \"i64[4][1]cpu\" = torch.ops.aten.bitwise_and.Scalar(x, 6)\n"
            "        bitwise_or: \"i64[4][1]cpu\" = torch.ops.aten.bitwise_or.Scalar(x, 8)\n"
            "        div: \"f32[2, 3][3, 1]cpu\" = torch.ops.aten.div.Scalar_mode(y, 2, rounding_mode = 'floor')\n"
            "        div_1: \"f32[2, 3][3, 1]cpu\" = torch.ops.aten.div.Scalar_mode(y, 2, rounding_mode = 'trunc')\n"
            "        max_1: \"f32[2, 3][3, 1]cpu\" = torch.ops.aten.max.other(y, z)\n"
            "        min_1: \"f32[2, 3][3, 1]cpu\" = torch.ops.aten.min.other(y, z)\n"
            "        var: \"f32[2][1]cpu\" = torch.ops.aten.var.dim(y, [1], False)\n"
            "        std: \"f32[2, 1][1, 1]cpu\" = torch.ops.aten.std.dim(y, [1], True, True)\n"
            "        var_mean = torch.ops.aten.var_mean.dim(y, [1])\n"
            "        getitem: \"f32[2][1]cpu\" = var_mean[0]\n"
            "        getitem_1: \"f32[2][1]cpu\" = var_mean[1]\n"
            "        return (bitwise_and, bitwise_or, div, div_1, max_1, min_1, var, std, getitem, getitem_1)\n");
        QVERIFY(g);
        std::vector<Value> in{fxtest::tv({4}, {1, 2, 7, 12}, DType::Int64), fxtest::tv({2, 3}, {-3, 1, 5, 2, 4, 6}),
                              fxtest::tv({2, 3}, {0, 0, 9, 3, 3, 3})};
        RunRequest req;
        req.inputs = in;
        auto ref = runAndCheck(*g, req, nullptr);
        QVERIFY2(ref.ok(), ref.ok() ? "" : ref.error().str().c_str());
        const std::vector<D> want{
            {0, 2, 6, 4},             // & 6
            {9, 10, 15, 12},          // | 8
            {-2, 0, 2, 1, 2, 3},      // floor(y / 2)
            {-1, 0, 2, 1, 2, 3},      // trunc(y / 2)
            {0, 1, 9, 3, 4, 6},       // max(y, z)
            {-3, 0, 5, 2, 3, 3},      // min(y, z)
            {32.0 / 3.0, 8.0 / 3.0},  // rows' means 1 and 4: squared deviations 16+0+16, 4+0+4, over N
            {4.0, 2.0},               // sqrt of them over N - 1
            {16.0, 4.0},              // unbiased by default
            {1.0, 4.0}};
        QCOMPARE(ref->outputs.size(), want.size());
        for (size_t i = 0; i < want.size(); ++i) FX_COMPARE_VEC(fxtest::values(ref->outputs[i]), want[i], 1e-6);
        std::vector<Value> out;
        fxtest::runCpuWithoutFallback(*g, in, out);
        if (QTest::currentTestFailed()) return;
        for (size_t i = 0; i < want.size(); ++i) FX_COMPARE_VEC(fxtest::values(out[i]), want[i], 1e-6);
        // The CUDA backend lowers every one of them (PTX for sm_80; no device needed).
        if (!fxtest::cudaLowersWithoutFallback(*g, in))
            QSKIP("NVRTC cannot be loaded: the CUDA lowering is not checked");
    }
};

QTEST_GUILESS_MAIN(TestCpuCoreOverloads)
#include "tst_cpu_core_overloads.moc"
