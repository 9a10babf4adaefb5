#pragma once
/// Isolation of one query: a child process started with posix_spawn (never a bare fork of this
/// multi-threaded process), watched with a timeout, and its end classified — normal exit, killed
/// by a signal (a crash), or killed by us after the timeout (a hang). A crash or a hang of the
/// code under test is a result, never the end of the minifier's run.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace fxray::minify {

/// How a child process ended.
struct ProcessResult {
    enum class End { Exited, Signaled, TimedOut, SpawnFailed };
    End end = End::SpawnFailed;
    int exitCode = -1;  ///< Exited
    int signal = 0;     ///< Signaled
    double seconds = 0.0;
    std::string error;  ///< SpawnFailed: why
    /// "exit 0", "signal 11 (SIGSEGV)", "timed out after 30 s", "could not start: ..."
    std::string describe() const;
};

/// Options of one spawn.
struct SpawnOptions {
    std::filesystem::path cwd;          ///< empty: inherit
    double timeoutSeconds = 30.0;       ///< <= 0: no timeout
    std::filesystem::path stdoutFile;   ///< empty: /dev/null
    std::filesystem::path stderrFile;   ///< empty: /dev/null
    std::vector<std::string> extraEnv;  ///< "K=V" added to the environment
};

/// Runs argv[0] (a path, or a name looked up in PATH) with argv, in its own process group,
/// waits for it, and kills the whole group (SIGKILL) when the timeout passes.
ProcessResult spawnAndWait(const std::vector<std::string>& argv, const SpawnOptions& opts);

/// How a child's descriptors are set up: each entry opens `path` (or duplicates `fromFd` when
/// >= 0) as descriptor `fd` of the child.
struct ChildFd {
    int fd = 0;
    std::string path;
    int flags = 0;    ///< open(2) flags for `path`
    int fromFd = -1;  ///< a descriptor of this process to duplicate instead
};

/// Starts argv the way spawnAndWait does (own process group, default signal dispositions,
/// the environment plus `extraEnv`, working folder `cwd` when given) without waiting. Returns
/// the child's pid, or -1 with `error` set.
int spawnChild(const std::vector<std::string>& argv, const std::vector<ChildFd>& fds,
               const std::vector<std::string>& extraEnv, const std::filesystem::path& cwd, std::string& error);

/// Waits up to `timeoutSeconds` (<= 0: forever) for pid; kills its process group when the time
/// passes. Fills end/exitCode/signal/seconds (seconds counted from `started`).
void waitChild(int pid, double timeoutSeconds, double startedSeconds, ProcessResult& r);

/// Seconds on the monotonic clock (the origin of waitChild's `startedSeconds`).
double monotonicSeconds();

/// "SIGSEGV" for 11, "signal N" for unknown numbers.
std::string signalName(int sig);

/// The fxray executable that answers `__minify-query`: $FXRAY_EXE when set, else this process's
/// own executable when it is fxray, else an `fxray` next to it or in ../app (test and benchmark
/// binaries in a build tree). Empty when none is found.
std::filesystem::path findFxrayExecutable();

}  // namespace fxray::minify
