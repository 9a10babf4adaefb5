// The early patterns of PyTorch's joint_graph_passes: pointless_view (a view to the shape it
// already has), pointless_view_pair (view(view(x, a), shape of x)) and pointless_permute_pair
// (two permutes that cancel). Written as FX-text search/replacement graphs with extra checks.
#include "rewrite/pattern_rewriter.h"
#include "transforms/pass_util.h"
#include "transforms/passes.h"

#include <cstdio>
#include <cstdlib>

namespace fxray {

namespace {

using namespace passutil;

/// PyTorch's definitely_equal: sizes equal, allowing one -1 in the view's size.
bool definitelyEqual(const std::vector<int64_t>& have, const std::vector<int64_t>& want) {
    if (have.size() != want.size()) return false;
    int neg = 0;
    for (size_t i = 0; i < have.size(); ++i) {
        if (have[i] == want[i]) continue;
        if (want[i] != -1) return false;
        if (++neg > 1) return false;
    }
    return true;
}

std::optional<std::string> sameShapeCheck(const Match& m, const char* sizeName) {
    const Node* arg = m.boundNode("arg");
    const Argument* size = m.binding(sizeName);
    const TensorMeta* am = arg ? tensorMeta(*arg) : nullptr;
    auto sz = size ? asIntList(*size) : std::nullopt;
    if (!am || am->isSymbolic()) return "the input's shape is not known";
    if (!sz) return "the size is not a literal list";
    if (!definitelyEqual(am->shape, *sz)) return "the size differs from the input's shape";
    return std::nullopt;
}

Pattern make(std::string name, const char* search, const char* replacement, ExtraCheck check,
             bool reportNearMisses = true) {
    PatternOptions opts;
    opts.reportNearMisses = reportNearMisses;
    auto p = patternFromFxText(std::move(name), search, replacement, opts);
    if (!p.ok()) {
        // A built-in pattern that does not parse is a bug in fxray.
        std::fprintf(stderr, "fxray: internal error: %s\n", p.error().str().c_str());
        std::abort();
    }
    p->extraCheck = std::move(check);
    return std::move(p).value();
}

const char* kIdentity = R"(
class Replacement(torch.nn.Module):
    def forward(self, arg):
        return (arg,)
)";

std::vector<Pattern> patterns() {
    std::vector<Pattern> out;
    out.push_back(make(
        "pointless_view", R"(
class PointlessView(torch.nn.Module):
    def forward(self, arg, size):
        view = torch.ops.aten.view.default(arg, size)
        return (view,)
)",
        kIdentity, [](Match& m) { return sameShapeCheck(m, "size"); }, false));
    out.push_back(make("pointless_view_pair", R"(
class PointlessViewPair(torch.nn.Module):
    def forward(self, arg, _size1, size2):
        view = torch.ops.aten.view.default(arg, _size1)
        view_1 = torch.ops.aten.view.default(view, size2)
        return (view_1,)
)",
                       kIdentity, [](Match& m) { return sameShapeCheck(m, "size2"); }));
    out.push_back(make("pointless_permute_pair", R"(
class PointlessPermutePair(torch.nn.Module):
    def forward(self, arg, perm1, perm2):
        permute = torch.ops.aten.permute.default(arg, perm1)
        permute_1 = torch.ops.aten.permute.default(permute, perm2)
        return (permute_1,)
)",
                       kIdentity, [](Match& m) -> std::optional<std::string> {
                           auto p1 = asIntList(*m.binding("perm1"));
                           auto p2 = asIntList(*m.binding("perm2"));
                           if (!p1 || !p2 || p1->size() != p2->size())
                               return "permutations are not literal lists of one rank";
                           const int64_t r = static_cast<int64_t>(p1->size());
                           auto wrap = [r](int64_t d) { return d < 0 ? d + r : d; };
                           for (int64_t i = 0; i < r; ++i) {
                               int64_t j = wrap((*p2)[static_cast<size_t>(i)]);
                               if (j < 0 || j >= r || wrap((*p1)[static_cast<size_t>(j)]) != i)
                                   return "the permutations do not cancel";
                           }
                           return std::nullopt;
                       }));
    return out;
}

}  // namespace

std::unique_ptr<Pass> createPointlessViewPatternsPass() {
    return std::make_unique<PatternRewritePass>(
        "pointless_view_patterns",
        "joint-graph early patterns: remove views to the same shape, view pairs that restore the "
        "shape, permute pairs that cancel",
        patterns());
}

}  // namespace fxray
