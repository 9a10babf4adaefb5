// The executor's subgraph ops (cond, checkpoint, wrap): each subgraph is a CompiledGraph of its
// own (compiled with the parent, cuda_backend.cpp), run by an Executor the parent keeps; operands
// and results are copied device to device, and only cond's predicate (one element) comes back to
// the host, as Inductor's `.item()` does.
#include "codegen/cuda/cuda_executor.h"

#include "exec/interpreter.h"
#include "exec/ops/kernel_util.h"
#include "exec/tensor_layout.h"

namespace fxray::cg::cuda {

namespace {

/// dst = src on the device: one memcpy where both are laid out alike and dense, else the
/// strided copy (a branch may return another layout than the one the lowering inferred).
Status copyView(const DeviceView& src, const DeviceView& dst, const std::string& what) {
    if (src.meta.dtype != dst.meta.dtype || src.meta.shape != dst.meta.shape)
        return makeError(what + ": " + src.meta.annotation(false, false) + " where " +
                         dst.meta.annotation(false, false) + " is expected");
    const int64_t n = dst.meta.numel();
    if (n == 0) return Status::success();
    if (src.meta.strides == dst.meta.strides && dst.meta.isContiguous())
        return check(
            runtime().cu.cuMemcpyDtoD(dst.address(), src.address(),
                                      static_cast<size_t>(n) * static_cast<size_t>(dtypeItemSize(dst.meta.dtype))),
            what);
    // The strided copy moves elements of up to 8 bytes (complex128 has 16).
    if (dtypeItemSize(dst.meta.dtype) > 8)
        return makeError(what + ": a strided copy of " + dst.meta.annotation(false, false) + " is not supported");
    return stridedCopy(src, dst);
}

}  // namespace

Status Executor::prepareFrom(const std::vector<std::optional<DeviceView>>& inputs) {
    const size_t nph = m_cg.graph().placeholders().size();
    if (inputs.size() != nph)
        return makeError("subgraph has " + std::to_string(nph) + " inputs but " + std::to_string(inputs.size()) +
                         " were given");
    for (size_t b = 0; b < m_p.buffers.size(); ++b) {
        const BufferDesc& bd = m_p.buffers[b];
        Status s;
        switch (bd.source) {
        case BufferDesc::Source::Input: {
            const auto& v = inputs[static_cast<size_t>(bd.inputIndex)];
            if (!v || v->meta.dtype != bd.meta.dtype || v->meta.shape != bd.meta.shape) {
                Diagnostic d = makeError("input " + std::to_string(bd.inputIndex) + " expects " +
                                         bd.meta.annotation(false, false) + ", got " +
                                         (v ? v->meta.annotation(false, false) : std::string("no device tensor")));
                d.node = bd.name;
                return d;
            }
            s = allocate(b);
            if (s.ok()) s = copyView(*v, DeviceView{m_dev[b].ptr(), bd.meta}, "copying operand " + bd.name);
            break;
        }
        case BufferDesc::Source::Constant:
            if (!m_uploaded[b]) s = uploadConstant(b);
            break;
        case BufferDesc::Source::Pinned: s = makeError("a subgraph has no pinned value ('" + bd.key + "')"); break;
        case BufferDesc::Source::Kernel:
            if (!bd.internal) s = allocate(b);
            break;
        case BufferDesc::Source::Call: break;
        }
        if (!s.ok()) {
            if (s.error().node.empty()) s.error().node = bd.name;
            return s;
        }
    }
    return Status::success();
}

std::optional<DeviceView> Executor::outputView(size_t i) const {
    const auto& outs = m_p.lowered.outputs;
    return i < outs.size() ? deviceOf(outs[i]) : std::nullopt;
}

Expected<bool> Executor::predicate(const OpaqueCall& call, const Argument& a) {
    if (!a.isNode()) return argumentValue(a, {}).toDouble() != 0.0;  // a literal
    const LValue* lv = callInput(m_p.lowered, call, a.node);
    if (!lv) return makeError("cond predicate '" + a.node->name() + "' has no value");
    if (lv->kind == LValue::Kind::Other) return lv->other.toDouble() != 0.0;
    if (lv->kind != LValue::Kind::Tensor) return makeError("cond predicate must be a tensor or a scalar");
    int b = -1;
    const TensorMeta m = viewOf(lv->node, b);
    if (m.numel() != 1) return makeError("cond predicate must have one element");
    auto v = deviceOf(*lv);
    if (!v) return makeError("cond predicate '" + a.node->name() + "' is not on the device");
    TensorMeta one;
    one.dtype = m.dtype;
    Tensor h = allocateLayout(one);
    // Synchronous: waits for the kernels that compute the predicate.
    if (Status s = check(
            runtime().cu.cuMemcpyDtoH(h.storage->data(), v->address(), static_cast<size_t>(dtypeItemSize(m.dtype))),
            "reading the predicate of cond");
        !s.ok())
        return s.error();
    return kern::toDoubles(h)[0] != 0.0;
}

Status Executor::runSubgraph(const OpaqueCall& call, size_t callIndex, const CompiledGraph::Subgraphs& subs,
                             uint64_t seed, const RunOptions& ro, RunStats& S) {
    const Node& n = *call.node;
    const SubgraphCall& sc = subs.call;
    size_t which = 0;
    if (sc.isCond) {
        auto p = predicate(call, *sc.predicate);
        if (!p.ok()) {
            Diagnostic d = p.error();
            if (d.node.empty()) d.node = n.name();
            return d;
        }
        which = *p ? 0 : 1;
    }
    auto fail = [&](Diagnostic d) {
        d.message = "in " + subgraphRole(sc.isCond, which) + " of '" + n.name() + "': " + d.message;
        if (d.node.empty()) d.node = n.name();
        return d;
    };
    const LoweredGraph& lg = m_p.lowered;
    std::vector<std::optional<DeviceView>> ins;
    for (const Argument* a : sc.operands) {
        const LValue* lv = callInput(lg, call, a->node);
        if (!lv || lv->kind != LValue::Kind::Tensor) {
            ins.emplace_back();  // a scalar: the subgraph is compiled for its value
            continue;
        }
        int b = -1;
        const TensorMeta m = viewOf(lv->node, b);
        auto v = deviceOf(*lv);
        if (!v && m.numel() == 0) v = DeviceView{0, m};  // nothing to copy: no buffer needed
        if (!v) return fail(makeError("operand '" + a->node->name() + "' is not on the device"));
        ins.push_back(v);
    }
    auto& slots = m_subExec[callIndex];
    slots.resize(subs.graphs.size());
    std::unique_ptr<Executor>& ex = slots[which];
    if (!ex) ex = std::make_unique<Executor>(*subs.graphs[which]);
    if (Status s = ex->prepareFrom(ins); !s.ok()) return fail(s.error());
    RunOptions sub;  // per-step timing and host flags are the parent's steps'
    sub.syncEachStep = ro.syncEachStep;
    if (Status s = ex->execute(seed, sub, S); !s.ok()) return fail(s.error());
    // The results into the call's buffers, on the device.
    std::vector<const LValue*> results;
    if (call.result.kind == LValue::Kind::List)
        for (const auto& it : call.result.items) results.push_back(&it);
    else
        results.push_back(&call.result);
    const size_t produced = ex->m_p.lowered.outputs.size();
    if (results.size() != produced)
        return fail(makeError("returns " + std::to_string(produced) + " values where " +
                              std::to_string(results.size()) + " are expected"));
    for (size_t i = 0; i < results.size(); ++i) {
        if (results[i]->kind != LValue::Kind::Tensor) continue;
        const int b = m_p.bufferOf[static_cast<size_t>(results[i]->node)];
        if (b < 0) continue;
        if (Status s = allocate(static_cast<size_t>(b)); !s.ok()) return fail(s.error());
        const DeviceView dst{m_dev[static_cast<size_t>(b)].ptr(), m_metas[static_cast<size_t>(b)]};
        if (dst.meta.numel() == 0) continue;
        auto src = ex->outputView(i);
        if (!src) return fail(makeError("output " + std::to_string(i) + " is not a tensor on the device"));
        if (Status s = copyView(*src, dst, "copying output " + std::to_string(i)); !s.ok()) return fail(s.error());
    }
    ++S.subgraphRuns;
    return Status::success();
}

}  // namespace fxray::cg::cuda
