#pragma once
/// The pass timeline as a table: one row per pass run of a CompileTrace (subgraph runs
/// included, in run order), with its subgraph, time, node counts and outcome. Failed passes are
/// red with their message as tooltip; the pass the Document shows is bold. The filter for
/// "changed passes only" is ChangedPassFilter, a proxy on top of this model.
#include <QAbstractTableModel>

#include <memory>

namespace fxray {
struct CompileTrace;
}

namespace fxray::views {

class PassTimelineModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { ColIndex, ColName, ColGraph, ColMs, ColNodes, ColStatus, ColumnCount };
    enum Role {
        PassIndexRole = Qt::UserRole + 1,  ///< int: index into trace->passes
        ChangedRole,                       ///< bool
        FailedRole,                        ///< bool
        SkippedRole,                       ///< bool
        ErrorRole,                         ///< QString: why it failed
        MsRole,                            ///< double
    };

    explicit PassTimelineModel(QObject* parent = nullptr);

    void setTrace(std::shared_ptr<const CompileTrace> trace);
    const CompileTrace* trace() const { return m_trace.get(); }
    /// The row drawn as current (the Document's passIndex; -1: none).
    void setCurrent(int passIndex);
    int current() const { return m_current; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const CompileTrace> m_trace;
    int m_current = -1;
};

}  // namespace fxray::views
