#include "panels/output_code_view.h"

#include <QComboBox>
#include <QEvent>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QPalette>
#include <QPlainTextEdit>
#include <QSet>
#include <QTextBlock>
#include <QVBoxLayout>

#include <algorithm>

namespace fxray::views {

OutputCodeView::OutputCodeView(QWidget* parent)
        : QWidget(parent), m_choose(new QComboBox(this)), m_info(new QLabel(this)), m_edit(new QPlainTextEdit(this)) {
    setObjectName(QStringLiteral("outputCodeView"));
    m_choose->setObjectName(QStringLiteral("outputCodeChooser"));
    m_choose->setToolTip(tr("Which of the compile's output codes (forward, backward, ...) to show"));
    m_info->setObjectName(QStringLiteral("outputCodeInfo"));
    m_info->setWordWrap(true);
    m_edit->setObjectName(QStringLiteral("outputCodeEditor"));
    m_edit->setReadOnly(true);
    m_edit->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_edit->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_edit->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    m_edit->setPlaceholderText(tr("This compile logged no Inductor output code."));
    m_edit->viewport()->installEventFilter(this);
    m_edit->installEventFilter(this);
    auto* top = new QHBoxLayout;
    top->setContentsMargins(0, 0, 0, 0);
    top->addWidget(m_choose);
    top->addWidget(m_info, 1);
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(0, 0, 0, 0);
    lay->addLayout(top);
    lay->addWidget(m_edit, 1);
    connect(m_choose, &QComboBox::activated, this, [this](int i) { showCode(i); });
}

void OutputCodeView::setCodes(std::vector<Code> codes) {
    m_codes = std::move(codes);
    m_current = -1;
    m_highlighted.clear();
    const QSignalBlocker block(m_choose);
    m_choose->clear();
    for (const Code& c : m_codes) m_choose->addItem(c.label);
    m_choose->setVisible(m_codes.size() > 1);
    if (m_codes.empty()) {
        m_edit->clear();
        m_edit->setExtraSelections({});
        m_info->clear();
        return;
    }
    showCode(0);
}

const OutputCodeMap* OutputCodeView::currentMap() const {
    return m_current >= 0 ? &m_codes[size_t(m_current)].map : nullptr;
}

void OutputCodeView::showCode(int i) {
    if (i < 0 || i >= count()) return;
    if (i != m_current) {
        m_current = i;
        const QSignalBlocker block(m_choose);
        m_choose->setCurrentIndex(i);
        m_edit->setPlainText(m_codes[size_t(i)].text);
        int linked = 0;
        for (const OutputCodeKernel& k : m_codes[size_t(i)].map.kernels) linked += k.nodes.empty() ? 0 : 1;
        m_info->setText(tr("%n kernel(s), %1 linked to graph nodes; click a kernel's line to select its nodes", nullptr,
                           int(m_codes[size_t(i)].map.kernels.size()))
                            .arg(linked));
    }
    applyHighlight(true);
}

int OutputCodeView::highlightNodes(const QStringList& nodes) {
    m_nodes = nodes;
    applyHighlight(true);
    return int(m_highlighted.size());
}

void OutputCodeView::applyHighlight(bool scroll) {
    m_highlighted.clear();
    const OutputCodeMap* map = currentMap();
    if (!map) return;
    for (const QString& n : m_nodes)
        for (int k : map->kernelsOfNode(n.toStdString()))
            if (std::find(m_highlighted.begin(), m_highlighted.end(), k) == m_highlighted.end())
                m_highlighted.push_back(k);
    // One background for a kernel's whole definition and its call sites, as a text selection
    // would look, so that the lines stand out in light and dark themes alike.
    QTextEdit::ExtraSelection base;
    base.format.setBackground(palette().color(QPalette::Highlight).lighter(170));
    base.format.setForeground(palette().color(QPalette::Text));
    base.format.setProperty(QTextFormat::FullWidthSelection, true);
    QList<QTextEdit::ExtraSelection> sels;
    int first = -1;
    QTextDocument* doc = m_edit->document();
    for (int k : m_highlighted)
        for (const auto& [a, b] : map->kernels[size_t(k)].ranges) {
            if (first < 0 || a < first) first = a;
            for (int line = a; line <= b; ++line) {
                QTextBlock block = doc->findBlockByNumber(line);
                if (!block.isValid()) break;
                QTextEdit::ExtraSelection s = base;
                s.cursor = QTextCursor(block);
                sels << s;
            }
        }
    m_edit->setExtraSelections(sels);
    if (scroll && first >= 0) {
        // The kernel's first line near the top, with a little of what comes before it.
        QTextCursor c(doc->findBlockByNumber(first));
        m_edit->setTextCursor(c);
        m_edit->centerCursor();
    }
}

QList<int> OutputCodeView::highlightedLines() const {
    QSet<int> lines;
    for (const QTextEdit::ExtraSelection& s : m_edit->extraSelections()) lines.insert(s.cursor.blockNumber());
    QList<int> out(lines.begin(), lines.end());
    std::sort(out.begin(), out.end());
    return out;
}

QStringList OutputCodeView::activateLine(int line) {
    const OutputCodeMap* map = currentMap();
    QStringList nodes;
    if (!map) return nodes;
    for (int k : map->kernelsAtLine(line))
        for (const std::string& n : map->kernels[size_t(k)].nodes)
            if (!nodes.contains(QString::fromStdString(n))) nodes << QString::fromStdString(n);
    if (nodes.isEmpty()) return nodes;
    m_nodes = nodes;
    applyHighlight(false);  // the user is looking at this line: no jump
    Q_EMIT kernelActivated(nodes, m_current);
    return nodes;
}

bool OutputCodeView::eventFilter(QObject* watched, QEvent* e) {
    if (watched == m_edit->viewport() && e->type() == QEvent::MouseButtonRelease) {
        auto* me = static_cast<QMouseEvent*>(e);
        // A click, not the end of a text selection.
        if (me->button() == Qt::LeftButton && !m_edit->textCursor().hasSelection())
            activateLine(m_edit->cursorForPosition(me->position().toPoint()).blockNumber());
    }
    if (watched == m_edit && e->type() == QEvent::KeyPress) {
        const int key = static_cast<QKeyEvent*>(e)->key();
        if (key == Qt::Key_Return || key == Qt::Key_Enter) {
            activateLine(m_edit->textCursor().blockNumber());
            return true;
        }
    }
    return QWidget::eventFilter(watched, e);
}

}  // namespace fxray::views
