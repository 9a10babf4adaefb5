#pragma once
/// The side-by-side FX text diff as a table: old line number, old text, new line number, new
/// text. Removed lines are red on the left, added lines green on the right, and a changed line
/// reads across one row. The pane shows it in a QTableView; the summary (+n −m) comes with it.
#include "models/text_diff.h"

#include <QAbstractTableModel>

#include <string>
#include <vector>

namespace fxray::views {

class TextDiffModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { ColLeftLine, ColLeft, ColRightLine, ColRight, ColumnCount };
    enum Role {
        KindRole = Qt::UserRole + 1,  ///< int (DiffLine::Kind) of the cell's side
        ChangedRole,                  ///< bool: the row has a removed or added side
    };

    explicit TextDiffModel(QObject* parent = nullptr);

    /// Diffs two texts (empty `before`: everything is added).
    void setTexts(const std::string& before, const std::string& after);
    void clear();
    DiffSummary summary() const { return m_summary; }
    /// Row of the n-th changed block's first row (for "next change"), or -1.
    int changeRow(int n) const;
    int changeCount() const { return static_cast<int>(m_blockStarts.size()); }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<std::string> m_left, m_right;
    std::vector<SideBySideRow> m_rows;
    std::vector<int> m_blockStarts;
    DiffSummary m_summary;
};

}  // namespace fxray::views
