#pragma once
// One recorded AOT graph run of the corpus (`<model>/numerics/<stage>.py` with its inputs and
// outputs), loaded the way every backend's corpus test runs it: inputs laid out with the
// placeholders' annotated strides, random values pinned to what the forward graph recorded.
// Shared by the reference executor's, the CPU backend's and the CUDA backend's corpus tests.
#include "test_util.h"

#include "exec/compare.h"
#include "exec/run_check.h"
#include "import/loader.h"
#include "import/npy.h"

#include <QString>
#include <QTest>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace fxtest {

/// Adds the "model" and "stage" columns and one row per recorded run (joint, forward, backward,
/// inference) found in the corpus, sorted, named "model/stage".
inline void addNumericsRows() {
    namespace fs = std::filesystem;
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("stage");
    if (!haveCorpus()) return;
    std::vector<std::pair<std::string, std::string>> rows;
    for (const auto& model : fs::directory_iterator(corpus()))
        for (const char* stage : {"joint", "forward", "backward", "inference"})
            if (fs::exists(model.path() / "numerics" / (std::string(stage) + ".py")) &&
                fs::is_directory(model.path() / "numerics" / stage / "inputs"))
                rows.emplace_back(model.path().filename().string(), stage);
    std::sort(rows.begin(), rows.end());
    for (auto& [m, s] : rows)
        QTest::newRow((m + "/" + s).c_str()) << QString::fromStdString(m) << QString::fromStdString(s);
}

/// A loaded run: the graph, the request (inputs + pins) and PyTorch's outputs.
struct NumericsCase {
    std::unique_ptr<fxray::LoadedFile> file;
    fxray::RunRequest req;
    std::vector<fxray::Value> expect;
    fxray::Graph& graph() const { return *file->graphs[0].graph; }
};

/// Loads `<model>/numerics/<stage>`; an empty string on success, else what went wrong.
inline std::string loadNumericsCase(const std::string& model, const std::string& stage, NumericsCase& out) {
    using namespace fxray;
    const std::filesystem::path num = corpus() / model / "numerics";
    auto f = loadFile(num / (stage + ".py"));
    if (!f.ok()) return f.error().str();
    out.file = std::make_unique<LoadedFile>(std::move(f).value());
    Graph& g = out.graph();
    auto phs = g.placeholders();
    auto inputs = readNpyFolder(num / stage / "inputs", phs.size());
    if (!inputs.ok()) return inputs.error().str();
    for (size_t i = 0; i < inputs->size(); ++i)
        if ((*inputs)[i].isTensor()) (*inputs)[i].t = withAnnotatedStrides((*inputs)[i].t, *phs[i]);
    // PyTorch's CUDA generator is not reproduced: values derived from random ops are pinned to
    // what the forward graph recorded under the same node name (the values it saved for the
    // backward).
    auto pins = recordedRandomPins(g, num);
    if (!pins) return "forward.py or its recorded outputs cannot be read";
    out.req.pins = std::move(*pins);
    if (!randomDerived(g).empty() && out.req.pins.empty()) return "random values are used but none was recorded";
    out.req.inputs = std::move(inputs).value();
    auto expect = readNpyFolder(num / stage / "outputs", g.outputs().size());
    if (!expect.ok()) return expect.error().str();
    out.expect = std::move(expect).value();
    return {};
}

}  // namespace fxtest
