// Random ops: dropout, randperm, rand/randn (+ _like), bernoulli and Inductor's seed prims.
// fxray does not reproduce PyTorch's Philox streams: values come from ExecContext::rng (or, for
// inductor_random, from a generator seeded by the seed tensor) and are deterministic for a seed.
// Uniforms and normals are derived from raw 64-bit draws here rather than through
// <random>'s distributions, whose algorithms differ between standard libraries.
#include "exec/ops/kernel_util.h"
#include "exec/ops/register.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

namespace fxray {
using namespace kern;

namespace {

constexpr double kTwoPi = 6.283185307179586476925286766559;

/// Uniform in [0, 1) with 53 random bits.
template <typename Rng>
double uniform01(Rng& rng) {
    return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

/// Standard normal by Box-Muller (one value per call; simple and portable).
template <typename Rng>
double normal01(Rng& rng) {
    double u1 = uniform01(rng);
    while (u1 <= 0.0) u1 = uniform01(rng);
    const double u2 = uniform01(rng);
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(kTwoPi * u2);
}

std::optional<DType> kwDType(const OpArgs& a) {
    int i = a.op().schema.indexOf("dtype");
    return i < 0 ? std::nullopt : a.toOptDType(static_cast<size_t>(i));
}

Device kwDevice(const OpArgs& a, const Device& dflt = {}) {
    int i = a.op().schema.indexOf("device");
    if (i >= 0 && a[static_cast<size_t>(i)].kind == Value::Kind::Device) return a[static_cast<size_t>(i)].device;
    return dflt;
}

/// c10::is_channels_last_strides_2d (what suggest_memory_format tests).
bool isChannelsLastStrides2d(const TensorMeta& m) {
    if (m.dim() != 4 || m.strides[1] == 0) return false;
    int64_t min = 0;
    for (size_t d : {1, 3, 2, 0}) {
        if (m.shape[d] == 0 || m.strides[d] < min) return false;
        if (d == 0 && min == m.strides[1]) return false;
        min = m.strides[d];
        if (m.shape[d] > 1) min *= m.shape[d];
    }
    return true;
}

/// The layout of a decomposition's *_like(in) with another dtype.
Expected<TensorMeta> likeMeta(const OpArgs& a, const TensorMeta& in, DType dt) {
    if (in.isSymbolic()) return opError(a, "symbolic shapes are not supported");
    TensorMeta m = in;
    if (m.strides.size() != m.shape.size()) m.strides = TensorMeta::contiguousStrides(m.shape);
    m.strides = emptyLikeStrides(m);
    m.offset = 0;
    m.dtype = dt;
    return m;
}

// ----- dropout -------------------------------------------------------------------------------

/// True when dropout actually drops: training with 0 < p.
bool dropoutActive(const OpArgs& a, size_t trainIdx) {
    return !a.isNone(trainIdx) && a.toBool(trainIdx) && a.toDouble(1) > 0.0;
}

Expected<bool> checkP(const OpArgs& a) {
    const double p = a.toDouble(1);
    if (!(p >= 0.0 && p <= 1.0))
        return opError(a, "dropout probability has to be between 0 and 1, but got " + std::to_string(p));
    return true;
}

Expected<Value> metaNativeDropout(const OpArgs& a) {
    auto ok = checkP(a);
    if (!ok.ok()) return ok.error();
    const TensorMeta& in = a.tensor(0).meta;
    if (dropoutActive(a, 2) && !isFloating(in.dtype))
        return opError(a, "result type Float can't be cast to the desired output type " +
                              std::string(dtypeTorchName(in.dtype)));
    auto mask = likeMeta(a, in, DType::Bool);
    if (!mask.ok()) return mask.error();
    // Inactive dropout returns its input itself (the decomposition's alias), layout included.
    TensorMeta out = *mask;
    if (dropoutActive(a, 2)) {
        out.dtype = in.dtype;
    } else {
        out = in;
        if (out.strides.size() != out.shape.size()) out.strides = TensorMeta::contiguousStrides(out.shape);
    }
    return Value::ofTensors({Tensor::metaOnly(out), Tensor::metaOnly(*mask)});
}

/// Draws a keep-mask (probability 1-p) and returns (input*mask/(1-p), mask), or (input, ones)
/// when dropout is inactive.
std::pair<std::vector<double>, std::vector<double>> dropValues(const Tensor& in, double p, bool active,
                                                               ExecContext& ctx) {
    auto x = toDoubles(in);
    std::vector<double> mask(x.size(), 1.0);
    if (!active) return {std::move(x), std::move(mask)};
    if (p >= 1.0) return {std::vector<double>(x.size(), 0.0), std::vector<double>(x.size(), 0.0)};
    // Round the scale to the tensor's dtype first, as the GPU kernel multiplies by a float scale.
    const double scale = roundTo(1.0 / (1.0 - p), in.dtype() == DType::Float64 ? DType::Float64 : DType::Float32);
    for (size_t i = 0; i < x.size(); ++i) {
        const bool keep = uniform01(ctx.rng) >= p;
        mask[i] = keep ? 1.0 : 0.0;
        x[i] = keep ? x[i] * scale : 0.0;
    }
    return {std::move(x), std::move(mask)};
}

Expected<Value> nativeDropoutKernel(const OpArgs& a, const Value& out, ExecContext& ctx) {
    auto [vals, mask] = dropValues(a.tensor(0), a.toDouble(1), dropoutActive(a, 2), ctx);
    return Value::ofTensors({makeTensor(out.list[0].t.meta, vals), makeTensor(out.list[1].t.meta, mask)});
}

Expected<Value> metaDropout(const OpArgs& a) {
    auto ok = checkP(a);
    if (!ok.ok()) return ok.error();
    auto out = likeMeta(a, a.tensor(0).meta, a.tensor(0).dtype());
    if (!out.ok()) return out.error();
    return metaValue(*out);
}

Expected<Value> dropoutKernel(const OpArgs& a, const Value& out, ExecContext& ctx) {
    auto [vals, mask] = dropValues(a.tensor(0), a.toDouble(1), dropoutActive(a, 2), ctx);
    (void)mask;
    return Value::ofTensor(makeTensor(out.t.meta, vals));
}

Expected<Value> metaDropoutBackward(const OpArgs& a) {
    if (a.tensor(1).dtype() != DType::Bool)
        return opError(a, "mask should be a bool tensor, got " + std::string(dtypeTorchName(a.tensor(1).dtype())));
    // Like the CUDA kernel (and PyTorch's decomposition), the result takes grad_output's
    // suggested memory format rather than TensorIterator's layout.
    auto m = pointwiseMeta(a, {0, 1}, a.tensor(0).dtype());
    if (!m.ok()) return m;
    TensorMeta g = a.tensor(0).meta;
    if (g.strides.size() != g.shape.size()) g.strides = TensorMeta::contiguousStrides(g.shape);
    TensorMeta out = m->t.meta;
    out.strides = out.shape == g.shape && isChannelsLastStrides2d(g) ? emptyLikeStrides(g)
                                                                     : TensorMeta::contiguousStrides(out.shape);
    return metaValue(std::move(out));
}

Expected<Value> dropoutBackwardKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const double scale = a.toDouble(2);
    return pointwiseKernel(a, out, {0, 1}, [scale](const double* x) { return x[0] * x[1] * scale; });
}

// ----- sampling ------------------------------------------------------------------------------

Expected<Value> metaRandSized(const OpArgs& a) {
    auto shape = a.toIntList(0);
    for (int64_t s : shape)
        if (s < 0)
            return opError(a, "trying to create tensor with negative dimension " + std::to_string(s) + ": " +
                                  shapeStr(shape));
    DType dt = kwDType(a).value_or(DType::Float32);
    if (!isFloating(dt)) return opError(a, "expected a floating point dtype, got " + std::string(dtypeTorchName(dt)));
    return metaValue(TensorMeta::contiguous(shape, dt, kwDevice(a)));
}

Expected<Value> metaRandLike(const OpArgs& a) {
    const TensorMeta& in = a.tensor(0).meta;
    DType dt = kwDType(a).value_or(in.dtype);
    if (!isFloating(dt)) return opError(a, "expected a floating point dtype, got " + std::string(dtypeTorchName(dt)));
    auto m = likeMeta(a, in, dt);
    if (!m.ok()) return m.error();
    int mi = a.op().schema.indexOf("memory_format");
    const Value& mf = a[static_cast<size_t>(mi)];
    if (mf.kind == Value::Kind::MemoryFormat && mf.memoryFormat == MemoryFormat::Contiguous)
        m->strides = TensorMeta::contiguousStrides(m->shape);
    m->device = kwDevice(a, in.device);
    return metaValue(*m);
}

Expected<Value> uniformKernel(const OpArgs&, const Value& out, ExecContext& ctx) {
    std::vector<double> vals(static_cast<size_t>(out.t.numel()));
    for (auto& v : vals) v = uniform01(ctx.rng);
    return Value::ofTensor(makeTensor(out.t.meta, vals));
}

Expected<Value> normalKernel(const OpArgs&, const Value& out, ExecContext& ctx) {
    std::vector<double> vals(static_cast<size_t>(out.t.numel()));
    for (auto& v : vals) v = normal01(ctx.rng);
    return Value::ofTensor(makeTensor(out.t.meta, vals));
}

Expected<Value> metaBernoulliP(const OpArgs& a) {
    const double p = a.toDouble(1);
    if (!(p >= 0.0 && p <= 1.0))
        return opError(a, "bernoulli expects p to be in [0, 1], but got p=" + std::to_string(p));
    const TensorMeta& in = a.tensor(0).meta;
    if (in.isSymbolic()) return opError(a, "symbolic shapes are not supported");
    return metaValue(TensorMeta::contiguous(in.shape, in.dtype, in.device));
}

Expected<Value> bernoulliKernel(const OpArgs& a, const Value& out, ExecContext& ctx) {
    const double p = a.toDouble(1);
    std::vector<double> vals(static_cast<size_t>(out.t.numel()));
    for (auto& v : vals) v = uniform01(ctx.rng) < p ? 1.0 : 0.0;
    return Value::ofTensor(makeTensor(out.t.meta, vals));
}

Expected<Value> metaRandperm(const OpArgs& a) {
    const int64_t n = a.toInt(0);
    if (n < 0) return opError(a, "n must be non-negative, got " + std::to_string(n));
    DType dt = kwDType(a).value_or(DType::Int64);
    if (dt == DType::Bool || isComplex(dt))
        return opError(a, "randperm is not implemented for " + std::string(dtypeTorchName(dt)));
    if (isIntegral(dt) && dtypeItemSize(dt) < 8) {
        const int bits = dtypeItemSize(dt) * 8 - (dt == DType::UInt8 ? 0 : 1);
        if (n > (int64_t{1} << bits))
            return opError(a, "n must be representable by " + std::string(dtypeTorchName(dt)) + ", got " +
                                  std::to_string(n));
    }
    return metaValue(TensorMeta::contiguous({n}, dt, kwDevice(a)));
}

Expected<Value> randpermKernel(const OpArgs&, const Value& out, ExecContext& ctx) {
    const auto n = static_cast<size_t>(out.t.numel());
    std::vector<double> vals(n);
    std::iota(vals.begin(), vals.end(), 0.0);
    // Fisher-Yates from the back; the unbiased bound uses rejection on the 64-bit draw.
    for (size_t i = n; i > 1; --i) {
        const uint64_t bound = i, limit = UINT64_MAX - UINT64_MAX % bound;
        uint64_t r = ctx.rng();
        while (r >= limit) r = ctx.rng();
        std::swap(vals[i - 1], vals[static_cast<size_t>(r % bound)]);
    }
    return Value::ofTensor(makeTensor(out.t.meta, vals));
}

// ----- Inductor's seed prims -----------------------------------------------------------------

Expected<Value> metaSeeds(const OpArgs& a) {
    const int64_t n = a.toInt(0);
    if (n < 0) return opError(a, "count must be non-negative, got " + std::to_string(n));
    Device dev = a[1].kind == Value::Kind::Device ? a[1].device : Device{};
    return metaValue(TensorMeta::contiguous({n}, DType::Int64, dev));
}

Expected<Value> seedsKernel(const OpArgs&, const Value& out, ExecContext& ctx) {
    std::vector<double> vals(static_cast<size_t>(out.t.numel()));
    // 2^53 bounds the seeds so that they pass through double exactly.
    for (auto& v : vals) v = static_cast<double>(ctx.rng() >> 11);
    return Value::ofTensor(makeTensor(out.t.meta, vals));
}

Expected<Value> metaLookupSeed(const OpArgs& a) {
    const TensorMeta& seeds = a.tensor(0).meta;
    if (seeds.dim() != 1) return opError(a, "seeds must be 1-D, got " + std::to_string(seeds.dim()) + " dims");
    const int64_t i = a.toInt(1);
    if (i < 0 || i >= seeds.shape[0])
        return opError(a,
                       "index " + std::to_string(i) + " out of range for " + std::to_string(seeds.shape[0]) + " seeds");
    return metaValue(TensorMeta::contiguous({}, seeds.dtype, seeds.device));
}

Expected<Value> lookupSeedKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto s = toDoubles(a.tensor(0));
    return Value::ofTensor(makeTensor(out.t.meta, {s[static_cast<size_t>(a.toInt(1))]}));
}

Expected<Value> metaInductorRandom(const OpArgs& a) {
    auto shape = a.toIntList(0);
    for (int64_t s : shape)
        if (s < 0) return opError(a, "negative dimension in " + shapeStr(shape));
    const std::string& mode = a[2].s;
    if (mode != "rand" && mode != "randn")
        return opError(a, "unknown mode '" + mode + "' (expected 'rand' or 'randn')");
    return metaValue(TensorMeta::contiguous(shape, DType::Float32, a.tensor(1).meta.device));
}

Expected<Value> inductorRandomKernel(const OpArgs& a, const Value& out, ExecContext&) {
    // The seed alone decides the values, so that a given seed tensor reproduces them.
    std::mt19937_64 gen(static_cast<uint64_t>(toDoubles(a.tensor(1)).at(0)));
    const bool normal = a[2].s == "randn";
    std::vector<double> vals(static_cast<size_t>(out.t.numel()));
    for (auto& v : vals) v = normal ? normal01(gen) : uniform01(gen);
    return Value::ofTensor(makeTensor(out.t.meta, vals));
}

}  // namespace

void registerRandomOps(OpRegistry& r) {
    using C = OpCategory;
    const std::string opts = "ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None";
    r.add("aten.native_dropout.default", "native_dropout(Tensor input, float p, bool? train) -> (Tensor, Tensor)",
          C::Random, metaNativeDropout, nativeDropoutKernel);
    r.add("aten.native_dropout_backward.default",
          "native_dropout_backward(Tensor grad_output, Tensor mask, float scale) -> Tensor", C::Pointwise,
          metaDropoutBackward, dropoutBackwardKernel);
    r.add("aten.dropout.default", "dropout(Tensor input, float p, bool train) -> Tensor", C::Random, metaDropout,
          dropoutKernel);
    // PyTorch's schema says `dtype=long`; fxray's binder would keep `long` as a string, so the
    // default is spelled None here and means int64.
    r.add("aten.randperm.default", "randperm(SymInt n, *, " + opts + ") -> Tensor", C::Random, metaRandperm,
          randpermKernel);
    r.add("aten.rand.default", "rand(SymInt[] size, *, " + opts + ") -> Tensor", C::Random, metaRandSized,
          uniformKernel);
    r.add("aten.randn.default", "randn(SymInt[] size, *, " + opts + ") -> Tensor", C::Random, metaRandSized,
          normalKernel);
    r.add("aten.rand_like.default",
          "rand_like(Tensor self, *, " + opts + ", MemoryFormat? memory_format=None) -> Tensor", C::Random,
          metaRandLike, uniformKernel);
    r.add("aten.randn_like.default",
          "randn_like(Tensor self, *, " + opts + ", MemoryFormat? memory_format=None) -> Tensor", C::Random,
          metaRandLike, normalKernel);
    r.add("aten.bernoulli.p", "bernoulli.p(Tensor self, float p=0.5, *, Generator? generator=None) -> Tensor",
          C::Random, metaBernoulliP, bernoulliKernel);
    r.add("prims.inductor_seeds.default", "inductor_seeds(int count, Device device) -> Tensor", C::Random, metaSeeds,
          seedsKernel);
    r.add("prims.inductor_lookup_seed.default", "inductor_lookup_seed(Tensor seeds, int index) -> Tensor", C::Other,
          metaLookupSeed, lookupSeedKernel);
    r.add("prims.inductor_random.default", "inductor_random(SymInt[] size, Tensor seed, str mode) -> Tensor", C::Random,
          metaInductorRandom, inductorRandomKernel);
}

}  // namespace fxray
