// The minifier against PyTorch's own runs (corpus summary.json["minifier"]): the same fault (the
// bug op's output scaled by 1.01) on the same joint graphs. Columns: PyTorch's nodes before ->
// after, queries and seconds; fxray's with localisation (jobs=1 and jobs=2, wall time), and the
// general reducer alone (--no-localize: bisection, ddmin, hierarchy). "slip" says whether the
// result still holds the bug op. Queries run in ../app/fxray (build it first).
//
// Run: build/<preset>/bench/bench_minify [corpus dir] [model...]
#include "exec/compare.h"
#include "import/loader.h"
#include "minify/minifier.h"
#include "minify/subprocess.h"
#include "registry/assemble.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace fxray;
namespace fs = std::filesystem;

namespace {

struct Run {
    bool ok = false;
    size_t before = 0, after = 0, queries = 0;
    double seconds = 0;
    bool holdsBugOp = false;
    std::string error;
};

Run minifyOnce(const Graph& g, const std::vector<Value>& inputs, const std::string& bugOp, int jobs, bool localize) {
    Run run;
    auto spec = minify::parseFailureSpec({}, {bugOp + ":scale=1.01"});
    if (!spec.ok()) {
        run.error = spec.error().str();
        return run;
    }
    minify::MinifyOptions opts;
    opts.spec = *spec;
    opts.oracle.jobs = jobs;
    opts.oracle.timeoutSeconds = 300;
    opts.localize = localize;
    auto r = minify::minifyGraph(g, inputs, opts);
    if (!r.ok()) {
        run.error = r.error().str();
        return run;
    }
    if (!r->reproduced) {
        run.error = "not reproduced: " + r->message;
        return run;
    }
    run.ok = true;
    run.before = r->nodesBefore;
    run.after = r->nodesAfter;
    run.queries = r->queries;
    run.seconds = r->seconds;
    for (const auto& n : r->graph->nodes()) run.holdsBugOp = run.holdsBugOp || n->opName() == bugOp;
    return run;
}

}  // namespace

int main(int argc, char** argv) {
    fxray::initOpRegistry();
    fs::path corpus = argc > 1 ? fs::path(argv[1]) : fs::path(FXRAY_CORPUS_DIR);
    std::vector<std::string> models;
    for (int i = 2; i < argc; ++i) models.emplace_back(argv[i]);
    if (models.empty()) models = {"mlp", "attention", "ln_gelu", "resnet18", "gpt2"};
    if (minify::findFxrayExecutable().empty()) {
        std::fprintf(stderr, "bench_minify: no fxray executable next to this benchmark (build target fxray)\n");
        return 2;
    }
    std::printf("%-10s | %-22s | %-31s | %-31s | %-31s | %-31s\n", "", "PyTorch minifier", "fxray jobs=1",
                "fxray jobs=2", "fxray --no-localize jobs=1", "fxray --no-localize jobs=2");
    std::printf("%-10s | %-9s %5s %6s", "model", "nodes", "qry", "s");
    for (int k = 0; k < 4; ++k) std::printf(" | %-9s %5s %7s %6s", "nodes", "qry", "s", "slip");
    std::printf("\n");
    for (const auto& m : models) {
        std::ifstream sf(corpus / m / "summary.json");
        if (!sf) continue;
        auto summary = nlohmann::json::parse(sf);
        if (!summary.contains("minifier") || summary["minifier"].is_null()) continue;
        const auto& pt = summary["minifier"];
        const std::string bugOp = pt["bug_op"].get<std::string>();
        auto f = loadFile(corpus / m / "graphs" / "aot_joint_graph.py");
        if (!f.ok()) {
            std::printf("%-10s | %s\n", m.c_str(), f.error().str().c_str());
            continue;
        }
        auto lg = selectGraph(*f, "");
        if (!lg.ok()) continue;
        const Graph& g = (*lg)->executable();
        auto inputs = randomInputs(g, 0);
        if (!inputs.ok()) continue;
        Run r1 = minifyOnce(g, *inputs, bugOp, 1, true);
        Run r2 = minifyOnce(g, *inputs, bugOp, 2, true);
        Run r3 = minifyOnce(g, *inputs, bugOp, 1, false);
        Run r4 = minifyOnce(g, *inputs, bugOp, 2, false);
        auto cell = [](const Run& r, bool slip) {
            char buf[64];
            if (!r.ok) return std::string("failed");
            if (slip)
                std::snprintf(buf, sizeof buf, "%3zu -> %-3zu %5zu %7.2f %6s", r.before, r.after, r.queries, r.seconds,
                              r.holdsBugOp ? "no" : "SLIP");
            else
                std::snprintf(buf, sizeof buf, "%3zu -> %-3zu %5zu %7.2f", r.before, r.after, r.queries, r.seconds);
            return std::string(buf);
        };
        char ptCell[64];
        std::snprintf(ptCell, sizeof ptCell, "%3d -> %-3d %5d %6.2f", pt["nodes_before"].get<int>(),
                      pt["nodes_after"].get<int>(), pt["queries"].get<int>(), pt["seconds"].get<double>());
        std::printf("%-10s | %s | %s | %s | %s | %s\n", m.c_str(), ptCell, cell(r1, true).c_str(),
                    cell(r2, true).c_str(), cell(r3, true).c_str(), cell(r4, true).c_str());
        for (const Run* r : {&r1, &r2, &r3, &r4})
            if (!r->ok) std::printf("  %s: %s\n", m.c_str(), r->error.c_str());
        std::fflush(stdout);
    }
    std::printf(
        "\nPyTorch seconds: on the H200 host (CUDA); fxray: this machine, reference executor on CPU, each query\n"
        "a child process. PyTorch's gpt2 run slipped to native_dropout (its oracle reran dropout unseeded).\n");
    return 0;
}
