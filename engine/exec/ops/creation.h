#pragma once
/// Shared by the factory ops' reference kernels (creation.cpp) and their lowerings.
#include <cstdint>

namespace fxray {

/// Elements in row i of tril_indices (lower) / triu_indices of a matrix with col columns whose
/// diagonal is moved by offset: tril's run from column 0, triu's end at the last column.
int64_t triRowCount(int64_t i, int64_t col, int64_t offset, bool lower);

}  // namespace fxray
