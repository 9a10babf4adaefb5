// The composites Dynamo-stage graphs keep beyond tst_cpu_lowering_edges' (conv1d and conv3d with
// list or named padding, conv_transpose2d, max_pool2d without indices, batch_norm in training
// mode, linear of a strided input) and index_put in its general advanced-indexing forms. Each
// runs on the CPU backend with no reference fallback, neither at compile time nor by an extern
// kernel declining at run time, and gives the reference executor's values (whose kernels the
// OpInfo sweep checks against PyTorch). batch_norm's running statistics are checked against
// values worked out here.
#include "cpu_lowering_check.h"
#include "test_util.h"

#include <cmath>
#include <limits>

using namespace fxray;
using fxtest::lowersAndMatches;

namespace {

std::vector<double> wave(size_t n, double f, double scale = 1.0, double shift = 0.0) {
    std::vector<double> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = scale * std::sin(f * double(i) + 0.3) + shift;
    return v;
}

}  // namespace

class TestCpuDynamoComposites : public QObject {
    Q_OBJECT
private slots:
    void convolutionsOfEveryRank() {
        // conv1d grouped, strided, dilated; conv1d with padding "same" (dilation 2: 2 each side)
        // and "valid"; conv3d with per-dim stride and padding.
        lowersAndMatches(
            "x: \"f32[2, 4, 9][36, 9, 1]cpu\", w: \"f32[6, 2, 3][6, 3, 1]cpu\", b: \"f32[6][1]cpu\", "
            "w2: \"f32[6, 4, 3][12, 3, 1]cpu\"",
            "        c1: \"f32[2, 6, 4][24, 4, 1]cpu\" = torch.ops.aten.conv1d.default(x, w, b, [2], [1], [2], 2)\n"
            "        c2: \"f32[2, 6, 9][54, 9, 1]cpu\" = torch.ops.aten.conv1d.padding(x, w2, b, [1], 'same', [2], 1)\n"
            "        c3: \"f32[2, 6, 7][42, 7, 1]cpu\" = torch.ops.aten.conv1d.padding(x, w2, None, [1], 'valid', [1], "
            "1)\n"
            "        return (c1, c2, c3)\n",
            {fxtest::tv({2, 4, 9}, wave(72, 0.37)), fxtest::tv({6, 2, 3}, wave(36, 0.91, 0.4)),
             fxtest::tv({6}, wave(6, 1.3, 0.2)), fxtest::tv({6, 4, 3}, wave(72, 0.53, 0.3))});
        lowersAndMatches(
            "x: \"f32[1, 2, 4, 4, 4][128, 64, 16, 4, 1]cpu\", w: \"f32[3, 2, 2, 3, 3][36, 18, 9, 3, 1]cpu\"",
            "        c: \"f32[1, 3, 3, 2, 4][72, 24, 8, 4, 1]cpu\" = torch.ops.aten.conv3d.default(x, w, None, [1, 2, 1], "
            "[0, 1, 1], [1, 1, 1], 1)\n"
            "        return (c,)\n",
            {fxtest::tv({1, 2, 4, 4, 4}, wave(128, 0.29)), fxtest::tv({3, 2, 2, 3, 3}, wave(108, 0.77, 0.3))});
        // conv_transpose2d: stride 2, padding 1, output padding 1, 2 groups of 2 -> 3 channels.
        lowersAndMatches(
            "x: \"f32[1, 4, 3, 3][36, 9, 3, 1]cpu\", w: \"f32[4, 3, 3, 3][27, 9, 3, 1]cpu\", b: \"f32[6][1]cpu\"",
            "        t: \"f32[1, 6, 6, 6][216, 36, 6, 1]cpu\" = torch.ops.aten.conv_transpose2d.input(x, w, b, [2, 2], "
            "[1, 1], [1, 1], 2, [1, 1])\n"
            "        return (t,)\n",
            {fxtest::tv({1, 4, 3, 3}, wave(36, 0.41)), fxtest::tv({4, 3, 3, 3}, wave(108, 0.67, 0.3)),
             fxtest::tv({6}, wave(6, 0.9, 0.1))});
    }

    void maxPool2dWithoutIndices() {
        // Padding and dilation (windows reaching into the padding skip it), a NaN that must win
        // its windows as in PyTorch, and -inf values.
        auto xs = wave(2 * 3 * 7 * 6, 0.47);
        xs[10] = std::numeric_limits<double>::quiet_NaN();
        xs[50] = -std::numeric_limits<double>::infinity();
        lowersAndMatches("x: \"f32[2, 3, 7, 6][126, 42, 6, 1]cpu\"",
                         "        p: \"f32[2, 3, 4, 3][36, 12, 3, 1]cpu\" = torch.ops.aten.max_pool2d.default(x, [3, "
                         "2], [2, 2], [1, 1], [1, 2])\n"
                         "        q: \"f32[2, 3, 3, 3][27, 9, 3, 1]cpu\" = torch.ops.aten.max_pool2d.default(x, [2, "
                         "2])\n"
                         "        return (p, q)\n",
                         {fxtest::tv({2, 3, 7, 6}, xs)});
        if (QTest::currentTestFailed()) return;
        // The value comparison passes NaN either way: the windows holding the NaN must be NaN.
        auto g = fxtest::parseForward("x: \"f32[2, 3, 7, 6][126, 42, 6, 1]cpu\"",
                                      "        q: \"f32[2, 3, 3, 3][27, 9, 3, 1]cpu\" = "
                                      "torch.ops.aten.max_pool2d.default(x, [2, 2])\n"
                                      "        return (q,)\n");
        QVERIFY(g);
        std::vector<Value> out;
        fxtest::runCpuWithoutFallback(*g, {fxtest::tv({2, 3, 7, 6}, xs)}, out);
        if (QTest::currentTestFailed()) return;
        const auto q = fxtest::values(out[0]);
        // x[0, 0, 1, 4] (flat 10) lies in window (0, 0, 0, 2) of the 2x2 pool, flat 2.
        for (size_t i = 0; i < q.size(); ++i) QCOMPARE(std::isnan(q[i]), i == 2);
    }

    void batchNormInTrainingModeUpdatesRunningStatistics() {
        const std::string params =
            "x: \"f32[3, 2, 4][8, 4, 1]cpu\", w: \"f32[2][1]cpu\", b: \"f32[2][1]cpu\", rm: \"f32[2][1]cpu\", "
            "rv: \"f32[2][1]cpu\"";
        const std::string body =
            "        bn: \"f32[3, 2, 4][8, 4, 1]cpu\" = torch.ops.aten.batch_norm.default(x, w, b, rm, rv, True, 0.1, "
            "1e-05, True)\n"
            "        return (bn,)\n";
        const auto xs = wave(24, 0.61, 1.5, 0.2);
        auto inputs = [&] {
            return std::vector<Value>{fxtest::tv({3, 2, 4}, xs), fxtest::tv({2}, {0.5, 2}), fxtest::tv({2}, {0.1, -1}),
                                      fxtest::tv({2}, {0.3, -0.2}), fxtest::tv({2}, {1.5, 0.7})};
        };
        lowersAndMatches(params, body, inputs());
        if (QTest::currentTestFailed()) return;
        // The running statistics are written into the caller's tensors, as PyTorch's kernel does:
        // (1 - momentum) * old + momentum * batch statistic (variance unbiased, over N * L = 12).
        auto g = fxtest::parseForward(params, body);
        QVERIFY(g);
        std::vector<Value> in = inputs(), out;
        fxtest::runCpuWithoutFallback(*g, in, out);
        if (QTest::currentTestFailed()) return;
        const double rm0[2] = {0.3, -0.2}, rv0[2] = {1.5, 0.7};
        const auto rm = fxtest::values(in[3]), rv = fxtest::values(in[4]);
        for (int c = 0; c < 2; ++c) {
            double s = 0, q = 0;
            for (int n = 0; n < 3; ++n)
                for (int l = 0; l < 4; ++l) s += xs[size_t((n * 2 + c) * 4 + l)];
            const double mean = s / 12;
            for (int n = 0; n < 3; ++n)
                for (int l = 0; l < 4; ++l) q += std::pow(xs[size_t((n * 2 + c) * 4 + l)] - mean, 2);
            QVERIFY(std::abs(rm[size_t(c)] - (0.9 * rm0[c] + 0.1 * mean)) < 1e-6);
            QVERIFY(std::abs(rv[size_t(c)] - (0.9 * rv0[c] + 0.1 * q / 11)) < 1e-6);
        }
    }

    void linearOfAStridedInput() {
        // x[:, 0] of a [3, 2, 4] tensor: rows 8 apart, copied dense before the GEMM.
        lowersAndMatches("x: \"f32[3, 2, 4][8, 4, 1]cpu\", w: \"f32[5, 4][4, 1]cpu\", b: \"f32[5][1]cpu\"",
                         "        s: \"f32[3, 4][8, 1]cpu\" = torch.ops.aten.select.int(x, 1, 0)\n"
                         "        y: \"f32[3, 5][5, 1]cpu\" = torch.ops.aten.linear.default(s, w, b)\n"
                         "        return (y,)\n",
                         {fxtest::tv({3, 2, 4}, wave(24, 0.3)), fxtest::tv({5, 4}, wave(20, 0.8, 0.5)),
                          fxtest::tv({5}, wave(5, 1.1, 0.1))});
    }

    void indexPutInEveryIndexingForm() {
        // Indexed dims apart (B first, then the rest), adjacent after a None (B in their place),
        // negative indices, duplicates accumulated, and a boolean mask over two dims.
        lowersAndMatches(
            "x: \"f32[4, 3, 5][15, 5, 1]cpu\", i: \"i64[2][1]cpu\", j: \"i64[2][1]cpu\", v: \"f32[2, 3][3, 1]cpu\"",
            "        a: \"f32[4, 3, 5][15, 5, 1]cpu\" = torch.ops.aten.index_put.default(x, [i, None, j], v)\n"
            "        b: \"f32[4, 3, 5][15, 5, 1]cpu\" = torch.ops.aten.index_put.default(x, [i, None, j], v, True)\n"
            "        return (a, b)\n",
            {fxtest::tv({4, 3, 5}, wave(60, 0.2)), fxtest::tv({2}, {3, -4}, DType::Int64),
             fxtest::tv({2}, {-1, 2}, DType::Int64), fxtest::tv({2, 3}, {1, 2, 3, 4, 5, 6})});
        lowersAndMatches(
            "x: \"f32[2, 4, 5][20, 5, 1]cpu\", i: \"i64[3, 1][1, 1]cpu\", j: \"i64[1, 2][2, 1]cpu\", v: "
            "\"f32[2][1]cpu\"",
            "        a: \"f32[2, 4, 5][20, 5, 1]cpu\" = torch.ops.aten.index_put.default(x, [None, i, j], v, True)\n"
            "        return (a,)\n",
            {fxtest::tv({2, 4, 5}, wave(40, 0.5)), fxtest::tv({3, 1}, {0, 3, 0}, DType::Int64),
             fxtest::tv({1, 2}, {4, -5}, DType::Int64), fxtest::tv({2}, {10, -20})});
        lowersAndMatches(
            "x: \"f32[5, 2][2, 1]cpu\", i: \"i64[4][1]cpu\", v: \"f32[4, 2][2, 1]cpu\", m: \"b8[3, 4][4, 1]cpu\", "
            "y: \"f32[3, 4, 2][8, 2, 1]cpu\", w: \"f32[2][1]cpu\"",
            "        a: \"f32[5, 2][2, 1]cpu\" = torch.ops.aten.index_put.default(x, [i], v, True)\n"
            "        b: \"f32[3, 4, 2][8, 2, 1]cpu\" = torch.ops.aten.index_put.default(y, [m], w)\n"
            "        return (a, b)\n",
            {fxtest::tv({5, 2}, wave(10, 0.9)), fxtest::tv({4}, {1, 4, 1, 1}, DType::Int64),
             fxtest::tv({4, 2}, {1, 2, 3, 4, 5, 6, 7, 8}),
             fxtest::tv({3, 4}, {1, 0, 0, 1, 0, 1, 1, 0, 0, 0, 0, 1}, DType::Bool), fxtest::tv({3, 4, 2}, wave(24, 0.4)),
             fxtest::tv({2}, {-3, 9})});
    }
};

QTEST_GUILESS_MAIN(TestCpuDynamoComposites)
#include "tst_cpu_dynamo_composites.moc"
