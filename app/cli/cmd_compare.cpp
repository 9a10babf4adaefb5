// fxray compare FILE [--graph SEL] --backends ref,cpu[,cuda] [--inputs DIR] [--seed N] [--sizes S=N,...] [--json]:
// runs one graph on several backends with the same inputs and seed and compares each backend's
// outputs, then every node's value, with the first backend's (run_check's rule: rel_err within
// the dtype's tolerance, else the fp64-referenced RMSE judgement). The first node where a
// backend diverges is named: that is where to look. The compiled backends (cpu, cuda) report
// node values from a second compile of the graph with every node an output
// (exec/node_values.h), a debugging mode with less fusion than the real run; nodes that an
// in-place op later overwrites are left to the op that writes them.
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/common.h"

#include "codegen/backend.h"
#include "exec/compare.h"
#include "exec/node_values.h"
#include "exec/run_check.h"
#include "exec/shape_binding.h"
#include "import/loader.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <ostream>
#include <sstream>

namespace fxray::cli {

namespace {

constexpr const char* kUsage =
    "usage: fxray compare FILE [--graph SEL] --backends ref,cpu[,cuda] [--inputs DIR] [--seed N] [--sizes S=N,...] "
    "[--json]\n"
    "  runs the graph on each backend (ref, ref64, cpu, cuda) with the same inputs and seed and compares\n"
    "  every backend with the first: the outputs, then every node with a tensor value (relative error\n"
    "  per node, the first node where a backend diverges, the worst nodes). The compiled backends get\n"
    "  node values from a debugging compile in which every node is an output (less fusion). Nodes an\n"
    "  in-place op later writes over, and unwritten empty buffers, are not compared (a node's value is\n"
    "  the one it had when it ran; a compiled backend reports its buffer at the end): the writer is.\n"
    "  --inputs DIR  NNN.npy per placeholder (default: seeded random inputs from annotations)\n"
    "  --sizes S=N,...  dynamic shapes: the symbols' values for random inputs (default: the trace's\n"
    "                hints, else 8), e.g. --sizes s23=4,s27=16\n"
    "  --json        one JSON object: ok, outputs, node_errors, first_divergent_node, first_divergent, nodes,\n"
    "                output_shapes (the first backend's) and, for a dynamic-shape graph, binding;\n"
    "                a differing node's entry adds elements, elements_off (off by more than the tolerance\n"
    "                times the largest magnitude) and worst_element {index, base, value}\n"
    "  exit 0 when all outputs and nodes agree, 1 when one differs, 2 on bad input or a backend that cannot run\n";

struct BackendRun {
    std::string name;
    std::vector<Value> outputs;
    std::map<std::string, Value> nodes;
    RunReport report;  ///< fallbacks and device of the run of the graph as given
};

/// JSON has no infinity: a shape mismatch's rel_err is written as 1e308, as `run` does.
double finite(double v) { return std::isfinite(v) ? v : 1e308; }

std::string fmtErr(double v) {
    if (!std::isfinite(v)) return "inf";
    std::ostringstream s;
    s << std::scientific << std::setprecision(2) << v;
    return s.str();
}

nlohmann::json nodeJson(const NodeError& e) {
    nlohmann::json j{{"node", e.node},
                     {"target", e.target},
                     {"backend", e.backend},
                     {"rel_err", finite(e.relErr)},
                     {"max_abs_err", finite(e.maxAbsErr)},
                     {"ok", e.ok}};
    if (e.fp64Judged) j["fp64_judged"] = true;
    if (!e.note.empty()) j["note"] = e.note;
    if (!e.worstAt.empty() || e.elementsOff > 0) {
        j["elements"] = e.elements;
        j["elements_off"] = e.elementsOff;
        j["worst_element"] = {{"index", e.worstAt}, {"base", finite(e.worstBase)}, {"value", finite(e.worstOther)}};
    }
    return j;
}

}  // namespace

int cmdCompare(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    std::string perr;
    auto a = parseArgs(args, {"--graph", "--backends", "--inputs", "--seed", "--sizes"}, {"--json", "--help"}, perr);
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
    std::vector<std::unique_ptr<Backend>> backends;
    for (const auto& n : names) {
        auto b = makeBackend(n);
        if (!b.ok()) {
            Diagnostic d = b.error();
            if (d.message.find("backend '") == std::string::npos) d.message = "backend '" + n + "': " + d.message;
            return reportError(err, d);
        }
        backends.push_back(std::move(b).value());
    }

    auto f = loadFile(a->positional[0]);
    if (!f.ok()) return reportError(err, f.error());
    auto lg = selectGraph(*f, a->get("--graph"));
    if (!lg.ok()) return reportError(err, lg.error());
    const Graph& g = (*lg)->executable();
    auto sizesE = sizesOption(*a, g);
    if (!sizesE.ok()) return reportError(err, sizesE.error());
    sym::Binding sizes = std::move(sizesE).value();
    auto loaded = loadInputs(g, a->get("--inputs"), seed, &sizes);
    if (!loaded.ok()) return reportError(err, loaded.error());
    const std::vector<Value>& inputs = *loaded;
    // The binding the run used (read back off the inputs, recorded or drawn), so that a reader
    // of the result knows which sizes it holds for.
    nlohmann::json jBinding = nullptr;
    std::string bindingText;
    if (graphIsSymbolic(g)) {
        auto b = bindInputs(g, inputs, /*withStrides=*/false);
        if (b.ok()) {
            bindingText = sym::bindingStr(*b);
            jBinding = nlohmann::json::object();
            for (const auto& [name, v] : *b) {
                if (v.isFloat())
                    jBinding[name] = v.d;
                else
                    jBinding[name] = v.i;
            }
        }
    }

    std::vector<BackendRun> runs;
    for (auto& b : backends) {
        BackendRun r;
        r.name = b->name();
        auto o = b->outputs(g, inputs, seed, &r.nodes, &r.report);
        if (!o.ok()) {
            Diagnostic d = o.error();
            d.message = "backend '" + r.name + "': " + d.message;
            return reportError(err, d);
        }
        r.outputs = std::move(o).value();
        runs.push_back(std::move(r));
    }
    // The fp64 opinion for outputs and nodes whose rel_err fails (same() as PyTorch judges
    // accuracy, and as run_check judges the corpus runs).
    std::vector<Value> ref64;
    std::map<std::string, Value> ref64Nodes;
    if (auto b = makeBackend("ref64"); b.ok()) {
        auto o = (*b)->outputs(g, inputs, seed, &ref64Nodes);
        if (o.ok())
            ref64 = std::move(o).value();
        else
            ref64Nodes.clear();
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
            jOutputs.push_back({{"index", i},
                                {"backend", r.name},
                                {"rel_err", finite(c.relErr)},
                                {"max_abs_err", finite(c.maxAbsErr)},
                                {"ok", c.ok},
                                {"fp64_judged", c.fp64Judged}});
        }
        if (r.outputs.size() != base.outputs.size()) allOk = false;
    }

    // Node by node, each backend against the first one.
    std::vector<std::vector<NodeError>> perBackend;
    nlohmann::json nodeCounts = nlohmann::json::object();
    nlohmann::json firstByBackend = nlohmann::json::object();
    for (size_t k = 1; k < runs.size(); ++k) {
        perBackend.push_back(
            compareNodeValues(g, base.nodes, runs[k].nodes, ref64Nodes.empty() ? nullptr : &ref64Nodes, runs[k].name));
        const auto& errs = perBackend.back();
        size_t differ = 0;
        for (const auto& e : errs) differ += !e.ok;
        nodeCounts[runs[k].name] = {{"compared", errs.size()}, {"differ", differ}};
        const NodeError* first = firstDivergent(errs);
        firstByBackend[runs[k].name] = first ? nodeJson(*first) : nlohmann::json(nullptr);
    }
    // One entry per (node, backend), in graph order.
    nlohmann::json jNodes = nlohmann::json::array();
    nlohmann::json firstDivergent = nullptr;
    std::vector<const NodeError*> all;
    {
        std::vector<size_t> at(perBackend.size(), 0);
        for (const auto& n : g.nodes())
            for (size_t k = 0; k < perBackend.size(); ++k) {
                const auto& errs = perBackend[k];
                if (at[k] >= errs.size() || errs[at[k]].node != n->name()) continue;
                const NodeError& e = errs[at[k]++];
                jNodes.push_back(nodeJson(e));
                all.push_back(&e);
                allOk &= e.ok;
                if (!e.ok && firstDivergent.is_null())
                    firstDivergent = {
                        {"node", e.node}, {"target", e.target}, {"backend", e.backend}, {"rel_err", finite(e.relErr)}};
            }
    }

    // The first backend's output shapes (null for a non-tensor output).
    nlohmann::json jShapes = nlohmann::json::array();
    for (const Value& v : base.outputs)
        jShapes.push_back(v.isTensor() ? nlohmann::json(v.t.shape()) : nlohmann::json(nullptr));
    nlohmann::json j{{"ok", allOk},
                     {"graph", (*lg)->id},
                     {"backends", names},
                     {"outputs", jOutputs},
                     {"output_shapes", jShapes},
                     {"first_divergent_node", firstDivergent},
                     {"first_divergent", firstByBackend},
                     {"nodes", nodeCounts},
                     {"node_errors", jNodes}};
    if (!jBinding.is_null()) j["binding"] = jBinding;
    // Which accelerator each device backend ran on (a sweep over several GPUs records it), and
    // the ops a compiled backend handed to the reference kernel or the host.
    for (size_t k = 0; k < runs.size(); ++k) {
        if (backends[k]->caps().device) j["devices"][runs[k].name] = runs[k].report.device;
        if (!runs[k].report.fallbacks.empty()) j["fallbacks"][runs[k].name] = runs[k].report.fallbacks;
    }
    if (a->has("--json")) {
        out << j.dump(1) << "\n";
    } else {
        // Per backend: the outputs in one line (each differing one on its own), then the nodes.
        for (size_t k = 1; k < runs.size(); ++k) {
            const std::string& bn = runs[k].name;
            size_t count = 0;
            double worst = 0;
            for (const auto& o : jOutputs) {
                if (o["backend"].get<std::string>() != bn) continue;
                ++count;
                worst = std::max(worst, o["rel_err"].get<double>());
                if (!o["ok"].get<bool>())
                    out << "output " << o["index"].get<size_t>() << " " << bn << " vs " << names[0] << ": rel_err "
                        << fmtErr(o["rel_err"].get<double>()) << "  DIFFERS\n";
            }
            out << bn << " vs " << names[0] << ": " << count << " outputs, max rel_err " << fmtErr(worst) << "; "
                << nodeCounts[bn]["compared"].get<size_t>() << " nodes compared, "
                << nodeCounts[bn]["differ"].get<size_t>() << " differ";
            const auto& fb = firstByBackend[bn];
            if (!fb.is_null()) {
                out << "; first divergent node: " << fb["node"].get<std::string>() << " ("
                    << fb["target"].get<std::string>() << ", rel_err " << fmtErr(fb["rel_err"].get<double>()) << ")";
                // How local the difference is: one element in thousands is a near-tie upstream.
                if (fb.contains("worst_element")) {
                    std::ostringstream at;
                    for (const auto& i : fb["worst_element"]["index"])
                        at << (at.tellp() > 0 ? ", " : "") << i.get<int64_t>();
                    out << "\n  " << fb["elements_off"].get<int64_t>() << " of " << fb["elements"].get<int64_t>()
                        << " elements off; worst at [" << at.str() << "]: " << bn << " "
                        << fb["worst_element"]["value"].get<double>() << ", " << names[0] << " "
                        << fb["worst_element"]["base"].get<double>();
                }
            }
            out << "\n";
        }
        // The worst nodes, failing ones first, then by rel_err.
        std::stable_sort(all.begin(), all.end(), [](const NodeError* x, const NodeError* y) {
            if (x->ok != y->ok) return !x->ok;
            return x->relErr > y->relErr;
        });
        if (!all.empty()) {
            out << "worst nodes:\n";
            for (size_t i = 0; i < all.size() && i < 5; ++i)
                out << "  " << std::left << std::setw(28) << all[i]->node << std::setw(36) << all[i]->target
                    << std::setw(6) << all[i]->backend << std::right << " rel_err " << fmtErr(all[i]->relErr)
                    << (all[i]->ok ? "  ok" : "  DIFFERS") << "\n";
        }
        if (!bindingText.empty()) out << "sizes: " << bindingText << "\n";
        out << (allOk ? "all backends agree\n" : "backends differ\n");
    }
    return allOk ? 0 : 1;
}

}  // namespace fxray::cli
