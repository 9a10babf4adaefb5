// segment_reduce and _segment_reduce_backward: reductions (max, min, sum, mean, prod) over
// consecutive segments of one axis, the segments given by lengths or by offsets. Outputs are
// contiguous (PyTorch allocates them with at::empty / at::zeros). The kernels follow PyTorch's
// CPU/CUDA loops, including their NaN handling and the gradient split between tied maxima.
#include "exec/ops/kernel_util.h"
#include "exec/ops/reduce_util.h"
#include "exec/ops/register.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

namespace fxray {
using namespace kern;

namespace {

enum class SegReduce { Max, Min, Sum, Mean, Prod };

/// Where the segments of one row lie along the axis.
struct Segment {
    int64_t start = 0, length = 0;
};

/// data seen as [outer, axisLen, inner]; segments[o * count + s] is segment s of row o.
struct SegmentPlan {
    SegReduce kind = SegReduce::Sum;
    int64_t axis = 0, outer = 1, axisLen = 1, inner = 1, count = 0;
    std::vector<Segment> segments;
    std::vector<int64_t> outShape;
    std::optional<double> initial;
};

std::optional<SegReduce> reduceKind(const std::string& s) {
    if (s == "max") return SegReduce::Max;
    if (s == "min") return SegReduce::Min;
    if (s == "sum") return SegReduce::Sum;
    if (s == "mean") return SegReduce::Mean;
    if (s == "prod") return SegReduce::Prod;
    return std::nullopt;
}

/// Argument positions: the forward has (data, reduce, lengths, indices, offsets, axis, unsafe,
/// initial); the backward (grad, output, data, reduce, lengths, offsets, axis, initial).
struct SegArgs {
    size_t data, reduce, lengths, offsets, axis, initial;
    int unsafe;
};
constexpr SegArgs kForward{0, 1, 2, 4, 5, 7, 6};
constexpr SegArgs kBackward{2, 3, 4, 5, 6, 7, -1};

/// Checks the arguments and resolves every segment, with bounds checked so kernels can index
/// freely.
Expected<SegmentPlan> planSegments(const OpArgs& a, const SegArgs& at) {
    const Tensor& data = a.tensor(at.data);
    SegmentPlan p;
    auto kind = reduceKind(a[at.reduce].s);
    if (!kind) return opError(a, "unsupported reduction given! " + a[at.reduce].s);
    p.kind = *kind;
    if (!isFloating(data.dtype())) return opError(a, "not implemented for " + dtName(data.dtype()));
    auto axis = wrapDim(a.toInt(at.axis), data.dim());
    if (!axis || data.dim() == 0) return opError(a, "axis " + std::to_string(a.toInt(at.axis)) + " is out of range");
    p.axis = *axis;
    if (at.unsafe >= 0 && !a.isNone(3)) return opError(a, "indices based reduction is not supported yet");
    const bool byOffsets = a.isNone(at.lengths);
    if (byOffsets && a.isNone(at.offsets)) return opError(a, "either lengths or offsets must be defined");
    const Tensor& seg = a.tensor(byOffsets ? at.offsets : at.lengths);
    const std::string what = byOffsets ? "offsets" : "lengths";
    if (seg.dtype() != DType::Int64 && seg.dtype() != DType::Int32)
        return opError(a, what + " must be an int32 or int64 tensor, got " + dtName(seg.dtype()));
    if (p.axis != seg.dim() - 1)
        return opError(a, "expected axis to be the last dimension of " + what + " but got " + std::to_string(p.axis));
    for (int64_t i = 0; i < p.axis; ++i) {
        if (seg.shape()[i] != data.shape()[i])
            return opError(a, what + " " + seg.meta.annotation(false, false) + " does not match data " +
                                  data.meta.annotation(false, false) + " in dim " + std::to_string(i));
        p.outer *= data.shape()[i];
    }
    p.axisLen = data.shape()[p.axis];
    for (int64_t i = p.axis + 1; i < data.dim(); ++i) p.inner *= data.shape()[i];
    const int64_t last = seg.shape()[p.axis];
    p.count = byOffsets ? last - 1 : last;
    if (p.count < 0) return opError(a, "offsets must hold at least one element along the axis");
    p.outShape = data.shape();
    p.outShape[p.axis] = p.count;
    if (!a.isNone(at.initial)) p.initial = a.toDouble(at.initial);
    if (!seg.hasData()) return p;

    const std::vector<double> v = toDoubles(seg);
    for (int64_t o = 0; o < p.outer; ++o) {
        int64_t cursor = 0;
        for (int64_t s = 0; s < p.count; ++s) {
            Segment g;
            if (byOffsets) {
                g.start = static_cast<int64_t>(v[o * last + s]);
                g.length = static_cast<int64_t>(v[o * last + s + 1]) - g.start;
            } else {
                g.start = cursor;
                g.length = static_cast<int64_t>(v[o * last + s]);
            }
            if (g.length < 0) return opError(a, what + " describe a segment of negative length");
            if (g.start < 0 || g.start + g.length > p.axisLen)
                return opError(a, what + " describe a segment past the end of data's axis (size " +
                                      std::to_string(p.axisLen) + ")");
            cursor += g.length;
            p.segments.push_back(g);
        }
        // Unless unsafe, lengths must cover the axis exactly.
        if (!byOffsets && at.unsafe >= 0 && !a.toBool(static_cast<size_t>(at.unsafe)) && cursor != p.axisLen)
            return opError(a, "expected all rows of lengths along axis to sum to data.size(" + std::to_string(p.axis) +
                                  ") when !unsafe");
    }
    return p;
}

/// Kernels need the segments resolved, which takes real lengths/offsets values.
Expected<SegmentPlan> planWithValues(const OpArgs& a, const SegArgs& at) {
    auto p = planSegments(a, at);
    if (p.ok() && p->segments.size() != static_cast<size_t>(p->outer * p->count))
        return opError(a, "lengths/offsets need real values, not meta tensors");
    return p;
}

int64_t dataIndex(const SegmentPlan& p, int64_t o, int64_t k, int64_t i) { return (o * p.axisLen + k) * p.inner + i; }
int64_t outIndex(const SegmentPlan& p, int64_t o, int64_t s, int64_t i) { return (o * p.count + s) * p.inner + i; }

// ----- forward -------------------------------------------------------------------------------

Expected<Value> metaSegmentReduce(const OpArgs& a) {
    auto p = planSegments(a, kForward);
    if (!p.ok()) return p.error();
    return contiguousMeta(p->outShape, a.tensor(0).dtype(), a.tensor(0));
}

/// Starts from `initial` (else the reduction's identity), takes a NaN as soon as it is met for
/// max/min, and divides a mean by the length, leaving an empty segment's mean NaN without an
/// initial and `initial` with one.
Expected<Value> segmentReduceKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto p = planWithValues(a, kForward);
    if (!p.ok()) return p.error();
    const std::vector<double> x = inputAs(a.tensor(0), a.tensor(0).dtype());
    const double inf = std::numeric_limits<double>::infinity();
    double identity = 0.0;
    if (p->kind == SegReduce::Max) identity = -inf;
    if (p->kind == SegReduce::Min) identity = inf;
    if (p->kind == SegReduce::Prod) identity = 1.0;
    const double init = p->initial ? roundTo(*p->initial, a.tensor(0).dtype()) : identity;
    std::vector<double> y(static_cast<size_t>(product(p->outShape)), 0.0);
    for (int64_t o = 0; o < p->outer; ++o)
        for (int64_t s = 0; s < p->count; ++s) {
            const Segment& g = p->segments[o * p->count + s];
            for (int64_t i = 0; i < p->inner; ++i) {
                double acc = init;
                for (int64_t k = g.start; k < g.start + g.length; ++k) {
                    const double v = x[dataIndex(*p, o, k, i)];
                    switch (p->kind) {
                    case SegReduce::Max: acc = std::isnan(acc) ? acc : std::isnan(v) ? v : std::max(acc, v); break;
                    case SegReduce::Min: acc = std::isnan(acc) ? acc : std::isnan(v) ? v : std::min(acc, v); break;
                    case SegReduce::Sum:
                    case SegReduce::Mean: acc += v; break;
                    case SegReduce::Prod: acc *= v; break;
                    }
                }
                if (p->kind == SegReduce::Mean) {
                    if (g.length == 0 && !p->initial)
                        acc = std::numeric_limits<double>::quiet_NaN();
                    else if (g.length > 0 && !std::isnan(acc))
                        acc /= static_cast<double>(g.length);
                }
                y[outIndex(*p, o, s, i)] = acc;
            }
        }
    return Value::ofTensor(makeTensor(out.t.meta, y));
}

// ----- backward (grad, output, data, reduce, *, lengths, offsets, axis, initial) -------------

Expected<Value> metaSegmentReduceBackward(const OpArgs& a) {
    auto p = planSegments(a, kBackward);
    if (!p.ok()) return p.error();
    for (size_t i : {size_t{0}, size_t{1}})
        if (a.tensor(i).shape() != p->outShape)
            return opError(a, std::string(i == 0 ? "grad " : "output ") + a.tensor(i).meta.annotation(false, false) +
                                  " does not have the reduced shape of data " +
                                  a.tensor(2).meta.annotation(false, false));
    return contiguousMeta(a.tensor(2).shape(), a.tensor(0).dtype(), a.tensor(2));
}

/// max/min: the gradient goes to every element equal to the result (or NaN); with several
/// such elements, the positive gradients are split evenly among them (PyTorch leaves negative
/// ones whole). mean: grad / length; sum: grad; prod: grad * output / x, or the product of the
/// others when x is 0 or NaN.
Expected<Value> segmentReduceBackwardKernel(const OpArgs& a, const Value& out, ExecContext&) {
    auto p = planWithValues(a, kBackward);
    if (!p.ok()) return p.error();
    const std::vector<double> grad = toDoubles(a.tensor(0));
    const std::vector<double> y = toDoubles(a.tensor(1));
    const std::vector<double> x = toDoubles(a.tensor(2));
    const double initProd = p->initial ? *p->initial : 1.0;
    std::vector<double> gx(x.size(), 0.0);
    for (int64_t o = 0; o < p->outer; ++o)
        for (int64_t s = 0; s < p->count; ++s) {
            const Segment& g = p->segments[o * p->count + s];
            for (int64_t i = 0; i < p->inner; ++i) {
                const int64_t oi = outIndex(*p, o, s, i);
                const int64_t end = g.start + g.length;
                if (p->kind == SegReduce::Max || p->kind == SegReduce::Min) {
                    int64_t counter = 0;
                    for (int64_t k = g.start; k < end; ++k) {
                        const int64_t di = dataIndex(*p, o, k, i);
                        if (std::isnan(x[di]) || x[di] == y[oi]) {
                            gx[di] = grad[oi];
                            ++counter;
                        }
                    }
                    if (counter < 2) continue;
                    for (int64_t k = g.start; k < end; ++k) {
                        const int64_t di = dataIndex(*p, o, k, i);
                        if (gx[di] > 0) gx[di] /= static_cast<double>(counter);
                    }
                } else if (p->kind == SegReduce::Mean || p->kind == SegReduce::Sum) {
                    const double v = p->kind == SegReduce::Mean ? grad[oi] / static_cast<double>(g.length) : grad[oi];
                    for (int64_t k = g.start; k < end; ++k) gx[dataIndex(*p, o, k, i)] = v;
                } else {
                    for (int64_t k = g.start; k < end; ++k) {
                        const int64_t di = dataIndex(*p, o, k, i);
                        if (std::isnan(x[di]) || x[di] == 0.0) {
                            double excl = initProd;
                            for (int64_t m = g.start; m < end; ++m)
                                if (m != k) excl *= x[dataIndex(*p, o, m, i)];
                            gx[di] = grad[oi] * excl;
                        } else {
                            gx[di] = grad[oi] * y[oi] / x[di];
                        }
                    }
                }
            }
        }
    return Value::ofTensor(makeTensor(out.t.meta, gx));
}

}  // namespace

void registerSegmentReduceOps(OpRegistry& r) {
    r.add("aten.segment_reduce.default",
          "segment_reduce(Tensor data, str reduce, *, Tensor? lengths=None, Tensor? indices=None, "
          "Tensor? offsets=None, int axis=0, bool unsafe=False, Scalar? initial=None) -> Tensor",
          OpCategory::Reduction, metaSegmentReduce, segmentReduceKernel);
    r.add("aten._segment_reduce_backward.default",
          "_segment_reduce_backward(Tensor grad, Tensor output, Tensor data, str reduce, *, "
          "Tensor? lengths=None, Tensor? offsets=None, int axis=0, Scalar? initial=None) -> Tensor",
          OpCategory::Extern, metaSegmentReduceBackward, segmentReduceBackwardKernel);
}

}  // namespace fxray
