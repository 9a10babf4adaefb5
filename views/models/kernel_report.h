#pragma once
/// What the kernel pane shows of fxray's own code generation for one graph: each fused kernel
/// (its nodes, the kernel IR listing, the optimised LLVM IR, the CUDA C++ of the same kernel) and
/// the group map (graph node -> kernel / extern call / fallback), built on a worker thread by
/// buildKernelReport. Plain data with Qt strings, so the UI thread only copies pointers; the
/// LLVM JIT stays alive inside so that a kernel's assembly can be generated when it is looked at.
#include <QString>
#include <QStringList>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fxray {
class Graph;
}

namespace fxray::views {

struct KernelReport {
    struct Kernel {
        QString name;
        QStringList nodes;  ///< graph nodes fused into it, in order
        QString shape;      ///< iteration space, e.g. "[8, 64] reduce dim 1"
        QString listing;    ///< kernel IR (cg::kernelToText)
        QString llvmIr;     ///< optimised LLVM IR (empty without the CPU backend)
        QString cuda;       ///< the kernel's CUDA C++ function
    };
    struct Group {
        QString node;
        QString kind;     ///< "kernel", "extern", "fallback", "view", "input", "none"
        int kernel = -1;  ///< index into kernels for kind "kernel"
        QString target;   ///< kernel name, extern kernel or the op run by fallback
    };

    uint64_t fingerprint = 0;  ///< of the graph it was built for
    QString error;             ///< lowering/scheduling/JIT failure; the rest may be partial
    bool haveCpu = false;      ///< LLVM code exists (the CPU backend is built in)
    QString cpuTarget;         ///< "x86_64-pc-linux-gnu skylake-avx512"
    QString nvrtcStatus;       ///< what NVRTC said of the CUDA module (or that it is missing)
    std::string cudaModule;    ///< the whole CUDA module (for checkCudaModule)
    double ms = 0.0;
    std::vector<Kernel> kernels;
    std::vector<Group> groups;

    /// Kernels computing `node` (as a fused member or through its group).
    std::vector<int> kernelsOf(const QString& node) const;
    /// Assembly of kernel k, generated on first use (empty without the CPU backend).
    QString assembly(int k) const;

    /// Opaque owner of the JIT (cg::cpu::KernelJit) the LLVM IR came from.
    std::shared_ptr<void> jit;
};

/// Lowers, schedules and (with the CPU backend) JIT-compiles g; `checkNvrtc` also runs
/// checkCudaModule (seconds on a big graph: the kernel pane runs it as a second job). Never
/// throws; failures are in KernelReport::error.
std::shared_ptr<KernelReport> buildKernelReport(const Graph& g, bool checkNvrtc = false);

/// Compiles a CUDA module with NVRTC to PTX (no device needed) and says how it went, or that
/// NVRTC is missing (then the pane shows the source only).
QString checkCudaModule(const std::string& module);

/// Whether this build can produce LLVM IR and assembly (FXRAY_HAVE_CPU_BACKEND).
bool kernelReportHasCpuBackend();

}  // namespace fxray::views
