#include "partition/joint_shape.h"

namespace fxray::partition {
namespace {

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

/// A joint graph's inputs besides the tangents: the primals, and the RNG seeds and offsets that
/// functionalized random ops add for each side.
bool isForwardInput(std::string_view name) {
    for (std::string_view p : {"primals_", "fwd_seed", "fwd_base_offset", "bwd_seed", "bwd_base_offset"})
        if (name.starts_with(p)) return true;
    return false;
}

}  // namespace

std::optional<std::string> whyNotJoint(const Graph& g, std::string_view stage) {
    if (contains(stage, "joint")) return std::nullopt;
    // PyTorch already split these: Inductor's post-grad graphs and the AOT graphs it compiles.
    for (std::string_view kind : {"backward", "forward", "inference", "post_grad"})
        if (contains(stage, kind))
            return "a " + std::string(kind == "post_grad" ? "post-grad" : kind) +
                   " graph, not a joint one: PyTorch already partitioned it";
    // `def forward(self, primals, tangents)`: the joint signature itself, as AOTAutograd prints it.
    const auto& groups = g.signature.pytreeGroups;
    if (groups.size() == 2 && groups[0] == "primals" && groups[1] == "tangents") return std::nullopt;
    const Node* other = nullptr;  // the first input that is neither a forward input nor a tangent
    size_t primals = 0, tangents = 0;
    for (const Node* p : g.placeholders()) {
        const bool tangent = p->name().starts_with("tangents_");
        tangents += tangent;
        primals += p->name().starts_with("primals_");  // RNG seeds and offsets get no gradient
        if (!tangent && !other && !isForwardInput(p->name())) other = p;
    }
    if (tangents == 0) return std::string("not a joint graph: no tangents_* input, nothing to partition");
    if (other)
        return "takes '" + other->name() +
               "' besides primals_* and tangents_*: a backward graph (its saved tensors), not a joint one";
    // A backward graph that recomputes everything saves only primals; it returns one gradient per
    // forward input, while a joint returns its forward outputs (one per tangent) and then those.
    const size_t outputs = g.outputs().size();
    if (outputs < primals + tangents)
        return "returns " + std::to_string(outputs) + " values for " + std::to_string(primals) + " primals and " +
               std::to_string(tangents) +
               " tangents (a joint returns its forward outputs and then a gradient per primal): a backward "
               "graph, not a joint one";
    return std::nullopt;
}

}  // namespace fxray::partition
