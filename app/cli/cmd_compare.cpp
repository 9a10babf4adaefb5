// fxray compare FILE [--graph SEL] --backends ref,cpu[,cuda] [--inputs DIR] [--seed N] [--json]:
// runs one graph on several backends with the same inputs and seed and compares each backend's
// outputs with the first one's (PyTorch's same() rule: rel_err, else the fp64-referenced RMSE
// judgement). Backends that can report every node's value (ref, ref64) are also compared node by
// node, in graph order, and the first node where they diverge is named: that is where to look.
// The compiled backends (cpu, cuda) fuse nodes into kernels and report outputs only.
#include "cli/cli.h"
#include "cli/args.h"
#include "cli/common.h"

#include "exec/compare.h"
#include "exec/run_check.h"
#include "import/loader.h"
#include "minify/backend.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <ostream>
#include <sstream>

namespace fxray::cli {

namespace {

constexpr const char* kUsage =
    "usage: fxray compare FILE [--graph SEL] --backends ref,cpu[,cuda] [--inputs DIR] [--seed N] [--json]\n"
    "  runs the graph on each backend (ref, ref64, cpu, cuda) with the same inputs and compares every\n"
    "  backend with the first; exit 0 when all agree, 1 when one differs, 2 on bad input\n";

std::vector<std::string> splitComma(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream ss(s);
    for (std::string part; std::getline(ss, part, ',');)
        if (!part.empty()) out.push_back(part);
    return out;
}

struct BackendRun {
    std::string name;
    std::vector<Value> outputs;
    std::map<std::string, Value> nodes;  ///< empty unless the backend observes nodes
    bool observed = false;
};

} // namespace

int cmdCompare(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    std::string perr;
    auto a = parseArgs(args, {"--graph", "--backends", "--inputs", "--seed"}, {"--json", "--help"}, perr);
    if (!a) return reportError(err, makeError(perr));
    if (a->has("--help")) {
        out << kUsage;
        return 0;
    }
    if (a->positional.size() != 1) return reportError(err, makeError("compare takes one FILE"));
    const std::vector<std::string> names = splitComma(a->get("--backends", "ref,cpu"));
    if (names.size() < 2) return reportError(err, makeError("--backends needs at least two backends, e.g. ref,cpu"));
    uint64_t seed = 0;
    try {
        seed = std::stoull(a->get("--seed", "0"));
    } catch (...) {
        return reportError(err, makeError("--seed takes a non-negative integer"));
    }
    std::vector<std::unique_ptr<minify::ExecBackend>> backends;
    for (const auto& n : names) {
        auto b = minify::makeBackend(n);
        if (!b.ok()) return reportError(err, b.error());
        backends.push_back(std::move(b).value());
    }

    auto f = loadFile(a->positional[0]);
    if (!f.ok()) return reportError(err, f.error());
    auto lg = selectGraph(*f, a->get("--graph"));
    if (!lg.ok()) return reportError(err, lg.error());
    const Graph& g = (*lg)->executable();
    auto phs = g.placeholders();
    std::vector<Value> inputs;
    if (a->has("--inputs")) {
        auto vals = readNpyFolder(a->get("--inputs"), phs.size());
        if (!vals.ok()) return reportError(err, vals.error());
        inputs = std::move(vals).value();
        for (size_t i = 0; i < inputs.size(); ++i)
            if (inputs[i].isTensor()) inputs[i].t = withAnnotatedStrides(inputs[i].t, *phs[i]);
    } else {
        auto vals = randomInputs(g, seed);
        if (!vals.ok()) return reportError(err, vals.error());
        inputs = std::move(vals).value();
    }

    std::vector<BackendRun> runs;
    for (auto& b : backends) {
        BackendRun r;
        r.name = b->name();
        r.observed = b->observesNodes();
        auto o = b->run(g, inputs, seed, r.observed ? &r.nodes : nullptr);
        if (!o.ok()) {
            Diagnostic d = o.error();
            d.message = "backend '" + r.name + "': " + d.message;
            return reportError(err, d);
        }
        r.outputs = std::move(o).value();
        runs.push_back(std::move(r));
    }
    // The fp64 opinion for outputs whose rel_err fails (same() as PyTorch judges accuracy).
    std::vector<Value> ref64;
    {
        auto b = minify::makeBackend("ref64");
        if (b.ok()) {
            auto o = (*b)->run(g, inputs, seed, nullptr);
            if (o.ok()) ref64 = std::move(o).value();
        }
    }

    bool allOk = true;
    nlohmann::json jOutputs = nlohmann::json::array();
    const BackendRun& base = runs[0];
    for (size_t k = 1; k < runs.size(); ++k) {
        const BackendRun& r = runs[k];
        for (size_t i = 0; i < base.outputs.size() && i < r.outputs.size(); ++i) {
            OutputComparison c = compareValues(i, r.outputs[i], base.outputs[i]);
            if (!c.ok && i < ref64.size()) judgeWithFp64(c, r.outputs[i], base.outputs[i], ref64[i]);
            allOk &= c.ok;
            jOutputs.push_back({{"index", i}, {"backend", r.name}, {"rel_err", c.relErr}, {"max_abs_err", c.maxAbsErr},
                                {"ok", c.ok}, {"fp64_judged", c.fp64Judged}});
        }
        if (r.outputs.size() != base.outputs.size()) allOk = false;
    }

    // Node by node, between the first backend and each other one that reports nodes.
    nlohmann::json firstDivergent = nullptr;
    nlohmann::json nodeCounts = nlohmann::json::object();
    for (size_t k = 1; k < runs.size() && base.observed; ++k) {
        const BackendRun& r = runs[k];
        if (!r.observed) continue;
        size_t compared = 0, differ = 0;
        for (const auto& n : g.nodes()) {
            auto x = base.nodes.find(n->name());
            auto y = r.nodes.find(n->name());
            if (x == base.nodes.end() || y == r.nodes.end() || !x->second.isTensor() || !y->second.isTensor()) continue;
            OutputComparison c = compareValues(0, y->second, x->second);
            ++compared;
            if (c.ok) continue;
            ++differ;
            if (firstDivergent.is_null())
                firstDivergent = {{"node", n->name()}, {"target", n->target()}, {"backend", r.name}, {"rel_err", c.relErr}};
        }
        nodeCounts[r.name] = {{"compared", compared}, {"differ", differ}};
    }

    nlohmann::json j{{"ok", allOk},
                     {"graph", (*lg)->id},
                     {"backends", names},
                     {"outputs", jOutputs},
                     {"first_divergent_node", firstDivergent},
                     {"nodes", nodeCounts}};
    std::vector<std::string> unobserved;
    for (const auto& r : runs)
        if (!r.observed) unobserved.push_back(r.name);
    if (!unobserved.empty()) j["outputs_only"] = unobserved;
    if (a->has("--json")) {
        out << j.dump(1) << "\n";
    } else {
        for (const auto& o : jOutputs)
            out << "output " << o["index"].get<size_t>() << " " << o["backend"].get<std::string>() << " vs " << names[0]
                << ": rel_err " << o["rel_err"].get<double>() << (o["ok"].get<bool>() ? "  ok" : "  DIFFERS") << "\n";
        if (!firstDivergent.is_null())
            out << "first divergent node: " << firstDivergent["node"].get<std::string>() << " ("
                << firstDivergent["target"].get<std::string>() << ")\n";
        for (const auto& n : unobserved)
            out << "note: backend '" << n << "' fuses nodes into kernels and reports outputs only\n";
        out << (allOk ? "all backends agree\n" : "backends differ\n");
    }
    return allOk ? 0 : 1;
}

} // namespace fxray::cli
