#pragma once
/// The execution backends an accuracy check compares, behind one small interface so that the
/// compiled backends (engine/codegen: CPU via LLVM, CUDA via NVRTC) plug in without the minifier
/// knowing them.
///
/// Built in: "ref" (the reference executor) and "ref64" (it with fp64 throughout). A compiled
/// backend registers a factory under "cpu" / "cuda" with registerBackend() — in the composition
/// root (app/cli) or next to its code — and every `accuracy:*-vs-cpu` check then uses it, in
/// the parent and in the isolated query process alike (both are the fxray executable). Until
/// then makeBackend("cpu") answers "backend 'cpu' is not available in this build".
#include "ir/graph.h"
#include "ir/value.h"
#include "support/diagnostic.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace fxray::minify {

/// One way of running a graph.
class ExecBackend {
public:
    virtual ~ExecBackend() = default;
    virtual std::string name() const = 0;
    /// Runs g on copies of inputs with random ops seeded by seed; returns the output values.
    /// When nodeValues is non-null and observesNodes(), fills it with every node's value by name.
    virtual Expected<std::vector<Value>> run(const Graph& g, const std::vector<Value>& inputs, uint64_t seed,
                                             std::map<std::string, Value>* nodeValues = nullptr) = 0;
    /// Whether run() can report per-node values (what localisation of a mismatch needs).
    virtual bool observesNodes() const { return false; }
};

using BackendFactory = std::function<Expected<std::unique_ptr<ExecBackend>>()>;

/// Makes the named backend ("ref", "ref64", or a registered one).
Expected<std::unique_ptr<ExecBackend>> makeBackend(const std::string& name);
/// Registers (or replaces) a backend factory. Thread-safe; call before minifying.
void registerBackend(const std::string& name, BackendFactory factory);
/// Whether makeBackend(name) can succeed here (without building the backend).
bool backendAvailable(const std::string& name);

} // namespace fxray::minify
