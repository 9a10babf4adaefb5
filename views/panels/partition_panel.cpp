#include "panels/partition_panel.h"

#include "document.h"
#include "import/loader.h"
#include "models/pytorch_partition.h"
#include "models/saved_tensor_model.h"
#include "models/string_table_model.h"
#include "panels/partition_lanes_view.h"
#include "partition/joint_shape.h"
#include "partition/partitioner.h"

#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QScreen>
#include <QSignalBlocker>
#include <QSlider>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <optional>

namespace fxray::views {

namespace {

QTableView* makeTable(QAbstractItemModel* model, const QString& name, QWidget* parent) {
    auto* v = new QTableView(parent);
    v->setObjectName(name);
    v->setModel(model);
    v->setSelectionBehavior(QAbstractItemView::SelectRows);
    v->setEditTriggers(QAbstractItemView::NoEditTriggers);
    v->setWordWrap(false);
    v->verticalHeader()->hide();
    v->verticalHeader()->setDefaultSectionSize(v->fontMetrics().height() + 6);
    v->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    v->horizontalHeader()->setStretchLastSection(true);
    return v;
}

QString bytesText(qint64 b) { return QLocale().formattedDataSize(b, 1, QLocale::DataSizeTraditionalFormat); }

}  // namespace

PartitionPanel::PartitionPanel(Document* doc, QWidget* parent)
        : QWidget(parent), m_doc(doc), m_saved(new SavedTensorModel(this)),
          m_banned(new StringTableModel({tr("Node"), tr("Rule")}, this)),
          m_recomputed(new StringTableModel({tr("Node"), tr("Op")}, this)),
          m_run(new QPushButton(tr("Partition"), this)), m_slider(new QSlider(Qt::Horizontal, this)),
          m_spin(new QDoubleSpinBox(this)), m_debounce(new QTimer(this)), m_status(new QLabel(this)),
          m_totals(new QLabel(this)), m_tabs(new QTabWidget(this)), m_lanes(new PartitionLanesView(this)) {
    setObjectName(QStringLiteral("partitionPanel"));
    m_run->setObjectName(QStringLiteral("partition.run"));
    m_run->setToolTip(tr("Split the shown joint graph into forward and backward"));
    m_slider->setObjectName(QStringLiteral("partition.budgetSlider"));
    m_slider->setRange(0, 100);
    m_slider->setValue(100);
    m_slider->setToolTip(tr("Activation memory budget: 1 saves what the fastest cut saves, 0 recomputes everything"));
    m_spin->setObjectName(QStringLiteral("partition.budgetSpin"));
    m_spin->setRange(0.0, 1.0);
    m_spin->setSingleStep(0.01);
    m_spin->setDecimals(2);
    m_spin->setValue(1.0);
    m_debounce->setObjectName(QStringLiteral("partition.debounce"));
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(kDebounceMs);
    m_status->setObjectName(QStringLiteral("partition.status"));
    m_status->setWordWrap(true);
    m_totals->setObjectName(QStringLiteral("partition.totals"));
    m_totals->setWordWrap(true);
    m_totals->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_totals->setToolTip(tr("PyTorch's figures come from the model folder's summary.json. Inductor saves parameters "
                            "at no cost (they live anyway); fxray's partition here counts every input, so the two "
                            "sets can differ on parameters while the bytes agree."));
    m_tabs->setObjectName(QStringLiteral("partition.tabs"));

    QTableView* saved = makeTable(m_saved, QStringLiteral("partition.saved"), this);
    QTableView* banned = makeTable(m_banned, QStringLiteral("partition.banned"), this);
    QTableView* recomputed = makeTable(m_recomputed, QStringLiteral("partition.recomputed"), this);
    m_tabs->addTab(m_lanes, tr("Lanes"));
    m_tabs->setTabToolTip(
        0, tr("Forward | saved tensors | backward; after a budget move, what joined or left the saved set"));
    m_tabs->addTab(saved, tr("Saved"));
    m_tabs->addTab(banned, tr("Banned"));
    m_tabs->addTab(recomputed, tr("Recomputed"));
    // A row names a node: selecting it selects that node everywhere.
    for (QTableView* v : {saved, banned, recomputed}) {
        connect(v->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& i) {
            const QString name = i.siblingAtColumn(0).data().toString();
            if (!name.isEmpty() && m_doc) m_doc->setSelection({name}, this);
        });
    }

    // The lanes need more width than a side dock has: "Open large" floats the dock at their size.
    connect(m_lanes, &PartitionLanesView::enlargeRequested, this, [this] {
        QWidget* w = parentWidget();
        while (w && !qobject_cast<QDockWidget*>(w)) w = w->parentWidget();
        auto* dock = qobject_cast<QDockWidget*>(w);
        if (!dock) return;
        dock->setFloating(true);
        const QRect screen = dock->screen() ? dock->screen()->availableGeometry() : QRect(0, 0, 1600, 1000);
        const int width = static_cast<int>(m_lanes->lanes().size.width()) + 80;
        dock->resize(std::min(width, screen.width() * 9 / 10), screen.height() * 8 / 10);
        dock->move(screen.center() - QPoint(dock->width() / 2, dock->height() / 2));
        m_tabs->setCurrentWidget(m_lanes);
        m_lanes->setFocus();
    });
    connect(m_lanes, &PartitionLanesView::activated, this, [this](const QStringList& names) {
        if (m_doc) m_doc->setSelection(names, this);
    });

    auto* top = new QHBoxLayout;
    top->addWidget(m_run);
    top->addWidget(new QLabel(tr("Memory budget"), this));
    top->addWidget(m_slider, 1);
    top->addWidget(m_spin);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(m_status);
    layout->addWidget(m_totals);
    layout->addWidget(m_tabs, 1);

    connect(m_run, &QPushButton::clicked, this, [this] { repartition(m_spin->value()); });
    connect(m_slider, &QSlider::valueChanged, this, [this](int v) {
        const QSignalBlocker block(m_spin);
        m_spin->setValue(v / 100.0);
        budgetEdited(v / 100.0);
    });
    connect(m_spin, &QDoubleSpinBox::valueChanged, this, [this](double v) {
        const QSignalBlocker block(m_slider);
        m_slider->setValue(static_cast<int>(std::lround(v * 100)));
        budgetEdited(v);
    });
    connect(m_debounce, &QTimer::timeout, this, [this] { repartition(m_pending); });
    connect(m_doc, &Document::fileChanged, this, &PartitionPanel::onFileChanged);
    connect(m_doc, &Document::graphChanged, this, &PartitionPanel::onGraphChanged);
    connect(m_doc, &Document::partitionChanged, this, &PartitionPanel::onPartitionChanged);
    connect(m_doc, &Document::failed, this, [this](const QString& message) {
        if (!m_requested) return;
        m_requested = false;
        m_status->setText(tr("Partition failed: %1").arg(message));
    });
    onFileChanged();
    onPartitionChanged();
}

PartitionPanel::~PartitionPanel() = default;

bool PartitionPanel::currentIsJoint() const { return !notJointReason(); }

std::optional<QString> PartitionPanel::notJointReason() const {
    const LoadedGraph* lg = m_doc->currentGraph();
    if (!lg) return QString();
    // A post-grad backward graph takes tangents too; partitioning it again would invent a split.
    if (auto why = partition::whyNotJoint(lg->executable(), lg->stage)) return QString::fromStdString(*why);
    return std::nullopt;
}

void PartitionPanel::onFileChanged() { m_reference = findPyTorchPartition(m_doc->path()); }

void PartitionPanel::onGraphChanged() {
    const std::optional<QString> why = notJointReason();
    m_run->setEnabled(m_doc->currentGraph() != nullptr);
    m_status->setText(!m_doc->currentGraph() || !why ? QString() : tr("Nothing to partition: %1.").arg(*why));
    if (!why) repartition(m_doc->memoryBudget());
}

void PartitionPanel::repartition(double budget) {
    m_status->setText(tr("Partitioning (budget %1)…").arg(budget, 0, 'f', 2));
    m_requested = true;
    m_doc->setMemoryBudget(budget);
}

void PartitionPanel::budgetEdited(double budget) {
    m_pending = budget;
    m_debounce->start();
}

void PartitionPanel::onPartitionChanged() {
    const auto result = m_doc->partition();
    m_requested = false;
    // The reference is PyTorch's partition of the joint graph at its default budget.
    std::optional<PyTorchPartition> ref;
    if (result && currentIsJoint()) ref = m_reference;
    m_saved->setPartition(result, m_doc->shownGraph(), ref);
    std::vector<QStringList> banned, recomputed;
    if (result) {
        for (const BannedNode& b : result->banned)
            banned.push_back({QString::fromStdString(b.name), QString::fromStdString(b.rule)});
        const Graph* g = m_doc->shownGraph();
        for (const std::string& r : result->recomputed) {
            const Node* n = g ? g->find(r) : nullptr;
            recomputed.push_back({QString::fromStdString(r), n ? QString::fromStdString(n->opName()) : QString()});
        }
    }
    m_banned->setRows(std::move(banned));
    m_recomputed->setRows(std::move(recomputed));
    m_lanes->setPartition(result && currentIsJoint() ? result : nullptr, m_doc->shownGraph(), m_doc->memoryBudget());
    m_tabs->setTabText(2, tr("Banned (%1)").arg(m_banned->rowCount()));
    m_tabs->setTabText(3, tr("Recomputed (%1)").arg(m_recomputed->rowCount()));
    if (!result) {
        m_totals->clear();
        m_tabs->setTabText(1, tr("Saved"));
        return;
    }
    {
        // Show the budget the result was computed with (it may come from partitionSync).
        const QSignalBlocker b1(m_slider), b2(m_spin);
        m_spin->setValue(m_doc->memoryBudget());
        m_slider->setValue(static_cast<int>(std::lround(m_doc->memoryBudget() * 100)));
    }
    const SavedTensorModel::Totals t = m_saved->totals();
    m_tabs->setTabText(1, tr("Saved (%1)").arg(t.ours));
    m_status->setText(tr("Strategy: %1 · %2 forward / %3 backward nodes · cut of %n edge(s)", nullptr,
                         static_cast<int>(result->cut.size()))
                          .arg(QString::fromStdString(result->strategy))
                          .arg(result->forward ? result->forward->computeNodeCount() : 0)
                          .arg(result->backward ? result->backward->computeNodeCount() : 0));
    QString text =
        tr("fxray saves %n value(s): ", nullptr, t.ours) +
        tr("%1 bytes (%2), activations %3 bytes")
            .arg(QLocale().toString(t.oursBytes), bytesText(t.oursBytes), QLocale().toString(t.oursActivationBytes));
    if (ref) {
        text += QLatin1Char('\n') + tr("PyTorch saves %n value(s): ", nullptr, t.pytorch) +
                tr("%1 bytes (%2)").arg(QLocale().toString(ref->savedBytes), bytesText(ref->savedBytes));
        if (t.onlyOurs || t.onlyPyTorch)
            text += tr(" · differ in %1 (only fxray %2, only PyTorch %3)")
                        .arg(t.onlyOurs + t.onlyPyTorch)
                        .arg(t.onlyOurs)
                        .arg(t.onlyPyTorch);
        else
            text += tr(" · same set");
        if (std::abs(m_doc->memoryBudget() - 1.0) > 1e-9) text += tr(" (PyTorch's at budget 1.0)");
    }
    m_totals->setText(text);
}

}  // namespace fxray::views
