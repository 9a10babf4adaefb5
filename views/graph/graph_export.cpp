#include "graph/graph_export.h"

#include "graph/graph_scene.h"

#include <QFile>
#include <QImage>
#include <QPainter>
#include <QSvgGenerator>
#include <QTextStream>

#include <algorithm>

namespace fxray::views {

namespace {
QRectF exportRect(const GraphScene& s) { return s.graphRect().adjusted(-20, -20, 20, 20); }

QString dotEscape(QString s) {
    s.replace(QLatin1Char('\\'), QStringLiteral("\\\\"));
    s.replace(QLatin1Char('"'), QStringLiteral("\\\""));
    return s;
}
}  // namespace

bool exportSvg(GraphScene& scene, const QString& path, QString* error) {
    const QRectF r = exportRect(scene);
    if (r.isEmpty()) {
        if (error) *error = QObject::tr("Nothing to export");
        return false;
    }
    QSvgGenerator gen;
    gen.setFileName(path);
    gen.setSize(r.size().toSize());
    gen.setViewBox(QRectF(QPointF(0, 0), r.size()));
    gen.setTitle(QObject::tr("fxray graph"));
    QPainter p;
    if (!p.begin(&gen)) {
        if (error) *error = QObject::tr("Cannot write %1").arg(path);
        return false;
    }
    scene.setEdgesDrawn(true);  // the view may have turned them off while zoomed out
    scene.render(&p, QRectF(QPointF(0, 0), r.size()), r);
    p.end();
    return QFile(path).size() > 0;
}

bool exportPng(GraphScene& scene, const QString& path, int maxSide, QString* error) {
    const QRectF r = exportRect(scene);
    if (r.isEmpty()) {
        if (error) *error = QObject::tr("Nothing to export");
        return false;
    }
    const double k = std::min(2.0, maxSide / std::max(r.width(), r.height()));
    QImage img((r.size() * k).toSize().expandedTo(QSize(1, 1)), QImage::Format_ARGB32_Premultiplied);
    img.fill(scene.backgroundBrush().color());
    QPainter p(&img);
    p.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    scene.setEdgesDrawn(true);
    scene.render(&p, QRectF(QPointF(0, 0), img.size()), r);
    p.end();
    if (!img.save(path, "PNG")) {
        if (error) *error = QObject::tr("Cannot write %1").arg(path);
        return false;
    }
    return true;
}

QString toDot(const GraphScene& scene) {
    QString out;
    QTextStream ts(&out);
    ts << "digraph fxray {\n  rankdir=TB;\n  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\"];\n";
    const CanvasGraph* g = scene.graph();
    if (g) {
        for (size_t i = 0; i < g->nodes.size(); ++i) {
            const CanvasNode& n = g->nodes[i];
            const NodeItem* item = scene.nodeItem(static_cast<int>(i));
            ts << "  \"" << dotEscape(n.name) << "\" [label=\"" << dotEscape(n.op) << "\\n" << dotEscape(n.name);
            if (!n.type.isEmpty()) ts << "\\n" << dotEscape(n.type);
            ts << "\"";
            if (item && item->fill().isValid()) ts << ", fillcolor=\"" << item->fill().name() << "\"";
            ts << "];\n";
        }
        for (const CanvasEdge& e : g->edges)
            ts << "  \"" << dotEscape(g->nodes[static_cast<size_t>(e.from)].name) << "\" -> \""
               << dotEscape(g->nodes[static_cast<size_t>(e.to)].name) << "\" [tooltip=\"" << dotEscape(e.type)
               << "\"];\n";
        for (const NodeItem* ghost : scene.ghostItems())
            ts << "  \"" << dotEscape(ghost->name()) << "\" [label=\"" << dotEscape(ghost->node()->op) << "\\n"
               << dotEscape(ghost->name()) << "\", style=\"rounded,dashed\", color=\"" << ghost->fill().name()
               << "\"];\n";
    }
    ts << "}\n";
    return out;
}

bool exportDot(const GraphScene& scene, const QString& path, QString* error) {
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        if (error) *error = QObject::tr("Cannot write %1: %2").arg(path, f.errorString());
        return false;
    }
    f.write(toDot(scene).toUtf8());
    return true;
}

}  // namespace fxray::views
