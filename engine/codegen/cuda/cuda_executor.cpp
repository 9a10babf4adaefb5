#include "codegen/cuda/cuda_executor.h"

#include "codegen/cuda/device_externs.h"
#include "exec/exec_context.h"
#include "exec/interpreter.h"
#include "exec/ops/kernel_util.h"
#include "exec/tensor_layout.h"

#include <cmath>
#include <functional>

namespace fxray::cg::cuda {

namespace {

size_t bytesOf(const TensorMeta& m) {
    return static_cast<size_t>(storageSpan(m)) * static_cast<size_t>(dtypeItemSize(m.dtype));
}

void tag(Diagnostic& d, const std::string& node) {
    if (d.node.empty()) d.node = node;
}

}  // namespace

Executor::Executor(const CompiledGraph& cg) : m_cg(cg), m_p(cg.program()) {
    const size_t n = m_p.buffers.size();
    m_dev.resize(n);
    m_metas.resize(n);
    m_host.resize(n);
    m_uploaded.assign(n, false);
}

Status Executor::upload(size_t b, const Tensor& host) {
    const TensorMeta& m = m_p.buffers[b].meta;
    Tensor h = relayout(host, m);
    const size_t bytes = bytesOf(m);
    if (!m_dev[b].ptr() || m_dev[b].bytes() < bytes) {
        auto buf = DeviceBuffer::allocate(bytes);
        if (!buf.ok()) return buf.error();
        m_dev[b] = std::move(buf).value();
    }
    m_metas[b] = m;
    if (bytes)
        if (Status s = check(runtime().cu.cuMemcpyHtoD(m_dev[b].ptr(), h.storage->data(), bytes),
                             "copying " + m_p.buffers[b].name + " to the device");
            !s.ok())
            return s;
    m_host[b] = h;
    return Status::success();
}

Status Executor::allocate(size_t b) {
    const TensorMeta& m = m_p.buffers[b].meta;
    m_metas[b] = m;
    m_host[b] = Tensor();
    if (m_dev[b].ptr()) return Status::success();  // reused from an earlier execute()
    auto buf = DeviceBuffer::allocate(bytesOf(m));
    if (!buf.ok()) return buf.error();
    m_dev[b] = std::move(buf).value();
    return Status::success();
}

Expected<Tensor> Executor::download(size_t b) {
    if (m_host[b].hasData()) return m_host[b];
    Tensor h = allocateLayout(m_metas[b]);
    const size_t bytes = h.storage->nbytes();
    if (bytes)
        if (Status s = check(runtime().cu.cuMemcpyDtoH(h.storage->data(), m_dev[b].ptr(), bytes),
                             "copying " + m_p.buffers[b].name + " to the host");
            !s.ok())
            return s.error();
    m_host[b] = h;
    return h;
}

Status Executor::uploadConstant(size_t b) {
    const BufferDesc& bd = m_p.buffers[b];
    auto it = m_cg.graph().constants.find(bd.key);
    if (it == m_cg.graph().constants.end() || !it->second.hasData()) {
        Diagnostic d = makeError("constant '" + bd.key + "' has no value");
        d.node = bd.name;
        return d;
    }
    Status s = upload(b, it->second);
    m_uploaded[b] = s.ok();
    return s;
}

Status Executor::prepare(const std::vector<Value>& inputs, const std::map<std::string, Value>& pins) {
    const Graph& g = m_cg.graph();
    const size_t nph = g.placeholders().size();
    if (inputs.size() != nph)
        return makeError("graph has " + std::to_string(nph) + " inputs but " + std::to_string(inputs.size()) +
                         " were given");
    for (size_t b = 0; b < m_p.buffers.size(); ++b) {
        const BufferDesc& bd = m_p.buffers[b];
        Status s;
        switch (bd.source) {
        case BufferDesc::Source::Input: {
            const Value& v = inputs[static_cast<size_t>(bd.inputIndex)];
            if (!v.isTensor() || !v.t.hasData() || v.t.dtype() != bd.meta.dtype || v.t.shape() != bd.meta.shape) {
                Diagnostic d = makeError("input " + std::to_string(bd.inputIndex) + " expects " +
                                         bd.meta.annotation(false, false) + ", got " + v.describe());
                d.node = bd.name;
                return d;
            }
            s = upload(b, v.t);
            m_uploaded[b] = true;
            break;
        }
        case BufferDesc::Source::Constant: s = uploadConstant(b); break;
        case BufferDesc::Source::Pinned: {
            auto it = pins.find(bd.key);
            if (it == pins.end() || !it->second.isTensor())
                return makeError("no pinned value for node '" + bd.key + "'");
            s = upload(b, it->second.t);
            m_uploaded[b] = true;
            break;
        }
        case BufferDesc::Source::Kernel:
            if (!bd.internal) s = allocate(b);
            break;
        case BufferDesc::Source::Call:
            // Its layout until the call writes it: an extern that has nothing to write (an empty
            // batch) leaves it unallocated, and the output and the readers' metadata still need
            // its shape (a default layout read as one element, which came back as None).
            m_metas[b] = bd.meta;
            break;
        }
        if (!s.ok()) {
            tag(s.error(), bd.name);
            return s;
        }
    }
    return Status::success();
}

// Buffer and layout of a lowered tensor: a buffer, an alias of one, or a materialized copy.
TensorMeta Executor::viewOf(int id, int& buf) const {
    const LoweredGraph& lg = m_p.lowered;
    if (auto cp = m_p.viewCopies.find(id); cp != m_p.viewCopies.end()) id = cp->second;
    buf = m_p.bufferOf[static_cast<size_t>(id)];
    if (buf >= 0) return m_metas[static_cast<size_t>(buf)];
    int r = id;
    while (lg.nodes[static_cast<size_t>(r)].kind == LKind::View) r = lg.nodes[static_cast<size_t>(r)].base;
    buf = m_p.bufferOf[static_cast<size_t>(r)];
    return lg.nodes[static_cast<size_t>(id)].meta;
}

Expected<Value> Executor::hostValue(const LValue& v) {
    switch (v.kind) {
    case LValue::Kind::None: return Value::none();
    case LValue::Kind::Other: return v.other;
    case LValue::Kind::List: {
        std::vector<Value> items;
        for (const auto& x : v.items) {
            auto iv = hostValue(x);
            if (!iv.ok()) return iv.error();
            items.push_back(std::move(iv).value());
        }
        return Value::ofList(std::move(items), v.isTuple);
    }
    case LValue::Kind::Tensor: {
        int b = -1;
        TensorMeta m = viewOf(v.node, b);
        // An empty result has nothing to download and may have no buffer at all (the empty
        // outputs of an extern call): its shape and dtype, not None.
        if (m.numel() == 0) return Value::ofTensor(Tensor::emptyLike(m));
        if (b < 0 || (!m_dev[static_cast<size_t>(b)].ptr() && storageSpan(m_metas[static_cast<size_t>(b)]) > 0))
            return Value::none();
        auto h = download(static_cast<size_t>(b));
        if (!h.ok()) return h.error();
        return Value::ofTensor(h->view(m));
    }
    }
    return Value::none();
}

Value Executor::metaValue(const LValue& v) const {
    switch (v.kind) {
    case LValue::Kind::None: return Value::none();
    case LValue::Kind::Other: return v.other;
    case LValue::Kind::List: {
        std::vector<Value> items;
        for (const auto& x : v.items) items.push_back(metaValue(x));
        return Value::ofList(std::move(items), v.isTuple);
    }
    case LValue::Kind::Tensor: {
        int b = -1;
        return Value::ofTensor(Tensor::metaOnly(viewOf(v.node, b)));
    }
    }
    return Value::none();
}

std::optional<DeviceView> Executor::deviceOf(const Argument& a) const {
    if (!a.isNode()) return std::nullopt;
    const LoweredGraph& lg = m_p.lowered;
    auto it = lg.values.find(a.node);
    if (it == lg.values.end()) return std::nullopt;
    return deviceOf(it->second);
}

std::optional<DeviceView> Executor::deviceOf(const LValue& v) const {
    if (v.kind != LValue::Kind::Tensor) return std::nullopt;
    int b = -1;
    TensorMeta m = viewOf(v.node, b);
    if (b < 0 || !m_dev[static_cast<size_t>(b)].ptr()) return std::nullopt;
    return DeviceView{m_dev[static_cast<size_t>(b)].ptr(), m};
}

Expected<bool> Executor::deviceExtern(const OpaqueCall& call, ExecContext& ctx, RunStats& S) {
    if (call.kind != OpaqueCall::Kind::Extern || !call.node->op()) return false;
    const DeviceExtern* x = findDeviceExtern(call.fn);
    if (!x) return false;
    DeviceCall dc(*this, call, ctx, S);
    if (!dc.hasOutputs()) return false;
    return x->run(dc);
}

// ----- DeviceCall: the executor's state as a device extern sees it ---------------------------

DeviceCall::DeviceCall(Executor& ex, const OpaqueCall& call, ExecContext& ctx, RunStats& stats)
        : m_ex(ex), m_call(call), m_ctx(ctx), m_stats(stats) {
    const Program& P = ex.m_p;
    if (call.result.kind == LValue::Kind::Tensor) {
        m_outBufs.push_back(P.bufferOf[static_cast<size_t>(call.result.node)]);
    } else if (call.result.kind == LValue::Kind::List) {
        for (const auto& it : call.result.items)
            m_outBufs.push_back(it.kind == LValue::Kind::Tensor ? P.bufferOf[static_cast<size_t>(it.node)] : -1);
    }
    if (!m_outBufs.empty() && m_outBufs[0] >= 0) m_out0 = &P.buffers[static_cast<size_t>(m_outBufs[0])].meta;
    // Arguments in schema order (positional, then keywords by name).
    const Node& n = *call.node;
    const Schema& schema = n.op()->schema;
    m_argOf.assign(schema.args.size(), nullptr);
    for (size_t i = 0; i < n.args.size() && i < m_argOf.size(); ++i) m_argOf[i] = &n.args[i];
    for (const auto& [k, a] : n.kwargs)
        if (int idx = schema.indexOf(k); idx >= 0) m_argOf[static_cast<size_t>(idx)] = &a;
}

std::optional<DeviceView> DeviceCall::view(size_t i) const {
    if (i >= m_argOf.size() || !m_argOf[i] || !m_argOf[i]->isNode()) return std::nullopt;
    const LValue* v = callInput(m_ex.m_p.lowered, m_call, m_argOf[i]->node);
    return v ? m_ex.deviceOf(*v) : std::nullopt;
}

std::optional<std::vector<std::optional<DeviceView>>> DeviceCall::listViewsOrNone(size_t i) const {
    if (i >= m_argOf.size() || !m_argOf[i] || m_argOf[i]->kind != Argument::Kind::List) return std::nullopt;
    const LoweredGraph& lg = m_ex.m_p.lowered;
    std::vector<std::optional<DeviceView>> views;
    for (const auto& item : m_argOf[i]->items) {
        if (item.isNone()) {
            views.emplace_back();
            continue;
        }
        if (!item.isNode()) return std::nullopt;
        const LValue* lv = callInput(lg, m_call, item.node);
        if (!lv || lv->kind != LValue::Kind::Tensor) return std::nullopt;
        int b = -1;
        TensorMeta m = m_ex.viewOf(lv->node, b);
        if (m.numel() == 0) {  // nothing to read: no device buffer needed
            views.push_back(DeviceView{0, m});
            continue;
        }
        auto v = m_ex.deviceOf(*lv);
        if (!v) return std::nullopt;
        views.push_back(*v);
    }
    return views;
}

std::optional<std::vector<DeviceView>> DeviceCall::listViews(size_t i) const {
    auto items = listViewsOrNone(i);
    if (!items) return std::nullopt;
    std::vector<DeviceView> views;
    for (const auto& v : *items) {
        if (!v) return std::nullopt;
        views.push_back(*v);
    }
    return views;
}

const OpArgs* DeviceCall::args() {
    if (!m_bound) {
        // Scalars bound as values, tensors as their metadata.
        const LoweredGraph& lg = m_ex.m_p.lowered;
        const Node& n = *m_call.node;
        std::map<const Node*, Value> env;
        for (const Node* in : m_call.inputs)
            if (const LValue* v = callInput(lg, m_call, in)) env[in] = m_ex.metaValue(*v);
        std::vector<Value> cargs;
        for (const auto& a : n.args) cargs.push_back(argumentValue(a, env));
        std::vector<std::pair<std::string, Value>> ckw;
        for (const auto& [k, a] : n.kwargs) ckw.emplace_back(k, argumentValue(a, env));
        m_bound.emplace(bindArgs(*n.op(), std::move(cargs), std::move(ckw)));
    }
    return m_bound->ok() ? &**m_bound : nullptr;
}

Expected<std::optional<DeviceView>> DeviceCall::out(size_t i) {
    if (!hasOut(i)) return std::optional<DeviceView>();
    const size_t b = static_cast<size_t>(m_outBufs[i]);
    if (Status s = m_ex.allocate(b); !s.ok()) return s.error();
    return std::optional<DeviceView>(DeviceView{m_ex.m_dev[b].ptr(), m_ex.m_metas[b]});
}

Expected<std::vector<std::optional<DeviceView>>> DeviceCall::outs(size_t count) {
    std::vector<std::optional<DeviceView>> r;
    for (size_t i = 0; i < count; ++i) {
        auto o = out(i);
        if (!o.ok()) return o.error();
        r.push_back(*o);
    }
    return r;
}

const TensorMeta* DeviceCall::outMeta(size_t i) const {
    return hasOut(i) ? &m_ex.m_p.buffers[static_cast<size_t>(m_outBufs[i])].meta : nullptr;
}

bool DeviceCall::outsDense(size_t count, DType t) const {
    if (m_outBufs.size() < count) return false;
    for (size_t i = 0; i < count; ++i)
        if (m_outBufs[i] >= 0) {
            const TensorMeta& m = m_ex.m_p.buffers[static_cast<size_t>(m_outBufs[i])].meta;
            if (!m.isContiguous() || (m.dtype != t && m.dtype != DType::Int64)) return false;
        }
    return true;
}

Status Executor::hostCall(const OpaqueCall& call, ExecContext& ctx, RunStats& S) {
    const LoweredGraph& lg = m_p.lowered;
    const Node& n = *call.node;
    ++S.hostOps[n.opName()];
    std::map<const Node*, Value> env;
    for (const Node* in : call.inputs) {
        const LValue* lv = callInput(lg, call, in);
        if (!lv) continue;
        auto v = hostValue(*lv);
        if (!v.ok()) {
            tag(v.error(), n.name());
            return v.error();
        }
        env[in] = std::move(v).value();
    }
    std::vector<Value> cargs;
    for (const auto& a : n.args) cargs.push_back(argumentValue(a, env));
    std::vector<std::pair<std::string, Value>> ckw;
    for (const auto& [k, a] : n.kwargs) ckw.emplace_back(k, argumentValue(a, env));
    // Subgraph ops (cond, checkpoint) run on the reference executor, inside invokeOp.
    auto result =
        invokeOp(call.referenceOp.empty() ? n.opName() : call.referenceOp, std::move(cargs), std::move(ckw), &ctx);
    if (!result.ok()) {
        tag(result.error(), n.name());
        return result.error();
    }
    Status bs;
    std::function<void(const LValue&, const Value&)> bind = [&](const LValue& lv, const Value& v) {
        if (!bs.ok()) return;
        if (lv.kind == LValue::Kind::Tensor && v.isTensor()) {
            int b = m_p.bufferOf[static_cast<size_t>(lv.node)];
            if (b >= 0) bs = upload(static_cast<size_t>(b), v.t);
        }
        if (lv.kind == LValue::Kind::List && v.isList())
            for (size_t i = 0; i < lv.items.size() && i < v.list.size(); ++i) bind(lv.items[i], v.list[i]);
    };
    bind(call.result, *result);
    if (!bs.ok()) tag(bs.error(), n.name());
    return bs;
}

Status Executor::execute(uint64_t seed, const RunOptions& ro, RunStats& S) {
    const CudaRuntime& rt = runtime();
    const LoweredGraph& lg = m_p.lowered;
    const auto& plans = m_cg.source().plans;
    const auto& fns = m_cg.functions();
    // Values computed by the last run are stale now; uploaded ones stay.
    for (size_t b = 0; b < m_host.size(); ++b)
        if (!m_uploaded[b]) m_host[b] = Tensor();
    auto sync = [&](const std::string& what, const std::string& node) -> Status {
        if (!ro.syncEachStep) return Status::success();
        Status s = check(rt.cu.cuCtxSynchronize(), what);
        if (!s.ok()) s.error().node = node;
        return s;
    };
    ExecContext ctx(seed);
    const int64_t sms = static_cast<int64_t>(std::max(1, rt.smCount));
    // Profiling: an event before every step and one after the last, destroyed on every exit.
    struct Events {
        const DriverApi& cu;
        std::vector<CUevent> ev;
        ~Events() {
            for (CUevent e : ev)
                if (e) cu.cuEventDestroy(e);
        }
    } events{rt.cu, {}};
    if (ro.stepMs) {
        if (!rt.cu.cuEventCreate || !rt.cu.cuEventRecord || !rt.cu.cuEventElapsedTime || !rt.cu.cuEventDestroy ||
            !rt.cu.cuEventSynchronize)
            return makeError("this CUDA driver has no event API: the steps cannot be timed");
        events.ev.assign(m_p.steps.size() + 1, nullptr);
        for (CUevent& e : events.ev)
            if (Status s = check(rt.cu.cuEventCreate(&e, 0), "creating a timing event"); !s.ok()) return s;
    }
    size_t stepIndex = 0;
    for (const auto& st : m_p.steps) {
        if (ro.stepMs) rt.cu.cuEventRecord(events.ev[stepIndex], nullptr);
        ++stepIndex;
        if (st.kind == ProgramStep::Kind::Kernel) {
            const Kernel& k = m_p.kernels[static_cast<size_t>(st.index)];
            const LaunchPlan& plan = plans[static_cast<size_t>(st.index)];
            // Nothing to write only when there is no output element: a reduction over an empty
            // extent still writes its identity (sum over zero rows is zeros, not what the
            // buffer held; the OpInfo sweep saw bilinear's batch-0 gradients change run to run).
            if (k.outerCount() == 0 || (!k.isReduction() && k.innerCount() == 0)) continue;
            m_ptrs.assign(k.args.size(), 0);
            m_params.clear();
            for (size_t i = 0; i < k.args.size(); ++i) {
                m_ptrs[i] = m_dev[static_cast<size_t>(k.args[i].buffer)].ptr();
                m_params.push_back(&m_ptrs[i]);
            }
            const int64_t perBlock = plan.mode == LaunchPlan::Mode::Pointwise      ? plan.threads
                                     : plan.mode == LaunchPlan::Mode::WarpReduce   ? plan.rowsPerBlock
                                     : plan.mode == LaunchPlan::Mode::ColumnReduce ? plan.columns
                                                                                   : 1;
            const int64_t cap = sms * (plan.mode == LaunchPlan::Mode::BlockReduce ? 8 : 32);
            const int64_t blocks = std::max<int64_t>(1, std::min((plan.work + perBlock - 1) / perBlock, cap));
            CUresult r =
                rt.cu.cuLaunchKernel(fns[static_cast<size_t>(st.index)], static_cast<unsigned>(blocks),
                                     static_cast<unsigned>(std::max(1, plan.split)), 1,
                                     static_cast<unsigned>(plan.threads), 1, 1, 0, nullptr, m_params.data(), nullptr);
            if (r != 0 || ro.syncEachStep) {
                // Strings only off the fast path: a launch costs a few microseconds.
                const std::string node = k.nodes.empty() ? std::string() : k.nodes.front();
                Status s = r == 0 ? sync("kernel " + plan.name, node) : check(r, "launching kernel " + plan.name);
                if (!s.ok()) {
                    s.error().node = node;
                    return s;
                }
            }
            ++S.kernelLaunches;
            continue;
        }
        const OpaqueCall& call = lg.calls[static_cast<size_t>(st.index)];
        if (const auto* subs = m_cg.subgraphs(static_cast<size_t>(st.index))) {
            if (ro.stepOnHost) ro.stepOnHost->resize(m_p.steps.size(), 0);
            Status s = runSubgraph(call, static_cast<size_t>(st.index), *subs, seed, ro, S);
            if (s.ok() && ro.syncEachStep) s = sync("the subgraph of node " + call.node->name(), call.node->name());
            if (!s.ok()) return s;
            continue;
        }
        auto dev = deviceExtern(call, ctx, S);
        if (!dev.ok()) {
            Diagnostic d = dev.error();
            d.node = call.node->name();
            d.message = call.fn + " on the device: " + d.message;
            return d;
        }
        if (ro.stepOnHost) {
            ro.stepOnHost->resize(m_p.steps.size(), 0);
            (*ro.stepOnHost)[stepIndex - 1] = *dev ? 0 : 1;
        }
        Status s = *dev ? Status::success() : hostCall(call, ctx, S);
        if (s.ok() && ro.syncEachStep) s = sync(call.fn + " for node " + call.node->name(), call.node->name());
        if (!s.ok()) return s;
    }
    if (ro.stepMs) {
        rt.cu.cuEventRecord(events.ev.back(), nullptr);
        if (Status s = check(rt.cu.cuEventSynchronize(events.ev.back()), "waiting for the timed steps"); !s.ok())
            return s;
        ro.stepMs->assign(m_p.steps.size(), 0.0);
        for (size_t i = 0; i < m_p.steps.size(); ++i) {
            float ms = 0.0f;
            if (rt.cu.cuEventElapsedTime(&ms, events.ev[i], events.ev[i + 1]) == 0) (*ro.stepMs)[i] = ms;
        }
    }
    return Status::success();
}

Expected<std::vector<Value>> Executor::outputs() {
    if (Status s = check(runtime().cu.cuCtxSynchronize(), "finishing the graph's kernels"); !s.ok()) return s.error();
    std::vector<Value> outs;
    for (const auto& o : m_p.lowered.outputs) {
        auto v = hostValue(o);
        if (!v.ok()) return v.error();
        outs.push_back(std::move(v).value());
    }
    return outs;
}

}  // namespace fxray::cg::cuda
