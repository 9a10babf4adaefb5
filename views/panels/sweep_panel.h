#pragma once
/// The sweep pane: an `fxray sweep` results folder as a sortable, filterable table (status,
/// graph, message, largest error, seconds, worker/GPU) with the report's counts above it.
/// Activating a row (double-click or Enter) asks the window to open that graph and say why it
/// failed. Reload (F5 while the table has focus) re-reads the folder, so a sweep still running
/// can be watched.
#include <QString>
#include <QWidget>

class QCheckBox;
class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;

namespace fxray::views {

class SweepResultsModel;

class SweepPanel : public QWidget {
    Q_OBJECT
public:
    explicit SweepPanel(QWidget* parent = nullptr);

    /// Shows the results of `dir`; false (with the reason in the status label) when it has none.
    bool loadFolder(const QString& dir);
    QString folder() const { return m_dir; }

    SweepResultsModel* model() const { return m_model; }
    QSortFilterProxyModel* proxy() const { return m_proxy; }
    QTableView* view() const { return m_view; }
    QLabel* summaryLabel() const { return m_summary; }
    QCheckBox* failuresOnlyBox() const { return m_failuresOnly; }
    QLineEdit* filterEdit() const { return m_filter; }

Q_SIGNALS:
    /// A row was activated: the graph file, its status and its message.
    void graphActivated(const QString& file, const QString& status, const QString& message);

private:
    void activate(const QModelIndex& proxyIndex);
    void applyFilter();

    QString m_dir;
    SweepResultsModel* m_model = nullptr;
    QSortFilterProxyModel* m_proxy = nullptr;
    QTableView* m_view = nullptr;
    QLabel* m_summary = nullptr;
    QLineEdit* m_filter = nullptr;
    QCheckBox* m_failuresOnly = nullptr;
};

}  // namespace fxray::views
