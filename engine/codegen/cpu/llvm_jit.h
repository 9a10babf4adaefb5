#pragma once
/// Machine code for kernels: LLVM IR generation from the kernel IR, LLVM's O3 pipeline (the
/// inner loops vectorise; glibc's libmvec supplies vector exp/log/...), and ORC LLJIT.
/// Compile time is what limits big graphs: structurally identical kernels (one per layer of a
/// transformer) are compiled once, and the distinct ones are split into modules that are
/// optimised and turned into object code on parallel threads, then JIT-linked together.
///
/// This header is LLVM-free so that the executor, the CLI and the GUI can use it; the LLVM
/// headers stay in llvm_jit.cpp.
#include "codegen/kernel_ir.h"
#include "support/diagnostic.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace fxray::cg::cpu {

/// A compiled kernel: runs the outer points [begin, end) (see Kernel::outerCount) over buffers
/// given as base pointers (storage offset 0), one per kernel argument.
using KernelEntry = void (*)(void* const* args, int64_t begin, int64_t end);

struct JitOptions {
    int optLevel = 3;    ///< 0..3 (LLVM's O pipelines)
    bool keepIr = true;  ///< keep each kernel's optimised LLVM IR text
    int threads = 0;     ///< compile threads (0: one per core, at most 8)
    bool dedupe = true;  ///< compile structurally identical kernels once
    /// Set by the AOT cache (aot_cache.h): the kernels already exist as machine code in a loaded
    /// library. Given the program's kernels it returns one entry per kernel, or an error when the
    /// library was not built for these kernels; KernelJit::compile then compiles nothing.
    std::function<Expected<std::vector<KernelEntry>>(const std::vector<Kernel>&)> prebuilt;
};

/// The kernels of one program, compiled into one module and JIT-linked.
class KernelJit {
public:
    /// Generates, optimises and links all kernels. Fails only on an internal error (a kernel
    /// the IR generator cannot express), reported as a Diagnostic.
    static Expected<std::unique_ptr<KernelJit>> compile(const std::vector<Kernel>& kernels,
                                                        const JitOptions& opts = {});
    ~KernelJit();

    KernelEntry entry(size_t kernel) const { return m_entries[kernel]; }
    /// Optimised LLVM IR of one kernel's function (empty without JitOptions::keepIr).
    const std::string& irText(size_t kernel) const { return m_ir[kernel]; }
    /// Assembly of one kernel (generated on demand from the optimised IR).
    std::string assembly(size_t kernel) const;
    /// Structurally distinct kernels (each compiled once; identical ones share its code).
    size_t distinctKernels() const { return m_distinct; }
    /// Milliseconds spent in IR generation, optimisation and code generation.
    double compileMs() const { return m_ms; }
    /// "x86_64-pc-linux-gnu skylake-avx512", what the code was generated for.
    const std::string& target() const { return m_target; }

private:
    KernelJit() = default;
    struct Impl;
    std::unique_ptr<Impl> m_impl;
    std::vector<KernelEntry> m_entries;
    std::vector<std::string> m_ir;
    std::vector<std::string> m_names;
    size_t m_distinct = 0;
    std::string m_target;
    double m_ms = 0.0;
};

/// LLVM's version string ("19.1.7").
std::string llvmVersion();

/// "x86_64-pc-linux-gnu skylake-avx512": the target KernelJit and emitObjectFiles generate for.
std::string hostTarget();

/// A hash of everything a kernel's machine code depends on (not its name): two kernels with the
/// same hash run the same code. The AOT cache checks a loaded library against it.
uint64_t kernelCodeHash(const Kernel& k);

/// What emitObjectFiles wrote.
struct ObjectEmission {
    std::vector<std::string> objects;  ///< object files, one per compile unit
    std::vector<std::string> symbols;  ///< per kernel: its function (identical kernels share one)
    std::string target;                ///< as hostTarget()
    size_t distinct = 0;
    double ms = 0.0;
};

/// The same code generation as KernelJit::compile (IR, pipeline, deduplication, parallel units)
/// but position-independent and written to object files `<pathPrefix><unit>.o`, for linking
/// into a shared library (the AOT cache). Always writes at least one object.
Expected<ObjectEmission> emitObjectFiles(const std::vector<Kernel>& kernels, const std::string& pathPrefix,
                                         const JitOptions& opts = {});

}  // namespace fxray::cg::cpu
