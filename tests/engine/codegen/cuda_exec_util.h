#pragma once
// What the CUDA execution tests share: a graph compiled and run on the device (its outputs, run
// statistics and error), the reference executor's outputs, device annotations for FX text, and
// the skip without a device.
#include "test_util.h"

#include "codegen/cuda/cuda_backend.h"
#include "exec/run_check.h"

#include <string>
#include <vector>

#define SKIP_WITHOUT_DEVICE()                                                                                          \
    if (fxray::Status s_ = fxray::cg::cuda::requireDevice(); !s_.ok())                                                 \
    QSKIP(qPrintable(QString::fromStdString(s_.error().message)))

namespace cudatest {

using namespace fxray;

struct DeviceRun {
    std::vector<Value> outputs;
    cg::cuda::RunStats stats;
    std::string error;
};

inline DeviceRun runOnDevice(const Graph& g, const std::vector<Value>& inputs) {
    DeviceRun r;
    auto c = cg::cuda::CompiledGraph::compile(g, inputs);
    if (!c.ok()) {
        r.error = c.error().str();
        return r;
    }
    auto o = (*c)->run(inputs, {}, 0, {}, &r.stats);
    if (!o.ok())
        r.error = o.error().str();
    else
        r.outputs = std::move(o).value();
    return r;
}

/// The reference executor's outputs (the by-hand cases check them too: a wrong graph text or
/// hand computation fails here, also on machines without a GPU).
inline std::vector<Value> reference(const Graph& g, const std::vector<Value>& inputs) {
    RunRequest req;
    req.inputs = inputs;
    auto r = runAndCheck(g, req, nullptr);
    if (!r.ok()) {
        qWarning("reference: %s", r.error().str().c_str());
        return {};
    }
    return r->outputs;
}

inline std::string hostOps(const DeviceRun& r) {
    std::string s;
    for (const auto& [op, n] : r.stats.hostOps) s += op + " x" + std::to_string(n) + " ";
    return s;
}

inline std::string shapeStr(const std::vector<int64_t>& s) {
    std::string r;
    for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
    return r;
}

/// A contiguous tensor annotation on cuda:0 ("f32[2, 3][3, 1]cuda:0", quoted).
inline std::string ann(const std::vector<int64_t>& s, const std::string& dtype = "f32") {
    auto st = TensorMeta::contiguousStrides(s);
    return "\"" + dtype + "[" + shapeStr(s) + "][" + shapeStr(st) + "]cuda:0\"";
}

}  // namespace cudatest
