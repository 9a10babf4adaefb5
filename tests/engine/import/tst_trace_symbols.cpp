// The symbols of a TORCH_TRACE (create_symbol / symbolic_shape_specialization records), judged
// by the recorded log ../shared/traces/recompiles: its second compile (0/1) made the batch
// dynamic as s33 with hint 16 (the second call's batch, program.py), range [2, int_oo], source
// L['args'][0].size()[0]. The graphs of that compile take s33=16 as their hint, so a run
// without --inputs draws inputs at the traced size.
#include "test_util.h"

#include "exec/compare.h"
#include "exec/shape_binding.h"
#include "import/compile_story.h"
#include "import/loader.h"
#include "import/torch_trace_reader.h"
#include "import/trace_symbols.h"

#include <nlohmann/json.hpp>

#include <filesystem>

using namespace fxray;
namespace fs = std::filesystem;

namespace {
fs::path traceDir() { return fxtest::corpus().parent_path() / "traces" / "recompiles"; }
bool haveTrace() { return fs::exists(traceDir() / "trace"); }
}  // namespace

class TestTraceSymbols : public QObject {
    Q_OBJECT
private slots:
    void hintFromRecords() {
        auto h = traceSymbolHint(
            "create_symbol",
            nlohmann::json::parse(
                R"({"symbol": "s33", "val": "16", "vr": "[2, int_oo]", "source": "L['args'][0].size()[0]"})"));
        QVERIFY(h);
        QCOMPARE(QString::fromStdString(h->first), QString("s33"));
        QCOMPARE(h->second.i, int64_t(16));
        // symbolic_shape_specialization writes the value under "value" (repr of a sympy Integer).
        auto sp = traceSymbolHint(
            "symbolic_shape_specialization",
            nlohmann::json::parse(
                R"({"symbol": "s0", "sources": ["L['x'].size()[0]"], "value": "4", "reason": "size is statically known"})"));
        QVERIFY(sp && sp->second.i == 4);
        auto f =
            traceSymbolHint("create_symbol", nlohmann::json::parse(R"({"symbol": "zf0", "val": "1.50000000000000"})"));
        QVERIFY(f && f->second.isFloat() && f->second.d == 1.5);
        // Unbacked symbols have no value; garbage gives nothing, never a crash.
        QVERIFY(!traceSymbolHint("create_unbacked_symbol",
                                 nlohmann::json::parse(R"({"symbol": "u0", "vr": "[0, int_oo]"})")));
        QVERIFY(!traceSymbolHint("create_symbol", nlohmann::json::parse(R"({"symbol": "s0", "val": "oops"})")));
        QVERIFY(!traceSymbolHint("create_symbol", nlohmann::json::parse(R"({"symbol": 3, "val": "2"})")));
        QVERIFY(!traceSymbolHint("create_symbol", nlohmann::json::parse("[1, 2]")));
    }

    void storyShowsTheSymbol() {
        if (!haveTrace()) QSKIP("traces/recompiles not found beside the corpus");
        auto s = readCompileStory(traceDir() / "trace");
        QVERIFY(s.ok());
        const CompileEntry* e = nullptr;
        for (const auto& c : s->compiles)
            if (c.id == "0/1") e = &c;
        QVERIFY(e);
        QCOMPARE(e->symbols.size(), size_t(1));
        QCOMPARE(QString::fromStdString(e->symbols[0].name), QString("s33"));
        QCOMPARE(QString::fromStdString(e->symbols[0].hint), QString("16"));
        QCOMPARE(QString::fromStdString(e->symbols[0].source), QString("L['args'][0].size()[0]"));
        QCOMPARE(QString::fromStdString(e->symbols[0].range), QString("[2, int_oo]"));
    }

    void graphsOfTheCompileTakeTheHint() {
        if (!haveTrace()) QSKIP("traces/recompiles not found beside the corpus");
        auto f = readTorchTrace(traceDir() / "trace");
        QVERIFY2(f.ok(), f.ok() ? "" : f.error().str().c_str());
        int withHint = 0;
        for (const auto& lg : f->graphs) {
            if (lg.compileId == "0/1") {
                QVERIFY2(lg.graph->symbolHints.count("s33"), lg.id.c_str());
                QCOMPARE(lg.graph->symbolHints.at("s33").i, int64_t(16));
                ++withHint;
                // Every size s33 determines carries the recorded hint; shape[] keeps the rule.
                int hinted = 0;
                for (const auto& n : lg.graph->nodes())
                    for (const auto& m : n->meta)
                        for (size_t d = 0; d < m.shape.size(); ++d) {
                            if (!m.isSymbolicDim(d)) continue;
                            const SymInt s = m.sizeAt(d);
                            QVERIFY2(s.hint().has_value(), (lg.id + " " + n->name() + " " + s.text()).c_str());
                            auto v = s.eval(lg.graph->symbolHints);
                            QVERIFY(v.ok() && *s.hint() == *v);
                            QCOMPARE(m.shape[d], TensorMeta::kUnboundSize);
                            hinted += s.text() == "s33";
                        }
                QVERIFY2(hinted > 0 || lg.graph->nodes().empty(), lg.id.c_str());
            } else {
                QVERIFY2(lg.graph->symbolHints.empty(), lg.id.c_str());  // 0/0 is static
            }
        }
        QVERIFY(withHint >= 3);  // Dynamo, joint/forward/backward graphs
        // The Dynamo graph of 0/1, lowered, draws its random inputs at s33=16.
        auto idx = findGraphIndex(*f, "0/1/dynamo_output_graph");
        QVERIFY2(idx.ok(), idx.ok() ? "" : idx.error().str().c_str());
        const LoadedGraph& lg = f->graphs[*idx];
        QVERIFY(lg.lowered);
        QVERIFY(graphIsSymbolic(*lg.lowered));
        QCOMPARE(lg.lowered->symbolHints.at("s33").i, int64_t(16));
        auto inputs = randomInputs(*lg.lowered, 0);
        QVERIFY2(inputs.ok(), inputs.ok() ? "" : inputs.error().str().c_str());
        bool sawBatch = false;
        for (const auto& v : *inputs)
            if (v.isTensor() && v.t.dim() == 2 && v.t.shape()[1] == 64 && v.t.shape()[0] == 16) sawBatch = true;
        QVERIFY(sawBatch);
    }
};

QTEST_GUILESS_MAIN(TestTraceSymbols)
#include "tst_trace_symbols.moc"
