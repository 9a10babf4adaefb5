#include "codegen/cuda/cudnn_conv.h"

#include "codegen/cuda/cudnn_api.h"
#include "codegen/cuda/dl_util.h"
#include "codegen/cuda/kernel_module.h"

#include <algorithm>
#include <climits>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace fxray::cg::cuda {

namespace {

// One handle serves the process; cuDNN handles are not thread-safe, so calls are serialised.
std::mutex& cudnnMutex() {
    static std::mutex m;
    return m;
}

int cudnnType(DType t) {
    switch (t) {
    case DType::Float64: return CUDNN_DATA_DOUBLE;
    case DType::Float16: return CUDNN_DATA_HALF;
    case DType::BFloat16: return CUDNN_DATA_BFLOAT16;
    default: return CUDNN_DATA_FLOAT;
    }
}

/// fp32/fp64 must not use TF32 (PyTorch's recorded outputs have it off); half types may use
/// tensor cores, as PyTorch's defaults allow.
int mathTypeFor(DType t) { return t == DType::Float16 || t == DType::BFloat16 ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH; }

bool tensorCoreMath(int m) { return m == CUDNN_TENSOR_OP_MATH || m == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION; }

/// A convolution in cuDNN's terms: at least 4-D dims (1-D convolutions get a unit height).
struct Problem {
    DType dtype = DType::Float32;
    std::vector<int> x, w, y;           ///< dims [N, C, spatial...], [O, C/G, k...], [N, O, out...]
    std::vector<int> pad, stride, dil;  ///< one per spatial dim
    int groups = 1;

    std::string key(char dir) const {
        std::string k(1, dir);
        k += std::to_string(static_cast<int>(dtype)) + "g" + std::to_string(groups);
        for (const auto* v : {&x, &w, &y, &pad, &stride, &dil}) {
            k += '|';
            for (int d : *v) k += std::to_string(d) + ",";
        }
        return k;
    }
};

Expected<std::vector<int>> ints(const std::vector<int64_t>& v, const char* what) {
    std::vector<int> r;
    for (int64_t d : v) {
        if (d < 0 || d > INT_MAX) return makeError(std::string("cuDNN convolution: ") + what + " out of int range");
        r.push_back(static_cast<int>(d));
    }
    return r;
}

/// One value per spatial dim: PyTorch's lists may hold a single value for all of them.
std::vector<int64_t> perDim(const std::vector<int64_t>& v, size_t n, int64_t dflt) {
    if (v.size() == n) return v;
    return std::vector<int64_t>(n, v.empty() ? dflt : v[0]);
}

Expected<Problem> problemOf(const TensorMeta& x, const TensorMeta& w, const TensorMeta& y,
                            const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                            const std::vector<int64_t>& dilation, int64_t groups) {
    const size_t rank = x.shape.size();
    if (rank < 3 || rank > 5 || w.shape.size() != rank || y.shape.size() != rank)
        return makeError("cuDNN convolution needs 1 to 3 spatial dims with matching ranks");
    for (const TensorMeta* m : {&x, &w, &y})
        if (m->numel() > INT_MAX) return makeError("cuDNN convolution: a tensor has more than 2^31 elements");
    if (groups < 1 || groups > INT_MAX) return makeError("cuDNN convolution: bad groups");
    const size_t sp = rank - 2;
    Problem p;
    p.dtype = y.dtype;
    p.groups = static_cast<int>(groups);
    auto X = ints(x.shape, "input size"), W = ints(w.shape, "weight size"), Y = ints(y.shape, "output size");
    auto P = ints(perDim(padding, sp, 0), "padding"), S = ints(perDim(stride, sp, 1), "stride"),
         D = ints(perDim(dilation, sp, 1), "dilation");
    for (auto* e : {&X, &W, &Y, &P, &S, &D})
        if (!e->ok()) return e->error();
    p.x = *X, p.w = *W, p.y = *Y, p.pad = *P, p.stride = *S, p.dil = *D;
    if (sp == 1) {
        // As PyTorch: [N, C, L] runs as [N, C, 1, L].
        for (auto* v : {&p.x, &p.w, &p.y}) v->insert(v->begin() + 2, 1);
        p.pad.insert(p.pad.begin(), 0);
        p.stride.insert(p.stride.begin(), 1);
        p.dil.insert(p.dil.begin(), 1);
    }
    return p;
}

std::vector<int> packedStrides(const std::vector<int>& dims) {
    std::vector<int> s(dims.size(), 1);
    for (size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * dims[i];
    return s;
}

/// The descriptors of one problem, destroyed with it.
struct Descriptors {
    cudnnTensorDescriptor_t x = nullptr, y = nullptr, bias = nullptr;
    cudnnFilterDescriptor_t w = nullptr;
    cudnnConvolutionDescriptor_t conv = nullptr;
    const CudnnApi& d;

    explicit Descriptors(const CudnnApi& api) : d(api) {}
    ~Descriptors() {
        if (x) d.cudnnDestroyTensorDescriptor(x);
        if (y) d.cudnnDestroyTensorDescriptor(y);
        if (bias) d.cudnnDestroyTensorDescriptor(bias);
        if (w) d.cudnnDestroyFilterDescriptor(w);
        if (conv) d.cudnnDestroyConvolutionDescriptor(conv);
    }
    Descriptors(const Descriptors&) = delete;
    Descriptors& operator=(const Descriptors&) = delete;

    /// `biasChannels`: the channel count of the tensor the bias is added to (default the output's;
    /// a transposed convolution adds it to this problem's input).
    Status make(const Problem& p, int biasChannels = -1) {
        const int t = cudnnType(p.dtype);
        const int nd = static_cast<int>(p.x.size());
        const auto xs = packedStrides(p.x), ys = packedStrides(p.y);
        if (Status s = cudnnCheck(d.cudnnCreateTensorDescriptor(&x), "cudnnCreateTensorDescriptor"); !s.ok()) return s;
        if (Status s = cudnnCheck(d.cudnnSetTensorNdDescriptor(x, t, nd, p.x.data(), xs.data()), "input descriptor");
            !s.ok())
            return s;
        if (Status s = cudnnCheck(d.cudnnCreateTensorDescriptor(&y), "cudnnCreateTensorDescriptor"); !s.ok()) return s;
        if (Status s = cudnnCheck(d.cudnnSetTensorNdDescriptor(y, t, nd, p.y.data(), ys.data()), "output descriptor");
            !s.ok())
            return s;
        if (Status s = cudnnCheck(d.cudnnCreateFilterDescriptor(&w), "cudnnCreateFilterDescriptor"); !s.ok()) return s;
        if (Status s =
                cudnnCheck(d.cudnnSetFilterNdDescriptor(w, t, CUDNN_TENSOR_NCHW, nd, p.w.data()), "weight descriptor");
            !s.ok())
            return s;
        // The bias as [1, O, 1, ...] for cudnnAddTensor / cudnnConvolutionBackwardBias.
        std::vector<int> bd(p.y.size(), 1);
        bd[1] = biasChannels >= 0 ? biasChannels : p.y[1];
        const auto bs = packedStrides(bd);
        if (Status s = cudnnCheck(d.cudnnCreateTensorDescriptor(&bias), "cudnnCreateTensorDescriptor"); !s.ok())
            return s;
        if (Status s = cudnnCheck(d.cudnnSetTensorNdDescriptor(bias, t, nd, bd.data(), bs.data()), "bias descriptor");
            !s.ok())
            return s;
        if (Status s = cudnnCheck(d.cudnnCreateConvolutionDescriptor(&conv), "cudnnCreateConvolutionDescriptor");
            !s.ok())
            return s;
        // Half types accumulate in fp32, as PyTorch's cuDNN path does.
        const int compute = p.dtype == DType::Float64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
        if (Status s = cudnnCheck(d.cudnnSetConvolutionNdDescriptor(conv, nd - 2, p.pad.data(), p.stride.data(),
                                                                    p.dil.data(), CUDNN_CROSS_CORRELATION, compute),
                                  "convolution descriptor");
            !s.ok())
            return s;
        if (Status s = cudnnCheck(d.cudnnSetConvolutionGroupCount(conv, p.groups), "cudnnSetConvolutionGroupCount");
            !s.ok())
            return s;
        return cudnnCheck(d.cudnnSetConvolutionMathType(conv, mathTypeFor(p.dtype)), "cudnnSetConvolutionMathType");
    }
};

/// The algorithm chosen for a problem and direction.
struct Choice {
    int algo = 0;
    int mathType = CUDNN_DEFAULT_MATH;
    size_t workspace = 0;
};

std::map<std::string, Choice>& choices() {
    static std::map<std::string, Choice> m;
    return m;
}

/// cuDNN's FFT, FFT-tiling and non-fused Winograd algorithms of a direction (cudnnConvolution
/// {Fwd,BwdData,BwdFilter}Algo_t): they transform the data and lose accuracy with the kernel's
/// size (an RMSE of 1e-4 of the values on a 5x5 fp32 convolution, which the timed search picked
/// on some runs and not on others). For 3x3 and smaller kernels their error stays at fp32's
/// rounding (ResNet's recorded outputs match with them) and they are the fast ones: ResNet-18's
/// b32 forward took 6.4 ms without them against 4.1 with.
bool transformAlgorithm(const char* dir, int algo) {
    const std::string d = dir;
    if (d == "forward") return algo == 4 || algo == 5 || algo == 7;
    if (d == "backward-data") return algo == 2 || algo == 3 || algo == 5;
    return algo == 2 || algo == 5 || algo == 6;  // backward-filter
}

/// The first (fastest) successful candidate that keeps fp32 off tensor cores and, for kernels
/// larger than 3x3, off the transform algorithms, so that fp32 results match PyTorch's within
/// its tolerance on every run.
Expected<Choice> pick(const CudnnAlgoPerf* perf, int n, DType t, const char* dir, bool smallKernel) {
    const bool wide = t == DType::Float32 || t == DType::Float64;
    // A problem only a transform algorithm handles (some transposed 2-D/3-D convolutions' data
    // gradients) still takes one: an error there would stop the graph.
    for (bool avoidTransforms : {wide && !smallKernel, false})
        for (int i = 0; i < n; ++i) {
            if (perf[i].status != 0) continue;
            if (wide && tensorCoreMath(perf[i].mathType)) continue;
            if (avoidTransforms && transformAlgorithm(dir, perf[i].algo)) continue;
            return Choice{perf[i].algo, perf[i].mathType, perf[i].memory};
        }
    return makeError(std::string("cuDNN has no ") + dir + " algorithm for this convolution");
}

// Candidates are timed with at most this much workspace (cuDNN's FFT algorithms can ask for GBs).
constexpr size_t kSearchWorkspace = size_t(256) << 20;

/// The address of a view's first element.
void* at(const DeviceView& v) {
    return reinterpret_cast<void*>(v.base + static_cast<CUdeviceptr>(v.meta.offset * dtypeItemSize(v.meta.dtype)));
}

/// A dense destination: `v` itself, or a temporary copied into `v` by finish().
struct Dest {
    DeviceView target, dense;
    DeviceBuffer tmp;
    Status init(const DeviceView& v) {
        target = v;
        if (v.meta.isContiguous()) {
            dense = v;
            return Status::success();
        }
        TensorMeta m = TensorMeta::contiguous(v.meta.shape, v.meta.dtype, v.meta.device);
        auto buf = DeviceBuffer::allocate(static_cast<size_t>(m.numel() * dtypeItemSize(m.dtype)));
        if (!buf.ok()) return buf.error();
        tmp = std::move(buf).value();
        dense = DeviceView{tmp.ptr(), m};
        return Status::success();
    }
    Status finish() const { return dense.base == target.base ? Status::success() : stridedCopy(dense, target); }
    void* ptr() const { return at(dense); }
};

/// alpha = 1 and beta = 0 or 1 in the type cuDNN expects (double for fp64 data, else float).
struct Scalars {
    double d1 = 1.0, d0 = 0.0;
    float f1 = 1.0f, f0 = 0.0f;
    bool dbl;
    explicit Scalars(DType t) : dbl(t == DType::Float64) {}
    const void* one() const { return dbl ? static_cast<const void*>(&d1) : &f1; }
    const void* zero() const { return dbl ? static_cast<const void*>(&d0) : &f0; }
};

Expected<DeviceBuffer> workspace(size_t bytes) {
    if (bytes == 0) return DeviceBuffer{};
    return DeviceBuffer::allocate(bytes);
}

// cudnnFind*AlgorithmEx runs each candidate once, so one noisy measurement decides the pick: three
// fresh processes timed ResNet-18's b32 backward at 8.0, 7.2 and 7.5 ms, the slow one having
// picked 0.39 ms algorithms for its first layers' backward. The search is run this many times and
// each candidate keeps its best time.
constexpr int kSearchRounds = 3;

/// `find` (a cudnnFind*AlgorithmEx call) run kSearchRounds times; `perf` gets each successful
/// (algorithm, math type) once with its best time, fastest first, as one call would list them.
template <class Find>
Status timedSearch(Find find, void* ws, CudnnAlgoPerf* perf, int* n) {
    std::vector<CudnnAlgoPerf> best;
    for (int round = 0; round < kSearchRounds; ++round) {
        CudnnAlgoPerf got[16];
        int k = 0;
        if (Status s = find(ws, got, &k); !s.ok()) return s;
        for (int i = 0; i < k; ++i) {
            if (got[i].status != 0) continue;
            auto same = std::find_if(best.begin(), best.end(), [&](const CudnnAlgoPerf& b) {
                return b.algo == got[i].algo && b.mathType == got[i].mathType;
            });
            if (same == best.end())
                best.push_back(got[i]);
            else if (got[i].time < same->time)
                same->time = got[i].time;
        }
    }
    std::stable_sort(best.begin(), best.end(),
                     [](const CudnnAlgoPerf& a, const CudnnAlgoPerf& b) { return a.time < b.time; });
    *n = static_cast<int>(std::min<size_t>(best.size(), 16));
    std::copy_n(best.begin(), *n, perf);
    return Status::success();
}

/// Runs one convolution direction with its algorithm: timed per problem by `find` (a
/// cudnnFind*AlgorithmEx call given the search workspace, see timedSearch) and cached, then `run`
/// (the matching cudnnConvolution* call) with that algorithm's math type set and its workspace
/// allocated.
template <class Find, class Run>
Status withAlgorithm(const CudnnApi& d, cudnnConvolutionDescriptor_t conv, const Problem& p, char which,
                     const char* dir, Find find, Run run) {
    const std::string key = p.key(which);
    const DType t = p.dtype;
    bool smallKernel = true;
    for (size_t i = 2; i < p.w.size(); ++i) smallKernel = smallKernel && p.w[i] <= 3;
    auto it = choices().find(key);
    if (it == choices().end()) {
        auto ws = workspace(kSearchWorkspace);
        if (!ws.ok()) return ws.error();
        CudnnAlgoPerf perf[16];
        int n = 0;
        if (Status s = timedSearch(find, reinterpret_cast<void*>(ws->ptr()), perf, &n); !s.ok()) return s;
        auto c = pick(perf, n, t, dir, smallKernel);
        if (!c.ok()) return c.error();
        it = choices().emplace(key, *c).first;
    }
    const Choice& c = it->second;
    d.cudnnSetConvolutionMathType(conv, c.mathType);
    auto ws = workspace(c.workspace);
    if (!ws.ok()) return ws.error();
    return run(c.algo, reinterpret_cast<void*>(ws->ptr()), c.workspace);
}

KernelModule& reduceModule() {
    static KernelModule* m =
        new KernelModule("fxray_channel_sum", {"dtype_io.cuh", "channel_sum.cu"});  // never destroyed
    return *m;
}

/// out[c] = sum of dense x [N, C, ...] over every dim but C.
Status channelSum(const DeviceView& x, const DeviceView& out) {
    const DType t = x.meta.dtype;
    const char* sfx = t == DType::Float16 ? "f16" : t == DType::BFloat16 ? "bf16" : t == DType::Float64 ? "f64" : "f32";
    auto fn = reduceModule().function(std::string("fx_channel_sum_") + sfx);
    if (!fn.ok()) return fn.error();
    long long N = x.meta.shape[0], C = x.meta.shape[1], S = C > 0 && N > 0 ? x.meta.numel() / (N * C) : 0;
    long long ooff = out.meta.offset, os = out.meta.strides.empty() ? 1 : out.meta.strides[0];
    CUdeviceptr px = x.base + static_cast<CUdeviceptr>(x.meta.offset * dtypeItemSize(t)), po = out.base;
    void* params[] = {&px, &po, &N, &C, &S, &ooff, &os};
    return launchGrid(*fn, static_cast<unsigned>(std::min<long long>(std::max<long long>(C, 1), 65535)), 1, 256, params,
                      "fx_channel_sum");
}

/// The output-writing half shared by the forward and transposed-forward calls: `in` and `w` are
/// read dense, `out` is written through a dense temporary when it is strided, `call` issues the
/// cuDNN convolution with the problem's descriptors, and the bias (over `out`'s channels) is added
/// afterwards. `outIsY`: `out` is the problem's output y (plain) or its input x (transposed).
Status
writeConvolution(const Problem& p, const DeviceView& in, const DeviceView& w, const std::optional<DeviceView>& bias,
                 const DeviceView& out, bool outIsY,
                 const std::function<Status(const Descriptors&, const Scalars&, void* in, void* w, void* out)>& call) {
    const CudnnRuntime& rt = cudnnRuntime();
    DeviceBuffer ti, tw, tb;
    auto id = denseView(in, ti);
    if (!id.ok()) return id.error();
    auto wd = denseView(w, tw);
    if (!wd.ok()) return wd.error();
    Dest od;
    if (Status s = od.init(out); !s.ok()) return s;
    std::lock_guard<std::mutex> lock(cudnnMutex());
    const CudnnApi& d = rt.dnn;
    Descriptors desc(d);
    if (Status s = desc.make(p, outIsY ? -1 : p.x[1]); !s.ok()) return s;
    d.cudnnSetStream(rt.handle, nullptr);
    Scalars k(p.dtype);
    if (Status s = call(desc, k, at(*id), at(*wd), od.ptr()); !s.ok()) return s;
    if (bias) {
        auto bd = denseView(*bias, tb);
        if (!bd.ok()) return bd.error();
        if (Status s = cudnnCheck(
                d.cudnnAddTensor(rt.handle, k.one(), desc.bias, at(*bd), k.one(), outIsY ? desc.y : desc.x, od.ptr()),
                "cudnnAddTensor (bias)");
            !s.ok())
            return s;
    }
    return od.finish();
}

}  // namespace

bool cudnnConvSupports(DType t) {
    if (t != DType::Float32 && t != DType::Float64 && t != DType::Float16 && t != DType::BFloat16) return false;
    // Read on each call (unlike FXRAY_NO_CUDNN, which decides whether cuDNN loads at all), so a
    // test can run the same graph on both paths in one process.
    if (envOr("FXRAY_CUDNN_CONV") == "0") return false;
    return cudnnRuntime().available;
}

Status cudnnConvForward(const DeviceView& x, const DeviceView& w, const std::optional<DeviceView>& bias,
                        const DeviceView& y, const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                        const std::vector<int64_t>& dilation, int64_t groups) {
    const CudnnRuntime& rt = cudnnRuntime();
    if (!rt.available) return makeError(rt.whyNot);
    auto p = problemOf(x.meta, w.meta, y.meta, stride, padding, dilation, groups);
    if (!p.ok()) return p.error();
    const CudnnApi& d = rt.dnn;
    return writeConvolution(
        *p, x, w, bias, y, true, [&](const Descriptors& desc, const Scalars& k, void* xp, void* wp, void* yp) {
            return withAlgorithm(
                d, desc.conv, *p, 'f', "forward",
                [&](void* ws, CudnnAlgoPerf* perf, int* n) {
                    return cudnnCheck(d.cudnnFindConvolutionForwardAlgorithmEx(rt.handle, desc.x, xp, desc.w, wp,
                                                                               desc.conv, desc.y, yp, 16, n, perf, ws,
                                                                               kSearchWorkspace),
                                      "cudnnFindConvolutionForwardAlgorithmEx");
                },
                [&](int algo, void* ws, size_t bytes) {
                    return cudnnCheck(d.cudnnConvolutionForward(rt.handle, k.one(), desc.x, xp, desc.w, wp, desc.conv,
                                                                algo, ws, bytes, k.zero(), desc.y, yp),
                                      "cudnnConvolutionForward");
                });
        });
}

Status cudnnConvBackward(const DeviceView& gy, const DeviceView& x, const DeviceView& w,
                         const std::optional<DeviceView>& gx, const std::optional<DeviceView>& gw,
                         const std::optional<DeviceView>& gb, const std::vector<int64_t>& stride,
                         const std::vector<int64_t>& padding, const std::vector<int64_t>& dilation, int64_t groups) {
    const CudnnRuntime& rt = cudnnRuntime();
    if (!rt.available) return makeError(rt.whyNot);
    auto p = problemOf(x.meta, w.meta, gy.meta, stride, padding, dilation, groups);
    if (!p.ok()) return p.error();
    DeviceBuffer tg, tx, tw;
    auto gyd = denseView(gy, tg);
    if (!gyd.ok()) return gyd.error();
    auto xd = denseView(x, tx);
    if (!xd.ok()) return xd.error();
    auto wd = denseView(w, tw);
    if (!wd.ok()) return wd.error();
    std::lock_guard<std::mutex> lock(cudnnMutex());
    const CudnnApi& d = rt.dnn;
    Descriptors desc(d);
    if (Status s = desc.make(*p); !s.ok()) return s;
    d.cudnnSetStream(rt.handle, nullptr);
    Scalars k(p->dtype);
    if (gx) {
        Dest o;
        if (Status s = o.init(*gx); !s.ok()) return s;
        if (Status s = withAlgorithm(
                d, desc.conv, *p, 'd', "backward-data",
                [&](void* ws, CudnnAlgoPerf* perf, int* n) {
                    return cudnnCheck(d.cudnnFindConvolutionBackwardDataAlgorithmEx(
                                          rt.handle, desc.w, at(*wd), desc.y, at(*gyd), desc.conv, desc.x, o.ptr(), 16,
                                          n, perf, ws, kSearchWorkspace),
                                      "cudnnFindConvolutionBackwardDataAlgorithmEx");
                },
                [&](int algo, void* ws, size_t bytes) {
                    return cudnnCheck(d.cudnnConvolutionBackwardData(rt.handle, k.one(), desc.w, at(*wd), desc.y,
                                                                     at(*gyd), desc.conv, algo, ws, bytes, k.zero(),
                                                                     desc.x, o.ptr()),
                                      "cudnnConvolutionBackwardData");
                });
            !s.ok())
            return s;
        if (Status s = o.finish(); !s.ok()) return s;
    }
    if (gw) {
        Dest o;
        if (Status s = o.init(*gw); !s.ok()) return s;
        if (Status s = withAlgorithm(
                d, desc.conv, *p, 'w', "backward-filter",
                [&](void* ws, CudnnAlgoPerf* perf, int* n) {
                    return cudnnCheck(d.cudnnFindConvolutionBackwardFilterAlgorithmEx(
                                          rt.handle, desc.x, at(*xd), desc.y, at(*gyd), desc.conv, desc.w, o.ptr(), 16,
                                          n, perf, ws, kSearchWorkspace),
                                      "cudnnFindConvolutionBackwardFilterAlgorithmEx");
                },
                [&](int algo, void* ws, size_t bytes) {
                    return cudnnCheck(d.cudnnConvolutionBackwardFilter(rt.handle, k.one(), desc.x, at(*xd), desc.y,
                                                                       at(*gyd), desc.conv, algo, ws, bytes, k.zero(),
                                                                       desc.w, o.ptr()),
                                      "cudnnConvolutionBackwardFilter");
                });
            !s.ok())
            return s;
        if (Status s = o.finish(); !s.ok()) return s;
    }
    if (gb) {
        Dest o;
        if (Status s = o.init(*gb); !s.ok()) return s;
        // cuDNN 9 has no bf16 bias gradient (CUDNN_STATUS_NOT_SUPPORTED): a channel sum then.
        Status s = cudnnCheck(
            d.cudnnConvolutionBackwardBias(rt.handle, k.one(), desc.y, at(*gyd), k.zero(), desc.bias, o.ptr()),
            "cudnnConvolutionBackwardBias");
        if (!s.ok()) s = channelSum(*gyd, o.dense);
        if (!s.ok()) return s;
        if (Status f = o.finish(); !f.ok()) return f;
    }
    return Status::success();
}

Status cudnnConvTransposeForward(const DeviceView& x, const DeviceView& w, const std::optional<DeviceView>& bias,
                                 const DeviceView& y, const std::vector<int64_t>& stride,
                                 const std::vector<int64_t>& padding, const std::vector<int64_t>& dilation,
                                 int64_t groups) {
    const CudnnRuntime& rt = cudnnRuntime();
    if (!rt.available) return makeError(rt.whyNot);
    // The convolution this one transposes reads y-shaped tensors and writes x-shaped ones.
    auto p = problemOf(y.meta, w.meta, x.meta, stride, padding, dilation, groups);
    if (!p.ok()) return p.error();
    const CudnnApi& d = rt.dnn;
    // Same problem and direction as that convolution's input gradient: the cached choice is shared.
    return writeConvolution(
        *p, x, w, bias, y, false, [&](const Descriptors& desc, const Scalars& k, void* xp, void* wp, void* yp) {
            return withAlgorithm(
                d, desc.conv, *p, 'd', "backward-data",
                [&](void* ws, CudnnAlgoPerf* perf, int* n) {
                    return cudnnCheck(d.cudnnFindConvolutionBackwardDataAlgorithmEx(rt.handle, desc.w, wp, desc.y, xp,
                                                                                    desc.conv, desc.x, yp, 16, n, perf,
                                                                                    ws, kSearchWorkspace),
                                      "cudnnFindConvolutionBackwardDataAlgorithmEx");
                },
                [&](int algo, void* ws, size_t bytes) {
                    return cudnnCheck(d.cudnnConvolutionBackwardData(rt.handle, k.one(), desc.w, wp, desc.y, xp,
                                                                     desc.conv, algo, ws, bytes, k.zero(), desc.x, yp),
                                      "cudnnConvolutionBackwardData");
                });
        });
}

Status cudnnConvTransposeBackward(const DeviceView& gy, const DeviceView& x, const DeviceView& w,
                                  const std::optional<DeviceView>& gx, const std::optional<DeviceView>& gw,
                                  const std::optional<DeviceView>& gb, const std::vector<int64_t>& stride,
                                  const std::vector<int64_t>& padding, const std::vector<int64_t>& dilation,
                                  int64_t groups) {
    // The adjoint of a transposed convolution is the plain one.
    if (gx)
        if (Status s = cudnnConvForward(gy, w, std::nullopt, *gx, stride, padding, dilation, groups); !s.ok()) return s;
    // Roles swapped: gy is the plain convolution's input, x its output gradient.
    if (gw)
        if (Status s = cudnnConvBackward(x, gy, w, std::nullopt, gw, std::nullopt, stride, padding, dilation, groups);
            !s.ok())
            return s;
    if (gb) {
        DeviceBuffer tg;
        auto gyd = denseView(gy, tg);
        if (!gyd.ok()) return gyd.error();
        Dest o;
        if (Status s = o.init(*gb); !s.ok()) return s;
        if (Status s = channelSum(*gyd, o.dense); !s.ok()) return s;
        return o.finish();
    }
    return Status::success();
}

}  // namespace fxray::cg::cuda
