#pragma once
/// Pieces shared by the pooling files (pooling.cpp, pooling_indexed.cpp): a pooling geometry
/// padded to three spatial dims, PyTorch's max scan, and the scatter of gradients through
/// max-pool indices.
#include "exec/ops/kernel_util.h"
#include "exec/ops/nn_util.h"

#include <array>
#include <cmath>
#include <string>
#include <vector>

namespace fxray::nn {

/// A pooling op's geometry over `planes` independent planes (N*C, or C unbatched). Spatial
/// dims are right-aligned in three slots; unused leading slots are 1.
struct PoolGeom {
    int64_t nsp = 3;  ///< spatial dims of the op (1 to 3)
    int64_t planes = 0;
    std::array<int64_t, 3> in{1, 1, 1}, out{1, 1, 1}, k{1, 1, 1}, s{1, 1, 1}, p{0, 0, 0}, d{1, 1, 1};
    int64_t inSize() const { return in[0] * in[1] * in[2]; }
    int64_t outSize() const { return out[0] * out[1] * out[2]; }
};

/// ATen's max scan: a value replaces the current maximum when greater or NaN, so the first of
/// equal maxima wins and a NaN propagates (the last NaN's index is kept).
struct Arg {
    double value;
    int64_t index;
    void offer(double v, int64_t i) {
        if (v > value || std::isnan(v)) {
            value = v;
            index = i;
        }
    }
};

/// grad_input (meta `gi`) = zeros, plus each grad element added at the flat position within its
/// plane that `idx` names. The planes are the leading dims; the last `nsp` dims are spatial.
inline Expected<Value> scatterPlanes(const OpArgs& a, const TensorMeta& gi, const std::vector<double>& grad,
                                     const std::vector<double>& idx, int64_t nsp) {
    const size_t nd = gi.shape.size();
    if (static_cast<int64_t>(nd) < nsp)
        return kern::opError(a, "self has fewer dims than the pooling op's spatial dims");
    const int64_t plane = spanProduct(gi.shape, nd - static_cast<size_t>(nsp), nd);
    const int64_t planes = spanProduct(gi.shape, 0, nd - static_cast<size_t>(nsp));
    if (grad.size() != idx.size() || (planes > 0 && grad.size() % static_cast<size_t>(planes) != 0))
        return kern::opError(a, "grad_output and indices do not match the input's planes");
    const int64_t per = planes > 0 ? static_cast<int64_t>(grad.size()) / planes : 0;
    std::vector<double> out(static_cast<size_t>(planes * plane), 0.0);
    for (int64_t pl = 0; pl < planes; ++pl)
        for (int64_t o = 0; o < per; ++o) {
            const double iv = idx[static_cast<size_t>(pl * per + o)];
            const int64_t i = static_cast<int64_t>(iv);
            if (i < 0 || i >= plane)
                return kern::opError(a, "index " + std::to_string(i) + " is out of bounds of the input plane of " +
                                            std::to_string(plane) + " elements");
            out[static_cast<size_t>(pl * plane + i)] += grad[static_cast<size_t>(pl * per + o)];
        }
    return Value::ofTensor(kern::makeTensor(gi, out));
}

}  // namespace fxray::nn
