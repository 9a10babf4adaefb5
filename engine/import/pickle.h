#pragma once
/// A restricted pickle reader for the pickles inside PyTorch files (`data.pkl` of `torch.save`).
///
/// This is not Python's unpickler: it never imports or calls anything. It interprets the opcodes
/// PyTorch's state dicts use and recognises a fixed list of globals (tensor rebuild functions,
/// storage classes, OrderedDict, dtypes), building plain data from them. Any other global —
/// `os.system`, `builtins.eval`, ... — is refused with a Diagnostic at its byte offset before
/// anything else happens. Memo, stack, object count and nesting depth are capped.
#include "ir/tensor_meta.h"
#include "support/diagnostic.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fxray {

/// One unpickled value. Owned by its PickleResult's arena; children are plain pointers into the
/// same arena, so cycles and deep nesting cannot make destruction recurse.
struct PickleValue {
    enum class Kind : uint8_t {
        None,
        Bool,
        Int,
        Float,
        String,
        Bytes,
        Tuple,
        List,
        Dict,
        Set,
        Global,       ///< an allowed global not (yet) called: `s` is "module.name"
        DType,        ///< torch.float32 and friends
        Storage,      ///< a persistent-id storage reference
        Tensor,       ///< result of _rebuild_tensor_v2 / _rebuild_parameter
        GraphModule,  ///< result of torch.fx.graph_module.reduce_graph_module (opt-in)
    };
    Kind kind = Kind::None;
    bool b = false;
    int64_t i = 0;
    double f = 0.0;
    std::string s;                    ///< String/Bytes contents; Global name; Storage key
    std::vector<PickleValue*> items;  ///< Tuple/List/Set; GraphModule: [attribute dict, import block]
    std::vector<std::pair<PickleValue*, PickleValue*>> entries;  ///< Dict in insertion order
    DType dtype = DType::Float32;                                ///< DType, Storage, Tensor
    // Storage: s = key, location, numel (elements of dtype).
    std::string location;
    int64_t numel = 0;
    // Tensor: storage, metadata (sizes, strides, offset; device from the storage location).
    PickleValue* storage = nullptr;
    TensorMeta meta;
    bool requiresGrad = false;

    bool isSequence() const { return kind == Kind::Tuple || kind == Kind::List; }
    /// Dict entry with a string key, or null.
    const PickleValue* get(std::string_view key) const;
};

/// What the reader accepts beyond tensor data.
struct PickleOptions {
    /// Also accept `torch.fx.graph_module.reduce_graph_module` and `builtins.set` (what
    /// to_folder's `torch.save(GraphModule)` files contain). The module is recorded as data
    /// (its attribute dict, including `_code`), never rebuilt.
    bool allowGraphModule = false;
    size_t maxObjects = size_t(1) << 22;
    size_t maxMemo = size_t(1) << 22;
    size_t maxStack = size_t(1) << 22;
    size_t maxDepth = 256;  ///< nesting of containers in the result
};

/// The unpickled root and the arena that owns every value.
struct PickleResult {
    const PickleValue* root = nullptr;
    /// Every value, in creation order (tensors and storages can be found by scanning).
    std::vector<std::unique_ptr<PickleValue>> arena;
};

/// Interprets pickle bytes. `what` names the source ("model.pt:archive/data.pkl") in messages;
/// every error message carries the byte offset of the opcode at fault.
Expected<PickleResult> unpickle(std::string_view bytes, const std::string& what, const PickleOptions& opts = {});

/// Maps a storage class name ("FloatStorage", "torch.BFloat16Storage") to its dtype.
std::optional<DType> dtypeFromStorageClass(std::string_view name);

}  // namespace fxray
