#pragma once
/// The padding of the Dynamo-stage convolutions (conv1d/conv2d/conv3d, `.default` and `.padding`),
/// shared by the CPU and CUDA externs that run them as aten.convolution.
#include "ir/op_registry.h"

#include <optional>
#include <string>
#include <vector>

namespace fxray::cg {

/// convNd(input, weight, bias, stride, padding, dilation, groups): padding as a list of ints, or
/// for the `.padding` overloads a name: "valid" is none; "same" (stride 1) pads d * (k - 1) / 2
/// on both sides where that total is even. An odd total (PyTorch pads the right side one more,
/// by an explicit pad first) and anything else give nullopt: the caller declines.
inline std::optional<std::vector<int64_t>> compositeConvPadding(const OpArgs& a, size_t spatialDims) {
    const Value& pad = a[4];
    if (pad.isList()) return a.toIntList(4);
    if (pad.kind != Value::Kind::String || !a.isTensor(1) || a.tensor(1).dim() != static_cast<int64_t>(spatialDims) + 2)
        return std::nullopt;
    const std::string& mode = pad.s;
    if (mode != "valid" && mode != "same") return std::nullopt;
    const auto dil = a.toIntList(5), stride = a.toIntList(3);
    for (int64_t s : stride)
        if (mode == "same" && s != 1) return std::nullopt;
    std::vector<int64_t> r;
    for (size_t i = 0; i < spatialDims; ++i) {
        const int64_t k = a.tensor(1).shape()[2 + i];
        const int64_t d = dil.empty() ? 1 : dil.size() == 1 ? dil[0] : dil[i];
        const int64_t total = mode == "valid" ? 0 : d * (k - 1);
        if (total % 2 != 0) return std::nullopt;
        r.push_back(total / 2);
    }
    return r;
}

}  // namespace fxray::cg
