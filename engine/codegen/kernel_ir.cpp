#include "codegen/kernel_ir.h"

#include <algorithm>
#include <cassert>
#include <limits>
#include <numeric>
#include <optional>
#include <sstream>

namespace fxray::cg {

namespace {

constexpr int64_t kWide = int64_t(1) << 40;

bool sameAtom(const IndexAtom& a, const IndexAtom& b);

bool sameIndex(const Index& a, const Index& b) {
    if (a == b) return true;
    if (!a || !b || a->c != b->c || a->terms.size() != b->terms.size()) return false;
    for (size_t i = 0; i < a->terms.size(); ++i)
        if (a->terms[i].first != b->terms[i].first || !sameAtom(a->terms[i].second, b->terms[i].second)) return false;
    return true;
}

bool sameAtom(const IndexAtom& a, const IndexAtom& b) {
    if (a.kind != b.kind) return false;
    switch (a.kind) {
    case IndexAtom::Kind::Var: return a.var == b.var;
    case IndexAtom::Kind::FloorDiv:
    case IndexAtom::Kind::Mod: return a.divisor == b.divisor && sameIndex(a.arg, b.arg);
    case IndexAtom::Kind::Value: return a.value == b.value;
    }
    return false;
}

/// Ordering key so that terms are kept sorted (vars by dim first, then other atoms).
int64_t atomKey(const IndexAtom& a) {
    switch (a.kind) {
    case IndexAtom::Kind::Var: return a.var;
    case IndexAtom::Kind::FloorDiv: return 1000000 + a.divisor;
    case IndexAtom::Kind::Mod: return 2000000 + a.divisor;
    case IndexAtom::Kind::Value: return 3000000;
    }
    return 0;
}

std::pair<int64_t, int64_t> atomBounds(const IndexAtom& a) {
    switch (a.kind) {
    case IndexAtom::Kind::Var: return {0, a.extent - 1};
    case IndexAtom::Kind::FloorDiv: {
        auto [lo, hi] = indexBounds(a.arg);
        return {lo >= 0 ? lo / a.divisor : -kWide, hi >= 0 ? hi / a.divisor : 0};
    }
    case IndexAtom::Kind::Mod: return {0, a.divisor - 1};
    case IndexAtom::Kind::Value: return {-kWide, kWide};
    }
    return {-kWide, kWide};
}

Index make(int64_t c, std::vector<std::pair<int64_t, IndexAtom>> terms) {
    // Merge equal atoms, drop zero coefficients, keep a stable order.
    std::vector<std::pair<int64_t, IndexAtom>> out;
    for (auto& t : terms) {
        if (t.first == 0) continue;
        bool merged = false;
        for (auto& o : out)
            if (sameAtom(o.second, t.second)) {
                o.first += t.first;
                merged = true;
                break;
            }
        if (!merged) out.push_back(std::move(t));
    }
    out.erase(std::remove_if(out.begin(), out.end(), [](const auto& t) { return t.first == 0; }), out.end());
    // k*m*floor(X/m) + k*(X mod m) = k*X (truncating / and % satisfy it too): a view of a dense
    // tensor split a flat index into a dim's quotient and remainder and put them back together;
    // without this every element of such a kernel paid a 64-bit division and a remainder.
    // X may itself be floor(Y/d), whose floor(X/m) idiv keeps as floor(Y/(d*m)): a dim split in
    // three ([1152] as [3, 6, 64]) puts back 384*(x//384) + 64*((x//64) % 6) + x % 64.
    auto sameQuotient = [](const IndexAtom& div, const IndexAtom& mod) {
        if (mod.divisor == div.divisor && sameIndex(mod.arg, div.arg)) return true;
        const Index& x = mod.arg;
        if (x->c != 0 || x->terms.size() != 1 || x->terms[0].first != 1) return false;
        const IndexAtom& inner = x->terms[0].second;
        return inner.kind == IndexAtom::Kind::FloorDiv && div.divisor == inner.divisor * mod.divisor &&
               sameIndex(inner.arg, div.arg);
    };
    for (size_t i = 0; i < out.size(); ++i) {
        const auto& [kd, div] = out[i];
        if (div.kind != IndexAtom::Kind::FloorDiv) continue;
        for (size_t j = 0; j < out.size(); ++j) {
            const auto& [km, mod] = out[j];
            if (mod.kind != IndexAtom::Kind::Mod || kd != km * mod.divisor || !sameQuotient(div, mod)) continue;
            const Index x = mod.arg;
            const int64_t k = km;
            std::vector<std::pair<int64_t, IndexAtom>> rest;
            for (size_t t = 0; t < out.size(); ++t)
                if (t != i && t != j) rest.push_back(std::move(out[t]));
            for (const auto& [coef, atom] : x->terms) rest.push_back({coef * k, atom});
            return make(c + x->c * k, std::move(rest));
        }
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const auto& x, const auto& y) { return atomKey(x.second) < atomKey(y.second); });
    auto n = std::make_shared<IndexNode>();
    n->c = c;
    n->terms = std::move(out);
    return n;
}

int64_t floorDiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

}  // namespace

Index iconst(int64_t c) { return make(c, {}); }

Index ivar(int var, int64_t extent) {
    if (extent <= 1) return iconst(0);
    IndexAtom a;
    a.kind = IndexAtom::Kind::Var;
    a.var = var;
    a.extent = extent;
    return make(0, {{1, a}});
}

Index iadd(const Index& a, const Index& b) {
    auto terms = a->terms;
    terms.insert(terms.end(), b->terms.begin(), b->terms.end());
    return make(a->c + b->c, std::move(terms));
}

Index imul(const Index& a, int64_t k) {
    auto terms = a->terms;
    for (auto& t : terms) t.first *= k;
    return make(a->c * k, std::move(terms));
}

std::pair<int64_t, int64_t> indexBounds(const Index& i) {
    int64_t lo = i->c, hi = i->c;
    for (const auto& [coef, atom] : i->terms) {
        auto [alo, ahi] = atomBounds(atom);
        if (alo <= -kWide || ahi >= kWide) return {-kWide, kWide};
        if (coef > 0)
            lo += coef * alo, hi += coef * ahi;
        else
            lo += coef * ahi, hi += coef * alo;
    }
    return {lo, hi};
}

namespace {

/// The constant c' = c - q d (q an integer) that leaves c' + terms within [0, d) at its lowest:
/// the emitted code divides with C's truncating / and %, right only for non-negative operands, so
/// what stays inside a FloorDiv or Mod atom must not go below 0 (a flip's 124 - x0 split as
/// 100 + (24 - x0) read (24 - x0) / 25 as 0 for x0 in 25..48, not -1). Nullopt when the terms'
/// bounds are unknown (data-dependent atoms).
std::optional<int64_t> nonNegativeConstant(int64_t c, const std::vector<std::pair<int64_t, IndexAtom>>& terms,
                                           int64_t d) {
    const int64_t lo = indexBounds(make(0, terms)).first;
    if (lo <= -kWide) return std::nullopt;
    return c - floorDiv(c + lo, d) * d;
}

/// An index atom of kind k (FloorDiv or Mod) over arg.
Index atomOf(IndexAtom::Kind k, Index arg, int64_t d) {
    IndexAtom at;
    at.kind = k;
    at.arg = std::move(arg);
    at.divisor = d;
    return make(0, {{1, at}});
}

}  // namespace

namespace {

/// rem = g*A + B with g > 1 a common factor of d and of A's coefficients and B within [0, g):
/// then floor(rem / d) = floor(A / (d/g)) and rem mod d = g*(A mod d/g) + B. (A view of a dense
/// [16, 197, 1536] tensor as [3152, 1536] divides x0*1536 + x1 by 302592: x0 // 197.)
struct FactorSplit {
    int64_t g = 0;
    Index a, b;
};
std::optional<FactorSplit> commonFactor(const Index& rem, int64_t d) {
    for (const auto& [coef, atom] : rem->terms) {
        (void)atom;
        const int64_t g = std::gcd(coef < 0 ? -coef : coef, d);
        if (g <= 1 || g == d) continue;
        std::vector<std::pair<int64_t, IndexAtom>> big, small;
        for (const auto& t : rem->terms) (t.first % g == 0 ? big : small).push_back(t);
        Index b = make(rem->c, std::move(small));
        auto [lo, hi] = indexBounds(b);
        if (lo < 0 || hi >= g) continue;
        for (auto& t : big) t.first /= g;
        Index a = make(0, std::move(big));
        if (indexBounds(a).first < 0) continue;
        return FactorSplit{g, a, b};
    }
    return std::nullopt;
}

}  // namespace

Index idiv(const Index& a, int64_t d) {
    // A divisor of 0 comes only from a size-0 dim: the tensor is empty and nothing is loaded.
    if (d <= 0) return iconst(0);
    if (d == 1) return a;
    // a = E + R with E a multiple of d: floor(a/d) = E/d + floor(R/d), R kept >= 0.
    std::vector<std::pair<int64_t, IndexAtom>> exact, rest;
    for (const auto& t : a->terms) {
        if (t.first % d == 0)
            exact.push_back({t.first / d, t.second});
        else
            rest.push_back(t);
    }
    const auto r = nonNegativeConstant(a->c, rest, d);
    if (!r) return atomOf(IndexAtom::Kind::FloorDiv, a, d);  // a itself is >= 0
    Index e = make((a->c - *r) / d, std::move(exact));
    Index rem = make(*r, std::move(rest));
    auto [lo, hi] = indexBounds(rem);
    if (lo >= 0 && hi < d) return e;
    // floor(floor(x/a)/b) = floor(x/(a*b))
    if (rem->c == 0 && rem->terms.size() == 1 && rem->terms[0].first == 1 &&
        rem->terms[0].second.kind == IndexAtom::Kind::FloorDiv)
        return iadd(e, idiv(rem->terms[0].second.arg, rem->terms[0].second.divisor * d));
    if (auto f = commonFactor(rem, d)) return iadd(e, idiv(f->a, d / f->g));
    return iadd(e, atomOf(IndexAtom::Kind::FloorDiv, rem, d));
}

Index imod(const Index& a, int64_t d) {
    if (d <= 0) return iconst(0);  // as idiv: an empty tensor's coordinates
    if (d == 1) return iconst(0);
    // Multiples of d drop out; the rest is shifted by a multiple of d to stay >= 0.
    std::vector<std::pair<int64_t, IndexAtom>> rest;
    for (const auto& t : a->terms)
        if (t.first % d != 0) rest.push_back(t);
    const auto r = nonNegativeConstant(a->c, rest, d);
    if (!r) return atomOf(IndexAtom::Kind::Mod, a, d);  // a itself is >= 0
    Index rem = make(*r, std::move(rest));
    auto [lo, hi] = indexBounds(rem);
    if (lo >= 0 && hi < d) return rem;
    if (auto f = commonFactor(rem, d)) return iadd(imul(imod(f->a, d / f->g), f->g), f->b);
    return atomOf(IndexAtom::Kind::Mod, rem, d);
}

Index ivalue(ExprP e) {
    IndexAtom at;
    at.kind = IndexAtom::Kind::Value;
    at.value = std::move(e);
    return make(0, {{1, at}});
}

bool indexIsVar(const Index& i, int var, int64_t extent) {
    if (extent <= 1) return i->c == 0 && i->terms.empty();
    return i->c == 0 && i->terms.size() == 1 && i->terms[0].first == 1 &&
           i->terms[0].second.kind == IndexAtom::Kind::Var && i->terms[0].second.var == var;
}

Index linearIndex(const std::vector<Index>& coords, const std::vector<int64_t>& strides, int64_t offset) {
    Index r = iconst(offset);
    for (size_t d = 0; d < coords.size() && d < strides.size(); ++d)
        if (strides[d] != 0) r = iadd(r, imul(coords[d], strides[d]));
    return r;
}

std::string indexStr(const Index& i) {
    std::ostringstream s;
    bool first = true;
    for (const auto& [coef, at] : i->terms) {
        if (!first)
            s << (coef < 0 ? " - " : " + ");
        else if (coef < 0)
            s << "-";
        first = false;
        int64_t mag = coef < 0 ? -coef : coef;
        if (mag != 1) s << mag << "*";
        switch (at.kind) {
        case IndexAtom::Kind::Var: s << "x" << at.var; break;
        case IndexAtom::Kind::FloorDiv: s << "(" << indexStr(at.arg) << ")//" << at.divisor; break;
        case IndexAtom::Kind::Mod: s << "(" << indexStr(at.arg) << ")%" << at.divisor; break;
        case IndexAtom::Kind::Value: s << "[" << exprStr(at.value) << "]"; break;
        }
    }
    if (i->c != 0 || first) {
        if (!first)
            s << (i->c < 0 ? " - " : " + ") << (i->c < 0 ? -i->c : i->c);
        else
            s << i->c;
    }
    return s.str();
}

// ----- values --------------------------------------------------------------------------------

std::string_view opName(Op op) {
    static const char* names[] = {
        "const",  "load",  "index", "acc",   "let",     "cast",  "neg",      "abs",       "exp",   "log",
        "sqrt",   "rsqrt", "recip", "tanh",  "sigmoid", "erf",   "sin",      "cos",       "floor", "ceil",
        "trunc",  "round", "expm1", "log1p", "not",     "sign",  "isnan",    "tan",       "asin",  "acos",
        "atan",   "sinh",  "cosh",  "asinh", "acosh",   "atanh", "erfc",     "log2",      "log10", "exp2",
        "lgamma", "add",   "sub",   "mul",   "div",     "pow",   "max",      "min",       "fmod",  "floordiv",
        "mod",    "and",   "or",    "xor",   "atan2",   "hypot", "copysign", "nextafter", "shl",   "shr",
        "eq",     "ne",    "lt",    "le",    "gt",      "ge",    "where"};
    return names[static_cast<int>(op)];
}

DType computeType(DType t) {
    switch (t) {
    case DType::Float16:
    case DType::BFloat16:
    case DType::Float32: return DType::Float32;
    case DType::Float64: return DType::Float64;
    case DType::Bool: return DType::Bool;
    default: return DType::Int64;
    }
}

ExprP econst(double v, DType type) {
    auto e = std::make_shared<Expr>();
    e->op = Op::Const;
    e->type = computeType(type);
    if (isFloating(e->type))
        e->c = v;
    else if (e->type == DType::Bool)
        e->ic = v != 0.0;
    else
        e->ic = static_cast<int64_t>(v);
    e->c = v;
    return e;
}

ExprP eload(int buf, DType bufType, Index index) {
    auto e = std::make_shared<Expr>();
    e->op = Op::Load;
    e->type = computeType(bufType);
    e->buf = buf;
    e->bufType = bufType;
    e->index = std::move(index);
    return e;
}

ExprP eindex(Index i) {
    auto e = std::make_shared<Expr>();
    e->op = Op::IndexValue;
    e->type = DType::Int64;
    e->index = std::move(i);
    return e;
}

ExprP eunary(Op op, ExprP a) {
    auto e = std::make_shared<Expr>();
    e->op = op;
    e->type = (op == Op::Not || op == Op::IsNan) ? DType::Bool : a->type;
    e->args = {std::move(a)};
    return e;
}

ExprP ebinary(Op op, ExprP a, ExprP b) {
    assert(a->type == b->type);
    auto e = std::make_shared<Expr>();
    e->op = op;
    e->type = (op >= Op::Eq && op <= Op::Ge) ? DType::Bool : a->type;
    e->args = {std::move(a), std::move(b)};
    return e;
}

ExprP ewhere(ExprP cond, ExprP a, ExprP b) {
    assert(a->type == b->type);
    auto e = std::make_shared<Expr>();
    e->op = Op::Where;
    e->type = a->type;
    e->args = {std::move(cond), std::move(a), std::move(b)};
    return e;
}

ExprP ecast(ExprP a, DType to) {
    DType ct = computeType(to);
    if (a->type == ct && to == ct) return a;
    auto e = std::make_shared<Expr>();
    e->op = Op::Cast;
    e->type = ct;
    e->castTo = to;
    e->args = {std::move(a)};
    return e;
}

ExprP eto(ExprP a, DType computeT) {
    if (a->type == computeT) return a;
    return ecast(std::move(a), computeT);
}

ExprP eref(Op op, int ref, DType type) {
    auto e = std::make_shared<Expr>();
    e->op = op;
    e->ref = ref;
    e->type = type;
    return e;
}

std::string exprStr(const ExprP& e) {
    std::ostringstream s;
    switch (e->op) {
    case Op::Const:
        if (isFloating(e->type))
            s << e->c;
        else
            s << e->ic;
        return s.str();
    case Op::Load: s << "load(in" << e->buf << ", " << indexStr(e->index) << ")"; return s.str();
    case Op::IndexValue: s << "index(" << indexStr(e->index) << ")"; return s.str();
    case Op::AccRef: s << "acc" << e->ref; return s.str();
    case Op::LetRef: s << "v" << e->ref; return s.str();
    case Op::Cast: s << "to_" << dtypeAbbrev(e->castTo) << "(" << exprStr(e->args[0]) << ")"; return s.str();
    default: break;
    }
    s << opName(e->op) << "(";
    for (size_t i = 0; i < e->args.size(); ++i) s << (i ? ", " : "") << exprStr(e->args[i]);
    s << ")";
    return s.str();
}

// ----- kernels -------------------------------------------------------------------------------

std::string_view reduceOpName(ReduceOp r) {
    switch (r) {
    case ReduceOp::Sum: return "sum";
    case ReduceOp::Max: return "max";
    case ReduceOp::Min: return "min";
    case ReduceOp::Prod: return "prod";
    case ReduceOp::Any: return "any";
    }
    return "?";
}

bool Kernel::isReduction() const { return std::find(reduced.begin(), reduced.end(), true) != reduced.end(); }

int64_t Kernel::outerCount() const {
    int64_t n = 1;
    if (isReduction()) {
        for (size_t d = 0; d < sizes.size(); ++d)
            if (!reduced[d]) n *= sizes[d];
        return n;
    }
    for (size_t d = 0; d + 1 < sizes.size(); ++d) n *= sizes[d];
    return n;
}

int64_t Kernel::innerCount() const {
    int64_t n = 1;
    if (isReduction()) {
        for (size_t d = 0; d < sizes.size(); ++d)
            if (reduced[d]) n *= sizes[d];
        return n * static_cast<int64_t>(std::max<size_t>(1, phases.size()));
    }
    return sizes.empty() ? 1 : sizes.back();
}

std::string kernelToText(const Kernel& k) {
    std::ostringstream s;
    s << "kernel " << k.name << " over [";
    for (size_t d = 0; d < k.sizes.size(); ++d)
        s << (d ? ", " : "") << "x" << d << ":" << k.sizes[d] << (k.reduced[d] ? "r" : "");
    s << "]\n";
    for (size_t i = 0; i < k.args.size(); ++i)
        s << "  in" << i << " = " << k.args[i].name << " " << dtypeAbbrev(k.args[i].dtype)
          << (k.args[i].written ? " (written)" : "") << "\n";
    s << "  nodes: ";
    for (size_t i = 0; i < k.nodes.size(); ++i) s << (i ? ", " : "") << k.nodes[i];
    s << "\n";
    for (size_t p = 0; p < k.phases.size(); ++p) {
        s << "  phase " << p << (k.phases[p].inner ? " (loop over reduction dims)" : " (per outer point)") << "\n";
        for (const auto& st : k.phases[p].stmts) {
            s << "    ";
            switch (st.kind) {
            case Stmt::Kind::Store: s << "store in" << st.buf << "[" << indexStr(st.index) << "] = "; break;
            case Stmt::Kind::Reduce: s << "acc" << st.id << " " << reduceOpName(st.rop) << "= "; break;
            case Stmt::Kind::Let: s << "v" << st.id << " = "; break;
            }
            s << exprStr(st.value);
            if (!st.origin.empty()) s << "    # " << st.origin;
            s << "\n";
        }
    }
    return s.str();
}

}  // namespace fxray::cg
