#include "import/debug_dir_reader.h"

#include "import/fx_text_reader.h"
#include "import/repro_reader.h"

#include <algorithm>
#include <set>

namespace fxray {

namespace fs = std::filesystem;

namespace {

/// Files Inductor writes into each graph's debug folder (torch/_inductor/debug.py).
constexpr const char* kDebugFiles[] = {
    "fx_graph_readable.py", "fx_graph_transformed.py",
    "fx_graph_runnable.py", "ir_pre_fusion.txt",
    "ir_post_fusion.txt",   "output_code.py",
    "output_code.cpp",      "inductor_provenance_tracking_node_mappings.json",
};
/// Bounds of the folder walk: debug trees are small, a mistaken `/` must not take forever.
constexpr int kMaxDepth = 12;
constexpr size_t kMaxEntries = 200000;
/// Largest debug file read (output code of huge models is tens of MB).
constexpr uintmax_t kMaxFileBytes = uintmax_t(512) << 20;

bool isDebugFileName(const std::string& name) {
    for (const char* f : kDebugFiles)
        if (name == f) return true;
    return false;
}

/// Graph folders at or below `root`, sorted; `truncated` is set when the walk hit its bounds.
std::vector<fs::path> findGraphFolders(const fs::path& root, bool& truncated) {
    std::set<fs::path> found;
    truncated = false;
    std::error_code ec;
    fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
    size_t seen = 0;
    for (; !ec && it != end; it.increment(ec)) {
        if (++seen > kMaxEntries) {
            truncated = true;
            break;
        }
        if (it.depth() >= kMaxDepth) {
            it.disable_recursion_pending();
            truncated = true;
        }
        std::error_code ec2;
        if (it->is_regular_file(ec2) && isDebugFileName(it->path().filename().string()))
            found.insert(it->path().parent_path());
    }
    return {found.begin(), found.end()};
}

/// The folder's label in ids: its path below the root, or its own name for the root itself.
std::string folderLabel(const fs::path& root, const fs::path& folder) {
    std::error_code ec;
    fs::path rel = fs::relative(folder, root, ec);
    if (ec || rel.empty() || rel == ".") {
        fs::path abs = fs::absolute(folder, ec);
        std::string name = abs.filename().string();
        if (name.empty()) name = abs.parent_path().filename().string();
        return name.empty() ? "." : name;
    }
    return rel.generic_string();
}

void readFolder(const fs::path& root, const fs::path& folder, LoadedFile& f) {
    const std::string label = folderLabel(root, folder);
    std::string leaf = folder.filename().string();
    if (leaf.empty() || leaf == ".") leaf = fs::absolute(folder).parent_path().filename().string();
    const std::string stage = stageFromDebugFolder(leaf);

    auto addGraph = [&](std::unique_ptr<Graph> g, const std::string& id, const std::string& st, const fs::path& p) {
        LoadedGraph lg;
        lg.id = label + "/" + id;
        lg.stage = st;
        lg.compileId = label;
        lg.graph = std::move(g);
        lg.notes.push_back("read from " + p.string());
        f.graphs.push_back(std::move(lg));
    };
    for (const char* name : kDebugFiles) {
        fs::path p = folder / name;
        std::error_code ec;
        if (!fs::is_regular_file(p, ec)) continue;
        auto text = readFileUpTo(p, kMaxFileBytes, "file");
        if (!text.ok()) {
            f.warnings.push_back(text.error().str());
            continue;
        }
        std::string n = name;
        if (n == "fx_graph_readable.py" || n == "fx_graph_transformed.py") {
            auto g = readFxText(*text, p.string());
            if (!g.ok()) {
                f.warnings.push_back(g.error().str());
                continue;
            }
            bool readable = n == "fx_graph_readable.py";
            std::string st = readable ? stage : "inductor_post_grad_graph";
            addGraph(std::move(g).value(), st, st, p);
        } else if (n == "fx_graph_runnable.py") {
            auto lg = readReproText(*text, p.string(), f.warnings);
            if (!lg.ok()) {
                f.warnings.push_back(lg.error().str());
                continue;
            }
            lg->id = label + "/fx_graph_runnable";
            lg->stage = stage;
            lg->compileId = label;
            lg->notes.push_back("read from " + p.string());
            f.graphs.push_back(std::move(lg).value());
        } else {
            Artifact a;
            a.compileId = label;
            if (n == "output_code.py" || n == "output_code.cpp")
                a.name = "inductor_output_code";
            else
                a.name = n.substr(0, n.rfind('.'));
            a.encoding = n.size() > 5 && n.substr(n.size() - 5) == ".json" ? "json" : "string";
            a.text = std::move(text).value();
            f.artifacts.push_back(std::move(a));
        }
    }
}

}  // namespace

std::string stageFromDebugFolder(const std::string& folderName) {
    // Inductor names the folder after the AOT graph: "<model>__<n>_<kind>_<m>.<k>".
    if (folderName.find("_forward_") != std::string::npos) return "aot_forward_graph";
    if (folderName.find("_backward_") != std::string::npos) return "aot_backward_graph";
    if (folderName.find("_inference_") != std::string::npos) return "aot_inference_graph";
    return "aot_graph";
}

bool isDebugDir(const fs::path& dir) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return false;
    bool truncated = false;
    return !findGraphFolders(dir, truncated).empty();
}

Expected<LoadedFile> readDebugDir(const fs::path& dir) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
        Diagnostic d = makeError("not a folder");
        d.file = dir.string();
        return d;
    }
    bool truncated = false;
    auto folders = findGraphFolders(dir, truncated);
    if (folders.empty()) {
        Diagnostic d = makeError("no TORCH_COMPILE_DEBUG graph folder (one holding fx_graph_readable.py, "
                                 "fx_graph_runnable.py, output_code.py, ...) found here or below");
        d.file = dir.string();
        return d;
    }
    LoadedFile f;
    f.path = dir;
    f.format = "debug-dir";
    if (truncated) f.warnings.push_back(dir.string() + ": folder tree too large or deep; only part of it was searched");
    for (const auto& folder : folders) readFolder(dir, folder, f);
    for (auto& lg : f.graphs) finishGraph(lg);
    return f;
}

}  // namespace fxray
