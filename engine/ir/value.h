#pragma once
/// Value: what flows between nodes at run time (and, with meta-only tensors, during inference).
#include "ir/argument.h"
#include "ir/tensor_meta.h"

#include <cstdint>
#include <string>
#include <vector>

namespace fxray {

class Graph;

/// A run-time value: a tensor, a Python scalar, a list/tuple of values, or a type-like literal.
/// Tensors without storage are meta tensors (shape inference runs kernels' meta functions on
/// those).
struct Value {
    enum class Kind : uint8_t {
        None,
        Bool,
        Int,
        Double,
        String,
        Tensor,
        List,
        DType,
        Device,
        Layout,
        MemoryFormat,
        Slice,
        Graph,
        Ellipsis,
    };
    Kind kind = Kind::None;
    bool b = false;
    int64_t i = 0;
    double d = 0.0;
    std::string s;
    Tensor t;
    std::vector<Value> list;  ///< List/Tuple elements; Slice: start, stop, step
    bool isTuple = false;
    DType dtype = DType::Float32;
    Device device;
    Layout layout = Layout::Strided;
    MemoryFormat memoryFormat = MemoryFormat::Contiguous;
    const fxray::Graph* graph = nullptr;

    static Value none() { return {}; }
    static Value ofBool(bool v) {
        Value x;
        x.kind = Kind::Bool;
        x.b = v;
        return x;
    }
    static Value ofInt(int64_t v) {
        Value x;
        x.kind = Kind::Int;
        x.i = v;
        return x;
    }
    static Value ofDouble(double v) {
        Value x;
        x.kind = Kind::Double;
        x.d = v;
        return x;
    }
    static Value ofTensor(Tensor v) {
        Value x;
        x.kind = Kind::Tensor;
        x.t = std::move(v);
        return x;
    }
    static Value ofList(std::vector<Value> v, bool tuple = false) {
        Value x;
        x.kind = Kind::List;
        x.list = std::move(v);
        x.isTuple = tuple;
        return x;
    }
    static Value ofTensors(std::vector<Tensor> ts, bool tuple = true) {
        std::vector<Value> v;
        v.reserve(ts.size());
        for (auto& t : ts) v.push_back(ofTensor(std::move(t)));
        return ofList(std::move(v), tuple);
    }
    static Value ofDType(DType t) {
        Value x;
        x.kind = Kind::DType;
        x.dtype = t;
        return x;
    }

    bool isNone() const { return kind == Kind::None; }
    bool isTensor() const { return kind == Kind::Tensor; }
    bool isList() const { return kind == Kind::List; }
    /// Python number (bool, int or float).
    bool isNumber() const { return kind == Kind::Bool || kind == Kind::Int || kind == Kind::Double; }
    double toDouble() const { return kind == Kind::Double ? d : kind == Kind::Int ? double(i) : double(b); }
    /// Short description for messages: "Tensor f32[2, 3]", "int 3", "list of 2".
    std::string describe() const;
};

}  // namespace fxray
