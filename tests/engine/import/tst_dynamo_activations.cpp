// Dynamo-stage functions with no ATen op of their own name (dynamo_lowering_activations.cpp):
// SELU/CELU, softsign, tanhshrink, logsigmoid, softmin, hardtanh, threshold and PReLU; RMS and
// instance norm, cosine similarity and pairwise distance; the 1-D pools; evaluation-mode dropouts;
// the affine grid.
// Each small graph is lowered to ATen and run on the reference executor; the expected values are
// computed here from the functions' definitions.
#include "dynamo_run.h"
#include "test_util.h"

#include <algorithm>
#include <cmath>

using namespace fxray;
using fxtest::lowerAndRun;

namespace {

const std::vector<double> kX = {-2, -0.5, 0, 0.75, 3, -1};  // [1, 2, 3]: channel 0 then 1

std::vector<double> map(const std::vector<double>& x, double (*f)(double)) {
    std::vector<double> r;
    for (double v : x) r.push_back(f(v));
    return r;
}

}  // namespace

class TestDynamoActivations : public QObject {
    Q_OBJECT
private slots:
    void activations() {
        auto out = lowerAndRun(
            "L_x_: \"f32[1, 2, 3][6, 3, 1]cpu\", L_w_: \"f32[2][1]cpu\"",
            "        l_x_ = L_x_\n        l_w_ = L_w_\n"
            "        a: \"f32[1, 2, 3][6, 3, 1]cpu\" = torch.selu(l_x_)\n"
            "        b: \"f32[1, 2, 3][6, 3, 1]cpu\" = torch.celu(l_x_, 0.5)\n"
            "        c: \"f32[1, 2, 3][6, 3, 1]cpu\" = torch.nn.functional.softsign(l_x_)\n"
            "        d: \"f32[1, 2, 3][6, 3, 1]cpu\" = torch.nn.functional.tanhshrink(l_x_)\n"
            "        e: \"f32[1, 2, 3][6, 3, 1]cpu\" = torch._C._nn.log_sigmoid(l_x_)\n"
            "        f: \"f32[1, 2, 3][6, 3, 1]cpu\" = torch.nn.functional.softmin(l_x_, dim = -1)\n"
            "        g: \"f32[1, 2, 3][6, 3, 1]cpu\" = torch.nn.functional.hardtanh(l_x_, -1.0, 1.0)\n"
            "        h: \"f32[1, 2, 3][6, 3, 1]cpu\" = torch.nn.functional.threshold(l_x_, 0.5, -9.0)\n"
            "        i: \"f32[1, 2, 3][6, 3, 1]cpu\" = torch.prelu(l_x_, l_w_)\n"
            "        return (a, b, c, d, e, f, g, h, i)\n",
            {fxtest::tv({1, 2, 3}, kX), fxtest::tv({2}, {0.1, 0.3})});
        if (QTest::currentTestFailed()) return;
        QCOMPARE(out.size(), size_t(9));
        FX_COMPARE_VEC(fxtest::values(out[0]), map(kX, [](double v) {
                           return 1.0507009873554805 * (v > 0 ? v : 1.6732632423543772 * (std::exp(v) - 1));
                       }),
                       1e-6);
        FX_COMPARE_VEC(fxtest::values(out[1]),
                       map(kX, [](double v) { return v > 0 ? v : 0.5 * (std::exp(v / 0.5) - 1); }), 1e-6);
        FX_COMPARE_VEC(fxtest::values(out[2]), map(kX, [](double v) { return v / (1 + std::fabs(v)); }), 1e-6);
        FX_COMPARE_VEC(fxtest::values(out[3]), map(kX, [](double v) { return v - std::tanh(v); }), 1e-6);
        FX_COMPARE_VEC(fxtest::values(out[4]), map(kX, [](double v) { return -std::log1p(std::exp(-v)); }), 1e-6);
        std::vector<double> sm;
        for (size_t ch = 0; ch < 2; ++ch) {
            double z = 0;
            for (size_t k = 0; k < 3; ++k) z += std::exp(-kX[ch * 3 + k]);
            for (size_t k = 0; k < 3; ++k) sm.push_back(std::exp(-kX[ch * 3 + k]) / z);
        }
        FX_COMPARE_VEC(fxtest::values(out[5]), sm, 1e-6);
        FX_COMPARE_VEC(fxtest::values(out[6]), map(kX, [](double v) { return std::clamp(v, -1.0, 1.0); }), 1e-6);
        FX_COMPARE_VEC(fxtest::values(out[7]), map(kX, [](double v) { return v > 0.5 ? v : -9.0; }), 1e-6);
        std::vector<double> pr;
        for (size_t k = 0; k < 6; ++k) pr.push_back(kX[k] > 0 ? kX[k] : (k < 3 ? 0.1 : 0.3) * kX[k]);
        FX_COMPARE_VEC(fxtest::values(out[8]), pr, 1e-6);
    }

    void normsAndDistances() {
        const std::vector<double> w = {0.5, 1, 2}, b = {0.25, -0.25};
        const std::vector<double> a = {1, 2, 2, 0, 3, 4}, v = {2, 0, 1};  // a [2, 3], v [1, 3]
        auto out = lowerAndRun(
            "L_x_: \"f32[1, 2, 3][6, 3, 1]cpu\", L_w_: \"f32[3][1]cpu\", L_cw_: \"f32[2][1]cpu\", L_cb_: "
            "\"f32[2][1]cpu\", L_a_: \"f32[2, 3][3, 1]cpu\", L_v_: \"f32[1, 3][3, 1]cpu\"",
            "        l_x_ = L_x_\n        l_w_ = L_w_\n        l_cw_ = L_cw_\n        l_cb_ = L_cb_\n"
            "        l_a_ = L_a_\n        l_v_ = L_v_\n"
            "        r: \"f32[1, 2, 3][6, 3, 1]cpu\" = torch.rms_norm(l_x_, (3,), l_w_, 1e-06)\n"
            "        n: \"f32[1, 2, 3][6, 3, 1]cpu\" = torch.instance_norm(l_x_, None, None, l_cw_, l_cb_, True, 0.1, "
            "1e-05, False)\n"
            "        cs: \"f32[2][1]cpu\" = torch.cosine_similarity(l_a_, l_v_, dim = 1)\n"
            "        pd: \"f32[2][1]cpu\" = torch.pairwise_distance(l_a_, l_v_)\n"
            "        return (r, n, cs, pd)\n",
            {fxtest::tv({1, 2, 3}, kX), fxtest::tv({3}, w), fxtest::tv({2}, {2, 0.5}), fxtest::tv({2}, b),
             fxtest::tv({2, 3}, a), fxtest::tv({1, 3}, v)});
        if (QTest::currentTestFailed()) return;
        QCOMPARE(out.size(), size_t(4));
        std::vector<double> rms, inorm;
        const double cw[] = {2, 0.5};
        for (size_t ch = 0; ch < 2; ++ch) {
            double ss = 0, mean = 0, var = 0;
            for (size_t k = 0; k < 3; ++k) ss += kX[ch * 3 + k] * kX[ch * 3 + k], mean += kX[ch * 3 + k] / 3;
            for (size_t k = 0; k < 3; ++k) var += (kX[ch * 3 + k] - mean) * (kX[ch * 3 + k] - mean) / 3;
            for (size_t k = 0; k < 3; ++k) {
                rms.push_back(kX[ch * 3 + k] / std::sqrt(ss / 3 + 1e-6) * w[k]);
                inorm.push_back((kX[ch * 3 + k] - mean) / std::sqrt(var + 1e-5) * cw[ch] + b[ch]);
            }
        }
        FX_COMPARE_VEC(fxtest::values(out[0]), rms, 1e-5);
        FX_COMPARE_VEC(fxtest::values(out[1]), inorm, 1e-5);
        std::vector<double> cs, pd;
        const double nv = std::sqrt(5.0);
        for (size_t r = 0; r < 2; ++r) {
            double dot = 0, na = 0, d2 = 0;
            for (size_t k = 0; k < 3; ++k) {
                dot += a[r * 3 + k] * v[k];
                na += a[r * 3 + k] * a[r * 3 + k];
                const double d = a[r * 3 + k] - v[k] + 1e-6;
                d2 += d * d;
            }
            cs.push_back(dot / (std::sqrt(na) * nv));
            pd.push_back(std::sqrt(d2));
        }
        FX_COMPARE_VEC(fxtest::values(out[2]), cs, 1e-6);
        FX_COMPARE_VEC(fxtest::values(out[3]), pd, 1e-5);
    }

    void poolsAndEvalDropouts() {
        auto out = lowerAndRun(
            "L_x_: \"f32[1, 2, 3][6, 3, 1]cpu\"",
            "        l_x_ = L_x_\n"
            "        ap: \"f32[1, 2, 2][4, 2, 1]cpu\" = torch.avg_pool1d(l_x_, 2, 1)\n"
            "        mp: \"f32[1, 2, 1][2, 1, 1]cpu\" = torch.max_pool1d(l_x_, 2)\n"
            "        aap: \"f32[1, 2, 2][4, 2, 1]cpu\" = torch.adaptive_avg_pool1d(l_x_, 2)\n"
            "        amp: \"f32[1, 2, 1][2, 1, 1]cpu\" = torch.nn.functional.adaptive_max_pool1d(l_x_, 1)\n"
            "        d2: \"f32[1, 2, 3][6, 3, 1]cpu\" = torch.nn.functional.dropout2d(l_x_, 0.5, False)\n"
            "        fa: \"f32[1, 2, 3][6, 3, 1]cpu\" = torch.feature_alpha_dropout(l_x_, 0.3, False)\n"
            "        return (ap, mp, aap, amp, d2, fa)\n",
            {fxtest::tv({1, 2, 3}, kX)});
        if (QTest::currentTestFailed()) return;
        QCOMPARE(out.size(), size_t(6));
        // Windows of 2 with stride 1: (x0+x1)/2, (x1+x2)/2 per channel; max of the first two;
        // adaptive 3 -> 2: windows [0, 2) and [1, 3); the channel's max.
        FX_COMPARE_VEC(fxtest::values(out[0]), (std::vector<double>{-1.25, -0.25, 1.875, 1}), 1e-6);
        FX_COMPARE_VEC(fxtest::values(out[1]), (std::vector<double>{-0.5, 3}), 1e-6);
        QCOMPARE(out[1].t.shape(), (std::vector<int64_t>{1, 2, 1}));
        FX_COMPARE_VEC(fxtest::values(out[2]), (std::vector<double>{-1.25, -0.25, 1.875, 1}), 1e-6);
        FX_COMPARE_VEC(fxtest::values(out[3]), (std::vector<double>{0, 3}), 1e-6);
        FX_COMPARE_VEC(fxtest::values(out[4]), kX, 0);
        FX_COMPARE_VEC(fxtest::values(out[5]), kX, 0);
    }

    // Spatial transformers' F.affine_grid (torch.affine_grid_generator): theta [[2, 0, 0.5],
    // [0, 1, -1]] maps each base point (x, y) to (2x + 0.5, y - 1); the base x over 3 columns is
    // (-2/3, 0, 2/3) without align_corners and (-1, 0, 1) with it, y over 2 rows (-1/2, 1/2) and (-1, 1).
    void affineGrid() {
        auto out = lowerAndRun(
            "L_t_: \"f32[1, 2, 3][6, 3, 1]cpu\"",
            "        l_t_ = L_t_\n"
            "        g: \"f32[1, 2, 3, 2][12, 6, 2, 1]cpu\" = torch.affine_grid_generator(l_t_, [1, 1, 2, 3], False)\n"
            "        a: \"f32[1, 2, 3, 2][12, 6, 2, 1]cpu\" = torch.nn.functional.affine_grid(l_t_, [1, 1, 2, 3], "
            "align_corners = True)\n"
            "        return (g, a)\n",
            {fxtest::tv({1, 2, 3}, {2, 0, 0.5, 0, 1, -1})});
        if (QTest::currentTestFailed()) return;
        const double l = 2 * (-2.0 / 3) + 0.5, r = 2 * (2.0 / 3) + 0.5;
        FX_COMPARE_VEC(fxtest::values(out[0]),
                       (std::vector<double>{l, -1.5, 0.5, -1.5, r, -1.5, l, -0.5, 0.5, -0.5, r, -0.5}), 1e-6);
        FX_COMPARE_VEC(fxtest::values(out[1]),
                       (std::vector<double>{-1.5, -2, 0.5, -2, 2.5, -2, -1.5, 0, 0.5, 0, 2.5, 0}), 1e-6);
    }

    void trainingDropoutsAndInplaceAreRefused() {
        for (const char* call : {"torch.nn.functional.dropout2d(l_x_, 0.5, True)", "torch.selu(l_x_, True)"})
            QVERIFY2(fxtest::loweringRefuses("L_x_: \"f32[1, 2, 3][6, 3, 1]cpu\"",
                                             "        l_x_ = L_x_\n        y: \"f32[1, 2, 3][6, 3, 1]cpu\" = " +
                                                 std::string(call) + "\n        return (y,)\n"),
                     call);
    }
};

QTEST_GUILESS_MAIN(TestDynamoActivations)
#include "tst_dynamo_activations.moc"
