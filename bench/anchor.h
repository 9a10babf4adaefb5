#pragma once
// PyTorch's time for the same corpus graphs, from bench/torch_anchor.py run in a child process,
// so that a bench prints fxray and PyTorch side by side from one run on one machine. The script
// is found next to this header (FXRAY_SOURCE_DIR) or at $FXRAY_ANCHOR_SCRIPT; the interpreter is
// $FXRAY_PYTHON, else the first of /usr/bin/python3 (Debian's python3-torch) and python3 that
// imports torch. No torch: the anchor columns say "n/a" and why.
#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fxbench {

struct AnchorRow {
    std::optional<double> eagerMs, inductorMs, inductorCompileS;
    std::string error;
};

struct Anchor {
    std::map<std::string, AnchorRow> rows;  ///< by "model/stage"
    std::string problem;                    ///< why there are no rows at all
    std::string python;
};

inline std::string runCapture(const std::string& cmd, int& status) {
    std::string out;
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) {
        status = -1;
        return out;
    }
    std::array<char, 4096> buf{};
    for (size_t n; (n = fread(buf.data(), 1, buf.size(), p)) > 0;) out.append(buf.data(), n);
    status = pclose(p);
    return out;
}

inline std::string quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

/// Merges what one run of the anchor script printed (status: its exit status) into a: its rows,
/// or in a.problem why there are none.
inline void parseAnchorOutput(const std::string& out, int status, Anchor& a) {
    auto j = nlohmann::json::parse(out, nullptr, false);
    if (j.is_discarded()) {
        // Something (a library's notice) printed before the array: parse from its first line.
        size_t at = out.rfind("\n[\n");
        if (at != std::string::npos) j = nlohmann::json::parse(out.substr(at + 1), nullptr, false);
    }
    if (j.is_object()) {
        a.problem = j.value("error", std::string("anchor failed"));
        return;
    }
    if (!j.is_array()) {
        a.problem = "anchor printed no JSON (exit status " + std::to_string(status) + ")";
        return;
    }
    auto num = [](const nlohmann::json& r, const char* key) -> std::optional<double> {
        auto it = r.find(key);
        if (it != r.end() && it->is_number()) return it->get<double>();
        return std::nullopt;
    };
    for (const auto& r : j) {
        if (!r.is_object() || !r.contains("graph") || !r["graph"].is_string()) continue;
        AnchorRow row;
        row.eagerMs = num(r, "eager_ms");
        row.inductorMs = num(r, "inductor_ms");
        row.inductorCompileS = num(r, "inductor_compile_s");
        if (r.contains("error") && r["error"].is_string()) row.error = r["error"].get<std::string>();
        a.rows[r["graph"].get<std::string>()] = row;
    }
}

/// Runs the anchor script; `args` are appended (e.g. "--device cpu --threads 2").
inline Anchor runAnchor(const std::filesystem::path& corpus, const std::string& args) {
    Anchor a;
    std::string script = std::getenv("FXRAY_ANCHOR_SCRIPT") ? std::getenv("FXRAY_ANCHOR_SCRIPT") : "";
#ifdef FXRAY_SOURCE_DIR
    if (script.empty()) script = std::string(FXRAY_SOURCE_DIR) + "/bench/torch_anchor.py";
#endif
    if (script.empty() || !std::filesystem::exists(script)) {
        a.problem = "anchor script not found (set FXRAY_ANCHOR_SCRIPT)";
        return a;
    }
    std::vector<std::string> pythons;
    if (const char* p = std::getenv("FXRAY_PYTHON")) pythons.push_back(p);
    pythons.insert(pythons.end(), {"/usr/bin/python3", "python3"});
    for (const auto& py : pythons) {
        int st = 0;
        runCapture(quote(py) + " -c 'import torch' 2>/dev/null", st);
        if (st == 0) {
            a.python = py;
            break;
        }
    }
    if (a.python.empty()) {
        a.problem = "no python3 with torch (Debian: apt install python3-torch; or set FXRAY_PYTHON)";
        return a;
    }
    int st = 0;
    // The anchor gets the environment PyTorch would normally see, not this bench's GEMM settings.
    std::string out = runCapture("env -u OPENBLAS_NUM_THREADS " + quote(a.python) + " " + quote(script) +
                                     " --json --corpus " + quote(corpus.string()) + " " + args + " 2>/dev/null",
                                 st);
    parseAnchorOutput(out, st, a);
    return a;
}

}  // namespace fxbench
