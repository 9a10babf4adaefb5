#include "sweep/serve_worker.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <iostream>
#include <poll.h>
#include <sstream>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace fxray::sweep {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

/// The worker's end of the socket pair: a descriptor number no library opens on its own.
constexpr int kServeFd = 3;

bool sendAll(int fd, const std::string& data) {
    size_t off = 0;
    while (off < data.size()) {
        // MSG_NOSIGNAL: a worker that died is an answer (EPIPE), not a SIGPIPE for the sweep.
        ssize_t n = ::send(fd, data.data() + off, data.size() - off, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        off += static_cast<size_t>(n);
    }
    return true;
}

bool writeAll(int fd, const std::string& data) {
    size_t off = 0;
    while (off < data.size()) {
        ssize_t n = ::write(fd, data.data() + off, data.size() - off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        off += static_cast<size_t>(n);
    }
    return true;
}

}  // namespace

ServeWorker::ServeWorker(fs::path fxray, std::vector<std::string> extraEnv, fs::path log)
        : m_fxray(std::move(fxray)), m_log(std::move(log)), m_env(std::move(extraEnv)) {}

ServeWorker::~ServeWorker() { stop(); }

bool ServeWorker::start(std::string& error) {
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        error = std::string("socketpair: ") + std::strerror(errno);
        return false;
    }
    // The worker gets sv[1] as descriptor 3 (dup2 clears close-on-exec); it inherits nothing else.
    const std::vector<minify::ChildFd> fds = {{0, "/dev/null", O_RDONLY, -1},
                                              {1, "/dev/null", O_WRONLY, -1},
                                              {2, m_log.string(), O_WRONLY | O_CREAT | O_APPEND, -1},
                                              {kServeFd, "", 0, sv[1]}};
    m_pid = minify::spawnChild({m_fxray.string(), "__sweep-serve"}, fds, m_env, {}, error);
    ::close(sv[1]);
    if (m_pid < 0) {
        ::close(sv[0]);
        return false;
    }
    m_sock = sv[0];
    m_served = 0;
    m_pending.clear();
    return true;
}

void ServeWorker::stop() {
    if (m_sock >= 0) ::close(m_sock);  // a live worker reads end-of-file and exits
    m_sock = -1;
    if (m_pid > 0) {
        minify::ProcessResult ignored;
        minify::waitChild(m_pid, 5.0, minify::monotonicSeconds(), ignored);
    }
    m_pid = -1;
}

minify::ProcessResult ServeWorker::run(const std::vector<std::string>& args, double timeoutSeconds,
                                       const fs::path& stdoutFile, const fs::path& stderrFile) {
    minify::ProcessResult r;
    if (m_pid > 0 && m_served >= recycleAfter) stop();
    if (m_pid < 0 && !start(r.error)) return r;  // SpawnFailed
    const double t0 = minify::monotonicSeconds();
    const json req = {{"argv", args}, {"stdout", stdoutFile.string()}, {"stderr", stderrFile.string()}};
    bool answered = sendAll(m_sock, req.dump() + "\n");
    std::string line;
    while (answered) {
        if (auto nl = m_pending.find('\n'); nl != std::string::npos) {
            line = m_pending.substr(0, nl);
            m_pending.erase(0, nl + 1);
            break;
        }
        int waitMs = -1;
        if (timeoutSeconds > 0) {
            const double left = timeoutSeconds - (minify::monotonicSeconds() - t0);
            if (left <= 0) {
                answered = false;
                break;
            }
            waitMs = static_cast<int>(left * 1000) + 1;
        }
        pollfd p{m_sock, POLLIN, 0};
        int n = ::poll(&p, 1, waitMs);
        if (n < 0 && errno == EINTR) continue;
        if (n == 0) continue;  // the deadline is checked above
        char buf[4096];
        ssize_t got = ::recv(m_sock, buf, sizeof buf, 0);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
            answered = false;  // the worker is gone
            break;
        }
        m_pending.append(buf, static_cast<size_t>(got));
    }
    if (answered) {
        json ans = json::parse(line, nullptr, false);
        if (ans.is_object() && ans.contains("exit") && ans["exit"].is_number_integer()) {
            ++m_served;
            r.end = minify::ProcessResult::End::Exited;
            r.exitCode = ans["exit"].get<int>();
            r.seconds = minify::monotonicSeconds() - t0;
            return r;
        }
    }
    // No answer: the worker died during the check (a crash), or the time ran out (a hang). Either
    // way this worker is finished; waitChild says which (and kills it on the deadline).
    ::close(m_sock);
    m_sock = -1;
    const double left = timeoutSeconds > 0 ? std::max(0.0, timeoutSeconds - (minify::monotonicSeconds() - t0)) : 0.0;
    minify::waitChild(m_pid, timeoutSeconds > 0 ? std::max(left, 0.001) : 0.0, minify::monotonicSeconds(), r);
    m_pid = -1;
    if (r.end == minify::ProcessResult::End::TimedOut)
        r.seconds = timeoutSeconds;
    else
        r.seconds = minify::monotonicSeconds() - t0;
    // A worker that exits (rather than crashes) without answering broke the protocol: say so.
    if (r.end == minify::ProcessResult::End::Exited) {
        r.end = minify::ProcessResult::End::SpawnFailed;
        r.error = "the sweep worker ended without answering (exit " + std::to_string(r.exitCode) + ")";
    }
    return r;
}

int serveChecks(int (*runCommand)(const std::vector<std::string>&, std::ostream&, std::ostream&)) {
    // Children of a check (the minifier's queries) must not inherit the connection.
    ::fcntl(kServeFd, F_SETFD, FD_CLOEXEC);
    const int keepOut = ::dup(1), keepErr = ::dup(2);
    std::string pending;
    for (;;) {
        std::string line;
        for (;;) {
            if (auto nl = pending.find('\n'); nl != std::string::npos) {
                line = pending.substr(0, nl);
                pending.erase(0, nl + 1);
                break;
            }
            char buf[4096];
            ssize_t got = ::read(kServeFd, buf, sizeof buf);
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) return 0;  // the sweep closed the connection
            pending.append(buf, static_cast<size_t>(got));
        }
        json req = json::parse(line, nullptr, false);
        if (!req.is_object() || !req.contains("argv") || !req["argv"].is_array()) return 2;
        std::vector<std::string> args;
        for (const auto& a : req["argv"]) args.push_back(a.get<std::string>());
        // The command's output goes to the files the request names, what it writes to its
        // streams and what libraries print to descriptors 1 and 2 alike.
        const std::string outPath = req.value("stdout", "/dev/null"), errPath = req.value("stderr", "/dev/null");
        const int outFd = ::open(outPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
        const int errFd = ::open(errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
        if (outFd >= 0) ::dup2(outFd, 1);
        if (errFd >= 0) ::dup2(errFd, 2);
        std::ostringstream out, err;
        const int rc = runCommand(args, out, err);
        std::cout.flush();
        std::cerr.flush();
        std::fflush(stdout);
        std::fflush(stderr);
        writeAll(1, out.str());
        writeAll(2, err.str());
        ::dup2(keepOut, 1);
        ::dup2(keepErr, 2);
        if (outFd >= 0) ::close(outFd);
        if (errFd >= 0) ::close(errFd);
        const std::string ans = json{{"exit", rc}}.dump() + "\n";
        if (!writeAll(kServeFd, ans)) return 0;
    }
}

}  // namespace fxray::sweep
