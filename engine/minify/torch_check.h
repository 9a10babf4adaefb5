#pragma once
/// The `torch-compile` check: a candidate fails when PyTorch's torch.compile fails on it the same
/// way as on the original graph. Each query writes fxray's own repro.py of the candidate
/// (repro_export.h, "torch-compile" mode) into the candidate's folder and runs it with Python in
/// a child process with a timeout; nothing of the loaded file is executed. The script prints one
/// `FXRAY_FAILURE Type: first message line` line and exits 1 when torch.compile raises; the
/// signature is that line with the parts that change from run to run (numbers, addresses,
/// paths, hashes) blanked, so a smaller graph keeps the failure only when it is the same kind of
/// error, not merely some error.
///
/// The interpreter is `--python`, else $FXRAY_PYTHON, else `python3` on PATH. probeTorch() checks
/// once, before minifying, that it imports torch and knows the Inductor config keys.
#include "minify/query.h"

#include <filesystem>
#include <string>

namespace fxray::minify {

/// The Python that runs torch-compile checks: `explicitPath` when set, else $FXRAY_PYTHON, else "python3".
std::string torchPython(const std::string& explicitPath = {});

/// What probeTorch() found.
struct TorchInfo {
    std::string python;   ///< the interpreter as given
    std::string version;  ///< torch.__version__
    bool cuda = false;    ///< torch.cuda.is_available()
};

/// Runs `python` on a small probe script (in a temp folder): imports torch, checks that every
/// Inductor config key of `check` exists and that its device is there. The error says what to
/// install or set ("... install PyTorch (pip install torch) or set FXRAY_PYTHON ...").
Expected<TorchInfo> probeTorch(const std::string& python, const CheckSpec& check, double timeoutSeconds = 120.0);

/// Writes dir/repro.py for the candidate (its graph.py and inputs/ are already there) and runs
/// it; Reproduced with signature "torch-compile:BACKEND:<normalized failure>" when torch.compile
/// raised, Clean when it ran (or eager PyTorch itself fails), Timeout / Crash / Error otherwise.
QueryOutcome runTorchCheck(const std::filesystem::path& dir, const Graph& g, const std::vector<Value>& inputs,
                           const FailureSpec& spec, const CheckSpec& check, const std::string& python,
                           double timeoutSeconds);

/// "Type: first line" with digits, hex addresses, paths and hash-like names blanked:
/// "CppCompileError: C++ compile error" stays, "at 7:11:" becomes "at N:N:".
std::string normalizeFailure(const std::string& failure);

}  // namespace fxray::minify
