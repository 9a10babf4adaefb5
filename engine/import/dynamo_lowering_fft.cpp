// torch.fft's functions as the ATen ops they reach (torch/_refs/fft.py, SpectralOps.cpp):
// fft/ifft/rfft/irfft, their 2-D and n-D forms, fftshift/ifftshift, fftfreq/rfftfreq. Each
// resizes the signal to the asked length along its dims (slice or zero-pad at the end), then one
// _fft_r2c / _fft_c2c / _fft_c2r with the normalization of `norm` for its direction.
#include "import/dynamo_lowering_internal.h"

#include <functional>
#include <map>
#include <string>

namespace fxray::lowering {
namespace {

using Args = std::vector<Argument>;
Argument I(int64_t v) { return Argument::ofInt(v); }

enum class Fn { C2C, R2C, C2R };

/// fft_norm_mode of `norm` for a forward or an inverse transform: 0 none, 1 by 1/sqrt(n), 2 by 1/n.
std::optional<int64_t> normMode(const Argument* a, bool forward) {
    std::string s = given(a) ? (a->kind == Argument::Kind::String ? a->s : "?") : "backward";
    if (s == "backward") return forward ? 0 : 2;
    if (s == "ortho") return 1;
    if (s == "forward") return forward ? 2 : 0;
    return std::nullopt;
}

/// x with dim d cut or zero-padded (at the end) to n points.
Expected<Argument> resized(LowerCtx& c, const Argument& x, int64_t d, int64_t n) {
    auto m = c.tensorMeta(x);
    const int64_t have = m->shape[static_cast<size_t>(d)];
    if (n == have) return x;
    if (n < have) return c.emit("aten.slice.Tensor", {x, I(d), I(0), I(n)});
    Args pad(static_cast<size_t>(2 * (m->dim() - d)), I(0));
    pad[pad.size() - 1] = I(n - have);  // the pad list runs from the last dim backwards
    return c.emit("aten.constant_pad_nd.default", {x, Argument::ofList(std::move(pad)), Argument::ofFloat(0.0)});
}

/// One call: `dims` transformed, `sizes` their signal lengths (-1: the input's; for C2R the last
/// one is the output length, -1 giving 2 * (m - 1)).
Expected<Argument> transform(LowerCtx& c, Argument x, std::vector<int64_t> dims, std::vector<int64_t> sizes, Fn fn,
                             bool forward, const Argument* norm) {
    auto m = c.tensorMeta(x);
    if (!m) return makeError("expects a tensor");
    if (dims.empty()) return makeError("no dims to transform");
    for (auto& d : dims) {
        if (d < 0) d += m->dim();
        if (d < 0 || d >= m->dim()) return makeError("dim out of range");
    }
    const auto mode = normMode(norm, forward);
    if (!mode) return makeError("norm must be \"backward\", \"ortho\" or \"forward\"");
    if (isComplex(m->dtype) && fn == Fn::R2C) return makeError("expects a real input tensor");
    if (!isComplex(m->dtype) && !isFloating(m->dtype)) {  // integers and bools as the default float
        auto f = convertTo(c, x, DType::Float32, std::nullopt, false, std::nullopt);
        if (!f.ok()) return f;
        x = *f;
        m = c.tensorMeta(x);
    }
    if (m->dtype == DType::Float16 || m->dtype == DType::BFloat16)
        return makeError("half-precision FFTs are not supported");
    if (fn == Fn::C2R && !isComplex(m->dtype)) return makeError("the inverse real FFT of a real tensor is not supported");
    int64_t lastOut = -1;
    for (size_t i = 0; i < dims.size(); ++i) {
        const size_t du = static_cast<size_t>(dims[i]);
        int64_t n = sizes[i];
        if (fn == Fn::C2R && i + 1 == dims.size()) {
            lastOut = n > 0 ? n : 2 * (m->shape[du] - 1);
            if (lastOut < 1) return makeError("invalid number of data points for the inverse real FFT");
            n = lastOut / 2 + 1;
        }
        if (n == -1) continue;
        if (n < 1) return makeError("invalid number of data points (" + std::to_string(n) + ")");
        auto r = resized(c, x, dims[i], n);
        if (!r.ok()) return r;
        x = *r;
    }
    Args dl;
    for (int64_t d : dims) dl.push_back(I(d));
    const Argument dimList = Argument::ofList(std::move(dl));
    if (fn == Fn::C2R) return c.emit("aten._fft_c2r.default", {x, dimList, I(*mode), I(lastOut)});
    if (fn == Fn::R2C) return c.emit("aten._fft_r2c.default", {x, dimList, I(*mode), Argument::ofBool(true)});
    if (isComplex(c.tensorMeta(x)->dtype))
        return c.emit("aten._fft_c2c.default", {x, dimList, I(*mode), Argument::ofBool(forward)});
    // A real signal's full spectrum: r2c two-sided, conjugated for the inverse (as ATen does).
    auto r = c.emit("aten._fft_r2c.default", {x, dimList, I(*mode), Argument::ofBool(false)});
    if (!r.ok() || forward) return r;
    return c.emit("aten._conj.default", {*r});
}

/// fft(input, n=None, dim=-1, norm=None) and its 1-D kin.
template <Fn F, bool Forward>
Expected<Argument> oneDim(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input", "n", "dim", "norm"});
    if (!b.ok()) return b.error();
    const auto n = given(b->p[1]) ? intOf(b->p[1]) : std::optional<int64_t>(-1);
    const auto dim = given(b->p[2]) ? intOf(b->p[2]) : std::optional<int64_t>(-1);
    if (!n || !dim) return makeError("n and dim must be ints");
    return transform(c, b->x, {*dim}, {*n}, F, Forward, b->p[3]);
}

/// fftn(input, s=None, dim=None, norm=None); Default2 gives fft2's dim=(-2, -1).
template <Fn F, bool Forward, bool Default2>
Expected<Argument> manyDims(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input", "s", "dim", "norm"});
    if (!b.ok()) return b.error();
    std::vector<int64_t> s, dims;
    if (given(b->p[1])) {
        auto l = intList(*b->p[1]);
        if (!l) return makeError("s must be a sequence of ints");
        for (const auto& v : l->items) s.push_back(v.kind == Argument::Kind::Int ? v.i : -2);
    }
    if (given(b->p[2])) {
        auto l = intList(*b->p[2]);
        if (!l) return makeError("dim must be an int or a sequence of ints");
        for (const auto& v : l->items) dims.push_back(v.kind == Argument::Kind::Int ? v.i : 0);
    } else if (Default2) {
        dims = {-2, -1};
    } else {
        const int64_t rank = b->m.dim();
        const int64_t k = s.empty() ? rank : static_cast<int64_t>(s.size());
        for (int64_t d = rank - k; d < rank; ++d) dims.push_back(d);
    }
    if (s.empty()) s.assign(dims.size(), -1);
    if (s.size() != dims.size()) return makeError("s and dim must have the same length");
    for (int64_t v : s)
        if (v == -2) return makeError("s must hold ints");
    return transform(c, b->x, dims, s, F, Forward, b->p[3]);
}

/// fftshift / ifftshift(input, dim=None): a roll by n // 2 (fftshift) or (n + 1) // 2 per dim.
template <bool Inverse>
Expected<Argument> shift(LowerCtx& c, const TorchCall& call) {
    auto b = bindInput(c, call, {"input", "dim"});
    if (!b.ok()) return b.error();
    std::vector<int64_t> dims;
    if (given(b->p[1])) {
        auto l = intList(*b->p[1]);
        if (!l) return makeError("dim must be an int or a sequence of ints");
        for (const auto& v : l->items) dims.push_back(v.kind == Argument::Kind::Int ? v.i : 0);
    } else {
        for (int64_t d = 0; d < b->m.dim(); ++d) dims.push_back(d);
    }
    Args shifts, dl;
    for (int64_t d : dims) {
        const int64_t w = d < 0 ? d + b->m.dim() : d;
        if (w < 0 || w >= b->m.dim()) return makeError("dim out of range");
        const int64_t n = b->m.shape[static_cast<size_t>(w)];
        shifts.push_back(I(Inverse ? (n + 1) / 2 : n / 2));
        dl.push_back(I(w));
    }
    return c.emit("aten.roll.default", {b->x, Argument::ofList(std::move(shifts)), Argument::ofList(std::move(dl))});
}

/// fftfreq(n, d=1.0, *, dtype, device) / rfftfreq: the sample frequencies of a length-n signal,
/// [0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1] / (d n) (rfftfreq: the first n // 2 + 1).
template <bool Real>
Expected<Argument> freq(LowerCtx& c, const TorchCall& call) {
    auto p = call.bind({"n", "d", "out", "dtype", "layout", "device", "requires_grad"});
    if (!p.ok()) return p.error();
    const auto n = intOf((*p)[0]);
    const auto d = given((*p)[1]) ? numberOf((*p)[1]) : std::optional<double>(1.0);
    if (!n || *n < 1 || !d) return makeError("n must be a positive int and d a number");
    if (given((*p)[2])) return makeError("out= is not supported");
    std::vector<std::pair<std::string, Argument>> kw;
    kw.emplace_back("dtype", given((*p)[3]) ? *(*p)[3] : Argument::ofDType(DType::Float32));
    if (given((*p)[5])) kw.emplace_back("device", *(*p)[5]);
    const int64_t count = Real ? *n / 2 + 1 : *n;
    auto a = c.emit("aten.arange.default", {I(count)}, kw);
    if (!a.ok()) return a;
    Argument r = *a;
    if (!Real && *n > 1) {
        // Indices from (n + 1) // 2 on are the negative frequencies: i - n.
        auto hi = c.emit("aten.ge.Scalar", {r, I((*n + 1) / 2)});
        if (!hi.ok()) return hi;
        auto low = c.emit("aten.sub.Tensor", {r, I(*n)});
        if (!low.ok()) return low;
        auto w = c.emit("aten.where.self", {*hi, *low, r});
        if (!w.ok()) return w;
        r = *w;
    }
    return c.emit("aten.mul.Tensor", {r, Argument::ofFloat(1.0 / (*d * static_cast<double>(*n)))});
}

/// Every function under both of its names: torch.fft.X and torch._C._fft.fft_X.
const std::map<std::string, Rule, std::less<>>& table() {
    static const std::map<std::string, Rule, std::less<>> t = [] {
        const std::pair<const char*, Rule> rules[] = {
            {"fft", oneDim<Fn::C2C, true>},
            {"ifft", oneDim<Fn::C2C, false>},
            {"rfft", oneDim<Fn::R2C, true>},
            {"irfft", oneDim<Fn::C2R, false>},
            {"fft2", manyDims<Fn::C2C, true, true>},
            {"ifft2", manyDims<Fn::C2C, false, true>},
            {"rfft2", manyDims<Fn::R2C, true, true>},
            {"irfft2", manyDims<Fn::C2R, false, true>},
            {"fftn", manyDims<Fn::C2C, true, false>},
            {"ifftn", manyDims<Fn::C2C, false, false>},
            {"rfftn", manyDims<Fn::R2C, true, false>},
            {"irfftn", manyDims<Fn::C2R, false, false>},
            {"fftshift", shift<false>},
            {"ifftshift", shift<true>},
            {"fftfreq", freq<false>},
            {"rfftfreq", freq<true>},
        };
        std::map<std::string, Rule, std::less<>> m;
        for (const auto& [name, rule] : rules) {
            m.emplace(std::string("torch.fft.") + name, rule);
            m.emplace(std::string("torch._C._fft.fft_") + name, rule);
        }
        return m;
    }();
    return t;
}

}  // namespace

Rule findFftFunctionRule(std::string_view target) {
    auto it = table().find(target);
    return it == table().end() ? nullptr : it->second;
}

}  // namespace fxray::lowering
