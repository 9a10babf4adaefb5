#include "codegen/scheduler.h"

#include "codegen/kernel_collapse.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <map>
#include <set>
#include <sstream>

namespace fxray::cg {

bool ScheduleOptions::defaultCollapse() {
    static const bool on = [] {
        const char* v = std::getenv("FXRAY_KERNEL_COLLAPSE");
        return !(v && std::string(v) == "0");
    }();
    return on;
}

std::string_view nodeGroupKindName(NodeGroup::Kind k) {
    switch (k) {
    case NodeGroup::Kind::Kernel: return "kernel";
    case NodeGroup::Kind::Extern: return "extern";
    case NodeGroup::Kind::Fallback: return "fallback";
    case NodeGroup::Kind::View: return "view";
    case NodeGroup::Kind::Input: return "input";
    case NodeGroup::Kind::None: return "none";
    }
    return "?";
}

namespace {

enum class Form : uint8_t { Full, Kept, Squeezed };

struct Member {
    int phase = 0;
    bool inner = false;  ///< computed inside the loop over the reduction dims
    bool reduction = false;
    Form form = Form::Full;  ///< shape of the stored value relative to the kernel space
    int let = -1, acc = -1;
    DType type = DType::Float32;
};

struct PhaseB {
    std::vector<Stmt> loop, post;
};

/// A kernel being assembled.
struct KBuild {
    std::vector<int64_t> sizes;
    std::vector<bool> reduced;
    bool isRed = false;
    std::vector<PhaseB> phases;
    std::map<int, Member> members;
    std::vector<int> order;
    std::map<int, int> slotOf;  ///< buffer -> slot
    std::vector<int> slotBuffer;
    std::vector<DType> accTypes, letTypes;
    std::vector<ReduceOp> accOps;
    std::vector<std::string> nodes;
    std::set<int> reloaded;

    int slot(int buffer) {
        auto it = slotOf.find(buffer);
        if (it != slotOf.end()) return it->second;
        int s = static_cast<int>(slotBuffer.size());
        slotOf[buffer] = s;
        slotBuffer.push_back(buffer);
        return s;
    }
    void addNode(const std::string& n) {
        if (std::find(nodes.begin(), nodes.end(), n) == nodes.end()) nodes.push_back(n);
    }
};

struct StepB {
    bool isCall = false;
    int call = -1;
    KBuild k;
};

std::vector<int64_t> keptOf(const std::vector<int64_t>& s, const std::vector<bool>& r) {
    auto k = s;
    for (size_t d = 0; d < k.size(); ++d)
        if (r[d]) k[d] = 1;
    return k;
}
std::vector<int64_t> squeezedOf(const std::vector<int64_t>& s, const std::vector<bool>& r) {
    std::vector<int64_t> k;
    for (size_t d = 0; d < s.size(); ++d)
        if (!r[d]) k.push_back(s[d]);
    return k;
}

std::vector<Index> coordsFor(const KBuild& K, Form f) {
    std::vector<Index> c;
    for (size_t d = 0; d < K.sizes.size(); ++d) {
        int v = static_cast<int>(d);
        if (f == Form::Full)
            c.push_back(ivar(v, K.sizes[d]));
        else if (f == Form::Kept)
            c.push_back(K.reduced[d] ? iconst(0) : ivar(v, K.sizes[d]));
        else if (!K.reduced[d])
            c.push_back(ivar(v, K.sizes[d]));
    }
    return c;
}

bool canonical(const KBuild& K, Form f, const std::vector<Index>& co) {
    size_t j = 0;
    for (size_t d = 0; d < K.sizes.size(); ++d) {
        int v = static_cast<int>(d);
        if (f == Form::Squeezed && K.reduced[d]) continue;
        if (j >= co.size()) return false;
        const Index& i = co[j++];
        if (f == Form::Kept && K.reduced[d]) {
            if (!(i->c == 0 && i->terms.empty())) return false;
        } else if (!indexIsVar(i, v, K.sizes[d])) {
            return false;
        }
    }
    return j == co.size();
}

class Scheduler;

/// Builds a member's expression inside a kernel: inlines unrealized producers, reads realized
/// ones from memory, and reuses values computed earlier in the same kernel.
class BuildLoader : public Loader {
public:
    BuildLoader(const Program& p, KBuild& k, bool sInner, int targetPhase)
            : m_p(p), m_k(k), m_sInner(sInner), m_target(targetPhase) {}
    bool fail = false;
    int minPhase = 0;

    ExprP load(int id, const std::vector<Index>& co) override {
        const LNode& n = m_p.lowered.nodes[static_cast<size_t>(id)];
        ExprP dummy = econst(0, computeType(n.meta.dtype));
        if (fail) return dummy;
        if (n.kind == LKind::View) {
            if (n.origin) m_k.addNode(n.origin->name());
            return load(n.base, n.viewMap(co));
        }
        int b = m_p.bufferOf[static_cast<size_t>(id)];
        if (b < 0) {
            if (!n.body || n.kind != LKind::Pointwise) {
                fail = true;
                return dummy;
            }
            if (n.origin) m_k.addNode(n.origin->name());
            return n.body(*this, co);
        }
        const BufferDesc& bd = m_p.buffers[static_cast<size_t>(b)];
        auto it = m_k.members.find(id);
        if (it == m_k.members.end())
            return eload(m_k.slot(b), bd.meta.dtype, linearIndex(co, bd.meta.strides, bd.meta.offset));
        const Member& m = it->second;
        if (!canonical(m_k, m.form, co)) {
            fail = true;
            return dummy;
        }
        if (m.reduction) {
            need(m_sInner ? m.phase + 1 : m.phase);
            return eref(Op::AccRef, m.acc, m.type);
        }
        if (m.inner) {
            if (!m_sInner) {
                fail = true;
                return dummy;
            }
            need(m.phase);
            if (m_target < 0 || m_target == m.phase) return eref(Op::LetRef, m.let, m.type);
            m_k.reloaded.insert(id);
            return eload(m_k.slot(b), bd.meta.dtype, linearIndex(co, bd.meta.strides, bd.meta.offset));
        }
        need(m_sInner ? m.phase + 1 : m.phase);
        return eref(Op::LetRef, m.let, m.type);
    }

private:
    void need(int p) { minPhase = std::max(minPhase, p); }
    const Program& m_p;
    KBuild& m_k;
    bool m_sInner;
    int m_target;
};

class Scheduler {
public:
    Scheduler(LoweredGraph lg, const ScheduleOptions& o) : m_opts(o) { m_p.lowered = std::move(lg); }

    Expected<Program> run() {
        auto& nodes = m_p.lowered.nodes;
        m_p.bufferOf.assign(nodes.size(), -1);
        // Buffers that exist before any kernel runs.
        for (size_t i = 0; i < nodes.size(); ++i) {
            if (nodes[i].kind != LKind::Buffer) continue;
            BufferDesc b;
            b.lnode = static_cast<int>(i);
            b.name = nodes[i].name;
            b.meta = nodes[i].meta;
            b.source = BufferDesc::Source::Call;
            if (m_p.lowered.constants.count(b.lnode))
                b.source = BufferDesc::Source::Constant, b.key = m_p.lowered.constants[b.lnode];
            if (m_p.lowered.pinned.count(b.lnode))
                b.source = BufferDesc::Source::Pinned, b.key = m_p.lowered.pinned[b.lnode];
            auto& ins = m_p.lowered.inputNodes;
            auto pos = std::find(ins.begin(), ins.end(), b.lnode);
            if (pos != ins.end())
                b.source = BufferDesc::Source::Input, b.inputIndex = static_cast<int>(pos - ins.begin());
            addBuffer(std::move(b));
        }
        decideRealization();
        return build();
    }

private:
    int addBuffer(BufferDesc b) {
        int id = static_cast<int>(m_p.buffers.size());
        m_p.bufferOf[static_cast<size_t>(b.lnode)] = id;
        m_p.buffers.push_back(std::move(b));
        return id;
    }

    int rootOf(int id) const {
        const auto& nodes = m_p.lowered.nodes;
        while (nodes[static_cast<size_t>(id)].kind == LKind::View) id = nodes[static_cast<size_t>(id)].base;
        return id;
    }

    void realize(int id) {
        auto& n = m_p.lowered.nodes[static_cast<size_t>(id)];
        if (m_p.bufferOf[static_cast<size_t>(id)] >= 0 || n.kind == LKind::Buffer || n.kind == LKind::View) return;
        BufferDesc b;
        b.lnode = id;
        b.name = n.name;
        b.meta = n.meta;
        b.meta.offset = 0;
        if (b.meta.strides.size() != b.meta.shape.size()) b.meta.strides = TensorMeta::contiguousStrides(b.meta.shape);
        b.source = BufferDesc::Source::Kernel;
        addBuffer(std::move(b));
    }

    /// A runtime value is needed for LNode id (a graph output or an input of a call).
    void needValue(int id) {
        auto& nodes = m_p.lowered.nodes;
        if (nodes[static_cast<size_t>(id)].kind != LKind::View) {
            realize(id);
            return;
        }
        bool aliasing = true;
        int r = id;
        while (nodes[static_cast<size_t>(r)].kind == LKind::View) {
            aliasing = aliasing && nodes[static_cast<size_t>(r)].aliasing;
            r = nodes[static_cast<size_t>(r)].base;
        }
        if (aliasing) {
            realize(r);
            return;
        }
        if (m_p.viewCopies.count(id)) return;
        LNode c;
        c.id = static_cast<int>(nodes.size());
        c.kind = LKind::Pointwise;
        c.name = nodes[static_cast<size_t>(id)].name + ".copy";
        c.origin = nodes[static_cast<size_t>(id)].origin;
        c.meta =
            TensorMeta::contiguous(nodes[static_cast<size_t>(id)].meta.shape, nodes[static_cast<size_t>(id)].meta.dtype,
                                   nodes[static_cast<size_t>(id)].meta.device);
        c.inputs = {id};
        c.body = [id](Loader& L, const std::vector<Index>& co) { return L.load(id, co); };
        nodes.push_back(std::move(c));
        m_p.bufferOf.push_back(-1);
        m_copyKey[static_cast<int>(nodes.size()) - 1] = id;
        m_p.viewCopies[id] = static_cast<int>(nodes.size()) - 1;
        realize(static_cast<int>(nodes.size()) - 1);
    }

    void needLValue(const LValue& v) {
        if (v.kind == LValue::Kind::Tensor) needValue(v.node);
        for (const auto& x : v.items) needLValue(x);
    }

    void decideRealization() {
        auto& lg = m_p.lowered;
        for (const auto& o : lg.outputs) needLValue(o);
        for (const auto& c : lg.calls)
            for (const Node* in : c.inputs)
                if (const LValue* v = callInput(lg, c, in)) needLValue(*v);
        size_t n = lg.nodes.size();
        std::vector<int> uses(n, 0);
        for (size_t i = 0; i < n; ++i) {
            const auto& x = lg.nodes[i];
            if (x.kind == LKind::View || x.kind == LKind::Buffer) continue;
            for (int in : x.inputs) ++uses[static_cast<size_t>(rootOf(in))];
        }
        for (size_t i = 0; i < n; ++i) {
            auto& x = lg.nodes[i];
            bool realized = m_p.bufferOf[i] >= 0;
            if (x.kind == LKind::Reduction && (uses[i] > 0 || realized)) realize(static_cast<int>(i));
            if (x.kind == LKind::Pointwise && !realized && (uses[i] >= 2 || !m_opts.inlinePointwise) && uses[i] > 0)
                realize(static_cast<int>(i));
        }
    }

    /// The buffer an in-place op's call writes (its self argument's root), or -1.
    int inPlaceBuffer(const OpaqueCall& call) const {
        const Node& n = *call.node;
        const OpInfo* op = n.op();
        if (!op || !op->inplace || n.args.empty() || !n.args[0].isNode()) return -1;
        const auto& lg = m_p.lowered;
        const LValue* self = callInput(lg, call, n.args[0].node);
        if (!self || self->kind != LValue::Kind::Tensor) return -1;
        int r = self->node;
        while (lg.nodes[static_cast<size_t>(r)].kind == LKind::View) r = lg.nodes[static_cast<size_t>(r)].base;
        return m_p.bufferOf[static_cast<size_t>(r)];
    }

    /// Realized LNodes the computation of `id` reads (through inlined producers and views).
    void depsOf(int id, std::set<int>& out, std::set<int>& seen, bool top) {
        if (!seen.insert(id).second) return;
        const auto& x = m_p.lowered.nodes[static_cast<size_t>(id)];
        if (!top && m_p.bufferOf[static_cast<size_t>(id)] >= 0) {
            out.insert(id);
            return;
        }
        for (int in : x.inputs) depsOf(in, out, seen, false);
    }

    /// Tries to add realized computation s to kernel K; returns false (K unchanged) if it does
    /// not fit.
    bool tryAdd(KBuild& K, int s) {
        const LNode& n = m_p.lowered.nodes[static_cast<size_t>(s)];
        KBuild T = K;
        bool red = n.kind == LKind::Reduction;
        Form form = Form::Full;
        bool inner = false;
        if (T.order.empty()) {
            T.sizes = red ? n.inShape : n.meta.shape;
            T.reduced = red ? n.rmask : std::vector<bool>(T.sizes.size(), false);
            T.isRed = red;
            T.phases.resize(1);
        }
        if (red) {
            if (!T.isRed) {
                if (n.inShape != T.sizes) return false;
                T.reduced = n.rmask;
                T.isRed = true;
                for (auto& ph : T.phases) {
                    ph.loop.insert(ph.loop.end(), ph.post.begin(), ph.post.end());
                    ph.post.clear();
                }
                for (auto& [id, m] : T.members) m.inner = true;
            } else if (n.inShape != T.sizes || n.rmask != T.reduced) {
                return false;
            }
            inner = true;
            form = n.keepdim ? Form::Kept : Form::Squeezed;
        } else {
            const auto& S = n.meta.shape;
            if (!T.isRed) {
                if (S != T.sizes) return false;
            } else if (S == T.sizes) {
                inner = true;
            } else if (S == keptOf(T.sizes, T.reduced)) {
                form = Form::Kept;
            } else if (S == squeezedOf(T.sizes, T.reduced)) {
                form = Form::Squeezed;
            } else {
                return false;
            }
        }
        auto bodyCoords = coordsFor(T, red ? Form::Full : form);
        // Probe for the earliest phase, then build there.
        int phase;
        {
            KBuild P = T;
            BuildLoader probe(m_p, P, inner, -1);
            (void)n.body(probe, bodyCoords);
            if (probe.fail) return false;
            phase = T.isRed ? probe.minPhase : 0;
        }
        if (phase >= static_cast<int>(T.phases.size())) T.phases.resize(static_cast<size_t>(phase) + 1);
        BuildLoader L(m_p, T, inner, phase);
        ExprP v = n.body(L, bodyCoords);
        if (L.fail) return false;
        int b = m_p.bufferOf[static_cast<size_t>(s)];
        const BufferDesc& bd = m_p.buffers[static_cast<size_t>(b)];
        int slot = T.slot(b);
        Member m;
        m.phase = phase;
        m.inner = inner && !red;
        m.reduction = red;
        m.form = red ? form : form;
        DType ct = computeType(n.meta.dtype);
        m.type = ct;
        v = eto(v, ct);
        auto& ph = T.phases[static_cast<size_t>(phase)];
        Index storeIdx = linearIndex(coordsFor(T, form), bd.meta.strides, bd.meta.offset);
        if (red) {
            m.acc = static_cast<int>(T.accTypes.size());
            T.accTypes.push_back(ct);
            T.accOps.push_back(n.rop);
            ph.loop.push_back({Stmt::Kind::Reduce, -1, nullptr, v, m.acc, n.rop, n.name});
            ph.post.push_back(
                {Stmt::Kind::Store, slot, storeIdx, eref(Op::AccRef, m.acc, ct), -1, ReduceOp::Sum, n.name});
        } else {
            m.let = static_cast<int>(T.letTypes.size());
            T.letTypes.push_back(ct);
            auto& list = (T.isRed && inner) ? ph.loop : ph.post;
            list.push_back({Stmt::Kind::Let, -1, nullptr, v, m.let, ReduceOp::Sum, n.name});
            list.push_back({Stmt::Kind::Store, slot, storeIdx, eref(Op::LetRef, m.let, ct), -1, ReduceOp::Sum, n.name});
        }
        if (n.origin) T.addNode(n.origin->name());
        T.members[s] = m;
        T.order.push_back(s);
        K = std::move(T);
        return true;
    }

    Expected<Program> build() {
        auto& lg = m_p.lowered;
        // Events in program order: LNodes by id (copies right after their view), calls before
        // the first LNode they produce.
        std::vector<std::pair<int64_t, int>> events;  // key, +lnode / -(call+1)
        for (size_t i = 0; i < lg.nodes.size(); ++i) {
            auto& x = lg.nodes[i];
            if (m_p.bufferOf[i] < 0 || (x.kind != LKind::Pointwise && x.kind != LKind::Reduction)) continue;
            int64_t key =
                m_copyKey.count(static_cast<int>(i)) ? 4 * int64_t(m_copyKey[static_cast<int>(i)]) + 1 : 4 * int64_t(i);
            events.push_back({key, static_cast<int>(i)});
        }
        for (size_t c = 0; c < lg.calls.size(); ++c)
            events.push_back({4 * int64_t(lg.calls[c].position) - 2, -static_cast<int>(c) - 1});
        std::stable_sort(events.begin(), events.end(), [](auto& a, auto& b) { return a.first < b.first; });

        std::vector<StepB> steps;
        std::map<int, int> stepOfBuffer;  // buffer -> step
        auto markCallBuffers = [&](const LValue& v, int step, auto&& self) -> void {
            if (v.kind == LValue::Kind::Tensor && m_p.bufferOf[static_cast<size_t>(v.node)] >= 0)
                stepOfBuffer[m_p.bufferOf[static_cast<size_t>(v.node)]] = step;
            for (const auto& x : v.items) self(x, step, self);
        };
        for (auto [key, ev] : events) {
            if (ev < 0) {
                StepB sb;
                sb.isCall = true;
                sb.call = -ev - 1;
                steps.push_back(std::move(sb));
                markCallBuffers(lg.calls[static_cast<size_t>(sb.call)].result, static_cast<int>(steps.size()) - 1,
                                markCallBuffers);
                // An in-place op run as a call (copy_ into a graph input) writes self's storage:
                // the kernels after it that read that buffer must not be fused before it.
                if (int written = inPlaceBuffer(lg.calls[static_cast<size_t>(sb.call)]); written >= 0)
                    stepOfBuffer[written] = static_cast<int>(steps.size()) - 1;
                continue;
            }
            int s = ev;
            std::set<int> deps, seen;
            depsOf(s, deps, seen, true);
            int minStep = -1;
            std::set<int> depSteps;
            for (int d : deps) {
                auto it = stepOfBuffer.find(m_p.bufferOf[static_cast<size_t>(d)]);
                if (it != stepOfBuffer.end()) minStep = std::max(minStep, it->second), depSteps.insert(it->second);
            }
            bool placed = false;
            if (m_opts.fuse) {
                // Vertical fusion first (a kernel holding a producer), then horizontal.
                for (int pass = 0; pass < 2 && !placed; ++pass) {
                    int tried = 0;
                    for (int i = static_cast<int>(steps.size()) - 1; i >= std::max(minStep, 0) && tried < 8; --i) {
                        if (steps[static_cast<size_t>(i)].isCall) continue;
                        if (pass == 0 && !depSteps.count(i)) continue;
                        ++tried;
                        if (tryAdd(steps[static_cast<size_t>(i)].k, s)) {
                            stepOfBuffer[m_p.bufferOf[static_cast<size_t>(s)]] = i;
                            placed = true;
                            break;
                        }
                    }
                }
            }
            if (!placed) {
                StepB sb;
                if (!tryAdd(sb.k, s)) {
                    Diagnostic d =
                        makeError("cannot generate code for '" + lg.nodes[static_cast<size_t>(s)].name + "'");
                    if (lg.nodes[static_cast<size_t>(s)].origin)
                        d.node = lg.nodes[static_cast<size_t>(s)].origin->name();
                    return d;
                }
                steps.push_back(std::move(sb));
                stepOfBuffer[m_p.bufferOf[static_cast<size_t>(s)]] = static_cast<int>(steps.size()) - 1;
            }
        }
        finish(steps);
        return std::move(m_p);
    }

    void finish(std::vector<StepB>& steps) {
        auto& lg = m_p.lowered;
        for (size_t i = 0; i < lg.order.size(); ++i) m_position[lg.order[i]->name()] = static_cast<int>(i);
        // Who reads each buffer: kernels (by step) and the runtime (outputs, calls).
        std::map<int, std::set<int>> readers;
        std::set<int> runtime;
        auto collect = [&](const LValue& v, auto&& self) -> void {
            if (v.kind == LValue::Kind::Tensor) {
                int id = v.node;
                auto cp = m_p.viewCopies.find(id);
                if (cp != m_p.viewCopies.end())
                    id = cp->second;
                else
                    id = rootOf(id);
                if (m_p.bufferOf[static_cast<size_t>(id)] >= 0) runtime.insert(m_p.bufferOf[static_cast<size_t>(id)]);
            }
            for (const auto& x : v.items) self(x, self);
        };
        for (const auto& o : lg.outputs) collect(o, collect);
        for (const auto& c : lg.calls)
            for (const Node* in : c.inputs)
                if (const LValue* v = callInput(lg, c, in)) collect(*v, collect);
        for (size_t st = 0; st < steps.size(); ++st) {
            if (steps[st].isCall) continue;
            for (int s : steps[st].k.order) {
                std::set<int> deps, seen;
                depsOf(s, deps, seen, true);
                for (int d : deps) readers[m_p.bufferOf[static_cast<size_t>(d)]].insert(static_cast<int>(st));
            }
        }
        for (size_t st = 0; st < steps.size(); ++st) {
            StepB& sb = steps[st];
            if (sb.isCall) {
                m_p.steps.push_back({ProgramStep::Kind::Call, sb.call});
                continue;
            }
            KBuild& K = sb.k;
            int kid = static_cast<int>(m_p.kernels.size());
            std::set<int> internal;
            for (int s : K.order) {
                int b = m_p.bufferOf[static_cast<size_t>(s)];
                m_p.buffers[static_cast<size_t>(b)].kernel = kid;
                auto rd = readers[b];
                rd.erase(static_cast<int>(st));
                if (rd.empty() && !runtime.count(b) && !K.reloaded.count(s)) {
                    m_p.buffers[static_cast<size_t>(b)].internal = true;
                    internal.insert(K.slot(b));
                }
            }
            Kernel k;
            k.sizes = K.sizes;
            k.reduced = K.reduced;
            k.accTypes = K.accTypes;
            k.accOps = K.accOps;
            k.letTypes = K.letTypes;
            k.nodes = K.nodes;
            std::stable_sort(k.nodes.begin(), k.nodes.end(),
                             [&](const std::string& a, const std::string& b) { return m_position[a] < m_position[b]; });
            for (auto& ph : K.phases) {
                auto strip = [&](std::vector<Stmt>& v) {
                    std::vector<Stmt> r;
                    for (auto& x : v)
                        if (!(x.kind == Stmt::Kind::Store && internal.count(x.buf))) r.push_back(std::move(x));
                    return r;
                };
                if (K.isRed) k.phases.push_back({true, strip(ph.loop)});
                k.phases.push_back({false, strip(ph.post)});
            }
            std::set<int> written;
            for (const auto& ph : k.phases)
                for (const auto& x : ph.stmts)
                    if (x.kind == Stmt::Kind::Store) written.insert(x.buf);
            for (size_t sl = 0; sl < K.slotBuffer.size(); ++sl) {
                const BufferDesc& bd = m_p.buffers[static_cast<size_t>(K.slotBuffer[sl])];
                k.args.push_back({K.slotBuffer[sl], bd.meta.dtype, written.count(static_cast<int>(sl)) > 0,
                                  bd.name + (bd.internal ? " (internal)" : "")});
            }
            std::string name = "k" + std::to_string(kid);
            for (size_t i = 0; i < k.nodes.size() && i < 3; ++i) name += "_" + k.nodes[i];
            for (char& ch : name)
                if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_') ch = '_';
            k.name = name;
            if (m_opts.collapseDims) k = collapseDims(k);
            m_p.kernels.push_back(std::move(k));
            m_p.steps.push_back({ProgramStep::Kind::Kernel, kid});
        }
        // The group map, per call node of the graph.
        std::map<std::string, int> kernelOfNode;
        for (size_t i = 0; i < m_p.kernels.size(); ++i)
            for (const auto& n : m_p.kernels[i].nodes) kernelOfNode.emplace(n, static_cast<int>(i));
        std::map<const Node*, const OpaqueCall*> callOf;
        for (const auto& c : lg.calls) callOf[c.node] = &c;
        for (const Node* node : lg.order) {
            if (node->kind() != NodeKind::CallFunction) continue;
            NodeGroup g;
            g.node = node->name();
            if (auto c = callOf.find(node); c != callOf.end()) {
                g.kind =
                    c->second->kind == OpaqueCall::Kind::Extern ? NodeGroup::Kind::Extern : NodeGroup::Kind::Fallback;
                g.kernelName = c->second->kind == OpaqueCall::Kind::Extern ? c->second->fn : node->opName();
            } else if (auto k = kernelOfNode.find(node->name()); k != kernelOfNode.end()) {
                g.kind = NodeGroup::Kind::Kernel;
                g.kernel = k->second;
                g.kernelName = m_p.kernels[static_cast<size_t>(k->second)].name;
            } else if (lg.pinned.size() && std::any_of(lg.pinned.begin(), lg.pinned.end(),
                                                       [&](auto& p) { return p.second == node->name(); })) {
                g.kind = NodeGroup::Kind::Input;
                g.kernelName = "pinned";
            } else {
                const LValue& v = lg.values[node];
                bool isView =
                    v.kind == LValue::Kind::Tensor && lg.nodes[static_cast<size_t>(v.node)].kind == LKind::View;
                g.kind = isView ? NodeGroup::Kind::View : NodeGroup::Kind::None;
            }
            m_p.groups.push_back(std::move(g));
        }
    }

    ScheduleOptions m_opts;
    Program m_p;
    std::map<int, int> m_copyKey;
    std::map<std::string, int>
        m_position;  // graph node -> position in the graph  // copy LNode -> view LNode it copies
};

}  // namespace

Expected<Program> schedule(LoweredGraph lg, const ScheduleOptions& opts) {
    Scheduler s(std::move(lg), opts);
    return s.run();
}

std::string programSummary(const Program& p) {
    // A backend may run a call the lowering left as a fallback through a kernel of its own (the
    // CPU backend's random and data-sized externs, attached by qualname): its group says so.
    std::map<std::string, std::string> externOf;
    for (const auto& gr : p.groups)
        if (gr.kind == NodeGroup::Kind::Extern && !gr.kernelName.empty()) externOf[gr.node] = gr.kernelName;
    std::ostringstream s;
    for (const auto& st : p.steps) {
        if (st.kind == ProgramStep::Kind::Kernel) {
            const Kernel& k = p.kernels[static_cast<size_t>(st.index)];
            s << k.name << ": ";
            for (size_t i = 0; i < k.nodes.size(); ++i) s << (i ? ", " : "") << k.nodes[i];
            s << "\n";
        } else {
            const OpaqueCall& c = p.lowered.calls[static_cast<size_t>(st.index)];
            auto e = externOf.find(c.node->name());
            if (c.kind == OpaqueCall::Kind::Extern)
                s << "extern " << c.fn;
            else if (e != externOf.end())
                s << "extern " << e->second;
            else
                s << "fallback " << c.node->opName();
            s << ": " << c.node->name() << "\n";
        }
    }
    return s.str();
}

}  // namespace fxray::cg
