#pragma once
/// The code pane: the FX text of the shown graph (print_readable form). A click on a line
/// selects the node defined there; a selection made elsewhere scrolls to and highlights the
/// lines of the selected nodes.
#include "models/fx_line_index.h"

#include <QPointer>
#include <QWidget>

class QPlainTextEdit;

namespace fxray {
class Graph;
}

namespace fxray::views {

class Document;

class CodePanel : public QWidget {
    Q_OBJECT
public:
    explicit CodePanel(Document* doc, QWidget* parent = nullptr);

    QPlainTextEdit* editor() const { return m_edit; }
    const FxLineIndex& lineIndex() const { return m_index; }
    /// 0-based lines currently highlighted as selected.
    QList<int> highlightedLines() const { return m_highlighted; }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void refreshText();
    void showSelection(const QStringList& names, QObject* origin);

    /// Guarded: item views emit signals while the window tears down, possibly after the
    /// Document is gone.
    QPointer<Document> m_doc;
    QPlainTextEdit* m_edit;
    FxLineIndex m_index;
    const Graph* m_shown = nullptr;
    QList<int> m_highlighted;
};

}  // namespace fxray::views
