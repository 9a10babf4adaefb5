#pragma once
/// What the CPU backend's compiled-C++ extern kernels (extern_train, extern_attention) share:
/// operands read as row-major fp32 copies whatever their layout and dtype, results written back
/// through the output's own layout and dtype.
#include "exec/ops/kernel_util.h"

#include <cstring>
#include <type_traits>
#include <vector>

namespace fxray::cg::cpu {

inline bool floatLike(DType t) { return t == DType::Float32 || t == DType::Float16 || t == DType::BFloat16; }

/// Row-major fp32 copy of t (logical order, whatever its layout).
inline std::vector<float> f32(const Tensor& t) {
    std::vector<float> r(static_cast<size_t>(t.numel()));
    if (t.dtype() == DType::Float32 && t.meta.isContiguous()) {
        if (!r.empty()) std::memcpy(r.data(), t.data<float>(), r.size() * sizeof(float));
        return r;
    }
    auto d = kern::toDoubles(t);
    for (size_t i = 0; i < r.size(); ++i) r[i] = static_cast<float>(d[i]);
    return r;
}

/// Writes row-major values into out (any layout, any float dtype).
template <typename T>
void store(Tensor& out, const std::vector<T>& v) {
    if constexpr (std::is_same_v<T, float>) {
        if (out.dtype() == DType::Float32 && out.meta.isContiguous()) {
            if (!v.empty()) std::memcpy(out.data<float>(), v.data(), v.size() * sizeof(float));
            return;
        }
    }
    kern::fromDoubles(out, std::vector<double>(v.begin(), v.end()));
}

}  // namespace fxray::cg::cpu
