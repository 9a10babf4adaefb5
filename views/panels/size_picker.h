#pragma once
/// The numerics pane's size picker (issue 15): for a dynamic-shape graph, one spin box per
/// symbol its inputs mention (s23, s27, ...), prefilled with the trace's hints or 8
/// (exec/shape_binding.h completeBinding). Random inputs are drawn at these sizes; an inputs
/// folder binds them instead (its binding is pinned, and a value that differs from it is a
/// problem, as is a negative size or an input whose size comes out negative). problem() says
/// what is wrong in a sentence; the pane refuses to run until it is empty.
///
/// It copies what it needs out of the graph (symbols, hints, the symbolic placeholders'
/// metadata) so that it never points into a graph a later file or pass replaces.
#include "ir/sym_expr.h"
#include "ir/tensor_meta.h"

#include <QString>
#include <QStringList>
#include <QWidget>

#include <optional>
#include <vector>

class QHBoxLayout;
class QLabel;
class QSpinBox;

namespace fxray {
class Graph;
}

namespace fxray::views {

class SizePicker : public QWidget {
    Q_OBJECT
public:
    explicit SizePicker(QWidget* parent = nullptr);
    ~SizePicker() override;

    /// Rebuilds the boxes for `g` (none, and hidden, for a static graph or null).
    void setGraph(const Graph* g);
    /// The input symbols, in order of first appearance.
    QStringList symbols() const { return m_symbols; }
    /// The spin box of `symbol`, or null.
    QSpinBox* spinBox(const QString& symbol) const;
    /// What the boxes say (every symbol).
    sym::Binding binding() const;
    /// Sets the boxes named in `b` (others keep their values).
    void setBinding(const sym::Binding& b);
    /// "s23=5,s27=32": fxray's --sizes argument; empty for a static graph.
    QString sizesArgument() const;

    /// The binding an inputs folder gives (null: random inputs, sizes free). Fills the boxes.
    void pin(const std::optional<sym::Binding>& folderBinding);
    bool pinned() const { return m_pinned.has_value(); }

    /// Why these sizes cannot run, in one sentence; empty when they can.
    QString problem() const;
    /// A remark that does not stop a run (a size PyTorch would have specialized), or empty.
    QString warning() const;

Q_SIGNALS:
    /// A box changed (by the user or setBinding/pin).
    void changed();

private:
    void updateMessage();

    struct SymInput {
        QString name;
        TensorMeta meta;
    };
    QStringList m_symbols;
    std::vector<QSpinBox*> m_boxes;  ///< one per symbol, same order
    std::vector<SymInput> m_inputs;  ///< tensor placeholders with symbolic sizes
    std::optional<sym::Binding> m_pinned;
    QHBoxLayout* m_row;
    QLabel* m_title;
    QLabel* m_message;
};

}  // namespace fxray::views
