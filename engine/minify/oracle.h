#pragma once
/// The Oracle answers queries for the reducer: isolated (each query a child process, the fxray
/// executable's hidden `__minify-query DIR`, with a timeout), cached by graph fingerprint, and
/// several at once (`--jobs N`). Command and torch-compile checks run here, in the candidate's folder.
///
/// Threads only write files, spawn and wait; every engine computation on a candidate happens in
/// the child, so a crash, a signal or a hang there is a classified outcome.
#include "minify/candidate.h"
#include "minify/query.h"

#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>

namespace fxray::minify {

/// How queries are run.
struct OracleOptions {
    int jobs = 1;                      ///< queries at once
    double timeoutSeconds = 60.0;      ///< per query process
    std::filesystem::path workDir;     ///< temp folders go here (default: the system temp dir)
    std::filesystem::path executable;  ///< fxray (default: findFxrayExecutable())
    bool keepDirs = false;             ///< keep each query's folder (debugging)
    std::string python;                ///< torch-compile checks: the interpreter (default: torchPython())
    /// In-process evaluation instead of a child (tests with custom predicates, or no fxray
    /// executable). Must be thread-safe when jobs > 1.
    std::function<QueryOutcome(const Graph&, const std::vector<Value>&)> inProcess;
};

class Oracle {
public:
    Oracle(QueryRequest req, OracleOptions opts);
    ~Oracle();

    /// Answers one query (cached).
    QueryOutcome query(const Materialized& m);
    /// Answers queries `jobs` at a time, in order, and stops after the first wave holding one
    /// that `accept` approves. Returns the index of the first approved (lowest index), or -1.
    /// Outcomes of everything evaluated are cached.
    int firstAccepted(const std::vector<const Materialized*>& ms,
                      const std::function<bool(const QueryOutcome&)>& accept);

    /// Answers all of them (`jobs` at a time), in order.
    std::vector<QueryOutcome> evaluateAll(const std::vector<const Materialized*>& ms);

    /// Queries actually run (cache misses).
    size_t queries() const { return m_queries.load(); }
    size_t cacheHits() const { return m_hits.load(); }
    const QueryRequest& request() const { return m_req; }
    /// Changes the request (bisection fixes the pipeline); clears the cache.
    void setRequest(QueryRequest req);

    /// Runs an arbitrary request on a graph in a child process (bisection's pass-limited runs);
    /// counts as a query, not cached.
    /// `keepDir` receives the folder (not deleted) when non-null.
    QueryOutcome runChild(const Graph& g, const std::vector<Value>& inputs, const QueryRequest& req,
                          std::filesystem::path* keepDir = nullptr);

private:
    QueryOutcome evaluate(const Materialized& m);
    QueryOutcome runChildImpl(const Graph& g, const std::vector<Value>& inputs, const QueryRequest& req,
                              std::filesystem::path* keepDir);
    std::filesystem::path newDir();

    QueryRequest m_req;
    OracleOptions m_opts;
    bool m_needsChild = false;
    std::vector<const CheckSpec*> m_commands;
    std::mutex m_mutex;
    std::map<uint64_t, QueryOutcome> m_cache;
    std::atomic<size_t> m_queries{0}, m_hits{0}, m_dirCounter{0};
    std::filesystem::path m_root;
};

}  // namespace fxray::minify
