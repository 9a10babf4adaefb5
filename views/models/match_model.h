#pragma once
/// The match explorer as a tree: pass run → pattern → each match (the nodes it matched and the
/// nodes its replacement created) and each near-miss (the node and the check that rejected it).
/// Only pass runs that matched or nearly matched something appear.
#include <QAbstractItemModel>
#include <QStringList>

#include <memory>
#include <vector>

namespace fxray {
struct CompileTrace;
}

namespace fxray::views {

class MatchModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum class Kind { Pass, Pattern, Match, NearMiss };
    enum Column { ColName, ColCount, ColDetail, ColumnCount };
    enum Role {
        KindRole = Qt::UserRole + 1,  ///< int (Kind)
        PassIndexRole,                ///< int: index into trace->passes
        NodesRole,                    ///< QStringList: matched nodes (Match) / the anchor (NearMiss)
        NewNodesRole,                 ///< QStringList: nodes the replacement created (Match)
        ReasonRole,                   ///< QString: why a near-miss was rejected
        PatternRole,                  ///< QString
    };

    explicit MatchModel(QObject* parent = nullptr);
    ~MatchModel() override;

    void setTrace(std::shared_ptr<const CompileTrace> trace);
    /// The top-level row of pass `passIndex`, or an invalid index when it matched nothing.
    QModelIndex indexOfPass(int passIndex) const;
    /// Makes the current pass bold.
    void setCurrent(int passIndex);

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Item;
    Item* itemAt(const QModelIndex& index) const;
    QModelIndex indexOf(const Item* item, int column) const;

    std::shared_ptr<const CompileTrace> m_trace;
    std::unique_ptr<Item> m_root;
    int m_current = -1;
};

}  // namespace fxray::views
