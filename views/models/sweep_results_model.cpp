#include "models/sweep_results_model.h"

#include "sweep/sweep.h"

#include <QBrush>
#include <QColor>
#include <QDir>
#include <QFile>

#include <map>

namespace fxray::views {

using nlohmann::json;

SweepResultsModel::SweepResultsModel(QObject* parent) : QAbstractTableModel(parent) {}

bool SweepResultsModel::isResultsFolder(const QString& dir) {
    const QDir d(dir);
    if (!d.exists()) return false;
    // A few files decide: results are the folder's .json files, each with id, status and check.
    const QStringList files = d.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
    int seen = 0;
    for (const QString& f : files) {
        if (++seen > 3) break;
        QFile in(d.filePath(f));
        if (!in.open(QIODevice::ReadOnly)) continue;
        json j = json::parse(in.read(1 << 20).toStdString(), nullptr, false);
        if (j.is_object() && j.contains("id") && j.contains("status") && j.contains("check")) return true;
    }
    return false;
}

bool SweepResultsModel::load(const QString& dir) {
    auto results = sweep::readResults(dir.toStdString());
    if (results.empty()) return false;
    setResults(std::move(results));
    return true;
}

void SweepResultsModel::setResults(std::vector<json> results) {
    beginResetModel();
    m_results = std::move(results);
    endResetModel();
}

QString SweepResultsModel::summary() const {
    std::map<std::string, int> n;
    for (const auto& r : m_results) ++n[sweep::statusOf(r)];
    return tr("%n graph(s): %1 ok, %2 differ, %3 unsupported, %4 errors, %5 crashes, %6 timeouts", nullptr,
              static_cast<int>(m_results.size()))
        .arg(n["ok"])
        .arg(n["differ"])
        .arg(n["unsupported"])
        .arg(n["error"])
        .arg(n["crash"])
        .arg(n["timeout"]);
}

int SweepResultsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_results.size());
}

int SweepResultsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant SweepResultsModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const json& r = m_results[static_cast<size_t>(index.row())];
    const QString status = QString::fromStdString(sweep::statusOf(r));
    if (role == FileRole) return QString::fromStdString(r.value("file", ""));
    if (role == StatusRole) return status;
    if (role == IdRole) return QString::fromStdString(r.value("id", ""));
    const double relErr = r.value("max_rel_err", 0.0), seconds = r.value("seconds", 0.0);
    if (role == Qt::DisplayRole || role == SortRole) {
        switch (index.column()) {
        case Status: return status;
        case Graph: return QString::fromStdString(r.value("id", ""));
        case Message: return QString::fromStdString(r.value("message", ""));
        case MaxRelErr:
            if (role == SortRole) return relErr;
            return r.contains("max_rel_err") ? QString::number(relErr, 'e', 2) : QString();
        case Seconds:
            if (role == SortRole) return seconds;
            return QString::number(seconds, 'f', 3);
        case Worker: {
            const QString w = QString::number(r.value("worker", 0));
            return r.contains("gpu") ? tr("%1 (GPU %2)").arg(w, QString::fromStdString(r.value("gpu", ""))) : w;
        }
        }
    }
    if (role == Qt::ToolTipRole && index.column() == Message) return QString::fromStdString(r.value("message", ""));
    if (role == Qt::ForegroundRole && index.column() == Status) {
        if (status == QLatin1String("ok")) return QBrush(QColor(0x2e, 0x7d, 0x32));
        if (status == QLatin1String("unsupported")) return QBrush(QColor(0x9e, 0x7b, 0x00));
        return QBrush(QColor(0xc6, 0x28, 0x28));
    }
    return {};
}

QVariant SweepResultsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case Status: return tr("Status");
    case Graph: return tr("Graph");
    case Message: return tr("Message");
    case MaxRelErr: return tr("Max rel. error");
    case Seconds: return tr("Seconds");
    case Worker: return tr("Worker");
    }
    return {};
}

}  // namespace fxray::views
