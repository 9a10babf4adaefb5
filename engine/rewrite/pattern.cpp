#include "rewrite/pattern.h"

#include "exec/shape_inference.h"
#include "import/fx_text_reader.h"
#include "ir/op_registry.h"

namespace fxray {

std::vector<const Node*> Pattern::outputs() const {
    std::vector<const Node*> out;
    if (!search) return out;
    for (const auto& a : search->outputs())
        if (a.isNode()) out.push_back(a.node);
    return out;
}

size_t Pattern::callNodeCount() const {
    size_t c = 0;
    if (!search) return 0;
    for (const auto& n : search->nodes())
        if (n->kind() == NodeKind::CallFunction) ++c;
    return c;
}

Expected<Pattern> patternFromGraphs(std::string name, std::unique_ptr<Graph> search, std::unique_ptr<Graph> replacement,
                                    PatternOptions opts) {
    Pattern p;
    p.name = std::move(name);
    p.options = opts;
    if (!search) return makeError("pattern '" + p.name + "': no search graph");
    auto unknown = resolveOps(*search);
    if (!unknown.empty()) return makeError("pattern '" + p.name + "': unknown op '" + unknown[0] + "'");
    search->rebuildUsers();
    if (Status s = search->verify(); !s.ok()) return makeError("pattern '" + p.name + "': " + s.error().str());
    p.search = std::shared_ptr<const Graph>(std::move(search));
    if (p.outputs().empty()) return makeError("pattern '" + p.name + "': the search graph returns no node");
    if (replacement) {
        auto unk = resolveOps(*replacement);
        if (!unk.empty()) return makeError("pattern '" + p.name + "': replacement uses unknown op '" + unk[0] + "'");
        replacement->rebuildUsers();
        if (replacement->outputs().size() != p.search->outputs().size())
            return makeError("pattern '" + p.name + "': the replacement returns " +
                             std::to_string(replacement->outputs().size()) + " values, the search graph " +
                             std::to_string(p.search->outputs().size()));
        for (Node* ph : replacement->placeholders())
            if (!p.search->find(ph->name()) || p.search->find(ph->name())->kind() != NodeKind::Placeholder)
                return makeError("pattern '" + p.name + "': replacement input '" + ph->name() +
                                 "' is not an input of the search graph");
        p.replacement = std::shared_ptr<const Graph>(std::move(replacement));
    }
    return p;
}

Expected<Pattern> patternFromFxText(std::string name, std::string_view searchText, std::string_view replacementText,
                                    PatternOptions opts) {
    auto s = readFxText(searchText, "<pattern " + name + ">");
    if (!s.ok()) return s.error();
    std::unique_ptr<Graph> r;
    if (!replacementText.empty()) {
        auto rr = readFxText(replacementText, "<replacement " + name + ">");
        if (!rr.ok()) return rr.error();
        r = std::move(rr).value();
    }
    return patternFromGraphs(std::move(name), std::move(s).value(), std::move(r), opts);
}

Node* Match::image(std::string_view searchName) const {
    if (!pattern || !pattern->search) return nullptr;
    const Node* s = pattern->search->find(searchName);
    if (!s) return nullptr;
    auto it = map.find(s);
    return it == map.end() ? nullptr : it->second;
}

const Argument* Match::binding(std::string_view name) const {
    auto it = bindings.find(std::string(name));
    return it == bindings.end() ? nullptr : &it->second;
}

Node* Match::boundNode(std::string_view name) const {
    const Argument* a = binding(name);
    return a && a->isNode() ? a->node : nullptr;
}

std::vector<Argument> normalizedArgs(const Node& n) {
    const OpInfo* op = n.op();
    auto raw = [&] {
        std::vector<Argument> out = n.args;
        for (const auto& kv : n.kwargs) out.push_back(kv.second);
        return out;
    };
    if (!op) return raw();
    const auto& formals = op->schema.args;
    if (n.args.size() > formals.size()) return raw();
    std::vector<Argument> out(formals.size());
    std::vector<bool> set(formals.size(), false);
    for (size_t i = 0; i < n.args.size(); ++i) {
        out[i] = n.args[i];
        set[i] = true;
    }
    for (const auto& [k, v] : n.kwargs) {
        int i = op->schema.indexOf(k);
        if (i < 0 || set[static_cast<size_t>(i)]) return raw();
        out[static_cast<size_t>(i)] = v;
        set[static_cast<size_t>(i)] = true;
    }
    for (size_t i = 0; i < formals.size(); ++i)
        if (!set[i] && formals[i].hasDefault) out[i] = formals[i].defaultValue;
    return out;
}

Node* identityInput(const Node& n) {
    if (n.kind() != NodeKind::CallFunction || n.args.empty() || !n.args[0].isNode()) return nullptr;
    Node* in = n.args[0].node;
    const std::string name = n.opName();
    if (name == "aten.clone.default" || name == "aten.alias.default" || name == "aten.detach.default" ||
        name == "aten.contiguous.default" || name == "aten.lift_fresh_copy.default")
        return in;
    if (name == "aten.expand.default") {
        if (n.meta.size() == 1 && in->meta.size() == 1 && n.meta[0].shape == in->meta[0].shape &&
            !n.meta[0].isSymbolic())
            return in;
        return nullptr;
    }
    if (name == "prims.convert_element_type.default" || name == "aten._to_copy.default") {
        if (n.meta.size() == 1 && in->meta.size() == 1 && n.meta[0].dtype == in->meta[0].dtype &&
            n.meta[0].device == in->meta[0].device)
            return in;
    }
    return nullptr;
}

}  // namespace fxray
