#pragma once
/// The compile tree of a TORCH_TRACE log (import/compile_story.h): frames -> attempts (one per
/// compile id: recompiles and restarts of the frame) -> stages (the graphs and artifacts logged
/// for the attempt). Rows are coloured by how the compile ended, so a graph break, a restart or
/// a failure stands out before anything is expanded. Column 0 names the row, column 1 is its
/// status, column 2 a one-line summary (the first graph-break reason with its user line, the
/// failure, or the frame compile time).
#include <QAbstractItemModel>
#include <QColor>

#include <memory>
#include <vector>

namespace fxray {
struct CompileStory;
enum class CompileStatus;
}  // namespace fxray

namespace fxray::views {

class CompileTreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Kind { FrameRow = 0, AttemptRow, StageRow };
    enum Role {
        KindRole = Qt::UserRole + 1,  ///< int: Kind
        CompileIndexRole,             ///< int: index into CompileStory::compiles (-1 on a frame)
        StatusRole,                   ///< QString: compileStatusName(), a frame's worst attempt's
        StageRole,                    ///< QString: the stage's kind ("inductor_post_grad_graph")
        CompileIdRole,                ///< QString: "0/0_1" (attempts and stages)
    };
    enum Column { NameColumn = 0, StatusColumn, SummaryColumn, ColumnCount };

    explicit CompileTreeModel(QObject* parent = nullptr);
    ~CompileTreeModel() override;

    void setStory(std::shared_ptr<const CompileStory> story);
    const CompileStory* story() const { return m_story.get(); }

    /// The attempt row of compile `index`, or an invalid index.
    QModelIndex indexOfCompile(int compileIndex) const;
    /// The colour of a status (readable on both themes' backgrounds).
    static QColor statusColor(CompileStatus s);

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Node {
        Kind kind = FrameRow;
        int compile = -1;  ///< attempts and stages; a frame's first attempt
        int stage = -1;    ///< stages: index into the compile's stages
        Node* parent = nullptr;
        int row = 0;
        std::vector<std::unique_ptr<Node>> children;
    };
    const Node* nodeOf(const QModelIndex& i) const;
    CompileStatus statusOf(const Node& n) const;
    QString nameOf(const Node& n) const;
    QString summaryOf(const Node& n) const;

    std::shared_ptr<const CompileStory> m_story;
    Node m_root;
    std::vector<const Node*> m_attemptOf;  ///< compile index -> its attempt node
};

}  // namespace fxray::views
