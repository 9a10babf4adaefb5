// Extern kernels of the CPU backend for ops that TorchInductor itself does not lower but runs as
// fallback kernels (`make_fallback` in torch/_inductor/lowering.py, AOTInductor's
// fallback_ops.py): sort (sort.stable, topk), adaptive and fractional max pooling (2-D and 3-D), 3-D max pooling
// with indices, segment_reduce and their backwards, masked_select, the unique family and
// repeat_interleave.Tensor (data-dependent lengths);
// and the data-dependent flat or masked writes put and _unsafe_masked_index_put_accumulate
// (Inductor's index_put with accumulation, which fxray runs as an extern kernel too); and copy_
// into a graph input, written into the input's buffer in place. Their outputs are data-dependent selections or irregular windows
// that do not fit a loop nest over the output, so, as in Inductor, they are opaque calls; unlike
// a reference fallback they are named steps of the compiled program (`compile --json` lists
// them as extern steps) and run compiled C++ here rather than the interpreter's kernels.
// Their tables: extern_table.h fallbackOpExterns() and dataSizedExternKernels().
//
// Each reads its operands as row-major copies and writes through the output's own layout
// (extern_util.h). An instance outside what is handled (a non-float dtype, indices out of
// range, segments past the axis) returns false before writing, so that the reference kernel
// reports the error or computes the unusual case, a reported fallback.
#include "codegen/cpu/extern_table.h"

#include "codegen/cpu/extern_util.h"
#include "exec/ops/kernel_util.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace fxray::cg::cpu {

namespace {

bool intLike(DType t) { return t == DType::Int64 || t == DType::Int32; }

int64_t span(const std::vector<int64_t>& s, size_t from, size_t to) {
    int64_t p = 1;
    for (size_t d = from; d < to && d < s.size(); ++d) p *= s[d];
    return p;
}

// ----- sort, sort.stable and topk -> (values, indices) ---------------------------------------

/// A stable sort of each row along dim, keeping the first k of each ([outer, k, inner], dense
/// outputs); NaN orders above every number (last ascending, first descending), as PyTorch's sort
/// does, so equal keys and NaNs keep PyTorch's indices.
bool sortedRows(const Tensor& x, int64_t dim, bool descending, int64_t k, const std::vector<Tensor*>& outs) {
    if (outs.size() < 2 || !outs[0] || !outs[1]) return false;
    const int64_t nd = std::max<int64_t>(x.dim(), 1);
    if (dim < 0) dim += nd;
    if (dim < 0 || dim >= nd) return false;
    const auto& shape = x.shape();
    const int64_t n = x.dim() == 0 ? 1 : shape[static_cast<size_t>(dim)];
    const int64_t inner = span(shape, static_cast<size_t>(dim) + 1, shape.size());
    const int64_t outer = n * inner == 0 ? 0 : x.numel() / (n * inner);
    if (k < 0 || k > n || outs[0]->numel() != outer * k * inner || outs[1]->numel() != outs[0]->numel()) return false;
    const std::vector<double> v = kern::toDoubles(x);
    std::vector<double> vals(static_cast<size_t>(outer * k * inner)), idx(vals.size());
    std::vector<int64_t> order(static_cast<size_t>(n));
    std::vector<double> row(order.size());
    auto before = [descending](double p, double q) {
        if (descending) return (std::isnan(p) && !std::isnan(q)) || p > q;
        return (!std::isnan(p) && std::isnan(q)) || p < q;
    };
    for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i) {
            const int64_t base = o * n * inner + i;
            for (int64_t j = 0; j < n; ++j) row[static_cast<size_t>(j)] = v[static_cast<size_t>(base + j * inner)];
            std::iota(order.begin(), order.end(), int64_t{0});
            std::stable_sort(order.begin(), order.end(), [&](int64_t p, int64_t q) {
                return before(row[static_cast<size_t>(p)], row[static_cast<size_t>(q)]);
            });
            for (int64_t j = 0; j < k; ++j) {
                const auto e = static_cast<size_t>((o * k + j) * inner + i);
                vals[e] = row[static_cast<size_t>(order[static_cast<size_t>(j)])];
                idx[e] = static_cast<double>(order[static_cast<size_t>(j)]);
            }
        }
    kern::fromDoubles(*outs[0], vals);
    kern::fromDoubles(*outs[1], idx);
    return true;
}

/// sort(self, dim, descending) and sort.stable(self, *, stable, dim, descending): every row whole.
template <size_t DimArg>
bool sortRows(const OpArgs& a, const std::vector<Tensor*>& outs) {
    const Tensor& x = a.tensor(0);
    const int64_t nd = std::max<int64_t>(x.dim(), 1);
    int64_t dim = a.toInt(DimArg);
    if (dim < 0) dim += nd;
    if (dim < 0 || dim >= nd) return false;
    return sortedRows(x, dim, a.toBool(DimArg + 1), x.dim() == 0 ? 1 : x.shape()[static_cast<size_t>(dim)], outs);
}

/// topk(self, k, dim, largest, sorted): the first k of each row sorted by largest (the order
/// sorted=False leaves unspecified is the sorted one here too).
bool topk(const OpArgs& a, const std::vector<Tensor*>& outs) {
    return sortedRows(a.tensor(0), a.toInt(2), a.toBool(3), a.toInt(1), outs);
}

// ----- _unique, _unique2, unique_consecutive (flattened) and repeat_interleave.Tensor ----------
// Their output sizes are the input's values' (the lowering sizes the buffers from the graph's
// annotations): an instance whose values give other sizes declines to the reference kernel.

/// The distinct values, sorted (NaN last, each NaN distinct as NaN != NaN) or, Consecutive, the
/// runs of equal values in input order; the inverse (each element's place among them) and the
/// counts where their arguments ask, as the reference kernel (exec/ops/sort.cpp).
template <int InverseArg, int CountsArg, bool Consecutive>
bool uniqueValues(const OpArgs& a, const std::vector<Tensor*>& outs) {
    if ((Consecutive && !a.isNone(3)) || outs.empty() || !outs[0]) return false;
    const std::vector<double> x = kern::toDoubles(a.tensor(0));
    std::vector<size_t> order(x.size());
    std::iota(order.begin(), order.end(), size_t{0});
    if (!Consecutive)
        std::stable_sort(order.begin(), order.end(),
                         [&](size_t p, size_t q) { return (!std::isnan(x[p]) && std::isnan(x[q])) || x[p] < x[q]; });
    std::vector<double> values, inverse(x.size()), counts;
    for (size_t i = 0; i < order.size(); ++i) {
        const double v = x[order[i]];
        if (values.empty() || !(values.back() == v)) {
            values.push_back(v);
            counts.push_back(0.0);
        }
        counts.back() += 1.0;
        inverse[order[i]] = static_cast<double>(values.size() - 1);
    }
    const bool wantInverse = a.toBool(InverseArg), wantCounts = CountsArg >= 0 && a.toBool(size_t(CountsArg));
    auto fits = [&](size_t i, bool wanted, size_t n) {
        return i >= outs.size() || !outs[i] || outs[i]->numel() == static_cast<int64_t>(wanted ? n : 0);
    };
    if (outs[0]->numel() != static_cast<int64_t>(values.size()) || !fits(1, wantInverse, x.size()) ||
        !fits(2, wantCounts, values.size()))
        return false;
    kern::fromDoubles(*outs[0], values);
    if (wantInverse && outs.size() > 1 && outs[1]) kern::fromDoubles(*outs[1], inverse);
    if (wantCounts && outs.size() > 2 && outs[2]) kern::fromDoubles(*outs[2], counts);
    return true;
}

/// repeat_interleave.Tensor(repeats, *, output_size): [0] * r0 + [1] * r1 + ... (int64).
bool repeatInterleave(const OpArgs& a, Tensor& out) {
    const Tensor& r = a.tensor(0);
    if (r.dim() > 1 || !intLike(r.dtype())) return false;
    const std::vector<double> counts = kern::toDoubles(r);
    double total = 0;
    for (double c : counts) {
        if (c < 0) return false;
        total += c;
    }
    if (total != static_cast<double>(out.numel())) return false;
    std::vector<double> idx;
    idx.reserve(static_cast<size_t>(total));
    for (size_t i = 0; i < counts.size(); ++i) idx.insert(idx.end(), static_cast<size_t>(counts[i]), double(i));
    kern::fromDoubles(out, idx);
    return true;
}

/// nonzero(self): the row-major coordinates of self's nonzero elements (NaN included), int64
/// [n, ndim]; n was fixed from the real input when the graph compiled.
bool nonzero(const OpArgs& a, Tensor& out) {
    const Tensor& t = a.tensor(0);
    const std::vector<double> rows = kern::nonzeroCoords(kern::toDoubles(t), t.shape());
    if (static_cast<int64_t>(rows.size()) != out.numel()) return false;
    kern::fromDoubles(out, rows);
    return true;
}

/// bincount(self, weights, minlength): per value of self, its count or its weights' sum (float
/// weights summed in float, as ATen's kernel). Declines what the reference reports (negative
/// values, a length other than the one compiled).
bool bincount(const OpArgs& a, Tensor& out) {
    const Tensor& t = a.tensor(0);
    if (t.dim() != 1 || !intLike(t.dtype()) || out.dim() != 1) return false;
    const bool weighted = !a.isNone(1);
    if (weighted && a.tensor(1).numel() != t.numel()) return false;
    const std::vector<double> x = kern::toDoubles(t);
    for (double v : x)
        if (v < 0 || v >= static_cast<double>(out.numel())) return false;
    const std::vector<double> w = weighted ? kern::toDoubles(a.tensor(1)) : std::vector<double>{};
    kern::fromDoubles(out, kern::bincountBins(x, weighted ? &w : nullptr, static_cast<size_t>(out.numel()),
                                              out.dtype() == DType::Float32));
    return true;
}

// ----- adaptive_max_pool{2,3}d(self, output_size) -> (out, indices) --------------------------

/// Bin i of `out` over an axis of `in`: [floor(i*in/out), ceil((i+1)*in/out)).
int64_t binStart(int64_t i, int64_t out, int64_t in) { return (i * in) / out; }
int64_t binEnd(int64_t i, int64_t out, int64_t in) { return ((i + 1) * in + out - 1) / out; }

/// The last `nsp` dims are spatial (padded to three with leading 1s); the others are planes.
struct Planes {
    int64_t planes = 1;
    int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1};
};

bool adaptiveMaxPool(const OpArgs& a, const std::vector<Tensor*>& outs) {
    const Tensor& x = a.tensor(0);
    const auto os = a.toIntList(1);
    const int64_t nsp = static_cast<int64_t>(os.size());
    if (outs.size() < 2 || !outs[0] || !outs[1] || (nsp != 2 && nsp != 3) || x.dim() < nsp + 1 || !floatLike(x.dtype()))
        return false;
    Planes g;
    const size_t first = static_cast<size_t>(x.dim() - nsp);
    g.planes = span(x.shape(), 0, first);
    for (int64_t i = 0; i < nsp; ++i) {
        g.in[3 - nsp + i] = x.shape()[first + static_cast<size_t>(i)];
        g.out[3 - nsp + i] = os[static_cast<size_t>(i)];
        if (g.out[3 - nsp + i] <= 0 || g.in[3 - nsp + i] <= 0) return false;
    }
    const int64_t inSize = g.in[0] * g.in[1] * g.in[2], outSize = g.out[0] * g.out[1] * g.out[2];
    if (outs[0]->numel() != g.planes * outSize || outs[1]->numel() != g.planes * outSize) return false;
    const auto xv = f32(x);
    std::vector<float> y(static_cast<size_t>(g.planes * outSize));
    std::vector<double> ix(y.size());
    for (int64_t pl = 0; pl < g.planes; ++pl) {
        const float* xp = xv.data() + pl * inSize;
        int64_t o = pl * outSize;
        for (int64_t o0 = 0; o0 < g.out[0]; ++o0)
            for (int64_t o1 = 0; o1 < g.out[1]; ++o1)
                for (int64_t o2 = 0; o2 < g.out[2]; ++o2, ++o) {
                    const int64_t t0 = binStart(o0, g.out[0], g.in[0]), t1 = binEnd(o0, g.out[0], g.in[0]);
                    const int64_t h0 = binStart(o1, g.out[1], g.in[1]), h1 = binEnd(o1, g.out[1], g.in[1]);
                    const int64_t w0 = binStart(o2, g.out[2], g.in[2]), w1 = binEnd(o2, g.out[2], g.in[2]);
                    float best = -std::numeric_limits<float>::infinity();
                    int64_t bi = (t0 * g.in[1] + h0) * g.in[2] + w0;
                    for (int64_t t = t0; t < t1; ++t)
                        for (int64_t h = h0; h < h1; ++h)
                            for (int64_t w = w0; w < w1; ++w) {
                                const int64_t e = (t * g.in[1] + h) * g.in[2] + w;
                                // NaN propagates, as in PyTorch (v > best || isnan(v)).
                                if (xp[e] > best || std::isnan(xp[e])) best = xp[e], bi = e;
                            }
                    y[static_cast<size_t>(o)] = best;
                    ix[static_cast<size_t>(o)] = static_cast<double>(bi);
                }
    }
    store(*outs[0], y);
    kern::fromDoubles(*outs[1], ix);
    return true;
}

/// max_pool3d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode) -> (out,
/// indices): the output size comes from the preallocated output (the meta function applied
/// ceil_mode); windows clipped to the input; NaN propagates; indices are flat within the plane.
bool maxPool3d(const OpArgs& a, const std::vector<Tensor*>& outs) {
    const Tensor& x = a.tensor(0);
    if (outs.size() < 2 || !outs[0] || !outs[1] || x.dim() < 4 || !floatLike(x.dtype())) return false;
    auto pick = [](const std::vector<int64_t>& v, size_t i, int64_t dflt) {
        return v.empty() ? dflt : v.size() == 1 ? v[0] : v[i];
    };
    const auto K = a.toIntList(1), S = a.toIntList(2), P = a.toIntList(3), D = a.toIntList(4);
    int64_t k[3], st[3], pd[3], dl[3], in[3], out[3];
    const size_t first = static_cast<size_t>(x.dim() - 3);
    for (size_t i = 0; i < 3; ++i) {
        k[i] = pick(K, i, 1);
        st[i] = pick(S, i, k[i]);
        pd[i] = pick(P, i, 0);
        dl[i] = pick(D, i, 1);
        in[i] = x.shape()[first + i];
        out[i] = outs[0]->shape()[first + i];
        if (k[i] <= 0 || st[i] <= 0 || dl[i] <= 0) return false;
    }
    const int64_t planes = span(x.shape(), 0, first), inSize = in[0] * in[1] * in[2],
                  outSize = out[0] * out[1] * out[2];
    const auto xv = f32(x);
    std::vector<float> y(static_cast<size_t>(planes * outSize));
    std::vector<double> ix(y.size());
    for (int64_t pl = 0; pl < planes; ++pl) {
        const float* xp = xv.data() + pl * inSize;
        int64_t o = pl * outSize;
        for (int64_t o0 = 0; o0 < out[0]; ++o0)
            for (int64_t o1 = 0; o1 < out[1]; ++o1)
                for (int64_t o2 = 0; o2 < out[2]; ++o2, ++o) {
                    float best = -std::numeric_limits<float>::infinity();
                    int64_t bi = -1;
                    for (int64_t i = 0; i < k[0]; ++i) {
                        const int64_t t = o0 * st[0] - pd[0] + i * dl[0];
                        if (t < 0 || t >= in[0]) continue;
                        for (int64_t j = 0; j < k[1]; ++j) {
                            const int64_t h = o1 * st[1] - pd[1] + j * dl[1];
                            if (h < 0 || h >= in[1]) continue;
                            for (int64_t l = 0; l < k[2]; ++l) {
                                const int64_t w = o2 * st[2] - pd[2] + l * dl[2];
                                if (w < 0 || w >= in[2]) continue;
                                const int64_t e = (t * in[1] + h) * in[2] + w;
                                // NaN propagates, as in PyTorch (v > best || isnan(v)).
                                if (bi < 0 || xp[e] > best || std::isnan(xp[e])) best = xp[e], bi = e;
                            }
                        }
                    }
                    y[static_cast<size_t>(o)] = best;
                    ix[static_cast<size_t>(o)] = static_cast<double>(bi);
                }
    }
    store(*outs[0], y);
    kern::fromDoubles(*outs[1], ix);
    return true;
}

/// fractional_max_pool{2,3}d(self, kernel_size, output_size, random_samples) -> (out, indices):
/// window starts from each plane's samples as ATen's CUDA kernels compute them (in fp32:
/// (int)((i + u) * alpha) - (int)(u * alpha), the last window flush with the end); the 2-D op
/// takes width's sample first, the 3-D op time, height, width.
bool fractionalMaxPool(const OpArgs& a, const std::vector<Tensor*>& outs) {
    const Tensor& x = a.tensor(0);
    const auto K = a.toIntList(1), O = a.toIntList(2);
    const size_t nsp = K.size();
    if (outs.size() < 2 || !outs[0] || !outs[1] || (nsp != 2 && nsp != 3) || O.size() != nsp ||
        x.dim() < static_cast<int64_t>(nsp) + 1 || !floatLike(x.dtype()))
        return false;
    const size_t first = static_cast<size_t>(x.dim()) - nsp;
    const int64_t planes = span(x.shape(), 0, first);
    int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, k[3] = {1, 1, 1};
    for (size_t i = 0; i < nsp; ++i) {
        in[3 - nsp + i] = x.shape()[first + i];
        out[3 - nsp + i] = O[i];
        k[3 - nsp + i] = K[i];
        if (O[i] <= 0 || K[i] <= 0 || K[i] > x.shape()[first + i]) return false;
    }
    const auto samples = f32(a.tensor(3));
    if (static_cast<int64_t>(samples.size()) != planes * static_cast<int64_t>(nsp)) return false;
    auto interval = [](float u, int64_t i, int64_t inSize, int64_t outSize, int64_t pool) -> int64_t {
        if (i == outSize - 1) return inSize - pool;
        const float alpha = static_cast<float>(inSize - pool) / static_cast<float>(outSize - 1);
        return static_cast<int64_t>((static_cast<float>(i) + u) * alpha) - static_cast<int64_t>(u * alpha);
    };
    const int64_t inSize = in[0] * in[1] * in[2], outSize = out[0] * out[1] * out[2];
    if (outs[0]->numel() != planes * outSize || outs[1]->numel() != planes * outSize) return false;
    const auto xv = f32(x);
    std::vector<float> y(static_cast<size_t>(planes * outSize));
    std::vector<double> ix(y.size());
    for (int64_t pl = 0; pl < planes; ++pl) {
        const float* u = samples.data() + pl * static_cast<int64_t>(nsp);
        // Sample per spatial dim (t, h, w): 3-D reads them in order, 2-D reads w first.
        const float su[3] = {nsp == 3 ? u[0] : 0.0f, u[1], nsp == 3 ? u[2] : u[0]};
        const float* xp = xv.data() + pl * inSize;
        int64_t o = pl * outSize;
        for (int64_t o0 = 0; o0 < out[0]; ++o0)
            for (int64_t o1 = 0; o1 < out[1]; ++o1)
                for (int64_t o2 = 0; o2 < out[2]; ++o2, ++o) {
                    const int64_t t0 = nsp == 3 ? interval(su[0], o0, in[0], out[0], k[0]) : 0;
                    const int64_t h0 = interval(su[1], o1, in[1], out[1], k[1]);
                    const int64_t w0 = interval(su[2], o2, in[2], out[2], k[2]);
                    float best = -std::numeric_limits<float>::infinity();
                    int64_t bi = (t0 * in[1] + h0) * in[2] + w0;
                    for (int64_t t = t0; t < t0 + k[0]; ++t)
                        for (int64_t h = h0; h < h0 + k[1]; ++h)
                            for (int64_t w = w0; w < w0 + k[2]; ++w) {
                                const int64_t e = (t * in[1] + h) * in[2] + w;
                                if (xp[e] > best || std::isnan(xp[e])) best = xp[e], bi = e;
                            }
                    y[static_cast<size_t>(o)] = best;
                    ix[static_cast<size_t>(o)] = static_cast<double>(bi);
                }
    }
    store(*outs[0], y);
    kern::fromDoubles(*outs[1], ix);
    return true;
}

/// The max poolings' backwards (grad_output, self, ..., indices at `IdxArg`): each gradient
/// added at the flat position within its plane that indices names.
template <size_t IdxArg>
bool maxPoolBackwardByIndices(const OpArgs& a, Tensor& out) {
    const Tensor& g = a.tensor(0);
    const Tensor& x = a.tensor(1);
    const Tensor& idx = a.tensor(IdxArg);
    const int64_t nsp = a.op().schema.name.find("3d") != std::string::npos ? 3 : 2;
    if (x.dim() < nsp + 1 || g.dim() != x.dim() || !floatLike(g.dtype()) || !intLike(idx.dtype()) ||
        idx.numel() != g.numel() || out.numel() != x.numel())
        return false;
    const size_t first = static_cast<size_t>(x.dim() - nsp);
    const int64_t planes = span(x.shape(), 0, first);
    const int64_t inSize = span(x.shape(), first, x.shape().size());
    const int64_t outSize = span(g.shape(), first, g.shape().size());
    const auto gv = f32(g);
    const auto iv = kern::toDoubles(idx);
    for (double i : iv)
        if (i < 0 || i >= static_cast<double>(inSize)) return false;
    std::vector<float> r(static_cast<size_t>(x.numel()), 0.0f);
    for (int64_t pl = 0; pl < planes; ++pl)
        for (int64_t o = 0; o < outSize; ++o) {
            const size_t s = static_cast<size_t>(pl * outSize + o);
            r[static_cast<size_t>(pl * inSize + static_cast<int64_t>(iv[s]))] += gv[s];
        }
    store(out, r);
    return true;
}

// ----- segment_reduce and its backward -------------------------------------------------------

enum class Seg { Max, Min, Sum, Mean, Prod };

bool segKind(const std::string& s, Seg& k) {
    if (s == "max")
        k = Seg::Max;
    else if (s == "min")
        k = Seg::Min;
    else if (s == "sum")
        k = Seg::Sum;
    else if (s == "mean")
        k = Seg::Mean;
    else if (s == "prod")
        k = Seg::Prod;
    else
        return false;
    return true;
}

/// data seen as [outer, axisLen, inner]; start/length of segment s of row o at o * count + s.
struct SegPlan {
    Seg kind = Seg::Sum;
    int64_t outer = 1, axisLen = 1, inner = 1, count = 0;
    std::vector<int64_t> start, length;
    bool hasInitial = false;
    double initial = 0.0;
};

/// Resolves the segments from lengths or offsets (argument positions differ between forward
/// and backward); false for anything unusual, which the reference kernel then reports.
bool planSegments(const OpArgs& a, size_t dataArg, size_t reduceArg, size_t lengthsArg, size_t offsetsArg,
                  size_t axisArg, size_t initialArg, SegPlan& p) {
    const Tensor& data = a.tensor(dataArg);
    if (!floatLike(data.dtype()) || data.dim() == 0 || !segKind(a[reduceArg].s, p.kind)) return false;
    int64_t axis = a.toInt(axisArg);
    if (axis < 0) axis += data.dim();
    if (axis < 0 || axis >= data.dim()) return false;
    const bool byOffsets = a.isNone(lengthsArg);
    if (byOffsets && a.isNone(offsetsArg)) return false;
    const Tensor& seg = a.tensor(byOffsets ? offsetsArg : lengthsArg);
    if (!intLike(seg.dtype()) || seg.dim() != axis + 1) return false;
    for (int64_t i = 0; i < axis; ++i)
        if (seg.shape()[static_cast<size_t>(i)] != data.shape()[static_cast<size_t>(i)]) return false;
    p.outer = span(data.shape(), 0, static_cast<size_t>(axis));
    p.axisLen = data.shape()[static_cast<size_t>(axis)];
    p.inner = span(data.shape(), static_cast<size_t>(axis) + 1, data.shape().size());
    const int64_t last = seg.shape()[static_cast<size_t>(axis)];
    p.count = byOffsets ? last - 1 : last;
    if (p.count < 0) return false;
    p.hasInitial = !a.isNone(initialArg);
    if (p.hasInitial) p.initial = a.toDouble(initialArg);
    const auto v = kern::toDoubles(seg);
    for (int64_t o = 0; o < p.outer; ++o) {
        int64_t cursor = 0;
        for (int64_t s = 0; s < p.count; ++s) {
            const size_t at = static_cast<size_t>(o * last + s);
            const int64_t st = byOffsets ? static_cast<int64_t>(v[at]) : cursor;
            const int64_t len = byOffsets ? static_cast<int64_t>(v[at + 1]) - st : static_cast<int64_t>(v[at]);
            if (len < 0 || st < 0 || st + len > p.axisLen) return false;
            cursor += len;
            p.start.push_back(st);
            p.length.push_back(len);
        }
    }
    return true;
}

size_t dataAt(const SegPlan& p, int64_t o, int64_t k, int64_t i) {
    return static_cast<size_t>((o * p.axisLen + k) * p.inner + i);
}
size_t outAt(const SegPlan& p, int64_t o, int64_t s, int64_t i) {
    return static_cast<size_t>((o * p.count + s) * p.inner + i);
}

/// segment_reduce(data, reduce, *, lengths, indices, offsets, axis, unsafe, initial): each
/// segment reduced from `initial` (else the identity); max/min take a NaN once met; an empty
/// segment's mean is NaN without an initial.
bool segmentReduce(const OpArgs& a, Tensor& out) {
    SegPlan p;
    if (!a.isNone(3) || !planSegments(a, 0, 1, 2, 4, 5, 7, p)) return false;
    const DType dt = a.tensor(0).dtype();
    const auto x = kern::toDoubles(a.tensor(0));
    const double inf = std::numeric_limits<double>::infinity();
    double init = p.kind == Seg::Max ? -inf : p.kind == Seg::Min ? inf : p.kind == Seg::Prod ? 1.0 : 0.0;
    if (p.hasInitial) init = kern::roundTo(p.initial, dt);
    std::vector<double> y(static_cast<size_t>(p.outer * p.count * p.inner));
    for (int64_t o = 0; o < p.outer; ++o)
        for (int64_t s = 0; s < p.count; ++s) {
            const int64_t st = p.start[static_cast<size_t>(o * p.count + s)];
            const int64_t len = p.length[static_cast<size_t>(o * p.count + s)];
            for (int64_t i = 0; i < p.inner; ++i) {
                double acc = init;
                for (int64_t k = st; k < st + len; ++k) {
                    const double v = x[dataAt(p, o, k, i)];
                    if (p.kind == Seg::Max)
                        acc = std::isnan(acc) ? acc : std::isnan(v) ? v : std::max(acc, v);
                    else if (p.kind == Seg::Min)
                        acc = std::isnan(acc) ? acc : std::isnan(v) ? v : std::min(acc, v);
                    else if (p.kind == Seg::Prod)
                        acc *= v;
                    else
                        acc += v;
                }
                if (p.kind == Seg::Mean) {
                    if (len == 0 && !p.hasInitial)
                        acc = std::numeric_limits<double>::quiet_NaN();
                    else if (len > 0 && !std::isnan(acc))
                        acc /= static_cast<double>(len);
                }
                y[outAt(p, o, s, i)] = acc;
            }
        }
    if (out.numel() != static_cast<int64_t>(y.size())) return false;
    kern::fromDoubles(out, y);
    return true;
}

/// _segment_reduce_backward(grad, output, data, reduce, *, lengths, offsets, axis, initial):
/// max/min send the gradient to every element equal to the result (or NaN), positive ones
/// split evenly among ties as PyTorch does; mean divides by the length; prod is grad * out / x,
/// or the product of the others where x is 0 or NaN.
bool segmentReduceBackward(const OpArgs& a, Tensor& out) {
    SegPlan p;
    if (!planSegments(a, 2, 3, 4, 5, 6, 7, p)) return false;
    const auto grad = kern::toDoubles(a.tensor(0));
    const auto y = kern::toDoubles(a.tensor(1));
    const auto x = kern::toDoubles(a.tensor(2));
    if (grad.size() != static_cast<size_t>(p.outer * p.count * p.inner) || grad.size() != y.size() ||
        out.numel() != static_cast<int64_t>(x.size()))
        return false;
    const double initProd = p.hasInitial ? p.initial : 1.0;
    std::vector<double> gx(x.size(), 0.0);
    for (int64_t o = 0; o < p.outer; ++o)
        for (int64_t s = 0; s < p.count; ++s) {
            const int64_t st = p.start[static_cast<size_t>(o * p.count + s)];
            const int64_t end = st + p.length[static_cast<size_t>(o * p.count + s)];
            for (int64_t i = 0; i < p.inner; ++i) {
                const size_t oi = outAt(p, o, s, i);
                if (p.kind == Seg::Max || p.kind == Seg::Min) {
                    int64_t ties = 0;
                    for (int64_t k = st; k < end; ++k) {
                        const size_t di = dataAt(p, o, k, i);
                        if (std::isnan(x[di]) || x[di] == y[oi]) gx[di] = grad[oi], ++ties;
                    }
                    if (ties < 2) continue;
                    for (int64_t k = st; k < end; ++k)
                        if (gx[dataAt(p, o, k, i)] > 0) gx[dataAt(p, o, k, i)] /= static_cast<double>(ties);
                } else if (p.kind == Seg::Sum || p.kind == Seg::Mean) {
                    const double v = p.kind == Seg::Mean ? grad[oi] / static_cast<double>(end - st) : grad[oi];
                    for (int64_t k = st; k < end; ++k) gx[dataAt(p, o, k, i)] = v;
                } else {
                    for (int64_t k = st; k < end; ++k) {
                        const size_t di = dataAt(p, o, k, i);
                        if (std::isnan(x[di]) || x[di] == 0.0) {
                            double others = initProd;
                            for (int64_t m = st; m < end; ++m)
                                if (m != k) others *= x[dataAt(p, o, m, i)];
                            gx[di] = grad[oi] * others;
                        } else {
                            gx[di] = grad[oi] * y[oi] / x[di];
                        }
                    }
                }
            }
        }
    kern::fromDoubles(out, gx);
    return true;
}

// ----- data-dependent writes by index ---------------------------------------------------------

/// put(self, index, source, accumulate=False): self's flat elements named by index (negative
/// from the end) set to, or accumulating, source's elements in order.
bool put(const OpArgs& a, Tensor& out) {
    const Tensor& self = a.tensor(0);
    const Tensor& index = a.tensor(1);
    const Tensor& src = a.tensor(2);
    if (!floatLike(self.dtype()) || !intLike(index.dtype()) || index.numel() != src.numel() ||
        out.numel() != self.numel())
        return false;
    const int64_t n = self.numel();
    const auto iv = kern::toDoubles(index);
    for (double i : iv)
        if (i < static_cast<double>(-n) || i >= static_cast<double>(n)) return false;
    const bool acc = a.toBool(3);
    auto r = kern::toDoubles(self);
    const auto sv = kern::toDoubles(src);
    for (size_t k = 0; k < iv.size(); ++k) {
        const int64_t i = static_cast<int64_t>(iv[k]);
        double& dst = r[static_cast<size_t>(i < 0 ? i + n : i)];
        dst = acc ? dst + sv[k] : sv[k];
    }
    kern::fromDoubles(out, r);
    return true;
}

/// copy_(self, src) where the lowering cannot rebind self to a new value (self is a graph input
/// or an alias of one: instance norm's running statistics): src broadcast and converted into
/// self's storage in place, as PyTorch writes the input, and into the output. Floating dtypes
/// (values pass through double).
bool copyIntoInput(const OpArgs& a, Tensor& out) {
    if (!a.isTensor(0) || !a.isTensor(1)) return false;
    Tensor self = a.tensor(0);  // shares the input's storage
    const Tensor& src = a.tensor(1);
    auto shape = kern::broadcastShapes(src.shape(), self.shape());
    auto floating = [](DType t) { return floatLike(t) || t == DType::Float64; };
    if (!floating(self.dtype()) || !floating(src.dtype()) || !shape || *shape != self.shape() ||
        out.shape() != self.shape())
        return false;
    const auto v = kern::toDoublesBroadcast(src, self.shape());
    kern::fromDoubles(self, v);
    kern::fromDoubles(out, v);
    return true;
}

/// _unsafe_masked_index_put_accumulate(self, mask, indices, values): index_put with
/// accumulation of values where mask is set, the indices clamped into self (Inductor's
/// decomposition). Handles index tensors for the leading dims (no None), their broadcast shape
/// followed by self's remaining dims being the shape mask and values broadcast to.
bool maskedIndexPutAccumulate(const OpArgs& a, Tensor& out) {
    const Tensor& self = a.tensor(0);
    const Value& list = a[2];
    if (!floatLike(self.dtype()) || !list.isList() || list.list.empty() || out.numel() != self.numel()) return false;
    const size_t k = list.list.size();
    if (k > static_cast<size_t>(self.dim())) return false;
    std::vector<int64_t> b;
    for (const Value& v : list.list) {
        if (!v.isTensor() || !intLike(v.t.dtype())) return false;
        auto s = kern::broadcastShapes(b, v.t.shape());
        if (!s) return false;
        b = *s;
    }
    const std::vector<int64_t> rest(self.shape().begin() + static_cast<std::ptrdiff_t>(k), self.shape().end());
    std::vector<int64_t> full = b;
    full.insert(full.end(), rest.begin(), rest.end());
    const Tensor& mask = a.tensor(1);
    const Tensor& vals = a.tensor(3);
    if (!kern::broadcastShapes(mask.shape(), full) || *kern::broadcastShapes(mask.shape(), full) != full ||
        !kern::broadcastShapes(vals.shape(), full) || *kern::broadcastShapes(vals.shape(), full) != full)
        return false;
    std::vector<std::vector<double>> idx;
    for (const Value& v : list.list) idx.push_back(kern::toDoublesBroadcast(v.t, b));
    const auto mv = kern::toDoublesBroadcast(mask, full);
    const auto vv = kern::toDoublesBroadcast(vals, full);
    const int64_t inner = span(rest, 0, rest.size()), points = span(b, 0, b.size());
    const auto strides = kern::rowMajorStrides(self.shape());
    auto r = kern::toDoubles(self);
    for (int64_t p = 0; p < points; ++p) {
        int64_t base = 0;
        for (size_t j = 0; j < k; ++j) {
            const int64_t size = self.shape()[j];
            int64_t i = static_cast<int64_t>(idx[j][static_cast<size_t>(p)]);
            i = std::clamp<int64_t>(i, -size, size - 1);
            base += (i < 0 ? i + size : i) * strides[j];
        }
        for (int64_t e = 0; e < inner; ++e) {
            const size_t q = static_cast<size_t>(p * inner + e);
            if (mv[q] != 0.0) r[static_cast<size_t>(base + e)] += vv[q];
        }
    }
    kern::fromDoubles(out, r);
    return true;
}

/// masked_select(self, mask): self's elements (self and mask broadcast) where mask is set, in
/// row-major order; the output's length was fixed from the real mask when the graph compiled.
bool maskedSelect(const OpArgs& a, Tensor& out) {
    const Tensor& self = a.tensor(0);
    const Tensor& mask = a.tensor(1);
    auto shape = kern::broadcastShapes(self.shape(), mask.shape());
    if (!shape || mask.dtype() != DType::Bool) return false;
    const auto sv = kern::toDoublesBroadcast(self, *shape), mv = kern::toDoublesBroadcast(mask, *shape);
    std::vector<double> r;
    for (size_t i = 0; i < sv.size(); ++i)
        if (mv[i] != 0.0) r.push_back(sv[i]);
    if (static_cast<int64_t>(r.size()) != out.numel()) return false;
    kern::fromDoubles(out, r);
    return true;
}

/// masked_scatter(self, mask, source) where its rule declines (large: the rule counts the mask
/// quadratically): set positions of the broadcast mask take source's elements in row-major order.
bool maskedScatter(const OpArgs& a, Tensor& out) {
    const Tensor& mask = a.tensor(1);
    if (mask.dtype() != DType::Bool) return false;
    auto vals = kern::toDoublesBroadcast(a.tensor(0), out.shape());
    const auto mv = kern::toDoublesBroadcast(mask, out.shape());
    const auto src = kern::toDoubles(a.tensor(2));
    size_t next = 0;
    for (size_t i = 0; i < vals.size(); ++i) {
        if (mv[i] == 0.0) continue;
        if (next >= src.size()) return false;  // the reference reports it
        vals[i] = src[next++];
    }
    kern::fromDoubles(out, vals);
    return true;
}

/// masked_scatter_backward(grad, mask, sizes): grad's selected elements in row-major order,
/// zero-padded to the source's size.
bool maskedScatterBackward(const OpArgs& a, Tensor& out) {
    const Tensor &grad = a.tensor(0), &mask = a.tensor(1);
    auto shape = kern::broadcastShapes(grad.shape(), mask.shape());
    if (!shape || mask.dtype() != DType::Bool) return false;
    const auto gv = kern::toDoublesBroadcast(grad, *shape), mv = kern::toDoublesBroadcast(mask, *shape);
    std::vector<double> r;
    for (size_t i = 0; i < gv.size(); ++i)
        if (mv[i] != 0.0) r.push_back(gv[i]);
    if (static_cast<int64_t>(r.size()) > out.numel()) return false;
    r.resize(static_cast<size_t>(out.numel()), 0.0);
    kern::fromDoubles(out, r);
    return true;
}

/// index.Tensor(self, indices) with one boolean mask after leading None entries, the case the
/// lowering (gathers by integer index) declines: the mask covers self's dims [p, p + mask.dim()),
/// and the selected positions, in row-major order, form one dim of data-dependent length (as
/// Inductor's nonzero fallback followed by an index).
bool indexByMask(const OpArgs& a, Tensor& out) {
    const Tensor& self = a.tensor(0);
    const auto& idx = a[1].list;
    size_t p = 0;
    while (p < idx.size() && idx[p].isNone()) ++p;
    if (p >= idx.size() || !idx[p].isTensor() || idx[p].t.dtype() != DType::Bool) return false;
    for (size_t i = p + 1; i < idx.size(); ++i)
        if (!idx[i].isNone()) return false;
    const Tensor& mask = idx[p].t;
    const auto& shape = self.shape();
    const size_t md = static_cast<size_t>(mask.dim());
    if (p + md > shape.size() || md == 0) return false;
    for (size_t d = 0; d < md; ++d)
        if (mask.shape()[d] != shape[p + d]) return false;
    const int64_t outer = span(shape, 0, p), cover = span(shape, p, p + md), inner = span(shape, p + md, shape.size());
    const auto mv = kern::toDoubles(mask), sv = kern::toDoubles(self);
    std::vector<int64_t> hits;
    for (int64_t i = 0; i < cover; ++i)
        if (mv[static_cast<size_t>(i)] != 0.0) hits.push_back(i);
    const int64_t count = static_cast<int64_t>(hits.size());
    if (out.numel() != outer * count * inner) return false;
    std::vector<double> r;
    r.reserve(static_cast<size_t>(out.numel()));
    for (int64_t o = 0; o < outer; ++o)
        for (int64_t h : hits)
            for (int64_t i = 0; i < inner; ++i) r.push_back(sv[static_cast<size_t>((o * cover + h) * inner + i)]);
    kern::fromDoubles(out, r);
    return true;
}

/// histc(self, bins, min, max): the reference kernel's counting (kern::histcCounts).
bool histc(const OpArgs& a, Tensor& out) {
    if (out.numel() != a.toInt(1)) return false;
    kern::fromDoubles(out, kern::histcCounts(kern::toDoubles(a.tensor(0)), a.toInt(1), a.toDouble(2), a.toDouble(3)));
    return true;
}

}  // namespace

const std::vector<CpuExtern>& dataSizedExternKernels() {
    static const std::vector<CpuExtern> t = {
        {"unique", multi<uniqueValues<2, -1, false>>},
        {"unique2", multi<uniqueValues<2, 3, false>>},
        {"unique_consecutive", multi<uniqueValues<1, 2, true>>},
        {"repeat_interleave", single<repeatInterleave>},
        {"nonzero", single<nonzero>},
        {"bincount", single<bincount>},
    };
    return t;
}

const std::vector<CpuExtern>& fallbackOpExterns() {
    static const std::vector<CpuExtern> t = {
        {"sort", multi<sortRows<1>>},
        {"histc", single<histc>},
        {"sort_stable", multi<sortRows<2>>},
        {"topk", multi<topk>},
        {"adaptive_max_pool", multi<adaptiveMaxPool>},
        {"adaptive_max_pool_backward", single<maxPoolBackwardByIndices<2>>},
        {"max_pool3d", multi<maxPool3d>},
        {"max_pool3d_backward", single<maxPoolBackwardByIndices<7>>},
        {"fractional_max_pool", multi<fractionalMaxPool>},
        {"fractional_max_pool_backward", single<maxPoolBackwardByIndices<4>>},
        {"segment_reduce", single<segmentReduce>},
        {"segment_reduce_backward", single<segmentReduceBackward>},
        {"put", single<put>},
        {"masked_select", single<maskedSelect>},
        {"masked_scatter", single<maskedScatter>},
        {"masked_scatter_backward", single<maskedScatterBackward>},
        {"index_by_mask", single<indexByMask>},
        {"masked_index_put_accumulate", single<maskedIndexPutAccumulate>},
        {"copy_into_input", single<copyIntoInput>},
    };
    return t;
}

}  // namespace fxray::cg::cpu
