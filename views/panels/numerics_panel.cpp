#include "panels/numerics_panel.h"

#include "jobs/child_job.h"

#include "document.h"
#include "exec/shape_binding.h"
#include "import/loader.h"
#include "import/npy.h"
#include "models/numerics_model.h"
#include "panels/size_picker.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace fxray::views {

namespace {

QString errText(double e) { return std::isnan(e) ? QStringLiteral("nan") : QString::number(e, 'e', 2); }

/// The source box's item that opens the folder dialog.
const QString kChooseFolder = QStringLiteral("\x01choose");

/// The recorded runs beside a graph file: FILE's base/inputs, then base_2/inputs and so on
/// (the corpus records a dynamic graph at two sizes: forward/ and forward_2/).
QStringList recordedInputDirs(const QString& path, const QString& first) {
    QStringList dirs;
    if (!first.isEmpty()) dirs << first;
    if (path.isEmpty()) return dirs;
    const QFileInfo fi(path);
    const QDir dir = fi.absoluteDir();
    const QStringList siblings =
        dir.entryList({fi.completeBaseName() + QStringLiteral("_*")}, QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
    for (const QString& s : siblings) {
        const QString in = dir.filePath(s + QStringLiteral("/inputs"));
        if (QFileInfo(in).isDir() && !dirs.contains(in)) dirs << in;
    }
    return dirs;
}

/// "forward_2/inputs" for a folder beside the file, else the native path.
QString shortDir(const QString& path, const QString& dir) {
    const QString base = QFileInfo(path).absolutePath() + QLatin1Char('/');
    return dir.startsWith(base) ? dir.mid(base.size()) : QDir::toNativeSeparators(dir);
}

QString shapeText(const std::vector<qint64>& shape) {
    QStringList dims;
    for (qint64 d : shape) dims << QString::number(d);
    return QLatin1Char('[') + dims.join(QStringLiteral(", ")) + QLatin1Char(']');
}

}  // namespace

NumericsPanel::NumericsPanel(Document* doc, QWidget* parent)
        : QWidget(parent), m_doc(doc), m_exe(defaultExecutable()), m_model(new NumericsModel(this)),
          m_proxy(new QSortFilterProxyModel(this)), m_view(new QTableView(this)), m_cpu(new QCheckBox(tr("cpu"), this)),
          m_cuda(new QCheckBox(tr("cuda"), this)), m_seed(new QSpinBox(this)), m_source(new QComboBox(this)),
          m_sizes(new SizePicker(this)), m_inputs(new QLabel(this)), m_run(new QPushButton(tr("Compare"), this)),
          m_status(new QLabel(this)), m_summary(new QLabel(this)), m_busy(new QProgressBar(this)) {
    setObjectName(QStringLiteral("numericsPanel"));
    m_cpu->setObjectName(QStringLiteral("numerics.cpu"));
    m_cuda->setObjectName(QStringLiteral("numerics.cuda"));
    m_seed->setObjectName(QStringLiteral("numerics.seed"));
    m_inputs->setObjectName(QStringLiteral("numerics.inputs"));
    m_source->setObjectName(QStringLiteral("numerics.source"));
    m_source->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_run->setObjectName(QStringLiteral("numerics.run"));
    m_status->setObjectName(QStringLiteral("numerics.status"));
    m_summary->setObjectName(QStringLiteral("numerics.summary"));
    m_view->setObjectName(QStringLiteral("numerics.table"));
    m_cpu->setChecked(true);
    m_cpu->setToolTip(tr("fxray's CPU backend (LLVM), compared with the reference executor"));
    m_cuda->setToolTip(tr("fxray's CUDA backend, compared with the reference executor (needs an NVIDIA GPU)"));
    m_seed->setRange(0, 1000000);
    m_seed->setPrefix(tr("seed "));
    m_seed->setToolTip(tr("Seed of the random inputs (used when the file has no recorded inputs)"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setWordWrap(true);
    m_busy->setObjectName(QStringLiteral("numerics.busy"));
    m_busy->setRange(0, 0);  // the child reports no fractions
    m_busy->setMaximumWidth(120);
    m_busy->setMaximumHeight(14);
    m_busy->hide();
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(NumericsModel::SortRole);
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    // Graph order until the user sorts: the first divergent node is the first red row.
    m_view->sortByColumn(-1, Qt::AscendingOrder);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->verticalHeader()->hide();
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->setWordWrap(false);

    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("ref vs"), this));
    top->addWidget(m_cpu);
    top->addWidget(m_cuda);
    top->addWidget(m_source);
    top->addWidget(m_seed);
    top->addWidget(m_run);
    top->addWidget(m_busy);
    top->addWidget(m_inputs, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(m_sizes);
    layout->addWidget(m_status);
    layout->addWidget(m_summary);
    layout->addWidget(m_view, 1);

    connect(m_run, &QPushButton::clicked, this, [this] {
        if (running())
            cancel();
        else
            run();
    });
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& cur) {
        if (m_syncing || !cur.isValid() || !m_doc) return;
        const QString node = cur.data(NumericsModel::NodeNameRole).toString();
        if (!node.isEmpty()) m_doc->setSelection({node}, this);
    });
    connect(m_doc, &Document::fileChanged, this, &NumericsPanel::reset);
    connect(m_doc, &Document::graphChanged, this, &NumericsPanel::reset);
    connect(m_doc, &Document::selectionChanged, this, [this](const QStringList&, QObject* origin) {
        if (origin != this) followSelection();
    });
    connect(m_source, &QComboBox::activated, this, &NumericsPanel::sourceChosen);
    connect(m_sizes, &SizePicker::changed, this, &NumericsPanel::updateRunEnabled);
    m_job = new ChildJob(this);
    connect(m_job, &ChildJob::busyChanged, this, &NumericsPanel::busy);
    reset();
}

NumericsPanel::~NumericsPanel() = default;  // the ChildJob kills a child still running

QString NumericsPanel::defaultExecutable() {
    const QString env = qEnvironmentVariable("FXRAY_EXECUTABLE");
    if (!env.isEmpty()) return env;
    const QString self = QCoreApplication::applicationFilePath();
    if (QFileInfo(self).baseName() == QLatin1String("fxray")) return self;
    const QString dir = QCoreApplication::applicationDirPath();
    for (const QString& rel :
         {QStringLiteral("fxray"), QStringLiteral("../app/fxray"), QStringLiteral("../bin/fxray")}) {
        const QFileInfo fi(QDir(dir).filePath(rel));
        if (fi.isFile() && fi.isExecutable()) return fi.canonicalFilePath();
    }
    return {};
}

void NumericsPanel::reset() {
    cancel();
    m_model->setReport(std::nullopt);
    m_summary->clear();
    m_statusIsProblem = false;
    const bool haveFile = m_doc && m_doc->currentGraph() && !m_doc->path().isEmpty();
    m_sizes->setGraph(haveFile ? &m_doc->currentGraph()->executable() : nullptr);
    rebuildSources();
    if (m_exe.isEmpty())
        m_status->setText(tr("The fxray executable was not found; set FXRAY_EXECUTABLE."));
    else
        m_status->setText(haveFile ? tr("Compare the graph's values node by node on the chosen backends.") : QString());
    applySource();
}

void NumericsPanel::rebuildSources() {
    m_source->clear();
    if (m_doc) {
        for (const QString& d : recordedInputDirs(m_doc->path(), m_doc->recordedInputsDir()))
            m_source->addItem(tr("recorded: %1").arg(shortDir(m_doc->path(), d)), d);
    }
    if (!m_customDir.isEmpty() && m_source->findData(m_customDir) < 0)
        m_source->addItem(tr("folder: %1").arg(QDir::toNativeSeparators(m_customDir)), m_customDir);
    m_source->addItem(tr("random inputs"), QString());
    m_source->addItem(tr("inputs folder..."), kChooseFolder);
    // Recorded inputs first: what PyTorch ran is the comparison that means most.
    m_source->setCurrentIndex(0);
}

void NumericsPanel::sourceChosen(int index) {
    if (m_source->itemData(index).toString() == kChooseFolder) {
        const QString dir =
            QFileDialog::getExistingDirectory(this, tr("Inputs folder (NNN.npy per placeholder)"),
                                              m_doc ? QFileInfo(m_doc->path()).absolutePath() : QString());
        if (dir.isEmpty()) {
            m_source->setCurrentIndex(std::max(0, m_source->findData(QString())));
            applySource();
            return;
        }
        setInputsDir(dir);
        return;
    }
    applySource();
}

void NumericsPanel::setInputsDir(const QString& dir) {
    if (dir.isEmpty()) {
        m_source->setCurrentIndex(m_source->findData(QString()));
        applySource();
        return;
    }
    const QString abs = QFileInfo(dir).absoluteFilePath();
    int i = m_source->findData(abs);
    if (i < 0) {
        m_customDir = abs;
        m_source->insertItem(m_source->findData(QString()), tr("folder: %1").arg(QDir::toNativeSeparators(abs)), abs);
        i = m_source->findData(abs);
    }
    m_source->setCurrentIndex(i);
    applySource();
}

QString NumericsPanel::inputsDir() const {
    const QString d = m_source->currentData().toString();
    return d == kChooseFolder ? QString() : d;
}

void NumericsPanel::applySource() {
    const QString dir = inputsDir();
    m_sourceProblem.clear();
    std::optional<sym::Binding> folder;
    const LoadedGraph* lg = m_doc ? m_doc->currentGraph() : nullptr;
    if (!dir.isEmpty() && lg && !m_sizes->symbols().isEmpty()) {
        // The folder decides the sizes: read them off its files, as compare will.
        const Graph& g = lg->executable();
        const size_t want = g.placeholders().size();
        size_t have = 0;
        while (QFileInfo::exists(QDir(dir).filePath(QStringLiteral("%1.npy").arg(have, 3, 10, QLatin1Char('0')))))
            ++have;
        // A missing file would read as None: the count must match, as compare demands.
        auto vals =
            have == want ? readNpyFolder(dir.toStdString(), want) : Expected<std::vector<Value>>(std::vector<Value>{});
        if (have != want) {
            m_sourceProblem =
                tr("The inputs folder has %1 input files but the graph takes %2 inputs.").arg(have).arg(want);
        } else if (!vals.ok()) {
            m_sourceProblem =
                tr("The inputs folder cannot be read: %1").arg(QString::fromStdString(vals.error().message));
        } else {
            std::vector<Value> inputs = std::move(vals).value();
            scalarizeSymInputs(g, inputs);
            auto b = bindInputs(g, inputs, /*withStrides=*/false);
            if (b.ok())
                folder = std::move(b).value();
            else
                m_sourceProblem =
                    tr("The inputs folder does not fit the graph: %1").arg(QString::fromStdString(b.error().message));
        }
    }
    m_sizes->pin(folder);
    updateInputsLabel();
    updateRunEnabled();
}

void NumericsPanel::updateInputsLabel() {
    const QString dir = inputsDir();
    m_seed->setVisible(dir.isEmpty());
    // The source box names the folder; its full path is a hover away.
    m_inputs->clear();
    m_source->setToolTip(
        dir.isEmpty()
            ? tr("Where the inputs come from: a recorded run, seeded random values, or a folder of NNN.npy files")
            : QDir::toNativeSeparators(dir));
}

QString NumericsPanel::problem() const {
    if (!m_sourceProblem.isEmpty()) return m_sourceProblem;
    return m_sizes->problem();
}

void NumericsPanel::updateRunEnabled() {
    const bool haveFile = m_doc && m_doc->currentGraph() && !m_doc->path().isEmpty();
    if (running()) return;  // the button cancels meanwhile
    const QString p = problem();
    m_run->setEnabled(haveFile && !m_exe.isEmpty() && p.isEmpty());
    // The picker shows its own problems beside the boxes; a folder's goes to the status line,
    // and leaves it once solved.
    if (!m_sourceProblem.isEmpty()) {
        m_status->setText(m_sourceProblem);
        m_statusIsProblem = true;
    } else if (m_statusIsProblem) {
        m_status->setText(haveFile ? tr("Compare the graph's values node by node on the chosen backends.") : QString());
        m_statusIsProblem = false;
    }
}

QStringList NumericsPanel::compareArguments() const {
    if (!m_doc || m_doc->path().isEmpty() || !m_doc->currentGraph()) return {};
    QStringList backends{QStringLiteral("ref")};
    if (m_cpu->isChecked()) backends << QStringLiteral("cpu");
    if (m_cuda->isChecked() && m_cuda->isEnabled()) backends << QStringLiteral("cuda");
    // ref against ref64 still shows how far fp32 rounding alone goes.
    if (backends.size() == 1) backends << QStringLiteral("ref64");
    QStringList args{QStringLiteral("compare"), m_doc->path(), QStringLiteral("--backends"),
                     backends.join(QLatin1Char(','))};
    if (m_doc->graphCount() > 1) args << QStringLiteral("--graph") << QString::fromStdString(m_doc->currentGraph()->id);
    const QString dir = inputsDir();
    if (!dir.isEmpty()) {
        args << QStringLiteral("--inputs") << dir;
    } else {
        args << QStringLiteral("--seed") << QString::number(m_seed->value());
        // Random inputs of a dynamic-shape graph are drawn at the picked sizes.
        if (const QString sizes = m_sizes->sizesArgument(); !sizes.isEmpty())
            args << QStringLiteral("--sizes") << sizes;
    }
    args << QStringLiteral("--json");
    return args;
}

bool NumericsPanel::run() {
    if (running()) return false;
    if (const QString p = problem(); !p.isEmpty()) {
        m_status->setText(p);
        m_statusIsProblem = true;
        return false;
    }
    const QStringList args = compareArguments();
    if (args.isEmpty() || m_exe.isEmpty()) return false;
    m_statusIsProblem = false;
    m_job->start(tr("Comparing backends"), m_exe, args, [this](const ChildResult& r) { onFinished(r); });
    m_busy->show();
    m_run->setText(tr("Cancel"));
    m_status->setText(tr("Comparing on %1...").arg(args.at(3)));
    return true;
}

bool NumericsPanel::running() const { return m_job->isBusy(); }

void NumericsPanel::cancel() {
    if (!running()) return;
    m_job->cancel();
    m_busy->hide();
    m_run->setText(tr("Compare"));
    m_status->setText(tr("Cancelled."));
}

bool NumericsPanel::waitForRun(int timeoutMs) { return m_job->waitForIdle(timeoutMs); }

void NumericsPanel::onFinished(const ChildResult& r) {
    m_busy->hide();
    m_run->setText(tr("Compare"));
    updateRunEnabled();
    if (!r.started) {
        m_status->setText(tr("Cannot start %1: %2").arg(QDir::toNativeSeparators(m_exe), r.startError));
        Q_EMIT finished(false);
        return;
    }
    const int code = r.crashed ? -1 : r.exitCode;
    // 0: all agree, 1: some differ (both print the JSON); anything else is a failure.
    if ((code == 0 || code == 1) && loadJson(r.out)) {
        Q_EMIT finished(true);
        return;
    }
    childFailed(code, r.err);
    Q_EMIT finished(false);
}

void NumericsPanel::childFailed(int exitCode, const QString& stderrText) {
    const QString first = stderrText.section(QLatin1Char('\n'), 0, 0);
    if (stderrText.contains(QLatin1String("no CUDA device"), Qt::CaseInsensitive)) {
        // Said once: the box stays off with the child's reason until fxray restarts.
        m_cuda->setChecked(false);
        m_cuda->setEnabled(false);
        m_cuda->setToolTip(tr("Not available: %1").arg(first));
    }
    if (exitCode < 0)
        m_status->setText(tr("fxray compare crashed; the GUI is unaffected. %1").arg(first));
    else
        m_status->setText(tr("fxray compare failed (exit %1): %2").arg(exitCode).arg(first));
    m_status->setToolTip(stderrText);
}

bool NumericsPanel::loadJson(const QByteArray& json) {
    QString error;
    std::optional<NumericsReport> r = NumericsReport::parse(json, &error);
    if (!r) {
        m_status->setText(tr("Cannot read compare's output: %1").arg(error));
        return false;
    }
    QStringList outs;
    for (const NumericsReport::Output& o : r->outputs) {
        // The output's shape says which sizes the run took (one per output, the first backend's).
        const auto idx = static_cast<size_t>(o.index);
        const QString shape = idx < r->outputShapes.size() && r->outputShapes[idx]
                                  ? QLatin1Char(' ') + shapeText(*r->outputShapes[idx])
                                  : QString();
        outs << tr("output %1%2 on %3: %4%5")
                    .arg(o.index)
                    .arg(shape, o.backend, errText(o.relErr), o.ok ? QString() : tr(" (differs)"));
    }
    QString summary = outs.join(QStringLiteral("; "));
    if (!r->binding.empty()) summary = tr("Sizes: %1").arg(r->bindingText()) + QLatin1Char('\n') + summary;
    if (!r->firstDivergentNode.isEmpty())
        summary += QStringLiteral("\n") +
                   tr("First divergent node: %1 on %2 (rel_err %3)")
                       .arg(r->firstDivergentNode, r->firstDivergentBackend, errText(r->firstDivergentRelErr));
    m_summary->setText(summary);
    const int differ =
        static_cast<int>(std::count_if(r->rows.begin(), r->rows.end(), [](const auto& row) { return !row.ok(); }));
    if (r->rows.empty())
        m_status->setText(r->ok ? tr("All outputs agree (this fxray reports no per-node errors).")
                                : tr("Outputs differ."));
    else
        m_status->setText((r->ok ? tr("Backends agree.") : tr("Backends differ.")) + QLatin1Char(' ') +
                          tr("%n node(s) compared", nullptr, static_cast<int>(r->rows.size())) + QStringLiteral(", ") +
                          tr("%n differ(s)", nullptr, differ));
    const QHash<QString, double> worst = r->worstByNode();
    m_model->setReport(std::move(r));
    m_view->resizeColumnsToContents();
    if (m_doc) m_doc->setNodeErrors(worst);
    // Show the heat map: that is what the comparison is for.
    if (QAction* heat = window()->findChild<QAction*>(QStringLiteral("actionColourNumerics"));
        heat && !heat->isChecked())
        heat->trigger();
    followSelection();
    return true;
}

void NumericsPanel::followSelection() {
    if (!m_doc || m_doc->selection().isEmpty()) return;
    const int row = m_model->rowOf(m_doc->selection().first());
    if (row < 0) return;
    const QModelIndex idx = m_proxy->mapFromSource(m_model->index(row, 0));
    m_syncing = true;
    m_view->selectRow(idx.row());
    m_view->scrollTo(idx);
    m_syncing = false;
}

}  // namespace fxray::views
