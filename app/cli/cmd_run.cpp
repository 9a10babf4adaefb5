// fxray run FILE: execute a graph on one backend (the reference executor by default) on inputs
// from a folder (or seeded random ones) and compare with expected outputs.
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/common.h"
#include "codegen/backend.h"
#include "exec/compare.h"
#include "exec/interpreter.h"
#include "exec/run_check.h"
#include "exec/shape_binding.h"
#include "import/constants_folder.h"
#include "import/lifted_constants.h"
#include "import/npy.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <sstream>

namespace fxray::cli {

namespace {

const char* kRunUsage =
    "usage: fxray run FILE [--graph SEL] [--inputs DIR] [--expect DIR] [--backend ref|cpu|cuda] [--json]\n"
    "                 [--seed N] [--sizes S=N,...] [--fp64] [--pin NODE=FILE.npy]... [--constants DIR] [--out DIR]\n"
    "  --inputs DIR     NNN.npy per placeholder (default: seeded random inputs from annotations)\n"
    "  --sizes S=N,...  dynamic shapes: the symbols' values for random inputs (default: the trace's\n"
    "                   hints, else 8), e.g. --sizes s23=4,s27=16\n"
    "  --expect DIR     NNN.npy per output; a missing file means the output is None\n"
    "  --pin NODE=FILE  use FILE's tensor as NODE's value (e.g. a random op's recorded result)\n"
    "  --constants DIR  NAME.npy for lifted constants the file does not carry\n"
    "  --fp64           keep floating results in double precision (a high-precision reference)\n"
    "  --out DIR        write the outputs as NNN.npy\n";

std::string fmtErr(double v) {
    if (std::isinf(v)) return "inf";
    std::ostringstream s;
    s << std::scientific << std::setprecision(2) << v;
    return s.str();
}

}  // namespace

int cmdRun(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    std::string perr;
    auto a = parseArgs(
        argv, {"--graph", "--inputs", "--expect", "--backend", "--seed", "--sizes", "--pin", "--constants", "--out"},
        {"--json", "--fp64", "--help"}, perr);
    if (!a) return reportError(err, makeError(perr));
    if (a->has("--help")) {
        out << kRunUsage;
        return Ok;
    }
    if (a->positional.size() != 1) return reportError(err, makeError("run takes one FILE"));
    const std::string backend = a->get("--backend", "ref");
    // An unknown backend, one this build lacks, or CUDA without a device: exit 2 before loading.
    auto backendE = makeBackend(backend);
    if (!backendE.ok()) return reportError(err, backendE.error());
    Backend& runner = **backendE;
    uint64_t seed = 0;
    if (a->has("--seed")) {
        try {
            seed = std::stoull(a->get("--seed"));
        } catch (...) {
            return reportError(err, makeError("--seed takes a non-negative integer"));
        }
    }
    std::optional<LoadedFile> file;
    auto lgE = loadRunnable(*a, file, "execute");
    if (!lgE.ok()) return reportError(err, lgE.error());
    LoadedGraph& lg = **lgE;
    Graph& g = lg.executable();
    if (a->has("--constants")) {
        std::filesystem::path dir = a->get("--constants");
        for (const auto& name : missingConstants(g)) {
            auto p = dir / (name + ".npy");
            if (!std::filesystem::exists(p)) continue;
            auto t = readNpy(p);
            if (!t.ok()) return reportError(err, t.error());
            g.constants[name] = std::move(t).value();
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
    for (const auto& n : lg.notes) err << "fxray: note: " << n << "\n";

    auto sizesE = sizesOption(*a, g);
    if (!sizesE.ok()) return reportError(err, sizesE.error());
    const sym::Binding& sizes = *sizesE;
    if (a->get("--inputs").empty() && graphIsSymbolic(g)) {
        std::vector<std::string> defaulted;
        sym::Binding b = completeBinding(g, sizes, 8, &defaulted);
        err << "fxray: note: dynamic shapes: random inputs at " << sym::bindingStr(b);
        if (!defaulted.empty()) err << " (" << defaulted.size() << " without a hint took 8; choose with --sizes)";
        err << "\n";
    }
    auto inputs = loadInputs(g, a->get("--inputs"), seed, &sizes);
    if (!inputs.ok()) return reportError(err, inputs.error());

    RunRequest req;
    req.seed = seed;
    req.fp64 = a->has("--fp64");
    for (const auto& pin : a->all("--pin")) {
        auto eq = pin.find('=');
        if (eq == std::string::npos) return reportError(err, makeError("--pin takes NODE=FILE.npy"));
        std::string node = pin.substr(0, eq);
        if (!g.find(node)) return reportError(err, makeError("--pin: no node '" + node + "' in the graph"));
        auto t = readNpy(pin.substr(eq + 1));
        if (!t.ok()) return reportError(err, t.error());
        req.pins[node] = Value::ofTensor(std::move(t).value());
    }
    req.inputs = std::move(inputs).value();
    std::vector<Value> expected;
    if (a->has("--expect")) {
        // Outputs are counted from the graph's return; missing files mean None.
        auto exp = readNpyFolder(a->get("--expect"), g.outputs().size());
        if (!exp.ok()) return reportError(err, exp.error());
        expected = std::move(exp).value();
    }
    RunReport report;
    auto result = runner.run(g, req, a->has("--expect") ? &expected : nullptr, &report);
    if (!result.ok()) return reportError(err, result.error());
    const double ms = result->ms;
    auto* outs = &result->outputs;

    if (a->has("--out")) {
        std::filesystem::path dir = a->get("--out");
        std::error_code ec;
        std::filesystem::create_directories(dir, ec);
        for (size_t i = 0; i < outs->size(); ++i) {
            if (!(*outs)[i].isTensor()) continue;
            char name[32];
            std::snprintf(name, sizeof name, "%03zu.npy", i);
            auto s = writeNpy(dir / name, (*outs)[i].t);
            if (!s.ok()) return reportError(err, s.error());
        }
    }

    nlohmann::json j;
    j["ms"] = ms;
    j["backend"] = backend;
    j["outputs"] = nlohmann::json::array();
    if (runner.caps().compiles) {
        // Ops that ran through the reference kernel instead of generated code (explicit fallback).
        j["fallbacks"] = report.fallbacks;
        j["compile_ms"] = report.compileMs;
        j["kernels"] = report.kernels;
        j["extern_calls"] = report.externCalls;
        j["device"] = report.device;
    }
    bool allOk = result->ok;
    if (a->has("--expect")) {
        for (const auto& c : result->comparisons) {
            size_t i = c.index;
            nlohmann::json jo = {{"index", i},
                                 {"ok", c.ok},
                                 {"rel_err", std::isinf(c.relErr) ? 1e308 : c.relErr},
                                 {"max_abs_err", c.maxAbsErr},
                                 {"tolerance", c.tolerance}};
            if ((*outs)[i].isTensor()) jo["dtype"] = std::string(dtypeTorchName((*outs)[i].t.dtype()));
            if (c.fp64Judged)
                jo["judged_by"] = "fp64_rmse", jo["rmse_ours_vs_fp64"] = c.rmseOurs,
                jo["rmse_expected_vs_fp64"] = c.rmseExpected;
            if (!c.note.empty()) jo["note"] = c.note;
            j["outputs"].push_back(jo);
        }
    } else {
        for (size_t i = 0; i < outs->size(); ++i) {
            nlohmann::json jo = {{"index", i}};
            if ((*outs)[i].isTensor())
                jo["annotation"] = (*outs)[i].t.meta.annotation(false, false);
            else if ((*outs)[i].isNumber())
                jo["value"] = (*outs)[i].describe();  // a SymInt output
            j["outputs"].push_back(jo);
        }
    }
    // Failing fp32 outputs were judged against an fp64 run of the reference executor (PyTorch's
    // same() rule); said, because on the host it can take far longer than the run it judges.
    if (result->fp64Rerun) j["fp64_rerun_ms"] = result->fp64RerunMs;
    j["ok"] = allOk;
    if (a->has("--json")) {
        out << j.dump(1) << "\n";
    } else {
        out << "ran " << lg.stage << " (" << g.computeNodeCount() << " nodes) on the "
            << (runner.caps().compiles ? runner.name() + " backend" : "reference executor") << " in " << std::fixed
            << std::setprecision(1) << ms << " ms\n";
        if (j.contains("fallbacks")) {
            out << "  compiled in " << j["compile_ms"].get<double>() << " ms: " << j["kernels"].get<size_t>()
                << " kernels, " << j["extern_calls"].get<size_t>() << " extern calls";
            std::string fb;
            for (const auto& [op, n] : j["fallbacks"].items())
                fb += (fb.empty() ? "" : ", ") + op + " x" + std::to_string(n.get<int>());
            out << (fb.empty() ? ", no fallback" : ", fallback to the reference kernel: " + fb) << "\n";
        }
        for (const auto& jo : j["outputs"]) {
            out << "  output " << std::setw(3) << jo["index"].get<size_t>();
            if (jo.contains("ok")) {
                out << "  " << (jo["ok"].get<bool>() ? "ok  " : "FAIL") << "  rel_err "
                    << fmtErr(jo["rel_err"].get<double>()) << "  max_abs_err "
                    << fmtErr(jo["max_abs_err"].get<double>());
                if (jo.contains("dtype")) out << "  " << jo["dtype"].get<std::string>();
                if (jo.contains("note")) out << "  (" << jo["note"].get<std::string>() << ")";
            } else if (jo.contains("annotation")) {
                out << "  " << jo["annotation"].get<std::string>();
            } else if (jo.contains("value")) {
                out << "  " << jo["value"].get<std::string>();
            } else {
                out << "  None";
            }
            out << "\n";
        }
        if (j.contains("fp64_rerun_ms"))
            out << "  outputs past the fp32 tolerance judged against an fp64 reference run ("
                << j["fp64_rerun_ms"].get<double>() << " ms)\n";
        if (a->has("--expect")) out << (allOk ? "all outputs match\n" : "outputs differ\n");
    }
    return allOk ? Ok : CheckFailed;
}

}  // namespace fxray::cli
