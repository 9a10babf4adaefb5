// misc_patterns: PyTorch's fx_passes/misc_patterns.py (joint-graph and post-grad patterns).
// An index drawn from randperm is unique and in bounds, so
//  - index_add(x, 0, randperm(n)[:k], y) becomes index_put(x, [idx], _unsafe_index(x, [idx]) + y)
//    (stores instead of atomic adds, no bounds checks), and
//  - index(x, [randperm(n)[:k]]) becomes _unsafe_index(x, [idx]).
// PyTorch's replacement re-traces randperm and the slice (they come back renamed
// randperm_default / slice_tensor); here the replacement is written in C++ and keeps the existing
// index nodes, so the random draw is untouched. The e8m0 patterns (sm100 only) are not ported.
#include "rewrite/pattern_rewriter.h"
#include "rewrite/sym_meta_eq.h"
#include "transforms/pass_util.h"
#include "transforms/passes.h"

#include <cstdio>
#include <cstdlib>
#include <functional>

namespace fxray {

namespace {

using namespace passutil;

Pattern make(std::string name, const char* search, ExtraCheck check, ReplaceFn replace) {
    auto p = patternFromFxText(std::move(name), search, "");
    if (!p.ok()) {
        std::fprintf(stderr, "fxray: internal error: %s\n", p.error().str().c_str());
        std::abort();
    }
    p->extraCheck = std::move(check);
    p->replaceFn = std::move(replace);
    return std::move(p).value();
}

/// randperm(x.shape[0])[:k] along dim 0, as the pattern requires.
std::optional<std::string> checkIndex(const Match& m, int64_t k) {
    const Node* x = m.boundNode("x");
    const TensorMeta* xm = x ? tensorMeta(*x) : nullptr;
    auto n = asInt(*m.binding("n"));
    auto len = asInt(*m.binding("len"));
    if (!xm || xm->dim() < 1 || xm->isSymbolic()) return "x has no static shape";
    if (!n || *n != xm->shape[0]) return "randperm does not cover x's first dimension";
    if (!len || *len != k) return "the slice length differs from the rows indexed";
    return std::nullopt;
}

const char* kIndexAdd = R"(
class RandpermIndexAdd(torch.nn.Module):
    def forward(self, x, y, n, len, _device, _pin):
        randperm = torch.ops.aten.randperm.default(n, device = _device, pin_memory = _pin)
        slice_1 = torch.ops.aten.slice.Tensor(randperm, 0, 0, len)
        index_add = torch.ops.aten.index_add.default(x, 0, slice_1, y)
        return (index_add, slice_1)
)";

const char* kIndex = R"(
class RandpermIndex(torch.nn.Module):
    def forward(self, x, n, len, _device, _pin):
        randperm = torch.ops.aten.randperm.default(n, device = _device, pin_memory = _pin)
        slice_1 = torch.ops.aten.slice.Tensor(randperm, 0, 0, len)
        index = torch.ops.aten.index.Tensor(x, [slice_1])
        return (index, slice_1)
)";

/// Creates the replacement of `out` (a node of the match) from nodes built by `build`, rewires,
/// and erases `out`; undoes the new nodes when a step fails.
Status replaceOutput(Match& m, Rewriter& rw, Node* out,
                     const std::function<Expected<Node*>(std::vector<Node*>&)>& build) {
    std::vector<Node*> created;
    auto r = build(created);
    if (!r.ok()) {
        for (auto it = created.rbegin(); it != created.rend(); ++it) rw.erase(*it);
        return r.error();
    }
    const TensorMeta* nm = tensorMeta(**r);
    const TensorMeta* om = tensorMeta(*out);
    if (!nm || !om || !sameSizes(*nm, *om) || nm->dtype != om->dtype) {
        for (auto it = created.rbegin(); it != created.rend(); ++it) rw.erase(*it);
        return makeError("the replacement has another shape or dtype");
    }
    rw.replaceAllUsesWith(out, *r);
    rw.erase(out);
    (void)m;
    return Status::success();
}

std::vector<Pattern> patterns() {
    std::vector<Pattern> out;
    out.push_back(make(
        "randperm_index_add_pattern", kIndexAdd,
        [](Match& m) -> std::optional<std::string> {
            const Node* y = m.boundNode("y");
            const TensorMeta* ym = y ? tensorMeta(*y) : nullptr;
            if (!ym || ym->dim() < 1) return "y has no shape";
            return checkIndex(m, ym->shape[0]);
        },
        [](Match& m, Rewriter& rw) -> Status {
            Node* indexAdd = m.outputs[0];
            Node* idx = m.outputs[1];
            Node* x = m.boundNode("x");
            Node* y = m.boundNode("y");
            return replaceOutput(m, rw, indexAdd, [&](std::vector<Node*>& created) -> Expected<Node*> {
                auto gather = rw.createOp(indexAdd, "aten._unsafe_index.Tensor",
                                          {Argument::ofNode(x), Argument::ofList({Argument::ofNode(idx)})});
                if (!gather.ok()) return gather.error();
                created.push_back(*gather);
                auto add = rw.createOp(indexAdd, "aten.add.Tensor", {Argument::ofNode(*gather), Argument::ofNode(y)});
                if (!add.ok()) return add.error();
                created.push_back(*add);
                // _unsafe_index_put(accumulate=False), as PyTorch's traced replacement spells it.
                auto put = rw.createOp(
                    indexAdd, "aten.index_put.default",
                    {Argument::ofNode(x), Argument::ofList({Argument::ofNode(idx)}), Argument::ofNode(*add)});
                if (!put.ok()) return put.error();
                created.push_back(*put);
                return *put;
            });
        }));
    out.push_back(make(
        "randperm_index_pattern", kIndex,
        [](Match& m) -> std::optional<std::string> {
            const Node* idx = m.outputs[1];
            const TensorMeta* im = tensorMeta(*idx);
            if (!im || im->dim() != 1) return "the index is not 1-D";
            return checkIndex(m, im->shape[0]);
        },
        [](Match& m, Rewriter& rw) -> Status {
            Node* index = m.outputs[0];
            Node* idx = m.outputs[1];
            Node* x = m.boundNode("x");
            return replaceOutput(m, rw, index, [&](std::vector<Node*>& created) -> Expected<Node*> {
                auto gather = rw.createOp(index, "aten._unsafe_index.Tensor",
                                          {Argument::ofNode(x), Argument::ofList({Argument::ofNode(idx)})});
                if (!gather.ok()) return gather.error();
                created.push_back(*gather);
                return *gather;
            });
        }));
    return out;
}

}  // namespace

std::unique_ptr<Pass> createMiscPatternsPass() {
    return std::make_unique<PatternRewritePass>(
        "misc_patterns",
        "misc patterns: index_add / index with a randperm index become unsafe index_put / _unsafe_index "
        "(the index is unique and in bounds); the e8m0 patterns are not ported",
        patterns());
}

}  // namespace fxray
