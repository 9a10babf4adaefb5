// The device extern kernels: one function per entry of the table at the bottom. Each checks what
// it handles before allocating or launching anything, so a declined call costs nothing.
#include "codegen/cuda/device_externs.h"

#include "codegen/conv_composite.h"
#include "codegen/cuda/backward_ops.h"
#include "codegen/cuda/builtin_kernels.h"
#include "codegen/cuda/cublas_lt.h"
#include "codegen/cuda/cudnn_conv.h"
#include "codegen/cuda/device_attention.h"
#include "codegen/cuda/fallback_kernels.h"
#include "codegen/cuda/op_externs.h"
#include "exec/ops/kernel_util.h"

#include <algorithm>
#include <cmath>

namespace fxray::cg::cuda {

namespace {

Expected<bool> catOnDevice(DeviceCall& c) {
    // Legacy rule kept by PyTorch: 1-D empty inputs ([0]) are skipped whatever the rank
    // (gpt2's KV cache starts as such); other empty inputs add nothing along dim.
    const TensorMeta* om = c.out0();
    const Node& n = c.node();
    if (!om || n.args.empty() || n.args[0].kind != Argument::Kind::List) return false;
    int64_t dim = n.args.size() > 1 ? n.args[1].i : 0;
    for (const auto& [k, a] : n.kwargs)
        if (k == "dim") dim = a.i;
    if (dim < 0) dim += static_cast<int64_t>(om->shape.size());
    if (dim < 0 || dim >= static_cast<int64_t>(om->shape.size())) return false;
    auto items = c.listViews(0);
    if (!items) return false;
    std::vector<DeviceView> parts;
    for (const DeviceView& p : *items) {
        if (p.meta.numel() == 0 && p.meta.shape.size() == 1) continue;
        if (p.meta.dtype != om->dtype || p.meta.shape.size() != om->shape.size()) return false;
        parts.push_back(p);
    }
    auto o = c.out(0);
    if (!o.ok()) return o.error();
    const DeviceView& C = **o;
    int64_t at = 0;
    for (const auto& p : parts) {
        TensorMeta slice = C.meta;
        slice.shape[static_cast<size_t>(dim)] = p.meta.shape[static_cast<size_t>(dim)];
        slice.offset = C.meta.offset + at * C.meta.strides[static_cast<size_t>(dim)];
        at += p.meta.shape[static_cast<size_t>(dim)];
        if (slice.numel() == 0) continue;
        if (Status s = stridedCopy(p, DeviceView{C.base, slice}); !s.ok()) return s.error();
        ++c.stats().deviceCopies;
    }
    return true;
}

/// _chunk_cat(tensors, dim, num_chunks): each tensor zero-padded along dim to a multiple of
/// num_chunks, viewed as shape[:dim] + [num_chunks, -1], the views concatenated along dim + 1
/// (codegen/cpu/extern_kernels.cpp chunkCatInto). Strided copies: per tensor the whole chunks in
/// one, the short last chunk in another, over a zeroed output where any tensor is padded.
Expected<bool> chunkCatOnDevice(DeviceCall& c) {
    const TensorMeta* om = c.out0();
    const OpArgs* A = om && om->isContiguous() ? c.args() : nullptr;
    if (!A) return false;
    auto items = c.listViews(0);
    const int64_t chunks = A->toInt(2);
    if (!items || items->empty() || chunks <= 0) return false;
    int64_t dim = A->toInt(1);
    const int64_t rank = static_cast<int64_t>((*items)[0].meta.shape.size());
    if (dim < 0) dim += rank;
    if (dim < 0 || dim >= rank || static_cast<int64_t>(om->shape.size()) != dim + 2 || om->shape[dim] != chunks)
        return false;
    int64_t lead = 1;
    for (int64_t d = 0; d < dim; ++d) lead *= om->shape[static_cast<size_t>(d)];
    const int64_t width = om->shape[static_cast<size_t>(dim + 1)];
    int64_t total = 0;
    bool padded = false;
    for (const DeviceView& t : *items) {
        if (t.meta.dtype != om->dtype || static_cast<int64_t>(t.meta.shape.size()) != rank || t.meta.numel() == 0)
            return false;
        const int64_t n = t.meta.shape[static_cast<size_t>(dim)];
        if (t.meta.numel() % (lead * n) != 0) return false;
        const int64_t cr = (n + chunks - 1) / chunks;
        total += cr * (t.meta.numel() / (lead * n));
        padded = padded || cr * chunks != n;
    }
    if (total != width) return false;
    auto o = c.out(0);
    if (!o.ok()) return o.error();
    const DeviceView& out = **o;
    const size_t item = dtypeItemSize(om->dtype);
    if (padded)
        if (Status s = check(runtime().cu.cuMemsetD8(out.base + static_cast<CUdeviceptr>(out.meta.offset) * item, 0,
                                                     static_cast<size_t>(out.meta.numel()) * item),
                             "zeroing _chunk_cat's padding");
            !s.ok())
            return s.error();
    int64_t col = 0;
    for (const DeviceView& t : *items) {
        DeviceBuffer tmp;
        auto src = denseView(t, tmp);
        if (!src.ok()) return src.error();
        const int64_t n = t.meta.shape[static_cast<size_t>(dim)], trail = t.meta.numel() / (lead * n);
        const int64_t cr = (n + chunks - 1) / chunks, full = n / cr, rest = n - full * cr;
        // [lead, chunk, cr * trail] of the source and of the output's columns [col, col + cr * trail).
        auto copy = [&](int64_t first, int64_t count, int64_t rows) -> Status {
            DeviceView s = *src, d = out;
            s.meta.shape = d.meta.shape = {lead, count, rows * trail};
            s.meta.strides = {n * trail, cr * trail, 1};
            s.meta.offset = src->meta.offset + first * cr * trail;
            d.meta.strides = {chunks * width, width, 1};
            d.meta.offset = out.meta.offset + first * width + col;
            return stridedCopy(s, d);
        };
        if (full > 0)
            if (Status s = copy(0, full, cr); !s.ok()) return s.error();
        if (rest > 0)
            if (Status s = copy(full, 1, rest); !s.ok()) return s.error();
        col += cr * trail;
        ++c.stats().deviceCopies;
    }
    return true;
}

/// _to_copy(self, dtype=complex...) of a real fp32/fp64 tensor (the lowering declines complex
/// outputs): each element becomes (x, 0), into a dense output. Complex sources stay on the host.
Expected<bool> toComplexOnDevice(DeviceCall& c) {
    const TensorMeta* om = c.out0();
    if (!om || (om->dtype != DType::Complex64 && om->dtype != DType::Complex128) || !om->isContiguous()) return false;
    auto x = c.view(0);
    if (!x || (x->meta.dtype != DType::Float32 && x->meta.dtype != DType::Float64) || x->meta.shape != om->shape)
        return false;
    auto o = c.out(0);
    if (!o.ok()) return o.error();
    const int64_t n = om->numel();
    if (n == 0) return true;
    DeviceBuffer tmp;
    auto xd = denseView(*x, tmp);
    if (!xd.ok()) return xd.error();
    const std::string name = std::string("fx_to_complex_") + (x->meta.dtype == DType::Float64 ? "f64" : "f32") +
                             (om->dtype == DType::Complex128 ? "_c128" : "_c64");
    auto fn = builtinFunction(name.c_str());
    if (!fn.ok()) return fn.error();
    CUdeviceptr px = xd->address(), py = (*o)->address();
    long long count = n;
    void* params[] = {&px, &py, &count};
    if (Status s = launchBuiltin(*fn, n, params, "fx_to_complex"); !s.ok()) return s.error();
    ++c.stats().deviceExterns;
    return true;
}

/// _efficientzerotensor(size, ...): zeros (PyTorch's has no storage; fxray's is a zeroed buffer).
Expected<bool> efficientZeroTensorOnDevice(DeviceCall& c) {
    const TensorMeta* om = c.out0();
    if (!om || !om->isContiguous()) return false;
    auto o = c.out(0);
    if (!o.ok()) return o.error();
    const DeviceView& v = **o;
    const size_t item = dtypeItemSize(v.meta.dtype);
    if (Status s = check(runtime().cu.cuMemsetD8(v.base + static_cast<CUdeviceptr>(v.meta.offset) * item, 0,
                                                 static_cast<size_t>(v.meta.numel()) * item),
                         "zeroing _efficientzerotensor");
        !s.ok())
        return s.error();
    ++c.stats().deviceExterns;
    return true;
}

/// mm, bmm (bias-free) and addmm through cuBLAS.
template <bool AddMM>
Expected<bool> gemmOnDevice(DeviceCall& c) {
    const TensorMeta* om = c.out0();
    if (!om || !gemmSupports(om->dtype)) return false;
    const size_t first = AddMM ? 1 : 0;
    auto A = c.view(first), B = c.view(first + 1);
    std::optional<DeviceView> bias = AddMM ? c.view(0) : std::nullopt;
    double beta = 1.0, alpha = 1.0;
    for (const auto& [key, a] : c.node().kwargs) {
        double v = a.kind == Argument::Kind::Int ? static_cast<double>(a.i) : a.f;
        if (key == "beta") beta = v;
        if (key == "alpha") alpha = v;
    }
    if (!A || !B || A->meta.dtype != om->dtype || B->meta.dtype != om->dtype || (AddMM && !bias)) return false;
    auto o = c.out(0);
    if (!o.ok()) return o.error();
    const DeviceView& C = **o;
    // mm, and addmm(bias [N], A, B) with unit scales (the bias in the epilogue): cuBLASLt, as
    // eager does.
    if (alpha == 1.0 && (!AddMM || beta == 1.0)) {
        auto lt = gemmLt(*A, *B, C, AddMM ? &*bias : nullptr);
        if (!lt.ok()) return lt.error();
        if (*lt) {
            ++c.stats().gemms;
            return true;
        }
    }
    if (AddMM && beta != 0.0)
        if (Status s = stridedCopy(*bias, C); !s.ok()) return s.error();
    if (Status s = gemm(*A, *B, C, alpha, AddMM ? beta : 0.0); !s.ok()) return s.error();
    ++c.stats().gemms;
    return true;
}

/// baddbmm(self, batch1, batch2, *, beta, alpha): out[b] = beta * self[b] + alpha * batch1[b] @
/// batch2[b], one strided-batched GEMM; addbmm sums the products over b into one [M, N] matrix,
/// one GEMM per batch accumulating into out (beta 1 after the first). self broadcasts and is
/// copied into out first; beta 0 ignores it (NaN included), as PyTorch does.
template <bool ReduceBatches>
Expected<bool> batchedAddOnDevice(DeviceCall& c) {
    const TensorMeta* om = c.out0();
    const OpArgs* A = om && gemmSupports(om->dtype) && om->isContiguous() ? c.args() : nullptr;
    if (!A) return false;
    auto self = c.view(0), b1 = c.view(1), b2 = c.view(2);
    if (!self || !b1 || !b2 || self->meta.dtype != om->dtype || b1->meta.dtype != om->dtype ||
        b2->meta.dtype != om->dtype || b1->meta.shape.size() != 3 || b2->meta.shape.size() != 3)
        return false;
    const int64_t B = b1->meta.shape[0], K = b1->meta.shape[2];
    // An empty sum leaves beta * self, which gemm() does not scale: the host does it.
    if (B == 0 || K == 0) return false;
    const double beta = A->toDouble(3), alpha = A->toDouble(4);
    auto o = c.out(0);
    if (!o.ok()) return o.error();
    const DeviceView& C = **o;
    if (beta != 0.0)
        if (Status s = stridedCopy(*self, C); !s.ok()) return s.error();
    if (!ReduceBatches) {
        if (Status s = gemm(*b1, *b2, C, alpha, beta); !s.ok()) return s.error();
        ++c.stats().gemms;
        return true;
    }
    // Batch b of a [B, R, C] view as an [R, C] matrix view.
    auto slice = [](const DeviceView& v, int64_t b) {
        DeviceView m = v;
        m.meta.shape = {v.meta.shape[1], v.meta.shape[2]};
        m.meta.strides = {v.meta.strides[1], v.meta.strides[2]};
        m.meta.offset = v.meta.offset + b * v.meta.strides[0];
        return m;
    };
    for (int64_t b = 0; b < B; ++b) {
        if (Status s = gemm(slice(*b1, b), slice(*b2, b), C, alpha, b == 0 ? beta : 1.0); !s.ok()) return s.error();
        ++c.stats().gemms;
    }
    return true;
}

// Convolutions run through cuDNN when it is installed (PyTorch's own path, and its speed);
// else, or where cuDNN refuses a configuration, through the direct kernels (fp32/fp64;
// FXRAY_CUDNN_CONV=0 forces them, cudnn_conv.h).
bool anyConv(DType t) { return cudnnConvSupports(t) || convSupports(t); }

/// linear(input [..., K], weight [N, K], bias [N]?) as addmm over the input's rows: input as
/// [M, K], weight read transposed in place, the bias in cuBLASLt's epilogue as addmm's.
Expected<bool> linearOnDevice(DeviceCall& c) {
    const TensorMeta* om = c.out0();
    const OpArgs* A = c.args();
    if (!om || !A || !gemmSupports(om->dtype) || !om->isContiguous()) return false;
    auto x = c.view(0), w = c.view(1);
    std::optional<DeviceView> bias = A->isNone(2) ? std::nullopt : c.view(2);
    if (!x || !w || (!A->isNone(2) && !bias) || x->meta.dtype != om->dtype || w->meta.dtype != om->dtype ||
        (bias && (bias->meta.dtype != om->dtype || bias->meta.shape.size() != 1)) || w->meta.shape.size() != 2 ||
        x->meta.shape.empty())
        return false;
    const int64_t K = x->meta.shape.back(), N = w->meta.shape[0];
    if (K <= 0 || w->meta.shape[1] != K) return false;
    const int64_t M = x->meta.numel() / K;
    if (om->numel() != M * N) return false;
    auto o = c.out(0);
    if (!o.ok()) return o.error();
    if (M == 0 || N == 0) return true;
    // A strided input (a slice, x[:, 0]) is copied dense first: its rows then fold into M.
    DeviceBuffer tx;
    auto xd = denseView(*x, tx);
    if (!xd.ok()) return xd.error();
    DeviceView a{xd->base, TensorMeta::contiguous({M, K}, x->meta.dtype)};
    a.meta.offset = xd->meta.offset;
    DeviceView b{w->base, w->meta};
    b.meta.shape = {K, N};
    b.meta.strides = {w->meta.strides[1], w->meta.strides[0]};
    DeviceView out{(*o)->base, TensorMeta::contiguous({M, N}, om->dtype)};
    out.meta.offset = (*o)->meta.offset;
    auto lt = gemmLt(a, b, out, bias ? &*bias : nullptr);
    if (!lt.ok()) return lt.error();
    if (!*lt) {
        if (bias)
            if (Status s = stridedCopy(*bias, out); !s.ok()) return s.error();
        if (Status s = gemm(a, b, out, 1.0, bias ? 1.0 : 0.0); !s.ok()) return s.error();
    }
    ++c.stats().gemms;
    return true;
}

/// matmul(a, b) as the CPU extern takes it: a [..., M, K] by a matrix (rows folded) or equal
/// batch dims (one batched GEMM), operands made dense first where their batches do not fold.
/// v [..., R, C] seen with the batch dims `batch` (stride 0 where v's dim is missing or 1): made
/// dense by denseView, the operand of one batched GEMM.
DeviceView broadcastBatchView(const DeviceView& v, const std::vector<int64_t>& batch) {
    const size_t nb = batch.size(), vb = v.meta.shape.size() - 2;
    DeviceView r = v;
    r.meta.shape = batch;
    r.meta.strides.assign(nb, 0);
    for (size_t i = 0; i < nb; ++i)
        if (i + vb >= nb && v.meta.shape[i + vb - nb] != 1) r.meta.strides[i] = v.meta.strides[i + vb - nb];
    for (size_t d = vb; d < v.meta.shape.size(); ++d) {
        r.meta.shape.push_back(v.meta.shape[d]);
        r.meta.strides.push_back(v.meta.strides[d]);
    }
    return r;
}

Expected<bool> matmulOnDevice(DeviceCall& c) {
    const TensorMeta* om = c.out0();
    if (!om || !gemmSupports(om->dtype) || !om->isContiguous()) return false;
    auto x = c.view(0), y = c.view(1);
    if (!x || !y || x->meta.dtype != om->dtype || y->meta.dtype != om->dtype || x->meta.shape.size() < 2 ||
        y->meta.shape.size() < 2)
        return false;
    const auto &xs = x->meta.shape, &ys = y->meta.shape;
    const int64_t M = xs[xs.size() - 2], K = xs.back(), N = ys.back();
    if (K <= 0 || ys[ys.size() - 2] != K) return false;
    const std::vector<int64_t> bx(xs.begin(), xs.end() - 2), by(ys.begin(), ys.end() - 2);
    // Batch dims broadcast against each other (a capsule network's W [1, 36, 5, 12, 8] @ u
    // [B, 36, 1, 8, 1]): both operands expanded to the common batch and made dense.
    const auto batch = kern::broadcastShapes(bx, by);
    if (ys.size() > 2 && !batch) return false;
    const bool broadcast = ys.size() > 2 && bx != by;
    auto o = c.out(0);
    if (!o.ok()) return o.error();
    if (om->numel() == 0) return true;
    DeviceBuffer tx, ty;
    auto xd = denseView(broadcast ? broadcastBatchView(*x, *batch) : *x, tx);
    if (!xd.ok()) return xd.error();
    auto as = [](const DeviceView& v, std::vector<int64_t> shape) {
        DeviceView r{v.base, TensorMeta::contiguous(std::move(shape), v.meta.dtype)};
        r.meta.offset = v.meta.offset;
        return r;
    };
    Status s;
    if (ys.size() == 2) {
        const int64_t R = x->meta.numel() / K;
        const DeviceView a = as(*xd, {R, K}), out = as(**o, {R, N});
        auto lt = gemmLt(a, *y, out, nullptr);
        if (!lt.ok()) return lt.error();
        if (!*lt) s = gemm(a, *y, out, 1.0, 0.0);
    } else {
        auto yd = denseView(broadcast ? broadcastBatchView(*y, *batch) : *y, ty);
        if (!yd.ok()) return yd.error();
        int64_t B = 1;
        for (int64_t d : *batch) B *= d;
        s = gemm(as(*xd, {B, M, K}), as(*yd, {B, K, N}), as(**o, {B, M, N}), 1.0, 0.0);
    }
    if (!s.ok()) return s.error();
    ++c.stats().gemms;
    return true;
}

/// A transposed convolution's forward into o: cuDNN's backward-data pass; where cuDNN is absent
/// or has no algorithm for the problem (some dilated, grouped transposed convolutions with output
/// padding), the direct input-gradient kernel. Half types have no direct kernel: the host runs
/// those (false).
Expected<bool> transposedConvForward(DeviceCall& c, const DeviceView& x, const DeviceView& w,
                                     const std::optional<DeviceView>& bias, const DeviceView& o,
                                     const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                                     const std::vector<int64_t>& dilation, int64_t groups) {
    const DType t = o.meta.dtype;
    Status s = makeError("cuDNN is not available");
    if (cudnnConvSupports(t)) {
        s = cudnnConvTransposeForward(x, w, bias, o, stride, padding, dilation, groups);
        if (s.ok()) ++c.stats().cudnnCalls;
    }
    if (!s.ok() && !convSupports(t)) return false;
    if (!s.ok()) s = convTransposeForward(x, w, bias, o, stride, padding, dilation, groups);
    if (!s.ok()) return s.error();
    ++c.stats().deviceExterns;
    return true;
}

/// A plain convolution's forward into o: cuDNN, else the direct kernels.
Expected<bool> plainConvForward(DeviceCall& c, const DeviceView& x, const DeviceView& w,
                                const std::optional<DeviceView>& bias, const DeviceView& o,
                                const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                                const std::vector<int64_t>& dilation, int64_t groups) {
    const DType t = o.meta.dtype;
    Status s = makeError("cuDNN is not available");
    if (cudnnConvSupports(t)) {
        s = cudnnConvForward(x, w, bias, o, stride, padding, dilation, groups);
        if (s.ok()) ++c.stats().cudnnCalls;
    }
    if (!s.ok() && convSupports(t)) s = convForward(x, w, bias, o, stride, padding, dilation, groups);
    if (!s.ok()) return s.error();
    ++c.stats().deviceExterns;
    return true;
}

/// The input, weight and optional bias (arguments 0 to 2) of a convolution's forward, all of
/// the output's dtype, and the output allocated; nullopt declines.
struct ConvOperands {
    DeviceView x, w, out;
    std::optional<DeviceView> bias;
};
Expected<std::optional<ConvOperands>> convOperands(DeviceCall& c, const OpArgs& A, const TensorMeta& om) {
    auto x = c.view(0), w = c.view(1);
    std::optional<DeviceView> bias = A.isNone(2) ? std::nullopt : c.view(2);
    if (!x || !w || (!A.isNone(2) && !bias) || x->meta.dtype != om.dtype || w->meta.dtype != om.dtype)
        return std::optional<ConvOperands>();
    auto o = c.out(0);
    if (!o.ok()) return o.error();
    return std::optional<ConvOperands>(ConvOperands{*x, *w, **o, bias});
}

Expected<bool> convOnDevice(DeviceCall& c) {
    // convolution(input, weight, bias?, stride, padding, dilation, transposed, output_padding, groups)
    const TensorMeta* om = c.out0();
    const OpArgs* A = c.args();
    if (!om || !anyConv(om->dtype) || !A) return false;
    auto ops = convOperands(c, *A, *om);
    if (!ops.ok()) return ops.error();
    if (!*ops) return false;
    const ConvOperands& v = **ops;
    auto forward = A->toBool(6) ? transposedConvForward : plainConvForward;
    return forward(c, v.x, v.w, v.bias, v.out, A->toIntList(3), A->toIntList(4), A->toIntList(5), A->toInt(8));
}

/// conv1d/conv2d/conv3d(input, weight, bias, stride, padding, dilation, groups) as Dynamo-stage
/// graphs keep them (padding a list or, `.padding`, a name): convolution's forward path (cuDNN,
/// else the direct kernels).
template <int D>
Expected<bool> convCompositeOnDevice(DeviceCall& c) {
    const TensorMeta* om = c.out0();
    const OpArgs* A = c.args();
    if (!om || !anyConv(om->dtype) || !A || !A->isTensor(0) || A->tensor(0).dim() != D + 2) return false;
    const auto pad = compositeConvPadding(*A, D);
    if (!pad) return false;
    auto ops = convOperands(c, *A, *om);
    if (!ops.ok()) return ops.error();
    if (!*ops) return false;
    const ConvOperands& v = **ops;
    return plainConvForward(c, v.x, v.w, v.bias, v.out, A->toIntList(3), *pad, A->toIntList(5), A->toInt(6));
}

/// conv_transpose1d/2d/3d.input(input, weight, bias, stride, padding, output_padding, groups,
/// dilation) as Dynamo-stage graphs keep them: aten.convolution's transposed forward.
Expected<bool> convTransposeCompositeOnDevice(DeviceCall& c) {
    const TensorMeta* om = c.out0();
    const OpArgs* A = c.args();
    if (!om || !A || !anyConv(om->dtype)) return false;
    auto ops = convOperands(c, *A, *om);
    if (!ops.ok()) return ops.error();
    if (!*ops) return false;
    const ConvOperands& v = **ops;
    return transposedConvForward(c, v.x, v.w, v.bias, v.out, A->toIntList(3), A->toIntList(4), A->toIntList(7),
                                 A->toInt(6));
}

Expected<bool> convBackwardOnDevice(DeviceCall& c) {
    // (grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed, output_padding, groups, mask)
    const OpArgs* A = c.args();
    if (!A) return false;
    const bool transposed = A->toBool(7);
    auto gy = c.view(0), x = c.view(1), w = c.view(2);
    if (!gy || !x || !w || !anyConv(gy->meta.dtype) || x->meta.dtype != gy->meta.dtype ||
        w->meta.dtype != gy->meta.dtype)
        return false;
    auto outs = c.outs(3);
    if (!outs.ok()) return outs.error();
    const auto& o = *outs;
    if (transposed) {
        // As the forward: cuDNN, else the direct kernels (fp32/fp64), else the host.
        Status s = makeError("cuDNN is not available");
        if (cudnnConvSupports(gy->meta.dtype)) {
            s = cudnnConvTransposeBackward(*gy, *x, *w, o[0], o[1], o[2], A->toIntList(4), A->toIntList(5),
                                           A->toIntList(6), A->toInt(9));
            if (s.ok()) ++c.stats().cudnnCalls;
        }
        if (!s.ok() && !convSupports(gy->meta.dtype)) return false;
        if (!s.ok())
            s = convTransposeBackward(*gy, *x, *w, o[0], o[1], o[2], A->toIntList(4), A->toIntList(5), A->toIntList(6),
                                      A->toInt(9));
        if (!s.ok()) return s.error();
        ++c.stats().deviceExterns;
        return true;
    }
    Status s = makeError("cuDNN is not available");
    if (cudnnConvSupports(gy->meta.dtype)) {
        s = cudnnConvBackward(*gy, *x, *w, o[0], o[1], o[2], A->toIntList(4), A->toIntList(5), A->toIntList(6),
                              A->toInt(9));
        if (s.ok()) ++c.stats().cudnnCalls;
    }
    if (!s.ok() && convSupports(gy->meta.dtype))
        s = convBackward(*gy, *x, *w, o[0], o[1], o[2], A->toIntList(4), A->toIntList(5), A->toIntList(6), A->toInt(9));
    if (!s.ok()) return s.error();
    ++c.stats().deviceExterns;
    return true;
}

/// _scaled_dot_product_efficient_attention (Efficient) and the composite scaled_dot_product_attention.
template <bool Efficient>
Expected<bool> attentionOnDevice(DeviceCall& c) {
    // _scaled_dot_product_efficient_attention(query, key, value, attn_bias?, compute_log_sumexp,
    //     dropout_p, is_causal, *, scale) -> (output, log_sumexp, philox_seed, philox_offset)
    // scaled_dot_product_attention(query, key, value, attn_mask?, dropout_p, is_causal, *, scale, enable_gqa)
    const OpArgs* A = c.args();
    if (!A) return false;
    const size_t iDrop = Efficient ? 5 : 4, iCausal = Efficient ? 6 : 5, iScale = Efficient ? 7 : 6;
    auto q = c.view(0), k = c.view(1), v = c.view(2);
    std::optional<DeviceView> bias = A->isNone(3) ? std::nullopt : c.view(3);
    // Dropout stays on the host: its mask is the reference executor's RNG, so that the
    // backward (also on the host then) and the reference agree.
    if (!q || !k || !v || (!A->isNone(3) && !bias) || A->toDouble(iDrop) != 0.0) return false;
    // Grouped-query heads (enable_gqa): key and value repeated head by head into scratch, head h
    // reading key head h / group (repeat_interleave), then the plain kernels.
    DeviceBuffer repeated[2];
    if (!Efficient && A->size() > 7 && !A->isNone(7) && A->toBool(7)) {
        for (int i = 0; i < 2; ++i) {
            DeviceView& x = i == 0 ? *k : *v;
            if (x.meta.dim() != 4 || q->meta.dim() != 4) return false;
            const int64_t H = q->meta.shape[1], Hk = x.meta.shape[1];
            if (Hk <= 0 || H % Hk != 0) return false;
            if (Hk == H) continue;
            const auto& s = x.meta.shape;
            TensorMeta src = x.meta;
            src.shape = {s[0], Hk, H / Hk, s[2], s[3]};
            src.strides = {x.meta.strides[0], x.meta.strides[1], 0, x.meta.strides[2], x.meta.strides[3]};
            TensorMeta dense = TensorMeta::contiguous({s[0], H, s[2], s[3]}, x.meta.dtype, x.meta.device);
            auto buf = DeviceBuffer::allocate(static_cast<size_t>(std::max<int64_t>(dense.numel(), 1)) *
                                              static_cast<size_t>(dtypeItemSize(dense.dtype)));
            if (!buf.ok()) return buf.error();
            repeated[i] = std::move(buf).value();
            TensorMeta dst = TensorMeta::contiguous(src.shape, x.meta.dtype, x.meta.device);
            if (Status st = stridedCopy(DeviceView{x.base, src}, DeviceView{repeated[i].ptr(), dst}); !st.ok())
                return st.error();
            x = DeviceView{repeated[i].ptr(), dense};
        }
    }
    const TensorMeta* om = c.out0();
    if (!om || !attentionHandles(q->meta, k->meta, v->meta, bias ? &bias->meta : nullptr, *om)) return false;
    auto o = c.out(0);
    if (!o.ok()) return o.error();
    std::optional<DeviceView> lse;
    if (Efficient) {
        auto l = c.out(1);
        if (!l.ok()) return l.error();
        lse = *l;
    }
    const double scale = A->size() > iScale && !A->isNone(iScale)
                             ? A->toDouble(iScale)
                             : 1.0 / std::sqrt(static_cast<double>(q->meta.shape[3]));
    if (Status s = attentionForward(*q, *k, *v, bias, **o, lse, scale, topLeftCausal(A->toBool(iCausal))); !s.ok())
        return s.error();
    // The philox seed and offset are 0 without dropout.
    for (size_t i = 2; Efficient && i < 4; ++i) {
        auto p = c.out(i);
        if (!p.ok()) return p.error();
        if (!*p) continue;
        const DeviceView& pv = **p;
        const size_t bytes = static_cast<size_t>(pv.meta.numel() * dtypeItemSize(pv.meta.dtype));
        if (Status s =
                check(runtime().cu.cuMemsetD8(
                          pv.base + static_cast<CUdeviceptr>(pv.meta.offset * dtypeItemSize(pv.meta.dtype)), 0, bytes),
                      "zeroing the philox outputs");
            !s.ok())
            return s.error();
    }
    ++c.stats().deviceExterns;
    return true;
}

/// cuDNN's logsumexp, dense fp32 [B, H, M, 1], as the [B, H, M] rows the device kernels take.
std::optional<DeviceView> lseRows(const DeviceView& l) {
    const TensorMeta& m = l.meta;
    if (m.shape.size() != 4 || m.shape[3] != 1 || m.dtype != DType::Float32 || !m.isContiguous()) return std::nullopt;
    DeviceView r = l;
    r.meta = TensorMeta::contiguous({m.shape[0], m.shape[1], m.shape[2]}, DType::Float32, m.device);
    r.meta.offset = m.offset;
    return r;
}

/// Zeroes the philox seed/offset outputs (0 without dropout), where the graph has them.
Status zeroPhilox(const std::vector<std::optional<DeviceView>>& o, std::initializer_list<size_t> which) {
    for (size_t i : which) {
        if (i >= o.size() || !o[i]) continue;
        const DeviceView& pv = *o[i];
        const size_t item = dtypeItemSize(pv.meta.dtype);
        if (Status s = check(runtime().cu.cuMemsetD8(pv.base + static_cast<CUdeviceptr>(pv.meta.offset) * item, 0,
                                                     static_cast<size_t>(pv.meta.numel()) * item),
                             "zeroing the philox outputs");
            !s.ok())
            return s;
    }
    return Status::success();
}

/// A [B, S, H, D] tensor (the _efficient_attention ops' BMHK) as its [B, H, S, D] view.
DeviceView bhmkView(DeviceView t) {
    if (t.meta.shape.size() == 4)
        std::swap(t.meta.shape[1], t.meta.shape[2]), std::swap(t.meta.strides[1], t.meta.strides[2]);
    return t;
}

/// _efficient_attention_forward(query, key, value, bias?, cu_seqlens_q?, cu_seqlens_k?,
/// max_seqlen_q?, max_seqlen_k?, dropout_p, custom_mask_type, compute_log_sumexp, *, scale?,
/// seqlen_k?, window_size?) -> (output, logsumexp, philox_seed, philox_offset, ...): BMHK
/// tensors, run on their BHMK views. Handled as the CPU extern: no dropout, any mask type (0 none,
/// 1 causal from the top left, 2 from the bottom right), fixed-length batches.
Expected<bool> efficientAttentionForwardOnDevice(DeviceCall& c) {
    const OpArgs* A = c.args();
    if (!A || c.outCount() < 4) return false;
    for (size_t i : {4, 5, 6, 7, 12, 13})
        if (i < A->size() && !A->isNone(i)) return false;
    const int64_t mask = A->toInt(9);
    if (A->toDouble(8) != 0.0 || mask < 0 || mask > 2) return false;
    auto q = c.view(0), k = c.view(1), v = c.view(2);
    std::optional<DeviceView> bias = A->isNone(3) ? std::nullopt : c.view(3);
    if (!q || !k || !v || (!A->isNone(3) && !bias) || !c.hasOut(0) || !c.hasOut(1)) return false;
    for (const DeviceView* t : {&*q, &*k, &*v})
        if (t->meta.shape.size() != 4) return false;
    TensorMeta om = *c.outMeta(0);
    if (om.shape.size() != 4) return false;
    std::swap(om.shape[1], om.shape[2]), std::swap(om.strides[1], om.strides[2]);
    if (!attentionHandles(bhmkView(*q).meta, bhmkView(*k).meta, bhmkView(*v).meta, bias ? &bias->meta : nullptr, om))
        return false;
    auto outs = c.outs(4);
    if (!outs.ok()) return outs.error();
    const auto& o = *outs;
    std::optional<DeviceView> lse;
    if (o[1] && o[1]->meta.numel() > 0) lse = *o[1];
    const double scale =
        A->size() > 11 && !A->isNone(11) ? A->toDouble(11) : 1.0 / std::sqrt(static_cast<double>(q->meta.shape[3]));
    // BMHK: q's rows are dim 1, k's too.
    const CausalMask causal =
        mask == 2 ? bottomRightCausal(q->meta.shape[1], k->meta.shape[1]) : topLeftCausal(mask == 1);
    if (Status s =
            attentionForward(bhmkView(*q), bhmkView(*k), bhmkView(*v), bias, bhmkView(*o[0]), lse, scale, causal);
        !s.ok())
        return s.error();
    // The philox seed and offset are 0 without dropout.
    if (Status s = zeroPhilox(o, {2, 3}); !s.ok()) return s.error();
    ++c.stats().deviceExterns;
    return true;
}

/// _efficient_attention_backward(grad_out_, query, key, value, bias?, out, cu_seqlens_q?,
/// cu_seqlens_k?, max_seqlen_q, max_seqlen_k, logsumexp, dropout_p, philox_seed, philox_offset,
/// custom_mask_type, bias_requires_grad, *, scale?, num_splits_key?, window_size?,
/// shared_storage_dqdkdv) -> (grad_query, grad_key, grad_value, grad_bias): BMHK tensors on their
/// BHMK views, any mask type, no dropout, fixed-length batches. Without bias_requires_grad the
/// grad_bias output is zeroed (PyTorch leaves it unwritten).
Expected<bool> efficientAttentionBackwardOnDevice(DeviceCall& c) {
    const OpArgs* A = c.args();
    if (!A || c.outCount() < 4) return false;
    for (size_t i : {6, 7, 18})
        if (i < A->size() && !A->isNone(i)) return false;
    const int64_t mask = A->toInt(14);
    if (A->toDouble(11) != 0.0 || mask < 0 || mask > 2 || (A->size() > 19 && A->toBool(19))) return false;
    auto go = c.view(0), q = c.view(1), k = c.view(2), v = c.view(3), o = c.view(5), lse = c.view(10);
    std::optional<DeviceView> bias = A->isNone(4) ? std::nullopt : c.view(4);
    if (!go || !q || !k || !v || !o || !lse || (!A->isNone(4) && !bias)) return false;
    for (const DeviceView* t : {&*go, &*q, &*k, &*v, &*o})
        if (t->meta.shape.size() != 4) return false;
    for (size_t i = 0; i < 3; ++i)
        if (const TensorMeta* m = c.outMeta(i); !m || m->shape.size() != 4) return false;
    if (!attentionHandles(bhmkView(*q).meta, bhmkView(*k).meta, bhmkView(*v).meta, bias ? &bias->meta : nullptr,
                          bhmkView(*o).meta))
        return false;
    auto outs = c.outs(4);
    if (!outs.ok()) return outs.error();
    const auto& g = *outs;
    const bool biasGrad = bias && A->toBool(15);
    if (g[3] && !biasGrad) {
        const DeviceView& z = *g[3];
        const size_t item = dtypeItemSize(z.meta.dtype);
        if (Status s = check(runtime().cu.cuMemsetD8(z.address(), 0, static_cast<size_t>(z.meta.numel()) * item),
                             "zeroing grad_bias");
            !s.ok())
            return s.error();
    }
    const double scale =
        A->size() > 16 && !A->isNone(16) ? A->toDouble(16) : 1.0 / std::sqrt(static_cast<double>(q->meta.shape[3]));
    const CausalMask causal =
        mask == 2 ? bottomRightCausal(q->meta.shape[1], k->meta.shape[1]) : topLeftCausal(mask == 1);
    auto gv = [&](size_t i) { return g[i] ? std::optional<DeviceView>(bhmkView(*g[i])) : std::nullopt; };
    if (Status s = attentionBackward(bhmkView(*go), bhmkView(*q), bhmkView(*k), bhmkView(*v), bias, bhmkView(*o), *lse,
                                     scale, causal, gv(0), gv(1), gv(2), biasGrad ? g[3] : std::nullopt);
        !s.ok())
        return s.error();
    ++c.stats().deviceExterns;
    return true;
}

Expected<bool> attentionBackwardOnDevice(DeviceCall& c) {
    // (grad_out_, query, key, value, attn_bias?, out, logsumexp, philox_seed, philox_offset, dropout_p,
    //  grad_input_mask, is_causal, *, scale) -> (grad_query, grad_key, grad_value, grad_bias)
    const OpArgs* A = c.args();
    if (!A) return false;
    auto go = c.view(0), q = c.view(1), k = c.view(2), v = c.view(3), o = c.view(5), lse = c.view(6);
    std::optional<DeviceView> bias = A->isNone(4) ? std::nullopt : c.view(4);
    if (!go || !q || !k || !v || !o || !lse || (!A->isNone(4) && !bias) || A->toDouble(9) != 0.0) return false;
    if (!attentionHandles(q->meta, k->meta, v->meta, bias ? &bias->meta : nullptr, o->meta)) return false;
    auto grads = c.outs(4);
    if (!grads.ok()) return grads.error();
    const auto& g = *grads;
    const double scale =
        A->size() > 12 && !A->isNone(12) ? A->toDouble(12) : 1.0 / std::sqrt(static_cast<double>(q->meta.shape[3]));
    if (Status s = attentionBackward(*go, *q, *k, *v, bias, *o, *lse, scale, topLeftCausal(A->toBool(11)), g[0], g[1],
                                     g[2], bias ? g[3] : std::nullopt);
        !s.ok())
        return s.error();
    ++c.stats().deviceExterns;
    return true;
}

/// _scaled_dot_product_cudnn_attention(query, key, value, attn_bias?, compute_log_sumexp,
/// dropout_p, is_causal, return_debug_mask, *, scale?) -> (output, logsumexp [B, H, M, 1], None,
/// None, max_q, max_k, philox_seed, philox_offset, None): the fused kernels, top-left causal.
/// Dropout (the reference's mask) and a debug mask stay on the host.
Expected<bool> cudnnAttentionOnDevice(DeviceCall& c) {
    const OpArgs* A = c.args();
    if (!A || c.outCount() < 8 || A->toDouble(5) != 0.0 || A->toBool(7)) return false;
    auto q = c.view(0), k = c.view(1), v = c.view(2);
    std::optional<DeviceView> bias = A->isNone(3) ? std::nullopt : c.view(3);
    if (!q || !k || !v || (!A->isNone(3) && !bias) || !c.hasOut(0)) return false;
    const TensorMeta* om = c.outMeta(0);
    if (!om || !attentionHandles(q->meta, k->meta, v->meta, bias ? &bias->meta : nullptr, *om)) return false;
    if (const TensorMeta* lm = c.outMeta(1); lm && !lseRows(DeviceView{0, *lm})) return false;
    auto outs = c.outs(8);
    if (!outs.ok()) return outs.error();
    const auto& o = *outs;
    std::optional<DeviceView> lse = o[1] ? lseRows(*o[1]) : std::nullopt;
    const double scale =
        A->size() > 8 && !A->isNone(8) ? A->toDouble(8) : 1.0 / std::sqrt(static_cast<double>(q->meta.shape[3]));
    if (Status s = attentionForward(*q, *k, *v, bias, *o[0], lse, scale, topLeftCausal(A->toBool(6))); !s.ok())
        return s.error();
    if (Status s = zeroPhilox(o, {6, 7}); !s.ok()) return s.error();
    ++c.stats().deviceExterns;
    return true;
}

/// _scaled_dot_product_cudnn_attention_backward(grad_out, query, key, value, out, logsumexp,
/// philox_seed, philox_offset, attn_bias?, cum_seq_q?, cum_seq_k?, max_q, max_k, dropout_p,
/// is_causal, *, scale?) -> (grad_query, grad_key, grad_value).
Expected<bool> cudnnAttentionBackwardOnDevice(DeviceCall& c) {
    const OpArgs* A = c.args();
    if (!A || A->toDouble(13) != 0.0 || !A->isNone(9) || !A->isNone(10)) return false;
    auto go = c.view(0), q = c.view(1), k = c.view(2), v = c.view(3), o = c.view(4), l = c.view(5);
    std::optional<DeviceView> bias = A->isNone(8) ? std::nullopt : c.view(8);
    if (!go || !q || !k || !v || !o || !l || (!A->isNone(8) && !bias)) return false;
    auto lse = lseRows(*l);
    if (!lse || !attentionHandles(q->meta, k->meta, v->meta, bias ? &bias->meta : nullptr, o->meta)) return false;
    auto grads = c.outs(3);
    if (!grads.ok()) return grads.error();
    const auto& g = *grads;
    const double scale =
        A->size() > 15 && !A->isNone(15) ? A->toDouble(15) : 1.0 / std::sqrt(static_cast<double>(q->meta.shape[3]));
    if (Status s = attentionBackward(*go, *q, *k, *v, bias, *o, *lse, scale, topLeftCausal(A->toBool(14)), g[0], g[1],
                                     g[2], std::nullopt);
        !s.ok())
        return s.error();
    ++c.stats().deviceExterns;
    return true;
}

Status allocateReserve(DeviceCall& c);

/// Training-mode batch norm of a fp16 / bf16 activation (batchNormTrainHalf): y, the saved
/// statistics and, where rm / rv are given, the updated running statistics into nrm / nrv (rm /
/// rv themselves for the in-place ops). Saved statistics the graph dropped go to fp32 scratch.
Expected<bool> halfBatchNormTrain(DeviceCall& c, const OpArgs& A, size_t momArg, bool functional) {
    auto x = c.view(0);
    if (!x || !halfBatchNormSupports(x->meta.dtype) || !c.hasOut(0) || x->meta.shape.size() < 2) return false;
    std::optional<DeviceView> w = A.isNone(1) ? std::nullopt : c.view(1), b = A.isNone(2) ? std::nullopt : c.view(2);
    std::optional<DeviceView> rm = A.isNone(3) ? std::nullopt : c.view(3), rv = A.isNone(4) ? std::nullopt : c.view(4);
    if ((!A.isNone(1) && !w) || (!A.isNone(2) && !b) || (!A.isNone(3) && !rm) || (!A.isNone(4) && !rv)) return false;
    if (functional && (!rm || !c.hasOut(3) || !c.hasOut(4))) return false;
    if (const TensorMeta* reserve = c.outMeta(3); !functional && reserve && reserve->numel() != 0) return false;
    const int64_t C = x->meta.shape[1];
    auto outs = c.outs(std::min<size_t>(functional ? 5 : 3, c.outCount()));
    if (!outs.ok()) return outs.error();
    if (!functional)
        if (Status s = allocateReserve(c); !s.ok()) return s.error();
    DeviceBuffer scratch[2];
    DeviceView saved[2];
    for (size_t i = 1; i < 3; ++i) {
        if (i < outs->size() && (*outs)[i]) {
            saved[i - 1] = *(*outs)[i];
            continue;
        }
        auto buf = DeviceBuffer::allocate(static_cast<size_t>(std::max<int64_t>(C, 1)) * sizeof(float));
        if (!buf.ok()) return buf.error();
        scratch[i - 1] = std::move(buf).value();
        saved[i - 1] = DeviceView{scratch[i - 1].ptr(), TensorMeta::contiguous({C}, DType::Float32, x->meta.device)};
    }
    std::optional<DeviceView> nrm = rm, nrv = rv;
    if (functional) nrm = (*outs)[3], nrv = (*outs)[4];
    if (Status s = batchNormTrainHalf(*x, w, b, rm, rv, *(*outs)[0], saved[0], saved[1], nrm, nrv,
                                      A.toDouble(momArg), A.toDouble(momArg + 1));
        !s.ok())
        return false;  // a layout the kernel does not take: the host runs it
    ++c.stats().deviceExterns;
    return true;
}

Expected<bool> batchNormTrainOnDevice(DeviceCall& c) {
    // _native_batch_norm_legit_functional(input, weight?, bias?, running_mean, running_var, training, momentum, eps)
    const OpArgs* A = c.args();
    if (!A) return false;
    if (const TensorMeta* xm = c.outMeta(0); xm && halfBatchNormSupports(xm->dtype) && A->toBool(5))
        return halfBatchNormTrain(c, *A, 6, true);
    auto x = c.view(0), rm = c.view(3), rv = c.view(4);
    std::optional<DeviceView> w = A->isNone(1) ? std::nullopt : c.view(1), b = A->isNone(2) ? std::nullopt : c.view(2);
    if (!A->toBool(5) || !x || !rm || !rv || (!A->isNone(1) && !w) || (!A->isNone(2) && !b) ||
        !convSupports(x->meta.dtype) || !c.outsDense(5, x->meta.dtype))
        return false;
    for (size_t i = 0; i < c.outCount(); ++i)
        if (!c.hasOut(i)) return false;
    auto outs = c.outs(5);
    if (!outs.ok()) return outs.error();
    std::vector<DeviceView> ov;
    for (const auto& o : *outs) ov.push_back(*o);
    if (Status s = batchNormTrain(*x, w, b, *rm, *rv, ov, A->toDouble(6), A->toDouble(7)); !s.ok()) return s.error();
    ++c.stats().deviceExterns;
    return true;
}

/// cuDNN's reserve output (cudnn_batch_norm, _batch_norm_with_update: empty bytes here) is a
/// tensor, not None, where the graph returns it: allocated, nothing to write.
Status allocateReserve(DeviceCall& c) {
    if (!c.hasOut(3)) return Status::success();
    auto r = c.out(3);
    return r.ok() ? Status::success() : Status(r.error());
}

/// Evaluation mode (training False: native_batch_norm, _native_batch_norm_legit,
/// cudnn_batch_norm): the running statistics normalise; saved statistics of [C] (not cuDNN's
/// empty ones) receive them as PyTorch's CUDA kernels save them.
Expected<bool> batchNormEvalOnDevice(DeviceCall& c, const OpArgs& A) {
    auto x = c.view(0);
    if (!x || !windowPoolSupports(x->meta.dtype) || x->meta.shape.size() < 2 || !c.hasOut(0) || A.isNone(3) ||
        A.isNone(4) || !c.outsDense(std::min<size_t>(3, c.outCount()), x->meta.dtype))
        return false;
    if (const TensorMeta* reserve = c.outMeta(3); reserve && reserve->numel() != 0) return false;
    std::optional<DeviceView> w = A.isNone(1) ? std::nullopt : c.view(1), b = A.isNone(2) ? std::nullopt : c.view(2);
    auto rm = c.view(3), rv = c.view(4);
    if ((!A.isNone(1) && !w) || (!A.isNone(2) && !b) || !rm || !rv) return false;
    const int64_t C = x->meta.shape[1];
    for (const auto* v : {&w, &b, &rm, &rv})
        if (*v && ((*v)->meta.dtype != x->meta.dtype || (*v)->meta.shape != std::vector<int64_t>{C} ||
                   (C > 1 && (*v)->meta.strides[0] != 1)))
            return false;
    // Saved statistics: [C] are written, empty ones ([0], cuDNN's) skipped.
    for (size_t i = 1; i < 3; ++i)
        if (const TensorMeta* m = c.outMeta(i); m && m->numel() != 0 && m->shape != std::vector<int64_t>{C})
            return false;
    auto outs = c.outs(3);
    if (!outs.ok()) return outs.error();
    if (Status s = allocateReserve(c); !s.ok()) return s.error();
    auto saved = [&](size_t i) {
        const auto& o = (*outs)[i];
        return o && o->meta.numel() != 0 ? o : std::nullopt;
    };
    if (Status s = batchNormEval(*x, w, b, *rm, *rv, *(*outs)[0], saved(1), saved(2), A.toDouble(7)); !s.ok())
        return s.error();
    ++c.stats().deviceExterns;
    return true;
}

/// The batch norms that update their running-stat arguments in place: native_batch_norm,
/// _native_batch_norm_legit and cudnn_batch_norm in training mode (momentum, eps at 6, 7),
/// _batch_norm_with_update (at 5, 6). Outputs (y, save_mean, save_invstd[, empty reserve]);
/// the running statistics, when given, are written into the argument buffers as PyTorch's
/// kernels do. Evaluation mode: batchNormEvalOnDevice. Also Dynamo-stage batch_norm (momentum,
/// eps at 6, 7; y its only output) in training mode.
template <size_t MomArg>
Expected<bool> batchNormUpdateOnDevice(DeviceCall& c) {
    const OpArgs* A = c.args();
    if (!A) return false;
    if (MomArg == 6 && !A->toBool(5)) return batchNormEvalOnDevice(c, *A);
    if (const TensorMeta* xm = c.outMeta(0); xm && halfBatchNormSupports(xm->dtype))
        return halfBatchNormTrain(c, *A, MomArg, false);
    auto x = c.view(0);
    // Dynamo-stage batch_norm has y alone: the statistics go to scratch.
    if (!x || !convSupports(x->meta.dtype) || !c.hasOut(0) ||
        !c.outsDense(std::min<size_t>(3, c.outCount()), x->meta.dtype))
        return false;
    if (const TensorMeta* reserve = c.outMeta(3); reserve && reserve->numel() != 0) return false;
    std::optional<DeviceView> w = A->isNone(1) ? std::nullopt : c.view(1), b = A->isNone(2) ? std::nullopt : c.view(2);
    if ((!A->isNone(1) && !w) || (!A->isNone(2) && !b)) return false;
    std::optional<DeviceView> rm, rv;
    if (!A->isNone(3) && !A->isNone(4)) {
        rm = c.view(3), rv = c.view(4);
        if (!rm || !rv) return false;
    }
    if (x->meta.shape.size() < 2) return false;
    const int64_t C = x->meta.shape[1];
    // The kernel indexes every per-channel tensor as p[c]: other layouts and dtypes decline.
    for (const auto* v : {&w, &b, &rm, &rv})
        if (*v && ((*v)->meta.dtype != x->meta.dtype || (*v)->meta.shape != std::vector<int64_t>{C} ||
                   (C > 1 && (*v)->meta.strides[0] != 1)))
            return false;
    auto outs = c.outs(3);
    if (!outs.ok()) return outs.error();
    if (Status s = allocateReserve(c); !s.ok()) return s.error();
    // Statistics outputs the graph dropped still need somewhere to go.
    DeviceBuffer scratch[2];
    std::vector<DeviceView> ov{*(*outs)[0]};
    for (size_t i = 1; i < 3; ++i) {
        if ((*outs)[i]) {
            ov.push_back(*(*outs)[i]);
            continue;
        }
        auto buf = DeviceBuffer::allocate(static_cast<size_t>(std::max<int64_t>(C, 1) * dtypeItemSize(x->meta.dtype)));
        if (!buf.ok()) return buf.error();
        scratch[i - 1] = std::move(buf).value();
        ov.push_back(DeviceView{scratch[i - 1].ptr(), TensorMeta::contiguous({C}, x->meta.dtype, x->meta.device)});
    }
    if (rm) ov.push_back(*rm), ov.push_back(*rv);
    if (Status s = batchNormTrain(*x, w, b, rm, rv, ov, A->toDouble(MomArg), A->toDouble(MomArg + 1)); !s.ok())
        return s.error();
    ++c.stats().deviceExterns;
    return true;
}

Expected<bool> batchNormBackwardOnDevice(DeviceCall& c) {
    // native_batch_norm_backward(grad_out, input, weight?, running_mean?, running_var?, save_mean?, save_invstd?,
    //                            train, eps, output_mask)
    const OpArgs* A = c.args();
    if (!A) return false;
    auto gy = c.view(0), x = c.view(1);
    const bool half = x && halfBatchNormSupports(x->meta.dtype);
    if (!gy || !x || (!half && (!convSupports(x->meta.dtype) || !c.outsDense(3, x->meta.dtype)))) return false;
    std::optional<DeviceView> opt[5];
    for (size_t i = 0; i < 5; ++i) {
        if (A->isNone(2 + i)) continue;
        opt[i] = c.view(2 + i);
        if (!opt[i]) return false;
    }
    auto outs = c.outs(3);
    if (!outs.ok()) return outs.error();
    if (half) {
        // fp16 / bf16 activations: per-channel tensors of any float dtype (fp32 saved statistics).
        if (Status s = batchNormBackwardHalf(*gy, *x, opt[0], opt[1], opt[2], opt[3], opt[4], A->toBool(7),
                                             A->toDouble(8), (*outs)[0], (*outs)[1], (*outs)[2]);
            !s.ok())
            return false;
        ++c.stats().deviceExterns;
        return true;
    }
    if (Status s = batchNormBackward(*gy, *x, opt[0], opt[1], opt[2], opt[3], opt[4], A->toBool(7), A->toDouble(8),
                                     (*outs)[0], (*outs)[1], (*outs)[2]);
        !s.ok())
        return s.error();
    ++c.stats().deviceExterns;
    return true;
}

Expected<bool> maxPoolOnDevice(DeviceCall& c) {
    // max_pool2d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode) -> (out, indices)
    const OpArgs* A = c.args();
    if (!A) return false;
    auto x = c.view(0);
    if (!x || !convSupports(x->meta.dtype) || c.outCount() != 2 || !c.hasOut(0) || !c.hasOut(1) ||
        !c.outsDense(2, x->meta.dtype))
        return false;
    auto outs = c.outs(2);
    if (!outs.ok()) return outs.error();
    if (Status s =
            maxPool2d(*x, *(*outs)[0], *(*outs)[1], A->toIntList(1), A->toIntList(2), A->toIntList(3), A->toIntList(4));
        !s.ok())
        return s.error();
    ++c.stats().deviceExterns;
    return true;
}

Expected<bool> maxPoolBackwardOnDevice(DeviceCall& c) {
    // max_pool2d_with_indices_backward(grad_output, self, kernel_size, stride, padding, dilation, ceil_mode, indices)
    const TensorMeta* om = c.out0();
    if (!om || !convSupports(om->dtype) || !om->isContiguous()) return false;
    auto gy = c.view(0), idx = c.view(7);
    if (!gy || !idx || gy->meta.dtype != om->dtype) return false;
    auto o = c.out(0);
    if (!o.ok()) return o.error();
    if (Status s = maxPool2dBackward(*gy, *idx, **o); !s.ok()) return s.error();
    ++c.stats().deviceExterns;
    return true;
}

Expected<bool> embeddingBackwardOnDevice(DeviceCall& c) {
    // embedding_dense_backward(grad_output, indices, num_weights, padding_idx, scale_grad_by_freq)
    const TensorMeta* om = c.out0();
    // fp16 / bf16 (a bf16 LLM's token embeddings) sum in fp32 first; not with scale_grad_by_freq.
    const bool half = om && halfEmbeddingBackwardSupports(om->dtype);
    const OpArgs* A = om && (scatterSupports(om->dtype) || half) ? c.args() : nullptr;
    if (!A || (half && A->toBool(4))) return false;
    auto g = c.view(0), idx = c.view(1);
    if (!g || !idx || g->meta.dtype != om->dtype) return false;
    auto o = c.out(0);
    if (!o.ok()) return o.error();
    if (Status s = half ? embeddingBackwardHalf(*g, *idx, **o, A->toInt(3))
                        : embeddingBackward(*g, *idx, **o, A->toInt(3), A->toBool(4));
        !s.ok())
        return s.error();
    ++c.stats().deviceExterns;
    return true;
}

Expected<bool> indexAddOnDevice(DeviceCall& c) {
    // index_add(self, dim, index, source, *, alpha=1)
    const TensorMeta* om = c.out0();
    const OpArgs* A = om && scatterSupports(om->dtype) ? c.args() : nullptr;
    if (!A) return false;
    auto self = c.view(0), idx = c.view(2), src = c.view(3);
    if (!self || !idx || !src || self->meta.dtype != om->dtype || src->meta.dtype != om->dtype) return false;
    auto o = c.out(0);
    if (!o.ok()) return o.error();
    // A 0-d self (and source, index) is PyTorch's one-element vector along dim 0 or -1.
    auto asVector = [](DeviceView v) {
        if (v.meta.shape.empty()) {
            v.meta.shape = {1};
            v.meta.strides = {1};
        }
        return v;
    };
    const int64_t dim = om->shape.empty() ? 0 : A->toInt(1);
    if (Status s = indexAdd(asVector(*self), dim, asVector(*idx), asVector(*src), A->toDouble(4), asVector(**o));
        !s.ok())
        return s.error();
    ++c.stats().deviceExterns;
    return true;
}

}  // namespace

const std::vector<DeviceExtern>& deviceExternTable() {
    static const std::vector<DeviceExtern> t = [] {
        std::vector<DeviceExtern> v = {
            {"cat", catOnDevice},
            {"chunk_cat", chunkCatOnDevice},
            {"to_complex", toComplexOnDevice},
            {"efficient_zero_tensor", efficientZeroTensorOnDevice},
            {"mm", gemmOnDevice<false>},
            {"bmm", gemmOnDevice<false>},
            {"addmm", gemmOnDevice<true>},
            {"linear", linearOnDevice},
            {"matmul", matmulOnDevice},
            {"conv1d", convCompositeOnDevice<1>},
            {"conv2d", convCompositeOnDevice<2>},
            {"conv3d", convCompositeOnDevice<3>},
            {"conv_transpose", convTransposeCompositeOnDevice},
            {"baddbmm", batchedAddOnDevice<false>},
            {"addbmm", batchedAddOnDevice<true>},
            {"conv", convOnDevice},
            {"conv_backward", convBackwardOnDevice},
            {"sdpa_efficient", attentionOnDevice<true>},
            {"sdpa", attentionOnDevice<false>},
            {"sdpa_efficient_backward", attentionBackwardOnDevice},
            {"efficient_attention_forward", efficientAttentionForwardOnDevice},
            {"efficient_attention_backward", efficientAttentionBackwardOnDevice},
            {"sdpa_cudnn", cudnnAttentionOnDevice},
            {"sdpa_cudnn_backward", cudnnAttentionBackwardOnDevice},
            {"batch_norm_train", batchNormTrainOnDevice},
            {"batch_norm_update", batchNormUpdateOnDevice<6>},
            {"batch_norm_with_update", batchNormUpdateOnDevice<5>},
            {"batch_norm_composite", batchNormUpdateOnDevice<6>},
            {"batch_norm_backward", batchNormBackwardOnDevice},
            {"max_pool2d", maxPoolOnDevice},
            {"max_pool2d_backward", maxPoolBackwardOnDevice},
            {"embedding_backward", embeddingBackwardOnDevice},
            {"index_add", indexAddOnDevice},
            // The externs of op_externs.h.
            {"copy_into_input", copyIntoInputOnDevice},
        };
        for (const auto* part :
             {&fallbackOpDeviceExterns(), &samplingDeviceExterns(), &randomDeviceExterns(), &pointwiseDeviceExterns(),
              &backwardDeviceExterns(), &embeddingBagDeviceExterns(), &sortDeviceExterns()})
            v.insert(v.end(), part->begin(), part->end());
        return v;
    }();
    return t;
}

const DeviceExtern* findDeviceExtern(std::string_view name) {
    for (const DeviceExtern& x : deviceExternTable())
        if (x.name == name) return &x;
    return nullptr;
}

}  // namespace fxray::cg::cuda
