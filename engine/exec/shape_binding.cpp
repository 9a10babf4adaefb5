#include "exec/shape_binding.h"

#include "exec/ops/kernel_util.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace fxray {

bool isSymPlaceholder(const Node& ph) {
    const std::string& a = ph.annotationText;
    return a.size() > 5 && a.compare(0, 4, "Sym(") == 0 && a.back() == ')';
}

std::string symPlaceholderExpr(const Node& ph) {
    if (!isSymPlaceholder(ph)) return {};
    return ph.annotationText.substr(4, ph.annotationText.size() - 5);
}

bool graphIsSymbolic(const Graph& g) {
    for (Node* ph : g.placeholders()) {
        if (isSymPlaceholder(*ph)) return true;
        for (const auto& m : ph->meta)
            if (m.isSymbolic()) return true;
    }
    return false;
}

namespace {

void addSymbols(const SymInt& s, std::vector<std::string>& out) {
    std::set<std::string> free;
    s.freeSymbols(free);
    for (const auto& x : free)
        if (std::find(out.begin(), out.end(), x) == out.end()) out.push_back(x);
}

/// Every symbolic size of a placeholder: its Sym expression (dim -1), its symbolic sizes and
/// strides. A Sym expression that does not parse (the FX reader rejects those; other sources
/// may not) comes as a SymInt holding nothing but its error, for the caller to report.
template <typename F>
void forEachSymText(const Node& ph, F&& f) {
    if (isSymPlaceholder(ph)) {
        auto s = SymInt::parse(symPlaceholderExpr(ph));
        f(s, -1, false);
    }
    if (ph.meta.empty()) return;
    const TensorMeta& m = ph.meta[0];
    for (size_t d = 0; d < m.symShape.size(); ++d)
        if (m.isSymbolicDim(d)) f(Expected<SymInt>(m.symShape[d]), static_cast<int>(d), false);
    for (size_t d = 0; d < m.symStrides.size(); ++d)
        if (m.isSymbolicStride(d)) f(Expected<SymInt>(m.symStrides[d]), static_cast<int>(d), true);
}

std::string inputName(const Graph& g, size_t i) {
    return "input " + std::to_string(i) + " '" + g.placeholders()[i]->name() + "'";
}

/// The value the input gives for one symbolic text, or nullopt when the input has none there.
std::optional<sym::Num> observed(const Value& v, int dim, bool stride) {
    if (dim < 0) {
        if (v.kind == Value::Kind::Int) return sym::Num::ofInt(v.i);
        if (v.kind == Value::Kind::Bool) return sym::Num::ofBool(v.b);
        if (v.kind == Value::Kind::Double) return sym::Num::ofFloat(v.d);
        return std::nullopt;
    }
    if (!v.isTensor() || dim >= v.t.dim()) return std::nullopt;
    if (stride) {
        // A size-1 dimension's stride is arbitrary in PyTorch: it binds nothing.
        if (v.t.shape()[size_t(dim)] <= 1) return std::nullopt;
        return sym::Num::ofInt(v.t.strides()[size_t(dim)]);
    }
    return sym::Num::ofInt(v.t.shape()[size_t(dim)]);
}

/// Solves text == target for its one unbound symbol when the text is linear in it (a*s + b):
/// "4*s23", "s0 + 1", "2*s1 - 2". Returns false when it is not.
bool solveLinear(const sym::Expr& e, const std::string& symName, sym::Binding& b, const sym::Num& target) {
    if (target.isFloat()) return false;
    auto at = [&](int64_t x) -> std::optional<int64_t> {
        sym::Binding t = b;
        t[symName] = sym::Num::ofInt(x);
        auto r = sym::eval(e, t);
        if (!r.ok() || r->isFloat()) return std::nullopt;
        return r->i;
    };
    auto f0 = at(0), f1 = at(1), f2 = at(2);
    if (!f0 || !f1 || !f2) return false;
    int64_t a = *f1 - *f0;
    if (a == 0 || *f2 - *f1 != a || (target.i - *f0) % a != 0) return false;
    int64_t s = (target.i - *f0) / a;
    auto check = at(s);
    if (!check || *check != target.i) return false;
    b[symName] = sym::Num::ofInt(s);
    return true;
}

}  // namespace

std::vector<std::string> inputSymbols(const Graph& g) {
    std::vector<std::string> out;
    for (Node* ph : g.placeholders())
        forEachSymText(*ph, [&](const Expected<SymInt>& s, int, bool) {
            if (s.ok()) addSymbols(*s, out);
        });
    return out;
}

void scalarizeSymInputs(const Graph& g, std::vector<Value>& inputs) {
    auto phs = g.placeholders();
    for (size_t i = 0; i < phs.size() && i < inputs.size(); ++i) {
        Value& v = inputs[i];
        if (!isSymPlaceholder(*phs[i]) || !v.isTensor() || !v.t.hasData() || v.t.numel() != 1) continue;
        const double x = kern::toDoubles(v.t)[0];
        const DType dt = v.t.dtype();
        if (dt == DType::Bool)
            v = Value::ofBool(x != 0.0);
        else if (isFloating(dt))
            v = Value::ofDouble(x);
        else
            v = Value::ofInt(static_cast<int64_t>(x));
    }
}

Expected<sym::Binding> bindInputs(const Graph& g, const std::vector<Value>& inputs, bool withStrides) {
    auto phs = g.placeholders();
    sym::Binding b;
    struct Pending {
        size_t input;
        SymInt size;
        sym::Num value;
    };
    std::vector<Pending> pending;
    // Plain symbols first: they bind directly.
    for (size_t i = 0; i < phs.size() && i < inputs.size(); ++i) {
        forEachSymText(*phs[i], [&](const Expected<SymInt>& s, int dim, bool stride) {
            if ((stride && !withStrides) || !s.ok() || s->isStatic()) return;
            auto v = observed(inputs[i], dim, stride);
            if (!v) return;
            if (s->isSymbol() && !b.count(s->text()))
                b[s->text()] = *v;
            else
                pending.push_back({i, *s, *v});
        });
    }
    // Then expressions with one unbound symbol, until nothing more binds.
    for (bool progress = true; progress;) {
        progress = false;
        for (const auto& p : pending) {
            std::set<std::string> free;
            p.size.freeSymbols(free);
            std::vector<std::string> unbound;
            for (const auto& s : free)
                if (!b.count(s)) unbound.push_back(s);
            if (unbound.size() == 1 && solveLinear(*p.size.expr(), unbound[0], b, p.value)) progress = true;
        }
    }
    // Every placeholder must agree with the binding.
    for (size_t i = 0; i < phs.size() && i < inputs.size(); ++i) {
        std::optional<Diagnostic> bad;
        forEachSymText(*phs[i], [&](const Expected<SymInt>& s, int dim, bool stride) {
            if (bad || (stride && !withStrides)) return;
            const std::string text = s.ok() ? s->text() : symPlaceholderExpr(*phs[i]);
            auto want =
                s.ok() ? (s->isStatic() ? Expected<sym::Num>(sym::Num::ofInt(s->value())) : sym::eval(*s->expr(), b))
                       : Expected<sym::Num>(s.error());
            if (!want.ok()) {
                Diagnostic d = makeError(inputName(g, i) + ": " + text + ": " + want.error().message +
                                         " (no input determines it)");
                bad = d;
                return;
            }
            auto have = observed(inputs[i], dim, stride);
            if (!have) {
                if (dim < 0 || stride) return;
                bad = makeError(inputName(g, i) + " expects a tensor with dimension " + std::to_string(dim) + " (" +
                                text + "), got " + inputs[i].describe());
                return;
            }
            if (want->toDouble() == have->toDouble()) return;
            std::string where =
                dim < 0 ? std::string("its value") : (stride ? "stride " : "size ") + std::to_string(dim);
            bad = makeError(inputName(g, i) + ": " + where + " should be " + text + " = " + want->str() + " (" +
                            sym::bindingStr(b) + "), but the input has " + have->str());
        });
        if (bad) {
            bad->file = g.sourceFile;
            bad->node = phs[i]->name();
            bad->line = phs[i]->sourceLine;
            return *bad;
        }
    }
    return b;
}

namespace {

/// One size or stride under b: the parsed expression evaluated (Python's rules; a float result
/// truncated, as sizes are ints).
Expected<int64_t> evalDim(const SymInt& s, const sym::Binding& b, const char* what, size_t d) {
    auto v = sym::eval(*s.expr(), b);
    if (!v.ok())
        return makeError(std::string(what) + " " + std::to_string(d) + " (" + s.text() + "): " + v.error().message);
    return v->isFloat() ? static_cast<int64_t>(v->d) : v->i;
}

}  // namespace

Expected<TensorMeta> bindMeta(const TensorMeta& m, const sym::Binding& b) {
    TensorMeta out = m;
    for (size_t d = 0; d < m.symShape.size(); ++d) {
        if (!m.isSymbolicDim(d)) continue;
        auto v = evalDim(m.symShape[d], b, "size", d);
        if (!v.ok()) return v.error();
        out.shape[d] = *v;
    }
    for (size_t d = 0; d < m.symStrides.size(); ++d) {
        if (!m.isSymbolicStride(d)) continue;
        auto v = evalDim(m.symStrides[d], b, "stride", d);
        if (!v.ok()) return v.error();
        out.strides[d] = *v;
    }
    out.clearSymbolic();
    if (!m.stridesKnown && m.hasSymbolicSizes()) out.strides = TensorMeta::contiguousStrides(out.shape);
    return out;
}

Expected<sym::Binding> parseSizes(std::string_view text) {
    sym::Binding b;
    size_t p = 0;
    while (p <= text.size()) {
        size_t e = text.find(',', p);
        if (e == std::string_view::npos) e = text.size();
        std::string item(text.substr(p, e - p));
        item.erase(std::remove_if(item.begin(), item.end(), [](unsigned char c) { return std::isspace(c); }),
                   item.end());
        p = e + 1;
        if (item.empty()) continue;
        auto eq = item.find('=');
        std::string name = eq == std::string::npos ? item : item.substr(0, eq);
        std::string val = eq == std::string::npos ? "" : item.substr(eq + 1);
        int64_t v = 0;
        auto [q, ec] = std::from_chars(val.data(), val.data() + val.size(), v);
        if (eq == std::string::npos || !sym::isSymbolName(name) || val.empty() || ec != std::errc() ||
            q != val.data() + val.size() || v < 0)
            return makeError("--sizes: '" + item + "' is not SYMBOL=N (e.g. s23=4)");
        b[name] = sym::Num::ofInt(v);
    }
    return b;
}

sym::Binding completeBinding(const Graph& g, const sym::Binding& given, int64_t fallback,
                             std::vector<std::string>* defaulted) {
    sym::Binding b;
    for (const auto& s : inputSymbols(g)) {
        if (auto it = given.find(s); it != given.end())
            b[s] = it->second;
        else if (auto h = g.symbolHints.find(s); h != g.symbolHints.end())
            b[s] = h->second;
        else {
            b[s] = s.rfind("zf", 0) == 0 ? sym::Num::ofFloat(double(fallback)) : sym::Num::ofInt(fallback);
            if (defaulted) defaulted->push_back(s);
        }
    }
    return b;
}

}  // namespace fxray
