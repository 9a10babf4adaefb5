#include "import/output_code_map.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <map>

namespace fxray {

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

bool identChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

/// The identifier at the start of s ("" when none).
std::string_view identAt(std::string_view s) {
    size_t n = 0;
    while (n < s.size() && identChar(s[n])) ++n;
    return s.substr(0, n);
}

/// The first line of the comment block that ends just above `line` (`line` when there is none).
int commentBlockStart(const std::vector<std::string_view>& lines, int line) {
    int s = line;
    while (s > 0 && trim(lines[size_t(s - 1)]).starts_with("#")) --s;
    return s;
}

/// The first line of a call site ending at `line`: the comments above it, and the stream lookup
/// Inductor puts between those comments and a Triton launch.
int callBlockStart(const std::vector<std::string_view>& lines, int line) {
    int s = line;
    while (s > 0) {
        const std::string_view prev = trim(lines[size_t(s - 1)]);
        if (!prev.starts_with("#") && prev.find("= get_raw_stream(") == std::string_view::npos) break;
        --s;
    }
    return s;
}

/// cppCodeToPost of a provenance payload: "NAME:N" -> nodes.
std::map<std::string, std::vector<std::string>> provenanceMap(std::string_view json) {
    std::map<std::string, std::vector<std::string>> out;
    if (json.empty()) return out;
    auto j = nlohmann::json::parse(json.begin(), json.end(), nullptr, false);
    if (!j.is_object() || !j.contains("cppCodeToPost") || !j["cppCodeToPost"].is_object()) return out;
    for (const auto& [key, val] : j["cppCodeToPost"].items()) {
        if (!val.is_array()) continue;
        for (const auto& n : val)
            if (n.is_string()) out[key].push_back(n.get<std::string>());
    }
    return out;
}

}  // namespace

std::vector<int> OutputCodeMap::kernelsAtLine(int line) const {
    std::vector<int> out;
    for (size_t k = 0; k < kernels.size(); ++k)
        for (const auto& [a, b] : kernels[k].ranges)
            if (line >= a && line <= b) {
                out.push_back(int(k));
                break;
            }
    return out;
}

std::vector<int> OutputCodeMap::kernelsOfNode(const std::string& node) const {
    std::vector<int> out;
    for (size_t k = 0; k < kernels.size(); ++k)
        if (std::find(kernels[k].nodes.begin(), kernels[k].nodes.end(), node) != kernels[k].nodes.end())
            out.push_back(int(k));
    return out;
}

OutputCodeMap mapOutputCode(std::string_view code, std::string_view provenanceJson) {
    OutputCodeMap m;
    std::vector<std::string_view> lines;
    for (size_t p = 0; p <= code.size();) {
        size_t e = code.find('\n', p);
        if (e == std::string_view::npos) e = code.size();
        lines.push_back(code.substr(p, e - p));
        p = e + 1;
    }
    const auto prov = provenanceMap(provenanceJson);
    std::map<std::string, size_t> byName;  // defined kernels

    for (size_t i = 0; i < lines.size(); ++i) {
        const std::string_view t = trim(lines[i]);
        if (m.aotId.empty() && t.starts_with("# AOT ID: ['")) {
            auto s = t.substr(12);
            m.aotId = std::string(s.substr(0, s.find('\'')));
            continue;
        }
        // NAME = async_compile.KIND('NAME', '''  ...  ''', device_str=...)
        if (lines[i].empty() || !identChar(lines[i][0])) continue;
        const std::string_view name = identAt(lines[i]);
        std::string_view rest = trim(lines[i].substr(name.size()));
        if (!rest.starts_with("= async_compile.")) continue;
        OutputCodeKernel k;
        k.name = std::string(name);
        const int begin = commentBlockStart(lines, int(i));
        int end = int(i);
        if (rest.size() >= 3 && rest.substr(rest.size() - 3) == "'''") {
            for (size_t j = i + 1; j < lines.size(); ++j)
                if (lines[j].starts_with("'''")) {
                    end = int(j);
                    break;
                }
        }
        k.ranges.emplace_back(begin, end);
        // The graph fragment's computed nodes: "#   %name : ... = call_function[...]".
        for (int c = begin; c < int(i); ++c) {
            std::string_view cl = trim(lines[size_t(c)]);
            if (!cl.starts_with("#")) continue;
            cl = trim(cl.substr(1));
            if (!cl.starts_with("%") || cl.find("= call_function[") == std::string_view::npos) continue;
            std::string n(identAt(cl.substr(1)));
            if (!n.empty() && std::find(k.nodes.begin(), k.nodes.end(), n) == k.nodes.end()) k.nodes.push_back(n);
        }
        byName[k.name] = m.kernels.size();
        m.kernels.push_back(std::move(k));
        i = size_t(end);
    }

    // Call sites: "NAME.run(" for defined kernels, "extern_kernels.X(" each a kernel of its own.
    std::vector<bool> provUsed(m.kernels.size(), false);
    for (size_t i = 0; i < lines.size(); ++i) {
        const std::string_view t = trim(lines[i]);
        if (t.empty() || t[0] == '#' || lines[i].empty() || !std::isspace(static_cast<unsigned char>(lines[i][0])))
            continue;
        std::string callee;
        if (t.starts_with("extern_kernels.")) {
            callee = "extern_kernels." + std::string(identAt(t.substr(15)));
            if (t.substr(callee.size(), 1) != "(") continue;
        } else {
            const std::string_view id = identAt(t);
            if (id.empty() || !byName.count(std::string(id)) || !t.substr(id.size()).starts_with(".run(")) continue;
            callee = std::string(id);
        }
        const int begin = callBlockStart(lines, int(i));
        std::string handle;
        for (int c = begin; c < int(i); ++c) {
            std::string_view cl = trim(lines[size_t(c)]);
            const std::string_view tag = "# [Provenance debug handles] ";
            if (cl.starts_with(tag)) handle = std::string(trim(cl.substr(tag.size())));
        }
        size_t idx;
        if (auto it = byName.find(callee); it != byName.end()) {
            idx = it->second;
        } else {
            idx = m.kernels.size();
            OutputCodeKernel k;
            k.name = callee;
            m.kernels.push_back(std::move(k));
            provUsed.push_back(false);
        }
        OutputCodeKernel& k = m.kernels[idx];
        k.ranges.emplace_back(begin, int(i));
        if (!handle.empty() && k.handle.empty()) k.handle = handle;
        // Provenance names the post-grad nodes exactly; it replaces the fragment's guess.
        if (auto p = prov.find(handle); !handle.empty() && p != prov.end()) {
            if (!provUsed[idx]) k.nodes.clear();
            provUsed[idx] = true;
            for (const auto& n : p->second)
                if (std::find(k.nodes.begin(), k.nodes.end(), n) == k.nodes.end()) k.nodes.push_back(n);
        }
    }
    return m;
}

}  // namespace fxray
