#include "codegen/step_profile.h"

#include <set>

namespace fxray::cg {

namespace {

double bytesOf(const TensorMeta& m) { return static_cast<double>(m.numel()) * dtypeItemSize(m.dtype); }

/// The meta of a graph node's runtime value, when it is a tensor the lowering knows.
const TensorMeta* metaOf(const LoweredGraph& lg, const Node* n) {
    auto it = lg.values.find(n);
    if (it == lg.values.end() || it->second.kind != LValue::Kind::Tensor || it->second.node < 0) return nullptr;
    return &lg.nodes[static_cast<size_t>(it->second.node)].meta;
}

/// Tensor arguments of the call's node in argument order (None where not a tensor).
std::vector<const TensorMeta*> tensorArgs(const LoweredGraph& lg, const Node& n) {
    std::vector<const TensorMeta*> r;
    for (const auto& a : n.args) r.push_back(a.isNode() ? metaOf(lg, a.node) : nullptr);
    return r;
}

double prod(const std::vector<int64_t>& v, size_t from = 0) {
    double p = 1;
    for (size_t i = from; i < v.size(); ++i) p *= static_cast<double>(v[i]);
    return p;
}

/// 2 x multiply-adds of the heavy externs; 0 for the others.
double flopsOf(const std::string& fn, const std::vector<const TensorMeta*>& a,
               const std::vector<const TensorMeta*>& outs) {
    auto has = [&](size_t i) { return i < a.size() && a[i]; };
    if ((fn == "mm" || fn == "bmm") && has(0) && has(1) && !outs.empty() && outs[0])
        return 2.0 * prod(outs[0]->shape) * static_cast<double>(a[0]->shape.back());
    if (fn == "addmm" && has(1) && !outs.empty() && outs[0])
        return 2.0 * prod(outs[0]->shape) * static_cast<double>(a[1]->shape.back());
    // convolution: every output element is C/G x kernel-volume multiply-adds.
    if (fn == "conv" && has(1) && !outs.empty() && outs[0]) return 2.0 * prod(outs[0]->shape) * prod(a[1]->shape, 1);
    // its backward: the data and weight gradients, each as costly as the forward.
    if (fn == "conv_backward" && has(0) && has(2)) return 4.0 * prod(a[0]->shape) * prod(a[2]->shape, 1);
    // attention: Q Kᵀ and P V (forward); the backward recomputes and has four such products.
    if ((fn == "sdpa_efficient" || fn == "sdpa" || fn == "sdpa_cudnn") && has(0) && has(1) && has(2) &&
        a[0]->shape.size() == 4) {
        const auto& q = a[0]->shape;
        return 2.0 * prod(q, 0) / static_cast<double>(q[3]) * static_cast<double>(a[1]->shape[2]) *
               static_cast<double>(q[3] + a[2]->shape[3]);
    }
    if ((fn == "sdpa_efficient_backward" || fn == "sdpa_cudnn_backward") && has(1) && has(2) && has(3) &&
        a[1]->shape.size() == 4) {
        const auto& q = a[1]->shape;
        return 2.5 * 2.0 * prod(q, 0) / static_cast<double>(q[3]) * static_cast<double>(a[2]->shape[2]) *
               static_cast<double>(q[3] + a[3]->shape[3]);
    }
    return 0.0;
}

}  // namespace

std::vector<StepProfile> describeSteps(const Program& P) {
    const LoweredGraph& lg = P.lowered;
    std::vector<StepProfile> r;
    for (const auto& st : P.steps) {
        StepProfile s;
        if (st.kind == ProgramStep::Kind::Kernel) {
            const Kernel& k = P.kernels[static_cast<size_t>(st.index)];
            s.name = k.name;
            s.kind = "kernel";
            s.nodes = k.nodes;
            std::set<int> seen;
            for (const auto& arg : k.args)
                if (arg.buffer >= 0 && seen.insert(arg.buffer).second)
                    s.bytes += bytesOf(P.buffers[static_cast<size_t>(arg.buffer)].meta);
        } else {
            const OpaqueCall& call = lg.calls[static_cast<size_t>(st.index)];
            s.name = call.kind == OpaqueCall::Kind::Extern ? call.fn : std::string(call.node->target());
            s.kind = call.kind == OpaqueCall::Kind::Extern ? "extern" : "fallback";
            s.nodes = {call.node->name()};
            for (const Node* in : call.inputs)
                if (const TensorMeta* m = metaOf(lg, in)) s.bytes += bytesOf(*m);
            std::vector<const TensorMeta*> outs;
            auto addOut = [&](const LValue& v) {
                if (v.kind == LValue::Kind::Tensor && v.node >= 0) {
                    outs.push_back(&lg.nodes[static_cast<size_t>(v.node)].meta);
                    s.bytes += bytesOf(*outs.back());
                } else {
                    outs.push_back(nullptr);
                }
            };
            if (call.result.kind == LValue::Kind::List)
                for (const auto& item : call.result.items) addOut(item);
            else
                addOut(call.result);
            s.flops = flopsOf(call.fn, tensorArgs(lg, *call.node), outs);
        }
        r.push_back(std::move(s));
    }
    return r;
}

}  // namespace fxray::cg
