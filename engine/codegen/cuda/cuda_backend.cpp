#include "codegen/cuda/cuda_backend.h"

#include "codegen/cuda/device_ops.h"
#include "exec/interpreter.h"
#include "exec/ops/kernel_util.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>

namespace fxray::cg::cuda {

namespace {

double msSince(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

bool sameLayout(const TensorMeta& a, const TensorMeta& b) {
    if (a.dtype != b.dtype || a.shape != b.shape || a.offset != b.offset) return false;
    for (size_t d = 0; d < a.shape.size(); ++d)
        if (a.shape[d] > 1 && (d >= a.strides.size() || d >= b.strides.size() || a.strides[d] != b.strides[d])) return false;
    return true;
}

Tensor hostAllocate(const TensorMeta& m) {
    Tensor t;
    t.meta = m;
    t.storage = std::make_shared<Storage>(static_cast<size_t>(storageSpan(m)) * static_cast<size_t>(dtypeItemSize(m.dtype)));
    return t;
}

/// A host tensor with exactly layout m holding t's values.
Tensor relayout(const Tensor& t, const TensorMeta& m) {
    if (sameLayout(t.meta, m)) return t;
    Tensor r = hostAllocate(m);
    kern::fromDoubles(r, kern::toDoubles(t));
    return r;
}

std::vector<Value> metasOf(const std::vector<Value>& inputs) {
    std::vector<Value> metas;
    for (const auto& v : inputs) {
        if (!v.isTensor()) {
            metas.push_back(v);
            continue;
        }
        TensorMeta m = v.t.meta;
        m.offset = 0;  // inputs are uploaded relaid to their own strides at offset 0
        metas.push_back(Value::ofTensor(Tensor::metaOnly(m)));
    }
    return metas;
}

Expected<Program> lowerAndSchedule(const Graph& g, const std::vector<Value>& inputs, const CompileOptions& opts,
                                   CompileStats& st) {
    auto t0 = std::chrono::steady_clock::now();
    auto lg = lowerGraph(g, metasOf(inputs), opts.pinned);
    if (!lg.ok()) return lg.error();
    st.lowerMs = msSince(t0);
    auto t1 = std::chrono::steady_clock::now();
    auto prog = schedule(std::move(lg).value(), opts.schedule);
    if (!prog.ok()) return prog.error();
    st.scheduleMs = msSince(t1);
    return prog;
}

} // namespace

Expected<std::vector<Value>> annotatedInputs(const Graph& g) {
    std::vector<Value> r;
    for (const Node* ph : g.placeholders()) {
        if (ph->meta.empty()) {
            Diagnostic d = makeError("input '" + ph->name() + "' has no tensor annotation; give inputs");
            d.file = g.sourceFile;
            return d;
        }
        TensorMeta m = ph->meta[0];
        if (m.isSymbolic()) {
            Diagnostic d = makeError("input '" + ph->name() + "' has a symbolic shape; the CUDA backend compiles static shapes");
            d.file = g.sourceFile;
            return d;
        }
        if (m.strides.size() != m.shape.size()) m.strides = TensorMeta::contiguousStrides(m.shape);
        r.push_back(Value::ofTensor(Tensor::metaOnly(m)));
    }
    return r;
}

Expected<SourceOnly> compileSourceOnly(const Graph& g, const std::vector<Value>& inputs, const std::string& arch,
                                       const CompileOptions& opts) {
    auto t0 = std::chrono::steady_clock::now();
    SourceOnly so;
    auto prog = lowerAndSchedule(g, inputs, opts, so.stats);
    if (!prog.ok()) return prog.error();
    so.program = std::move(prog).value();
    auto t1 = std::chrono::steady_clock::now();
    auto src = generateCudaSource(so.program.kernels);
    if (!src.ok()) return src.error();
    so.source = std::move(src).value();
    so.stats.codegenMs = msSince(t1);
    if (const char* dump = std::getenv("FXRAY_CUDA_DUMP"); dump && *dump) {
        // Debugging aid: the module as NVRTC sees it.
        std::ofstream(std::string(dump) + "/" + (g.sourceFile.empty() ? std::string("graph") : std::filesystem::path(g.sourceFile).stem().string()) + ".cu")
            << so.source.source;
    }
    auto out = nvrtcCompile(so.source.source, "fxray_graph", arch);
    if (!out.ok()) return out.error();
    so.compiled = std::move(out).value();
    so.stats.nvrtcMs = so.compiled.ms;
    so.stats.totalMs = msSince(t0);
    return so;
}

CompiledGraph::~CompiledGraph() {
    if (m_module) runtime().cu.cuModuleUnload(m_module);
}

Expected<std::unique_ptr<CompiledGraph>> CompiledGraph::compile(const Graph& g, const std::vector<Value>& inputs,
                                                                const CompileOptions& opts) {
    if (Status s = requireDevice(); !s.ok()) return s.error();
    const CudaRuntime& rt = runtime();
    auto t0 = std::chrono::steady_clock::now();
    std::unique_ptr<CompiledGraph> cg(new CompiledGraph());
    cg->m_graph = &g;
    cg->m_arch = targetArch();
    auto so = compileSourceOnly(g, inputs, cg->m_arch, opts);
    if (!so.ok()) return so.error();
    cg->m_program = std::move(so->program);
    cg->m_source = std::move(so->source);
    cg->m_stats = so->stats;
    auto t1 = std::chrono::steady_clock::now();
    if (!cg->m_program.kernels.empty()) {
        if (Status s = check(rt.cu.cuModuleLoadData(&cg->m_module, so->compiled.image.data()), "loading the kernels"); !s.ok())
            return s.error();
        for (const auto& plan : cg->m_source.plans) {
            CUfunction f = nullptr;
            if (Status s = check(rt.cu.cuModuleGetFunction(&f, cg->m_module, plan.name.c_str()), "kernel " + plan.name); !s.ok())
                return s.error();
            cg->m_functions.push_back(f);
        }
    }
    cg->m_stats.loadMs = msSince(t1);
    cg->m_stats.totalMs = msSince(t0);
    return cg;
}

Expected<std::vector<Value>> CompiledGraph::run(const std::vector<Value>& inputs, const std::map<std::string, Value>& pins,
                                                uint64_t seed, const RunOptions& ro, RunStats* stats) const {
    const CudaRuntime& rt = runtime();
    const Program& P = m_program;
    const LoweredGraph& lg = P.lowered;
    RunStats localStats;
    RunStats& S = stats ? *stats : localStats;
    auto phs = m_graph->placeholders();
    if (inputs.size() != phs.size())
        return makeError("graph has " + std::to_string(phs.size()) + " inputs but " + std::to_string(inputs.size()) + " were given");
    std::vector<DeviceBuffer> dev(P.buffers.size());
    std::vector<TensorMeta> metas(P.buffers.size());
    std::vector<Tensor> hostCache(P.buffers.size());  // downloaded copies (buffers are written once)

    auto upload = [&](size_t b, const Tensor& host) -> Status {
        const TensorMeta& m = P.buffers[b].meta;
        Tensor h = relayout(host, m);
        size_t bytes = static_cast<size_t>(storageSpan(m)) * static_cast<size_t>(dtypeItemSize(m.dtype));
        auto buf = DeviceBuffer::allocate(bytes);
        if (!buf.ok()) return buf.error();
        dev[b] = std::move(buf).value();
        metas[b] = m;
        if (bytes)
            if (Status s = check(rt.cu.cuMemcpyHtoD(dev[b].ptr(), h.storage->data(), bytes), "copying " + P.buffers[b].name + " to the device");
                !s.ok())
                return s;
        hostCache[b] = h;
        return Status::success();
    };
    auto allocate = [&](size_t b) -> Status {
        const TensorMeta& m = P.buffers[b].meta;
        auto buf = DeviceBuffer::allocate(static_cast<size_t>(storageSpan(m)) * static_cast<size_t>(dtypeItemSize(m.dtype)));
        if (!buf.ok()) return buf.error();
        dev[b] = std::move(buf).value();
        metas[b] = m;
        return Status::success();
    };
    auto download = [&](size_t b) -> Expected<Tensor> {
        if (hostCache[b].hasData()) return hostCache[b];
        Tensor h = hostAllocate(metas[b]);
        size_t bytes = h.storage->nbytes();
        if (bytes)
            if (Status s = check(rt.cu.cuMemcpyDtoH(h.storage->data(), dev[b].ptr(), bytes), "copying " + P.buffers[b].name + " to the host");
                !s.ok())
                return s.error();
        hostCache[b] = h;
        return h;
    };

    for (size_t b = 0; b < P.buffers.size(); ++b) {
        const BufferDesc& bd = P.buffers[b];
        Status s;
        switch (bd.source) {
        case BufferDesc::Source::Input: {
            const Value& v = inputs[static_cast<size_t>(bd.inputIndex)];
            if (!v.isTensor() || !v.t.hasData() || v.t.dtype() != bd.meta.dtype || v.t.shape() != bd.meta.shape) {
                Diagnostic d = makeError("input " + std::to_string(bd.inputIndex) + " expects " + bd.meta.annotation(false, false) +
                                         ", got " + v.describe());
                d.node = bd.name;
                return d;
            }
            s = upload(b, v.t);
            break;
        }
        case BufferDesc::Source::Constant: {
            auto it = m_graph->constants.find(bd.key);
            if (it == m_graph->constants.end() || !it->second.hasData()) {
                Diagnostic d = makeError("constant '" + bd.key + "' has no value");
                d.node = bd.name;
                return d;
            }
            s = upload(b, it->second);
            break;
        }
        case BufferDesc::Source::Pinned: {
            auto it = pins.find(bd.key);
            if (it == pins.end() || !it->second.isTensor()) return makeError("no pinned value for node '" + bd.key + "'");
            s = upload(b, it->second.t);
            break;
        }
        case BufferDesc::Source::Kernel:
            if (!bd.internal) s = allocate(b);
            break;
        case BufferDesc::Source::Call: break;
        }
        if (!s.ok()) {
            Diagnostic d = s.error();
            if (d.node.empty()) d.node = bd.name;
            return d;
        }
    }

    // Buffer and layout of a lowered tensor: a buffer, an alias of one, or a materialized copy.
    auto viewOf = [&](int id, int& buf) -> TensorMeta {
        if (auto cp = P.viewCopies.find(id); cp != P.viewCopies.end()) id = cp->second;
        buf = P.bufferOf[static_cast<size_t>(id)];
        if (buf >= 0) return metas[static_cast<size_t>(buf)];
        int r = id;
        while (lg.nodes[static_cast<size_t>(r)].kind == LKind::View) r = lg.nodes[static_cast<size_t>(r)].base;
        buf = P.bufferOf[static_cast<size_t>(r)];
        return lg.nodes[static_cast<size_t>(id)].meta;
    };
    std::function<Expected<Value>(const LValue&)> hostValue = [&](const LValue& v) -> Expected<Value> {
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
            if (b < 0 || (!dev[static_cast<size_t>(b)].ptr() && storageSpan(metas[static_cast<size_t>(b)]) > 0)) return Value::none();
            auto h = download(static_cast<size_t>(b));
            if (!h.ok()) return h.error();
            return Value::ofTensor(h->view(m));
        }
        }
        return Value::none();
    };
    // Device view of a graph node's tensor value (for extern calls), or nullopt.
    auto deviceArg = [&](const Argument& a) -> std::optional<DeviceView> {
        if (!a.isNode()) return std::nullopt;
        auto it = lg.values.find(a.node);
        if (it == lg.values.end() || it->second.kind != LValue::Kind::Tensor) return std::nullopt;
        int b = -1;
        TensorMeta m = viewOf(it->second.node, b);
        if (b < 0 || !dev[static_cast<size_t>(b)].ptr()) return std::nullopt;
        return DeviceView{dev[static_cast<size_t>(b)].ptr(), m};
    };
    auto syncStep = [&](const std::string& what, const std::string& node) -> Status {
        if (!ro.syncEachStep) return Status::success();
        Status s = check(rt.cu.cuCtxSynchronize(), what);
        if (!s.ok()) s.error().node = node;
        return s;
    };

    std::vector<CUdeviceptr> ptrs;
    std::vector<void*> params;
    std::map<const Node*, Value> env;
    ExecContext ctx(seed);
    for (const auto& st : P.steps) {
        if (st.kind == ProgramStep::Kind::Kernel) {
            const Kernel& k = P.kernels[static_cast<size_t>(st.index)];
            const LaunchPlan& plan = m_source.plans[static_cast<size_t>(st.index)];
            if (k.outerCount() == 0 || k.outerCount() * k.innerCount() == 0) continue;
            ptrs.assign(k.args.size(), 0);
            params.clear();
            for (size_t i = 0; i < k.args.size(); ++i) {
                ptrs[i] = dev[static_cast<size_t>(k.args[i].buffer)].ptr();
                params.push_back(&ptrs[i]);
            }
            int64_t perBlock = plan.mode == LaunchPlan::Mode::Pointwise ? plan.threads
                             : plan.mode == LaunchPlan::Mode::WarpReduce ? plan.rowsPerBlock : 1;
            int64_t cap = static_cast<int64_t>(std::max(1, rt.smCount)) * (plan.mode == LaunchPlan::Mode::BlockReduce ? 8 : 32);
            int64_t blocks = std::max<int64_t>(1, std::min((plan.work + perBlock - 1) / perBlock, cap));
            std::string node = k.nodes.empty() ? std::string() : k.nodes.front();
            Status s = check(rt.cu.cuLaunchKernel(m_functions[static_cast<size_t>(st.index)], static_cast<unsigned>(blocks), 1, 1,
                                                  static_cast<unsigned>(plan.threads), 1, 1, 0, nullptr, params.data(), nullptr),
                             "launching kernel " + plan.name);
            if (s.ok()) s = syncStep("kernel " + plan.name, node);
            if (!s.ok()) {
                s.error().node = node;
                return s.error();
            }
            ++S.kernelLaunches;
            continue;
        }
        const OpaqueCall& call = lg.calls[static_cast<size_t>(st.index)];
        const Node& n = *call.node;
        // Extern kernels on the device.
        if (call.kind == OpaqueCall::Kind::Extern && call.result.kind == LValue::Kind::Tensor) {
            int b = P.bufferOf[static_cast<size_t>(call.result.node)];
            const TensorMeta& om = P.buffers[static_cast<size_t>(b)].meta;
            bool done = false;
            Status s;
            if ((call.fn == "mm" || call.fn == "bmm" || call.fn == "addmm") && gemmSupports(om.dtype)) {
                size_t first = call.fn == "addmm" ? 1 : 0;
                auto A = n.args.size() > first + 1 ? deviceArg(n.args[first]) : std::nullopt;
                auto B = n.args.size() > first + 1 ? deviceArg(n.args[first + 1]) : std::nullopt;
                std::optional<DeviceView> bias = call.fn == "addmm" && !n.args.empty() ? deviceArg(n.args[0]) : std::nullopt;
                double beta = 1.0, alpha = 1.0;
                for (const auto& [key, a] : n.kwargs) {
                    double v = a.kind == Argument::Kind::Int ? static_cast<double>(a.i) : a.f;
                    if (key == "beta") beta = v;
                    if (key == "alpha") alpha = v;
                }
                bool ok = A && B && A->meta.dtype == om.dtype && B->meta.dtype == om.dtype && (call.fn != "addmm" || bias);
                if (ok) {
                    s = allocate(static_cast<size_t>(b));
                    DeviceView C{dev[static_cast<size_t>(b)].ptr(), om};
                    if (s.ok() && call.fn == "addmm" && beta != 0.0) s = stridedCopy(*bias, C);
                    if (s.ok()) s = gemm(*A, *B, C, alpha, call.fn == "addmm" ? beta : 0.0);
                    done = true;
                    ++S.gemms;
                }
            } else if (call.fn == "cat" && !n.args.empty() && n.args[0].kind == Argument::Kind::List) {
                int64_t dim = n.args.size() > 1 ? n.args[1].i : 0;
                if (dim < 0) dim += static_cast<int64_t>(om.shape.size());
                std::vector<DeviceView> parts;
                for (const auto& item : n.args[0].items)
                    if (auto v = deviceArg(item)) parts.push_back(*v);
                bool ok = parts.size() == n.args[0].items.size() && dim >= 0 && dim < static_cast<int64_t>(om.shape.size());
                for (const auto& p : parts) ok = ok && p.meta.dtype == om.dtype && p.meta.shape.size() == om.shape.size();
                if (ok) {
                    s = allocate(static_cast<size_t>(b));
                    int64_t at = 0;
                    for (const auto& p : parts) {
                        if (!s.ok()) break;
                        TensorMeta slice = om;
                        slice.shape[static_cast<size_t>(dim)] = p.meta.shape[static_cast<size_t>(dim)];
                        slice.offset = om.offset + at * om.strides[static_cast<size_t>(dim)];
                        at += p.meta.shape[static_cast<size_t>(dim)];
                        s = stridedCopy(p, DeviceView{dev[static_cast<size_t>(b)].ptr(), slice});
                        ++S.deviceCopies;
                    }
                    done = true;
                }
            }
            if (done) {
                if (s.ok()) s = syncStep(call.fn + " for node " + n.name(), n.name());
                if (!s.ok()) {
                    s.error().node = n.name();
                    return s.error();
                }
                continue;
            }
        }
        // The host: the reference kernel on downloaded inputs, the result uploaded.
        ++S.hostOps[n.opName()];
        for (const Node* in : call.inputs) {
            auto it = lg.values.find(in);
            if (it == lg.values.end()) continue;
            auto v = hostValue(it->second);
            if (!v.ok()) {
                Diagnostic d = v.error();
                d.node = n.name();
                return d;
            }
            env[in] = std::move(v).value();
        }
        std::vector<Value> cargs;
        for (const auto& a : n.args) cargs.push_back(argumentValue(a, env));
        std::vector<std::pair<std::string, Value>> ckw;
        for (const auto& [k, a] : n.kwargs) ckw.emplace_back(k, argumentValue(a, env));
        Expected<Value> result = Value::none();
        std::string name = n.opName();
        // Subgraph ops (cond, checkpoint) run on the reference executor, inside invokeOp.
        result = invokeOp(name, std::move(cargs), std::move(ckw), &ctx);
        if (!result.ok()) {
            Diagnostic d = result.error();
            if (d.node.empty()) d.node = n.name();
            return d;
        }
        Status bs;
        std::function<void(const LValue&, const Value&)> bind = [&](const LValue& lv, const Value& v) {
            if (!bs.ok()) return;
            if (lv.kind == LValue::Kind::Tensor && v.isTensor()) {
                int b = P.bufferOf[static_cast<size_t>(lv.node)];
                if (b >= 0) bs = upload(static_cast<size_t>(b), v.t);
            }
            if (lv.kind == LValue::Kind::List && v.isList())
                for (size_t i = 0; i < lv.items.size() && i < v.list.size(); ++i) bind(lv.items[i], v.list[i]);
        };
        bind(call.result, *result);
        if (!bs.ok()) {
            Diagnostic d = bs.error();
            d.node = n.name();
            return d;
        }
    }
    if (Status s = check(rt.cu.cuCtxSynchronize(), "finishing the graph's kernels"); !s.ok()) return s.error();
    std::vector<Value> outs;
    for (const auto& o : lg.outputs) {
        auto v = hostValue(o);
        if (!v.ok()) return v.error();
        outs.push_back(std::move(v).value());
    }
    return outs;
}

Expected<RunResult> runAndCheckCuda(const Graph& g, const RunRequest& req, const std::vector<Value>* expect, CudaRunInfo* info) {
    CompileOptions opts;
    for (const auto& [k, v] : req.pins) opts.pinned.push_back(k);
    auto cg = CompiledGraph::compile(g, req.inputs, opts);
    if (!cg.ok()) return cg.error();
    RunResult res;
    RunStats rs;
    auto t0 = std::chrono::steady_clock::now();
    auto outs = (*cg)->run(req.inputs, req.pins, req.seed, {}, &rs);
    res.ms = msSince(t0);
    if (info) {
        info->compile = (*cg)->stats();
        info->fallbacks = (*cg)->fallbackOps();
        info->kernels = (*cg)->program().kernels.size();
        info->run = rs;
        info->device = runtime().deviceName + " (" + (*cg)->arch() + ")";
    }
    if (!outs.ok()) return outs.error();
    res.outputs = std::move(outs).value();
    if (!expect) return res;
    if (Status s = judgeOutputs(g, req, *expect, res); !s.ok()) return s.error();
    return res;
}

std::pair<size_t, size_t> allocatorBytes() { return cacheBytes(); }

} // namespace fxray::cg::cuda
