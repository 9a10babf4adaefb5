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
#include <memory>
#include <string>
#include <vector>

namespace fxray::cg::cpu {

/// A compiled kernel: runs the outer points [begin, end) (see Kernel::outerCount) over buffers
/// given as base pointers (storage offset 0), one per kernel argument.
using KernelEntry = void (*)(void* const* args, int64_t begin, int64_t end);

struct JitOptions {
    int optLevel = 3;          ///< 0..3 (LLVM's O pipelines)
    bool keepIr = true;        ///< keep each kernel's optimised LLVM IR text
    int threads = 0;           ///< compile threads (0: one per core, at most 8)
    bool dedupe = true;        ///< compile structurally identical kernels once
};

/// The kernels of one program, compiled into one module and JIT-linked.
class KernelJit {
public:
    /// Generates, optimises and links all kernels. Fails only on an internal error (a kernel
    /// the IR generator cannot express), reported as a Diagnostic.
    static Expected<std::unique_ptr<KernelJit>> compile(const std::vector<Kernel>& kernels, const JitOptions& opts = {});
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

} // namespace fxray::cg::cpu
