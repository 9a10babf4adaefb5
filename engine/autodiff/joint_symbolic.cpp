#include "autodiff/joint_symbolic.h"

#include "exec/python_scalar_ops.h"
#include "exec/shape_binding.h"
#include "ir/op_registry.h"

#include <algorithm>
#include <array>
#include <functional>
#include <optional>
#include <set>

namespace fxray {

namespace {

constexpr size_t kProbes = 3;

/// A size as a function of the symbols: c * prod(sym^exp) (monomial), or a*sym + b (affine).
struct SymForm {
    bool affine = false;
    int64_t coeff = 1;                              ///< c, or a
    int64_t offset = 0;                             ///< b (affine)
    std::vector<std::pair<std::string, int>> syms;  ///< sorted by name

    std::string text() const {
        std::string t;
        auto term = [&](int64_t c) {
            std::string s = c == 1 ? "" : c == -1 ? "-" : std::to_string(c) + "*";
            for (size_t i = 0; i < syms.size(); ++i) {
                s += (i ? "*" : "") + syms[i].first;
                if (syms[i].second > 1) s += "**" + std::to_string(syms[i].second);
            }
            return s;
        };
        t = term(coeff);
        if (affine && offset != 0) t += offset > 0 ? " + " + std::to_string(offset) : " - " + std::to_string(-offset);
        return t;
    }
};

/// Per probe: the binding and the values of the symbols in it.
struct Probes {
    std::vector<std::string> symbols;
    /// The symbolic texts of the forward graph's annotations ("((s53 - 1)//2) + 1"), parsed:
    /// sizes no monomial describes are looked up among them.
    std::vector<std::pair<std::string, sym::ExprPtr>> candidates;
    std::array<sym::Binding, kProbes> bindings;
    int64_t value(size_t probe, const std::string& s) const { return bindings[probe].at(s).i; }
};

/// Every integer that is a static size or stride of a placeholder, or an integer argument of the
/// graph: probe values avoid them, so a probe prime found in a size comes from a symbol.
std::set<int64_t> staticIntegers(const Graph& g) {
    std::set<int64_t> out;
    for (const auto& n : g.nodes()) {
        for (const auto& m : n->meta) {
            for (auto v : m.shape) out.insert(v);
            for (auto v : m.strides) out.insert(v);
        }
        std::function<void(const Argument&)> walk = [&](const Argument& a) {
            if (a.kind == Argument::Kind::Int) out.insert(a.i < 0 ? -a.i : a.i);
            if (a.isSequence())
                for (const auto& it : a.items) walk(it);
        };
        for (const auto& a : n->args) walk(a);
    }
    return out;
}

/// Distinct primes per symbol and probe (a product of them factors uniquely), none a factor of
/// a static size.
Expected<Probes> chooseProbes(const Graph& g, int64_t minPrime) {
    Probes p;
    p.symbols = inputSymbols(g);
    const auto avoid = staticIntegers(g);
    // Probe k takes primes from minPrime * 2^k on: far apart, so that a size divided down by a
    // stack of strided convolutions (ceil(s/32)) still differs between the probes.
    std::set<int64_t> used;
    for (size_t k = 0; k < kProbes; ++k) {
        int64_t v = minPrime << k;
        for (const auto& s : p.symbols) {
            for (;; ++v) {
                if (v > (int64_t(1) << 20)) return makeError("cannot choose probe sizes for the symbols");
                bool prime = v > 1;
                for (int64_t d = 2; d * d <= v && prime; ++d) prime = v % d != 0;
                bool divides = false;  // a static size with this factor could be mistaken for a symbol
                for (auto x : avoid) divides = divides || (x > 0 && x % v == 0);
                if (prime && !divides && !used.count(v)) break;
            }
            used.insert(v);
            p.bindings[k][s] = sym::Num::ofInt(v);
        }
    }
    std::set<std::string> seen;
    std::function<void(const Graph&)> collect = [&](const Graph& sub) {
        for (const auto& n : sub.nodes()) {
            std::vector<SymInt> sizes;
            for (const auto& m : n->meta) {
                sizes.insert(sizes.end(), m.symShape.begin(), m.symShape.end());
                sizes.insert(sizes.end(), m.symStrides.begin(), m.symStrides.end());
            }
            if (std::string e = symPlaceholderExpr(*n); !e.empty())
                if (auto s = SymInt::parse(e); s.ok()) sizes.push_back(*s);
            for (const auto& s : sizes) {
                if (s.isStatic() || !seen.insert(s.text()).second) continue;
                std::set<std::string> free;
                s.freeSymbols(free);
                if (!free.empty()) p.candidates.emplace_back(s.text(), s.expr());
            }
        }
        for (const auto& [k, sg] : sub.subgraphs()) collect(*sg);
    };
    collect(g);
    return p;
}

/// The forward graph with every annotation bound (static sizes) and the values of its SymInt
/// nodes under `b`.
Expected<std::unique_ptr<Graph>> specialize(const Graph& fwd, const sym::Binding& b, SymValues& values) {
    auto g = fwd.clone();
    std::function<Status(Graph&)> bindAll = [&](Graph& sub) -> Status {
        for (const auto& n : sub.nodes())
            for (auto& m : n->meta)
                if (m.isSymbolic()) {
                    auto r = bindMeta(m, b);
                    if (!r.ok()) {
                        Diagnostic d = r.error();
                        d.node = n->name();
                        return d;
                    }
                    m = std::move(r).value();
                }
        for (auto& [k, s] : sub.subgraphs())
            if (auto st = bindAll(*s); !st.ok()) return st;
        return {};
    };
    if (auto st = bindAll(*g); !st.ok()) return st.error();

    std::map<const Node*, sym::Num> byNode;
    auto numOf = [&](const Argument& a) -> std::optional<sym::Num> {
        if (a.kind == Argument::Kind::Int) return sym::Num::ofInt(a.i);
        if (a.kind == Argument::Kind::Bool) return sym::Num::ofBool(a.b);
        if (a.kind == Argument::Kind::Float) return sym::Num::ofFloat(a.f);
        if (a.isNode())
            if (auto it = byNode.find(a.node); it != byNode.end()) return it->second;
        return std::nullopt;
    };
    auto valueOf = [](const sym::Num& n) {
        return n.isFloat()                      ? Value::ofDouble(n.d)
               : n.kind == sym::Num::Kind::Bool ? Value::ofBool(n.i != 0)
                                                : Value::ofInt(n.i);
    };
    for (const auto& up : g->nodes()) {
        Node& n = *up;
        std::optional<sym::Num> v;
        std::string ann = symPlaceholderExpr(n);
        if (!ann.empty()) {
            // A data-dependent value (`.item()` -> "Sym(zf85)") has no value under a binding of
            // the size symbols: it stays a traced node.
            auto r = sym::evalText(ann, b);
            if (r.ok())
                v = *r;
            else if (n.kind() == NodeKind::Placeholder) {
                Diagnostic d = r.error();
                d.node = n.name();
                return d;
            }
        } else if (n.kind() == NodeKind::CallFunction && isPythonScalarOp(n.target())) {
            std::vector<Value> args;
            bool all = true;
            for (const auto& a : n.args) {
                auto x = numOf(a);
                all = all && x.has_value();
                args.push_back(x ? valueOf(*x) : Value::none());
            }
            if (all)
                if (auto r = callPythonScalarOp(n.target(), args); r && r->ok()) {
                    const Value& x = **r;
                    if (x.kind == Value::Kind::Int)
                        v = sym::Num::ofInt(x.i);
                    else if (x.kind == Value::Kind::Double)
                        v = sym::Num::ofFloat(x.d);
                    else if (x.kind == Value::Kind::Bool)
                        v = sym::Num::ofBool(x.b);
                }
        } else if (n.isOpCall() && n.args.size() >= 2 && n.args[0].isNode() && !n.args[0].node->meta.empty() &&
                   (n.opName() == "aten.sym_size.int" || n.opName() == "aten.sym_stride.int")) {
            const TensorMeta& m = n.args[0].node->meta[0];
            auto d = numOf(n.args[1]);
            const auto& dims = n.opName() == "aten.sym_size.int" ? m.shape : m.strides;
            if (d) {
                int64_t i = d->i < 0 ? d->i + static_cast<int64_t>(dims.size()) : d->i;
                if (i >= 0 && i < static_cast<int64_t>(dims.size())) v = sym::Num::ofInt(dims[static_cast<size_t>(i)]);
            }
        } else if (n.isOpCall() && n.opName() == "aten.sym_numel.default" && !n.args.empty() && n.args[0].isNode() &&
                   !n.args[0].node->meta.empty()) {
            v = sym::Num::ofInt(n.args[0].node->meta[0].numel());
        }
        if (!v) continue;
        byNode[&n] = *v;
        values[n.name()] = *v;
    }
    return g;
}

std::optional<SymForm> solveForm(const Probes& p, const std::array<int64_t, kProbes>& v);

/// The text of a size whose values at the probes are `v`: a monomial, one of the forward's own
/// symbolic texts, or an affine form.
std::optional<std::string> solve(const Probes& p, const std::array<int64_t, kProbes>& v) {
    if (auto f = solveForm(p, v); f && !f->affine) return f->text();
    for (const auto& [text, e] : p.candidates) {
        bool fits = true;
        for (size_t k = 0; k < kProbes && fits; ++k) {
            auto r = sym::eval(*e, p.bindings[k]);
            fits = r.ok() && !r->isFloat() && r->i == v[k];
        }
        if (fits) return text;
    }
    if (auto f = solveForm(p, v)) return f->text();
    return std::nullopt;
}

std::optional<SymForm> solveForm(const Probes& p, const std::array<int64_t, kProbes>& v) {
    // Monomial: factor the first probe's value over its primes, check the others.
    if (v[0] != 0) {
        SymForm f;
        int64_t rest = v[0];
        for (const auto& s : p.symbols) {
            const int64_t q = p.value(0, s);
            int e = 0;
            while (rest % q == 0) {
                rest /= q;
                ++e;
            }
            if (e) f.syms.emplace_back(s, e);
        }
        f.coeff = rest;
        bool fits = !f.syms.empty();
        for (size_t k = 1; k < kProbes && fits; ++k) {
            double x = static_cast<double>(f.coeff);  // exact below 2^53, and sizes are far below
            for (const auto& [s, e] : f.syms)
                for (int i = 0; i < e; ++i) x *= static_cast<double>(p.value(k, s));
            fits = x == static_cast<double>(v[k]);
        }
        if (fits) {
            std::sort(f.syms.begin(), f.syms.end());
            return f;
        }
    }
    // Affine in one symbol.
    for (const auto& s : p.symbols) {
        const int64_t x0 = p.value(0, s), x1 = p.value(1, s);
        if ((v[0] - v[1]) % (x0 - x1) != 0) continue;
        SymForm f;
        f.affine = true;
        f.coeff = (v[0] - v[1]) / (x0 - x1);
        f.offset = v[0] - f.coeff * x0;
        f.syms = {{s, 1}};
        bool fits = f.coeff != 0;
        for (size_t k = 2; k < kProbes && fits; ++k) fits = f.coeff * p.value(k, s) + f.offset == v[k];
        if (fits) return f;
    }
    return std::nullopt;
}

/// Turns the first probe's joint graph into the symbolic one.
class Symbolizer {
public:
    Symbolizer(const Probes& p, std::array<Graph*, kProbes> g) : m_p(p), m_g(g) {}

    Status run() {
        std::array<std::vector<Node*>, kProbes> nodes;
        for (size_t k = 0; k < kProbes; ++k)
            for (const auto& n : m_g[k]->nodes()) nodes[k].push_back(n.get());
        for (size_t k = 1; k < kProbes; ++k)
            if (nodes[k].size() != nodes[0].size())
                return makeError("the joint graph's structure depends on the sizes (" +
                                 std::to_string(nodes[0].size()) + " nodes at one binding, " +
                                 std::to_string(nodes[k].size()) + " at another)");
        for (size_t i = 0; i < nodes[0].size(); ++i) {
            Node* n = nodes[0][i];
            for (size_t k = 1; k < kProbes; ++k)
                if (nodes[k][i]->target() != n->target() || nodes[k][i]->name() != n->name()) {
                    Diagnostic d =
                        makeError("the joint graph's structure depends on the sizes: '" + nodes[k][i]->name() +
                                  "' at one binding where '" + n->name() + "' is at another");
                    d.node = n->name();
                    return d;
                }
            if (n->kind() == NodeKind::Placeholder && !n->annotationText.empty() && n->meta.empty()) {
                std::string e = symPlaceholderExpr(*n);
                if (sym::isSymbolName(e)) m_symbolNode.emplace(e, n);
            }
        }
        for (size_t i = 0; i < nodes[0].size(); ++i) {
            Node* n = nodes[0][i];
            std::array<const Node*, kProbes> at{};
            for (size_t k = 0; k < kProbes; ++k) at[k] = nodes[k][i];
            if (auto st = symbolizeMeta(n, at); !st.ok()) return st;
            if (n->kind() == NodeKind::Placeholder) {
                if (m_firstOp == nullptr) continue;
            } else if (m_firstOp == nullptr) {
                m_firstOp = n;
            }
            for (size_t a = 0; a < n->args.size(); ++a) {
                std::array<const Argument*, kProbes> args{};
                for (size_t k = 0; k < kProbes; ++k) args[k] = &at[k]->args[a];
                if (auto st = symbolizeArg(n, n->args[a], args); !st.ok()) return st;
            }
            for (size_t a = 0; a < n->kwargs.size(); ++a) {
                std::array<const Argument*, kProbes> args{};
                for (size_t k = 0; k < kProbes; ++k) args[k] = &at[k]->kwargs[a].second;
                if (auto st = symbolizeArg(n, n->kwargs[a].second, args); !st.ok()) return st;
            }
        }
        return {};
    }

private:
    const Probes& m_p;
    std::array<Graph*, kProbes> m_g;
    std::map<std::string, Node*> m_symbolNode;  ///< symbol -> SymInt node holding it
    std::map<std::string, Node*> m_exprNode;    ///< form text -> node computing it
    Node* m_firstOp = nullptr;

    Diagnostic fail(const Node* n, const std::string& what, const std::array<int64_t, kProbes>& v) const {
        std::string vals;
        for (size_t k = 0; k < kProbes; ++k)
            vals += (k ? ", " : "") + std::to_string(v[k]) + " at " + sym::bindingStr(m_p.bindings[k]);
        Diagnostic d =
            makeError(what + " of the joint graph depends on the sizes in a way fxray cannot express (" + vals + ")");
        d.node = n->name();
        return d;
    }

    Status symbolizeMeta(Node* n, const std::array<const Node*, kProbes>& at) {
        for (size_t m = 0; m < n->meta.size(); ++m) {
            TensorMeta& meta = n->meta[m];
            // Every size and stride that changes between the probes becomes the expression that
            // takes its values there (its text as sympy would print it, parsed here once).
            auto symbolic = [&](const std::string& what, size_t d,
                                const std::array<int64_t, kProbes>& v) -> Expected<std::optional<SymInt>> {
                if (v[0] == v[1] && v[0] == v[2]) return std::optional<SymInt>();
                auto f = solve(m_p, v);
                if (!f) return fail(n, what + " " + std::to_string(d), v);
                auto s = SymInt::parse(*f);
                if (!s.ok()) return fail(n, what + " " + std::to_string(d) + " ('" + *f + "')", v);
                return std::optional<SymInt>(*s);
            };
            for (size_t d = 0; d < meta.shape.size(); ++d) {
                std::array<int64_t, kProbes> v{};
                for (size_t k = 0; k < kProbes; ++k) v[k] = at[k]->meta[m].shape[d];
                auto s = symbolic("size", d, v);
                if (!s.ok()) return s.error();
                if (*s) meta.setSize(d, **s);
            }
            for (size_t d = 0; d < meta.strides.size(); ++d) {
                std::array<int64_t, kProbes> v{};
                for (size_t k = 0; k < kProbes; ++k) v[k] = at[k]->meta[m].strides[d];
                auto s = symbolic("stride", d, v);
                if (!s.ok()) return s.error();
                if (*s) meta.setStride(d, **s);
            }
        }
        return {};
    }

    Status symbolizeArg(Node* user, Argument& a, const std::array<const Argument*, kProbes>& at) {
        if (a.kind == Argument::Kind::Int) {
            std::array<int64_t, kProbes> v{};
            for (size_t k = 0; k < kProbes; ++k) v[k] = at[k]->kind == Argument::Kind::Int ? at[k]->i : v[0] + 1;
            if (v[0] == v[1] && v[0] == v[2]) return {};
            auto f = solve(m_p, v);
            if (!f) return fail(user, "an integer argument", v);
            auto n = nodeFor(*f, user);
            if (!n.ok()) return n.error();
            a = Argument::ofNode(*n);
            return {};
        }
        if (a.isSequence()) {
            for (size_t i = 0; i < a.items.size(); ++i) {
                std::array<const Argument*, kProbes> items{};
                for (size_t k = 0; k < kProbes; ++k) {
                    if (!at[k]->isSequence() || at[k]->items.size() != a.items.size()) {
                        Diagnostic d = makeError("an argument's length depends on the sizes");
                        d.node = user->name();
                        return d;
                    }
                    items[k] = &at[k]->items[i];
                }
                if (auto st = symbolizeArg(user, a.items[i], items); !st.ok()) return st;
            }
            return {};
        }
        if (a.kind == Argument::Kind::Float) {
            bool same = true;
            for (size_t k = 1; k < kProbes; ++k) same = same && at[k]->kind == a.kind && at[k]->f == a.f;
            if (!same) {
                Diagnostic d = makeError("a floating-point argument depends on the sizes; fxray cannot express it yet");
                d.node = user->name();
                return d;
            }
        }
        return {};
    }

    Node* insertSym(Node* before, const std::string& base, const std::string& target, std::vector<Argument> args,
                    const std::string& text) {
        Graph& g = *m_g[0];
        Node* n = g.insertBefore(before, NodeKind::CallFunction, g.uniqueName(base), target);
        n->args = std::move(args);
        n->annotationText = "Sym(" + text + ")";
        if (target.rfind("torch.ops.", 0) == 0) n->setOp(OpRegistry::instance().find(target.substr(10)));
        return n;
    }

    /// The node holding a symbol: its Sym primal, else `sym_size` of a tensor primal sized by it.
    Expected<Node*> symbolNode(const std::string& s) {
        if (auto it = m_symbolNode.find(s); it != m_symbolNode.end()) return it->second;
        for (Node* ph : m_g[0]->placeholders()) {
            if (ph->meta.empty()) continue;
            const auto& ss = ph->meta[0].symShape;
            for (size_t d = 0; d < ss.size(); ++d)
                if (ss[d].isSymbol() && ss[d].text() == s) {
                    Node* n = insertSym(m_firstOp, "sym_size_int", "torch.ops.aten.sym_size.int",
                                        {Argument::ofNode(ph), Argument::ofInt(static_cast<int64_t>(d))}, s);
                    m_symbolNode[s] = n;
                    return n;
                }
        }
        return makeError("no input of the joint graph holds the symbol " + s);
    }

    /// A node computing the expression `text`, created before `user` (its first use: later uses
    /// follow it).
    Expected<Node*> nodeFor(const std::string& text, Node* user) {
        if (auto it = m_exprNode.find(text); it != m_exprNode.end()) return it->second;
        auto e = sym::parse(text);
        if (!e.ok()) return e.error();
        auto n = emit(**e, user);
        if (!n.ok()) return n.error();
        if (!n->isNode()) return makeError("internal error: the size " + text + " is a constant");
        m_exprNode[text] = n->node;
        return n->node;
    }

    /// Emits an expression as SymInt arithmetic (`operator.mul`, ...): a node, or a number.
    Expected<Argument> emit(const sym::Expr& e, Node* user) {
        using K = sym::Expr::Kind;
        if (e.kind == K::Number) {
            if (e.value.isFloat()) return Argument::ofFloat(e.value.d);
            return Argument::ofInt(e.value.i);
        }
        if (e.kind == K::Symbol) {
            auto n = symbolNode(e.name);
            if (!n.ok()) return n.error();
            return Argument::ofNode(*n);
        }
        static const std::map<std::string, std::pair<std::string, std::string>> ops = {
            {"+", {"add", "operator.add"}},
            {"-", {"sub", "operator.sub"}},
            {"*", {"mul", "operator.mul"}},
            {"//", {"floordiv", "operator.floordiv"}},
            {"FloorDiv", {"floordiv", "operator.floordiv"}},
            {"%", {"mod", "operator.mod"}},
            {"Mod", {"mod", "operator.mod"}},
            {"**", {"pow", "operator.pow"}},
            {"-u", {"neg", "operator.neg"}},
        };
        auto op = ops.find(e.name);
        if (op == ops.end() || (e.kind == K::Call && e.args.size() != 2))
            return makeError("the size expression's '" + e.name + "' has no SymInt form in fxray");
        std::vector<Argument> args;
        for (const auto& a : e.args) {
            auto x = emit(*a, user);
            if (!x.ok()) return x;
            args.push_back(*x);
        }
        std::string text = exprText(e);
        if (auto it = m_exprNode.find(text); it != m_exprNode.end()) return Argument::ofNode(it->second);
        Node* n = insertSym(user, op->second.first, op->second.second, std::move(args), text);
        m_exprNode[text] = n;
        return Argument::ofNode(n);
    }

    static std::string exprText(const sym::Expr& e) {
        using K = sym::Expr::Kind;
        switch (e.kind) {
        case K::Number: return e.value.str();
        case K::Symbol: return e.name;
        case K::Unary: return "-" + exprText(*e.args[0]);
        case K::Binary: {
            auto side = [](const sym::Expr& x) {
                std::string t = exprText(x);
                return x.kind == K::Binary ? "(" + t + ")" : t;
            };
            return side(*e.args[0]) + (e.name == "+" || e.name == "-" ? " " + e.name + " " : e.name) + side(*e.args[1]);
        }
        case K::Call: {
            std::string t = e.name + "(";
            for (size_t i = 0; i < e.args.size(); ++i) t += (i ? ", " : "") + exprText(*e.args[i]);
            return t + ")";
        }
        }
        return {};
    }
};

/// The joint graph traced at probes of primes from `minPrime` on.
Expected<JointGraph> buildAt(const Graph& fwd, const JointOptions& opts, int64_t minPrime) {
    auto probes = chooseProbes(fwd, minPrime);
    if (!probes.ok()) return probes.error();
    std::array<std::unique_ptr<Graph>, kProbes> specialized;
    std::array<JointGraph, kProbes> joints;
    for (size_t k = 0; k < kProbes; ++k) {
        SymValues values;
        auto g = specialize(fwd, probes->bindings[k], values);
        if (!g.ok()) {
            Diagnostic d = g.error();
            if (d.file.empty()) d.file = fwd.sourceFile;
            return d;
        }
        specialized[k] = std::move(g).value();
        auto j = buildJointGraphAt(*specialized[k], opts, values);
        if (!j.ok()) {
            Diagnostic d = j.error();
            d.message += " (traced at " + sym::bindingStr(probes->bindings[k]) + ")";
            return d;
        }
        joints[k] = std::move(j).value();
    }
    Symbolizer s(*probes, {joints[0].graph.get(), joints[1].graph.get(), joints[2].graph.get()});
    if (auto st = s.run(); !st.ok()) {
        Diagnostic d = st.error();
        if (d.file.empty()) d.file = fwd.sourceFile;
        return d;
    }
    Graph& g = *joints[0].graph;
    g.rebuildUsers();
    g.renumber();
    if (auto st = g.verify(); !st.ok()) {
        Diagnostic d = st.error();
        d.message = "internal error: the symbolic joint graph does not verify: " + d.message;
        return d;
    }
    return std::move(joints[0]);
}

Diagnostic unfaithful(const Node& n, const std::string& what, const sym::Binding& b) {
    Diagnostic d = makeError("the symbolic joint graph does not reproduce the joint graph traced at " +
                             sym::bindingStr(b) + ": " + what);
    d.node = n.name();
    return d;
}

/// Evaluates a SymInt argument of the symbolic graph (a node with a `Sym(expr)` annotation).
std::optional<int64_t> symArgValue(const Argument& a, const sym::Binding& b) {
    if (a.kind == Argument::Kind::Int) return a.i;
    if (!a.isNode() || !a.node) return std::nullopt;
    std::string e = symPlaceholderExpr(*a.node);
    if (e.empty()) return std::nullopt;
    auto r = sym::evalText(e, b);
    if (!r.ok() || r->isFloat()) return std::nullopt;
    return r->i;
}

bool sameArg(const Argument& sa, const Argument& ca, const sym::Binding& b) {
    if (ca.kind == Argument::Kind::Int) {
        auto v = symArgValue(sa, b);
        return v && *v == ca.i;
    }
    if (ca.isSequence()) {
        if (!sa.isSequence() || sa.items.size() != ca.items.size()) return false;
        for (size_t i = 0; i < ca.items.size(); ++i)
            if (!sameArg(sa.items[i], ca.items[i], b)) return false;
    }
    return true;
}

/// The symbolic joint graph, bound at `b`, is the joint graph traced at `b`: every traced node
/// is there with the same sizes, strides and integer arguments. Catches sizes the probes saw as
/// constant that are not (a size clamped to a table's length, one that reached 1).
Status checkAt(const Graph& symbolic, const Graph& fwd, const JointOptions& opts, const sym::Binding& b) {
    SymValues values;
    auto spec = specialize(fwd, b, values);
    if (!spec.ok()) return spec.error();
    auto concrete = buildJointGraphAt(**spec, opts, values);
    if (!concrete.ok()) return concrete.error();
    std::map<std::string, const Node*> byName;
    for (const auto& n : symbolic.nodes()) byName[n->name()] = n.get();
    size_t matched = 0;
    for (const auto& up : concrete->graph->nodes()) {
        const Node& c = *up;
        auto it = byName.find(c.name());
        if (it == byName.end() || it->second->target() != c.target()) return unfaithful(c, "a node differs", b);
        const Node& sn = *it->second;
        ++matched;
        if (sn.meta.size() != c.meta.size()) return unfaithful(c, "a value differs", b);
        for (size_t m = 0; m < c.meta.size(); ++m) {
            auto bound = bindMeta(sn.meta[m], b);
            if (!bound.ok()) return unfaithful(c, bound.error().message, b);
            if (bound->shape != c.meta[m].shape || bound->strides != c.meta[m].strides)
                return unfaithful(c,
                                  "its sizes are " + c.meta[m].annotation(true, false) + ", the symbolic graph's " +
                                      bound->annotation(true, false),
                                  b);
        }
        if (sn.args.size() != c.args.size()) return unfaithful(c, "its arguments differ", b);
        for (size_t a = 0; a < c.args.size(); ++a)
            if (!sameArg(sn.args[a], c.args[a], b))
                return unfaithful(c, "argument " + std::to_string(a) + " differs", b);
    }
    (void)matched;
    return Status::success();
}

/// Builds at probes from `minPrime` on and checks the result at a binding from `checkPrime` on.
Expected<JointGraph> buildChecked(const Graph& fwd, const JointOptions& opts, int64_t minPrime, int64_t checkPrime) {
    auto j = buildAt(fwd, opts, minPrime);
    if (!j.ok()) return j;
    auto check = chooseProbes(fwd, checkPrime);
    if (!check.ok()) return check.error();
    if (auto st = checkAt(*j->graph, fwd, opts, check->bindings[0]); !st.ok()) {
        Diagnostic d = st.error();
        if (d.file.empty()) d.file = fwd.sourceFile;
        return d;
    }
    return j;
}

}  // namespace

Expected<JointGraph> buildSymbolicJoint(const Graph& fwd, const JointOptions& opts) {
    // Large probes first: sizes that shrink through strided convolutions and pooling must not
    // reach 1 (or agree across probes) on the way. The result is checked at smaller sizes, where
    // a size clamped to a bound (a table of 64 positions) shows; graphs like that are traced
    // again at small probes and checked at large sizes.
    auto large = buildChecked(fwd, opts, 101, 37);
    if (large.ok()) return large;
    auto small = buildChecked(fwd, opts, 5, 211);
    if (small.ok()) return small;
    return large.error();
}

}  // namespace fxray
