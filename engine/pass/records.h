#pragma once
/// What the rewriter and the pattern matcher record while a pass runs: provenance events
/// (created / replaced / erased), matches and near-misses. These are plain values so that a
/// CompileTrace holding them can be handed to the GUI as an immutable result.
#include <string>
#include <vector>

namespace fxray {

/// One graph mutation, as the GUI draws it.
struct ProvenanceEvent {
    enum class Kind : uint8_t { Created, Replaced, Erased };
    Kind kind = Kind::Created;
    std::string node;         ///< the node created / replaced / erased
    std::string replacement;  ///< Replaced: the node now used instead of `node`
    std::string target;       ///< Created: the op it calls ("aten.mm.default")
    std::string pass;
    std::string pattern;  ///< empty outside a pattern application
    std::string graph;    ///< "" for the top graph, else the subgraph path
};

/// "created" / "replaced" / "erased".
const char* provenanceKindName(ProvenanceEvent::Kind k);

/// One application of a pattern (or of a rule of a hand-written pass).
struct MatchRecord {
    std::string pattern;
    std::vector<std::string> nodes;     ///< matched nodes, graph order
    std::vector<std::string> newNodes;  ///< nodes the replacement created
    std::string graph;
};

/// A candidate that a pattern or rule rejected, with the reason (`notifyMatchFailure`).
struct NearMiss {
    std::string pattern;
    std::string node;  ///< the node the candidate was anchored at (or failed at)
    std::string reason;
    std::string graph;
};

/// Where a running pass records what it did. Owned by the pass manager (one per pass run).
struct RewriteLog {
    std::string pass;
    std::string graph;
    std::vector<ProvenanceEvent> events;
    std::vector<MatchRecord> matches;
    std::vector<NearMiss> nearMisses;
    /// Near-misses beyond this many per pattern are counted, not stored (a broad anchor such as
    /// `view` would otherwise flood the trace).
    size_t nearMissLimitPerPattern = 64;
    size_t droppedNearMisses = 0;

    void addNearMiss(std::string pattern, std::string node, std::string reason);
};

}  // namespace fxray
