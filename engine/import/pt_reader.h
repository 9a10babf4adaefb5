#pragma once
/// Reader for `torch.save` files (`.pt`): a zip archive with `<root>/data.pkl` (pickle protocol
/// 2), raw storages under `<root>/data/<key>`, `<root>/version` and `<root>/byteorder`.
///
/// The pickle is read by the restricted reader in pickle.h, so only tensor data and plain
/// containers come out; nothing in the file is executed.
#include "import/pickle.h"
#include "import/zip_archive.h"
#include "ir/tensor_meta.h"

#include <filesystem>
#include <string>
#include <unordered_map>
#include <vector>

namespace fxray {

/// One named tensor of a state dict.
struct NamedTensor {
    std::string name;
    Tensor tensor;
};
/// A state dict in file order.
using StateDict = std::vector<NamedTensor>;

/// An unpickled `torch.save` file whose tensors have their data loaded.
struct PtContents {
    std::string what;  ///< "file.pt" or "outer.pt2:inner.pt", for messages
    PickleResult pickle;
    /// Data of every tensor value of the pickle (views of one storage share it).
    std::unordered_map<const PickleValue*, Tensor> tensors;
    const PickleValue* root() const { return pickle.root; }
    /// The tensor of a Tensor value, or null.
    const Tensor* tensorOf(const PickleValue* v) const;
};

/// Reads the `torch.save` archive rooted at `root` inside `zip` ("" = find the folder holding
/// `data.pkl`). Storages are read lazily per key and shared between tensors.
Expected<PtContents> readPtContents(const ZipArchive& zip, std::string root = {}, const PickleOptions& opts = {});
/// Opens a `.pt` file and reads it (a Diagnostic for legacy non-zip files).
Expected<PtContents> readPtContentsFile(const std::filesystem::path& path, const PickleOptions& opts = {});

/// Tensors of `v` with dotted names: dict keys, sequence indices ("0.1"); a lone tensor is
/// named "tensor". Non-tensor leaves are skipped.
StateDict flattenTensors(const PtContents& pt, const PickleValue* v);

/// Reads a `.pt` state dict (or any container of tensors: tuples/lists at top level give
/// names "0", "1", ...).
Expected<StateDict> readPt(const std::filesystem::path& path);
/// The same, from an open archive (`root` as for readPtContents).
Expected<StateDict> readPtArchive(const ZipArchive& zip, std::string root = {});

}  // namespace fxray
