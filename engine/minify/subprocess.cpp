#include "minify/subprocess.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace fxray::minify {

namespace {
using Clock = std::chrono::steady_clock;
}

std::string signalName(int sig) {
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGPIPE: return "SIGPIPE";
    case SIGTRAP: return "SIGTRAP";
    default: return "signal " + std::to_string(sig);
    }
}

std::string ProcessResult::describe() const {
    switch (end) {
    case End::Exited: return "exit " + std::to_string(exitCode);
    case End::Signaled: return "signal " + std::to_string(signal) + " (" + signalName(signal) + ")";
    case End::TimedOut: {
        char buf[64];
        std::snprintf(buf, sizeof buf, "timed out after %.3g s", seconds);
        return buf;
    }
    case End::SpawnFailed: return "could not start: " + error;
    }
    return "?";
}

double monotonicSeconds() { return std::chrono::duration<double>(Clock::now().time_since_epoch()).count(); }

int spawnChild(const std::vector<std::string>& argv, const std::vector<ChildFd>& fds,
               const std::vector<std::string>& extraEnv, const std::filesystem::path& cwd, std::string& error) {
    if (argv.empty()) {
        error = "no command";
        return -1;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    for (const auto& f : fds) {
        if (f.fromFd >= 0)
            posix_spawn_file_actions_adddup2(&fa, f.fromFd, f.fd);
        else
            posix_spawn_file_actions_addopen(&fa, f.fd, f.path.c_str(), f.flags, 0644);
    }
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 29))
    if (!cwd.empty()) posix_spawn_file_actions_addchdir_np(&fa, cwd.c_str());
#else
    (void)cwd;
#endif
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    // Own process group, so that a timeout kills what the child started too (shell commands).
    posix_spawnattr_setpgroup(&attr, 0);
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&attr, &none);
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    sigaddset(&defaults, SIGSEGV);
    sigaddset(&defaults, SIGABRT);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

    std::vector<std::string> envStore;
    for (char** e = environ; e && *e; ++e) envStore.emplace_back(*e);
    for (const auto& kv : extraEnv) envStore.push_back(kv);
    std::vector<char*> envp;
    for (auto& s : envStore) envp.push_back(s.data());
    envp.push_back(nullptr);
    std::vector<std::string> argStore = argv;
    std::vector<char*> args;
    for (auto& s : argStore) args.push_back(s.data());
    args.push_back(nullptr);

    pid_t pid = -1;
    int rc = posix_spawnp(&pid, args[0], &fa, &attr, args.data(), envp.data());
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    if (rc != 0) {
        error = std::string(args[0]) + ": " + std::strerror(rc);
        return -1;
    }
    return pid;
}

void waitChild(int pid, double timeoutSeconds, double startedSeconds, ProcessResult& r) {
    // Poll with a short sleep: simple, and the child's own run time dominates.
    int status = 0;
    bool killed = false;
    auto sleepFor = std::chrono::microseconds(200);
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid) break;
        if (w < 0 && errno != EINTR) {
            r.end = ProcessResult::End::SpawnFailed;
            r.error = std::string("waitpid: ") + std::strerror(errno);
            return;
        }
        double el = monotonicSeconds() - startedSeconds;
        if (!killed && timeoutSeconds > 0 && el > timeoutSeconds) {
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            killed = true;
        }
        std::this_thread::sleep_for(sleepFor);
        if (sleepFor < std::chrono::milliseconds(5)) sleepFor *= 2;
    }
    r.seconds = monotonicSeconds() - startedSeconds;
    if (killed) {
        r.end = ProcessResult::End::TimedOut;
        r.seconds = timeoutSeconds;
    } else if (WIFEXITED(status)) {
        r.end = ProcessResult::End::Exited;
        r.exitCode = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        r.end = ProcessResult::End::Signaled;
        r.signal = WTERMSIG(status);
    }
}

ProcessResult spawnAndWait(const std::vector<std::string>& argv, const SpawnOptions& opts) {
    ProcessResult r;
    const std::string out = opts.stdoutFile.empty() ? "/dev/null" : opts.stdoutFile.string();
    const std::string err = opts.stderrFile.empty() ? "/dev/null" : opts.stderrFile.string();
    const std::vector<ChildFd> fds = {{0, "/dev/null", O_RDONLY, -1},
                                      {1, out, O_WRONLY | O_CREAT | O_TRUNC, -1},
                                      {2, err, O_WRONLY | O_CREAT | O_TRUNC, -1}};
    const double t0 = monotonicSeconds();
    const int pid = spawnChild(argv, fds, opts.extraEnv, opts.cwd, r.error);
    if (pid < 0) return r;
    waitChild(pid, opts.timeoutSeconds, t0, r);
    return r;
}

std::filesystem::path findFxrayExecutable() {
    namespace fs = std::filesystem;
    if (const char* e = std::getenv("FXRAY_EXE"); e && *e && fs::exists(e)) return fs::path(e);
    std::error_code ec;
    fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (ec) return {};
    if (self.filename() == "fxray") return self;
    const fs::path dir = self.parent_path();
    for (const fs::path& cand : {dir / "fxray", dir / ".." / "app" / "fxray", dir / ".." / ".." / "app" / "fxray"})
        if (fs::exists(cand, ec)) return fs::weakly_canonical(cand, ec);
    return {};
}

}  // namespace fxray::minify
