#include "codegen/cpu/cpu_backend.h"

#include "codegen/cpu/cpu_ops.h"
#include "codegen/cpu/extern_table.h"
#include "codegen/subgraph_call.h"
#include "exec/interpreter.h"
#include "exec/ops/kernel_util.h"
#include "exec/tensor_layout.h"
#include "support/timing.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <mutex>
#include <thread>

namespace fxray::cg::cpu {

namespace {

/// A small persistent pool: parallelFor splits [0, n) into one chunk per thread.
class ThreadPool {
public:
    static ThreadPool& instance() {
        static ThreadPool p;
        return p;
    }
    int size() const { return static_cast<int>(m_workers.size()) + 1; }

    void parallelFor(int64_t n, const std::function<void(int64_t, int64_t)>& fn) {
        int t = size();
        if (t <= 1 || n <= 1) {
            fn(0, n);
            return;
        }
        int chunks = static_cast<int>(std::min<int64_t>(t, n));
        std::unique_lock<std::mutex> runLock(m_run);  // one parallel region at a time
        {
            std::lock_guard<std::mutex> g(m_mu);
            m_fn = &fn;
            m_n = n;
            m_chunks = chunks;
            m_next = 1;
            m_pending = chunks - 1;
            ++m_generation;
        }
        m_cv.notify_all();
        fn(0, n / chunks);
        std::unique_lock<std::mutex> g(m_mu);
        m_done.wait(g, [&] { return m_pending == 0; });
        m_fn = nullptr;
    }

    ~ThreadPool() {
        {
            std::lock_guard<std::mutex> g(m_mu);
            m_stop = true;
        }
        m_cv.notify_all();
        for (auto& w : m_workers) w.join();
    }

private:
    ThreadPool() {
        unsigned hw = std::max(1u, std::thread::hardware_concurrency());
        for (unsigned i = 1; i < std::min(hw, 16u); ++i) m_workers.emplace_back([this] { work(); });
    }
    void work() {
        uint64_t seen = 0;
        for (;;) {
            int chunk;
            const std::function<void(int64_t, int64_t)>* fn;
            int64_t n;
            int chunks;
            {
                std::unique_lock<std::mutex> g(m_mu);
                m_cv.wait(g, [&] { return m_stop || (m_generation != seen && m_next < m_chunks); });
                if (m_stop) return;
                chunk = m_next++;
                if (m_next >= m_chunks) seen = m_generation;
                fn = m_fn;
                n = m_n;
                chunks = m_chunks;
            }
            (*fn)(n * chunk / chunks, n * (chunk + 1) / chunks);
            std::lock_guard<std::mutex> g(m_mu);
            if (--m_pending == 0) m_done.notify_all();
        }
    }
    std::vector<std::thread> m_workers;
    std::mutex m_mu, m_run;
    std::condition_variable m_cv, m_done;
    const std::function<void(int64_t, int64_t)>* m_fn = nullptr;
    int64_t m_n = 0;
    int m_chunks = 0, m_next = 0, m_pending = 0;
    uint64_t m_generation = 0;
    bool m_stop = false;
};

}  // namespace

int CompiledGraph::threads() { return ThreadPool::instance().size(); }

size_t CompiledGraph::externCalls() const {
    size_t n = m_externOf.size();
    for (const auto& c : m_program.lowered.calls) n += c.kind == OpaqueCall::Kind::Extern;
    return n;
}

Expected<std::vector<Value>> CompiledGraph::annotatedInputs(const Graph& g) { return annotatedStaticInputs(g, "CPU"); }

Expected<std::unique_ptr<CompiledGraph>> CompiledGraph::compile(const Graph& g, const std::vector<Value>& inputs,
                                                                const CompileOptions& opts) {
    if (graphHasComplex(g)) {
        auto real = complexToReal(g);
        if (!real.ok()) return real.error();
        auto cg = compile(*(*real)->graph, (*real)->realInputs(inputs), opts);
        if (cg.ok()) (*cg)->m_complex = std::move(real).value();
        return cg;
    }
    auto t0 = std::chrono::steady_clock::now();
    std::unique_ptr<CompiledGraph> cg(new CompiledGraph());
    cg->m_graph = &g;
    auto guard = SizeGuard::forInputs(g, inputs);
    if (!guard.ok()) return guard.error();
    cg->m_guard = std::move(guard).value();
    std::vector<Value> metas;
    for (const auto& v : inputs) {
        if (!v.isTensor()) {
            metas.push_back(v);
            continue;
        }
        TensorMeta m = v.t.meta;
        m.offset = 0;  // inputs are handed to kernels relaid to their own strides at offset 0
        metas.push_back(Value::ofTensor(Tensor::metaOnly(m)));
    }
    auto lg = lowerGraph(g, metas, opts.pinned, &inputs);
    if (!lg.ok()) return lg.error();
    cg->m_stats.lowerMs = msSince(t0);
    auto t1 = std::chrono::steady_clock::now();
    auto prog = schedule(std::move(lg).value(), opts.schedule);
    if (!prog.ok()) return prog.error();
    cg->m_program = std::move(prog).value();
    cg->m_stats.scheduleMs = msSince(t1);
    auto jit = KernelJit::compile(cg->m_program.kernels, opts.jit);
    if (!jit.ok()) return jit.error();
    cg->m_jit = std::move(jit).value();
    cg->m_stats.llvmMs = cg->m_jit->compileMs();
    cg->m_fallbacks = cg->m_program.lowered.fallbackOps;
    if (Status s = cg->compileSubgraphs(g, opts); !s.ok()) return s.error();
    cg->m_stats.totalMs = msSince(t0);
    return cg;
}

Status CompiledGraph::compileSubgraphs(const Graph& g, const CompileOptions& opts) {
    const LoweredGraph& lg = m_program.lowered;
    for (size_t ci = 0; ci < lg.calls.size(); ++ci) {
        const OpaqueCall& call = lg.calls[ci];
        if (call.kind != OpaqueCall::Kind::Fallback) continue;
        const Node& n = *call.node;
        const std::string name = n.opName();
        std::string externName;
        if (const char* r = qualnameExternFor(name)) {
            externName = r;
        } else {
            auto sc = subgraphCall(call, g, lg);
            if (!sc) continue;
            CompileOptions sub;
            sub.schedule = opts.schedule;
            sub.jit = opts.jit;
            // An AOT library holds the main program's kernels only: subgraphs are JIT-compiled.
            sub.jit.prebuilt = nullptr;
            std::vector<std::unique_ptr<CompiledGraph>> compiled;
            for (size_t i = 0; i < sc->graphs.size(); ++i) {
                auto c = compile(*sc->graphs[i], sc->operandMetas, sub);
                if (!c.ok()) {
                    Diagnostic d = c.error();
                    if (d.node.empty()) d.node = n.name();
                    d.message = "compiling " + subgraphRole(sc->isCond, i) + " of '" + n.name() + "': " + d.message;
                    return d;
                }
                compiled.push_back(std::move(c).value());
            }
            for (const auto& c : compiled)
                for (const auto& [op, k] : c->fallbackOps()) m_fallbacks[op] += k;
            m_subgraphs[ci] = std::move(compiled);
            externName = "subgraph";
        }
        // The lowered call keeps the lowering's classification (the AOT cache keys its plan on
        // it); run() and the reports use m_externOf.
        m_externOf[ci] = externName;
        if (--m_fallbacks[name] <= 0) m_fallbacks.erase(name);
        for (auto& gr : m_program.groups)
            if (gr.node == n.name() && gr.kind == NodeGroup::Kind::Fallback) {
                gr.kind = NodeGroup::Kind::Extern;
                gr.kernelName = externName;
            }
    }
    return Status::success();
}

Expected<std::vector<StepProfile>> CompiledGraph::profile(const std::vector<Value>& inputs,
                                                          const std::map<std::string, Value>& pins, int warmup,
                                                          uint64_t seed) const {
    for (int i = 0; i < std::max(0, warmup); ++i)
        if (auto r = run(inputs, pins, seed); !r.ok()) return r.error();
    std::vector<double> ms;
    if (auto r = run(inputs, pins, seed, &ms); !r.ok()) return r.error();
    auto steps = describeSteps(m_program);
    for (size_t i = 0; i < steps.size() && i < ms.size(); ++i) steps[i].ms = ms[i];
    // Extern calls the backend runs through the reference kernel are fallbacks in all but name.
    for (auto& st : steps)
        if (st.kind == "extern" && !st.nodes.empty())
            for (const auto& [op, n] : m_fallbacks)
                if (const Node* node = m_graph->find(st.nodes[0]); node && node->opName() == op) st.kind = "fallback";
    return steps;
}

Expected<std::vector<Value>> CompiledGraph::run(const std::vector<Value>& inputs,
                                                const std::map<std::string, Value>& pins, uint64_t seed,
                                                std::vector<double>* stepMs,
                                                std::map<std::string, int>* declined) const {
    if (!m_complex) return runCompiled(inputs, pins, seed, stepMs, declined);
    auto outs = runCompiled(m_complex->realInputs(inputs), pins, seed, stepMs, declined);
    if (outs.ok()) m_complex->restoreOutputs(*outs);
    return outs;
}

Expected<std::vector<Value>> CompiledGraph::runCompiled(const std::vector<Value>& inputs,
                                                        const std::map<std::string, Value>& pins, uint64_t seed,
                                                        std::vector<double>* stepMs,
                                                        std::map<std::string, int>* declined) const {
    if (Status s = m_guard.check(*m_graph, inputs); !s.ok()) return s.error();
    const Program& P = m_program;
    const LoweredGraph& lg = P.lowered;
    std::vector<Tensor> bufs(P.buffers.size());
    auto phs = m_graph->placeholders();
    if (inputs.size() != phs.size())
        return makeError("graph has " + std::to_string(phs.size()) + " inputs but " + std::to_string(inputs.size()) +
                         " were given");
    for (size_t b = 0; b < P.buffers.size(); ++b) {
        const BufferDesc& bd = P.buffers[b];
        switch (bd.source) {
        case BufferDesc::Source::Input: {
            const Value& v = inputs[static_cast<size_t>(bd.inputIndex)];
            if (!v.isTensor() || !v.t.hasData() || v.t.dtype() != bd.meta.dtype || v.t.shape() != bd.meta.shape) {
                Diagnostic d = makeError("input " + std::to_string(bd.inputIndex) + " expects " +
                                         bd.meta.annotation(false, false) + ", got " + v.describe());
                d.node = bd.name;
                return d;
            }
            bufs[b] = relayout(v.t, bd.meta);
            break;
        }
        case BufferDesc::Source::Constant: {
            auto it = m_graph->constants.find(bd.key);
            if (it == m_graph->constants.end()) return makeError("constant '" + bd.key + "' has no value");
            bufs[b] = relayout(it->second, bd.meta);
            break;
        }
        case BufferDesc::Source::Pinned: {
            auto it = pins.find(bd.key);
            if (it == pins.end() || !it->second.isTensor())
                return makeError("no pinned value for node '" + bd.key + "'");
            bufs[b] = relayout(it->second.t, bd.meta);
            break;
        }
        case BufferDesc::Source::Kernel:
            if (!bd.internal) bufs[b] = allocateLayout(bd.meta);
            break;
        case BufferDesc::Source::Call: break;
        }
    }
    // Runtime values of lowered tensors: buffers, aliases of buffers, or materialized copies.
    std::function<Value(const LValue&)> valueOf = [&](const LValue& v) -> Value {
        switch (v.kind) {
        case LValue::Kind::None: return Value::none();
        case LValue::Kind::Other: return v.other;
        case LValue::Kind::List: {
            std::vector<Value> items;
            for (const auto& x : v.items) items.push_back(valueOf(x));
            return Value::ofList(std::move(items), v.isTuple);
        }
        case LValue::Kind::Tensor: {
            int id = v.node;
            if (auto cp = P.viewCopies.find(id); cp != P.viewCopies.end()) id = cp->second;
            int b = P.bufferOf[static_cast<size_t>(id)];
            if (b >= 0) return Value::ofTensor(bufs[static_cast<size_t>(b)]);
            int r = id;
            while (lg.nodes[static_cast<size_t>(r)].kind == LKind::View) r = lg.nodes[static_cast<size_t>(r)].base;
            int rb = P.bufferOf[static_cast<size_t>(r)];
            if (rb < 0) return Value::none();
            return Value::ofTensor(bufs[static_cast<size_t>(rb)].view(lg.nodes[static_cast<size_t>(id)].meta));
        }
        }
        return Value::none();
    };
    std::map<const Node*, Value> env;
    ExecContext ctx(seed);
    std::vector<void*> args;
    // Step timing: the clock read before every step and once after the last.
    std::vector<std::chrono::steady_clock::time_point> marks;
    if (stepMs) marks.reserve(P.steps.size() + 1);
    for (const auto& st : P.steps) {
        if (stepMs) marks.push_back(std::chrono::steady_clock::now());
        if (st.kind == ProgramStep::Kind::Kernel) {
            const Kernel& k = P.kernels[static_cast<size_t>(st.index)];
            args.clear();
            for (const auto& a : k.args) {
                const Tensor& t = bufs[static_cast<size_t>(a.buffer)];
                args.push_back(t.storage ? t.storage->data() : nullptr);
            }
            KernelEntry fn = m_jit->entry(static_cast<size_t>(st.index));
            int64_t outer = k.outerCount();
            int64_t work = outer * k.innerCount();
            // A reduction over an empty extent still writes its identity (prod over zero rows is
            // ones); only a kernel with no output element has nothing to do.
            if (outer == 0 || (work == 0 && !k.isReduction())) continue;
            void* const* argv = args.data();
            if (work >= (int64_t(1) << 16) && outer > 1)
                ThreadPool::instance().parallelFor(outer, [&](int64_t b, int64_t e) { fn(argv, b, e); });
            else
                fn(argv, 0, outer);
            continue;
        }
        const OpaqueCall& call = lg.calls[static_cast<size_t>(st.index)];
        const Node& n = *call.node;
        for (const Node* in : call.inputs)
            if (const LValue* v = callInput(lg, call, in)) env[in] = valueOf(*v);
        std::vector<Value> cargs;
        for (const auto& a : n.args) cargs.push_back(argumentValue(a, env));
        std::vector<std::pair<std::string, Value>> ckw;
        for (const auto& [k, a] : n.kwargs) ckw.emplace_back(k, argumentValue(a, env));
        Expected<Value> result = Value::none();
        bool done = false, fromSubgraph = false;
        const size_t callIndex = static_cast<size_t>(st.index);
        auto ext = m_externOf.find(callIndex);
        const bool isExtern = call.kind == OpaqueCall::Kind::Extern || ext != m_externOf.end();
        const std::string& fn = ext != m_externOf.end() ? ext->second : call.fn;
        if (auto sub = m_subgraphs.find(callIndex); sub != m_subgraphs.end()) {
            // cond: the branch the predicate picks; checkpoint/wrap: the body. Both compiled.
            size_t branch = 0;
            std::vector<Value> operands;
            if (n.opName() == "higher_order.cond") {
                const Value& p = cargs[0];
                bool pred = true;
                if (p.isTensor()) {
                    if (p.t.numel() != 1) return makeError("cond predicate must have one element");
                    pred = kern::toDoubles(p.t)[0] != 0.0;
                } else {
                    pred = p.toDouble() != 0.0;
                }
                branch = pred ? 0 : 1;
                operands = cargs[3].list;
            } else {
                operands.assign(cargs.begin() + 1, cargs.end());
            }
            auto outs = sub->second[branch]->run(operands, {}, seed, nullptr, declined);
            if (!outs.ok()) {
                Diagnostic d = outs.error();
                d.message = "in " + subgraphRole(n.opName() == "higher_order.cond", branch) + " of '" + n.name() +
                            "': " + d.message;
                if (d.node.empty()) d.node = n.name();
                return d;
            }
            result = Value::ofList(std::move(outs).value(), true);
            fromSubgraph = true;
        } else if (isExtern && n.op() && call.result.kind == LValue::Kind::Tensor) {
            auto bound = bindArgs(*n.op(), cargs, ckw);
            if (bound.ok()) {
                int b = P.bufferOf[static_cast<size_t>(call.result.node)];
                Tensor out = allocateLayout(P.buffers[static_cast<size_t>(b)].meta);
                std::vector<Tensor*> outs{&out};
                if (const CpuExtern* x = findCpuExtern(fn); x && x->run(*bound, outs, ctx)) {
                    bufs[static_cast<size_t>(b)] = out;
                    done = true;
                }
            }
        } else if (isExtern && n.op() && call.result.kind == LValue::Kind::List) {
            // Multi-output extern (max pooling, batch norm, convolution backward): one buffer per
            // tensor output, nullptr where the op returns None.
            auto bound = bindArgs(*n.op(), cargs, ckw);
            if (bound.ok()) {
                std::vector<Tensor> outT(call.result.items.size());
                std::vector<Tensor*> outs(call.result.items.size(), nullptr);
                for (size_t i = 0; i < call.result.items.size(); ++i) {
                    const LValue& it = call.result.items[i];
                    if (it.kind != LValue::Kind::Tensor) continue;
                    int b = P.bufferOf[static_cast<size_t>(it.node)];
                    outT[i] = allocateLayout(b >= 0 ? P.buffers[static_cast<size_t>(b)].meta
                                                    : lg.nodes[static_cast<size_t>(it.node)].meta);
                    outs[i] = &outT[i];
                }
                if (const CpuExtern* x = findCpuExtern(fn); x && x->run(*bound, outs, ctx)) {
                    for (size_t i = 0; i < outs.size(); ++i) {
                        int b = outs[i] ? P.bufferOf[static_cast<size_t>(call.result.items[i].node)] : -1;
                        if (b >= 0) bufs[static_cast<size_t>(b)] = outT[i];
                    }
                    done = true;
                }
            }
        }
        if (done) continue;
        if (isExtern && !fromSubgraph && declined) ++(*declined)[n.opName()];
        // A reported fallback: the reference kernel (an extern kernel that declined an unusual
        // instance also ends here).
        if (!fromSubgraph)
            result = invokeOp(call.referenceOp.empty() ? n.opName() : call.referenceOp, std::move(cargs),
                              std::move(ckw), &ctx);
        if (!result.ok()) {
            Diagnostic d = result.error();
            if (d.node.empty()) d.node = n.name();
            return d;
        }
        // Store the tensors into the call's buffers (relaid out if the kernel chose another
        // layout than inference did).
        std::function<void(const LValue&, const Value&)> bind = [&](const LValue& lv, const Value& v) {
            if (lv.kind == LValue::Kind::Tensor && v.isTensor()) {
                int b = P.bufferOf[static_cast<size_t>(lv.node)];
                bufs[static_cast<size_t>(b)] = relayout(v.t, P.buffers[static_cast<size_t>(b)].meta);
            }
            if (lv.kind == LValue::Kind::List && v.isList())
                for (size_t i = 0; i < lv.items.size() && i < v.list.size(); ++i) bind(lv.items[i], v.list[i]);
        };
        bind(call.result, *result);
    }
    if (stepMs) {
        marks.push_back(std::chrono::steady_clock::now());
        stepMs->assign(P.steps.size(), 0.0);
        for (size_t i = 0; i + 1 < marks.size(); ++i)
            (*stepMs)[i] = std::chrono::duration<double, std::milli>(marks[i + 1] - marks[i]).count();
    }
    std::vector<Value> outs;
    for (const auto& o : lg.outputs) outs.push_back(valueOf(o));
    return outs;
}

Expected<RunResult> runAndCheckCpu(const Graph& g, const RunRequest& req, const std::vector<Value>* expect,
                                   CpuRunInfo* info) {
    CompileOptions opts;
    for (const auto& [k, v] : req.pins) opts.pinned.push_back(k);
    auto cg = CompiledGraph::compile(g, req.inputs, opts);
    if (!cg.ok()) return cg.error();
    if (info) {
        info->compile = (*cg)->stats();
        info->fallbacks = (*cg)->fallbackOps();
        info->kernels = (*cg)->program().kernels.size();
        info->externCalls = (*cg)->externCalls();
    }
    RunResult res;
    auto t0 = std::chrono::steady_clock::now();
    std::map<std::string, int> declined;
    auto outs = (*cg)->run(req.inputs, req.pins, req.seed, nullptr, &declined);
    res.ms = msSince(t0);
    if (!outs.ok()) return outs.error();
    if (info)
        for (const auto& [op, k] : declined) info->fallbacks[op] += k;
    res.outputs = std::move(outs).value();
    if (!expect) return res;
    if (Status s = judgeOutputs(g, req, *expect, res); !s.ok()) return s.error();
    return res;
}

}  // namespace fxray::cg::cpu
