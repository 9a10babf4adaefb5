#pragma once
// What the CPU lowering tests share: a graph compiled for the CPU backend with no reference
// fallback and run, and the same graph lowered for CUDA (PTX, no device) with no fallback.
#include "test_util.h"

#include "codegen/cpu/cpu_backend.h"
#include "codegen/cuda/cuda_api.h"
#include "codegen/cuda/cuda_backend.h"
#include "exec/run_check.h"

#include <cmath>
#include <cstdint>
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

/// The CPU backend's outputs of g on `in` (random ops drawing from `seed`) into `out`; fails the test (check
/// QTest::currentTestFailed()) where it does not compile, falls back to the reference kernel (at
/// compile time, or an extern kernel declining at run time) or does not run.
inline void runCpuWithoutFallback(const fxray::Graph& g, const std::vector<fxray::Value>& in,
                                  std::vector<fxray::Value>& out, uint64_t seed = 0) {
    auto c = fxray::cg::cpu::CompiledGraph::compile(g, in);
    QVERIFY2(c.ok(), c.ok() ? "" : c.error().str().c_str());
    const std::string fallbacks = opList((*c)->fallbackOps());
    QVERIFY2(fallbacks.empty(), fallbacks.c_str());
    std::map<std::string, int> declined;
    auto r = (*c)->run(in, {}, seed, nullptr, &declined);
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().str().c_str());
    // An extern kernel that declined at run time ran the reference kernel too.
    const std::string runFallbacks = opList(declined);
    QVERIFY2(runFallbacks.empty(), ("declined at run time: " + runFallbacks).c_str());
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

/// The reference executor's outputs of g on `in`, after checking that the CPU backend (no
/// fallback) agrees with them within 1e-5 and that g lowers for CUDA with no fallback where
/// NVRTC loads; empty (the test failed) otherwise.
inline std::vector<fxray::Value> runBoth(const fxray::Graph& g, const std::vector<fxray::Value>& in) {
    fxray::RunRequest req;
    req.inputs = in;
    auto ref = fxray::runAndCheck(g, req, nullptr);
    if (!ref.ok()) {
        QTest::qFail(ref.error().str().c_str(), __FILE__, __LINE__);
        return {};
    }
    std::vector<fxray::Value> out;
    runCpuWithoutFallback(g, in, out);
    if (QTest::currentTestFailed()) return {};
    if (out.size() != ref->outputs.size()) {
        QTest::qFail("the CPU backend gave another number of outputs", __FILE__, __LINE__);
        return {};
    }
    for (size_t i = 0; i < out.size(); ++i) {
        const auto a = values(out[i]), b = values(ref->outputs[i]);
        if (out[i].t.shape() != ref->outputs[i].t.shape() || a.size() != b.size()) {
            QTest::qFail(("CPU output " + std::to_string(i) + " has another shape").c_str(), __FILE__, __LINE__);
            return {};
        }
        for (size_t k = 0; k < a.size(); ++k)
            if (std::fabs(a[k] - b[k]) > 1e-5 * (1.0 + std::fabs(b[k]))) {
                QTest::qFail(("CPU output " + std::to_string(i) + " differs at " + std::to_string(k)).c_str(), __FILE__,
                             __LINE__);
                return {};
            }
    }
    cudaLowersWithoutFallback(g, in);
    return ref->outputs;
}

/// g (params and body as test_util's parseForward takes them) on `in`: the CPU backend with no
/// fallback gives the reference executor's values (whose kernels the OpInfo sweep checks against
/// PyTorch) within 1e-5, and g lowers for CUDA with no fallback where NVRTC loads.
inline void lowersAndMatches(const std::string& params, const std::string& body, const std::vector<fxray::Value>& in) {
    auto g = parseForward(params, body);
    QVERIFY(g);
    fxray::RunRequest req;
    req.inputs = in;
    auto ref = fxray::runAndCheck(*g, req, nullptr);
    QVERIFY2(ref.ok(), ref.ok() ? "" : ref.error().str().c_str());
    std::vector<fxray::Value> out;
    runCpuWithoutFallback(*g, in, out);
    if (QTest::currentTestFailed()) return;
    QCOMPARE(out.size(), ref->outputs.size());
    for (size_t i = 0; i < out.size(); ++i) {
        QCOMPARE(out[i].t.shape(), ref->outputs[i].t.shape());
        FX_COMPARE_VEC(values(out[i]), values(ref->outputs[i]), 1e-5);
    }
    cudaLowersWithoutFallback(*g, in);  // unchecked where NVRTC cannot be loaded
}

}  // namespace fxtest
