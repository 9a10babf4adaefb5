#pragma once
/// The pairwise-distance gradient, shared by the reference kernel (exec/ops/distance.cpp) and the
/// CPU backend's extern kernel (codegen/cpu/extern_backward_ops.cpp), so that both compute it one
/// way: ATen's per-pair formula for each p.
#include "ir/dtype.h"

#include <cstdint>
#include <vector>

namespace fxray {

/// _pdist_backward on row-major doubles: x is [n, m], grad and dist hold one value per pair
/// (i, j), i < j, in row-major order of the upper triangle. Pair k adds d dist_k / d x_i to row i
/// and its negation to row j. `inputDType` is x's dtype: the max-norm's gradient goes where |diff|
/// equals the distance, compared in that precision as ATen does (a double difference would miss
/// every tie). Returns the [n, m] gradient.
std::vector<double> pdistBackwardValues(const std::vector<double>& x, const std::vector<double>& grad,
                                        const std::vector<double>& dist, int64_t n, int64_t m, double p,
                                        DType inputDType);

/// One term of d dist / d x1 for a pair of rows (pdist and cdist): diff = x1 - x2 in one column,
/// g the pair's incoming gradient, d its distance, p the norm (ATen's formula for each p).
double distanceGradTerm(double diff, double g, double d, double p, DType inputDType);

}  // namespace fxray
