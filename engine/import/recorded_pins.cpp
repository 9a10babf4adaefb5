#include "import/recorded_pins.h"

#include "exec/compare.h"
#include "import/loader.h"
#include "import/npy.h"
#include "ir/op_registry.h"

namespace fxray {

std::set<std::string> randomDerived(const Graph& g) {
    std::set<const Node*> tainted;
    for (const auto& n : g.nodes()) {
        bool random = n->op() && n->op()->category == OpCategory::Random;
        if (random && n->target().find("dropout") != std::string::npos && n->args.size() > 1 && n->args[1].isNumber() &&
            (n->args[1].kind == Argument::Kind::Float ? n->args[1].f : double(n->args[1].i)) == 0.0)
            random = false;
        for (Node* in : n->inputNodes()) random = random || tainted.count(in);
        if (random) tainted.insert(n.get());
    }
    std::set<std::string> names;
    for (auto* n : tainted) names.insert(n->name());
    return names;
}

std::optional<std::map<std::string, Value>> recordedRandomPins(const Graph& g, const std::filesystem::path& dir) {
    std::map<std::string, Value> pins;
    auto tainted = randomDerived(g);
    if (tainted.empty()) return pins;
    auto fw = loadFile(dir / "forward.py");
    if (!fw.ok()) return std::nullopt;
    auto outs = fw->graphs[0].graph->outputs();
    auto vals = readNpyFolder(dir / "forward" / "outputs", outs.size());
    if (!vals.ok()) return std::nullopt;
    for (size_t i = 0; i < outs.size(); ++i)
        if (outs[i].isNode() && tainted.count(outs[i].node->name()) && (*vals)[i].isTensor())
            pins[outs[i].node->name()] = (*vals)[i];
    return pins;
}

}  // namespace fxray
