#include "pass/trace_json.h"

namespace fxray {

nlohmann::json traceToJson(const CompileTrace& t, bool events) {
    using nlohmann::json;
    json j;
    j["pipeline"] = t.pipeline;
    j["nodes_before"] = t.nodesBefore;
    j["nodes_after"] = t.nodesAfter;
    j["ms"] = t.ms;
    j["ok"] = t.ok();
    j["passes"] = json::array();
    for (const auto& p : t.passes) {
        json jp;
        jp["name"] = p.name;
        jp["graph"] = p.graph;
        jp["changed"] = p.changed;
        jp["ms"] = p.ms;
        jp["skipped"] = p.skipped;
        jp["failed"] = p.failed;
        if (p.failed) jp["error"] = p.error;
        jp["nodes_before"] = p.nodesBefore;
        jp["nodes_after"] = p.nodesAfter;
        jp["matches"] = json::array();
        for (const auto& m : p.matches)
            jp["matches"].push_back({{"pattern", m.pattern}, {"nodes", m.nodes}, {"new_nodes", m.newNodes}});
        jp["near_misses"] = json::array();
        for (const auto& m : p.nearMisses)
            jp["near_misses"].push_back({{"pattern", m.pattern}, {"node", m.node}, {"reason", m.reason}});
        if (p.droppedNearMisses) jp["near_misses_dropped"] = p.droppedNearMisses;
        if (events) {
            jp["events"] = json::array();
            for (const auto& e : p.events) {
                json je = {{"kind", provenanceKindName(e.kind)}, {"node", e.node}};
                if (!e.replacement.empty()) je["replacement"] = e.replacement;
                if (!e.target.empty()) je["target"] = e.target;
                if (!e.pattern.empty()) je["pattern"] = e.pattern;
                jp["events"].push_back(std::move(je));
            }
        } else {
            size_t c = 0, r = 0, x = 0;
            for (const auto& e : p.events)
                (e.kind == ProvenanceEvent::Kind::Created ? c : e.kind == ProvenanceEvent::Kind::Replaced ? r : x)++;
            jp["events"] = {{"created", c}, {"replaced", r}, {"erased", x}};
        }
        json st = json::object();
        for (const auto& s : p.statistics) st[s.name] = s.value;
        jp["statistics"] = st;
        j["passes"].push_back(std::move(jp));
    }
    j["failures"] = json::array();
    for (const auto& f : t.failures)
        j["failures"].push_back({{"pass", f.pass}, {"graph", f.graph}, {"message", f.message}});
    return j;
}

}  // namespace fxray
