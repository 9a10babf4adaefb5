// fxray compile FILE: run a pass pipeline over a graph and report what every pass did (times,
// matches, near-misses, provenance), optionally dumping the graph after each pass that changed
// it and the trace as JSON.
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/common.h"
#include "ir/printer.h"
#include "pass/trace_json.h"
#include "transforms/passes.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <iomanip>
#include <set>

namespace fxray::cli {

namespace {

const char* kCompileUsage =
    "usage: fxray compile FILE [--graph SEL] [--pipeline joint|post-grad] [--backend none]\n"
    "                     [--dump-dir DIR] [--out FILE] [--print-after-all] [--skip PASS]... [--json]\n"
    "  --pipeline P      joint (default): joint_graph_passes; post-grad: DCE, CSE, no-op removal\n"
    "  --dump-dir DIR    NN_PASS.py after each pass that changed the graph, 00_input.py, trace.json\n"
    "  --out FILE        the final graph in FX text form\n"
    "  --print-after-all the graph after every pass, on stdout\n"
    "  --skip PASS       do not run PASS (repeatable)\n"
    "  --no-verify       do not verify the graph after each pass\n";

Status writeText(const std::filesystem::path& p, const std::string& text) {
    std::ofstream f(p, std::ios::binary);
    if (!f) {
        Diagnostic d = makeError("cannot write the file");
        d.file = p.string();
        return d;
    }
    f << text;
    return Status::success();
}

std::string fileSafe(std::string s) {
    for (char& c : s)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') c = '_';
    return s;
}

} // namespace

int cmdCompile(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    std::string perr;
    auto a = parseArgs(argv, {"--graph", "--pipeline", "--backend", "--dump-dir", "--out", "--skip"},
                       {"--json", "--print-after-all", "--no-verify", "--help"}, perr);
    if (!a) return reportError(err, makeError(perr));
    if (a->has("--help")) {
        out << kCompileUsage;
        return Ok;
    }
    if (a->positional.size() != 1) return reportError(err, makeError("compile takes one FILE"));
    std::string backend = a->get("--backend", "none");
    if (backend != "none") {
        if (backend == "cpu" || backend == "cuda")
            return reportError(err, makeError("backend '" + backend + "' is not available in this build yet; use --backend none"));
        return reportError(err, makeError("unknown backend '" + backend + "' (none, cpu, cuda)"));
    }
    std::string pipeline = a->get("--pipeline", "joint");
    if (pipeline == "inductor" || pipeline == "freezing")
        return reportError(err, makeError("pipeline '" + pipeline + "' is not available in this build yet (joint, post-grad)"));
    PassManagerOptions opts;
    opts.verifyEach = !a->has("--no-verify");
    auto pm = buildPipeline(pipeline, opts);
    if (!pm.ok()) return reportError(err, pm.error());
    std::set<std::string> skip;
    for (const auto& s : a->all("--skip")) {
        if (!(*pm)->find(s)) {
            std::string known;
            for (const auto& p : (*pm)->passes()) known += (known.empty() ? "" : ", ") + std::string(p->name());
            return reportError(err, makeError("--skip: pipeline '" + pipeline + "' has no pass '" + s + "' (" + known + ")"));
        }
        skip.insert(s);
    }
    if (!skip.empty()) (*pm)->addInstrumentation(std::make_unique<SkipPassesInstrumentation>(skip));
    if (a->has("--print-after-all")) {
        (*pm)->addInstrumentation(std::make_unique<PrintAfterAllInstrumentation>(
            [&out](const std::string& pass, const std::string& graph, const std::string& text) {
                out << "# ----- after " << pass << (graph.empty() ? "" : " (" + graph + ")") << " -----\n" << text;
            },
            false));
    }

    auto f = loadFile(a->positional[0]);
    if (!f.ok()) return reportError(err, f.error());
    auto lg = selectGraph(*f, a->get("--graph"));
    if (!lg.ok()) return reportError(err, lg.error());
    Graph& g = *(*lg)->graph;
    CompileTrace trace = (*pm)->run(g);

    nlohmann::json j = traceToJson(trace, false);
    j["graph"] = (*lg)->id;
    j["stage"] = (*lg)->stage;
    if (a->has("--dump-dir")) {
        std::filesystem::path dir = a->get("--dump-dir");
        std::error_code ec;
        std::filesystem::create_directories(dir, ec);
        if (ec) {
            Diagnostic d = makeError("cannot create the folder: " + ec.message());
            d.file = dir.string();
            return reportError(err, d);
        }
        std::vector<std::string> files;
        if (trace.initial) {
            if (auto s = writeText(dir / "00_input.py", trace.initial->text()); !s.ok()) return reportError(err, s.error());
            files.push_back("00_input.py");
        }
        int idx = 0;
        for (const auto& p : trace.passes) {
            ++idx;
            if (!p.changed || !p.snapshot) continue;
            char prefix[16];
            std::snprintf(prefix, sizeof prefix, "%02d_", idx);
            std::string name = prefix + p.name + (p.graph.empty() ? "" : "." + fileSafe(p.graph)) + ".py";
            if (auto s = writeText(dir / name, p.snapshot->text()); !s.ok()) return reportError(err, s.error());
            files.push_back(name);
        }
        nlohmann::json full = traceToJson(trace, true);
        full["graph"] = (*lg)->id;
        full["stage"] = (*lg)->stage;
        full["files"] = files;
        if (auto s = writeText(dir / "trace.json", full.dump(1) + "\n"); !s.ok()) return reportError(err, s.error());
        j["dump_dir"] = dir.string();
    }
    if (a->has("--out")) {
        if (auto s = writeText(a->get("--out"), printGraph(g)); !s.ok()) return reportError(err, s.error());
        j["out"] = a->get("--out");
    }

    if (a->has("--json")) {
        out << j.dump(1) << "\n";
    } else if (!a->has("--print-after-all")) {
        out << "pipeline " << pipeline << " on " << (*lg)->stage << ": " << trace.nodesBefore << " -> " << trace.nodesAfter
            << " nodes in " << std::fixed << std::setprecision(1) << trace.ms << " ms\n";
        for (const auto& p : trace.passes) {
            out << "  " << std::left << std::setw(44) << (p.graph.empty() ? p.name : p.name + " (" + p.graph + ")")
                << std::right;
            if (p.skipped) {
                out << "  skipped\n";
                continue;
            }
            out << std::setw(9) << std::setprecision(2) << p.ms << " ms  " << (p.failed ? "FAILED " : p.changed ? "changed" : "-      ")
                << "  " << p.nodesBefore << " -> " << p.nodesAfter << " nodes";
            if (!p.matches.empty()) out << ", " << p.matches.size() << " match" << (p.matches.size() == 1 ? "" : "es");
            if (!p.nearMisses.empty()) out << ", " << p.nearMisses.size() << " near-miss" << (p.nearMisses.size() == 1 ? "" : "es");
            out << "\n";
            if (p.failed) out << "    error: " << p.error << "\n";
        }
    }
    for (const auto& fl : trace.failures) err << "fxray: pass '" << fl.pass << "' failed: " << fl.message << "\n";
    return trace.ok() ? Ok : CheckFailed;
}

} // namespace fxray::cli
