#pragma once
/// The numerics panel's data: what `fxray compare FILE --backends ref,cpu[,cuda] --json` printed
/// (its "outputs", "node_errors", "first_divergent_node", "output_shapes" and "binding" keys;
/// docs/CLI.md), parsed into a
/// NumericsReport, and a table model of it with one row per compared node: node, op, rel_err per
/// backend (against the first backend) and whether every backend agreed. SortRole gives numbers
/// so a QSortFilterProxyModel sorts rel_err numerically; NodeNameRole gives the row's node.
#include <QAbstractTableModel>
#include <QHash>
#include <QStringList>

#include <optional>
#include <utility>
#include <vector>

namespace fxray::views {

struct NumericsReport {
    struct Output {
        int index = 0;
        QString backend;
        double relErr = 0, maxAbsErr = 0;
        bool ok = true;
    };
    struct Cell {
        double relErr = 0, maxAbsErr = 0;
        bool ok = true;
        bool present = false;
    };
    struct Row {
        QString node, target;
        std::vector<Cell> cells;  ///< one per compared backend (backends[1..])
        bool ok() const;
        double worst() const;  ///< largest rel_err over the backends (NaN wins)
    };

    bool ok = true;
    QString graph;
    QStringList backends;  ///< backends[0] is what the others are compared with
    std::vector<Output> outputs;
    std::vector<Row> rows;  ///< graph order
    QString firstDivergentNode, firstDivergentBackend;
    double firstDivergentRelErr = 0;
    /// The first backend's output shapes; an empty entry for a non-tensor output (a SymInt).
    std::vector<std::optional<std::vector<qint64>>> outputShapes;
    /// Dynamic shapes: the symbols' values the run used (symbol, value), sorted by name; empty
    /// for a static graph or an older fxray.
    std::vector<std::pair<QString, QString>> binding;

    /// "s23=5, s27=32", or empty.
    QString bindingText() const;

    /// The compared backends (all but the first).
    QStringList compared() const { return backends.mid(1); }
    /// Node -> worst rel_err: what the canvas's heat map colours.
    QHash<QString, double> worstByNode() const;

    /// Parses compare's JSON; nullopt with `error` on malformed input. A missing "node_errors"
    /// key (an older fxray) gives no rows, not an error.
    static std::optional<NumericsReport> parse(const QByteArray& json, QString* error);
};

class NumericsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Role { NodeNameRole = Qt::UserRole + 1, SortRole };
    enum Column { NodeColumn, OpColumn, FirstErrorColumn };

    explicit NumericsModel(QObject* parent = nullptr);
    void setReport(std::optional<NumericsReport> r);
    const NumericsReport* report() const { return m_report ? &*m_report : nullptr; }
    /// Row of `node`, or -1.
    int rowOf(const QString& node) const;
    /// The "ok" column (after the rel_err columns).
    int okColumn() const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::optional<NumericsReport> m_report;
};

}  // namespace fxray::views
