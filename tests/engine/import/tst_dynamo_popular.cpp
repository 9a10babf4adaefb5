// Dynamo-stage (torch-level) functions that blocks of popular architectures call and fxray could
// not lower (bench/gen_popular_more.py's graphs): torch.einsum, torch.cdist, torch._weight_norm,
// F.cross_entropy, int-list indices, F.embedding_bag over a 2-D input, 3-D
// scaled_dot_product_attention, F.multi_head_attention_forward with a key padding mask and the
// attention weights, and torch.lstm (nn.LSTM, bidirectional). Each small graph is lowered to ATen and run on the reference executor; the
// expected values are computed here from the functions' definitions.
#include "dynamo_run.h"
#include "test_util.h"

#include "exec/run_check.h"
#include "import/dynamo_lowering.h"
#include "import/fx_text_reader.h"

#include <cmath>

using namespace fxray;

namespace {

using fxtest::lowerAndRun;

std::vector<double> softmaxRow(std::vector<double> s) {
    double m = -INFINITY, z = 0;
    for (double v : s) m = std::max(m, v);
    for (double& v : s) z += (v = std::exp(v - m));
    for (double& v : s) v /= z;
    return s;
}

}  // namespace

class TestDynamoPopular : public QObject {
    Q_OBJECT
private slots:
    // Rotary embeddings' outer product and a batched contraction.
    void einsum() {
        const std::vector<double> a = {1, 2, 3}, b = {0.5, -1, 2, 4};
        std::vector<double> x(2 * 2 * 3), y(2 * 3 * 2);
        for (size_t i = 0; i < x.size(); ++i) x[i] = 0.5 * double(i) - 2, y[i] = 1.0 - 0.25 * double(i);
        auto out = lowerAndRun(
            "L_a_: \"f32[3][1]cpu\", L_b_: \"f32[4][1]cpu\", L_x_: \"f32[2, 2, 3][6, 3, 1]cpu\", L_y_: \"f32[2, 3, "
            "2][6, 2, 1]cpu\"",
            "        l_a_ = L_a_\n        l_b_ = L_b_\n        l_x_ = L_x_\n        l_y_ = L_y_\n"
            "        o: \"f32[3, 4][4, 1]cpu\" = torch.functional.einsum('i,j->ij', l_a_, l_b_)\n"
            "        p: \"f32[2, 2, 2][4, 2, 1]cpu\" = torch.functional.einsum('bij, bjk -> bik', l_x_, l_y_)\n"
            "        return (o, p)\n",
            {fxtest::tv({3}, a), fxtest::tv({4}, b), fxtest::tv({2, 2, 3}, x), fxtest::tv({2, 3, 2}, y)});
        if (QTest::currentTestFailed()) return;
        std::vector<double> o, p(8, 0.0);
        for (double u : a)
            for (double v : b) o.push_back(u * v);
        for (int bb = 0; bb < 2; ++bb)
            for (int i = 0; i < 2; ++i)
                for (int k = 0; k < 2; ++k)
                    for (int j = 0; j < 3; ++j)
                        p[size_t(bb * 4 + i * 2 + k)] += x[size_t(bb * 6 + i * 3 + j)] * y[size_t(bb * 6 + j * 2 + k)];
        FX_COMPARE_VEC(fxtest::values(out[0]), o, 1e-6);
        FX_COMPARE_VEC(fxtest::values(out[1]), p, 1e-5);
    }

    // torch.cdist (p=1 and the default 2), torch._weight_norm over dim 0, F.cross_entropy with an
    // ignored target.
    void cdistWeightNormCrossEntropy() {
        const std::vector<double> x1 = {0, 0, 1, 2}, x2 = {3, 4, 1, 0, -1, 1};  // [2, 2], [3, 2]
        const std::vector<double> v = {3, 4, 1, 1, 0, 2}, g = {2, -1};          // v [2, 3], g [2, 1]
        const std::vector<double> logits = {1, 2, 0.5, -1, 0, 3, 0.25, 0.25, 2}, tgt = {2, -100, 0};
        auto out = lowerAndRun(
            "L_x1_: \"f32[2, 2][2, 1]cpu\", L_x2_: \"f32[3, 2][2, 1]cpu\", L_v_: \"f32[2, 3][3, 1]cpu\", L_g_: "
            "\"f32[2, 1][1, 1]cpu\", L_z_: \"f32[3, 3][3, 1]cpu\", L_t_: \"i64[3][1]cpu\"",
            "        l_x1_ = L_x1_\n        l_x2_ = L_x2_\n        l_v_ = L_v_\n        l_g_ = L_g_\n"
            "        l_z_ = L_z_\n        l_t_ = L_t_\n"
            "        c1: \"f32[2, 3][3, 1]cpu\" = torch.functional.cdist(l_x1_, l_x2_, p = 1)\n"
            "        c2: \"f32[2, 3][3, 1]cpu\" = torch.functional.cdist(l_x1_, l_x2_)\n"
            "        w: \"f32[2, 3][3, 1]cpu\" = torch._weight_norm(l_v_, l_g_, 0)\n"
            "        ce: \"f32[][]cpu\" = torch.nn.functional.cross_entropy(l_z_, l_t_)\n"
            "        return (c1, c2, w, ce)\n",
            {fxtest::tv({2, 2}, x1), fxtest::tv({3, 2}, x2), fxtest::tv({2, 3}, v), fxtest::tv({2, 1}, g),
             fxtest::tv({3, 3}, logits), fxtest::tv({3}, tgt, DType::Int64)});
        if (QTest::currentTestFailed()) return;
        std::vector<double> c1, c2, w;
        for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 3; ++j) {
                const double dx = x1[size_t(2 * i)] - x2[size_t(2 * j)],
                             dy = x1[size_t(2 * i + 1)] - x2[size_t(2 * j + 1)];
                c1.push_back(std::fabs(dx) + std::fabs(dy));
                c2.push_back(std::sqrt(dx * dx + dy * dy));
            }
        for (int r = 0; r < 2; ++r) {
            double n = 0;
            for (int c = 0; c < 3; ++c) n += v[size_t(r * 3 + c)] * v[size_t(r * 3 + c)];
            for (int c = 0; c < 3; ++c) w.push_back(v[size_t(r * 3 + c)] * g[size_t(r)] / std::sqrt(n));
        }
        double loss = 0;
        int counted = 0;
        for (int r = 0; r < 3; ++r) {
            if (tgt[size_t(r)] < 0) continue;
            const auto p = softmaxRow({logits[size_t(r * 3)], logits[size_t(r * 3 + 1)], logits[size_t(r * 3 + 2)]});
            loss -= std::log(p[size_t(tgt[size_t(r)])]);
            ++counted;
        }
        FX_COMPARE_VEC(fxtest::values(out[0]), c1, 1e-6);
        FX_COMPARE_VEC(fxtest::values(out[1]), c2, 1e-6);
        FX_COMPARE_VEC(fxtest::values(out[2]), w, 1e-6);
        FX_COMPARE_VEC(fxtest::values(out[3]), std::vector<double>{loss / counted}, 1e-6);
    }

    // Falcon's fused[..., [-2], :] and DLRM's F.embedding_bag over a 2-D input (one bag per row)
    // with per-sample weights.
    void listIndexAndEmbeddingBag() {
        std::vector<double> f(2 * 4 * 3), wt(5 * 2);
        for (size_t i = 0; i < f.size(); ++i) f[i] = double(i);
        for (size_t i = 0; i < wt.size(); ++i) wt[i] = 0.5 * double(i) - 1;
        const std::vector<double> ids = {4, 0, 2, 2, 1, 3}, psw = {1, 0.5, -2, 3, 0.25, 1};  // [2, 3]
        auto out = lowerAndRun(
            "L_f_: \"f32[2, 4, 3][12, 3, 1]cpu\", L_i_: \"i64[2, 3][3, 1]cpu\", L_w_: \"f32[5, 2][2, 1]cpu\", "
            "L_p_: \"f32[2, 3][3, 1]cpu\"",
            "        l_f_ = L_f_\n        l_i_ = L_i_\n        l_w_ = L_w_\n        l_p_ = L_p_\n"
            "        k: \"f32[2, 1, 3][3, 3, 1]cpu\" = l_f_[(Ellipsis, [-2], slice(None, None, None))]\n"
            "        e: \"f32[2, 2][2, 1]cpu\" = torch.nn.functional.embedding_bag(l_i_, l_w_, None, None, 2.0, False, "
            "'sum', False, l_p_, False, None)\n"
            "        return (k, e)\n",
            {fxtest::tv({2, 4, 3}, f), fxtest::tv({2, 3}, ids, DType::Int64), fxtest::tv({5, 2}, wt),
             fxtest::tv({2, 3}, psw)});
        if (QTest::currentTestFailed()) return;
        std::vector<double> k, e(4, 0.0);
        for (int b = 0; b < 2; ++b)
            for (int c = 0; c < 3; ++c) k.push_back(f[size_t(b * 12 + 2 * 3 + c)]);
        for (int b = 0; b < 2; ++b)
            for (int j = 0; j < 3; ++j)
                for (int d = 0; d < 2; ++d)
                    e[size_t(b * 2 + d)] += psw[size_t(b * 3 + j)] * wt[size_t(ids[size_t(b * 3 + j)] * 2 + d)];
        FX_COMPARE_VEC(fxtest::values(out[0]), k, 1e-6);
        FX_COMPARE_VEC(fxtest::values(out[1]), e, 1e-6);
    }

    // F.multi_head_attention_forward ([L, N, E] = [2, 1, 2], one head, identity projections) with a
    // float key padding mask over S = 3 keys and need_weights=True: out = softmax(q k^T / sqrt(2)
    // + mask) v, weights the softmax; and a 3-D scaled_dot_product_attention (MobileViT).
    void attentionWithPaddingMaskAndWeights() {
        const std::vector<double> q = {1, 0, 0.5, -1}, kv = {1, 2, -1, 0.5, 3, 3};  // [2, 1, 2], [3, 1, 2]
        const std::vector<double> win = {1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1}, wout = {1, 0, 0, 1};
        auto out = lowerAndRun(
            "L_q_: \"f32[2, 1, 2][2, 2, 1]cpu\", L_k_: \"f32[3, 1, 2][2, 2, 1]cpu\", L_m_: \"f32[1, 3][3, 1]cpu\", "
            "L_win_: \"f32[6, 2][2, 1]cpu\", L_bin_: \"f32[6][1]cpu\", L_wout_: \"f32[2, 2][2, 1]cpu\", L_bout_: "
            "\"f32[2][1]cpu\", L_x_: \"f32[2, 3, 2][6, 2, 1]cpu\"",
            "        l_q_ = L_q_\n        l_k_ = L_k_\n        l_m_ = L_m_\n        l_win_ = L_win_\n"
            "        l_bin_ = L_bin_\n        l_wout_ = L_wout_\n        l_bout_ = L_bout_\n        l_x_ = L_x_\n"
            "        mha = torch.nn.functional.multi_head_attention_forward(l_q_, l_k_, l_k_, 2, 1, l_win_, l_bin_, "
            "None, None, False, 0.0, l_wout_, l_bout_, training = True, key_padding_mask = l_m_, need_weights = "
            "True, attn_mask = None, average_attn_weights = True, is_causal = False)\n"
            "        o: \"f32[2, 1, 2][2, 2, 1]cpu\" = mha[0]\n"
            "        wts: \"f32[1, 2, 3][6, 3, 1]cpu\" = mha[1];  mha = None\n"
            "        s: \"f32[2, 3, 2][6, 2, 1]cpu\" = torch._C._nn.scaled_dot_product_attention(l_x_, l_x_, l_x_)\n"
            "        return (o, wts, s)\n",
            {fxtest::tv({2, 1, 2}, q), fxtest::tv({3, 1, 2}, kv), fxtest::tv({1, 3}, {0, 0, -INFINITY}),
             fxtest::tv({6, 2}, win), fxtest::tv({6}, std::vector<double>(6, 0.0)), fxtest::tv({2, 2}, wout),
             fxtest::tv({2}, {0, 0}), fxtest::tv({2, 3, 2}, {0.5, 1, -1, 0, 2, 0.25, 1, 1, 0, -2, 0.5, 0.5})});
        if (QTest::currentTestFailed()) return;
        std::vector<double> o, wts;
        for (int l = 0; l < 2; ++l) {
            std::vector<double> sc;
            for (int s = 0; s < 3; ++s)
                sc.push_back((q[size_t(2 * l)] * kv[size_t(2 * s)] + q[size_t(2 * l + 1)] * kv[size_t(2 * s + 1)]) /
                                 std::sqrt(2.0) +
                             (s == 2 ? -INFINITY : 0.0));
            const auto p = softmaxRow(sc);
            for (int d = 0; d < 2; ++d) {
                double acc = 0;
                for (int s = 0; s < 3; ++s) acc += p[size_t(s)] * kv[size_t(2 * s + d)];
                o.push_back(acc);
            }
            wts.insert(wts.end(), p.begin(), p.end());
        }
        FX_COMPARE_VEC(fxtest::values(out[0]), o, 1e-6);
        FX_COMPARE_VEC(fxtest::values(out[1]), wts, 1e-6);
        const auto x = fxtest::values(fxtest::tv({2, 3, 2}, {0.5, 1, -1, 0, 2, 0.25, 1, 1, 0, -2, 0.5, 0.5}));
        std::vector<double> sd;
        for (int b = 0; b < 2; ++b)
            for (int i = 0; i < 3; ++i) {
                std::vector<double> sc;
                for (int j = 0; j < 3; ++j)
                    sc.push_back((x[size_t(b * 6 + i * 2)] * x[size_t(b * 6 + j * 2)] +
                                  x[size_t(b * 6 + i * 2 + 1)] * x[size_t(b * 6 + j * 2 + 1)]) /
                                 std::sqrt(2.0));
                const auto p = softmaxRow(sc);
                for (int d = 0; d < 2; ++d) {
                    double acc = 0;
                    for (int j = 0; j < 3; ++j) acc += p[size_t(j)] * x[size_t(b * 6 + j * 2 + d)];
                    sd.push_back(acc);
                }
            }
        FX_COMPARE_VEC(fxtest::values(out[2]), sd, 1e-5);
    }

    // torch.lstm (nn.LSTM under Dynamo's allow_rnn): one bidirectional layer, batch_first, input
    // [1, 3, 2], hidden 2, against the LSTM equations stepped here (gates i, f, g, o; the reverse
    // direction from the last step), output [1, 3, 4] = both directions' h per step, and h_n.
    void bidirectionalLstm() {
        const int T = 3, I = 2, H = 2;
        auto wv = [](int n, double s) {
            std::vector<double> v(static_cast<size_t>(n));
            for (int k = 0; k < n; ++k) v[size_t(k)] = std::sin(s * (k + 1));
            return v;
        };
        const std::vector<double> x = {0.5, -1, 1, 0.25, -0.5, 2};
        std::vector<std::vector<double>> wih = {wv(4 * H * I, 0.7), wv(4 * H * I, 1.3)},
                                         whh = {wv(4 * H * H, 0.4), wv(4 * H * H, 2.1)},
                                         bih = {wv(4 * H, 0.9), wv(4 * H, 1.7)}, bhh = {wv(4 * H, 0.3), wv(4 * H, 2.9)};
        std::string params, names;
        std::vector<Value> in = {fxtest::tv({1, T, I}, x)};
        for (int d = 0; d < 2; ++d) {
            const std::string sfx = d ? "r" : "f";
            params += ", L_wih" + sfx + "_: \"f32[8, 2][2, 1]cpu\", L_whh" + sfx + "_: \"f32[8, 2][2, 1]cpu\", L_bih" +
                      sfx + "_: \"f32[8][1]cpu\", L_bhh" + sfx + "_: \"f32[8][1]cpu\"";
            names += std::string(d ? ", " : "") + "L_wih" + sfx + "_, L_whh" + sfx + "_, L_bih" + sfx + "_, L_bhh" +
                     sfx + "_";
            in.push_back(fxtest::tv({8, 2}, wih[size_t(d)]));
            in.push_back(fxtest::tv({8, 2}, whh[size_t(d)]));
            in.push_back(fxtest::tv({8}, bih[size_t(d)]));
            in.push_back(fxtest::tv({8}, bhh[size_t(d)]));
        }
        auto out = lowerAndRun(
            "L_x_: \"f32[1, 3, 2][6, 2, 1]cpu\"" + params,
            "        h0: \"f32[2, 1, 2][2, 2, 1]cpu\" = torch.zeros(2, 1, 2, dtype = torch.float32, device = "
            "device(type='cpu'))\n"
            "        c0: \"f32[2, 1, 2][2, 2, 1]cpu\" = torch.zeros(2, 1, 2, dtype = torch.float32, device = "
            "device(type='cpu'))\n"
            "        lstm = torch.lstm(L_x_, (h0, c0), [" +
                names +
                "], True, 1, 0.0, True, True, True)\n"
                "        o: \"f32[1, 3, 4][12, 4, 1]cpu\" = lstm[0]\n"
                "        hn: \"f32[2, 1, 2][2, 2, 1]cpu\" = lstm[1];  lstm = None\n"
                "        return (o, hn)\n",
            in);
        if (QTest::currentTestFailed()) return;
        auto sig = [](double v) { return 1.0 / (1.0 + std::exp(-v)); };
        std::vector<double> o(T * 2 * H), hn;
        for (int d = 0; d < 2; ++d) {
            std::vector<double> h(H, 0.0), cc(H, 0.0);
            for (int step = 0; step < T; ++step) {
                const int t = d ? T - 1 - step : step;
                std::vector<double> g(4 * H);
                for (int r = 0; r < 4 * H; ++r) {
                    double acc = bih[size_t(d)][size_t(r)] + bhh[size_t(d)][size_t(r)];
                    for (int k = 0; k < I; ++k) acc += wih[size_t(d)][size_t(r * I + k)] * x[size_t(t * I + k)];
                    for (int k = 0; k < H; ++k) acc += whh[size_t(d)][size_t(r * H + k)] * h[size_t(k)];
                    g[size_t(r)] = acc;
                }
                for (int k = 0; k < H; ++k) {
                    const double ig = sig(g[size_t(k)]), fg = sig(g[size_t(H + k)]),
                                 gg = std::tanh(g[size_t(2 * H + k)]), og = sig(g[size_t(3 * H + k)]);
                    cc[size_t(k)] = fg * cc[size_t(k)] + ig * gg;
                    h[size_t(k)] = og * std::tanh(cc[size_t(k)]);
                }
                for (int k = 0; k < H; ++k) o[size_t(t * 2 * H + d * H + k)] = h[size_t(k)];
            }
            hn.insert(hn.end(), h.begin(), h.end());
        }
        FX_COMPARE_VEC(fxtest::values(out[0]), o, 1e-5);
        FX_COMPARE_VEC(fxtest::values(out[1]), hn, 1e-5);
    }
};

QTEST_GUILESS_MAIN(TestDynamoPopular)
#include "tst_dynamo_popular.moc"
