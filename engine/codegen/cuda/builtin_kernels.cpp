#include "codegen/cuda/builtin_kernels.h"

#include "codegen/cuda/kernel_module.h"

#include <algorithm>
#include <map>
#include <mutex>

namespace fxray::cg::cuda {

namespace {

/// The kernels' source (kernels/builtin.cu, embedded at build time).
const char* kernelSource() {
    static const char* text = embeddedSource("builtin.cu");
    return text ? text : "";
}

struct ConvArgs {
    int64_t N, C, O, G, hasBias, boff, bs;
    int64_t in[3], out[3], k[3], st[3], pad[3], dil[3];
    int64_t xs[5], ws[5], ys[5];
    int64_t xoff, woff, yoff;
};

struct IndexAddArgs {
    int64_t n, ndim, dim, isize, ioff, istride, soff, ooff, dimSize;
    int64_t size[8], ss[8], os[8];
    double alpha;
};

struct Module {
    std::mutex mu;
    CUmodule mod = nullptr;
    std::string err;
    std::map<std::string, CUfunction> fns;
};
Module& module() {
    static Module* m = new Module();  // never destroyed: the driver may be gone at exit
    return *m;
}

Status loadLocked(Module& m) {
    if (m.mod) return Status::success();
    if (!m.err.empty()) return makeError(m.err);
    if (Status s = requireDevice(); !s.ok()) return s;
    auto out = nvrtcCompile(kernelSource(), "fxray_builtin", targetArch());
    if (!out.ok()) {
        m.err = out.error().message;
        return out.error();
    }
    if (Status s = check(runtime().cu.cuModuleLoadData(&m.mod, out->image.data()), "loading the built-in kernels");
        !s.ok()) {
        m.err = s.error().message;
        m.mod = nullptr;
        return s;
    }
    return Status::success();
}

const char* suffix(DType t) { return t == DType::Float64 ? "f64" : "f32"; }

/// Spatial dims right-aligned into three slots (leading ones size 1, stride 0).
void spatial(const TensorMeta& m, int64_t (&size)[3], int64_t (&strides)[5]) {
    const size_t s = m.shape.size() - 2;
    strides[0] = m.strides[0];
    strides[1] = m.strides[1];
    for (size_t i = 0; i < 3; ++i) {
        if (i < 3 - s) {
            size[i] = 1;
            strides[2 + i] = 0;
        } else {
            size[i] = m.shape[2 + i - (3 - s)];
            strides[2 + i] = m.strides[2 + i - (3 - s)];
        }
    }
}

/// Per-spatial-dim parameter (PyTorch allows one value for all dims) right-aligned like spatial().
void param(const std::vector<int64_t>& v, size_t s, int64_t fill, int64_t (&out)[3]) {
    for (size_t i = 0; i < 3; ++i) {
        if (i < 3 - s)
            out[i] = fill;
        else {
            size_t j = i - (3 - s);
            out[i] = v.empty() ? fill : v.size() == 1 ? v[0] : j < v.size() ? v[j] : fill;
        }
    }
}

/// x [N, C, ...], w [O, C/G, ...], y [N, O, ...]: shapes and strides of all three.
Expected<ConvArgs> convArgs(const TensorMeta& x, const TensorMeta& w, const TensorMeta& y,
                            const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                            const std::vector<int64_t>& dilation, int64_t groups) {
    const size_t r = x.shape.size();
    if (r < 3 || r > 5 || w.shape.size() != r || y.shape.size() != r)
        return makeError("device convolution needs 1 to 3 spatial dims with matching ranks");
    if (groups < 1 || x.shape[1] % groups || w.shape[0] % groups || w.shape[1] * groups != x.shape[1])
        return makeError("device convolution: channels do not match groups");
    ConvArgs a{};
    a.N = x.shape[0];
    a.C = x.shape[1];
    a.O = w.shape[0];
    a.G = groups;
    spatial(x, a.in, a.xs);
    spatial(w, a.k, a.ws);
    spatial(y, a.out, a.ys);
    param(stride, r - 2, 1, a.st);
    param(padding, r - 2, 0, a.pad);
    param(dilation, r - 2, 1, a.dil);
    for (int i = 0; i < 3; ++i)
        if (a.st[i] < 1 || a.dil[i] < 1 || a.pad[i] < 0)
            return makeError("device convolution: bad stride/padding/dilation");
    a.xoff = x.offset;
    a.woff = w.offset;
    a.yoff = y.offset;
    return a;
}

int64_t numel3(const int64_t (&s)[3]) { return s[0] * s[1] * s[2]; }

}  // namespace

const std::string& builtinSource() {
    static const std::string s = kernelSource();
    return s;
}

Status warmBuiltins() {
    Module& m = module();
    std::lock_guard<std::mutex> g(m.mu);
    return loadLocked(m);
}

Expected<CUfunction> builtinFunction(const char* name) {
    Module& m = module();
    std::lock_guard<std::mutex> g(m.mu);
    if (auto it = m.fns.find(name); it != m.fns.end()) return it->second;
    if (Status s = loadLocked(m); !s.ok()) return s.error();
    CUfunction f = nullptr;
    if (Status s = check(runtime().cu.cuModuleGetFunction(&f, m.mod, name), std::string("built-in kernel ") + name);
        !s.ok())
        return s.error();
    m.fns[name] = f;
    return f;
}

namespace {

Status launchBlocks(CUfunction fn, int64_t blocks, void** params, const char* what, unsigned threads = 256) {
    const CudaRuntime& rt = runtime();
    blocks = std::max<int64_t>(1, std::min<int64_t>(blocks, static_cast<int64_t>(std::max(1, rt.smCount)) * 32));
    CUresult r =
        rt.cu.cuLaunchKernel(fn, static_cast<unsigned>(blocks), 1, 1, threads, 1, 1, 0, nullptr, params, nullptr);
    if (r == 0) return Status::success();
    return check(r, std::string("launching ") + what);
}

Expected<CUfunction> typed(const char* base, DType t) {
    return builtinFunction((std::string(base) + "_" + suffix(t)).c_str());
}

}  // namespace

Status launchBuiltin(CUfunction fn, int64_t work, void** params, const char* what) {
    if (work <= 0) return Status::success();
    return launchBlocks(fn, (work + 255) / 256, params, what);
}

bool convSupports(DType t) { return t == DType::Float32 || t == DType::Float64; }
bool scatterSupports(DType t) { return t == DType::Float32 || t == DType::Float64; }

Status convForward(const DeviceView& x, const DeviceView& w, const std::optional<DeviceView>& bias, const DeviceView& y,
                   const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                   const std::vector<int64_t>& dilation, int64_t groups) {
    auto a = convArgs(x.meta, w.meta, y.meta, stride, padding, dilation, groups);
    if (!a.ok()) return a.error();
    if (bias) {
        a->hasBias = 1;
        a->boff = bias->meta.offset;
        a->bs = bias->meta.strides.empty() ? 1 : bias->meta.strides[0];
    }
    auto fn = typed("fx_conv_fwd", y.meta.dtype);
    if (!fn.ok()) return fn.error();
    CUdeviceptr px = x.base, pw = w.base, pb = bias ? bias->base : 0, py = y.base;
    void* params[] = {&px, &pw, &pb, &py, &*a};
    return launchBuiltin(*fn, a->N * a->O * numel3(a->out), params, "fx_conv_fwd");
}

Status convBackward(const DeviceView& gy, const DeviceView& x, const DeviceView& w, const std::optional<DeviceView>& gx,
                    const std::optional<DeviceView>& gw, const std::optional<DeviceView>& gb,
                    const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                    const std::vector<int64_t>& dilation, int64_t groups) {
    const DType dt = gy.meta.dtype;
    if (gx) {
        auto a = convArgs(gx->meta, w.meta, gy.meta, stride, padding, dilation, groups);
        if (!a.ok()) return a.error();
        auto fn = typed("fx_conv_bwd_input", dt);
        if (!fn.ok()) return fn.error();
        CUdeviceptr pgy = gy.base, pw = w.base, pb = 0, pgx = gx->base;
        void* params[] = {&pgy, &pw, &pb, &pgx, &*a};
        if (Status s = launchBuiltin(*fn, a->N * a->C * numel3(a->in), params, "fx_conv_bwd_input"); !s.ok()) return s;
    }
    if (gw) {
        auto a = convArgs(x.meta, gw->meta, gy.meta, stride, padding, dilation, groups);
        if (!a.ok()) return a.error();
        auto fn = typed("fx_conv_bwd_weight", dt);
        if (!fn.ok()) return fn.error();
        CUdeviceptr pgy = gy.base, px = x.base, pgw = gw->base;
        void* params[] = {&pgy, &px, &pgw, &*a};
        if (Status s = launchBlocks(*fn, gw->meta.numel(), params, "fx_conv_bwd_weight"); !s.ok()) return s;
    }
    if (gb) {
        if (auto a = convArgs(x.meta, w.meta, gy.meta, stride, padding, dilation, groups); !a.ok()) return a.error();
        return convBiasGrad(gy, *gb);
    }
    return Status::success();
}

Status convBiasGrad(const DeviceView& gy, const DeviceView& gb) {
    const size_t r = gy.meta.shape.size();
    if (r < 3 || r > 5 || gb.meta.shape.size() != 1 || gb.meta.shape[0] != gy.meta.shape[1] ||
        gb.meta.dtype != gy.meta.dtype)
        return makeError("device convolution bias gradient: gy [N, C, 1 to 3 spatial dims] and gb [C] do not fit");
    // Only the output side of the argument block: N, O, out sizes and gy's strides.
    ConvArgs a{};
    a.N = gy.meta.shape[0];
    a.O = gy.meta.shape[1];
    spatial(gy.meta, a.out, a.ys);
    a.yoff = gy.meta.offset;
    a.boff = gb.meta.offset;
    a.bs = gb.meta.strides.empty() ? 1 : gb.meta.strides[0];
    auto fn = typed("fx_conv_bwd_bias", gy.meta.dtype);
    if (!fn.ok()) return fn.error();
    CUdeviceptr pgy = gy.base, pgb = gb.base;
    void* params[] = {&pgy, &pgb, &a};
    return launchBlocks(*fn, a.O, params, "fx_conv_bwd_bias");
}

// A transposed convolution (weight [C_in, C_out/G, k...]) is the adjoint of the plain one with
// the same weight that reads out-shaped tensors [N, C_out, ...] and writes x-shaped ones
// [N, C_in, ...]: its forward is that convolution's input gradient (with x as the output
// gradient), its input gradient that convolution's forward of gy, its weight gradient that
// convolution's weight gradient with gy as the input and x as the output gradient. Output
// padding only lengthens out, whose extra positions no window reaches.
Status convTransposeForward(const DeviceView& x, const DeviceView& w, const std::optional<DeviceView>& bias,
                            const DeviceView& y, const std::vector<int64_t>& stride,
                            const std::vector<int64_t>& padding, const std::vector<int64_t>& dilation, int64_t groups) {
    auto a = convArgs(y.meta, w.meta, x.meta, stride, padding, dilation, groups);
    if (!a.ok()) return a.error();
    if (x.meta.shape[1] != a->O) return makeError("device transposed convolution: input channels do not match weight");
    if (bias) {
        a->hasBias = 1;
        a->boff = bias->meta.offset;
        a->bs = bias->meta.strides.empty() ? 1 : bias->meta.strides[0];
    }
    auto fn = typed("fx_conv_bwd_input", y.meta.dtype);
    if (!fn.ok()) return fn.error();
    CUdeviceptr px = x.base, pw = w.base, pb = bias ? bias->base : 0, py = y.base;
    void* params[] = {&px, &pw, &pb, &py, &*a};
    return launchBuiltin(*fn, a->N * a->C * numel3(a->in), params, "fx_conv_bwd_input (transposed)");
}

Status convTransposeBackward(const DeviceView& gy, const DeviceView& x, const DeviceView& w,
                             const std::optional<DeviceView>& gx, const std::optional<DeviceView>& gw,
                             const std::optional<DeviceView>& gb, const std::vector<int64_t>& stride,
                             const std::vector<int64_t>& padding, const std::vector<int64_t>& dilation,
                             int64_t groups) {
    if (gx)
        if (Status s = convForward(gy, w, std::nullopt, *gx, stride, padding, dilation, groups); !s.ok()) return s;
    if (gw)
        if (Status s = convBackward(x, gy, w, std::nullopt, gw, std::nullopt, stride, padding, dilation, groups);
            !s.ok())
            return s;
    if (gb) return convBiasGrad(gy, *gb);
    return Status::success();
}

namespace {

bool indexType(DType t) { return t == DType::Int64 || t == DType::Int32; }

}  // namespace

Status embeddingBackward(const DeviceView& grad, const DeviceView& indices, const DeviceView& out, int64_t paddingIdx,
                         bool scaleByFreq) {
    const CudaRuntime& rt = runtime();
    const TensorMeta& om = out.meta;
    if (om.shape.size() != 2 || !om.isContiguous() || !indexType(indices.meta.dtype))
        return makeError("device embedding_dense_backward needs a dense 2-D output and int32/int64 indices");
    const int64_t D = om.shape[1], rows = indices.meta.numel();
    if (grad.meta.numel() != rows * D) return makeError("device embedding_dense_backward: grad does not match indices");
    const size_t item = static_cast<size_t>(dtypeItemSize(om.dtype));
    if (Status s = check(rt.cu.cuMemsetD8(out.base + static_cast<CUdeviceptr>(om.offset) * item, 0,
                                          static_cast<size_t>(om.numel()) * item),
                         "zeroing embedding_dense_backward's output");
        !s.ok())
        return s;
    DeviceBuffer tg, ti;
    auto g = denseView(grad, tg);
    if (!g.ok()) return g.error();
    auto ix = denseView(indices, ti);
    if (!ix.ok()) return ix.error();
    auto fn = typed("fx_embedding_bwd", om.dtype);
    if (!fn.ok()) return fn.error();
    const size_t isz = static_cast<size_t>(dtypeItemSize(ix->meta.dtype));
    CUdeviceptr pg = g->base + static_cast<CUdeviceptr>(g->meta.offset) * item;
    CUdeviceptr pi = ix->base + static_cast<CUdeviceptr>(ix->meta.offset) * isz;
    CUdeviceptr po = out.base + static_cast<CUdeviceptr>(om.offset) * item;
    int64_t isize = static_cast<int64_t>(isz), num = om.shape[0];
    int64_t r = rows, d = D, pad = paddingIdx;
    // scale_grad_by_freq: every row's count among the indices first (int64 [num_weights], zeroed).
    DeviceBuffer counts;
    if (scaleByFreq && num > 0 && rows * D > 0) {
        auto buf = DeviceBuffer::allocate(static_cast<size_t>(num) * sizeof(int64_t));
        if (!buf.ok()) return buf.error();
        counts = std::move(buf).value();
        if (Status s = check(rt.cu.cuMemsetD8(counts.ptr(), 0, static_cast<size_t>(num) * sizeof(int64_t)),
                             "zeroing embedding_dense_backward's frequency counts");
            !s.ok())
            return s;
        auto cf = builtinFunction("fx_embedding_count");
        if (!cf.ok()) return cf.error();
        CUdeviceptr pc = counts.ptr();
        void* cparams[] = {&pi, &pc, &r, &isize, &num};
        if (Status s = launchBuiltin(*cf, rows, cparams, "fx_embedding_count"); !s.ok()) return s;
    }
    CUdeviceptr pc = counts.ptr();
    void* params[] = {&pg, &pi, &po, &r, &d, &isize, &num, &pad, &pc};
    return launchBuiltin(*fn, rows * D, params, "fx_embedding_bwd");
}

Status indexAdd(const DeviceView& self, int64_t dim, const DeviceView& index, const DeviceView& source, double alpha,
                const DeviceView& out) {
    const TensorMeta& om = out.meta;
    const size_t nd = om.shape.size();
    if (nd == 0 || nd > 8 || source.meta.shape.size() != nd || index.meta.shape.size() > 1 ||
        !indexType(index.meta.dtype))
        return makeError("device index_add needs 1 to 8 dims and a 1-D int32/int64 index");
    if (dim < 0) dim += static_cast<int64_t>(nd);
    if (dim < 0 || dim >= static_cast<int64_t>(nd)) return makeError("device index_add: dim out of range");
    if (Status s = stridedCopy(self, out); !s.ok()) return s;
    IndexAddArgs a{};
    a.n = source.meta.numel();
    a.ndim = static_cast<int64_t>(nd);
    a.dim = dim;
    a.isize = dtypeItemSize(index.meta.dtype);
    a.ioff = index.meta.offset;
    a.istride = index.meta.strides.empty() ? 1 : index.meta.strides[0];
    a.soff = source.meta.offset;
    a.ooff = om.offset;
    a.dimSize = om.shape[static_cast<size_t>(dim)];
    a.alpha = alpha;
    for (size_t d = 0; d < nd; ++d) {
        a.size[d] = source.meta.shape[d];
        a.ss[d] = source.meta.strides[d];
        a.os[d] = om.strides[d];
    }
    auto fn = typed("fx_index_add", om.dtype);
    if (!fn.ok()) return fn.error();
    CUdeviceptr ps = source.base, pi = index.base, po = out.base;
    void* params[] = {&ps, &pi, &po, &a};
    return launchBuiltin(*fn, a.n, params, "fx_index_add");
}

namespace {

CUdeviceptr addr(const DeviceView& v) { return v.address(); }
CUdeviceptr addr(const std::optional<DeviceView>& v) { return v ? v->address() : 0; }

/// A per-channel parameter the kernels index as p[c]: dense 1-D (or absent).
bool channelVector(const std::optional<DeviceView>& v, int64_t C, DType t) {
    if (!v) return true;
    const TensorMeta& m = v->meta;
    return m.dtype == t && m.shape.size() == 1 && m.shape[0] == C && (C <= 1 || m.strides[0] == 1);
}

struct Ncs {
    int64_t N = 0, C = 0, S = 1;
};

/// Blocks per channel for batch norm (kernels/builtin.cu, fx_bn_stats_partial): enough parts
/// that about eight blocks per SM are in flight, none under 8192 elements. 1 (most channels past
/// the first layers) keeps the one-block-a-channel kernels, one launch instead of two.
int64_t bnParts(const Ncs& n) {
    const int64_t sms = std::max(1, runtime().smCount), cnt = n.N * n.S;
    if (n.C <= 0 || cnt <= 0) return 1;
    const int64_t want = (8 * sms + n.C - 1) / n.C;
    return std::clamp<int64_t>(std::min(want, cnt / 8192), 1, 1024);
}

/// The doubles the partial sums of P parts a channel take.
Expected<DeviceBuffer> bnPartials(const Ncs& n, int64_t P) {
    return DeviceBuffer::allocate(static_cast<size_t>(n.C * P * 3) * sizeof(double));
}

constexpr unsigned kBnPartThreads = 512;
Ncs ncs(const TensorMeta& m) {
    Ncs r{m.shape[0], m.shape[1], 1};
    for (size_t d = 2; d < m.shape.size(); ++d) r.S *= m.shape[d];
    return r;
}

}  // namespace

Status batchNormTrain(const DeviceView& x, const std::optional<DeviceView>& w, const std::optional<DeviceView>& b,
                      const std::optional<DeviceView>& rm, const std::optional<DeviceView>& rv,
                      const std::vector<DeviceView>& outs, double momentum, double eps) {
    const TensorMeta& xm = x.meta;
    const DType t = xm.dtype;
    const size_t nOuts = rm && rv ? 5 : 3;
    if (xm.shape.size() < 2 || outs.size() != nOuts || !outs[0].meta.isContiguous() || outs[0].meta.shape != xm.shape)
        return makeError("device batch norm needs a dense [N, C, ...] output");
    const Ncs n = ncs(xm);
    if (!channelVector(w, n.C, t) || !channelVector(b, n.C, t) || !channelVector(rm, n.C, t) ||
        !channelVector(rv, n.C, t))
        return makeError("device batch norm needs dense per-channel parameters");
    for (size_t i = 1; i < nOuts; ++i)
        if (!channelVector(outs[i], n.C, t)) return makeError("device batch norm needs dense per-channel outputs");
    DeviceBuffer tx;
    auto xd = denseView(x, tx);
    if (!xd.ok()) return xd.error();
    CUdeviceptr px = addr(*xd), pw = addr(w), pb = addr(b), prm = addr(rm), prv = addr(rv), py = addr(outs[0]),
                pm = addr(outs[1]), pis = addr(outs[2]), pnm = nOuts == 5 ? addr(outs[3]) : CUdeviceptr{0},
                pnv = nOuts == 5 ? addr(outs[4]) : CUdeviceptr{0};
    int64_t N = n.N, C = n.C, S = n.S, P = bnParts(n);
    if (P == 1) {
        auto fn = typed("fx_bn_train", t);
        if (!fn.ok()) return fn.error();
        void* params[] = {&px, &pw, &pb, &prm, &prv, &py, &pm, &pis, &pnm, &pnv, &N, &C, &S, &momentum, &eps};
        return launchBlocks(*fn, C, params, "fx_bn_train", 1024);
    }
    auto partial = typed("fx_bn_stats_partial", t), apply = typed("fx_bn_train_apply", t);
    if (!partial.ok()) return partial.error();
    if (!apply.ok()) return apply.error();
    auto parts = bnPartials(n, P);
    if (!parts.ok()) return parts.error();
    CUdeviceptr pp = parts->ptr();
    void* pa[] = {&px, &pp, &N, &C, &S, &P};
    if (Status s = launchGrid(*partial, static_cast<unsigned>(C), static_cast<unsigned>(P), kBnPartThreads, pa,
                              "fx_bn_stats_partial");
        !s.ok())
        return s;
    void* params[] = {&px, &pw, &pb, &prm, &prv, &py, &pm, &pis, &pnm, &pnv, &pp, &N, &C, &S, &P, &momentum, &eps};
    return launchGrid(*apply, static_cast<unsigned>(C), static_cast<unsigned>(P), kBnPartThreads, params,
                      "fx_bn_train_apply");
}

Status batchNormBackward(const DeviceView& gy, const DeviceView& x, const std::optional<DeviceView>& w,
                         const std::optional<DeviceView>& rm, const std::optional<DeviceView>& rv,
                         const std::optional<DeviceView>& mean, const std::optional<DeviceView>& invstd, bool train,
                         double eps, const std::optional<DeviceView>& gx, const std::optional<DeviceView>& gw,
                         const std::optional<DeviceView>& gb) {
    const TensorMeta& xm = x.meta;
    const DType t = xm.dtype;
    if (xm.shape.size() < 2 || gy.meta.shape != xm.shape || gy.meta.dtype != t)
        return makeError("device batch norm backward: shapes");
    const Ncs n = ncs(xm);
    if (train ? (!mean || !invstd) : (!rm || !rv)) return makeError("device batch norm backward: statistics missing");
    for (const auto* v : {&w, &rm, &rv, &mean, &invstd, &gw, &gb})
        if (!channelVector(*v, n.C, t)) return makeError("device batch norm backward needs dense per-channel tensors");
    if (gx && (!gx->meta.isContiguous() || gx->meta.shape != xm.shape))
        return makeError("device batch norm backward: output layout");
    DeviceBuffer tx, tg;
    auto xd = denseView(x, tx);
    if (!xd.ok()) return xd.error();
    auto gd = denseView(gy, tg);
    if (!gd.ok()) return gd.error();
    CUdeviceptr pgy = addr(*gd), px = addr(*xd), pw = addr(w), pm = addr(mean), pis = addr(invstd), prm = addr(rm),
                prv = addr(rv), pgx = addr(gx), pgw = addr(gw), pgb = addr(gb);
    int64_t N = n.N, C = n.C, S = n.S, tr = train ? 1 : 0, P = bnParts(n);
    if (P == 1) {
        auto fn = typed("fx_bn_bwd", t);
        if (!fn.ok()) return fn.error();
        void* params[] = {&pgy, &px, &pw, &pm, &pis, &prm, &prv, &pgx, &pgw, &pgb, &N, &C, &S, &tr, &eps};
        return launchBlocks(*fn, C, params, "fx_bn_bwd", 1024);
    }
    auto partial = typed("fx_bn_bwd_partial", t), apply = typed("fx_bn_bwd_apply", t);
    if (!partial.ok()) return partial.error();
    if (!apply.ok()) return apply.error();
    auto parts = bnPartials(n, P);
    if (!parts.ok()) return parts.error();
    CUdeviceptr pp = parts->ptr();
    void* pa[] = {&pgy, &px, &pm, &prm, &pp, &N, &C, &S, &P, &tr};
    if (Status s = launchGrid(*partial, static_cast<unsigned>(C), static_cast<unsigned>(P), kBnPartThreads, pa,
                              "fx_bn_bwd_partial");
        !s.ok())
        return s;
    void* params[] = {&pgy, &px, &pw, &pm, &pis, &prm, &prv, &pgx, &pgw, &pgb, &pp, &N, &C, &S, &P, &tr, &eps};
    return launchGrid(*apply, static_cast<unsigned>(C), static_cast<unsigned>(P), kBnPartThreads, params,
                      "fx_bn_bwd_apply");
}

namespace {

struct PoolArgs {
    int64_t planes, H, W, OH, OW, kh, kw, sh, sw, ph, pw, dh, dw;
};

Expected<PoolArgs> poolArgs(const TensorMeta& x, const TensorMeta& y, const std::vector<int64_t>& k,
                            const std::vector<int64_t>& st, const std::vector<int64_t>& pad,
                            const std::vector<int64_t>& dil) {
    const size_t nd = x.shape.size();
    if (nd < 3 || y.shape.size() != nd || k.empty()) return makeError("device max pooling needs [..., H, W]");
    auto pick = [](const std::vector<int64_t>& v, size_t i, int64_t dflt) {
        return v.empty() ? dflt : v.size() == 1 ? v[0] : v[i];
    };
    PoolArgs a{};
    a.planes = 1;
    for (size_t d = 0; d + 2 < nd; ++d) a.planes *= x.shape[d];
    a.H = x.shape[nd - 2];
    a.W = x.shape[nd - 1];
    a.OH = y.shape[nd - 2];
    a.OW = y.shape[nd - 1];
    a.kh = pick(k, 0, 1);
    a.kw = pick(k, 1, 1);
    a.sh = pick(st, 0, a.kh);
    a.sw = pick(st, 1, a.kw);
    a.ph = pick(pad, 0, 0);
    a.pw = pick(pad, 1, 0);
    a.dh = pick(dil, 0, 1);
    a.dw = pick(dil, 1, 1);
    if (a.sh < 1 || a.sw < 1 || a.dh < 1 || a.dw < 1) return makeError("device max pooling: bad stride/dilation");
    return a;
}

}  // namespace

Status maxPool2d(const DeviceView& x, const DeviceView& y, const DeviceView& indices,
                 const std::vector<int64_t>& kernel, const std::vector<int64_t>& stride,
                 const std::vector<int64_t>& padding, const std::vector<int64_t>& dilation) {
    if (!y.meta.isContiguous() || !indices.meta.isContiguous() || indices.meta.dtype != DType::Int64)
        return makeError("device max pooling needs dense outputs");
    auto a = poolArgs(x.meta, y.meta, kernel, stride, padding, dilation);
    if (!a.ok()) return a.error();
    DeviceBuffer tx;
    auto xd = denseView(x, tx);
    if (!xd.ok()) return xd.error();
    auto fn = typed("fx_maxpool2d", y.meta.dtype);
    if (!fn.ok()) return fn.error();
    CUdeviceptr px = addr(*xd), py = addr(y), pi = addr(indices);
    void* params[] = {&px, &py, &pi, &*a};
    return launchBuiltin(*fn, a->planes * a->OH * a->OW, params, "fx_maxpool2d");
}

Status maxPoolBackward(const DeviceView& gy, const DeviceView& indices, const DeviceView& gx, size_t spatialDims) {
    const TensorMeta& m = gx.meta;
    if (!m.isContiguous() || m.shape.size() < spatialDims + 1 || indices.meta.dtype != DType::Int64 ||
        indices.meta.numel() != gy.meta.numel())
        return makeError("device max pooling backward needs a dense gradient and int64 indices");
    const size_t nd = m.shape.size();
    int64_t planes = 1, HW = 1;
    for (size_t d = 0; d < nd; ++d) (d + spatialDims < nd ? planes : HW) *= m.shape[d];
    int64_t per = planes ? gy.meta.numel() / planes : 0;
    const size_t item = static_cast<size_t>(dtypeItemSize(m.dtype));
    if (Status s = check(runtime().cu.cuMemsetD8(addr(gx), 0, static_cast<size_t>(m.numel()) * item),
                         "zeroing max pooling's gradient");
        !s.ok())
        return s;
    DeviceBuffer tg, ti;
    auto gd = denseView(gy, tg);
    if (!gd.ok()) return gd.error();
    auto id = denseView(indices, ti);
    if (!id.ok()) return id.error();
    auto fn = typed("fx_maxpool2d_bwd", m.dtype);
    if (!fn.ok()) return fn.error();
    CUdeviceptr pg = addr(*gd), pi = addr(*id), px = addr(gx);
    void* params[] = {&pg, &pi, &px, &planes, &HW, &per};
    return launchBuiltin(*fn, planes * per, params, "fx_maxpool2d_bwd");
}

}  // namespace fxray::cg::cuda
