#pragma once
/// Ahead-of-time compilation with a persistent cache (`fxray aot-compile`, the analogue of
/// PyTorch's `aoti_compile_with_persistent_cache`): a static-shape graph's kernels are compiled
/// to object code, linked into a shared library, and stored with a metadata JSON in a cache
/// folder, keyed by graph fingerprint + input specs + fxray/LLVM versions + target CPU. A later
/// process with the same graph and specs loads the library with dlopen and compiles nothing.
///
/// What is cached is the machine code (the expensive part: LLVM optimisation and code
/// generation). The run-time plan (steps, kernels, buffers) is written into the metadata; on
/// load it is re-derived from the graph by lowering and scheduling (milliseconds, and the graph
/// is needed anyway: extern calls bind the graph's node arguments, constants live in it) and
/// checked against the recorded plan kernel by kernel (code hash, symbol), so a library is
/// only ever run with the kernels it was built for.
///
/// Dynamic shapes: a symbolic graph compiles per binding of its size symbols (`s33=16`): the
/// binding is part of the key, so each size has its own entry, and a loaded library guards its
/// binding: inputs of another binding are refused naming the symbol, the compiled and the given
/// value (aotRun instead finds or builds the entry of the inputs' binding).
///
/// Trust: an entry is used only when its metadata parses, names this key and these versions,
/// and the library's checksum (FNV-1a 64 over its bytes) matches; anything else is rebuilt.
/// Concurrency: one flock'ed lock file per key; an entry is built in a private temporary folder
/// and published with rename(2), so readers see either no entry or a complete one.
#include "codegen/cpu/cpu_backend.h"
#include "ir/sym_expr.h"

#include <memory>
#include <string>
#include <vector>

namespace fxray::cg::cpu {

struct AotOptions {
    std::string cacheDir;    ///< empty: defaultCacheDir()
    CompileOptions compile;  ///< pinned nodes, schedule and LLVM options (part of the key)
    /// Symbolic graphs: the sizes to compile for, completed by the graph's hints, then 8 per
    /// symbol (completeBinding). Ignored for static graphs.
    sym::Binding sizes;
};

/// One cache entry, as aotCompile found or built it.
struct AotEntry {
    bool hit = false;            ///< a valid entry existed: nothing was compiled
    std::string key;             ///< 16 hex digits
    std::string dir;             ///< the entry's folder
    std::string library;         ///< path of the shared library
    std::string metadata;        ///< path of meta.json
    std::string rebuiltBecause;  ///< an entry existed but was not used: why (corrupt, foreign...)
    double ms = 0.0;             ///< wall time of aotCompile
    double compileMs = 0.0;      ///< of which LLVM code generation (0 on a hit)
    double linkMs = 0.0;         ///< of which the linker (0 on a hit)
    size_t kernels = 0;
    sym::Binding binding;  ///< the sizes it was compiled for (empty: static graph)
};

/// `$FXRAY_CACHE_DIR`, else `~/.cache/fxray` (`$HOME`), else a folder under /tmp.
std::string defaultCacheDir();

/// The binding a symbolic graph compiles for under `opts` (opts.sizes completed by the hints,
/// then 8); empty for a static graph. A given symbol the graph does not take is an error.
Expected<sym::Binding> aotBinding(const Graph& g, const AotOptions& opts = {});

/// The graph's inputs as meta tensors from its placeholder annotations, at `binding` for a
/// symbolic graph (SymInt placeholders become their values); refuses (naming the input) a
/// missing annotation or a non-tensor placeholder of a static graph.
Expected<std::vector<Value>> aotInputs(const Graph& g, const sym::Binding& binding = {});

/// The cache key for g compiled with these options on this host.
Expected<std::string> aotCacheKey(const Graph& g, const AotOptions& opts = {});

/// Finds a valid entry for g or builds (and publishes) one.
Expected<AotEntry> aotCompile(const Graph& g, const AotOptions& opts = {});

/// A graph running on a cached library's kernels. `graph` runs like any CompiledGraph.
struct AotGraph {
    std::shared_ptr<void> library;  ///< the dlopen handle (closed last)
    std::unique_ptr<CompiledGraph> graph;
    const Graph* source = nullptr;  ///< the graph it was loaded for
    sym::Binding binding;           ///< the sizes its kernels were compiled for

    /// Runs on inputs after checking that they have the compiled binding (the guard): inputs of
    /// another size fail naming the symbol, the compiled and the given value.
    Expected<std::vector<Value>> run(const std::vector<Value>& inputs) const;
};

/// Guard check: `given` (read off inputs) must agree with `compiled` on every symbol of it.
Status checkAotBinding(const sym::Binding& compiled, const sym::Binding& given);

/// Loads entry `e` (from aotCompile with the same graph and options): re-verifies the checksum,
/// dlopens the library and binds the re-derived plan's kernels to its symbols.
Expected<AotGraph> aotLoad(const Graph& g, const AotEntry& e, const AotOptions& opts = {});

/// Runs g on inputs through the cache: the entry of the inputs' binding is found or built
/// (a new size compiles once, then hits), loaded and run. `entry` receives the entry used.
Expected<std::vector<Value>> aotRun(const Graph& g, const std::vector<Value>& inputs, const AotOptions& opts = {},
                                    AotEntry* entry = nullptr);

/// FNV-1a 64 of a file's bytes as 16 hex digits ("" when unreadable).
std::string fileChecksum(const std::string& path);

}  // namespace fxray::cg::cpu
