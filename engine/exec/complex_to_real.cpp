#include "exec/complex_to_real.h"

#include "exec/complex_fft.h"

#include "exec/ops/kernel_util.h"
#include "exec/shape_inference.h"
#include "ir/value.h"

#include <algorithm>
#include <set>
#include <unordered_map>

namespace fxray {

namespace {

DType realOf(DType c) { return c == DType::Complex128 ? DType::Float64 : DType::Float32; }

TensorMeta realMeta(const TensorMeta& m) {
    TensorMeta r = m;
    r.dtype = realOf(m.dtype);
    r.clearSymbolic();
    r.shape.push_back(2);
    if (m.strides.size() == m.shape.size()) {
        for (auto& s : r.strides) s *= 2;
        r.strides.push_back(1);
    } else {
        r.strides = TensorMeta::contiguousStrides(r.shape);
    }
    r.offset = m.offset * 2;
    // Symbolic sizes keep their expressions; symbolic strides are left to inference (SymInt has
    // no arithmetic to double them with).
    if (m.hasSymbolicSizes())
        for (size_t d = 0; d < m.shape.size(); ++d) r.setSize(d, m.sizeAt(d));
    if (!m.symStrides.empty()) {
        r.strides = TensorMeta::contiguousStrides(r.shape);
        r.stridesKnown = false;
    }
    return r;
}

/// The complex dtype a real pair tensor stands for: the graph's, or complex128 when the
/// reference executor ran in fp64 throughout.
DType complexFor(const Tensor& t, DType graphType) {
    return t.dtype() == DType::Float64 ? DType::Complex128 : graphType;
}

bool metaIsComplex(const Node& n) {
    for (const auto& m : n.meta)
        if (isComplex(m.dtype)) return true;
    return false;
}

/// Argument i of n by position, else by keyword; null when absent.
const Argument* argAt(const Node& n, size_t i, std::string_view kw) {
    if (i < n.args.size()) return &n.args[i];
    return n.kwarg(kw);
}

/// Rewrites one graph's top level, node by node, into a new graph.
class Rewriter {
public:
    Rewriter(const Graph& src, Graph& dst) : m_src(src), m_dst(dst) {}

    Status run(RealifiedGraph& out) {
        for (const auto& up : m_src.nodes()) {
            const Node& n = *up;
            if (Status s = rewriteNode(n); !s.ok()) return s;
        }
        m_dst.rebuildUsers();
        if (auto unknown = resolveOps(m_dst); !unknown.empty())
            return makeError("complex values: the rewrite made an unknown op " + unknown.front());
        inferMeta(m_dst);
        if (Status s = checkMeta(); !s.ok()) return s;
        for (const Node* n : m_src.placeholders())
            out.inputTypes.push_back(m_cplx.count(n) ? std::optional<DType>(n->meta[0].dtype) : std::nullopt);
        for (const auto& a : m_src.outputs())
            out.outputTypes.push_back(a.isNode() && m_cplx.count(a.node) ? std::optional<DType>(a.node->meta[0].dtype)
                                                                         : std::nullopt);
        for (const Node* n : m_cplx) out.complexNodes[n->name()] = n->meta[0].dtype;
        return Status::success();
    }

private:
    const Graph& m_src;
    Graph& m_dst;
    std::unordered_map<const Node*, Node*> m_map;
    /// Source nodes with a complex value (a real S + [2] one in m_dst).
    std::set<const Node*> m_cplx;
    /// Source nodes rewritten or downstream of one: their metadata is inferred anew.
    std::set<const Node*> m_changed;
    std::string m_base;  ///< the source node being rewritten (helper nodes are named after it)

    bool isC(const Argument& a) const { return a.isNode() && m_cplx.count(a.node); }

    Argument in(const Argument& a) const {
        Argument r = a;
        if (r.kind == Argument::Kind::NodeRef) {
            auto it = m_map.find(r.node);
            if (it != m_map.end()) r.node = it->second;
        }
        for (auto& x : r.items) x = in(x);
        return r;
    }

    static Argument N(Node* n) { return Argument::ofNode(n); }
    static Argument I(int64_t v) { return Argument::ofInt(v); }

    Node* emit(const std::string& op, std::vector<Argument> args, const std::string& name = {},
               std::vector<std::pair<std::string, Argument>> kwargs = {}) {
        Node* n = m_dst.append(NodeKind::CallFunction, name.empty() ? m_dst.uniqueName("cplx_" + m_base) : name,
                               "torch.ops." + op);
        n->args = std::move(args);
        n->kwargs = std::move(kwargs);
        return n;
    }
    Node* part(const Argument& x, int k) { return emit("aten.select.int", {in(x), I(-1), I(k)}); }
    Node* stack2(Argument re, Argument im, const std::string& name) {
        return emit("aten.stack.default", {Argument::ofList({std::move(re), std::move(im)}), I(-1)}, name);
    }
    Node* bin(const char* op, Argument a, Argument b) { return emit(op, {std::move(a), std::move(b)}); }

    Diagnostic unsupported(const Node& n, const std::string& why) const {
        Diagnostic d = makeError("complex values: fxray cannot rewrite " + n.opName() + " (node '" + n.name() +
                                 "') into real arithmetic" + (why.empty() ? "" : ": " + why));
        d.node = n.name();
        return d;
    }

    /// `x` (already in m_dst) broadcast to shape s, where it differs.
    Expected<Argument> expandTo(const Node& n, Argument x, const TensorMeta& xm, const TensorMeta& out) {
        if (xm.shape == out.shape && !xm.isSymbolic()) return x;
        if (out.isSymbolic() || xm.isSymbolic()) return unsupported(n, "broadcasting with symbolic sizes");
        std::vector<Argument> sz;
        for (int64_t s : out.shape) sz.push_back(I(s));
        return N(emit("aten.expand.default", {std::move(x), Argument::ofList(std::move(sz))}));
    }
    static const TensorMeta* metaOf(const Argument& a) {
        return a.isNode() && !a.node->meta.empty() ? &a.node->meta[0] : nullptr;
    }

    Status rewriteNode(const Node& n) {
        const bool outC = metaIsComplex(n);
        bool inC = false, inChanged = false;
        for (const Node* x : n.inputNodes()) {
            inC = inC || m_cplx.count(x);
            inChanged = inChanged || m_changed.count(x);
        }
        if (n.kind() == NodeKind::Placeholder || n.kind() == NodeKind::GetAttr || n.kind() == NodeKind::Output) {
            Node* d = m_dst.importNode(n, nullptr, m_map);
            m_map[&n] = d;
            if (n.kind() != NodeKind::Output && outC) {
                if (n.meta.size() != 1) return unsupported(n, "a tuple of complex values");
                d->meta[0] = realMeta(n.meta[0]);
                m_cplx.insert(&n);
                m_changed.insert(&n);
                if (n.kind() == NodeKind::GetAttr) {
                    auto it = m_dst.constants.find(n.target());
                    if (it != m_dst.constants.end() && isComplex(it->second.dtype()))
                        it->second = complexAsReal(it->second);
                }
            }
            return Status::success();
        }
        if (!outC && !inC && !isComplexOnlyOp(n.opName())) {
            Node* d = m_dst.importNode(n, nullptr, m_map);
            if (inChanged) {
                d->annotated = false;  // inferred anew (and checked against the source's below)
                m_changed.insert(&n);
            }
            m_map[&n] = d;
            return Status::success();
        }
        if (!n.isOpCall()) return unsupported(n, "not an ATen op call");
        if (n.metaIsTuple || n.meta.size() > 1) return unsupported(n, "ops returning several values");
        m_base = n.name();
        auto r = rewriteOp(n, outC);
        if (!r.ok()) return r.error();
        m_map[&n] = *r;
        m_changed.insert(&n);
        if (outC) m_cplx.insert(&n);
        return Status::success();
    }

    Expected<Node*> rewriteOp(const Node& n, bool outC) {
        const std::string op = n.opName();
        const std::string& name = n.name();
        const Argument* self = argAt(n, 0, "self");
        const TensorMeta* om = n.meta.empty() ? nullptr : &n.meta[0];
        if (!om) return unsupported(n, "no metadata");
        const int64_t r = self && metaOf(*self) ? metaOf(*self)->dim() : 0;  // rank of the complex input
        auto wrap = [](int64_t d, int64_t rank) { return d < 0 ? d + rank : d; };
        const bool selfC = self && isC(*self);

        // Aliases: the real representation is already the value.
        if (op == "aten.view_as_complex.default" || op == "aten.view_as_real.default" ||
            op == "aten.resolve_conj.default" || op == "aten.alias.default" || op == "aten.detach.default")
            return emit("aten.alias.default", {in(*self)}, name);
        if (op == "aten.clone.default" || op == "aten.lift_fresh_copy.default" || op == "aten.contiguous.default")
            return emit("aten.clone.default", {in(*self)}, name);
        if (op == "aten._conj.default" || op == "aten.conj.default" || op == "aten.conj_physical.default") {
            if (!selfC) return emit("aten.clone.default", {in(*self)}, name);  // conj of a real tensor
            return stack2(N(part(*self, 0)), N(emit("aten.neg.default", {N(part(*self, 1))})), name);
        }
        if (op == "aten.real.default" || op == "aten.imag.default") {
            if (!selfC) {
                if (op == "aten.imag.default") return unsupported(n, "imag of a real tensor");
                return emit("aten.alias.default", {in(*self)}, name);
            }
            return emit("aten.select.int", {in(*self), I(-1), I(op == "aten.real.default" ? 0 : 1)}, name);
        }
        if (op == "aten.neg.default" && selfC) return emit("aten.neg.default", {in(*self)}, name);
        if (op == "aten.abs.default" && selfC) {
            Node* re = part(*self, 0);
            Node* im = part(*self, 1);
            Node* s = bin("aten.add.Tensor", N(bin("aten.mul.Tensor", N(re), N(re))),
                          N(bin("aten.mul.Tensor", N(im), N(im))));
            return emit("aten.sqrt.default", {N(s)}, name);
        }
        if (op == "aten.angle.default" && selfC)
            return emit("aten.atan2.default", {N(part(*self, 1)), N(part(*self, 0))}, name);
        if (op == "aten.complex.default" || op == "aten.polar.default") {
            const Argument *a = argAt(n, 0, op == "aten.complex.default" ? "real" : "abs"),
                           *b = argAt(n, 1, op == "aten.complex.default" ? "imag" : "angle");
            if (!a || !b || !metaOf(*a) || !metaOf(*b)) return unsupported(n, "operands without metadata");
            Argument re = in(*a), im = in(*b);
            TensorMeta reMeta = *metaOf(*a), imMeta = *metaOf(*b);
            if (op == "aten.polar.default") {
                re = N(bin("aten.mul.Tensor", in(*a), N(emit("aten.cos.default", {in(*b)}))));
                im = N(bin("aten.mul.Tensor", in(*a), N(emit("aten.sin.default", {in(*b)}))));
                auto both = kern::broadcastShapes(metaOf(*a)->shape, metaOf(*b)->shape);
                if (!both) return unsupported(n, "operands that do not broadcast");
                reMeta.shape = imMeta.shape = *both;
            }
            auto re2 = expandTo(n, re, reMeta, *om);
            if (!re2.ok()) return re2.error();
            auto im2 = expandTo(n, im, imMeta, *om);
            if (!im2.ok()) return im2.error();
            return stack2(*re2, *im2, name);
        }
        if (op == "aten.cat.default" || op == "aten.stack.default") return cat(n, name, op == "aten.stack.default");
        if (isFftOp(op)) {
            if (!self || !metaOf(*self)) return unsupported(n, "an FFT without its signal's metadata");
            return rewriteFft(n, in(*self), selfC, *metaOf(*self), name,
                              [this](const std::string& q, std::vector<Argument> a, const std::string& nm,
                                     std::vector<std::pair<std::string, Argument>> kw) {
                                  return emit(q, std::move(a), nm, std::move(kw));
                              });
        }
        if (op == "aten.mul.Tensor" || op == "aten.mul.Scalar") return mul(n, name);
        if (op == "aten.div.Tensor" || op == "aten.div.Scalar") return div(n, name);
        if (op == "aten.add.Tensor" || op == "aten.sub.Tensor" || op == "aten.add.Scalar" || op == "aten.sub.Scalar")
            return addSub(n, name, *om);
        if (op == "aten._to_copy.default") {
            const DType to = om->dtype;
            if (selfC && outC)
                return emit("aten._to_copy.default", {in(*self)}, name, {{"dtype", Argument::ofDType(realOf(to))}});
            if (selfC)
                return emit("aten._to_copy.default", {N(part(*self, 0))}, name, {{"dtype", Argument::ofDType(to)}});
            Node* re = emit("aten._to_copy.default", {in(*self)}, {}, {{"dtype", Argument::ofDType(realOf(to))}});
            return stack2(N(re), N(emit("aten.zeros_like.default", {N(re)})), name);
        }
        if (op == "aten.where.self") {  // argument 0 is the (real) condition
            const Argument *c = argAt(n, 0, "condition"), *a = argAt(n, 1, "self"), *b = argAt(n, 2, "other");
            if (!c || !a || !b || !isC(*a) || !isC(*b)) return unsupported(n, "a real branch");
            return emit(op, {N(emit("aten.unsqueeze.default", {in(*c), I(-1)})), in(*a), in(*b)}, name);
        }
        if (!selfC || !outC) return unsupported(n, "");

        // Shape ops on a complex value: its dims, with the trailing one of size 2 kept last.
        const Argument* a1 = argAt(n, 1, "");
        auto intsPlus = [&](const Argument* list, std::vector<Argument> tail) -> Expected<Argument> {
            if (!list || !list->isSequence()) return unsupported(n, "an unexpected size argument");
            Argument l = in(*list);
            for (auto& t : tail) l.items.push_back(std::move(t));
            return l;
        };
        if (op == "aten.view.default" || op == "aten.reshape.default" || op == "aten._unsafe_view.default" ||
            op == "aten.expand.default") {
            auto l = intsPlus(argAt(n, 1,
                                    op == "aten.expand.default" ? "size"
                                    : op == "aten.view.default" ? "size"
                                                                : "shape"),
                              {I(2)});
            if (!l.ok()) return l.error();
            return emit(op, {in(*self), *l}, name);
        }
        if (op == "aten.repeat.default") {
            auto l = intsPlus(argAt(n, 1, "repeats"), {I(1)});
            if (!l.ok()) return l.error();
            return emit(op, {in(*self), *l}, name);
        }
        auto dimList = [&](const Argument* list, int64_t rank) -> Expected<Argument> {
            std::vector<Argument> items;
            if (!list || list->isNone()) {
                for (int64_t d = 0; d < r; ++d) items.push_back(I(d));
                return Argument::ofList(std::move(items));
            }
            if (list->kind == Argument::Kind::Int) return Argument::ofList({I(wrap(list->i, rank))});
            if (!list->isSequence()) return unsupported(n, "an unexpected dims argument");
            for (const auto& d : list->items) {
                if (d.kind != Argument::Kind::Int) return unsupported(n, "a non-constant dim");
                items.push_back(I(wrap(d.i, rank)));
            }
            if (items.empty())  // sum over no dims is a sum over all of them
                for (int64_t d = 0; d < r; ++d) items.push_back(I(d));
            return Argument::ofList(std::move(items));
        };
        auto intArg = [&](size_t i, const char* kw, int64_t dflt) -> std::optional<int64_t> {
            const Argument* a = argAt(n, i, kw);
            if (!a || a->isNone()) return dflt;
            if (a->kind != Argument::Kind::Int) return std::nullopt;
            return a->i;
        };
        if (op == "aten.permute.default") {
            auto l = dimList(a1, r);
            if (!l.ok()) return l.error();
            l->items.push_back(I(r));
            return emit(op, {in(*self), *l}, name);
        }
        if (op == "aten.transpose.int") {
            auto d0 = intArg(1, "dim0", 0), d1 = intArg(2, "dim1", 0);
            if (!d0 || !d1) return unsupported(n, "non-constant dims");
            return emit(op, {in(*self), I(wrap(*d0, r)), I(wrap(*d1, r))}, name);
        }
        if (op == "aten.t.default") {
            if (r < 2) return emit("aten.alias.default", {in(*self)}, name);
            return emit("aten.transpose.int", {in(*self), I(0), I(1)}, name);
        }
        if (op == "aten.unsqueeze.default") {
            auto d = intArg(1, "dim", 0);
            if (!d) return unsupported(n, "a non-constant dim");
            return emit(op, {in(*self), I(wrap(*d, r + 1))}, name);
        }
        if (op == "aten.squeeze.dim" || op == "aten.squeeze.dims" || op == "aten.flip.default") {
            auto l = dimList(a1, r);
            if (!l.ok()) return l.error();
            return emit(op == "aten.flip.default" ? op : "aten.squeeze.dims", {in(*self), *l}, name);
        }
        if (op == "aten.squeeze.default") {
            std::vector<Argument> dims;
            const TensorMeta& sm = *metaOf(*self);
            for (int64_t d = 0; d < r; ++d)
                if (!sm.isSymbolicDim(static_cast<size_t>(d)) && sm.shape[static_cast<size_t>(d)] == 1)
                    dims.push_back(I(d));
            return emit("aten.squeeze.dims", {in(*self), Argument::ofList(std::move(dims))}, name);
        }
        if (op == "aten.slice.Tensor") {
            auto d = intArg(1, "dim", 0);
            if (!d) return unsupported(n, "a non-constant dim");
            std::vector<Argument> args{in(*self), I(wrap(*d, r))};
            for (size_t i = 2; i < 5; ++i) {
                const Argument* a = argAt(n, i, i == 2 ? "start" : i == 3 ? "end" : "step");
                args.push_back(a ? in(*a) : (i == 4 ? I(1) : Argument::none()));
            }
            return emit(op, std::move(args), name);
        }
        if (op == "aten.select.int") {
            auto d = intArg(1, "dim", 0);
            const Argument* idx = argAt(n, 2, "index");
            if (!d || !idx) return unsupported(n, "a non-constant dim");
            return emit(op, {in(*self), I(wrap(*d, r)), in(*idx)}, name);
        }
        if (op == "aten.sum.dim_IntList" || op == "aten.sum.default") {
            const bool all = op == "aten.sum.default";
            auto l = dimList(all ? nullptr : a1, r);
            if (!l.ok()) return l.error();
            const Argument* keep = all ? nullptr : argAt(n, 2, "keepdim");
            return emit("aten.sum.dim_IntList", {in(*self), *l, keep ? *keep : Argument::ofBool(false)}, name);
        }
        return unsupported(n, "");
    }

    Expected<Node*> cat(const Node& n, const std::string& name, bool stack) {
        const Argument* list = argAt(n, 0, "tensors");
        const Argument* dim = argAt(n, 1, "dim");
        if (!list || !list->isSequence() || list->items.empty()) return unsupported(n, "an unexpected tensor list");
        for (const auto& t : list->items)
            if (!isC(t)) return unsupported(n, "a real tensor among complex ones");
        const int64_t r = metaOf(list->items[0]) ? metaOf(list->items[0])->dim() : 0;
        int64_t d = dim && dim->kind == Argument::Kind::Int ? dim->i : 0;
        if (d < 0) d += r + (stack ? 1 : 0);
        return emit(stack ? "aten.stack.default" : "aten.cat.default", {in(*list), I(d)}, name);
    }

    Expected<Node*> mul(const Node& n, const std::string& name) {
        const Argument *a = argAt(n, 0, "self"), *b = argAt(n, 1, "other");
        if (!a || !b) return unsupported(n, "missing operands");
        if (isC(*a) && isC(*b)) {
            Node *ar = part(*a, 0), *ai = part(*a, 1), *br = part(*b, 0), *bi = part(*b, 1);
            Node* re = bin("aten.sub.Tensor", N(bin("aten.mul.Tensor", N(ar), N(br))),
                           N(bin("aten.mul.Tensor", N(ai), N(bi))));
            Node* im = bin("aten.add.Tensor", N(bin("aten.mul.Tensor", N(ar), N(bi))),
                           N(bin("aten.mul.Tensor", N(ai), N(br))));
            return stack2(N(re), N(im), name);
        }
        const Argument& c = isC(*a) ? *a : *b;
        const Argument& o = isC(*a) ? *b : *a;
        if (!isC(c)) return unsupported(n, "");
        if (o.isNode())
            return emit("aten.mul.Tensor", {in(c), N(emit("aten.unsqueeze.default", {in(o), I(-1)}))}, name);
        if (o.isNumber()) return emit("aten.mul.Tensor", {in(c), o}, name);
        return unsupported(n, "a complex scalar");
    }

    Expected<Node*> div(const Node& n, const std::string& name) {
        const Argument *a = argAt(n, 0, "self"), *b = argAt(n, 1, "other");
        if (!a || !b) return unsupported(n, "missing operands");
        if (!isC(*b)) {
            if (b->isNode())
                return emit("aten.div.Tensor", {in(*a), N(emit("aten.unsqueeze.default", {in(*b), I(-1)}))}, name);
            if (b->isNumber()) return emit("aten.div.Tensor", {in(*a), *b}, name);
            return unsupported(n, "a complex scalar");
        }
        // x / y = x * conj(y) / |y|^2
        Node *br = part(*b, 0), *bi = part(*b, 1);
        Node* den =
            bin("aten.add.Tensor", N(bin("aten.mul.Tensor", N(br), N(br))), N(bin("aten.mul.Tensor", N(bi), N(bi))));
        Argument ar, ai;
        if (isC(*a)) {
            ar = N(part(*a, 0));
            ai = N(part(*a, 1));
        } else {
            ar = in(*a);
        }
        Node* reNum = bin("aten.mul.Tensor", ar, N(br));
        Node* imNum = emit("aten.neg.default", {N(bin("aten.mul.Tensor", ar, N(bi)))});
        if (isC(*a)) {
            reNum = bin("aten.add.Tensor", N(reNum), N(bin("aten.mul.Tensor", ai, N(bi))));
            imNum = bin("aten.add.Tensor", N(imNum), N(bin("aten.mul.Tensor", ai, N(br))));
        }
        return stack2(N(bin("aten.div.Tensor", N(reNum), N(den))), N(bin("aten.div.Tensor", N(imNum), N(den))), name);
    }

    Expected<Node*> addSub(const Node& n, const std::string& name, const TensorMeta& om) {
        const std::string op = n.opName();
        const bool sub = op.rfind("aten.sub", 0) == 0;
        const Argument *a = argAt(n, 0, "self"), *b = argAt(n, 1, "other");
        if (!a || !b) return unsupported(n, "missing operands");
        std::vector<std::pair<std::string, Argument>> kw;
        double alpha = 1.0;
        if (const Argument* al = argAt(n, 2, "alpha"); al && !al->isNone()) {
            if (!al->isNumber()) return unsupported(n, "a non-constant alpha");
            kw.push_back({"alpha", *al});
            alpha = al->kind == Argument::Kind::Float ? al->f : static_cast<double>(al->i);
        }
        const std::string real = sub ? "aten.sub.Tensor" : "aten.add.Tensor";
        if (isC(*a) && isC(*b)) return emit(real, {in(*a), in(*b)}, name, kw);
        if (isC(*a)) {  // complex -/+ real: the real part only
            Node* re = emit(real, {N(part(*a, 0)), in(*b)}, {}, kw);
            TensorMeta am = *metaOf(*a);
            auto im = expandTo(n, N(part(*a, 1)), am, om);
            if (!im.ok()) return im.error();
            return stack2(N(re), *im, name);
        }
        if (!isC(*b)) return unsupported(n, "");
        Node* re = emit(real, {in(*a), N(part(*b, 0))}, {}, kw);
        Node* im = emit("aten.mul.Tensor", {N(part(*b, 1)), Argument::ofFloat(sub ? -alpha : alpha)});
        TensorMeta bm = *metaOf(*b);
        auto im2 = expandTo(n, N(im), bm, om);
        if (!im2.ok()) return im2.error();
        return stack2(N(re), *im2, name);
    }

    /// Every rewritten node's inferred metadata against the source's: complex S -> real S + [2]
    /// of the component dtype, real nodes unchanged. A rule that got a dtype promotion or a shape
    /// wrong fails here instead of computing a wrong value.
    Status checkMeta() const {
        for (const Node* s : m_changed) {
            if (s->kind() != NodeKind::CallFunction || s->meta.size() != 1) continue;
            const Node* d = m_map.at(s);
            if (d->meta.size() != 1) return unsupported(*s, "no metadata was inferred");
            TensorMeta want = m_cplx.count(s) ? realMeta(s->meta[0]) : s->meta[0];
            const TensorMeta& got = d->meta[0];
            if (got.dtype != want.dtype || (!got.isSymbolic() && !want.isSymbolic() && got.shape != want.shape))
                return unsupported(*s, "it gave " + got.annotation(false, false) + " where " +
                                           want.annotation(false, false) + " was expected");
        }
        return Status::success();
    }
};

}  // namespace

Tensor complexAsReal(const Tensor& t) {
    Tensor r = t;
    r.meta = realMeta(t.meta);
    return r;
}

Tensor realAsComplex(const Tensor& t, DType complexType) {
    const TensorMeta& m = t.meta;
    bool viewable = m.dim() > 0 && m.shape.back() == 2 && m.strides.size() == m.shape.size() && m.strides.back() == 1 &&
                    m.offset % 2 == 0 && t.dtype() == realOf(complexType);
    for (size_t d = 0; viewable && d + 1 < m.strides.size(); ++d) viewable = m.strides[d] % 2 == 0 || m.shape[d] == 1;
    Tensor src = t;
    if (!viewable) {
        TensorMeta c = TensorMeta::contiguous(m.shape, realOf(complexType), m.device);
        src = t.hasData() ? kern::makeTensor(c, kern::toDoubles(t)) : Tensor::metaOnly(c);
    }
    TensorMeta o = src.meta;
    o.dtype = complexType;
    o.clearSymbolic();
    o.shape.pop_back();
    o.strides.pop_back();
    for (auto& s : o.strides) s /= 2;
    o.offset /= 2;
    src.meta = o;
    return src;
}

bool isComplexOnlyOp(std::string_view q) {
    static const std::set<std::string_view> ops = {
        "aten.complex.default", "aten.polar.default", "aten.view_as_complex.default", "aten.view_as_real.default",
        "aten._conj.default",   "aten.conj.default",  "aten.conj_physical.default",   "aten.resolve_conj.default",
        "aten.real.default",    "aten.imag.default",  "aten._fft_r2c.default",        "aten._fft_c2c.default",
        "aten._fft_c2r.default"};
    return ops.count(q) > 0;
}

bool graphHasComplex(const Graph& g) {
    for (const auto& n : g.nodes())
        if (metaIsComplex(*n) || (n->isOpCall() && isComplexOnlyOp(n->opName()))) return true;
    for (const auto& [k, t] : g.constants)
        if (isComplex(t.dtype())) return true;
    return false;
}

std::vector<Value> RealifiedGraph::realInputs(const std::vector<Value>& inputs) const {
    std::vector<Value> r = inputs;
    for (size_t i = 0; i < r.size() && i < inputTypes.size(); ++i)
        if (inputTypes[i] && r[i].isTensor() && isComplex(r[i].t.dtype())) r[i].t = complexAsReal(r[i].t);
    return r;
}

void RealifiedGraph::restoreOutputs(std::vector<Value>& outputs) const {
    for (size_t i = 0; i < outputs.size() && i < outputTypes.size(); ++i)
        if (outputTypes[i] && outputs[i].isTensor() && !isComplex(outputs[i].t.dtype()))
            outputs[i].t = realAsComplex(outputs[i].t, complexFor(outputs[i].t, *outputTypes[i]));
}

Value RealifiedGraph::restoreNode(const std::string& name, const Value& v) const {
    auto it = complexNodes.find(name);
    if (it == complexNodes.end() || !v.isTensor() || isComplex(v.t.dtype())) return v;
    Value r = v;
    r.t = realAsComplex(v.t, complexFor(v.t, it->second));
    return r;
}

Expected<std::shared_ptr<const RealifiedGraph>> complexToReal(const Graph& g) {
    auto out = std::make_shared<RealifiedGraph>();
    out->graph = std::make_unique<Graph>();
    Graph& d = *out->graph;
    d.className = g.className;
    d.signature = g.signature;
    d.printStrides = g.printStrides;
    d.printDevices = g.printDevices;
    d.sourceFile = g.sourceFile;
    d.symbolHints = g.symbolHints;
    d.constants = g.constants;
    for (const auto& [name, sub] : g.subgraphs()) d.subgraphs().emplace_back(name, sub->clone());
    Rewriter rw(g, d);
    if (Status s = rw.run(*out); !s.ok()) return s.error();
    return std::shared_ptr<const RealifiedGraph>(std::move(out));
}

}  // namespace fxray
