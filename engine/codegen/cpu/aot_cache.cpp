// The AOT cache: key, entry validation, building (LLVM object emission + system linker),
// publishing (temporary folder + rename under flock), and loading (dlopen + plan check).
#include "codegen/cpu/aot_cache.h"

#include "codegen/lowering.h"
#include "exec/shape_binding.h"
#include "support/timing.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace fxray::cg::cpu {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

/// Bumped when the entry layout or the plan encoding changes, or when lowering and scheduling
/// change the kernels a graph compiles to (2: merged loop dims, cat as a gather): older entries
/// become foreign and are rebuilt instead of failing their plan check.
constexpr const char* kFormat = "fxray-aot/2";

std::string hex64(uint64_t v) {
    char b[17];
    std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(v));
    return b;
}

uint64_t fnv(const std::string& s, uint64_t h = 1469598103934665603ull) {
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    return h;
}

json metaJson(const TensorMeta& m) {
    return json{{"dtype", std::string(dtypeTorchName(m.dtype))},
                {"shape", m.shape},
                {"stride", m.strides},
                {"device", m.device.str()}};
}

json inputSpecs(const Graph& g, const std::vector<Value>& inputs) {
    json a = json::array();
    auto phs = g.placeholders();
    for (size_t i = 0; i < inputs.size(); ++i) {
        json s;
        if (inputs[i].isTensor()) {
            s = metaJson(inputs[i].t.meta);
        } else if (inputs[i].kind == Value::Kind::Double) {
            s["value"] = inputs[i].d;  // a SymFloat placeholder at its binding
        } else {
            s["value"] = inputs[i].kind == Value::Kind::Bool ? int64_t(inputs[i].b) : inputs[i].i;
        }
        s["name"] = phs[i]->name();
        a.push_back(std::move(s));
    }
    return a;
}

json bindingJson(const sym::Binding& b) {
    json j = json::object();
    for (const auto& [s, v] : b) {
        if (v.isFloat())
            j[s] = v.d;
        else
            j[s] = v.i;
    }
    return j;
}

sym::Binding bindingFromJson(const json& j) {
    sym::Binding b;
    if (!j.is_object()) return b;
    for (auto it = j.begin(); it != j.end(); ++it) {
        if (it.value().is_number_integer())
            b[it.key()] = sym::Num::ofInt(it.value().get<int64_t>());
        else if (it.value().is_number())
            b[it.key()] = sym::Num::ofFloat(it.value().get<double>());
    }
    return b;
}

/// Everything the library's code and plan depend on; its hash is the key.
json keyMaterial(const Graph& g, const std::vector<Value>& inputs, const AotOptions& o, const sym::Binding& binding) {
    json m{{"format", kFormat},
           {"graph_fingerprint", hex64(g.fingerprint())},
           {"inputs", inputSpecs(g, inputs)},
           {"fxray", FXRAY_VERSION},
           {"llvm", llvmVersion()},
           {"target", hostTarget()},
           {"opt_level", o.compile.jit.optLevel},
           {"dedupe", o.compile.jit.dedupe},
           {"fuse", o.compile.schedule.fuse},
           {"inline_pointwise", o.compile.schedule.inlinePointwise},
           {"collapse_dims", o.compile.schedule.collapseDims},
           {"pinned", o.compile.pinned}};
    // Dynamic shapes: each binding is its own entry (the input specs hold its sizes too; the
    // binding makes the entry say which sizes it guards).
    if (!binding.empty()) m["binding"] = bindingJson(binding);
    return m;
}

const char* sourceName(BufferDesc::Source s) {
    switch (s) {
    case BufferDesc::Source::Input: return "input";
    case BufferDesc::Source::Constant: return "constant";
    case BufferDesc::Source::Pinned: return "pinned";
    case BufferDesc::Source::Kernel: return "kernel";
    case BufferDesc::Source::Call: return "call";
    }
    return "?";
}

/// The run-time plan: steps in order, kernels (with the hash of their code) and buffers.
json planJson(const Program& p, const std::vector<std::string>* symbols) {
    json steps = json::array();
    for (const auto& st : p.steps) {
        if (st.kind == ProgramStep::Kind::Kernel) {
            steps.push_back(json{{"kernel", st.index}});
        } else {
            const OpaqueCall& c = p.lowered.calls[static_cast<size_t>(st.index)];
            steps.push_back(json{{"call", st.index},
                                 {"node", c.node ? c.node->name() : std::string()},
                                 {"extern", c.kind == OpaqueCall::Kind::Extern ? c.fn : std::string()}});
        }
    }
    json kernels = json::array();
    for (size_t i = 0; i < p.kernels.size(); ++i) {
        const Kernel& k = p.kernels[i];
        json args = json::array();
        for (const auto& a : k.args) args.push_back(a.buffer);
        json kj{{"name", k.name},
                {"code_hash", hex64(kernelCodeHash(k))},
                {"outer", k.outerCount()},
                {"inner", k.innerCount()},
                {"args", args}};
        if (symbols) kj["symbol"] = (*symbols)[i];
        kernels.push_back(std::move(kj));
    }
    json buffers = json::array();
    for (const auto& b : p.buffers) {
        json bj = metaJson(b.meta);
        bj["name"] = b.name;
        bj["source"] = sourceName(b.source);
        bj["internal"] = b.internal;
        if (b.source == BufferDesc::Source::Input) bj["input"] = b.inputIndex;
        if (!b.key.empty()) bj["key"] = b.key;
        buffers.push_back(std::move(bj));
    }
    return json{{"steps", steps}, {"kernels", kernels}, {"buffers", buffers}};
}

/// An exclusive or shared flock on `<dir>/<key>.lock`, released on destruction.
class FileLock {
public:
    FileLock(const fs::path& path, bool exclusive) {
        m_fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (m_fd < 0) return;
        while (::flock(m_fd, exclusive ? LOCK_EX : LOCK_SH) != 0)
            if (errno != EINTR) {
                ::close(m_fd);
                m_fd = -1;
                return;
            }
    }
    ~FileLock() {
        if (m_fd >= 0) ::close(m_fd);  // closing releases the lock
    }
    FileLock(const FileLock&) = delete;
    FileLock& operator=(const FileLock&) = delete;
    bool ok() const { return m_fd >= 0; }

private:
    int m_fd = -1;
};

Expected<std::string> readText(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    if (!f) return makeError("cannot read " + p.string());
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

/// Why the entry in `dir` cannot be used for `material` ("" when it can). Reads nothing but
/// meta.json and the library's bytes; loads nothing.
std::string entryProblem(const fs::path& dir, const json& material, const std::string& key, json* metaOut) {
    std::error_code ec;
    if (!fs::exists(dir / "meta.json", ec)) return "no metadata";
    auto text = readText(dir / "meta.json");
    if (!text.ok()) return "unreadable metadata";
    json m = json::parse(*text, nullptr, false);
    if (m.is_discarded() || !m.is_object()) return "metadata is not valid JSON";
    auto str = [&](const char* k) {
        return m.contains(k) && m[k].is_string() ? m[k].get<std::string>() : std::string();
    };
    if (str("format") != kFormat) return "foreign entry (format '" + str("format") + "')";
    if (str("key") != key) return "foreign entry (key " + str("key") + ")";
    for (const char* k : {"fxray", "llvm", "target", "graph_fingerprint"})
        if (!m.contains(k) || m[k] != material[k]) return std::string("foreign entry (") + k + " '" + str(k) + "')";
    if (m.value("binding", json()) != material.value("binding", json())) return "foreign entry (binding differs)";
    if (!m.contains("inputs") || m["inputs"] != material["inputs"]) return "foreign entry (input specs differ)";
    std::string lib = str("library");
    if (lib.empty() || lib.find('/') != std::string::npos || lib[0] == '.') return "metadata names no library";
    if (!fs::is_regular_file(dir / lib, ec)) return "library " + lib + " is missing";
    std::string sum = fileChecksum((dir / lib).string());
    if (sum.empty() || sum != str("checksum")) return "library checksum mismatch (corrupt)";
    if (!m.contains("plan") || !m["plan"].is_object() || !m["plan"].contains("kernels") ||
        !m["plan"]["kernels"].is_array())
        return "metadata holds no plan";
    if (metaOut) *metaOut = std::move(m);
    return {};
}

/// Runs the system linker: `cc -shared` (the compiler driver knows the C runtime and libgcc
/// paths for this distribution; LLD as a library is not packaged here, and linking a few object
/// files takes milliseconds with either linker). libmvec/libm: the vectorised loops call them.
Status linkShared(const std::vector<std::string>& objects, const fs::path& out, const fs::path& log) {
    std::vector<std::string> argv{"cc", "-shared", "-o", out.string()};
    argv.insert(argv.end(), objects.begin(), objects.end());
    for (const char* a : {"-Wl,--no-undefined", "-Wl,-z,now", "-lmvec", "-lm"}) argv.emplace_back(a);
    std::vector<char*> cargv;
    for (auto& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    pid_t pid = 0;
    int rc = posix_spawnp(&pid, "cc", &fa, nullptr, cargv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) return makeError("cannot run the linker 'cc': " + std::string(std::strerror(rc)));
    int st = 0;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) return makeError("lost the linker process");
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        auto text = readText(log);
        std::string msg = text.ok() ? *text : std::string();
        if (msg.size() > 600) msg.resize(600);
        return makeError("linking the AOT library failed: " + msg);
    }
    return {};
}

std::string nonce() {
    static std::mt19937_64 rng(std::random_device{}() ^ static_cast<uint64_t>(::getpid()) ^
                               static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()));
    return hex64(rng()).substr(0, 10);
}

/// Builds the entry for `material` in a fresh temporary folder under `cache`; returns its path.
Expected<fs::path> buildEntry(const Graph& g, const std::vector<Value>& inputs, const AotOptions& o,
                              const json& material, const std::string& key, const fs::path& cache, AotEntry& e) {
    fs::path tmp = cache / (".tmp-" + key + "-" + std::to_string(::getpid()) + "-" + nonce());
    std::error_code ec;
    fs::create_directories(tmp, ec);
    if (ec) return makeError("cannot create " + tmp.string() + ": " + ec.message());
    auto fail = [&](Diagnostic d) -> Expected<fs::path> {
        fs::remove_all(tmp, ec);
        return d;
    };
    std::vector<Value> metas;
    for (const auto& v : inputs) {
        if (!v.isTensor()) {  // a SymInt placeholder's value at the binding
            metas.push_back(v);
            continue;
        }
        TensorMeta m = v.t.meta;
        m.offset = 0;  // as CompiledGraph::compile: inputs are relaid to offset 0
        metas.push_back(Value::ofTensor(Tensor::metaOnly(m)));
    }
    auto lg = lowerGraph(g, metas, o.compile.pinned);
    if (!lg.ok()) return fail(lg.error());
    auto prog = schedule(std::move(lg).value(), o.compile.schedule);
    if (!prog.ok()) return fail(prog.error());
    auto em = emitObjectFiles(prog->kernels, (tmp / "unit").string(), o.compile.jit);
    if (!em.ok()) return fail(em.error());
    e.compileMs = em->ms;
    std::string lib = "lib-" + nonce() + ".so";  // unique: dlopen caches by path
    auto t0 = std::chrono::steady_clock::now();
    if (Status s = linkShared(em->objects, tmp / lib, tmp / "link.log"); !s.ok()) return fail(s.error());
    e.linkMs = msSince(t0);
    for (const auto& obj : em->objects) fs::remove(obj, ec);
    fs::remove(tmp / "link.log", ec);
    json meta = material;
    meta["key"] = key;
    meta["library"] = lib;
    meta["checksum"] = fileChecksum((tmp / lib).string());
    meta["checksum_algorithm"] = "fnv1a64";
    meta["linker"] = "cc -shared";
    meta["plan"] = planJson(*prog, &em->symbols);
    meta["distinct_kernels"] = em->distinct;
    meta["compile_ms"] = em->ms;
    {
        std::ofstream f(tmp / "meta.json", std::ios::binary);
        f << meta.dump(1) << "\n";
        if (!f) return fail(makeError("cannot write " + (tmp / "meta.json").string()));
    }
    e.kernels = prog->kernels.size();
    return tmp;
}

}  // namespace

std::string defaultCacheDir() {
    if (const char* d = std::getenv("FXRAY_CACHE_DIR"); d && *d) return d;
    if (const char* h = std::getenv("HOME"); h && *h) return (fs::path(h) / ".cache" / "fxray").string();
    return (fs::temp_directory_path() / "fxray-cache").string();
}

std::string fileChecksum(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) return {};
    uint64_t h = 1469598103934665603ull;
    char buf[1 << 16];
    while (f) {
        f.read(buf, sizeof buf);
        for (std::streamsize i = 0; i < f.gcount(); ++i)
            h = (h ^ static_cast<unsigned char>(buf[i])) * 1099511628211ull;
    }
    return hex64(h);
}

Expected<sym::Binding> aotBinding(const Graph& g, const AotOptions& opts) {
    if (!graphIsSymbolic(g)) return sym::Binding{};
    auto syms = inputSymbols(g);
    for (const auto& [s, v] : opts.sizes)
        if (std::find(syms.begin(), syms.end(), s) == syms.end()) {
            std::string known;
            for (const auto& k : syms) known += (known.empty() ? "" : ", ") + k;
            Diagnostic d = makeError("size symbol '" + s + "' is not one of the graph's (" + known + ")");
            d.file = g.sourceFile;
            return d;
        }
    return completeBinding(g, opts.sizes);
}

Expected<std::vector<Value>> aotInputs(const Graph& g, const sym::Binding& binding) {
    if (!graphIsSymbolic(g)) return CompiledGraph::annotatedInputs(g);
    std::vector<Value> r;
    for (const Node* ph : g.placeholders()) {
        auto fail = [&](const std::string& msg) -> Expected<std::vector<Value>> {
            Diagnostic d = makeError("input '" + ph->name() + "' " + msg);
            d.file = g.sourceFile;
            d.node = ph->name();
            return d;
        };
        if (isSymPlaceholder(*ph)) {
            auto v = sym::evalText(symPlaceholderExpr(*ph), binding);
            if (!v.ok()) return fail("(" + symPlaceholderExpr(*ph) + "): " + v.error().message);
            if (v->isFloat())
                r.push_back(Value::ofDouble(v->d));
            else if (v->kind == sym::Num::Kind::Bool)
                r.push_back(Value::ofBool(v->i != 0));
            else
                r.push_back(Value::ofInt(v->i));
            continue;
        }
        if (ph->meta.empty() || ph->metaIsTuple) return fail("has no tensor annotation to compile for");
        auto m = bindMeta(ph->meta[0], binding);
        if (!m.ok()) return fail(m.error().message);
        if (m->strides.size() != m->shape.size()) m->strides = TensorMeta::contiguousStrides(m->shape);
        r.push_back(Value::ofTensor(Tensor::metaOnly(std::move(m).value())));
    }
    return r;
}

Expected<std::string> aotCacheKey(const Graph& g, const AotOptions& opts) {
    auto binding = aotBinding(g, opts);
    if (!binding.ok()) return binding.error();
    auto inputs = aotInputs(g, *binding);
    if (!inputs.ok()) return inputs.error();
    return hex64(fnv(keyMaterial(g, *inputs, opts, *binding).dump()));
}

Expected<AotEntry> aotCompile(const Graph& g, const AotOptions& opts) {
    auto t0 = std::chrono::steady_clock::now();
    auto binding = aotBinding(g, opts);
    if (!binding.ok()) return binding.error();
    auto inputs = aotInputs(g, *binding);
    if (!inputs.ok()) return inputs.error();
    json material = keyMaterial(g, *inputs, opts, *binding);
    AotEntry e;
    e.binding = *binding;
    e.key = hex64(fnv(material.dump()));
    fs::path cache = opts.cacheDir.empty() ? fs::path(defaultCacheDir()) : fs::path(opts.cacheDir);
    std::error_code ec;
    fs::create_directories(cache, ec);
    if (ec) return makeError("cannot create the cache folder " + cache.string() + ": " + ec.message());
    fs::path dir = cache / e.key;
    e.dir = dir.string();
    e.metadata = (dir / "meta.json").string();
    // One builder per key at a time; the second process waits, then finds the entry.
    FileLock lock(cache / (e.key + ".lock"), true);
    if (!lock.ok()) return makeError("cannot lock " + (cache / (e.key + ".lock")).string());
    json meta;
    std::string problem = entryProblem(dir, material, e.key, &meta);
    if (problem.empty()) {
        e.hit = true;
        e.library = (dir / meta["library"].get<std::string>()).string();
        e.kernels = meta["plan"]["kernels"].size();
        e.ms = msSince(t0);
        return e;
    }
    if (fs::exists(dir, ec)) e.rebuiltBecause = problem;
    // Leftovers of a builder of this key that died (we hold the key's lock: none is running).
    for (const auto& ent : fs::directory_iterator(cache, ec))
        if (ent.path().filename().string().rfind(".tmp-" + e.key + "-", 0) == 0) fs::remove_all(ent.path(), ec);
    auto tmp = buildEntry(g, *inputs, opts, material, e.key, cache, e);
    if (!tmp.ok()) return tmp.error();
    // Publish: move a bad entry aside (readers hold the shared lock, so none is reading it),
    // then rename the complete folder into place.
    if (fs::exists(dir, ec)) {
        fs::path trash = cache / (".trash-" + e.key + "-" + nonce());
        fs::rename(dir, trash, ec);
        if (ec) return makeError("cannot replace the cache entry " + dir.string() + ": " + ec.message());
        fs::remove_all(trash, ec);
    }
    fs::rename(*tmp, dir, ec);
    if (ec) {
        fs::remove_all(*tmp, ec);
        return makeError("cannot publish the cache entry " + dir.string());
    }
    auto m = readText(dir / "meta.json");
    json mj = m.ok() ? json::parse(*m, nullptr, false) : json();
    if (!mj.is_object() || !mj.contains("library")) return makeError("the cache entry " + dir.string() + " vanished");
    e.library = (dir / mj["library"].get<std::string>()).string();
    e.ms = msSince(t0);
    return e;
}

Expected<AotGraph> aotLoad(const Graph& g, const AotEntry& e, const AotOptions& opts) {
    // The entry's own binding: an entry compiled for s33=16 loads as s33=16 whatever opts.sizes says.
    sym::Binding binding = e.binding;
    if (binding.empty()) {
        auto b = aotBinding(g, opts);
        if (!b.ok()) return b.error();
        binding = *b;
    }
    auto inputs = aotInputs(g, binding);
    if (!inputs.ok()) return inputs.error();
    json material = keyMaterial(g, *inputs, opts, binding);
    std::string key = hex64(fnv(material.dump()));
    fs::path dir = e.dir;
    json meta;
    AotGraph r;
    {
        // Shared: a rebuild (exclusive) cannot swap the entry between the check and dlopen.
        FileLock lock(dir.parent_path() / (key + ".lock"), false);
        if (!lock.ok()) return makeError("cannot lock the cache entry " + dir.string());
        std::string problem = entryProblem(dir, material, key, &meta);
        if (!problem.empty()) return makeError("AOT cache entry " + dir.string() + " cannot be used: " + problem);
        fs::path lib = dir / meta["library"].get<std::string>();
        void* h = ::dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!h) return makeError("cannot load " + lib.string() + ": " + ::dlerror());
        r.library = std::shared_ptr<void>(h, [](void* p) { ::dlclose(p); });
    }
    json planKernels = meta["plan"]["kernels"];
    void* handle = r.library.get();
    CompileOptions co = opts.compile;
    co.jit.prebuilt = [&](const std::vector<Kernel>& ks) -> Expected<std::vector<KernelEntry>> {
        if (ks.size() != planKernels.size())
            return makeError("AOT plan has " + std::to_string(planKernels.size()) + " kernels, the graph lowers to " +
                             std::to_string(ks.size()));
        std::vector<KernelEntry> entries;
        for (size_t i = 0; i < ks.size(); ++i) {
            const json& pk = planKernels[i];
            if (!pk.is_object() || !pk.contains("code_hash") || pk["code_hash"] != hex64(kernelCodeHash(ks[i])) ||
                !pk.contains("symbol") || !pk["symbol"].is_string())
                return makeError("AOT library does not hold kernel " + ks[i].name + " (plan mismatch)");
            void* sym = ::dlsym(handle, pk["symbol"].get<std::string>().c_str());
            if (!sym) return makeError("AOT library lacks symbol " + pk["symbol"].get<std::string>());
            entries.push_back(reinterpret_cast<KernelEntry>(sym));
        }
        return entries;
    };
    auto cg = CompiledGraph::compile(g, *inputs, co);
    if (!cg.ok()) return cg.error();
    // The whole plan, not only the kernels, must be the one the library was built with.
    json plan = planJson((*cg)->program(), nullptr);
    json recorded = meta["plan"];
    if (plan["steps"] != recorded["steps"] || plan["buffers"] != recorded["buffers"])
        return makeError("AOT cache entry " + dir.string() + ": its plan differs from the graph's (foreign entry)");
    r.graph = std::move(cg).value();
    r.source = &g;
    r.binding = bindingFromJson(meta.value("binding", json()));
    return r;
}

Status checkAotBinding(const sym::Binding& compiled, const sym::Binding& given) {
    for (const auto& [s, v] : compiled) {
        auto it = given.find(s);
        if (it == given.end()) continue;  // not read off these inputs: nothing to compare
        const bool same =
            v.isFloat() || it->second.isFloat() ? v.toDouble() == it->second.toDouble() : v.i == it->second.i;
        if (!same)
            return makeError("the AOT library was compiled for " + s + "=" + v.str() + " but the inputs have " + s +
                             "=" + it->second.str() + " (compiled for " + sym::bindingStr(compiled) +
                             "; compile that size with --sizes " + s + "=" + it->second.str() + ")");
    }
    return Status::success();
}

Expected<std::vector<Value>> AotGraph::run(const std::vector<Value>& inputs) const {
    if (!graph) return makeError("the AOT graph is not loaded");
    if (!binding.empty() && source) {
        auto given = bindInputs(*source, inputs, /*withStrides=*/false);
        if (!given.ok()) return given.error();
        if (Status s = checkAotBinding(binding, *given); !s.ok()) {
            Diagnostic d = s.error();
            d.file = source->sourceFile;
            return d;
        }
    }
    return graph->run(inputs);
}

Expected<std::vector<Value>> aotRun(const Graph& g, const std::vector<Value>& inputs, const AotOptions& opts,
                                    AotEntry* entry) {
    AotOptions o = opts;
    if (graphIsSymbolic(g)) {
        auto given = bindInputs(g, inputs, /*withStrides=*/false);
        if (!given.ok()) return given.error();
        o.sizes = *given;  // the inputs' sizes pick (or build) the entry
    }
    auto e = aotCompile(g, o);
    if (!e.ok()) return e.error();
    auto loaded = aotLoad(g, *e, o);
    if (!loaded.ok()) return loaded.error();
    if (entry) *entry = *e;
    return loaded->run(inputs);
}

}  // namespace fxray::cg::cpu
