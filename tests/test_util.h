#pragma once
// Helpers shared by the tests: corpus paths and small tensor builders.
#include "exec/compare.h"
#include "exec/interpreter.h"
#include "exec/ops/kernel_util.h"
#include "exec/shape_inference.h"
#include "import/fx_text_reader.h"
#include "import/loader.h"
#include "import/npy.h"
#include "import/recorded_pins.h"

#include <QString>
#include <QTest>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace fxtest {

/// The corpus: $FXRAY_CORPUS_DIR when set (a copy carried to another machine), else the
/// configure-time path.
inline std::filesystem::path corpus() {
    if (const char* env = std::getenv("FXRAY_CORPUS_DIR"); env && *env) return std::filesystem::path(env);
    return std::filesystem::path(FXRAY_CORPUS_DIR);
}
inline bool haveCorpus() { return std::filesystem::exists(corpus() / "README.md"); }

/// A contiguous tensor with the given values (row-major).
inline fxray::Tensor tensor(std::vector<int64_t> shape, std::vector<double> values,
                            fxray::DType dt = fxray::DType::Float32) {
    auto m = fxray::TensorMeta::contiguous(std::move(shape), dt);
    return fxray::kern::makeTensor(m, values);
}
inline fxray::Value tv(std::vector<int64_t> shape, std::vector<double> values,
                       fxray::DType dt = fxray::DType::Float32) {
    return fxray::Value::ofTensor(tensor(std::move(shape), std::move(values), dt));
}
inline fxray::Value iv(int64_t v) { return fxray::Value::ofInt(v); }
inline fxray::Value dv(double v) { return fxray::Value::ofDouble(v); }
inline fxray::Value bv(bool v) { return fxray::Value::ofBool(v); }
inline fxray::Value ilist(std::vector<int64_t> v) {
    std::vector<fxray::Value> items;
    for (auto x : v) items.push_back(fxray::Value::ofInt(x));
    return fxray::Value::ofList(std::move(items));
}

/// Runs one op for real; fails the test (QVERIFY-style message) on error.
inline fxray::Value run(std::string_view op, std::vector<fxray::Value> args,
                        std::vector<std::pair<std::string, fxray::Value>> kw = {}) {
    fxray::ExecContext ctx(0);
    auto r = fxray::invokeOp(op, std::move(args), std::move(kw), &ctx);
    if (!r.ok()) {
        QTest::qFail(r.error().str().c_str(), __FILE__, __LINE__);
        return {};
    }
    return std::move(r).value();
}

// Random pins of recorded runs (engine/import/recorded_pins.h), under the names tests use.
using fxray::randomDerived;
using fxray::recordedRandomPins;

/// A `GraphModule` whose forward takes `params` and runs `body` (indented lines ending in a
/// return), parsed with its ops resolved and its annotations as written (no inference); null,
/// with the parse error as a warning, on bad text.
inline std::unique_ptr<fxray::Graph> parseForward(const std::string& params, const std::string& body) {
    const std::string text = "class GraphModule(torch.nn.Module):\n    def forward(self, " + params + "):\n" + body;
    auto g = fxray::readFxText(text, "test.py");
    if (!g.ok()) {
        qWarning("%s", g.error().str().c_str());
        return nullptr;
    }
    fxray::resolveOps(**g);
    return std::move(g).value();
}

/// One recorded stage of PyTorch's OpInfo set: STEM.py, its inputs STEM/inputs/NNN.npy and
/// PyTorch's outputs STEM/outputs/NNN.npy.
struct RecordedStage {
    fxray::LoadedFile file;
    std::vector<fxray::Value> inputs, expect;
    fxray::Graph& graph() { return file.graphs[0].executable(); }
};
inline fxray::Expected<RecordedStage> loadRecordedStage(const std::filesystem::path& stem) {
    RecordedStage r;
    auto f = fxray::loadFile(stem.string() + ".py");
    if (!f.ok()) return f.error();
    r.file = std::move(f).value();
    fxray::Graph& g = r.graph();
    auto in = fxray::readNpyFolder(stem / "inputs", g.placeholders().size());
    if (!in.ok()) return in.error();
    auto expect = fxray::readNpyFolder(stem / "outputs", g.outputs().size());
    if (!expect.ok()) return expect.error();
    r.inputs = std::move(in).value();
    r.expect = std::move(expect).value();
    return r;
}

/// Values of a tensor in row-major order.
inline std::vector<double> values(const fxray::Value& v) { return fxray::kern::toDoubles(v.t); }

}  // namespace fxtest

#define FX_COMPARE_VEC(actual, expected, tol)                                                                          \
    do {                                                                                                               \
        const auto& a_ = (actual);                                                                                     \
        const std::vector<double> e_ = (expected);                                                                     \
        QCOMPARE(a_.size(), e_.size());                                                                                \
        for (size_t i_ = 0; i_ < a_.size(); ++i_)                                                                      \
            if (std::abs(a_[i_] - e_[i_]) > (tol))                                                                     \
                QFAIL(qPrintable(QString("element %1: %2 != %3").arg(i_).arg(a_[i_]).arg(e_[i_])));                    \
    } while (0)
