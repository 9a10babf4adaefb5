#include "autodiff/export_inputs.h"

#include "exec/ops/kernel_util.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>

namespace fxray {

namespace {

std::string lower(std::string s) {
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

bool startsWith(const std::string& s, std::string_view p) { return s.compare(0, p.size(), p) == 0; }

bool isExportParamLike(const std::string& n) {
    return startsWith(n, "p_") || startsWith(n, "b_") || startsWith(n, "c_");
}

/// A Dynamo placeholder name in export's spelling: `L_s_modules_m_modules_wte_parameters_weight_`
/// -> `p_m_wte_weight`; `L_x_` -> `x`; `L_args_0_` -> `#0` (positional user input).
std::string exportSpelling(std::string d) {
    if (startsWith(d, "L_") || startsWith(d, "l_")) d = d.substr(2);
    if (!d.empty() && d.back() == '_') d.pop_back();
    for (const auto& [marker, prefix] : {std::pair<std::string, std::string>{"_parameters_", "p_"},
                                         std::pair<std::string, std::string>{"_buffers_", "b_"}}) {
        size_t at = d.rfind(marker);
        if (at == std::string::npos) continue;
        std::string owner = d.substr(0, at), leaf = d.substr(at + marker.size());
        // Drop the root object (`self`, `s`, `fn`), keep the module path.
        size_t m = owner.find("_modules_");
        std::string path = m == std::string::npos ? std::string() : owner.substr(m + 9);
        for (size_t k; (k = path.find("_modules_")) != std::string::npos;) path.replace(k, 9, "_");
        return lower(prefix + (path.empty() ? "" : path + "_") + leaf);
    }
    if (startsWith(d, "args_")) return "#" + d.substr(5);
    return lower(d);
}

/// Flattens a numeric literal (a number or nested lists) into values and a shape.
bool flattenLiteral(const Argument& a, std::vector<double>& vals, std::vector<int64_t>& shape, size_t depth,
                    bool& anyFloat) {
    if (a.isNumber()) {
        if (depth != shape.size()) return false;
        anyFloat = anyFloat || a.kind == Argument::Kind::Float;
        vals.push_back(a.kind == Argument::Kind::Float ? a.f
                       : a.kind == Argument::Kind::Int ? double(a.i)
                                                       : double(a.b));
        return true;
    }
    if (!a.isSequence()) return false;
    if (depth == shape.size())
        shape.push_back(static_cast<int64_t>(a.items.size()));
    else if (shape[depth] != static_cast<int64_t>(a.items.size()))
        return false;
    for (const auto& it : a.items)
        if (!flattenLiteral(it, vals, shape, depth + 1, anyFloat)) return false;
    return true;
}

std::optional<Tensor> literalTensor(const Node& n) {
    if (n.args.empty()) return std::nullopt;
    std::vector<double> vals;
    std::vector<int64_t> shape;
    bool anyFloat = false;
    if (!flattenLiteral(n.args[0], vals, shape, 0, anyFloat)) return std::nullopt;
    DType dt = anyFloat || vals.empty() ? DType::Float32 : DType::Int64;
    if (const Argument* d = n.kwarg("dtype"); d && d->kind == Argument::Kind::DType) dt = d->dtype;
    TensorMeta m = TensorMeta::contiguous(shape, dt);
    if (const Argument* dev = n.kwarg("device"); dev && dev->kind == Argument::Kind::Device) m.device = dev->device;
    return kern::makeTensor(m, vals);
}

}  // namespace

Expected<std::vector<std::string>> primalOrderFromDynamo(const Graph& exportGraph, const Graph& dynamoGraph) {
    std::vector<std::string> userInputs;
    std::map<std::string, std::string> byKey;  // lower-cased export name -> export name
    for (const Node* p : exportGraph.placeholders()) {
        if (startsWith(p->name(), "c_")) continue;
        byKey[lower(p->name())] = p->name();
        if (!isExportParamLike(p->name())) userInputs.push_back(p->name());
    }
    std::vector<std::string> order;
    std::set<std::string> used;
    size_t nextUser = 0;
    for (const Node* d : dynamoGraph.placeholders()) {
        // The argument name (`L_..._LayerNorm_..._`), not the node's snake-cased name.
        std::string key = exportSpelling(d->target());
        std::string match;
        if (key[0] == '#') {
            size_t idx = std::stoul(key.substr(1));
            if (idx < userInputs.size()) match = userInputs[idx];
        } else if (auto it = byKey.find(key); it != byKey.end()) {
            match = it->second;
        } else if (!startsWith(key, "p_") && !startsWith(key, "b_")) {
            // A user input export renamed: take the next unused one.
            while (nextUser < userInputs.size() && used.count(userInputs[nextUser])) ++nextUser;
            if (nextUser < userInputs.size()) match = userInputs[nextUser];
        }
        if (match.empty() || used.count(match)) {
            Diagnostic diag = makeError("Dynamo input '" + d->target() + "' matches no input of the export graph");
            diag.file = dynamoGraph.sourceFile;
            return diag;
        }
        used.insert(match);
        order.push_back(match);
    }
    for (const auto& [k, name] : byKey)
        if (!used.count(name)) {
            Diagnostic diag = makeError("export input '" + name + "' has no Dynamo counterpart");
            diag.file = exportGraph.sourceFile;
            return diag;
        }
    return order;
}

std::map<std::string, Tensor> exportConstantsFromDynamo(const Graph& exportGraph, const Graph& dynamoGraph) {
    std::vector<const Node*> literals;
    for (const auto& n : dynamoGraph.nodes())
        if (n->kind() == NodeKind::CallFunction && n->target() == "torch.tensor") literals.push_back(n.get());
    std::map<std::string, Tensor> out;
    size_t k = 0;
    for (const Node* p : exportGraph.placeholders()) {
        if (!startsWith(p->name(), "c_") || p->meta.empty()) continue;
        for (; k < literals.size(); ++k) {
            auto t = literalTensor(*literals[k]);
            if (!t || t->shape() != p->meta[0].shape || t->dtype() != p->meta[0].dtype) continue;
            out[p->name()] = *t;
            ++k;
            break;
        }
    }
    return out;
}

}  // namespace fxray
