#include "import/constants_folder.h"

#include "exec/compare.h"
#include "exec/ops/kernel_util.h"
#include "import/npy.h"

#include <fstream>
#include <functional>

namespace fxray {

namespace fs = std::filesystem;

namespace {

Diagnostic fileError(const fs::path& p, std::string msg) {
    Diagnostic d = makeError(std::move(msg));
    d.file = p.string();
    return d;
}

/// A constant name usable as a file name inside the folder (no separators, no "." or "..").
bool plainName(const std::string& s) {
    if (s.empty() || s == "." || s == "..") return false;
    for (char c : s)
        if (c == '/' || c == '\\' || c == '\0') return false;
    return true;
}

/// Calls f(relative folder, graph) for g and each subgraph, depth first.
void forEachGraph(Graph& g, const fs::path& rel, const std::function<void(const fs::path&, Graph&)>& f) {
    f(rel, g);
    for (auto& [name, sub] : g.subgraphs()) forEachGraph(*sub, rel / name, f);
}

/// The get_attr nodes of g whose target is a constant (not a submodule).
std::vector<const Node*> constantNodes(const Graph& g) {
    std::vector<const Node*> out;
    for (const auto& n : g.nodes())
        if (n->kind() == NodeKind::GetAttr && !g.subgraph(n->target())) out.push_back(n.get());
    return out;
}

/// Removes the .npy files under dir (an earlier graph's constants), then the folders left empty.
void clearFolder(const fs::path& dir) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return;
    std::vector<fs::path> dirs;
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
        if (it->is_directory(ec))
            dirs.push_back(it->path());
        else if (it->path().extension() == ".npy")
            fs::remove(it->path(), ec);
    }
    for (auto d = dirs.rbegin(); d != dirs.rend(); ++d) fs::remove(*d, ec);  // only succeeds when empty
    fs::remove(dir, ec);
}

}  // namespace

fs::path constantsFolderFor(const fs::path& graphFile) {
    return graphFile.parent_path() / (graphFile.stem().string() + "_constants");
}

Status writeConstantsFolder(const fs::path& graphFile, const Graph& g, ConstantFiles* shared) {
    const fs::path dir = constantsFolderFor(graphFile);
    clearFolder(dir);
    Status result = Status::success();
    // forEachGraph takes a mutable graph; writing reads only.
    forEachGraph(const_cast<Graph&>(g), {}, [&](const fs::path& rel, Graph& sub) {
        if (!result.ok()) return;
        for (const Node* n : constantNodes(sub)) {
            auto it = sub.constants.find(n->target());
            if (it == sub.constants.end()) continue;
            if (!plainName(n->target())) {
                result = fileError(graphFile, "cannot write constant '" + n->target() + "': not a plain file name");
                return;
            }
            const fs::path p = dir / rel / (n->target() + ".npy");
            std::error_code ec;
            fs::create_directories(p.parent_path(), ec);
            if (ec) {
                result = fileError(p.parent_path(), "cannot create the folder: " + ec.message());
                return;
            }
            const Tensor& t = it->second;
            if (shared && t.storage) {
                auto key = std::make_tuple(static_cast<const void*>(t.storage.get()), t.meta.offset, t.dtype(),
                                           t.shape(), t.strides());
                auto prev = shared->written.find(key);
                if (prev != shared->written.end()) {
                    fs::create_hard_link(prev->second, p, ec);
                    if (!ec || fs::copy_file(prev->second, p, fs::copy_options::overwrite_existing, ec)) continue;
                }
                shared->written[key] = p;
            }
            if (auto s = writeNpy(p, t); !s.ok()) {
                result = s;
                return;
            }
        }
    });
    return result;
}

Status writeGraphFile(const fs::path& path, const Graph& g, const PrintOptions& opts) {
    {
        std::ofstream f(path, std::ios::binary);
        if (!f) return fileError(path, "cannot write the file");
        f << printGraph(g, opts);
        if (!f) return fileError(path, "cannot write the file");
    }
    return writeConstantsFolder(path, g);
}

Expected<std::vector<std::string>> readConstantsFolder(const fs::path& graphFile, Graph& g) {
    const fs::path dir = constantsFolderFor(graphFile);
    std::vector<std::string> filled;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return filled;
    std::optional<Diagnostic> failure;
    forEachGraph(g, {}, [&](const fs::path& rel, Graph& sub) {
        if (failure) return;
        for (const Node* n : constantNodes(sub)) {
            if (sub.constants.count(n->target()) || !plainName(n->target())) continue;
            const fs::path p = dir / rel / (n->target() + ".npy");
            if (!fs::is_regular_file(p, ec)) continue;
            auto t = readNpy(p);
            if (!t.ok()) {
                failure = t.error();
                return;
            }
            Tensor v = std::move(t).value();
            if (!n->meta.empty()) {
                const TensorMeta& m = n->meta[0];
                if (!m.isSymbolic() && m.shape != v.shape()) {
                    failure =
                        fileError(p, "holds a tensor of shape " + v.meta.annotation(false, false) + " but constant '" +
                                         n->target() + "' is annotated " + m.annotation(false, false));
                    return;
                }
                if (m.dtype != v.dtype()) {  // bfloat16 comes back as float32
                    TensorMeta c = TensorMeta::contiguous(v.shape(), m.dtype);
                    v = kern::makeTensor(c, kern::toDoubles(v));
                }
                if (m.deviceKnown) v.meta.device = m.device;
                v = withAnnotatedStrides(v, *n);
            }
            sub.constants[n->target()] = std::move(v);
            filled.push_back((rel / n->target()).generic_string());
        }
    });
    if (failure) return *failure;
    return filled;
}

}  // namespace fxray
