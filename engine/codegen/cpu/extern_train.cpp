// Extern kernels of the CPU backend for the training ops that are scatters or windowed
// gathers with data-dependent writes (embedding/index backward, index_add/index_put with
// accumulation, max pooling with indices and its backward), batch normalisation in training
// mode (with running-stat updates) and its backward (convolution backward: extern_conv.cpp).
// They are compiled C++ (not the reference interpreter): fp32 math on contiguous copies,
// fp64 accumulation for the per-channel statistics so they match PyTorch's within 1e-5.
// Their table: extern_table.h trainExterns().
//
// Each works on contiguous fp32 copies of its
// operands and writes its outputs through store(), which honours the output's layout. Any
// instance outside what is handled (an index out of range, a
// non-float dtype) returns false before writing, so that the reference kernel reports the
// error or computes the unusual case.
#include "codegen/cpu/extern_table.h"

#include "codegen/cpu/extern_kernels.h"
#include "codegen/cpu/extern_util.h"
#include "exec/ops/kernel_util.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

namespace fxray::cg::cpu {

namespace {

bool intLike(DType t) { return t == DType::Int64 || t == DType::Int32; }

std::vector<int64_t> i64(const Tensor& t) {
    auto d = kern::toDoubles(t);
    return std::vector<int64_t>(d.begin(), d.end());
}

int64_t product(const std::vector<int64_t>& s, size_t from, size_t to) {
    int64_t p = 1;
    for (size_t d = from; d < to && d < s.size(); ++d) p *= s[d];
    return p;
}

// ----- scatters ------------------------------------------------------------------------------

bool embeddingBackward(const OpArgs& a, Tensor& out) {
    const Tensor& g = a.tensor(0);
    const Tensor& idx = a.tensor(1);
    if (a.toBool(4) || !floatLike(g.dtype()) || !intLike(idx.dtype()) || out.dim() != 2) return false;
    int64_t rows = out.shape()[0], D = out.shape()[1], pad = a.toInt(3);
    auto iv = i64(idx);
    if (static_cast<int64_t>(iv.size()) * D != g.numel()) return false;
    for (int64_t i : iv)
        if (i < 0 || i >= rows) return false;
    auto gv = f32(g);
    std::vector<float> r(static_cast<size_t>(rows * D), 0.0f);
    for (size_t e = 0; e < iv.size(); ++e) {
        if (iv[e] == pad) continue;
        float* dst = r.data() + iv[e] * D;
        const float* src = gv.data() + static_cast<int64_t>(e) * D;
        for (int64_t j = 0; j < D; ++j) dst[j] += src[j];
    }
    store(out, r);
    return true;
}

/// out = self; out[.., index[i], ..] += alpha * source[.., i, ..] along dim.
bool indexAdd(const OpArgs& a, Tensor& out) {
    const Tensor& self = a.tensor(0);
    const Tensor& index = a.tensor(2);
    const Tensor& src = a.tensor(3);
    if (index.dim() > 1 || !floatLike(self.dtype()) || !intLike(index.dtype())) return false;
    // A 0-d self is one element along dim 0 (or -1), as PyTorch treats it.
    const bool scalar = self.dim() == 0;
    int64_t dim = a.toInt(1);
    if (dim < 0) dim += scalar ? 1 : self.dim();
    if (dim < 0 || dim >= std::max<int64_t>(self.dim(), 1)) return false;
    int64_t size = scalar ? 1 : self.shape()[static_cast<size_t>(dim)];
    int64_t outer = scalar ? 1 : product(self.shape(), 0, static_cast<size_t>(dim));
    int64_t inner = scalar ? 1 : product(self.shape(), static_cast<size_t>(dim) + 1, self.shape().size());
    auto iv = i64(index);
    int64_t n = static_cast<int64_t>(iv.size());
    if (src.numel() != outer * n * inner) return false;
    for (int64_t i : iv)
        if (i < -size || i >= size) return false;
    float alpha = static_cast<float>(a.toDouble(4));
    auto r = f32(self);
    auto s = f32(src);
    for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < n; ++i) {
            int64_t t = iv[static_cast<size_t>(i)] < 0 ? iv[static_cast<size_t>(i)] + size : iv[static_cast<size_t>(i)];
            float* dst = r.data() + (o * size + t) * inner;
            const float* sp = s.data() + (o * n + i) * inner;
            for (int64_t j = 0; j < inner; ++j) dst[j] += alpha * sp[j];
        }
    store(out, r);
    return true;
}

/// index_put(self, indices, values, accumulate) with PyTorch's advanced indexing: any mix of
/// None items and int or bool index tensors (a bool mask over k dims stands for its k nonzero
/// coordinate lists). The index tensors broadcast together to B; the indexed positions have
/// shape self[:first] + B + self[last+1:] where the indexed dims are adjacent, else B followed by
/// the other dims in order; values broadcast to that shape. Writes in index order, so with
/// accumulate duplicates sum and without it the last write wins (PyTorch's CPU kernel).
bool indexPut(const OpArgs& a, Tensor& out) {
    const Tensor& self = a.tensor(0);
    const Value& list = a[1];
    if (!list.isList() || list.list.empty() || self.dim() == 0 || !floatLike(self.dtype())) return false;
    const std::vector<int64_t>& S = self.shape();
    const size_t n = S.size();
    // One item per self dim (trailing None), bool masks expanded to their coordinate lists.
    std::vector<std::optional<std::vector<int64_t>>> idx;  // flattened values, broadcast later
    std::vector<std::vector<int64_t>> idxShape;
    for (const Value& item : list.list) {
        if (item.isNone()) {
            idx.emplace_back(), idxShape.emplace_back();
            continue;
        }
        if (!item.isTensor()) return false;
        const Tensor& t = item.t;
        if (t.dtype() == DType::Bool || t.dtype() == DType::UInt8) {
            const size_t k = static_cast<size_t>(std::max<int64_t>(t.dim(), 1));
            if (idx.size() + k > n) return false;
            const auto m = kern::toDoubles(t);
            std::vector<std::vector<int64_t>> coords(k);
            for (size_t e = 0; e < m.size(); ++e) {
                if (m[e] == 0) continue;
                size_t rest = e;
                for (size_t d = k; d-- > 0;) {
                    const int64_t size = t.dim() == 0 ? 1 : t.shape()[d];
                    coords[d].push_back(static_cast<int64_t>(rest % static_cast<size_t>(size)));
                    rest /= static_cast<size_t>(size);
                }
            }
            // A 0-d mask adds a unit dim PyTorch indexes with 0 or nothing: left to the reference.
            if (t.dim() == 0) return false;
            for (size_t d = 0; d < k; ++d) {
                if (t.shape()[d] != S[idx.size()]) return false;
                idxShape.push_back({static_cast<int64_t>(coords[d].size())});
                idx.emplace_back(std::move(coords[d]));
            }
            continue;
        }
        if (!intLike(t.dtype())) return false;
        idx.emplace_back(i64(t)), idxShape.push_back(t.shape());
    }
    if (idx.size() > n) return false;
    idx.resize(n), idxShape.resize(n);
    // The broadcast shape of the index tensors and where the indexed dims sit.
    std::vector<int64_t> B;
    int first = -1, last = -1;
    bool anyIndex = false;
    for (size_t d = 0; d < n; ++d) {
        if (!idx[d]) continue;
        auto bs = anyIndex ? kern::broadcastShapes(B, idxShape[d]) : std::optional(idxShape[d]);
        if (!bs) return false;
        B = *bs, anyIndex = true;
        if (first < 0) first = static_cast<int>(d);
        last = static_cast<int>(d);
    }
    if (!anyIndex) return false;
    bool adjacent = true;
    for (int d = first; d <= last; ++d) adjacent = adjacent && idx[static_cast<size_t>(d)].has_value();
    // Each index tensor broadcast to B (row-major over B).
    int64_t nb = 1;
    for (int64_t v : B) nb *= v;
    std::vector<std::vector<int64_t>> bidx(n);
    for (size_t d = 0; d < n; ++d) {
        if (!idx[d]) continue;
        Tensor t = Tensor::empty(idxShape[d], DType::Int64);
        std::memcpy(t.data<int64_t>(), idx[d]->data(), idx[d]->size() * sizeof(int64_t));
        const auto v = kern::toDoublesBroadcast(t, B);
        bidx[d].assign(v.begin(), v.end());
        for (int64_t& i : bidx[d]) {
            if (i < -S[d] || i >= S[d]) return false;  // the reference reports the error
            if (i < 0) i += S[d];
        }
    }
    // The indexed positions' shape: the None dims around B (adjacent) or after it.
    std::vector<size_t> before, after;  // None dims
    for (size_t d = 0; d < n; ++d)
        if (!idx[d]) (adjacent && static_cast<int>(d) < first ? before : after).push_back(d);
    std::vector<int64_t> R;
    for (size_t d : before) R.push_back(S[d]);
    R.insert(R.end(), B.begin(), B.end());
    for (size_t d : after) R.push_back(S[d]);
    const Tensor& vals = a.tensor(2);
    const auto vd = kern::toDoublesBroadcast(vals, R);
    int64_t nr = 1;
    for (int64_t v : R) nr *= v;
    if (static_cast<int64_t>(vd.size()) != nr) return false;
    std::vector<int64_t> stride(n, 1);
    for (size_t d = n - 1; d-- > 0;) stride[d] = stride[d + 1] * S[d + 1];
    const bool acc = a.toBool(3);
    auto r = f32(self);
    // Position p of R: (before coords, b in B, after coords), row-major.
    for (int64_t p = 0; p < nr; ++p) {
        int64_t rest = p;
        int64_t off = 0;
        for (size_t j = after.size(); j-- > 0;) {
            off += (rest % S[after[j]]) * stride[after[j]];
            rest /= S[after[j]];
        }
        const int64_t b = rest % nb;
        rest /= nb;
        for (size_t j = before.size(); j-- > 0;) {
            off += (rest % S[before[j]]) * stride[before[j]];
            rest /= S[before[j]];
        }
        for (size_t d = 0; d < n; ++d)
            if (idx[d]) off += bidx[d][static_cast<size_t>(b)] * stride[d];
        float& dst = r[static_cast<size_t>(off)];
        const float v = static_cast<float>(vd[static_cast<size_t>(p)]);
        dst = acc ? dst + v : v;
    }
    store(out, r);
    return true;
}

// ----- max pooling ---------------------------------------------------------------------------

struct Pool {
    int64_t kh, kw, sh, sw, ph, pw, dh, dw;
};

Pool poolArgs(const OpArgs& a, size_t k, size_t s, size_t p, size_t d) {
    auto pick = [](const std::vector<int64_t>& v, size_t i, int64_t dflt) {
        return v.empty() ? dflt : v.size() == 1 ? v[0] : v[i];
    };
    auto K = a.toIntList(k), S = a.toIntList(s), P = a.toIntList(p), D = a.toIntList(d);
    Pool r{pick(K, 0, 1), pick(K, 1, 1), 0, 0, pick(P, 0, 0), pick(P, 1, 0), pick(D, 0, 1), pick(D, 1, 1)};
    r.sh = pick(S, 0, r.kh);
    r.sw = pick(S, 1, r.kw);
    return r;
}

bool maxPool(const OpArgs& a, const std::vector<Tensor*>& outs) {
    const Tensor& x = a.tensor(0);
    if (outs.size() < 2 || !outs[0] || !outs[1] || x.dim() < 3 || !floatLike(x.dtype())) return false;
    Pool p = poolArgs(a, 1, 2, 3, 4);
    int64_t nd = x.dim();
    int64_t planes = product(x.shape(), 0, static_cast<size_t>(nd - 2));
    int64_t H = x.shape()[static_cast<size_t>(nd - 2)], W = x.shape()[static_cast<size_t>(nd - 1)];
    int64_t OH = outs[0]->shape()[static_cast<size_t>(nd - 2)], OW = outs[0]->shape()[static_cast<size_t>(nd - 1)];
    auto xv = f32(x);
    std::vector<float> ov(static_cast<size_t>(planes * OH * OW));
    std::vector<int64_t> iv(ov.size());
    for (int64_t pl = 0; pl < planes; ++pl) {
        const float* src = xv.data() + pl * H * W;
        for (int64_t oh = 0; oh < OH; ++oh)
            for (int64_t ow = 0; ow < OW; ++ow) {
                float best = -std::numeric_limits<float>::infinity();
                int64_t bi = -1;
                for (int64_t i = 0; i < p.kh; ++i) {
                    int64_t ih = oh * p.sh - p.ph + i * p.dh;
                    if (ih < 0 || ih >= H) continue;
                    for (int64_t j = 0; j < p.kw; ++j) {
                        int64_t iw = ow * p.sw - p.pw + j * p.dw;
                        if (iw < 0 || iw >= W) continue;
                        float v = src[ih * W + iw];
                        // NaN propagates, as in PyTorch (v > best || isnan(v)).
                        if (bi < 0 || v > best || std::isnan(v)) {
                            best = v;
                            bi = ih * W + iw;
                            if (std::isnan(v)) goto done;
                        }
                    }
                }
            done:
                size_t o = static_cast<size_t>((pl * OH + oh) * OW + ow);
                ov[o] = best;
                iv[o] = bi;
            }
    }
    store(*outs[0], ov);
    kern::fromDoubles(*outs[1], std::vector<double>(iv.begin(), iv.end()));
    return true;
}

bool maxPoolBackward(const OpArgs& a, Tensor& out) {
    const Tensor& g = a.tensor(0);
    const Tensor& x = a.tensor(1);
    const Tensor& idx = a.tensor(7);
    if (x.dim() < 3 || !floatLike(g.dtype()) || idx.numel() != g.numel()) return false;
    int64_t nd = x.dim();
    int64_t planes = product(x.shape(), 0, static_cast<size_t>(nd - 2));
    int64_t HW = product(x.shape(), static_cast<size_t>(nd - 2), x.shape().size());
    int64_t per = planes ? g.numel() / planes : 0;
    auto gv = f32(g);
    auto iv = i64(idx);
    for (int64_t i : iv)
        if (i < 0 || i >= HW) return false;
    std::vector<float> r(static_cast<size_t>(planes * HW), 0.0f);
    for (int64_t pl = 0; pl < planes; ++pl)
        for (int64_t e = 0; e < per; ++e)
            r[static_cast<size_t>(pl * HW + iv[static_cast<size_t>(pl * per + e)])] +=
                gv[static_cast<size_t>(pl * per + e)];
    store(out, r);
    return true;
}

// ----- batch norm ----------------------------------------------------------------------------

/// [N, C, S] view of a contiguous activation.
struct NCS {
    int64_t N, C, S;
};
NCS ncs(const Tensor& x) { return {x.shape()[0], x.shape()[1], product(x.shape(), 2, x.shape().size())}; }

std::vector<double> optParam(const OpArgs& a, size_t i, int64_t C, double dflt) {
    if (a.isNone(i)) return std::vector<double>(static_cast<size_t>(C), dflt);
    return kern::toDoubles(a.tensor(i));
}

/// Training-mode batch norm of x = args[0] with weight/bias/running stats at 1..4 and momentum,
/// eps at `mom`, `eps`: y, the batch mean and inverse std, and the updated running stats, each
/// written where its output is given. Running stats absent (None) are not updated.
bool batchNormCore(const OpArgs& a, size_t momArg, size_t epsArg, Tensor* yOut, Tensor* meanOut, Tensor* invstdOut,
                   Tensor* rmOut, Tensor* rvOut) {
    const Tensor& x = a.tensor(0);
    if (x.dim() < 2 || !floatLike(x.dtype())) return false;
    auto [N, C, S] = ncs(x);
    double mom = a.toDouble(momArg), eps = a.toDouble(epsArg);
    auto w = optParam(a, 1, C, 1.0), b = optParam(a, 2, C, 0.0);
    const bool stats = !a.isNone(3) && !a.isNone(4);
    std::vector<double> rm, rv;
    if (stats) rm = kern::toDoubles(a.tensor(3)), rv = kern::toDoubles(a.tensor(4));
    if (static_cast<int64_t>(w.size()) != C || static_cast<int64_t>(b.size()) != C ||
        (stats && (static_cast<int64_t>(rm.size()) != C || static_cast<int64_t>(rv.size()) != C)))
        return false;
    auto xv = f32(x);
    std::vector<float> y(xv.size());
    std::vector<double> mean(static_cast<size_t>(C)), invstd(static_cast<size_t>(C)), nrm(rm.size()), nrv(rv.size());
    int64_t cnt = N * S;
    for (int64_t c = 0; c < C; ++c) {
        double s = 0;
        for (int64_t n = 0; n < N; ++n) {
            const float* p = xv.data() + (n * C + c) * S;
            for (int64_t i = 0; i < S; ++i) s += p[i];
        }
        double m = cnt ? s / static_cast<double>(cnt) : 0.0, q = 0;
        for (int64_t n = 0; n < N; ++n) {
            const float* p = xv.data() + (n * C + c) * S;
            for (int64_t i = 0; i < S; ++i) q += (p[i] - m) * (p[i] - m);
        }
        double var = cnt ? q / static_cast<double>(cnt) : 0.0;
        double is = 1.0 / std::sqrt(var + eps);
        mean[static_cast<size_t>(c)] = m;
        invstd[static_cast<size_t>(c)] = is;
        double unbiased = cnt > 1 ? q / static_cast<double>(cnt - 1) : var;
        if (stats) {
            nrm[static_cast<size_t>(c)] = (1.0 - mom) * rm[static_cast<size_t>(c)] + mom * m;
            nrv[static_cast<size_t>(c)] = (1.0 - mom) * rv[static_cast<size_t>(c)] + mom * unbiased;
        }
        float scale = static_cast<float>(is * w[static_cast<size_t>(c)]);
        float shift = static_cast<float>(b[static_cast<size_t>(c)] - m * is * w[static_cast<size_t>(c)]);
        for (int64_t n = 0; n < N; ++n) {
            const float* p = xv.data() + (n * C + c) * S;
            float* q2 = y.data() + (n * C + c) * S;
            for (int64_t i = 0; i < S; ++i) q2[i] = p[i] * scale + shift;
        }
    }
    if (yOut) store(*yOut, y);
    if (meanOut) kern::fromDoubles(*meanOut, mean);
    if (invstdOut) kern::fromDoubles(*invstdOut, invstd);
    if (stats && rmOut) kern::fromDoubles(*rmOut, nrm);
    if (stats && rvOut) kern::fromDoubles(*rvOut, nrv);
    return true;
}

/// Evaluation-mode batch norm (training false; eps at `epsArg`): the running statistics
/// normalise. Saved statistics of [C] receive the running mean and 1 / sqrt(running_var + eps),
/// as PyTorch's CUDA kernels save them; empty ones (cuDNN's) and an empty reserve stay empty.
bool batchNormEval(const OpArgs& a, const std::vector<Tensor*>& outs, size_t epsArg) {
    const Tensor& x = a.tensor(0);
    if (outs.empty() || !outs[0] || x.dim() < 2 || !floatLike(x.dtype()) || a.isNone(3) || a.isNone(4)) return false;
    auto [N, C, S] = ncs(x);
    auto w = optParam(a, 1, C, 1.0), b = optParam(a, 2, C, 0.0);
    const auto rm = kern::toDoubles(a.tensor(3)), rv = kern::toDoubles(a.tensor(4));
    const std::vector<double>* perChannel[] = {&w, &b, &rm, &rv};
    for (const std::vector<double>* v : perChannel)
        if (static_cast<int64_t>(v->size()) != C) return false;
    for (size_t i = 1; i < outs.size(); ++i)
        if (outs[i] && outs[i]->numel() != 0 && (i > 2 || outs[i]->numel() != C)) return false;
    const double eps = a.toDouble(epsArg);
    std::vector<double> invstd(static_cast<size_t>(C));
    for (size_t c = 0; c < invstd.size(); ++c) invstd[c] = 1.0 / std::sqrt(rv[c] + eps);
    auto xv = f32(x);
    std::vector<float> y(xv.size());
    for (int64_t n = 0; n < N; ++n)
        for (int64_t c = 0; c < C; ++c) {
            const size_t k = static_cast<size_t>(c);
            const double scale = invstd[k] * w[k], shift = b[k] - rm[k] * scale;
            const float* p = xv.data() + (n * C + c) * S;
            float* q = y.data() + (n * C + c) * S;
            for (int64_t i = 0; i < S; ++i) q[i] = static_cast<float>(p[i] * scale + shift);
        }
    store(*outs[0], y);
    if (outs.size() > 1 && outs[1] && outs[1]->numel() != 0) kern::fromDoubles(*outs[1], rm);
    if (outs.size() > 2 && outs[2] && outs[2]->numel() != 0) kern::fromDoubles(*outs[2], invstd);
    return true;
}

/// batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
/// cudnn_enabled) -> out, as Dynamo-stage graphs keep it, in training mode (evaluation mode is a
/// lowering rule): the batch statistics normalise and the running statistics, when given, are
/// updated in place as PyTorch's kernel does.
bool batchNormComposite(const OpArgs& a, const std::vector<Tensor*>& outs) {
    if (outs.size() != 1 || !outs[0]) return false;
    if (!a.toBool(5)) return batchNormEval(a, outs, 7);
    Tensor rm, rv;
    if (!a.isNone(3) && !a.isNone(4)) rm = a.tensor(3), rv = a.tensor(4);  // aliases: written in place
    if (rm.hasData() && (!floatLike(rm.dtype()) || !floatLike(rv.dtype()))) return false;
    return batchNormCore(a, 6, 7, outs[0], nullptr, nullptr, rm.hasData() ? &rm : nullptr,
                         rv.hasData() ? &rv : nullptr);
}

/// _native_batch_norm_legit_functional: the updated running stats are outputs 3 and 4.
bool batchNormTrain(const OpArgs& a, const std::vector<Tensor*>& outs) {
    if (!a.toBool(5) || outs.size() < 5 || a.isNone(3) || a.isNone(4)) return false;
    for (Tensor* t : outs)
        if (!t) return false;
    return batchNormCore(a, 6, 7, outs[0], outs[1], outs[2], outs[3], outs[4]);
}

/// The batch norms that update their running-stat arguments in place (native_batch_norm,
/// _native_batch_norm_legit, cudnn_batch_norm in training mode; _batch_norm_with_update, whose
/// momentum and eps sit at 5 and 6): outputs (y, mean, invstd[, empty reserve]), the running
/// stats written into the argument tensors' storage as PyTorch's kernels do.
template <size_t MomArg>
bool batchNormUpdate(const OpArgs& a, const std::vector<Tensor*>& outs) {
    if constexpr (MomArg == 6) {
        if (!a.toBool(5)) return batchNormEval(a, outs, 7);
    }
    if (outs.size() < 3 || !outs[0] || !outs[1] || !outs[2]) return false;
    if (outs.size() > 3 && outs[3] && outs[3]->numel() != 0) return false;
    Tensor rm, rv;
    if (!a.isNone(3) && !a.isNone(4)) rm = a.tensor(3), rv = a.tensor(4);  // aliases: written in place
    if (rm.hasData() && (!floatLike(rm.dtype()) || !floatLike(rv.dtype()))) return false;
    return batchNormCore(a, MomArg, MomArg + 1, outs[0], outs[1], outs[2], rm.hasData() ? &rm : nullptr,
                         rv.hasData() ? &rv : nullptr);
}

bool batchNormBackward(const OpArgs& a, const std::vector<Tensor*>& outs) {
    const Tensor& dy = a.tensor(0);
    const Tensor& x = a.tensor(1);
    if (x.dim() < 2 || !floatLike(x.dtype()) || !floatLike(dy.dtype()) || outs.size() < 3) return false;
    bool train = a.toBool(7);
    double eps = a.toDouble(8);
    auto [N, C, S] = ncs(x);
    auto w = optParam(a, 2, C, 1.0);
    std::vector<double> mean, invstd;
    if (train) {
        if (a.isNone(5) || a.isNone(6)) return false;
        mean = kern::toDoubles(a.tensor(5));
        invstd = kern::toDoubles(a.tensor(6));
    } else {
        if (a.isNone(3) || a.isNone(4)) return false;
        mean = kern::toDoubles(a.tensor(3));
        auto rv = kern::toDoubles(a.tensor(4));
        for (double& v : rv) v = 1.0 / std::sqrt(v + eps);
        invstd = rv;
    }
    auto xv = f32(x), gv = f32(dy);
    std::vector<float> dx(outs[0] ? xv.size() : 0);
    std::vector<double> dw(static_cast<size_t>(C)), db(static_cast<size_t>(C));
    double cnt = static_cast<double>(N * S);
    for (int64_t c = 0; c < C; ++c) {
        double m = mean[static_cast<size_t>(c)], is = invstd[static_cast<size_t>(c)];
        double sg = 0, dot = 0;
        for (int64_t n = 0; n < N; ++n) {
            const float* xp = xv.data() + (n * C + c) * S;
            const float* gp = gv.data() + (n * C + c) * S;
            for (int64_t i = 0; i < S; ++i) {
                sg += gp[i];
                dot += gp[i] * (xp[i] - m);
            }
        }
        dw[static_cast<size_t>(c)] = dot * is;
        db[static_cast<size_t>(c)] = sg;
        if (!outs[0]) continue;
        double wc = w[static_cast<size_t>(c)];
        // train: dx = (dy - mean(dy) - (x - mean) * invstd^2 * mean(dy * (x - mean))) * invstd * w
        float k1 = static_cast<float>(is * wc);
        float gm = train && cnt > 0 ? static_cast<float>(sg / cnt) : 0.0f;
        float proj = train && cnt > 0 ? static_cast<float>(dot / cnt * is * is) : 0.0f;
        float mf = static_cast<float>(m);
        for (int64_t n = 0; n < N; ++n) {
            const float* xp = xv.data() + (n * C + c) * S;
            const float* gp = gv.data() + (n * C + c) * S;
            float* dp = dx.data() + (n * C + c) * S;
            for (int64_t i = 0; i < S; ++i) dp[i] = (gp[i] - gm - (xp[i] - mf) * proj) * k1;
        }
    }
    if (outs[0]) store(*outs[0], dx);
    if (outs[1]) kern::fromDoubles(*outs[1], dw);
    if (outs[2]) kern::fromDoubles(*outs[2], db);
    return true;
}

}  // namespace

const std::vector<CpuExtern>& trainExterns() {
    static const std::vector<CpuExtern> t = {
        {"embedding_backward", single<embeddingBackward>},
        {"index_add", single<indexAdd>},
        {"index_put", single<indexPut>},
        {"max_pool2d", multi<maxPool>},
        {"max_pool2d_backward", single<maxPoolBackward>},
        {"batch_norm_train", multi<batchNormTrain>},
        {"batch_norm_update", multi<batchNormUpdate<6>>},
        {"batch_norm_with_update", multi<batchNormUpdate<5>>},
        {"batch_norm_composite", multi<batchNormComposite>},
        {"batch_norm_backward", multi<batchNormBackward>},
    };
    return t;
}

}  // namespace fxray::cg::cpu
