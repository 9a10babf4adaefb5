#pragma once
/// NumPy .npy files (format 1.0/2.0/3.0, little-endian, C order) to and from Tensors.
#include "ir/value.h"
#include "support/diagnostic.h"

#include <filesystem>
#include <string>
#include <vector>

namespace fxray {

/// Reads a .npy file. Fortran order, big-endian data and object arrays are refused with a
/// message naming the file and the header offset.
Expected<Tensor> readNpy(const std::filesystem::path& path);
/// Parses .npy bytes (`what` names the source in messages).
Expected<Tensor> parseNpy(std::string_view bytes, const std::string& what);
/// The .npy bytes of t (any strides, written in C order; bfloat16, which numpy lacks, as f32).
std::string encodeNpy(const Tensor& t);
/// Writes encodeNpy(t) to a file.
Status writeNpy(const std::filesystem::path& path, const Tensor& t);
/// Reads `DIR/NNN.npy` for i in [0, count); a missing file gives None (PyTorch wrote none for
/// None outputs). Fails when the folder is missing.
Expected<std::vector<Value>> readNpyFolder(const std::filesystem::path& dir, size_t count);

}  // namespace fxray
