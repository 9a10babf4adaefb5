#include "import/torch_trace_reader.h"

#include "import/fx_text_reader.h"
#include "import/md5.h"
#include "import/trace_inputs.h"
#include "import/trace_records.h"
#include "import/trace_symbols.h"
#include "support/timing.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <charconv>
#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <system_error>
#include <thread>
#include <unordered_map>

namespace fxray {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

/// Largest log read (the biggest real traces are a few hundred MB).
constexpr uintmax_t kMaxTraceBytes = uintmax_t(4) << 30;
/// Warnings kept per file; the rest are counted so a corrupt multi-GB log stays readable.
constexpr size_t kMaxWarnings = 100;

/// Envelope keys that describe the record rather than name its kind.
bool isMetaKey(std::string_view k) {
    return k == "frame_id" || k == "frame_compile_id" || k == "attempt" || k == "compiled_autograd_id" ||
           k == "has_payload" || k == "stack" || k == "rank";
}

/// Top-level keys whose payload is FX text.
bool isGraphKey(const std::string& k) {
    static const std::set<std::string> keys = {
        "dynamo_output_graph",      "aot_joint_graph",       "aot_forward_graph",    "aot_backward_graph",
        "aot_inference_graph",      "before_pre_grad_graph", "after_pre_grad_graph", "before_post_grad_graph",
        "inductor_post_grad_graph", "before_joint_graph",    "after_joint_graph",
    };
    return keys.count(k) != 0;
}

/// Keys fxray understands but does not keep (tlparse uses them for its HTML report).
bool isIgnoredKey(const std::string& k) {
    static const std::set<std::string> keys = {
        "chromium_event",
        "describe_storage",
        "describe_tensor",
        "describe_source",
        "dynamo_start",
        "str",
        "create_symbol",
        "symbolic_shape_specialization",
        "guard_added",
        "guard_added_fast",
        "propagate_real_tensors",
        "create_unbacked_symbol",
        "expression_created",
        "missing_fake_kernel",
        "mismatched_fake_kernel",
        "optimize_ddp_split_graph",
        "optimize_ddp_split_child",
        "link",
        "exported_program",
        "dump_file",
        "symbolic_shape_input",
    };
    return keys.count(k) != 0;
}

/// One record: the envelope line and the byte range of its payload lines.
struct Record {
    int line = 0;             ///< 1-based line of the envelope
    bool valid = false;       ///< the envelope is a well-formed JSON object
    std::string_view kind;    ///< the key naming the record ("aot_joint_graph", "artifact", ...)
    std::string_view value;   ///< raw JSON of that key's value
    std::string compileId;    ///< "F/C", "F/C_A", "!CA/F/C", or "" when the record has none
    std::string_view digest;  ///< has_payload, without quotes; empty when absent
    size_t payloadBegin = 0;  ///< offset of the first payload line's tab
    size_t payloadEnd = 0;    ///< offset just past the last payload line (before its newline)
    int payloadLines = 0;
};

// ---------------------------------------------------------------------------------------------
// Envelope scanning (import/trace_records.h). Envelopes are split into their top-level keys without building a JSON tree:
// the compilation metrics records alone are ~1 MB of JSON each in a large trace, and fxray only
// keeps their text. Values that are needed (artifact names, string table entries, stacks) are
// parsed with nlohmann::json afterwards.

std::string compileIdOf(std::optional<int64_t> frame, std::optional<int64_t> compile, std::optional<int64_t> attempt,
                        std::optional<int64_t> ca) {
    if (!frame || !compile) return ca ? "!" + std::to_string(*ca) : std::string();
    std::string id = std::to_string(*frame) + "/" + std::to_string(*compile);
    if (attempt && *attempt > 0) id += "_" + std::to_string(*attempt);
    if (ca) id = "!" + std::to_string(*ca) + "/" + id;
    return id;
}

/// Fills r's kind, value, compile id and digest from its envelope text. False when malformed.
bool scanEnvelope(std::string_view env, Record& r, std::vector<std::pair<std::string_view, std::string_view>>& tmp) {
    if (!splitJsonObject(env, tmp)) return false;
    std::optional<int64_t> frame, compile, attempt, ca;
    for (const auto& [k, v] : tmp) {
        if (k == "frame_id")
            frame = rawJsonInt(v);
        else if (k == "frame_compile_id")
            compile = rawJsonInt(v);
        else if (k == "attempt")
            attempt = rawJsonInt(v);
        else if (k == "compiled_autograd_id")
            ca = rawJsonInt(v);
        else if (k == "has_payload") {
            if (v.size() >= 2 && v.front() == '"' && v.back() == '"') r.digest = v.substr(1, v.size() - 2);
        } else if (!isMetaKey(k) && r.kind.empty()) {
            r.kind = k;
            r.value = v;
        }
    }
    r.compileId = compileIdOf(frame, compile, attempt, ca);
    return true;
}

/// Calls f(line) for each payload line of r with its tab removed.
template <typename F>
void forEachPayloadLine(std::string_view text, const Record& r, F&& f) {
    size_t pos = r.payloadBegin;
    for (int k = 0; k < r.payloadLines; ++k) {
        size_t nl = text.find('\n', pos);
        if (nl == std::string_view::npos || nl > r.payloadEnd) nl = r.payloadEnd;
        std::string_view l = text.substr(pos, nl - pos);
        if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
        if (!l.empty() && l.front() == '\t') l.remove_prefix(1);
        f(l);
        pos = nl + 1;
    }
}

std::string payloadText(std::string_view text, const Record& r) {
    std::string out;
    out.reserve(r.payloadEnd - r.payloadBegin);
    bool first = true;
    forEachPayloadLine(text, r, [&](std::string_view l) {
        if (!first) out += '\n';
        first = false;
        out.append(l);
    });
    return out;
}

/// Runs f(0..n-1) on up to hardware_concurrency threads. Graphs are independent, and parsing
/// and shape inference of a large trace is most of its load time.
template <typename F>
void parallelFor(size_t n, F&& f) {
    size_t threads = std::min<size_t>({n, std::max(1u, std::thread::hardware_concurrency()), 8});
    if (threads <= 1) {
        for (size_t i = 0; i < n; ++i) f(i);
        return;
    }
    std::atomic<size_t> next{0};
    auto work = [&] {
        for (size_t i = next++; i < n; i = next++) f(i);
    };
    std::vector<std::thread> pool;
    try {
        for (size_t t = 1; t < threads; ++t) pool.emplace_back(work);
    } catch (const std::system_error&) {
        // No more threads to be had: the ones started and this one do the rest.
    }
    work();
    for (auto& th : pool) th.join();
}

/// A graph waiting to be parsed.
struct PendingGraph {
    size_t record;
    std::string compileId;
    std::string stage;
    std::string id;
    long dynamo = -1;  ///< index in `pending` of this compile's Dynamo graph, if any
};

/// Reading state for one file.
class TraceReader {
public:
    TraceReader(std::string_view text, std::string fileName, TraceTimings* t)
            : m_text(text), m_file(std::move(fileName)), m_timings(t) {}

    Expected<LoadedFile> run() {
        auto t0 = std::chrono::steady_clock::now();
        split();
        if (m_records.empty()) {
            Diagnostic d = makeError("no TORCH_TRACE records found (expected lines like "
                                     "'V1121 22:31:44.976000 3016 path.py:123] {...}')");
            d.file = m_file;
            return d;
        }
        if (m_timings) {
            m_timings->splitMs += msSince(t0);
            t0 = std::chrono::steady_clock::now();
        }
        checkDigests();
        if (m_timings) {
            m_timings->md5Ms += msSince(t0);
            t0 = std::chrono::steady_clock::now();
        }
        interpret();
        parseGraphs();
        if (m_timings) {
            m_timings->parseMs += msSince(t0);
            t0 = std::chrono::steady_clock::now();
        }
        finish();
        if (m_timings) {
            m_timings->finishMs += msSince(t0);
            m_timings->records += m_records.size();
        }
        if (m_suppressed > 0)
            m_out.warnings.push_back(m_file + ": " + std::to_string(m_suppressed) + " more warnings not shown");
        m_out.format = "torch-trace";
        return std::move(m_out);
    }

private:
    void warn(int line, const std::string& msg) {
        if (m_out.warnings.size() >= kMaxWarnings) {
            ++m_suppressed;
            return;
        }
        m_out.warnings.push_back(m_file + ":" + std::to_string(line) + ": " + msg);
    }

    /// Splits the text into records and parses each envelope.
    void split() {
        size_t pos = 0;
        int lineNo = 0;
        Record* cur = nullptr;
        bool orphanReported = false;
        while (pos < m_text.size()) {
            size_t nl = m_text.find('\n', pos);
            if (nl == std::string_view::npos) nl = m_text.size();
            ++lineNo;
            std::string_view line = m_text.substr(pos, nl - pos);
            if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
            if (!line.empty() && line.front() == '\t') {
                if (cur) {
                    if (cur->payloadLines == 0) cur->payloadBegin = pos;
                    cur->payloadEnd = nl;
                    ++cur->payloadLines;
                } else if (!orphanReported) {
                    warn(lineNo, "payload line without a record before it; skipped");
                    orphanReported = true;
                }
            } else if (!line.empty()) {
                std::string_view env = traceEnvelopeOf(line);
                if (env.empty()) {
                    warn(lineNo, "not a TORCH_TRACE record (no glog prefix and JSON object); skipped");
                    cur = nullptr;
                    orphanReported = true;  // its payload, if any, goes with it
                } else {
                    Record r;
                    r.line = lineNo;
                    r.valid = scanEnvelope(env, r, m_fields);
                    if (!r.valid) warn(lineNo, "record envelope is not valid JSON (truncated line?); skipped");
                    m_records.push_back(std::move(r));
                    cur = &m_records.back();
                    orphanReported = false;
                }
            }
            pos = nl + 1;
        }
    }

    void checkDigests() {
        for (const Record& r : m_records) {
            if (!r.valid || r.digest.empty()) continue;
            Md5 md5;
            bool first = true;
            forEachPayloadLine(m_text, r, [&](std::string_view l) {
                if (!first) md5.update("\n");
                first = false;
                md5.update(l);
            });
            if (md5.hexDigest() != r.digest)
                warn(r.line, "payload does not match its has_payload digest (" + std::to_string(r.payloadLines) +
                                 " lines; the log was truncated or edited)");
        }
    }

    static bool payloadIsFx(std::string_view text, const Record& r) {
        std::string_view head = text.substr(r.payloadBegin, std::min<size_t>(r.payloadEnd - r.payloadBegin, 64));
        return r.payloadLines > 0 && head.substr(0, 7) == "\tclass ";
    }

    void addGraph(size_t rec, const std::string& compileId, const std::string& stage) {
        PendingGraph p;
        p.record = rec;
        p.compileId = compileId;
        p.stage = stage;
        std::string base = (compileId.empty() ? "unknown" : compileId) + "/" + stage;
        int n = ++m_stageCount[base];
        p.id = n == 1 ? base : base + "#" + std::to_string(n);
        if (stage == "dynamo_output_graph") {
            m_lastDynamo[compileId] = long(m_pending.size());
        } else {
            auto it = m_lastDynamo.find(compileId);
            if (it != m_lastDynamo.end() && !compileId.empty()) p.dynamo = it->second;
        }
        m_pending.push_back(std::move(p));
    }

    void addArtifact(const std::string& compileId, std::string name, std::string encoding, std::string text) {
        Artifact a;
        a.compileId = compileId;
        a.name = std::move(name);
        a.encoding = std::move(encoding);
        a.text = std::move(text);
        m_out.artifacts.push_back(std::move(a));
    }

    /// Where the compile was started from: the innermost stack frame outside PyTorch.
    std::string originOf(const json& start) const {
        auto st = start.find("stack");
        if (st == start.end() || !st->is_array()) return {};
        std::string best;
        for (const auto& fr : *st) {
            if (!fr.is_object()) continue;
            std::string file;
            auto f = fr.find("filename");
            if (f != fr.end() && f->is_number_integer()) {
                auto s = m_strings.find(f->get<int64_t>());
                if (s != m_strings.end()) file = s->second;
            } else if (f != fr.end() && f->is_string()) {
                file = f->get<std::string>();
            }
            if (file.empty() || file.find("/torch/") != std::string::npos) continue;
            auto text = [&](const char* k) {
                auto v = fr.find(k);
                if (v == fr.end()) return std::string();
                if (v->is_string()) return v->get<std::string>();
                return v->is_number() ? v->dump() : std::string();
            };
            best = file + ":" + text("line") + " in " + text("name");
            std::string loc = text("loc");
            if (!loc.empty()) best += ": " + loc;
        }
        return best;
    }

    static json parseValue(std::string_view raw) {
        return json::parse(raw.begin(), raw.end(), nullptr, /*allow_exceptions=*/false);
    }

    static std::string stringField(const json& v, const char* key, std::string fallback) {
        if (!v.is_object()) return fallback;
        auto it = v.find(key);
        return it != v.end() && it->is_string() ? it->get<std::string>() : fallback;
    }

    void interpret() {
        for (size_t i = 0; i < m_records.size(); ++i) {
            const Record& r = m_records[i];
            if (!r.valid) continue;
            const std::string kind(r.kind);
            const std::string& cid = r.compileId;
            if (kind == "str") {
                // ["path", index]: the string table that stack frames refer to
                json v = parseValue(r.value);
                if (v.is_array() && v.size() == 2 && v[0].is_string() && v[1].is_number_integer())
                    m_strings[v[1].get<int64_t>()] = v[0].get<std::string>();
            } else if (kind == "describe_tensor") {
                m_inputs.addTensor(cid, parseValue(r.value));
            } else if (kind == "describe_source") {
                m_inputs.addSource(cid, parseValue(r.value));
            } else if (kind == "create_symbol" || kind == "symbolic_shape_specialization") {
                // The value each symbol had when traced: the graphs' hints (run's default sizes).
                if (auto h = traceSymbolHint(kind, parseValue(r.value))) m_hints[cid][h->first] = h->second;
            } else if (kind == "dynamo_start") {
                std::string origin = originOf(parseValue(r.value));
                if (!origin.empty()) m_origin[cid] = origin;
            } else if (isGraphKey(kind)) {
                if (r.payloadLines == 0)
                    warn(r.line, kind + " record without a graph payload");
                else
                    addGraph(i, cid, kind);
            } else if (kind == "artifact" || kind == "graph_dump") {
                json v = parseValue(r.value);
                std::string name = stringField(v, "name", kind);
                std::string enc = stringField(v, kind == "artifact" ? "encoding" : "type", "string");
                bool fx = payloadIsFx(m_text, r) && (isGraphKey(name) || kind == "graph_dump" ||
                                                     (name.size() > 6 && name.substr(name.size() - 6) == "_graph"));
                if (fx)
                    addGraph(i, cid, name);
                else
                    addArtifact(cid, name, enc, payloadText(m_text, r));
            } else if (kind == "inductor_output_code" || kind == "dynamo_cpp_guards_str" || kind == "dynamo_guards") {
                addArtifact(cid, kind, "string", payloadText(m_text, r));
            } else if (kind.find("compilation_metrics") != std::string::npos) {
                addArtifact(cid, kind, "json", std::string(r.value));
            } else if (!isIgnoredKey(kind)) {
                // A key from a newer PyTorch: count it, keep its payload.
                ++m_unknown[kind.empty() ? "<none>" : kind];
                if (r.payloadLines > 0) addArtifact(cid, kind, "string", payloadText(m_text, r));
            }
        }
        if (!m_unknown.empty()) {
            json counts = json::object();
            for (const auto& [k, n] : m_unknown) counts[k] = n;
            addArtifact("", "unknown_keys", "json", counts.dump());
        }
    }

    /// Moves a diagnostic from payload coordinates to the log's lines (one tab of indent).
    Diagnostic toLogCoordinates(Diagnostic d, const Record& r) const {
        d.file = m_file;
        if (d.line > 0) {
            d.line += r.line;
            if (d.column > 0) d.column += 1;
        } else {
            d.line = r.line;
        }
        return d;
    }

    static void shiftLines(Graph& g, int offset) {
        for (const auto& n : g.nodes())
            if (n->sourceLine > 0) n->sourceLine += offset;
        for (auto& [name, sub] : g.subgraphs()) shiftLines(*sub, offset);
    }

    void parseGraphs() {
        // Largest first, so that two threads finish together.
        std::vector<size_t> order(m_pending.size());
        for (size_t k = 0; k < order.size(); ++k) order[k] = k;
        auto size = [&](size_t k) {
            const Record& r = m_records[m_pending[k].record];
            return r.payloadEnd - r.payloadBegin;
        };
        std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return size(a) > size(b); });
        std::vector<std::optional<Expected<std::unique_ptr<Graph>>>> parsed(m_pending.size());
        parallelFor(order.size(), [&](size_t i) {
            size_t k = order[i];
            parsed[k].emplace(readFxText(payloadText(m_text, m_records[m_pending[k].record]), m_file));
        });
        m_parsed.assign(m_pending.size(), -1);
        for (size_t k = 0; k < m_pending.size(); ++k) {
            const PendingGraph& p = m_pending[k];
            const Record& r = m_records[p.record];
            auto& g = *parsed[k];
            if (!g.ok()) {
                Diagnostic d = toLogCoordinates(g.error(), r);
                if (m_out.warnings.size() >= kMaxWarnings)
                    ++m_suppressed;
                else
                    m_out.warnings.push_back(p.stage + " of compile " +
                                             (p.compileId.empty() ? "unknown" : p.compileId) +
                                             " not loaded: " + d.str());
                continue;
            }
            LoadedGraph lg;
            lg.id = p.id;
            lg.stage = p.stage;
            lg.compileId = p.compileId;
            lg.graph = std::move(g).value();
            lg.graph->sourceFile = m_file;
            shiftLines(*lg.graph, r.line);
            lg.notes.push_back("trace record at " + m_file + ":" + std::to_string(r.line));
            if (auto h = m_hints.find(p.compileId); h != m_hints.end() && !p.compileId.empty()) {
                addSymbolHints(*lg.graph, h->second);
                lg.notes.push_back("symbol hints " + sym::bindingStr(h->second) + " from create_symbol records");
            }
            auto o = m_origin.find(p.compileId);
            if (o != m_origin.end() && !p.compileId.empty())
                lg.notes.push_back("compile " + p.compileId + " started from " + o->second);
            m_parsed[k] = long(m_out.graphs.size());
            m_out.graphs.push_back(std::move(lg));
        }
    }

    void finish() {
        // Dynamo graphs first: AOT graphs of the same compile take lifted constants from them
        // (read-only, so the second wave may share them across threads).
        std::vector<size_t> dynamo, rest;
        for (size_t k = 0; k < m_pending.size(); ++k) {
            if (m_parsed[k] < 0) continue;
            (m_pending[k].stage == "dynamo_output_graph" ? dynamo : rest).push_back(k);
        }
        parallelFor(dynamo.size(), [&](size_t i) {
            LoadedGraph& lg = m_out.graphs[size_t(m_parsed[dynamo[i]])];
            finishGraph(lg);
            if (size_t n = m_inputs.attach(lg, m_pending[dynamo[i]].compileId))
                lg.notes.push_back(std::to_string(n) + " input specs from describe_tensor records");
        });
        parallelFor(rest.size(), [&](size_t i) {
            size_t k = rest[i];
            const LoadedGraph* dyn = nullptr;
            long d = m_pending[k].dynamo;
            if (d >= 0 && m_parsed[size_t(d)] >= 0) dyn = &m_out.graphs[size_t(m_parsed[size_t(d)])];
            LoadedGraph& lg = m_out.graphs[size_t(m_parsed[k])];
            size_t before = lg.graph->constants.size();
            finishGraph(lg, dyn ? dyn->graph.get() : nullptr);
            if (dyn && inheritInputSpecs(lg, *dyn) > 0) lg.notes.push_back("input specs inherited from " + dyn->id);
            if (lg.graph->constants.size() > before)
                lg.notes.push_back(std::to_string(lg.graph->constants.size() - before) +
                                   " lifted constants taken from torch.tensor literals of " + dyn->id);
        });
    }

    std::string_view m_text;
    std::string m_file;
    TraceTimings* m_timings;
    std::vector<Record> m_records;
    std::vector<std::pair<std::string_view, std::string_view>> m_fields;  ///< scratch for scanEnvelope
    std::vector<PendingGraph> m_pending;
    std::vector<long> m_parsed;  ///< pending index -> index in m_out.graphs, -1 when not parsed
    std::unordered_map<std::string, int> m_stageCount;
    std::unordered_map<std::string, long> m_lastDynamo;
    std::unordered_map<std::string, std::string> m_origin;
    std::unordered_map<int64_t, std::string> m_strings;
    std::map<std::string, int> m_unknown;
    TraceInputCatalog m_inputs;
    std::unordered_map<std::string, sym::Binding> m_hints;  ///< compile id -> traced symbol values
    size_t m_suppressed = 0;
    LoadedFile m_out;
};

/// "rank3" for dedicated_log_torch_trace_rank_3_xxx.log, else the file's stem.
std::string filePrefix(const fs::path& p) {
    std::string stem = p.stem().string();
    size_t r = stem.find("rank_");
    if (r != std::string::npos) {
        size_t e = r + 5;
        while (e < stem.size() && std::isdigit(static_cast<unsigned char>(stem[e]))) ++e;
        if (e > r + 5) return "rank" + stem.substr(r + 5, e - r - 5);
    }
    return stem;
}

}  // namespace

bool looksLikeTorchTrace(std::string_view head) {
    size_t nl = head.find('\n');
    return !traceEnvelopeOf(head.substr(0, nl)).empty();
}

std::vector<fs::path> traceLogFiles(const fs::path& dir) {
    std::vector<fs::path> dedicated, logs;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, fs::directory_options::skip_permission_denied, ec)) {
        std::error_code ec2;
        if (!e.is_regular_file(ec2) || e.path().extension() != ".log") continue;
        std::string name = e.path().filename().string();
        (name.rfind("dedicated_log_torch_trace_", 0) == 0 ? dedicated : logs).push_back(e.path());
    }
    auto& out = dedicated.empty() ? logs : dedicated;
    std::sort(out.begin(), out.end());
    return out;
}

Expected<LoadedFile> readTorchTraceText(std::string_view text, const std::string& fileName, TraceTimings* timings) {
    if (timings) timings->bytes += text.size();
    return TraceReader(text, fileName, timings).run();
}

Expected<std::vector<fs::path>> traceLogsOf(const fs::path& fileOrFolder) {
    std::error_code ec;
    if (!fs::is_directory(fileOrFolder, ec)) return std::vector<fs::path>{fileOrFolder};
    auto files = traceLogFiles(fileOrFolder);
    if (files.empty()) {
        Diagnostic d = makeError("no TORCH_TRACE log (*.log) in this folder");
        d.file = fileOrFolder.string();
        return d;
    }
    return files;
}

Expected<LoadedFile> readTorchTrace(const fs::path& fileOrFolder, TraceTimings* timings) {
    auto filesE = traceLogsOf(fileOrFolder);
    if (!filesE.ok()) return filesE.error();
    const std::vector<fs::path>& files = *filesE;
    LoadedFile all;
    all.path = fileOrFolder;
    all.format = "torch-trace";
    for (const auto& p : files) {
        auto t0 = std::chrono::steady_clock::now();
        auto text = readFileUpTo(p, kMaxTraceBytes, "trace");
        if (!text.ok()) return text.error();
        if (timings) timings->readMs += msSince(t0);
        auto one = readTorchTraceText(*text, p.string(), timings);
        if (!one.ok()) {
            if (files.size() == 1) return one.error();
            all.warnings.push_back(one.error().str());
            continue;
        }
        const std::string prefix = files.size() > 1 ? filePrefix(p) + ":" : "";
        for (auto& g : one->graphs) {
            g.id = prefix + g.id;
            if (!g.compileId.empty()) g.compileId = prefix + g.compileId;
            all.graphs.push_back(std::move(g));
        }
        for (auto& a : one->artifacts) {
            if (!a.compileId.empty()) a.compileId = prefix + a.compileId;
            all.artifacts.push_back(std::move(a));
        }
        for (auto& w : one->warnings) all.warnings.push_back(std::move(w));
    }
    if (all.graphs.empty() && all.artifacts.empty()) {
        Diagnostic d = makeError("no TORCH_TRACE records found in any log file of this folder");
        d.file = fileOrFolder.string();
        return d;
    }
    return all;
}

}  // namespace fxray
