// Lowering rules on the shapes and arguments OpInfo's later samples (s2, s3) reach and its public
// ones (s0, s1) do not: scans, aminmax and scatters of 0-d tensors, scatters by an empty index,
// renorm with p = inf, _pdist_forward for every p kind, linspace/logspace from 0-d tensor bounds
// (the public samples had 0 steps, an empty output that hid the missing rule), masked_scatter of
// an empty source, the grid samplers in border and reflection padding; overloads delegated to
// another op's rule (iota, empty_strided, to.device, unflatten, ...), Inductor's
// prepare_softmax_online; and the composites Dynamo-stage graphs keep (linear, matmul,
// layer_norm, softmax.int, dropout, conv2d, batch_norm, flatten, chunk, upsample .vec,
// group_norm). Each graph runs on the CPU backend with no reference fallback and gives the
// reference executor's values (whose kernels the OpInfo sweep checks against PyTorch), and
// lowers for CUDA with no fallback.
#include "cpu_lowering_check.h"
#include "gqa_by_hand.h"
#include "test_util.h"

#include <cmath>
#include <limits>

using namespace fxray;

using fxtest::lowersAndMatches;

class TestCpuLoweringEdges : public QObject {
    Q_OBJECT
private slots:
    void zeroDimScansAndReductions() {
        lowersAndMatches("x: \"f32[][]cpu\", i: \"i64[][]cpu\", s: \"f32[][]cpu\"",
                         "        cumsum: \"f32[][]cpu\" = torch.ops.aten.cumsum.default(x, 0)\n"
                         "        cumprod: \"f32[][]cpu\" = torch.ops.aten.cumprod.default(x, -1)\n"
                         "        cummax = torch.ops.aten.cummax.default(x, 0)\n"
                         "        v: \"f32[][]cpu\" = cummax[0]\n"
                         "        k: \"i64[][]cpu\" = cummax[1]\n"
                         "        lcse: \"f32[][]cpu\" = torch.ops.aten.logcumsumexp.default(x, 0)\n"
                         "        aminmax = torch.ops.aten.aminmax.default(x, dim = 0)\n"
                         "        lo: \"f32[][]cpu\" = aminmax[0]\n"
                         "        hi: \"f32[][]cpu\" = aminmax[1]\n"
                         "        scatter: \"f32[][]cpu\" = torch.ops.aten.scatter.src(x, 0, i, s)\n"
                         "        scatter_add: \"f32[][]cpu\" = torch.ops.aten.scatter_add.default(x, 0, i, s)\n"
                         "        return (cumsum, cumprod, v, k, lcse, lo, hi, scatter, scatter_add)\n",
                         {fxtest::tv({}, {-1.5}), fxtest::tv({}, {0}, DType::Int64), fxtest::tv({}, {4})});
    }
    void scatterByAnEmptyIndexIsSelf() {
        lowersAndMatches(
            "x: \"f32[2, 3][3, 1]cpu\", i: \"i64[0, 3][3, 1]cpu\", s: \"f32[0, 3][3, 1]cpu\"",
            "        scatter_add: \"f32[2, 3][3, 1]cpu\" = torch.ops.aten.scatter_add.default(x, 0, i, s)\n"
            "        return (scatter_add,)\n",
            {fxtest::tv({2, 3}, {1, 2, 3, 4, 5, 6}), fxtest::tv({0, 3}, {}, DType::Int64), fxtest::tv({0, 3}, {})});
    }
    void maskedScatterOfAnEmptySource() {
        // combinations' backward at one element: nothing selected, nothing to scatter.
        lowersAndMatches(
            "x: \"f32[2, 2][2, 1]cpu\", m: \"b8[2, 2][2, 1]cpu\", s: \"f32[0][1]cpu\"",
            "        masked_scatter: \"f32[2, 2][2, 1]cpu\" = torch.ops.aten.masked_scatter.default(x, m, s)\n"
            "        return (masked_scatter,)\n",
            {fxtest::tv({2, 2}, {1, 2, 3, 4}), fxtest::tv({2, 2}, {0, 0, 0, 0}, DType::Bool), fxtest::tv({0}, {})});
    }
    void maskedScatterPastTheRuleRunsAsAnExtern() {
        // 3,000 positions: past the rule's quadratic limit, an extern kernel on both backends.
        std::vector<double> xs(3000), ms(500), src(3000), gs(3000);
        for (size_t i = 0; i < xs.size(); ++i) xs[i] = -double(i), src[i] = 0.5 * double(i), gs[i] = std::sin(0.1 * i);
        for (size_t j = 0; j < ms.size(); ++j) ms[j] = (j * 7) % 3 == 0;
        lowersAndMatches(
            "x: \"f32[6, 500][500, 1]cpu\", m: \"b8[500][1]cpu\", s: \"f32[3000][1]cpu\", "
            "g: \"f32[6, 500][500, 1]cpu\"",
            "        ms: \"f32[6, 500][500, 1]cpu\" = torch.ops.aten.masked_scatter.default(x, m, s)\n"
            "        mb: \"f32[3000][1]cpu\" = torch.ops.aten.masked_scatter_backward.default(g, m, [3000])\n"
            "        return (ms, mb)\n",
            {fxtest::tv({6, 500}, xs), fxtest::tv({500}, ms, DType::Bool), fxtest::tv({3000}, src),
             fxtest::tv({6, 500}, gs)});
    }
    void upsampleBackwardsGatherOverWindows() {
        // Outputs several times the inputs (and smaller): each input element gathers over the
        // window of output positions that can read it, not every position; nearest at 2x and at
        // a scale argument, nearest_exact, bilinear both ways, bicubic, linear1d, a downsample,
        // and a decoder-sized 2x.
        auto ramp = [](size_t n) {
            std::vector<double> v(n);
            for (size_t i = 0; i < n; ++i) v[i] = std::sin(0.37 * double(i)) + 0.01 * double(i % 7);
            return v;
        };
        struct Case {
            const char* op;
            std::vector<int64_t> gshape;
            std::string args;
            std::vector<int64_t> inShape;
        };
        const std::vector<Case> cases = {
            {"upsample_nearest2d_backward", {1, 2, 40, 36}, "[40, 36], [1, 2, 20, 18]", {1, 2, 20, 18}},
            {"upsample_nearest2d_backward", {1, 1, 37, 23}, "[37, 23], [1, 1, 12, 9], 3.1, 2.5", {1, 1, 12, 9}},
            {"_upsample_nearest_exact2d_backward", {1, 1, 33, 30}, "[33, 30], [1, 1, 10, 12]", {1, 1, 10, 12}},
            {"upsample_bilinear2d_backward", {1, 2, 45, 30}, "[45, 30], [1, 2, 18, 12], False", {1, 2, 18, 12}},
            {"upsample_bilinear2d_backward", {1, 1, 45, 30}, "[45, 30], [1, 1, 18, 12], True", {1, 1, 18, 12}},
            {"upsample_bicubic2d_backward", {1, 1, 40, 25}, "[40, 25], [1, 1, 16, 10], False", {1, 1, 16, 10}},
            {"upsample_linear1d_backward", {2, 3, 90}, "[90], [2, 3, 30], False", {2, 3, 30}},
            {"upsample_bilinear2d_backward", {1, 1, 12, 10}, "[12, 10], [1, 1, 40, 33], False", {1, 1, 40, 33}},
            // 64 -> 128 both ways: 67M input-output pairs, past what a gather over every output
            // position could take (it fell back to the reference kernel).
            {"upsample_bilinear2d_backward", {1, 1, 128, 128}, "[128, 128], [1, 1, 64, 64], False", {1, 1, 64, 64}},
        };
        for (const Case& k : cases) {
            auto ann = [](const std::vector<int64_t>& shape) {
                std::string dims, strides;
                int64_t st = 1;
                std::vector<int64_t> sv(shape.size());
                for (size_t i = shape.size(); i-- > 0;) sv[i] = st, st *= shape[i];
                for (size_t i = 0; i < shape.size(); ++i) {
                    dims += (i ? ", " : "") + std::to_string(shape[i]);
                    strides += (i ? ", " : "") + std::to_string(sv[i]);
                }
                return "\"f32[" + dims + "][" + strides + "]cpu\"";
            };
            int64_t n = 1;
            for (int64_t d : k.gshape) n *= d;
            lowersAndMatches("g: " + ann(k.gshape),
                             std::string("        b: ") + ann(k.inShape) + " = torch.ops.aten." + k.op +
                                 ".default(g, " + k.args + ")\n        return (b,)\n",
                             {fxtest::tv(k.gshape, ramp(static_cast<size_t>(n)))});
            if (QTest::currentTestFailed()) {
                qWarning("case %s(%s)", k.op, k.args.c_str());
                return;
            }
        }
    }
    void dynamoStageComposites() {
        // What Dynamo-stage graphs keep after lowering to ATen (the corpus's dynamo.py graphs):
        // linear (a GEMM over the input's rows, with and without bias), softmax.int, dropout in
        // evaluation mode and with p = 0; layer_norm, matmul, conv2d, batch_norm, flatten, chunk.
        std::vector<double> xs(2 * 3 * 4), ws(5 * 4), bs(5);
        for (size_t i = 0; i < xs.size(); ++i) xs[i] = std::sin(0.7 * double(i));
        for (size_t i = 0; i < ws.size(); ++i) ws[i] = std::cos(0.3 * double(i)) - 0.2;
        for (size_t i = 0; i < bs.size(); ++i) bs[i] = 0.1 * double(i) - 0.2;
        lowersAndMatches(
            "x: \"f32[2, 3, 4][12, 4, 1]cpu\", w: \"f32[5, 4][4, 1]cpu\", b: \"f32[5][1]cpu\"",
            "        linear: \"f32[2, 3, 5][15, 5, 1]cpu\" = torch.ops.aten.linear.default(x, w, b)\n"
            "        linear_1: \"f32[2, 3, 5][15, 5, 1]cpu\" = torch.ops.aten.linear.default(x, w)\n"
            "        softmax: \"f32[2, 3, 5][15, 5, 1]cpu\" = torch.ops.aten.softmax.int(linear, -1)\n"
            "        dropout: \"f32[2, 3, 5][15, 5, 1]cpu\" = torch.ops.aten.dropout.default(softmax, 0.1, False)\n"
            "        dropout_1: \"f32[2, 3, 5][15, 5, 1]cpu\" = torch.ops.aten.dropout.default(linear_1, 0.0, True)\n"
            "        return (linear, dropout, dropout_1)\n",
            {fxtest::tv({2, 3, 4}, xs), fxtest::tv({5, 4}, ws), fxtest::tv({5}, bs)});
        // layer_norm over the last dim (with and without an affine), matmul: [.., M, K] by a
        // matrix, equal batches with a transposed (non-folding) operand, and two matrices.
        std::vector<double> qs(2 * 3 * 4 * 5), ks(2 * 3 * 4 * 5);
        for (size_t i = 0; i < qs.size(); ++i) qs[i] = std::sin(0.11 * double(i)), ks[i] = std::cos(0.07 * double(i));
        lowersAndMatches(
            "x: \"f32[2, 3, 4][12, 4, 1]cpu\", w: \"f32[4][1]cpu\", m: \"f32[4, 6][6, 1]cpu\", "
            "q: \"f32[2, 3, 4, 5][60, 20, 5, 1]cpu\", k: \"f32[2, 3, 4, 5][60, 20, 5, 1]cpu\"",
            "        ln: \"f32[2, 3, 4][12, 4, 1]cpu\" = torch.ops.aten.layer_norm.default(x, [4], w, w, 1e-05)\n"
            "        ln_1: \"f32[2, 3, 4][12, 4, 1]cpu\" = torch.ops.aten.layer_norm.default(x, [4])\n"
            "        mm: \"f32[2, 3, 6][18, 6, 1]cpu\" = torch.ops.aten.matmul.default(ln, m)\n"
            "        kt: \"f32[2, 3, 5, 4][60, 20, 1, 5]cpu\" = torch.ops.aten.transpose.int(k, -2, -1)\n"
            "        s: \"f32[2, 3, 4, 4][48, 16, 4, 1]cpu\" = torch.ops.aten.matmul.default(q, kt)\n"
            "        mt: \"f32[6, 4][1, 6]cpu\" = torch.ops.aten.t.default(m)\n"
            "        mm_1: \"f32[4, 4][4, 1]cpu\" = torch.ops.aten.matmul.default(m, mt)\n"
            "        return (ln_1, mm, s, mm_1)\n",
            {fxtest::tv({2, 3, 4}, xs), fxtest::tv({4}, {0.5, 1, 1.5, -1}),
             fxtest::tv({4, 6}, std::vector<double>(qs.begin(), qs.begin() + 24)), fxtest::tv({2, 3, 4, 5}, qs),
             fxtest::tv({2, 3, 4, 5}, ks)});
        // conv2d (convolution's extern), batch_norm in evaluation mode, flatten, chunk (36 into
        // pieces of 8, the last 4), upsample's .vec overloads (scale factors, or an output size),
        // group_norm.
        std::vector<double> img(2 * 3 * 5 * 5), cw(4 * 3 * 3 * 3);
        for (size_t i = 0; i < img.size(); ++i) img[i] = std::sin(0.13 * double(i));
        for (size_t i = 0; i < cw.size(); ++i) cw[i] = std::cos(0.29 * double(i)) * 0.3;
        lowersAndMatches(
            "x: \"f32[2, 3, 5, 5][75, 25, 5, 1]cpu\", w: \"f32[4, 3, 3, 3][27, 9, 3, 1]cpu\", b: \"f32[4][1]cpu\", "
            "rm: \"f32[4][1]cpu\", rv: \"f32[4][1]cpu\"",
            "        conv2d: \"f32[2, 4, 3, 3][36, 9, 3, 1]cpu\" = torch.ops.aten.conv2d.default(x, w, b, [2, 2], [1, "
            "1], [1, "
            "1], 1)\n"
            "        bn: \"f32[2, 4, 3, 3][36, 9, 3, 1]cpu\" = torch.ops.aten.batch_norm.default(conv2d, b, b, rm, rv, "
            "False, "
            "0.1, 1e-05, True)\n"
            "        flat: \"f32[2, 36][36, 1]cpu\" = torch.ops.aten.flatten.using_ints(bn, 1)\n"
            "        chunk = torch.ops.aten.chunk.default(flat, 5, 1)\n"
            "        getitem: \"f32[2, 8][36, 1]cpu\" = chunk[0]\n"
            "        getitem_1: \"f32[2, 4][36, 1]cpu\" = chunk[4]\n"
            "        up: \"f32[2, 4, 6, 6][144, 36, 6, 1]cpu\" = torch.ops.aten.upsample_nearest2d.vec(bn, None, [2.0, "
            "2.0])\n"
            "        up_1: \"f32[2, 4, 7, 5][140, 35, 5, 1]cpu\" = torch.ops.aten.upsample_bilinear2d.vec(bn, [7, 5], "
            "False, "
            "None)\n"
            "        gn: \"f32[2, 4, 3, 3][36, 9, 3, 1]cpu\" = torch.ops.aten.group_norm.default(conv2d, 2, b, rm, "
            "1e-05)\n"
            "        return (conv2d, flat, getitem, getitem_1, up, up_1, gn)\n",
            {fxtest::tv({2, 3, 5, 5}, img), fxtest::tv({4, 3, 3, 3}, cw), fxtest::tv({4}, {0.5, -1, 2, 0.25}),
             fxtest::tv({4}, {0.1, 0.2, -0.3, 0}), fxtest::tv({4}, {1, 0.5, 2, 0.75})});
    }
    void delegatedOverloads() {
        // Overloads that take another op's rule: prims.iota (Inductor's arange), empty_strided
        // (then filled), to.device / to.other (copies), unflatten.int (a reshape), unsafe_chunk
        // (split's slices), _upsample_nearest_exact2d.vec (scale factors).
        lowersAndMatches(
            "x: \"f32[2, 6][6, 1]cpu\", y: \"f64[2][1]cpu\", z: \"f32[1, 2, 3, 3][18, 9, 3, 1]cpu\"",
            "        iota: \"i64[5][1]cpu\" = torch.ops.prims.iota.default(5, start = 3, step = -2, dtype = "
            "torch.int64, "
            "device = device(type='cpu'), requires_grad = False)\n"
            "        e: \"f32[2, 3][1, 2]cpu\" = torch.ops.aten.empty_strided.default([2, 3], [1, 2], dtype = "
            "torch.float32, device = device(type='cpu'), pin_memory = False)\n"
            "        f: \"f32[2, 3][1, 2]cpu\" = torch.ops.aten.fill_.Scalar(e, 2.5)\n"
            "        d: \"f32[2, 6][6, 1]cpu\" = torch.ops.aten.to.device(x, device(type='cpu'), torch.float32)\n"
            "        o: \"f64[2, 6][6, 1]cpu\" = torch.ops.aten.to.other(x, y)\n"
            "        u: \"f32[2, 2, 3][6, 3, 1]cpu\" = torch.ops.aten.unflatten.int(x, 1, [2, 3])\n"
            "        ch = torch.ops.aten.unsafe_chunk.default(x, 3, 1)\n"
            "        c1: \"f32[2, 2][6, 1]cpu\" = ch[1]\n"
            "        up: \"f32[1, 2, 6, 4][48, 24, 4, 1]cpu\" = torch.ops.aten._upsample_nearest_exact2d.vec(z, None, "
            "[2.0, 1.5])\n"
            "        return (iota, f, d, o, u, c1, up)\n",
            {fxtest::tv({2, 6}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}), fxtest::tv({2}, {0, 0}, DType::Float64),
             fxtest::tv({1, 2, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18})});
    }
    void prepareSoftmaxOnline() {
        // Inductor's post-grad softmax: (max, sum(exp(x - max))) keepdim over dim 1, then the
        // division.
        lowersAndMatches("x: \"f32[3, 4][4, 1]cpu\"",
                         "        p = torch.ops.prims.prepare_softmax_online.default(x, 1)\n"
                         "        m: \"f32[3, 1][1, 1]cpu\" = p[0]\n"
                         "        s: \"f32[3, 1][1, 1]cpu\" = p[1]\n"
                         "        sub: \"f32[3, 4][4, 1]cpu\" = torch.ops.aten.sub.Tensor(x, m)\n"
                         "        exp: \"f32[3, 4][4, 1]cpu\" = torch.ops.aten.exp.default(sub)\n"
                         "        div: \"f32[3, 4][4, 1]cpu\" = torch.ops.aten.div.Tensor(exp, s)\n"
                         "        return (m, s, div)\n",
                         {fxtest::tv({3, 4}, {0.5, -1, 2, 3, 10, 10, 9, -20, -0.25, 0, 0.25, 1.5})});
    }
    void dataSizedExterns() {
        // _unique2 (sorted, inverse, counts), unique_consecutive and repeat_interleave.Tensor, whose
        // output sizes their input values give: CPU externs now (they ran on the reference
        // kernel), checked against values worked out by hand.
        auto g = fxtest::parseForward("x: \"i64[5][1]cpu\", y: \"i64[6][1]cpu\", r: \"i64[3][1]cpu\"",
                                      "        u = torch.ops.aten._unique2.default(x, True, True, True)\n"
                                      "        v: \"i64[3][1]cpu\" = u[0]\n"
                                      "        inv: \"i64[5][1]cpu\" = u[1]\n"
                                      "        cnt: \"i64[3][1]cpu\" = u[2]\n"
                                      "        c = torch.ops.aten.unique_consecutive.default(y, True, True)\n"
                                      "        cv: \"i64[3][1]cpu\" = c[0]\n"
                                      "        ci: \"i64[6][1]cpu\" = c[1]\n"
                                      "        cc: \"i64[3][1]cpu\" = c[2]\n"
                                      "        ri: \"i64[5][1]cpu\" = torch.ops.aten.repeat_interleave.Tensor(r)\n"
                                      "        return (v, inv, cnt, cv, ci, cc, ri)\n");
        QVERIFY(g);
        const std::vector<Value> in{fxtest::tv({5}, {3, 1, 3, 2, 1}, DType::Int64),
                                    fxtest::tv({6}, {1, 1, 2, 2, 2, 1}, DType::Int64),
                                    fxtest::tv({3}, {2, 0, 3}, DType::Int64)};
        std::vector<Value> out;
        fxtest::runCpuWithoutFallback(*g, in, out);
        if (QTest::currentTestFailed()) return;
        const std::vector<std::vector<double>> want{{1, 2, 3},          {2, 0, 2, 1, 0}, {2, 1, 2},      {1, 2, 1},
                                                    {0, 0, 1, 1, 1, 2}, {2, 3, 1},       {0, 0, 2, 2, 2}};
        QCOMPARE(out.size(), want.size());
        for (size_t i = 0; i < want.size(); ++i) FX_COMPARE_VEC(fxtest::values(out[i]), want[i], 0.0);
    }
    void gridSamplersInEveryPaddingMode() {
        // The sampler externs with border (1) and reflection (2) padding, corners aligned or not:
        // grid points inside, on the edge and far outside (reflected several times), forward
        // (3-D) and backward (2-D and 3-D: the input's gradient and the grid's, whose slope the
        // clip and reflection maps set to 0 or -1).
        const std::vector<double> grid2{-1.7, 0.3, 0.2, -0.4, 1.0, 1.0, 3.6, -2.9, -0.95, 0.7, 0.45, 5.2};
        std::vector<double> grid3(2 * 2 * 1 * 3);
        for (size_t i = 0; i < grid3.size(); ++i) grid3[i] = 1.9 * std::sin(1.3 * double(i) + 0.2);
        std::vector<double> x2(1 * 2 * 3 * 4), x3(1 * 2 * 2 * 3 * 3), g2(1 * 2 * 2 * 3), g3(1 * 2 * 2 * 2 * 1);
        for (size_t i = 0; i < x2.size(); ++i) x2[i] = std::cos(0.7 * double(i));
        for (size_t i = 0; i < x3.size(); ++i) x3[i] = std::sin(0.45 * double(i));
        for (size_t i = 0; i < g2.size(); ++i) g2[i] = 0.5 - 0.1 * double(i);
        for (size_t i = 0; i < g3.size(); ++i) g3[i] = 0.3 * double(i) - 1;
        for (const char* pad : {"1", "2"})
            for (const char* align : {"False", "True"})
                lowersAndMatches(
                    "x: \"f32[1, 2, 3, 4][24, 12, 4, 1]cpu\", g: \"f32[1, 2, 3, 2][12, 6, 2, 1]cpu\", "
                    "go: \"f32[1, 2, 2, 3][12, 6, 3, 1]cpu\", y: \"f32[1, 2, 2, 3, 3][36, 18, 9, 3, 1]cpu\", "
                    "h: \"f32[1, 2, 2, 1, 3][12, 6, 3, 3, 1]cpu\", hy: \"f32[1, 2, 2, 2, 1][8, 4, 2, 1, 1]cpu\"",
                    std::string("        b = torch.ops.aten.grid_sampler_2d_backward.default(go, x, g, 0, ") + pad +
                        ", " + align +
                        ", [True, True])\n"
                        "        gx: \"f32[1, 2, 3, 4][24, 12, 4, 1]cpu\" = b[0]\n"
                        "        gg: \"f32[1, 2, 3, 2][12, 6, 2, 1]cpu\" = b[1]\n"
                        "        s: \"f32[1, 2, 2, 2, 1][8, 4, 2, 1, 1]cpu\" = "
                        "torch.ops.aten.grid_sampler_3d.default(y, h, "
                        "0, " +
                        pad + ", " + align +
                        ")\n"
                        "        b3 = torch.ops.aten.grid_sampler_3d_backward.default(hy, y, h, 0, " +
                        pad + ", " + align +
                        ", [True, True])\n"
                        "        gy: \"f32[1, 2, 2, 3, 3][36, 18, 9, 3, 1]cpu\" = b3[0]\n"
                        "        gh: \"f32[1, 2, 2, 1, 3][12, 6, 3, 3, 1]cpu\" = b3[1]\n"
                        "        return (gx, gg, s, gy, gh)\n",
                    {fxtest::tv({1, 2, 3, 4}, x2), fxtest::tv({1, 2, 3, 2}, grid2), fxtest::tv({1, 2, 2, 3}, g2),
                     fxtest::tv({1, 2, 2, 3, 3}, x3), fxtest::tv({1, 2, 2, 1, 3}, grid3),
                     fxtest::tv({1, 2, 2, 2, 1}, g3)});
    }
    void renormWithInfinityNorm() {
        lowersAndMatches("x: \"f32[3, 2][2, 1]cpu\"",
                         "        renorm: \"f32[3, 2][2, 1]cpu\" = torch.ops.aten.renorm.default(x, inf, 0, 0.5)\n"
                         "        return (renorm,)\n",
                         {fxtest::tv({3, 2}, {0.25, -2, 0.1, 0.2, 3, 1})});
    }
    void pdistForEveryNormKind() {
        for (const char* p : {"0.0", "1.0", "2.0", "3.0", "inf"})
            lowersAndMatches("x: \"f32[5, 3][3, 1]cpu\"",
                             std::string("        d: \"f32[10][1]cpu\" = torch.ops.aten._pdist_forward.default(x, ") +
                                 p + ")\n        return (d,)\n",
                             {fxtest::tv({5, 3}, {0, 1, 2, 0, 1, 2, -1, 4, 0.5, 3, 3, 3, 0.25, -2, 7})});
    }
    void spacesFromTensorBounds() {
        lowersAndMatches(
            "a: \"f32[][]cpu\", b: \"i64[][]cpu\"",
            "        lin: \"f32[7][1]cpu\" = torch.ops.aten.linspace.Tensor_Tensor(a, b, 7, dtype = "
            "torch.float32, device = device(type='cpu'), pin_memory = False)\n"
            "        one: \"f32[1][1]cpu\" = torch.ops.aten.linspace.Tensor_Tensor(a, b, 1, dtype = "
            "torch.float32, device = device(type='cpu'), pin_memory = False)\n"
            "        ints: \"i64[5][1]cpu\" = torch.ops.aten.linspace.Scalar_Tensor(-3.7, b, 5, dtype = "
            "torch.int64, device = device(type='cpu'), pin_memory = False)\n"
            "        log: \"f32[4][1]cpu\" = torch.ops.aten.logspace.Tensor_Scalar(a, 2.0, 4, 3.0, dtype = "
            "torch.float32, device = device(type='cpu'), pin_memory = False)\n"
            "        return (lin, one, ints, log)\n",
            {fxtest::tv({}, {-1.25}), fxtest::tv({}, {9}, DType::Int64)});
    }
    /// histc (a fallback kernel in Inductor; torchtitan's MoE counts tokens per expert with it):
    /// bins of width 1 over [0, 4] (4 itself in the last bin; 5, -1 and NaN not counted), and
    /// min == max taking the data's range [-1, 5] (NaN ignored), bins of width 1.5.
    void histcCountsByHand() {
        const double nan = std::numeric_limits<double>::quiet_NaN();
        auto g = fxtest::parseForward(
            "x: \"f32[9][1]cpu\"",
            "        h: \"f32[4][1]cpu\" = torch.ops.aten.histc.default(x, 4, 0, 4)\n"
            "        d: \"f32[4][1]cpu\" = torch.ops.aten.histc.default(x, 4)\n"
            "        return (h, d)\n");
        QVERIFY(g);
        const std::vector<fxray::Value> in{fxtest::tv({9}, {0, 0.5, 1, 2.5, 3.99, 4, 5, -1, nan})};
        std::vector<fxray::Value> out;
        fxtest::runCpuWithoutFallback(*g, in, out);
        if (QTest::currentTestFailed()) return;
        QCOMPARE(fxtest::values(out[0]), (std::vector<double>{2, 1, 1, 2}));
        QCOMPARE(fxtest::values(out[1]), (std::vector<double>{2, 2, 1, 3}));
        fxray::RunRequest req;
        req.inputs = in;
        auto ref = fxray::runAndCheck(*g, req, nullptr);
        QVERIFY2(ref.ok(), ref.ok() ? "" : ref.error().str().c_str());
        QCOMPARE(fxtest::values(ref->outputs[0]), fxtest::values(out[0]));
        QCOMPARE(fxtest::values(ref->outputs[1]), fxtest::values(out[1]));
    }

    /// aten.scaled_dot_product_attention with enable_gqa=True (export graphs of Llama-family
    /// models): 4 query heads over 2 key/value heads, head h reading key head h / 2, on the CPU
    /// backend's extern (no fallback) and the reference kernel, against attention by hand.
    void groupedQueryAttentionByHand() {
        const fxtest::GqaCase t;
        auto g = fxtest::parseForward(
            "q: \"f32[1, 4, 2, 2][16, 4, 2, 1]cpu\", k: \"f32[1, 2, 3, 2][12, 6, 2, 1]cpu\", v: \"f32[1, 2, 3, "
            "2][12, 6, 2, 1]cpu\"",
            "        o: \"f32[1, 4, 2, 2][16, 4, 2, 1]cpu\" = torch.ops.aten.scaled_dot_product_attention.default(q, k, "
            "v, enable_gqa = True)\n"
            "        return (o,)\n");
        QVERIFY(g);
        const std::vector<fxray::Value> in{fxtest::tv({1, 4, 2, 2}, t.q), fxtest::tv({1, 2, 3, 2}, t.k),
                                           fxtest::tv({1, 2, 3, 2}, t.v)};
        const std::vector<double> want = t.attention();
        std::vector<fxray::Value> out;
        fxtest::runCpuWithoutFallback(*g, in, out);
        if (QTest::currentTestFailed()) return;
        FX_COMPARE_VEC(fxtest::values(out[0]), want, 1e-5);
        fxray::RunRequest req;
        req.inputs = in;
        auto ref = fxray::runAndCheck(*g, req, nullptr);
        QVERIFY2(ref.ok(), ref.ok() ? "" : ref.error().str().c_str());
        FX_COMPARE_VEC(fxtest::values(ref->outputs[0]), want, 1e-6);
    }

    /// In-place writes through tensor indices, as the Dynamo stage's `z[:, i] = v; z[r] = -1`
    /// lowers: index_put_ (registered beside index_put, not in the in-place table) runs index_put's
    /// extern kernel, and the masked_fill_ after it is rebound rather than left to the reference
    /// kernel (an extern's new buffer aliases nothing).
    void inplaceWritesAfterAnExtern() {
        lowersAndMatches("x: \"f32[3, 4][4, 1]cpu\", i: \"i64[2][1]cpu\", v: \"f32[3, 2][2, 1]cpu\", r: "
                         "\"b8[3][1]cpu\"",
                         "        z: \"f32[3, 4][4, 1]cpu\" = torch.ops.aten.clone.default(x)\n"
                         "        index_put_: \"f32[3, 4][4, 1]cpu\" = torch.ops.aten.index_put_.default(z, [None, i], "
                         "v)\n"
                         "        unsqueeze: \"b8[3, 1][1, 1]cpu\" = torch.ops.aten.unsqueeze.default(r, -1)\n"
                         "        masked_fill_: \"f32[3, 4][4, 1]cpu\" = torch.ops.aten.masked_fill_.Scalar(z, "
                         "unsqueeze, -1)\n"
                         "        mul: \"f32[3, 4][4, 1]cpu\" = torch.ops.aten.mul.Tensor(z, 2)\n"
                         "        return (z, mul, x)\n",
                         {fxtest::tv({3, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}),
                          fxtest::tv({2}, {3, 1}, DType::Int64), fxtest::tv({3, 2}, {10, 11, 12, 13, 14, 15}),
                          fxtest::tv({3}, {0, 1, 0}, DType::Bool)});
    }
};

QTEST_GUILESS_MAIN(TestCpuLoweringEdges)
#include "tst_cpu_lowering_edges.moc"
