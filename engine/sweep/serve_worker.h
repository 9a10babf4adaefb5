#pragma once
/// A long-lived child process answering many checks of a sweep (`fxray __sweep-serve`). A check
/// run in a fresh process pays the process's start every time: on a GPU host that is the CUDA
/// context and loading NVRTC, cuBLAS and cuDNN, about 0.5 s against a few ms of work for a small
/// graph, and two such starts at once on two GPUs slow each other down (measured on an H200 pair:
/// 0.49 s alone, 0.76 s each side by side). A worker pays it once. Isolation is kept where it
/// matters: a crash or a hang ends only the worker, the graph is recorded as crash or timeout
/// exactly as with a process per graph, and a fresh worker answers the next graph.
#include "minify/subprocess.h"

#include <filesystem>
#include <string>
#include <vector>

namespace fxray::sweep {

class ServeWorker {
public:
    /// `fxray`: the executable; `extraEnv`: "K=V" for the worker (CUDA_VISIBLE_DEVICES); `log`:
    /// where the worker's own stderr goes (what it prints outside any one check).
    ServeWorker(std::filesystem::path fxray, std::vector<std::string> extraEnv, std::filesystem::path log);
    ~ServeWorker();
    ServeWorker(const ServeWorker&) = delete;
    ServeWorker& operator=(const ServeWorker&) = delete;

    /// Runs one fxray command line (`args` without the executable) in the worker, its stdout and
    /// stderr written to the two files; starts a worker when none is running. The result reads as
    /// spawnAndWait's would for `fxray args...`: Exited with the command's status, Signaled when
    /// the worker died during it, TimedOut (the worker killed) after `timeoutSeconds`.
    minify::ProcessResult run(const std::vector<std::string>& args, double timeoutSeconds,
                              const std::filesystem::path& stdoutFile, const std::filesystem::path& stderrFile);

    /// Checks answered by the current worker process (it is replaced after `recycleAfter`, which
    /// bounds what a slow leak in one check can cost the next ones).
    size_t served() const { return m_served; }
    size_t recycleAfter = 200;
    /// Ends the worker process now; the next run() starts a fresh one. The sweep does this after
    /// a check that ended in an error, so that a broken state (a CUDA context after an illegal
    /// address, say) cannot change the outcome of the graphs after it.
    void recycle() { stop(); }

private:
    bool start(std::string& error);
    void stop();

    std::filesystem::path m_fxray, m_log;
    std::vector<std::string> m_env;
    int m_pid = -1;
    int m_sock = -1;  ///< our end of the socket pair; the worker's end is its descriptor 3
    size_t m_served = 0;
    std::string m_pending;  ///< bytes read past the last answer's newline
};

/// The worker's side: reads requests from descriptor 3, runs each through `runCommand` with the
/// command's stdout and stderr going to the files the request names, answers with its status.
/// Returns when the sweep closes the connection. `runCommand` is the CLI's entry point (the app
/// layer passes it in; this layer does not know the commands).
int serveChecks(int (*runCommand)(const std::vector<std::string>& args, std::ostream& out, std::ostream& err));

}  // namespace fxray::sweep
