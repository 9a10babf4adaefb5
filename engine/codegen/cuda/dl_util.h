#pragma once
/// dlopen helpers shared by the libraries the CUDA backend opens at run time (the driver,
/// NVRTC, cuBLAS, cuDNN): the first name of a list that opens, typed symbol lookup that collects
/// what is missing, and an environment override.
#include <cstdlib>
#include <dlfcn.h>
#include <string>
#include <vector>

namespace fxray::cg::cuda {

/// dlopen of the first name that opens; `tried` lists what failed (for the message).
inline void* openFirst(const std::vector<std::string>& names, std::string& opened, std::string& tried) {
    for (const auto& n : names) {
        if (n.empty()) continue;
        if (void* h = dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL)) {
            opened = n;
            return h;
        }
        tried += (tried.empty() ? "" : ", ") + n;
    }
    return nullptr;
}

/// fn = dlsym(lib, name); a missing name is appended to `missing`.
template <typename F>
bool sym(void* lib, F& fn, const char* name, std::string& missing) {
    fn = reinterpret_cast<F>(dlsym(lib, name));
    if (!fn) missing += (missing.empty() ? "" : ", ") + std::string(name);
    return fn != nullptr;
}

/// The variable's value, or "" when unset.
inline std::string envOr(const char* var) {
    const char* v = std::getenv(var);
    return v ? std::string(v) : std::string();
}

}  // namespace fxray::cg::cuda
