#pragma once
/// Is a loaded graph a joint forward+backward graph, the only kind the partitioner cuts? The app
/// asks before it partitions on its own: a backward graph also takes `tangents_*`, and cutting one
/// again would show a made-up "partition" of a graph PyTorch already split.
#include "ir/graph.h"

#include <optional>
#include <string>
#include <string_view>

namespace fxray::partition {

/// nullopt when `g` is a joint graph; otherwise why not, in words for the user. `stage` is the
/// loader's stage name (`aot_joint_graph`, `aot_backward_graph`, `inductor_post_grad_graph`, a
/// file stem, or empty). A stage naming a joint decides yes and one naming a forward, backward,
/// inference or post-grad graph decides no; otherwise the placeholders decide, as in AOTAutograd's
/// joint signature `forward(self, primals, tangents)`: some `tangents_*` and nothing but
/// `primals_*` besides (a backward graph also takes the saved activations).
std::optional<std::string> whyNotJoint(const Graph& g, std::string_view stage);

}  // namespace fxray::partition
