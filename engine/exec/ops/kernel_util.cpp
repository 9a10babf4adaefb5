#include "exec/ops/kernel_util.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

namespace fxray::kern {

Diagnostic opError(const OpArgs& a, std::string message) {
    return makeError(a.op().qualname + ": " + std::move(message));
}

std::string shapeStr(const std::vector<int64_t>& s) {
    std::string r = "[";
    for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
    return r + "]";
}

// ----- element conversion --------------------------------------------------------------------

float halfToFloat(uint16_t h) {
    uint32_t sign = (h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1f;
    uint32_t man = h & 0x3ff;
    uint32_t bits;
    if (exp == 0) {
        if (man == 0) {
            bits = sign;
        } else {  // subnormal: normalise
            int e = -1;
            do {
                ++e;
                man <<= 1;
            } while (!(man & 0x400));
            bits = sign | ((127 - 15 - e) << 23) | ((man & 0x3ff) << 13);
        }
    } else if (exp == 31) {
        bits = sign | 0x7f800000u | (man << 13);
    } else {
        bits = sign | ((exp + 127 - 15) << 23) | (man << 13);
    }
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

uint16_t floatToHalf(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t absx = x & 0x7fffffffu;
    if (absx >= 0x7f800000u) return static_cast<uint16_t>(sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u : 0));
    if (absx >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow -> inf
    if (absx < 0x38800000u) {                                               // subnormal or zero in half
        float af;
        std::memcpy(&af, &absx, 4);
        // Scale so that the half subnormal unit becomes 1, round to nearest even.
        float scaled = af * 16777216.0f;  // 2^24
        uint32_t m = static_cast<uint32_t>(std::nearbyint(scaled));
        return static_cast<uint16_t>(sign | m);
    }
    uint32_t exp = ((absx >> 23) - 127 + 15);
    uint32_t man = absx & 0x7fffffu;
    uint32_t half = (exp << 10) | (man >> 13);
    uint32_t rest = man & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;
    return static_cast<uint16_t>(sign | half);
}

float bf16ToFloat(uint16_t h) {
    uint32_t bits = static_cast<uint32_t>(h) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

uint16_t floatToBf16(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40);
    uint32_t lsb = (x >> 16) & 1u;
    x += 0x7fffu + lsb;
    return static_cast<uint16_t>(x >> 16);
}

double readElem(const std::byte* p, DType t) {
    switch (t) {
    case DType::Bool: return *reinterpret_cast<const uint8_t*>(p) ? 1.0 : 0.0;
    case DType::UInt8: return *reinterpret_cast<const uint8_t*>(p);
    case DType::Int8: return *reinterpret_cast<const int8_t*>(p);
    case DType::Int16: return *reinterpret_cast<const int16_t*>(p);
    case DType::Int32: return *reinterpret_cast<const int32_t*>(p);
    case DType::Int64: return static_cast<double>(*reinterpret_cast<const int64_t*>(p));
    case DType::Float16: return halfToFloat(*reinterpret_cast<const uint16_t*>(p));
    case DType::BFloat16: return bf16ToFloat(*reinterpret_cast<const uint16_t*>(p));
    case DType::Float32: return *reinterpret_cast<const float*>(p);
    case DType::Float64: return *reinterpret_cast<const double*>(p);
    case DType::Complex64: return *reinterpret_cast<const float*>(p);  // real part only
    case DType::Complex128: return *reinterpret_cast<const double*>(p);
    }
    return 0.0;
}

namespace {
template <typename I>
I truncTo(double v) {
    if (std::isnan(v)) return 0;
    return static_cast<I>(static_cast<int64_t>(v));
}
}  // namespace

void writeElem(std::byte* p, DType t, double v) {
    switch (t) {
    case DType::Bool: *reinterpret_cast<uint8_t*>(p) = v != 0.0; break;
    case DType::UInt8: *reinterpret_cast<uint8_t*>(p) = truncTo<uint8_t>(v); break;
    case DType::Int8: *reinterpret_cast<int8_t*>(p) = truncTo<int8_t>(v); break;
    case DType::Int16: *reinterpret_cast<int16_t*>(p) = truncTo<int16_t>(v); break;
    case DType::Int32: *reinterpret_cast<int32_t*>(p) = truncTo<int32_t>(v); break;
    case DType::Int64: *reinterpret_cast<int64_t*>(p) = truncTo<int64_t>(v); break;
    case DType::Float16: *reinterpret_cast<uint16_t*>(p) = floatToHalf(static_cast<float>(v)); break;
    case DType::BFloat16: *reinterpret_cast<uint16_t*>(p) = floatToBf16(static_cast<float>(v)); break;
    case DType::Float32: *reinterpret_cast<float*>(p) = static_cast<float>(v); break;
    case DType::Float64: *reinterpret_cast<double*>(p) = v; break;
    case DType::Complex64:
        reinterpret_cast<float*>(p)[0] = static_cast<float>(v);
        reinterpret_cast<float*>(p)[1] = 0;
        break;
    case DType::Complex128:
        reinterpret_cast<double*>(p)[0] = v;
        reinterpret_cast<double*>(p)[1] = 0;
        break;
    }
}

double roundTo(double v, DType t) {
    std::byte buf[16];
    writeElem(buf, t, v);
    return readElem(buf, t);
}

namespace {

/// Visits every element offset (in elements) of a strided layout in row-major logical order.
template <typename F>
void forEachOffset(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides, int64_t base, F&& f) {
    const size_t nd = shape.size();
    int64_t n = product(shape);
    if (n == 0) return;
    if (nd == 0) {
        f(base);
        return;
    }
    std::vector<int64_t> idx(nd, 0);
    int64_t off = base;
    const int64_t inner = shape[nd - 1], innerStride = strides[nd - 1];
    for (int64_t done = 0; done < n; done += inner) {
        for (int64_t k = 0; k < inner; ++k) f(off + k * innerStride);
        // advance the outer index
        for (int64_t d = static_cast<int64_t>(nd) - 2; d >= 0; --d) {
            if (++idx[d] < shape[d]) {
                off += strides[d];
                break;
            }
            off -= strides[d] * (shape[d] - 1);
            idx[d] = 0;
        }
    }
}

template <typename T, typename Conv>
void gather(const Tensor& t, std::vector<double>& out, Conv conv) {
    const T* base = reinterpret_cast<const T*>(t.storage->data());
    size_t k = 0;
    forEachOffset(t.meta.shape, t.meta.strides, t.meta.offset, [&](int64_t off) { out[k++] = conv(base[off]); });
}

}  // namespace

std::vector<double> toDoubles(const Tensor& t) {
    std::vector<double> out(static_cast<size_t>(t.numel()));
    if (out.empty()) return out;
    switch (t.dtype()) {
    case DType::Float32: gather<float>(t, out, [](float v) { return double(v); }); break;
    case DType::Float64: gather<double>(t, out, [](double v) { return v; }); break;
    case DType::Int64: gather<int64_t>(t, out, [](int64_t v) { return double(v); }); break;
    case DType::Float16: gather<uint16_t>(t, out, [](uint16_t v) { return double(halfToFloat(v)); }); break;
    case DType::BFloat16: gather<uint16_t>(t, out, [](uint16_t v) { return double(bf16ToFloat(v)); }); break;
    default: {
        const int sz = dtypeItemSize(t.dtype());
        const std::byte* base = t.storage->data();
        size_t k = 0;
        forEachOffset(t.meta.shape, t.meta.strides, t.meta.offset,
                      [&](int64_t off) { out[k++] = readElem(base + off * sz, t.dtype()); });
    }
    }
    return out;
}

std::vector<double> toDoublesBroadcast(const Tensor& t, const std::vector<int64_t>& shape) {
    if (t.shape() == shape) return toDoubles(t);
    // A broadcast view: size-1 (or missing) dims get stride 0.
    Tensor v = t;
    const size_t nd = shape.size(), td = t.shape().size();
    v.meta.shape = shape;
    v.meta.strides.assign(nd, 0);
    for (size_t i = 0; i < td; ++i) {
        size_t o = nd - td + i;
        if (t.shape()[i] != 1) v.meta.strides[o] = t.strides()[i];
    }
    return toDoubles(v);
}

void fromDoubles(Tensor& t, const std::vector<double>& values) {
    const int sz = dtypeItemSize(t.dtype());
    std::byte* base = t.storage->data();
    size_t k = 0;
    const DType dt = t.dtype();
    if (dt == DType::Float32) {
        float* fb = reinterpret_cast<float*>(base);
        forEachOffset(t.meta.shape, t.meta.strides, t.meta.offset,
                      [&](int64_t off) { fb[off] = static_cast<float>(values[k++]); });
        return;
    }
    forEachOffset(t.meta.shape, t.meta.strides, t.meta.offset,
                  [&](int64_t off) { writeElem(base + off * sz, dt, values[k++]); });
}

Tensor makeTensor(const TensorMeta& m, const std::vector<double>& values) {
    Tensor t = Tensor::emptyLike(m);
    fromDoubles(t, values);
    return t;
}

// ----- shapes --------------------------------------------------------------------------------

std::optional<int64_t> wrapDim(int64_t dim, int64_t ndim) {
    int64_t n = ndim == 0 ? 1 : ndim;  // scalars accept dim 0 / -1
    if (dim < -n || dim >= n) return std::nullopt;
    return dim < 0 ? dim + n : dim;
}

std::optional<std::vector<int64_t>> broadcastShapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
    size_t n = std::max(a.size(), b.size());
    std::vector<int64_t> out(n);
    for (size_t i = 0; i < n; ++i) {
        int64_t x = i < n - a.size() ? 1 : a[i - (n - a.size())];
        int64_t y = i < n - b.size() ? 1 : b[i - (n - b.size())];
        if (x != y && x != 1 && y != 1) return std::nullopt;
        out[i] = x == 1 ? y : x;
    }
    return out;
}

std::vector<int64_t> rowMajorStrides(const std::vector<int64_t>& shape) {
    std::vector<int64_t> st(shape.size());
    int64_t acc = 1;
    for (size_t i = shape.size(); i-- > 0;) {
        st[i] = acc;
        acc *= shape[i];
    }
    return st;
}

int64_t product(const std::vector<int64_t>& v) {
    int64_t p = 1;
    for (auto x : v) p *= x;
    return p;
}

// ----- dtypes --------------------------------------------------------------------------------

DType promoteTypes(DType a, DType b) {
    if (a == b) return a;
    if (a == DType::Bool) return b;
    if (b == DType::Bool) return a;
    if (isComplex(a) || isComplex(b)) {
        bool dbl = a == DType::Complex128 || b == DType::Complex128 || a == DType::Float64 || b == DType::Float64;
        return dbl ? DType::Complex128 : DType::Complex64;
    }
    bool fa = isFloating(a), fb = isFloating(b);
    if (fa && fb) {
        if ((a == DType::Float16 && b == DType::BFloat16) || (a == DType::BFloat16 && b == DType::Float16))
            return DType::Float32;
        return dtypeItemSize(a) >= dtypeItemSize(b) ? a : b;
    }
    if (fa) return a;
    if (fb) return b;
    // both integral
    if ((a == DType::UInt8 && b == DType::Int8) || (a == DType::Int8 && b == DType::UInt8)) return DType::Int16;
    if (a == DType::UInt8) return b;
    if (b == DType::UInt8) return a;
    return dtypeItemSize(a) >= dtypeItemSize(b) ? a : b;
}

namespace {
enum class Cat { None, Bool, Int, Float, Complex };
Cat category(DType t) {
    if (t == DType::Bool) return Cat::Bool;
    if (isComplex(t)) return Cat::Complex;
    if (isFloating(t)) return Cat::Float;
    return Cat::Int;
}
struct Slot {
    bool set = false;
    DType t = DType::Bool;
};
void update(Slot& s, DType t) {
    s.t = s.set ? promoteTypes(s.t, t) : t;
    s.set = true;
}
Slot combine(Slot higher, Slot lower) {
    if (!higher.set) return lower;
    if (!lower.set) return higher;
    if (category(higher.t) >= category(lower.t)) return higher;
    return {true, promoteTypes(higher.t, lower.t)};
}
}  // namespace

DType resultType(const std::vector<const Value*>& operands) {
    Slot dimR, zeroR, wrapR;
    for (const Value* v : operands) {
        if (!v) continue;
        if (v->isTensor()) {
            update(v->t.dim() > 0 ? dimR : zeroR, v->t.dtype());
        } else if (v->kind == Value::Kind::Bool) {
            update(wrapR, DType::Bool);
        } else if (v->kind == Value::Kind::Int) {
            update(wrapR, DType::Int64);
        } else if (v->kind == Value::Kind::Double) {
            update(wrapR, DType::Float32);  // the default dtype
        }
    }
    Slot r = combine(dimR, combine(zeroR, wrapR));
    return r.set ? r.t : DType::Float32;
}

DType toFloatingType(DType t) { return isFloating(t) || isComplex(t) ? t : DType::Float32; }

// ----- output layout -------------------------------------------------------------------------

std::vector<int64_t> pointwiseStrides(const std::vector<int64_t>& shape, const std::vector<const TensorMeta*>& inputs) {
    if (shape.empty()) return {};
    // TensorIterator's fast setup: operands all of the output's shape and all contiguous give a
    // contiguous output, whatever odd strides their size-1 dims carry.
    bool allContiguous = !inputs.empty();
    for (const TensorMeta* m : inputs) allContiguous = allContiguous && m && m->shape == shape && m->isContiguous();
    if (allContiguous) return TensorMeta::contiguousStrides(shape);
    return dimOrderStrides(shape, inputs);
}

std::vector<int64_t> dimOrderStrides(const std::vector<int64_t>& shape, const std::vector<const TensorMeta*>& inputs) {
    const int64_t nd = static_cast<int64_t>(shape.size());
    if (nd == 0) return {};
    std::vector<std::vector<int64_t>> opStrides;
    for (const TensorMeta* m : inputs) {
        if (!m || m->strides.size() != m->shape.size()) continue;
        std::vector<int64_t> st(nd, 0);
        int64_t off = nd - m->dim();
        for (int64_t i = 0; i < m->dim(); ++i) {
            bool bcast = m->shape[i] == 1 && shape[off + i] != 1;
            st[off + i] = bcast ? 0 : m->strides[i];
        }
        opStrides.push_back(std::move(st));
    }
    // perm[0] is the innermost dim.
    std::vector<int64_t> perm(nd);
    for (int64_t i = 0; i < nd; ++i) perm[i] = nd - 1 - i;
    auto shouldSwap = [&](int64_t d0, int64_t d1) {
        for (const auto& st : opStrides) {
            int64_t s0 = st[d0], s1 = st[d1];
            if (s0 == 0 || s1 == 0) continue;
            if (s0 < s1) return -1;
            if (s0 > s1) return 1;
            if (shape[d0] > shape[d1]) return 1;
        }
        return 0;
    };
    for (int64_t i = 1; i < nd; ++i) {
        int64_t dim1 = i;
        for (int64_t dim0 = i - 1; dim0 >= 0; --dim0) {
            int cmp = shouldSwap(perm[dim0], perm[dim1]);
            if (cmp > 0) {
                std::swap(perm[dim0], perm[dim1]);
                dim1 = dim0;
            } else if (cmp < 0) {
                break;
            }
        }
    }
    std::vector<int64_t> strides(nd);
    int64_t acc = 1;
    for (int64_t k = 0; k < nd; ++k) {
        strides[perm[k]] = acc;
        acc *= std::max<int64_t>(shape[perm[k]], 1);
    }
    return strides;
}

std::vector<int64_t> emptyLikeStrides(const TensorMeta& m) {
    const bool c = m.isContiguous();
    bool cl = m.dim() == 4;
    if (cl) {
        int64_t expected = 1;
        for (size_t d : {1, 3, 2, 0}) {
            if (m.shape[d] == 1) continue;
            if (m.strides[d] != expected) cl = false;
            expected *= m.shape[d];
        }
    }
    if (c && !cl) return TensorMeta::contiguousStrides(m.shape);
    if (cl && !c) {
        std::vector<int64_t> st(4);
        int64_t acc = 1;
        for (size_t d : {1, 3, 2, 0}) {
            st[d] = acc;
            acc *= std::max<int64_t>(m.shape[d], 1);
        }
        return st;
    }
    return dimOrderStrides(m.shape, {&m});
}

std::vector<int64_t> stridesLike(const std::vector<int64_t>& shape, const TensorMeta& like) {
    TensorMeta m = like;
    m.shape = shape;
    if (m.strides.size() != shape.size()) return TensorMeta::contiguousStrides(shape);
    return pointwiseStrides(shape, {&m});
}

// ----- building blocks -----------------------------------------------------------------------

Value metaValue(TensorMeta m) { return Value::ofTensor(Tensor::metaOnly(std::move(m))); }

Device firstDevice(const OpArgs& a) {
    for (const auto& v : a.values()) {
        if (v.isTensor()) return v.t.meta.device;
        if (v.isList())
            for (const auto& x : v.list)
                if (x.isTensor()) return x.t.meta.device;
    }
    return {};
}

Expected<Value> pointwiseMeta(const OpArgs& a, const std::vector<size_t>& idx, std::optional<DType> dtype) {
    std::vector<int64_t> shape;
    std::vector<const Value*> ops;
    std::vector<const TensorMeta*> metas;
    Device dev;
    bool haveDev = false;
    for (size_t i : idx) {
        const Value& v = a[i];
        ops.push_back(&v);
        if (!v.isTensor()) continue;
        auto b = broadcastShapes(shape, v.t.shape());
        if (!b)
            return opError(a, "shapes " + v.t.meta.annotation(false, false) +
                                  " and the others cannot be broadcast together");
        shape = *b;
        metas.push_back(&v.t.meta);
        // A CPU scalar tensor does not decide the device.
        if (!haveDev || (v.t.dim() > 0 && dev.type == "cpu")) {
            dev = v.t.meta.device;
            haveDev = true;
        }
    }
    TensorMeta m;
    m.dtype = dtype ? *dtype : resultType(ops);
    m.shape = shape;
    m.strides = pointwiseStrides(shape, metas);
    m.device = dev;
    return metaValue(std::move(m));
}

Expected<Value> pointwiseKernel(const OpArgs& a, const Value& out, const std::vector<size_t>& idx,
                                const std::function<double(const double*)>& f) {
    Tensor res = Tensor::emptyLike(out.t.meta);
    const auto& shape = res.shape();
    const int64_t n = res.numel();
    std::vector<std::vector<double>> bufs;
    std::vector<double> scalars(idx.size(), 0.0);
    std::vector<int> which(idx.size(), -1);
    for (size_t k = 0; k < idx.size(); ++k) {
        const Value& v = a[idx[k]];
        if (v.isTensor()) {
            which[k] = static_cast<int>(bufs.size());
            bufs.push_back(toDoublesBroadcast(v.t, shape));
        } else {
            scalars[k] = v.toDouble();
        }
    }
    std::vector<double> vals(static_cast<size_t>(n));
    std::vector<double> x(idx.size());
    for (int64_t e = 0; e < n; ++e) {
        for (size_t k = 0; k < idx.size(); ++k) x[k] = which[k] >= 0 ? bufs[which[k]][e] : scalars[k];
        vals[e] = f(x.data());
    }
    fromDoubles(res, vals);
    return Value::ofTensor(std::move(res));
}

}  // namespace fxray::kern
