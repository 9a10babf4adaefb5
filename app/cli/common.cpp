#include "cli/common.h"

#include "exec/compare.h"
#include "exec/shape_binding.h"
#include "import/npy.h"

#include <algorithm>
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
}  // namespace

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
    if (Status st = layOutRecordedInputs(g, inputs); !st.ok()) {
        Diagnostic d = st.error();
        d.file = dir;
        return d;
    }
    return inputs;
}

Expected<LoadedGraph*> loadRunnable(const Args& a, std::optional<LoadedFile>& file, const std::string& verb) {
    auto f = loadFile(a.positional.at(0));
    if (!f.ok()) return f.error();
    file.emplace(std::move(f).value());
    auto lg = selectGraph(*file, a.get("--graph"));
    if (!lg.ok()) return lg.error();
    const auto& unknown = (*lg)->executableUnknownOps();
    if (!unknown.empty()) {
        std::string ops;
        for (const auto& o : unknown) ops += (ops.empty() ? "" : ", ") + o;
        Diagnostic d = makeError("cannot " + verb + ": unknown op(s) " + ops);
        d.file = (*lg)->executable().sourceFile;
        return d;
    }
    return *lg;
}

Expected<sym::Binding> sizesOption(const Args& a, const Graph& g) {
    if (!a.has("--sizes")) return sym::Binding{};
    auto sizes = parseSizes(a.get("--sizes"));
    if (!sizes.ok()) return sizes.error();
    const auto syms = inputSymbols(g);
    std::string have;
    for (const auto& s : syms) have += (have.empty() ? "" : ", ") + s;
    for (const auto& [name, v] : *sizes)
        if (std::find(syms.begin(), syms.end(), name) == syms.end())
            return makeError("--sizes: the graph's inputs have no symbol " + name + " (" +
                             (syms.empty() ? std::string("the graph is static") : "they have " + have) + ")");
    return sizes;
}

std::vector<std::string> splitComma(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream ss(s);
    for (std::string part; std::getline(ss, part, ',');)
        if (!part.empty()) out.push_back(part);
    return out;
}

}  // namespace fxray::cli
