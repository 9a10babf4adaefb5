// Writes through views: an in-place op whose self is a view (`copy_(as_strided(buf, ...), g)`,
// what autograd's as_strided backward traces) or a tensor that views alias. As Inductor does
// after functionalization, the write becomes a scatter of the new values into the view's root
// (every root element gathers, over the view's coordinates, the value whose view position maps
// onto it), and every graph value that is the root or a view of it is rebound to the same view
// of the new root, so the nodes after the write see it and the ones before keep the old value.
// as_strided_scatter is the same scatter as an op. An in-place view op (squeeze_ on a tensor
// that views alias) only rebinds self.
#include "codegen/lower_util.h"

#include "exec/ops/kernel_util.h"

#include <algorithm>
#include <map>

namespace fxray::cg {

namespace {

/// Root elements times view elements: the gather is quadratic, so large writes keep the
/// reference kernel (a reported fallback) rather than a slow kernel.
constexpr int64_t kMaxScatterWork = int64_t{1} << 22;

int rootOf(const LoweredGraph& lg, int id) {
    while (lg.nodes[static_cast<size_t>(id)].kind == LKind::View) id = lg.nodes[static_cast<size_t>(id)].base;
    return id;
}

bool readsRoot(const LoweredGraph& lg, const LValue& v, int root) {
    if (v.kind == LValue::Kind::Tensor) return rootOf(lg, v.node) == root;
    for (const auto& x : v.items)
        if (readsRoot(lg, x, root)) return true;
    return false;
}

bool holds(const LValue& v, int lnode) {
    if (v.kind == LValue::Kind::Tensor) return v.node == lnode;
    for (const auto& x : v.items)
        if (holds(x, lnode)) return true;
    return false;
}

/// The view LNode `id` (a chain of views down to `oldRoot`) rebuilt on `newRoot`.
int rebase(LoweredGraph& lg, int id, int oldRoot, int newRoot, std::map<int, int>& memo) {
    if (id == oldRoot) return newRoot;
    if (auto it = memo.find(id); it != memo.end()) return it->second;
    const int base = rebase(lg, lg.nodes[static_cast<size_t>(id)].base, oldRoot, newRoot, memo);
    LNode n = lg.nodes[static_cast<size_t>(id)];
    n.id = static_cast<int>(lg.nodes.size());
    n.base = base;
    n.inputs = {base};
    lg.nodes.push_back(std::move(n));
    memo[id] = lg.nodes.back().id;
    return lg.nodes.back().id;
}

void rebind(LoweredGraph& lg, LValue& v, int oldRoot, int newRoot, std::map<int, int>& memo) {
    if (v.kind == LValue::Kind::Tensor && rootOf(lg, v.node) == oldRoot)
        v.node = rebase(lg, v.node, oldRoot, newRoot, memo);
    for (auto& x : v.items) rebind(lg, x, oldRoot, newRoot, memo);
}

}  // namespace

int scatterIntoView(LowerCtx& c, int root, const std::vector<ViewFn>& maps, const std::vector<int64_t>& viewShape,
                    int value, const TensorMeta& outMeta) {
    const TensorMeta rm = c.meta(root);
    const DType ct = computeType(rm.dtype);
    if (ct == DType::Bool || isComplex(rm.dtype) || c.meta(value).dtype != rm.dtype) return -1;
    const std::vector<int64_t> valueShape = c.meta(value).shape;
    if (valueShape.size() > viewShape.size()) return -1;
    const int64_t viewN = kern::product(viewShape), rootN = kern::product(rm.shape);
    if (viewN == 0 || rootN == 0 || (viewN > 1 && rootN > kMaxScatterWork / viewN)) return -1;
    const size_t nR = rm.shape.size();
    std::vector<int64_t> in = rm.shape;
    in.insert(in.end(), viewShape.begin(), viewShape.end());
    std::vector<bool> mask(in.size(), false);
    std::fill(mask.begin() + static_cast<std::ptrdiff_t>(nR), mask.end(), true);
    // The view coordinates (the reduced dims) land on this root element.
    auto hit = [maps, nR](const std::vector<Index>& co) {
        std::vector<Index> x(co.begin() + static_cast<std::ptrdiff_t>(nR), co.end());
        for (const auto& m : maps) x = m(x);
        ExprP h = econst(1, DType::Bool);
        for (size_t d = 0; d < nR; ++d) h = ebinary(Op::And, h, ebinary(Op::Eq, eindex(x[d]), eindex(co[d])));
        return h;
    };
    auto viewCoords = [nR](const std::vector<Index>& co) {
        return std::vector<Index>(co.begin() + static_cast<std::ptrdiff_t>(nR), co.end());
    };
    const int hits = reduceTo(
        c, TensorMeta::contiguous(rm.shape, DType::Int64, rm.device), in, mask, false, ReduceOp::Sum,
        [hit](Loader&, const std::vector<Index>& co) { return eto(hit(co), DType::Int64); }, {value}, ".hits");
    const int written = reduceTo(
        c, TensorMeta::contiguous(rm.shape, ct, rm.device), in, mask, false, ReduceOp::Sum,
        [=](Loader& L, const std::vector<Index>& co) {
            ExprP v = eto(loadBroadcast(L, value, valueShape, viewCoords(co)), ct);
            return ewhere(hit(co), v, econst(0, ct));
        },
        {value}, ".written");
    return c.pointwise(
        outMeta, {root, hits, written},
        [=](Loader& L, const std::vector<Index>& co) {
            ExprP any = ebinary(Op::Gt, L.load(hits, co), econst(0, DType::Int64));
            return ewhere(any, eto(L.load(written, co), ct), eto(L.load(root, co), ct));
        },
        ".scatter");
}

std::optional<LValue> writeThroughView(LowerCtx& c, int self, const Node* selfNode, const LValue& value) {
    LoweredGraph& lg = c.graph();
    if (value.kind != LValue::Kind::Tensor) return std::nullopt;
    std::vector<ViewFn> maps;
    int root = self;
    while (lg.nodes[static_cast<size_t>(root)].kind == LKind::View) {
        maps.push_back(lg.nodes[static_cast<size_t>(root)].viewMap);
        root = lg.nodes[static_cast<size_t>(root)].base;
    }
    if (rootOf(lg, value.node) == root) {
        // A metadata-only in-place op (squeeze_, transpose_, as_strided_): self becomes the new
        // view of the same storage; other views of it keep their own shapes, as in PyTorch.
        lg.values[selfNode] = value;
        return value;
    }
    // An input, constant or pinned value may share storage the lowering does not see, and so
    // may the result of a call that returns an alias of its input; the result of any other call
    // is a fresh buffer.
    if (lg.nodes[static_cast<size_t>(root)].kind == LKind::Buffer) {
        bool fresh = false;
        for (const auto& call : lg.calls)
            if (holds(call.result, root)) fresh = call.node->op() && !call.node->op()->aliasesInput;
        if (!fresh || lg.constants.count(root) || lg.pinned.count(root)) return std::nullopt;
    }
    for (const auto& call : lg.calls) {
        const OpInfo* op = call.node->op();
        if (!op || !op->aliasesInput) continue;
        for (const Node* in : call.inputs)
            if (auto it = lg.values.find(in); it != lg.values.end() && readsRoot(lg, it->second, root))
                return std::nullopt;
    }
    int newRoot = value.node;
    if (!maps.empty()) {
        const TensorMeta rm = c.meta(root);
        newRoot = scatterIntoView(c, root, maps, c.meta(self).shape, value.node,
                                  TensorMeta::contiguous(rm.shape, rm.dtype, rm.device));
        if (newRoot < 0) return std::nullopt;
    } else if (c.meta(value.node).shape != c.meta(root).shape || c.meta(value.node).dtype != c.meta(root).dtype) {
        return std::nullopt;
    }
    std::map<int, int> memo;
    for (auto& [node, v] : lg.values) rebind(lg, v, root, newRoot, memo);
    return tensorValue(rebase(lg, self, root, newRoot, memo));
}

void addMutationLowerings(std::map<std::string, LowerFn>& t) {
    // as_strided_scatter(self, src, size, stride, storage_offset=None): a copy of a contiguous
    // self with src written into the as_strided view of it.
    t["aten.as_strided_scatter.default"] = [](LowerCtx& c) -> std::optional<LValue> {
        const int self = c.in(0), src = c.in(1);
        if (self < 0 || src < 0 || !c.out().isTensor()) return std::nullopt;
        const auto size = c.args().toIntList(2);
        std::optional<int64_t> offset;
        if (c.args().size() > 4 && !c.args().isNone(4)) offset = c.args().toInt(4);
        auto map = asStridedMap(c.meta(self), size, c.args().toIntList(3), offset);
        if (!map) return std::nullopt;
        int r = scatterIntoView(c, self, {*map}, size, src, c.outMeta());
        if (r < 0) return std::nullopt;
        return tensorValue(r);
    };
}

}  // namespace fxray::cg
