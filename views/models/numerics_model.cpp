#include "models/numerics_model.h"

#include "graph/canvas_colors.h"

#include <QBrush>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>
#include <limits>

namespace fxray::views {

namespace {

/// nlohmann writes NaN and infinities as null: an error that is not a number.
double number(const QJsonValue& v) { return v.isDouble() ? v.toDouble() : std::numeric_limits<double>::quiet_NaN(); }

QString errText(double e) {
    if (std::isnan(e)) return QStringLiteral("nan");
    if (e == 0) return QStringLiteral("0");
    return QString::number(e, 'e', 2);
}

}  // namespace

bool NumericsReport::Row::ok() const {
    for (const Cell& c : cells)
        if (c.present && !c.ok) return false;
    return true;
}

double NumericsReport::Row::worst() const {
    double w = 0;
    for (const Cell& c : cells) {
        if (!c.present) continue;
        if (std::isnan(c.relErr)) return c.relErr;
        w = std::max(w, c.relErr);
    }
    return w;
}

QHash<QString, double> NumericsReport::worstByNode() const {
    QHash<QString, double> out;
    out.reserve(static_cast<qsizetype>(rows.size()));
    for (const Row& r : rows) out.insert(r.node, r.worst());
    return out;
}

std::optional<NumericsReport> NumericsReport::parse(const QByteArray& json, QString* error) {
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &pe);
    if (doc.isNull() || !doc.isObject()) {
        if (error)
            *error = pe.error != QJsonParseError::NoError
                         ? pe.errorString() + QStringLiteral(" at offset %1").arg(pe.offset)
                         : QStringLiteral("not a JSON object");
        return std::nullopt;
    }
    const QJsonObject o = doc.object();
    if (!o.contains(QLatin1String("backends")) || !o.value(QLatin1String("backends")).isArray()) {
        if (error) *error = QStringLiteral("no \"backends\" in compare's output");
        return std::nullopt;
    }
    NumericsReport r;
    r.ok = o.value(QLatin1String("ok")).toBool(true);
    r.graph = o.value(QLatin1String("graph")).toVariant().toString();
    for (const QJsonValue& b : o.value(QLatin1String("backends")).toArray()) r.backends << b.toString();
    for (const QJsonValue& v : o.value(QLatin1String("outputs")).toArray()) {
        const QJsonObject e = v.toObject();
        r.outputs.push_back({e.value(QLatin1String("index")).toInt(), e.value(QLatin1String("backend")).toString(),
                             number(e.value(QLatin1String("rel_err"))), number(e.value(QLatin1String("max_abs_err"))),
                             e.value(QLatin1String("ok")).toBool(true)});
    }
    const QStringList compared = r.compared();
    QHash<QString, size_t> rowOf;
    for (const QJsonValue& v : o.value(QLatin1String("node_errors")).toArray()) {
        const QJsonObject e = v.toObject();
        const QString node = e.value(QLatin1String("node")).toString();
        const int col = static_cast<int>(compared.indexOf(e.value(QLatin1String("backend")).toString()));
        if (node.isEmpty() || col < 0) continue;  // a backend the header does not list: nothing to show it under
        auto it = rowOf.constFind(node);
        size_t row;
        if (it == rowOf.constEnd()) {
            row = r.rows.size();
            rowOf.insert(node, row);
            Row nr;
            nr.node = node;
            nr.target = e.value(QLatin1String("target")).toString();
            nr.cells.resize(static_cast<size_t>(compared.size()));
            r.rows.push_back(std::move(nr));
        } else {
            row = *it;
        }
        Cell& c = r.rows[row].cells[static_cast<size_t>(col)];
        c.present = true;
        c.relErr = number(e.value(QLatin1String("rel_err")));
        c.maxAbsErr = number(e.value(QLatin1String("max_abs_err")));
        c.ok = e.value(QLatin1String("ok")).toBool(true);
    }
    const QJsonValue fd = o.value(QLatin1String("first_divergent_node"));
    if (fd.isObject()) {
        r.firstDivergentNode = fd.toObject().value(QLatin1String("node")).toString();
        r.firstDivergentBackend = fd.toObject().value(QLatin1String("backend")).toString();
        r.firstDivergentRelErr = number(fd.toObject().value(QLatin1String("rel_err")));
    }
    for (const QJsonValue& v : o.value(QLatin1String("output_shapes")).toArray()) {
        if (!v.isArray()) {
            r.outputShapes.emplace_back(std::nullopt);
            continue;
        }
        std::vector<qint64> shape;
        for (const QJsonValue& d : v.toArray()) shape.push_back(d.toInteger());
        r.outputShapes.emplace_back(std::move(shape));
    }
    // QJsonObject iterates its keys sorted, as sym::bindingStr prints them.
    const QJsonObject b = o.value(QLatin1String("binding")).toObject();
    for (auto it = b.begin(); it != b.end(); ++it)
        r.binding.emplace_back(it.key(), it.value().isDouble() &&
                                                 it.value().toDouble() != static_cast<double>(it.value().toInteger())
                                             ? QString::number(it.value().toDouble())
                                             : QString::number(it.value().toInteger()));
    return r;
}

QString NumericsReport::bindingText() const {
    QStringList parts;
    for (const auto& [sym, value] : binding) parts << sym + QLatin1Char('=') + value;
    return parts.join(QStringLiteral(", "));
}

// ---- model ------------------------------------------------------------------------------------

NumericsModel::NumericsModel(QObject* parent) : QAbstractTableModel(parent) {}

void NumericsModel::setReport(std::optional<NumericsReport> r) {
    beginResetModel();
    m_report = std::move(r);
    endResetModel();
}

int NumericsModel::rowOf(const QString& node) const {
    if (!m_report) return -1;
    for (size_t i = 0; i < m_report->rows.size(); ++i)
        if (m_report->rows[i].node == node) return static_cast<int>(i);
    return -1;
}

int NumericsModel::okColumn() const {
    return FirstErrorColumn + (m_report ? static_cast<int>(m_report->compared().size()) : 0);
}

int NumericsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !m_report ? 0 : static_cast<int>(m_report->rows.size());
}

int NumericsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : okColumn() + 1; }

QVariant NumericsModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) || !m_report) return {};
    const NumericsReport::Row& r = m_report->rows[static_cast<size_t>(index.row())];
    const int col = index.column();
    if (role == NodeNameRole) return r.node;
    if (col == NodeColumn) {
        if (role == Qt::DisplayRole || role == SortRole) return r.node;
        if (role == Qt::ToolTipRole && r.node == m_report->firstDivergentNode)
            return tr("first node where the backends diverge");
        return {};
    }
    if (col == OpColumn) return role == Qt::DisplayRole || role == SortRole ? QVariant(r.target) : QVariant();
    if (col == okColumn()) {
        if (role == Qt::DisplayRole) return r.ok() ? tr("ok") : tr("DIFFERS");
        if (role == SortRole) return r.ok() ? 1 : 0;
        return {};
    }
    const NumericsReport::Cell& c = r.cells[static_cast<size_t>(col - FirstErrorColumn)];
    if (!c.present) return role == SortRole ? QVariant(-1.0) : QVariant();
    switch (role) {
    case Qt::DisplayRole: return errText(c.relErr);
    // NaN sorts above everything: it is the worst error there is.
    case SortRole: return std::isnan(c.relErr) ? std::numeric_limits<double>::infinity() : c.relErr;
    case Qt::ToolTipRole: return tr("rel_err %1, max_abs_err %2").arg(errText(c.relErr), errText(c.maxAbsErr));
    case Qt::DecorationRole: return canvas_colors::heat(c.relErr, false);
    case Qt::TextAlignmentRole: return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    default: return {};
    }
}

QVariant NumericsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    if (section == NodeColumn) return tr("Node");
    if (section == OpColumn) return tr("Op");
    if (section == okColumn()) return tr("Agree");
    const QStringList compared = m_report ? m_report->compared() : QStringList();
    const int i = section - FirstErrorColumn;
    if (i >= 0 && i < compared.size()) return tr("rel_err %1").arg(compared[i]);
    return {};
}

}  // namespace fxray::views
