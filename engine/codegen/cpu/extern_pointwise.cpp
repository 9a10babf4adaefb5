// Extern kernels of the CPU backend for elementwise ops whose scalar function is a loop with a
// data-dependent trip count, which the kernel IR (straight-line expressions, no loops inside an
// element) cannot express: gcd and lcm (Euclid's algorithm; Inductor's make_fallback(aten.gcd)
// and lcm's decomposition through gcd) and the regularized incomplete gamma functions igamma and
// igammac (a series or continued fraction run to convergence; Inductor calls a C++ helper from
// its generated loop); and _to_copy into a complex dtype, which the kernel IR cannot compute. The scalar functions are exec/ops/binary_math.h's, so the CPU backend and
// the reference give the same values. Their table: extern_table.h pointwiseExterns().
//
// Operands are broadcast to the output's shape as row-major copies and the result is written
// through the output's own layout. An output dtype outside the op's domain (a float gcd, an
// integer igamma) or operands that do not broadcast return false before writing: the reference
// kernel then reports or computes it, a reported fallback.
#include "codegen/cpu/extern_table.h"

#include "codegen/cpu/extern_util.h"
#include "exec/ops/binary_math.h"
#include "exec/ops/kernel_util.h"

#include <cstdint>

namespace fxray::cg::cpu {

namespace {

bool integral(DType t) {
    return t == DType::Int64 || t == DType::Int32 || t == DType::Int16 || t == DType::Int8 || t == DType::UInt8;
}

/// out[i] = f(a[i], b[i]) over tensor operands 0 and 1 broadcast to out's shape.
template <typename F>
bool binaryInto(const OpArgs& a, Tensor& out, F f) {
    if (!a.isTensor(0) || !a.isTensor(1)) return false;
    const Tensor& x = a.tensor(0);
    const Tensor& y = a.tensor(1);
    auto shape = kern::broadcastShapes(x.shape(), y.shape());
    if (!shape || *shape != out.shape()) return false;
    const auto xv = kern::toDoublesBroadcast(x, *shape), yv = kern::toDoublesBroadcast(y, *shape);
    std::vector<double> r(xv.size());
    for (size_t i = 0; i < r.size(); ++i) r[i] = f(xv[i], yv[i]);
    kern::fromDoubles(out, r);
    return true;
}

bool gcd(const OpArgs& a, Tensor& out) {
    if (!integral(out.dtype())) return false;
    return binaryInto(a, out, [](double p, double q) {
        return static_cast<double>(kern::gcdInt(static_cast<int64_t>(p), static_cast<int64_t>(q)));
    });
}

/// |p / gcd * q| with the output dtype's two's-complement wraparound; 0 when both are 0.
bool lcm(const OpArgs& a, Tensor& out) {
    const DType t = out.dtype();
    if (!integral(t)) return false;
    return binaryInto(a, out, [t](double pd, double qd) {
        const int64_t p = static_cast<int64_t>(pd), q = static_cast<int64_t>(qd);
        const int64_t g = kern::gcdInt(p, q);
        if (g == 0) return 0.0;
        int64_t v = kern::wrapInt(static_cast<uint64_t>(p / g) * static_cast<uint64_t>(q), t);
        if (v < 0) v = kern::wrapInt(0 - static_cast<uint64_t>(v), t);
        return static_cast<double>(v);
    });
}

template <bool Upper>
bool igamma(const OpArgs& a, Tensor& out) {
    if (!floatLike(out.dtype()) && out.dtype() != DType::Float64) return false;
    return binaryInto(a, out,
                      [](double s, double x) { return Upper ? kern::igammaUpper(s, x) : kern::igammaLower(s, x); });
}

/// _to_copy of a real tensor into a complex dtype (the kernel IR computes no complex values, so
/// the lowering declines it): each element becomes (x, 0). A complex source is left to the
/// reference.
bool toComplex(const OpArgs& a, Tensor& out) {
    if (!isComplex(out.dtype()) || !a.isTensor(0) || isComplex(a.tensor(0).dtype()) ||
        a.tensor(0).shape() != out.shape())
        return false;
    kern::fromDoubles(out, kern::toDoubles(a.tensor(0)));  // writes a zero imaginary part
    return true;
}

}  // namespace

const std::vector<CpuExtern>& pointwiseExterns() {
    static const std::vector<CpuExtern> t = {
        {"gcd", single<gcd>},
        {"lcm", single<lcm>},
        {"igamma", single<igamma<false>>},
        {"igammac", single<igamma<true>>},
        {"to_complex", single<toComplex>},
    };
    return t;
}

}  // namespace fxray::cg::cpu
