// The fused LSTM and GRU cells that nn.LSTMCell / nn.GRUCell (and unrolled RNNs) run on CUDA,
// as AOT graphs of those modules hold them: the gate pre-activations come in from two matmuls,
// the cell applies the nonlinearities and keeps a workspace for its backward.
//
//   _thnn_fused_lstm_cell(input_gates, hidden_gates, cx, input_bias?, hidden_bias?)
//       -> (hy, cy, workspace [B, 4H] = sigmoid(i), sigmoid(f), tanh(g), sigmoid(o))
//   _thnn_fused_lstm_cell_backward_impl(grad_hy?, grad_cy?, cx, cy, workspace, has_bias)
//       -> (grad_gates [B, 4H], grad_cx, grad_bias [4H] or None)
//   _thnn_fused_gru_cell(input_gates, hidden_gates, hx, input_bias?, hidden_bias?)
//       -> (hy, workspace [B, 5H] = r, z, n, hx, h_n (the hidden n-gate with its bias))
//   _thnn_fused_gru_cell_backward(grad_hy, workspace, has_bias)
//       -> (grad_input_gates, grad_hidden_gates, grad_hx, grad_input_bias?, grad_hidden_bias?)
//
// The formulas are PyTorch's CUDA kernels (aten/src/ATen/native/cuda/RNN.cu); outputs are
// empty_like of the operand PyTorch takes them from.
#include "exec/ops/kernel_util.h"
#include "exec/ops/nn_util.h"
#include "exec/ops/register.h"

#include <cmath>
#include <string>

namespace fxray {
using namespace kern;
using namespace nn;

namespace {

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

TensorMeta likeMeta(const TensorMeta& like, std::vector<int64_t> shape) {
    TensorMeta m = like;
    m.offset = 0;
    m.strides = shape == like.shape ? emptyLikeStrides(like) : rowMajorStrides(shape);
    m.shape = std::move(shape);
    return m;
}

/// Checks the cell's operands: gates [B, k*H] twice, the state [B, H], biases [k*H] or both None.
Expected<bool> checkCell(const OpArgs& a, int64_t k) {
    std::vector<const Tensor*> t(5);
    for (size_t i = 0; i < 5; ++i) {
        auto x = i < 3 ? reqTensor(a, i) : optTensor(a, i);
        if (!x.ok()) return x.error();
        t[i] = *x;
    }
    const auto& s = t[2]->shape();
    if (s.size() != 2 || t[0]->shape() != std::vector<int64_t>{s[0], k * s[1]} || t[1]->shape() != t[0]->shape())
        return opError(a, "expected gates of shape [B, " + std::to_string(k) +
                              " * H] for a state of shape [B, H], got " + shapeStr(t[0]->shape()) + ", " +
                              shapeStr(t[1]->shape()) + " and " + shapeStr(s));
    if ((t[3] == nullptr) != (t[4] == nullptr)) return opError(a, "expected both biases or neither");
    for (size_t i = 3; i < 5; ++i)
        if (t[i] && t[i]->shape() != std::vector<int64_t>{k * s[1]})
            return opError(a, "expected a bias of shape [" + std::to_string(k * s[1]) + "], got " +
                                  shapeStr(t[i]->shape()));
    for (const Tensor* x : t)
        if (x && (!isFloating(x->dtype()) || x->dtype() != t[0]->dtype()))
            return opError(a, "expected floating tensors of one dtype");
    return true;
}

/// Gate pre-activations: input_gates + hidden_gates (+ both biases), row-major [B, k*H]; the
/// hidden part alone (with its bias) in `hidden` when asked (the GRU's n gate needs it).
std::vector<double> gateSums(const OpArgs& a, std::vector<double>* hidden = nullptr) {
    std::vector<double> ig = toDoubles(a.tensor(0)), hg = toDoubles(a.tensor(1));
    if (!a.isNone(3)) {
        const std::vector<double> bi = toDoubles(a.tensor(3)), bh = toDoubles(a.tensor(4));
        for (size_t i = 0; i < ig.size(); ++i) ig[i] += bi[i % bi.size()], hg[i] += bh[i % bh.size()];
    }
    if (hidden) *hidden = hg;
    for (size_t i = 0; i < ig.size(); ++i) ig[i] += hg[i];
    return ig;
}

Expected<Value> metaLstmCell(const OpArgs& a) {
    if (auto ok = checkCell(a, 4); !ok.ok()) return ok.error();
    const TensorMeta& cx = a.tensor(2).meta;
    return metaTuple({likeMeta(cx, cx.shape), likeMeta(cx, cx.shape), likeMeta(a.tensor(0).meta, a.tensor(0).shape())});
}

Expected<Value> lstmCellKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const int64_t B = a.tensor(2).shape()[0], H = a.tensor(2).shape()[1];
    const std::vector<double> g = gateSums(a), cx = toDoubles(a.tensor(2));
    std::vector<double> hy(cx.size()), cy(cx.size()), ws(g.size());
    for (int64_t b = 0; b < B; ++b)
        for (int64_t j = 0; j < H; ++j) {
            const int64_t r = b * 4 * H + j;
            const double i = sigmoid(g[r]), f = sigmoid(g[r + H]), c = std::tanh(g[r + 2 * H]),
                         o = sigmoid(g[r + 3 * H]);
            ws[r] = i, ws[r + H] = f, ws[r + 2 * H] = c, ws[r + 3 * H] = o;
            const double c1 = f * cx[b * H + j] + i * c;
            cy[b * H + j] = c1;
            hy[b * H + j] = o * std::tanh(c1);
        }
    return fillTuple(out, {hy, cy, ws});
}

Expected<Value> metaLstmCellBackward(const OpArgs& a) {
    std::vector<const Tensor*> t(5);
    for (size_t i = 0; i < 5; ++i) {
        auto x = i < 2 ? optTensor(a, i) : reqTensor(a, i);
        if (!x.ok()) return x.error();
        t[i] = *x;
    }
    const auto& s = t[2]->shape();
    if (s.size() != 2 || t[3]->shape() != s || t[4]->shape() != std::vector<int64_t>{s[0], 4 * s[1]} ||
        (t[0] && t[0]->shape() != s) || (t[1] && t[1]->shape() != s))
        return opError(a, "expected cx, cy and the gradients of shape [B, H] and a workspace of shape [B, 4H], got " +
                              shapeStr(s) + " and " + shapeStr(t[4]->shape()));
    const TensorMeta& ws = t[4]->meta;
    std::optional<TensorMeta> gb;
    if (a.toBool(5)) gb = TensorMeta::contiguous({4 * s[1]}, ws.dtype, ws.device);
    return metaTuple({likeMeta(ws, ws.shape), likeMeta(t[2]->meta, s), gb});
}

Expected<Value> lstmCellBackwardKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const int64_t B = a.tensor(2).shape()[0], H = a.tensor(2).shape()[1];
    const std::vector<double> cx = toDoubles(a.tensor(2)), cy = toDoubles(a.tensor(3)), ws = toDoubles(a.tensor(4));
    const std::vector<double> zeros(cx.size(), 0.0);
    const std::vector<double> ghy = a.isNone(0) ? zeros : toDoubles(a.tensor(0));
    const std::vector<double> gcy = a.isNone(1) ? zeros : toDoubles(a.tensor(1));
    std::vector<double> gg(ws.size()), gcx(cx.size()), gb(a.toBool(5) ? static_cast<size_t>(4 * H) : 0, 0.0);
    for (int64_t b = 0; b < B; ++b)
        for (int64_t j = 0; j < H; ++j) {
            const int64_t r = b * 4 * H + j, s = b * H + j;
            const double i = ws[r], f = ws[r + H], c = ws[r + 2 * H], o = ws[r + 3 * H];
            const double tcy = std::tanh(cy[s]);
            const double gc = ghy[s] * o * (1.0 - tcy * tcy) + gcy[s];
            gg[r] = gc * c * (1.0 - i) * i;
            gg[r + H] = gc * cx[s] * (1.0 - f) * f;
            gg[r + 2 * H] = gc * i * (1.0 - c * c);
            gg[r + 3 * H] = ghy[s] * tcy * (1.0 - o) * o;
            gcx[s] = gc * f;
        }
    if (!gb.empty())
        for (size_t k = 0; k < gg.size(); ++k) gb[k % gb.size()] += gg[k];
    return fillTuple(out, {gg, gcx, gb});
}

Expected<Value> metaGruCell(const OpArgs& a) {
    if (auto ok = checkCell(a, 3); !ok.ok()) return ok.error();
    const TensorMeta& hx = a.tensor(2).meta;
    return metaTuple(
        {likeMeta(hx, hx.shape), TensorMeta::contiguous({hx.shape[0], 5 * hx.shape[1]}, hx.dtype, hx.device)});
}

Expected<Value> gruCellKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const int64_t B = a.tensor(2).shape()[0], H = a.tensor(2).shape()[1];
    std::vector<double> hg;
    const std::vector<double> g = gateSums(a, &hg), ig = toDoubles(a.tensor(0)), hx = toDoubles(a.tensor(2));
    const std::vector<double> bi = a.isNone(3) ? std::vector<double>{} : toDoubles(a.tensor(3));
    std::vector<double> hy(hx.size()), ws(static_cast<size_t>(B * 5 * H));
    for (int64_t b = 0; b < B; ++b)
        for (int64_t j = 0; j < H; ++j) {
            const int64_t r = b * 3 * H + j, w = b * 5 * H + j, s = b * H + j;
            const double rg = sigmoid(g[r]), zg = sigmoid(g[r + H]), hn = hg[r + 2 * H];
            const double in = ig[r + 2 * H] + (bi.empty() ? 0.0 : bi[2 * H + j]);
            const double ng = std::tanh(in + rg * hn);
            hy[s] = ng + zg * (hx[s] - ng);
            ws[w] = rg, ws[w + H] = zg, ws[w + 2 * H] = ng, ws[w + 3 * H] = hx[s], ws[w + 4 * H] = hn;
        }
    return fillTuple(out, {hy, ws});
}

Expected<Value> metaGruCellBackward(const OpArgs& a) {
    auto g = reqTensor(a, 0);
    if (!g.ok()) return g.error();
    auto w = reqTensor(a, 1);
    if (!w.ok()) return w.error();
    const auto& s = (*g)->shape();
    if (s.size() != 2 || (*w)->shape() != std::vector<int64_t>{s[0], 5 * s[1]})
        return opError(a, "expected grad_hy of shape [B, H] and a workspace of shape [B, 5H], got " + shapeStr(s) +
                              " and " + shapeStr((*w)->shape()));
    const TensorMeta& gm = (*g)->meta;
    const TensorMeta gates = TensorMeta::contiguous({s[0], 3 * s[1]}, gm.dtype, gm.device);
    std::optional<TensorMeta> gb;
    if (a.toBool(2)) gb = TensorMeta::contiguous({3 * s[1]}, gm.dtype, gm.device);
    return metaTuple({gates, gates, likeMeta(gm, s), gb, gb});
}

Expected<Value> gruCellBackwardKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const int64_t B = a.tensor(0).shape()[0], H = a.tensor(0).shape()[1];
    const std::vector<double> go = toDoubles(a.tensor(0)), ws = toDoubles(a.tensor(1));
    std::vector<double> gi(static_cast<size_t>(B * 3 * H)), gh(gi.size()), ghx(go.size());
    for (int64_t b = 0; b < B; ++b)
        for (int64_t j = 0; j < H; ++j) {
            const int64_t w = b * 5 * H + j, r = b * 3 * H + j, s = b * H + j;
            const double rg = ws[w], zg = ws[w + H], ng = ws[w + 2 * H], hx = ws[w + 3 * H], hn = ws[w + 4 * H];
            const double gz = go[s] * (hx - ng) * (1.0 - zg) * zg;
            const double gin = go[s] * (1.0 - zg) * (1.0 - ng * ng);
            const double grg = gin * hn * (1.0 - rg) * rg;
            gi[r] = gh[r] = grg;
            gi[r + H] = gh[r + H] = gz;
            gi[r + 2 * H] = gin;
            gh[r + 2 * H] = gin * rg;
            ghx[s] = go[s] * zg;
        }
    std::vector<double> gbi, gbh;
    if (a.toBool(2)) {
        gbi.assign(static_cast<size_t>(3 * H), 0.0), gbh.assign(gbi.size(), 0.0);
        for (size_t k = 0; k < gi.size(); ++k) gbi[k % gbi.size()] += gi[k], gbh[k % gbh.size()] += gh[k];
    }
    return fillTuple(out, {gi, gh, ghx, gbi, gbh});
}

}  // namespace

void registerRnnCellOps(OpRegistry& r) {
    constexpr auto C = OpCategory::Other;
    r.add("aten._thnn_fused_lstm_cell.default",
          "_thnn_fused_lstm_cell(Tensor input_gates, Tensor hidden_gates, Tensor cx, Tensor? input_bias=None, "
          "Tensor? hidden_bias=None) -> (Tensor, Tensor, Tensor)",
          C, metaLstmCell, lstmCellKernel);
    r.add(
        "aten._thnn_fused_lstm_cell_backward_impl.default",
        "_thnn_fused_lstm_cell_backward_impl(Tensor? grad_hy, Tensor? grad_cy, Tensor cx, Tensor cy, Tensor workspace, "
        "bool has_bias) -> (Tensor, Tensor, Tensor)",
        C, metaLstmCellBackward, lstmCellBackwardKernel);
    r.add("aten._thnn_fused_gru_cell.default",
          "_thnn_fused_gru_cell(Tensor input_gates, Tensor hidden_gates, Tensor hx, Tensor? input_bias=None, "
          "Tensor? hidden_bias=None) -> (Tensor, Tensor)",
          C, metaGruCell, gruCellKernel);
    r.add("aten._thnn_fused_gru_cell_backward.default",
          "_thnn_fused_gru_cell_backward(Tensor grad_hy, Tensor workspace, bool has_bias) -> (Tensor, Tensor, Tensor, "
          "Tensor, Tensor)",
          C, metaGruCellBackward, gruCellBackwardKernel);
}

}  // namespace fxray
