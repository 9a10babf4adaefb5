#pragma once
/// Hand-written device kernels kept as .cu files under codegen/cuda/kernels/ and embedded in the
/// binary at build time (cmake/EmbedSources.cmake): a KernelModule compiles its sources with
/// NVRTC on first use (once per process) and looks up its functions by name.
#include "codegen/cuda/cuda_api.h"

#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace fxray::cg::cuda {

/// The text of an embedded kernel file ("attention.cu"), or nullptr.
const char* embeddedSource(std::string_view name);

class KernelModule {
public:
    /// `files` are concatenated in order (shared argument headers first).
    KernelModule(std::string name, std::vector<std::string> files);

    /// The concatenated source (what NVRTC compiles; CI compiles it without a device).
    Expected<std::string> source() const;
    /// The function `fn`, compiling and loading the module first.
    Expected<CUfunction> function(const std::string& fn);

private:
    Status loadLocked();

    std::string m_name;
    std::vector<std::string> m_files;
    std::mutex m_mu;
    CUmodule m_mod = nullptr;
    std::string m_err;
    std::map<std::string, CUfunction> m_fns;
};

/// Launches fn on a grid of blocks (x, y) with `threads` threads a block.
/// sharedBytes: dynamic shared memory (above 48 KiB the function must allow it first).
Status launchGrid(CUfunction fn, unsigned gx, unsigned gy, unsigned threads, void** params, const char* what,
                  unsigned sharedBytes = 0);

}  // namespace fxray::cg::cuda
