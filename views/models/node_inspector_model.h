#pragma once
/// The node inspector as a property tree: sections (Node, Schema, Arguments, Keyword arguments,
/// Output, Inputs, Users, Source, Provenance) with property/value rows. Everything is copied out
/// of the graph when the node is set, so the model never points into a graph that a later pass
/// or file replaces. Rows that name another node carry it in NodeNameRole.
#include <QAbstractItemModel>
#include <QStringList>

#include <memory>
#include <vector>

namespace fxray {
class Graph;
struct CompileTrace;
}  // namespace fxray

namespace fxray::views {

class NodeInspectorModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { ColProperty, ColValue, ColumnCount };
    enum Role {
        NodeNameRole = Qt::UserRole + 1,  ///< QString: the node a row names (inputs, users, provenance)
        SectionRole,                      ///< QString: untranslated section key ("args", "users", ...)
    };

    explicit NodeInspectorModel(QObject* parent = nullptr);
    ~NodeInspectorModel() override;

    /// Shows node `name` of `graph` (nothing when absent). `trace` and `passIndex` give its
    /// provenance: the pass and pattern that created it, what it replaced, what later erases it.
    void setNode(const Graph* graph, const QString& name, const CompileTrace* trace, int passIndex);
    QString nodeName() const { return m_name; }
    /// Top-level row of a section by key ("node", "schema", "args", "kwargs", "output", "inputs",
    /// "users", "source", "provenance"), or invalid.
    QModelIndex section(const QString& key) const;

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Item;
    Item* itemAt(const QModelIndex& index) const;

    std::unique_ptr<Item> m_root;
    QString m_name;
};

}  // namespace fxray::views
