// Gradient checks of the VJP rules against central finite differences in fp64. Each case is a
// small hand-written forward graph exercising one rule family (and the decompositions feeding
// it); the joint graph's gradients for a random tangent must match the finite-difference
// derivative of <tangent, forward outputs> for every element of every input that needs one.
#include "test_util.h"

#include "autodiff/joint_builder.h"
#include "autodiff/vjp.h"
#include "exec/run_check.h"
#include "exec/shape_inference.h"
#include "import/fx_text_reader.h"
#include "ir/printer.h"

#include <cmath>
#include <map>
#include <random>

using namespace fxray;

namespace {

struct Case {
    const char* family;
    const char* name;
    /// Placeholder list and body of `forward` (op nodes may omit annotations).
    const char* params;
    const char* body;
    /// Inputs that need gradients (empty: every floating input).
    std::vector<std::string> grads = {};
    /// Fixed values for inputs (integer indices, positive operands), by placeholder index.
    std::map<size_t, std::vector<double>> fixed = {};
};

std::string source(const Case& c) {
    return std::string("class GraphModule(torch.nn.Module):\n    def forward(self, ") + c.params + "):\n" + c.body;
}

std::vector<double> valuesOf(const Value& v) { return v.isTensor() ? fxtest::values(v) : std::vector<double>{}; }

Value tensorValue(const TensorMeta& m, const std::vector<double>& vals) {
    return Value::ofTensor(kern::makeTensor(TensorMeta::contiguous(m.shape, m.dtype), vals));
}

const std::vector<Case>& cases() {
    static const std::vector<Case> all = {
        // ----- pointwise -----
        {"pointwise", "add_sub_broadcast", R"(x: "f64[3, 4]", y: "f64[4]")",
         "        a = torch.ops.aten.add.Tensor(x, y)\n"
         "        b = torch.ops.aten.sub.Tensor(a, x, alpha = 2)\n"
         "        c = torch.ops.aten.rsub.Scalar(b, 1.5)\n"
         "        return (c,)\n"},
        {"pointwise",
         "mul_div",
         R"(x: "f64[2, 3]", y: "f64[2, 1]")",
         "        a = torch.ops.aten.mul.Tensor(x, y)\n"
         "        b = torch.ops.aten.mul.Tensor(a, 0.5)\n"
         "        c = torch.ops.aten.div.Tensor(b, y)\n"
         "        d = torch.ops.aten.div.Scalar(c, 3.0)\n"
         "        e = torch.ops.aten.mul.Scalar(d, -2.0)\n"
         "        return (e,)\n",
         {},
         {{1, {1.5, -2.0}}}},
        {"pointwise", "unary_math", R"(x: "f64[5]")",
         "        a = torch.ops.aten.exp.default(x)\n"
         "        b = torch.ops.aten.log.default(a)\n"
         "        c = torch.ops.aten.sqrt.default(a)\n"
         "        d = torch.ops.aten.rsqrt.default(a)\n"
         "        e = torch.ops.aten.reciprocal.default(a)\n"
         "        f = torch.ops.aten.neg.default(x)\n"
         "        g = torch.ops.aten.erf.default(x)\n"
         "        h = torch.ops.aten.pow.Tensor_Scalar(x, 3.0)\n"
         "        return (b, c, d, e, f, g, h)\n"},
        {"pointwise", "activations", R"(x: "f64[2, 5]")",
         "        a = torch.ops.aten.relu.default(x)\n"
         "        b = torch.ops.aten.sigmoid.default(x)\n"
         "        c = torch.ops.aten.tanh.default(x)\n"
         "        d = torch.ops.aten.gelu.default(x)\n"
         "        e = torch.ops.aten.gelu.default(x, approximate = 'tanh')\n"
         "        f = torch.ops.aten.silu.default(x)\n"
         "        return (a, b, c, d, e, f)\n"},
        {"pointwise", "inplace_relu_add", R"(x: "f64[2, 5]", y: "f64[2, 5]")",
         "        a = torch.ops.aten.mul.Tensor(x, y)\n"
         "        b = torch.ops.aten.add_.Tensor(a, x)\n"
         "        c = torch.ops.aten.relu_.default(b)\n"
         "        return (c,)\n"},
        // pow_.Scalar's functional form is pow.Tensor_Scalar (the in-place table says so).
        {"pointwise", "inplace_pow_sub", R"(x: "f64[2, 5]", y: "f64[2, 5]")",
         "        a = torch.ops.aten.mul.Tensor(x, y)\n"
         "        b = torch.ops.aten.pow_.Scalar(a, 2.0)\n"
         "        c = torch.ops.aten.sub_.Tensor(b, x)\n"
         "        return (c,)\n"},
        {"pointwise",
         "where",
         R"(x: "f64[2, 3]", y: "f64[2, 3]", m: "b8[2, 3]")",
         "        a = torch.ops.aten.where.self(m, x, y)\n"
         "        b = torch.ops.aten.where.ScalarOther(m, x, -1.0)\n"
         "        c = torch.ops.aten.masked_fill.Scalar(y, m, 2.0)\n"
         "        return (a, b, c)\n",
         {"x", "y"},
         {{2, {1, 0, 1, 0, 0, 1}}}},
        // ----- reductions -----
        {"reduction", "sum_mean", R"(x: "f64[2, 3, 4]")",
         "        a = torch.ops.aten.sum.dim_IntList(x, [0, 2])\n"
         "        b = torch.ops.aten.sum.dim_IntList(x, [-1], True)\n"
         "        c = torch.ops.aten.mean.dim(x, [1])\n"
         "        d = torch.ops.aten.sum.default(x)\n"
         "        e = torch.ops.aten.mean.default(x)\n"
         "        return (a, b, c, d, e)\n"},
        {"reduction", "amax_amin", R"(x: "f64[3, 4]")",
         "        a = torch.ops.aten.amax.default(x, [1])\n"
         "        b = torch.ops.aten.amin.default(x, [0], True)\n"
         "        c = torch.ops.aten.amax.default(x)\n"
         "        return (a, b, c)\n"},
        {"reduction", "softmax", R"(x: "f64[2, 5]")",
         "        a = torch.ops.aten.softmax.int(x, -1)\n"
         "        b = torch.ops.aten._log_softmax.default(x, 0, False)\n"
         "        return (a, b)\n"},
        // ----- linalg -----
        {"linalg", "mm_addmm_bmm",
         R"(a: "f64[3, 4]", b: "f64[4, 2]", c: "f64[4]", p: "f64[2, 3, 4]", q: "f64[2, 4, 2]")",
         "        x = torch.ops.aten.mm.default(a, b)\n"
         "        t = torch.ops.aten.t.default(b)\n"
         "        y = torch.ops.aten.addmm.default(c, x, t, beta = 2, alpha = 0.5)\n"
         "        z = torch.ops.aten.bmm.default(p, q)\n"
         "        return (y, z)\n"},
        {"linalg", "linear_2d_3d", R"(w: "f64[5, 4]", b: "f64[5]", x: "f64[3, 4]", y: "f64[2, 3, 4]")",
         "        a = torch.ops.aten.linear.default(x, w, b)\n"
         "        c = torch.ops.aten.linear.default(y, w, b)\n"
         "        d = torch.ops.aten.linear.default(y, w)\n"
         "        return (a, c, d)\n"},
        {"linalg", "matmul_batched", R"(a: "f64[2, 2, 3, 4]", b: "f64[2, 2, 4, 3]", v: "f64[4]")",
         "        x = torch.ops.aten.matmul.default(a, b)\n"
         "        t = torch.ops.aten.transpose.int(b, -2, -1)\n"
         "        y = torch.ops.aten.matmul.default(x, t)\n"
         "        z = torch.ops.aten.matmul.default(a, v)\n"
         "        return (y, z)\n"},
        {"linalg", "matmul_fold", R"(a: "f64[2, 3, 4]", m: "f64[4, 2]", n: "f64[5, 3]")",
         "        x = torch.ops.aten.matmul.default(a, m)\n"
         "        y = torch.ops.aten.matmul.default(n, a)\n"
         "        return (x, y)\n"},
        // ----- views -----
        {"views", "view_reshape_transpose", R"(x: "f64[2, 3, 4]")",
         "        a = torch.ops.aten.transpose.int(x, 0, 2)\n"
         "        b = torch.ops.aten.reshape.default(a, [4, 6])\n"
         "        c = torch.ops.aten.view.default(x, [6, 4])\n"
         "        d = torch.ops.aten.t.default(c)\n"
         "        e = torch.ops.aten.permute.default(x, [1, 2, 0])\n"
         "        f = torch.ops.aten.contiguous.default(e)\n"
         "        g = torch.ops.aten.flatten.using_ints(f, 1)\n"
         "        return (b, d, g)\n"},
        {"views", "squeeze_expand_slice", R"(x: "f64[3, 1, 4]")",
         "        a = torch.ops.aten.squeeze.dim(x, 1)\n"
         "        b = torch.ops.aten.unsqueeze.default(a, 0)\n"
         "        c = torch.ops.aten.expand.default(x, [2, 3, 5, 4])\n"
         "        d = torch.ops.aten.slice.Tensor(a, 1, 1, 3)\n"
         "        e = torch.ops.aten.select.int(a, 0, -1)\n"
         "        f = torch.ops.aten.narrow.default(a, 0, 1, 2)\n"
         "        return (b, c, d, e, f)\n"},
        // ----- shape -----
        {"shape", "cat_split_stack", R"(x: "f64[2, 3]", y: "f64[2, 2]")",
         "        a = torch.ops.aten.cat.default([x, y], 1)\n"
         "        s = torch.ops.aten.split.Tensor(a, 2, 1)\n"
         "        g0 = s[0]\n"
         "        g2 = s[2]\n"
         "        b = torch.ops.aten.stack.default([g0, y], 0)\n"
         "        u = torch.ops.aten.unbind.int(x, 1)\n"
         "        u1 = u[1]\n"
         "        c = torch.ops.aten.constant_pad_nd.default(x, [1, 2, 0, 1], 0.0)\n"
         "        return (b, g2, u1, c)\n"},
        // ----- indexing -----
        {"indexing",
         "embedding_gather_index",
         R"(w: "f64[6, 3]", x: "f64[4, 3]", s: "f64[2, 3]", idx: "i64[2, 2]", i1: "i64[2]", gi: "i64[4, 2]")",
         "        a = torch.ops.aten.embedding.default(w, idx)\n"
         "        c = torch.ops.aten.index_select.default(x, 0, i1)\n"
         "        d = torch.ops.aten.index_add.default(x, 0, i1, s)\n"
         "        e = torch.ops.aten.gather.default(x, 1, gi)\n"
         "        return (a, c, d, e)\n",
         {},
         {{3, {0, 2, 5, 2}}, {4, {3, 1}}, {5, {0, 2, 1, 1, 2, 0, 0, 0}}}},
        // ----- norms -----
        {"norm", "layer_norm", R"(w: "f64[4]", b: "f64[4]", x: "f64[2, 3, 4]")",
         "        a = torch.ops.aten.layer_norm.default(x, [4], w, b, 1e-05)\n"
         "        return (a,)\n"},
        {"norm",
         "batch_norm_train",
         R"(w: "f64[3]", b: "f64[3]", rm: "f64[3]", rv: "f64[3]", x: "f64[2, 3, 2, 2]")",
         "        a = torch.ops.aten.batch_norm.default(x, w, b, rm, rv, True, 0.1, 1e-05, False)\n"
         "        return (a,)\n",
         {"w", "b", "x"},
         {{3, {1.0, 2.0, 0.5}}}},
        {"norm",
         "batch_norm_eval",
         R"(w: "f64[3]", b: "f64[3]", rm: "f64[3]", rv: "f64[3]", x: "f64[2, 3, 2]")",
         "        a = torch.ops.aten.batch_norm.default(x, w, b, rm, rv, False, 0.1, 1e-05, False)\n"
         "        return (a,)\n",
         {"w", "b", "x"},
         {{3, {1.0, 2.0, 0.5}}}},
        // ----- conv and pooling -----
        {"conv", "conv2d", R"(w: "f64[2, 3, 3, 3]", b: "f64[2]", x: "f64[1, 3, 5, 5]")",
         "        a = torch.ops.aten.conv2d.default(x, w, b, [2, 2], [1, 1])\n"
         "        c = torch.ops.aten.conv2d.default(x, w)\n"
         "        return (a, c)\n"},
        {"conv", "pooling", R"(x: "f64[1, 2, 6, 6]")",
         "        a = torch.ops.aten.max_pool2d.default(x, [3, 3], [2, 2], [1, 1])\n"
         "        b = torch.ops.aten.avg_pool2d.default(x, [2, 2])\n"
         "        c = torch.ops.aten.adaptive_avg_pool2d.default(x, [1, 1])\n"
         "        d = torch.ops.aten.adaptive_avg_pool2d.default(x, [2, 3])\n"
         "        return (a, b, c, d)\n"},
        // In-place writes into views of an intermediate: functionalised as *_scatter into the
        // base, so later reads of the base (the output) see them.
        {"views", "inplace_view_writes", R"(x: "f64[3, 4]", y: "f64[3, 2]", z: "f64[4]")",
         "        b = torch.ops.aten.mul.Tensor(x, 2.0)\n"
         "        s = torch.ops.aten.slice.Tensor(b, 1, 1, 3)\n"
         "        c = torch.ops.aten.copy_.default(s, y)\n"
         "        r = torch.ops.aten.select.int(b, 0, 2)\n"
         "        m = torch.ops.aten.mul_.Tensor(r, z)\n"
         "        return (b,)\n"},
        // ----- ops of popular architectures (bench/gen_popular.py) -----
        {"popular", "fused_lstm_gru_cells",
         R"(ig: "f64[2, 12]", hg: "f64[2, 12]", cx: "f64[2, 3]", bi: "f64[12]", bh: "f64[12]", gi: "f64[2, 9]", gh: "f64[2, 9]", hx: "f64[2, 3]")",
         "        l = torch.ops.aten._thnn_fused_lstm_cell.default(ig, hg, cx, bi, bh)\n"
         "        hy = l[0]\n"
         "        cy = l[1]\n"
         "        g = torch.ops.aten._thnn_fused_gru_cell.default(gi, gh, hx)\n"
         "        gy = g[0]\n"
         "        return (hy, cy, gy)\n"},
        {"popular", "group_norm_upsample_vec_chunk", R"(w: "f64[4]", b: "f64[4]", x: "f64[2, 4, 3, 3]")",
         "        a = torch.ops.aten.group_norm.default(x, 2, w, b, 1e-05)\n"
         "        u = torch.ops.aten.upsample_nearest2d.vec(a, None, [2.0, 2.0])\n"
         "        v = torch.ops.aten.upsample_bilinear2d.vec(x, [5, 4], False, None)\n"
         "        c = torch.ops.aten.chunk.default(u, 2, 1)\n"
         "        c1 = c[1]\n"
         "        return (c1, v)\n"},
        {"popular", "scaled_dot_product_attention",
         R"(q: "f64[1, 2, 4, 3]", k: "f64[1, 2, 5, 3]", v: "f64[1, 2, 5, 3]", m: "f64[1, 2, 4, 5]")",
         "        a = torch.ops.aten.scaled_dot_product_attention.default(q, k, v, m)\n"
         "        b = torch.ops.aten.scaled_dot_product_attention.default(q, k, v, None, 0.0, True, scale = 0.5)\n"
         "        return (a, b)\n"},
        // Grouped-query heads (enable_gqa): 4 query heads over 2 key/value heads, decomposed with
        // the key and value repeated head by head, so their gradients sum over each group.
        {"popular", "sdpa_grouped_query_heads",
         R"(q: "f64[1, 4, 3, 2]", k: "f64[1, 2, 5, 2]", v: "f64[1, 2, 5, 2]")",
         "        a = torch.ops.aten.scaled_dot_product_attention.default(q, k, v, enable_gqa = True)\n"
         "        b = torch.ops.aten.scaled_dot_product_attention.default(q, k, v, None, 0.0, True, enable_gqa = True)\n"
         "        return (a, b)\n"},
        // The fused attention ops PyTorch traces on CUDA: cuDNN's (fp16/bf16 on sm_90; its
        // backward has no bias gradient) and the memory-efficient kernel's with the bottom-right
        // causal mask (BMHK tensors, more queries than keys: the first row sees none).
        {"popular", "cudnn_attention",
         R"(q: "f64[1, 2, 4, 3]", k: "f64[1, 2, 5, 3]", v: "f64[1, 2, 5, 3]", m: "f64[1, 2, 4, 5]")",
         "        a = torch.ops.aten._scaled_dot_product_cudnn_attention.default(q, k, v, m, True, 0.0, False, False)\n"
         "        a0 = a[0]\n"
         "        b = torch.ops.aten._scaled_dot_product_cudnn_attention.default(q, k, v, None, True, 0.0, True, False, scale = 0.5)\n"
         "        b0 = b[0]\n"
         "        return (a0, b0)\n",
         {"q", "k", "v"}},
        {"popular", "efficient_attention_bottom_right",
         R"(q: "f64[1, 5, 2, 3]", k: "f64[1, 4, 2, 3]", v: "f64[1, 4, 2, 3]", m: "f64[1, 2, 5, 4]")",
         "        a = torch.ops.aten._efficient_attention_forward.default(q, k, v, m, None, None, None, None, 0.0, 2, True)\n"
         "        a0 = a[0]\n"
         "        b = torch.ops.aten._efficient_attention_forward.default(q, k, v, None, None, None, None, None, 0.0, 1, True, scale = 0.5)\n"
         "        b0 = b[0]\n"
         "        return (a0, b0)\n"},
        // ----- complex (real inputs and outputs, complex values between: c128 from f64) -----
        {"complex", "rotary_mul",
         R"(x: "f64[2, 3, 4]", f: "f64[3, 2, 2]")",
         "        a = torch.ops.aten.view.default(x, [2, 3, 2, 2])\n"
         "        b = torch.ops.aten.view_as_complex.default(a)\n"
         "        c = torch.ops.aten.view_as_complex.default(f)\n"
         "        d = torch.ops.aten.mul.Tensor(b, c)\n"
         "        e = torch.ops.aten.view_as_real.default(d)\n"
         "        g = torch.ops.aten.view.default(e, [2, 3, 4])\n"
         "        return (g,)\n"},
        {"complex", "polar_conj_div",
         R"(r: "f64[3, 2]", t: "f64[3, 2]", x: "f64[3, 2, 2]", s: "f64[3, 2]")",
         "        p = torch.ops.aten.polar.default(r, t)\n"
         "        z = torch.ops.aten.view_as_complex.default(x)\n"
         "        q = torch.ops.aten._conj.default(p)\n"
         "        m = torch.ops.aten.mul.Tensor(z, q)\n"
         "        n = torch.ops.aten.mul.Tensor(m, s)\n"
         "        d = torch.ops.aten.div.Tensor(n, p)\n"
         "        e = torch.ops.aten.view_as_real.default(d)\n"
         "        return (e,)\n",
         {},
         // polar's abs positive: ATen's formula carries sgn(result), which a finite difference at a
         // negative or zero abs does not
         {{0, {0.5, 1.25, 2.0, 0.75, 1.5, 0.3}}}},
        {"complex", "complex_real_imag",
         R"(a: "f64[2, 3]", b: "f64[2, 3]", w: "f64[2, 3]")",
         "        z = torch.ops.aten.complex.default(a, b)\n"
         "        y = torch.ops.aten.mul.Tensor(z, z)\n"
         "        c = torch.ops.aten.complex.default(w, a)\n"
         "        u = torch.ops.aten.mul.Tensor(y, c)\n"
         "        re = torch.ops.aten.real.default(u)\n"
         "        im = torch.ops.aten.imag.default(u)\n"
         "        v = torch.ops.aten.mul.Tensor(re, im)\n"
         "        return (v, im)\n"},
        // ----- random -----
        {"random", "native_dropout", R"(x: "f64[4, 5]")",
         "        d = torch.ops.aten.native_dropout.default(x, 0.5, True)\n"
         "        a = d[0]\n"
         "        b = torch.ops.aten.dropout.default(a, 0.0, True)\n"
         "        return (b,)\n"},
    };
    return all;
}

}  // namespace

class TestVjpGradcheck : public QObject {
    Q_OBJECT
private slots:
    void gradcheck_data() {
        QTest::addColumn<int>("index");
        for (size_t i = 0; i < cases().size(); ++i)
            QTest::newRow((std::string(cases()[i].family) + "/" + cases()[i].name).c_str()) << int(i);
    }

    void gradcheck() {
        QFETCH(int, index);
        const Case& c = cases()[static_cast<size_t>(index)];
        auto parsed = readFxText(source(c), std::string(c.name) + ".py");
        QVERIFY2(parsed.ok(), parsed.ok() ? "" : parsed.error().str().c_str());
        Graph& fwd = **parsed;
        QVERIFY(resolveOps(fwd).empty());
        auto report = inferMeta(fwd);
        QVERIFY(report.unresolved.empty());

        JointOptions opts;
        if (c.grads.empty()) {
            opts.gradInputs = GradInputs::AllFloating;
        } else {
            opts.gradInputs = GradInputs::Listed;
            opts.requiresGrad = c.grads;
        }
        auto joint = buildJointGraph(fwd, opts);
        QVERIFY2(joint.ok(), joint.ok() ? "" : joint.error().str().c_str());
        const Graph& jg = *joint->graph;

        // Inputs: random normals (fp64) unless fixed; tangents random.
        std::mt19937_64 rng(1234 + index);
        std::normal_distribution<double> normal;
        std::vector<Value> primals;
        for (const Node* p : fwd.placeholders()) {
            const TensorMeta& m = p->meta[0];
            size_t i = primals.size();
            std::vector<double> v(static_cast<size_t>(m.numel()));
            if (c.fixed.count(i))
                v = c.fixed.at(i);
            else if (isFloating(m.dtype))
                for (auto& x : v) x = normal(rng);
            primals.push_back(tensorValue(m, v));
        }
        const auto jphs = jg.placeholders();
        QCOMPARE(jphs.size(), primals.size() + joint->numTangents);
        std::vector<Value> tangents;
        for (size_t k = 0; k < joint->numTangents; ++k) {
            const TensorMeta& m = jphs[primals.size() + k]->meta[0];
            std::vector<double> v(static_cast<size_t>(m.numel()));
            for (auto& x : v) x = normal(rng);
            tangents.push_back(tensorValue(m, v));
        }
        auto runJoint = [&](const std::vector<Value>& ps) -> std::vector<Value> {
            RunRequest req;
            req.inputs = ps;
            req.inputs.insert(req.inputs.end(), tangents.begin(), tangents.end());
            auto r = runAndCheck(jg, req, nullptr);
            if (!r.ok()) {
                QTest::qFail(r.error().str().c_str(), __FILE__, __LINE__);
                return {};
            }
            return r->outputs;
        };
        // <tangents, forward outputs> at the given primals.
        auto loss = [&](const std::vector<Value>& ps) {
            auto outs = runJoint(ps);
            double l = 0.0;
            for (size_t k = 0; k < tangents.size(); ++k) {
                auto o = valuesOf(outs.at(joint->tangentOutputs[k]));
                auto t = valuesOf(tangents[k]);
                for (size_t i = 0; i < o.size(); ++i) l += o[i] * t[i];
            }
            return l;
        };

        // The joint graph's forward outputs are the source graph's.
        auto outs = runJoint(primals);
        QVERIFY(!outs.empty());
        RunRequest fr;
        fr.inputs = primals;
        auto src = runAndCheck(fwd, fr, nullptr);
        QVERIFY(src.ok());
        for (size_t k = 0; k < joint->numForwardOutputs; ++k)
            FX_COMPARE_VEC(valuesOf(outs[joint->numMutatedInputs + k]), valuesOf(src->outputs[k]), 1e-12);

        const size_t gradBase = joint->numMutatedInputs + joint->numForwardOutputs;
        int checked = 0;
        for (size_t i = 0; i < primals.size(); ++i) {
            const Value& g = outs[gradBase + i];
            if (!joint->requiresGrad[i]) {
                QVERIFY2(g.isNone(), "an input that needs no gradient got one");
                continue;
            }
            QVERIFY2(g.isTensor(), qPrintable(QString("input %1 got no gradient").arg(i)));
            QCOMPARE(g.t.shape(), primals[i].t.shape());
            auto analytic = valuesOf(g);
            auto base = valuesOf(primals[i]);
            const double h = 1e-6;
            for (size_t e = 0; e < base.size(); ++e) {
                auto plus = primals, minus = primals;
                auto vp = base, vm = base;
                vp[e] += h;
                vm[e] -= h;
                plus[i] = tensorValue(primals[i].t.meta, vp);
                minus[i] = tensorValue(primals[i].t.meta, vm);
                const double numeric = (loss(plus) - loss(minus)) / (2 * h);
                const double tol = 1e-5 * std::max(1.0, std::abs(numeric));
                if (std::abs(numeric - analytic[e]) > tol)
                    QFAIL(qPrintable(QString("d/d%1[%2]: joint graph %3, finite differences %4")
                                         .arg(QString::fromStdString(joint->primalSources[i]))
                                         .arg(e)
                                         .arg(analytic[e], 0, 'g', 10)
                                         .arg(numeric, 0, 'g', 10)));
                ++checked;
            }
        }
        QVERIFY(checked > 0);
    }

    /// Every rule family has at least one rule, and the table holds the corpus' forward ops.
    void ruleTable() {
        for (const char* op : {"aten.addmm.default",
                               "aten.mm.default",
                               "aten.bmm.default",
                               "aten.relu.default",
                               "aten.native_layer_norm.default",
                               "aten._softmax.default",
                               "aten.native_dropout.default",
                               "aten.embedding.default",
                               "aten.convolution.default",
                               "aten._native_batch_norm_legit_functional.default",
                               "aten.max_pool2d_with_indices.default",
                               "aten.mean.dim",
                               "aten.cat.default",
                               "aten.split.Tensor",
                               "aten.index_add.default",
                               "aten.tanh.default",
                               "aten.sigmoid.default",
                               "aten.gelu.default",
                               "aten.silu.default",
                               "aten.pow.Tensor_Scalar"})
            QVERIFY2(findVjp(op), op);
        QVERIFY(findVjp("aten.relu.default")->savesResult);
        QVERIFY(!findVjp("aten.gelu.default")->savesResult);
    }
};

QTEST_GUILESS_MAIN(TestVjpGradcheck)
#include "tst_vjp_gradcheck.moc"
