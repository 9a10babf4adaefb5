#pragma once
/// The CUDA backend's device extern kernels as one table: the executor runs an opaque call
/// through the entry named by the lowering's kernel name (OpaqueCall::fn), and `fxray ops`
/// reports from the same table which ops run on the device (cuda_ops.cpp). An entry that
/// declines an instance (an unsupported dtype, a half-type transposed convolution without cuDNN,
/// bicubic grid sampling) returns false and the host runs the op through the reference kernel, a
/// reported fallback.
#include "codegen/cuda/cuda_backend.h"
#include "codegen/cuda/device_ops.h"

#include <optional>
#include <string_view>
#include <vector>

namespace fxray::cg::cuda {

class Executor;

/// What a device extern sees of one opaque call: its arguments as device views (schema order),
/// its scalar arguments bound to the schema, and its outputs, allocated on first use.
class DeviceCall {
public:
    DeviceCall(Executor& ex, const OpaqueCall& call, ExecContext& ctx, RunStats& stats);

    const Node& node() const { return *m_call.node; }
    RunStats& stats() { return m_stats; }
    /// The run's context: its random generator, shared with the ops the host runs.
    ExecContext& context() { return m_ctx; }
    /// Output 0's layout (null when it is None): most kernels decide by its dtype.
    const TensorMeta* out0() const { return m_out0; }
    /// The call has at least one tensor output (else nothing runs on the device).
    bool hasOutputs() const { return !m_outBufs.empty(); }

    /// Argument i (schema order) as a device view; nullopt when it is not a tensor on the device.
    std::optional<DeviceView> view(size_t i) const;
    /// The items of list argument i as device views (size-0 items with a null base); nullopt when
    /// an item is not a tensor the device holds.
    std::optional<std::vector<DeviceView>> listViews(size_t i) const;
    /// The same with None items as nullopt entries (index_put's `Tensor?[] indices`).
    std::optional<std::vector<std::optional<DeviceView>>> listViewsOrNone(size_t i) const;
    /// The scalar arguments bound to the schema (tensors as metadata); null when binding fails.
    const OpArgs* args();

    /// Output i, allocated; nullopt where the op returns None there.
    Expected<std::optional<DeviceView>> out(size_t i);
    /// Outputs 0..count-1.
    Expected<std::vector<std::optional<DeviceView>>> outs(size_t count);
    /// Whether outputs 0..count-1 exist and each tensor one is dense, of dtype t or int64.
    bool outsDense(size_t count, DType t) const;
    /// How many outputs the call has (None ones included).
    size_t outCount() const { return m_outBufs.size(); }
    /// Whether output i is a tensor (not None).
    bool hasOut(size_t i) const { return i < m_outBufs.size() && m_outBufs[i] >= 0; }
    /// Output i's layout, null where it is None (nothing allocated).
    const TensorMeta* outMeta(size_t i) const;

private:
    Executor& m_ex;
    const OpaqueCall& m_call;
    ExecContext& m_ctx;
    RunStats& m_stats;
    std::vector<int> m_outBufs;  ///< per output, its buffer (-1 for None)
    const TensorMeta* m_out0 = nullptr;
    std::vector<const Argument*> m_argOf;
    std::optional<Expected<OpArgs>> m_bound;
};

/// Runs the call on the device: true when done, false when declined (the host runs it).
using DeviceExternFn = Expected<bool> (*)(DeviceCall& call);

struct DeviceExtern {
    std::string_view name;  ///< the lowering's extern kernel name ("mm", "conv", ...)
    DeviceExternFn run;
};

/// Every device extern kernel.
const std::vector<DeviceExtern>& deviceExternTable();
/// The part of it for Inductor's fallback ops (device_externs_fallback.cpp).
const std::vector<DeviceExtern>& fallbackOpDeviceExterns();
/// The part for the sampling ops (device_externs_sampling.cpp).
const std::vector<DeviceExtern>& samplingDeviceExterns();
/// The part for random ops (device_externs_random.cpp).
const std::vector<DeviceExtern>& randomDeviceExterns();
/// The part for elementwise ops whose scalar function loops (device_externs_pointwise.cpp).
const std::vector<DeviceExtern>& pointwiseDeviceExterns();
/// The part for the losses' and norms' backwards Inductor leaves to ATen (device_externs_backward.cpp).
const std::vector<DeviceExtern>& backwardDeviceExterns();
/// The part for sorting: sort, topk and the uniques (device_externs_sort.cpp).
const std::vector<DeviceExtern>& sortDeviceExterns();
/// The part for embedding bags (device_externs_embedding_bag.cpp).
const std::vector<DeviceExtern>& embeddingBagDeviceExterns();
/// The entry named `name`, or null.
const DeviceExtern* findDeviceExtern(std::string_view name);

}  // namespace fxray::cg::cuda
