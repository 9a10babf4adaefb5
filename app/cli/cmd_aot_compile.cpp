// fxray aot-compile FILE: compile a static-shape graph's kernels into a shared library in the
// persistent cache (codegen/cpu/aot_cache.h), or find it there; optionally run through it.
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/common.h"
#if defined(FXRAY_HAVE_CPU_BACKEND)
#include "codegen/cpu/aot_cache.h"
#include "exec/compare.h"
#include "exec/shape_binding.h"
#include "import/npy.h"
#endif

#include <nlohmann/json.hpp>

#include <iomanip>

namespace fxray::cli {

namespace {

const char* kAotUsage =
    "usage: fxray aot-compile FILE [--graph SEL] [--cache-dir DIR] [--sizes s33=4,...] [--json]\n"
    "                         [--inputs DIR [--expect DIR]]\n"
    "  --cache-dir DIR  cache folder (default $FXRAY_CACHE_DIR, else ~/.cache/fxray)\n"
    "  --inputs DIR     also run the graph through the cached library on NNN.npy inputs\n"
    "  --expect DIR     compare those outputs with NNN.npy files (exit 1 when they differ)\n"
    "  --sizes B        symbolic graphs: the sizes to compile for (default: the inputs' sizes with\n"
    "                   --inputs, else the trace's hints, else 8); inputs of other sizes are refused\n"
    "The entry is keyed by graph fingerprint, input specs (at the binding for a symbolic graph), fxray\n"
    "and LLVM versions and target CPU; a second call with the same graph and sizes loads it without\n"
    "compiling. Each binding of a symbolic graph is its own entry.\n";

}  // namespace

int cmdAotCompile(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    std::string perr;
    auto a = parseArgs(argv, {"--graph", "--cache-dir", "--inputs", "--expect", "--sizes"}, {"--json", "--help"}, perr);
    if (!a) return reportError(err, makeError(perr));
    if (a->has("--help")) {
        out << kAotUsage;
        return Ok;
    }
    if (a->positional.size() != 1) return reportError(err, makeError("aot-compile takes one FILE"));
#if !defined(FXRAY_HAVE_CPU_BACKEND)
    (void)out;
    return reportError(err, makeError("aot-compile needs the CPU backend, which this build of fxray lacks"));
#else
    std::optional<LoadedFile> file;
    auto lgE = loadRunnable(*a, file, "compile");
    if (!lgE.ok()) return reportError(err, lgE.error());
    LoadedGraph& lg = **lgE;
    Graph& g = lg.executable();
    cg::cpu::AotOptions opts;
    opts.cacheDir = a->get("--cache-dir");
    if (a->has("--sizes")) {
        auto b = parseSizes(a->get("--sizes"));
        if (!b.ok()) return reportError(err, b.error());  // parseSizes names the option
        opts.sizes = std::move(b).value();
    }
    // Inputs first: without --sizes a symbolic graph compiles for the inputs' own sizes.
    std::vector<Value> inputs;
    if (a->has("--inputs")) {
        auto vals = loadInputs(g, a->get("--inputs"), 0, nullptr);
        if (!vals.ok()) return reportError(err, vals.error());
        inputs = std::move(vals).value();
        if (!a->has("--sizes") && graphIsSymbolic(g)) {
            auto b = bindInputs(g, inputs, /*withStrides=*/false);
            if (!b.ok()) return reportError(err, b.error());
            opts.sizes = std::move(b).value();
        }
    }
    auto e = cg::cpu::aotCompile(g, opts);
    if (!e.ok()) return reportError(err, e.error());

    nlohmann::json j{{"cache", e->hit ? "hit" : "miss"},
                     {"library", e->library},
                     {"ms", e->ms},
                     {"key", e->key},
                     {"entry", e->dir},
                     {"metadata", e->metadata},
                     {"kernels", e->kernels},
                     {"compile_ms", e->compileMs},
                     {"link_ms", e->linkMs}};
    if (!e->rebuiltBecause.empty()) j["rebuilt_because"] = e->rebuiltBecause;
    if (!e->binding.empty()) {
        nlohmann::json b = nlohmann::json::object();
        for (const auto& [s, v] : e->binding) {
            if (v.isFloat())
                b[s] = v.d;
            else
                b[s] = v.i;
        }
        j["binding"] = b;
    }
    int status = Ok;
    if (a->has("--inputs")) {
        auto loaded = cg::cpu::aotLoad(g, *e, opts);
        if (!loaded.ok()) return reportError(err, loaded.error());
        auto outs = loaded->run(inputs);  // guards the binding
        if (!outs.ok()) return reportError(err, outs.error());
        j["outputs"] = nlohmann::json::array();
        if (a->has("--expect")) {
            auto exp = readNpyFolder(a->get("--expect"), g.outputs().size());
            if (!exp.ok()) return reportError(err, exp.error());
            if (exp->size() != outs->size())
                return reportError(err, makeError("--expect holds a different number of outputs"));
            bool ok = true;
            for (size_t i = 0; i < outs->size(); ++i) {
                OutputComparison c = compareValues(i, (*outs)[i], (*exp)[i]);
                ok = ok && c.ok;
                j["outputs"].push_back({{"index", i}, {"rel_err", c.relErr}, {"ok", c.ok}});
            }
            j["ok"] = ok;
            if (!ok) status = CheckFailed;
        }
    }
    if (a->has("--json")) {
        out << j.dump(2) << "\n";
    } else {
        out << "cache " << (e->hit ? "hit" : "miss") << ": " << e->library << "\n";
        if (!e->binding.empty()) out << "  compiled for " << sym::bindingStr(e->binding) << "\n";
        out << "  " << e->kernels << " kernels, " << std::fixed << std::setprecision(1) << e->ms << " ms";
        if (!e->hit) out << " (LLVM " << e->compileMs << " ms, link " << e->linkMs << " ms)";
        out << "\n";
        if (!e->rebuiltBecause.empty()) out << "  rebuilt: " << e->rebuiltBecause << "\n";
        if (j.contains("ok")) out << "  outputs " << (j["ok"].get<bool>() ? "match" : "DIFFER") << "\n";
    }
    return status;
#endif
}

}  // namespace fxray::cli
