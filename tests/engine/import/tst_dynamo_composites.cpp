// Dynamo-stage tensor functions ATen implements as composites or aliases
// (dynamo_lowering_composites.cpp, the alias map of lowerGeneric): called as torch.X and as
// methods, lowered to ATen and run on the reference executor, against values worked out here.
#include "dynamo_run.h"
#include "gqa_by_hand.h"
#include "test_util.h"

#include <cmath>
#include <limits>

using namespace fxray;
using fxtest::lowerAndRun;

class TestDynamoComposites : public QObject {
    Q_OBJECT
private slots:
    void aliasesAndComposites() {
        const std::vector<double> x = {3, -1, 2, 0, 5, -4}, y = {1, 2, 3, 4, 5, 6};
        auto out = lowerAndRun(
            "L_x_: \"f32[2, 3][3, 1]cpu\", L_y_: \"f32[2, 3][3, 1]cpu\"",
            "        x = L_x_\n        y = L_y_\n"
            "        mul: \"f32[2, 3][3, 1]cpu\" = torch.multiply(x, y)\n"
            "        sub: \"f32[2, 3][3, 1]cpu\" = x.subtract(y)\n"
            "        gt: \"b8[2, 3][3, 1]cpu\" = x.greater(y)\n"
            "        ab: \"f32[2, 3][3, 1]cpu\" = torch.absolute(x)\n"
            "        sw: \"f32[3, 2][1, 3]cpu\" = x.swapaxes(0, 1)\n"
            "        ars: \"i64[2, 3][3, 1]cpu\" = torch.argsort(x, dim = -1)\n"
            "        ms: \"f32[2, 3][3, 1]cpu\" = x.msort()\n"
            "        cnz: \"i64[2][1]cpu\" = x.count_nonzero(-1)\n"
            "        lg: \"f32[2, 3][3, 1]cpu\" = torch.log(x)\n"
            "        fin: \"b8[2, 3][3, 1]cpu\" = lg.isfinite()\n"
            "        sq: \"f32[2, 3][3, 1]cpu\" = torch.sqrt(x)\n"
            "        nm: \"f32[2][1]cpu\" = sq.nanmean(dim = -1)\n"
            "        df: \"f32[2, 2][2, 1]cpu\" = torch.diff(x, dim = -1)\n"
            "        fp: \"f64[2, 3][3, 1]cpu\" = torch.float_power(x, 2)\n"
            "        nt: \"f32[2, 2][2, 1]cpu\" = x.new_tensor([[1, 2], [3, 4]])\n"
            "        bt: \"f32[2, 2, 3][0, 3, 1]cpu\" = x.broadcast_to((2, 2, 3))\n"
            "        mv: \"f32[3, 2][1, 3]cpu\" = torch.movedim(x, 0, 1)\n"
            "        tl: \"f32[2, 6][6, 1]cpu\" = x.tile((2,))\n"
            "        tv: \"f32[4, 3][3, 1]cpu\" = x.tile(2, 1)\n"
            "        sqr: \"f32[2, 3][3, 1]cpu\" = torch.square(x)\n"
            "        cr: \"f32[2, 3][3, 1]cpu\" = torch.cross(x, y, dim = -1)\n"
            "        ps: \"f32[2, 3][3, 1]cpu\" = x.positive()\n"
            "        return (mul, sub, gt, ab, sw, ars, ms, cnz, fin, nm, df, fp, nt, bt, mv, tl, sqr, cr, ps, tv)\n",
            {fxtest::tv({2, 3}, x), fxtest::tv({2, 3}, y)});
        if (QTest::currentTestFailed()) return;
        QCOMPARE(out.size(), size_t(20));
        using V = std::vector<double>;
        QCOMPARE(fxtest::values(out[0]), (V{3, -2, 6, 0, 25, -24}));
        QCOMPARE(fxtest::values(out[1]), (V{2, -3, -1, -4, 0, -10}));
        QCOMPARE(fxtest::values(out[2]), (V{1, 0, 0, 0, 0, 0}));
        QCOMPARE(fxtest::values(out[3]), (V{3, 1, 2, 0, 5, 4}));
        QCOMPARE(out[4].t.shape(), (std::vector<int64_t>{3, 2}));
        QCOMPARE(fxtest::values(out[4]), (V{3, 0, -1, 5, 2, -4}));
        QCOMPARE(fxtest::values(out[5]), (V{1, 2, 0, 2, 0, 1}));
        QCOMPARE(out[5].t.dtype(), DType::Int64);
        QCOMPARE(fxtest::values(out[6]), (V{0, -1, -4, 3, 5, 2}));
        QCOMPARE(fxtest::values(out[7]), (V{3, 2}));
        QCOMPARE(out[7].t.dtype(), DType::Int64);
        // log: 3, nan, 2 | -inf, 5, nan.
        QCOMPARE(fxtest::values(out[8]), (V{1, 0, 1, 0, 1, 0}));
        // sqrt: sqrt3, nan, sqrt2 | 0, sqrt5, nan: the mean of the non-NaN ones.
        FX_COMPARE_VEC(fxtest::values(out[9]), (V{(std::sqrt(3.0) + std::sqrt(2.0)) / 2, std::sqrt(5.0) / 2}), 1e-6);
        QCOMPARE(fxtest::values(out[10]), (V{-4, 3, 5, -9}));
        QCOMPARE(out[11].t.dtype(), DType::Float64);
        QCOMPARE(fxtest::values(out[11]), (V{9, 1, 4, 0, 25, 16}));
        QCOMPARE(fxtest::values(out[12]), (V{1, 2, 3, 4}));
        QCOMPARE(out[12].t.dtype(), DType::Float32);
        QCOMPARE(fxtest::values(out[13]), (V{3, -1, 2, 0, 5, -4, 3, -1, 2, 0, 5, -4}));
        QCOMPARE(fxtest::values(out[14]), (V{3, 0, -1, 5, 2, -4}));
        QCOMPARE(fxtest::values(out[15]), (V{3, -1, 2, 3, -1, 2, 0, 5, -4, 0, 5, -4}));
        QCOMPARE(fxtest::values(out[16]), (V{9, 1, 4, 0, 25, 16}));
        // (3, -1, 2) x (1, 2, 3) and (0, 5, -4) x (4, 5, 6).
        QCOMPARE(fxtest::values(out[17]), (V{-7, -7, 7, 50, -16, -20}));
        QCOMPARE(fxtest::values(out[18]), x);
        QCOMPARE(fxtest::values(out[19]), (V{3, -1, 2, 0, 5, -4, 3, -1, 2, 0, 5, -4}));
    }

    void stacksLinalgAndSpecial() {
        const std::vector<double> x = {3, -1, 2, 0, 5, -4}, y = {1, 2, 3, 4, 5, 6}, v = {1, 2, 2}, a = {4, 1, 2, 3};
        auto out = lowerAndRun(
            "L_x_: \"f32[2, 3][3, 1]cpu\", L_y_: \"f32[2, 3][3, 1]cpu\", L_v_: \"f32[3][1]cpu\", L_a_: \"f32[2, "
            "2][2, 1]cpu\", L_i_: \"i64[2, 3][3, 1]cpu\", L_x2_: \"f32[2, 3][3, 1]cpu\", L_e_: \"f32[3][1]cpu\"",
            "        x = L_x_\n        y = L_y_\n        v = L_v_\n        a = L_a_\n        i = L_i_\n"
            "        x2 = L_x2_\n        e = L_e_\n"
            "        hs: \"f32[2, 6][6, 1]cpu\" = torch.hstack([x, y])\n"
            "        vs: \"f32[2, 3][3, 1]cpu\" = torch.vstack([v, v])\n"
            "        ds: \"f32[2, 3, 2][6, 2, 1]cpu\" = torch.dstack([x, y])\n"
            "        cs: \"f32[3, 2][2, 1]cpu\" = torch.column_stack([v, v])\n"
            "        cc: \"f32[2, 6][6, 1]cpu\" = torch.concatenate([x, y], axis = 1)\n"
            "        a2: \"f32[1, 3][3, 1]cpu\" = torch.atleast_2d(v)\n"
            "        lr: \"f32[2, 3][3, 1]cpu\" = torch.fliplr(x)\n"
            "        ud: \"f32[2, 3][3, 1]cpu\" = torch.flipud(x)\n"
            "        tk: \"f32[2, 3][3, 1]cpu\" = torch.take_along_dim(x, i, 1)\n"
            "        ic: \"b8[2, 3][3, 1]cpu\" = torch.isclose(x, x2)\n"
            "        dg: \"f32[3, 3][3, 1]cpu\" = torch.diag(v)\n"
            "        dd: \"f32[2][1]cpu\" = torch.diag(a)\n"
            "        bt = torch.broadcast_tensors(x, v)\n"
            "        b1: \"f32[2, 3][0, 1]cpu\" = bt[1];  bt = None\n"
            "        td: \"f32[2, 2][2, 1]cpu\" = torch.tensordot(x, y, dims = ([1], [1]))\n"
            "        inn: \"f32[2, 2][2, 1]cpu\" = torch.inner(x, y)\n"
            "        vd: \"f32[2][1]cpu\" = torch.linalg.vecdot(x, y)\n"
            "        md: \"f32[2, 2][2, 1]cpu\" = torch.linalg.multi_dot([a, a, a])\n"
            "        nr: \"f32[2][1]cpu\" = torch.linalg.norm(x, dim = 1)\n"
            "        mn: \"f32[][]cpu\" = torch.linalg.matrix_norm(a)\n"
            "        sl = torch.linalg.slogdet(a)\n"
            "        sign: \"f32[][]cpu\" = sl[0]\n"
            "        lad: \"f32[][]cpu\" = sl[1];  sl = None\n"
            "        sv = torch.linalg.svd(a)\n"
            "        s: \"f32[2][1]cpu\" = sv[1];  sv = None\n"
            "        nd: \"f32[2, 3][3, 1]cpu\" = torch.special.ndtr(x)\n"
            "        en: \"f32[3][1]cpu\" = torch.special.entr(e)\n"
            "        gl: \"f32[3][1]cpu\" = torch.special.gammaln(v)\n"
            "        dt: \"f32[][]cpu\" = torch.linalg.det(a)\n"
            "        p3: \"f32[2, 2][2, 1]cpu\" = torch.linalg.matrix_power(a, 3)\n"
            "        p0: \"f32[2, 2][2, 1]cpu\" = a.matrix_power(0)\n"
            "        return (hs, vs, ds, cs, cc, a2, lr, ud, tk, ic, dg, dd, b1, td, inn, vd, md, nr, mn, sign, lad, s, "
            "nd, en, gl, dt, p3, p0)\n",
            {fxtest::tv({2, 3}, x), fxtest::tv({2, 3}, y), fxtest::tv({3}, v), fxtest::tv({2, 2}, a),
             fxtest::tv({2, 3}, {2, 0, 1, 1, 1, 0}, DType::Int64), fxtest::tv({2, 3}, {3.00001, -1, 2.5, 0, 5, -4}),
             fxtest::tv({3}, {0.5, 0, 2})});
        if (QTest::currentTestFailed()) return;
        QCOMPARE(out.size(), size_t(28));
        using V = std::vector<double>;
        QCOMPARE(fxtest::values(out[0]), (V{3, -1, 2, 1, 2, 3, 0, 5, -4, 4, 5, 6}));
        QCOMPARE(fxtest::values(out[1]), (V{1, 2, 2, 1, 2, 2}));
        QCOMPARE(fxtest::values(out[2]), (V{3, 1, -1, 2, 2, 3, 0, 4, 5, 5, -4, 6}));
        QCOMPARE(fxtest::values(out[3]), (V{1, 1, 2, 2, 2, 2}));
        QCOMPARE(fxtest::values(out[4]), fxtest::values(out[0]));
        QCOMPARE(out[5].t.shape(), (std::vector<int64_t>{1, 3}));
        QCOMPARE(fxtest::values(out[6]), (V{2, -1, 3, -4, 5, 0}));
        QCOMPARE(fxtest::values(out[7]), (V{0, 5, -4, 3, -1, 2}));
        QCOMPARE(fxtest::values(out[8]), (V{2, 3, -1, 5, 5, 0}));
        QCOMPARE(fxtest::values(out[9]), (V{1, 1, 0, 1, 1, 1}));
        QCOMPARE(fxtest::values(out[10]), (V{1, 0, 0, 0, 2, 0, 0, 0, 2}));
        QCOMPARE(fxtest::values(out[11]), (V{4, 3}));
        QCOMPARE(fxtest::values(out[12]), (V{1, 2, 2, 1, 2, 2}));
        // x y^T: rows (3, -1, 2) and (0, 5, -4) against (1, 2, 3) and (4, 5, 6).
        QCOMPARE(fxtest::values(out[13]), (V{7, 19, -2, 1}));
        QCOMPARE(fxtest::values(out[14]), (V{7, 19, -2, 1}));
        QCOMPARE(fxtest::values(out[15]), (V{7, 1}));
        QCOMPARE(fxtest::values(out[16]), (V{86, 39, 78, 47}));  // A^3
        FX_COMPARE_VEC(fxtest::values(out[17]), (V{std::sqrt(14.0), std::sqrt(41.0)}), 1e-6);
        FX_COMPARE_VEC(fxtest::values(out[18]), (V{std::sqrt(30.0)}), 1e-6);
        FX_COMPARE_VEC(fxtest::values(out[19]), (V{1}), 1e-6);
        FX_COMPARE_VEC(fxtest::values(out[20]), (V{std::log(10.0)}), 1e-6);
        // Singular values of [[4, 1], [2, 3]]: square roots of the eigenvalues 15 +- sqrt(125) of A^T A.
        FX_COMPARE_VEC(fxtest::values(out[21]), (V{std::sqrt(15 + std::sqrt(125.0)), std::sqrt(15 - std::sqrt(125.0))}),
                       1e-5);
        V nd;
        for (double t : x) nd.push_back(0.5 * (1 + std::erf(t / std::sqrt(2.0))));
        FX_COMPARE_VEC(fxtest::values(out[22]), nd, 1e-6);
        FX_COMPARE_VEC(fxtest::values(out[23]), (V{-0.5 * std::log(0.5), 0, -2 * std::log(2.0)}), 1e-6);
        FX_COMPARE_VEC(fxtest::values(out[24]), (V{0, 0, 0}), 1e-6);
        FX_COMPARE_VEC(fxtest::values(out[25]), (V{10}), 1e-5);  // 4 * 3 - 1 * 2
        FX_COMPARE_VEC(fxtest::values(out[26]), (V{86, 39, 78, 47}), 1e-4);
        QCOMPARE(fxtest::values(out[27]), (V{1, 0, 0, 1}));
    }

    // SDPA with enable_gqa=True (HF's path for grouped-query attention without a mask): 4 query
    // heads over 2 key/value heads, query head h reading key/value head h / 2, against the
    // attention computed here.
    void gqaAttentionRepeatsKeyHeads() {
        const fxtest::GqaCase t;
        auto out = lowerAndRun(
            "L_q_: \"f32[1, 4, 2, 2][16, 4, 2, 1]cpu\", L_k_: \"f32[1, 2, 3, 2][12, 6, 2, 1]cpu\", L_v_: \"f32[1, 2, 3, "
            "2][12, 6, 2, 1]cpu\"",
            "        q = L_q_\n        k = L_k_\n        v = L_v_\n"
            "        o: \"f32[1, 4, 2, 2][16, 4, 2, 1]cpu\" = torch._C._nn.scaled_dot_product_attention(q, k, v, "
            "enable_gqa = True)\n"
            "        return (o,)\n",
            {fxtest::tv({1, 4, 2, 2}, t.q), fxtest::tv({1, 2, 3, 2}, t.k), fxtest::tv({1, 2, 3, 2}, t.v)});
        if (QTest::currentTestFailed()) return;
        FX_COMPARE_VEC(fxtest::values(out[0]), t.attention(), 1e-6);
    }

    // HF's rotary embeddings compute cos/sin inside torch.autocast(enabled=False): the region's
    // enter/exit calls lower to nothing and the ops between them run as written.
    void disabledAutocastRegionIsTransparent() {
        auto out = lowerAndRun(
            "L_x_: \"f32[3][1]cpu\"",
            "        x = L_x_\n"
            "        _enter_autocast = torch.amp.autocast_mode._enter_autocast('cuda', None, False, None)\n"
            "        c: \"f32[3][1]cpu\" = x.cos()\n"
            "        _exit_autocast = torch.amp.autocast_mode._exit_autocast(_enter_autocast);  _enter_autocast = "
            "_exit_autocast = None\n"
            "        r: \"f32[3][1]cpu\" = c * 2\n"
            "        return (r,)\n",
            {fxtest::tv({3}, {0, 1, 2})});
        if (QTest::currentTestFailed()) return;
        FX_COMPARE_VEC(fxtest::values(out[0]), (std::vector<double>{2, 2 * std::cos(1.0), 2 * std::cos(2.0)}), 1e-6);
    }

    // An enabled torch.autocast("cuda", torch.bfloat16) region casts as PyTorch's Autocast key
    // does: linear's operands to bf16 (x's 1 + 2^-8 rounds to 1, so row 0 is 4 + b, not
    // 4.0039 + b), softmax, sum and ** in float32, cat to its widest operand (x is float32),
    // other ops as their operands are; a nested disabled region computes in float32 again.
    void enabledAutocastRegionCasts() {
        const double e = 1.0 / 256;
        auto g = readFxText(
            "class GraphModule(torch.nn.Module):\n    def forward(self, L_x_: \"f32[2, 3][3, 1]cuda:0\", "
            "L_w_: \"f32[4, 3][3, 1]cuda:0\", L_b_: \"f32[4][1]cuda:0\"):\n"
            "        x = L_x_\n        w = L_w_\n        b = L_b_\n"
            "        _enter_autocast = torch.amp.autocast_mode._enter_autocast('cuda', torch.bfloat16, True, None)\n"
            "        lin: \"bf16[2, 4][4, 1]cuda:0\" = torch._C._nn.linear(x, w, b)\n"
            "        sm: \"f32[2, 4][4, 1]cuda:0\" = torch.softmax(lin, -1)\n"
            "        p: \"f32[2, 4][4, 1]cuda:0\" = lin ** 2\n"
            "        s: \"f32[][]cuda:0\" = lin.sum()\n"
            "        c: \"f32[2, 7][7, 1]cuda:0\" = torch.cat([lin, x], 1)\n"
            "        a: \"bf16[2, 4][4, 1]cuda:0\" = lin + 1\n"
            "        ac: \"bf16[2, 4][4, 1]cuda:0\" = a.clone()\n"
            "        e_: \"bf16[2, 4][4, 1]cuda:0\" = ac.pow_(2)\n"
            "        _enter_autocast_1 = torch.amp.autocast_mode._enter_autocast('cuda', None, False, None)\n"
            "        wt: \"f32[3, 4][1, 3]cuda:0\" = w.t()\n"
            "        m: \"f32[2, 4][4, 1]cuda:0\" = torch.matmul(x, wt)\n"
            "        _exit_autocast_1 = torch.amp.autocast_mode._exit_autocast(_enter_autocast_1)\n"
            "        _exit_autocast = torch.amp.autocast_mode._exit_autocast(_enter_autocast)\n"
            "        return (lin, sm, p, s, c, a, m, ac)\n",
            "dynamo.py");
        QVERIFY2(g.ok(), g.ok() ? "" : g.error().str().c_str());
        Status lowered = lowerToAten(**g);
        QVERIFY2(lowered.ok(), lowered.ok() ? "" : lowered.error().str().c_str());
        resolveOps(**g);
        RunRequest req;
        req.inputs = {fxtest::tv({2, 3}, {1 + e, 1, 2, 0.5, 1 + e, -1}), fxtest::tv({4, 3}, std::vector<double>(12, 1.0)),
                      fxtest::tv({4}, {0, 1, 2, 3})};
        for (auto& v : req.inputs) v.t.meta.device = Device{"cuda", 0};
        auto r = runAndCheck(**g, req, nullptr);
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().str().c_str());
        const auto& out = r->outputs;
        QCOMPARE(out.size(), size_t(8));
        using V = std::vector<double>;
        const std::vector<DType> want = {DType::BFloat16, DType::Float32, DType::Float32, DType::Float32,
                                         DType::Float32,  DType::BFloat16, DType::Float32};
        for (size_t i = 0; i < want.size(); ++i) QCOMPARE(int(out[i].t.meta.dtype), int(want[i]));
        QCOMPARE(fxtest::values(out[0]), (V{4, 5, 6, 7, 0.5, 1.5, 2.5, 3.5}));
        V sm;
        for (double row : {4.0, 0.5}) {
            double z = 0;
            for (int j = 0; j < 4; ++j) z += std::exp(row + j);
            for (int j = 0; j < 4; ++j) sm.push_back(std::exp(row + j) / z);
        }
        FX_COMPARE_VEC(fxtest::values(out[1]), sm, 1e-6);
        QCOMPARE(fxtest::values(out[2]), (V{16, 25, 36, 49, 0.25, 2.25, 6.25, 12.25}));
        QCOMPARE(fxtest::values(out[3]), (V{30}));
        QCOMPARE(fxtest::values(out[4]), (V{4, 5, 6, 7, 1 + e, 1, 2, 0.5, 1.5, 2.5, 3.5, 0.5, 1 + e, -1}));
        QCOMPARE(fxtest::values(out[5]), (V{5, 6, 7, 8, 1.5, 2.5, 3.5, 4.5}));
        FX_COMPARE_VEC(fxtest::values(out[6]), (V{4 + e, 4 + e, 4 + e, 4 + e, 0.5 + e, 0.5 + e, 0.5 + e, 0.5 + e}), 1e-6);
        // An in-place method in the region writes into its tensor, not into a cast copy (pow is
        // on the float32 list; pow_ is not an autocast op).
        QCOMPARE(int(out[7].t.meta.dtype), int(DType::BFloat16));
        QCOMPARE(fxtest::values(out[7]), (V{25, 36, 49, 64, 2.25, 6.25, 12.25, 20.25}));
    }

    // x.tril_() / x.triu_(1) (causal masks built in place): the clone is written, and what is
    // computed from it afterwards sees the triangle.
    void inPlaceTriangles() {
        auto out = lowerAndRun(
            "L_x_: \"f32[3, 3][3, 1]cpu\"",
            "        x = L_x_\n"
            "        a: \"f32[3, 3][3, 1]cpu\" = x.clone()\n"
            "        ta: \"f32[3, 3][3, 1]cpu\" = a.tril_();  ta = None\n"
            "        b: \"f32[3, 3][3, 1]cpu\" = x.clone()\n"
            "        tb: \"f32[3, 3][3, 1]cpu\" = b.triu_(1);  tb = None\n"
            "        s: \"f32[3, 3][3, 1]cpu\" = a + b\n"
            "        return (a, b, s)\n",
            {fxtest::tv({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9})});
        if (QTest::currentTestFailed()) return;
        using V = std::vector<double>;
        QCOMPARE(fxtest::values(out[0]), (V{1, 0, 0, 4, 5, 0, 7, 8, 9}));
        QCOMPARE(fxtest::values(out[1]), (V{0, 2, 3, 0, 0, 6, 0, 0, 0}));
        QCOMPARE(fxtest::values(out[2]), (V{1, 2, 3, 4, 5, 6, 7, 8, 9}));
    }

    // torch.quantile with a number q: over all elements, along a dim with keepdim, each
    // interpolation at position 1.5 (nearest rounds half to even: index 2), and NaN propagated.
    void quantiles() {
        const double nan = std::numeric_limits<double>::quiet_NaN();
        auto out = lowerAndRun(
            "L_a_: \"f32[2, 4][4, 1]cpu\", L_n_: \"f32[3][1]cpu\"",
            "        a = L_a_\n        n = L_n_\n"
            "        q0: \"f32[][]cpu\" = torch.quantile(a, 0.5)\n"
            "        q1: \"f32[2, 1][1, 1]cpu\" = torch.quantile(a, 0.25, dim = 1, keepdim = True)\n"
            "        lo: \"f32[2][1]cpu\" = a.quantile(0.5, dim = 1, interpolation = 'lower')\n"
            "        hi: \"f32[2][1]cpu\" = a.quantile(0.5, dim = 1, interpolation = 'higher')\n"
            "        mid: \"f32[2][1]cpu\" = a.quantile(0.5, dim = 1, interpolation = 'midpoint')\n"
            "        near: \"f32[2][1]cpu\" = a.quantile(0.5, dim = 1, interpolation = 'nearest')\n"
            "        qn: \"f32[][]cpu\" = torch.quantile(n, 0.5)\n"
            "        nq: \"f32[][]cpu\" = torch.nanquantile(n, 0.25)\n"
            "        nq1: \"f32[2][1]cpu\" = a.nanquantile(0.25, dim = 1)\n"
            "        return (q0, q1, lo, hi, mid, near, qn, nq, nq1)\n",
            {fxtest::tv({2, 4}, {3, 1, 2, 5, 4, 8, 0, 1}), fxtest::tv({3}, {1, nan, 2})});
        if (QTest::currentTestFailed()) return;
        using V = std::vector<double>;
        // All eight sorted: 0 1 1 2 3 4 5 8, position 3.5: 2.5.
        FX_COMPARE_VEC(fxtest::values(out[0]), (V{2.5}), 1e-6);
        // Rows sorted 1 2 3 5 and 0 1 4 8, position 0.75.
        FX_COMPARE_VEC(fxtest::values(out[1]), (V{1.75, 0.75}), 1e-6);
        QCOMPARE(out[1].t.shape(), (std::vector<int64_t>{2, 1}));
        QCOMPARE(fxtest::values(out[2]), (V{2, 1}));
        QCOMPARE(fxtest::values(out[3]), (V{3, 4}));
        FX_COMPARE_VEC(fxtest::values(out[4]), (V{2.5, 2.5}), 1e-6);
        QCOMPARE(fxtest::values(out[5]), (V{3, 4}));
        QVERIFY(std::isnan(fxtest::values(out[6])[0]));
        // nanquantile of (1, NaN, 2) at 0.25: 1.25 over the two values; with no NaN, quantile's.
        FX_COMPARE_VEC(fxtest::values(out[7]), (V{1.25}), 1e-6);
        FX_COMPARE_VEC(fxtest::values(out[8]), (V{1.75, 0.75}), 1e-6);
    }

    // torch.median: the lower median of all elements, per row with the element's index, keepdim,
    // and NaN propagated; torch.kthvalue per row.
    void medians() {
        const double nan = std::numeric_limits<double>::quiet_NaN();
        auto out = lowerAndRun(
            "L_a_: \"f32[2, 4][4, 1]cpu\", L_n_: \"f32[3][1]cpu\", L_b_: \"f32[3, 4][4, 1]cpu\"",
            "        a = L_a_\n        n = L_n_\n        b = L_b_\n"
            "        m0: \"f32[][]cpu\" = torch.median(a)\n"
            "        m1 = a.median(dim = 1)\n"
            "        v: \"f32[2][1]cpu\" = m1[0]\n"
            "        ix: \"i64[2][1]cpu\" = m1[1];  m1 = None\n"
            "        mk = torch.median(a, 1, keepdim = True)\n"
            "        vk: \"f32[2, 1][1, 1]cpu\" = mk[0];  mk = None\n"
            "        mn: \"f32[][]cpu\" = n.median()\n"
            "        kv = torch.kthvalue(a, 3, 1)\n"
            "        kvv: \"f32[2][1]cpu\" = kv[0]\n"
            "        kvi: \"i64[2][1]cpu\" = kv[1];  kv = None\n"
            "        nm0: \"f32[][]cpu\" = n.nanmedian()\n"
            "        nmd = torch.nanmedian(b, 1)\n"
            "        nmv: \"f32[3][1]cpu\" = nmd[0]\n"
            "        nmi: \"i64[3][1]cpu\" = nmd[1];  nmd = None\n"
            "        return (m0, v, ix, vk, mn, kvv, kvi, nm0, nmv, nmi)\n",
            {fxtest::tv({2, 4}, {3, 1, 2, 5, 4, 8, 0, 1}), fxtest::tv({3}, {1, nan, 2}),
             fxtest::tv({3, 4}, {5, nan, 1, 3, nan, nan, nan, nan, 2, 9, nan, 4})});
        if (QTest::currentTestFailed()) return;
        using V = std::vector<double>;
        QCOMPARE(fxtest::values(out[0]), (V{2}));  // 0 1 1 2 3 4 5 8: the fourth
        QCOMPARE(fxtest::values(out[1]), (V{2, 1}));
        QCOMPARE(fxtest::values(out[2]), (V{2, 3}));  // where 2 and 1 sit in their rows
        QCOMPARE(out[3].t.shape(), (std::vector<int64_t>{2, 1}));
        QVERIFY(std::isnan(fxtest::values(out[4])[0]));
        // kthvalue k = 3 per row: 3 (index 0) and 4 (index 0).
        QCOMPARE(fxtest::values(out[5]), (V{3, 4}));
        QCOMPARE(fxtest::values(out[6]), (V{0, 0}));
        // nanmedian of (1, NaN, 2): 1; per row of b: (1, 3, 5) -> 3 at index 3, all NaN -> NaN,
        // (2, 4, 9) -> 4 at index 3.
        QCOMPARE(fxtest::values(out[7]), (V{1}));
        const V nv = fxtest::values(out[8]);
        QCOMPARE(nv[0], 3.0);
        QVERIFY(std::isnan(nv[1]));
        QCOMPARE(nv[2], 4.0);
        const V ni = fxtest::values(out[9]);
        QCOMPARE(ni[0], 3.0);
        QCOMPARE(ni[2], 3.0);
    }

    void badArgumentsAreErrors() {
        for (const char* call : {"x.new_tensor([[1, 2], [3]])", "torch.movedim(x, 0, 5)", "torch.cross(x, x)",
                                 "torch.linalg.matrix_power(x, -1)"})
            QVERIFY2(fxtest::loweringRefuses("L_x_: \"f32[2, 2][2, 1]cpu\"",
                                             "        x = L_x_\n        r: \"f32[2, 2][2, 1]cpu\" = " +
                                                 std::string(call) + "\n        return (r,)\n"),
                     call);
    }
};

QTEST_GUILESS_MAIN(TestDynamoComposites)
#include "tst_dynamo_composites.moc"
