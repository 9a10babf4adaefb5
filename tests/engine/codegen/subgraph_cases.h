#pragma once
/// Graphs with subgraph ops for the CUDA backend's tests, in tests/engine/codegen/data/:
/// nested_cond.py (a cond whose true branch holds a cond; operands a transposed view and a
/// slice at an offset; the false branch returns another layout than the true one) and
/// cond_bad_predicate.py (the inner cond's predicate has two elements: an error at run time).
#include "test_util.h"

#include "import/loader.h"

#include <filesystem>
#include <memory>

namespace fxtest {

inline std::unique_ptr<fxray::LoadedFile> loadSubgraphCase(const std::string& file) {
    auto f = fxray::loadFile(std::filesystem::path(FXRAY_TESTS_DIR) / "engine" / "codegen" / "data" / file);
    if (!f.ok() || f->graphs.empty()) {
        qWarning("%s: %s", file.c_str(), f.ok() ? "no graph" : f.error().str().c_str());
        return nullptr;
    }
    return std::make_unique<fxray::LoadedFile>(std::move(f).value());
}

}  // namespace fxtest
