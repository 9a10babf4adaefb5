// Dynamic shapes in the Dynamo lowering: a graph made with torch.compile(dynamic=True) has
// SymInt placeholders, symbolic annotations ("f32[s33, 128]") and size arithmetic on SymInts.
//
// Shape rules work on static sizes, so lowering evaluates every value at one binding of the
// symbols (the trace's hints, else 8): rules see real sizes. What the rules cannot say is which
// sizes of a node they emit are symbolic: emit() runs the same rule at two more "probe"
// bindings, and a size that changes between them is matched against the symbolic texts around
// the node (its operands' sizes and strides, its own annotation, their products). SymInt values
// stay nodes: `x.size(0)` becomes `aten.sym_size.int`, `s0 * 4` stays `operator.mul`.
#include "exec/python_scalar_ops.h"
#include "exec/shape_binding.h"
#include "import/dynamo_lowering_internal.h"
#include "ir/op_registry.h"

#include <algorithm>
#include <cctype>

namespace fxray::lowering {
namespace {

/// Every symbolic text of a node's annotation: sizes, strides, a Sym(...) expression.
void annotationTexts(const Node& n, std::vector<std::string>& out) {
    for (const auto& m : n.meta) {
        for (const auto& t : m.symShape)
            if (t.isSymbolic()) out.push_back(t.text());
        for (const auto& t : m.symStrides)
            if (t.isSymbolic()) out.push_back(t.text());
    }
    std::string e = symPlaceholderExpr(n);
    if (!e.empty()) out.push_back(e);
}

bool isSymbolicNode(const Node& n) {
    for (const auto& m : n.meta)
        if (m.isSymbolic()) return true;
    std::string e = symPlaceholderExpr(n);
    return !e.empty() && !sym::freeSymbols(e).empty();
}

/// A factor of a product printed as sympy would need it: parenthesized unless it is a plain
/// product of names, numbers and powers.
std::string factor(const std::string& t) {
    bool simple = std::all_of(t.begin(), t.end(), [](char ch) {
        return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '*';
    });
    return simple ? t : "(" + t + ")";
}

/// The row-major strides of a shape whose sizes are numbers or symbolic texts: "128*s27".
std::vector<std::string> contiguousStrideTexts(const TensorMeta& m) {
    std::vector<std::string> out(m.shape.size());
    int64_t coeff = 1;
    std::vector<std::string> factors;
    for (size_t i = m.shape.size(); i-- > 0;) {
        if (!factors.empty()) {
            std::string t = coeff == 1 ? "" : std::to_string(coeff) + "*";
            for (size_t f = 0; f < factors.size(); ++f) t += (f ? "*" : "") + factor(factors[f]);
            out[i] = t;
        }
        if (m.isSymbolicDim(i))
            factors.insert(factors.begin(), m.symShape[i].text());
        else if (!m.isUnknownDim(i))
            coeff *= m.shape[i];
    }
    return out;
}

std::optional<sym::Num> numOf(const Value& v) {
    switch (v.kind) {
    case Value::Kind::Int: return sym::Num::ofInt(v.i);
    case Value::Kind::Bool: return sym::Num::ofBool(v.b);
    case Value::Kind::Double: return sym::Num::ofFloat(v.d);
    default: return std::nullopt;
    }
}

Value valueOfNum(const sym::Num& n) {
    if (n.kind == sym::Num::Kind::Bool) return Value::ofBool(n.i != 0);
    if (n.isFloat()) return Value::ofDouble(n.d);
    return Value::ofInt(n.i);
}

bool sameNum(const sym::Num& a, const sym::Num& b) {
    if (a.isFloat() || b.isFloat()) return a.toDouble() == b.toDouble();
    return a.i == b.i;
}

/// Candidate texts, parsed and evaluated at the three bindings.
struct Candidates {
    std::vector<std::string> texts;
    std::vector<std::array<sym::Num, 3>> values;

    void add(const std::string& t, const std::array<sym::Binding, 3>& b) {
        if (t.empty() || std::find(texts.begin(), texts.end(), t) != texts.end()) return;
        auto e = SymInt::parse(t);  // the annotations' texts were parsed on reading: found, not parsed
        if (!e.ok()) return;
        std::array<sym::Num, 3> v;
        for (size_t k = 0; k < 3; ++k) {
            if (e->isStatic()) {
                v[k] = sym::Num::ofInt(e->value());
                continue;
            }
            auto r = sym::eval(*e->expr(), b[k]);
            if (!r.ok()) return;
            v[k] = *r;
        }
        texts.push_back(t);
        values.push_back(v);
    }
    /// The first text that takes the three values, or nullopt.
    std::optional<std::string> match(const std::array<sym::Num, 3>& want) const {
        for (size_t i = 0; i < texts.size(); ++i)
            if (sameNum(values[i][0], want[0]) && sameNum(values[i][1], want[1]) && sameNum(values[i][2], want[2]))
                return texts[i];
        return std::nullopt;
    }
};

/// The symbolic form of tensor metadata seen at the three bindings; nullopt when a size
/// changes with the symbols but no candidate explains it.
std::optional<TensorMeta> fitMeta(const std::array<TensorMeta, 3>& m, Candidates& cands,
                                  const std::array<sym::Binding, 3>& b) {
    const size_t nd = m[0].shape.size();
    for (size_t k = 1; k < 3; ++k)
        if (m[k].shape.size() != nd || m[k].dtype != m[0].dtype) return std::nullopt;
    TensorMeta out = m[0];
    for (size_t d = 0; d < nd; ++d) {
        if (m[1].shape[d] == m[0].shape[d] && m[2].shape[d] == m[0].shape[d]) continue;
        auto t = cands.match(
            {sym::Num::ofInt(m[0].shape[d]), sym::Num::ofInt(m[1].shape[d]), sym::Num::ofInt(m[2].shape[d])});
        if (!t) return std::nullopt;
        auto s = SymInt::parse(*t);
        if (!s.ok()) return std::nullopt;
        out.setSize(d, *s);
    }
    // Strides: the operands' and the row-major strides of the new shape.
    for (const auto& t : contiguousStrideTexts(out)) cands.add(t, b);
    std::vector<SymInt> symStrides(nd);
    bool anySymStride = false,
         stridesOk = m[0].strides.size() == nd && m[1].strides.size() == nd && m[2].strides.size() == nd;
    for (size_t d = 0; d < nd && stridesOk; ++d) {
        if (m[1].strides[d] == m[0].strides[d] && m[2].strides[d] == m[0].strides[d]) continue;
        auto t = cands.match(
            {sym::Num::ofInt(m[0].strides[d]), sym::Num::ofInt(m[1].strides[d]), sym::Num::ofInt(m[2].strides[d])});
        if (!t) {
            // A size-1 dimension's stride is arbitrary in PyTorch; elsewhere give up on strides.
            if (m[0].shape[d] == 1) continue;
            stridesOk = false;
            break;
        }
        auto s = SymInt::parse(*t);
        if (!s.ok()) {
            stridesOk = false;
            break;
        }
        symStrides[d] = *s;
        anySymStride = true;
    }
    if (!stridesOk) {
        out.strides = m[0].strides;
        out.stridesKnown = false;
    } else if (anySymStride) {
        for (size_t d = 0; d < nd; ++d)
            if (symStrides[d].isSymbolic()) out.setStride(d, symStrides[d]);
    }
    out.stridesKnown = out.stridesKnown && stridesOk;
    return out;
}

/// The expression a binary operator on SymInts computes, from its operands' expressions
/// (literals, or nodes annotated "Sym(...)"): `operator.mul(size, 2)` -> "2*s0"-like text.
std::optional<std::string> scalarExprText(std::string_view target, const std::vector<Argument>& args) {
    static const std::pair<std::string_view, const char*> infix[] = {
        {"operator.add", " + "},     {"operator.sub", " - "}, {"operator.mul", "*"},
        {"operator.floordiv", "//"}, {"operator.mod", " % "}, {"operator.truediv", "/"}};
    const char* op = nullptr;
    for (const auto& [t, o] : infix)
        if (t == target) op = o;
    if (!op || args.size() != 2) return std::nullopt;
    std::string parts[2];
    for (size_t i = 0; i < 2; ++i) {
        const Argument& a = args[i];
        if (a.kind == Argument::Kind::Int)
            parts[i] = std::to_string(a.i);
        else if (a.isNode() && !symPlaceholderExpr(*a.node).empty())
            parts[i] = symPlaceholderExpr(*a.node);
        else
            return std::nullopt;
    }
    return "(" + parts[0] + ")" + op + "(" + parts[1] + ")";
}

}  // namespace

bool LowerCtx::isScalar(const Argument& a) const {
    return isScalarNode(a) || (!a.isNode() && numberOf(&a).has_value());
}

void LowerCtx::initBindings() {
    bool sym = graphIsSymbolic(m_g);
    std::vector<std::string> names;
    for (const auto& n : m_g.nodes()) {
        sym = sym || isSymbolicNode(*n);
        std::vector<std::string> texts;
        annotationTexts(*n, texts);
        for (const auto& t : texts)
            for (const auto& s : sym::freeSymbols(t))
                if (std::find(names.begin(), names.end(), s) == names.end()) names.push_back(s);
    }
    m_symbolic = sym;
    if (!sym) return;
    // Hints for the inputs' symbols (the trace's, else 8); symbols only inner nodes mention
    // (unbacked u0 from .item(), float zf0) get a plain value so that expressions evaluate.
    m_bind[0] = completeBinding(m_g, {});
    for (const auto& s : names)
        if (!m_bind[0].count(s)) m_bind[0][s] = s.rfind("zf", 0) == 0 ? sym::Num::ofFloat(1.0) : sym::Num::ofInt(8);
    // Probes scale each symbol by its own prime: symbols with equal hints part ways, and sizes
    // divisible at the hints (view(s0 // 2, 2)) stay divisible.
    static const int64_t primes[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53};
    size_t i = 0;
    for (const auto& [s, v] : m_bind[0]) {
        for (size_t k = 1; k <= 2; ++k) {
            int64_t p = primes[(i + k - 1) % std::size(primes)];
            m_bind[k][s] = v.isFloat() ? sym::Num::ofFloat(v.d * double(p) + double(k)) : sym::Num::ofInt(v.i * p);
        }
        ++i;
    }
}

Value LowerCtx::annotationUnder(const Node& n, size_t k) const {
    if (k > 0 && !isSymbolicNode(n)) return Value::none();
    if (!n.meta.empty()) {
        std::vector<Tensor> ts;
        for (const auto& m : n.meta) {
            TensorMeta b = m;
            if (m_symbolic && m.isSymbolic()) {
                auto r = bindMeta(m, m_bind[k]);
                if (r.ok()) b = std::move(r).value();
            }
            ts.push_back(Tensor::metaOnly(std::move(b)));
        }
        if (n.metaIsTuple || ts.size() > 1) return Value::ofTensors(std::move(ts));
        return Value::ofTensor(std::move(ts[0]));
    }
    std::string e = symPlaceholderExpr(n);
    if (e.empty()) return Value::none();
    auto r = sym::evalText(e, m_bind[k]);
    if (!r.ok()) return Value::none();
    return valueOfNum(*r);
}

bool LowerCtx::annotatesUnbackedTensor(const Node& n) const {
    if (n.meta.size() != 1 || n.metaIsTuple) return false;
    std::vector<std::string> texts;
    annotationTexts(n, texts);
    return std::any_of(texts.begin(), texts.end(), [](const std::string& t) { return sym::mentionsUnbacked(t); });
}

bool LowerCtx::isScalarNode(const Argument& a) const {
    if (!a.isNode()) return false;
    Value v = valueOf(a);
    return v.isNumber();
}

std::optional<TensorMeta> LowerCtx::symMeta(const Argument& a) const {
    if (!a.isNode()) return std::nullopt;
    if (m_symbolic && a.node->annotated && a.node->meta.size() == 1 && !a.node->metaIsTuple) return a.node->meta[0];
    return tensorMeta(a);
}

Expected<Argument> LowerCtx::sizeArg(const Argument& x, int64_t dim) {
    auto m = tensorMeta(x);
    auto sm = symMeta(x);
    if (!m || !sm) return makeError("expects a tensor");
    // A value whose symbolic sizes are unknown would fold its hint into the graph: an error.
    if (m_symbolic && !x.node->annotated)
        return makeError("the sizes of '" + x.node->name() + "' are not known symbolically (no annotation)");
    int64_t nd = m->dim();
    int64_t d = dim < 0 ? dim + nd : dim;
    if (d < 0 || d >= nd) return makeError("dim " + std::to_string(dim) + " out of range");
    size_t i = static_cast<size_t>(d);
    if (sm->isSymbolicDim(i)) return emit("aten.sym_size.int", {x, Argument::ofInt(d)});
    return Argument::ofInt(m->shape[i]);
}

Expected<std::vector<Argument>> LowerCtx::sizeArgs(const Argument& x) {
    auto m = tensorMeta(x);
    if (!m) return makeError("expects a tensor");
    std::vector<Argument> out;
    for (int64_t d = 0; d < m->dim(); ++d) {
        auto s = sizeArg(x, d);
        if (!s.ok()) return s.error();
        out.push_back(std::move(s).value());
    }
    return out;
}

void LowerCtx::dropUnusedSizeNodes() {
    bool dropped = false;
    std::vector<Node*> dead;
    for (const auto& up : m_g.nodes())
        if (m_sizeNodes.count(up.get()) && up->users.empty()) dead.push_back(up.get());
    for (Node* n : dead) {
        m_values.erase(n);
        m_sizeNodes.erase(n);
        m_g.erase(n);
        dropped = true;
    }
    if (dropped) m_g.rebuildUsers();
}

Expected<Argument> LowerCtx::emitScalar(std::string_view target, std::vector<Argument> args) {
    std::array<Value, 3> vals;
    for (size_t k = 0; k < 3; ++k) {
        std::vector<Value> vs;
        for (const auto& a : args) vs.push_back(valueUnder(a, k));
        auto r = callPythonScalarOp(target, vs);
        if (!r) return makeError("operands must be numbers");
        if (!r->ok()) {
            if (k == 0) return r->error();
            continue;  // a probe size the expression does not accept: no symbolic form then
        }
        vals[k] = std::move(*r).value();
    }
    std::string base(target.substr(target.rfind('.') + 1));
    if (!base.empty() && base.back() == '_') base.pop_back();  // operator.and_ -> and_1 below
    std::string name = m_g.uniqueName(
        base == "and" || base == "or" || base == "not" || base == "abs" || base == "max" || base == "min" ? base + "_1"
                                                                                                          : base);
    Node* n = m_g.insertBefore(m_cur, NodeKind::CallFunction, name, std::string(target));
    n->args = std::move(args);
    n->sourceComment = m_cur->sourceComment;
    n->sourceLine = m_cur->sourceLine;
    if (auto text = scalarExprText(target, n->args))
        n->annotationText = "Sym(" + *text + ")";
    else
        resymbolize(n, vals[0], {vals[1], vals[2]});
    m_values[n] = vals[0];
    m_emitted.push_back(n);
    return Argument::ofNode(n);
}

std::vector<std::string> LowerCtx::candidateTexts(const Node* n) const {
    std::vector<std::string> out;
    std::vector<std::string> shapes;  // sizes of operands, for products (flattening views)
    auto visit = [&](const Argument& a, auto&& self) -> void {
        if (a.isNode()) {
            std::vector<std::string> t;
            annotationTexts(*a.node, t);
            out.insert(out.end(), t.begin(), t.end());
            for (const auto& m : a.node->meta) {
                for (const auto& s : m.symShape)
                    if (s.isSymbolic()) shapes.push_back(s.text());
                for (const auto& s : contiguousStrideTexts(m)) out.push_back(s);
            }
            return;
        }
        for (const auto& it : a.items) self(it, self);
    };
    for (const auto& a : n->args) visit(a, visit);
    for (const auto& [k, a] : n->kwargs) visit(a, visit);
    if (m_cur) annotationTexts(*m_cur, out);
    for (const auto& [s, v] : m_bind[0]) out.push_back(s);
    for (size_t i = 0; i < shapes.size() && i < 8; ++i)
        for (size_t j = i; j < shapes.size() && j < 8; ++j) out.push_back(factor(shapes[i]) + "*" + factor(shapes[j]));
    return out;
}

void LowerCtx::resymbolize(Node* n, const Value& v0, const std::array<Value, 2>& probes) {
    Candidates cands;
    for (const auto& t : candidateTexts(n)) cands.add(t, m_bind);
    if (auto x0 = numOf(v0)) {
        auto x1 = numOf(probes[0]), x2 = numOf(probes[1]);
        if (!x1 || !x2) return;
        std::string text;
        if (sameNum(*x0, *x1) && sameNum(*x0, *x2))
            text = x0->str();
        else if (auto t = cands.match({*x0, *x1, *x2}))
            text = *t;
        else
            return;
        n->annotationText = "Sym(" + text + ")";
        return;
    }
    std::vector<std::array<TensorMeta, 3>> metas;
    auto collect = [&](const Value& a, const Value& b, const Value& c) {
        if (!a.isTensor() || !b.isTensor() || !c.isTensor()) return false;
        metas.push_back({a.t.meta, b.t.meta, c.t.meta});
        return true;
    };
    bool tuple = false;
    if (v0.isTensor()) {
        if (!collect(v0, probes[0], probes[1])) return;
    } else if (v0.isList() && probes[0].isList() && probes[1].isList() && probes[0].list.size() == v0.list.size() &&
               probes[1].list.size() == v0.list.size()) {
        tuple = true;
        for (size_t i = 0; i < v0.list.size(); ++i)
            if (!collect(v0.list[i], probes[0].list[i], probes[1].list[i])) return;
    } else {
        return;
    }
    std::vector<TensorMeta> out;
    for (const auto& m : metas) {
        auto f = fitMeta(m, cands, m_bind);
        if (!f) return;
        f->deviceKnown = f->deviceKnown && m_devicesKnown;
        out.push_back(std::move(*f));
    }
    n->meta = std::move(out);
    n->metaIsTuple = tuple;
    n->annotated = true;
}

}  // namespace fxray::lowering
