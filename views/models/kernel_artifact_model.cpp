#include "models/kernel_artifact_model.h"

#include "import/loader.h"

#include <algorithm>

namespace fxray::views {

KernelArtifactModel::KernelArtifactModel(QObject* parent) : QAbstractListModel(parent) {}

bool KernelArtifactModel::isKernelArtifact(const std::string& name) {
    static const char* const names[] = {"inductor_output_code", "output_code", "ir_post_fusion", "ir_pre_fusion"};
    return std::any_of(std::begin(names), std::end(names), [&](const char* n) { return name == n; });
}

void KernelArtifactModel::setFile(const LoadedFile* file) {
    beginResetModel();
    m_entries.clear();
    if (file) {
        for (size_t i = 0; i < file->artifacts.size(); ++i) {
            const Artifact& a = file->artifacts[i];
            if (!isKernelArtifact(a.name)) continue;
            Entry e;
            e.index = static_cast<int>(i);
            e.name = QString::fromStdString(a.name);
            e.compileId = QString::fromStdString(a.compileId);
            e.lines = static_cast<qsizetype>(std::count(a.text.begin(), a.text.end(), '\n'));
            m_entries.push_back(std::move(e));
        }
    }
    endResetModel();
}

int KernelArtifactModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_entries.size());
}

QVariant KernelArtifactModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
    const Entry& e = m_entries[static_cast<size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        return e.compileId.isEmpty()
                   ? tr("%1 (%n line(s))", nullptr, static_cast<int>(e.lines)).arg(e.name)
                   : tr("%1 · %2 (%n line(s))", nullptr, static_cast<int>(e.lines)).arg(e.compileId, e.name);
    case ArtifactIndexRole: return e.index;
    case ArtifactNameRole: return e.name;
    case CompileIdRole: return e.compileId;
    }
    return {};
}

}  // namespace fxray::views
