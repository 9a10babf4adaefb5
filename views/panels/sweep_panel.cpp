#include "panels/sweep_panel.h"

#include "models/sweep_results_model.h"

#include <QAction>
#include <QCheckBox>
#include <QDir>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace fxray::views {

namespace {

/// Text filter over graph and message, and optionally failures only.
class SweepFilter : public QSortFilterProxyModel {
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;
    bool failuresOnly = false;
    QString text;
    void refresh() { invalidateFilter(); }

protected:
    bool filterAcceptsRow(int row, const QModelIndex& parent) const override {
        const QModelIndex i = sourceModel()->index(row, 0, parent);
        if (failuresOnly && i.data(SweepResultsModel::StatusRole).toString() == QLatin1String("ok")) return false;
        if (text.isEmpty()) return true;
        for (int c : {int(SweepResultsModel::Graph), int(SweepResultsModel::Message)})
            if (sourceModel()->index(row, c, parent).data().toString().contains(text, Qt::CaseInsensitive)) return true;
        return false;
    }
};

}  // namespace

SweepPanel::SweepPanel(QWidget* parent) : QWidget(parent) {
    m_model = new SweepResultsModel(this);
    auto* filter = new SweepFilter(this);
    filter->setSourceModel(m_model);
    filter->setSortRole(SweepResultsModel::SortRole);
    m_proxy = filter;

    m_summary = new QLabel(tr("Open an fxray sweep results folder (File > Open Folder) to see its graphs here."), this);
    m_summary->setWordWrap(true);
    m_summary->setObjectName(QStringLiteral("sweepSummary"));
    m_filter = new QLineEdit(this);
    m_filter->setPlaceholderText(tr("Filter by graph or message"));
    m_filter->setClearButtonEnabled(true);
    m_filter->setObjectName(QStringLiteral("sweepFilter"));
    m_failuresOnly = new QCheckBox(tr("&Failures only"), this);
    m_failuresOnly->setObjectName(QStringLiteral("sweepFailuresOnly"));

    m_view = new QTableView(this);
    m_view->setObjectName(QStringLiteral("sweepTable"));
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->verticalHeader()->hide();
    m_view->horizontalHeader()->setStretchLastSection(false);
    m_view->horizontalHeader()->setSectionResizeMode(SweepResultsModel::Message, QHeaderView::Stretch);
    m_view->sortByColumn(SweepResultsModel::Status, Qt::AscendingOrder);

    auto* reload = new QAction(tr("Reload results"), this);
    reload->setObjectName(QStringLiteral("action.sweep.reload"));
    reload->setShortcut(QKeySequence::Refresh);
    reload->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    addAction(reload);
    connect(reload, &QAction::triggered, this, [this] {
        if (!m_dir.isEmpty()) loadFolder(m_dir);
    });

    auto* top = new QHBoxLayout;
    top->addWidget(m_filter, 1);
    top->addWidget(m_failuresOnly);
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(4, 4, 4, 4);
    lay->addWidget(m_summary);
    lay->addLayout(top);
    lay->addWidget(m_view, 1);

    connect(m_filter, &QLineEdit::textChanged, this, &SweepPanel::applyFilter);
    connect(m_failuresOnly, &QCheckBox::toggled, this, &SweepPanel::applyFilter);
    connect(m_view, &QTableView::activated, this, &SweepPanel::activate);
}

bool SweepPanel::loadFolder(const QString& dir) {
    if (!m_model->load(dir)) {
        m_summary->setText(tr("%1 holds no sweep results.").arg(QDir::toNativeSeparators(dir)));
        return false;
    }
    m_dir = dir;
    m_summary->setText(tr("%1 — %2").arg(QDir::toNativeSeparators(dir), m_model->summary()));
    m_view->resizeColumnToContents(SweepResultsModel::Status);
    m_view->resizeColumnToContents(SweepResultsModel::Graph);
    return true;
}

void SweepPanel::applyFilter() {
    auto* f = static_cast<SweepFilter*>(m_proxy);
    f->text = m_filter->text();
    f->failuresOnly = m_failuresOnly->isChecked();
    f->refresh();
}

void SweepPanel::activate(const QModelIndex& proxyIndex) {
    if (!proxyIndex.isValid()) return;
    const QModelIndex src = m_proxy->mapToSource(proxyIndex);
    const QString file = src.data(SweepResultsModel::FileRole).toString();
    const QString status = src.data(SweepResultsModel::StatusRole).toString();
    const QString message = m_model->index(src.row(), SweepResultsModel::Message).data().toString();
    Q_EMIT graphActivated(file, status, message);
}

}  // namespace fxray::views
