#include "import/compile_story.h"

#include "import/compile_story_payloads.h"
#include "import/fx_text_reader.h"
#include "import/torch_trace_reader.h"
#include "import/trace_records.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <unordered_map>

namespace fxray {

namespace fs = std::filesystem;
using json = nlohmann::json;
using detail::trimView;

const char* compileStatusName(CompileStatus s) {
    switch (s) {
    case CompileStatus::Ok: return "ok";
    case CompileStatus::GraphBreak: return "graph_break";
    case CompileStatus::Failed: return "failed";
    case CompileStatus::Restarted: return "restarted";
    case CompileStatus::CacheHit: return "cache_hit";
    }
    return "ok";
}

namespace {

/// Largest log read; the biggest real traces are a few hundred MB.
constexpr uintmax_t kMaxLogBytes = uintmax_t(4) << 30;
/// Bytes of a line kept in a raw entry.
constexpr size_t kRawTextBytes = 300;

/// Record kinds the story knows and has no use for (tlparse's other pages).
bool isQuietKind(std::string_view k) {
    static const std::set<std::string_view> kinds = {
        "chromium_event",
        "describe_storage",
        "describe_tensor",
        "describe_source",
        "guard_added",
        "guard_added_fast",
        "propagate_real_tensors",
        "expression_created",
        "missing_fake_kernel",
        "mismatched_fake_kernel",
        "optimize_ddp_split_graph",
        "optimize_ddp_split_child",
        "link",
        "exported_program",
        "dump_file",
        "symbolic_shape_input",
        "graph_dump",
        "compiled_autograd_graph",
        "unbacked_symbol_input",
        "stack",
        "freeze_runtime_asserts",
        "dynamo_guards",
    };
    return kinds.count(k) != 0;
}

/// Kinds whose payload is an FX graph.
bool isGraphKind(std::string_view k) {
    return k == "dynamo_output_graph" || k == "aot_joint_graph" || k == "aot_forward_graph" ||
           k == "aot_backward_graph" || k == "aot_inference_graph" || k == "compiled_autograd_graph";
}

json parseJson(std::string_view raw) { return json::parse(raw.begin(), raw.end(), nullptr, false); }

/// A raw JSON string value unescaped, or "" when it is not a string.
std::string rawString(std::string_view v) {
    if (v.size() < 2 || v.front() != '"') return {};
    if (v.find('\\') == std::string_view::npos) return std::string(v.substr(1, v.size() - 2));
    json j = parseJson(v);
    return j.is_string() ? j.get<std::string>() : std::string();
}

std::string jsonText(const json& v) {
    if (v.is_string()) return v.get<std::string>();
    if (v.is_null()) return {};
    return v.dump();
}

/// Builds the entries of one log.
class StoryBuilder {
public:
    StoryBuilder(std::string_view text, std::string file, int rank, const CompileStoryOptions& opts, CompileStory& out)
            : m_text(text), m_file(std::move(file)), m_rank(rank), m_opts(opts), m_out(out) {
        m_first = out.compiles.size();
    }

    void add(const TraceRecord& r) {
        ++m_out.records;
        if (!r.valid) {
            raw(r, r.kind == "<payload without record>" ? "payload lines without a record before them"
                   : traceEnvelopeOf(r.text).empty()    ? "not a TORCH_TRACE record"
                                                     : "envelope is not complete JSON (truncated or interleaved line)");
            return;
        }
        const std::string_view kind = r.kind;
        if (kind == "str") {
            json v = parseJson(r.value);
            if (v.is_array() && v.size() == 2 && v[0].is_string() && v[1].is_number_integer())
                m_strings[v[1].get<int64_t>()] = v[0].get<std::string>();
            return;
        }
        if (kind == "chromium_event") return;  // most records of a log: decided first
        CompileEntry* e = entryFor(r);
        if (kind == "dynamo_start") {
            if (e) onStart(*e, r);
        } else if (isGraphKind(kind)) {
            if (e) addStage(*e, std::string(kind), r);
        } else if (kind == "artifact") {
            onArtifact(e, r);
        } else if (kind == "inductor_output_code") {
            if (e) {
                addStage(*e, "inductor_output_code", r);
                m_kernelGroup[indexOf(*e)] = e->kernels.size();
                auto ks = detail::kernelsFromOutputCode(tracePayload(m_text, r));
                e->kernels.insert(e->kernels.end(), ks.begin(), ks.end());
            }
        } else if (kind.find("compilation_metrics") != std::string_view::npos) {
            if (e) onMetrics(*e, r);
        } else if (kind == "create_symbol" || kind == "create_unbacked_symbol" ||
                   kind == "symbolic_shape_specialization") {
            if (e) onSymbol(*e, r);
        } else if (kind == "dynamo_cpp_guards_str") {
            if (e) {
                addStage(*e, "dynamo_cpp_guards_str", r);
                m_guardLines[indexOf(*e)] = countGuards(r);
            }
        } else if (!isQuietKind(kind)) {
            raw(r, "unknown record kind");
        }
    }

    void finish() {
        // The last attempt of each frame/compile pair: earlier ones without metrics restarted.
        std::unordered_map<std::string, int64_t> lastAttempt;
        for (size_t i = m_first; i < m_out.compiles.size(); ++i) {
            const auto& e = m_out.compiles[i];
            auto& a = lastAttempt[frameKey(e)];
            a = std::max(a, e.attempt);
        }
        for (size_t i = m_first; i < m_out.compiles.size(); ++i) {
            CompileEntry& e = m_out.compiles[i];
            if (!e.guardCount) {
                auto g = m_guardLines.find(i);
                if (g != m_guardLines.end() && g->second > 0) e.guardCount = g->second;
            }
            bool later = e.attempt < lastAttempt[frameKey(e)];
            if (e.failure)
                e.status = CompileStatus::Failed;
            else if (later && !e.hasMetrics)
                e.status = CompileStatus::Restarted;
            else if (!e.restartReasons.empty() || !e.graphBreaks.empty())
                e.status = CompileStatus::GraphBreak;
            else if (e.cacheHit && !e.cacheMiss)
                e.status = CompileStatus::CacheHit;
            else
                e.status = CompileStatus::Ok;
        }
        // An attempt that follows restarts compiles the graph up to their breaks: it lists them.
        for (size_t i = m_first; i < m_out.compiles.size(); ++i) {
            CompileEntry& e = m_out.compiles[i];
            if (e.attempt == 0 || e.attempt != lastAttempt[frameKey(e)]) continue;
            std::vector<GraphBreak> inherited;
            for (size_t k = m_first; k < m_out.compiles.size(); ++k) {
                const CompileEntry& p = m_out.compiles[k];
                if (k != i && frameKey(p) == frameKey(e) && p.attempt < e.attempt)
                    for (const auto& b : p.graphBreaks) detail::mergeGraphBreak(inherited, b);
            }
            for (const auto& b : e.graphBreaks) detail::mergeGraphBreak(inherited, b);
            e.graphBreaks = std::move(inherited);
            if (e.status == CompileStatus::Ok && !e.graphBreaks.empty()) e.status = CompileStatus::GraphBreak;
        }
    }

private:
    static std::string frameKey(const CompileEntry& e) {
        return std::to_string(e.compiledAutogradId) + "|" + std::to_string(e.frameId) + "|" +
               std::to_string(e.frameCompileId);
    }

    void raw(const TraceRecord& r, const char* why) {
        if (m_out.raw.size() >= CompileStory::kMaxRaw) {
            ++m_out.rawDropped;
            return;
        }
        RawTraceEntry x;
        x.file = m_file;
        x.line = r.line;
        x.kind = r.valid ? std::string(r.kind) : std::string();
        if (r.hasCompileId()) {
            std::optional<int64_t> ca = r.compiledAutogradId;
            if (ca && *ca < 0) ca.reset();
            x.compileId = idOf(ca, *r.frameId, *r.frameCompileId, r.attempt.value_or(0));
        }
        x.why = why;
        size_t n = std::min(r.text.size(), kRawTextBytes);
        // Never cut inside a UTF-8 sequence: back up over continuation bytes.
        while (n < r.text.size() && n > 0 && (static_cast<unsigned char>(r.text[n]) & 0xC0) == 0x80) --n;
        x.text = std::string(r.text.substr(0, n));
        m_out.raw.push_back(std::move(x));
    }

    static std::string idOf(std::optional<int64_t> ca, int64_t frame, int64_t compile, int64_t attempt) {
        std::string id = std::to_string(frame) + "/" + std::to_string(compile);
        if (attempt > 0) id += "_" + std::to_string(attempt);
        if (ca) id = "!" + std::to_string(*ca) + "/" + id;
        return id;
    }

    /// The entry of r's compile id, created on first sight; null when r has none. Records
    /// without an attempt (the runtime metrics) belong to the latest attempt seen.
    CompileEntry* entryFor(const TraceRecord& r) {
        if (!r.hasCompileId()) return nullptr;
        std::optional<int64_t> ca = r.compiledAutogradId;
        if (ca && *ca < 0) ca.reset();
        std::string fk = std::to_string(ca.value_or(-1)) + "|" + std::to_string(*r.frameId) + "|" +
                         std::to_string(*r.frameCompileId);
        int64_t attempt = 0;
        if (r.attempt)
            attempt = std::max<int64_t>(0, *r.attempt);
        else if (auto it = m_latest.find(fk); it != m_latest.end())
            attempt = it->second;
        auto& latest = m_latest[fk];
        latest = std::max(latest, attempt);
        std::string key = fk + "|" + std::to_string(attempt);
        auto it = m_index.find(key);
        if (it != m_index.end()) return &m_out.compiles[it->second];
        CompileEntry e;
        e.id = idOf(ca, *r.frameId, *r.frameCompileId, attempt);
        e.rank = m_rank;
        e.file = m_file;
        e.line = r.line;
        e.frameId = *r.frameId;
        e.frameCompileId = *r.frameCompileId;
        e.attempt = attempt;
        e.compiledAutogradId = ca.value_or(-1);
        m_out.compiles.push_back(std::move(e));
        m_index[key] = m_out.compiles.size() - 1;
        m_byId[m_out.compiles.back().id] = m_out.compiles.size() - 1;
        return &m_out.compiles.back();
    }

    /// Index of an entry (side tables are keyed by index: the vector reallocates).
    size_t indexOf(const CompileEntry& e) const { return size_t(&e - m_out.compiles.data()); }

    void addStage(CompileEntry& e, std::string stage, const TraceRecord& r) {
        if (m_opts.keepGraphs && r.payloadLines > 0 &&
            (isGraphKind(stage) || (stage.size() > 6 && stage.substr(stage.size() - 6) == "_graph")))
            e.graphs.emplace_back(stage, tracePayload(m_text, r));
        if (std::find(e.stages.begin(), e.stages.end(), stage) == e.stages.end()) e.stages.push_back(std::move(stage));
    }

    StackFrame frameOf(const json& fr) const {
        StackFrame f;
        if (!fr.is_object()) return f;
        auto fn = fr.find("filename");
        if (fn != fr.end() && fn->is_number_integer()) {
            auto s = m_strings.find(fn->get<int64_t>());
            f.file = s != m_strings.end() ? s->second : "<string " + std::to_string(fn->get<int64_t>()) + ">";
        } else if (fn != fr.end() && fn->is_string()) {
            f.file = fn->get<std::string>();
        }
        if (auto l = fr.find("line"); l != fr.end() && l->is_number_integer()) f.line = l->get<int>();
        if (auto n = fr.find("name"); n != fr.end() && n->is_string()) f.name = n->get<std::string>();
        if (auto c = fr.find("loc"); c != fr.end() && c->is_string()) f.code = c->get<std::string>();
        return f;
    }

    void onStart(CompileEntry& e, const TraceRecord& r) {
        json v = parseJson(r.value);
        if (!v.is_object() || !e.stack.empty()) return;
        auto st = v.find("stack");
        if (st == v.end() || !st->is_array()) return;
        for (const auto& fr : *st) e.stack.push_back(frameOf(fr));
    }

    void onArtifact(CompileEntry* e, const TraceRecord& r) {
        std::string name;
        std::vector<std::pair<std::string_view, std::string_view>> fields;
        if (splitJsonObject(r.value, fields))
            for (const auto& [k, v] : fields)
                if (k == "name") name = rawString(v);
        if (!e) {
            if (name.empty()) raw(r, "artifact without a name");
            return;
        }
        if (name == "dynamo_graph_break_reason") {
            GraphBreak b = detail::parseGraphBreakMessage(tracePayload(m_text, r));
            detail::mergeGraphBreak(e->graphBreaks, b);
            GraphBreak s = b;
            s.compileIds = {storyId(*e)};
            detail::mergeGraphBreak(m_out.graphBreaks, s);
        } else if (name == "recompile_reasons") {
            for (auto& reason : detail::parseRecompileReasons(tracePayload(m_text, r))) {
                auto [id, guard] = detail::splitGuardFailure(reason);
                if (!id.empty())
                    if (auto it = m_byId.find(id); it != m_byId.end())
                        m_out.compiles[it->second].failedGuards.push_back(guard);
                e->recompileReasons.push_back(std::move(reason));
            }
        } else if (name == "dynamo_error") {
            CompileFailure tb = detail::parseTraceback(tracePayload(m_text, r));
            if (!e->failure) e->failure = CompileFailure();
            if (e->failure->type.empty()) e->failure->type = tb.type;
            if (e->failure->message.empty()) e->failure->message = tb.message;
            if (!tb.stack.empty()) e->failure->stack = std::move(tb.stack);
        } else if (name == "inductor_provenance_tracking_node_mappings") {
            auto ks = detail::kernelsFromProvenance(tracePayload(m_text, r));
            if (!ks.empty()) {
                // Provenance names the post-grad nodes of the output code logged just before it:
                // it replaces that code's kernels, which only know source nodes.
                auto g = m_kernelGroup.find(indexOf(*e));
                size_t from = g != m_kernelGroup.end() ? std::min(g->second, e->kernels.size()) : e->kernels.size();
                e->kernels.resize(from);
                e->kernels.insert(e->kernels.end(), ks.begin(), ks.end());
                if (g != m_kernelGroup.end()) m_kernelGroup.erase(g);
            }
        } else if (name.size() > 10 && name.substr(name.size() - 10) == "_cache_hit") {
            e->cacheHit = true;
        } else if (name.size() > 11 && name.substr(name.size() - 11) == "_cache_miss") {
            e->cacheMiss = true;
        }
        if (!name.empty()) addStage(*e, name, r);
    }

    std::string storyId(const CompileEntry& e) const {
        return m_rank >= 0 && m_out.multiRank ? "rank" + std::to_string(m_rank) + ":" + e.id : e.id;
    }

    void addMetric(CompileEntry& e, std::string name, double seconds) {
        for (auto& [k, v] : e.metrics)
            if (k == name) {
                v += seconds;  // a phase that ran more than once (forward and backward graphs)
                return;
            }
        e.metrics.emplace_back(std::move(name), seconds);
    }

    void onMetrics(CompileEntry& e, const TraceRecord& r) {
        std::vector<std::pair<std::string_view, std::string_view>> f;
        if (!splitJsonObject(r.value, f)) {
            raw(r, "metrics that are not a JSON object");
            return;
        }
        const std::string_view kind = r.kind;
        const bool bwd = kind.substr(0, 4) == "bwd_";
        const bool runtime = kind.size() > 8 && kind.substr(kind.size() - 8) == "_runtime";
        if (kind == "compilation_metrics") e.hasMetrics = true;
        std::string prefix = bwd ? "bwd_" : "";
        std::string failType, failReason, failFile;
        int failLine = 0;
        json excStack;
        for (const auto& [k, v] : f) {
            if (v == "null") continue;
            if (k == "co_name") {
                if (e.function.empty()) e.function = rawString(v);
            } else if (k == "guard_count") {
                if (!bwd && !runtime) e.guardCount = rawJsonInt(v);
            } else if (k == "fail_type") {
                failType = rawString(v);
            } else if (k == "fail_reason") {
                failReason = rawString(v);
            } else if (k == "fail_user_frame_filename") {
                failFile = rawString(v);
            } else if (k == "fail_user_frame_lineno") {
                failLine = int(rawJsonInt(v).value_or(0));
            } else if (k == "exception_stack_trace") {
                excStack = parseJson(v);
            } else if (k == "restart_reasons") {
                json rr = parseJson(v);
                if (rr.is_array())
                    for (const auto& s : rr)
                        if (s.is_string()) e.restartReasons.push_back(s.get<std::string>());
            } else if (k.size() > 2 && k.substr(k.size() - 2) == "_s" && k != "start_time") {
                if (auto x = rawJsonNumber(v)) {
                    std::string n(k.substr(0, k.size() - 2));
                    if (runtime && n.rfind("runtime_", 0) != 0) n = "runtime_" + n;
                    addMetric(e, prefix + n, *x);
                }
            } else if (k.size() > 3 && k.substr(k.size() - 3) == "_us" && isPhaseMicros(k)) {
                if (auto x = rawJsonNumber(v)) {
                    std::string n(k.substr(0, k.size() - 3));
                    if (runtime && n.rfind("runtime_", 0) != 0) n = "runtime_" + n;
                    addMetric(e, prefix + n, *x / 1e6);
                }
            }
        }
        if (!failType.empty() || !failReason.empty()) {
            if (!e.failure) e.failure = CompileFailure();
            CompileFailure& fl = *e.failure;
            // The metrics name the failure as Dynamo classified it; a dynamo_error traceback seen
            // earlier only guessed from its last line.
            if (!failType.empty()) fl.type = failType;
            if (!failReason.empty()) fl.message = failReason;
            if (!failFile.empty()) {
                fl.userFrame.file = failFile;
                fl.userFrame.line = failLine;
            }
            if (fl.stack.empty()) {
                if (excStack.is_array()) {
                    std::string all;
                    for (const auto& s : excStack) all += jsonText(s) + "\n";
                    fl.stack = detail::parseTraceback(all).stack;
                } else if (excStack.is_string()) {
                    fl.stack = detail::parseTraceback(excStack.get<std::string>()).stack;
                }
            }
        }
    }

    /// Microsecond fields that are phases, not timestamps or twins of a seconds field.
    static bool isPhaseMicros(std::string_view k) {
        if (k == "start_time_us" || k == "end_time_us" || k == "duration_us" || k == "structured_logging_overhead_us" ||
            k == "dynamo_compile_time_before_restart_us")
            return false;
        return k.find("cumulative") == std::string_view::npos;
    }

    void onSymbol(CompileEntry& e, const TraceRecord& r) {
        json v = parseJson(r.value);
        if (!v.is_object()) {
            raw(r, "symbol record that is not a JSON object");
            return;
        }
        SymbolInfo s;
        s.name = jsonText(v.value("symbol", json()));
        if (r.kind == "symbolic_shape_specialization") {
            s.specialized = true;
            s.hint = jsonText(v.value("value", json()));
            s.reason = jsonText(v.value("reason", json()));
            json src = v.value("sources", json());
            if (src.is_array()) {
                for (const auto& x : src) s.source += (s.source.empty() ? "" : ", ") + jsonText(x);
            } else {
                s.source = jsonText(src);
            }
        } else {
            s.hint = jsonText(v.value("val", json()));
            s.source = jsonText(v.value("source", json()));
            s.range = jsonText(v.value("vr", json()));
        }
        e.symbols.push_back(std::move(s));
    }

    /// Guards in a guard tree dump: its leaf lines ("+- TYPE: ..."), managers excluded.
    int64_t countGuards(const TraceRecord& r) const {
        int64_t n = 0;
        std::string p = tracePayload(m_text, r);
        size_t pos = 0;
        while ((pos = p.find("+- ", pos)) != std::string::npos) {
            pos += 3;
            std::string_view rest(p.data() + pos, std::min<size_t>(40, p.size() - pos));
            size_t colon = rest.find(':');
            std::string_view head = rest.substr(0, colon);
            if (colon != std::string_view::npos && head.find("Manager") == std::string_view::npos &&
                head.find(' ') == std::string_view::npos)
                ++n;
        }
        return n;
    }

    std::string_view m_text;
    std::string m_file;
    int m_rank;
    const CompileStoryOptions& m_opts;
    CompileStory& m_out;
    size_t m_first = 0;
    std::unordered_map<int64_t, std::string> m_strings;
    std::unordered_map<std::string, size_t> m_index;    ///< frame key|attempt -> entry
    std::unordered_map<std::string, size_t> m_byId;     ///< compile id -> entry
    std::unordered_map<std::string, int64_t> m_latest;  ///< frame key -> latest attempt seen
    std::unordered_map<size_t, size_t> m_kernelGroup;   ///< entry -> first kernel of its last output code
    std::unordered_map<size_t, int64_t> m_guardLines;   ///< entry -> guards in its guard tree dump
};

/// The rank in the first envelope that has one, or -1.
int envelopeRank(std::string_view text) {
    int rank = -1;
    size_t scanned = 0;
    forEachTraceRecord(text.substr(0, std::min<size_t>(text.size(), 1 << 20)), [&](const TraceRecord& r) {
        ++scanned;
        if (rank < 0 && r.rank && *r.rank >= 0 && *r.rank < (1 << 30)) rank = int(*r.rank);
    });
    return rank;
}

}  // namespace

int rankOfTraceFile(const fs::path& p) {
    std::string stem = p.filename().string();
    size_t r = stem.find("rank_");
    if (r == std::string::npos) return -1;
    size_t e = r + 5;
    while (e < stem.size() && std::isdigit(static_cast<unsigned char>(stem[e])) && e < r + 14) ++e;
    if (e == r + 5) return -1;
    return std::stoi(stem.substr(r + 5, e - r - 5));
}

CompileStory compileStoryFromText(std::string_view text, const std::string& fileName, int rank,
                                  const CompileStoryOptions& opts) {
    CompileStory story;
    story.files.push_back(fileName);
    story.bytes = text.size();
    StoryBuilder b(text, fileName, rank, opts, story);
    forEachTraceRecord(text, [&](const TraceRecord& r) { b.add(r); });
    b.finish();
    return story;
}

Expected<CompileStory> readCompileStory(const fs::path& fileOrFolder, const CompileStoryOptions& opts) {
    auto filesE = traceLogsOf(fileOrFolder);
    if (!filesE.ok()) return filesE.error();
    const std::vector<fs::path>& files = *filesE;
    struct Log {
        fs::path path;
        std::string text;
        int rank;
    };
    std::vector<Log> logs;
    for (const auto& p : files) {
        auto t = readFileUpTo(p, kMaxLogBytes, "trace");
        if (!t.ok()) {
            if (files.size() == 1) return t.error();
            continue;
        }
        int rank = rankOfTraceFile(p);
        if (rank < 0) rank = envelopeRank(*t);
        logs.push_back({p, std::move(*t), rank});
    }
    if (logs.empty()) {
        Diagnostic d = makeError("none of the folder's logs could be read");
        d.file = fileOrFolder.string();
        return d;
    }
    CompileStory story;
    story.multiRank = logs.size() > 1;
    if (story.multiRank) {
        // Logs without a rank keep their place after the ranked ones, numbered from there.
        int next = 0;
        for (const auto& l : logs) next = std::max(next, l.rank + 1);
        for (auto& l : logs)
            if (l.rank < 0) l.rank = next++;
        std::stable_sort(logs.begin(), logs.end(), [](const Log& a, const Log& b) { return a.rank < b.rank; });
    }
    for (const auto& l : logs) {
        story.files.push_back(l.path.string());
        story.bytes += l.text.size();
        StoryBuilder b(l.text, l.path.string(), story.multiRank ? l.rank : -1, opts, story);
        forEachTraceRecord(l.text, [&](const TraceRecord& r) { b.add(r); });
        b.finish();
    }
    return story;
}

}  // namespace fxray
