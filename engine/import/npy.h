#pragma once
/// NumPy .npy files (format 1.0/2.0/3.0, little-endian, C order) to and from Tensors.
#include "ir/tensor_meta.h"
#include "support/diagnostic.h"

#include <filesystem>
#include <string>

namespace fxray {

/// Reads a .npy file. Fortran order, big-endian data and object arrays are refused with a
/// message naming the file and the header offset.
Expected<Tensor> readNpy(const std::filesystem::path& path);
/// Parses .npy bytes (`what` names the source in messages).
Expected<Tensor> parseNpy(std::string_view bytes, const std::string& what);
/// Writes a tensor (any strides) as a C-order .npy file. bf16 is written as f32 (numpy has none).
Status writeNpy(const std::filesystem::path& path, const Tensor& t);

} // namespace fxray
