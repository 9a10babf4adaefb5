// Graphviz dot through libgvc/libcgraph. Graphviz 2.42 takes `char*` everywhere, so every string
// is copied into a mutable buffer first. Graphviz is not thread-safe: the canvas runs all
// layouts on one worker thread.
#include "graph/graph_layout.h"

#include <QCoreApplication>
#include <QElapsedTimer>

#ifdef FXRAY_HAVE_GRAPHVIZ
#include <gvc.h>

#include <QMutex>
#include <QMutexLocker>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace fxray::views {

namespace {

/// A NUL-terminated mutable copy (Graphviz's API is not const-correct).
struct CStr {
    std::vector<char> buf;
    explicit CStr(const std::string& s) : buf(s.begin(), s.end()) { buf.push_back('\0'); }
    char* get() { return buf.data(); }
};

void setAttr(Agraph_t* g, int kind, const char* name, const std::string& value) {
    CStr n{std::string(name)}, v{value};
    agattr(g, kind, n.get(), v.get());
}

/// Graphviz is not thread-safe: every call into it holds this.
QMutex& graphvizLock() {
    static QMutex m;
    return m;
}

/// One Graphviz context for the whole process, never freed. Graphviz 2.42's pango plugin keeps a
/// pointer to the last font name it measured, which the context's font table owns: after
/// gvFreeContext the next context's first label compares against freed memory (ASan: a
/// heap-use-after-free in textspan_size). Later Graphviz copies the name; a context that lives as
/// long as the process is the fix for the version Debian ships.
GVC_t* sharedContext() {
    static GVC_t* const gvc = gvContext();
    return gvc;
}

/// dot's first Bezier of an edge in scene coordinates (y flipped), the arrow tip appended.
QPolygonF routeOf(Agedge_t* e) {
    QPolygonF poly;
    const splines* s = ED_spl(e);
    if (!s || s->size < 1) return poly;
    const bezier& b = s->list[0];
    for (int k = 0; k < b.size; ++k) poly << QPointF(b.list[k].x, -b.list[k].y);
    // Replace the clipped end with the arrow tip so the edge reaches the box.
    if (b.eflag) poly << QPointF(b.ep.x, -b.ep.y);
    return poly;
}

}  // namespace

namespace {

/// Graphviz's routes of `edges` (node index pairs) between boxes that stay where they are (`pos`:
/// centres, `sizes`), by edge; empty when Graphviz fails. The caller holds the lock.
std::vector<QPolygonF> routeBoxes(GVC_t* gvc, const std::vector<QPointF>& pos, const std::vector<QSizeF>& sizes,
                                  const std::vector<std::pair<int, int>>& edgeEnds) {
    std::vector<QPolygonF> out;
    CStr gname{std::string("g")};
    Agraph_t* g = agopen(gname.get(), Agdirected, nullptr);
    // Splines around the nodes, which stay where they are (neato -n, "nop").
    setAttr(g, AGRAPH, "splines", "spline");
    // Keep the given coordinates (neato moves a layout's corner to the origin by default).
    setAttr(g, AGRAPH, "notranslate", "true");
    setAttr(g, AGNODE, "shape", "box");
    setAttr(g, AGNODE, "fixedsize", "true");
    setAttr(g, AGNODE, "width", "1");
    setAttr(g, AGNODE, "height", "1");
    setAttr(g, AGNODE, "label", "");
    setAttr(g, AGNODE, "pos", "0,0");
    char num[64];
    std::vector<Agnode_t*> nodes(pos.size(), nullptr);
    for (size_t i = 0; i < pos.size(); ++i) {
        CStr id{"n" + std::to_string(i)};
        nodes[i] = agnode(g, id.get(), 1);
        auto set = [&](const char* name, const char* value) {
            CStr n{std::string(name)}, v{std::string(value)};
            agset(nodes[i], n.get(), v.get());
        };
        std::snprintf(num, sizeof num, "%.3f", sizes[i].width() / 72.0);
        set("width", num);
        std::snprintf(num, sizeof num, "%.3f", sizes[i].height() / 72.0);
        set("height", num);
        std::snprintf(num, sizeof num, "%.2f,%.2f!", pos[i].x(), -pos[i].y());
        set("pos", num);
    }
    std::vector<Agedge_t*> edges(edgeEnds.size(), nullptr);
    for (size_t i = 0; i < edgeEnds.size(); ++i) {
        CStr id{"e" + std::to_string(i)};
        edges[i] = agedge(g, nodes[static_cast<size_t>(edgeEnds[i].first)],
                          nodes[static_cast<size_t>(edgeEnds[i].second)], id.get(), 1);
    }
    CStr engine{std::string("nop")};
    if (gvLayout(gvc, g, engine.get()) == 0) {
        out.resize(edgeEnds.size());
        for (size_t i = 0; i < edges.size(); ++i) out[i] = routeOf(edges[i]);
        gvFreeLayout(gvc, g);
    }
    agclose(g);
    return out;
}

/// Distance from `c` to the segment a-b.
double distanceToSegment(QPointF c, QPointF a, QPointF b) {
    const QPointF ab = b - a;
    const double len2 = QPointF::dotProduct(ab, ab);
    const double t = len2 > 0 ? std::clamp(QPointF::dotProduct(c - a, ab) / len2, 0.0, 1.0) : 0.0;
    const QPointF d = c - (a + t * ab);
    return std::sqrt(QPointF::dotProduct(d, d));
}

}  // namespace

std::vector<QPolygonF> routeWithGraphviz(const CanvasGraph& cg, const std::vector<QPointF>& pos,
                                         const std::vector<QSizeF>& sizes) {
    const QMutexLocker lock(&graphvizLock());
    std::vector<QPolygonF> out;
    if (pos.size() != cg.nodes.size() || sizes.size() != cg.nodes.size()) return out;
    GVC_t* gvc = sharedContext();
    if (!gvc) return out;
    std::vector<std::pair<int, int>> ends;
    ends.reserve(cg.edges.size());
    for (const CanvasEdge& e : cg.edges) ends.emplace_back(e.from, e.to);
    out = routeBoxes(gvc, pos, sizes, ends);
    return out;
}

std::vector<QPolygonF> routeEdgesLocally(const CanvasGraph& cg, const std::vector<QPointF>& pos,
                                         const std::vector<QSizeF>& sizes, const std::vector<int>& which) {
    std::vector<QPolygonF> out(which.size());
    if (pos.size() != cg.nodes.size() || sizes.size() != cg.nodes.size()) return out;
    GVC_t* gvc = sharedContext();
    if (!gvc) return out;
    constexpr size_t kObstacles = 20;
    for (size_t k = 0; k < which.size(); ++k) {
        const CanvasEdge& e = cg.edges[static_cast<size_t>(which[k])];
        const size_t a = static_cast<size_t>(e.from), b = static_cast<size_t>(e.to);
        if (a == b) continue;
        // The boxes near the straight line between the ends: what a plain curve would cross.
        std::vector<std::pair<double, int>> near;
        for (size_t i = 0; i < pos.size(); ++i) {
            if (i == a || i == b) continue;
            const double reach =
                std::max(sizes[i].width(), sizes[i].height()) + std::max(sizes[a].width(), sizes[b].width()) / 2;
            const double d = distanceToSegment(pos[i], pos[a], pos[b]);
            if (d < reach) near.emplace_back(d, static_cast<int>(i));
        }
        if (near.size() > kObstacles) {
            std::nth_element(near.begin(), near.begin() + kObstacles, near.end());
            near.resize(kObstacles);
        }
        std::vector<QPointF> lp{pos[a], pos[b]};
        std::vector<QSizeF> ls{sizes[a], sizes[b]};
        for (const auto& [d, i] : near) {
            lp.push_back(pos[static_cast<size_t>(i)]);
            ls.push_back(sizes[static_cast<size_t>(i)]);
        }
        // One edge at a time, the lock taken for each: a block's dot layout may run in between.
        const QMutexLocker lock(&graphvizLock());
        std::vector<QPolygonF> r = routeBoxes(gvc, lp, ls, {{0, 1}});
        if (!r.empty()) out[k] = std::move(r.front());
    }
    return out;
}

GraphLayout layoutWithDot(const CanvasGraph& cg, const LayoutParams& p, QString* error,
                          const std::vector<QSizeF>& sizes) {
    const QMutexLocker lock(&graphvizLock());
    QElapsedTimer t;
    t.start();
    GraphLayout out;
    GVC_t* gvc = sharedContext();
    if (!gvc) {
        if (error) *error = QCoreApplication::translate("GraphLayout", "Graphviz: no context");
        return out;
    }
    CStr gname{std::string("g")};
    Agraph_t* g = agopen(gname.get(), Agdirected, nullptr);
    char num[32];
    std::snprintf(num, sizeof num, "%.3f", p.nodeWidth / 72.0);
    const std::string w = num;
    std::snprintf(num, sizeof num, "%.3f", p.nodeHeight / 72.0);
    const std::string h = num;
    std::snprintf(num, sizeof num, "%.3f", p.rankGap / 72.0);
    const std::string rs = num;
    std::snprintf(num, sizeof num, "%.3f", p.nodeGap / 72.0);
    const std::string ns = num;
    setAttr(g, AGRAPH, "rankdir", "TB");
    setAttr(g, AGRAPH, "ranksep", rs);
    setAttr(g, AGRAPH, "nodesep", ns);
    // Lower iteration limits: a little less pretty, several times faster on FX graphs.
    setAttr(g, AGRAPH, "mclimit", "0.3");
    setAttr(g, AGRAPH, "nslimit", "3");
    setAttr(g, AGRAPH, "nslimit1", "3");
    setAttr(g, AGRAPH, "searchsize", "20");
    setAttr(g, AGNODE, "shape", "box");
    setAttr(g, AGNODE, "fixedsize", "true");
    setAttr(g, AGNODE, "width", w);
    setAttr(g, AGNODE, "height", h);
    setAttr(g, AGNODE, "label", "");

    std::vector<Agnode_t*> nodes(cg.nodes.size(), nullptr);
    const bool sized = sizes.size() == cg.nodes.size();
    for (size_t i = 0; i < cg.nodes.size(); ++i) {
        CStr id{"n" + std::to_string(i)};
        nodes[i] = agnode(g, id.get(), 1);
        if (!sized) continue;
        std::snprintf(num, sizeof num, "%.3f", sizes[i].width() / 72.0);
        CStr wn{std::string("width")}, wv{std::string(num)};
        agset(nodes[i], wn.get(), wv.get());
        std::snprintf(num, sizeof num, "%.3f", sizes[i].height() / 72.0);
        CStr hn{std::string("height")}, hv{std::string(num)};
        agset(nodes[i], hn.get(), hv.get());
    }
    std::vector<Agedge_t*> edges(cg.edges.size(), nullptr);
    for (size_t i = 0; i < cg.edges.size(); ++i) {
        CStr id{"e" + std::to_string(i)};
        edges[i] = agedge(g, nodes[static_cast<size_t>(cg.edges[i].from)], nodes[static_cast<size_t>(cg.edges[i].to)],
                          id.get(), 1);
    }
    CStr engine{std::string("dot")};
    if (gvLayout(gvc, g, engine.get()) != 0) {
        if (error)
            *error = QCoreApplication::translate("GraphLayout", "Graphviz: the dot layout plugin is not available");
        agclose(g);
        return out;
    }
    // Graphviz's y axis points up; the scene's points down.
    out.pos.resize(cg.nodes.size());
    for (size_t i = 0; i < nodes.size(); ++i) {
        const pointf c = ND_coord(nodes[i]);
        out.pos[i] = QPointF(c.x, -c.y);
    }
    out.routes.resize(cg.edges.size());
    for (size_t i = 0; i < edges.size(); ++i) out.routes[i] = routeOf(edges[i]);
    gvFreeLayout(gvc, g);
    agclose(g);
    out.engine = QStringLiteral("dot");
    out.ms = static_cast<double>(t.nsecsElapsed()) / 1e6;
    return out;
}

}  // namespace fxray::views
#else
namespace fxray::views {
std::vector<QPolygonF> routeWithGraphviz(const CanvasGraph&, const std::vector<QPointF>&, const std::vector<QSizeF>&) {
    return {};
}
std::vector<QPolygonF> routeEdgesLocally(const CanvasGraph&, const std::vector<QPointF>&, const std::vector<QSizeF>&,
                                         const std::vector<int>& which) {
    return std::vector<QPolygonF>(which.size());
}
GraphLayout layoutWithDot(const CanvasGraph&, const LayoutParams&, QString* error, const std::vector<QSizeF>&) {
    if (error) *error = QCoreApplication::translate("GraphLayout", "built without Graphviz");
    return {};
}
}  // namespace fxray::views
#endif
