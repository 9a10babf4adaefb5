#pragma once
/// A fast, tolerant scanner of TORCH_TRACE text into records, for readers that need the record
/// kinds and their compile ids but not every payload (the compile story, compile_story.h).
///
/// A record is a glog-prefixed line `V1125 05:59:56.781000 423 path.py:5101] {...}` whose JSON
/// object names its kind by its one non-envelope key, followed by payload lines that each start
/// with a tab. Envelopes are split into top-level keys without building a JSON tree (metrics
/// records carry ~50 KB of configuration each); a value is parsed only when a reader asks.
/// Nothing here fails: lines that are not records and envelopes that are not complete JSON
/// (a log cut mid-line, two logs interleaved) come back as records with `valid == false`.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fxray {

/// One record (or one line that is not a record) of a TORCH_TRACE log. Views point into the
/// scanned text, which must outlive the record.
struct TraceRecord {
    int line = 0;            ///< 1-based line of the envelope
    bool valid = false;      ///< a glog prefix followed by a complete JSON object
    std::string_view text;   ///< the whole line (for raw entries)
    std::string_view kind;   ///< the key naming the record ("artifact", "dynamo_start", ...)
    std::string_view value;  ///< raw JSON of that key's value
    std::optional<int64_t> frameId, frameCompileId, attempt, compiledAutogradId, rank;
    size_t payloadBegin = 0;  ///< offset of the first payload line (at its tab)
    size_t payloadEnd = 0;    ///< offset just past the last payload line
    int payloadLines = 0;

    /// True when the envelope names a frame and a compile within it.
    bool hasCompileId() const { return frameId && frameCompileId; }
};

/// Calls `f(const TraceRecord&)` for each record of `text`, in order, payload ranges filled.
/// Blank lines are skipped. A line that is not a record comes back invalid (its payload lines
/// go with it); payload lines at the start of the text come back once as an invalid record.
template <typename F>
void forEachTraceRecord(std::string_view text, F&& f);

/// The payload of `r` with each line's leading tab removed, lines joined by '\n'.
std::string tracePayload(std::string_view text, const TraceRecord& r);

/// The first `maxBytes` bytes of the payload (tabs removed), for peeking at large payloads.
std::string tracePayloadHead(std::string_view text, const TraceRecord& r, size_t maxBytes);

/// The JSON object after a glog prefix, or an empty view when `line` has no such prefix.
std::string_view traceEnvelopeOf(std::string_view line);

/// Splits a JSON object into raw (key, value) pairs without parsing values. False when `s` is
/// not one complete object. Keys are returned without quotes and without unescaping.
bool splitJsonObject(std::string_view s, std::vector<std::pair<std::string_view, std::string_view>>& out);

/// A JSON integer, or nullopt for null and anything else.
std::optional<int64_t> rawJsonInt(std::string_view v);

/// A JSON number (integer or float), or nullopt for null and anything else.
std::optional<double> rawJsonNumber(std::string_view v);

namespace detail {
/// Fills the envelope fields of `r` from the JSON object `env`. False when it is malformed.
bool scanTraceEnvelope(std::string_view env, TraceRecord& r,
                       std::vector<std::pair<std::string_view, std::string_view>>& scratch);
}  // namespace detail

template <typename F>
void forEachTraceRecord(std::string_view text, F&& f) {
    std::vector<std::pair<std::string_view, std::string_view>> scratch;
    TraceRecord cur;
    bool have = false;
    bool orphanReported = false;
    size_t pos = 0;
    int lineNo = 0;
    while (pos < text.size()) {
        size_t nl = text.find('\n', pos);
        if (nl == std::string_view::npos) nl = text.size();
        ++lineNo;
        std::string_view line = text.substr(pos, nl - pos);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (!line.empty() && line.front() == '\t') {
            if (have) {
                if (cur.payloadLines == 0) cur.payloadBegin = pos;
                cur.payloadEnd = pos + line.size();
                ++cur.payloadLines;
            } else if (!orphanReported) {
                TraceRecord orphan;
                orphan.line = lineNo;
                orphan.text = line;
                orphan.kind = "<payload without record>";
                f(static_cast<const TraceRecord&>(orphan));
                orphanReported = true;
            }
        } else if (!line.empty()) {
            if (have) f(static_cast<const TraceRecord&>(cur));
            cur = TraceRecord();
            cur.line = lineNo;
            cur.text = line;
            std::string_view env = traceEnvelopeOf(line);
            cur.valid = !env.empty() && detail::scanTraceEnvelope(env, cur, scratch);
            // A line that is no record owns no payload: what follows it is orphaned until the
            // next record, and reported once.
            have = cur.valid || !env.empty();
            if (!have) f(static_cast<const TraceRecord&>(cur));
            orphanReported = !have;  // tab lines after a non-record line go with it, unreported
        }
        pos = nl + 1;
    }
    if (have) f(static_cast<const TraceRecord&>(cur));
}

}  // namespace fxray
