#include "import/lifted_constants.h"

#include "exec/ops/kernel_util.h"

#include <map>
#include <optional>

namespace fxray {

std::vector<std::string> missingConstants(const Graph& g) {
    std::vector<std::string> out;
    for (const auto& n : g.nodes())
        if (n->kind() == NodeKind::GetAttr && !g.subgraph(n->target()) && !g.constants.count(n->target()))
            out.push_back(n->target());
    return out;
}

namespace {

/// Flattens a numeric literal (number or nested list) into values and a shape.
bool flattenLiteral(const Argument& a, std::vector<double>& vals, std::vector<int64_t>& shape, size_t depth) {
    if (a.isNumber()) {
        if (depth != shape.size()) return false;
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
        if (!flattenLiteral(it, vals, shape, depth + 1)) return false;
    return true;
}

std::optional<Tensor> literalTensor(const Node& n) {
    if (n.args.empty()) return std::nullopt;
    std::vector<double> vals;
    std::vector<int64_t> shape;
    if (!flattenLiteral(n.args[0], vals, shape, 0)) return std::nullopt;
    DType dt = DType::Float32;
    bool allInt = true;
    for (const auto& v : vals) allInt = allInt && v == static_cast<double>(static_cast<int64_t>(v));
    if (n.args[0].kind == Argument::Kind::Int ||
        (allInt && !vals.empty() && n.args[0].isSequence() && n.args[0].items[0].kind == Argument::Kind::Int))
        dt = DType::Int64;
    if (const Argument* d = n.kwarg("dtype"); d && d->kind == Argument::Kind::DType) dt = d->dtype;
    TensorMeta m = TensorMeta::contiguous(shape, dt);
    if (const Argument* dev = n.kwarg("device"); dev && dev->kind == Argument::Kind::Device) m.device = dev->device;
    return kern::makeTensor(m, vals);
}

/// The int-list items of a Dynamo `operator.getitem` index (`x[..., [-2], :]`): AOT tracing
/// turns each into a lifted int64 constant (Falcon's multi-query key/value split does this).
void indexListLiterals(const Node& n, std::vector<std::optional<Tensor>>& out) {
    if (n.args.size() != 2) return;
    const Argument& idx = n.args[1];
    std::vector<Argument> items = idx.kind == Argument::Kind::Tuple ? idx.items : std::vector<Argument>{idx};
    for (const auto& it : items) {
        if (it.kind != Argument::Kind::List || it.items.empty()) continue;
        std::vector<double> vals;
        std::vector<int64_t> shape;
        bool ints = true;
        for (const auto& e : it.items) ints = ints && (e.kind == Argument::Kind::Int || e.isSequence());
        if (!ints || !flattenLiteral(it, vals, shape, 0)) continue;
        out.push_back(kern::makeTensor(TensorMeta::contiguous(shape, DType::Int64), vals));
    }
}

}  // namespace

std::vector<std::string> linkLiftedConstants(Graph& g, const Graph& dynamo) {
    std::vector<std::string> filled;
    // Dynamo literal tensors (torch.tensor calls, int-list indices) grouped by provenance, in
    // graph order.
    std::map<std::string, std::vector<std::optional<Tensor>>> byComment;
    std::vector<const Graph*> stack{&dynamo};
    while (!stack.empty()) {
        const Graph* d = stack.back();
        stack.pop_back();
        for (const auto& n : d->nodes()) {
            if (n->kind() != NodeKind::CallFunction) continue;
            if (n->target() == "torch.tensor")
                byComment[n->sourceComment].push_back(literalTensor(*n));
            else if (n->target() == "operator.getitem")
                indexListLiterals(*n, byComment[n->sourceComment]);
        }
        for (const auto& [k, sub] : d->subgraphs()) stack.push_back(sub.get());
    }
    std::map<std::string, size_t> used;
    for (const auto& n : g.nodes()) {
        if (n->kind() != NodeKind::GetAttr || g.subgraph(n->target()) || g.constants.count(n->target())) continue;
        auto it = byComment.find(n->sourceComment);
        if (it == byComment.end()) continue;
        size_t& k = used[n->sourceComment];
        for (; k < it->second.size(); ++k) {
            auto t = it->second[k];
            if (!t) continue;
            if (!n->meta.empty() && (t->shape() != n->meta[0].shape || t->dtype() != n->meta[0].dtype)) continue;
            if (!n->meta.empty()) t->meta.device = n->meta[0].device;
            g.constants[n->target()] = *t;
            filled.push_back(n->target());
            ++k;
            break;
        }
    }
    return filled;
}

}  // namespace fxray
