#pragma once
/// One query of the minifier: does this graph, on these inputs, still show the failure?
///
/// evaluateQuery() answers it in-process: the pass-fails and accuracy checks of a FailureSpec
/// (command checks need a folder on disk and are run by the Oracle). The isolated form is
/// `fxray __minify-query DIR`: the parent writes the candidate to DIR (graph.py in FX text,
/// inputs/NNN.npy, query.json), the child evaluates it and writes DIR/result.json, and notes what
/// it is doing in DIR/stage so that a crash or a hang can be attributed to a pass.
///
/// The outcome carries a signature — which check, which pass or op, which class of message — so
/// that the reducer keeps only candidates that fail the same way as the original graph.
#include "ir/graph.h"
#include "ir/value.h"
#include "minify/spec.h"

#include <filesystem>
#include <string>
#include <vector>

namespace fxray::minify {

/// What to run besides the spec.
struct QueryRequest {
    FailureSpec spec;
    /// Pass pipeline for pass-fails checks (names for createPassByName); empty: the "joint"
    /// pipeline, plus any checked pass not in it.
    std::vector<std::string> passes;
    /// Report where the two sides of an accuracy check first disagree (needs backends that
    /// observe nodes; the reference executor does).
    bool localize = true;
    /// Bisection support: run only the first `passLimit` pass runs (BisectInstrumentation) and
    /// write the resulting graph to DIR/after.py. -1: off.
    int passLimit = -1;
};

/// The answer to one query.
struct QueryOutcome {
    enum class Kind { Reproduced, Clean, Error, Crash, Timeout };
    Kind kind = Kind::Clean;
    bool interesting() const { return kind == Kind::Reproduced; }
    /// "pass-fails:NAME:failed", "accuracy:ref-vs-ref:mismatch@aten.tanh.default", ... joined
    /// by " & " over the checks; empty unless reproduced.
    std::string signature;
    std::string message;                 ///< one line: what happened
    std::vector<std::string> divergent;  ///< node names where the sides first disagree, graph order
    int failedPassRun = -1;              ///< pass-fails: index of the pass run that failed
    double seconds = 0.0;
    std::string kindName() const;
};

/// Evaluates the in-process checks (pass-fails, accuracy) on g with inputs. `stageFile`, when
/// set, is overwritten with "pass <run> <name>" / "run <side>" before each step.
QueryOutcome evaluateQuery(const Graph& g, const std::vector<Value>& inputs, const QueryRequest& req,
                           const std::filesystem::path& stageFile = {});

/// Writes a candidate to dir: graph.py, inputs/NNN.npy, query.json (creates dir).
Status writeQueryDir(const std::filesystem::path& dir, const Graph& g, const std::vector<Value>& inputs,
                     const QueryRequest& req);
/// Reads a graph and its inputs written by writeQueryDir (or by `fxray debug-compile`): dtypes
/// and strides follow the placeholders' annotations.
Status readGraphDir(const std::filesystem::path& dir, std::unique_ptr<Graph>& g, std::vector<Value>& inputs);

/// The child side: evaluates DIR and writes DIR/result.json. Returns 0 when it answered, 2 when
/// DIR could not be read (the message goes to `err`).
int runQueryProcess(const std::filesystem::path& dir, std::string& err);

/// Reads DIR/result.json; fails when it is missing or malformed.
Expected<QueryOutcome> readQueryResult(const std::filesystem::path& dir);

/// For a query process that crashed or hung: the outcome, with pass-fails checks judged against
/// the pass named in DIR/stage ("crashed: signal 11 (SIGSEGV)" / "timed out after 30 s").
QueryOutcome judgeAbnormalEnd(const std::filesystem::path& dir, const FailureSpec& spec, bool timedOut,
                              const std::string& how);

/// same(): allclose(tol, tol), else RMSE(fp64, res) <= multiplier * RMSE(fp64, ref) + tol / 10.
/// Values are flattened (lists of tensors); non-floating tensors must be equal.
bool sameLikePyTorch(const std::vector<Value>& ref, const std::vector<Value>& res, const std::vector<Value>& fp64,
                     double tol, double multiplier, std::string* why = nullptr);

}  // namespace fxray::minify
