// addmm_patterns: the freezing patterns of PyTorch's addmm_patterns_init
// (fx_passes/freezing_patterns.py). Products that share their input and whose weights are
// constants are computed as one product with the weights concatenated, then split:
//  - matmul_fuse_pattern:       mm(x, w1), mm(x, w2), mm(x, w3) -> mm(x, cat([w1, w2, w3], 1)).chunk(3, 1)
//  - matmul_fuse_pattern_two:   the same with two products
//  - addmm_fuse_pattern_second: addmm(b1, x, w1), ... x3       -> addmm(cat(b), x, cat(w, 1)).chunk(3, 1)
// with PyTorch's check_concat_weights: weights (and biases) are constants of one shape, every
// input has the same dtype. chunk is written as its decomposition, split.Tensor + getitem; the
// cat of constants is left for the next constant folding. As in PyTorch, a group takes the first
// products in graph order (its pattern has exactly three, or two, outputs).
#include "rewrite/pattern_rewriter.h"
#include "rewrite/rewriter.h"
#include "transforms/freezing.h"
#include "transforms/pass_util.h"
#include "transforms/passes.h"

#include <algorithm>
#include <map>

namespace fxray {

namespace {

using namespace passutil;

struct Product {
    Node* node;
    Node* weight;
    Node* bias;  ///< addmm only
};

class ConcatLinearPass : public Pass {
public:
    ConcatLinearPass() {
        m_mm3 = declareStatistic("matmul_fuse_pattern", "three mm's fused");
        m_mm2 = declareStatistic("matmul_fuse_pattern_two", "two mm's fused");
        m_addmm = declareStatistic("addmm_fuse_pattern_second", "three addmm's fused");
    }
    std::string_view name() const override { return "addmm_patterns"; }
    std::string_view summary() const override {
        return "freezing: 3 addmm / 3 or 2 mm sharing an input with constant weights become one product on the "
               "concatenated weights, then split (PyTorch's addmm_patterns_init)";
    }

    PassResult runOnGraph(Graph& g, PassContext& ctx) override {
        Rewriter rw(g, ctx);
        rw.order();
        bool changed = false;
        std::vector<Node*> order;
        for (const auto& n : g.nodes()) order.push_back(n.get());
        for (Node* inp : order) {
            if (rw.isErased(inp)) continue;
            for (bool addmm : {true, false}) {
                std::vector<Product> prods;
                for (Node* u : inp->users) {
                    if (auto p = asProduct(u, inp, addmm)) prods.push_back(*p);
                }
                std::sort(prods.begin(), prods.end(),
                          [](const Product& a, const Product& b) { return a.node->index < b.node->index; });
                while (prods.size() >= (addmm ? 3u : 2u)) {
                    size_t k = prods.size() >= 3 ? 3 : 2;
                    std::vector<Product> grp(prods.begin(), prods.begin() + std::ptrdiff_t(k));
                    prods.erase(prods.begin(), prods.begin() + std::ptrdiff_t(k));
                    if (fuse(g, inp, grp, addmm, rw, ctx)) changed = true;
                    rw.order();
                }
            }
        }
        if (changed) stableTopologicalSort(g);
        return PassResult::success(changed);
    }

private:
    static std::optional<Product> asProduct(Node* u, Node* inp, bool addmm) {
        std::string op = opOf(*u);
        if (addmm) {
            if (op != "aten.addmm.default" || u->args.size() != 3 || !u->kwargs.empty()) return std::nullopt;
            if (!u->args[1].isNode() || u->args[1].node != inp || !u->args[0].isNode() || !u->args[2].isNode())
                return std::nullopt;
            return Product{u, u->args[2].node, u->args[0].node};
        }
        if (op != "aten.mm.default" || u->args.size() != 2) return std::nullopt;
        if (!u->args[0].isNode() || u->args[0].node != inp || !u->args[1].isNode()) return std::nullopt;
        return Product{u, u->args[1].node, nullptr};
    }

    bool fuse(Graph& g, Node* inp, const std::vector<Product>& grp, bool addmm, Rewriter& rw, PassContext& ctx) {
        const std::string rule = addmm             ? "addmm_fuse_pattern_second"
                                 : grp.size() == 3 ? "matmul_fuse_pattern"
                                                   : "matmul_fuse_pattern_two";
        Node* anchor = grp.back().node;
        const TensorMeta* im = tensorMeta(*inp);
        if (!im) return false;
        // check_concat_weights.
        for (const Product& p : grp) {
            if (!constantValue(p.weight))
                return ctx.notifyMatchFailure(rule, *anchor, "weight '" + p.weight->name() + "' is not a constant");
            if (p.bias && !constantValue(p.bias))
                return ctx.notifyMatchFailure(rule, *anchor, "bias '" + p.bias->name() + "' is not a constant");
            const TensorMeta *wm = tensorMeta(*p.weight), *w0 = tensorMeta(*grp[0].weight);
            if (!wm || !w0 || wm->shape != w0->shape)
                return ctx.notifyMatchFailure(rule, *anchor, "the weights differ in shape");
            if (wm->dtype != im->dtype)
                return ctx.notifyMatchFailure(rule, *anchor, "the weights' dtype differs from the input's");
            if (p.bias) {
                const TensorMeta *bm = tensorMeta(*p.bias), *b0 = tensorMeta(*grp[0].bias);
                if (!bm || !b0 || bm->shape != b0->shape)
                    return ctx.notifyMatchFailure(rule, *anchor, "the biases differ in shape");
                if (bm->dtype != im->dtype)
                    return ctx.notifyMatchFailure(rule, *anchor, "the biases' dtype differs from the input's");
                if (bm->dim() != 1)
                    return ctx.notifyMatchFailure(rule, *anchor, "a bias that is not 1-D is not concatenated");
            }
        }
        const TensorMeta* w0 = tensorMeta(*grp[0].weight);
        if (w0->dim() != 2) return false;
        rw.order();
        Node* first = grp[0].node;
        for (const Product& p : grp) {
            if (p.node->index < first->index) first = p.node;
        }
        // Constants read after the first product (the later layers' weights) move up: a get_attr
        // has no inputs, so it can be read anywhere.
        for (const Product& p : grp)
            for (Node* c : {p.weight, p.bias})
                if (c && c->index > first->index) rw.moveBefore(c, first);
        rw.order();
        rw.setPattern(rule);
        std::vector<Node*> created;
        auto undo = [&](const Diagnostic& d) {
            for (auto c = created.rbegin(); c != created.rend(); ++c) rw.erase(*c);
            rw.setPattern("");
            return ctx.notifyMatchFailure(rule, *anchor, "replacement failed: " + d.str());
        };
        std::vector<Argument> ws, bs;
        for (const Product& p : grp) {
            ws.push_back(Argument::ofNode(p.weight));
            if (p.bias) bs.push_back(Argument::ofNode(p.bias));
        }
        auto catW = rw.createOp(first, "aten.cat.default", {Argument::ofList(ws), Argument::ofInt(1)});
        if (!catW.ok()) return undo(catW.error());
        created.push_back(*catW);
        Node* prod = nullptr;
        if (addmm) {
            auto catB = rw.createOp(first, "aten.cat.default", {Argument::ofList(bs)});
            if (!catB.ok()) return undo(catB.error());
            created.push_back(*catB);
            auto r = rw.createOp(first, "aten.addmm.default",
                                 {Argument::ofNode(*catB), Argument::ofNode(inp), Argument::ofNode(*catW)});
            if (!r.ok()) return undo(r.error());
            created.push_back(prod = *r);
        } else {
            auto r = rw.createOp(first, "aten.mm.default", {Argument::ofNode(inp), Argument::ofNode(*catW)});
            if (!r.ok()) return undo(r.error());
            created.push_back(prod = *r);
        }
        // chunk(k, dim=1) decomposes to split.Tensor with the rounded-up chunk size.
        const int64_t total = w0->shape[1] * int64_t(grp.size());
        const int64_t chunk = (total + int64_t(grp.size()) - 1) / int64_t(grp.size());
        auto split = rw.createOp(first, "aten.split.Tensor",
                                 {Argument::ofNode(prod), Argument::ofInt(chunk), Argument::ofInt(1)});
        if (!split.ok()) return undo(split.error());
        created.push_back(*split);
        std::vector<Node*> items;
        for (size_t i = 0; i < grp.size(); ++i) {
            Node* it = rw.createGetItem(first, *split, int64_t(i));
            created.push_back(it);
            items.push_back(it);
            const TensorMeta *a = tensorMeta(*it), *b = tensorMeta(*grp[i].node);
            if (!a || !b || a->shape != b->shape) return undo(makeError("a chunk does not have its product's shape"));
        }
        std::vector<std::string> matched;
        for (const Product& p : grp) matched.push_back(p.node->name());
        for (size_t i = 0; i < grp.size(); ++i) {
            rw.replaceAllUsesWith(grp[i].node, items[i]);
            rw.erase(grp[i].node);
        }
        rw.setPattern("");
        std::vector<std::string> newNames;
        for (Node* c : created) newNames.push_back(c->name());
        ctx.recordMatch(rule, matched, newNames);
        bump(addmm ? m_addmm : grp.size() == 3 ? m_mm3 : m_mm2);
        (void)g;
        return true;
    }

    size_t m_mm3 = 0, m_mm2 = 0, m_addmm = 0;
};

}  // namespace

std::unique_ptr<Pass> createConcatLinearPatternsPass() { return std::make_unique<ConcatLinearPass>(); }

}  // namespace fxray
