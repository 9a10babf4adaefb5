#include "cli/common.h"

#include "exec/compare.h"
#include "exec/shape_binding.h"
#include "import/npy.h"

#include <cstdio>
#include <filesystem>
#include <sstream>

namespace fxray::cli {

int reportError(std::ostream& err, const Diagnostic& d) {
    err << "fxray: " << d.str() << "\n";
    return 2;
}

std::map<std::string, int> opHistogram(const Graph& g) {
    std::map<std::string, int> h;
    for (const auto& n : g.nodes()) {
        switch (n->kind()) {
        case NodeKind::CallFunction: ++h[n->opName()]; break;
        case NodeKind::CallMethod: ++h["method." + n->target()]; break;
        case NodeKind::CallModule: ++h["module." + n->target()]; break;
        default: break;
        }
    }
    for (const auto& [k, sub] : g.subgraphs())
        for (const auto& [op, c] : opHistogram(*sub)) h[op] += c;
    return h;
}

namespace {
size_t countNpy(const std::filesystem::path& dir) {
    size_t n = 0;
    for (;; ++n) {
        char name[32];
        std::snprintf(name, sizeof name, "%03zu.npy", n);
        if (!std::filesystem::exists(dir / name)) break;
    }
    return n;
}
} // namespace

Expected<std::vector<Value>> loadInputs(const Graph& g, const std::string& dir, uint64_t seed,
                                        const sym::Binding* sizes) {
    if (dir.empty()) return randomInputs(g, seed, sizes);
    if (sizes && !sizes->empty()) return makeError("--sizes draws random inputs; it does not go with --inputs");
    auto phs = g.placeholders();
    auto vals = readNpyFolder(dir, phs.size());
    if (!vals.ok()) return vals.error();
    // A missing file would silently become a None input: the count must match.
    size_t have = countNpy(dir);
    if (have != phs.size()) {
        Diagnostic d = makeError("has " + std::to_string(have) + " input files but the graph takes " +
                                 std::to_string(phs.size()) + " inputs");
        d.file = dir;
        return d;
    }
    std::vector<Value> inputs = std::move(vals).value();
    if (graphIsSymbolic(g)) {
        // Dynamic shapes: SymInt files hold 0-d arrays; the annotations' layouts hold once the
        // symbols are read off the sizes.
        scalarizeSymInputs(g, inputs);
        auto b = bindInputs(g, inputs, /*withStrides=*/false);
        if (!b.ok()) {
            Diagnostic d = b.error();
            d.file = dir;
            return d;
        }
        for (size_t i = 0; i < inputs.size(); ++i) {
            if (!inputs[i].isTensor() || phs[i]->meta.empty()) continue;
            auto m = bindMeta(phs[i]->meta[0], *b);
            if (m.ok()) inputs[i].t = withAnnotatedStrides(inputs[i].t, *m);
        }
        return inputs;
    }
    for (size_t i = 0; i < inputs.size(); ++i)
        if (inputs[i].isTensor()) inputs[i].t = withAnnotatedStrides(inputs[i].t, *phs[i]);
    return inputs;
}

std::vector<std::string> splitComma(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream ss(s);
    for (std::string part; std::getline(ss, part, ',');)
        if (!part.empty()) out.push_back(part);
    return out;
}

} // namespace fxray::cli
