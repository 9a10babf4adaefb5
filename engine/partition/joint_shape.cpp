#include "partition/joint_shape.h"

namespace fxray::partition {
namespace {

bool startsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

/// A joint graph's inputs besides the tangents: the primals, and the RNG seeds and offsets that
/// functionalized random ops add for each side.
bool isForwardInput(std::string_view name) {
    for (std::string_view p : {"primals_", "fwd_seed", "fwd_base_offset", "bwd_seed", "bwd_base_offset"})
        if (startsWith(name, p)) return true;
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
    const Node* tangent = nullptr;
    const Node* other = nullptr;
    for (const Node* p : g.placeholders()) {
        if (startsWith(p->name(), "tangents_"))
            tangent = tangent ? tangent : p;
        else if (!isForwardInput(p->name()))
            other = other ? other : p;
    }
    if (!tangent) return std::string("not a joint graph: no tangents_* input, nothing to partition");
    if (other)
        return "takes '" + other->name() +
               "' besides primals_* and tangents_*: a backward graph (its saved tensors), not a joint one";
    // A backward graph that recomputes everything saves only primals; it returns one gradient per
    // forward input, while a joint returns its forward outputs (one per tangent) and then those.
    size_t primals = 0, tangents = 0;
    for (const Node* p : g.placeholders()) {
        tangents += startsWith(p->name(), "tangents_");
        primals += startsWith(p->name(), "primals_");  // RNG seeds and offsets get no gradient
    }
    const size_t outputs = g.outputs().size();
    if (outputs < primals + tangents)
        return "returns " + std::to_string(outputs) + " values for " + std::to_string(primals) + " primals and " +
               std::to_string(tangents) +
               " tangents (a joint returns its forward outputs and then a gradient per primal): a backward "
               "graph, not a joint one";
    return std::nullopt;
}

}  // namespace fxray::partition
