#include "autodiff/grad_check.h"

#include "autodiff/joint_builder.h"
#include "exec/run_check.h"
#include "import/lifted_constants.h"
#include "import/loader.h"
#include "import/npy.h"

#include <cstdio>
#include <unordered_map>

namespace fxray {

namespace fs = std::filesystem;

namespace {

/// Number of consecutive NNN.npy files from 000.npy (a gap ends the count, as readNpyFolder
/// would read it as None).
size_t countNpy(const fs::path& dir) {
    size_t n = 0;
    for (;; ++n) {
        char name[32];
        std::snprintf(name, sizeof name, "%03zu.npy", n);
        if (!fs::exists(dir / name)) break;
    }
    return n;
}

Diagnostic folderError(const fs::path& dir, std::string message) {
    Diagnostic d = makeError(std::move(message));
    d.file = dir.string();
    return d;
}

}  // namespace

Expected<RecordedBackward> readRecordedBackward(const fs::path& dir) {
    RecordedBackward rec;
    if (fs::is_directory(dir / "inputs") && fs::is_directory(dir / "outputs"))
        rec.dir = dir;
    else if (fs::is_directory(dir / "backward" / "inputs"))
        rec.dir = dir / "backward";
    else
        return folderError(dir, "is neither a numerics/ folder with a backward/ stage nor a stage folder with "
                                "inputs/ and outputs/");
    const fs::path in = rec.dir / "inputs", out = rec.dir / "outputs";
    if (!fs::is_directory(out)) return folderError(rec.dir, "has no outputs/ folder of recorded gradients");
    auto ins = readNpyFolder(in, countNpy(in));
    if (!ins.ok()) return ins.error();
    auto outs = readNpyFolder(out, countNpy(out));
    if (!outs.ok()) return outs.error();
    rec.inputs = std::move(ins).value();
    rec.outputs = std::move(outs).value();
    const fs::path graph = rec.dir.parent_path() / (rec.dir.filename().string() + ".py");
    if (fs::exists(graph)) rec.graph = graph;
    return rec;
}

namespace {

/// PyTorch's backward graph run in fp64 on the recorded inputs: the fp64 reference of the
/// corpus rule for gradients.
Expected<std::vector<Value>> pytorchGradientsFp64(const RecordedBackward& rec) {
    auto f = loadFile(rec.graph);
    if (!f.ok()) return f.error();
    auto lg = selectGraph(*f, "");
    if (!lg.ok()) return lg.error();
    const Graph& g = (*lg)->executable();
    RunRequest req;
    req.inputs = rec.inputs;
    req.fp64 = true;
    if (req.inputs.size() != g.placeholders().size())
        return folderError(rec.graph, "takes " + std::to_string(g.placeholders().size()) +
                                          " inputs, the stage records " + std::to_string(req.inputs.size()));
    if (Status st = layOutRecordedInputs(g, req.inputs); !st.ok()) return st.error();
    auto res = runAndCheck(g, req, nullptr);
    if (!res.ok()) return res.error();
    return std::move(res->outputs);
}

}  // namespace

Expected<GradientCheck> checkRecordedGradients(const Graph& fwd, const RecordedBackward& rec) {
    // Said before tracing: the joint graph would only fail later, at run time, with less context.
    if (auto missing = missingConstants(fwd); !missing.empty()) {
        Diagnostic d = makeError("the forward graph does not carry the value of constant '" + missing[0] +
                                 "' (PyTorch prints lifted constants without values), so its gradients cannot be run");
        d.file = fwd.sourceFile;
        return d;
    }
    // torch.autograd.grad over every floating input, inputs in the forward graph's order.
    JointOptions opts;
    opts.gradInputs = GradInputs::AllFloating;
    auto joint = buildJointGraph(fwd, opts);
    if (!joint.ok()) return joint.error();
    Graph& g = *joint->graph;

    const auto phs = fwd.placeholders();
    std::unordered_map<std::string, size_t> inputIndex;
    for (size_t i = 0; i < phs.size(); ++i) inputIndex[phs[i]->name()] = i;

    // One cotangent per floating forward output, in output order.
    std::vector<Argument> outs = g.outputs();
    const size_t firstFwd = joint->numMutatedInputs;
    std::vector<int> cotangentOf(joint->numForwardOutputs, -1);
    int numFloating = 0;
    for (size_t j = 0; j < joint->numForwardOutputs; ++j) {
        const Argument& a = outs[firstFwd + j];
        if (a.isNode() && !a.node->meta.empty() && !a.node->metaIsTuple && isFloating(a.node->meta[0].dtype))
            cotangentOf[j] = numFloating++;
    }
    if (rec.inputs.size() != phs.size() + static_cast<size_t>(numFloating))
        return folderError(rec.dir / "inputs", "has " + std::to_string(rec.inputs.size()) +
                                                   " files, but the forward graph takes " + std::to_string(phs.size()) +
                                                   " inputs and has " + std::to_string(numFloating) +
                                                   " floating outputs (one cotangent each)");

    std::vector<Value> inputs;
    for (const auto& src : joint->primalSources) inputs.push_back(rec.inputs[inputIndex.at(src)]);
    for (size_t k = 0; k < joint->numTangents; ++k) {
        const size_t o = joint->tangentOutputs[k];
        if (o < firstFwd || cotangentOf[o - firstFwd] < 0) {
            Diagnostic d = makeError("the forward graph updates an input that requires a gradient in place; PyTorch "
                                     "records no gradient for that");
            d.file = fwd.sourceFile;
            return d;
        }
        inputs.push_back(rec.inputs[phs.size() + static_cast<size_t>(cotangentOf[o - firstFwd])]);
    }

    // The joint graph returning only the gradients PyTorch would return (None ones left out).
    GradientCheck out;
    const size_t firstGrad = outs.size() - joint->primalSources.size();
    std::vector<Argument> grads;
    std::vector<std::string> names;
    for (size_t i = 0; i < joint->primalSources.size(); ++i) {
        if (!outs[firstGrad + i].isNode()) continue;
        grads.push_back(outs[firstGrad + i]);
        names.push_back(joint->primalSources[i]);
    }
    if (grads.size() != rec.outputs.size()) {
        out.mismatch = "fxray computes " + std::to_string(grads.size()) + " gradient(s)";
        for (size_t i = 0; i < names.size(); ++i) out.mismatch += (i ? ", " : " (of ") + names[i];
        out.mismatch += names.empty() ? "" : ")";
        out.mismatch += ", PyTorch recorded " + std::to_string(rec.outputs.size());
        return out;
    }
    g.outputNode()->args = {Argument::ofList(std::move(grads))};
    g.rebuildUsers();
    out.jointNodes = g.computeNodeCount();

    RunRequest req;
    req.inputs = std::move(inputs);
    if (Status st = layOutRecordedInputs(g, req.inputs); !st.ok()) {
        Diagnostic d = st.error();
        if (d.file.empty()) d.file = (rec.dir / "inputs").string();
        return d;
    }
    auto res = runAndCheck(g, req, nullptr);
    if (!res.ok()) {
        Diagnostic d = res.error();
        d.message = "the joint graph does not run on the reference executor: " + d.message;
        return d;
    }
    out.ms = res->ms;
    out.ok = true;
    bool anyFloatFail = false;
    for (size_t i = 0; i < res->outputs.size(); ++i) {
        out.grads.push_back({names[i], compareValues(i, res->outputs[i], rec.outputs[i])});
        const auto& c = out.grads.back().cmp;
        anyFloatFail = anyFloatFail || (!c.ok && res->outputs[i].isTensor() && isFloating(res->outputs[i].t.dtype()));
    }
    if (anyFloatFail && !rec.graph.empty()) {
        auto ref = pytorchGradientsFp64(rec);
        if (ref.ok()) {
            for (size_t i = 0; i < out.grads.size() && i < ref->size(); ++i)
                judgeWithFp64(out.grads[i].cmp, res->outputs[i], rec.outputs[i], (*ref)[i]);
        } else {
            // Without the second opinion rel_err stands; say why there was none.
            for (auto& gc : out.grads)
                if (!gc.cmp.ok)
                    gc.cmp.note =
                        "no fp64 second opinion: PyTorch's backward graph does not run: " + ref.error().message;
        }
    }
    for (const auto& gc : out.grads) out.ok = out.ok && gc.cmp.ok;
    return out;
}

}  // namespace fxray
