// Extern kernels of the CPU backend for fused attention: the ops that fuse_attention (sfdp)
// puts into joint graphs — `_scaled_dot_product_efficient_attention` and its backward — the
// composite `scaled_dot_product_attention`, `_efficient_attention_forward`, and cuDNN's
// `_scaled_dot_product_cudnn_attention` with its backward (fp16/bf16 graphs traced on sm_90). Inductor's CPU path runs such ops as a math
// decomposition (two GEMMs around a softmax); here each (batch, head) runs as fp32 GEMMs
// (extern_kernels.h's sgemm: OpenBLAS) around a row softmax, with the reference executor's
// dropout mask (exec/ops/attention.h) so forward and backward agree with each other and with
// the reference backend.
// Their table: extern_table.h attentionExterns().
//
// Layout conventions are PyTorch's meta
// functions' (as the reference kernels in exec/ops/attention.cpp): outputs and gradients are
// written through the preallocated tensors' strides (BMHK storage viewed as BHMK), logsumexp is
// [B, H, ceil(M/32)*32] fp32 with +inf padding.
//
// Per (batch, head), with S = scale * Q Kᵀ + bias (causal: -inf where key n > row m + shift; shift
// 0 top-left, N - M bottom-right; a row that sees no key gets output 0 and logsumexp 0, as PyTorch's
// memory-efficient kernel):
//   forward   P = softmax(S), lse = log Σ exp(S), O = dropout(P) V
//   backward  dV = dropout(P)ᵀ dO, dP = dropout'(dO Vᵀ), dS = P ∘ (dP − rowsum(P ∘ dP)),
//             dQ = scale dS K, dK = scale dSᵀ Q, dBias = dS summed over broadcast dims.
// P is recomputed in the backward (as the reference does) rather than rebuilt from lse, so the
// two sides see the same probabilities. The GEMMs take most of the time; the softmax runs in
// fp32 with a double row sum.
#include "codegen/cpu/extern_table.h"

#include "codegen/cpu/extern_kernels.h"
#include "codegen/cpu/extern_util.h"
#include "exec/ops/attention.h"
#include "exec/ops/kernel_util.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

namespace fxray::cg::cpu {

namespace {

struct Dims {
    int64_t B, H, M, N, K, Kv;
};

/// `gqa`: key and value may have fewer heads, a divisor of the query's (enable_gqa).
std::optional<Dims> dimsOf(const OpArgs& a, size_t q, size_t k, size_t v, bool gqa = false) {
    for (size_t i : {q, k, v})
        if (!a.isTensor(i) || a.tensor(i).dim() != 4 || !floatLike(a.tensor(i).dtype())) return std::nullopt;
    const auto& Q = a.tensor(q).shape();
    const auto& Kt = a.tensor(k).shape();
    const auto& V = a.tensor(v).shape();
    for (const auto* s : {&Q, &Kt, &V})
        for (auto d : *s)
            if (d < 0) return std::nullopt;
    const bool grouped = gqa && Kt[1] > 0 && Kt[1] == V[1] && Q[1] % Kt[1] == 0;
    if (Kt[0] != Q[0] || V[0] != Q[0] || (!grouped && (Kt[1] != Q[1] || V[1] != Q[1])) || Kt[3] != Q[3] ||
        V[2] != Kt[2])
        return std::nullopt;
    return Dims{Q[0], Q[1], Q[2], Kt[2], Q[3], V[3]};
}

/// The additive bias broadcast to [B, H, M, N] (empty: none). A boolean mask (composite sdpa)
/// becomes 0 / -inf. nullopt: a bias that does not broadcast.
std::optional<std::vector<float>> biasOf(const OpArgs& a, size_t i, const Dims& d) {
    if (a.isNone(i)) return std::vector<float>{};
    if (!a.isTensor(i)) return std::nullopt;
    const std::vector<int64_t> full{d.B, d.H, d.M, d.N};
    auto bs = kern::broadcastShapes(a.tensor(i).shape(), full);
    if (!bs || *bs != full) return std::nullopt;
    auto v = kern::toDoublesBroadcast(a.tensor(i), full);
    std::vector<float> r(v.size());
    const bool mask = a.tensor(i).dtype() == DType::Bool;
    for (size_t j = 0; j < v.size(); ++j)
        r[j] = mask ? (v[j] != 0.0 ? 0.0f : -std::numeric_limits<float>::infinity()) : static_cast<float>(v[j]);
    return r;
}

double scaleOf(const OpArgs& a, size_t i, int64_t K) {
    if (i < a.size() && !a.isNone(i)) return a.toDouble(i);
    return 1.0 / std::sqrt(static_cast<double>(K));
}

/// Causal masking (on): row m sees keys n <= m + shift.
struct Causal {
    bool on = false;
    int64_t shift = 0;
};
Causal topLeft(bool causal) { return {causal, 0}; }

/// Softmax probabilities P [M, N] and per-row logsumexp of one (b, h).
void probabilities(const Dims& d, const float* q, const float* k, const float* bias, float scale, Causal causal,
                   std::vector<float>& P, std::vector<double>& lse) {
    P.assign(static_cast<size_t>(d.M * d.N), 0.0f);
    lse.assign(static_cast<size_t>(d.M), 0.0);
    sgemm(d.M, d.N, d.K, scale, q, d.K, 1, k, 1, d.K, 0.0f, P.data(), d.N);
    const float ninf = -std::numeric_limits<float>::infinity();
    for (int64_t m = 0; m < d.M; ++m) {
        float* row = P.data() + m * d.N;
        float mx = ninf;
        for (int64_t n = 0; n < d.N; ++n) {
            if (bias) row[n] += bias[m * d.N + n];
            if (causal.on && n > m + causal.shift) row[n] = ninf;
            mx = std::max(mx, row[n]);
        }
        double sum = 0.0;
        for (int64_t n = 0; n < d.N; ++n) {
            row[n] = mx == ninf ? 0.0f : std::exp(row[n] - mx);
            sum += row[n];
        }
        const float inv = sum > 0 ? static_cast<float>(1.0 / sum) : 0.0f;
        for (int64_t n = 0; n < d.N; ++n) row[n] *= inv;
        lse[static_cast<size_t>(m)] = sum > 0 ? mx + std::log(sum) : 0.0;
    }
}

/// Scales P in place by the dropout factors of (b, h): 1/(1-p) where kept, 0 where dropped.
void applyDropout(std::vector<float>& P, const Dims& d, int64_t bh, uint64_t seed, uint64_t offset, double p) {
    const float f = static_cast<float>(1.0 / (1.0 - p));
    for (int64_t m = 0; m < d.M; ++m)
        for (int64_t n = 0; n < d.N; ++n) {
            uint64_t idx = static_cast<uint64_t>((bh * d.M + m) * d.N + n);
            float& w = P[static_cast<size_t>(m * d.N + n)];
            w = attentionDropoutKeep(seed, offset, idx, p) ? w * f : 0.0f;
        }
}

/// Forward of one call; lseOut may be null (composite sdpa) or shorter than M (no lse asked).
void forward(const Dims& d, const std::vector<float>& Q, const std::vector<float>& Kt, const std::vector<float>& V,
             const std::vector<float>& bias, float scale, Causal causal, double p, uint64_t seed, std::vector<float>& O,
             std::vector<float>* L, int64_t lseLen) {
    O.assign(static_cast<size_t>(d.B * d.H * d.M * d.Kv), 0.0f);
    if (L) L->assign(static_cast<size_t>(d.B * d.H * lseLen), std::numeric_limits<float>::infinity());
    std::vector<float> P;
    std::vector<double> lse;
    for (int64_t bh = 0; bh < d.B * d.H; ++bh) {
        probabilities(d, Q.data() + bh * d.M * d.K, Kt.data() + bh * d.N * d.K,
                      bias.empty() ? nullptr : bias.data() + bh * d.M * d.N, scale, causal, P, lse);
        if (L)
            for (int64_t m = 0; m < d.M && m < lseLen; ++m)
                (*L)[static_cast<size_t>(bh * lseLen + m)] = static_cast<float>(lse[static_cast<size_t>(m)]);
        if (p > 0.0) applyDropout(P, d, bh, seed, 0, p);
        sgemm(d.M, d.Kv, d.N, 1.0f, P.data(), d.N, 1, V.data() + bh * d.N * d.Kv, d.Kv, 1, 0.0f,
              O.data() + bh * d.M * d.Kv, d.Kv);
    }
}

bool efficientForward(const OpArgs& a, const std::vector<Tensor*>& outs, ExecContext& ctx) {
    auto d = dimsOf(a, 0, 1, 2);
    if (!d || outs.size() < 4 || !outs[0] || !outs[1] || !outs[2] || !outs[3]) return false;
    auto bias = biasOf(a, 3, *d);
    if (!bias) return false;
    const double p = a.toDouble(5);
    const bool causal = a.toBool(6);
    const float scale = static_cast<float>(scaleOf(a, 7, d->K));
    const int64_t lseLen = outs[1]->dim() == 3 ? outs[1]->shape()[2] : 0;
    // The seed is drawn like the reference kernel draws it, so a seeded run agrees with it.
    const uint64_t seed = p > 0.0 ? ctx.rng() : 0;
    std::vector<float> O, L;
    forward(*d, f32(a.tensor(0)), f32(a.tensor(1)), f32(a.tensor(2)), *bias, scale, topLeft(causal), p, seed, O, &L,
            lseLen);
    store(*outs[0], O);
    store(*outs[1], L);
    kern::fromDoubles(*outs[2], {static_cast<double>(seed)});
    kern::fromDoubles(*outs[3], {0.0});
    return true;
}

bool compositeSdpa(const OpArgs& a, const std::vector<Tensor*>& outs, ExecContext& ctx) {
    const bool gqa = a.size() > 7 && !a.isNone(7) && a.toBool(7);
    auto d = dimsOf(a, 0, 1, 2, gqa);
    if (!d || outs.empty() || !outs[0]) return false;
    auto bias = biasOf(a, 3, *d);
    if (!bias) return false;
    const double p = a.toDouble(4);
    const uint64_t seed = p > 0.0 ? ctx.rng() : 0;
    std::vector<float> O;
    // Grouped-query heads: key and value repeated head by head (repeatKvHeads).
    const int64_t Hk = a.tensor(1).shape()[1];
    forward(*d, f32(a.tensor(0)), repeatKvHeads(f32(a.tensor(1)), d->B, Hk, d->H, d->N * d->K),
            repeatKvHeads(f32(a.tensor(2)), d->B, Hk, d->H, d->N * d->Kv), *bias,
            static_cast<float>(scaleOf(a, 6, d->K)), topLeft(a.toBool(5)), p, seed, O, nullptr, 0);
    store(*outs[0], O);
    return true;
}

/// Where the backward ops keep their arguments (grad_out, q, k, v are 0-3 in both).
struct BackwardArgs {
    size_t bias, seed, offset, dropout, scale;
};
constexpr BackwardArgs kEfficientBackward{4, 7, 8, 9, 12};
constexpr BackwardArgs kCudnnBackward{8, 6, 7, 13, 15};
constexpr BackwardArgs kEfficientBackwardRaw{4, 12, 13, 11, 16};

/// The backward of `_scaled_dot_product_efficient_attention` (outputs dq, dk, dv, dbias), of
/// cuDNN's attention (dq, dk, dv) or of `_efficient_attention_forward` (on BHMK views).
bool backward(const OpArgs& a, const std::vector<Tensor*>& outs, const BackwardArgs& at, Causal causal) {
    auto d = dimsOf(a, 1, 2, 3);
    if (!d || outs.size() < 3 || !outs[0] || !outs[1] || !outs[2]) return false;
    if (!a.isTensor(0) || a.tensor(0).shape() != std::vector<int64_t>{d->B, d->H, d->M, d->Kv}) return false;
    auto bias = biasOf(a, at.bias, *d);
    if (!bias) return false;
    const uint64_t seed = static_cast<uint64_t>(kern::toDoubles(a.tensor(at.seed))[0]);
    const uint64_t offset = static_cast<uint64_t>(kern::toDoubles(a.tensor(at.offset))[0]);
    const double p = a.toDouble(at.dropout);
    const float scale = static_cast<float>(scaleOf(a, at.scale, d->K));
    const std::vector<float> dO = f32(a.tensor(0)), Q = f32(a.tensor(1)), Kt = f32(a.tensor(2)), V = f32(a.tensor(3));
    std::vector<float> dQ(Q.size(), 0.0f), dK(Kt.size(), 0.0f), dV(V.size(), 0.0f);
    const bool wantBias = outs.size() > 3 && outs[3] && !bias->empty();
    std::vector<float> dBias(wantBias ? static_cast<size_t>(d->B * d->H * d->M * d->N) : 0, 0.0f);
    std::vector<float> P, Pd, dP(static_cast<size_t>(d->M * d->N));
    std::vector<double> lse;
    for (int64_t bh = 0; bh < d->B * d->H; ++bh) {
        const float* q = Q.data() + bh * d->M * d->K;
        const float* k = Kt.data() + bh * d->N * d->K;
        const float* v = V.data() + bh * d->N * d->Kv;
        const float* go = dO.data() + bh * d->M * d->Kv;
        probabilities(*d, q, k, bias->empty() ? nullptr : bias->data() + bh * d->M * d->N, scale, causal, P, lse);
        Pd = P;
        if (p > 0.0) applyDropout(Pd, *d, bh, seed, offset, p);
        // dV = Pdᵀ dO
        sgemm(d->N, d->Kv, d->M, 1.0f, Pd.data(), 1, d->N, go, d->Kv, 1, 0.0f, dV.data() + bh * d->N * d->Kv, d->Kv);
        // dP = (dO Vᵀ) scaled by the dropout factors (Pd / P where P > 0, i.e. the same mask).
        sgemm(d->M, d->N, d->Kv, 1.0f, go, d->Kv, 1, v, 1, d->Kv, 0.0f, dP.data(), d->N);
        for (int64_t m = 0; m < d->M; ++m) {
            float* dp = dP.data() + m * d->N;
            const float* pr = P.data() + m * d->N;
            if (p > 0.0)
                for (int64_t n = 0; n < d->N; ++n) {
                    uint64_t idx = static_cast<uint64_t>((bh * d->M + m) * d->N + n);
                    dp[n] =
                        attentionDropoutKeep(seed, offset, idx, p) ? dp[n] * static_cast<float>(1.0 / (1.0 - p)) : 0.0f;
                }
            double rowDot = 0.0;
            for (int64_t n = 0; n < d->N; ++n) rowDot += static_cast<double>(pr[n]) * dp[n];
            for (int64_t n = 0; n < d->N; ++n) dp[n] = pr[n] * (dp[n] - static_cast<float>(rowDot));  // now dS
            if (wantBias)
                std::memcpy(dBias.data() + (bh * d->M + m) * d->N, dp, static_cast<size_t>(d->N) * sizeof(float));
        }
        sgemm(d->M, d->K, d->N, scale, dP.data(), d->N, 1, k, d->K, 1, 0.0f, dQ.data() + bh * d->M * d->K, d->K);
        sgemm(d->N, d->K, d->M, scale, dP.data(), 1, d->N, q, d->K, 1, 0.0f, dK.data() + bh * d->N * d->K, d->K);
    }
    store(*outs[0], dQ);
    store(*outs[1], dK);
    store(*outs[2], dV);
    if (wantBias) {
        // Sum [B, H, M, N] over the dimensions the bias was broadcast along.
        Tensor& ob = *outs[3];
        const auto& bs = ob.shape();
        std::vector<int64_t> full{d->B, d->H, d->M, d->N};
        std::vector<int64_t> padded(4 - std::min<size_t>(4, bs.size()), 1);
        padded.insert(padded.end(), bs.begin(), bs.end());
        if (padded.size() != 4) return false;
        std::vector<int64_t> rs(4, 1);
        for (int dim = 2; dim >= 0; --dim)
            rs[static_cast<size_t>(dim)] = rs[static_cast<size_t>(dim + 1)] * padded[static_cast<size_t>(dim + 1)];
        std::vector<double> red(static_cast<size_t>(ob.numel()), 0.0);
        for (int64_t i = 0; i < static_cast<int64_t>(dBias.size()); ++i) {
            int64_t rem = i, idx = 0;
            for (int dim = 3; dim >= 0; --dim) {
                int64_t c = rem % full[static_cast<size_t>(dim)];
                rem /= full[static_cast<size_t>(dim)];
                if (padded[static_cast<size_t>(dim)] != 1) idx += c * rs[static_cast<size_t>(dim)];
            }
            red[static_cast<size_t>(idx)] += dBias[static_cast<size_t>(i)];
        }
        kern::fromDoubles(ob, red);
    }
    return true;
}

/// A [B, S, H, D] tensor viewed as [B, H, S, D]: same storage, dims 1 and 2 swapped.
Tensor bhsdView(const Tensor& t) {
    Tensor v = t;
    std::swap(v.meta.shape[1], v.meta.shape[2]);
    std::swap(v.meta.strides[1], v.meta.strides[2]);
    return v;
}

/// custom_mask_type (0 none, 1 causal from the top left, 2 from the bottom right) for M query
/// rows and N keys.
Causal maskOf(int64_t mask, int64_t M, int64_t N) { return {mask != 0, mask == 2 ? N - M : 0}; }

/// _efficient_attention_backward(grad_out_, query, key, value, bias?, out, cu_seqlens_q?,
/// cu_seqlens_k?, max_seqlen_q, max_seqlen_k, logsumexp, dropout_p, philox_seed, philox_offset,
/// custom_mask_type, bias_requires_grad, *, scale?, ...): BMHK tensors, run as the backward above
/// on their BHMK views; grad_bias where bias_requires_grad (else zeros). Fixed-length batches.
bool efficientAttentionBackward(const OpArgs& a, const std::vector<Tensor*>& outs, ExecContext&) {
    for (size_t i : {6, 7})
        if (!a.isNone(i)) return false;
    if ((a.size() > 18 && !a.isNone(18)) || (a.size() > 19 && a.toBool(19)) || outs.size() < 4) return false;
    const int64_t mask = a.toInt(14);
    if (mask < 0 || mask > 2) return false;
    for (size_t i = 0; i < 4; ++i)
        if (!a.isTensor(i) || a.tensor(i).dim() != 4) return false;
    for (size_t i = 0; i < 3; ++i)
        if (!outs[i] || outs[i]->dim() != 4) return false;
    std::vector<Value> vals = a.values();
    for (size_t i : {0, 1, 2, 3}) vals[i] = Value::ofTensor(bhsdView(a.tensor(i)));
    const OpArgs view(a.op(), std::move(vals));
    std::vector<Tensor> grads{bhsdView(*outs[0]), bhsdView(*outs[1]), bhsdView(*outs[2])};
    std::vector<Tensor*> ptrs{&grads[0], &grads[1], &grads[2]};
    const bool biasGrad = !a.isNone(4) && a.toBool(15) && outs[3];
    if (biasGrad) ptrs.push_back(outs[3]);
    const int64_t M = view.tensor(1).shape()[2], N = view.tensor(2).shape()[2];
    if (!backward(view, ptrs, kEfficientBackwardRaw, maskOf(mask, M, N))) return false;
    if (!biasGrad && outs[3]) kern::fromDoubles(*outs[3], std::vector<double>(static_cast<size_t>(outs[3]->numel())));
    return true;
}

/// _efficient_attention_forward(query, key, value, bias?, cu_seqlens_q?, cu_seqlens_k?,
/// max_seqlen_q?, max_seqlen_k?, dropout_p, custom_mask_type, compute_log_sumexp, *, scale?,
/// seqlen_k?, window_size?): the memory-efficient kernel on BMHK tensors, run as the forward above
/// on their BHMK views. Handled: no dropout, any mask type (0 none, 1 causal from the top left, 2
/// from the bottom right), fixed-length batches; the rest is left to the reference kernel.
bool efficientAttentionForward(const OpArgs& a, const std::vector<Tensor*>& outs, ExecContext&) {
    for (size_t i : {4, 5, 6, 7, 12, 13})
        if (i < a.size() && !a.isNone(i)) return false;
    const int64_t mask = a.toInt(9);
    if (a.toDouble(8) != 0.0 || mask < 0 || mask > 2 || outs.size() < 4) return false;
    for (size_t i = 0; i < 4; ++i)
        if (!outs[i]) return false;
    for (size_t i : {0, 1, 2})
        if (!a.isTensor(i) || a.tensor(i).dim() != 4) return false;
    if (outs[0]->dim() != 4 || outs[1]->dim() != 3) return false;
    std::vector<Value> vals = a.values();
    for (size_t i : {0, 1, 2}) vals[i] = Value::ofTensor(bhsdView(a.tensor(i)));
    const OpArgs view(a.op(), std::move(vals));
    auto d = dimsOf(view, 0, 1, 2);
    if (!d) return false;
    auto bias = biasOf(view, 3, *d);
    if (!bias) return false;
    Tensor out = bhsdView(*outs[0]);
    if (out.shape() != std::vector<int64_t>{d->B, d->H, d->M, d->Kv}) return false;
    const float scale = static_cast<float>(scaleOf(a, 11, d->K));
    std::vector<float> O, L;
    const Causal causal = maskOf(mask, d->M, d->N);
    forward(*d, f32(view.tensor(0)), f32(view.tensor(1)), f32(view.tensor(2)), *bias, scale, causal, 0.0, 0, O, &L,
            outs[1]->shape()[2]);
    store(out, O);
    store(*outs[1], L);
    kern::fromDoubles(*outs[2], {0.0});
    kern::fromDoubles(*outs[3], {0.0});
    return true;
}

/// _scaled_dot_product_cudnn_attention(query, key, value, attn_bias?, compute_log_sumexp, dropout_p,
/// is_causal, return_debug_mask, *, scale?): output in the query's layout, logsumexp dense fp32
/// [B, H, M, 1]; dropout with the reference's mask (seed drawn as the reference draws it).
bool cudnnForward(const OpArgs& a, const std::vector<Tensor*>& outs, ExecContext& ctx) {
    auto d = dimsOf(a, 0, 1, 2);
    if (!d || outs.size() < 8 || !outs[0] || !outs[1] || !outs[6] || !outs[7]) return false;
    if (outs[1]->numel() != d->B * d->H * d->M) return false;
    auto bias = biasOf(a, 3, *d);
    if (!bias) return false;
    const double p = a.toDouble(5);
    const uint64_t seed = p > 0.0 ? ctx.rng() : 0;
    std::vector<float> O, L;
    forward(*d, f32(a.tensor(0)), f32(a.tensor(1)), f32(a.tensor(2)), *bias, static_cast<float>(scaleOf(a, 8, d->K)),
            topLeft(a.toBool(6)), p, seed, O, &L, d->M);
    store(*outs[0], O);
    store(*outs[1], L);
    kern::fromDoubles(*outs[6], {static_cast<double>(seed)});
    kern::fromDoubles(*outs[7], {0.0});
    return true;
}

bool efficientBackward(const OpArgs& a, const std::vector<Tensor*>& outs, ExecContext&) {
    return backward(a, outs, kEfficientBackward, topLeft(a.toBool(11)));
}

bool cudnnBackward(const OpArgs& a, const std::vector<Tensor*>& outs, ExecContext&) {
    return backward(a, outs, kCudnnBackward, topLeft(a.toBool(14)));
}

}  // namespace

const std::vector<CpuExtern>& attentionExterns() {
    static const std::vector<CpuExtern> t = {
        {"sdpa_efficient", efficientForward},
        {"sdpa_efficient_backward", efficientBackward},
        {"sdpa", compositeSdpa},
        {"efficient_attention_forward", efficientAttentionForward},
        {"efficient_attention_backward", efficientAttentionBackward},
        {"sdpa_cudnn", cudnnForward},
        {"sdpa_cudnn_backward", cudnnBackward},
    };
    return t;
}

}  // namespace fxray::cg::cpu
