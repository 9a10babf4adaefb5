#include "minify/torch_check.h"

#include "ir/graph.h"
#include "minify/repro_export.h"
#include "minify/subprocess.h"

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <unistd.h>

namespace fxray::minify {

namespace fs = std::filesystem;

namespace {

const char* kInstallHint = "install PyTorch for it (pip install torch), or point FXRAY_PYTHON (or --python) at "
                           "a Python that has it";

/// Imports torch, reports its version and CUDA, then looks up each config key given as an
/// argument in torch._inductor.config (exit 4 naming the first unknown one).
const char* kProbeScript = R"PY(import sys
try:
    import torch
except Exception as e:
    print(f'FXRAY_NO_TORCH {type(e).__name__}: {e}', flush=True)
    sys.exit(3)
if not hasattr(torch, 'compile'):
    print(f'FXRAY_NO_TORCH PyTorch {torch.__version__} has no torch.compile (2.0 or newer has)', flush=True)
    sys.exit(3)
print(f'FXRAY_TORCH {torch.__version__} {int(torch.cuda.is_available())}', flush=True)
if sys.argv[1:]:
    import torch._inductor.config as config
    for key in sys.argv[1:]:
        obj = config
        try:
            for part in key.split('.'):
                obj = getattr(obj, part)
        except AttributeError:
            print(f'FXRAY_BAD_CONFIG {key}', flush=True)
            sys.exit(4)
)PY";

std::string slurp(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// The rest of the first line of `text` that starts with `tag` (without it), or "" (found=false).
std::string taggedLine(const std::string& text, const std::string& tag, bool* found = nullptr) {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        if (line.rfind(tag, 0) == 0) {
            if (found) *found = true;
            return line.substr(tag.size());
        }
    if (found) *found = false;
    return {};
}

std::string lastLine(const std::string& text) {
    std::istringstream in(text);
    std::string line, last;
    while (std::getline(in, line))
        if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
    return last;
}

bool identChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

/// A Python name, or names joined by dots: what node names and call targets must be before they
/// are written into a script that runs (a parsed FX file holds nothing else; a crafted one might).
bool pythonName(const std::string& s) {
    if (s.empty() || s.front() == '.' || s.back() == '.' || std::isdigit(static_cast<unsigned char>(s.front())))
        return false;
    for (size_t i = 0; i < s.size(); ++i)
        if (!identChar(s[i]) && !(s[i] == '.' && s[i - 1] != '.')) return false;
    return true;
}

}  // namespace

std::string torchPython(const std::string& explicitPath) {
    if (!explicitPath.empty()) return explicitPath;
    if (const char* e = std::getenv("FXRAY_PYTHON"); e && *e) return e;
    return "python3";
}

std::string normalizeFailure(const std::string& s) {
    std::string out;
    size_t i = 0;
    while (i < s.size()) {
        // A path: from a '/' that starts a word to the next blank or closing punctuation.
        if (s[i] == '/' && (i == 0 || !identChar(s[i - 1]))) {
            size_t j = i;
            while (j < s.size() && !std::isspace(static_cast<unsigned char>(s[j])) && s[j] != ')' && s[j] != '\'' &&
                   s[j] != '"' && s[j] != ',' && s[j] != ']')
                ++j;
            out += "<path>";
            i = j;
            continue;
        }
        if (identChar(s[i])) {
            size_t j = i;
            while (j < s.size() && identChar(s[j])) ++j;
            std::string word = s.substr(i, j - i);
            bool digit = false;
            for (char c : word) digit = digit || std::isdigit(static_cast<unsigned char>(c));
            if (word.size() >= 2 && word[0] == '0' && (word[1] == 'x' || word[1] == 'X')) {
                out += "0x?";  // an address
            } else if (word.size() >= 16 && digit) {
                out += "<hash>";  // a cache key or a generated file name
            } else {
                // Sizes, line and column numbers vary with the graph; the kind of error does not.
                for (size_t k = 0; k < word.size(); ++k) {
                    if (!std::isdigit(static_cast<unsigned char>(word[k]))) {
                        out += word[k];
                        continue;
                    }
                    out += 'N';
                    while (k + 1 < word.size() && std::isdigit(static_cast<unsigned char>(word[k + 1]))) ++k;
                }
            }
            i = j;
            continue;
        }
        out += s[i++];
    }
    return out;
}

Expected<TorchInfo> probeTorch(const std::string& python, const CheckSpec& check, double timeoutSeconds) {
    std::random_device rd;
    const fs::path dir =
        fs::temp_directory_path() / ("fxray-torch-probe-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return makeError("cannot create " + dir.string() + ": " + ec.message());
    struct Cleanup {
        fs::path d;
        ~Cleanup() {
            std::error_code e;
            fs::remove_all(d, e);
        }
    } cleanup{dir};
    std::ofstream(dir / "probe.py") << kProbeScript;
    std::vector<std::string> argv = {python, (dir / "probe.py").string()};
    for (const auto& [key, value] : check.inductorConfig) argv.push_back(key);
    SpawnOptions so;
    so.timeoutSeconds = timeoutSeconds;
    so.stdoutFile = dir / "out.txt";
    so.stderrFile = dir / "err.txt";
    ProcessResult pr = spawnAndWait(argv, so);
    const std::string out = slurp(dir / "out.txt");
    const std::string what = "the torch-compile check runs Python '" + python + "'";
    if (pr.end == ProcessResult::End::SpawnFailed)
        return makeError(what + ", which " + pr.describe() + ": install Python 3 and PyTorch (pip install torch), " +
                         "or point FXRAY_PYTHON (or --python) at a Python that has PyTorch");
    bool found = false;
    if (std::string why = taggedLine(out, "FXRAY_NO_TORCH ", &found); found)
        return makeError(what + ", which cannot import torch (" + why + "): " + kInstallHint);
    if (std::string key = taggedLine(out, "FXRAY_BAD_CONFIG ", &found); found)
        return makeError("--check '" + check.text + "': torch._inductor.config has no '" + key + "' in this PyTorch");
    std::string line = taggedLine(out, "FXRAY_TORCH ", &found);
    if (!found || pr.end != ProcessResult::End::Exited || pr.exitCode != 0) {
        std::string detail = lastLine(slurp(dir / "err.txt"));
        return makeError(what + ", which " + pr.describe() + " without answering" +
                         (detail.empty() ? std::string() : " (" + detail + ")") + ": " + kInstallHint);
    }
    TorchInfo info;
    info.python = python;
    std::istringstream ls(line);
    int cuda = 0;
    ls >> info.version >> cuda;
    info.cuda = cuda != 0;
    if (check.device == "cuda" && !info.cuda)
        return makeError("--check '" + check.text + "' asks for cuda, but PyTorch " + info.version + " under '" +
                         python + "' sees no CUDA device");
    return info;
}

QueryOutcome runTorchCheck(const fs::path& dir, const Graph& g, const std::vector<Value>& inputs,
                           const FailureSpec& spec, const CheckSpec& check, const std::string& python,
                           double timeoutSeconds) {
    QueryOutcome out;
    for (const auto& n : g.nodes())
        if (!pythonName(n->name()) || (n->kind() != NodeKind::Placeholder && n->kind() != NodeKind::Output &&
                                       !n->target().empty() && !pythonName(n->target()))) {
            out.kind = QueryOutcome::Kind::Error;
            out.message = "node '" + n->name() + "' (target '" + n->target() +
                          "') is not a Python name: not written into a script that runs";
            return out;
        }
    // Only fxray's own script runs: the candidate as torch.ops calls, written here.
    FailureSpec only = spec;
    only.checks = {check};
    {
        std::ofstream r(dir / "repro.py");
        r << reproScript(g, inputs, &only, "");
        if (!r) {
            out.kind = QueryOutcome::Kind::Error;
            out.message = "cannot write " + (dir / "repro.py").string();
            return out;
        }
    }
    SpawnOptions so;
    so.cwd = dir;
    so.timeoutSeconds = timeoutSeconds;
    so.stdoutFile = dir / "torch.out";
    so.stderrFile = dir / "torch.err";
    ProcessResult pr = spawnAndWait({python, (dir / "repro.py").string()}, so);
    out.seconds = pr.seconds;
    const std::string text = slurp(dir / "torch.out");
    bool found = false;
    const std::string failure = taggedLine(text, "FXRAY_FAILURE ", &found);
    if (pr.end == ProcessResult::End::Exited && pr.exitCode == 1 && found) {
        out.kind = QueryOutcome::Kind::Reproduced;
        out.signature = "torch-compile:" + check.backend + ":" + normalizeFailure(failure);
        out.message = "torch.compile(backend=" + check.backend + ") failed: " + failure;
        return out;
    }
    if (pr.end == ProcessResult::End::Exited && pr.exitCode == 0) {
        out.kind = QueryOutcome::Kind::Clean;
        out.message = "torch.compile(backend=" + check.backend + ") ran without error";
        return out;
    }
    if (std::string eager = taggedLine(text, "FXRAY_EAGER_FAILED ", &found); found) {
        out.kind = QueryOutcome::Kind::Clean;  // not the compiler's failure
        out.message = "eager PyTorch already fails on this graph: " + eager;
        return out;
    }
    switch (pr.end) {
    case ProcessResult::End::TimedOut: out.kind = QueryOutcome::Kind::Timeout; break;
    case ProcessResult::End::Signaled: out.kind = QueryOutcome::Kind::Crash; break;
    default: out.kind = QueryOutcome::Kind::Error; break;
    }
    std::string detail = lastLine(slurp(dir / "torch.err"));
    out.message = "python repro.py " + pr.describe() + (detail.empty() ? std::string() : ": " + detail);
    // A first compile builds Inductor's caches (C++ headers, the vector ISA probe): minutes, not seconds.
    if (pr.end == ProcessResult::End::TimedOut)
        out.message += " (a cold torch.compile can take minutes: raise --timeout)";
    return out;
}

}  // namespace fxray::minify
