#include "import/to_folder_reader.h"

#include "import/fx_text_reader.h"
#include "import/python_expr.h"

#include <algorithm>
#include <functional>
#include <map>
#include <sstream>

namespace fxray {

namespace {

/// `Conv2d(3, 16, kernel_size=(3, 3), stride=(1, 1))`: class name, positional and keyword values.
struct ModuleRepr {
    std::string cls;
    std::vector<PyExpr> args;
    std::map<std::string, PyExpr> kwargs;
    /// Keyword `name`, else positional `pos` (-1: keyword only), else null.
    const PyExpr* get(const std::string& name, int pos = -1) const {
        if (auto it = kwargs.find(name); it != kwargs.end()) return &it->second;
        if (pos >= 0 && static_cast<size_t>(pos) < args.size()) return &args[static_cast<size_t>(pos)];
        return nullptr;
    }
};

/// Everything `__init__` says.
struct InitInfo {
    std::vector<std::pair<std::string, std::string>> pickledModules;  ///< attribute -> file name, in file order
    std::map<std::string, ModuleRepr> modules;                        ///< attribute -> repr
    std::vector<std::string> ignored;                                 ///< lines not understood
};

/// Reads the `__init__` body of the first class in module.py.
InitInfo readInit(const std::string& text) {
    InitInfo info;
    std::istringstream is(text);
    std::string line;
    int defIndent = -1;
    while (std::getline(is, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        size_t ind = line.find_first_not_of(' ');
        if (ind == std::string::npos) continue;
        std::string body(splitPythonComment(std::string_view(line).substr(ind)).first);
        while (!body.empty() && body.back() == ' ') body.pop_back();
        if (body.empty()) continue;
        if (defIndent < 0) {
            if (body.rfind("def __init__(", 0) == 0) defIndent = static_cast<int>(ind);
            continue;
        }
        if (static_cast<int>(ind) <= defIndent) break;
        std::vector<PyToken> toks;
        PySyntaxError err;
        if (!lexPythonLine(body, 0, 1, toks, err)) {
            info.ignored.push_back(body);
            continue;
        }
        if (body.rfind("super().__init__(", 0) == 0 || body.rfind("self.load_state_dict(", 0) == 0) continue;
        if (body.rfind("setattr(self,", 0) == 0) {
            // setattr(self, 'name', torch.load(r'/abs/path/name.pt', weights_only=False))
            PyExpr e;
            PyExprParser p(toks);
            const PyExpr* load = nullptr;
            if (p.parseAll(e) && e.kind == PyExpr::Kind::Call && e.items.size() == 4 &&
                e.items[2].kind == PyExpr::Kind::String && e.items[3].kind == PyExpr::Kind::Call)
                load = &e.items[3];
            if (load && load->items[0].dotted() == "torch.load" && load->items.size() >= 2 &&
                load->items[1].kind == PyExpr::Kind::String) {
                std::string base = std::filesystem::path(load->items[1].text).filename().string();
                if (base.size() > 3 && base.compare(base.size() - 3, 3, ".pt") == 0) {
                    info.pickledModules.emplace_back(e.items[2].text, base);
                    continue;
                }
            }
            info.ignored.push_back(body);
            continue;
        }
        if (body.rfind("self.", 0) == 0 && body.find(" = ") != std::string::npos) {
            if (toks.size() < 5 || toks[2].kind != PyToken::Kind::Name || toks[3].kind != PyToken::Kind::Op ||
                toks[3].text != "=") {
                info.ignored.push_back(body);
                continue;
            }
            // Values that are no module repr (`self.x = 3`) say nothing the state dict lacks.
            if (toks[4].kind != PyToken::Kind::Name) continue;
            PyExpr rhs;
            PyExprParser p(toks, 4, toks.size() - 1);
            std::string cls;
            if (p.parseAll(rhs) && rhs.kind == PyExpr::Kind::Call) cls = rhs.items[0].dotted();
            if (cls == "torch.nn.Parameter") continue;  // a tensor attribute: its value is in the state dict
            if (cls.empty()) {
                info.ignored.push_back(body);
                continue;
            }
            ModuleRepr r;
            r.cls = cls.substr(cls.rfind('.') == std::string::npos ? 0 : cls.rfind('.') + 1);
            r.args.assign(rhs.items.begin() + 1, rhs.items.end());
            for (auto& [key, value] : rhs.kwargs) r.kwargs.insert_or_assign(key, std::move(value));
            info.modules[toks[2].text] = std::move(r);
            continue;
        }
        if (body.rfind("self.register_buffer(", 0) == 0) continue;  // value in the state dict
        info.ignored.push_back(body);
    }
    return info;
}

/// to_folder writes `def forward(self, L_x_ : torch.Tensor, ...)`: type annotations, not the
/// string annotations of print_readable. They carry no shape, so they are dropped before the FX
/// reader sees the signature (defaults are kept).
std::string stripTypeAnnotations(const std::string& text) {
    std::string out;
    std::istringstream is(text);
    for (std::string line; std::getline(is, line);) {
        size_t ind = line.find_first_not_of(' ');
        if (ind == std::string::npos || line.compare(ind, 12, "def forward(") != 0) {
            out += line + "\n";
            continue;
        }
        size_t open = ind + 11;
        // Find the closing parenthesis and the top-level commas, skipping strings and brackets.
        std::vector<size_t> commas;
        size_t close = std::string::npos;
        int depth = 0;
        char quote = 0;
        for (size_t k = open; k < line.size(); ++k) {
            char c = line[k];
            if (quote) {
                if (c == '\\')
                    ++k;
                else if (c == quote)
                    quote = 0;
                continue;
            }
            if (c == '\'' || c == '"')
                quote = c;
            else if (c == '(' || c == '[' || c == '{')
                ++depth;
            else if (c == ')' || c == ']' || c == '}') {
                if (--depth == 0) {
                    close = k;
                    break;
                }
            } else if (c == ',' && depth == 1)
                commas.push_back(k);
        }
        if (close == std::string::npos) {
            out += line + "\n";
            continue;
        }
        std::vector<std::string> params;
        size_t from = open + 1;
        commas.push_back(close);
        for (size_t c : commas) {
            params.push_back(line.substr(from, c - from));
            from = c + 1;
        }
        std::string sig = line.substr(0, open + 1);
        for (size_t k = 0; k < params.size(); ++k) {
            std::string prm = params[k];
            size_t colon = prm.find(':');
            size_t eq = prm.find('=');
            if (colon != std::string::npos && (eq == std::string::npos || colon < eq)) {
                std::string ann = prm.substr(colon + 1, (eq == std::string::npos ? prm.size() : eq) - colon - 1);
                size_t a0 = ann.find_first_not_of(' ');
                if (a0 != std::string::npos && ann[a0] != '"' && ann[a0] != '\'') {
                    std::string name = prm.substr(0, colon);
                    while (!name.empty() && name.back() == ' ') name.pop_back();
                    prm = name + (eq == std::string::npos ? std::string() : " " + prm.substr(eq));
                }
            }
            sig += (k ? "," : "") + prm;
        }
        out += sig + line.substr(close) + "\n";
    }
    return out;
}

// ---- lowering call_module nodes of standard modules to ATen ----

/// `3` as n threes, `(3, 1)` as is (entries that are no int as 0), absent as n defaults.
std::vector<int64_t> intsOf(const PyExpr* v, size_t n, int64_t dflt) {
    if (!v) return std::vector<int64_t>(n, dflt);
    if (auto i = pyInt(*v)) return std::vector<int64_t>(n, *i);
    std::vector<int64_t> out;
    if (v->kind == PyExpr::Kind::Tuple || v->kind == PyExpr::Kind::List)
        for (const auto& x : v->items) out.push_back(pyInt(x).value_or(0));
    return out;
}
Argument intList(const std::vector<int64_t>& v) {
    std::vector<Argument> items;
    for (auto x : v) items.push_back(Argument::ofInt(x));
    return Argument::ofList(std::move(items));
}
double numOf(const PyExpr* v, double dflt) { return v ? pyNumber(*v).value_or(dflt) : dflt; }
int64_t intOf(const PyExpr* v, int64_t dflt) { return v ? pyInt(*v).value_or(dflt) : dflt; }
bool boolOf(const PyExpr* v, bool dflt) { return v ? pyBool(*v).value_or(dflt) : dflt; }
/// A string literal's contents, empty for anything else.
std::string stringOf(const PyExpr* v) { return v && v->kind == PyExpr::Kind::String ? v->text : std::string(); }

/// Replaces every use of `from` by `to` in the graph's arguments.
void replaceUses(Graph& g, Node* from, const Argument& to) {
    std::function<void(Argument&)> fix = [&](Argument& a) {
        if (a.kind == Argument::Kind::NodeRef && a.node == from) a = to;
        for (auto& x : a.items) fix(x);
    };
    for (const auto& n : g.nodes()) {
        for (auto& a : n->args) fix(a);
        for (auto& [k, a] : n->kwargs) fix(a);
    }
}

/// Rewrites `self.m(x)` for a known module class; returns false (leaving the node) otherwise.
bool lowerModuleCall(Graph& g, Node* n, const ModuleRepr& m, std::vector<std::string>& notes) {
    if (n->args.empty()) return false;
    const std::string prefix = n->target();
    Argument x = n->args[0];
    auto param = [&](const std::string& leaf) -> Argument {
        std::string key = prefix + "." + leaf;
        if (!g.constants.count(key)) return Argument::none();
        std::string nm = key;
        std::replace(nm.begin(), nm.end(), '.', '_');
        Node* ga = g.insertBefore(n, NodeKind::GetAttr, g.uniqueName(nm), key);
        return Argument::ofNode(ga);
    };
    std::string target;
    std::vector<Argument> args;
    std::vector<std::pair<std::string, Argument>> kwargs;
    const std::string& c = m.cls;
    // Modules whose weight is not optional stay call_module when the state dict lacks it.
    const bool needsWeight = c == "Linear" || c == "Embedding" || c.rfind("Conv", 0) == 0;
    if (needsWeight && !g.constants.count(prefix + ".weight")) {
        notes.push_back("state_dict.pt has no '" + prefix + ".weight'");
        return false;
    }
    if (c == "Identity") {
        replaceUses(g, n, x);
        g.rebuildUsers();
        g.erase(n);
        return true;
    }
    if (c == "Linear") {
        target = "torch.ops.aten.linear.default";
        args = {x, param("weight"), param("bias")};
    } else if (c == "Conv1d" || c == "Conv2d" || c == "Conv3d") {
        size_t dims = static_cast<size_t>(c[4] - '0');
        const PyExpr* pm = m.get("padding_mode");
        if (pm && stringOf(pm) != "zeros") return false;
        const PyExpr* pad = m.get("padding", 4);
        const bool padString = pad && pad->kind == PyExpr::Kind::String;  // padding='same'
        target = "torch.ops.aten.conv" + std::to_string(dims) + "d." + (padString ? "padding" : "default");
        Argument padArg = padString ? Argument::ofString(pad->text) : intList(intsOf(pad, dims, 0));
        const PyExpr* groups = m.get("groups", 6);
        args = {x,
                param("weight"),
                param("bias"),
                intList(intsOf(m.get("stride", 3), dims, 1)),
                padArg,
                intList(intsOf(m.get("dilation", 5), dims, 1)),
                Argument::ofInt(intOf(groups, 1))};
    } else if (c == "BatchNorm1d" || c == "BatchNorm2d" || c == "BatchNorm3d") {
        // A freshly built FxModule is in training mode, which is how it would run.
        target = "torch.ops.aten.batch_norm.default";
        args = {x,
                param("weight"),
                param("bias"),
                param("running_mean"),
                param("running_var"),
                Argument::ofBool(true),
                Argument::ofFloat(numOf(m.get("momentum"), 0.1)),
                Argument::ofFloat(numOf(m.get("eps"), 1e-5)),
                Argument::ofBool(false)};
        notes.push_back("self." + prefix + " (" + c +
                        ") runs in training mode, as a freshly constructed FxModule does");
    } else if (c == "LayerNorm") {
        target = "torch.ops.aten.layer_norm.default";
        const PyExpr* shape = m.get("normalized_shape", 0);
        args = {x, intList(intsOf(shape, 1, 0)), param("weight"), param("bias"),
                Argument::ofFloat(numOf(m.get("eps", 1), 1e-5))};
    } else if (c == "ReLU" || c == "Sigmoid" || c == "Tanh" || c == "SiLU") {
        std::string op = c == "ReLU" ? "relu" : c == "Sigmoid" ? "sigmoid" : c == "Tanh" ? "tanh" : "silu";
        target = "torch.ops.aten." + op + ".default";
        args = {x};
    } else if (c == "GELU") {
        target = "torch.ops.aten.gelu.default";
        args = {x};
        const std::string approximate = stringOf(m.get("approximate", 0));
        if (!approximate.empty() && approximate != "none")
            kwargs.emplace_back("approximate", Argument::ofString(approximate));
    } else if (c == "Dropout") {
        target = "torch.ops.aten.dropout.default";
        args = {x, Argument::ofFloat(numOf(m.get("p", 0), 0.5)), Argument::ofBool(true)};
    } else if (c == "Flatten") {
        const PyExpr* s = m.get("start_dim", 0);
        const PyExpr* e = m.get("end_dim", 1);
        target = "torch.ops.aten.flatten.using_ints";
        args = {x, Argument::ofInt(intOf(s, 1)), Argument::ofInt(intOf(e, -1))};
    } else if (c == "Softmax") {
        const PyExpr* d = m.get("dim", 0);
        if (!d || !pyInt(*d)) return false;
        target = "torch.ops.aten.softmax.int";
        args = {x, Argument::ofInt(*pyInt(*d))};
    } else if (c == "MaxPool2d") {
        auto k = intsOf(m.get("kernel_size", 0), 2, 1);
        const PyExpr* st = m.get("stride", 1);
        target = "torch.ops.aten.max_pool2d.default";
        args = {x,
                intList(k),
                intList(st && !st->isName("None") ? intsOf(st, 2, 1) : k),
                intList(intsOf(m.get("padding", 2), 2, 0)),
                intList(intsOf(m.get("dilation", 3), 2, 1)),
                Argument::ofBool(boolOf(m.get("ceil_mode", 5), false))};
    } else if (c == "AdaptiveAvgPool2d") {
        target = "torch.ops.aten.adaptive_avg_pool2d.default";
        args = {x, intList(intsOf(m.get("output_size", 0), 2, 1))};
    } else if (c == "Embedding") {
        target = "torch.ops.aten.embedding.default";
        args = {param("weight"), x};
    } else {
        return false;
    }
    std::string name = n->name();
    Node* repl = g.insertBefore(n, NodeKind::CallFunction, g.uniqueName(name + "_lowered"), target);
    repl->args = std::move(args);
    repl->kwargs = std::move(kwargs);
    repl->sourceLine = n->sourceLine;
    repl->sourceComment = n->sourceComment;
    replaceUses(g, n, Argument::ofNode(repl));
    g.rebuildUsers();
    g.erase(n);
    g.rename(repl, name);
    return true;
}

/// A pickled GraphModule (to_folder's `<name>.pt`) as a subgraph: its `_code` is FX code.
Status addPickledModule(Graph& parent, const std::string& attr, const PtContents& pt, const PickleValue* gm,
                        const std::string& what, int depth) {
    if (depth > 16) return makeError("submodules nest too deeply in " + what);
    if (!gm || gm->kind != PickleValue::Kind::GraphModule || gm->items.empty()) {
        Diagnostic d = makeError("'" + attr + "' is not a pickled GraphModule");
        d.file = what;
        return d;
    }
    const PickleValue* dict = gm->items[0];
    const PickleValue* code = dict->get("_code");
    if (!code || code->kind != PickleValue::Kind::String) {
        Diagnostic d = makeError("pickled GraphModule '" + attr + "' has no _code");
        d.file = what;
        return d;
    }
    // Wrap the bare `def forward` in a class so the FX reader sees a module.
    std::string text = "class " + attr + "(torch.nn.Module):\n";
    std::istringstream is(code->s);
    for (std::string l; std::getline(is, l);)
        text += l.find_first_not_of(" \t") == std::string::npos ? "\n" : "    " + l + "\n";
    auto sub = readFxText(stripTypeAnnotations(text), what + ":_code");
    if (!sub.ok()) return sub.error();
    std::unique_ptr<Graph> g = std::move(sub).value();
    g->className = attr;
    g->signature.annotatedParams = false;
    for (const char* field : {"_parameters", "_buffers"})
        if (const PickleValue* ps = dict->get(field))
            for (const auto& [k, v] : ps->entries)
                if (const Tensor* t = pt.tensorOf(v); t && k->kind == PickleValue::Kind::String)
                    g->constants[k->s] = *t;
    if (const PickleValue* mods = dict->get("_modules"))
        for (const auto& [k, v] : mods->entries)
            if (k->kind == PickleValue::Kind::String && v->kind == PickleValue::Kind::GraphModule)
                if (auto s = addPickledModule(*g, k->s, pt, v, what, depth + 1); !s.ok()) return s;
    parent.subgraphs().emplace_back(attr, std::move(g));
    return Status::success();
}

}  // namespace

bool isToFolder(const std::filesystem::path& dir) {
    std::error_code ec;
    return std::filesystem::is_regular_file(dir / "module.py", ec) &&
           std::filesystem::is_regular_file(dir / "state_dict.pt", ec);
}

Expected<LoadedFile> readToFolder(const std::filesystem::path& dir) {
    if (!isToFolder(dir)) {
        Diagnostic d = makeError("not a to_folder directory: module.py and state_dict.pt are required");
        d.file = dir.string();
        return d;
    }
    const auto modulePath = dir / "module.py";
    auto text = readTextFile(modulePath);
    if (!text.ok()) return text.error();
    auto gE = readFxText(stripTypeAnnotations(*text), modulePath.string());
    if (!gE.ok()) return gE.error();
    std::unique_ptr<Graph> g = std::move(gE).value();
    InitInfo init = readInit(*text);

    LoadedGraph lg;
    // The folder's own state dict: never the absolute path written in module.py.
    auto sd = readPt(dir / "state_dict.pt");
    if (!sd.ok()) return sd.error();
    for (auto& nt : *sd) g->constants[nt.name] = nt.tensor;

    for (const auto& [attr, file] : init.pickledModules) {
        auto p = dir / file;
        PickleOptions opts;
        opts.allowGraphModule = true;
        auto pt = readPtContentsFile(p, opts);
        if (!pt.ok()) return pt.error();
        if (auto s = addPickledModule(*g, attr, *pt, pt->root(), p.string(), 0); !s.ok()) return s.error();
    }

    // Calls of standard submodules become ATen calls on their state-dict weights.
    std::vector<Node*> calls;
    for (const auto& n : g->nodes())
        if (n->kind() == NodeKind::CallModule) calls.push_back(n.get());
    for (Node* n : calls) {
        auto it = init.modules.find(n->target());
        if (it == init.modules.end() || !lowerModuleCall(*g, n, it->second, lg.notes))
            lg.notes.push_back("call of self." + n->target() + " (" +
                               (it == init.modules.end() ? std::string("unknown module") : it->second.cls) +
                               ") kept as call_module");
    }
    for (const auto& l : init.ignored) lg.notes.push_back("__init__ line not understood, ignored: " + l);
    if (!sd->empty())
        lg.notes.push_back(std::to_string(sd->size()) + " tensors from state_dict.pt attached as constants");

    LoadedFile f;
    f.path = dir;
    f.format = "to-folder";
    lg.id = "0";
    lg.stage = "to_folder";
    g->printStrides = false;
    g->printDevices = false;
    lg.graph = std::move(g);
    finishGraph(lg);
    f.graphs.push_back(std::move(lg));
    return f;
}

std::vector<std::pair<std::string, std::string>> matchLiftedParameters(const Graph& g, const StateDict& sd) {
    // Dynamo names a lifted attribute after its source, L['fn']._modules['0']._parameters['weight'],
    // with non-identifier characters turned into '_': L_fn_modules_0_parameters_weight_.
    auto sanitize = [](std::string s) {
        for (auto& c : s)
            if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
        return s;
    };
    std::vector<std::pair<std::string, std::string>> out;
    for (Node* p : g.placeholders()) {
        const std::string& t = p->target();
        if (t.rfind("L_", 0) != 0 && t.rfind("l_", 0) != 0) continue;
        size_t bestLen = 0;
        std::string best;
        for (const auto& nt : sd) {
            std::vector<std::string> parts;
            std::stringstream ss(nt.name);
            for (std::string part; std::getline(ss, part, '.');) parts.push_back(part);
            if (parts.empty()) continue;
            std::string stem;
            for (size_t k = 0; k + 1 < parts.size(); ++k) stem += "_modules_" + sanitize(parts[k]);
            for (const char* kind : {"_parameters_", "_buffers_"}) {
                std::string suffix = stem + kind + sanitize(parts.back()) + "_";
                if (t.size() > suffix.size() + 2 && t.compare(t.size() - suffix.size(), suffix.size(), suffix) == 0 &&
                    suffix.size() > bestLen) {
                    // The rest must be the root local's name alone (no further module path).
                    std::string root = t.substr(2, t.size() - suffix.size() - 2);
                    if (root.find("_modules_") != std::string::npos) continue;
                    bestLen = suffix.size();
                    best = nt.name;
                }
            }
        }
        if (!best.empty()) out.emplace_back(p->name(), best);
    }
    return out;
}

size_t bindLiftedParameters(Graph& g, const StateDict& sd) {
    auto pairs = matchLiftedParameters(g, sd);
    for (const auto& [ph, key] : pairs)
        for (const auto& nt : sd)
            if (nt.name == key) {
                g.constants[ph] = nt.tensor;
                if (Node* n = g.find(ph); n && n->meta.empty()) n->meta = {nt.tensor.meta};
                break;
            }
    return pairs.size();
}

namespace {

/// Higher-order calls (`cond(pred, true_graph, false_graph, (ops))`,
/// `tag_activation_checkpoint(body, *ops)`) feed their subgraphs' placeholders with the
/// operands after the last subgraph argument; those inherit the operands' metadata.
void propagateIntoSubgraphs(Graph& g, int depth) {
    if (depth > 16) return;
    for (const auto& n : g.nodes()) {
        if (n->kind() != NodeKind::CallFunction) continue;
        std::vector<Graph*> subs;
        size_t last = 0;
        for (size_t k = 0; k < n->args.size(); ++k) {
            const Argument& a = n->args[k];
            if (a.isNode() && a.node->kind() == NodeKind::GetAttr)
                if (Graph* sub = g.subgraph(a.node->target())) {
                    subs.push_back(sub);
                    last = k + 1;
                }
        }
        if (subs.empty()) continue;
        std::vector<const Node*> operands;
        for (size_t k = last; k < n->args.size(); ++k) n->args[k].forEachNode([&](Node* x) { operands.push_back(x); });
        for (Graph* sub : subs) {
            auto phs = sub->placeholders();
            for (size_t i = 0; i < phs.size() && i < operands.size(); ++i)
                if (phs[i]->meta.empty() && !operands[i]->meta.empty()) phs[i]->meta = operands[i]->meta;
            propagateIntoSubgraphs(*sub, depth + 1);
        }
    }
}

}  // namespace

void setPlaceholderMeta(Graph& g, const std::vector<Value>& inputs) {
    auto phs = g.placeholders();
    for (size_t i = 0; i < phs.size() && i < inputs.size(); ++i)
        if (inputs[i].isTensor()) phs[i]->meta = {inputs[i].t.meta};
    propagateIntoSubgraphs(g, 0);
}

}  // namespace fxray
