#include "ir/printer.h"

#include <cctype>
#include <map>
#include <set>
#include <sstream>

namespace fxray {

namespace {

const char* binarySymbol(const std::string& target) {
    static const std::pair<const char*, const char*> table[] = {
        {"operator.add", "+"},       {"operator.sub", "-"},     {"operator.mul", "*"},     {"operator.truediv", "/"},
        {"operator.floordiv", "//"}, {"operator.mod", "%"},     {"operator.matmul", "@"},  {"operator.pow", "**"},
        {"operator.lt", "<"},        {"operator.le", "<="},     {"operator.gt", ">"},      {"operator.ge", ">="},
        {"operator.eq", "=="},       {"operator.ne", "!="},     {"operator.and_", "&"},    {"operator.or_", "|"},
        {"operator.xor", "^"},       {"operator.lshift", "<<"}, {"operator.rshift", ">>"},
    };
    for (auto& [k, v] : table)
        if (target == k) return v;
    return nullptr;
}

const char* augmentedSymbol(const std::string& target) {
    if (target == "operator.iadd") return "+=";
    if (target == "operator.isub") return "-=";
    if (target == "operator.imul") return "*=";
    if (target == "operator.itruediv") return "/=";
    return nullptr;
}

std::string callArgs(const std::vector<Argument>& args, size_t from,
                     const std::vector<std::pair<std::string, Argument>>& kwargs) {
    std::string out;
    bool first = true;
    for (size_t i = from; i < args.size(); ++i) {
        if (!first) out += ", ";
        out += args[i].repr();
        first = false;
    }
    for (const auto& [k, v] : kwargs) {
        if (!first) out += ", ";
        out += k + " = " + v.repr();
        first = false;
    }
    return out;
}

void printModule(std::ostringstream& os, const Graph& g, const PrintOptions& opts, int indent) {
    const bool strides = opts.strides.value_or(g.printStrides);
    const bool devices = opts.devices.value_or(g.printDevices);
    const std::string i0(indent, ' '), i1(indent + 4, ' '), i2(indent + 8, ' ');
    auto annotationOf = [&](const Node& n) -> std::string {
        if (!n.annotationText.empty()) return n.annotationText;
        if (n.annotated && n.meta.size() == 1 && !n.metaIsTuple) return n.meta[0].annotation(strides, devices);
        return {};
    };

    os << i0 << "class " << g.className << "(torch.nn.Module):\n";
    auto phs = g.placeholders();
    const bool pytree = g.signature.pytreeInputs || !g.signature.pytreeGroups.empty();
    os << i1 << "def forward(self";
    if (pytree) {
        for (const auto& grp : g.signature.pytreeGroups) os << ", " << grp;
    } else {
        for (Node* p : phs) {
            os << ", " << p->target();
            auto ann = annotationOf(*p);
            if (!ann.empty() && g.signature.annotatedParams) os << ": \"" << ann << "\"";
        }
    }
    os << "):\n";

    if (pytree) {
        if (g.signature.annotatedParams) {
            os << i2;
            for (Node* p : phs) {
                auto ann = annotationOf(*p);
                os << p->name() << ": \"" << ann << "\"; ";
            }
            os << "\n\n";
        }
        os << i2;
        for (Node* p : phs) os << p->name() << ", ";
        os << "= fx_pytree.tree_flatten_spec([";
        for (size_t k = 0; k < g.signature.pytreeGroups.size(); ++k)
            os << (k ? ", " : "") << g.signature.pytreeGroups[k];
        os << "], self._in_spec)\n";
    }

    bool bodyStarted = false;
    if (!pytree) {
        for (Node* p : phs) {
            if (p->name() != p->target()) {
                os << i2 << p->name() << " = " << p->target() << "\n";
                bodyStarted = true;
            }
        }
    }

    // Last uses: for each node, the values whose last use it is (FX frees them after the line).
    std::map<const Node*, std::vector<const Node*>> lastUses;
    std::set<const Node*> seen;
    const auto& nodes = g.nodes();
    for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
        for (const Node* in : (*it)->inputNodes()) {
            if (seen.insert(in).second) lastUses[it->get()].push_back(in);
        }
    }

    std::string prevComment;
    for (const auto& up : nodes) {
        const Node& n = *up;
        if (n.kind() == NodeKind::Placeholder) continue;
        if (n.kind() == NodeKind::Output) {
            os << i2 << "return ";
            const Argument& out = n.args.empty() ? Argument() : n.args[0];
            if (g.signature.pytreeReturn) {
                Argument lst = out;
                if (lst.isSequence()) lst.kind = Argument::Kind::List;
                os << "pytree.tree_unflatten(" << lst.repr() << ", self._out_spec)";
            } else {
                os << out.repr();
            }
            os << "\n";
            continue;
        }
        if (opts.comments && !n.sourceComment.empty() && n.sourceComment != prevComment) {
            if (bodyStarted) os << "\n";
            std::istringstream cs(n.sourceComment);
            std::string line;
            while (std::getline(cs, line)) os << i2 << "# " << line << "\n";
        }
        if (!n.sourceComment.empty()) prevComment = n.sourceComment;
        os << i2;
        if (const char* aug = augmentedSymbol(n.target()); aug && n.args.size() == 2) {
            // FX prints operator.iadd as `a += b;  name = a`.
            os << n.args[0].repr() << " " << aug << " " << n.args[1].repr() << ";  ";
        }
        os << n.name();
        auto ann = annotationOf(n);
        if (!ann.empty()) os << ": \"" << ann << "\"";
        os << " = " << printNodeExpr(n);
        std::vector<const Node*> frees;
        if (auto it = lastUses.find(&n); it != lastUses.end()) frees = it->second;
        bool unused = !seen.count(&n);
        if (unused) frees.push_back(&n);
        if (!frees.empty()) {
            os << ";  ";
            for (const Node* f : frees) os << f->name() << " = ";
            os << "None";
        }
        os << "\n";
        bodyStarted = true;
    }

    for (const auto& [name, sub] : g.subgraphs()) {
        os << "\n";
        std::ostringstream inner;
        printModule(inner, *sub, opts, indent + 4);
        std::string text = inner.str();
        // The nested class is printed under the submodule's attribute name.
        const std::string header = std::string(indent + 4, ' ') + "class " + sub->className + "(";
        if (text.compare(0, header.size(), header) == 0 && sub->className != name)
            text = std::string(indent + 4, ' ') + "class " + name + "(" + text.substr(header.size());
        os << text;
    }
}

}  // namespace

/// `self.a.b`, with components that are not identifiers as FX writes them:
/// `getattr(self, "0").weight`.
std::string selfPath(const std::string& target) {
    std::string out = "self";
    size_t start = 0;
    while (start <= target.size()) {
        size_t dot = target.find('.', start);
        std::string part = target.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        bool ident = !part.empty() && !std::isdigit(static_cast<unsigned char>(part[0]));
        for (char c : part) ident = ident && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
        out = ident ? out + "." + part : "getattr(" + out + ", \"" + part + "\")";
        if (dot == std::string::npos) break;
        start = dot + 1;
    }
    return out;
}

std::string printNodeExpr(const Node& n) {
    switch (n.kind()) {
    case NodeKind::GetAttr: return selfPath(n.target());
    case NodeKind::CallModule: return "self." + n.target() + "(" + callArgs(n.args, 0, n.kwargs) + ")";
    case NodeKind::CallMethod: {
        std::string self = n.args.empty() ? std::string("<missing>") : n.args[0].repr();
        return self + "." + n.target() + "(" + callArgs(n.args, 1, n.kwargs) + ")";
    }
    case NodeKind::CallFunction: {
        const std::string& t = n.target();
        if (t == "operator.getitem" && n.args.size() == 2 && n.kwargs.empty())
            return n.args[0].repr() + "[" + n.args[1].repr() + "]";
        if (const char* sym = binarySymbol(t); sym && n.args.size() == 2 && n.kwargs.empty())
            return n.args[0].repr() + " " + sym + " " + n.args[1].repr();
        if (augmentedSymbol(t) && n.args.size() == 2) return n.args[0].repr();
        if (t == "operator.neg" && n.args.size() == 1) return "-" + n.args[0].repr();
        if (t == "operator.invert" && n.args.size() == 1) return "~" + n.args[0].repr();
        if (t == "operator.pos" && n.args.size() == 1) return "+" + n.args[0].repr();
        if (t == "builtins.getattr" && n.args.size() == 2 && n.args[1].kind == Argument::Kind::String)
            return n.args[0].repr() + "." + n.args[1].s;
        return t + "(" + callArgs(n.args, 0, n.kwargs) + ")";
    }
    case NodeKind::Placeholder: return n.target();
    case NodeKind::Output: return "output";
    }
    return "";
}

std::string printGraph(const Graph& g, const PrintOptions& opts) {
    std::ostringstream os;
    printModule(os, g, opts, 0);
    return os.str();
}

}  // namespace fxray
