// Fused attention: the ops the sfdp / fuse_attention patterns produce. PyTorch's replacement
// calls aten.scaled_dot_product_attention, which tracing on CUDA with fp32 inputs dispatches to
// the memory-efficient kernel: `_scaled_dot_product_efficient_attention` (output, logsumexp,
// philox seed and offset) and, in training graphs, its backward. With fp16/bf16 inputs on sm_90
// PyTorch 2.11 picks cuDNN's kernel: `_scaled_dot_product_cudnn_attention` and its backward.
//
// Layouts follow PyTorch's meta functions: the output and the gradients are allocated in
// BMHK order and viewed as BHMK (strides [M*H*K, K, H*K, 1]); logsumexp is [B, H, ceil(M/32)*32]
// in fp32. The reference kernels compute in double. Dropout inside the kernel uses a counter-
// based mask derived from the seed the forward draws, so forward and backward agree; PyTorch's
// Philox stream is not reproduced (as for every random op here).
#include "exec/ops/attention.h"
#include "exec/ops/kernel_util.h"
#include "exec/ops/register.h"
#include "exec/ops/shape_util.h"

#include <algorithm>
#include <numeric>

#include <cmath>
#include <limits>
#include <string>
#include <utility>

namespace fxray {
using namespace kern;

namespace {

struct Dims {
    int64_t B, H, M, N, K, Kv;
};

/// `gqa`: key and value may have fewer heads than the query, a divisor of its heads
/// (scaled_dot_product_attention's enable_gqa); the kernels then repeat them (repeatKvHeads).
Expected<Dims> attnDims(const OpArgs& a, size_t q, size_t k, size_t v, bool gqa = false) {
    for (size_t i : {q, k, v}) {
        if (!a.isTensor(i)) return opError(a, "'" + a.op().schema.args[i].name + "' must be a tensor");
        if (a.tensor(i).dim() != 4)
            return opError(a, "'" + a.op().schema.args[i].name + "' must be 4-D (batch, heads, seq, dim)");
        if (a.tensor(i).meta.hasUnboundSizes()) return opError(a, "symbolic shapes are not supported");
    }
    const auto& Q = a.tensor(q).shape();
    const auto& Kt = a.tensor(k).shape();
    const auto& V = a.tensor(v).shape();
    if (a.tensor(q).dtype() != a.tensor(k).dtype() || a.tensor(q).dtype() != a.tensor(v).dtype())
        return opError(a, "query, key and value must have the same dtype");
    const bool grouped = gqa && Kt[1] > 0 && Kt[1] == V[1] && Q[1] % Kt[1] == 0;
    if (Kt[0] != Q[0] || V[0] != Q[0] || (!grouped && (Kt[1] != Q[1] || V[1] != Q[1])))
        return opError(a, gqa ? "enable_gqa: key and value must have the same heads, a divisor of the query's"
                              : "query, key and value must agree in batch and heads");
    if (Kt[3] != Q[3]) return opError(a, "query and key must have the same head dimension");
    if (V[2] != Kt[2]) return opError(a, "key and value must have the same sequence length");
    return Dims{Q[0], Q[1], Q[2], Kt[2], Q[3], V[3]};
}

/// Strides of a [B, H, S, D] tensor allocated as [B, S, H, D] and transposed (BMHK layout).
std::vector<int64_t> bmhkStrides(int64_t H, int64_t S, int64_t D) { return {S * H * D, D, H * D, 1}; }

TensorMeta bmhkMeta(const Dims& d, int64_t S, int64_t D, DType t, const Device& dev) {
    TensorMeta m;
    m.dtype = t;
    m.shape = {d.B, d.H, S, D};
    m.strides = bmhkStrides(d.H, S, D);
    m.device = dev;
    return m;
}

std::optional<Diagnostic> checkBias(const OpArgs& a, size_t i, const Dims& d) {
    if (a.isNone(i)) return std::nullopt;
    if (!a.isTensor(i)) return opError(a, "attn_bias must be a tensor or None");
    if (!broadcastShapes(a.tensor(i).shape(), {d.B, d.H, d.M, d.N}) ||
        *broadcastShapes(a.tensor(i).shape(), {d.B, d.H, d.M, d.N}) != std::vector<int64_t>{d.B, d.H, d.M, d.N})
        return opError(a, "attn_bias must broadcast to [B, H, M, N]");
    return std::nullopt;
}

double scaleOf(const OpArgs& a, size_t i, int64_t K) {
    if (i < a.size() && !a.isNone(i)) return a.toDouble(i);
    return 1.0 / std::sqrt(static_cast<double>(K));
}

bool keep(uint64_t seed, uint64_t offset, uint64_t idx, double p) { return attentionDropoutKeep(seed, offset, idx, p); }

Expected<Value> metaEfficient(const OpArgs& a) {
    auto d = attnDims(a, 0, 1, 2);
    if (!d.ok()) return d.error();
    if (auto e = checkBias(a, 3, *d)) return *e;
    const Tensor& q = a.tensor(0);
    const bool lse = a.toBool(4);
    std::vector<Value> outs;
    outs.push_back(metaValue(bmhkMeta(*d, d->M, d->Kv, q.dtype(), q.meta.device)));
    int64_t lseLen = lse ? (d->M + 31) / 32 * 32 : 0;
    outs.push_back(metaValue(TensorMeta::contiguous({d->B, d->H, lseLen}, DType::Float32, q.meta.device)));
    outs.push_back(metaValue(TensorMeta::contiguous({}, DType::Int64, q.meta.device)));
    outs.push_back(metaValue(TensorMeta::contiguous({}, DType::Int64, q.meta.device)));
    return Value::ofList(std::move(outs), true);
}

/// Scores softmax(scale * q·kᵀ + bias) for one (b, h): P [M, N] and per-row logsumexp.
void probabilities(const Dims& d, const std::vector<double>& Q, const std::vector<double>& Kt,
                   const std::vector<double>* bias, double scale, bool causal, int64_t b, int64_t h,
                   std::vector<double>& P, std::vector<double>& lse) {
    const int64_t bh = b * d.H + h;
    const double* q = Q.data() + bh * d.M * d.K;
    const double* k = Kt.data() + bh * d.N * d.K;
    P.assign(static_cast<size_t>(d.M * d.N), 0.0);
    lse.assign(static_cast<size_t>(d.M), 0.0);
    for (int64_t m = 0; m < d.M; ++m) {
        double mx = -std::numeric_limits<double>::infinity();
        for (int64_t n = 0; n < d.N; ++n) {
            double s = 0.0;
            for (int64_t j = 0; j < d.K; ++j) s += q[m * d.K + j] * k[n * d.K + j];
            s *= scale;
            if (bias) s += (*bias)[static_cast<size_t>(bh * d.M * d.N + m * d.N + n)];
            if (causal && n > m) s = -std::numeric_limits<double>::infinity();
            P[static_cast<size_t>(m * d.N + n)] = s;
            mx = std::max(mx, s);
        }
        double sum = 0.0;
        for (int64_t n = 0; n < d.N; ++n) {
            double& p = P[static_cast<size_t>(m * d.N + n)];
            p = std::isinf(mx) && mx < 0 ? 0.0 : std::exp(p - mx);
            sum += p;
        }
        for (int64_t n = 0; n < d.N; ++n)
            P[static_cast<size_t>(m * d.N + n)] = sum > 0 ? P[static_cast<size_t>(m * d.N + n)] / sum : 0.0;
        // A row that sees no key: output 0 and logsumexp 0, as PyTorch's memory-efficient kernel
        // writes it (kernel_forward.h sets the row's max to 0 and its sum to 1).
        lse[static_cast<size_t>(m)] = sum > 0 ? mx + std::log(sum) : 0.0;
    }
}

/// The forward of every (b, h): O [B, H, M, Kv] (BHMK order) and logsumexp rows L [B, H, lseLen]
/// (rows past M: +inf padding), dropout from `seed` when p > 0.
void attendAll(const Dims& d, const std::vector<double>& Q, const std::vector<double>& Kt, const std::vector<double>& V,
               const std::vector<double>& bias, double scale, bool causal, double p, uint64_t seed, int64_t lseLen,
               std::vector<double>& O, std::vector<double>& L) {
    O.assign(static_cast<size_t>(d.B * d.H * d.M * d.Kv), 0.0);
    L.assign(static_cast<size_t>(d.B * d.H * lseLen), std::numeric_limits<double>::infinity());
    std::vector<double> P, lse;
    for (int64_t b = 0; b < d.B; ++b)
        for (int64_t h = 0; h < d.H; ++h) {
            probabilities(d, Q, Kt, bias.empty() ? nullptr : &bias, scale, causal, b, h, P, lse);
            const int64_t bh = b * d.H + h;
            for (int64_t m = 0; m < d.M; ++m) {
                if (m < lseLen) L[static_cast<size_t>(bh * lseLen + m)] = lse[static_cast<size_t>(m)];
                for (int64_t n = 0; n < d.N; ++n) {
                    double w = P[static_cast<size_t>(m * d.N + n)];
                    if (p > 0.0) {
                        uint64_t idx = static_cast<uint64_t>((bh * d.M + m) * d.N + n);
                        w = keep(seed, 0, idx, p) ? w / (1.0 - p) : 0.0;
                    }
                    if (w == 0.0) continue;
                    const double* v = V.data() + (bh * d.N + n) * d.Kv;
                    double* o = O.data() + (bh * d.M + m) * d.Kv;
                    for (int64_t j = 0; j < d.Kv; ++j) o[j] += w * v[j];
                }
            }
        }
}

Expected<Value> kernelEfficient(const OpArgs& a, const Value& out, ExecContext& ctx) {
    auto d = attnDims(a, 0, 1, 2);
    if (!d.ok()) return d.error();
    const std::vector<double> Q = toDoubles(a.tensor(0)), Kt = toDoubles(a.tensor(1)), V = toDoubles(a.tensor(2));
    std::vector<double> bias;
    if (!a.isNone(3)) bias = toDoublesBroadcast(a.tensor(3), {d->B, d->H, d->M, d->N});
    const double p = a.toDouble(5);
    const bool causal = a.toBool(6);
    const double scale = scaleOf(a, 7, d->K);
    const uint64_t seed = p > 0.0 ? ctx.rng() : 0, offset = 0;
    std::vector<double> O, L;
    attendAll(*d, Q, Kt, V, bias, scale, causal, p, seed, out.list[1].t.shape()[2], O, L);
    std::vector<Value> outs;
    outs.push_back(Value::ofTensor(makeTensor(out.list[0].t.meta, O)));
    outs.push_back(Value::ofTensor(makeTensor(out.list[1].t.meta, L)));
    outs.push_back(Value::ofTensor(makeTensor(out.list[2].t.meta, {static_cast<double>(seed)})));
    outs.push_back(Value::ofTensor(makeTensor(out.list[3].t.meta, {static_cast<double>(offset)})));
    return Value::ofList(std::move(outs), true);
}

// _scaled_dot_product_efficient_attention_backward(grad_out_, query, key, value, attn_bias, out,
// logsumexp, philox_seed, philox_offset, dropout_p, grad_input_mask, is_causal, *, scale)
Expected<Value> metaEfficientBackward(const OpArgs& a) {
    auto d = attnDims(a, 1, 2, 3);
    if (!d.ok()) return d.error();
    if (auto e = checkBias(a, 4, *d)) return *e;
    if (!a.isTensor(0) || a.tensor(0).shape() != std::vector<int64_t>{d->B, d->H, d->M, d->Kv})
        return opError(a, "grad_out must have the output's shape [B, H, M, Kv]");
    const Tensor& q = a.tensor(1);
    std::vector<Value> outs;
    outs.push_back(metaValue(bmhkMeta(*d, d->M, d->K, q.dtype(), q.meta.device)));
    outs.push_back(metaValue(bmhkMeta(*d, d->N, d->K, q.dtype(), q.meta.device)));
    outs.push_back(metaValue(bmhkMeta(*d, d->N, d->Kv, q.dtype(), q.meta.device)));
    const Value& mask = a[10];
    bool biasGrad = !a.isNone(4) && mask.isList() && mask.list.size() == 4 && mask.list[3].kind == Value::Kind::Bool &&
                    mask.list[3].b;
    if (biasGrad) {
        TensorMeta m = a.tensor(4).meta;
        m.offset = 0;
        outs.push_back(metaValue(m));
    } else {
        outs.push_back(Value::none());
    }
    return Value::ofList(std::move(outs), true);
}

/// The gradients of q, k, v (BHMK order) and of the [B, H, M, N] bias (empty without one).
struct Grads {
    std::vector<double> dQ, dK, dV, dBias;
};

/// The backward of every (b, h), recomputing P as the forward does (same dropout mask).
Grads gradients(const Dims& d, const std::vector<double>& dO, const std::vector<double>& Q,
                const std::vector<double>& Kt, const std::vector<double>& V, const std::vector<double>& bias,
                uint64_t seed, uint64_t offset, double p, bool causal, double scale) {
    Grads g;
    std::vector<double>& dQ = g.dQ;
    std::vector<double>& dK = g.dK;
    std::vector<double>& dV = g.dV;
    std::vector<double>& dBias = g.dBias;
    dQ.assign(Q.size(), 0.0), dK.assign(Kt.size(), 0.0), dV.assign(V.size(), 0.0);
    dBias.assign(bias.empty() ? 0 : static_cast<size_t>(d.B * d.H * d.M * d.N), 0.0);
    std::vector<double> P, lse, dP(static_cast<size_t>(d.M * d.N));
    for (int64_t b = 0; b < d.B; ++b)
        for (int64_t h = 0; h < d.H; ++h) {
            probabilities(d, Q, Kt, bias.empty() ? nullptr : &bias, scale, causal, b, h, P, lse);
            const int64_t bh = b * d.H + h;
            const double* q = Q.data() + bh * d.M * d.K;
            const double* k = Kt.data() + bh * d.N * d.K;
            const double* v = V.data() + bh * d.N * d.Kv;
            const double* go = dO.data() + bh * d.M * d.Kv;
            for (int64_t m = 0; m < d.M; ++m) {
                double rowDot = 0.0;
                for (int64_t n = 0; n < d.N; ++n) {
                    // Dropout scales kept weights by 1/(1-p) on both sides of the product.
                    double f = 1.0;
                    if (p > 0.0) {
                        uint64_t idx = static_cast<uint64_t>((bh * d.M + m) * d.N + n);
                        f = keep(seed, offset, idx, p) ? 1.0 / (1.0 - p) : 0.0;
                    }
                    double pw = P[static_cast<size_t>(m * d.N + n)];
                    double dpd = 0.0;
                    for (int64_t j = 0; j < d.Kv; ++j) {
                        dpd += go[m * d.Kv + j] * v[n * d.Kv + j];
                        dV[static_cast<size_t>((bh * d.N + n) * d.Kv + j)] += pw * f * go[m * d.Kv + j];
                    }
                    double dp = dpd * f;
                    dP[static_cast<size_t>(m * d.N + n)] = dp;
                    rowDot += pw * dp;
                }
                for (int64_t n = 0; n < d.N; ++n) {
                    double ds = P[static_cast<size_t>(m * d.N + n)] * (dP[static_cast<size_t>(m * d.N + n)] - rowDot);
                    if (!dBias.empty()) dBias[static_cast<size_t>(bh * d.M * d.N + m * d.N + n)] = ds;
                    for (int64_t j = 0; j < d.K; ++j) {
                        dQ[static_cast<size_t>((bh * d.M + m) * d.K + j)] += scale * ds * k[n * d.K + j];
                        dK[static_cast<size_t>((bh * d.N + n) * d.K + j)] += scale * ds * q[m * d.K + j];
                    }
                }
            }
        }
    return g;
}

/// The [B, H, M, N] bias gradient summed over the dims a bias of shape bs was broadcast along.
std::vector<double> reduceBiasGrad(const Dims& d, const std::vector<double>& dBias, const std::vector<int64_t>& bs) {
    std::vector<int64_t> full{d.B, d.H, d.M, d.N};
    std::vector<int64_t> padded(4 - bs.size(), 1);
    padded.insert(padded.end(), bs.begin(), bs.end());
    std::vector<double> red(static_cast<size_t>(product(bs)), 0.0);
    auto rs = rowMajorStrides(padded);
    for (int64_t i = 0; i < product(full); ++i) {
        int64_t rem = i, idx = 0;
        for (int dim = 3; dim >= 0; --dim) {
            int64_t c = rem % full[dim];
            rem /= full[dim];
            if (padded[dim] != 1) idx += c * rs[dim];
        }
        red[static_cast<size_t>(idx)] += dBias[static_cast<size_t>(i)];
    }
    return red;
}

Expected<Value> kernelEfficientBackward(const OpArgs& a, const Value& out, ExecContext&) {
    auto d = attnDims(a, 1, 2, 3);
    if (!d.ok()) return d.error();
    std::vector<double> bias;
    if (!a.isNone(4)) bias = toDoublesBroadcast(a.tensor(4), {d->B, d->H, d->M, d->N});
    const uint64_t seed = static_cast<uint64_t>(toDoubles(a.tensor(7))[0]);
    const uint64_t offset = static_cast<uint64_t>(toDoubles(a.tensor(8))[0]);
    const Grads g =
        gradients(*d, toDoubles(a.tensor(0)), toDoubles(a.tensor(1)), toDoubles(a.tensor(2)), toDoubles(a.tensor(3)),
                  bias, seed, offset, a.toDouble(9), a.toBool(11), scaleOf(a, 12, d->K));
    std::vector<Value> outs;
    outs.push_back(Value::ofTensor(makeTensor(out.list[0].t.meta, g.dQ)));
    outs.push_back(Value::ofTensor(makeTensor(out.list[1].t.meta, g.dK)));
    outs.push_back(Value::ofTensor(makeTensor(out.list[2].t.meta, g.dV)));
    if (out.list[3].isTensor()) {
        outs.push_back(
            Value::ofTensor(makeTensor(out.list[3].t.meta, reduceBiasGrad(*d, g.dBias, out.list[3].t.shape()))));
    } else {
        outs.push_back(Value::none());
    }
    return Value::ofList(std::move(outs), true);
}

// scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False,
// *, scale=None, enable_gqa=False): the composite op, for graphs captured before dispatch.
bool gqaOf(const OpArgs& a) { return a.size() > 7 && !a.isNone(7) && a.toBool(7); }

Expected<Value> metaSdpa(const OpArgs& a) {
    auto d = attnDims(a, 0, 1, 2, gqaOf(a));
    if (!d.ok()) return d.error();
    if (auto e = checkBias(a, 3, *d)) return *e;
    const Tensor& q = a.tensor(0);
    return metaValue(TensorMeta::contiguous({d->B, d->H, d->M, d->Kv}, q.dtype(), q.meta.device));
}

Expected<Value> kernelSdpa(const OpArgs& a, const Value& out, ExecContext& ctx) {
    auto d = attnDims(a, 0, 1, 2, gqaOf(a));
    if (!d.ok()) return d.error();
    const int64_t Hk = a.tensor(1).shape()[1];
    const std::vector<double> Q = toDoubles(a.tensor(0));
    const std::vector<double> Kt = repeatKvHeads(toDoubles(a.tensor(1)), d->B, Hk, d->H, d->N * d->K);
    const std::vector<double> V = repeatKvHeads(toDoubles(a.tensor(2)), d->B, Hk, d->H, d->N * d->Kv);
    std::vector<double> bias;
    if (!a.isNone(3)) {
        if (a.tensor(3).dtype() == DType::Bool) {
            // A boolean mask says which positions take part.
            auto m = toDoublesBroadcast(a.tensor(3), {d->B, d->H, d->M, d->N});
            bias.resize(m.size());
            for (size_t i = 0; i < m.size(); ++i)
                bias[i] = m[i] != 0.0 ? 0.0 : -std::numeric_limits<double>::infinity();
        } else {
            bias = toDoublesBroadcast(a.tensor(3), {d->B, d->H, d->M, d->N});
        }
    }
    const double p = a.toDouble(4);
    const uint64_t seed = p > 0.0 ? ctx.rng() : 0;
    std::vector<double> O(static_cast<size_t>(d->B * d->H * d->M * d->Kv), 0.0), P, lse;
    for (int64_t b = 0; b < d->B; ++b)
        for (int64_t h = 0; h < d->H; ++h) {
            probabilities(*d, Q, Kt, bias.empty() ? nullptr : &bias, scaleOf(a, 6, d->K), a.toBool(5), b, h, P, lse);
            const int64_t bh = b * d->H + h;
            for (int64_t m = 0; m < d->M; ++m)
                for (int64_t n = 0; n < d->N; ++n) {
                    double w = P[static_cast<size_t>(m * d->N + n)];
                    if (p > 0.0)
                        w = keep(seed, 0, static_cast<uint64_t>((bh * d->M + m) * d->N + n), p) ? w / (1.0 - p) : 0.0;
                    for (int64_t j = 0; j < d->Kv; ++j)
                        O[static_cast<size_t>((bh * d->M + m) * d->Kv + j)] +=
                            w * V[static_cast<size_t>((bh * d->N + n) * d->Kv + j)];
                }
        }
    return Value::ofTensor(makeTensor(out.t.meta, O));
}

// _efficient_attention_forward(query, key, value, bias?, cu_seqlens_q?, cu_seqlens_k?,
// max_seqlen_q?, max_seqlen_k?, dropout_p, custom_mask_type, compute_log_sumexp=False, *, scale?,
// seqlen_k?, window_size?): the memory-efficient kernel itself, on BMHK tensors ([batch, seq,
// heads, dim]). custom_mask_type: 0 none, 1 causal from the top left, 2 causal from the bottom
// right. Variable-length batches (cu_seqlens), seqlen_k and sliding windows are not supported.

/// A [B, S, H, D] tensor viewed as [B, H, S, D] (no copy).
Tensor bhsdView(const Tensor& t) {
    Tensor v = t;
    std::swap(v.meta.shape[1], v.meta.shape[2]);
    std::swap(v.meta.strides[1], v.meta.strides[2]);
    return v;
}

Expected<Dims> efficientForwardDims(const OpArgs& a) {
    for (size_t i : {4, 5, 6, 7})
        if (!a.isNone(i)) return opError(a, "variable-length batches (cu_seqlens, max_seqlen) are not supported");
    for (size_t i : {12, 13})
        if (i < a.size() && !a.isNone(i)) return opError(a, "seqlen_k and window_size are not supported");
    for (size_t i : {0, 1, 2})
        if (!a.isTensor(i) || a.tensor(i).dim() != 4 || a.tensor(i).meta.strides.size() != 4)
            return opError(a, "'" + a.op().schema.args[i].name + "' must be a 4-D tensor (batch, seq, heads, dim)");
    const int64_t mask = a.toInt(9);
    if (mask < 0 || mask > 2) return opError(a, "custom_mask_type must be 0, 1 or 2, got " + std::to_string(mask));
    // attnDims reads [B, H, S, D] shapes: hand it the BHSD views.
    std::vector<Value> vals = a.values();
    for (size_t i : {0, 1, 2}) vals[i] = Value::ofTensor(bhsdView(a.tensor(i)));
    OpArgs view(a.op(), std::move(vals));
    auto d = attnDims(view, 0, 1, 2);
    if (!d.ok()) return d.error();
    if (auto e = checkBias(a, 3, *d)) return *e;
    return d;
}

/// The causal masks of custom_mask_type (1: top left, 2: bottom right, row m sees keys
/// n <= m + N - M) as -inf entries of the [B, H, M, N] bias (made where empty).
void maskIntoBias(const Dims& d, int64_t mask, std::vector<double>& bias) {
    if (mask == 0) return;
    if (bias.empty()) bias.assign(static_cast<size_t>(d.B * d.H * d.M * d.N), 0.0);
    const int64_t shift = mask == 2 ? d.N - d.M : 0;
    for (int64_t bh = 0; bh < d.B * d.H; ++bh)
        for (int64_t m = 0; m < d.M; ++m)
            for (int64_t n = std::max<int64_t>(m + shift + 1, 0); n < d.N; ++n)
                bias[static_cast<size_t>((bh * d.M + m) * d.N + n)] = -std::numeric_limits<double>::infinity();
}

Expected<Value> metaEfficientForward(const OpArgs& a) {
    auto d = efficientForwardDims(a);
    if (!d.ok()) return d.error();
    const Tensor& q = a.tensor(0);
    const bool lse = a.size() > 10 && a.toBool(10);
    std::vector<Value> outs;
    outs.push_back(metaValue(TensorMeta::contiguous({d->B, d->M, d->H, d->Kv}, q.dtype(), q.meta.device)));
    const int64_t lseLen = lse ? (d->M + 31) / 32 * 32 : 0;
    outs.push_back(metaValue(TensorMeta::contiguous({d->B, d->H, lseLen}, DType::Float32, q.meta.device)));
    // The philox seed and offset are CPU scalars (see PyTorch's note [Seed and Offset]).
    outs.push_back(metaValue(TensorMeta::contiguous({}, DType::Int64, Device{})));
    outs.push_back(metaValue(TensorMeta::contiguous({}, DType::Int64, Device{})));
    outs.push_back(Value::ofInt(d->M));
    outs.push_back(Value::ofInt(d->N));
    return Value::ofList(std::move(outs), true);
}

Expected<Value> kernelEfficientForward(const OpArgs& a, const Value& out, ExecContext& ctx) {
    auto d = efficientForwardDims(a);
    if (!d.ok()) return d.error();
    const std::vector<double> Q = toDoubles(bhsdView(a.tensor(0))), Kt = toDoubles(bhsdView(a.tensor(1))),
                              V = toDoubles(bhsdView(a.tensor(2)));
    std::vector<double> bias;
    if (!a.isNone(3)) bias = toDoublesBroadcast(a.tensor(3), {d->B, d->H, d->M, d->N});
    maskIntoBias(*d, a.toInt(9), bias);
    const double p = a.toDouble(8);
    const double scale = scaleOf(a, 11, d->K);
    const uint64_t seed = p > 0.0 ? ctx.rng() : 0;
    std::vector<double> O, L;
    attendAll(*d, Q, Kt, V, bias, scale, false, p, seed, out.list[1].t.shape()[2], O, L);
    // O is in BHMK order; the output is stored BMHK.
    Tensor res = Tensor::emptyLike(out.list[0].t.meta);
    Tensor view = bhsdView(res);
    fromDoubles(view, O);
    std::vector<Value> outs;
    outs.push_back(Value::ofTensor(std::move(res)));
    outs.push_back(Value::ofTensor(makeTensor(out.list[1].t.meta, L)));
    outs.push_back(Value::ofTensor(makeTensor(out.list[2].t.meta, {static_cast<double>(seed)})));
    outs.push_back(Value::ofTensor(makeTensor(out.list[3].t.meta, {0.0})));
    outs.push_back(out.list[4]);
    outs.push_back(out.list[5]);
    return Value::ofList(std::move(outs), true);
}

// _efficient_attention_backward(grad_out_, query, key, value, bias?, out, cu_seqlens_q?,
// cu_seqlens_k?, max_seqlen_q, max_seqlen_k, logsumexp, dropout_p, philox_seed, philox_offset,
// custom_mask_type, bias_requires_grad, *, scale?, num_splits_key?, window_size?,
// shared_storage_dqdkdv) -> (grad_query, grad_key, grad_value, grad_bias): BMHK tensors as the
// forward's. Layouts as PyTorch's meta function: the gradients empty_like their inputs; grad_bias
// the bias's shape with its last dim's storage padded to a multiple of 16, or a 0-d fp32 tensor
// without a bias. The gradients are recomputed as the forward's (lse is not read).
std::optional<Diagnostic> checkEfficientBackward(const OpArgs& a) {
    for (size_t i : {6, 7})
        if (!a.isNone(i)) return opError(a, "variable-length batches (cu_seqlens) are not supported");
    if (a.size() > 18 && !a.isNone(18)) return opError(a, "window_size is not supported");
    if (a.size() > 19 && a.toBool(19)) return opError(a, "shared_storage_dqdkdv is not supported");
    const int64_t mask = a.toInt(14);
    if (mask < 0 || mask > 2) return opError(a, "custom_mask_type must be 0, 1 or 2, got " + std::to_string(mask));
    return std::nullopt;
}

/// a with its BMHK tensors (grad_out, q, k, v, out) as BHMK views, for attnDims and the kernels.
OpArgs bhmkArgs(const OpArgs& a) {
    std::vector<Value> vals = a.values();
    for (size_t i : {0, 1, 2, 3, 5})
        if (a.isTensor(i) && a.tensor(i).dim() == 4) vals[i] = Value::ofTensor(bhsdView(a.tensor(i)));
    return OpArgs(a.op(), std::move(vals));
}

Expected<Value> metaEfficientBackwardRaw(const OpArgs& a) {
    if (auto e = checkEfficientBackward(a)) return *e;
    const OpArgs v = bhmkArgs(a);
    auto d = attnDims(v, 1, 2, 3);
    if (!d.ok()) return d.error();
    if (auto e = checkBias(a, 4, *d)) return *e;
    if (!v.isTensor(0) || v.tensor(0).shape() != std::vector<int64_t>{d->B, d->H, d->M, d->Kv})
        return opError(a, "grad_out must have the output's shape [B, M, H, Kv]");
    std::vector<Value> outs;
    for (size_t i : {1, 2, 3}) {
        const TensorMeta& m = a.tensor(i).meta;
        outs.push_back(metaValue(freshMeta(m, m.shape, preserveStrides(m))));
    }
    if (a.isNone(4)) {
        outs.push_back(metaValue(TensorMeta::contiguous({}, DType::Float32, a.tensor(1).meta.device)));
    } else {
        const TensorMeta& bm = a.tensor(4).meta;
        std::vector<int64_t> padded = bm.shape;
        if (!padded.empty()) padded.back() = (padded.back() + 15) / 16 * 16;
        outs.push_back(metaValue(freshMeta(bm, bm.shape, TensorMeta::contiguousStrides(padded))));
    }
    return Value::ofList(std::move(outs), true);
}

Expected<Value> kernelEfficientBackwardRaw(const OpArgs& a, const Value& out, ExecContext&) {
    const OpArgs v = bhmkArgs(a);
    auto d = attnDims(v, 1, 2, 3);
    if (!d.ok()) return d.error();
    std::vector<double> bias;
    if (!a.isNone(4)) bias = toDoublesBroadcast(a.tensor(4), {d->B, d->H, d->M, d->N});
    const bool hasBias = !bias.empty();
    maskIntoBias(*d, a.toInt(14), bias);
    const uint64_t seed = static_cast<uint64_t>(toDoubles(a.tensor(12))[0]);
    const uint64_t offset = static_cast<uint64_t>(toDoubles(a.tensor(13))[0]);
    const Grads g = gradients(*d, toDoubles(v.tensor(0)), toDoubles(v.tensor(1)), toDoubles(v.tensor(2)),
                              toDoubles(v.tensor(3)), bias, seed, offset, a.toDouble(11), false, scaleOf(a, 16, d->K));
    std::vector<Value> outs;
    const std::vector<double>* grads[] = {&g.dQ, &g.dK, &g.dV};
    for (size_t i = 0; i < 3; ++i) {
        // The gradients are BHMK-ordered; their outputs are stored BMHK.
        Tensor res = Tensor::emptyLike(out.list[i].t.meta);
        Tensor view = bhsdView(res);
        fromDoubles(view, *grads[i]);
        outs.push_back(Value::ofTensor(std::move(res)));
    }
    const TensorMeta& gb = out.list[3].t.meta;
    if (hasBias)
        outs.push_back(Value::ofTensor(makeTensor(gb, reduceBiasGrad(*d, g.dBias, gb.shape))));
    else
        outs.push_back(Value::ofTensor(makeTensor(gb, {0.0})));
    return Value::ofList(std::move(outs), true);
}

// _scaled_dot_product_cudnn_attention(query, key, value, attn_bias?, compute_log_sumexp,
// dropout_p=0, is_causal=False, return_debug_mask=False, *, scale?) -> (output, logsumexp,
// cum_seq_q, cum_seq_k, max_q, max_k, philox_seed, philox_offset, debug_attn_mask): cuDNN's SDPA.
// Layouts as PyTorch's meta function (torch/_meta_registrations.py): the output is laid out in
// the query's dimension order (alloc_with_matching_layout), logsumexp is dense fp32
// [B, H, M, 1] (no padding), cum_seq_q/k and the debug mask are None, max_q / max_k are M and N.

/// alloc_with_matching_layout(query, shape): the query's own layout where the shapes agree (a
/// non-dense query: dense in its order with dims 1 and 2 swapped, as empty_like of its transpose
/// gives), else dense with the dims ordered by the query's strides (largest first, ties in order).
TensorMeta matchingLayout(const TensorMeta& q, const std::vector<int64_t>& shape) {
    if (shape == q.shape) {
        TensorMeta qt = q;
        std::swap(qt.shape[1], qt.shape[2]);
        std::swap(qt.strides[1], qt.strides[2]);
        std::vector<int64_t> st = preserveStrides(qt);
        std::swap(st[1], st[2]);
        return freshMeta(q, shape, st);
    }
    std::vector<size_t> order(4);
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return q.strides[x] > q.strides[y]; });
    std::vector<int64_t> st(4);
    int64_t next = 1;
    for (size_t i = 4; i-- > 0;) {
        st[order[i]] = next;
        next *= shape[order[i]];
    }
    return freshMeta(q, shape, st);
}

Expected<Value> metaCudnn(const OpArgs& a) {
    auto d = attnDims(a, 0, 1, 2);
    if (!d.ok()) return d.error();
    if (auto e = checkBias(a, 3, *d)) return *e;
    const Tensor& q = a.tensor(0);
    std::vector<Value> outs;
    outs.push_back(metaValue(matchingLayout(q.meta, {d->B, d->H, d->M, d->Kv})));
    outs.push_back(metaValue(TensorMeta::contiguous({d->B, d->H, d->M, 1}, DType::Float32, q.meta.device)));
    outs.push_back(Value::none());
    outs.push_back(Value::none());
    outs.push_back(Value::ofInt(d->M));
    outs.push_back(Value::ofInt(d->N));
    outs.push_back(metaValue(TensorMeta::contiguous({}, DType::Int64, q.meta.device)));
    outs.push_back(metaValue(TensorMeta::contiguous({}, DType::Int64, q.meta.device)));
    outs.push_back(Value::none());
    return Value::ofList(std::move(outs), true);
}

Expected<Value> kernelCudnn(const OpArgs& a, const Value& out, ExecContext& ctx) {
    auto d = attnDims(a, 0, 1, 2);
    if (!d.ok()) return d.error();
    std::vector<double> bias;
    if (!a.isNone(3)) bias = toDoublesBroadcast(a.tensor(3), {d->B, d->H, d->M, d->N});
    const double p = a.toDouble(5);
    const uint64_t seed = p > 0.0 ? ctx.rng() : 0;
    std::vector<double> O, L;
    attendAll(*d, toDoubles(a.tensor(0)), toDoubles(a.tensor(1)), toDoubles(a.tensor(2)), bias, scaleOf(a, 8, d->K),
              a.toBool(6), p, seed, d->M, O, L);
    std::vector<Value> outs = out.list;
    outs[0] = Value::ofTensor(makeTensor(out.list[0].t.meta, O));
    outs[1] = Value::ofTensor(makeTensor(out.list[1].t.meta, L));
    outs[6] = Value::ofTensor(makeTensor(out.list[6].t.meta, {static_cast<double>(seed)}));
    outs[7] = Value::ofTensor(makeTensor(out.list[7].t.meta, {0.0}));
    return Value::ofList(std::move(outs), true);
}

// _scaled_dot_product_cudnn_attention_backward(grad_out, query, key, value, out, logsumexp,
// philox_seed, philox_offset, attn_bias, cum_seq_q, cum_seq_k, max_q, max_k, dropout_p, is_causal,
// *, scale?) -> (grad_query, grad_key, grad_value), each empty_like its input; no bias gradient.
Expected<Value> metaCudnnBackward(const OpArgs& a) {
    auto d = attnDims(a, 1, 2, 3);
    if (!d.ok()) return d.error();
    if (auto e = checkBias(a, 8, *d)) return *e;
    if (!a.isTensor(0) || a.tensor(0).shape() != std::vector<int64_t>{d->B, d->H, d->M, d->Kv})
        return opError(a, "grad_out must have the output's shape [B, H, M, Kv]");
    for (size_t i : {9, 10})
        if (!a.isNone(i)) return opError(a, "variable-length batches (cum_seq_q, cum_seq_k) are not supported");
    std::vector<Value> outs;
    for (size_t i : {1, 2, 3}) {
        const TensorMeta& m = a.tensor(i).meta;
        outs.push_back(metaValue(freshMeta(m, m.shape, preserveStrides(m))));
    }
    return Value::ofList(std::move(outs), true);
}

Expected<Value> kernelCudnnBackward(const OpArgs& a, const Value& out, ExecContext&) {
    auto d = attnDims(a, 1, 2, 3);
    if (!d.ok()) return d.error();
    std::vector<double> bias;
    if (!a.isNone(8)) bias = toDoublesBroadcast(a.tensor(8), {d->B, d->H, d->M, d->N});
    const uint64_t seed = static_cast<uint64_t>(toDoubles(a.tensor(6))[0]);
    const uint64_t offset = static_cast<uint64_t>(toDoubles(a.tensor(7))[0]);
    const Grads g =
        gradients(*d, toDoubles(a.tensor(0)), toDoubles(a.tensor(1)), toDoubles(a.tensor(2)), toDoubles(a.tensor(3)),
                  bias, seed, offset, a.toDouble(13), a.toBool(14), scaleOf(a, 15, d->K));
    std::vector<Value> outs;
    outs.push_back(Value::ofTensor(makeTensor(out.list[0].t.meta, g.dQ)));
    outs.push_back(Value::ofTensor(makeTensor(out.list[1].t.meta, g.dK)));
    outs.push_back(Value::ofTensor(makeTensor(out.list[2].t.meta, g.dV)));
    return Value::ofList(std::move(outs), true);
}

}  // namespace

void registerAttentionOps(OpRegistry& r) {
    // attn_bias is `Tensor?` in the backward too: PyTorch's traced graphs pass None there.
    r.add("aten._scaled_dot_product_efficient_attention.default",
          "_scaled_dot_product_efficient_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_bias, "
          "bool compute_log_sumexp, float dropout_p=0.0, bool is_causal=False, *, float? scale=None) -> "
          "(Tensor output, Tensor log_sumexp, Tensor philox_seed, Tensor philox_offset)",
          OpCategory::Extern, metaEfficient, kernelEfficient);
    r.add("aten._scaled_dot_product_efficient_attention_backward.default",
          "_scaled_dot_product_efficient_attention_backward(Tensor grad_out_, Tensor query, Tensor key, "
          "Tensor value, Tensor? attn_bias, Tensor out, Tensor logsumexp, Tensor philox_seed, "
          "Tensor philox_offset, float dropout_p, bool[4] grad_input_mask, bool is_causal=False, *, "
          "float? scale=None) -> (Tensor, Tensor, Tensor, Tensor)",
          OpCategory::Extern, metaEfficientBackward, kernelEfficientBackward);
    r.add("aten.scaled_dot_product_attention.default",
          "scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None, "
          "float dropout_p=0.0, bool is_causal=False, *, float? scale=None, bool enable_gqa=False) -> Tensor",
          OpCategory::Extern, metaSdpa, kernelSdpa);
    r.add("aten._efficient_attention_forward.default",
          "_efficient_attention_forward(Tensor query, Tensor key, Tensor value, Tensor? bias, Tensor? cu_seqlens_q, "
          "Tensor? cu_seqlens_k, SymInt? max_seqlen_q, SymInt? max_seqlen_k, float dropout_p, int custom_mask_type, "
          "bool compute_log_sumexp=False, *, float? scale=None, Tensor? seqlen_k=None, int? window_size=None) -> "
          "(Tensor output, Tensor logsumexp, Tensor philox_seed, Tensor philox_offset, SymInt max_seqlen_batch_q, "
          "SymInt max_seqlen_batch_k)",
          OpCategory::Extern, metaEfficientForward, kernelEfficientForward);
    r.add("aten._efficient_attention_backward.default",
          "_efficient_attention_backward(Tensor grad_out_, Tensor query, Tensor key, Tensor value, Tensor? bias, "
          "Tensor out, Tensor? cu_seqlens_q, Tensor? cu_seqlens_k, SymInt max_seqlen_q, SymInt max_seqlen_k, "
          "Tensor logsumexp, float dropout_p, Tensor philox_seed, Tensor philox_offset, int custom_mask_type, "
          "bool bias_requires_grad, *, float? scale=None, int? num_splits_key=None, int? window_size=None, "
          "bool shared_storage_dqdkdv=False) -> (Tensor, Tensor, Tensor, Tensor)",
          OpCategory::Extern, metaEfficientBackwardRaw, kernelEfficientBackwardRaw);
    // attn_bias, cum_seq_q and cum_seq_k are plain `Tensor` in PyTorch's backward schema, but its
    // autograd formula passes undefined tensors there (None in traced graphs): `Tensor?` here.
    r.add("aten._scaled_dot_product_cudnn_attention.default",
          "_scaled_dot_product_cudnn_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_bias, "
          "bool compute_log_sumexp, float dropout_p=0., bool is_causal=False, bool return_debug_mask=False, *, "
          "float? scale=None) -> (Tensor output, Tensor logsumexp, Tensor cum_seq_q, Tensor cum_seq_k, SymInt max_q, "
          "SymInt max_k, Tensor philox_seed, Tensor philox_offset, Tensor debug_attn_mask)",
          OpCategory::Extern, metaCudnn, kernelCudnn);
    r.add("aten._scaled_dot_product_cudnn_attention_backward.default",
          "_scaled_dot_product_cudnn_attention_backward(Tensor grad_out, Tensor query, Tensor key, Tensor value, "
          "Tensor out, Tensor logsumexp, Tensor philox_seed, Tensor philox_offset, Tensor? attn_bias, "
          "Tensor? cum_seq_q, Tensor? cum_seq_k, SymInt max_q, SymInt max_k, float dropout_p, bool is_causal, *, "
          "float? scale=None) -> (Tensor, Tensor, Tensor)",
          OpCategory::Extern, metaCudnnBackward, kernelCudnnBackward);
}

bool attentionDropoutKeep(uint64_t seed, uint64_t offset, uint64_t idx, double p) {
    uint64_t z = seed + 0x9e3779b97f4a7c15ull * (offset + idx + 1);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    double u = static_cast<double>(z >> 11) * (1.0 / 9007199254740992.0);
    return u >= p;
}

}  // namespace fxray
