#pragma once
/// CompileTrace as JSON: what `fxray compile --json` prints and `--dump-dir` writes as
/// trace.json (keys of CLI.md first: nodes_before, nodes_after, ms, passes[name, changed, ms,
/// matches[pattern, nodes]]; then near-misses, provenance events, statistics, failures).
#include "pass/compile_trace.h"

#include <nlohmann/json.hpp>

namespace fxray {

/// With events=false the provenance events are summarised as counts (they can be many).
nlohmann::json traceToJson(const CompileTrace& t, bool events = true);

}  // namespace fxray
