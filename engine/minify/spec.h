#pragma once
/// What makes a graph "interesting" to the minifier: the `--check SPEC` and `--inject SPEC`
/// strings of `fxray minify`, parsed into data that both the parent (the reducer) and the
/// isolated query process (`fxray __minify-query DIR`) understand.
///
/// Checks (all given checks must hold for a candidate to be interesting):
///  - `pass-fails:NAME:REGEX` — running the pass pipeline, pass NAME fails (or crashes) with a
///    message matching REGEX (ECMAScript, searched; empty matches anything).
///  - `accuracy:A-vs-B` — sides A and B disagree beyond tolerance, judged like PyTorch's
///    `same()`: allclose(tol, tol), else RMSE(fp64, B) <= m * RMSE(fp64, A) + tol / 10. Sides:
///    `ref` (= `ref32`, the reference executor), `ref64` (it in fp64), `cpu`, `cuda` (the
///    compiled backends, when built; see codegen/backend.h).
///  - `command:CMD` (alias `external:CMD`) — CMD (run by /bin/sh in the candidate's folder,
///    C-Vise style) exits 0.
///  - `torch-compile[:BACKEND[@DEVICE]][:KEY=VALUE,...]` — fxray's own repro.py of the candidate,
///    run by Python with PyTorch (minify/torch_check.h), fails under torch.compile(backend=BACKEND,
///    default inductor) with the same exception type and first message line as the original.
///    KEY=VALUE pairs patch torch._inductor.config (e.g. cpp.inject_relu_bug_TESTING_ONLY=
///    compile_error, PyTorch's own minifier-test fault); DEVICE is cpu or cuda (default: cuda
///    when PyTorch sees one).
/// Injected faults (for testing and teaching), applied on the tested side only:
///  - `OP:scale=F` — OP's output (a single floating tensor) is multiplied by F;
///  - `OP:fail-in=PASS` / `OP:crash-in=PASS` / `OP:hang-in=PASS` — pass PASS fails / raises
///    SIGSEGV / hangs whenever the graph it ran on holds OP (exercises pass-fails, isolation and
///    timeouts without a real compiler bug).
/// `--inject` without any `--check` means `accuracy:ref-vs-ref` (clean vs injected reference).
#include "support/diagnostic.h"

#include <string>
#include <vector>

namespace fxray::minify {

/// One `--check`.
struct CheckSpec {
    enum class Kind { PassFails, Accuracy, Command, TorchCompile };
    Kind kind = Kind::Accuracy;
    std::string text;  ///< the spec as written (what travels to the query process)
    // PassFails
    std::string pass;
    std::string regex;
    // Accuracy: canonical side names "ref", "ref64", "cpu", "cuda"
    std::string refSide;
    std::string testSide;
    // Command
    std::string command;
    // TorchCompile
    std::string backend;                                              ///< torch.compile backend ("inductor")
    std::string device;                                               ///< "cpu", "cuda" or "" (the repro's default)
    std::vector<std::pair<std::string, std::string>> inductorConfig;  ///< dotted key, value as written
};

/// One `--inject`.
struct InjectSpec {
    enum class Kind { Scale, FailIn, CrashIn, HangIn };
    Kind kind = Kind::Scale;
    std::string text;
    std::string op;      ///< qualified name, "aten.tanh.default"
    double scale = 1.0;  ///< Scale
    std::string pass;    ///< FailIn / CrashIn / HangIn
};

/// Parses a `--check` spec; the message says what was expected ("unknown check kind 'x'
/// (pass-fails:NAME:REGEX, accuracy:A-vs-B, command:CMD, torch-compile[:BACKEND][:K=V,...])").
Expected<CheckSpec> parseCheckSpec(const std::string& text);
/// Parses an `--inject` spec (the op must be a registered ATen op).
Expected<InjectSpec> parseInjectSpec(const std::string& text);

/// The checks and faults of one minification, validated together.
struct FailureSpec {
    std::vector<CheckSpec> checks;
    std::vector<InjectSpec> injects;
    double tol = 1e-3;        ///< same()'s tol (PyTorch's config.repro_tolerance)
    double multiplier = 2.0;  ///< same()'s fp64 RMSE multiplier
    uint64_t seed = 0;        ///< random ops and random inputs; both sides use it
};

/// Parses and cross-checks (`--inject` alone implies accuracy:ref-vs-ref; `accuracy:ref-vs-ref`
/// needs an injected scale fault; every accuracy side must have a backend here).
Expected<FailureSpec> parseFailureSpec(const std::vector<std::string>& checks, const std::vector<std::string>& injects);

/// Canonical side name for a spelling ("ref32" -> "ref"), or "" when unknown.
std::string canonicalSide(const std::string& s);

}  // namespace fxray::minify
