#include "models/meta_text.h"

#include "ir/graph.h"

#include <QStringList>

#include <map>

namespace fxray::views {

namespace {

QString dims(const std::vector<int64_t>& values, const std::vector<SymInt>& sym) {
    QStringList out;
    for (size_t d = 0; d < values.size(); ++d) {
        if (d < sym.size() && sym[d].isSymbolic())
            out << QString::fromStdString(sym[d].text());
        else if (values[d] < 0)
            out << QStringLiteral("?");  // symbolic, but the expression is not known
        else
            out << QString::number(values[d]);
    }
    return QLatin1Char('[') + out.join(QStringLiteral(", ")) + QLatin1Char(']');
}

/// Inferred metadata of a symbolic graph carries kUnboundSize for what depends on a symbol.
bool hasUnknown(const TensorMeta& m) {
    for (size_t d = 0; d < m.shape.size(); ++d)
        if (m.isUnknownDim(d)) return true;
    return false;
}

}  // namespace

QString metaText(const TensorMeta& m, bool withStrides, bool withDevice) {
    QString s = QString::fromLatin1(dtypeAbbrev(m.dtype).data(), static_cast<qsizetype>(dtypeAbbrev(m.dtype).size()));
    s += dims(m.shape, m.symShape);
    if (withStrides && m.stridesKnown) s += dims(m.strides, m.symStrides);
    if (withDevice && m.deviceKnown) s += QString::fromStdString(m.device.str());
    return s;
}

const TensorMeta* elementMeta(const Node& n, size_t i) {
    const TensorMeta* own = i < n.meta.size() ? &n.meta[i] : nullptr;
    if (own && !hasUnknown(*own)) return own;
    // PyTorch annotates the getitem that unpacks a tuple even where the tuple node has none.
    for (const Node* u : n.users) {
        if (u->target() != "operator.getitem" || u->args.size() < 2 || !u->annotated || u->meta.size() != 1) continue;
        const Argument& idx = u->args[1];
        if (idx.kind == Argument::Kind::Int && idx.i == static_cast<int64_t>(i)) return &u->meta.front();
    }
    return own;
}

QString nodeTypeText(const Node& n, bool withStrides, bool withDevice) {
    if (!n.annotationText.empty()) return QString::fromStdString(n.annotationText);
    if (n.meta.empty()) {
        // Inference could not run the node (a tuple of symbolic size, such as split's): what its
        // annotated getitems say, in index order, "?" for elements none unpacks.
        std::map<int64_t, const TensorMeta*> items;
        for (const Node* u : n.users) {
            if (u->target() != "operator.getitem" || u->args.size() < 2 || !u->annotated || u->meta.size() != 1)
                continue;
            const Argument& idx = u->args[1];
            if (idx.kind == Argument::Kind::Int) items[idx.i] = &u->meta.front();
        }
        if (items.empty() || items.begin()->first < 0) return {};
        QStringList parts;
        for (int64_t i = 0; i <= items.rbegin()->first; ++i) {
            const auto it = items.find(i);
            parts << (it == items.end() ? QStringLiteral("?") : metaText(*it->second, withStrides, withDevice));
        }
        return QLatin1Char('(') + parts.join(QStringLiteral(", ")) + QLatin1Char(')');
    }
    if (n.meta.size() == 1 && !n.metaIsTuple) return metaText(*elementMeta(n, 0), withStrides, withDevice);
    QStringList parts;
    for (size_t i = 0; i < n.meta.size(); ++i) parts << metaText(*elementMeta(n, i), withStrides, withDevice);
    return QLatin1Char('(') + parts.join(QStringLiteral(", ")) + QLatin1Char(')');
}

}  // namespace fxray::views
