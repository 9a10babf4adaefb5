#include "ir/dtype.h"

#include <array>
#include <charconv>

namespace fxray {
namespace {

struct DTypeInfo {
    DType t;
    const char* abbrev;
    const char* torch;
    int size;
    const char* numpy;
};

constexpr std::array<DTypeInfo, 12> kInfo{{
    {DType::Bool, "b8", "torch.bool", 1, "|b1"},
    {DType::UInt8, "u8", "torch.uint8", 1, "|u1"},
    {DType::Int8, "i8", "torch.int8", 1, "|i1"},
    {DType::Int16, "i16", "torch.int16", 2, "<i2"},
    {DType::Int32, "i32", "torch.int32", 4, "<i4"},
    {DType::Int64, "i64", "torch.int64", 8, "<i8"},
    {DType::Float16, "f16", "torch.float16", 2, "<f2"},
    {DType::BFloat16, "bf16", "torch.bfloat16", 2, "<V2"},
    {DType::Float32, "f32", "torch.float32", 4, "<f4"},
    {DType::Float64, "f64", "torch.float64", 8, "<f8"},
    {DType::Complex64, "c64", "torch.complex64", 8, "<c8"},
    {DType::Complex128, "c128", "torch.complex128", 16, "<c16"},
}};

const DTypeInfo& info(DType t) { return kInfo[static_cast<size_t>(t)]; }

}  // namespace

std::string_view dtypeAbbrev(DType t) { return info(t).abbrev; }
std::string_view dtypeTorchName(DType t) { return info(t).torch; }
int dtypeItemSize(DType t) { return info(t).size; }
std::string_view dtypeNumpyDescr(DType t) { return info(t).numpy; }

bool isFloating(DType t) {
    return t == DType::Float16 || t == DType::BFloat16 || t == DType::Float32 || t == DType::Float64;
}
bool isIntegral(DType t, bool includeBool) {
    switch (t) {
    case DType::Bool: return includeBool;
    case DType::UInt8:
    case DType::Int8:
    case DType::Int16:
    case DType::Int32:
    case DType::Int64: return true;
    default: return false;
    }
}
bool isComplex(DType t) { return t == DType::Complex64 || t == DType::Complex128; }
bool isHalfFloat(DType t) { return t == DType::Float16 || t == DType::BFloat16; }

std::optional<DType> dtypeFromAbbrev(std::string_view s) {
    for (const auto& i : kInfo)
        if (s == i.abbrev) return i.t;
    return std::nullopt;
}

std::optional<DType> dtypeFromTorchName(std::string_view s) {
    if (s.substr(0, 6) == "torch.") s.remove_prefix(6);
    for (const auto& i : kInfo)
        if (s == std::string_view(i.torch).substr(6)) return i.t;
    if (s == "float") return DType::Float32;
    if (s == "double") return DType::Float64;
    if (s == "half") return DType::Float16;
    if (s == "long") return DType::Int64;
    if (s == "int") return DType::Int32;
    if (s == "short") return DType::Int16;
    if (s == "cfloat") return DType::Complex64;
    return std::nullopt;
}

std::optional<DType> dtypeFromExportEnum(int v) {
    // torch/_export/serde/schema.py ScalarType
    switch (v) {
    case 1: return DType::UInt8;
    case 2: return DType::Int8;
    case 3: return DType::Int16;
    case 4: return DType::Int32;
    case 5: return DType::Int64;
    case 6: return DType::Float16;
    case 7: return DType::Float32;
    case 8: return DType::Float64;
    case 10: return DType::Complex64;
    case 11: return DType::Complex128;
    case 12: return DType::Bool;
    case 13: return DType::BFloat16;
    default: return std::nullopt;
    }
}

std::optional<DType> dtypeFromNumpyDescr(std::string_view s) {
    for (const auto& i : kInfo)
        if (s == i.numpy) return i.t;
    if (s == "<b1" || s == "b1") return DType::Bool;
    if (s == "<u1" || s == "u1") return DType::UInt8;
    if (s == "<i1" || s == "i1") return DType::Int8;
    return std::nullopt;
}

std::string_view layoutTorchName(Layout l) { return l == Layout::Strided ? "torch.strided" : "torch.sparse_coo"; }
std::string_view memoryFormatTorchName(MemoryFormat m) {
    switch (m) {
    case MemoryFormat::Contiguous: return "torch.contiguous_format";
    case MemoryFormat::Preserve: return "torch.preserve_format";
    case MemoryFormat::ChannelsLast: return "torch.channels_last";
    case MemoryFormat::ChannelsLast3d: return "torch.channels_last_3d";
    }
    return "torch.contiguous_format";
}
std::optional<Layout> layoutFromTorchName(std::string_view s) {
    if (s == "torch.strided") return Layout::Strided;
    if (s == "torch.sparse_coo") return Layout::SparseCoo;
    return std::nullopt;
}
std::optional<MemoryFormat> memoryFormatFromTorchName(std::string_view s) {
    for (auto m :
         {MemoryFormat::Contiguous, MemoryFormat::Preserve, MemoryFormat::ChannelsLast, MemoryFormat::ChannelsLast3d})
        if (s == memoryFormatTorchName(m)) return m;
    return std::nullopt;
}

std::string Device::str() const { return index >= 0 ? type + ":" + std::to_string(index) : type; }
std::string Device::repr() const {
    if (index >= 0) return "device(type='" + type + "', index=" + std::to_string(index) + ")";
    return "device(type='" + type + "')";
}

std::optional<Device> parseDevice(std::string_view s) {
    Device d;
    auto colon = s.find(':');
    d.type = std::string(s.substr(0, colon));
    if (d.type.empty()) return std::nullopt;
    for (char c : d.type)
        if (!(c >= 'a' && c <= 'z') && c != '_') return std::nullopt;
    if (colon != std::string_view::npos) {
        auto rest = s.substr(colon + 1);
        auto [p, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), d.index);
        if (ec != std::errc() || p != rest.data() + rest.size()) return std::nullopt;
    }
    return d;
}

}  // namespace fxray
