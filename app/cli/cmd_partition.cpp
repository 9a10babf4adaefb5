// fxray partition FILE: split a joint forward+backward graph into forward and backward graphs
// with the min-cut rematerialization partitioner, and say what is saved and recomputed.
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/common.h"
#include "exec/shape_binding.h"
#include "import/constants_folder.h"
#include "ir/printer.h"
#include "partition/joint_shape.h"
#include "partition/partitioner.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <fstream>
#include <iomanip>
#include <sstream>

namespace fxray::cli {

int cmdPartition(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);

namespace {

const char* kPartitionUsage =
    "usage: fxray partition FILE [--graph SEL] [--memory-budget X] [--solver dp|greedy] [--json]\n"
    "                       [--num-fwd-outputs N] [--static-inputs NAME,...] [--static-inputs-from FILE]\n"
    "                       [--no-static-inputs] [--no-cse] [--out-forward FILE] [--out-backward FILE]\n"
    "                       [--sizes s33=16,...]\n"
    "  --memory-budget X    activation memory budget in [0, 1] (default 1: runtime-optimal)\n"
    "  --solver S           knapsack for budgets below 1: dp (default) or greedy\n"
    "  --num-fwd-outputs N  leading joint outputs that are forward outputs (default: outputs - primals)\n"
    "  --static-inputs L    parameters/buffers among the primals: saved at no cost, as Inductor does\n"
    "  --static-inputs-from FILE\n"
    "                       read them off the Dynamo graph of the run (its placeholders are the primals);\n"
    "                       a TORCH_TRACE log with the compile's dynamo_output_graph is used by default\n"
    "  --no-static-inputs   count parameters at their size like any other saved value\n"
    "  --out-forward FILE   write the forward graph in FX text form (likewise --out-backward)\n"
    "  --sizes B            dynamic shapes: the symbol values sizes are measured at (default: the\n"
    "                       trace's hints, else 8); saved bytes are reported there and as an expression\n";

bool parseBudget(const std::string& s, double& v) {
    try {
        size_t pos = 0;
        v = std::stod(s, &pos);
        return pos == s.size();
    } catch (...) {
        return false;
    }
}

std::vector<std::string> splitList(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ','))
        if (!item.empty()) out.push_back(item);
    return out;
}

const char* regionName(NodeRegion r) {
    switch (r) {
    case NodeRegion::Forward: return "forward";
    case NodeRegion::Backward: return "backward";
    case NodeRegion::Unclaimed: return "unclaimed";
    }
    return "?";
}

}  // namespace

int cmdPartition(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    std::string perr;
    auto a = parseArgs(argv,
                       {"--graph", "--memory-budget", "--solver", "--num-fwd-outputs", "--static-inputs",
                        "--static-inputs-from", "--out-forward", "--out-backward", "--sizes"},
                       {"--json", "--no-cse", "--no-static-inputs", "--help"}, perr);
    if (!a) return reportError(err, makeError(perr));
    if (a->has("--help")) {
        out << kPartitionUsage;
        return Ok;
    }
    if (a->positional.size() != 1) return reportError(err, makeError("partition takes one FILE"));
    PartitionOptions po;
    if (a->has("--memory-budget") && !parseBudget(a->get("--memory-budget"), po.memoryBudget))
        return reportError(
            err, makeError("--memory-budget takes a number in [0, 1], not '" + a->get("--memory-budget") + "'"));
    if (!(po.memoryBudget >= 0.0 && po.memoryBudget <= 1.0))
        return reportError(err, makeError("--memory-budget " + a->get("--memory-budget") + " is outside [0, 1]"));
    std::string solver = a->get("--solver", "dp");
    if (solver != "dp" && solver != "greedy") return reportError(err, makeError("--solver takes dp or greedy"));
    po.solver = solver == "greedy" ? KnapsackSolver::Greedy : KnapsackSolver::DP;
    if (a->has("--num-fwd-outputs")) {
        try {
            po.numFwdOutputs = std::stoi(a->get("--num-fwd-outputs"));
        } catch (...) {
            po.numFwdOutputs = -2;
        }
        if (po.numFwdOutputs < 0) return reportError(err, makeError("--num-fwd-outputs takes a non-negative integer"));
    }
    po.staticLifetimeInputs = splitList(a->get("--static-inputs"));
    po.cse = !a->has("--no-cse");
    if (a->has("--sizes")) {
        auto b = parseSizes(a->get("--sizes"));
        if (!b.ok()) return reportError(err, b.error());  // parseSizes names the option
        po.sizes = std::move(b).value();
    }

    auto f = loadFile(a->positional[0]);
    if (!f.ok()) return reportError(err, f.error());
    auto lgE = selectGraph(*f, a->get("--graph"));
    if (!lgE.ok()) return reportError(err, lgE.error());
    const Graph& g = *(*lgE)->graph;
    // A forward, backward or post-grad graph would "partition" into nonsense (0 forward outputs);
    // --num-fwd-outputs says the user knows the graph is a joint whatever its names.
    if (!a->has("--num-fwd-outputs"))
        if (auto why = partition::whyNotJoint(g, (*lgE)->stage)) {
            Diagnostic d = makeError("graph '" + ((*lgE)->stage.empty() ? (*lgE)->id : (*lgE)->stage) + "': nothing to partition: " + *why +
                                     " (--num-fwd-outputs N partitions it anyway)");
            d.file = a->positional[0];
            return reportError(err, d);
        }

    // Parameters and buffers: Inductor saves them at no cost. A joint graph does not say which
    // primals they are; the Dynamo graph of the same compile does.
    if (a->has("--static-inputs-from")) {
        auto df = loadFile(a->get("--static-inputs-from"));
        if (!df.ok()) return reportError(err, df.error());
        auto dg = selectGraph(*df, "");
        if (!dg.ok()) return reportError(err, dg.error());
        po.staticLifetimeInputs = staticInputsFromDynamo(g, *(*dg)->graph);
        if (po.staticLifetimeInputs.empty()) {
            Diagnostic d =
                makeError("its placeholders are not the primals of the joint graph (or none is a parameter)");
            d.file = a->get("--static-inputs-from");
            return reportError(err, d);
        }
    } else if (!a->has("--static-inputs") && !a->has("--no-static-inputs")) {
        for (const auto& other : f->graphs)
            if (other.stage == "dynamo_output_graph" && other.compileId == (*lgE)->compileId && other.graph) {
                po.staticLifetimeInputs = staticInputsFromDynamo(g, *other.graph);
                if (!po.staticLifetimeInputs.empty())
                    err << "fxray: note: " << po.staticLifetimeInputs.size() << " primals are parameters or buffers ("
                        << other.id << "): saved at no cost as Inductor does (--no-static-inputs to count them)\n";
                break;
            }
    }
    if (a->has("--no-static-inputs")) po.staticLifetimeInputs.clear();

    auto t0 = std::chrono::steady_clock::now();
    auto res = partitionJoint(g, po);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (!res.ok()) return reportError(err, res.error());

    for (auto [opt, graph] :
         {std::pair{"--out-forward", res->forward.get()}, std::pair{"--out-backward", res->backward.get()}}) {
        if (!a->has(opt)) continue;
        if (auto s = writeGraphFile(a->get(opt), *graph); !s.ok()) return reportError(err, s.error());
    }

    if (a->has("--json")) {
        nlohmann::json j;
        j["saved"] = nlohmann::json::array();
        for (const auto& s : res->saved)
            j["saved"].push_back({{"name", s.name}, {"bytes", s.bytes}, {"bytes_expr", s.bytesExpr}});
        j["saved_bytes"] = res->savedBytes;
        j["activation_bytes"] = res->activationBytes;
        // Dynamic shapes: the bytes over the symbols, and the binding the numbers are taken at.
        j["saved_bytes_expr"] = res->savedBytesExpr;
        j["activation_bytes_expr"] = res->activationBytesExpr;
        nlohmann::json binding = nlohmann::json::object();
        for (const auto& [s, v] : res->binding) {
            if (v.isFloat())
                binding[s] = v.d;
            else
                binding[s] = v.i;
        }
        j["binding"] = binding;
        j["defaulted_symbols"] = res->defaultedSymbols;
        j["recomputed"] = res->recomputed;
        j["forward_nodes"] = res->forward->size();
        j["backward_nodes"] = res->backward->size();
        j["ms"] = ms;
        j["memory_budget"] = po.memoryBudget;
        j["static_inputs"] = po.staticLifetimeInputs;
        j["strategy"] = res->strategy;
        j["num_fwd_outputs"] = res->numFwdOutputs;
        j["joint_nodes"] = res->nodesBefore;
        j["removed_by_dce"] = res->removedByDce;
        j["removed_by_cse"] = res->removedByCse;
        j["banned"] = nlohmann::json::array();
        for (const auto& b : res->banned) j["banned"].push_back({{"name", b.name}, {"rule", b.rule}});
        j["cut"] = nlohmann::json::array();
        for (const auto& c : res->cut) j["cut"].push_back({{"name", c.node}, {"capacity", c.capacity}});
        j["cut_value"] = res->cutValue;
        nlohmann::json regions = nlohmann::json::object();
        for (const auto& [name, r] : res->regions) regions[name] = regionName(r);
        j["regions"] = regions;
        out << j.dump(1) << "\n";
        return Ok;
    }
    out << "partitioned " << (*lgE)->stage << " (" << res->nodesBefore << " nodes, " << res->numFwdOutputs
        << " forward output" << (res->numFwdOutputs == 1 ? "" : "s") << ") in " << std::fixed << std::setprecision(1)
        << ms << " ms, memory budget " << std::setprecision(2) << po.memoryBudget << " (" << res->strategy << ")\n";
    out << "  forward  " << res->forward->size() << " nodes\n";
    out << "  backward " << res->backward->size() << " nodes\n";
    const bool symbolic = !res->binding.empty();
    out << "  saved    " << res->saved.size() << " values, " << res->savedBytes << " bytes (" << res->activationBytes
        << " beyond the inputs)";
    if (symbolic) {
        out << " at " << sym::bindingStr(res->binding);
        if (!res->defaultedSymbols.empty()) out << " (no hint for some: 8)";
        out << "\n           " << res->savedBytesExpr << " bytes (" << res->activationBytesExpr
            << " beyond the inputs)";
    }
    out << "\n";
    for (const auto& s : res->saved) {
        out << "    " << std::left << std::setw(28) << s.name << " " << s.bytes;
        if (symbolic && s.bytesExpr != std::to_string(s.bytes)) out << " = " << s.bytesExpr;
        out << (s.input ? "  (input)" : "") << "\n";
    }
    out << "  recomputed in backward: " << res->recomputed.size() << " nodes";
    for (size_t i = 0; i < res->recomputed.size() && i < 12; ++i) out << (i ? ", " : ": ") << res->recomputed[i];
    if (res->recomputed.size() > 12) out << ", ...";
    out << "\n  banned from recomputation: " << res->banned.size() << " nodes\n";
    return Ok;
}

}  // namespace fxray::cli
