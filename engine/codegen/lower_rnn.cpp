// Lowerings of the fused LSTM / GRU cells (exec/ops/rnn_cells.cpp has the semantics): pointwise
// nodes over the gate columns, the gate of a column chosen by column / H, and sum reductions over
// the batch for the bias gradients. Without these the compiled backends ran every cell step of an
// nn.LSTMCell / nn.GRUCell through the reference kernel on the host.
#include "codegen/lower_util.h"
#include "codegen/lowering.h"

namespace fxray::cg {

namespace {

/// Loads of [B, k*H] gate tensors and [k*H] biases at a gate and a column within it.
struct Gates {
    int64_t H = 0;
    DType ct = DType::Float32;
    ExprP at(Loader& L, int id, const Index& b, const Index& j, int64_t gate) const {
        return eto(L.load(id, {b, iadd(j, iconst(gate * H))}), ct);
    }
    ExprP bias(Loader& L, int id, const Index& j, int64_t gate) const {
        return eto(L.load(id, {iadd(j, iconst(gate * H))}), ct);
    }
    ExprP state(Loader& L, int id, const Index& b, const Index& j) const { return eto(L.load(id, {b, j}), ct); }
    ExprP k(double v) const { return econst(v, ct); }
};

ExprP add(ExprP a, ExprP b) { return ebinary(Op::Add, std::move(a), std::move(b)); }
ExprP sub(ExprP a, ExprP b) { return ebinary(Op::Sub, std::move(a), std::move(b)); }
ExprP mul(ExprP a, ExprP b) { return ebinary(Op::Mul, std::move(a), std::move(b)); }
/// x * (1 - x): the sigmoid's derivative from its output.
ExprP dsig(const Gates& g, const ExprP& x) { return mul(x, sub(g.k(1), x)); }

/// values[gate of the column] for an output of several H-wide gate blocks.
ExprP byGate(const Index& col, int64_t H, const std::vector<ExprP>& values) {
    ExprP gate = eindex(idiv(col, H)), v = values.back();
    for (size_t k = values.size() - 1; k-- > 0;)
        v = ewhere(ebinary(Op::Eq, gate, econst(static_cast<double>(k), DType::Int64)), values[k], v);
    return v;
}

LValue tuple(std::vector<LValue> items) {
    LValue r;
    r.kind = LValue::Kind::List;
    r.isTuple = true;
    r.items = std::move(items);
    return r;
}

/// Biases are both given or both None; a given one must have been lowered.
bool biasesOk(LowerCtx& c, int bi, int bh) {
    return c.args().isNone(3) == c.args().isNone(4) && (c.args().isNone(3) || (bi >= 0 && bh >= 0));
}

/// The sum over the batch of a [B, n] gradient, into a [n] output.
int batchSum(LowerCtx& c, size_t outIndex, int grad, DType ct, const char* suffix) {
    const TensorMeta gm = c.meta(grad);
    return reduceTo(
        c, c.outMeta(outIndex), gm.shape, {true, false}, false, ReduceOp::Sum,
        [grad, ct](Loader& L, const std::vector<Index>& co) { return eto(L.load(grad, co), ct); }, {grad}, suffix);
}

/// _thnn_fused_lstm_cell(input_gates, hidden_gates, cx, input_bias?, hidden_bias?) -> (hy, cy, ws)
std::optional<LValue> lstmCell(LowerCtx& c) {
    const int ig = c.in(0), hg = c.in(1), cx = c.in(2), bi = c.in(3), bh = c.in(4);
    if (ig < 0 || hg < 0 || cx < 0 || !biasesOk(c, bi, bh) || !c.out().isList() || c.out().list.size() != 3)
        return std::nullopt;
    const TensorMeta xm = c.meta(cx);
    if (!isFloating(xm.dtype) || xm.shape.size() != 2) return std::nullopt;
    const Gates g{xm.shape[1], computeType(xm.dtype)};
    std::vector<int> deps{ig, hg};
    if (bi >= 0) deps.push_back(bi), deps.push_back(bh);
    const int ws = c.pointwise(
        c.outMeta(2), deps,
        [=](Loader& L, const std::vector<Index>& co) {
            ExprP v = add(eto(L.load(ig, co), g.ct), eto(L.load(hg, co), g.ct));
            if (bi >= 0) v = add(v, add(eto(L.load(bi, {co[1]}), g.ct), eto(L.load(bh, {co[1]}), g.ct)));
            ExprP s = eunary(Op::Sigmoid, v);
            return byGate(co[1], g.H, {s, s, eunary(Op::Tanh, v), s});
        },
        ".workspace");
    const int cy = c.pointwise(c.outMeta(1), {ws, cx}, [=](Loader& L, const std::vector<Index>& co) {
        return add(mul(g.at(L, ws, co[0], co[1], 1), g.state(L, cx, co[0], co[1])),
                   mul(g.at(L, ws, co[0], co[1], 0), g.at(L, ws, co[0], co[1], 2)));
    });
    const int hy = c.pointwise(c.outMeta(0), {ws, cy}, [=](Loader& L, const std::vector<Index>& co) {
        return mul(g.at(L, ws, co[0], co[1], 3), eunary(Op::Tanh, g.state(L, cy, co[0], co[1])));
    });
    return tuple({tensorValue(hy), tensorValue(cy), tensorValue(ws)});
}

/// _thnn_fused_lstm_cell_backward_impl(grad_hy?, grad_cy?, cx, cy, ws, has_bias)
///   -> (grad_gates, grad_cx, grad_bias?)
std::optional<LValue> lstmCellBackward(LowerCtx& c) {
    const int ghy = c.in(0), gcy = c.in(1), cx = c.in(2), cy = c.in(3), ws = c.in(4);
    if (cx < 0 || cy < 0 || ws < 0 || (!c.args().isNone(0) && ghy < 0) || (!c.args().isNone(1) && gcy < 0) ||
        !c.out().isList() || c.out().list.size() != 3)
        return std::nullopt;
    const TensorMeta xm = c.meta(cx);
    if (!isFloating(xm.dtype) || xm.shape.size() != 2) return std::nullopt;
    const Gates g{xm.shape[1], computeType(xm.dtype)};
    std::vector<int> deps{cy, ws};
    if (ghy >= 0) deps.push_back(ghy);
    if (gcy >= 0) deps.push_back(gcy);
    // The cell-state gradient: grad_hy * o * (1 - tanh(cy)^2) + grad_cy.
    const int gc = c.pointwise(
        TensorMeta::contiguous(xm.shape, g.ct, xm.device), deps,
        [=](Loader& L, const std::vector<Index>& co) {
            ExprP t = eunary(Op::Tanh, g.state(L, cy, co[0], co[1]));
            ExprP v =
                ghy >= 0 ? mul(mul(g.state(L, ghy, co[0], co[1]), g.at(L, ws, co[0], co[1], 3)), sub(g.k(1), mul(t, t)))
                         : g.k(0);
            return gcy >= 0 ? add(v, g.state(L, gcy, co[0], co[1])) : v;
        },
        ".grad_c");
    std::vector<int> gdeps{gc, ws, cx, cy};
    if (ghy >= 0) gdeps.push_back(ghy);
    const int gg = c.pointwise(c.outMeta(0), gdeps, [=](Loader& L, const std::vector<Index>& co) {
        const Index b = co[0], j = imod(co[1], g.H);
        ExprP d = g.state(L, gc, b, j), i = g.at(L, ws, b, j, 0), f = g.at(L, ws, b, j, 1), cg = g.at(L, ws, b, j, 2),
              o = g.at(L, ws, b, j, 3);
        ExprP go = ghy >= 0 ? mul(g.state(L, ghy, b, j), eunary(Op::Tanh, g.state(L, cy, b, j))) : g.k(0);
        return byGate(co[1], g.H,
                      {mul(mul(d, cg), dsig(g, i)), mul(mul(d, g.state(L, cx, b, j)), dsig(g, f)),
                       mul(mul(d, i), sub(g.k(1), mul(cg, cg))), mul(go, dsig(g, o))});
    });
    const int gcx = c.pointwise(c.outMeta(1), {gc, ws}, [=](Loader& L, const std::vector<Index>& co) {
        return mul(g.state(L, gc, co[0], co[1]), g.at(L, ws, co[0], co[1], 1));
    });
    LValue none;
    LValue gb = c.out().list[2].isTensor() ? tensorValue(batchSum(c, 2, gg, g.ct, ".grad_bias")) : none;
    return tuple({tensorValue(gg), tensorValue(gcx), gb});
}

/// _thnn_fused_gru_cell(input_gates, hidden_gates, hx, input_bias?, hidden_bias?) -> (hy, ws):
/// ws = [r, z, n, hx, h_n] with h_n the hidden n-gate plus its bias.
std::optional<LValue> gruCell(LowerCtx& c) {
    const int ig = c.in(0), hg = c.in(1), hx = c.in(2), bi = c.in(3), bh = c.in(4);
    if (ig < 0 || hg < 0 || hx < 0 || !biasesOk(c, bi, bh) || !c.out().isList() || c.out().list.size() != 2)
        return std::nullopt;
    const TensorMeta xm = c.meta(hx);
    if (!isFloating(xm.dtype) || xm.shape.size() != 2) return std::nullopt;
    const Gates g{xm.shape[1], computeType(xm.dtype)};
    std::vector<int> deps{ig, hg, hx};
    if (bi >= 0) deps.push_back(bi), deps.push_back(bh);
    const int ws = c.pointwise(
        c.outMeta(1), deps,
        [=](Loader& L, const std::vector<Index>& co) {
            const Index b = co[0], j = imod(co[1], g.H);
            auto in = [&](int id, int bias, int64_t gate) {
                ExprP v = g.at(L, id, b, j, gate);
                return bias >= 0 ? add(v, g.bias(L, bias, j, gate)) : v;
            };
            ExprP r = eunary(Op::Sigmoid, add(in(ig, bi, 0), in(hg, bh, 0)));
            ExprP z = eunary(Op::Sigmoid, add(in(ig, bi, 1), in(hg, bh, 1)));
            ExprP hn = in(hg, bh, 2);
            ExprP n = eunary(Op::Tanh, add(in(ig, bi, 2), mul(r, hn)));
            return byGate(co[1], g.H, {r, z, n, g.state(L, hx, b, j), hn});
        },
        ".workspace");
    const int hy = c.pointwise(c.outMeta(0), {ws}, [=](Loader& L, const std::vector<Index>& co) {
        ExprP n = g.at(L, ws, co[0], co[1], 2);
        return add(n, mul(g.at(L, ws, co[0], co[1], 1), sub(g.at(L, ws, co[0], co[1], 3), n)));
    });
    return tuple({tensorValue(hy), tensorValue(ws)});
}

/// _thnn_fused_gru_cell_backward(grad_hy, ws, has_bias)
///   -> (grad_input_gates, grad_hidden_gates, grad_hx, grad_input_bias?, grad_hidden_bias?)
std::optional<LValue> gruCellBackward(LowerCtx& c) {
    const int go = c.in(0), ws = c.in(1);
    if (go < 0 || ws < 0 || !c.out().isList() || c.out().list.size() != 5) return std::nullopt;
    const TensorMeta gm = c.meta(go);
    if (!isFloating(gm.dtype) || gm.shape.size() != 2) return std::nullopt;
    const Gates g{gm.shape[1], computeType(gm.dtype)};
    // Gradients of the r, z and n pre-activations; the hidden side's n gate is scaled by r.
    auto gates = [g, go, ws](bool hidden) {
        return [g, go, ws, hidden](Loader& L, const std::vector<Index>& co) {
            const Index b = co[0], j = imod(co[1], g.H);
            ExprP d = g.state(L, go, b, j), r = g.at(L, ws, b, j, 0), z = g.at(L, ws, b, j, 1),
                  n = g.at(L, ws, b, j, 2), h = g.at(L, ws, b, j, 3), hn = g.at(L, ws, b, j, 4);
            ExprP gz = mul(mul(d, sub(h, n)), dsig(g, z));
            ExprP gn = mul(mul(d, sub(g.k(1), z)), sub(g.k(1), mul(n, n)));
            ExprP gr = mul(mul(gn, hn), dsig(g, r));
            return byGate(co[1], g.H, {gr, gz, hidden ? mul(gn, r) : gn});
        };
    };
    const int gi = c.pointwise(c.outMeta(0), {go, ws}, gates(false), ".grad_input_gates");
    const int gh = c.pointwise(c.outMeta(1), {go, ws}, gates(true), ".grad_hidden_gates");
    const int ghx = c.pointwise(c.outMeta(2), {go, ws}, [=](Loader& L, const std::vector<Index>& co) {
        return mul(g.state(L, go, co[0], co[1]), g.at(L, ws, co[0], co[1], 1));
    });
    LValue none;
    LValue gbi = c.out().list[3].isTensor() ? tensorValue(batchSum(c, 3, gi, g.ct, ".grad_input_bias")) : none;
    LValue gbh = c.out().list[4].isTensor() ? tensorValue(batchSum(c, 4, gh, g.ct, ".grad_hidden_bias")) : none;
    return tuple({tensorValue(gi), tensorValue(gh), tensorValue(ghx), gbi, gbh});
}

}  // namespace

void addRnnLowerings(std::map<std::string, LowerFn>& t) {
    t["aten._thnn_fused_lstm_cell.default"] = lstmCell;
    t["aten._thnn_fused_lstm_cell_backward_impl.default"] = lstmCellBackward;
    t["aten._thnn_fused_gru_cell.default"] = gruCell;
    t["aten._thnn_fused_gru_cell_backward.default"] = gruCellBackward;
}

}  // namespace fxray::cg
