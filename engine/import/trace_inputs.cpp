#include "import/trace_inputs.h"

#include <nlohmann/json.hpp>

namespace fxray {

using json = nlohmann::json;

std::string dynamoPlaceholderName(std::string_view source) {
    std::string out;
    bool inRun = false;
    for (char c : source) {
        const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (alnum) {
            out += c;
            inRun = false;
        } else if (!inRun) {
            out += '_';
            inRun = true;
        }
    }
    return out;
}

namespace {

std::optional<int64_t> intField(const json& v, const char* key) {
    auto it = v.find(key);
    if (it == v.end() || !it->is_number_integer()) return std::nullopt;
    return it->get<int64_t>();
}

/// An int list; nullopt when absent or when an entry is symbolic (a string like "s0").
std::optional<std::vector<int64_t>> intList(const json& v, const char* key) {
    auto it = v.find(key);
    if (it == v.end() || !it->is_array()) return std::nullopt;
    std::vector<int64_t> out;
    for (const auto& e : *it) {
        if (!e.is_number_integer()) return std::nullopt;
        out.push_back(e.get<int64_t>());
    }
    return out;
}

/// "device(type='cuda', index=0)" or "cuda:0" -> Device.
std::optional<Device> deviceOf(const std::string& s) {
    if (s.rfind("device(", 0) != 0) return parseDevice(s);
    auto q1 = s.find("type='");
    if (q1 == std::string::npos) return std::nullopt;
    q1 += 6;
    auto q2 = s.find('\'', q1);
    if (q2 == std::string::npos) return std::nullopt;
    std::string text = s.substr(q1, q2 - q1);
    auto idx = s.find("index=", q2);
    if (idx != std::string::npos) {
        size_t end = idx + 6;
        while (end < s.size() && s[end] >= '0' && s[end] <= '9') ++end;
        if (end > idx + 6) text += ":" + s.substr(idx + 6, end - idx - 6);
    }
    return parseDevice(text);
}

bool boolField(const json& v, const char* key) {
    auto it = v.find(key);
    return it != v.end() && it->is_boolean() && it->get<bool>();
}

}  // namespace

void TraceInputCatalog::addTensor(const std::string& compileId, const json& v) {
    if (!v.is_object()) return;
    auto id = intField(v, "id");
    auto describer = intField(v, "describer_id");
    auto size = intList(v, "size");
    auto stride = intList(v, "stride");
    auto dt = v.find("dtype");
    if (!id || !describer || !size || dt == v.end() || !dt->is_string()) return;
    auto dtype = dtypeFromTorchName(dt->get<std::string>());
    if (!dtype) return;
    InputSpec s;
    s.meta.dtype = *dtype;
    s.meta.shape = *size;
    if (stride && stride->size() == size->size())
        s.meta.strides = *stride;
    else
        s.meta.strides = TensorMeta::contiguousStrides(*size);
    s.meta.offset = intField(v, "storage_offset").value_or(0);
    auto dev = v.find("device");
    if (dev != v.end() && dev->is_string())
        if (auto d = deviceOf(dev->get<std::string>())) s.meta.device = *d;
    s.requiresGrad = boolField(v, "requires_grad");
    m_tensors[{compileId, *describer, *id}] = std::move(s);
}

void TraceInputCatalog::addSource(const std::string& compileId, const json& v) {
    if (!v.is_object()) return;
    auto id = intField(v, "id");
    auto describer = intField(v, "describer_id");
    auto src = v.find("source");
    if (!id || !describer || src == v.end() || !src->is_string()) return;
    m_sources[compileId][dynamoPlaceholderName(src->get<std::string>())] = {*describer, *id};
}

size_t TraceInputCatalog::attach(LoadedGraph& dynamo, const std::string& compileId) const {
    auto sources = m_sources.find(compileId);
    if (sources == m_sources.end()) return 0;
    std::vector<InputSpec> specs;
    size_t described = 0;
    for (const Node* p : dynamo.graph->placeholders()) {
        InputSpec s;
        s.name = p->name();
        // Dynamo's placeholder nodes are named `l_x_`; their target keeps the source's `L_x_`.
        auto src = sources->second.find(p->target().empty() ? p->name() : p->target());
        if (src != sources->second.end()) {
            auto t = m_tensors.find(Key{compileId, src->second.first, src->second.second});
            if (t != m_tensors.end()) {
                s = t->second;
                s.name = p->name();
                ++described;
            }
        }
        specs.push_back(std::move(s));
    }
    // All or nothing: a partial list would leave `run` guessing which placeholders it covers.
    if (described == 0 || described != specs.size()) return 0;
    dynamo.inputSpecs = std::move(specs);
    return described;
}

size_t inheritInputSpecs(LoadedGraph& aot, const LoadedGraph& dynamo) {
    if (dynamo.inputSpecs.empty() || !aot.inputSpecs.empty()) return 0;
    std::vector<Node*> ph = aot.graph->placeholders();
    if (ph.size() < dynamo.inputSpecs.size()) return 0;
    std::vector<InputSpec> specs;
    for (size_t i = 0; i < dynamo.inputSpecs.size(); ++i) {
        const Node* p = ph[i];
        const InputSpec& d = dynamo.inputSpecs[i];
        if (p->meta.size() != 1 || p->meta[0].shape != d.meta.shape || p->meta[0].dtype != d.meta.dtype) return 0;
        InputSpec s = d;
        s.name = p->name();
        specs.push_back(std::move(s));
    }
    // Tangents (joint graph) come after the Dynamo inputs: their spec is their annotation.
    for (size_t i = specs.size(); i < ph.size(); ++i) {
        if (ph[i]->meta.size() != 1 || ph[i]->meta[0].isSymbolic()) return 0;
        InputSpec s;
        s.name = ph[i]->name();
        s.meta = ph[i]->meta[0];
        specs.push_back(std::move(s));
    }
    aot.inputSpecs = std::move(specs);
    return aot.inputSpecs.size();
}

}  // namespace fxray
