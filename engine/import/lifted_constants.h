#pragma once
/// Values for lifted tensor constants (`_tensor_constant0 = self._tensor_constant0`).
///
/// AOT graphs print lifted constants as attributes without their values. Where the same compile's
/// Dynamo graph is at hand, each such constant comes from a `torch.tensor(<literal>)` call at the
/// same source location; this links the two, so the AOT graph can be executed. Without it, the
/// graph's own provenance comments may quote the literal. Literal data is read as data (numbers
/// and nested lists), never evaluated.
#include "ir/graph.h"

#include <string>
#include <vector>

namespace fxray {

/// get_attr targets of g (recursively) that are neither submodules nor known constants.
std::vector<std::string> missingConstants(const Graph& g);

/// Fills g.constants for missing lifted constants from `torch.tensor(...)` nodes of `dynamo`
/// and the int-list items of its `operator.getitem` indices (`x[..., [-2], :]`) with the same
/// provenance comment and the same dtype/shape, matched in order. Returns the names it filled.
std::vector<std::string> linkLiftedConstants(Graph& g, const Graph& dynamo);

/// Fills g.constants for missing lifted constants whose value the graph text itself determines:
/// an empty tensor (the annotation is the whole value), or the one literal `torch.tensor(...)`,
/// `torch.zeros/ones/full/arange(...)` call of the constant's shape and dtype on the source line
/// its provenance comment quotes (several such calls with different values decide nothing).
/// Returns the names it filled.
std::vector<std::string> inferLiftedConstants(Graph& g);

/// A lifted constant whose value inferConstantsFromUse set, and why (a sentence for the notes).
struct InferredConstant {
    std::string name;
    std::string reason;
};

/// Fills g.constants for missing lifted constants whose value the graph's use of them makes
/// certain, for the cases torch.masked traces to (lifted_constants_use.cpp says which):
/// - a 0-d fill of `where.self(mask, x, fill)` whose result a reduction takes: the reduction's
///   identity, the one fill that leaves masked-out elements out of the result (sum 0, prod 1,
///   amax/softmax -inf, amin +inf, ...); reductions that disagree decide nothing;
/// - a constant no graph output depends on (no in-place op on the way): zeros.
/// Rebuilds g's users. Returns what it filled; the caller reports each reason.
std::vector<InferredConstant> inferConstantsFromUse(Graph& g);

}  // namespace fxray
