#pragma once
/// Node arguments: the Python literals and node references that appear in FX code.
#include "ir/dtype.h"

#include <cstdint>
#include <string>
#include <vector>

namespace fxray {

class Node;

/// One argument of a node. A small tagged struct rather than std::variant because it nests
/// (lists, tuples and slices hold Arguments) and passes inspect it by kind constantly.
struct Argument {
    enum class Kind : uint8_t {
        None,
        Bool,
        Int,
        Float,
        String,
        NodeRef,
        List,
        Tuple,
        DType,
        Device,
        Layout,
        MemoryFormat,
        Sym,
        Slice,
        Ellipsis,
    };
    Kind kind = Kind::None;
    bool b = false;
    int64_t i = 0;
    double f = 0.0;
    std::string s;                ///< String contents, or a symbolic size expression (Sym)
    Node* node = nullptr;         ///< NodeRef
    std::vector<Argument> items;  ///< List / Tuple elements; Slice: start, stop, step
    DType dtype = DType::Float32;
    Device device;
    Layout layout = Layout::Strided;
    MemoryFormat memoryFormat = MemoryFormat::Contiguous;

    static Argument none() { return {}; }
    static Argument ofBool(bool v) {
        Argument a;
        a.kind = Kind::Bool;
        a.b = v;
        return a;
    }
    static Argument ofInt(int64_t v) {
        Argument a;
        a.kind = Kind::Int;
        a.i = v;
        return a;
    }
    static Argument ofFloat(double v) {
        Argument a;
        a.kind = Kind::Float;
        a.f = v;
        return a;
    }
    static Argument ofString(std::string v) {
        Argument a;
        a.kind = Kind::String;
        a.s = std::move(v);
        return a;
    }
    static Argument ofNode(Node* n) {
        Argument a;
        a.kind = Kind::NodeRef;
        a.node = n;
        return a;
    }
    static Argument ofList(std::vector<Argument> v, bool tuple = false) {
        Argument a;
        a.kind = tuple ? Kind::Tuple : Kind::List;
        a.items = std::move(v);
        return a;
    }
    static Argument ofDType(DType t) {
        Argument a;
        a.kind = Kind::DType;
        a.dtype = t;
        return a;
    }
    static Argument ofDevice(Device d) {
        Argument a;
        a.kind = Kind::Device;
        a.device = std::move(d);
        return a;
    }
    static Argument ofLayout(Layout l) {
        Argument a;
        a.kind = Kind::Layout;
        a.layout = l;
        return a;
    }
    static Argument ofMemoryFormat(MemoryFormat m) {
        Argument a;
        a.kind = Kind::MemoryFormat;
        a.memoryFormat = m;
        return a;
    }
    static Argument ofSym(std::string expr) {
        Argument a;
        a.kind = Kind::Sym;
        a.s = std::move(expr);
        return a;
    }

    bool isNone() const { return kind == Kind::None; }
    bool isNode() const { return kind == Kind::NodeRef; }
    bool isSequence() const { return kind == Kind::List || kind == Kind::Tuple; }
    bool isNumber() const { return kind == Kind::Int || kind == Kind::Float || kind == Kind::Bool; }

    /// Python source form: `[1, 2]`, `torch.float32`, `device(type='cuda', index=0)`, a node's
    /// name, ... — exactly as FX's code generator prints it.
    std::string repr() const;
    /// Calls f on every node referenced, recursively.
    template <typename F>
    void forEachNode(F&& f) const {
        if (kind == Kind::NodeRef) f(node);
        for (const auto& it : items) it.forEachNode(f);
    }
    /// Structural equality; node references compare by name.
    bool sameAs(const Argument& o) const;
};

/// Python's repr() of a float: shortest round-trip digits, `inf`, `nan`, `1e-05`, `2.0`.
std::string pyFloatRepr(double v);
/// Python's repr() of a str, single-quoted.
std::string pyStringRepr(const std::string& s);

}  // namespace fxray
