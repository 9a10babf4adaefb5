#pragma once
/// The partition panel: splits the shown joint graph into forward and backward (automatically
/// when a joint graph is opened, or with the Partition button) and lists what the forward saves
/// for the backward — with bytes and totals, beside PyTorch's own choice when the model folder's
/// summary.json records it, the differences marked — plus the banned nodes with the rule that
/// banned them and the nodes recomputed in the backward. Its first tab draws the partition as
/// forward | saved tensors | backward lanes and shows what a budget move changed. The memory-budget slider re-runs the
/// partitioner live (debounced, on the Document's worker).
#include "models/pytorch_partition.h"

#include <QPointer>
#include <QWidget>

#include <optional>

class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSlider;
class QTabWidget;
class QTableView;
class QTimer;

namespace fxray::views {

class Document;
class SavedTensorModel;
class StringTableModel;

class PartitionLanesView;

class PartitionPanel : public QWidget {
    Q_OBJECT
public:
    explicit PartitionPanel(Document* doc, QWidget* parent = nullptr);
    ~PartitionPanel() override;

    SavedTensorModel* savedModel() const { return m_saved; }
    StringTableModel* bannedModel() const { return m_banned; }
    StringTableModel* recomputedModel() const { return m_recomputed; }
    QSlider* budgetSlider() const { return m_slider; }
    QDoubleSpinBox* budgetSpin() const { return m_spin; }
    QLabel* totalsLabel() const { return m_totals; }
    QLabel* statusLabel() const { return m_status; }
    /// Forward | saved tensors | backward, with the change of the last budget move (first tab).
    PartitionLanesView* lanesView() const { return m_lanes; }
    QTabWidget* tabs() const { return m_tabs; }
    /// Delay between the last slider move and the re-partition.
    static constexpr int kDebounceMs = 150;

private:
    void onFileChanged();
    void onGraphChanged();
    void onPartitionChanged();
    void budgetEdited(double budget);
    void repartition(double budget);
    bool currentIsJoint() const;
    /// Why the current graph is not a joint graph (empty text: no graph), nullopt when it is one.
    std::optional<QString> notJointReason() const;

    /// Guarded: item views emit signals while the window tears down, possibly after the
    /// Document is gone.
    QPointer<Document> m_doc;
    SavedTensorModel* m_saved;
    StringTableModel* m_banned;
    StringTableModel* m_recomputed;
    QPushButton* m_run;
    QSlider* m_slider;
    QDoubleSpinBox* m_spin;
    QTimer* m_debounce;
    QLabel* m_status;
    QLabel* m_totals;
    QTabWidget* m_tabs;
    PartitionLanesView* m_lanes;
    std::optional<PyTorchPartition> m_reference;
    double m_pending = 1.0;
    bool m_requested = false;  ///< a partition this panel asked for is running
};

}  // namespace fxray::views
