// VJP rules of the fused ops popular models' forward graphs hold: the LSTM / GRU cells
// (nn.LSTMCell, nn.GRUCell on CUDA), memory-efficient attention (what scaled_dot_product_attention
// decomposes to, decompose_nn.cpp, and _efficient_attention_forward) and cuDNN's attention (what
// PyTorch 2.11 traces for fp16/bf16 SDPA on sm_90). Each backward is the op PyTorch's own derivative formula calls
// (tools/autograd/derivatives.yaml), fed the forward's saved outputs.
#include "autodiff/vjp.h"

namespace fxray {

namespace {

Argument gradOrNone(Node* g) { return g ? nodeArg(g) : Argument::none(); }

// _thnn_fused_lstm_cell(input_gates, hidden_gates, cx, input_bias, hidden_bias) -> (hy, cy, ws):
// _thnn_fused_lstm_cell_backward_impl(grad_hy, grad_cy, cx, cy, ws, has_bias) -> (grad_gates,
// grad_cx, grad_bias); both gate inputs and both biases take the same gradient.
void lstmCell(VjpCall& c) {
    if (!c.grad(0) && !c.grad(1)) return;
    const bool bias = c.input(3) != nullptr;
    Node* bw = c.e.op("aten._thnn_fused_lstm_cell_backward_impl.default",
                      {gradOrNone(c.grad(0)), gradOrNone(c.grad(1)), c.arg(2), nodeArg(c.result(1)),
                       nodeArg(c.result(2)), Argument::ofBool(bias)});
    if (!bw) return;
    Node* gates = c.e.getitem(bw, 0);
    c.give(0, gates);
    c.give(1, gates);
    c.give(2, c.e.getitem(bw, 1));
    if (bias) {
        Node* gb = c.e.getitem(bw, 2);
        c.give(3, gb);
        c.give(4, gb);
    }
}

// _thnn_fused_gru_cell(input_gates, hidden_gates, hx, input_bias, hidden_bias) -> (hy, ws):
// _thnn_fused_gru_cell_backward(grad_hy, ws, has_bias) -> (grad_input_gates,
// grad_hidden_gates, grad_hx, grad_input_bias, grad_hidden_bias).
void gruCell(VjpCall& c) {
    if (!c.grad(0)) return;
    const bool bias = c.input(3) != nullptr;
    Node* bw = c.e.op("aten._thnn_fused_gru_cell_backward.default",
                      {nodeArg(c.grad(0)), nodeArg(c.result(1)), Argument::ofBool(bias)});
    if (!bw) return;
    for (int64_t k = 0; k < (bias ? 5 : 3); ++k) c.give(static_cast<size_t>(k), c.e.getitem(bw, k));
}

// _scaled_dot_product_efficient_attention(q, k, v, attn_bias, compute_log_sumexp, dropout_p,
// is_causal, *, scale) -> (out, lse, seed, offset): the _backward op with the saved output
// (detached, as autograd saves an output), log-sum-exp and RNG state, and grad_input_mask [q, k,
// v, attn_bias].
void efficientAttention(VjpCall& c) {
    if (!c.grad(0)) return;
    Node* bw = c.e.op("aten._scaled_dot_product_efficient_attention_backward.default",
                      {nodeArg(c.grad(0)), c.arg(0), c.arg(1), c.arg(2), c.arg(3), nodeArg(c.savedResult()),
                       nodeArg(c.result(1)), nodeArg(c.result(2)), nodeArg(c.result(3)), c.arg(5),
                       boolList({c.needs(0), c.needs(1), c.needs(2), c.needs(3)}), c.arg(6)},
                      {{"scale", c.arg(7)}});
    if (!bw) return;
    for (size_t k = 0; k < 4; ++k) c.give(k, c.e.getitem(bw, static_cast<int64_t>(k)));
}

// _efficient_attention_forward(q, k, v, bias, cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
// max_seqlen_k, dropout_p, custom_mask_type, compute_log_sumexp, *, scale, ...) -> (out, lse, seed,
// offset, max_seqlen_batch_q, max_seqlen_batch_k): _efficient_attention_backward with the saved
// output, log-sum-exp and RNG state, the sequence lengths as ints and bias.requires_grad().
void efficientAttentionForward(VjpCall& c) {
    if (!c.grad(0)) return;
    const auto& q = c.meta(c.input(0)).shape;
    const auto& k = c.meta(c.input(1)).shape;
    if (q.size() != 4 || k.size() != 4) return;
    Node* bw = c.e.op("aten._efficient_attention_backward.default",
                      {nodeArg(c.grad(0)), c.arg(0), c.arg(1), c.arg(2), c.arg(3), nodeArg(c.savedResult()), c.arg(4),
                       c.arg(5), Argument::ofInt(q[1]), Argument::ofInt(k[1]), nodeArg(c.result(1)), c.arg(8),
                       nodeArg(c.result(2)), nodeArg(c.result(3)), c.arg(9), Argument::ofBool(c.needs(3))},
                      {{"scale", c.arg(11)}});
    if (!bw) return;
    for (size_t i = 0; i < 4; ++i) c.give(i, c.e.getitem(bw, static_cast<int64_t>(i)));
}

// _scaled_dot_product_cudnn_attention(q, k, v, attn_bias, compute_log_sumexp, dropout_p,
// is_causal, return_debug_mask, *, scale) -> (out, lse, cum_seq_q, cum_seq_k, max_q, max_k, seed,
// offset, debug_attn_mask): the _backward op for q, k and v (no bias gradient in PyTorch's
// formula), cum_seq_q/k None, max_q/max_k the sequence lengths.
void cudnnAttention(VjpCall& c) {
    if (!c.grad(0)) return;
    const auto& q = c.meta(c.input(0)).shape;
    const auto& k = c.meta(c.input(1)).shape;
    if (q.size() != 4 || k.size() != 4) return;
    Node* bw = c.e.op("aten._scaled_dot_product_cudnn_attention_backward.default",
                      {nodeArg(c.grad(0)), c.arg(0), c.arg(1), c.arg(2), nodeArg(c.savedResult()), nodeArg(c.result(1)),
                       nodeArg(c.result(6)), nodeArg(c.result(7)), c.arg(3), Argument::none(), Argument::none(),
                       Argument::ofInt(q[2]), Argument::ofInt(k[2]), c.arg(5), c.arg(6)},
                      {{"scale", c.arg(8)}});
    if (!bw) return;
    for (size_t i = 0; i < 3; ++i) c.give(i, c.e.getitem(bw, static_cast<int64_t>(i)));
}

}  // namespace

void addFusedCellVjps(std::vector<VjpRule>& out) {
    out.push_back({"aten._thnn_fused_lstm_cell.default", lstmCell, false, 0b100});
    out.push_back({"aten._thnn_fused_gru_cell.default", gruCell, false, 0b10});
    out.push_back({"aten._scaled_dot_product_efficient_attention.default", efficientAttention, true, 0b1110});
    out.push_back({"aten._efficient_attention_forward.default", efficientAttentionForward, true, 0b111110});
    out.push_back({"aten._scaled_dot_product_cudnn_attention.default", cudnnAttention, true, 0b111111110});
}

}  // namespace fxray
