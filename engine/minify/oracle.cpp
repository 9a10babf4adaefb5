#include "minify/oracle.h"

#include "minify/subprocess.h"
#include "minify/torch_check.h"

#include <algorithm>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace fxray::minify {

namespace fs = std::filesystem;

namespace {
std::string firstLine(const fs::path& p) {
    std::ifstream in(p);
    std::string line, last;
    // The last non-empty line: the child's one-line error comes last.
    while (std::getline(in, line))
        if (!line.empty()) last = line;
    return last;
}
}  // namespace

Oracle::Oracle(QueryRequest req, OracleOptions opts) : m_req(std::move(req)), m_opts(std::move(opts)) {
    setRequest(m_req);
    if (m_opts.jobs < 1) m_opts.jobs = 1;
    if (m_opts.executable.empty() && !m_opts.inProcess) m_opts.executable = findFxrayExecutable();
    std::random_device rd;
    fs::path base = m_opts.workDir.empty() ? fs::temp_directory_path() : m_opts.workDir;
    m_root = base / ("fxray-minify-" + std::to_string(::getpid()) + "-" + std::to_string(rd() % 1000000));
    std::error_code ec;
    fs::create_directories(m_root, ec);
}

Oracle::~Oracle() {
    if (m_opts.keepDirs) return;
    std::error_code ec;
    fs::remove_all(m_root, ec);
}

void Oracle::setRequest(QueryRequest req) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_req = std::move(req);
    m_cache.clear();
    m_commands.clear();
    m_needsChild = false;
    for (const auto& c : m_req.spec.checks) {
        if (c.kind == CheckSpec::Kind::Command || c.kind == CheckSpec::Kind::TorchCompile)
            m_commands.push_back(&c);
        else
            m_needsChild = true;
    }
    // An in-process predicate stands for the whole child.
    if (m_opts.inProcess) m_needsChild = true;
}

fs::path Oracle::newDir() { return m_root / ("q" + std::to_string(m_dirCounter.fetch_add(1))); }

QueryOutcome Oracle::runChild(const Graph& g, const std::vector<Value>& inputs, const QueryRequest& req,
                              fs::path* keepDir) {
    m_queries.fetch_add(1);
    return runChildImpl(g, inputs, req, keepDir);
}

QueryOutcome Oracle::runChildImpl(const Graph& g, const std::vector<Value>& inputs, const QueryRequest& req,
                                  fs::path* keepDir) {
    QueryOutcome out;
    fs::path dir = newDir();
    if (auto s = writeQueryDir(dir, g, inputs, req); !s.ok()) {
        out.kind = QueryOutcome::Kind::Error;
        out.message = s.error().str();
        return out;
    }
    if (keepDir) *keepDir = dir;
    if (m_opts.inProcess) {
        out = m_opts.inProcess(g, inputs);
    } else if (m_opts.executable.empty()) {
        out.kind = QueryOutcome::Kind::Error;
        out.message = "no fxray executable to run the query in (set FXRAY_EXE)";
    } else {
        SpawnOptions so;
        so.timeoutSeconds = m_opts.timeoutSeconds;
        so.stderrFile = dir / "stderr.txt";
        so.stdoutFile = dir / "stdout.txt";
        ProcessResult pr = spawnAndWait({m_opts.executable.string(), "__minify-query", dir.string()}, so);
        switch (pr.end) {
        case ProcessResult::End::Exited:
            if (pr.exitCode == 0) {
                auto r = readQueryResult(dir);
                if (r.ok())
                    out = std::move(r).value();
                else
                    out.kind = QueryOutcome::Kind::Error, out.message = r.error().str();
            } else {
                out.kind = QueryOutcome::Kind::Error;
                out.message = "query process " + pr.describe() + ": " + firstLine(dir / "stderr.txt");
            }
            break;
        case ProcessResult::End::Signaled: out = judgeAbnormalEnd(dir, req.spec, false, pr.describe()); break;
        case ProcessResult::End::TimedOut: out = judgeAbnormalEnd(dir, req.spec, true, pr.describe()); break;
        case ProcessResult::End::SpawnFailed:
            out.kind = QueryOutcome::Kind::Error;
            out.message = pr.describe();
            break;
        }
        out.seconds = pr.seconds;
    }
    return out;
}

QueryOutcome Oracle::evaluate(const Materialized& m) {
    m_queries.fetch_add(1);
    QueryRequest req;
    std::vector<const CheckSpec*> commands;
    bool needsChild;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        req = m_req;
        needsChild = m_needsChild;
    }
    for (const auto& c : req.spec.checks)
        if (c.kind == CheckSpec::Kind::Command || c.kind == CheckSpec::Kind::TorchCompile) commands.push_back(&c);
    fs::path dir;
    QueryOutcome out;
    if (needsChild) {
        out = runChildImpl(*m.graph, m.inputs, req, &dir);
    } else {
        dir = newDir();
        if (auto s = writeQueryDir(dir, *m.graph, m.inputs, req); !s.ok()) {
            out.kind = QueryOutcome::Kind::Error;
            out.message = s.error().str();
        } else {
            out.kind = QueryOutcome::Kind::Reproduced;
        }
    }
    for (const CheckSpec* c : commands) {
        if (out.kind != QueryOutcome::Kind::Reproduced) break;
        if (c->kind == CheckSpec::Kind::TorchCompile) {
            QueryOutcome t =
                runTorchCheck(dir, *m.graph, m.inputs, req.spec, *c, torchPython(m_opts.python), m_opts.timeoutSeconds);
            out.seconds += t.seconds;
            if (!t.interesting()) {
                out.kind = t.kind;
                out.signature.clear();
                out.message = t.message;
                break;
            }
            out.signature += (out.signature.empty() ? "" : " & ") + t.signature;
            out.message = t.message;
            continue;
        }
        SpawnOptions so;
        so.cwd = dir;
        so.timeoutSeconds = m_opts.timeoutSeconds;
        so.stdoutFile = dir / "command.out";
        so.stderrFile = dir / "command.err";
        so.extraEnv = {"FXRAY_MINIFY_DIR=" + dir.string(), "FXRAY_GRAPH=" + (dir / "graph.py").string()};
        ProcessResult pr = spawnAndWait({"/bin/sh", "-c", c->command}, so);
        out.seconds += pr.seconds;
        if (pr.end == ProcessResult::End::Exited && pr.exitCode == 0) {
            out.signature += (out.signature.empty() ? "" : " & ") + std::string("command:exit-0");
            continue;
        }
        out.kind = pr.end == ProcessResult::End::TimedOut ? QueryOutcome::Kind::Timeout : QueryOutcome::Kind::Clean;
        out.signature.clear();
        out.message = "command " + pr.describe();
    }
    if (!m_opts.keepDirs && !dir.empty()) {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
    return out;
}

QueryOutcome Oracle::query(const Materialized& m) {
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        auto it = m_cache.find(m.fingerprint);
        if (it != m_cache.end()) {
            m_hits.fetch_add(1);
            return it->second;
        }
    }
    QueryOutcome o = evaluate(m);
    std::lock_guard<std::mutex> lock(m_mutex);
    m_cache[m.fingerprint] = o;
    return o;
}

int Oracle::firstAccepted(const std::vector<const Materialized*>& ms,
                          const std::function<bool(const QueryOutcome&)>& accept) {
    const size_t jobs = static_cast<size_t>(m_opts.jobs);
    size_t i = 0;
    while (i < ms.size()) {
        // A wave: the next `jobs` candidates that are not cached yet (cached ones are free).
        std::vector<size_t> wave;
        std::set<uint64_t> seen;
        size_t end = i;
        while (end < ms.size() && wave.size() < jobs) {
            bool cached;
            {
                std::lock_guard<std::mutex> lock(m_mutex);
                cached = m_cache.count(ms[end]->fingerprint) > 0;
            }
            if (!cached && seen.insert(ms[end]->fingerprint).second) wave.push_back(end);
            ++end;
        }
        if (wave.size() == 1 || jobs == 1) {
            for (size_t k : wave) query(*ms[k]);
        } else {
            std::vector<std::thread> threads;
            for (size_t k : wave) threads.emplace_back([this, &ms, k] { query(*ms[k]); });
            for (auto& t : threads) t.join();
        }
        for (size_t k = i; k < end; ++k) {
            QueryOutcome o = query(*ms[k]);  // cached now
            m_hits.fetch_sub(1);             // not a real cache hit: just reading the answer back
            if (accept(o)) return static_cast<int>(k);
        }
        i = end;
    }
    return -1;
}

std::vector<QueryOutcome> Oracle::evaluateAll(const std::vector<const Materialized*>& ms) {
    std::vector<const Materialized*> todo;
    std::set<uint64_t> seen;
    for (const Materialized* m : ms) {
        bool cached;
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            cached = m_cache.count(m->fingerprint) > 0;
        }
        if (!cached && seen.insert(m->fingerprint).second) todo.push_back(m);
    }
    const size_t jobs = static_cast<size_t>(m_opts.jobs);
    for (size_t i = 0; i < todo.size(); i += jobs) {
        size_t end = std::min(todo.size(), i + jobs);
        if (end - i == 1) {
            query(*todo[i]);
            continue;
        }
        std::vector<std::thread> threads;
        for (size_t k = i; k < end; ++k) threads.emplace_back([this, &todo, k] { query(*todo[k]); });
        for (auto& t : threads) t.join();
    }
    std::vector<QueryOutcome> out;
    std::lock_guard<std::mutex> lock(m_mutex);
    for (const Materialized* m : ms) out.push_back(m_cache[m->fingerprint]);
    return out;
}

}  // namespace fxray::minify
