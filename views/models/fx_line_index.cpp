#include "models/fx_line_index.h"

#include "ir/graph.h"

#include <QRegularExpression>

namespace fxray::views {

namespace {

int indentOf(const QString& line) {
    int i = 0;
    while (i < line.size() && line[i] == QLatin1Char(' ')) ++i;
    return i;
}

}  // namespace

FxLineIndex::FxLineIndex(const QString& text, const Graph& graph) {
    const QStringList lines = text.split(QLatin1Char('\n'));
    m_defs.resize(static_cast<size_t>(lines.size()));
    // `name: "annotation"` (parameters, placeholder declarations, annotated nodes) or `name = ...`
    // at the start of a statement.
    static const QRegularExpression annotated(QStringLiteral(R"((?:^\s*|[(,;]\s*)([A-Za-z_]\w*)\s*:\s*")"));
    static const QRegularExpression assigned(QStringLiteral(R"(^\s*([A-Za-z_]\w*)\s*(?::|=))"));
    int defIndent = -1;  // indentation of the top-level `def forward`
    bool inBody = false;
    for (int li = 0; li < lines.size(); ++li) {
        const QString& line = lines[li];
        const QString trimmed = line.trimmed();
        if (trimmed.isEmpty()) continue;
        const int indent = indentOf(line);
        if (defIndent < 0) {
            if (!trimmed.startsWith(QLatin1String("def forward"))) continue;
            defIndent = indent;
            inBody = true;
        } else if (indent <= defIndent) {
            // A nested class or anything after the top-level body ends it.
            inBody = false;
        }
        if (!inBody) continue;
        if (indent > defIndent + 4) continue;  // a continuation of a wrapped statement
        if (trimmed.startsWith(QLatin1Char('#'))) continue;
        auto add = [&](const QString& name, int begin) {
            if (!graph.find(name.toStdString())) return;
            m_defs[static_cast<size_t>(li)].push_back({name, begin, begin + static_cast<int>(name.size())});
            if (!m_lineOf.contains(name)) m_lineOf.insert(name, li);
        };
        bool any = false;
        for (auto it = annotated.globalMatch(line); it.hasNext();) {
            const auto m = it.next();
            add(m.captured(1), static_cast<int>(m.capturedStart(1)));
            any = true;
        }
        if (!any) {
            const auto m = assigned.match(line);
            if (m.hasMatch()) add(m.captured(1), static_cast<int>(m.capturedStart(1)));
        }
    }
}

const std::vector<FxLineIndex::Def>& FxLineIndex::defsOn(int line) const {
    static const std::vector<Def> none;
    if (line < 0 || line >= lineCount()) return none;
    return m_defs[static_cast<size_t>(line)];
}

QString FxLineIndex::nodeAt(int line, int column) const {
    const auto& defs = defsOn(line);
    if (defs.empty()) return {};
    if (column >= 0) {
        // The definition whose span holds the column, else the last one starting before it.
        const Def* best = &defs.front();
        for (const Def& d : defs) {
            if (column >= d.begin && column < d.end) return d.name;
            if (d.begin <= column) best = &d;
        }
        return best->name;
    }
    return defs.front().name;
}

}  // namespace fxray::views
