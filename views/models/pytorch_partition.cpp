#include "models/pytorch_partition.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace fxray::views {

std::optional<PyTorchPartition> readPyTorchPartition(const QString& summaryPath) {
    QFile f(summaryPath);
    if (!f.open(QIODevice::ReadOnly)) return std::nullopt;
    QJsonParseError err{};
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &err);
    if (err.error != QJsonParseError::NoError || !doc.isObject()) return std::nullopt;
    const QJsonObject o = doc.object();
    if (!o.value(QStringLiteral("saved")).isArray()) return std::nullopt;
    PyTorchPartition p;
    p.summaryPath = summaryPath;
    for (const QJsonValue& v : o.value(QStringLiteral("saved")).toArray()) {
        const QJsonObject s = v.toObject();
        PyTorchSavedValue sv;
        sv.name = s.value(QStringLiteral("name")).toString();
        for (const QJsonValue& d : s.value(QStringLiteral("shape")).toArray()) sv.shape << d.toInteger();
        sv.dtype = s.value(QStringLiteral("dtype")).toString();
        sv.bytes = s.value(QStringLiteral("bytes")).toInteger();
        if (!sv.name.isEmpty()) p.saved << sv;
    }
    p.savedBytes = o.value(QStringLiteral("saved_bytes")).toInteger();
    p.numFwdOutputs = o.value(QStringLiteral("num_fwd_outputs")).toInt(-1);
    return p;
}

std::optional<PyTorchPartition> findPyTorchPartition(const QString& loadedPath) {
    if (loadedPath.isEmpty()) return std::nullopt;
    QFileInfo info(loadedPath);
    QDir dir = info.isDir() ? QDir(info.absoluteFilePath()) : info.absoluteDir();
    for (int up = 0; up < 4; ++up) {
        const QString candidate = dir.filePath(QStringLiteral("summary.json"));
        if (QFileInfo::exists(candidate)) return readPyTorchPartition(candidate);
        if (!dir.cdUp()) break;
    }
    return std::nullopt;
}

}  // namespace fxray::views
