#include "import/loader.h"
#include "import/session_file.h"

#include "import/constants_folder.h"
#include "import/debug_dir_reader.h"
#include "import/dynamo_lowering.h"
#include "import/fx_text_reader.h"
#include "import/lifted_constants.h"
#include "import/pt2_reader.h"
#include "import/pt_reader.h"
#include "import/repro_reader.h"
#include "import/to_folder_reader.h"
#include "import/torch_trace_reader.h"

#include <algorithm>
#include <fstream>

namespace fxray {

std::string stageFromFileName(const std::filesystem::path& p) {
    std::string stem = p.stem().string();
    static const std::pair<const char*, const char*> table[] = {
        {"joint", "aot_joint_graph"},
        {"forward", "aot_forward_graph"},
        {"backward", "aot_backward_graph"},
        {"inference", "aot_inference_graph"},
        {"dynamo", "dynamo_output_graph"},
        {"dynamo_graph", "dynamo_output_graph"},
        {"export_graph", "export_graph"},
        {"fx_graph_readable", "aot_graph"},
        {"fx_graph_transformed", "inductor_post_grad_graph"},
        {"minified_joint", "aot_joint_graph"},
    };
    for (auto& [k, v] : table)
        if (stem == k) return v;
    return stem;
}

namespace {

std::string joinNames(const std::vector<std::string>& names) {
    std::string s;
    for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
    return s;
}

/// Values of lifted constants for an FX text file: the constants folder fxray writes beside its
/// graphs first (exact values), then the torch.tensor literals of a sibling Dynamo graph.
Status linkConstants(LoadedGraph& lg, const std::filesystem::path& path) {
    auto fromFolder = readConstantsFolder(path, *lg.graph);
    if (!fromFolder.ok()) return fromFolder.error();
    if (!fromFolder->empty())
        lg.notes.push_back("constants " + joinNames(*fromFolder) + " read from " + constantsFolderFor(path).string());
    if (missingConstants(*lg.graph).empty()) return Status::success();
    for (const char* sibling : {"dynamo.py", "dynamo_graph.py"}) {
        auto p = path.parent_path() / sibling;
        if (p == path || !std::filesystem::exists(p)) continue;
        auto dyn = readFxFile(p);
        if (!dyn.ok()) continue;
        auto filled = linkLiftedConstants(*lg.graph, **dyn);
        if (!filled.empty())
            lg.notes.push_back("lifted constants " + joinNames(filled) + " taken from torch.tensor literals in " +
                               p.string());
        break;
    }
    return Status::success();
}

}  // namespace

void finishGraph(LoadedGraph& lg, const Graph* dynamo) {
    lg.unknownOps = resolveOps(*lg.graph);
    if (dynamo && !missingConstants(*lg.graph).empty()) linkLiftedConstants(*lg.graph, *dynamo);
    if (!missingConstants(*lg.graph).empty()) {
        auto inferred = inferLiftedConstants(*lg.graph);
        if (!inferred.empty())
            lg.notes.push_back("lifted constants " + joinNames(inferred) +
                               " computed from the graph text (empty tensors, literals its source comments quote)");
    }
    // Last, and said per constant: values its use decides (torch.masked's fills, dead constants).
    if (!missingConstants(*lg.graph).empty())
        for (auto& c : inferConstantsFromUse(*lg.graph)) lg.notes.push_back(std::move(c.reason));
    lg.inference = inferMeta(*lg.graph);
    lg.graph->rebuildUsers();
    if (isTorchLevel(*lg.graph)) {
        lg.lowered = lg.graph->clone();
        Status st = lowerToAten(*lg.lowered);
        if (!st.ok()) lg.notes.push_back("lowering to ATen stopped: " + st.error().str());
        lg.loweredUnknownOps = resolveOps(*lg.lowered);
        lg.loweredInference = inferMeta(*lg.lowered);
        lg.lowered->rebuildUsers();
    }
}

namespace {

std::string fileHead(const std::filesystem::path& p, size_t n = 4096) {
    std::ifstream in(p, std::ios::binary);
    std::string buf(n, '\0');
    in.read(buf.data(), static_cast<std::streamsize>(n));
    buf.resize(static_cast<size_t>(in.gcount()));
    return buf;
}

Diagnostic fileError(const std::filesystem::path& p, std::string msg) {
    Diagnostic d = makeError(std::move(msg));
    d.file = p.string();
    return d;
}

/// A .pt state dict has no graph: list its tensors as an artifact so `info` can show it.
Expected<LoadedFile> loadStateDict(const std::filesystem::path& path) {
    auto sd = readPt(path);
    if (!sd.ok()) return sd.error();
    LoadedFile f;
    f.path = path;
    f.format = "state-dict";
    Artifact a;
    a.name = "state_dict";
    a.encoding = "string";
    for (const auto& [name, t] : *sd) a.text += name + ": " + t.meta.annotation(true, false) + "\n";
    f.artifacts.push_back(std::move(a));
    return f;
}

Expected<LoadedFile> loadFolder(const std::filesystem::path& dir) {
    auto logs = traceLogFiles(dir);
    if (!logs.empty() && looksLikeTorchTrace(fileHead(logs.front()))) return readTorchTrace(dir);
    if (isToFolder(dir)) return readToFolder(dir);
    if (isPt2Folder(dir)) return readPt2(dir);
    if (isDebugDir(dir)) return readDebugDir(dir);
    // A folder holding .pt2 archives (the corpus's export/): all their graphs.
    std::vector<std::filesystem::path> archives;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec))
        if (e.path().extension() == ".pt2" && e.is_regular_file()) archives.push_back(e.path());
    std::sort(archives.begin(), archives.end());
    if (!archives.empty()) {
        LoadedFile all;
        all.path = dir;
        all.format = "pt2";
        for (const auto& a : archives) {
            auto f = readPt2(a);
            if (!f.ok()) return f.error();
            for (auto& g : f->graphs) {
                if (archives.size() > 1) g.id = a.filename().string() + "/" + g.id;
                all.graphs.push_back(std::move(g));
            }
            for (auto& w : f->warnings) all.warnings.push_back(std::move(w));
            for (auto& art : f->artifacts) all.artifacts.push_back(std::move(art));
        }
        return all;
    }
    return fileError(dir, "no graphs found: expected a TORCH_TRACE log folder, a TORCH_COMPILE_DEBUG folder, a "
                          "to_folder module (module.py + state_dict.pt) or an extracted .pt2 archive");
}

Expected<LoadedFile> loadFxText(const std::filesystem::path& path) {
    auto g = readFxFile(path);
    if (!g.ok()) return g.error();
    LoadedFile f;
    f.path = path;
    LoadedGraph lg;
    lg.id = "0";
    lg.stage = stageFromFileName(path);
    lg.graph = std::move(g).value();
    if (auto s = linkConstants(lg, path); !s.ok()) return s.error();
    finishGraph(lg);
    f.format = "fx-text";
    f.graphs.push_back(std::move(lg));
    return f;
}

}  // namespace

Expected<LoadedFile> loadFile(const std::filesystem::path& path) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return fileError(path, "no such file or folder");
    if (std::filesystem::is_directory(path, ec)) return loadFolder(path);
    const std::string ext = path.extension().string();
    const std::string head = fileHead(path);
    if (ext == ".log" || looksLikeTorchTrace(head)) return readTorchTrace(path);
    if (ext == ".fxray" || (head.rfind("PK\x03\x04", 0) == 0 && isSessionFile(path))) {
        auto s = loadSession(path);
        if (!s.ok()) return s.error();
        s->file.session = std::move(s->state);
        return std::move(s->file);
    }
    if (ext == ".pt2") return readPt2(path);
    if (ext == ".pt" || ext == ".pth") return loadStateDict(path);
    if (head.rfind("PK\x03\x04", 0) == 0) return readPt2(path);  // a .pt2 under another name
    if (head.rfind("\x93NUMPY", 0) == 0)
        return fileError(path, "this is a .npy tensor, not a graph: pass its folder with --inputs or --expect");
    auto text = readTextFile(path);
    if (!text.ok()) return text.error();
    if (looksLikeRepro(*text)) return readRepro(path);
    return loadFxText(path);
}

Expected<size_t> findGraphIndex(const LoadedFile& f, const std::string& sel) {
    if (f.graphs.empty()) {
        Diagnostic d = makeError("file holds no graph");
        d.file = f.path.string();
        return d;
    }
    if (sel.empty()) {
        if (f.graphs.size() == 1) return size_t(0);
        for (size_t i = 0; i < f.graphs.size(); ++i)
            if (f.graphs[i].stage == "aot_joint_graph") return i;
        return size_t(0);
    }
    // Precedence: an exact id, a stage, an index, then the end of an id ("0/aot_joint_graph").
    for (size_t i = 0; i < f.graphs.size(); ++i)
        if (f.graphs[i].id == sel || f.graphs[i].stage == sel) return i;
    bool digits = sel.find_first_not_of("0123456789") == std::string::npos;
    if (digits && sel.size() < 10) {
        size_t i = std::stoul(sel);
        if (i < f.graphs.size()) return i;
    }
    for (size_t i = 0; i < f.graphs.size(); ++i) {
        const std::string& id = f.graphs[i].id;
        if (id.size() > sel.size() && id.compare(id.size() - sel.size(), sel.size(), sel) == 0 &&
            id[id.size() - sel.size() - 1] == '/')
            return i;
    }
    std::string avail;
    for (size_t i = 0; i < f.graphs.size(); ++i)
        avail += (i ? ", " : "") + f.graphs[i].id + " (" + f.graphs[i].stage + ")";
    Diagnostic d = makeError("no graph '" + sel + "'; available: " + avail);
    d.file = f.path.string();
    return d;
}

Expected<LoadedGraph*> selectGraph(LoadedFile& f, const std::string& sel) {
    auto i = findGraphIndex(f, sel);
    if (!i.ok()) return i.error();
    return &f.graphs[*i];
}

}  // namespace fxray
