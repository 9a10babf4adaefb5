#include "pass/instrumentation.h"

#include "ir/printer.h"

namespace fxray {

bool SkipPassesInstrumentation::runBeforePass(const Pass& p, const Graph&, PassRecord&) {
    return !m_names.count(std::string(p.name()));
}

bool BisectInstrumentation::runBeforePass(const Pass&, const Graph&, PassRecord&) { return m_seen++ < m_limit; }

void PrintAfterAllInstrumentation::runAfterPass(const Pass& p, const Graph& g, PassRecord& rec) {
    if (m_onlyChanged && !rec.changed) return;
    // Reuse the snapshot's text when the manager took one: printing 2,000 nodes twice is waste.
    m_sink(std::string(p.name()), rec.graph, rec.snapshot ? rec.snapshot->text() : printGraph(g));
}

}  // namespace fxray
