#include "import/loader.h"

#include "import/fx_text_reader.h"
#include "import/lifted_constants.h"

namespace fxray {

std::string stageFromFileName(const std::filesystem::path& p) {
    std::string stem = p.stem().string();
    static const std::pair<const char*, const char*> table[] = {
        {"joint", "aot_joint_graph"}, {"forward", "aot_forward_graph"}, {"backward", "aot_backward_graph"},
        {"inference", "aot_inference_graph"}, {"dynamo", "dynamo_output_graph"},
        {"dynamo_graph", "dynamo_output_graph"}, {"export_graph", "export_graph"},
        {"fx_graph_readable", "aot_graph"}, {"fx_graph_transformed", "inductor_post_grad_graph"},
        {"minified_joint", "aot_joint_graph"},
    };
    for (auto& [k, v] : table)
        if (stem == k) return v;
    return stem;
}

namespace {

void linkConstants(LoadedGraph& lg, const std::filesystem::path& path) {
    auto missing = missingConstants(*lg.graph);
    if (missing.empty()) return;
    for (const char* sibling : {"dynamo.py", "dynamo_graph.py"}) {
        auto p = path.parent_path() / sibling;
        if (p == path || !std::filesystem::exists(p)) continue;
        auto dyn = readFxFile(p);
        if (!dyn.ok()) continue;
        auto filled = linkLiftedConstants(*lg.graph, **dyn);
        if (!filled.empty()) {
            std::string names;
            for (auto& f : filled) names += (names.empty() ? "" : ", ") + f;
            lg.notes.push_back("lifted constants " + names + " taken from torch.tensor literals in " + p.string());
        }
        return;
    }
}

} // namespace

void finishGraph(LoadedGraph& lg, const Graph* dynamo) {
    lg.unknownOps = resolveOps(*lg.graph);
    if (dynamo && !missingConstants(*lg.graph).empty()) linkLiftedConstants(*lg.graph, *dynamo);
    lg.inference = inferMeta(*lg.graph);
    lg.graph->rebuildUsers();
}

Expected<LoadedFile> loadFile(const std::filesystem::path& path) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
        Diagnostic d = makeError("no such file or folder");
        d.file = path.string();
        return d;
    }
    if (std::filesystem::is_directory(path, ec)) {
        Diagnostic d = makeError("folders are not supported yet: open a graph file (.py) inside it");
        d.file = path.string();
        return d;
    }
    auto g = readFxFile(path);
    if (!g.ok()) return g.error();
    LoadedFile f;
    f.path = path;
    LoadedGraph lg;
    lg.id = "0";
    lg.stage = stageFromFileName(path);
    lg.graph = std::move(g).value();
    linkConstants(lg, path);
    finishGraph(lg);
    f.format = "fx-text";
    f.graphs.push_back(std::move(lg));
    return f;
}

Expected<LoadedGraph*> selectGraph(LoadedFile& f, const std::string& sel) {
    if (f.graphs.empty()) {
        Diagnostic d = makeError("file holds no graph");
        d.file = f.path.string();
        return d;
    }
    if (sel.empty()) {
        if (f.graphs.size() == 1) return &f.graphs[0];
        for (auto& g : f.graphs)
            if (g.stage == "aot_joint_graph") return &g;
        return &f.graphs[0];
    }
    for (auto& g : f.graphs)
        if (g.id == sel || g.stage == sel) return &g;
    bool digits = !sel.empty() && sel.find_first_not_of("0123456789") == std::string::npos;
    if (digits) {
        size_t i = std::stoul(sel);
        if (i < f.graphs.size()) return &f.graphs[i];
    }
    std::string avail;
    for (size_t i = 0; i < f.graphs.size(); ++i) avail += (i ? ", " : "") + f.graphs[i].id + " (" + f.graphs[i].stage + ")";
    Diagnostic d = makeError("no graph '" + sel + "'; available: " + avail);
    d.file = f.path.string();
    return d;
}

} // namespace fxray
