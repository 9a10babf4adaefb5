#pragma once
/// PyTorch's own partition of a joint graph, when the file comes from the corpus: the model
/// folder's summary.json records what `min_cut_rematerialization_partition` saved ("saved":
/// [{name, shape, dtype, bytes}], "saved_bytes"). The partition panel shows it beside fxray's.
#include <QList>
#include <QString>

#include <optional>

namespace fxray::views {

struct PyTorchSavedValue {
    QString name;
    QList<qint64> shape;
    QString dtype;  ///< "torch.float32"
    qint64 bytes = 0;
};

struct PyTorchPartition {
    QString summaryPath;
    QList<PyTorchSavedValue> saved;
    qint64 savedBytes = 0;  ///< PyTorch's "saved_bytes"
    int numFwdOutputs = -1;
};

/// Reads `summary.json` next to `loadedPath` or in one of its three nearest parent folders
/// (`<model>/graphs/x.py`, `<model>/debug/<graph>/`, `<model>/trace/torch_trace.log`). Nothing
/// when there is none or it records no partition.
std::optional<PyTorchPartition> findPyTorchPartition(const QString& loadedPath);

/// Parses one summary.json; nothing when it records no partition or is malformed.
std::optional<PyTorchPartition> readPyTorchPartition(const QString& summaryPath);

}  // namespace fxray::views
