#include "cli/graph_svg.h"

#include "import/fx_text_reader.h"
#include "ir/graph.h"

#ifdef FXRAY_HAVE_GRAPHVIZ
#include <gvc.h>
#endif

#include <string>
#include <vector>

namespace fxray::cli {

namespace {

std::string dotEscape(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out;
}

/// Placeholders blue, outputs grey, calls white: the canvas's reading of a graph, in brief.
std::string dotOf(const Graph& g) {
    std::string d = "digraph fx {\n rankdir=TB;\n node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", "
                    "fontsize=10];\n"
                    " edge [arrowsize=0.6];\n";
    for (const auto& n : g.nodes()) {
        std::vector<std::string> lines;
        const char* fill = "#ffffff";
        if (n->kind() == NodeKind::Placeholder)
            fill = "#dde6f3";
        else if (n->kind() == NodeKind::Output)
            fill = "#e4e4e4";
        else if (n->kind() != NodeKind::GetAttr)
            lines.push_back(n->opName());
        lines.push_back(n->name());
        if (!n->meta.empty() && !n->metaIsTuple) lines.push_back(n->meta.front().annotation(false, false));
        std::string label;
        for (size_t i = 0; i < lines.size(); ++i) label += (i ? "\\n" : "") + dotEscape(lines[i]);
        d += " \"" + dotEscape(n->name()) + "\" [label=\"" + label + "\", fillcolor=\"" + fill + "\"];\n";
    }
    for (const auto& n : g.nodes())
        for (const Node* in : n->inputNodes())
            d += " \"" + dotEscape(in->name()) + "\" -> \"" + dotEscape(n->name()) + "\";\n";
    return d + "}\n";
}

}  // namespace

std::string fxGraphSvg(const std::string& fxText, std::string* why) {
    auto g = readFxText(fxText, "graph");
    if (!g.ok()) {
        if (why) *why = "not drawn: " + g.error().message;
        return {};
    }
    if ((*g)->size() > kMaxSvgNodes) {
        if (why)
            *why = "not drawn: " + std::to_string((*g)->size()) + " nodes (images stop at " +
                   std::to_string(kMaxSvgNodes) + ")";
        return {};
    }
#ifdef FXRAY_HAVE_GRAPHVIZ
    std::string dot = dotOf(**g);
    // One context for the process, never freed: Graphviz 2.42's pango plugin keeps a pointer into
    // the freed context's font table, so a second context reads freed memory (found by ASan).
    static GVC_t* const gvc = gvContext();
    if (!gvc) {
        if (why) *why = "not drawn: no Graphviz context";
        return {};
    }
    Agraph_t* ag = agmemread(dot.c_str());
    std::string svg;
    std::vector<char> engine{'d', 'o', 't', '\0'}, format{'s', 'v', 'g', '\0'};
    if (ag && gvLayout(gvc, ag, engine.data()) == 0) {
        char* buf = nullptr;
        unsigned int len = 0;
        if (gvRenderData(gvc, ag, format.data(), &buf, &len) == 0 && buf) svg.assign(buf, len);
        if (buf) gvFreeRenderData(buf);
        gvFreeLayout(gvc, ag);
    }
    if (ag) agclose(ag);
    if (svg.empty() && why) *why = "not drawn: Graphviz could not lay it out (dot or svg plugin missing?)";
    return svg;
#else
    if (why) *why = "not drawn: fxray was built without Graphviz";
    return {};
#endif
}

}  // namespace fxray::cli
