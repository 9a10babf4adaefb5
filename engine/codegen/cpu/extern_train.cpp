// Extern kernels of the CPU backend for the training ops that are scatters or windowed
// gathers with data-dependent writes (embedding/index backward, index_add/index_put with
// accumulation, max pooling with indices and its backward), batch normalisation in training
// mode (with running-stat updates) and its backward, and convolution backward (col2im + GEMM).
// They are compiled C++ (not the reference interpreter): fp32 math on contiguous copies,
// fp64 accumulation for the per-channel statistics so they match PyTorch's within 1e-5.
// Their table: extern_table.h trainExterns().
//
// Each works on contiguous fp32 copies of its
// operands and writes its outputs through store(), which honours the output's layout. Any
// instance outside what is handled (an index out of range, a transposed convolution, a
// non-float dtype) returns false before writing, so that the reference kernel reports the
// error or computes the unusual case.
#include "codegen/cpu/extern_table.h"

#include "codegen/cpu/extern_kernels.h"
#include "codegen/cpu/extern_util.h"
#include "exec/ops/kernel_util.h"

#include <cmath>
#include <cstring>
#include <limits>

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
    if (self.dim() == 0 || index.dim() > 1 || !floatLike(self.dtype()) || !intLike(index.dtype())) return false;
    int64_t dim = a.toInt(1);
    if (dim < 0) dim += self.dim();
    int64_t size = self.shape()[static_cast<size_t>(dim)];
    int64_t outer = product(self.shape(), 0, static_cast<size_t>(dim));
    int64_t inner = product(self.shape(), static_cast<size_t>(dim) + 1, self.shape().size());
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

/// index_put / _unsafe_index_put(self, indices, values, accumulate) with PyTorch's advanced
/// indexing: None items (and the dims past the list) are kept, the integer index tensors are
/// broadcast together and pick the elements; adjacent index tensors put their broadcast dims where
/// they stand, separated ones first (the gradient of x[arange, argmax] (CLIP's pooling), of
/// Z[:, li, lj] (DLRM) and of upsampling's gathers [None, None, ih, iw]). Boolean masks are left to
/// the reference kernel.
bool indexPut(const OpArgs& a, Tensor& out) {
    const Tensor& self = a.tensor(0);
    const Value& list = a[1];
    const size_t nd = static_cast<size_t>(self.dim());
    if (!list.isList() || list.list.empty() || nd == 0 || list.list.size() > nd || !floatLike(self.dtype()))
        return false;
    const size_t k = list.list.size();
    std::vector<size_t> tpos;
    std::vector<int64_t> B;
    for (size_t i = 0; i < k; ++i) {
        const Value& it = list.list[i];
        if (it.isNone()) continue;
        if (!it.isTensor() || !intLike(it.t.dtype())) return false;
        auto b = tpos.empty() ? std::optional<std::vector<int64_t>>(it.t.shape()) : kern::broadcastShapes(B, it.t.shape());
        if (!b) return false;
        B = *b;
        tpos.push_back(i);
    }
    if (tpos.empty()) return false;
    const bool adjacent = tpos.back() - tpos.front() + 1 == tpos.size();
    const auto& ss = self.shape();
    std::vector<size_t> kept;  // self dims not indexed, in order
    for (size_t d = 0; d < nd; ++d)
        if (d >= k || list.list[d].isNone()) kept.push_back(d);
    // Result (values) shape: B where the indexed dims stand (adjacent) or first.
    const size_t bAt = adjacent ? tpos.front() : 0;
    std::vector<int64_t> rshape;
    for (size_t j = 0; j < kept.size() && adjacent && kept[j] < bAt; ++j) rshape.push_back(ss[kept[j]]);
    rshape.insert(rshape.end(), B.begin(), B.end());
    for (size_t d : kept)
        if (!adjacent || d > tpos.back()) rshape.push_back(ss[d]);
    const int64_t total = product(rshape, 0, rshape.size());
    std::vector<std::vector<int64_t>> iv(k);
    for (size_t i : tpos) {
        const auto d = kern::toDoublesBroadcast(list.list[i].t, B);
        const int64_t size = ss[i];
        for (double x : d) {
            int64_t v = static_cast<int64_t>(x);
            if (v < -size || v >= size) return false;  // the reference kernel reports it
            iv[i].push_back(v < 0 ? v + size : v);
        }
    }
    const Tensor& vals = a.tensor(2);
    if (!kern::broadcastShapes(vals.shape(), rshape) || *kern::broadcastShapes(vals.shape(), rshape) != rshape)
        return false;
    const auto v = kern::toDoublesBroadcast(vals, rshape);
    const bool acc = a.toBool(3);
    auto r = f32(self);
    std::vector<int64_t> selfStride(nd, 1);
    for (size_t d = nd - 1; d > 0; --d) selfStride[d - 1] = selfStride[d] * ss[d];
    std::vector<int64_t> co(rshape.size(), 0);
    for (int64_t e = 0; e < total; ++e) {
        int64_t rest = e;
        for (size_t d = rshape.size(); d-- > 0;) {
            co[d] = rest % rshape[d];
            rest /= rshape[d];
        }
        int64_t bflat = 0;
        for (size_t j = 0; j < B.size(); ++j) bflat = bflat * B[j] + co[bAt + j];
        int64_t off = 0;
        size_t nextKept = 0;  // position in co of the next kept dim
        for (size_t d = 0; d < nd; ++d) {
            const bool indexed = d < k && !list.list[d].isNone();
            int64_t c;
            if (indexed) {
                c = iv[d][static_cast<size_t>(bflat)];
            } else {
                // Kept dims before the indexed block (adjacent) come first; the others follow B.
                const bool beforeB = adjacent && d < tpos.front();
                c = co[beforeB ? nextKept : nextKept + B.size()];
                ++nextKept;
            }
            off += c * selfStride[d];
        }
        float& dst = r[static_cast<size_t>(off)];
        const float x = static_cast<float>(v[static_cast<size_t>(e)]);
        dst = acc ? dst + x : x;
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
        if (!a.toBool(5)) return false;  // evaluation mode: the running stats normalise
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

// ----- convolution backward ------------------------------------------------------------------

bool convBackward(const OpArgs& a, const std::vector<Tensor*>& outs) {
    const Tensor& dy = a.tensor(0);
    const Tensor& x = a.tensor(1);
    const Tensor& w = a.tensor(2);
    if (x.dim() != 4 || w.dim() != 4 || dy.dim() != 4 || a.toBool(7) || !floatLike(x.dtype()) || outs.size() < 3)
        return false;
    auto pick = [](const std::vector<int64_t>& v, size_t i) { return v.size() == 1 ? v[0] : v[i]; };
    auto stride = a.toIntList(4), pad = a.toIntList(5), dil = a.toIntList(6);
    int64_t groups = a.toInt(9);
    int64_t N = x.shape()[0], C = x.shape()[1], H = x.shape()[2], W = x.shape()[3];
    int64_t O = w.shape()[0], Cg = w.shape()[1], KH = w.shape()[2], KW = w.shape()[3];
    int64_t OH = dy.shape()[2], OW = dy.shape()[3];
    int64_t sh = pick(stride, 0), sw = pick(stride, 1), ph = pick(pad, 0), pw = pick(pad, 1), dh = pick(dil, 0),
            dw = pick(dil, 1);
    if (groups <= 0 || C != Cg * groups || O % groups) return false;
    int64_t Og = O / groups, Kd = Cg * KH * KW, P = OH * OW;
    auto xv = f32(x), wv = f32(w), gv = f32(dy);
    std::vector<float> dx(outs[0] ? xv.size() : 0, 0.0f), dW(outs[1] ? wv.size() : 0, 0.0f);
    std::vector<float> col(static_cast<size_t>(Kd * P));
    // (c, kh, kw, oh, ow) -> input offset within one image's group, or -1 for padding
    std::vector<int64_t> map(static_cast<size_t>(Kd * P));
    for (int64_t c = 0; c < Cg; ++c)
        for (int64_t kh = 0; kh < KH; ++kh)
            for (int64_t kw = 0; kw < KW; ++kw)
                for (int64_t oh = 0; oh < OH; ++oh)
                    for (int64_t ow = 0; ow < OW; ++ow) {
                        int64_t ih = oh * sh - ph + kh * dh, iw = ow * sw - pw + kw * dw;
                        map[static_cast<size_t>((((c * KH + kh) * KW + kw) * OH + oh) * OW + ow)] =
                            (ih < 0 || ih >= H || iw < 0 || iw >= W) ? -1 : (c * H + ih) * W + iw;
                    }
    for (int64_t n = 0; n < N; ++n)
        for (int64_t g = 0; g < groups; ++g) {
            const float* gy = gv.data() + (n * O + g * Og) * P;
            if (outs[1]) {
                const float* xs = xv.data() + (n * C + g * Cg) * H * W;
                for (size_t e = 0; e < col.size(); ++e) col[e] = map[e] < 0 ? 0.0f : xs[map[e]];
                // dW_g[Og, Kd] += dy[Og, P] @ col[Kd, P]^T
                sgemm(Og, Kd, P, 1.0f, gy, P, 1, col.data(), 1, P, 1.0f, dW.data() + g * Og * Kd, Kd);
            }
            if (outs[0]) {
                // col[Kd, P] = W_g^T @ dy, then scattered back (col2im)
                sgemm(Kd, P, Og, 1.0f, wv.data() + g * Og * Kd, 1, Kd, gy, P, 1, 0.0f, col.data(), P);
                float* xd = dx.data() + (n * C + g * Cg) * H * W;
                for (size_t e = 0; e < col.size(); ++e)
                    if (map[e] >= 0) xd[map[e]] += col[e];
            }
        }
    if (outs[0]) store(*outs[0], dx);
    if (outs[1]) store(*outs[1], dW);
    if (outs[2]) {
        std::vector<double> db(static_cast<size_t>(O), 0.0);
        for (int64_t n = 0; n < N; ++n)
            for (int64_t o = 0; o < O; ++o) {
                const float* p = gv.data() + (n * O + o) * P;
                double s = 0;
                for (int64_t i = 0; i < P; ++i) s += p[i];
                db[static_cast<size_t>(o)] += s;
            }
        kern::fromDoubles(*outs[2], db);
    }
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
        {"batch_norm_backward", multi<batchNormBackward>},
        {"conv_backward", multi<convBackward>},
    };
    return t;
}

}  // namespace fxray::cg::cpu
