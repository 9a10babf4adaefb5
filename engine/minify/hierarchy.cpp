#include "minify/hierarchy.h"

#include <map>
#include <regex>
#include <set>

namespace fxray::minify {

std::string provenanceKey(const Node& n) {
    const std::string& c = n.sourceComment;
    if (c.rfind("File:", 0) != 0) return "";
    std::string first = c.substr(0, c.find('\n'));
    auto in = first.find(" in ");
    return in == std::string::npos ? first : first.substr(0, in);
}

std::string layerKey(const std::string& name) {
    static const std::regex re(R"((?:^|_)((?:layers?|blocks?|h|encoder_layer|decoder_layer)_+\d+)(?:_|$))");
    std::smatch m;
    if (!std::regex_search(name, m, re)) return "";
    std::string k = m[1].str();
    // `layers___0` (getattr spelling) and `layers_0` are the same layer.
    std::string out;
    for (char ch : k)
        if (!(ch == '_' && !out.empty() && out.back() == '_')) out += ch;
    return out;
}

namespace {

std::vector<std::vector<int>> byLayerName(const Workspace& ws, const std::vector<int>& nodes) {
    std::vector<std::vector<int>> groups;
    std::map<std::string, size_t> index;
    int distinct = 0;
    for (int i : nodes) {
        std::string k = layerKey(ws.graph().nodes()[static_cast<size_t>(i)]->name());
        if (k.empty()) {
            // Unnamed glue joins the layer before it.
            if (groups.empty()) groups.emplace_back();
            groups.back().push_back(i);
            continue;
        }
        auto it = index.find(k);
        if (it == index.end()) {
            index[k] = groups.size();
            groups.push_back({i});
            ++distinct;
        } else {
            groups[it->second].push_back(i);
        }
    }
    if (distinct < 2) return {};
    return groups;
}

std::vector<std::vector<int>> byInstance(const Workspace& ws, const std::vector<int>& nodes) {
    std::vector<std::vector<int>> groups(1);
    std::set<std::string> seen;
    std::string prev;
    for (int i : nodes) {
        std::string k = provenanceKey(*ws.graph().nodes()[static_cast<size_t>(i)]);
        if (!k.empty() && k != prev && seen.count(k) && !groups.back().empty()) {
            groups.emplace_back();
            seen.clear();
        }
        if (!k.empty()) {
            seen.insert(k);
            prev = k;
        }
        groups.back().push_back(i);
    }
    return groups;
}

std::vector<std::vector<int>> byLine(const Workspace& ws, const std::vector<int>& nodes) {
    std::vector<std::vector<int>> groups;
    std::string prev = "\x01";
    for (int i : nodes) {
        std::string k = provenanceKey(*ws.graph().nodes()[static_cast<size_t>(i)]);
        if (groups.empty() || k != prev) groups.emplace_back();
        groups.back().push_back(i);
        prev = k;
    }
    return groups;
}

}  // namespace

std::vector<std::vector<std::vector<int>>> hierarchyLevels(const Workspace& ws, const std::vector<int>& nodes) {
    std::vector<std::vector<std::vector<int>>> levels;
    size_t last = 1;
    for (auto groups : {byLayerName(ws, nodes), byInstance(ws, nodes), byLine(ws, nodes)}) {
        // Useful levels are strictly finer than the previous one and coarser than single nodes.
        if (groups.size() < 2 || groups.size() <= last || groups.size() >= nodes.size()) continue;
        last = groups.size();
        levels.push_back(std::move(groups));
    }
    return levels;
}

}  // namespace fxray::minify
