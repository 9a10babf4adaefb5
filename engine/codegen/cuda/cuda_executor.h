#pragma once
/// Executing a compiled graph's Program on the device: the buffers of one run (inputs,
/// constants and pins uploaded, kernel outputs allocated from the caching allocator), the steps
/// in order (generated kernels, extern calls on the device, host fallbacks), and reading values
/// back. Split from cuda_backend.cpp so that CompiledGraph::run and ::benchmark share it: a
/// benchmark uploads once and executes many times with nothing copied back in between.
#include "codegen/cuda/cuda_backend.h"
#include "codegen/cuda/device_ops.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fxray::cg::cuda {

class Executor {
public:
    explicit Executor(const CompiledGraph& cg);

    /// Uploads inputs, constants and pinned values (once per Executor).
    Status prepare(const std::vector<Value>& inputs, const std::map<std::string, Value>& pins);
    /// Runs every step; kernels are queued without waiting unless ro.syncEachStep. Buffers
    /// written by an earlier execute() are reused (the caching allocator makes that free).
    Status execute(uint64_t seed, const RunOptions& ro, RunStats& stats);
    /// Waits for the device and downloads the graph's outputs.
    Expected<std::vector<Value>> outputs();

private:
    Status upload(size_t b, const Tensor& host);
    Status allocate(size_t b);
    Expected<Tensor> download(size_t b);
    TensorMeta viewOf(int id, int& buf) const;
    Expected<Value> hostValue(const LValue& v);
    Value metaValue(const LValue& v) const;
    std::optional<DeviceView> deviceOf(const Argument& a) const;
    friend class DeviceCall;
    /// An extern call on the device (device_externs.h); false when this instance has none (the
    /// host runs it).
    Expected<bool> deviceExtern(const OpaqueCall& call, ExecContext& ctx, RunStats& stats);
    Status hostCall(const OpaqueCall& call, ExecContext& ctx, RunStats& stats);

    const CompiledGraph& m_cg;
    const Program& m_p;
    std::vector<DeviceBuffer> m_dev;
    std::vector<TensorMeta> m_metas;
    std::vector<Tensor> m_host;    ///< downloaded or uploaded copies, valid for this run
    std::vector<bool> m_uploaded;  ///< inputs/constants/pins: survive across execute()
    std::vector<CUdeviceptr> m_ptrs;
    std::vector<void*> m_params;
};

}  // namespace fxray::cg::cuda
