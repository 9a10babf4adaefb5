#pragma once
/// The results of an `fxray sweep` (one JSON per graph in a results folder) as a table: status,
/// graph, message, largest output error, seconds, worker and GPU. Sorting uses SortRole (numbers
/// as numbers); FileRole gives the graph file of any cell of the row, StatusRole its status.
#include <QAbstractTableModel>
#include <QString>

#include <nlohmann/json.hpp>

#include <vector>

namespace fxray::views {

class SweepResultsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Status, Graph, Message, MaxRelErr, Seconds, Worker, ColumnCount };
    enum Role { SortRole = Qt::UserRole + 1, FileRole, StatusRole, IdRole };

    explicit SweepResultsModel(QObject* parent = nullptr);
    /// Reads every result of `dir`; false (and nothing changed) when it holds none.
    bool load(const QString& dir);
    void setResults(std::vector<nlohmann::json> results);
    const std::vector<nlohmann::json>& results() const { return m_results; }
    /// "24 graphs: 20 ok, 3 differ, 1 unsupported, ..." (the report's counts, translated).
    QString summary() const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    /// A folder that holds sweep results (a quick look at its .json files).
    static bool isResultsFolder(const QString& dir);

private:
    std::vector<nlohmann::json> m_results;
};

}  // namespace fxray::views
