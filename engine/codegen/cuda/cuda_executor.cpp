#include "codegen/cuda/cuda_executor.h"

#include "codegen/cuda/builtin_kernels.h"
#include "codegen/cuda/cudnn_conv.h"
#include "codegen/cuda/device_attention.h"
#include "exec/exec_context.h"
#include "exec/interpreter.h"
#include "exec/ops/kernel_util.h"

#include <cmath>
#include <functional>

namespace fxray::cg::cuda {

namespace {

bool sameLayout(const TensorMeta& a, const TensorMeta& b) {
    if (a.dtype != b.dtype || a.shape != b.shape || a.offset != b.offset) return false;
    for (size_t d = 0; d < a.shape.size(); ++d)
        if (a.shape[d] > 1 && (d >= a.strides.size() || d >= b.strides.size() || a.strides[d] != b.strides[d])) return false;
    return true;
}

size_t bytesOf(const TensorMeta& m) {
    return static_cast<size_t>(storageSpan(m)) * static_cast<size_t>(dtypeItemSize(m.dtype));
}

Tensor hostAllocate(const TensorMeta& m) {
    Tensor t;
    t.meta = m;
    t.storage = std::make_shared<Storage>(bytesOf(m));
    return t;
}

/// A host tensor with exactly layout m holding t's values.
Tensor relayout(const Tensor& t, const TensorMeta& m) {
    if (sameLayout(t.meta, m)) return t;
    Tensor r = hostAllocate(m);
    kern::fromDoubles(r, kern::toDoubles(t));
    return r;
}

void tag(Diagnostic& d, const std::string& node) {
    if (d.node.empty()) d.node = node;
}

} // namespace

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
    Tensor h = hostAllocate(m_metas[b]);
    const size_t bytes = h.storage->nbytes();
    if (bytes)
        if (Status s = check(runtime().cu.cuMemcpyDtoH(h.storage->data(), m_dev[b].ptr(), bytes),
                             "copying " + m_p.buffers[b].name + " to the host");
            !s.ok())
            return s.error();
    m_host[b] = h;
    return h;
}

Status Executor::prepare(const std::vector<Value>& inputs, const std::map<std::string, Value>& pins) {
    const Graph& g = m_cg.graph();
    const size_t nph = g.placeholders().size();
    if (inputs.size() != nph)
        return makeError("graph has " + std::to_string(nph) + " inputs but " + std::to_string(inputs.size()) + " were given");
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
        case BufferDesc::Source::Constant: {
            auto it = g.constants.find(bd.key);
            if (it == g.constants.end() || !it->second.hasData()) {
                Diagnostic d = makeError("constant '" + bd.key + "' has no value");
                d.node = bd.name;
                return d;
            }
            s = upload(b, it->second);
            m_uploaded[b] = true;
            break;
        }
        case BufferDesc::Source::Pinned: {
            auto it = pins.find(bd.key);
            if (it == pins.end() || !it->second.isTensor()) return makeError("no pinned value for node '" + bd.key + "'");
            s = upload(b, it->second.t);
            m_uploaded[b] = true;
            break;
        }
        case BufferDesc::Source::Kernel:
            if (!bd.internal) s = allocate(b);
            break;
        case BufferDesc::Source::Call: break;
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
    if (it == lg.values.end() || it->second.kind != LValue::Kind::Tensor) return std::nullopt;
    int b = -1;
    TensorMeta m = viewOf(it->second.node, b);
    if (b < 0 || !m_dev[static_cast<size_t>(b)].ptr()) return std::nullopt;
    return DeviceView{m_dev[static_cast<size_t>(b)].ptr(), m};
}

Expected<bool> Executor::deviceExtern(const OpaqueCall& call, RunStats& S) {
    const Node& n = *call.node;
    if (call.kind != OpaqueCall::Kind::Extern || !n.op()) return false;
    const LoweredGraph& lg = m_p.lowered;
    // Output buffers in the result's order (nullopt for None items).
    std::vector<int> outBufs;
    if (call.result.kind == LValue::Kind::Tensor) outBufs.push_back(m_p.bufferOf[static_cast<size_t>(call.result.node)]);
    else if (call.result.kind == LValue::Kind::List)
        for (const auto& it : call.result.items)
            outBufs.push_back(it.kind == LValue::Kind::Tensor ? m_p.bufferOf[static_cast<size_t>(it.node)] : -1);
    else return false;
    if (outBufs.empty()) return false;
    auto out = [&](size_t i) -> Expected<std::optional<DeviceView>> {
        if (i >= outBufs.size() || outBufs[i] < 0) return std::optional<DeviceView>();
        size_t b = static_cast<size_t>(outBufs[i]);
        if (Status s = allocate(b); !s.ok()) return s.error();
        return std::optional<DeviceView>(DeviceView{m_dev[b].ptr(), m_metas[b]});
    };
    const TensorMeta* om = outBufs[0] >= 0 ? &m_p.buffers[static_cast<size_t>(outBufs[0])].meta : nullptr;

    // Arguments in schema order: scalars bound as values (tensors as meta), tensors as views.
    const Schema& schema = n.op()->schema;
    std::vector<const Argument*> argOf(schema.args.size(), nullptr);
    for (size_t i = 0; i < n.args.size() && i < argOf.size(); ++i) argOf[i] = &n.args[i];
    for (const auto& [k, a] : n.kwargs)
        if (int idx = schema.indexOf(k); idx >= 0) argOf[static_cast<size_t>(idx)] = &a;
    auto view = [&](size_t i) { return i < argOf.size() && argOf[i] ? deviceOf(*argOf[i]) : std::nullopt; };

    if (call.fn == "cat") {
        // Legacy rule kept by PyTorch: 1-D empty inputs ([0]) are skipped whatever the rank
        // (gpt2's KV cache starts as such); other empty inputs add nothing along dim.
        if (!om || n.args.empty() || n.args[0].kind != Argument::Kind::List) return false;
        int64_t dim = n.args.size() > 1 ? n.args[1].i : 0;
        for (const auto& [k, a] : n.kwargs)
            if (k == "dim") dim = a.i;
        if (dim < 0) dim += static_cast<int64_t>(om->shape.size());
        if (dim < 0 || dim >= static_cast<int64_t>(om->shape.size())) return false;
        std::vector<DeviceView> parts;
        for (const auto& item : n.args[0].items) {
            if (!item.isNode()) return false;
            auto it = lg.values.find(item.node);
            if (it == lg.values.end() || it->second.kind != LValue::Kind::Tensor) return false;
            int b = -1;
            TensorMeta m = viewOf(it->second.node, b);
            if (m.numel() == 0 && m.shape.size() == 1) continue;
            if (m.dtype != om->dtype || m.shape.size() != om->shape.size()) return false;
            if (m.numel() == 0) {
                parts.push_back(DeviceView{0, m});
                continue;
            }
            auto v = deviceOf(item);
            if (!v) return false;
            parts.push_back(*v);
        }
        auto o = out(0);
        if (!o.ok()) return o.error();
        const DeviceView& C = **o;
        int64_t at = 0;
        for (const auto& p : parts) {
            TensorMeta slice = C.meta;
            slice.shape[static_cast<size_t>(dim)] = p.meta.shape[static_cast<size_t>(dim)];
            slice.offset = C.meta.offset + at * C.meta.strides[static_cast<size_t>(dim)];
            at += p.meta.shape[static_cast<size_t>(dim)];
            if (slice.numel() == 0) continue;
            if (Status s = stridedCopy(p, DeviceView{C.base, slice}); !s.ok()) return s.error();
            ++S.deviceCopies;
        }
        return true;
    }

    if ((call.fn == "mm" || call.fn == "bmm" || call.fn == "addmm") && om && gemmSupports(om->dtype)) {
        size_t first = call.fn == "addmm" ? 1 : 0;
        auto A = view(first), B = view(first + 1);
        std::optional<DeviceView> bias = call.fn == "addmm" ? view(0) : std::nullopt;
        double beta = 1.0, alpha = 1.0;
        for (const auto& [key, a] : n.kwargs) {
            double v = a.kind == Argument::Kind::Int ? static_cast<double>(a.i) : a.f;
            if (key == "beta") beta = v;
            if (key == "alpha") alpha = v;
        }
        if (!A || !B || A->meta.dtype != om->dtype || B->meta.dtype != om->dtype || (call.fn == "addmm" && !bias)) return false;
        auto o = out(0);
        if (!o.ok()) return o.error();
        const DeviceView& C = **o;
        if (call.fn == "addmm" && beta != 0.0)
            if (Status s = stridedCopy(*bias, C); !s.ok()) return s.error();
        if (Status s = gemm(*A, *B, C, alpha, call.fn == "addmm" ? beta : 0.0); !s.ok()) return s.error();
        ++S.gemms;
        return true;
    }

    // The rest needs its scalar arguments: bind meta values to the schema.
    std::map<const Node*, Value> env;
    for (const Node* in : call.inputs)
        if (auto it = lg.values.find(in); it != lg.values.end()) env[in] = metaValue(it->second);
    std::vector<Value> cargs;
    for (const auto& a : n.args) cargs.push_back(argumentValue(a, env));
    std::vector<std::pair<std::string, Value>> ckw;
    for (const auto& [k, a] : n.kwargs) ckw.emplace_back(k, argumentValue(a, env));
    auto bound = bindArgs(*n.op(), std::move(cargs), std::move(ckw));
    if (!bound.ok()) return false;
    const OpArgs& A = *bound;

    // Convolutions run through cuDNN when it is installed (PyTorch's own path, and its speed);
    // else, or where cuDNN refuses a configuration, through the direct kernels (fp32/fp64).
    auto anyConv = [](DType t) { return cudnnConvSupports(t) || convSupports(t); };
    if (call.fn == "conv" && om && anyConv(om->dtype)) {
        // convolution(input, weight, bias?, stride, padding, dilation, transposed, output_padding, groups)
        if (A.toBool(6)) return false;
        auto x = view(0), w = view(1);
        std::optional<DeviceView> bias = A.isNone(2) ? std::nullopt : view(2);
        if (!x || !w || (!A.isNone(2) && !bias) || x->meta.dtype != om->dtype || w->meta.dtype != om->dtype) return false;
        auto o = out(0);
        if (!o.ok()) return o.error();
        Status s = makeError("cuDNN is not available");
        if (cudnnConvSupports(om->dtype)) {
            s = cudnnConvForward(*x, *w, bias, **o, A.toIntList(3), A.toIntList(4), A.toIntList(5), A.toInt(8));
            if (s.ok()) ++S.cudnnCalls;
        }
        if (!s.ok() && convSupports(om->dtype))
            s = convForward(*x, *w, bias, **o, A.toIntList(3), A.toIntList(4), A.toIntList(5), A.toInt(8));
        if (!s.ok()) return s.error();
        ++S.deviceExterns;
        return true;
    }
    if (call.fn == "conv_backward") {
        // (grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed, output_padding, groups, mask)
        if (A.toBool(7)) return false;
        auto gy = view(0), x = view(1), w = view(2);
        if (!gy || !x || !w || !anyConv(gy->meta.dtype) || x->meta.dtype != gy->meta.dtype || w->meta.dtype != gy->meta.dtype)
            return false;
        std::optional<DeviceView> outs[3];
        for (size_t i = 0; i < 3; ++i) {
            auto o = out(i);
            if (!o.ok()) return o.error();
            outs[i] = *o;
        }
        Status s = makeError("cuDNN is not available");
        if (cudnnConvSupports(gy->meta.dtype)) {
            s = cudnnConvBackward(*gy, *x, *w, outs[0], outs[1], outs[2], A.toIntList(4), A.toIntList(5), A.toIntList(6),
                                  A.toInt(9));
            if (s.ok()) ++S.cudnnCalls;
        }
        if (!s.ok() && convSupports(gy->meta.dtype))
            s = convBackward(*gy, *x, *w, outs[0], outs[1], outs[2], A.toIntList(4), A.toIntList(5), A.toIntList(6),
                             A.toInt(9));
        if (!s.ok()) return s.error();
        ++S.deviceExterns;
        return true;
    }
    if (call.fn == "sdpa_efficient" || call.fn == "sdpa") {
        // _scaled_dot_product_efficient_attention(query, key, value, attn_bias?, compute_log_sumexp,
        //     dropout_p, is_causal, *, scale) -> (output, log_sumexp, philox_seed, philox_offset)
        // scaled_dot_product_attention(query, key, value, attn_mask?, dropout_p, is_causal, *, scale, enable_gqa)
        const bool eff = call.fn == "sdpa_efficient";
        const size_t iDrop = eff ? 5 : 4, iCausal = eff ? 6 : 5, iScale = eff ? 7 : 6;
        auto q = view(0), k = view(1), v = view(2);
        std::optional<DeviceView> bias = A.isNone(3) ? std::nullopt : view(3);
        // Dropout stays on the host: its mask is the reference executor's RNG, so that the
        // backward (also on the host then) and the reference agree.
        if (!q || !k || !v || (!A.isNone(3) && !bias) || A.toDouble(iDrop) != 0.0) return false;
        if (!eff && A.size() > 7 && !A.isNone(7) && A.toBool(7)) return false;  // grouped-query heads
        if (!om || !attentionHandles(q->meta, k->meta, v->meta, bias ? &bias->meta : nullptr, *om)) return false;
        auto o = out(0);
        if (!o.ok()) return o.error();
        std::optional<DeviceView> lse;
        if (eff) {
            auto l = out(1);
            if (!l.ok()) return l.error();
            lse = *l;
        }
        const double scale = A.size() > iScale && !A.isNone(iScale) ? A.toDouble(iScale)
                                                                      : 1.0 / std::sqrt(static_cast<double>(q->meta.shape[3]));
        if (Status s = attentionForward(*q, *k, *v, bias, **o, lse, scale, A.toBool(iCausal)); !s.ok()) return s.error();
        // The philox seed and offset are 0 without dropout.
        for (size_t i = 2; eff && i < 4; ++i) {
            auto p = out(i);
            if (!p.ok()) return p.error();
            if (!*p) continue;
            const DeviceView& pv = **p;
            const size_t bytes = static_cast<size_t>(pv.meta.numel() * dtypeItemSize(pv.meta.dtype));
            if (Status s = check(runtime().cu.cuMemsetD8(pv.base + static_cast<CUdeviceptr>(pv.meta.offset * dtypeItemSize(pv.meta.dtype)), 0, bytes),
                                 "zeroing the philox outputs");
                !s.ok())
                return s.error();
        }
        ++S.deviceExterns;
        return true;
    }
    if (call.fn == "sdpa_efficient_backward") {
        // (grad_out_, query, key, value, attn_bias?, out, logsumexp, philox_seed, philox_offset, dropout_p,
        //  grad_input_mask, is_causal, *, scale) -> (grad_query, grad_key, grad_value, grad_bias)
        auto go = view(0), q = view(1), k = view(2), v = view(3), o = view(5), lse = view(6);
        std::optional<DeviceView> bias = A.isNone(4) ? std::nullopt : view(4);
        if (!go || !q || !k || !v || !o || !lse || (!A.isNone(4) && !bias) || A.toDouble(9) != 0.0) return false;
        if (!attentionHandles(q->meta, k->meta, v->meta, bias ? &bias->meta : nullptr, o->meta)) return false;
        std::optional<DeviceView> grads[4];
        for (size_t i = 0; i < 4; ++i) {
            auto g = out(i);
            if (!g.ok()) return g.error();
            grads[i] = *g;
        }
        const double scale = A.size() > 12 && !A.isNone(12) ? A.toDouble(12)
                                                              : 1.0 / std::sqrt(static_cast<double>(q->meta.shape[3]));
        if (Status s = attentionBackward(*go, *q, *k, *v, bias, *o, *lse, scale, A.toBool(11), grads[0], grads[1], grads[2],
                                         bias ? grads[3] : std::nullopt);
            !s.ok())
            return s.error();
        ++S.deviceExterns;
        return true;
    }
    // Multi-output externs: every tensor output needs a dense buffer of the input's dtype.
    auto outsDense = [&](size_t count, DType t) {
        if (outBufs.size() < count) return false;
        for (size_t i = 0; i < count; ++i)
            if (outBufs[i] >= 0) {
                const TensorMeta& m = m_p.buffers[static_cast<size_t>(outBufs[i])].meta;
                if (!m.isContiguous() || (m.dtype != t && m.dtype != DType::Int64)) return false;
            }
        return true;
    };
    auto allOuts = [&](size_t count) -> Expected<std::vector<std::optional<DeviceView>>> {
        std::vector<std::optional<DeviceView>> r;
        for (size_t i = 0; i < count; ++i) {
            auto o = out(i);
            if (!o.ok()) return o.error();
            r.push_back(*o);
        }
        return r;
    };
    if (call.fn == "batch_norm_train") {
        // _native_batch_norm_legit_functional(input, weight?, bias?, running_mean, running_var, training, momentum, eps)
        auto x = view(0), rm = view(3), rv = view(4);
        std::optional<DeviceView> w = A.isNone(1) ? std::nullopt : view(1), b = A.isNone(2) ? std::nullopt : view(2);
        if (!A.toBool(5) || !x || !rm || !rv || (!A.isNone(1) && !w) || (!A.isNone(2) && !b) || !convSupports(x->meta.dtype) ||
            !outsDense(5, x->meta.dtype))
            return false;
        for (int o : outBufs)
            if (o < 0) return false;
        auto outs = allOuts(5);
        if (!outs.ok()) return outs.error();
        std::vector<DeviceView> ov;
        for (const auto& o : *outs) ov.push_back(*o);
        if (Status s = batchNormTrain(*x, w, b, *rm, *rv, ov, A.toDouble(6), A.toDouble(7)); !s.ok()) return s.error();
        ++S.deviceExterns;
        return true;
    }
    if (call.fn == "batch_norm_backward") {
        // native_batch_norm_backward(grad_out, input, weight?, running_mean?, running_var?, save_mean?, save_invstd?,
        //                            train, eps, output_mask)
        auto gy = view(0), x = view(1);
        if (!gy || !x || !convSupports(x->meta.dtype) || !outsDense(3, x->meta.dtype)) return false;
        std::optional<DeviceView> opt[5];
        for (size_t i = 0; i < 5; ++i) {
            if (A.isNone(2 + i)) continue;
            opt[i] = view(2 + i);
            if (!opt[i]) return false;
        }
        auto outs = allOuts(3);
        if (!outs.ok()) return outs.error();
        if (Status s = batchNormBackward(*gy, *x, opt[0], opt[1], opt[2], opt[3], opt[4], A.toBool(7), A.toDouble(8), (*outs)[0],
                                         (*outs)[1], (*outs)[2]);
            !s.ok())
            return s.error();
        ++S.deviceExterns;
        return true;
    }
    if (call.fn == "max_pool2d") {
        // max_pool2d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode) -> (out, indices)
        auto x = view(0);
        if (!x || !convSupports(x->meta.dtype) || outBufs.size() != 2 || outBufs[0] < 0 || outBufs[1] < 0 ||
            !outsDense(2, x->meta.dtype))
            return false;
        auto outs = allOuts(2);
        if (!outs.ok()) return outs.error();
        if (Status s = maxPool2d(*x, *(*outs)[0], *(*outs)[1], A.toIntList(1), A.toIntList(2), A.toIntList(3), A.toIntList(4));
            !s.ok())
            return s.error();
        ++S.deviceExterns;
        return true;
    }
    if (call.fn == "max_pool2d_backward" && om && convSupports(om->dtype) && om->isContiguous()) {
        // max_pool2d_with_indices_backward(grad_output, self, kernel_size, stride, padding, dilation, ceil_mode, indices)
        auto gy = view(0), idx = view(7);
        if (!gy || !idx || gy->meta.dtype != om->dtype) return false;
        auto o = out(0);
        if (!o.ok()) return o.error();
        if (Status s = maxPool2dBackward(*gy, *idx, **o); !s.ok()) return s.error();
        ++S.deviceExterns;
        return true;
    }
    if (call.fn == "embedding_backward" && om && scatterSupports(om->dtype)) {
        // embedding_dense_backward(grad_output, indices, num_weights, padding_idx, scale_grad_by_freq)
        if (A.toBool(4)) return false;
        auto g = view(0), idx = view(1);
        if (!g || !idx || g->meta.dtype != om->dtype) return false;
        auto o = out(0);
        if (!o.ok()) return o.error();
        if (Status s = embeddingBackward(*g, *idx, **o, A.toInt(3)); !s.ok()) return s.error();
        ++S.deviceExterns;
        return true;
    }
    if (call.fn == "index_add" && om && scatterSupports(om->dtype)) {
        // index_add(self, dim, index, source, *, alpha=1)
        auto self = view(0), idx = view(2), src = view(3);
        if (!self || !idx || !src || self->meta.dtype != om->dtype || src->meta.dtype != om->dtype || om->shape.empty())
            return false;
        auto o = out(0);
        if (!o.ok()) return o.error();
        if (Status s = indexAdd(*self, A.toInt(1), *idx, *src, A.toDouble(4), **o); !s.ok()) return s.error();
        ++S.deviceExterns;
        return true;
    }
    return false;
}

Status Executor::hostCall(const OpaqueCall& call, ExecContext& ctx, RunStats& S) {
    const LoweredGraph& lg = m_p.lowered;
    const Node& n = *call.node;
    ++S.hostOps[n.opName()];
    std::map<const Node*, Value> env;
    for (const Node* in : call.inputs) {
        auto it = lg.values.find(in);
        if (it == lg.values.end()) continue;
        auto v = hostValue(it->second);
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
    auto result = invokeOp(n.opName(), std::move(cargs), std::move(ckw), &ctx);
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
            if (k.outerCount() == 0 || k.outerCount() * k.innerCount() == 0) continue;
            m_ptrs.assign(k.args.size(), 0);
            m_params.clear();
            for (size_t i = 0; i < k.args.size(); ++i) {
                m_ptrs[i] = m_dev[static_cast<size_t>(k.args[i].buffer)].ptr();
                m_params.push_back(&m_ptrs[i]);
            }
            const int64_t perBlock = plan.mode == LaunchPlan::Mode::Pointwise ? plan.threads
                                   : plan.mode == LaunchPlan::Mode::WarpReduce ? plan.rowsPerBlock : 1;
            const int64_t cap = sms * (plan.mode == LaunchPlan::Mode::BlockReduce ? 8 : 32);
            const int64_t blocks = std::max<int64_t>(1, std::min((plan.work + perBlock - 1) / perBlock, cap));
            CUresult r = rt.cu.cuLaunchKernel(fns[static_cast<size_t>(st.index)], static_cast<unsigned>(blocks), 1, 1,
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
        auto dev = deviceExtern(call, S);
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
        if (Status s = check(rt.cu.cuEventSynchronize(events.ev.back()), "waiting for the timed steps"); !s.ok()) return s;
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

} // namespace fxray::cg::cuda
