#pragma once
/// The SVD (_linalg_svd, reduced factors) and the pseudo-inverse (linalg_pinv) on the device:
/// kernels/svd.cu, one thread per matrix in fp64 scratch, the reference executor's one-sided
/// Jacobi (exec/ops/linalg_util.h svdDecompose) step for step. For the small matrices Inductor
/// leaves to LAPACK; the device externs (device_externs_fallback.cpp) call these.
#include "codegen/cuda/device_ops.h"

#include <optional>
#include <string>

namespace fxray::cg::cuda {

/// The module's source (CI compiles it with NVRTC without a device).
Expected<std::string> svdSource();

/// True when the SVD kernels handle this dtype (fp32, fp64).
bool svdSupports(DType t);

/// A [.., m, n] into S (dense [.., k]) and, where given, U [.., m, k] and Vh [.., k, n] (any
/// strides whose batches sit m * k and k * n apart, as PyTorch lays them out), k = min(m, n).
Status svd(const DeviceView& A, const DeviceView& S, const std::optional<DeviceView>& U,
           const std::optional<DeviceView>& Vh);

/// pinv of A [.., m, n] into dense R [.., n, m]: singular values above max(atol, rtol * S_max)
/// inverted; atol / rtol (pinvTolerance) one value or one per batch matrix, rtol's default
/// eps * max(m, n) (0 where a positive atol is given).
/// Whether v serves as pinv's atol / rtol for `batches` matrices: dense fp32/fp64, one value or
/// one per matrix.
bool pinvTolerance(const DeviceView& v, int64_t batches);

Status pinv(const DeviceView& A, const std::optional<DeviceView>& atol, const std::optional<DeviceView>& rtol,
            const DeviceView& R);

}  // namespace fxray::cg::cuda
