#pragma once
/// "Changed passes only": a proxy over PassTimelineModel that hides the passes that left the
/// graph as it was. Failed passes stay visible (they were undone, but they are what one is
/// looking for).
#include <QSortFilterProxyModel>

namespace fxray::views {

class ChangedPassFilter : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit ChangedPassFilter(QObject* parent = nullptr);
    void setChangedOnly(bool on);
    bool changedOnly() const { return m_changedOnly; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    bool m_changedOnly = false;
};

}  // namespace fxray::views
