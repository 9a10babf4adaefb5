#include "import/compile_story_payloads.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>

namespace fxray::detail {

namespace {

/// Frames kept from one traceback: deep recursion should not make a report unreadable.
constexpr size_t kMaxStackFrames = 200;

bool startsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

/// Lines of `s` without their '\r'.
std::vector<std::string_view> splitLines(std::string_view s) {
    std::vector<std::string_view> out;
    size_t pos = 0;
    while (pos <= s.size()) {
        size_t nl = s.find('\n', pos);
        if (nl == std::string_view::npos) nl = s.size();
        std::string_view l = s.substr(pos, nl - pos);
        if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
        out.push_back(l);
        pos = nl + 1;
    }
    return out;
}

int toInt(std::string_view s) {
    int x = 0;
    auto r = std::from_chars(s.data(), s.data() + s.size(), x);
    return r.ec == std::errc() ? x : 0;
}

/// Parses `  File "path", line N, in fn` into f. False when the line is not a frame line.
bool parseFileLine(std::string_view l, UserFrame& f) {
    l = trimView(l);
    if (!startsWith(l, "File \"")) return false;
    size_t q = l.find('"', 6);
    if (q == std::string_view::npos) return false;
    f = UserFrame();
    f.file = std::string(l.substr(6, q - 6));
    std::string_view rest = l.substr(q + 1);
    size_t ln = rest.find("line ");
    if (ln != std::string_view::npos) {
        size_t e = ln + 5;
        while (e < rest.size() && std::isdigit(static_cast<unsigned char>(rest[e]))) ++e;
        f.line = toInt(rest.substr(ln + 5, e - ln - 5));
    }
    size_t in = rest.find(", in ");
    if (in != std::string_view::npos) f.name = std::string(trimView(rest.substr(in + 5)));
    return true;
}

/// Caret lines (`    ^^^^^`, `    ~~~^^^`) that Python 3.11+ prints under a frame's code.
bool isCaretLine(std::string_view l) {
    l = trimView(l);
    if (l.empty()) return false;
    for (char c : l)
        if (c != '^' && c != '~') return false;
    return true;
}

std::string frameText(const UserFrame& f) {
    std::string s = f.file + ":" + std::to_string(f.line);
    if (!f.name.empty()) s += " in " + f.name;
    if (!f.code.empty()) s += ": " + f.code;
    return s;
}

}  // namespace

std::string_view trimView(std::string_view s) {
    size_t b = 0, e = s.size();
    while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
    return s.substr(b, e - b);
}

GraphBreak parseGraphBreakMessage(std::string_view payload) {
    GraphBreak b;
    b.count = 1;
    auto lines = splitLines(payload);
    enum { Head, Reason, UserTb, Rest } state = Head;
    std::string detail;
    UserFrame last;
    bool haveFrame = false;
    for (size_t i = 0; i < lines.size(); ++i) {
        std::string_view l = lines[i];
        if (state != UserTb && startsWith(l, "Graph break in user code at ")) {
            // "FILE:LINE"; the file may itself contain ':' (Windows drive letters).
            std::string_view at = trimView(l.substr(28));
            size_t colon = at.rfind(':');
            if (colon != std::string_view::npos) {
                b.userFrame.file = std::string(at.substr(0, colon));
                b.userFrame.line = toInt(at.substr(colon + 1));
            }
            continue;
        }
        if (state == Head && (startsWith(l, "Graph Break Reason:") || startsWith(l, "Reason:"))) {
            state = Reason;
            detail = std::string(trimView(l.substr(l.find(':') + 1)));
            continue;
        }
        if (startsWith(l, "User code traceback:")) {
            state = UserTb;
            continue;
        }
        if (state == Reason) {
            detail += "\n";
            detail += l;
        } else if (state == UserTb) {
            if (startsWith(l, "Traceback (most recent call last)")) {
                state = Rest;
                continue;
            }
            UserFrame f;
            if (parseFileLine(l, f)) {
                last = f;
                haveFrame = true;
                if (i + 1 < lines.size() && !startsWith(trimView(lines[i + 1]), "File \"") &&
                    !trimView(lines[i + 1]).empty())
                    last.code = std::string(trimView(lines[i + 1]));
            }
        }
    }
    b.detail = std::string(trimView(detail));
    // The first line names the bytecode being traced ("Encountered graph break when attempting to
    // trace CALL: ..."); the break's own title is the next non-empty line.
    auto dl = splitLines(b.detail);
    size_t k = 0;
    if (!dl.empty() && startsWith(dl[0], "Encountered graph break")) k = 1;
    while (k < dl.size() && trimView(dl[k]).empty()) ++k;
    if (k < dl.size())
        b.reason = std::string(trimView(dl[k]));
    else if (!dl.empty())
        b.reason = std::string(trimView(dl[0]));
    if (haveFrame) {
        // The header's FILE:LINE is where Dynamo stopped; the traceback's innermost frame is the
        // same place with its code, so it wins when both are there.
        b.userFrame = last;
    }
    return b;
}

CompileFailure parseTraceback(std::string_view text) {
    CompileFailure f;
    auto lines = splitLines(text);
    size_t afterLastFrame = 0;
    for (size_t i = 0; i < lines.size(); ++i) {
        UserFrame fr;
        if (!parseFileLine(lines[i], fr)) continue;
        size_t next = i + 1;
        if (next < lines.size() && !trimView(lines[next]).empty() && startsWith(lines[next], "    ") &&
            !startsWith(trimView(lines[next]), "File \"")) {
            fr.code = std::string(trimView(lines[next]));
            ++next;
        }
        while (next < lines.size() && isCaretLine(lines[next])) ++next;
        if (f.stack.size() < kMaxStackFrames) f.stack.push_back(frameText(fr));
        afterLastFrame = next;
        i = next - 1;
    }
    // The exception: the first non-empty line after the last frame ("Type: message"), plus the
    // lines after it (messages span lines).
    std::string exc;
    for (size_t i = afterLastFrame; i < lines.size(); ++i) {
        if (exc.empty() && trimView(lines[i]).empty()) continue;
        if (!exc.empty()) exc += "\n";
        exc += lines[i];
    }
    exc = std::string(trimView(exc));
    size_t colon = exc.find(": ");
    size_t nl = exc.find('\n');
    if (colon != std::string::npos && (nl == std::string::npos || colon < nl) && exc.find(' ') >= colon) {
        f.type = exc.substr(0, colon);
        f.message = exc.substr(colon + 2);
    } else {
        f.message = exc;
    }
    return f;
}

std::vector<std::string> parseRecompileReasons(std::string_view payload) {
    std::vector<std::string> out;
    auto j = nlohmann::json::parse(payload.begin(), payload.end(), nullptr, false);
    if (j.is_array()) {
        for (const auto& e : j)
            if (e.is_string()) out.push_back(e.get<std::string>());
        return out;
    }
    if (j.is_string()) {
        out.push_back(j.get<std::string>());
        return out;
    }
    for (auto l : splitLines(payload)) {
        l = trimView(l);
        if (!l.empty()) out.emplace_back(l);
    }
    return out;
}

std::pair<std::string, std::string> splitGuardFailure(const std::string& reason) {
    // "F/C: ..." or "F/C_A: ..." (PyTorch prefixes the cache entry that failed).
    size_t colon = reason.find(": ");
    if (colon == std::string::npos || colon == 0 || colon > 24) return {"", reason};
    std::string id = reason.substr(0, colon);
    bool slash = false;
    for (char c : id) {
        if (c == '/')
            slash = true;
        else if (!std::isdigit(static_cast<unsigned char>(c)) && c != '_' && c != '!')
            return {"", reason};
    }
    if (!slash) return {"", reason};
    return {id, reason.substr(colon + 2)};
}

namespace {

/// "[a, b, c]" at the start of s -> {a, b, c}.
std::vector<std::string> bracketList(std::string_view s) {
    std::vector<std::string> out;
    size_t open = s.find('[');
    size_t close = s.find(']', open == std::string_view::npos ? 0 : open);
    if (open == std::string_view::npos || close == std::string_view::npos) return out;
    std::string_view in = s.substr(open + 1, close - open - 1);
    size_t pos = 0;
    while (pos <= in.size()) {
        size_t c = in.find(',', pos);
        if (c == std::string_view::npos) c = in.size();
        std::string_view item = trimView(in.substr(pos, c - pos));
        if (!item.empty()) out.emplace_back(item);
        pos = c + 1;
    }
    return out;
}

bool isIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

}  // namespace

std::vector<KernelInfo> kernelsFromOutputCode(std::string_view code) {
    static constexpr std::string_view kSourceNodes = "# Topologically Sorted Source Nodes: ";
    std::vector<KernelInfo> out;
    std::vector<std::string> pending;
    bool inString = false;  // inside a kernel's ''' source ''': its lines are not wrapper code
    for (auto raw : splitLines(code)) {
        std::string_view l = trimView(raw);
        size_t quotes = 0;
        for (size_t p = l.find("'''"); p != std::string_view::npos; p = l.find("'''", p + 3)) ++quotes;
        bool wasInString = inString;
        if (quotes % 2 == 1) inString = !inString;
        if (wasInString) continue;
        if (startsWith(l, kSourceNodes)) {
            pending = bracketList(l.substr(kSourceNodes.size()));
            continue;
        }
        // NAME = async_compile.triton('NAME', '''   (also cpp_pybinding, cuda, ...)
        size_t eq = l.find(" = async_compile.");
        if (eq != std::string_view::npos && eq > 0) {
            std::string_view name = l.substr(0, eq);
            bool ident = true;
            for (char c : name) ident = ident && isIdentChar(c);
            if (ident && l.find('(', eq) != std::string_view::npos) {
                out.push_back({std::string(name), std::move(pending)});
                pending.clear();
            }
            continue;
        }
        size_t ek = l.find("extern_kernels.");
        if (ek != std::string_view::npos && (ek == 0 || !isIdentChar(l[ek - 1]))) {
            size_t e = ek + 15;
            while (e < l.size() && isIdentChar(l[e])) ++e;
            if (e < l.size() && l[e] == '(' && e > ek + 15) {
                out.push_back({std::string(l.substr(ek, e - ek)), std::move(pending)});
                pending.clear();
            }
        }
    }
    return out;
}

std::vector<KernelInfo> kernelsFromProvenance(std::string_view text) {
    std::vector<KernelInfo> out;
    auto j = nlohmann::ordered_json::parse(text.begin(), text.end(), nullptr, false);
    if (!j.is_object()) return out;
    auto m = j.find("cppCodeToPost");
    if (m == j.end() || !m->is_object()) return out;
    for (const auto& [key, nodes] : m->items()) {
        KernelInfo k;
        // "triton_poi_fused_gelu_view_1:3": the suffix numbers the kernel's call site.
        k.name = key;
        size_t colon = k.name.rfind(':');
        if (colon != std::string::npos && colon + 1 < k.name.size()) {
            bool digits = true;
            for (size_t i = colon + 1; i < k.name.size(); ++i)
                digits = digits && std::isdigit(static_cast<unsigned char>(k.name[i]));
            if (digits) k.name.resize(colon);
        }
        if (nodes.is_array())
            for (const auto& n : nodes)
                if (n.is_string()) k.nodes.push_back(n.get<std::string>());
        out.push_back(std::move(k));
    }
    return out;
}

void mergeGraphBreak(std::vector<GraphBreak>& list, const GraphBreak& b) {
    for (auto& e : list) {
        if (e.reason == b.reason && e.userFrame.file == b.userFrame.file && e.userFrame.line == b.userFrame.line) {
            e.count += b.count;
            for (const auto& id : b.compileIds)
                if (std::find(e.compileIds.begin(), e.compileIds.end(), id) == e.compileIds.end())
                    e.compileIds.push_back(id);
            return;
        }
    }
    list.push_back(b);
}

}  // namespace fxray::detail
