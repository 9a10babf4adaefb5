#pragma once
// The recorded complex-RoPE runs (bench/gen_popular_complex.py, unpacked by tests/CMakeLists.txt
// into FXRAY_COMPLEX_ROPE_DIR) and PyTorch's OpInfo complex rows, loaded as `fxray run --inputs
// --expect` loads them and run on a backend against PyTorch's outputs. Shared by the CPU and
// CUDA tests.
#include "test_util.h"

#include "codegen/backend.h"
#include "exec/compare.h"
#include "exec/complex_to_real.h"
#include "exec/run_check.h"
#include "import/loader.h"
#include "import/npy.h"

#include <QTest>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace complextest {

using namespace fxray;
namespace fs = std::filesystem;

/// $FXRAY_COMPLEX_ROPE_DIR when set (a copy carried to the GPU machine), else the configure-time one.
inline fs::path ropeDir() {
    if (const char* env = std::getenv("FXRAY_COMPLEX_ROPE_DIR"); env && *env) return fs::path(env);
    return fs::path(FXRAY_COMPLEX_ROPE_DIR);
}

/// Rows "graph/stage": the four blocks (fp32, bf16; freqs_cis a complex input or polar in the
/// graph) and their forward, backward and Dynamo stages.
inline void addRopeRows() {
    QTest::addColumn<QString>("graph");
    QTest::addColumn<QString>("stage");
    for (const char* g : {"llama_rope_complex", "llama_rope_polar", "llama_rope_complex_bf16", "llama_rope_polar_bf16"})
        for (const char* s : {"forward", "backward", "dynamo"})
            QTest::newRow((std::string(g) + "/" + s).c_str()) << QString(g) << QString(s);
}

/// STEM.py (its executable graph: the Dynamo stage's lowering too) with the recorded inputs laid
/// out as the placeholders say, and PyTorch's outputs.
struct Recorded {
    std::unique_ptr<LoadedFile> file;
    RunRequest req;
    std::vector<Value> expect;
    const Graph& graph() const { return file->graphs[0].executable(); }
};
inline std::string loadRecorded(const fs::path& stem, Recorded& r) {
    auto f = loadFile(stem.string() + ".py");
    if (!f.ok()) return f.error().str();
    r.file = std::make_unique<LoadedFile>(std::move(f).value());
    if (!r.file->graphs[0].executableUnknownOps().empty())
        return "unknown op " + *r.file->graphs[0].executableUnknownOps().begin();
    const Graph& g = r.graph();
    auto in = readNpyFolder(stem / "inputs", g.placeholders().size());
    if (!in.ok()) return in.error().str();
    r.req.inputs = std::move(in).value();
    if (Status s = layOutRecordedInputs(g, r.req.inputs); !s.ok()) return s.error().str();
    auto expect = readNpyFolder(stem / "outputs", g.outputs().size());
    if (!expect.ok()) return expect.error().str();
    r.expect = std::move(expect).value();
    return {};
}

inline std::string failures(const RunResult& res) {
    std::string s;
    for (const auto& c : res.comparisons)
        if (!c.ok)
            s += "output " + std::to_string(c.index) + ": rel_err " + std::to_string(c.relErr) + " " + c.note + "; ";
    return s;
}

/// Runs the recorded stage on `backend` against PyTorch's outputs by run_check's one rule: every
/// output matches, and nothing ran on the reference kernel (CPU) or the host (CUDA).
inline void runMatches(const fs::path& stem, const std::string& backend) {
    Recorded r;
    const std::string err = loadRecorded(stem, r);
    QVERIFY2(err.empty(), err.c_str());
    QVERIFY(graphHasComplex(r.graph()));
    auto b = makeBackend(backend);
    QVERIFY2(b.ok(), b.ok() ? "" : b.error().str().c_str());
    RunReport rep;
    auto res = (*b)->run(r.graph(), r.req, &r.expect, &rep);
    QVERIFY2(res.ok(), res.ok() ? "" : res.error().str().c_str());
    QCOMPARE(res->comparisons.size(), r.expect.size());
    QVERIFY2(res->ok, failures(*res).c_str());
    std::string fallbacks;
    for (const auto& [op, n] : rep.fallbacks) fallbacks += op + " ";
    QVERIFY2(fallbacks.empty(), ("fallbacks: " + fallbacks).c_str());
}

}  // namespace complextest
