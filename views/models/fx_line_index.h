#pragma once
/// Which line of a printed FX module defines which node of its top-level graph, and back: what
/// lets a click in the code pane select a node and a selection scroll the code pane. Nodes of
/// nested subgraph classes are not indexed (their names repeat those of the outer graph).
#include <QHash>
#include <QString>
#include <QStringList>

#include <vector>

namespace fxray {
class Graph;
}

namespace fxray::views {

class FxLineIndex {
public:
    /// One node definition on a line: `name` spans columns [begin, end).
    struct Def {
        QString name;
        int begin = 0;
        int end = 0;
    };

    FxLineIndex() = default;
    /// Indexes `text` (printGraph of `graph`); only names of nodes of `graph` count.
    FxLineIndex(const QString& text, const Graph& graph);

    /// The node defined on 0-based `line` nearest to `column` (the first when several are
    /// defined there and none spans the column), or empty.
    QString nodeAt(int line, int column = -1) const;
    /// 0-based line defining `name`, or -1.
    int lineOf(const QString& name) const { return m_lineOf.value(name, -1); }
    /// Definitions on a line.
    const std::vector<Def>& defsOn(int line) const;
    int lineCount() const { return static_cast<int>(m_defs.size()); }

private:
    std::vector<std::vector<Def>> m_defs;
    QHash<QString, int> m_lineOf;
};

}  // namespace fxray::views
