#pragma once
/// Small helpers shared by the reduction and normalisation lowerings.
#include "codegen/lowering.h"

#include <cmath>

namespace fxray::cg {

/// x's shape with the masked dims set to 1 (keepdim form).
inline std::vector<int64_t> keptShape(const std::vector<int64_t>& shape, const std::vector<bool>& mask) {
    std::vector<int64_t> s = shape;
    for (size_t d = 0; d < s.size(); ++d)
        if (mask[d]) s[d] = 1;
    return s;
}

/// Contiguous metadata of the keepdim result of reducing x over mask, in dtype dt.
inline TensorMeta keptMeta(const TensorMeta& x, const std::vector<bool>& mask, DType dt) {
    return TensorMeta::contiguous(keptShape(x.shape, mask), dt, x.device);
}

/// Coordinates of a keepdim-shaped tensor for output coordinates of a reduction result that
/// may have dropped the reduced dims.
inline std::vector<Index> keepdimCoords(const std::vector<Index>& co, const std::vector<bool>& mask, bool keepdim) {
    if (keepdim) return co;
    std::vector<Index> r;
    size_t j = 0;
    for (size_t d = 0; d < mask.size(); ++d) r.push_back(mask[d] ? iconst(0) : co[j++]);
    return r;
}

/// A Reduction LNode over `inShape` (reduced where mask is set) with output metadata m. A 0-dim
/// input has one element, which every reduction returns, and a reduction over no dims returns
/// each element itself (layer norm's weight gradient when normalized_shape is the whole shape):
/// a Pointwise LNode of the body in both cases.
inline int reduceTo(LowerCtx& c, TensorMeta m, std::vector<int64_t> inShape, std::vector<bool> mask, bool keepdim,
                    ReduceOp op, BodyFn body, std::vector<int> deps, std::string suffix = {}) {
    bool reducesSomething = false;
    for (bool b : mask) reducesSomething = reducesSomething || b;
    if (inShape.empty() || !reducesSomething) {
        DType ct = computeType(m.dtype);
        return c.pointwise(
            std::move(m), std::move(deps),
            [body, ct](Loader& L, const std::vector<Index>& co) { return eto(body(L, co), ct); }, std::move(suffix));
    }
    return c.reduction(std::move(m), -1, std::move(inShape), std::move(mask), keepdim, op, std::move(body),
                       std::move(deps), std::move(suffix));
}

/// mean of x over mask (keepdim shape), in compute type ct: a sum reduction and a scaling
/// epilogue.
inline int rowMean(LowerCtx& c, int x, const std::vector<bool>& mask, DType ct, const std::string& suffix) {
    const TensorMeta xm = c.meta(x);
    int64_t count = 1;
    for (size_t d = 0; d < mask.size(); ++d)
        if (mask[d]) count *= xm.shape[d];
    TensorMeta km = keptMeta(xm, mask, ct);
    int s = reduceTo(
        c, km, xm.shape, mask, true, ReduceOp::Sum,
        [x, ct](Loader& L, const std::vector<Index>& co) { return eto(L.load(x, co), ct); }, {x}, suffix + ".sum");
    double inv = count ? 1.0 / static_cast<double>(count) : NAN;
    return c.pointwise(
        km, {s},
        [s, ct, inv](Loader& L, const std::vector<Index>& co) {
            return ebinary(Op::Mul, eto(L.load(s, co), ct), econst(inv, ct));
        },
        suffix);
}

}  // namespace fxray::cg
