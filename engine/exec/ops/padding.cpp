// Reflection and replication padding in 1-D, 2-D and 3-D, and their backwards.
//
// Padding lists run from the last dim backwards, two entries per dim ([left, right] for the
// width, then [top, bottom], then [front, back]). Negative entries crop, as in ATen: each output
// position maps to one input position through ATen's index formulas, so the backward adds each
// output gradient at that position.
#include "exec/ops/kernel_util.h"
#include "exec/ops/nn_util.h"
#include "exec/ops/register.h"

#include <algorithm>
#include <array>
#include <string>

namespace fxray {
using namespace kern;
using namespace nn;

namespace {

struct PadSpec {
    bool reflect = false;
    int64_t nsp = 1;
    int64_t planes = 0;
    /// Spatial dims right-aligned in three slots (unused slots 1, padding 0).
    std::array<int64_t, 3> in{1, 1, 1}, out{1, 1, 1}, before{0, 0, 0};
    std::vector<int64_t> outShape;
};

int64_t rankOf(const std::string& name) { return name[name.size() - 2] - '0'; }

/// Parses (self at selfArg, padding at selfArg + 1) for reflection_padNd / replication_padNd.
Expected<PadSpec> padSpec(const OpArgs& a, const TensorMeta& in, size_t padArg) {
    const std::string& name = a.op().schema.name;
    PadSpec p;
    p.reflect = name.rfind("reflection", 0) == 0;
    const std::string base = name.substr(0, name.find("_backward"));
    p.nsp = rankOf(base);
    const int64_t nd = in.dim();
    if (nd != p.nsp + 1 && nd != p.nsp + 2)
        return opError(a, "expected " + std::to_string(p.nsp + 1) + "-D or " + std::to_string(p.nsp + 2) +
                              "-D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for "
                              "input, but got: " +
                              shapeStr(in.shape));
    for (int64_t d = nd - p.nsp - 1; d < nd; ++d)
        if (in.shape[d] == 0)
            return opError(a, "expected " + std::to_string(p.nsp + 1) + "-D or " + std::to_string(p.nsp + 2) +
                                  "-D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for "
                                  "input, but got: " +
                                  shapeStr(in.shape));
    auto pad = a.toIntList(padArg);
    if (static_cast<int64_t>(pad.size()) != 2 * p.nsp)
        return opError(a, "padding size is expected to be " + std::to_string(2 * p.nsp) +
                              ", but got: " + std::to_string(pad.size()));
    p.planes = spanProduct(in.shape, 0, static_cast<size_t>(nd - p.nsp));
    p.outShape.assign(in.shape.begin(), in.shape.end() - p.nsp);
    for (int64_t i = 0; i < p.nsp; ++i) {
        // Spatial dim i (from the first); its pads are at the end of the list for the first dim.
        const int64_t dim = nd - p.nsp + i;
        const int64_t lo = pad[static_cast<size_t>(2 * (p.nsp - 1 - i))],
                      hi = pad[static_cast<size_t>(2 * (p.nsp - 1 - i) + 1)];
        const int64_t size = in.shape[dim];
        if (p.reflect && (lo >= size || hi >= size))
            return opError(a, "padding size should be less than the corresponding input dimension, but got: padding (" +
                                  std::to_string(lo) + ", " + std::to_string(hi) + ") at dimension " +
                                  std::to_string(dim) + " of input " + shapeStr(in.shape));
        const int64_t o = size + lo + hi;
        if (o < 1)
            return opError(a, "input " + shapeStr(in.shape) + " is too small: calculated output size " +
                                  std::to_string(o) + " at dimension " + std::to_string(dim));
        const size_t s = static_cast<size_t>(3 - p.nsp + i);
        p.in[s] = size;
        p.out[s] = o;
        p.before[s] = lo;
        p.outShape.push_back(o);
    }
    return p;
}

/// The input position output position `o` reads along one dim (ATen's formulas, crops included).
int64_t sourceIndex(bool reflect, int64_t o, int64_t pad, int64_t in) {
    const int64_t iStart = std::max<int64_t>(0, -pad), oStart = std::max<int64_t>(0, pad);
    int64_t ip;
    if (reflect) {
        if (o < pad)
            ip = 2 * pad - o;
        else if (o < in + pad)
            ip = o;
        else
            ip = 2 * (in + pad - 1) - o;
    } else {
        ip = std::min(std::max(pad, o), in + pad - 1);
    }
    return ip - oStart + iStart;
}

/// For every output element (row-major within a plane), the input element it reads.
std::vector<int64_t> sourceMap(const PadSpec& p) {
    std::array<std::vector<int64_t>, 3> maps;
    for (size_t s = 0; s < 3; ++s) {
        maps[s].resize(static_cast<size_t>(p.out[s]));
        for (int64_t o = 0; o < p.out[s]; ++o)
            maps[s][static_cast<size_t>(o)] = sourceIndex(p.reflect, o, p.before[s], p.in[s]);
    }
    std::vector<int64_t> m;
    m.reserve(static_cast<size_t>(p.out[0] * p.out[1] * p.out[2]));
    for (int64_t a = 0; a < p.out[0]; ++a)
        for (int64_t b = 0; b < p.out[1]; ++b)
            for (int64_t c = 0; c < p.out[2]; ++c)
                m.push_back((maps[0][static_cast<size_t>(a)] * p.in[1] + maps[1][static_cast<size_t>(b)]) * p.in[2] +
                            maps[2][static_cast<size_t>(c)]);
    return m;
}

// reflection_padNd(self, padding), replication_padNd(self, padding)
Expected<Value> metaPad(const OpArgs& a) {
    auto in = reqTensor(a, 0);
    if (!in.ok()) return in.error();
    auto p = padSpec(a, (*in)->meta, 1);
    if (!p.ok()) return p.error();
    return metaValue(TensorMeta::contiguous(p->outShape, (*in)->dtype(), (*in)->meta.device));
}

Expected<Value> padKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto p = padSpec(a, a.tensor(0).meta, 1);
    if (!p.ok()) return p.error();
    const auto map = sourceMap(*p);
    const int64_t inSz = p->in[0] * p->in[1] * p->in[2], outSz = static_cast<int64_t>(map.size());
    auto x = toDoubles(a.tensor(0));
    std::vector<double> y(static_cast<size_t>(p->planes * outSz));
    for (int64_t pl = 0; pl < p->planes; ++pl)
        for (int64_t o = 0; o < outSz; ++o)
            y[static_cast<size_t>(pl * outSz + o)] = x[static_cast<size_t>(pl * inSz + map[static_cast<size_t>(o)])];
    return Value::ofTensor(makeTensor(out.t.meta, y));
}

// reflection_padNd_backward(grad_output, self, padding), replication_padNd_backward(...)
Expected<Value> metaPadBackward(const OpArgs& a) {
    auto go = reqTensor(a, 0);
    if (!go.ok()) return go.error();
    auto in = reqTensor(a, 1);
    if (!in.ok()) return in.error();
    auto p = padSpec(a, (*in)->meta, 2);
    if (!p.ok()) return p.error();
    if ((*go)->shape() != p->outShape)
        return opError(a, "grad_output must have the padded shape " + shapeStr(p->outShape) + ", got " +
                              shapeStr((*go)->shape()));
    return metaValue(TensorMeta::contiguous((*in)->shape(), (*go)->dtype(), (*in)->meta.device));
}

Expected<Value> padBackwardKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto p = padSpec(a, a.tensor(1).meta, 2);
    if (!p.ok()) return p.error();
    const auto map = sourceMap(*p);
    const int64_t inSz = p->in[0] * p->in[1] * p->in[2], outSz = static_cast<int64_t>(map.size());
    auto g = toDoubles(a.tensor(0));
    std::vector<double> gi(static_cast<size_t>(p->planes * inSz), 0.0);
    for (int64_t pl = 0; pl < p->planes; ++pl)
        for (int64_t o = 0; o < outSz; ++o)
            gi[static_cast<size_t>(pl * inSz + map[static_cast<size_t>(o)])] += g[static_cast<size_t>(pl * outSz + o)];
    return Value::ofTensor(makeTensor(out.t.meta, gi));
}

}  // namespace

void registerPaddingOps(OpRegistry& r) {
    for (const char* kind : {"reflection", "replication"}) {
        for (int n = 1; n <= 3; ++n) {
            const std::string op = std::string(kind) + "_pad" + std::to_string(n) + "d";
            const std::string len = std::to_string(2 * n);
            r.add("aten." + op + ".default", op + "(Tensor self, SymInt[" + len + "] padding) -> Tensor",
                  OpCategory::Other, metaPad, padKernel);
            r.add("aten." + op + "_backward.default",
                  op + "_backward(Tensor grad_output, Tensor self, SymInt[" + len + "] padding) -> Tensor",
                  OpCategory::Other, metaPadBackward, padBackwardKernel);
        }
    }
}

}  // namespace fxray
