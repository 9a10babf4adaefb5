#pragma once
// Helpers shared by the CLI tests: run a subcommand in-process and capture what it printed.
#include "test_util.h"

#include "cli/cli.h"

#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace fxtest {

/// Exit status and the two output streams of one `fxray` subcommand.
struct CliResult {
    int status;
    std::string out, err;
};

/// Runs `fxray ARGS...` in this process (runCli, as main() does for a subcommand).
inline CliResult cli(std::vector<std::string> args) {
    std::ostringstream out, err;
    int st = fxray::cli::runCli(args, out, err);
    return {st, out.str(), err.str()};
}

/// A corpus path as a string (`c("mlp/numerics/forward.py")`).
inline std::string c(const std::string& rel) { return (corpus() / rel).string(); }

/// How many times slower than a plain build this one runs: the sanitizer test presets set
/// FXRAY_TEST_SLOWDOWN, and tests that pass short time limits to the CLI scale them by it.
inline int slowdown() {
    const char* s = std::getenv("FXRAY_TEST_SLOWDOWN");
    const int v = s ? std::atoi(s) : 1;
    return v > 1 ? v : 1;
}

}  // namespace fxtest
