#include "graph/node_overlay.h"

#include "graph/canvas_colors.h"
#include "partition/partitioner.h"
#include "pass/compile_trace.h"

#include <QCoreApplication>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>

#include <algorithm>
#include <cmath>
#include <limits>

namespace fxray::views {

double NodeOverlay::position(double v) const {
    if (!std::isfinite(v)) return 1.0;
    double x = v, lo = low, hi = high;
    if (logScale) {
        // Zero and below sit at the low end (an exact match is the best a value can be).
        x = v > 0 ? std::log10(v) : -std::numeric_limits<double>::infinity();
        lo = std::log10(std::max(low, 1e-300));
        hi = std::log10(std::max(high, 1e-300));
    }
    if (!(hi > lo)) return x >= hi ? 1.0 : 0.0;
    return std::clamp((x - lo) / (hi - lo), 0.0, 1.0);
}

double NodeOverlay::valueAt(double t) const {
    if (logScale) {
        const double lo = std::log10(std::max(low, 1e-300)), hi = std::log10(std::max(high, 1e-300));
        return std::pow(10.0, lo + t * (hi - lo));
    }
    return low + t * (high - low);
}

QColor NodeOverlay::colour(double v, bool dark) const {
    if (!std::isfinite(v)) return canvas_colors::heat(v, dark);  // the magenta of NaN/inf
    return canvas_colors::gradient(position(v), dark);
}

std::optional<double> NodeOverlay::aggregateOf(const CanvasGraph& g, const std::vector<int>& nodes) const {
    std::optional<double> out;
    for (int i : nodes) {
        if (i < 0 || static_cast<size_t>(i) >= g.nodes.size()) continue;
        const auto it = values.constFind(g.nodes[static_cast<size_t>(i)].name);
        if (it == values.constEnd()) continue;
        const double v = *it;
        if (!out)
            out = v;
        else if (aggregate == Aggregate::Sum)
            *out += v;
        // NaN wins a max: a block hiding a NaN must not look fine.
        else if (std::isnan(v) || v > *out)
            out = v;
    }
    return out;
}

QString NodeOverlay::format(double v) const {
    if (!categories.isEmpty()) {
        const auto k = static_cast<qsizetype>(std::llround(v));
        return k >= 1 && k <= categories.size() ? categories[k - 1] : QString();
    }
    const QString num = logScale || std::abs(v) >= 1e6 || (v != 0 && std::abs(v) < 1e-3)
                            ? QString::number(v, 'g', 3)
                            : QLocale().toString(v, 'f', std::abs(v) >= 100 ? 0 : 3);
    return unit.isEmpty() ? num : num + QLatin1Char(' ') + unit;
}

namespace {

double maxOf(const QHash<QString, double>& values) {
    double m = 0;
    for (double v : values)
        if (std::isfinite(v)) m = std::max(m, v);
    return m;
}

}  // namespace

NodeOverlay NodeOverlay::numericError(QHash<QString, double> relErr) {
    NodeOverlay o;
    o.title = QCoreApplication::translate("NodeOverlay", "numeric error (relative)");
    o.values = std::move(relErr);
    o.low = std::pow(10.0, canvas_colors::kHeatLow);
    o.high = std::pow(10.0, canvas_colors::kHeatHigh);
    o.logScale = true;
    return o;
}

NodeOverlay NodeOverlay::kernelTime(QHash<QString, double> ms) {
    NodeOverlay o;
    o.title = QCoreApplication::translate("NodeOverlay", "kernel time");
    o.unit = QStringLiteral("ms");
    o.high = maxOf(ms);
    o.values = std::move(ms);
    return o;
}

std::optional<NodeOverlay> NodeOverlay::kernelTimeFromBench(const QString& path, QString* error) {
    const auto fail = [&](const QString& why) {
        if (error) *error = path + QStringLiteral(": ") + why;
        return std::nullopt;
    };
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return fail(QCoreApplication::translate("NodeOverlay", "cannot open: %1").arg(f.errorString()));
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &pe);
    if (pe.error != QJsonParseError::NoError)
        return fail(
            QCoreApplication::translate("NodeOverlay", "not JSON at byte %1: %2").arg(pe.offset).arg(pe.errorString()));
    const QJsonValue steps = doc.object().value(QStringLiteral("steps"));
    if (!steps.isArray())
        return fail(
            QCoreApplication::translate("NodeOverlay", "no \"steps\" array: not the output of fxray bench --json"));
    QHash<QString, double> ms;
    const QJsonArray a = steps.toArray();
    for (qsizetype i = 0; i < a.size(); ++i) {
        const QJsonObject st = a[i].toObject();
        const QJsonValue t = st.value(QStringLiteral("ms"));
        const QJsonValue nodes = st.value(QStringLiteral("nodes"));
        if (!t.isDouble() || !nodes.isArray())
            return fail(
                QCoreApplication::translate("NodeOverlay", "step %1 has no \"ms\" number or \"nodes\" list").arg(i));
        for (const QJsonValue& n : nodes.toArray()) ms.insert(n.toString(), t.toDouble());
    }
    return kernelTime(std::move(ms));
}

NodeOverlay NodeOverlay::savedBytes(QHash<QString, double> bytes) {
    NodeOverlay o;
    o.title = QCoreApplication::translate("NodeOverlay", "saved for backward");
    o.unit = QStringLiteral("B");
    o.high = maxOf(bytes);
    o.values = std::move(bytes);
    o.aggregate = Aggregate::Sum;
    return o;
}

NodeOverlay NodeOverlay::savedBytes(const PartitionResult& partition) {
    QHash<QString, double> bytes;
    for (const SavedValue& v : partition.saved)
        bytes.insert(QString::fromStdString(v.name), static_cast<double>(v.bytes));
    return savedBytes(std::move(bytes));
}

NodeOverlay NodeOverlay::lastChangedBy(const CompileTrace& trace, int passIndex) {
    NodeOverlay o;
    o.title = QCoreApplication::translate("NodeOverlay", "last changed by");
    const int last = std::min(passIndex, static_cast<int>(trace.passes.size()) - 1);
    for (int i = 0; i <= last; ++i) {
        const PassRecord& p = trace.passes[static_cast<size_t>(i)];
        o.categories << QString::fromStdString(p.name);
        for (const ProvenanceEvent& e : p.events) {
            if (!e.graph.empty()) continue;  // the canvas shows the top graph
            // Created: the node is new; Replaced: its users now read the replacement.
            if (e.kind == ProvenanceEvent::Kind::Created)
                o.values.insert(QString::fromStdString(e.node), i + 1);
            else if (e.kind == ProvenanceEvent::Kind::Replaced && !e.replacement.empty())
                o.values.insert(QString::fromStdString(e.replacement), i + 1);
        }
    }
    o.low = 1;
    o.high = std::max(1, last + 1);
    return o;
}

std::vector<int> clusterNodes(const CanvasGraph& g, int cluster) {
    if (cluster < 0 || static_cast<size_t>(cluster) >= g.clusters.size()) return {};
    return g.clusters[static_cast<size_t>(cluster)].nodes;
}

std::vector<int> stackNodes(const CanvasGraph& g, int stack) {
    std::vector<int> out;
    if (stack < 0 || static_cast<size_t>(stack) >= g.stacks.size()) return out;
    for (int c : g.stacks[static_cast<size_t>(stack)].clusters) {
        const auto n = clusterNodes(g, c);
        out.insert(out.end(), n.begin(), n.end());
    }
    return out;
}

}  // namespace fxray::views
