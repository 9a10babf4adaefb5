#include "import/trace_records.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <system_error>

namespace fxray {

namespace {

/// Index just past the closing quote of the string that starts at s[i] == '"', or npos.
size_t stringEnd(std::string_view s, size_t i) {
    for (size_t k = i + 1; k < s.size(); ++k) {
        k = s.find_first_of("\\\"", k);
        if (k == std::string_view::npos) return k;
        if (s[k] == '\\') {
            ++k;  // skips the escaped character, whatever it is
            continue;
        }
        return k + 1;
    }
    return std::string_view::npos;
}

/// Index just past the JSON value that starts at s[i], or npos. Containers are matched by
/// bracket depth only: values are validated when they are parsed, not here.
size_t valueEnd(std::string_view s, size_t i) {
    if (i >= s.size()) return std::string_view::npos;
    char c = s[i];
    if (c == '"') return stringEnd(s, i);
    if (c == '{' || c == '[') {
        int depth = 0;
        for (; i < s.size(); ++i) {
            c = s[i];
            if (c == '"') {
                i = stringEnd(s, i);
                if (i == std::string_view::npos) return i;
                --i;
            } else if (c == '{' || c == '[') {
                ++depth;
            } else if (c == '}' || c == ']') {
                if (--depth == 0) return i + 1;
            }
        }
        return std::string_view::npos;
    }
    size_t e = s.find_first_of(",}] \t", i);
    if (e == i) return std::string_view::npos;
    return e == std::string_view::npos ? s.size() : e;
}

size_t skipBlanks(std::string_view s, size_t i) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n')) ++i;
    return i;
}

bool isEnvelopeKey(std::string_view k) {
    return k == "frame_id" || k == "frame_compile_id" || k == "attempt" || k == "compiled_autograd_id" ||
           k == "has_payload" || k == "rank" || k == "stack";
}

}  // namespace

std::string_view traceEnvelopeOf(std::string_view line) {
    // Level letter, MMDD, then anything up to "] " (time, thread id, path:line).
    if (line.size() < 8 || std::string_view("VIWEC").find(line[0]) == std::string_view::npos) return {};
    for (int k = 1; k <= 4; ++k)
        if (line[size_t(k)] < '0' || line[size_t(k)] > '9') return {};
    size_t close = line.find("] ");
    if (close == std::string_view::npos) return {};
    std::string_view rest = line.substr(close + 2);
    if (rest.empty() || rest.front() != '{') return {};
    return rest;
}

bool splitJsonObject(std::string_view s, std::vector<std::pair<std::string_view, std::string_view>>& out) {
    out.clear();
    size_t i = skipBlanks(s, 0);
    if (i >= s.size() || s[i] != '{') return false;
    i = skipBlanks(s, i + 1);
    if (i < s.size() && s[i] == '}') return skipBlanks(s, i + 1) == s.size();
    while (true) {
        if (i >= s.size() || s[i] != '"') return false;
        size_t ke = stringEnd(s, i);
        if (ke == std::string_view::npos) return false;
        std::string_view key = s.substr(i + 1, ke - i - 2);
        i = skipBlanks(s, ke);
        if (i >= s.size() || s[i] != ':') return false;
        i = skipBlanks(s, i + 1);
        size_t ve = valueEnd(s, i);
        if (ve == std::string_view::npos) return false;
        out.emplace_back(key, s.substr(i, ve - i));
        i = skipBlanks(s, ve);
        if (i >= s.size()) return false;
        if (s[i] == '}') return skipBlanks(s, i + 1) == s.size();
        if (s[i] != ',') return false;
        i = skipBlanks(s, i + 1);
    }
}

std::optional<int64_t> rawJsonInt(std::string_view v) {
    int64_t x = 0;
    auto r = std::from_chars(v.data(), v.data() + v.size(), x);
    if (r.ec != std::errc() || r.ptr != v.data() + v.size()) return std::nullopt;
    return x;
}

std::optional<double> rawJsonNumber(std::string_view v) {
    if (v.empty() || v.size() > 64) return std::nullopt;
    char c = v.front();
    if (!(c == '-' || (c >= '0' && c <= '9'))) return std::nullopt;
    // strtod needs a terminated string; numbers are short.
    char buf[65];
    v.copy(buf, v.size());
    buf[v.size()] = '\0';
    char* end = nullptr;
    double x = std::strtod(buf, &end);
    if (end != buf + v.size()) return std::nullopt;
    return x;
}

namespace detail {

bool scanTraceEnvelope(std::string_view env, TraceRecord& r,
                       std::vector<std::pair<std::string_view, std::string_view>>& scratch) {
    if (!splitJsonObject(env, scratch)) return false;
    for (const auto& [k, v] : scratch) {
        if (k == "frame_id")
            r.frameId = rawJsonInt(v);
        else if (k == "frame_compile_id")
            r.frameCompileId = rawJsonInt(v);
        else if (k == "attempt")
            r.attempt = rawJsonInt(v);
        else if (k == "compiled_autograd_id")
            r.compiledAutogradId = rawJsonInt(v);
        else if (k == "rank")
            r.rank = rawJsonInt(v);
        else if (!isEnvelopeKey(k) && r.kind.empty()) {
            r.kind = k;
            r.value = v;
        }
    }
    return true;
}

}  // namespace detail

namespace {
template <typename F>
void eachPayloadLine(std::string_view text, const TraceRecord& r, F&& f) {
    size_t pos = r.payloadBegin;
    for (int k = 0; k < r.payloadLines && pos <= r.payloadEnd; ++k) {
        size_t nl = text.find('\n', pos);
        if (nl == std::string_view::npos || nl > r.payloadEnd) nl = r.payloadEnd;
        std::string_view l = text.substr(pos, nl - pos);
        if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
        if (!l.empty() && l.front() == '\t') l.remove_prefix(1);
        if (!f(l)) return;
        pos = nl + 1;
    }
}
}  // namespace

std::string tracePayload(std::string_view text, const TraceRecord& r) {
    std::string out;
    if (r.payloadLines == 0 || r.payloadEnd > text.size()) return out;
    out.reserve(r.payloadEnd - r.payloadBegin);
    bool first = true;
    eachPayloadLine(text, r, [&](std::string_view l) {
        if (!first) out += '\n';
        first = false;
        out.append(l);
        return true;
    });
    return out;
}

std::string tracePayloadHead(std::string_view text, const TraceRecord& r, size_t maxBytes) {
    std::string out;
    if (r.payloadLines == 0 || r.payloadEnd > text.size()) return out;
    bool first = true;
    eachPayloadLine(text, r, [&](std::string_view l) {
        if (!first) out += '\n';
        first = false;
        out.append(l.substr(0, maxBytes - std::min(maxBytes, out.size())));
        return out.size() < maxBytes;
    });
    return out;
}

}  // namespace fxray
