// Dynamo-stage (torch-level) statements and functions that the third set of popular blocks
// (bench/gen_popular_third.py) uses and fxray could not read or lower: subscript assignment
// (`x[:, 1::2] = v;  setitem = x`, BART's shift_tokens_right and sinusoid tables), F.one_hot,
// F.normalize, the comparison dunders (`t.__eq__(0)`), F.cross_entropy over K dims and with label
// smoothing (with and without class weights), F.nll_loss over K dims, F.kl_div's batchmean,
// torch.meshgrid with 'xy' indexing, the margin and embedding losses, SDPA with a boolean mask and
// torch._C._nn.pad. Each small graph is lowered to ATen and run on the reference
// executor; the expected values are computed here from the functions' definitions.
#include "dynamo_run.h"
#include "test_util.h"

#include "exec/run_check.h"
#include "import/dynamo_lowering.h"
#include "import/fx_text_reader.h"

#include <cmath>

using namespace fxray;

namespace {

using fxtest::lowerAndRun;

/// log_softmax of the classes c = 0..C-1 at x[base + c * stride].
std::vector<double> logSoftmax(const std::vector<double>& x, size_t base, size_t stride, size_t C) {
    double m = -INFINITY, z = 0;
    for (size_t c = 0; c < C; ++c) m = std::max(m, x[base + c * stride]);
    for (size_t c = 0; c < C; ++c) z += std::exp(x[base + c * stride] - m);
    std::vector<double> r(C);
    for (size_t c = 0; c < C; ++c) r[c] = x[base + c * stride] - m - std::log(z);
    return r;
}

}  // namespace

class TestDynamoPopular3 : public QObject {
    Q_OBJECT
private slots:
    // z = x.new_zeros((2, 5)); z[:, 1::2] = v; z[:, 0] = 7; z + x.
    void subscriptAssignment() {
        const std::vector<double> x = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, v = {-1, -2, -3, -4};
        auto out = lowerAndRun(
            "L_x_: \"f32[2, 5][5, 1]cpu\", L_v_: \"f32[2, 2][2, 1]cpu\"",
            "        l_x_ = L_x_\n        l_v_ = L_v_\n"
            "        z: \"f32[2, 5][5, 1]cpu\" = l_x_.new_zeros((2, 5))\n"
            "        z[(slice(None, None, None), slice(1, None, 2))] = l_v_;  setitem = z;  l_v_ = setitem = None\n"
            "        z[(slice(None, None, None), 0)] = 7;  setitem_1 = z;  setitem_1 = None\n"
            "        add: \"f32[2, 5][5, 1]cpu\" = z + l_x_;  z = l_x_ = None\n"
            "        return (add,)\n",
            {fxtest::tv({2, 5}, x), fxtest::tv({2, 2}, v)});
        if (QTest::currentTestFailed()) return;
        QCOMPARE(fxtest::values(out[0]), std::vector<double>({8, 1, 3, 2, 5, 13, 4, 8, 5, 10}));
    }

    // Assignment through tensor indices (THPVariable_setitem's index_put_ / masked_fill_):
    // z = x.clone(); z[z > 2] = s (a 0-d tensor); z[:, i] = v; z[r] = -1 (a row mask);
    // w = x.clone(); w[j] = u (whole rows by int64 index); w[w > 6] = vals (two values).
    void subscriptAssignmentThroughTensors() {
        const std::vector<double> x = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
        auto out = lowerAndRun(
            "L_x_: \"f32[3, 4][4, 1]cpu\", L_s_: \"f32[][]cpu\", L_i_: \"i64[2][1]cpu\", L_v_: \"f32[3, 2][2, 1]cpu\", "
            "L_r_: \"b8[3][1]cpu\", L_j_: \"i64[2][1]cpu\", L_u_: \"f32[2, 4][4, 1]cpu\", L_vals_: \"f32[2][1]cpu\"",
            "        l_x_ = L_x_\n        l_s_ = L_s_\n        l_i_ = L_i_\n        l_v_ = L_v_\n        l_r_ = L_r_\n"
            "        l_j_ = L_j_\n        l_u_ = L_u_\n        l_vals_ = L_vals_\n"
            "        z: \"f32[3, 4][4, 1]cpu\" = l_x_.clone()\n"
            "        gt: \"b8[3, 4][4, 1]cpu\" = z > 2\n"
            "        z[gt] = l_s_;  setitem = z;  gt = l_s_ = setitem = None\n"
            "        z[(slice(None, None, None), l_i_)] = l_v_;  setitem_1 = z;  l_i_ = l_v_ = setitem_1 = None\n"
            "        z[l_r_] = -1;  setitem_2 = z;  l_r_ = setitem_2 = None\n"
            "        w: \"f32[3, 4][4, 1]cpu\" = l_x_.clone();  l_x_ = None\n"
            "        w[l_j_] = l_u_;  setitem_3 = w;  l_j_ = l_u_ = setitem_3 = None\n"
            "        gt_1: \"b8[3, 4][4, 1]cpu\" = w > 6\n"
            "        w[gt_1] = l_vals_;  setitem_4 = w;  gt_1 = l_vals_ = setitem_4 = None\n"
            "        return (z, w)\n",
            {fxtest::tv({3, 4}, x), fxtest::tv({}, {0}), fxtest::tv({2}, {3, 1}, DType::Int64),
             fxtest::tv({3, 2}, {10, 11, 12, 13, 14, 15}), fxtest::tv({3}, {0, 1, 0}, DType::Bool),
             fxtest::tv({2}, {2, 0}, DType::Int64), fxtest::tv({2, 4}, {-1, -2, -3, -4, -5, -6, -7, -8}),
             fxtest::tv({2}, {100, 200})});
        if (QTest::currentTestFailed()) return;
        // z: > 2 zeroed, then columns 3 and 1 from v's rows, then row 1 set to -1.
        QCOMPARE(fxtest::values(out[0]), std::vector<double>({1, 11, 0, 10, -1, -1, -1, -1, 0, 15, 0, 14}));
        // w: rows 2 and 0 from u, then the two values > 6 (7 and 8 of row 1) in row-major order.
        QCOMPARE(fxtest::values(out[1]), std::vector<double>({-5, -6, -7, -8, 5, 6, 100, 200, -1, -2, -3, -4}));
    }

    // F.one_hot(i, 4) (int64), F.normalize(x, dim=-1), i.__eq__(2).
    void oneHotNormalizeAndEq() {
        const std::vector<double> i = {2, 0, 3}, x = {3, 4, 0, 0, -1, 1};
        auto out = lowerAndRun(
            "L_i_: \"i64[3][1]cpu\", L_x_: \"f32[3, 2][2, 1]cpu\"",
            "        l_i_ = L_i_\n        l_x_ = L_x_\n"
            "        oh: \"i64[3, 4][4, 1]cpu\" = torch._C._nn.one_hot(l_i_, 4)\n"
            "        n: \"f32[3, 2][2, 1]cpu\" = torch.nn.functional.normalize(l_x_, dim = -1);  l_x_ = None\n"
            "        eq: \"b8[3][1]cpu\" = l_i_.__eq__(2);  l_i_ = None\n"
            "        return (oh, n, eq)\n",
            {fxtest::tv({3}, i, DType::Int64), fxtest::tv({3, 2}, x)});
        if (QTest::currentTestFailed()) return;
        QCOMPARE(fxtest::values(out[0]), std::vector<double>({0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 1}));
        QCOMPARE(out[0].t.dtype(), DType::Int64);
        const double r = 1.0 / std::sqrt(2.0);
        FX_COMPARE_VEC(fxtest::values(out[1]), std::vector<double>({0.6, 0.8, 0, 0, -r, r}), 1e-6);
        QCOMPARE(fxtest::values(out[2]), std::vector<double>({1, 0, 0}));
    }

    // F.cross_entropy of [N=2, C=3, d=2] logits (an ignored target) with label_smoothing 0.2, and
    // of [3, 3] logits with class weights and label_smoothing 0.1: (1 - eps) * nll + eps / C *
    // (the per-sample negative (weighted) log-probability sums over the kept targets, divided by
    // their count or summed weights).
    void crossEntropyOverKDimsWithLabelSmoothing() {
        const std::vector<double> x = {1, -1, 0.5, 2, 0, 0.25, 3, 1, -2, 0.5, 1, 1.5}, t = {2, 0, -100, 1};
        const std::vector<double> z = {1, 2, 0.5, -1, 0, 3, 0.25, 0.25, 2}, tz = {2, 1, 0}, w = {0.5, 1, 2};
        auto out = lowerAndRun(
            "L_x_: \"f32[2, 3, 2][6, 2, 1]cpu\", L_t_: \"i64[2, 2][2, 1]cpu\", L_z_: \"f32[3, 3][3, 1]cpu\", L_tz_: "
            "\"i64[3][1]cpu\", L_w_: \"f32[3][1]cpu\"",
            "        l_x_ = L_x_\n        l_t_ = L_t_\n        l_z_ = L_z_\n        l_tz_ = L_tz_\n        l_w_ = "
            "L_w_\n"
            "        a: \"f32[][]cpu\" = torch.nn.functional.cross_entropy(l_x_, l_t_, ignore_index = -100, "
            "label_smoothing = 0.2)\n"
            "        b: \"f32[][]cpu\" = torch.nn.functional.cross_entropy(l_z_, l_tz_, weight = l_w_, label_smoothing "
            "= 0.1)\n"
            "        c: \"f32[2, 2][2, 1]cpu\" = torch.nn.functional.nll_loss(l_x_, l_t_, reduction = 'none')\n"
            "        return (a, b, c)\n",
            {fxtest::tv({2, 3, 2}, x), fxtest::tv({2, 2}, t, DType::Int64), fxtest::tv({3, 3}, z),
             fxtest::tv({3}, tz, DType::Int64), fxtest::tv({3}, w)});
        if (QTest::currentTestFailed()) return;
        double nll = 0, smooth = 0, kept = 0;
        for (size_t n = 0; n < 2; ++n)
            for (size_t d = 0; d < 2; ++d) {
                const double tt = t[n * 2 + d];
                if (tt == -100) continue;
                auto lp = logSoftmax(x, n * 6 + d, 2, 3);
                nll -= lp[static_cast<size_t>(tt)];
                for (double v : lp) smooth -= v;
                kept += 1;
            }
        const double a = 0.8 * nll / kept + 0.2 / 3 * smooth / kept;
        double wn = 0, ws = 0, wsum = 0;
        for (size_t n = 0; n < 3; ++n) {
            auto lp = logSoftmax(z, n * 3, 1, 3);
            const auto tt = static_cast<size_t>(tz[n]);
            wn -= w[tt] * lp[tt];
            for (size_t c = 0; c < 3; ++c) ws -= w[c] * lp[c];
            wsum += w[tt];
        }
        const double b = 0.9 * wn / wsum + 0.1 / 3 * ws / wsum;
        FX_COMPARE_VEC(fxtest::values(out[0]), std::vector<double>({a}), 1e-5);
        FX_COMPARE_VEC(fxtest::values(out[1]), std::vector<double>({b}), 1e-5);
        // nll_loss with reduction 'none' over K dims: -input[n, t, d], 0 where ignored.
        FX_COMPARE_VEC(fxtest::values(out[2]), std::vector<double>({-x[4], -x[1], 0, -x[9]}), 1e-6);
    }

    // F.kl_div(input, target, reduction='batchmean') = sum(target * (log(target) - input)) / N,
    // and torch.meshgrid(a, b, indexing='xy') (shapes [len(b), len(a)]).
    void klDivBatchmeanAndMeshgridXY() {
        const std::vector<double> in = {-1, -2, -0.5, -3}, tg = {0.2, 0.8, 0.6, 0.4}, a = {1, 2}, b = {10, 20, 30};
        auto out =
            lowerAndRun("L_i_: \"f32[2, 2][2, 1]cpu\", L_t_: \"f32[2, 2][2, 1]cpu\", L_a_: \"f32[2][1]cpu\", L_b_: "
                        "\"f32[3][1]cpu\"",
                        "        l_i_ = L_i_\n        l_t_ = L_t_\n        l_a_ = L_a_\n        l_b_ = L_b_\n"
                        "        kl: \"f32[][]cpu\" = torch.nn.functional.kl_div(l_i_, l_t_, reduction = 'batchmean')\n"
                        "        meshgrid = torch.functional.meshgrid(l_a_, l_b_, indexing = 'xy')\n"
                        "        g0: \"f32[3, 2][0, 1]cpu\" = meshgrid[0]\n"
                        "        g1: \"f32[3, 2][1, 0]cpu\" = meshgrid[1];  meshgrid = None\n"
                        "        s: \"f32[3, 2][2, 1]cpu\" = g0 + g1\n"
                        "        return (kl, s)\n",
                        {fxtest::tv({2, 2}, in), fxtest::tv({2, 2}, tg), fxtest::tv({2}, a), fxtest::tv({3}, b)});
        if (QTest::currentTestFailed()) return;
        double kl = 0;
        for (size_t k = 0; k < 4; ++k) kl += tg[k] * (std::log(tg[k]) - in[k]);
        FX_COMPARE_VEC(fxtest::values(out[0]), std::vector<double>({kl / 2}), 1e-6);
        QCOMPARE(fxtest::values(out[1]), std::vector<double>({11, 12, 21, 22, 31, 32}));
    }

    // The margin and embedding losses of a losses block: margin_ranking max(-y (a - b) + m, 0),
    // cosine_embedding (1 - cos for y = 1, max(cos - m, 0) for y = -1), multilabel_soft_margin
    // (mean over classes of -(t log s(x) + (1 - t) log s(-x))), triplet_margin with pairwise
    // distances ||a - p + eps||; each reduced by its mean.
    void marginAndEmbeddingLosses() {
        const std::vector<double> a = {1, -2, 0.5, 3}, b = {0, 1, 1, 1}, y = {1, -1, 1, -1};
        const std::vector<double> e1 = {1, 0, 2, 2, -1, 1}, e2 = {1, 1, 1, 2, 1, -1}, e3 = {0, 1, 0, 0, 2, 2};
        const std::vector<double> t = {1, 0, 0, 1, 1, 0};
        auto out = lowerAndRun(
            "L_a_: \"f32[4][1]cpu\", L_b_: \"f32[4][1]cpu\", L_y_: \"f32[4][1]cpu\", L_e1_: \"f32[2, 3][3, 1]cpu\", "
            "L_e2_: \"f32[2, 3][3, 1]cpu\", L_e3_: \"f32[2, 3][3, 1]cpu\", L_t_: \"f32[2, 3][3, 1]cpu\"",
            "        l_a_ = L_a_\n        l_b_ = L_b_\n        l_y_ = L_y_\n        l_e1_ = L_e1_\n        l_e2_ = "
            "L_e2_\n"
            "        l_e3_ = L_e3_\n        l_t_ = L_t_\n"
            "        mr: \"f32[][]cpu\" = torch.nn.functional.margin_ranking_loss(l_a_, l_b_, l_y_, margin = 0.5)\n"
            "        getitem: \"f32[2][1]cpu\" = l_y_[slice(None, 2, None)]\n"
            "        ce: \"f32[][]cpu\" = torch.nn.functional.cosine_embedding_loss(l_e1_, l_e2_, getitem, margin = "
            "0.2)\n"
            "        ms: \"f32[][]cpu\" = torch.nn.functional.multilabel_soft_margin_loss(l_e1_, l_t_)\n"
            "        tr: \"f32[][]cpu\" = torch.nn.functional.triplet_margin_loss(l_e1_, l_e2_, l_e3_, margin = 1.0)\n"
            "        return (mr, ce, ms, tr)\n",
            {fxtest::tv({4}, a), fxtest::tv({4}, b), fxtest::tv({4}, y), fxtest::tv({2, 3}, e1), fxtest::tv({2, 3}, e2),
             fxtest::tv({2, 3}, e3), fxtest::tv({2, 3}, t)});
        if (QTest::currentTestFailed()) return;
        double mr = 0;
        for (size_t i = 0; i < 4; ++i) mr += std::max(0.0, -y[i] * (a[i] - b[i]) + 0.5) / 4;
        double ce = 0, ms = 0, tr = 0;
        auto ls = [](double v) { return -std::log1p(std::exp(-v)); };
        for (size_t r = 0; r < 2; ++r) {
            double dot = 0, n1 = 1e-12, n2 = 1e-12, dp = 0, dn = 0;
            for (size_t k = 0; k < 3; ++k) {
                const size_t i = r * 3 + k;
                dot += e1[i] * e2[i], n1 += e1[i] * e1[i], n2 += e2[i] * e2[i];
                ms -= (t[i] * ls(e1[i]) + (1 - t[i]) * ls(-e1[i])) / 3 / 2;
                dp += std::pow(e1[i] - e2[i] + 1e-6, 2), dn += std::pow(e1[i] - e3[i] + 1e-6, 2);
            }
            const double cos = dot / std::sqrt(n1 * n2);
            ce += (y[r] == 1 ? 1 - cos : std::max(0.0, cos - 0.2)) / 2;
            tr += std::max(0.0, 1.0 + std::sqrt(dp) - std::sqrt(dn)) / 2;
        }
        FX_COMPARE_VEC(fxtest::values(out[0]), std::vector<double>({mr}), 1e-6);
        FX_COMPARE_VEC(fxtest::values(out[1]), std::vector<double>({ce}), 1e-6);
        FX_COMPARE_VEC(fxtest::values(out[2]), std::vector<double>({ms}), 1e-6);
        FX_COMPARE_VEC(fxtest::values(out[3]), std::vector<double>({tr}), 1e-5);
    }

    // SDPA with a boolean attn_mask (key padding, [B, 1, 1, S]) lowers through the additive mask
    // (no boolean operand left for the fused kernels) and gives softmax over the kept keys only;
    // torch._C._nn.pad (what Dynamo records for F.pad) lowers to constant_pad_nd.
    void sdpaBooleanMaskAndPadBinding() {
        const std::vector<double> q = {1, 0, 0, 1}, k = {1, 0, 0, 1, 1, 1}, v = {1, 2, 3, 4, 100, 200}, m = {1, 1, 0};
        auto g = readFxText(
            "class GraphModule(torch.nn.Module):\n    def forward(self, L_q_: \"f32[1, 1, 2, 2][4, 4, 2, 1]cpu\", "
            "L_k_: \"f32[1, 1, 3, 2][6, 6, 2, 1]cpu\", L_v_: \"f32[1, 1, 3, 2][6, 6, 2, 1]cpu\", L_m_: \"b8[1, 1, 1, "
            "3][3, 3, 3, 1]cpu\"):\n"
            "        l_q_ = L_q_\n        l_k_ = L_k_\n        l_v_ = L_v_\n        l_m_ = L_m_\n"
            "        y: \"f32[1, 1, 2, 2][4, 4, 2, 1]cpu\" = torch._C._nn.scaled_dot_product_attention(l_q_, l_k_, "
            "l_v_, "
            "attn_mask = l_m_)\n"
            "        p: \"f32[1, 1, 2, 4][8, 8, 4, 1]cpu\" = torch._C._nn.pad(y, (1, 1), 'constant', None)\n"
            "        return (p,)\n",
            "dynamo.py");
        QVERIFY2(g.ok(), g.ok() ? "" : g.error().str().c_str());
        QVERIFY(lowerToAten(**g).ok());
        for (const auto& n : (*g)->nodes()) {
            QVERIFY2(n->target() != "aten.pad.default", "F.pad's binding left as aten.pad");
            if (n->target() == "aten.scaled_dot_product_attention.default" && n->args.size() > 3 && n->args[3].isNode())
                QVERIFY2(n->args[3].node->meta.at(0).dtype != DType::Bool, "a boolean mask reached SDPA");
        }
        resolveOps(**g);
        RunRequest req;
        req.inputs = {fxtest::tv({1, 1, 2, 2}, q), fxtest::tv({1, 1, 3, 2}, k), fxtest::tv({1, 1, 3, 2}, v),
                      fxtest::tv({1, 1, 1, 3}, m, DType::Bool)};
        auto r = runAndCheck(**g, req, nullptr);
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().str().c_str());
        std::vector<double> want;
        for (int i = 0; i < 2; ++i) {
            const double s0 = q[size_t(2 * i)] * k[0] + q[size_t(2 * i + 1)] * k[1],
                         s1 = q[size_t(2 * i)] * k[2] + q[size_t(2 * i + 1)] * k[3];
            const double w0 = std::exp(s0 / std::sqrt(2.0)), w1 = std::exp(s1 / std::sqrt(2.0));
            want.push_back(0);
            for (int c = 0; c < 2; ++c) want.push_back((w0 * v[size_t(c)] + w1 * v[size_t(2 + c)]) / (w0 + w1));
            want.push_back(0);
        }
        FX_COMPARE_VEC(fxtest::values(r->outputs[0]), want, 1e-6);
    }
};

QTEST_GUILESS_MAIN(TestDynamoPopular3)
#include "tst_dynamo_popular3.moc"
