// fxray report TRACE --out DIR: the story of a torch.compile run (its TORCH_TRACE log or folder)
// as a self-contained Markdown report with the graphs it references, to attach to a bug.
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/common.h"
#include "cli/graph_svg.h"

#include "import/compile_story.h"
#include "import/compile_story_format.h"
#include "import/compile_story_report.h"

#include <nlohmann/json.hpp>

namespace fxray::cli {

namespace {
const char* kReportUsage =
    "usage: fxray report TRACE --out DIR [--json]\n"
    "  TRACE: a TORCH_TRACE .log file or folder (several ranks are grouped by rank)\n"
    "  writes DIR/report.md (compile tree, graph breaks with user lines, recompile reasons,\n"
    "  failures with stacks, timings, kernels), DIR/graphs/*.py (the graphs the log holds) and\n"
    "  DIR/graphs/*.svg (their pictures, drawn with Graphviz; graphs over 250 nodes are not drawn)\n";
}  // namespace

int cmdReport(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    std::string perr;
    auto a = parseArgs(argv, {"--out"}, {"--json", "--help"}, perr);
    if (!a) return reportError(err, makeError(perr));
    if (a->has("--help")) {
        out << kReportUsage;
        return Ok;
    }
    if (a->positional.size() != 1) return reportError(err, makeError("report takes one TRACE"));
    if (!a->has("--out")) return reportError(err, makeError("report needs --out DIR"));
    CompileStoryOptions opts;
    opts.keepGraphs = true;
    auto story = readCompileStory(a->positional[0], opts);
    if (!story.ok()) return reportError(err, story.error());
    if (story->compiles.empty() && story->raw.empty())
        return reportError(err, makeError("no TORCH_TRACE records in " + a->positional[0]));
    std::vector<std::string> written;
    // Graph pictures: SVG through libgvc beside each graph's FX text.
    GraphImageRenderer svg = [](const std::string& fxText) {
        GraphImage img;
        img.bytes = fxGraphSvg(fxText, &img.why);
        return img;
    };
    if (auto st = writeCompileReport(*story, a->positional[0], a->get("--out"), &written, svg); !st.ok())
        return reportError(err, st.error());
    if (a->has("--json")) {
        nlohmann::json j = {{"report", written.front()}, {"files", written}, {"summary", compileStorySummary(*story)}};
        out << j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
        return Ok;
    }
    out << compileStorySummary(*story) << "\n";
    out << "wrote " << written.front() << " and " << (written.size() - 1) << " graph file"
        << (written.size() == 2 ? "" : "s") << " (FX text and SVG)\n";
    return Ok;
}

}  // namespace fxray::cli
