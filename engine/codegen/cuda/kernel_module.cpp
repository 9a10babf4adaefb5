#include "codegen/cuda/kernel_module.h"

namespace fxray::cg::cuda {

KernelModule::KernelModule(std::string name, std::vector<std::string> files)
        : m_name(std::move(name)), m_files(std::move(files)) {}

Expected<std::string> KernelModule::source() const {
    // The .cu files include their argument headers only outside this concatenation.
    std::string s = "#define FXRAY_EMBEDDED_SOURCE 1\n";
    for (const auto& f : m_files) {
        const char* text = embeddedSource(f);
        if (!text) return makeError("the kernel source " + f + " is not embedded in this build");
        s += "// ----- " + f + "\n";
        s += text;
    }
    return s;
}

Status KernelModule::loadLocked() {
    if (m_mod) return Status::success();
    if (!m_err.empty()) return makeError(m_err);
    if (Status s = requireDevice(); !s.ok()) return s;
    auto src = source();
    if (!src.ok()) return src.error();
    auto out = nvrtcCompile(*src, m_name, targetArch());
    if (!out.ok()) {
        m_err = out.error().message;
        return out.error();
    }
    if (Status s = check(runtime().cu.cuModuleLoadData(&m_mod, out->image.data()), "loading " + m_name); !s.ok()) {
        m_err = s.error().message;
        m_mod = nullptr;
        return s;
    }
    return Status::success();
}

Expected<CUfunction> KernelModule::function(const std::string& fn) {
    std::lock_guard<std::mutex> g(m_mu);
    if (auto it = m_fns.find(fn); it != m_fns.end()) return it->second;
    if (Status s = loadLocked(); !s.ok()) return s.error();
    CUfunction f = nullptr;
    if (Status s = check(runtime().cu.cuModuleGetFunction(&f, m_mod, fn.c_str()), m_name + " kernel " + fn); !s.ok())
        return s.error();
    m_fns[fn] = f;
    return f;
}

Status launchGrid(CUfunction fn, unsigned gx, unsigned gy, unsigned threads, void** params, const char* what,
                  unsigned sharedBytes) {
    if (gx == 0 || gy == 0) return Status::success();
    CUresult r = runtime().cu.cuLaunchKernel(fn, gx, gy, 1, threads, 1, 1, sharedBytes, nullptr, params, nullptr);
    return check(r, std::string("launching ") + what);
}

}  // namespace fxray::cg::cuda
