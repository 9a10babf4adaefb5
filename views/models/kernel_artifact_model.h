#pragma once
/// The kernel pane's list of code artifacts of the loaded file: Inductor's generated code
/// (`inductor_output_code`, `output_code.py`/`.cpp` of a debug folder) and its IR dumps
/// (`ir_post_fusion`, `ir_pre_fusion`), labelled with the compile they belong to. (The kernels
/// fxray generates itself are in the pane's other tab: models/kernel_report.h.)
#include <QAbstractListModel>
#include <QStringList>

#include <vector>

namespace fxray {
struct LoadedFile;
}

namespace fxray::views {

class KernelArtifactModel : public QAbstractListModel {
    Q_OBJECT
public:
    enum Role {
        ArtifactIndexRole = Qt::UserRole + 1,  ///< int: index into LoadedFile::artifacts
        ArtifactNameRole,                      ///< QString: "inductor_output_code", ...
        CompileIdRole,                         ///< QString
    };

    explicit KernelArtifactModel(QObject* parent = nullptr);

    /// Whether an artifact of this name is kernel code or IR the pane shows.
    static bool isKernelArtifact(const std::string& name);
    void setFile(const LoadedFile* file);

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

private:
    struct Entry {
        int index = -1;
        QString name;
        QString compileId;
        qsizetype lines = 0;
    };
    std::vector<Entry> m_entries;
};

}  // namespace fxray::views
