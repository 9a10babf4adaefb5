#pragma once
/// Scalar types, devices, layouts and memory formats as PyTorch names them.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fxray {

/// Element types. Order matters only for the tables in dtype.cpp.
enum class DType : uint8_t {
    Bool,
    UInt8,
    Int8,
    Int16,
    Int32,
    Int64,
    Float16,
    BFloat16,
    Float32,
    Float64,
    Complex64,
    Complex128,
};

/// "f32", the abbreviation used in FX annotations.
std::string_view dtypeAbbrev(DType t);
/// "torch.float32", as printed in FX arguments.
std::string_view dtypeTorchName(DType t);
/// Bytes per element.
int dtypeItemSize(DType t);
bool isFloating(DType t);
bool isIntegral(DType t, bool includeBool = false);
bool isComplex(DType t);
/// float16 or bfloat16: the storage types kernels load and store while computing in fp32.
bool isHalfFloat(DType t);
/// Parses an annotation abbreviation ("f32", "b8", ...).
std::optional<DType> dtypeFromAbbrev(std::string_view s);
/// Parses "torch.float32" or "float32" (also aliases like "torch.float", "torch.half", "torch.long").
std::optional<DType> dtypeFromTorchName(std::string_view s);
/// The torch.export serialized ScalarType enum value (FLOAT=7, ...).
std::optional<DType> dtypeFromExportEnum(int v);
/// numpy descr such as "<f4", "|b1".
std::string_view dtypeNumpyDescr(DType t);
std::optional<DType> dtypeFromNumpyDescr(std::string_view s);

/// torch.layout.
enum class Layout : uint8_t { Strided, SparseCoo };
/// torch.memory_format.
enum class MemoryFormat : uint8_t { Contiguous, Preserve, ChannelsLast, ChannelsLast3d };
std::string_view layoutTorchName(Layout l);
std::string_view memoryFormatTorchName(MemoryFormat m);
std::optional<Layout> layoutFromTorchName(std::string_view s);
std::optional<MemoryFormat> memoryFormatFromTorchName(std::string_view s);

/// A device such as cpu, cuda:0. `index` is -1 when unspecified.
struct Device {
    std::string type = "cpu";
    int index = -1;
    /// "cuda:0" / "cpu" (annotation form).
    std::string str() const;
    /// "device(type='cuda', index=0)" (argument form).
    std::string repr() const;
    bool operator==(const Device&) const = default;
};
/// Parses "cuda:0", "cpu", "meta".
std::optional<Device> parseDevice(std::string_view s);

}  // namespace fxray
