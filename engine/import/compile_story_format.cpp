#include "import/compile_story_format.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <map>
#include <memory>

namespace fxray {

using json = nlohmann::json;

namespace {

json frameJson(const UserFrame& f) { return {{"file", f.file}, {"line", f.line}, {"code", f.code}}; }

json breakJson(const GraphBreak& b, bool withIds) {
    json j = {{"reason", b.reason}, {"user_frame", frameJson(b.userFrame)}, {"count", b.count}};
    if (withIds) j["compile_ids"] = b.compileIds;
    return j;
}

std::string baseName(const std::string& path, bool shortPaths) {
    if (!shortPaths) return path;
    size_t s = path.find_last_of('/');
    return s == std::string::npos ? path : path.substr(s + 1);
}

std::string firstLine(const std::string& s, size_t max = 160) {
    std::string l = s.substr(0, s.find('\n'));
    if (l.size() > max) l = l.substr(0, max - 3) + "...";
    return l;
}

std::string seconds(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3fs", s);
    return buf;
}

/// A node of the stack trie: frames in first-seen order, compiles that started here.
struct TrieNode {
    std::vector<std::pair<StackFrame, std::unique_ptr<TrieNode>>> children;
    std::vector<size_t> compiles;

    TrieNode& child(const StackFrame& f) {
        for (auto& [fr, n] : children)
            if (fr == f) return *n;
        children.emplace_back(f, std::make_unique<TrieNode>());
        return *children.back().second;
    }
};

class TreePrinter {
public:
    TreePrinter(const CompileStory& s, bool shortPaths) : m_s(s), m_short(shortPaths) {}

    std::string print() {
        std::map<int, TrieNode> byRank;
        for (size_t i = 0; i < m_s.compiles.size(); ++i) {
            const CompileEntry& e = m_s.compiles[i];
            // Later attempts log no dynamo_start: they sit where their first attempt started.
            const std::vector<StackFrame>* stack = &e.stack;
            if (stack->empty())
                for (const auto& o : m_s.compiles)
                    if (o.rank == e.rank && o.frameId == e.frameId && o.frameCompileId == e.frameCompileId &&
                        o.compiledAutogradId == e.compiledAutogradId && !o.stack.empty()) {
                        stack = &o.stack;
                        break;
                    }
            TrieNode* n = &byRank[e.rank];
            for (const auto& f : *stack) n = &n->child(f);
            n->compiles.push_back(i);
        }
        for (auto& [rank, root] : byRank) {
            int indent = 0;
            if (m_s.multiRank) {
                m_out += "rank " + std::to_string(rank) + "\n";
                indent = 2;
            }
            printCompiles(root, indent);
            printNode(root, indent);
        }
        return m_out;
    }

private:
    void printNode(const TrieNode& n, int indent) {
        // As tlparse does: a lone child continues at the same depth, siblings indent.
        int childIndent = n.children.size() > 1 ? indent + 2 : indent;
        for (const auto& [f, c] : n.children) {
            std::string line(size_t(indent), ' ');
            line += baseName(f.file, m_short) + ":" + std::to_string(f.line) + " in " + f.name;
            if (!f.code.empty()) line += "  `" + firstLine(f.code, 100) + "`";
            m_out += line + "\n";
            printCompiles(*c, childIndent + 2);
            printNode(*c, childIndent);
        }
    }

    void printCompiles(const TrieNode& n, int indent) {
        const std::string pad(size_t(indent), ' ');
        const std::string sub(size_t(indent) + 4, ' ');
        for (size_t i : n.compiles) {
            const CompileEntry& e = m_s.compiles[i];
            std::string line = pad + "[" + e.id + "] " + compileStatusName(e.status);
            if (!e.function.empty()) line += "  " + e.function;
            for (const auto& [k, v] : e.metrics)
                if (k == "entire_frame_compile_time") line += "  " + seconds(v);
            if (e.guardCount) line += "  " + std::to_string(*e.guardCount) + " guards";
            if (!e.kernels.empty())
                line += "  " + std::to_string(e.kernels.size()) + (e.kernels.size() == 1 ? " kernel" : " kernels");
            m_out += line + "\n";
            if (e.status == CompileStatus::Restarted) {
                for (const auto& b : e.graphBreaks)
                    m_out += sub + "restarted at " + baseName(b.userFrame.file, m_short) + ":" +
                             std::to_string(b.userFrame.line) + ": " + firstLine(b.reason) + "\n";
                continue;
            }
            for (const auto& b : e.graphBreaks) {
                m_out += sub + "graph break at " + baseName(b.userFrame.file, m_short) + ":" +
                         std::to_string(b.userFrame.line) + ": " + firstLine(b.reason);
                if (b.count > 1) m_out += " (x" + std::to_string(b.count) + ")";
                m_out += "\n";
                if (!b.userFrame.code.empty()) m_out += sub + "  | " + firstLine(b.userFrame.code, 120) + "\n";
            }
            for (const auto& r : e.recompileReasons) m_out += sub + "recompiled because " + firstLine(r) + "\n";
            for (const auto& g : e.failedGuards) m_out += sub + "guard failed later: " + firstLine(g) + "\n";
            for (const auto& s : e.symbols) {
                m_out += sub + (s.specialized ? "specialized " : "symbol ") + s.name + " = " + s.hint;
                if (!s.source.empty()) m_out += " from " + s.source;
                if (!s.range.empty()) m_out += " in " + s.range;
                m_out += "\n";
            }
            if (e.failure) {
                m_out += sub + "failed: " + (e.failure->type.empty() ? "" : e.failure->type + ": ") +
                         firstLine(e.failure->message) + "\n";
            }
        }
    }

    const CompileStory& m_s;
    bool m_short;
    std::string m_out;
};

}  // namespace

json compileEntryJson(const CompileEntry& e, bool withRank) {
    json j;
    j["id"] = e.id;
    if (withRank) j["rank"] = e.rank;
    j["status"] = compileStatusName(e.status);
    j["graph_breaks"] = json::array();
    for (const auto& b : e.graphBreaks) j["graph_breaks"].push_back(breakJson(b, false));
    j["recompile_reasons"] = e.recompileReasons;
    j["guards"] = {{"count", e.guardCount ? json(*e.guardCount) : json()}, {"failed", e.failedGuards}};
    if (e.failure) {
        json f = {{"type", e.failure->type}, {"message", e.failure->message}, {"stack", e.failure->stack}};
        if (!e.failure->userFrame.file.empty()) f["user_frame"] = frameJson(e.failure->userFrame);
        j["failure"] = std::move(f);
    } else {
        j["failure"] = nullptr;
    }
    json m = json::object();
    for (const auto& [k, v] : e.metrics) m[k] = v;
    j["metrics"] = std::move(m);
    j["kernels"] = json::array();
    for (const auto& k : e.kernels) j["kernels"].push_back({{"name", k.name}, {"nodes", k.nodes}});
    j["symbols"] = json::array();
    for (const auto& s : e.symbols) {
        json js = {{"name", s.name}, {"hint", s.hint}, {"source", s.source}, {"range", s.range}};
        if (s.specialized) {
            js["specialized"] = true;
            js["reason"] = s.reason;
        }
        j["symbols"].push_back(std::move(js));
    }
    return j;
}

json compilesJson(const CompileStory& s) {
    json a = json::array();
    for (const auto& e : s.compiles) a.push_back(compileEntryJson(e, s.multiRank));
    return a;
}

json rawTraceJson(const CompileStory& s) {
    json a = json::array();
    for (const auto& r : s.raw)
        a.push_back({{"file", r.file},
                     {"line", r.line},
                     {"kind", r.kind},
                     {"compile_id", r.compileId},
                     {"why", r.why},
                     {"text", r.text}});
    return {{"entries", a}, {"not_kept", s.rawDropped}};
}

std::string compileStoryTree(const CompileStory& s, bool shortPaths) { return TreePrinter(s, shortPaths).print(); }

std::string compileStorySummary(const CompileStory& s) {
    std::map<std::string, int> counts;
    for (const auto& e : s.compiles) ++counts[compileStatusName(e.status)];
    std::string out = std::to_string(s.compiles.size()) + " compile" + (s.compiles.size() == 1 ? "" : "s");
    const char* order[] = {"ok", "graph_break", "restarted", "failed", "cache_hit"};
    bool first = true;
    for (const char* k : order) {
        auto it = counts.find(k);
        if (it == counts.end()) continue;
        out += (first ? ": " : ", ") + std::to_string(it->second) + " " + k;
        first = false;
    }
    if (!s.graphBreaks.empty())
        out += "; " + std::to_string(s.graphBreaks.size()) + " distinct graph break" +
               (s.graphBreaks.size() == 1 ? "" : "s");
    if (!s.raw.empty() || s.rawDropped)
        out += "; " + std::to_string(s.raw.size() + s.rawDropped) + " raw record" +
               (s.raw.size() + s.rawDropped == 1 ? "" : "s");
    return out;
}

}  // namespace fxray
