// Host side of kernels/fallback_ops.cu: argument blocks and launches.
#include "codegen/cuda/fallback_kernels.h"

#include "codegen/cuda/kernel_module.h"

#include "codegen/cuda/kernels/fallback_args.h"

#include <algorithm>

namespace fxray::cg::cuda {

namespace {

KernelModule& fallbackModule() {
    static KernelModule* m = new KernelModule(
        "fxray_fallback_ops", {"dtype_io.cuh", "fallback_args.h", "fallback_ops.cu"});  // never destroyed
    return *m;
}

const char* suffixOf(DType t) {
    switch (t) {
    case DType::Float64: return "f64";
    case DType::Int64: return "i64";
    case DType::Int32: return "i32";
    case DType::Bool: return "b8";
    case DType::Float16: return "f16";
    case DType::BFloat16: return "bf16";
    default: return "f32";
    }
}

int64_t product(const std::vector<int64_t>& s, size_t from, size_t to) {
    int64_t p = 1;
    for (size_t i = from; i < to; ++i) p *= s[i];
    return p;
}

Status launch(CUfunction fn, int64_t blocks, unsigned threads, void** params, const char* what) {
    const int64_t cap = static_cast<int64_t>(std::max(1, runtime().smCount)) * 32;
    return launchGrid(fn, static_cast<unsigned>(std::clamp<int64_t>(blocks, 1, cap)), 1, threads, params, what);
}

}  // namespace

Expected<std::string> fallbackOpsSource() { return fallbackModule().source(); }

bool windowPoolSupports(DType t) { return t == DType::Float32 || t == DType::Float64; }
bool windowMaxSupports(DType t) { return windowPoolSupports(t) || isHalfFloat(t); }

Status windowMaxPool(WindowMode mode, const DeviceView& x, const DeviceView& y, const DeviceView& indices, size_t nsp,
                     const std::vector<int64_t>& kernel, const std::vector<int64_t>& stride,
                     const std::vector<int64_t>& padding, const std::vector<int64_t>& dilation,
                     const std::optional<DeviceView>& samples) {
    const TensorMeta& xm = x.meta;
    const size_t nd = xm.shape.size();
    if ((nsp != 2 && nsp != 3) || nd < nsp + 1 || y.meta.shape.size() != nd || !windowMaxSupports(xm.dtype) ||
        y.meta.dtype != xm.dtype || !y.meta.isContiguous() || !indices.meta.isContiguous() ||
        indices.meta.dtype != DType::Int64 || indices.meta.numel() != y.meta.numel())
        return makeError("device max pooling needs dense outputs of the input's dtype and int64 indices");
    const size_t first = nd - nsp;
    if (product(xm.shape, 0, first) != product(y.meta.shape, 0, first))
        return makeError("device max pooling: input and output planes differ");
    auto pick = [](const std::vector<int64_t>& v, size_t i, int64_t dflt) {
        return v.empty() ? dflt : v.size() == 1 ? v[0] : i < v.size() ? v[i] : dflt;
    };
    FxWindowArgs a{};
    a.planes = product(xm.shape, 0, first);
    a.mode = static_cast<int>(mode);
    a.nsp = static_cast<int>(nsp);
    for (size_t d = 0; d < 3; ++d) {
        a.in[d] = a.out[d] = a.k[d] = a.st[d] = a.dil[d] = 1;
        a.pad[d] = 0;
    }
    for (size_t i = 0; i < nsp; ++i) {
        const size_t d = 3 - nsp + i;
        a.in[d] = xm.shape[first + i];
        a.out[d] = y.meta.shape[first + i];
        a.k[d] = pick(kernel, i, 1);
        a.st[d] = pick(stride, i, a.k[d]);
        a.pad[d] = pick(padding, i, 0);
        a.dil[d] = pick(dilation, i, 1);
        if (a.k[d] < 1 || a.st[d] < 1 || a.dil[d] < 1)
            return makeError("device max pooling: bad kernel/stride/dilation");
        if (mode != WindowMode::Strided && (a.in[d] < 1 || a.out[d] < 1))
            return makeError("device max pooling: empty bins");
        if (mode == WindowMode::Fractional && a.k[d] > a.in[d])
            return makeError("fractional max pooling: kernel past the input");
    }
    if (mode == WindowMode::Fractional &&
        (!samples || samples->meta.dtype != xm.dtype || samples->meta.numel() != a.planes * static_cast<int64_t>(nsp)))
        return makeError("fractional max pooling needs [planes, " + std::to_string(nsp) +
                         "] samples of the input's dtype");
    const int64_t work = y.meta.numel();
    if (work == 0) return Status::success();
    DeviceBuffer tx, ts;
    auto xd = denseView(x, tx);
    if (!xd.ok()) return xd.error();
    std::optional<DeviceView> sd;
    if (samples) {
        auto s = denseView(*samples, ts);
        if (!s.ok()) return s.error();
        sd = *s;
    }
    auto fn = fallbackModule().function(std::string("fx_window_max_") + suffixOf(xm.dtype));
    if (!fn.ok()) return fn.error();
    CUdeviceptr px = xd->address(), ps = sd ? sd->address() : CUdeviceptr{0}, py = y.address(), pi = indices.address();
    void* params[] = {&px, &ps, &py, &pi, &a};
    return launch(*fn, (work + 255) / 256, 256, params, "fx_window_max");
}

bool segmentSupports(DType t) { return t == DType::Float32 || t == DType::Float64; }

int segmentKind(const std::string& reduce) {
    static const char* names[] = {"max", "min", "sum", "mean", "prod"};
    for (int i = 0; i < 5; ++i)
        if (reduce == names[i]) return i;
    return -1;
}

namespace {

/// The segments' layout, or an error naming what does not fit.
Expected<FxSegArgs> segArgs(const TensorMeta& data, int kind, int64_t axis, const TensorMeta& seg, bool byOffsets,
                            std::optional<double> initial) {
    const int64_t nd = static_cast<int64_t>(data.shape.size());
    if (axis < 0) axis += nd;
    if (kind < 0 || axis < 0 || axis >= nd || !segmentSupports(data.dtype) || seg.dtype != DType::Int64 ||
        static_cast<int64_t>(seg.shape.size()) != axis + 1)
        return makeError("device segment_reduce: unsupported reduction, axis, dtype or segment tensor");
    for (int64_t i = 0; i < axis; ++i)
        if (seg.shape[static_cast<size_t>(i)] != data.shape[static_cast<size_t>(i)])
            return makeError("device segment_reduce: segments do not match the data's leading dims");
    FxSegArgs a{};
    a.outer = product(data.shape, 0, static_cast<size_t>(axis));
    a.axisLen = data.shape[static_cast<size_t>(axis)];
    a.inner = product(data.shape, static_cast<size_t>(axis) + 1, data.shape.size());
    a.last = seg.shape[static_cast<size_t>(axis)];
    a.count = byOffsets ? a.last - 1 : a.last;
    if (a.count < 0) return makeError("device segment_reduce: empty offsets");
    a.kind = kind;
    a.byOffsets = byOffsets ? 1 : 0;
    a.hasInitial = initial ? 1 : 0;
    a.initial = initial.value_or(0.0);
    return a;
}

}  // namespace

Status segmentReduce(const DeviceView& data, int kind, int64_t axis, const DeviceView& segments, bool byOffsets,
                     std::optional<double> initial, const DeviceView& out) {
    // The start value in the data's precision, as PyTorch converts it.
    if (initial && data.meta.dtype == DType::Float32) initial = static_cast<double>(static_cast<float>(*initial));
    auto a = segArgs(data.meta, kind, axis, segments.meta, byOffsets, initial);
    if (!a.ok()) return a.error();
    if (!out.meta.isContiguous() || out.meta.dtype != data.meta.dtype ||
        out.meta.numel() != a->outer * a->count * a->inner)
        return makeError("device segment_reduce needs a dense output of the data's dtype");
    const int64_t work = out.meta.numel();
    if (work == 0) return Status::success();
    DeviceBuffer tx, ts;
    auto xd = denseView(data, tx);
    if (!xd.ok()) return xd.error();
    auto sd = denseView(segments, ts);
    if (!sd.ok()) return sd.error();
    auto fn = fallbackModule().function(std::string("fx_segment_reduce_") + suffixOf(data.meta.dtype));
    if (!fn.ok()) return fn.error();
    CUdeviceptr px = xd->address(), ps = sd->address(), py = out.address();
    void* params[] = {&px, &ps, &py, &*a};
    return launch(*fn, (work + 255) / 256, 256, params, "fx_segment_reduce");
}

Status segmentReduceBackward(const DeviceView& grad, const DeviceView& output, const DeviceView& data, int kind,
                             int64_t axis, const DeviceView& segments, bool byOffsets, std::optional<double> initial,
                             const DeviceView& gx) {
    auto a = segArgs(data.meta, kind, axis, segments.meta, byOffsets, initial);
    if (!a.ok()) return a.error();
    const int64_t work = a->outer * a->count * a->inner;
    if (!gx.meta.isContiguous() || gx.meta.dtype != data.meta.dtype || gx.meta.numel() != data.meta.numel() ||
        grad.meta.numel() != work || output.meta.numel() != work || grad.meta.dtype != data.meta.dtype ||
        output.meta.dtype != data.meta.dtype)
        return makeError("device segment_reduce backward: gradient, output and data do not match");
    const size_t item = static_cast<size_t>(dtypeItemSize(gx.meta.dtype));
    if (Status s = check(runtime().cu.cuMemsetD8(gx.address(), 0, static_cast<size_t>(gx.meta.numel()) * item),
                         "zeroing segment_reduce's gradient");
        !s.ok())
        return s;
    if (work == 0) return Status::success();
    DeviceBuffer tg, ty, tx, ts;
    auto gd = denseView(grad, tg);
    if (!gd.ok()) return gd.error();
    auto yd = denseView(output, ty);
    if (!yd.ok()) return yd.error();
    auto xd = denseView(data, tx);
    if (!xd.ok()) return xd.error();
    auto sd = denseView(segments, ts);
    if (!sd.ok()) return sd.error();
    auto fn = fallbackModule().function(std::string("fx_segment_reduce_bwd_") + suffixOf(data.meta.dtype));
    if (!fn.ok()) return fn.error();
    CUdeviceptr pg = gd->address(), py = yd->address(), px = xd->address(), ps = sd->address(), po = gx.address();
    void* params[] = {&pg, &py, &px, &ps, &po, &*a};
    return launch(*fn, (work + 255) / 256, 256, params, "fx_segment_reduce_bwd");
}

Status put(const DeviceView& self, const DeviceView& index, const DeviceView& source, bool accumulate,
           const DeviceView& out) {
    const DType t = out.meta.dtype;
    if (!segmentSupports(t) || !out.meta.isContiguous() || self.meta.dtype != t || source.meta.dtype != t ||
        index.meta.dtype != DType::Int64 || index.meta.numel() != source.meta.numel() ||
        out.meta.numel() != self.meta.numel())
        return makeError("device put needs fp32/fp64 self and source, int64 indices, a dense output");
    if (Status s = stridedCopy(self, out); !s.ok()) return s;
    FxPutArgs a{};
    a.n = index.meta.numel();
    a.size = out.meta.numel();
    a.accumulate = accumulate ? 1 : 0;
    if (a.n == 0) return Status::success();
    DeviceBuffer ti, tsrc;
    auto id = denseView(index, ti);
    if (!id.ok()) return id.error();
    auto sd = denseView(source, tsrc);
    if (!sd.ok()) return sd.error();
    auto fn = fallbackModule().function(std::string("fx_put_") + suffixOf(t));
    if (!fn.ok()) return fn.error();
    CUdeviceptr pi = id->address(), ps = sd->address(), po = out.address();
    void* params[] = {&pi, &ps, &po, &a};
    return launch(*fn, (a.n + 255) / 256, 256, params, "fx_put");
}

Status batchNormEval(const DeviceView& x, const std::optional<DeviceView>& w, const std::optional<DeviceView>& b,
                     const DeviceView& rm, const DeviceView& rv, const DeviceView& y,
                     const std::optional<DeviceView>& mean, const std::optional<DeviceView>& invstd, double eps) {
    const TensorMeta& xm = x.meta;
    const DType t = xm.dtype;
    if (xm.shape.size() < 2 || !windowPoolSupports(t) || !y.meta.isContiguous() || y.meta.shape != xm.shape ||
        y.meta.dtype != t)
        return makeError("device batch norm (eval) needs a dense output of the input's shape and dtype");
    int64_t C = xm.shape[1];
    auto channel = [&](const std::optional<DeviceView>& v) {
        return !v ||
               (v->meta.dtype == t && v->meta.shape == std::vector<int64_t>{C} && (C <= 1 || v->meta.strides[0] == 1));
    };
    if (!channel(w) || !channel(b) || !channel(rm) || !channel(rv) || !channel(mean) || !channel(invstd))
        return makeError("device batch norm (eval) needs dense per-channel tensors of the input's dtype");
    int64_t N = xm.shape[0], S = product(xm.shape, 2, xm.shape.size());
    if (N * C * S == 0 && C == 0) return Status::success();
    DeviceBuffer tx;
    auto xd = denseView(x, tx);
    if (!xd.ok()) return xd.error();
    auto fn = fallbackModule().function(std::string("fx_bn_eval_") + suffixOf(t));
    if (!fn.ok()) return fn.error();
    auto opt = [](const std::optional<DeviceView>& v) { return v ? v->address() : CUdeviceptr{0}; };
    CUdeviceptr px = xd->address(), pw = opt(w), pb = opt(b), prm = rm.address(), prv = rv.address(), py = y.address(),
                pm = opt(mean), pis = opt(invstd);
    void* params[] = {&px, &pw, &pb, &prm, &prv, &py, &pm, &pis, &N, &C, &S, &eps};
    const int64_t work = std::max(N * C * S, C);
    return launch(*fn, (work + 255) / 256, 256, params, "fx_bn_eval");
}

namespace {

/// Square matrices [batch..., n, n]: n, or -1.
int64_t squareSize(const TensorMeta& m) {
    const size_t nd = m.shape.size();
    return nd >= 2 && m.shape[nd - 1] == m.shape[nd - 2] ? m.shape[nd - 1] : -1;
}

Expected<DeviceBuffer> scratchDoubles(int64_t count) {
    return DeviceBuffer::allocate(static_cast<size_t>(std::max<int64_t>(count, 1)) * sizeof(double));
}

/// v broadcast (right-aligned, size-1 dims repeated) to `shape`, dense: v itself when it is dense
/// of that shape already, else a copy in `tmp`. v must broadcast to shape.
Expected<DeviceView> denseBroadcast(const DeviceView& v, const std::vector<int64_t>& shape, DeviceBuffer& tmp) {
    if (v.meta.shape == shape) return denseView(v, tmp);
    TensorMeta m = TensorMeta::contiguous(shape, v.meta.dtype, v.meta.device);
    auto buf = DeviceBuffer::allocate(static_cast<size_t>(std::max<int64_t>(m.numel(), 1) * dtypeItemSize(m.dtype)));
    if (!buf.ok()) return buf.error();
    tmp = std::move(buf).value();
    DeviceView d{tmp.ptr(), m};
    if (Status s = stridedCopy(v, d); !s.ok()) return s.error();
    return d;
}

}  // namespace

Status triangularSolve(const DeviceView& B, const DeviceView& A, bool upper, bool transpose, bool unit,
                       const DeviceView& X, const DeviceView& Aclone) {
    const DType t = X.meta.dtype;
    const int64_t n = squareSize(Aclone.meta);
    const size_t nd = X.meta.shape.size();
    if (!windowPoolSupports(t) || B.meta.dtype != t || A.meta.dtype != t || Aclone.meta.dtype != t || n < 0 || nd < 2 ||
        Aclone.meta.shape.size() != nd || X.meta.shape[nd - 2] != n)
        return makeError("device triangular_solve needs fp32/fp64 square A of the solution's dtype");
    FxLinalgArgs a{};
    a.n = n;
    a.k = X.meta.shape[nd - 1];
    a.batches = n * a.k == 0 ? 0 : X.meta.numel() / (n * a.k);
    if (Aclone.meta.numel() != a.batches * n * n && a.batches != 0)
        return makeError("device triangular_solve: the solution and coefficient batches differ");
    a.upper = upper ? 1 : 0;
    a.trans = transpose ? 1 : 0;
    a.unit = unit ? 1 : 0;
    // The outputs are column-major on CUDA (cuBLAS's layout): the kernel solves in dense copies.
    DeviceBuffer tx, ta;
    auto xt = denseTarget(X, tx);
    if (!xt.ok()) return xt.error();
    const DeviceView Xd = *xt;
    if (Status s = stridedCopy(B, Xd); !s.ok()) return s;
    if (Status s = stridedCopy(A, Aclone); !s.ok()) return s;
    if (a.batches * a.k != 0) {
        auto ad = denseView(Aclone, ta);
        if (!ad.ok()) return ad.error();
        auto fn = fallbackModule().function(std::string("fx_trsm_") + suffixOf(t));
        if (!fn.ok()) return fn.error();
        CUdeviceptr pa = ad->address(), px = Xd.address();
        void* params[] = {&pa, &px, &a};
        if (Status s = launch(*fn, (a.batches * a.k + 63) / 64, 64, params, "fx_trsm"); !s.ok()) return s;
    }
    return Xd.base == X.base ? Status::success() : stridedCopy(Xd, X);
}

Status luSolve(const DeviceView& LU, const DeviceView& pivots, const DeviceView& B, bool adjoint, const DeviceView& X) {
    const DType t = X.meta.dtype;
    const int64_t n = squareSize(LU.meta);
    const size_t nd = X.meta.shape.size();
    if (!windowPoolSupports(t) || LU.meta.dtype != t || B.meta.dtype != t || pivots.meta.dtype != DType::Int32 ||
        n < 0 || nd < 2 || X.meta.shape[nd - 2] != n || X.meta.strides.size() != nd)
        return makeError("device lu_solve needs fp32/fp64 square factors and int32 pivots");
    FxLinalgArgs a{};
    a.n = n;
    a.k = X.meta.shape[nd - 1];
    a.batches = n * a.k == 0 ? 0 : X.meta.numel() / (n * a.k);
    // The factors' batch dims broadcast to the solution's (expanded into dense copies below).
    const std::vector<int64_t> batch(X.meta.shape.begin(), X.meta.shape.end() - 2);
    std::vector<int64_t> luShape = batch, pivShape = batch;
    luShape.insert(luShape.end(), {n, n});
    pivShape.push_back(n);
    const std::vector<int64_t> luBatch(LU.meta.shape.begin(), LU.meta.shape.end() - 2);
    const auto bb = broadcastShape(luBatch, batch);
    std::vector<int64_t> pivWant = luBatch;
    pivWant.push_back(n);
    if (!bb || *bb != batch || pivots.meta.shape != pivWant)
        return makeError("device lu_solve: the factors' batches do not broadcast to the solution's");
    // PyTorch's solution is column-major per matrix (the reference's meta gives it so): the
    // kernels solve in a dense row-major copy, copied into place at the end.
    DeviceBuffer tx;
    auto xt = denseTarget(X, tx);
    if (!xt.ok()) return xt.error();
    const DeviceView Xd = *xt;
    if (Status s = stridedCopy(B, Xd); !s.ok()) return s;
    if (a.batches * a.k == 0) return Xd.base == X.base ? Status::success() : stridedCopy(Xd, X);
    DeviceBuffer tl, tp;
    auto lud = denseBroadcast(LU, luShape, tl);
    if (!lud.ok()) return lud.error();
    auto pd = denseBroadcast(pivots, pivShape, tp);
    if (!pd.ok()) return pd.error();
    auto trsm = fallbackModule().function(std::string("fx_trsm_") + suffixOf(t));
    if (!trsm.ok()) return trsm.error();
    auto pivot = fallbackModule().function(std::string("fx_lu_pivot_") + suffixOf(t));
    if (!pivot.ok()) return pivot.error();
    CUdeviceptr pl = lud->address(), pp = pd->address(), px = Xd.address();
    const int64_t blocks = (a.batches * a.k + 63) / 64;
    auto swaps = [&](bool reverse) {
        FxLinalgArgs s = a;
        s.trans = reverse ? 1 : 0;
        void* params[] = {&px, &pp, &s};
        return launch(*pivot, blocks, 64, params, "fx_lu_pivot");
    };
    auto solve = [&](bool upper, bool trans, bool unit) {
        FxLinalgArgs s = a;
        s.upper = upper ? 1 : 0, s.trans = trans ? 1 : 0, s.unit = unit ? 1 : 0;
        void* params[] = {&pl, &px, &s};
        return launch(*trsm, blocks, 64, params, "fx_trsm");
    };
    // M = P L U: X = U⁻¹ L⁻¹ Pᵀ B; the adjoint Mᵀ = Uᵀ Lᵀ Pᵀ: X = P L⁻ᵀ U⁻ᵀ B (the reference's order).
    Status s = adjoint ? solve(true, true, false) : swaps(false);
    if (s.ok()) s = adjoint ? solve(false, true, true) : solve(false, false, true);
    if (s.ok()) s = adjoint ? swaps(true) : solve(true, false, false);
    if (!s.ok() || Xd.base == X.base) return s;
    return stridedCopy(Xd, X);
}

Status slogdet(const DeviceView& A, const DeviceView& sign, const DeviceView& logabs, const DeviceView& lu,
               const DeviceView& pivots) {
    const DType t = A.meta.dtype;
    const int64_t n = squareSize(A.meta);
    const size_t nd = A.meta.shape.size();
    if (!windowPoolSupports(t) || n < 0 || sign.meta.dtype != t || logabs.meta.dtype != t || lu.meta.dtype != t ||
        pivots.meta.dtype != DType::Int32 || !sign.meta.isContiguous() || !logabs.meta.isContiguous() ||
        !pivots.meta.isContiguous() || lu.meta.shape != A.meta.shape)
        return makeError("device slogdet needs fp32/fp64 square matrices and int32 pivots");
    FxLinalgArgs a{};
    a.n = n;
    a.batches = product(A.meta.shape, 0, nd - 2);
    // LU batches must sit n * n apart (PyTorch's LU is column-major per matrix, batches dense).
    int64_t expect = n * n;
    for (size_t d = nd - 2; d-- > 0;) {
        if (A.meta.shape[d] != 1 && lu.meta.strides[d] != expect)
            return makeError("device slogdet: LU batches are not dense");
        expect *= A.meta.shape[d];
    }
    // PyTorch factors Aᵀ for a contiguous input (the reference executor does the same).
    a.trans = A.meta.isContiguous() ? 1 : 0;
    a.luRow = lu.meta.strides[nd - 2];
    a.luCol = lu.meta.strides[nd - 1];
    if (sign.meta.numel() != a.batches || logabs.meta.numel() != a.batches || pivots.meta.numel() != a.batches * n)
        return makeError("device slogdet: output sizes do not match the batch");
    if (a.batches == 0) return Status::success();
    DeviceBuffer ta;
    auto ad = denseView(A, ta);
    if (!ad.ok()) return ad.error();
    auto scratch = scratchDoubles(a.batches * n * n);
    if (!scratch.ok()) return scratch.error();
    auto fn = fallbackModule().function(std::string("fx_slogdet_") + suffixOf(t));
    if (!fn.ok()) return fn.error();
    CUdeviceptr pa = ad->address(), ps = sign.address(), pl = logabs.address(), plu = lu.address(),
                pp = pivots.address(), pscr = scratch->ptr();
    void* params[] = {&pa, &ps, &pl, &plu, &pp, &pscr, &a};
    return launch(*fn, (a.batches + 63) / 64, 64, params, "fx_slogdet");
}

Status matrixExp(const DeviceView& A, const DeviceView& out) {
    const DType t = A.meta.dtype;
    const int64_t n = squareSize(A.meta);
    if (!windowPoolSupports(t) || n < 0 || out.meta.dtype != t || !out.meta.isContiguous() ||
        out.meta.shape != A.meta.shape)
        return makeError("device matrix_exp needs fp32/fp64 square matrices and a dense output");
    FxLinalgArgs a{};
    a.n = n;
    a.batches = product(A.meta.shape, 0, A.meta.shape.size() - 2);
    if (a.batches * n == 0) return Status::success();
    DeviceBuffer ta;
    auto ad = denseView(A, ta);
    if (!ad.ok()) return ad.error();
    auto scratch = scratchDoubles(a.batches * 4 * n * n);
    if (!scratch.ok()) return scratch.error();
    auto fn = fallbackModule().function(std::string("fx_matrix_exp_") + suffixOf(t));
    if (!fn.ok()) return fn.error();
    CUdeviceptr pa = ad->address(), po = out.address(), pscr = scratch->ptr();
    void* params[] = {&pa, &po, &pscr, &a};
    return launch(*fn, (a.batches + 63) / 64, 64, params, "fx_matrix_exp");
}

std::optional<std::vector<int64_t>> broadcastShape(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
    std::vector<int64_t> r(std::max(a.size(), b.size()), 1);
    for (size_t i = 0; i < r.size(); ++i) {
        const int64_t x = i < a.size() ? a[a.size() - 1 - i] : 1, y = i < b.size() ? b[b.size() - 1 - i] : 1;
        if (x != y && x != 1 && y != 1) return std::nullopt;
        r[r.size() - 1 - i] = x == 1 ? y : x;
    }
    return r;
}

namespace {

/// v's strides read over `shape` (v right-aligned, broadcasting): 0 where v lacks the dim or has
/// size 1; false when v does not broadcast to shape.
bool broadcastStrides(const TensorMeta& v, const std::vector<int64_t>& shape, long long* out) {
    if (v.shape.size() > shape.size()) return false;
    const size_t lead = shape.size() - v.shape.size();
    for (size_t d = 0; d < shape.size(); ++d) {
        if (d < lead) {
            out[d] = 0;
            continue;
        }
        const int64_t s = v.shape[d - lead];
        if (s != 1 && s != shape[d]) return false;
        out[d] = s == 1 ? 0 : v.strides[d - lead];
    }
    return true;
}

}  // namespace

bool indexPutSupports(DType t) {
    return t == DType::Float32 || t == DType::Float64 || t == DType::Float16 || t == DType::BFloat16 ||
           t == DType::Int64 || t == DType::Int32 || t == DType::Bool;
}

namespace {

/// The masked (mask given: accumulate, clamp) and plain index puts.
Status indexedPut(const DeviceView& self, const std::optional<DeviceView>& maskOpt,
                  const std::vector<DeviceView>& indices, const DeviceView& values, bool accumulate,
                  const DeviceView& out) {
    const DType t = out.meta.dtype;
    const size_t k = indices.size();
    if (!indexPutSupports(t) || !out.meta.isContiguous() || self.meta.dtype != t || values.meta.dtype != t ||
        (maskOpt && maskOpt->meta.dtype != DType::Bool) || k == 0 || k > FX_MAX_INDICES || k > self.meta.shape.size() ||
        out.meta.shape != self.meta.shape)
        return makeError("device index put: unsupported dtypes or indices");
    std::vector<int64_t> b;
    for (const DeviceView& i : indices) {
        auto s = i.meta.dtype == DType::Int64 ? broadcastShape(b, i.meta.shape) : std::nullopt;
        if (!s) return makeError("device index put: indices must be int64 and broadcast");
        b = *s;
    }
    std::vector<int64_t> full = b;
    full.insert(full.end(), self.meta.shape.begin() + static_cast<std::ptrdiff_t>(k), self.meta.shape.end());
    if (full.size() > FX_MAX_DIMS) return makeError("device index put: more than 8 dims");
    FxMaskedPutArgs a{};
    a.ndim = static_cast<long long>(full.size());
    a.bdims = static_cast<long long>(b.size());
    a.k = static_cast<long long>(k);
    a.n = product(full, 0, full.size());
    a.accumulate = accumulate ? 1 : 0;
    a.clamp = maskOpt ? 1 : 0;
    a.inner = product(self.meta.shape, k, self.meta.shape.size());
    for (size_t d = 0; d < full.size(); ++d) a.size[d] = full[d];
    if ((maskOpt && !broadcastStrides(maskOpt->meta, full, a.ms)) || !broadcastStrides(values.meta, full, a.vs))
        return makeError("device index put: mask or values do not broadcast");
    a.moff = maskOpt ? maskOpt->meta.offset : 0;
    a.voff = values.meta.offset;
    for (size_t j = 0; j < k; ++j) {
        if (!broadcastStrides(indices[j].meta, b, a.is[j])) return makeError("device index put: indices");
        a.ioff[j] = indices[j].meta.offset;
        a.selfSize[j] = self.meta.shape[j];
        a.selfStride[j] = product(self.meta.shape, j + 1, self.meta.shape.size());
    }
    if (Status s = stridedCopy(self, out); !s.ok()) return s;
    if (a.n == 0 || out.meta.numel() == 0) return Status::success();
    auto fn = fallbackModule().function(std::string("fx_masked_put_acc_") + suffixOf(t));
    if (!fn.ok()) return fn.error();
    // Views read at their own offsets: the bases are passed, the offsets are in the arguments.
    CUdeviceptr pm = maskOpt ? maskOpt->base : CUdeviceptr{0}, pv = values.base, po = out.address(),
                pi[FX_MAX_INDICES] = {0, 0, 0, 0};
    for (size_t j = 0; j < k; ++j) pi[j] = indices[j].base;
    void* params[] = {&pm, &pi[0], &pi[1], &pi[2], &pi[3], &pv, &po, &a};
    return launch(*fn, (a.n + 255) / 256, 256, params, "fx_masked_put_acc");
}

}  // namespace

Status maskedIndexPutAccumulate(const DeviceView& self, const DeviceView& mask, const std::vector<DeviceView>& indices,
                                const DeviceView& values, const DeviceView& out) {
    return indexedPut(self, mask, indices, values, true, out);
}

Status indexPut(const DeviceView& self, const std::vector<DeviceView>& indices, const DeviceView& values,
                bool accumulate, const DeviceView& out) {
    return indexedPut(self, std::nullopt, indices, values, accumulate, out);
}

namespace {

/// index_put by a mask with values [count, ...]: the set positions' coordinates found on the
/// device (fx_mask_coords), then the plain index put by them.
Status indexPutByMaskRows(const DeviceView& self, const DeviceView& mask, const DeviceView& values, bool accumulate,
                          const DeviceView& out) {
    const size_t md = mask.meta.shape.size();
    FxMaskCoordsArgs a{};
    a.n = mask.meta.numel();
    a.ndim = static_cast<long long>(md);
    a.count = values.meta.shape[0];
    a.moff = mask.meta.offset;
    for (size_t d = 0; d < md; ++d) a.size[d] = mask.meta.shape[d], a.ms[d] = mask.meta.strides[d];
    auto buf = DeviceBuffer::allocate(static_cast<size_t>(std::max<int64_t>(1, a.ndim * a.count)) * sizeof(int64_t));
    if (!buf.ok()) return buf.error();
    if (a.count > 0) {
        auto fn = fallbackModule().function("fx_mask_coords");
        if (!fn.ok()) return fn.error();
        CUdeviceptr pm = mask.base, pc = buf->ptr();
        void* params[] = {&pm, &pc, &a};
        if (Status s = launchGrid(*fn, 1, 1, FX_COORD_THREADS, params, "fx_mask_coords"); !s.ok()) return s;
    }
    std::vector<DeviceView> indices;
    for (size_t d = 0; d < md; ++d) {
        indices.push_back(DeviceView{buf->ptr(), TensorMeta::contiguous({a.count}, DType::Int64)});
        indices.back().meta.offset = static_cast<int64_t>(d) * a.count;
    }
    return indexedPut(self, std::nullopt, indices, values, accumulate, out);
}

}  // namespace

Status indexPutByMask(const DeviceView& self, const DeviceView& mask, const DeviceView& values, bool accumulate,
                      const DeviceView& out) {
    const size_t md = mask.meta.shape.size(), nd = self.meta.shape.size();
    if (md == 0 || md > nd || md > FX_MAX_INDICES || mask.meta.dtype != DType::Bool || mask.meta.strides.size() != md)
        return makeError("device index_put: a bool mask over 1 to 4 leading dims");
    // Values with the count dim: a row per set position, or one row for all of them (dropped).
    if (values.meta.shape.size() == nd - md + 1 && values.meta.shape[0] != 1)
        return indexPutByMaskRows(self, mask, values, accumulate, out);
    DeviceView v = values;
    if (v.meta.shape.size() == nd - md + 1)
        v.meta.shape.erase(v.meta.shape.begin()), v.meta.strides.erase(v.meta.strides.begin());
    // Position d of every mask dim: iota tensors broadcasting to the mask's shape.
    std::vector<int64_t> iota;
    for (size_t d = 0; d < md; ++d)
        for (int64_t i = 0; i < mask.meta.shape[d]; ++i) iota.push_back(i);
    auto buf = DeviceBuffer::allocate(std::max<size_t>(1, iota.size()) * sizeof(int64_t));
    if (!buf.ok()) return buf.error();
    if (!iota.empty())
        if (Status s = check(runtime().cu.cuMemcpyHtoD(buf->ptr(), iota.data(), iota.size() * sizeof(int64_t)),
                             "uploading index_put's mask positions");
            !s.ok())
            return s;
    std::vector<DeviceView> indices;
    int64_t at = 0;
    for (size_t d = 0; d < md; ++d) {
        std::vector<int64_t> shape(md, 1);
        shape[d] = mask.meta.shape[d];
        indices.push_back(DeviceView{buf->ptr(), TensorMeta::contiguous(shape, DType::Int64)});
        indices.back().meta.offset = at;
        at += mask.meta.shape[d];
    }
    // The mask over [mask dims..., self's other dims]: size-1 trailing dims.
    DeviceView m = mask;
    for (size_t d = md; d < nd; ++d) m.meta.shape.push_back(1), m.meta.strides.push_back(0);
    return indexedPut(self, m, indices, v, accumulate, out);
}

Status maskedSelect(const DeviceView& self, const DeviceView& mask, const DeviceView& out) {
    auto full = broadcastShape(self.meta.shape, mask.meta.shape);
    if (!full || full->size() > FX_MAX_DIMS || mask.meta.dtype != DType::Bool || out.meta.dtype != self.meta.dtype ||
        !out.meta.isContiguous())
        return makeError("device masked_select needs a bool mask broadcasting with self (8 dims at most)");
    FxMaskedSelectArgs a{};
    a.ndim = static_cast<long long>(full->size());
    a.n = product(*full, 0, full->size());
    a.outLen = out.meta.numel();
    a.elem = dtypeItemSize(self.meta.dtype);
    for (size_t d = 0; d < full->size(); ++d) a.size[d] = (*full)[d];
    if (!broadcastStrides(self.meta, *full, a.ss) || !broadcastStrides(mask.meta, *full, a.ms))
        return makeError("device masked_select: self or mask does not broadcast");
    a.soff = self.meta.offset;
    a.moff = mask.meta.offset;
    if (a.outLen == 0) return Status::success();
    // Slots a different mask would leave unwritten read as zeros, not stale memory.
    if (Status s = check(runtime().cu.cuMemsetD8(out.address(), 0, static_cast<size_t>(a.outLen * a.elem)),
                         "zeroing masked_select's output");
        !s.ok())
        return s;
    auto fn = fallbackModule().function("fx_masked_select_any");
    if (!fn.ok()) return fn.error();
    CUdeviceptr ps = self.base, pm = mask.base, po = out.address();
    void* params[] = {&ps, &pm, &po, &a};
    return launchGrid(*fn, 1, 1, 32, params, "fx_masked_select");
}

}  // namespace fxray::cg::cuda
