#pragma once
/// Checks fxray's autodiff against gradients PyTorch recorded: the joint graph of a forward graph
/// (every floating input requiring a gradient) runs on the reference executor with a backward
/// stage's recorded inputs, and its gradients are compared with the recorded ones by the corpus's
/// rule (exec/run_check.h). The recorded layout is ../shared/tools/gen_opinfo.py's
/// `torch.autograd.grad` stage: inputs are the forward's inputs, then one cotangent per floating
/// forward output (in output order); outputs are the gradients of the floating inputs in input
/// order, inputs without a gradient (None) left out.
#include "exec/compare.h"
#include "ir/graph.h"
#include "support/diagnostic.h"

#include <filesystem>
#include <string>
#include <vector>

namespace fxray {

/// A recorded backward stage.
struct RecordedBackward {
    std::filesystem::path dir;  ///< the stage folder (holding inputs/ and outputs/)
    /// PyTorch's own backward graph beside it (`backward.py`), empty when there is none.
    std::filesystem::path graph;
    std::vector<Value> inputs;
    std::vector<Value> outputs;
};

/// Reads a backward stage from `dir`: a corpus `numerics/` folder (its `backward/` stage is used)
/// or a stage folder itself (`inputs/NNN.npy`, `outputs/NNN.npy`). Fails naming the folder when
/// neither layout is there or a file does not read.
Expected<RecordedBackward> readRecordedBackward(const std::filesystem::path& dir);

/// One gradient compared.
struct GradientComparison {
    std::string input;  ///< the forward placeholder it is the gradient of
    OutputComparison cmp;
};

/// The outcome of a check.
struct GradientCheck {
    std::vector<GradientComparison> grads;
    /// Why nothing could be compared one to one (fxray computes gradients for other inputs than
    /// PyTorch recorded); empty otherwise.
    std::string mismatch;
    bool ok = false;
    size_t jointNodes = 0;
    double ms = 0.0;  ///< the reference executor's run of the joint graph
};

/// Builds the joint graph of `forward` and checks its gradients against `rec`. A gradient whose
/// rel_err fails gets the corpus rule's second opinion (judgeWithFp64) against PyTorch's own
/// backward graph (`rec.graph`) run in fp64: that accepts rounding noise of cancelling sums and
/// still fails a wrong rule. (An fp64 run of fxray's joint graph would agree with a wrong rule.)
/// Without PyTorch's graph, rel_err alone decides. Fails (a
/// Diagnostic naming the node) where buildJointGraph does — an op without a VJP rule among them
/// — when the recorded inputs do not fit the forward graph, or when the joint graph does not run.
Expected<GradientCheck> checkRecordedGradients(const Graph& forward, const RecordedBackward& rec);

}  // namespace fxray
