#include "panels/minifier_panel.h"

#include "document.h"
#include "exec/compare.h"
#include "import/lifted_constants.h"
#include "import/loader.h"
#include "ir/printer.h"
#include "minify/minifier.h"
#include "minify/repro_export.h"
#include "minify/subprocess.h"
#include "transforms/passes.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QStackedWidget>
#include <QThread>

#include "jobs/job_lane.h"

#include <QThreadPool>
#include <QVBoxLayout>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>

namespace fxray::views {

/// One run: what the worker thread reads and writes. Shared by the panel and the thread, so a
/// panel that goes away first (it waits in its destructor anyway) leaves nothing dangling.
struct MinifierPanel::Run {
    std::atomic<bool> cancel{false};
    std::shared_ptr<Graph> graph;
    std::shared_ptr<minify::MinifyOptions> opts;
    std::shared_ptr<minify::MinifyResult> result;
    std::shared_ptr<QTemporaryDir> dir;  ///< the outputs, written by the worker when it ends
    minify::ExportInfo info;
};

namespace {

std::string quoteArg(const std::string& s) {
    if (!s.empty() && s.find_first_of(" \t'\"$\\*?()[]{};&|<>") == std::string::npos) return s;
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

QString qs(const std::string& s) { return QString::fromStdString(s); }

QString defaultExecutable() {
    // In the GUI the running binary is fxray itself: it answers `fxray __minify-query DIR`.
    const QString self = QCoreApplication::applicationFilePath();
    if (QFileInfo(self).fileName() == QLatin1String("fxray")) return self;
    return qs(minify::findFxrayExecutable().string());
}

}  // namespace

MinifierPanel::MinifierPanel(Document* doc, QWidget* parent)
        : QWidget(parent), m_doc(doc), m_executable(defaultExecutable()), m_check(new QComboBox(this)),
          m_pages(new QStackedWidget(this)), m_op(new QComboBox(this)), m_scale(new QDoubleSpinBox(this)),
          m_sides(new QComboBox(this)), m_pass(new QComboBox(this)), m_regex(new QLineEdit(this)),
          m_command(new QLineEdit(this)), m_torch(new QLineEdit(this)), m_jobs(new QSpinBox(this)),
          m_timeout(new QDoubleSpinBox(this)), m_run(new QPushButton(tr("Run"), this)),
          m_cancel(new QPushButton(tr("Cancel"), this)), m_open(new QPushButton(tr("Open result"), this)),
          m_export(new QPushButton(tr("Export…"), this)), m_status(new QLabel(this)), m_code(new QPlainTextEdit(this)),
          m_steps(new QListWidget(this)), m_lane(new JobLane(this)) {
    setObjectName(QStringLiteral("minifierPanel"));
    m_check->setObjectName(QStringLiteral("minifier.check"));
    m_check->addItem(tr("Injected fault (scale an op's output)"), int(InjectedFault));
    m_check->addItem(tr("Accuracy: two executors disagree"), int(Accuracy));
    m_check->addItem(tr("A pass fails with a message"), int(PassFails));
    m_check->addItem(tr("A command exits 0"), int(Command));
    m_check->addItem(tr("PyTorch's torch.compile fails the same way"), int(TorchCompile));
    m_check->setToolTip(tr("What makes a smaller graph still interesting: it must fail the same way"));

    m_op->setObjectName(QStringLiteral("minifier.op"));
    m_op->setToolTip(
        tr("The op whose output is scaled on the tested side (the clean reference executor is the other side)"));
    m_scale->setObjectName(QStringLiteral("minifier.scale"));
    m_scale->setDecimals(4);
    m_scale->setRange(-1000.0, 1000.0);
    m_scale->setSingleStep(0.01);
    m_scale->setValue(1.01);
    m_sides->setObjectName(QStringLiteral("minifier.sides"));
    for (const char* s : {"ref-vs-ref64", "ref64-vs-ref32", "ref-vs-cpu", "ref-vs-cuda", "cpu-vs-cuda"})
        m_sides->addItem(QString::fromLatin1(s), QString::fromLatin1(s));
    m_sides->setToolTip(tr("Reference side vs tested side, judged like PyTorch's same(): ref is the fp32 reference "
                           "executor, ref64 the same in fp64, cpu and cuda the compiled backends"));
    m_pass->setObjectName(QStringLiteral("minifier.pass"));
    m_pass->setEditable(true);
    for (const std::string& p : knownPassNames()) m_pass->addItem(qs(p));
    m_regex->setObjectName(QStringLiteral("minifier.regex"));
    m_regex->setPlaceholderText(tr("regular expression the failure message must match (empty: any)"));
    m_command->setObjectName(QStringLiteral("minifier.command"));
    m_command->setPlaceholderText(tr("shell command run in the candidate's folder; exit 0 = still failing"));
    m_torch->setObjectName(QStringLiteral("minifier.torch"));
    m_torch->setText(QStringLiteral("torch-compile"));
    m_torch->setToolTip(
        tr("torch-compile[:BACKEND[@DEVICE]][:KEY=VALUE,...]: each candidate's repro.py runs under torch.compile "
           "in Python with PyTorch (FXRAY_PYTHON, else python3); KEY=VALUE patch torch._inductor.config"));
    m_jobs->setObjectName(QStringLiteral("minifier.jobs"));
    m_jobs->setRange(1, 64);
    m_jobs->setValue(std::clamp(QThread::idealThreadCount() / 2, 1, 4));
    m_jobs->setToolTip(tr("Queries run at once, each in its own process"));
    m_timeout->setObjectName(QStringLiteral("minifier.timeout"));
    m_timeout->setRange(1.0, 3600.0);
    m_timeout->setDecimals(0);
    m_timeout->setValue(60.0);
    m_timeout->setSuffix(tr(" s"));
    m_timeout->setToolTip(tr("A query running longer is killed and counts as a hang"));

    auto page = [this](std::initializer_list<std::pair<QString, QWidget*>> rows) {
        auto* w = new QWidget(m_pages);
        auto* f = new QFormLayout(w);
        f->setContentsMargins(0, 0, 0, 0);
        for (const auto& [label, field] : rows) f->addRow(label, field);
        m_pages->addWidget(w);
    };
    page({{tr("Op"), m_op}, {tr("Scale"), m_scale}});
    page({{tr("Sides"), m_sides}});
    page({{tr("Pass"), m_pass}, {tr("Message"), m_regex}});
    page({{tr("Command"), m_command}});
    page({{tr("Check"), m_torch}});

    m_run->setObjectName(QStringLiteral("minifier.run"));
    m_cancel->setObjectName(QStringLiteral("minifier.cancel"));
    m_open->setObjectName(QStringLiteral("minifier.open"));
    m_open->setToolTip(tr("Load the minimized graph as the current file"));
    m_export->setObjectName(QStringLiteral("minifier.export"));
    m_export->setToolTip(tr("Write minified.py, inputs/*.npy, repro.py, session.json and minified.fxray to a folder"));
    m_status->setObjectName(QStringLiteral("minifier.status"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_code->setObjectName(QStringLiteral("minifier.code"));
    m_code->setReadOnly(true);
    m_code->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_code->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_code->setPlaceholderText(tr("The smallest failing graph found so far appears here while the minifier runs."));
    m_steps->setObjectName(QStringLiteral("minifier.steps"));

    auto* form = new QFormLayout;
    form->addRow(tr("Failure"), m_check);
    form->addRow(m_pages);
    auto* knobs = new QHBoxLayout;
    knobs->addWidget(new QLabel(tr("Jobs"), this));
    knobs->addWidget(m_jobs);
    knobs->addWidget(new QLabel(tr("Timeout"), this));
    knobs->addWidget(m_timeout);
    knobs->addStretch(1);
    form->addRow(knobs);
    auto* buttons = new QHBoxLayout;
    for (QPushButton* b : {m_run, m_cancel, m_open, m_export}) buttons->addWidget(b);
    buttons->addStretch(1);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_code);
    split->addWidget(m_steps);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(form);
    layout->addLayout(buttons);
    layout->addWidget(m_status);
    layout->addWidget(split, 1);

    connect(m_check, &QComboBox::currentIndexChanged, m_pages, &QStackedWidget::setCurrentIndex);
    connect(m_run, &QPushButton::clicked, this, [this] { start(); });
    connect(m_cancel, &QPushButton::clicked, this, &MinifierPanel::cancel);
    connect(m_open, &QPushButton::clicked, this, [this] { openResult(); });
    connect(m_export, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Export the minified repro to"));
        if (!dir.isEmpty()) exportTo(dir);
    });
    connect(m_doc, &Document::fileChanged, this, &MinifierPanel::refreshGraph);
    connect(m_doc, &Document::graphChanged, this, &MinifierPanel::refreshGraph);
    refreshGraph();
}

MinifierPanel::~MinifierPanel() {
    // The run stops at its next query wave; the lane waits for it.
    if (m_current) m_current->cancel = true;
    m_lane->abandon();
}

bool MinifierPanel::isRunning() const { return m_lane->isBusy(); }

void MinifierPanel::refreshGraph() {
    // The ops of the current graph, most frequent first is no help for picking one: sorted by name.
    const QString previous = m_op->currentData().toString();
    m_op->clear();
    if (const LoadedGraph* lg = m_doc ? m_doc->currentGraph() : nullptr) {
        std::map<std::string, int> count;
        for (const auto& n : lg->executable().nodes())
            if (n->kind() == NodeKind::CallFunction && n->op()) ++count[n->opName()];
        for (const auto& [name, k] : count) m_op->addItem(tr("%1 (%n node(s))", nullptr, k).arg(qs(name)), qs(name));
    }
    if (int i = m_op->findData(previous); i >= 0) m_op->setCurrentIndex(i);
    updateEnabled();
}

void MinifierPanel::updateEnabled() {
    const bool running = isRunning();
    const bool haveGraph = m_doc && m_doc->currentGraph();
    const bool haveResult = m_result && m_result->reproduced && m_result->graph;
    m_run->setEnabled(!running && haveGraph);
    m_cancel->setEnabled(running);
    m_open->setEnabled(!running && haveResult && m_resultDir);
    m_export->setEnabled(!running && haveResult);
    for (QWidget* w : {static_cast<QWidget*>(m_check), static_cast<QWidget*>(m_pages), static_cast<QWidget*>(m_jobs),
                       static_cast<QWidget*>(m_timeout)})
        w->setEnabled(!running);
}

bool MinifierPanel::start() {
    if (isRunning()) return false;
    const LoadedGraph* lg = m_doc ? m_doc->currentGraph() : nullptr;
    if (!lg) {
        m_status->setText(tr("Open a graph first."));
        return false;
    }
    std::vector<std::string> checks, injects;
    switch (m_check->currentData().toInt()) {
    case InjectedFault:
        if (m_op->currentData().toString().isEmpty()) {
            m_status->setText(tr("Choose the op to inject the fault into."));
            return false;
        }
        injects.push_back(m_op->currentData().toString().toStdString() +
                          ":scale=" + QString::number(m_scale->value(), 'g', 10).toStdString());
        break;
    case Accuracy: checks.push_back("accuracy:" + m_sides->currentText().toStdString()); break;
    case PassFails:
        checks.push_back("pass-fails:" + m_pass->currentText().trimmed().toStdString() + ":" +
                         m_regex->text().toStdString());
        break;
    case Command: checks.push_back("command:" + m_command->text().toStdString()); break;
    case TorchCompile: {
        const std::string t = m_torch->text().trimmed().toStdString();
        if (t.rfind("torch-compile", 0) != 0) {
            m_status->setText(tr("The PyTorch check is written torch-compile[:BACKEND[@DEVICE]][:KEY=VALUE,...]."));
            return false;
        }
        checks.push_back(t);
        break;
    }
    }
    auto spec = minify::parseFailureSpec(checks, injects);
    if (!spec.ok()) {
        m_status->setText(tr("Bad check: %1").arg(qs(spec.error().str())));
        return false;
    }
    if (m_executable.isEmpty() || !QFileInfo(m_executable).isExecutable()) {
        m_status->setText(tr("Cannot find the fxray executable that runs the queries (set FXRAY_EXE)."));
        return false;
    }
    auto run = std::make_shared<Run>();
    run->graph = std::shared_ptr<Graph>(lg->executable().clone());
    if (auto missing = missingConstants(*run->graph); !missing.empty()) {
        m_status->setText(
            tr("The file does not carry the value of constant '%1'; minify it with `fxray minify --constants DIR`.")
                .arg(qs(missing[0])));
        return false;
    }
    run->opts = std::make_shared<minify::MinifyOptions>();
    run->opts->spec = std::move(spec).value();
    run->opts->oracle.jobs = m_jobs->value();
    run->opts->oracle.timeoutSeconds = m_timeout->value();
    run->opts->oracle.executable = m_executable.toStdString();
    run->opts->cancel = &run->cancel;
    run->dir = std::make_shared<QTemporaryDir>();
    run->info.sourceFile = m_doc->path().toStdString();
    run->info.graphSel = lg->id;
    m_sourcePath = m_doc->path();
    m_graphId = qs(lg->id);

    m_current = run;
    m_result.reset();
    m_resultOpts.reset();
    m_resultDir.reset();
    m_shownBest = nullptr;
    m_shownNodes = 0;
    m_steps->clear();
    m_code->clear();
    m_status->setText(tr("Starting: the first query checks that the graph shows the failure…"));
    const std::string command = commandFor(run->dir->path());
    // The minifier's own queries run in child processes; this worker only drives them.
    m_lane->start<QString>(
        QString(),
        [run, command, panel = this](const JobContext& ctx) {
            QString error;
            auto inputs = randomInputs(*run->graph, run->opts->spec.seed);
            if (!inputs.ok()) return qs(inputs.error().str());
            // Progress comes after every query wave; the UI needs a fraction of that.
            auto last = std::chrono::steady_clock::now() - std::chrono::seconds(1);
            size_t lastNodes = 0;
            auto progress = [&](const minify::MinifyProgress& p) {
                const auto now = std::chrono::steady_clock::now();
                if (p.nodes == lastNodes && now - last < std::chrono::milliseconds(100)) return;
                last = now;
                lastNodes = p.nodes;
                // Runs on the UI thread (the panel outlives its lane's posts).
                ctx.post([panel, p] { panel->onProgress(p); });
            };
            auto r = minify::minifyGraph(*run->graph, std::move(inputs).value(), *run->opts, progress);
            if (!r.ok()) return qs(r.error().str());
            run->result = std::make_shared<minify::MinifyResult>(std::move(r).value());
            if (run->result->reproduced && run->result->graph && run->dir->isValid()) {
                minify::ExportInfo info = run->info;
                info.commandLine = command;
                if (auto st =
                        minify::writeMinifyOutputs(run->dir->path().toStdString(), *run->result, *run->opts, info);
                    !st.ok())
                    error = qs(st.error().str());
            }
            return error;
        },
        [this, run](QString& error) { onFinished(run, error); });
    updateEnabled();
    return true;
}

bool MinifierPanel::startTorchCompile(const QString& spec) {
    if (isRunning()) return false;
    m_check->setCurrentIndex(m_check->findData(int(TorchCompile)));
    m_torch->setText(spec);
    // A cold torch.compile (Python start, Inductor's first C++ or Triton compile) takes minutes.
    m_timeout->setValue(std::max(m_timeout->value(), 300.0));
    return start();
}

void MinifierPanel::cancel() {
    if (!m_current) return;
    m_current->cancel = true;
    m_cancel->setEnabled(false);
    m_status->setText(tr("Cancelling: waiting for the queries in flight…"));
}

void MinifierPanel::onProgress(const minify::MinifyProgress& p) {
    if (p.best && p.best.get() != m_shownBest) {
        m_shownBest = p.best.get();
        m_code->setPlainText(qs(printGraph(*p.best)));
    }
    if (p.nodes != m_shownNodes && p.nodes > 0) {
        m_steps->addItem(
            tr("%1 nodes after %n query(s) (%2)", nullptr, int(p.queries)).arg(p.nodes).arg(qs(p.strategy)));
        m_steps->scrollToBottom();
        m_shownNodes = p.nodes;
    }
    if (m_current && m_current->cancel) return;  // keep saying that it is cancelling
    m_status->setText(tr("%n query(s) · %1 → %2 nodes · %3 s · %4", nullptr, int(p.queries))
                          .arg(p.nodesBefore)
                          .arg(p.nodes)
                          .arg(p.seconds, 0, 'f', 1)
                          .arg(qs(p.strategy)));
}

void MinifierPanel::onFinished(std::shared_ptr<Run> run, const QString& error) {
    m_current.reset();
    const std::shared_ptr<minify::MinifyResult> r = run->result;
    if (!error.isEmpty()) {
        m_status->setText(tr("Minify failed: %1").arg(error));
    } else if (!r) {
        m_status->setText(tr("Minify failed."));
    } else if (!r->reproduced) {
        m_status->setText(r->cancelled
                              ? tr("Cancelled before the failure was confirmed.")
                              : tr("The graph does not show the failure, nothing to minify: %1").arg(qs(r->message)));
    } else {
        m_result = r;
        m_resultOpts = run->opts;
        m_resultDir = run->dir;
        m_shownNodes = r->nodesAfter;
        if (r->graph && r->graph.get() != m_shownBest) {
            m_shownBest = r->graph.get();
            m_code->setPlainText(qs(printGraph(*r->graph)));
        }
        const QString counts = tr("%1 → %2 nodes in %n query(s) (%3 s)", nullptr, int(r->queries))
                                   .arg(r->nodesBefore)
                                   .arg(r->nodesAfter)
                                   .arg(r->seconds, 0, 'f', 1);
        m_status->setText((r->cancelled ? tr("Cancelled; best so far: %1") : tr("Minified: %1")).arg(counts) +
                          QLatin1Char('\n') + tr("Failure: %1").arg(qs(r->signature)));
        if (!r->bisection.empty()) m_steps->addItem(tr("Bisection: %1").arg(qs(r->bisection)));
        for (const std::string& s : r->steps) m_steps->addItem(tr("Step: %1").arg(qs(s)));
        m_steps->scrollToBottom();
    }
    updateEnabled();
    Q_EMIT finished();
}

std::string MinifierPanel::commandFor(const QString& dir) const {
    const std::string d = dir.toStdString();
    std::string cmd = "fxray minify " + quoteArg(d + "/minified.py") + " --inputs " + quoteArg(d + "/inputs");
    const minify::MinifyOptions* opts =
        m_resultOpts ? m_resultOpts.get() : (m_current ? m_current->opts.get() : nullptr);
    if (!opts) return cmd;
    for (const auto& c : opts->spec.checks) cmd += " --check " + quoteArg(c.text);
    for (const auto& i : opts->spec.injects) cmd += " --inject " + quoteArg(i.text);
    if (m_result && !m_result->bisection.empty() && !m_result->passes.empty()) {
        std::string list;
        for (const auto& p : m_result->passes) list += (list.empty() ? "" : ",") + p;
        cmd += " --passes " + list;
    }
    return cmd;
}

bool MinifierPanel::exportTo(const QString& dir) {
    if (!m_result || !m_result->reproduced || !m_result->graph || !m_resultOpts) {
        m_status->setText(tr("Nothing to export: run the minifier first."));
        return false;
    }
    if (!QDir().mkpath(dir)) {
        m_status->setText(tr("Cannot create the folder %1.").arg(dir));
        return false;
    }
    minify::ExportInfo info;
    info.sourceFile = m_sourcePath.toStdString();
    info.graphSel = m_graphId.toStdString();
    info.commandLine = commandFor(dir);
    if (auto s = minify::writeMinifyOutputs(dir.toStdString(), *m_result, *m_resultOpts, info); !s.ok()) {
        m_status->setText(tr("Export failed: %1").arg(qs(s.error().str())));
        return false;
    }
    m_status->setText(tr("Wrote %1: minified.py, inputs/, repro.py, session.json, minified.fxray")
                          .arg(QDir::toNativeSeparators(dir)));
    return true;
}

bool MinifierPanel::openResult() {
    if (!m_resultDir || !m_doc || isRunning()) return false;
    const QString file = m_resultDir->filePath(QStringLiteral("minified.fxray"));
    if (!QFileInfo::exists(file)) {
        m_status->setText(tr("The result's session file is missing: %1").arg(file));
        return false;
    }
    m_doc->loadAsync(file);
    return true;
}

}  // namespace fxray::views
