#include "panels/kernel_panel.h"

#include "document.h"
#include "import/loader.h"
#include "models/kernel_artifact_model.h"

#include <QComboBox>
#include <QGuiApplication>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QShortcut>
#include <QVBoxLayout>

namespace fxray::views {

KernelPanel::KernelPanel(Document* doc, QWidget* parent)
    : QWidget(parent),
      m_doc(doc),
      m_model(new KernelArtifactModel(this)),
      m_chooser(new QComboBox(this)),
      m_find(new QLineEdit(this)),
      m_findStatus(new QLabel(this)),
      m_edit(new QPlainTextEdit(this)) {
    setObjectName(QStringLiteral("kernelPanel"));
    m_chooser->setObjectName(QStringLiteral("kernel.chooser"));
    m_chooser->setModel(m_model);
    m_chooser->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_find->setObjectName(QStringLiteral("kernel.find"));
    m_find->setPlaceholderText(tr("Find in code (Enter: next, Shift+Enter: previous)"));
    m_find->setClearButtonEnabled(true);
    m_findStatus->setObjectName(QStringLiteral("kernel.findStatus"));
    m_edit->setObjectName(QStringLiteral("kernel.editor"));
    m_edit->setReadOnly(true);
    m_edit->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_edit->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));

    auto* top = new QHBoxLayout;
    top->addWidget(m_chooser, 2);
    top->addWidget(m_find, 1);
    top->addWidget(m_findStatus);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(m_edit, 1);

    connect(m_chooser, &QComboBox::currentIndexChanged, this, &KernelPanel::showArtifact);
    connect(m_find, &QLineEdit::returnPressed, this, [this] {
        findNext(QGuiApplication::keyboardModifiers() & Qt::ShiftModifier);
    });
    connect(m_find, &QLineEdit::textChanged, this, [this] {
        // Search again from the top as the text is typed.
        QTextCursor c = m_edit->textCursor();
        c.movePosition(QTextCursor::Start);
        m_edit->setTextCursor(c);
        if (!m_find->text().isEmpty()) findNext();
        else m_findStatus->clear();
    });
    auto* findShortcut = new QShortcut(QKeySequence::Find, this, [this] {
        m_find->setFocus();
        m_find->selectAll();
    });
    findShortcut->setContext(Qt::WidgetWithChildrenShortcut);
    connect(m_doc, &Document::fileChanged, this, [this] {
        m_model->setFile(m_doc->file());
        showArtifact(m_chooser->currentIndex());
    });
    // A trace holds the code of several compiles: show the current graph's first.
    connect(m_doc, &Document::graphChanged, this, [this] {
        const LoadedGraph* g = m_doc->currentGraph();
        if (!g || g->compileId.empty()) return;
        const int row = m_chooser->findData(QString::fromStdString(g->compileId), KernelArtifactModel::CompileIdRole);
        if (row >= 0) m_chooser->setCurrentIndex(row);
    });
    m_model->setFile(m_doc->file());
    showArtifact(m_chooser->currentIndex());
}

void KernelPanel::showArtifact(int row) {
    const LoadedFile* f = m_doc->file();
    const int index = m_model->index(row, 0).data(KernelArtifactModel::ArtifactIndexRole).toInt();
    if (!f || row < 0 || index < 0 || index >= static_cast<int>(f->artifacts.size())) {
        m_edit->clear();
        m_edit->setPlaceholderText(f ? tr("This file carries no generated kernel code (inductor_output_code, output_code.py).")
                                     : QString());
        return;
    }
    m_edit->setPlainText(QString::fromStdString(f->artifacts[static_cast<size_t>(index)].text));
}

bool KernelPanel::findNext(bool backward) {
    const QString text = m_find->text();
    if (text.isEmpty()) return false;
    const QTextDocument::FindFlags flags = backward ? QTextDocument::FindBackward : QTextDocument::FindFlags();
    bool found = m_edit->find(text, flags);
    if (!found) {
        // Wrap around.
        QTextCursor c = m_edit->textCursor();
        c.movePosition(backward ? QTextCursor::End : QTextCursor::Start);
        m_edit->setTextCursor(c);
        found = m_edit->find(text, flags);
    }
    m_findStatus->setText(found ? QString() : tr("not found"));
    return found;
}

} // namespace fxray::views
