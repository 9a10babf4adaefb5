#pragma once
/// Inductor's output code of a compile beside its graph (the Compile story pane's "Output code"
/// tab): the code as logged, one output code at a time (forward, backward, ...), with node <->
/// kernel links both ways (import/output_code_map.h). highlightNodes() marks the lines of the
/// kernels that compute the given post-grad nodes — definition and call sites — and scrolls to
/// the first; a click on a line inside a kernel reports that kernel's nodes.
#include "import/output_code_map.h"

#include <QList>
#include <QString>
#include <QStringList>
#include <QWidget>

#include <vector>

class QComboBox;
class QLabel;
class QPlainTextEdit;

namespace fxray::views {

class OutputCodeView : public QWidget {
    Q_OBJECT
public:
    /// One output code and its map.
    struct Code {
        QString label;  ///< "0_forward" (the AOT id), else "output code N"
        QString text;
        OutputCodeMap map;
    };

    explicit OutputCodeView(QWidget* parent = nullptr);

    /// Replaces the codes and shows the first (none: a placeholder saying there is no output code).
    void setCodes(std::vector<Code> codes);
    int count() const { return int(m_codes.size()); }
    int currentCode() const { return m_current; }
    /// Shows code i (keeps the highlight of the nodes last asked for).
    void showCode(int i);
    const OutputCodeMap* currentMap() const;

    /// Highlights the kernels of the current code that compute any of `nodes` and scrolls to the
    /// first of their lines. Returns how many kernels are highlighted.
    int highlightNodes(const QStringList& nodes);
    /// The highlighted lines (0-based), ascending.
    QList<int> highlightedLines() const;
    /// What a click on `line` (0-based) does: reports the nodes of the kernels there. Returns them.
    QStringList activateLine(int line);

    QPlainTextEdit* editor() const { return m_edit; }
    QComboBox* chooser() const { return m_choose; }

Q_SIGNALS:
    /// The user clicked a line of kernels that compute `nodes` in code `code`.
    void kernelActivated(const QStringList& nodes, int code);

protected:
    bool eventFilter(QObject* watched, QEvent* e) override;

private:
    void applyHighlight(bool scroll);

    QComboBox* m_choose;
    QLabel* m_info;
    QPlainTextEdit* m_edit;
    std::vector<Code> m_codes;
    int m_current = -1;
    QStringList m_nodes;             ///< the nodes last highlighted
    std::vector<int> m_highlighted;  ///< kernels of the current code highlighted now
};

}  // namespace fxray::views
