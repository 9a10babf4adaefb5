// fxray autodiff FILE: the joint forward+backward graph of a forward or inference graph, as AOT
// autograd builds it, in FX text form.
#include "autodiff/export_inputs.h"
#include "autodiff/grad_check.h"
#include "autodiff/joint_builder.h"
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/common.h"
#include "exec/shape_inference.h"
#include "import/constants_folder.h"
#include "import/dynamo_lowering.h"
#include "import/fx_text_reader.h"
#include "ir/printer.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <sstream>

namespace fxray::cli {

// Also to be declared in cli.h beside the other subcommands (kept here so the file stands alone).
int cmdAutodiff(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

namespace {

const char* kAutodiffUsage =
    "usage: fxray autodiff FILE [--graph SEL] [--out FILE] [--requires-grad auto|all|NAME,...]\n"
    "                      [--dynamo FILE] [--keep-order] [--json]\n"
    "       fxray autodiff FORWARD.py --check-grads DIR [--json]\n"
    "  --out FILE            write the joint graph there (default: standard output)\n"
    "  --requires-grad       auto (default): parameters when inputs are named like torch.export's\n"
    "                        or Dynamo's, else every floating input; all: every floating input;\n"
    "                        or a comma-separated list of input names\n"
    "  --dynamo FILE         the model's Dynamo graph: primals take its input order (PyTorch's) and\n"
    "                        lifted constants its literals (default: a sibling dynamo_graph.py or\n"
    "                        dynamo.py when FILE is a torch.export graph)\n"
    "  --keep-order          keep FILE's input order\n"
    "  --json                print a summary as JSON (with --out, or instead of the graph)\n"
    "  --check-grads DIR     check the gradients against PyTorch's: DIR is a corpus numerics/ folder\n"
    "                        (its backward/ stage) or the stage folder itself, whose inputs/ are the\n"
    "                        forward's inputs then one cotangent per floating output and whose\n"
    "                        outputs/ are torch.autograd.grad's gradients of the floating inputs\n"
    "                        (None ones left out). The joint graph runs on the reference executor;\n"
    "                        a gradient failing rel_err is judged against PyTorch's backward.py\n"
    "                        beside DIR run in fp64 (the corpus rule's second opinion). Prints\n"
    "                        each gradient's max abs and relative error. Exit 0 when all\n"
    "                        match, 1 when one differs, 2 on bad input or an op without a VJP rule\n";

std::string fmtErr(double v) {
    if (std::isinf(v)) return "inf";
    std::ostringstream s;
    s << std::scientific << std::setprecision(2) << v;
    return s.str();
}

/// --check-grads: gradients of every floating input against a recorded backward stage.
int checkGrads(const Graph& fwd, const std::string& file, const std::string& dir, bool json, std::ostream& out,
               std::ostream& err) {
    auto rec = readRecordedBackward(dir);
    if (!rec.ok()) return reportError(err, rec.error());
    auto chk = checkRecordedGradients(fwd, *rec);
    if (!chk.ok()) return reportError(err, chk.error());
    if (json) {
        nlohmann::json j;
        j["ok"] = chk->ok;
        j["joint_nodes"] = chk->jointNodes;
        j["ms"] = chk->ms;
        if (!chk->mismatch.empty()) j["mismatch"] = chk->mismatch;
        j["gradients"] = nlohmann::json::array();
        for (const auto& gc : chk->grads) {
            const auto& c = gc.cmp;
            nlohmann::json jg = {{"input", gc.input},
                                 {"ok", c.ok},
                                 {"rel_err", std::isinf(c.relErr) ? 1e308 : c.relErr},
                                 {"max_abs_err", std::isinf(c.maxAbsErr) ? 1e308 : c.maxAbsErr},
                                 {"tolerance", c.tolerance}};
            if (c.fp64Judged) jg["judged_by"] = "fp64_rmse";
            if (!c.note.empty()) jg["note"] = c.note;
            j["gradients"].push_back(jg);
        }
        out << j.dump(1) << "\n";
    } else {
        out << "checked the gradients of " << file << " against " << rec->dir.string();
        if (chk->mismatch.empty()) out << " (joint graph: " << chk->jointNodes << " nodes, reference executor)";
        out << "\n";
        if (!chk->mismatch.empty()) out << "  MISMATCH  " << chk->mismatch << "\n";
        for (const auto& gc : chk->grads) {
            const auto& c = gc.cmp;
            out << "  grad of " << std::left << std::setw(12) << gc.input << std::right << (c.ok ? "  ok  " : "  FAIL")
                << "  max_abs_err " << fmtErr(c.maxAbsErr) << "  rel_err " << fmtErr(c.relErr);
            if (c.fp64Judged) out << "  (judged against PyTorch's backward graph in fp64)";
            if (!c.note.empty()) out << "  " << c.note;
            out << "\n";
        }
    }
    return chk->ok ? Ok : CheckFailed;
}

bool isExportGraph(const Graph& g) {
    for (const Node* p : g.placeholders())
        if (p->name().rfind("p_", 0) == 0 || p->name().rfind("b_", 0) == 0) return true;
    return false;
}

}  // namespace

int cmdAutodiff(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    std::string perr;
    auto a = parseArgs(argv, {"--graph", "--out", "--requires-grad", "--dynamo", "--check-grads"},
                       {"--json", "--keep-order", "--help"}, perr);
    if (!a) return reportError(err, makeError(perr));
    if (a->has("--help")) {
        out << kAutodiffUsage;
        return Ok;
    }
    if (a->positional.size() != 1) return reportError(err, makeError("autodiff takes one FILE"));
    const std::filesystem::path file = a->positional[0];
    auto f = loadFile(file);
    if (!f.ok()) return reportError(err, f.error());
    auto lg = selectGraph(*f, a->get("--graph"));
    if (!lg.ok()) return reportError(err, lg.error());
    std::unique_ptr<Graph> lowered;
    const Graph* fwd = (*lg)->graph.get();
    if (isTorchLevel(*fwd)) {
        // Dynamo graphs call torch-level functions: lower them to ATen first.
        lowered = fwd->clone();
        if (auto st = lowerToAten(*lowered); !st.ok()) return reportError(err, st.error());
        resolveOps(*lowered);
        inferMeta(*lowered);
        lowered->rebuildUsers();
        fwd = lowered.get();
    }

    if (a->has("--check-grads")) {
        if (a->has("--requires-grad") || a->has("--dynamo") || a->has("--out"))
            return reportError(err, makeError("--check-grads differentiates every floating input in the file's input "
                                              "order; it takes no --requires-grad, --dynamo or --out"));
        return checkGrads(*fwd, file.string(), a->get("--check-grads"), a->has("--json"), out, err);
    }

    JointOptions opts;
    std::string rg = a->get("--requires-grad", "auto");
    if (rg == "all") {
        opts.gradInputs = GradInputs::AllFloating;
    } else if (rg != "auto") {
        opts.gradInputs = GradInputs::Listed;
        opts.requiresGrad = splitComma(rg);
    }

    std::filesystem::path dynamoPath = a->get("--dynamo");
    if (dynamoPath.empty() && isExportGraph(*fwd))
        for (const char* sib : {"dynamo_graph.py", "dynamo.py", "../numerics/dynamo.py"})
            if (std::filesystem::exists(file.parent_path() / sib)) {
                dynamoPath = file.parent_path() / sib;
                break;
            }
    std::string orderNote;
    if (!dynamoPath.empty()) {
        auto dyn = readFxFile(dynamoPath);
        if (!dyn.ok()) return reportError(err, dyn.error());
        if (!a->has("--keep-order")) {
            auto order = primalOrderFromDynamo(*fwd, **dyn);
            if (order.ok()) {
                opts.primalOrder = *order;
                orderNote = dynamoPath.string();
            } else if (a->has("--dynamo")) {
                return reportError(err, order.error());
            } else {
                // A sibling Dynamo graph that does not describe the same inputs (a frozen model's,
                // say) is no reason to fail: keep the file's order and say so.
                err << "fxray: note: keeping the input order of " << file.string() << ": " << order.error().message
                    << "\n";
            }
        }
        opts.constantValues = exportConstantsFromDynamo(*fwd, **dyn);
    }

    const auto t0 = std::chrono::steady_clock::now();
    auto joint = buildJointGraph(*fwd, opts);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (!joint.ok()) return reportError(err, joint.error());
    const std::string text = printGraph(*joint->graph);

    const std::string outPath = a->get("--out");
    if (!outPath.empty())  // with its constants' values beside it, so that it runs on its own
        if (auto s = writeGraphFile(outPath, *joint->graph); !s.ok()) return reportError(err, s.error());
    if (a->has("--json")) {
        nlohmann::json j;
        j["nodes"] = joint->graph->computeNodeCount();
        j["source_nodes"] = fwd->computeNodeCount();
        j["primals"] = joint->primalSources;
        j["requires_grad"] = joint->requiresGrad;
        j["tangents"] = joint->numTangents;
        j["mutated_inputs"] = joint->numMutatedInputs;
        j["forward_outputs"] = joint->numForwardOutputs;
        j["dead_nodes_removed"] = joint->deadNodesRemoved;
        j["primal_order_from"] = orderNote;
        j["ms"] = ms;
        if (!outPath.empty()) j["out"] = outPath;
        out << j.dump(2) << "\n";
    } else if (outPath.empty()) {
        out << text;
    }
    return Ok;
}

}  // namespace fxray::cli
