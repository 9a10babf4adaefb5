#pragma once
/// The kernel pane: the code Inductor generated for the file's graphs (`inductor_output_code`,
/// debug folders' `output_code.py`) and its IR dumps (`ir_post_fusion`), one at a time, read-only
/// and monospace, with a find box (Enter: next, Shift+Enter: previous).
#include <QPointer>
#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;

namespace fxray::views {

class Document;
class KernelArtifactModel;

class KernelPanel : public QWidget {
    Q_OBJECT
public:
    explicit KernelPanel(Document* doc, QWidget* parent = nullptr);

    KernelArtifactModel* model() const { return m_model; }
    QComboBox* chooser() const { return m_chooser; }
    QPlainTextEdit* editor() const { return m_edit; }
    QLineEdit* findBox() const { return m_find; }
    /// Finds the next (or previous) occurrence of the find box's text, wrapping around.
    bool findNext(bool backward = false);

private:
    void showArtifact(int row);

    /// Guarded: item views emit signals while the window tears down, possibly after the
    /// Document is gone.
    QPointer<Document> m_doc;
    KernelArtifactModel* m_model;
    QComboBox* m_chooser;
    QLineEdit* m_find;
    QLabel* m_findStatus;
    QPlainTextEdit* m_edit;
};

} // namespace fxray::views
