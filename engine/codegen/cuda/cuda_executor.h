#pragma once
/// Executing a compiled graph's Program on the device: the buffers of one run (inputs,
/// constants and pins uploaded, kernel outputs allocated from the caching allocator), the steps
/// in order (generated kernels, extern calls on the device, subgraph ops through their compiled
/// subgraphs' own executors, host fallbacks), and reading values back. Split from cuda_backend.cpp so that CompiledGraph::run and ::benchmark share it: a
/// benchmark uploads once and executes many times with nothing copied back in between.
#include "codegen/cuda/cuda_backend.h"
#include "codegen/cuda/device_ops.h"

#include <map>
#include <memory>
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

    /// prepare() for a subgraph its parent runs: tensor input i copied from inputs[i] on the
    /// device (one copy where the layouts match, else a strided one; nullopt for a non-tensor
    /// input), constants uploaded on the first call only.
    Status prepareFrom(const std::vector<std::optional<DeviceView>>& inputs);
    /// Output i where execute() left it on the device; nullopt when it is not a device tensor.
    std::optional<DeviceView> outputView(size_t i) const;

private:
    Status upload(size_t b, const Tensor& host);
    Status uploadConstant(size_t b);
    Status allocate(size_t b);
    Expected<Tensor> download(size_t b);
    TensorMeta viewOf(int id, int& buf) const;
    Expected<Value> hostValue(const LValue& v);
    Value metaValue(const LValue& v) const;
    std::optional<DeviceView> deviceOf(const Argument& a) const;
    std::optional<DeviceView> deviceOf(const LValue& v) const;
    friend class DeviceCall;
    /// An extern call on the device (device_externs.h); false when this instance has none (the
    /// host runs it).
    Expected<bool> deviceExtern(const OpaqueCall& call, ExecContext& ctx, RunStats& stats);
    Status hostCall(const OpaqueCall& call, ExecContext& ctx, RunStats& stats);
    /// A subgraph op: cond's branch picked by its predicate (read back: one element), or the
    /// body, run by its compiled graph on operands and results that stay on the device.
    Status runSubgraph(const OpaqueCall& call, size_t callIndex, const CompiledGraph::Subgraphs& subs, uint64_t seed,
                       const RunOptions& ro, RunStats& stats);
    Expected<bool> predicate(const OpaqueCall& call, const Argument& a);

    const CompiledGraph& m_cg;
    const Program& m_p;
    std::vector<DeviceBuffer> m_dev;
    std::vector<TensorMeta> m_metas;
    std::vector<Tensor> m_host;    ///< downloaded or uploaded copies, valid for this run
    std::vector<bool> m_uploaded;  ///< inputs/constants/pins: survive across execute()
    std::vector<CUdeviceptr> m_ptrs;
    std::vector<void*> m_params;
    /// Per subgraph call, the executors of its subgraphs, made on first use and kept (their
    /// constants and buffers reused by the next execute()).
    std::map<size_t, std::vector<std::unique_ptr<Executor>>> m_subExec;
};

}  // namespace fxray::cg::cuda
