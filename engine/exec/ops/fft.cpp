// The FFT ops torch.fft's functions reach (aten/src/ATen/native/SpectralOps.cpp):
//   _fft_r2c(self, dim, normalization, onesided)   real -> complex, the last of `dim` halved
//                                                  to n // 2 + 1 when onesided;
//   _fft_c2c(self, dim, normalization, forward)    complex -> complex;
//   _fft_c2r(self, dim, normalization, last_dim_size)  complex -> real, the last of `dim`
//                                                  rebuilt from its n // 2 + 1 Hermitian half.
// normalization: 0 none, 1 by 1/sqrt(n), 2 by 1/n, n the signal's size over `dim` (the input's
// for r2c and c2c, the output's for c2r). Graphs run them through the complex rewrite
// (exec/complex_fft.cpp: DFTs as real GEMMs); these kernels are the direct ones (invokeOp,
// constant folding), a plain O(n^2) DFT per dim in double, as an independent check.
#include "exec/complex_to_real.h"
#include "exec/ops/kernel_util.h"
#include "exec/ops/register.h"

#include <cmath>
#include <complex>

namespace fxray {
using namespace kern;

namespace {

using C = std::complex<double>;

std::optional<DType> complexOf(DType t) {
    if (t == DType::Float32) return DType::Complex64;
    if (t == DType::Float64) return DType::Complex128;
    return std::nullopt;
}
DType realOf(DType t) { return t == DType::Complex128 ? DType::Float64 : DType::Float32; }

/// `dim` wrapped and checked: distinct dims of the input.
Expected<std::vector<int64_t>> dimsOf(const OpArgs& a, int64_t rank) {
    std::vector<int64_t> dims = a.toIntList(1);
    if (dims.empty()) return opError(a, "dim must name at least one dimension");
    for (auto& d : dims) {
        if (d < 0) d += rank;
        if (d < 0 || d >= rank) return opError(a, "dim out of range");
    }
    for (size_t i = 0; i < dims.size(); ++i)
        for (size_t j = 0; j < i; ++j)
            if (dims[i] == dims[j]) return opError(a, "dims must be distinct");
    return dims;
}

Expected<Value> metaR2c(const OpArgs& a) {
    const TensorMeta& x = a.tensor(0).meta;
    auto c = complexOf(x.dtype);
    if (!c) return opError(a, "expects a float or double input, got " + std::string(dtypeTorchName(x.dtype)));
    auto dims = dimsOf(a, x.dim());
    if (!dims.ok()) return dims.error();
    std::vector<int64_t> shape = x.shape;
    if (a.toBool(3)) shape[static_cast<size_t>(dims->back())] = shape[static_cast<size_t>(dims->back())] / 2 + 1;
    return metaValue(TensorMeta::contiguous(shape, *c, x.device));
}

Expected<Value> metaC2c(const OpArgs& a) {
    const TensorMeta& x = a.tensor(0).meta;
    if (!isComplex(x.dtype)) return opError(a, "expects a complex input");
    auto dims = dimsOf(a, x.dim());
    if (!dims.ok()) return dims.error();
    return metaValue(TensorMeta::contiguous(x.shape, x.dtype, x.device));
}

Expected<Value> metaC2r(const OpArgs& a) {
    const TensorMeta& x = a.tensor(0).meta;
    if (!isComplex(x.dtype)) return opError(a, "expects a complex input");
    auto dims = dimsOf(a, x.dim());
    if (!dims.ok()) return dims.error();
    const int64_t L = a.toInt(3);
    if (L < 1) return opError(a, "last_dim_size must be at least 1");
    std::vector<int64_t> shape = x.shape;
    shape[static_cast<size_t>(dims->back())] = L;
    return metaValue(TensorMeta::contiguous(shape, realOf(x.dtype), x.device));
}

/// Row-major complex data of `shape`, transformed along dim d into nOut points per line:
/// X[k] = sum_j x[j] e^(sign 2 pi i j k / period), j over the input's points. With `hermitian`
/// the input is the first half of a Hermitian sequence of `period` points and the output its
/// real inverse (weights 2 for the mirrored bins).
void dftAlong(std::vector<C>& data, std::vector<int64_t>& shape, int64_t d, int64_t nOut, int sign, int64_t period,
              bool hermitian) {
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < d; ++i) outer *= shape[static_cast<size_t>(i)];
    for (size_t i = static_cast<size_t>(d) + 1; i < shape.size(); ++i) inner *= shape[i];
    const int64_t nIn = shape[static_cast<size_t>(d)];
    std::vector<C> out(static_cast<size_t>(outer * nOut * inner));
    const double w0 = 2.0 * M_PI / static_cast<double>(period);
    for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i)
            for (int64_t k = 0; k < nOut; ++k) {
                C acc = 0;
                const int64_t used = hermitian ? std::min(nIn, period / 2 + 1) : nIn;
                for (int64_t j = 0; j < used; ++j) {
                    const double th = w0 * static_cast<double>((j * k) % period);
                    C x = data[static_cast<size_t>((o * nIn + j) * inner + i)];
                    C e(std::cos(th), sign * std::sin(th));
                    if (hermitian) {
                        const double wgt = (j == 0 || 2 * j == period) ? 1.0 : 2.0;
                        acc += wgt * (x * e).real();
                    } else {
                        acc += x * e;
                    }
                }
                out[static_cast<size_t>((o * nOut + k) * inner + i)] = acc;
            }
    data = std::move(out);
    shape[static_cast<size_t>(d)] = nOut;
}

enum class Kind { R2C, C2C, C2R };

template <Kind K>
Expected<Value> fftKernel(const OpArgs& a, const Value& out, ExecContext&) {
    const Tensor& x = a.tensor(0);
    auto dims = dimsOf(a, x.dim());
    if (!dims.ok()) return dims.error();
    std::vector<C> data;
    if (isComplex(x.dtype())) {
        const std::vector<double> v = toDoubles(complexAsReal(x));
        for (size_t i = 0; i + 1 < v.size(); i += 2) data.emplace_back(v[i], v[i + 1]);
    } else {
        for (double v : toDoubles(x)) data.emplace_back(v, 0.0);
    }
    std::vector<int64_t> shape = x.shape();
    const int norm = static_cast<int>(a.toInt(2));
    double n = 1;
    if (K == Kind::C2R) {
        const int64_t L = a.toInt(3);
        for (size_t i = 0; i + 1 < dims->size(); ++i) {
            const int64_t d = (*dims)[i];
            n *= static_cast<double>(shape[static_cast<size_t>(d)]);
            dftAlong(data, shape, d, shape[static_cast<size_t>(d)], +1, shape[static_cast<size_t>(d)], false);
        }
        n *= static_cast<double>(L);
        dftAlong(data, shape, dims->back(), L, +1, L, true);
    } else {
        const int sign = K == Kind::C2C && !a.toBool(3) ? +1 : -1;
        for (int64_t d : *dims) {
            const int64_t len = shape[static_cast<size_t>(d)];
            n *= static_cast<double>(len);
            const bool half = K == Kind::R2C && a.toBool(3) && d == dims->back();
            dftAlong(data, shape, d, half ? len / 2 + 1 : len, sign, len, false);
        }
    }
    const double scale = norm == 1 ? 1.0 / std::sqrt(n) : norm == 2 ? 1.0 / n : 1.0;
    Tensor r = Tensor::emptyLike(out.t.meta);
    std::vector<double> vals;
    for (const C& c : data) {
        vals.push_back(c.real() * scale);
        if (K != Kind::C2R) vals.push_back(c.imag() * scale);
    }
    if (K == Kind::C2R) {
        fromDoubles(r, vals);
    } else {
        Tensor rv = complexAsReal(r);
        fromDoubles(rv, vals);
    }
    return Value::ofTensor(r);
}

}  // namespace

void registerFftOps(OpRegistry& r) {
    r.add("aten._fft_r2c.default", "_fft_r2c(Tensor self, int[] dim, int normalization, bool onesided) -> Tensor",
          OpCategory::Other, metaR2c, fftKernel<Kind::R2C>);
    r.add("aten._fft_c2c.default", "_fft_c2c(Tensor self, SymInt[] dim, int normalization, bool forward) -> Tensor",
          OpCategory::Other, metaC2c, fftKernel<Kind::C2C>);
    r.add("aten._fft_c2r.default",
          "_fft_c2r(Tensor self, int[] dim, int normalization, SymInt last_dim_size) -> Tensor", OpCategory::Other,
          metaC2r, fftKernel<Kind::C2R>);
}

}  // namespace fxray
