#include "panels/code_panel.h"

#include "document.h"
#include "ir/printer.h"
#include "pass/compile_trace.h"

#include <QEvent>
#include <QFontDatabase>
#include <QMouseEvent>
#include <QPlainTextEdit>
#include <QTextBlock>
#include <QVBoxLayout>

namespace fxray::views {

namespace {

/// The printed text of `g`: a snapshot's cached text when `g` is one, else printed now.
QString textOf(const Graph& g, const CompileTrace* trace) {
    if (trace) {
        if (trace->initial && trace->initial->graph.get() == &g) return QString::fromStdString(trace->initial->text());
        for (const PassRecord& p : trace->passes)
            if (p.snapshot && p.snapshot->graph.get() == &g) return QString::fromStdString(p.snapshot->text());
    }
    return QString::fromStdString(printGraph(g));
}

}  // namespace

CodePanel::CodePanel(Document* doc, QWidget* parent) : QWidget(parent), m_doc(doc), m_edit(new QPlainTextEdit(this)) {
    setObjectName(QStringLiteral("codePanel"));
    m_edit->setObjectName(QStringLiteral("code.editor"));
    m_edit->setReadOnly(true);
    m_edit->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_edit->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_edit->setPlaceholderText(tr("The FX code of the shown graph appears here."));
    m_edit->viewport()->installEventFilter(this);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_edit);

    connect(m_doc, &Document::passChanged, this, &CodePanel::refreshText);
    connect(m_doc, &Document::graphChanged, this, [this] {
        m_shown = nullptr;  // a new file may reuse the old graph's address
        refreshText();
    });
    connect(m_doc, &Document::traceChanged, this, [this] {
        m_shown = nullptr;
        refreshText();
    });
    connect(m_doc, &Document::selectionChanged, this, &CodePanel::showSelection);
    refreshText();
}

void CodePanel::refreshText() {
    const Graph* g = m_doc->shownGraph();
    if (g == m_shown && g) return;
    m_shown = g;
    if (!g) {
        m_edit->clear();
        m_index = {};
        m_highlighted.clear();
        return;
    }
    const QString text = textOf(*g, m_doc->trace().get());
    m_index = FxLineIndex(text, *g);
    m_edit->setPlainText(text);
    showSelection(m_doc->selection(), nullptr);
}

void CodePanel::showSelection(const QStringList& names, QObject* origin) {
    QList<QTextEdit::ExtraSelection> extras;
    m_highlighted.clear();
    QTextCursor first;
    QColor colour = palette().highlight().color();
    colour.setAlpha(70);
    for (const QString& n : names) {
        const int line = m_index.lineOf(n);
        if (line < 0 || m_highlighted.contains(line)) continue;
        m_highlighted << line;
        QTextEdit::ExtraSelection sel;
        sel.cursor = QTextCursor(m_edit->document()->findBlockByNumber(line));
        sel.format.setBackground(colour);
        sel.format.setProperty(QTextFormat::FullWidthSelection, true);
        extras << sel;
        if (first.isNull()) first = sel.cursor;
    }
    m_edit->setExtraSelections(extras);
    // A click here already shows the line; scrolling would move the text under the mouse.
    if (origin != this && !first.isNull()) {
        m_edit->setTextCursor(first);
        m_edit->centerCursor();
    }
}

bool CodePanel::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_edit->viewport() && event->type() == QEvent::MouseButtonRelease) {
        auto* me = static_cast<QMouseEvent*>(event);
        if (me->button() == Qt::LeftButton && !m_edit->textCursor().hasSelection()) {
            const QTextCursor c = m_edit->cursorForPosition(me->position().toPoint());
            const QString name = m_index.nodeAt(c.blockNumber(), c.positionInBlock());
            if (!name.isEmpty()) m_doc->setSelection({name}, this);
        }
    }
    return QWidget::eventFilter(watched, event);
}

}  // namespace fxray::views
