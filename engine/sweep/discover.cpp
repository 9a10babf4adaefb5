// Discovery of graph files, the check spec, and sharding across scheduler tasks.
#include "sweep/sweep.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <queue>
#include <set>

namespace fxray::sweep {
namespace fs = std::filesystem;

namespace {

/// An FX text file: print_readable()'s `def forward(` within the first 64 KiB.
bool looksLikeFxGraph(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) return false;
    std::string head(64 * 1024, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<size_t>(in.gcount()));
    return head.find("def forward(") != std::string::npos;
}

uint64_t folderBytes(const fs::path& dir) {
    uint64_t n = 0;
    std::error_code ec;
    for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec))
        if (it->is_regular_file(ec)) n += it->file_size(ec);
    return n;
}

GraphEntry entryFor(const fs::path& file, const std::string& id) {
    GraphEntry e;
    e.id = id;
    e.file = file;
    const fs::path stem = file.parent_path() / file.stem();
    std::error_code ec;
    if (fs::is_directory(stem / "inputs", ec)) e.inputs = stem / "inputs";
    if (fs::is_directory(stem / "outputs", ec)) e.expect = stem / "outputs";
    e.weight = fs::file_size(file, ec) + (e.inputs.empty() ? 0 : folderBytes(e.inputs));
    return e;
}

std::optional<int> envInt(const std::function<const char*(const char*)>& env, const char* name) {
    const char* v = env(name);
    if (!v || !*v) return std::nullopt;
    char* end = nullptr;
    long x = std::strtol(v, &end, 10);
    if (*end != '\0') return std::nullopt;
    return static_cast<int>(x);
}

}  // namespace

Expected<std::vector<GraphEntry>> discoverGraphs(const std::vector<fs::path>& roots) {
    std::vector<GraphEntry> out;
    std::set<std::string> ids;
    for (const fs::path& root : roots) {
        std::error_code ec;
        if (!fs::exists(root, ec)) {
            Diagnostic d = makeError("no such file or folder");
            d.file = root.string();
            return d;
        }
        const fs::path canon = fs::weakly_canonical(root, ec);
        const std::string rootName = canon.filename().string();
        auto add = [&](const fs::path& file, std::string id) {
            // Two roots with the same name: keep ids unique and stable.
            std::string unique = id;
            for (int k = 2; ids.count(unique); ++k) unique = id + "#" + std::to_string(k);
            ids.insert(unique);
            out.push_back(entryFor(file, unique));
        };
        if (fs::is_regular_file(canon, ec)) {
            // A file root is named by its last folders too: graphs are usually files of one name
            // in folders that tell them apart (`mlp_4k/numerics/forward`, `bert/numerics/forward`).
            if (looksLikeFxGraph(canon)) {
                const fs::path parent = canon.parent_path(), grand = parent.parent_path();
                std::string id = canon.stem().string();
                if (!parent.filename().empty()) id = parent.filename().string() + "/" + id;
                if (!grand.filename().empty() && grand != grand.root_path()) id = grand.filename().string() + "/" + id;
                add(canon, id);
            }
            continue;
        }
        std::vector<fs::path> files;
        auto it = fs::recursive_directory_iterator(canon, fs::directory_options::skip_permission_denied, ec);
        if (ec) {
            Diagnostic d = makeError("cannot read folder: " + ec.message());
            d.file = root.string();
            return d;
        }
        for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
            if (ec) break;
            if (it->is_regular_file(ec) && it->path().extension() == ".py") files.push_back(it->path());
        }
        std::sort(files.begin(), files.end());
        for (const auto& f : files) {
            if (!looksLikeFxGraph(f)) continue;
            fs::path rel = fs::relative(f, canon, ec);
            rel.replace_extension();
            add(f, rootName + "/" + rel.generic_string());
        }
    }
    std::sort(out.begin(), out.end(), [](const GraphEntry& a, const GraphEntry& b) { return a.id < b.id; });
    return out;
}

bool Check::usesGpu() const { return arg.find("cuda") != std::string::npos; }

Expected<Check> parseCheck(const std::string& text) {
    Check c;
    c.text = text;
    const auto colon = text.find(':');
    const std::string kind = text.substr(0, colon);
    c.arg = colon == std::string::npos ? "" : text.substr(colon + 1);
    if (kind == "run") {
        c.kind = Check::Kind::Run;
        if (c.arg.empty()) c.arg = "ref";
        if (c.arg != "ref" && c.arg != "cpu" && c.arg != "cuda")
            return makeError("--check run:BACKEND takes ref, cpu or cuda, got '" + c.arg + "'");
    } else if (kind == "compare") {
        c.kind = Check::Kind::Compare;
        if (c.arg.find(',') == std::string::npos)
            return makeError("--check compare:B1,B2[,...] names at least two backends (e.g. compare:ref,cpu)");
    } else if (kind == "compile") {
        c.kind = Check::Kind::Compile;
        if (c.arg.empty())
            return makeError("--check compile:PIPELINE names a pipeline (inductor, joint, post-grad, freezing)");
    } else if (kind == "minify") {
        c.kind = Check::Kind::Minify;
        if (c.arg.empty())
            return makeError("--check minify:SPEC gives the minifier's check (e.g. minify:accuracy:ref-vs-cpu)");
    } else {
        return makeError("unknown check '" + text + "' (run[:BACKEND], compare:B1,B2, compile:PIPELINE, minify:SPEC)");
    }
    return c;
}

Expected<Shard> resolveShard(std::optional<int> count, std::optional<int> index,
                             const std::function<const char*(const char*)>& envIn) {
    auto env = envIn ? envIn : [](const char* n) -> const char* { return std::getenv(n); };
    Shard s;
    if (index) {
        if (!count) return makeError("--shard-index needs --num-shards");
        s = {*count, *index, "flags"};
    } else if (auto slurm = envInt(env, "SLURM_ARRAY_TASK_ID")) {
        // Array indices may start anywhere (--array=1-8): shards count from the minimum.
        const int lo = envInt(env, "SLURM_ARRAY_TASK_MIN").value_or(0);
        const auto n = count ? count : envInt(env, "SLURM_ARRAY_TASK_COUNT");
        if (!n) return makeError("SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not; give --num-shards");
        s = {*n, *slurm - lo, "slurm"};
    } else if (auto k8s = envInt(env, "JOB_COMPLETION_INDEX")) {
        if (!count) return makeError("JOB_COMPLETION_INDEX is set: give --num-shards (the job's completions)");
        s = {*count, *k8s, "kubernetes"};
    } else if (count) {
        return makeError("--num-shards needs --shard-index (or a scheduler's index variable)");
    }
    if (s.count < 1) return makeError("the number of shards must be at least 1, got " + std::to_string(s.count));
    if (s.index < 0 || s.index >= s.count)
        return makeError("shard index " + std::to_string(s.index) + " is outside 0.." + std::to_string(s.count - 1));
    return s;
}

std::vector<GraphEntry> shardEntries(const std::vector<GraphEntry>& all, const Shard& shard) {
    if (shard.count <= 1) return all;
    std::vector<size_t> order(all.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        if (all[a].weight != all[b].weight) return all[a].weight > all[b].weight;
        return all[a].id < all[b].id;
    });
    // Longest-processing-time-first: the next largest graph goes to the least loaded shard.
    using Load = std::pair<uint64_t, int>;
    std::priority_queue<Load, std::vector<Load>, std::greater<>> loads;
    for (int k = 0; k < shard.count; ++k) loads.push({0, k});
    std::vector<GraphEntry> mine;
    for (size_t i : order) {
        auto [load, k] = loads.top();
        loads.pop();
        if (k == shard.index) mine.push_back(all[i]);
        loads.push({load + std::max<uint64_t>(all[i].weight, 1), k});
    }
    std::sort(mine.begin(), mine.end(), [](const GraphEntry& a, const GraphEntry& b) { return a.id < b.id; });
    return mine;
}

}  // namespace fxray::sweep
