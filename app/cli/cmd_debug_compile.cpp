// fxray debug-compile FILE --out DIR: what PyTorch's functorch `debug_compile` does for an FX
// graph — save it (graph + inputs) to a folder and print the commands that minify it.
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/common.h"
#include "exec/compare.h"
#include "ir/op_registry.h"
#include "minify/repro_export.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace fxray::cli {

namespace {

const char* kDebugCompileUsage =
    "usage: fxray debug-compile FILE [--graph SEL] [--inputs DIR] [--seed N] --out DIR [--json]\n"
    "  writes DIR/graph.py (FX text), DIR/inputs/NNN.npy, DIR/repro.py (eager PyTorch run) and prints\n"
    "  the fxray minify commands for the usual failures\n";

}  // namespace

int cmdDebugCompile(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    std::string perr;
    auto a = parseArgs(argv, {"--graph", "--inputs", "--seed", "--out"}, {"--json", "--help"}, perr);
    if (!a) return reportError(err, makeError(perr));
    if (a->has("--help")) {
        out << kDebugCompileUsage;
        return Ok;
    }
    if (a->positional.size() != 1) return reportError(err, makeError("debug-compile takes one FILE"));
    if (!a->has("--out")) return reportError(err, makeError("debug-compile needs --out DIR"));
    uint64_t seed = 0;
    try {
        if (a->has("--seed")) seed = std::stoull(a->get("--seed"));
    } catch (...) {
        return reportError(err, makeError("--seed takes a non-negative integer"));
    }
    auto f = loadFile(a->positional[0]);
    if (!f.ok()) return reportError(err, f.error());
    auto lgE = selectGraph(*f, a->get("--graph"));
    if (!lgE.ok()) return reportError(err, lgE.error());
    Graph& g = (*lgE)->executable();
    auto loaded = loadInputs(g, a->get("--inputs"), seed);
    if (!loaded.ok()) return reportError(err, loaded.error());
    const std::vector<Value>& inputs = *loaded;
    const std::filesystem::path dir = a->get("--out");
    const std::string graphPath = (dir / "graph.py").string();
    const std::string base = "fxray minify " + graphPath + " --inputs " + (dir / "inputs").string();
    if (auto s =
            minify::writeGraphFolder(dir, g, inputs, nullptr, "graph.py", base + " --check accuracy:ref64-vs-ref32");
        !s.ok())
        return reportError(err, s.error());

    // The most frequent computing ATen op (views only move data) is a good first target for a
    // fault-injection dry run.
    auto hist = opHistogram(g);
    std::string op = "aten.mm.default";
    int best = 0;
    for (const auto& [name, count] : hist) {
        const OpInfo* info = OpRegistry::instance().find(name);
        bool computes = info && (info->category == OpCategory::Pointwise || info->category == OpCategory::Reduction ||
                                 info->category == OpCategory::Extern);
        if (computes && count > best) best = count, op = name;
    }
    std::vector<std::string> commands = {
        base + " --check 'pass-fails:PASS:REGEX' --out " + (dir / "minified").string(),
        base + " --check accuracy:ref64-vs-ref32 --out " + (dir / "minified").string(),
        base + " --check accuracy:ref-vs-cpu --out " + (dir / "minified").string(),
        base + " --inject " + op + ":scale=1.01 --out " + (dir / "minified").string(),
        base + " --check 'command:./interesting.sh' --out " + (dir / "minified").string(),
    };
    if (a->has("--json")) {
        nlohmann::json j;
        j["out"] = dir.string();
        j["graph"] = graphPath;
        j["inputs"] = (dir / "inputs").string();
        j["nodes"] = g.size();
        j["commands"] = commands;
        out << j.dump(1) << "\n";
        return Ok;
    }
    out << "saved " << (*lgE)->stage << " (" << g.size() << " nodes) to " << dir.string()
        << " (graph.py, inputs/, repro.py)\n\n"
           "##############################################################\n"
           "# To minimize this FX graph, run the command for your failure #\n"
           "##############################################################\n\n"
           "# a pass fails (or crashes) with a message matching REGEX:\n"
        << commands[0] << "\n# fp32 differs from fp64 beyond tolerance:\n"
        << commands[1] << "\n# the CPU backend disagrees with the reference (when built):\n"
        << commands[2] << "\n# a dry run: a 1.01 fault injected into " << op << "\n"
        << commands[3] << "\n# your own interestingness test (exit 0 = still fails; run in the candidate's folder):\n"
        << commands[4] << "\n";
    return Ok;
}

}  // namespace fxray::cli
