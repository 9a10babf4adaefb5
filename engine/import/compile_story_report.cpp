#include "import/compile_story_report.h"

#include "import/compile_story_format.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>

namespace fxray {

namespace fs = std::filesystem;

namespace {

/// Raw entries listed in the report; the rest are counted.
constexpr size_t kRawListed = 20;

std::string fmtSeconds(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", s);
    return buf;
}

/// Text safe inside a Markdown table cell.
std::string cell(std::string s) {
    std::string out;
    for (char c : s) {
        if (c == '|')
            out += "\\|";
        else if (c == '\n')
            out += "<br>";
        else
            out += c;
    }
    return out;
}

/// A fenced code block whose fence is longer than any backtick run inside.
std::string fenced(const std::string& body, const std::string& lang = "") {
    size_t run = 0, longest = 0;
    for (char c : body) {
        run = c == '`' ? run + 1 : 0;
        longest = std::max(longest, run);
    }
    std::string fence(std::max<size_t>(3, longest + 1), '`');
    std::string out = fence + lang + "\n" + body;
    if (!body.empty() && body.back() != '\n') out += "\n";
    return out + fence + "\n";
}

std::string where(const UserFrame& f) {
    if (f.file.empty()) return "(unknown)";
    return "`" + f.file + ":" + std::to_string(f.line) + "`";
}

std::string label(const CompileEntry& e, bool multiRank) {
    return multiRank ? "rank " + std::to_string(e.rank) + " [" + e.id + "]" : "[" + e.id + "]";
}

std::string fileSafe(std::string s) {
    for (char& c : s)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) c = '_';
    return s;
}

}  // namespace

std::string compileReportMarkdown(const CompileStory& s, const std::string& title,
                                  const std::vector<std::vector<std::string>>& graphPaths,
                                  const std::vector<std::vector<GraphImage>>& images) {
    std::string md = "# torch.compile report: " + title + "\n\n";
    md += compileStorySummary(s) + ".\n\n";
    md += "Written by fxray from the TORCH_TRACE log";
    md += s.files.size() == 1 ? "" : "s";
    md += ":\n\n";
    for (const auto& f : s.files) md += "- `" + f + "`\n";

    md += "\n## Compile tree\n\nThe stacks that started each compile (common frames merged, as tlparse's "
          "stack trie), then each compile id with its status.\n\n";
    md += fenced(compileStoryTree(s, true));

    md += "\n## Graph breaks\n\n";
    if (s.graphBreaks.empty()) md += "None.\n";
    for (size_t i = 0; i < s.graphBreaks.size(); ++i) {
        const GraphBreak& b = s.graphBreaks[i];
        md += "### " + std::to_string(i + 1) + ". " + b.reason + "\n\n";
        md += "At " + where(b.userFrame) + (b.userFrame.name.empty() ? "" : " in `" + b.userFrame.name + "`") +
              ", logged " + std::to_string(b.count) + " time" + (b.count == 1 ? "" : "s") + " (compile";
        md += b.compileIds.size() == 1 ? " " : "s ";
        for (size_t k = 0; k < b.compileIds.size(); ++k) md += (k ? ", " : "") + b.compileIds[k];
        md += ").\n\n";
        if (!b.userFrame.code.empty()) md += fenced(b.userFrame.code, "python");
        if (!b.detail.empty()) md += "\n" + fenced(b.detail);
        md += "\n";
    }

    md += "\n## Recompiles and guards\n\n";
    bool anyRecompile = false;
    for (const auto& e : s.compiles) {
        if (e.recompileReasons.empty() && e.failedGuards.empty()) continue;
        anyRecompile = true;
        md += "- " + label(e, s.multiRank) + " (" + std::to_string(e.guardCount.value_or(0)) + " guards)\n";
        for (const auto& r : e.recompileReasons) md += "  - recompiled because: `" + r + "`\n";
        for (const auto& g : e.failedGuards) md += "  - its guard failed later: `" + g + "`\n";
    }
    for (const auto& e : s.compiles)
        for (const auto& sym : e.symbols) {
            md += "- symbol `" + sym.name + "` of " + label(e, s.multiRank) + " = " + sym.hint +
                  (sym.source.empty() ? "" : " from `" + sym.source + "`") +
                  (sym.range.empty() ? "" : " in " + sym.range) +
                  (sym.specialized ? " (specialized: " + sym.reason + ")" : "") + "\n";
            anyRecompile = true;
        }
    if (!anyRecompile) md += "None.\n";

    md += "\n## Failures\n\n";
    bool anyFailure = false;
    for (const auto& e : s.compiles) {
        if (!e.failure) continue;
        anyFailure = true;
        const CompileFailure& f = *e.failure;
        md += "### " + label(e, s.multiRank) + " " + (f.type.empty() ? "failed" : f.type) + "\n\n";
        md += fenced(f.message);
        if (!f.userFrame.file.empty()) md += "\nUser frame: " + where(f.userFrame) + "\n";
        if (!f.stack.empty()) {
            std::string st;
            for (const auto& fr : f.stack) st += fr + "\n";
            md += "\nStack (outermost first):\n\n" + fenced(st);
        }
        md += "\n";
    }
    if (!anyFailure) md += "None.\n";

    md += "\n## Timings (seconds)\n\n";
    std::vector<std::string> phases;
    std::set<std::string> seen;
    for (const auto& e : s.compiles)
        for (const auto& [k, v] : e.metrics)
            if (seen.insert(k).second) phases.push_back(k);
    std::vector<const CompileEntry*> timed;
    for (const auto& e : s.compiles)
        if (!e.metrics.empty()) timed.push_back(&e);
    if (timed.empty()) {
        md += "No compilation metrics in the log.\n";
    } else {
        md += "| phase |";
        for (const auto* e : timed) md += " " + cell(label(*e, s.multiRank)) + " |";
        md += "\n|---|";
        for (size_t k = 0; k < timed.size(); ++k) md += "---:|";
        md += "\n";
        for (const auto& p : phases) {
            md += "| " + p + " |";
            for (const auto* e : timed) {
                std::string v;
                for (const auto& [k, x] : e->metrics)
                    if (k == p) v = fmtSeconds(x);
                md += " " + v + " |";
            }
            md += "\n";
        }
    }

    md += "\n## Kernels\n\n";
    bool anyKernel = false;
    for (const auto& e : s.compiles) {
        if (e.kernels.empty()) continue;
        anyKernel = true;
        md += "- " + label(e, s.multiRank) + "\n";
        for (const auto& k : e.kernels) {
            md += "  - `" + k.name + "`";
            if (!k.nodes.empty()) {
                md += " <- ";
                for (size_t i = 0; i < k.nodes.size(); ++i) md += (i ? ", " : "") + k.nodes[i];
            }
            md += "\n";
        }
    }
    if (!anyKernel) md += "None logged.\n";

    md += "\n## Graphs\n\nAs the trace logged them, in PyTorch's `print_readable` form.\n\n";
    bool anyGraph = false;
    for (size_t i = 0; i < s.compiles.size() && i < graphPaths.size(); ++i) {
        const CompileEntry& e = s.compiles[i];
        for (size_t k = 0; k < e.graphs.size() && k < graphPaths[i].size(); ++k) {
            md += "- " + label(e, s.multiRank) + " " + e.graphs[k].first + ": [" + graphPaths[i][k] + "](" +
                  graphPaths[i][k] + ")\n";
            if (i < images.size() && k < images[i].size()) {
                const GraphImage& img = images[i][k];
                // Pictures inline for what Dynamo captured and what Inductor compiled; the stages
                // in between are linked, or the report is mostly near-identical pictures.
                const std::string& st = e.graphs[k].first;
                const bool inline_ = st == "dynamo_output_graph" || st == "inductor_post_grad_graph";
                if (!img.bytes.empty() && inline_)
                    md += "\n  ![" + e.id + " " + st + "](" + img.path + ")\n\n";
                else if (!img.bytes.empty())
                    md += "  picture: [" + img.path + "](" + img.path + ")\n";
                else if (!img.why.empty())
                    md += "  (" + img.why + ")\n";
            }
            anyGraph = true;
        }
    }
    if (!anyGraph) md += "None.\n";

    if (!s.raw.empty() || s.rawDropped) {
        md += "\n## Records fxray did not interpret\n\n";
        for (size_t i = 0; i < s.raw.size() && i < kRawListed; ++i) {
            const auto& r = s.raw[i];
            md += "- `" + r.file + ":" + std::to_string(r.line) + "` " + r.why +
                  (r.kind.empty() ? "" : " (`" + r.kind + "`)") + "\n";
        }
        size_t more = s.raw.size() + s.rawDropped - std::min(s.raw.size(), kRawListed);
        if (more) md += "- ... and " + std::to_string(more) + " more\n";
    }
    return md;
}

Status writeCompileReport(const CompileStory& s, const std::string& title, const fs::path& dir,
                          std::vector<std::string>* written, const GraphImageRenderer& render) {
    std::error_code ec;
    fs::create_directories(dir / "graphs", ec);
    if (ec) {
        Diagnostic d = makeError("cannot create the report folder: " + ec.message());
        d.file = dir.string();
        return d;
    }
    std::vector<std::vector<std::string>> paths(s.compiles.size());
    std::vector<std::vector<GraphImage>> images(render ? s.compiles.size() : 0);
    std::vector<std::string> files;
    std::set<std::string> used;
    for (size_t i = 0; i < s.compiles.size(); ++i) {
        const CompileEntry& e = s.compiles[i];
        for (const auto& [stage, text] : e.graphs) {
            std::string base =
                (s.multiRank ? "rank" + std::to_string(e.rank) + "_" : "") + fileSafe(e.id) + "_" + fileSafe(stage);
            std::string name = base + ".py";
            for (int n = 2; used.count(name); ++n) name = base + "_" + std::to_string(n) + ".py";
            used.insert(name);
            std::string rel = "graphs/" + name;
            std::ofstream o(dir / rel, std::ios::binary);
            o << text << "\n";
            if (!o) {
                Diagnostic d = makeError("cannot write " + rel);
                d.file = dir.string();
                return d;
            }
            paths[i].push_back(rel);
            files.push_back((dir / rel).string());
            if (!render) continue;
            // The image beside its .py, same name.
            GraphImage img = render(text);
            if (!img.bytes.empty()) {
                std::string imgRel = rel.substr(0, rel.size() - 3) + "." + img.suffix;
                std::ofstream io(dir / imgRel, std::ios::binary);
                io << img.bytes;
                if (!io) {
                    Diagnostic d = makeError("cannot write " + imgRel);
                    d.file = dir.string();
                    return d;
                }
                img.path = imgRel;
                files.push_back((dir / imgRel).string());
            }
            images[i].push_back(std::move(img));
        }
    }
    std::ofstream md(dir / "report.md", std::ios::binary);
    md << compileReportMarkdown(s, title, paths, images);
    if (!md) {
        Diagnostic d = makeError("cannot write report.md");
        d.file = dir.string();
        return d;
    }
    if (written) {
        written->clear();
        written->push_back((dir / "report.md").string());
        written->insert(written->end(), files.begin(), files.end());
    }
    return Status::success();
}

}  // namespace fxray
