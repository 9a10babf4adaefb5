// VJP rules of reductions into positions: scatter_reduce.two and index_reduce, after
// FunctionsManual.cpp's scatter_reduce_backward and index_reduce_backward. Both ops share one
// formula; they differ in how positions are read (gather / index_select), accumulated into
// (scatter_add / index_add) and cleared (scatter / index_fill).
#include "autodiff/vjp.h"

#include <string>

namespace fxray {

namespace {

Argument num(double v) { return Argument::ofFloat(v); }

/// How one of the two ops addresses positions: self is arg 0, dim arg 1, index arg 2, the
/// source arg 3, reduce arg 4, include_self arg 5.
struct Addressing {
    const char* read;        ///< (t, dim, index) -> values at the source's positions
    const char* accumulate;  ///< (t, dim, index, src) -> t with src added at the positions
    const char* clear;       ///< (t, dim, index, 0) -> t with the positions set to 0
    const char* reduceOp;    ///< the forward op, for the exclusive products
};

constexpr Addressing kScatter = {"aten.gather.default", "aten.scatter_add.default", "aten.scatter.value",
                                 "aten.scatter_reduce.two"};
constexpr Addressing kIndex = {"aten.index_select.default", "aten.index_add.default", "aten.index_fill.int_Scalar",
                               "aten.index_reduce.default"};

void reduceInto(VjpCall& c, const Addressing& a) {
    GraphEmitter& e = c.e;
    const Argument &self = c.arg(0), &dim = c.arg(1), &index = c.arg(2), &src = c.arg(3);
    const std::string reduce = c.arg(4).kind == Argument::Kind::String ? c.arg(4).s : "";
    const bool includeSelf = c.arg(5).kind != Argument::Kind::Bool || c.arg(5).b;
    const DType dt = c.meta(c.input(0)).dtype;
    Node* grad = c.grad();
    Node* result = c.savedResult();
    auto read = [&](Node* t) { return e.op(a.read, {nodeArg(t), dim, index}); };
    auto accumulate = [&](Node* t, Node* s) { return e.op(a.accumulate, {nodeArg(t), dim, index, nodeArg(s)}); };
    auto asFloat = [&](Node* t) {
        return e.op("aten._to_copy.default", {nodeArg(t)}, {{"dtype", Argument::ofDType(dt)}});
    };
    auto div = [&](Node* x, Node* y) { return e.op("aten.div.Tensor", {nodeArg(x), nodeArg(y)}); };
    Node* gSelf = nullptr;
    Node* gSrc = nullptr;
    if (reduce == "sum") {
        gSelf = grad;
        gSrc = read(grad);
    } else if (reduce == "mean") {
        Node* n = e.op(includeSelf ? "aten.ones_like.default" : "aten.zeros_like.default", {nodeArg(grad)});
        n = accumulate(n, e.op("aten.ones_like.default", {src}));
        n = e.op("aten.masked_fill.Scalar",
                 {nodeArg(n), nodeArg(e.op("aten.eq.Scalar", {nodeArg(n), num(0.0)})), num(1.0)});
        gSelf = div(grad, n);
        gSrc = div(read(grad), read(n));
    } else if (reduce == "amax" || reduce == "amin") {
        // The gradient shared evenly among the elements equal to the extremum.
        Node* value = read(result);
        Node* selfIs = asFloat(e.op("aten.eq.Tensor", {self, nodeArg(result)}));
        Node* srcIs = asFloat(e.op("aten.eq.Tensor", {src, nodeArg(value)}));
        Node* share = div(grad, accumulate(selfIs, srcIs));
        gSelf = e.mul(selfIs, nodeArg(share));
        gSrc = e.mul(srcIs, nodeArg(read(share)));
    } else if (reduce == "prod") {
        // Exclusive products, computed again with zeros masked so that a single zero passes the
        // product of the others.
        Node* maskedSelf =
            e.op("aten.masked_fill.Scalar", {self, nodeArg(e.op("aten.eq.Scalar", {self, num(0.0)})), num(1.0)});
        Node* maskedSelfResult =
            e.op(a.reduceOp, {nodeArg(maskedSelf), dim, index, src, c.arg(4)}, {{"include_self", c.arg(5)}});
        gSelf = div(e.mul(grad, nodeArg(maskedSelfResult)), maskedSelf);
        Node* srcZero = e.op("aten.eq.Scalar", {src, num(0.0)});
        Node* zeros = e.op("aten.zeros_like.default", {self});
        Node* numZeros = read(accumulate(zeros, asFloat(srcZero)));
        Node* single = e.op("aten.bitwise_and.Tensor",
                            {nodeArg(srcZero), nodeArg(e.op("aten.eq.Scalar", {nodeArg(numZeros), num(1.0)}))});
        Node* maskedSrc = e.op("aten.masked_fill.Scalar", {src, nodeArg(single), num(1.0)});
        Node* maskedSrcResult =
            e.op(a.reduceOp, {self, dim, index, nodeArg(maskedSrc), c.arg(4)}, {{"include_self", c.arg(5)}});
        Node* viaMasked = read(e.mul(grad, nodeArg(maskedSrcResult)));
        Node* viaResult =
            div(read(e.mul(grad, nodeArg(result))), e.op("aten.masked_fill.Scalar", {src, nodeArg(srcZero), num(1.0)}));
        gSrc = e.op("aten.where.self", {nodeArg(single), nodeArg(viaMasked), nodeArg(viaResult)});
    } else {
        return e.fail("no VJP for reduce='" + reduce + "'", c.fwd.name());
    }
    if (!includeSelf && gSelf) gSelf = e.op(a.clear, {nodeArg(gSelf), dim, index, num(0.0)});
    if (c.needs(0)) c.give(0, gSelf);
    if (c.needs(3)) c.give(3, gSrc);
}

void scatterReduce(VjpCall& c) { reduceInto(c, kScatter); }
void indexReduce(VjpCall& c) { reduceInto(c, kIndex); }

}  // namespace

void addReduceIntoVjps(std::vector<VjpRule>& out) {
    out.push_back({"aten.scatter_reduce.two", scatterReduce, true});
    out.push_back({"aten.index_reduce.default", indexReduce, true});
}

}  // namespace fxray
