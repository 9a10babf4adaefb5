#pragma once
// What the CPU lowering tests share: a graph compiled for the CPU backend with no reference
// fallback and run, and the same graph lowered for CUDA (PTX, no device) with no fallback.
#include "test_util.h"

#include "codegen/cpu/cpu_backend.h"
#include "codegen/cuda/cuda_api.h"
#include "codegen/cuda/cuda_backend.h"

#include <map>
#include <string>
#include <vector>

namespace fxtest {

/// "op op ..." of a fallback count map (empty: none).
inline std::string opList(const std::map<std::string, int>& ops) {
    std::string r;
    for (const auto& [op, n] : ops) r += op + " ";
    return r;
}

/// The CPU backend's outputs of g on `in` into `out`; fails the test (check
/// QTest::currentTestFailed()) where it does not compile, falls back to the reference kernel or
/// does not run.
inline void runCpuWithoutFallback(const fxray::Graph& g, const std::vector<fxray::Value>& in,
                                  std::vector<fxray::Value>& out) {
    auto c = fxray::cg::cpu::CompiledGraph::compile(g, in);
    QVERIFY2(c.ok(), c.ok() ? "" : c.error().str().c_str());
    const std::string fallbacks = opList((*c)->fallbackOps());
    QVERIFY2(fallbacks.empty(), fallbacks.c_str());
    auto r = (*c)->run(in);
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().str().c_str());
    out = std::move(r).value();
}

/// g lowers for CUDA (PTX for sm_80, no device) with no fallback; nothing is checked where NVRTC
/// cannot be loaded (returns false then).
inline bool cudaLowersWithoutFallback(const fxray::Graph& g, const std::vector<fxray::Value>& in) {
    if (!fxray::cg::cuda::runtime().haveNvrtc) return false;
    auto so = fxray::cg::cuda::compileSourceOnly(g, in, "compute_80");
    [&] {
        QVERIFY2(so.ok(), so.ok() ? "" : so.error().str().c_str());
        const std::string fallbacks = opList(so->program.lowered.fallbackOps);
        QVERIFY2(fallbacks.empty(), fallbacks.c_str());
    }();
    return true;
}

}  // namespace fxtest
