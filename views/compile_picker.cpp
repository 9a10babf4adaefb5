#include "compile_picker.h"

#include "document.h"

#include "import/loader.h"

#include <QHeaderView>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMap>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace fxray::views {

namespace {
constexpr int kGraphIndexRole = Qt::UserRole + 1;
constexpr int kDetailsRole = Qt::UserRole + 2;

/// The few metrics worth a glance, as "key: value" lines.
QString metricsSummary(const QString& json) {
    const QJsonObject o = QJsonDocument::fromJson(json.toUtf8()).object();
    if (o.isEmpty()) return {};
    QStringList lines;
    auto add = [&](const char* key, const QString& label, const QString& unit = {}) {
        const QJsonValue v = o.value(QLatin1String(key));
        if (v.isNull() || v.isUndefined()) return;
        QString text = v.isDouble() ? QString::number(v.toDouble(), 'g', 4) : v.toVariant().toString();
        if (text.isEmpty()) return;
        lines << QStringLiteral("%1: %2%3").arg(label, text, unit);
    };
    add("co_name", QObject::tr("frame"));
    add("graph_node_count", QObject::tr("graph nodes"));
    add("graph_op_count", QObject::tr("graph ops"));
    add("guard_count", QObject::tr("guards"));
    add("entire_frame_compile_time_s", QObject::tr("frame compile"), QStringLiteral(" s"));
    add("backend_compile_time_s", QObject::tr("backend compile"), QStringLiteral(" s"));
    add("inductor_compile_time_s", QObject::tr("inductor compile"), QStringLiteral(" s"));
    add("code_gen_time_s", QObject::tr("code generation"), QStringLiteral(" s"));
    add("fail_type", QObject::tr("failure"));
    add("fail_reason", QObject::tr("reason"));
    return lines.join(QLatin1Char('\n'));
}
}  // namespace

CompilePicker::CompilePicker(Document* doc, QWidget* parent) : QWidget(parent), m_doc(doc) {
    setObjectName(QStringLiteral("compilePicker"));
    m_tree = new QTreeWidget(this);
    m_tree->setObjectName(QStringLiteral("compileTree"));
    m_tree->setHeaderLabels({tr("Compile / stage"), tr("Nodes"), tr("Time")});
    m_tree->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_tree->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_tree->header()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
    m_tree->setUniformRowHeights(true);
    m_details = new QLabel(this);
    m_details->setObjectName(QStringLiteral("compileDetails"));
    m_details->setWordWrap(true);
    m_details->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_details->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(0, 0, 0, 0);
    lay->addWidget(m_tree, 1);
    lay->addWidget(m_details);
    connect(m_doc, &Document::fileChanged, this, &CompilePicker::rebuild);
    connect(m_doc, &Document::graphChanged, this, &CompilePicker::syncCurrent);
    connect(m_tree, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
        showDetails(item);
        if (m_syncing || !item) return;
        const QVariant v = item->data(0, kGraphIndexRole);
        if (v.isValid()) m_doc->setGraphIndex(v.toInt());
    });
    rebuild();
}

int CompilePicker::graphEntryCount() const {
    int n = 0;
    for (QTreeWidgetItemIterator it(m_tree); *it; ++it)
        if ((*it)->data(0, kGraphIndexRole).isValid()) ++n;
    return n;
}

void CompilePicker::rebuild() {
    m_syncing = true;
    m_tree->clear();
    m_details->clear();
    const LoadedFile* f = m_doc->file();
    if (!f) {
        m_syncing = false;
        return;
    }
    // compile id -> metrics text (several compiles may share an id: list them all).
    QMap<QString, QStringList> metrics;
    QMap<QString, QString> times;
    for (const Artifact& a : f->artifacts) {
        if (a.name != "compilation_metrics") continue;
        const QString id = QString::fromStdString(a.compileId);
        const QString text = metricsSummary(QString::fromStdString(a.text));
        if (!text.isEmpty()) metrics[id] << text;
        const QJsonObject o = QJsonDocument::fromJson(QByteArray::fromStdString(a.text)).object();
        const QJsonValue t = o.value(QLatin1String("entire_frame_compile_time_s"));
        if (t.isDouble()) times[id] = tr("%1 s").arg(t.toDouble(), 0, 'f', 2);
    }
    QMap<QString, QTreeWidgetItem*> compiles;
    QMap<QPair<QString, QString>, QTreeWidgetItem*> stages;
    for (size_t i = 0; i < f->graphs.size(); ++i) {
        const LoadedGraph& g = f->graphs[i];
        const QString cid = g.compileId.empty() ? tr("(no compile id)") : QString::fromStdString(g.compileId);
        QTreeWidgetItem*& top = compiles[cid];
        if (!top) {
            top = new QTreeWidgetItem(m_tree, {tr("compile %1").arg(cid), QString(), times.value(cid)});
            top->setData(0, kDetailsRole, metrics.value(cid).join(QStringLiteral("\n—\n")));
            top->setFirstColumnSpanned(false);
        }
        const QString stage = QString::fromStdString(g.stage.empty() ? g.id : g.stage);
        QTreeWidgetItem*& st = stages[{cid, stage}];
        if (!st) st = new QTreeWidgetItem(top, {stage});
        auto* leaf = new QTreeWidgetItem(st, {QString::fromStdString(g.id), QString::number(g.graph->size())});
        leaf->setData(0, kGraphIndexRole, static_cast<int>(i));
        QString details = tr("%1\nstage: %2\n%n node(s)", nullptr, static_cast<int>(g.graph->size()))
                              .arg(QString::fromStdString(g.id), stage);
        if (!g.unknownOps.empty()) details += tr("\n%n unknown op(s)", nullptr, static_cast<int>(g.unknownOps.size()));
        for (const std::string& note : g.notes) details += QLatin1Char('\n') + QString::fromStdString(note);
        leaf->setData(0, kDetailsRole, details);
    }
    // A stage holding one graph selects that graph directly.
    for (QTreeWidgetItem* st : stages) {
        if (st->childCount() != 1) continue;
        QTreeWidgetItem* leaf = st->child(0);
        st->setData(0, kGraphIndexRole, leaf->data(0, kGraphIndexRole));
        st->setData(0, kDetailsRole, leaf->data(0, kDetailsRole));
        st->setText(1, leaf->text(1));
        delete leaf;
    }
    m_tree->expandAll();
    m_syncing = false;
    syncCurrent();
}

void CompilePicker::syncCurrent() {
    m_syncing = true;
    for (QTreeWidgetItemIterator it(m_tree); *it; ++it) {
        const QVariant v = (*it)->data(0, kGraphIndexRole);
        if (v.isValid() && v.toInt() == m_doc->graphIndex()) {
            m_tree->setCurrentItem(*it);
            break;
        }
    }
    m_syncing = false;
}

void CompilePicker::showDetails(QTreeWidgetItem* item) {
    m_details->setText(item ? item->data(0, kDetailsRole).toString() : QString());
}

}  // namespace fxray::views
