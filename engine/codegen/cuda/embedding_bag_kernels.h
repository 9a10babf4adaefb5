#pragma once
/// Embedding bags on the device (kernels/embedding_bag.cu, a module of its own compiled by NVRTC
/// on first use): _embedding_bag and _embedding_bag_forward_only, the dense backward and the
/// per-sample weights' backward, as the CPU backend's extern (codegen/cpu/extern_embedding_bag.cpp)
/// computes them. fp32/fp64 tables; int64 or int32 indices, offsets and auxiliary outputs; the
/// device externs (device_externs_embedding_bag.cpp) check sizes before calling.
#include "codegen/cuda/device_ops.h"

#include <optional>
#include <string>

namespace fxray::cg::cuda {

/// The module's source (CI compiles it with NVRTC without a device).
Expected<std::string> embeddingBagSource();

/// True when the kernels handle tables of this dtype.
bool embeddingBagSupports(DType t);

/// The forward into dense out [bags, D] and, where given, offset2bag, bag_size and max_indices
/// (dense, one index dtype; each written where its size reaches, zero beyond). mode: 0 sum, 1
/// mean, 2 max.
/// lastAtOffset: the last bag ends at offsets[bags] (CPU's include_last_offset; offsets then
/// has bags + 1 entries), else at the end of the indices (CUDA's, with or without it).
Status embeddingBagForward(const DeviceView& weight, const DeviceView& indices, const DeviceView& offsets,
                           const std::optional<DeviceView>& perSampleWeights, int64_t mode, int64_t pad,
                           bool lastAtOffset, const DeviceView& out, const std::optional<DeviceView>& offset2bag,
                           const std::optional<DeviceView>& bagSize, const std::optional<DeviceView>& maxIndices);

/// The dense backward into grad_weight [rows, D] from grad [bags, D]; scaleByFreq divides each
/// row's gradient by how often the indices name it (counted on the device first).
Status embeddingBagBackward(const DeviceView& grad, const DeviceView& indices, const DeviceView& offsets,
                            const DeviceView& offset2bag, const DeviceView& bagSize, const DeviceView& maxIndices,
                            const std::optional<DeviceView>& perSampleWeights, int64_t mode, int64_t pad,
                            bool scaleByFreq, const DeviceView& gradWeight);

/// The per-sample weights' gradient [n] (sum mode).
Status embeddingBagPerSampleWeightsBackward(const DeviceView& grad, const DeviceView& weight, const DeviceView& indices,
                                            const DeviceView& offsets, const DeviceView& offset2bag, int64_t pad,
                                            const DeviceView& out);

}  // namespace fxray::cg::cuda
