// fxray minify FILE: shrink a failing graph to a small one that fails the same way, and write
// it with its inputs and a PyTorch repro.py. The hidden `__minify-query DIR` is the isolated
// query process the minifier spawns (this same executable).
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/common.h"
#include "exec/compare.h"
#include "exec/shape_binding.h"
#include "import/constants_folder.h"
#include "import/lifted_constants.h"
#include "import/npy.h"
#include "ir/printer.h"
#include "minify/inject.h"
#include "minify/minifier.h"
#include "minify/repro_export.h"
#include "minify/subprocess.h"
#include "transforms/passes.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iomanip>
#include <sstream>

namespace fxray::cli {

namespace {

const char* kMinifyUsage =
    "usage: fxray minify FILE [--graph SEL] --check SPEC... [--inject SPEC]... [--jobs N] [--timeout S]\n"
    "                    [--inputs DIR | --sizes S=N,...] [--seed N] [--tol X] [--pipeline P | --passes LIST] "
    "[--max-queries N]\n"
    "                    [--no-localize] [--no-bisect] [--keep-temp] [--python PY] [--quiet] [--out DIR] [--json]\n"
    "  --check SPEC    what makes a graph interesting (all must hold):\n"
    "                    pass-fails:NAME:REGEX   pass NAME fails (or crashes) with a message matching REGEX\n"
    "                    accuracy:A-vs-B         sides differ like PyTorch's same() judges (ref, ref64, cpu, cuda)\n"
    "                    command:CMD             CMD (sh, run in the candidate's folder) exits 0 (alias external:CMD)\n"
    "                    torch-compile[:BACKEND[@DEVICE]][:KEY=VALUE,...]\n"
    "                                            fxray's repro.py of the candidate fails under PyTorch's\n"
    "                                            torch.compile (default backend inductor, device cuda when\n"
    "                                            PyTorch sees one) with the same exception type and first\n"
    "                                            message line; KEY=VALUE patch torch._inductor.config, e.g.\n"
    "                                            "
    "torch-compile:inductor@cpu:cpp.inject_relu_bug_TESTING_ONLY=compile_error\n"
    "  --inject SPEC   a fault on the tested side: OP:scale=F, OP:fail-in=PASS, OP:crash-in=PASS,\n"
    "                  OP:hang-in=PASS; without --check: clean reference vs injected\n"
    "  --jobs N        queries at once (default 1)      --timeout S  per query (default 60; torch-compile 300)\n"
    "  --inputs DIR    NNN.npy per placeholder (default: seeded random inputs)\n"
    "  --sizes S=N,... dynamic shapes: random inputs at these sizes (default: the trace's hints, else 8);\n"
    "                  the minimized graph's inputs keep every symbol bound to them\n"
    "  --pipeline P    passes for pass-fails checks (default joint); --passes A,B,C names them\n"
    "  --out DIR       minified.py, inputs/NNN.npy, repro.py, session.json, minified.fxray\n"
    "  --no-localize   skip isolating the first node where the sides part (general reducer only)\n"
    "  --no-bisect     do not narrow a pass failure to the failing pass first\n"
    "  --python PY     the Python with PyTorch for torch-compile checks (default $FXRAY_PYTHON, else python3)\n"
    "exit status: 0 minified, 1 the graph does not show the failure, 2 bad input\n";

std::string quoteArg(const std::string& s) {
    if (!s.empty() && s.find_first_of(" \t'\"$\\*?()[]{};&|<>") == std::string::npos) return s;
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

}  // namespace

int cmdMinify(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    std::string perr;
    auto a = parseArgs(argv,
                       {"--graph", "--check", "--inject", "--jobs", "--timeout", "--inputs", "--seed", "--tol",
                        "--pipeline", "--passes", "--max-queries", "--out", "--constants", "--sizes", "--python"},
                       {"--json", "--help", "--no-localize", "--no-bisect", "--keep-temp", "--quiet"}, perr);
    if (!a) return reportError(err, makeError(perr));
    if (a->has("--help")) {
        out << kMinifyUsage;
        return Ok;
    }
    if (a->positional.size() != 1)
        return reportError(err, makeError("minify takes one FILE (see fxray minify --help)"));

    auto specE = minify::parseFailureSpec(a->all("--check"), a->all("--inject"));
    if (!specE.ok()) return reportError(err, specE.error());
    minify::MinifyOptions opts;
    opts.spec = std::move(specE).value();
    auto number = [&](const char* opt, double def, double lo, double& v) -> bool {
        v = def;
        if (!a->has(opt)) return true;
        try {
            size_t used = 0;
            v = std::stod(a->get(opt), &used);
            if (used != a->get(opt).size()) throw 0;
        } catch (...) {
            return false;
        }
        return v >= lo;
    };
    double jobs, timeout, seed, tol, maxQ;
    if (!number("--jobs", 1, 1, jobs)) return reportError(err, makeError("--jobs takes a positive integer"));
    // A torch.compile query starts Python and compiles cold: more time than fxray's own queries.
    bool torchCheck = false;
    for (const auto& c : opts.spec.checks) torchCheck = torchCheck || c.kind == minify::CheckSpec::Kind::TorchCompile;
    if (!number("--timeout", torchCheck ? 300 : 60, 0.001, timeout))
        return reportError(err, makeError("--timeout takes a positive number of seconds"));
    if (!number("--seed", 0, 0, seed)) return reportError(err, makeError("--seed takes a non-negative integer"));
    if (!number("--tol", 1e-3, 0, tol)) return reportError(err, makeError("--tol takes a non-negative number"));
    if (!number("--max-queries", 0, 0, maxQ))
        return reportError(err, makeError("--max-queries takes a non-negative integer"));
    opts.oracle.jobs = static_cast<int>(jobs);
    opts.oracle.timeoutSeconds = timeout;
    opts.oracle.keepDirs = a->has("--keep-temp");
    opts.oracle.python = a->get("--python");
    opts.spec.seed = static_cast<uint64_t>(seed);
    opts.spec.tol = tol;
    opts.maxQueries = static_cast<size_t>(maxQ);
    opts.localize = !a->has("--no-localize");
    opts.bisectPasses = !a->has("--no-bisect");
    if (a->has("--pipeline")) {
        auto names = minify::pipelinePassNames(a->get("--pipeline"));
        if (!names.ok()) return reportError(err, names.error());
        opts.passes = std::move(names).value();
    }
    if (a->has("--passes")) {
        opts.passes.clear();
        std::stringstream ss(a->get("--passes"));
        for (std::string p; std::getline(ss, p, ',');) {
            if (!createPassByName(p)) return reportError(err, makeError("--passes: unknown pass '" + p + "'"));
            opts.passes.push_back(p);
        }
    }
    opts.oracle.executable = minify::findFxrayExecutable();
    if (opts.oracle.executable.empty())
        return reportError(err,
                           makeError("cannot find the fxray executable that runs isolated queries (set FXRAY_EXE)"));

    auto f = loadFile(a->positional[0]);
    if (!f.ok()) return reportError(err, f.error());
    auto lgE = selectGraph(*f, a->get("--graph"));
    if (!lgE.ok()) return reportError(err, lgE.error());
    LoadedGraph& lg = **lgE;
    Graph& g = lg.executable();
    if (a->has("--constants")) {
        std::filesystem::path dir = a->get("--constants");
        for (const auto& name : missingConstants(g)) {
            auto t = readNpy(dir / (name + ".npy"));
            if (t.ok()) g.constants[name] = std::move(t).value();
        }
    }
    if (auto missing = missingConstants(g); !missing.empty()) {
        Diagnostic d = makeError("the file does not carry the value of constant '" + missing[0] +
                                 "' (PyTorch prints lifted constants without values; no " +
                                 constantsFolderFor(g.sourceFile).filename().string() +
                                 "/ folder, sibling dynamo.py or literal in its source comment gives it); give it as "
                                 "--constants DIR with " +
                                 missing[0] + ".npy");
        d.file = g.sourceFile;
        return reportError(err, d);
    }
    auto sizesE = sizesOption(*a, g);
    if (!sizesE.ok()) return reportError(err, sizesE.error());
    sym::Binding sizes = std::move(sizesE).value();
    // Recorded inputs (SymInt ones as 0-d files, tensors laid out at the binding they give) or
    // random ones at the chosen sizes.
    auto loaded = loadInputs(g, a->get("--inputs"), opts.spec.seed, &sizes);
    if (!loaded.ok()) return reportError(err, loaded.error());
    std::vector<Value> inputs = std::move(loaded).value();

    // Progress: one line per change of the best graph, and at most two a second otherwise.
    const bool quiet = a->has("--quiet");
    auto lastLine = std::chrono::steady_clock::now() - std::chrono::seconds(10);
    size_t lastNodes = 0;
    auto progress = [&](const minify::MinifyProgress& p) {
        if (quiet) return;
        auto now = std::chrono::steady_clock::now();
        if (p.nodes == lastNodes && now - lastLine < std::chrono::milliseconds(500)) return;
        lastNodes = p.nodes;
        lastLine = now;
        char buf[256];
        std::snprintf(buf, sizeof buf, "minify: %zu queries, %zu -> %zu nodes, %.1f s, %s\n", p.queries, p.nodesBefore,
                      p.nodes, p.seconds, p.strategy.c_str());
        err << buf << std::flush;
    };
    auto r = minify::minifyGraph(g, std::move(inputs), opts, progress);
    if (!r.ok()) return reportError(err, r.error());
    if (!r->reproduced) {
        err << "fxray: the graph does not show the failure, nothing to minify: " << r->message << "\n";
        return CheckFailed;
    }

    std::string cmd =
        "fxray minify " + quoteArg((a->has("--out") ? std::filesystem::path(a->get("--out")) / "minified.py"
                                                    : std::filesystem::path(a->positional[0]))
                                       .string());
    if (a->has("--out")) cmd += " --inputs " + quoteArg((std::filesystem::path(a->get("--out")) / "inputs").string());
    for (const auto& c : opts.spec.checks) cmd += " --check " + quoteArg(c.text);
    for (const auto& i : opts.spec.injects) cmd += " --inject " + quoteArg(i.text);
    if (!r->bisection.empty() && !r->passes.empty()) {
        // The result fails under the narrowed pipeline (bisection fixed it to the failing pass).
        std::string list;
        for (const auto& p : r->passes) list += (list.empty() ? "" : ",") + p;
        cmd += " --passes " + list;
    }
    if (a->has("--out")) {
        minify::ExportInfo info;
        info.sourceFile = a->positional[0];
        info.graphSel = lg.id;
        info.commandLine = cmd;
        if (auto s = minify::writeMinifyOutputs(a->get("--out"), *r, opts, info); !s.ok())
            return reportError(err, s.error());
    }
    if (a->has("--json")) {
        nlohmann::json j;
        j["nodes_before"] = r->nodesBefore;
        j["nodes_after"] = r->nodesAfter;
        j["queries"] = r->queries;
        j["cache_hits"] = r->cacheHits;
        j["seconds"] = r->seconds;
        j["signature"] = r->signature;
        j["out"] = a->has("--out") ? nlohmann::json(a->get("--out")) : nlohmann::json(nullptr);
        j["steps"] = r->steps;
        j["bisection"] = r->bisection;
        j["passes"] = r->passes;
        j["jobs"] = opts.oracle.jobs;
        if (!r->sizes.empty() || !r->recordedSizes.empty()) {
            nlohmann::json sz = nlohmann::json::object(), rec = nlohmann::json::object();
            for (const auto& [k, v] : r->sizes) sz[k] = v.isFloat() ? nlohmann::json(v.d) : nlohmann::json(v.i);
            for (const auto& [k, v] : r->recordedSizes)
                rec[k] = v.isFloat() ? nlohmann::json(v.d) : nlohmann::json(v.i);
            j["sizes"] = sz;
            j["recorded_sizes"] = rec;
        }
        out << j.dump(1) << "\n";
    } else {
        out << "minified " << lg.stage << ": " << r->nodesBefore << " -> " << r->nodesAfter << " nodes in "
            << r->queries << " queries (" << std::fixed << std::setprecision(2) << r->seconds << " s)\n";
        out << "failure: " << r->signature << "\n";
        if (!r->recordedSizes.empty())
            out << "sizes: " << sym::bindingStr(r->sizes.empty() ? r->recordedSizes : r->sizes)
                << " (dynamic shapes: the inputs bind every symbol at the recorded run's value)\n";
        if (!r->bisection.empty()) out << "bisection: " << r->bisection << "\n";
        if (a->has("--out"))
            out << "wrote " << a->get("--out") << "/{minified.py, inputs/, repro.py, session.json, minified.fxray}\n";
        else
            out << printGraph(*r->graph);
    }
    return Ok;
}

int cmdMinifyQuery(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    (void)out;
    if (argv.size() != 1) {
        err << "fxray: __minify-query takes one DIR (it is the minifier's isolated query process)\n";
        return BadInput;
    }
    std::string why;
    int rc = minify::runQueryProcess(argv[0], why);
    if (rc != 0) err << "fxray: " << why << "\n";
    return rc;
}

}  // namespace fxray::cli
