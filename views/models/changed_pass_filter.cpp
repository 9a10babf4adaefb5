#include "models/changed_pass_filter.h"

#include "models/pass_timeline_model.h"

namespace fxray::views {

ChangedPassFilter::ChangedPassFilter(QObject* parent) : QSortFilterProxyModel(parent) {}

void ChangedPassFilter::setChangedOnly(bool on) {
    if (on == m_changedOnly) return;
    m_changedOnly = on;
    invalidateFilter();
}

bool ChangedPassFilter::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
    if (!m_changedOnly) return true;
    const QModelIndex i = sourceModel()->index(sourceRow, 0, sourceParent);
    return i.data(PassTimelineModel::ChangedRole).toBool() || i.data(PassTimelineModel::FailedRole).toBool();
}

}  // namespace fxray::views
