#include "document.h"

#include "import/fx_text_reader.h"
#include "import/loader.h"
#include "import/session_file.h"
#include "partition/partitioner.h"
#include "pass/compile_trace.h"
#include "transforms/passes.h"

#include <QFileInfo>
#include <QMetaObject>
#include <QThreadPool>

#include "jobs/job_lane.h"

#include <algorithm>
#include <filesystem>

namespace fxray::views {

namespace {

QString diagText(const Diagnostic& d) { return QString::fromStdString(d.str()); }

struct CompileOutcome {
    std::shared_ptr<const CompileTrace> trace;
    QString error;
};

CompileOutcome runCompile(const Graph& source, const QString& pipeline) {
    auto pm = buildPipeline(pipeline.toStdString());
    if (!pm.ok()) return {nullptr, diagText(pm.error())};
    std::unique_ptr<Graph> g = source.clone();
    return {std::make_shared<const CompileTrace>((*pm)->run(*g)), {}};
}

struct PartitionOutcome {
    std::shared_ptr<const PartitionResult> result;
    QString error;
};

PartitionOutcome runPartition(const Graph& joint, double budget, const std::vector<std::string>& staticInputs) {
    PartitionOptions o;
    o.memoryBudget = budget;
    o.staticLifetimeInputs = staticInputs;
    auto r = partitionJoint(joint, o);
    if (!r.ok()) return {nullptr, diagText(r.error())};
    return {std::make_shared<const PartitionResult>(std::move(*r)), {}};
}

}  // namespace

Document::Document(QObject* parent) : QObject(parent), m_pool(new QThreadPool(this)) {
    m_pool->setMaxThreadCount(1);
    m_loadLane = new JobLane(this, m_pool);
    m_compileLane = new JobLane(this, m_pool);
    m_partitionLane = new JobLane(this, m_pool);
    for (JobLane* lane : {m_loadLane, m_compileLane, m_partitionLane})
        connect(lane, &JobLane::busyChanged, this, [this](const QString& what) {
            // One status for the three lanes: what was started last, idle when all are.
            if (!what.isEmpty())
                Q_EMIT busy(what);
            else if (!isBusy())
                Q_EMIT busy(QString());
        });
}

Document::~Document() {
    // Jobs post their results to the lanes; they must finish before the lanes go away.
    m_loadLane->abandon();
    m_compileLane->abandon();
    m_partitionLane->abandon();
}

bool Document::isBusy() const { return m_loadLane->isBusy() || m_compileLane->isBusy() || m_partitionLane->isBusy(); }

void Document::cancel() {
    m_loadLane->cancel();
    m_compileLane->cancel();
    m_partitionLane->cancel();
    Q_EMIT busy(QString());
}

// ---- file ---------------------------------------------------------------------------------

bool Document::loadSync(const QString& path) {
    auto f = loadFile(path.toStdString());
    if (!f.ok()) {
        m_lastError = diagText(f.error());
        Q_EMIT failed(m_lastError);
        return false;
    }
    setFile(std::make_shared<LoadedFile>(std::move(*f)), path);
    return true;
}

void Document::loadAsync(const QString& path) {
    struct Loaded {
        std::shared_ptr<LoadedFile> file;
        QString error;
    };
    m_loadLane->start<Loaded>(
        tr("Loading %1").arg(path),
        [path](const JobContext&) {
            auto f = loadFile(path.toStdString());
            if (!f.ok()) return Loaded{nullptr, diagText(f.error())};
            return Loaded{std::make_shared<LoadedFile>(std::move(*f)), {}};
        },
        [this, path](Loaded& r) {
            if (!r.file) {
                m_lastError = r.error;
                Q_EMIT failed(r.error);
                return;
            }
            setFile(r.file, path);
        });
}

void Document::setFile(std::shared_ptr<LoadedFile> file, const QString& path) {
    m_file = std::move(file);
    m_path = path;
    m_lastError.clear();
    m_graphIndex = -1;
    m_nodeErrors.clear();
    Q_EMIT fileChanged();
    Q_EMIT nodeErrorsChanged();
    if (m_file && !m_file->graphs.empty()) {
        // Same default as the CLI: the joint graph when there is one, else the first.
        int index = 0;
        auto sel = selectGraph(*m_file, "");
        if (sel.ok())
            for (size_t i = 0; i < m_file->graphs.size(); ++i)
                if (&m_file->graphs[i] == *sel) index = static_cast<int>(i);
        setGraphIndex(index);
    }
    // A saved session brings back where the user was (graph, pipeline, pass, selection).
    restoreSession();
}

// ---- current graph ------------------------------------------------------------------------

int Document::graphCount() const { return m_file ? static_cast<int>(m_file->graphs.size()) : 0; }

const LoadedGraph* Document::currentGraph() const {
    if (!m_file || m_graphIndex < 0 || m_graphIndex >= graphCount()) return nullptr;
    return &m_file->graphs[static_cast<size_t>(m_graphIndex)];
}

void Document::setGraphIndex(int index) {
    if (index < 0 || index >= graphCount()) return;
    if (index == m_graphIndex) return;
    m_graphIndex = index;
    // A trace and partition belong to one graph: drop them (and any result still in flight).
    m_compileLane->cancel();
    m_partitionLane->cancel();
    m_trace.reset();
    m_pipeline.clear();
    m_passIndex = -1;
    m_partition.reset();
    m_selection.clear();
    m_nodeErrors.clear();
    Q_EMIT graphChanged();
    Q_EMIT nodeErrorsChanged();
    Q_EMIT traceChanged();
    Q_EMIT passChanged();
    Q_EMIT partitionChanged();
    Q_EMIT selectionChanged(m_selection, this);
}

// ---- numerics -----------------------------------------------------------------------------

void Document::setNodeErrors(QHash<QString, double> errors) {
    m_nodeErrors = std::move(errors);
    Q_EMIT nodeErrorsChanged();
}

QString Document::recordedInputsDir() const {
    if (m_path.isEmpty()) return {};
    const QFileInfo fi(m_path);
    const QString dir = fi.absolutePath() + QLatin1Char('/') + fi.completeBaseName() + QStringLiteral("/inputs");
    return fi.isFile() && QFileInfo(dir).isDir() ? dir : QString();
}

// ---- compile ------------------------------------------------------------------------------

bool Document::compileSync(const QString& pipeline) {
    const LoadedGraph* lg = currentGraph();
    if (!lg) return false;
    m_compileLane->cancel();
    CompileOutcome r = runCompile(lg->executable(), pipeline);
    if (!r.trace) {
        m_lastError = r.error;
        Q_EMIT failed(r.error);
        return false;
    }
    m_pipeline = pipeline;
    m_trace = r.trace;
    m_passIndex = -1;
    Q_EMIT traceChanged();
    Q_EMIT passChanged();
    return true;
}

void Document::compileAsync(const QString& pipeline) {
    const LoadedGraph* lg = currentGraph();
    if (!lg) return;
    // The worker gets its own copy: the UI may switch graphs while it runs.
    std::shared_ptr<const Graph> source = lg->executable().clone();
    m_compileLane->start<CompileOutcome>(
        tr("Compiling (%1)").arg(pipeline),
        [source, pipeline](const JobContext&) { return runCompile(*source, pipeline); },
        [this, pipeline](CompileOutcome& r) {
            if (!r.trace) {
                m_lastError = r.error;
                Q_EMIT failed(r.error);
                return;
            }
            m_pipeline = pipeline;
            m_trace = r.trace;
            m_passIndex = -1;
            Q_EMIT traceChanged();
            Q_EMIT passChanged();
        });
}

void Document::setPassIndex(int index) {
    const int count = m_trace ? static_cast<int>(m_trace->passes.size()) : 0;
    index = std::clamp(index, -1, count - 1);
    if (index == m_passIndex) return;
    m_passIndex = index;
    Q_EMIT passChanged();
}

const PassRecord* Document::currentPass() const {
    if (!m_trace || m_passIndex < 0 || m_passIndex >= static_cast<int>(m_trace->passes.size())) return nullptr;
    return &m_trace->passes[static_cast<size_t>(m_passIndex)];
}

namespace {
/// The latest top-level snapshot at or before `index` (-1: the initial graph).
const Graph* snapshotAt(const CompileTrace& t, int index) {
    for (int i = std::min(index, static_cast<int>(t.passes.size()) - 1); i >= 0; --i) {
        const PassRecord& p = t.passes[static_cast<size_t>(i)];
        if (p.graph.empty() && p.changed && p.snapshot) return p.snapshot->graph.get();
    }
    return t.initial ? t.initial->graph.get() : nullptr;
}
}  // namespace

const Graph* Document::shownGraph() const {
    const LoadedGraph* lg = currentGraph();
    if (!lg) return nullptr;
    if (m_trace) {
        if (const Graph* g = snapshotAt(*m_trace, m_passIndex)) return g;
    }
    return &lg->executable();
}

const Graph* Document::previousGraph() const {
    if (!m_trace || m_passIndex < 0) return nullptr;
    return snapshotAt(*m_trace, m_passIndex - 1);
}

// ---- partition ----------------------------------------------------------------------------

bool Document::partitionSync(double budget) {
    const Graph* g = shownGraph();
    if (!g) return false;
    m_partitionLane->cancel();
    m_budget = budget;
    PartitionOutcome r = runPartition(*g, budget, staticInputs(*g));
    if (!r.result) {
        m_lastError = r.error;
        Q_EMIT failed(r.error);
        return false;
    }
    m_partition = r.result;
    Q_EMIT partitionChanged();
    return true;
}

void Document::setMemoryBudget(double budget) {
    const Graph* g = shownGraph();
    if (!g) return;
    m_budget = budget;
    std::shared_ptr<const Graph> source = g->clone();
    std::vector<std::string> statics = staticInputs(*g);
    m_partitionLane->start<PartitionOutcome>(
        tr("Partitioning (budget %1)").arg(budget, 0, 'f', 2),
        [source, budget, statics](const JobContext&) { return runPartition(*source, budget, statics); },
        [this](PartitionOutcome& r) {
            if (!r.result) {
                m_lastError = r.error;
                Q_EMIT failed(r.error);
                return;
            }
            m_partition = r.result;
            Q_EMIT partitionChanged();
        });
}

std::vector<std::string> Document::staticInputs(const Graph& joint) const {
    // Inductor passes parameters and buffers as static inputs, which PyTorch's partitioner saves
    // for free; only the Dynamo graph tells which primals they are. Take the Dynamo graph of the
    // same compile in this file, else a `dynamo_graph.py` beside a single FX file.
    const LoadedGraph* lg = currentGraph();
    if (!m_file || !lg) return {};
    for (const auto& other : m_file->graphs)
        if (other.stage == "dynamo_output_graph" && other.compileId == lg->compileId && other.graph)
            return staticInputsFromDynamo(joint, *other.graph);
    if (m_file->format == "fx-text") {
        const auto sibling = m_file->path.parent_path() / "dynamo_graph.py";
        std::error_code ec;
        if (std::filesystem::exists(sibling, ec)) {
            auto dyn = readFxFile(sibling);
            if (dyn.ok()) return staticInputsFromDynamo(joint, **dyn);
        }
    }
    return {};
}

// ---- session ------------------------------------------------------------------------------

SessionState Document::sessionState() const {
    SessionState s;
    if (const LoadedGraph* lg = currentGraph()) s.graph = lg->id;
    s.pipeline = m_pipeline.toStdString();
    s.passIndex = m_passIndex;
    for (const QString& n : m_selection) s.selection.push_back(n.toStdString());
    s.memoryBudget = m_budget;
    if (m_file && m_file->session) {
        // Keep what this window does not edit (notes, view keys of other versions).
        s.nodeNotes = m_file->session->nodeNotes;
        s.view = m_file->session->view;
        s.skippedPasses = m_file->session->skippedPasses;
    }
    return s;
}

bool Document::saveSessionTo(const QString& path) {
    if (!m_file) {
        m_lastError = tr("Nothing to save: no file is open");
        Q_EMIT failed(m_lastError);
        return false;
    }
    Status st = saveSession(path.toStdString(), *m_file, sessionState());
    if (!st.ok()) {
        m_lastError = diagText(st.error());
        Q_EMIT failed(m_lastError);
        return false;
    }
    return true;
}

void Document::restoreSession() {
    if (!m_file || !m_file->session) return;
    const SessionState s = *m_file->session;
    for (size_t i = 0; i < m_file->graphs.size(); ++i)
        if (m_file->graphs[i].id == s.graph) setGraphIndex(static_cast<int>(i));
    m_budget = s.memoryBudget;
    if (!s.pipeline.empty() && compileSync(QString::fromStdString(s.pipeline))) setPassIndex(s.passIndex);
    QStringList sel;
    for (const auto& n : s.selection) sel << QString::fromStdString(n);
    setSelection(sel, this);
}

// ---- selection ----------------------------------------------------------------------------

void Document::setSelection(const QStringList& nodeNames, QObject* origin) {
    if (nodeNames == m_selection) return;
    m_selection = nodeNames;
    Q_EMIT selectionChanged(m_selection, origin);
}

}  // namespace fxray::views
