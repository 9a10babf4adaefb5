// fxray info FILE [--json]: the graphs of a file with stage, node counts, op histogram, and what
// fxray could not resolve (unknown ops, metadata disagreements).
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/common.h"

#include "import/compile_story.h"
#include "import/compile_story_format.h"

#include <nlohmann/json.hpp>

namespace fxray::cli {

int cmdInfo(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    std::string perr;
    auto a = parseArgs(argv, {}, {"--json", "--help"}, perr);
    if (!a) return reportError(err, makeError(perr));
    if (a->has("--help")) {
        out << "usage: fxray info FILE [--json]\n";
        return Ok;
    }
    if (a->positional.size() != 1) return reportError(err, makeError("info takes one FILE"));
    auto f = loadFile(a->positional[0]);
    if (!f.ok()) return reportError(err, f.error());
    // A TORCH_TRACE also tells the story of its compiles (breaks, recompiles, failures).
    std::optional<CompileStory> story;
    if (f->format == "torch-trace") {
        auto st = readCompileStory(a->positional[0]);
        if (st.ok()) story = std::move(*st);
    }
    nlohmann::json j;
    j["file"] = f->path.string();
    j["format"] = f->format;
    j["warnings"] = f->warnings;
    j["artifacts"] = nlohmann::json::array();
    for (const auto& art : f->artifacts)
        j["artifacts"].push_back({{"compile_id", art.compileId}, {"name", art.name}, {"bytes", art.text.size()}});
    j["graphs"] = nlohmann::json::array();
    for (const auto& lg : f->graphs) {
        const Graph& g = *lg.graph;
        auto hist = opHistogram(g);
        nlohmann::json jg;
        jg["id"] = lg.id;
        jg["stage"] = lg.stage;
        jg["nodes"] = g.size();  // PyTorch's len(graph.nodes): placeholders and output included
        jg["call_nodes"] = g.computeNodeCount();
        jg["placeholders"] = g.placeholders().size();
        jg["outputs"] = g.outputs().size();
        jg["ops"] = hist;
        jg["unknown_ops"] = lg.unknownOps;
        jg["subgraphs"] = nlohmann::json::array();
        for (const auto& [name, sub] : g.subgraphs()) jg["subgraphs"].push_back(name);
        jg["metadata"] = {{"checked", lg.inference.checked},
                          {"inferred", lg.inference.filled},
                          {"mismatches", lg.inference.mismatches.size()},
                          {"unresolved", lg.inference.unresolved.size()}};
        nlohmann::json mism = nlohmann::json::array();
        for (const auto& m : lg.inference.mismatches)
            mism.push_back({{"node", m.graph.empty() ? m.node : m.graph + "." + m.node},
                            {"what", m.what},
                            {"annotated", m.annotated},
                            {"inferred", m.inferred}});
        jg["metadata_mismatches"] = mism;
        auto status = g.verify();
        jg["verified"] = status.ok();
        if (!status.ok()) jg["verify_error"] = status.error().str();
        char fp[17];
        std::snprintf(fp, sizeof fp, "%016llx", static_cast<unsigned long long>(g.fingerprint()));
        jg["fingerprint"] = fp;
        jg["notes"] = lg.notes;
        if (!lg.inputSpecs.empty()) {
            nlohmann::json specs = nlohmann::json::array();
            for (const auto& s : lg.inputSpecs) {
                nlohmann::json js{{"name", s.name}};
                if (s.isSymInt)
                    js["symint"] = s.symValue;
                else
                    js["tensor"] = s.meta.annotation();
                if (s.requiresGrad) js["requires_grad"] = true;
                specs.push_back(std::move(js));
            }
            jg["inputs"] = std::move(specs);
        }
        if (lg.lowered) {
            jg["lowered"] = {{"nodes", lg.lowered->size()},
                             {"ops", opHistogram(*lg.lowered)},
                             {"unknown_ops", lg.loweredUnknownOps},
                             {"metadata_mismatches", lg.loweredInference.mismatches.size()},
                             {"unresolved", lg.loweredInference.unresolved.size()}};
        }
        j["graphs"].push_back(jg);
    }
    if (story) {
        j["compiles"] = compilesJson(*story);
        j["compile_graph_breaks"] = nlohmann::json::array();
        for (const auto& b : story->graphBreaks)
            j["compile_graph_breaks"].push_back(
                {{"reason", b.reason},
                 {"user_frame", {{"file", b.userFrame.file}, {"line", b.userFrame.line}, {"code", b.userFrame.code}}},
                 {"count", b.count},
                 {"compile_ids", b.compileIds}});
        j["raw_records"] = rawTraceJson(*story);
    }
    if (a->has("--json")) {
        // Strings from a log may be cut mid-character or not be UTF-8 at all.
        out << j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
        return Ok;
    }
    out << f->path.string() << "  (" << f->format << ", " << f->graphs.size() << " graph"
        << (f->graphs.size() == 1 ? "" : "s") << ")\n";
    for (const auto& w : f->warnings) out << "  warning: " << w << "\n";
    if (story) {
        out << compileStorySummary(*story) << "\n" << compileStoryTree(*story);
        for (const auto& r : story->raw)
            out << "  raw " << r.file << ":" << r.line << ": " << r.why << (r.kind.empty() ? "" : " (" + r.kind + ")")
                << "\n";
        if (story->rawDropped) out << "  ... " << story->rawDropped << " more raw records\n";
    }
    for (const auto& art : f->artifacts)
        out << "  artifact " << (art.compileId.empty() ? "" : art.compileId + "/") << art.name << " ("
            << art.text.size() << " bytes)\n";
    for (const auto& jg : j["graphs"]) {
        out << "graph " << jg["id"].get<std::string>() << "  stage " << jg["stage"].get<std::string>() << "  nodes "
            << jg["nodes"].get<size_t>() << "  inputs " << jg["placeholders"].get<size_t>() << "  outputs "
            << jg["outputs"].get<size_t>() << "  fingerprint " << jg["fingerprint"].get<std::string>() << "\n";
        std::vector<std::pair<int, std::string>> ops;
        for (auto& [k, v] : jg["ops"].items()) ops.emplace_back(-v.get<int>(), k);
        std::sort(ops.begin(), ops.end());
        out << "  ops:";
        for (auto& [c, k] : ops) out << " " << k << " x" << -c << ";";
        out << "\n";
        if (!jg["subgraphs"].empty()) {
            out << "  subgraphs:";
            for (auto& s : jg["subgraphs"]) out << " " << s.get<std::string>();
            out << "\n";
        }
        if (!jg["unknown_ops"].empty()) {
            out << "  unknown ops (graph loads; execution refuses them):";
            for (auto& s : jg["unknown_ops"]) out << " " << s.get<std::string>();
            out << "\n";
        }
        const auto& md = jg["metadata"];
        out << "  metadata: " << md["checked"].get<int>() << " annotations checked against inference, "
            << md["mismatches"].get<size_t>() << " disagree, " << md["inferred"].get<int>() << " inferred, "
            << md["unresolved"].get<size_t>() << " unresolved\n";
        for (const auto& m : jg["metadata_mismatches"])
            out << "    " << m["node"].get<std::string>() << ": " << m["what"].get<std::string>() << " annotated "
                << m["annotated"].get<std::string>() << ", inferred " << m["inferred"].get<std::string>() << "\n";
        if (!jg["verified"].get<bool>()) out << "  verify: " << jg["verify_error"].get<std::string>() << "\n";
        if (jg.contains("lowered")) {
            const auto& lw = jg["lowered"];
            out << "  lowered to ATen for execution: " << lw["nodes"].get<size_t>() << " nodes, "
                << lw["unknown_ops"].size() << " unknown ops, " << lw["metadata_mismatches"].get<size_t>()
                << " metadata disagreements\n";
        }
        for (const auto& note : jg["notes"]) out << "  note: " << note.get<std::string>() << "\n";
    }
    return Ok;
}

}  // namespace fxray::cli
