// The compile story of the four real PyTorch 2.11 TORCH_TRACE logs in ../traces against what
// their programs and console logs say, a failure log in PyTorch's record format, damaged logs
// (cut mid-line, interleaved, unknown kinds, garbage) and folders of several ranks.
#include "test_util.h"

#include "import/compile_story.h"
#include "import/compile_story_format.h"
#include "import/compile_story_payloads.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace fxray;
namespace fs = std::filesystem;

namespace {

fs::path traces() { return fxtest::corpus().parent_path() / "traces"; }

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::string logText(const std::string& name) {
    for (const auto& e : fs::directory_iterator(traces() / name / "trace")) {
        std::ifstream in(e.path(), std::ios::binary);
        std::ostringstream s;
        s << in.rdbuf();
        return s.str();
    }
    return {};
}

const CompileEntry* byId(const CompileStory& s, const std::string& id) {
    for (const auto& e : s.compiles)
        if (e.id == id) return &e;
    return nullptr;
}

/// A record line in PyTorch's format (glog prefix, JSON envelope), payload lines tab-indented.
std::string record(const std::string& envelope, const std::string& payload = "") {
    std::string out = "V1125 06:01:28.506000 770 torch/_dynamo/convert_frame.py:1011] " + envelope + "\n";
    std::istringstream in(payload);
    for (std::string l; std::getline(in, l);) out += "\t" + l + "\n";
    return out;
}

/// An Inductor failure as PyTorch 2.11 logs it: dynamo_start, the dynamo_error traceback, and
/// compilation_metrics with fail_type and fail_reason.
std::string failureLog() {
    std::string ids = R"("frame_id": 0, "frame_compile_id": 0, "attempt": 0)";
    std::string log;
    log += record(R"({"str": ["/work/program.py", 0]})");
    log += record(
        R"J({"dynamo_start": {"stack": [{"line": 7, "name": "<module>", "filename": 0, "loc": "torch.compile(m)(x)"}]}, )J" +
        ids + "}");
    log += record(R"({"artifact": {"name": "dynamo_error", "encoding": "string"}, )" + ids + R"(, "has_payload": "0"})",
                  "Traceback (most recent call last):\n"
                  "  File \"/work/program.py\", line 7, in <module>\n"
                  "    torch.compile(m)(x)\n"
                  "  File \"/torch/_inductor/lowering.py\", line 912, in view\n"
                  "    raise RuntimeError(msg)\n"
                  "    ^^^^^^^^^^^^^^^^^^^^^^^\n"
                  "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\n"
                  "RuntimeError: Cannot view a tensor with shape torch.Size([2, 32, 128]) and strides (4096, 1, 32) as "
                  "a tensor with shape (64, 128)!");
    log += record(
        R"({"compilation_metrics": {"compile_id": "0/0", "co_name": "forward", "guard_count": null, )"
        R"J("fail_type": "BackendCompilerFailed", "fail_reason": "backend='inductor' raised:\nRuntimeError: Cannot view a tensor with shape torch.Size([2, 32, 128])", )J"
        R"("fail_user_frame_filename": "/work/program.py", "fail_user_frame_lineno": 7, )"
        R"("entire_frame_compile_time_s": 1.5, "restart_reasons": []}, )" +
        ids + "}");
    return log;
}

}  // namespace

class TestCompileStory : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (!fs::exists(traces() / "graph_breaks")) QSKIP("traces not found next to FXRAY_CORPUS_DIR");
    }

    /// program.py: print() and a data-dependent .item() branch; the console log names both.
    void graphBreaksAreTwoDistinctBreaksWithUserLines() {
        auto s = readCompileStory(traces() / "graph_breaks/trace");
        QVERIFY(s.ok());
        QCOMPARE(s->compiles.size(), size_t(5));
        const char* ids[] = {"0/0", "0/0_1", "1/0", "1/0_1", "2/0"};
        const char* status[] = {"restarted", "graph_break", "restarted", "graph_break", "ok"};
        for (size_t i = 0; i < 5; ++i) {
            QCOMPARE(s->compiles[i].id, std::string(ids[i]));
            QCOMPARE(std::string(compileStatusName(s->compiles[i].status)), std::string(status[i]));
        }
        QCOMPARE(s->graphBreaks.size(), size_t(2));
        const GraphBreak& print = s->graphBreaks[0];
        QCOMPARE(print.reason, std::string("Failed to trace builtin operator"));
        QVERIFY(contains(print.userFrame.file, "graph_breaks/program.py"));
        QCOMPARE(print.userFrame.line, 5);
        QVERIFY(contains(print.userFrame.code, "print(\"side effect\")"));
        QVERIFY(contains(print.detail, "builtin operator `print`"));
        const GraphBreak& item = s->graphBreaks[1];
        QVERIFY(contains(item.reason, "Tensor.item()"));
        QCOMPARE(item.userFrame.line, 6);
        QVERIFY(contains(item.userFrame.code, "if y.sum().item() > 0:"));
        QCOMPARE(item.compileIds, std::vector<std::string>{"1/0"});
        // The attempt after a restart lists the break it compiles up to; its metrics say so too.
        const CompileEntry* final0 = byId(*s, "0/0_1");
        QVERIFY(final0);
        QCOMPARE(final0->graphBreaks.size(), size_t(1));
        QCOMPARE(final0->graphBreaks[0].userFrame.line, 5);
        QCOMPARE(final0->restartReasons.size(), size_t(1));
        QCOMPARE(final0->guardCount.value_or(-1), int64_t(12));
        QCOMPARE(final0->function, std::string("f"));
        QVERIFY(!byId(*s, "2/0")->kernels.empty());
        QVERIFY(s->raw.empty());
        std::string tree = compileStoryTree(*s);
        QVERIFY(contains(tree, "[0/0_1] graph_break"));
        QVERIFY(contains(tree, "graph break at program.py:6"));
    }

    /// Four batch sizes: the second recompiles with a dynamic batch s33 (the dtype change
    /// converts back with .float(), so it does not recompile: the log has two compiles).
    void recompilesHaveReasonsGuardsAndTheSymbol() {
        auto s = readCompileStory(traces() / "recompiles/trace");
        QVERIFY(s.ok());
        QCOMPARE(s->compiles.size(), size_t(2));
        const CompileEntry* first = byId(*s, "0/0");
        const CompileEntry* second = byId(*s, "0/1");
        QVERIFY(first && second);
        QCOMPARE(second->recompileReasons.size(), size_t(1));
        QVERIFY(contains(second->recompileReasons[0], "size mismatch at index 0. expected 8, actual 16"));
        QCOMPARE(first->failedGuards.size(), size_t(1));
        QVERIFY(contains(first->failedGuards[0], "tensor 'args[0]' size mismatch"));
        QCOMPARE(first->guardCount.value_or(-1), int64_t(74));
        QCOMPARE(second->symbols.size(), size_t(1));
        QCOMPARE(second->symbols[0].name, std::string("s33"));
        QCOMPARE(second->symbols[0].hint, std::string("16"));
        QCOMPARE(second->symbols[0].source, std::string("L['args'][0].size()[0]"));
        QCOMPARE(second->symbols[0].range, std::string("[2, int_oo]"));
        QCOMPARE(compileStatusName(second->status), "ok");
    }

    /// provenance_tracking_level=1: kernels name their post-grad nodes.
    void provenanceMapsKernelsToNodes() {
        auto s = readCompileStory(traces() / "inductor_provenance/trace");
        QVERIFY(s.ok());
        QCOMPARE(s->compiles.size(), size_t(1));
        const CompileEntry& e = s->compiles[0];
        const KernelInfo* ln = nullptr;
        const KernelInfo* addmm = nullptr;
        for (const auto& k : e.kernels) {
            if (k.name == "triton_per_fused_native_layer_norm_0") ln = &k;
            if (k.name == "extern_kernels.addmm") addmm = &k;
        }
        QVERIFY(ln && addmm);
        QVERIFY(std::find(ln->nodes.begin(), ln->nodes.end(), "var_mean") != ln->nodes.end());
        QCOMPARE(addmm->nodes, std::vector<std::string>{"addmm"});
        bool bwd = false;
        for (const auto& [k, v] : e.metrics) bwd = bwd || (k == "bwd_inductor_compile_time" && v > 0);
        QVERIFY(bwd);
    }

    /// The gpt2 program expects a failure; in PyTorch 2.11 it compiled (its console log has no
    /// "compile failed" line and the metrics no fail_type): the story says ok, with kernels.
    void inductorFailureTraceCompiledInThisPyTorch() {
        auto s = readCompileStory(traces() / "inductor_failure/trace");
        QVERIFY(s.ok());
        QCOMPARE(s->compiles.size(), size_t(1));
        QVERIFY(!s->compiles[0].failure);
        QCOMPARE(compileStatusName(s->compiles[0].status), "ok");
        QVERIFY(s->compiles[0].kernels.size() > 10);
    }

    void failureHasTypeMessageAndStack() {
        CompileStory s = compileStoryFromText(failureLog(), "fail.log");
        QCOMPARE(s.compiles.size(), size_t(1));
        const CompileEntry& e = s.compiles[0];
        QCOMPARE(compileStatusName(e.status), "failed");
        QVERIFY(e.failure);
        QCOMPARE(e.failure->type, std::string("BackendCompilerFailed"));
        QVERIFY(contains(e.failure->message, "Cannot view a tensor with shape"));
        QCOMPARE(e.failure->stack.size(), size_t(2));
        QVERIFY(contains(e.failure->stack[0], "/work/program.py:7 in <module>"));
        QCOMPARE(e.failure->userFrame.line, 7);
        nlohmann::json j = compileEntryJson(e, false);
        QCOMPARE(j["failure"]["type"].get<std::string>(), std::string("BackendCompilerFailed"));
        QVERIFY(contains(compileStoryTree(s), "failed: BackendCompilerFailed"));
    }

    /// A real failure record: the corpus's mlp trace was written by a backend that raised.
    void corpusTraceWithARealFailure() {
        auto s = readCompileStory(fxtest::corpus() / "mlp/trace");
        QVERIFY(s.ok());
        QCOMPARE(s->compiles.size(), size_t(1));
        QCOMPARE(compileStatusName(s->compiles[0].status), "failed");
        QCOMPARE(s->compiles[0].failure->type, std::string("TypeError"));
        QVERIFY(contains(s->compiles[0].failure->message, "make_boxed_func() takes 1 positional argument"));
    }

    void tracebackWithoutMetricsNamesTheException() {
        CompileFailure f = detail::parseTraceback("Traceback (most recent call last):\n  File \"a.py\", line 3, in f\n"
                                                  "    g()\nValueError: bad value\nsecond line");
        QCOMPARE(f.type, std::string("ValueError"));
        QCOMPARE(f.message, std::string("bad value\nsecond line"));
        QCOMPARE(f.stack, std::vector<std::string>{"a.py:3 in f: g()"});
    }

    void jsonHasExactlyTheKeys() {
        auto s = readCompileStory(traces() / "recompiles/trace");
        QVERIFY(s.ok());
        nlohmann::json j = compilesJson(*s);
        std::vector<std::string> keys;
        for (auto& [k, v] : j[0].items()) keys.push_back(k);
        std::vector<std::string> expect = {"failure", "graph_breaks",      "guards", "id",     "kernels",
                                           "metrics", "recompile_reasons", "status", "symbols"};
        QCOMPARE(keys, expect);
        QCOMPARE(j[1]["symbols"][0]["name"].get<std::string>(), std::string("s33"));
    }

    /// Cut mid-line, then another log continues on the same line: results plus raw entries.
    void truncatedAndInterleavedLogsGiveResultsAndRawEntries() {
        std::string a = logText("graph_breaks"), b = logText("recompiles");
        QVERIFY(!a.empty() && !b.empty());
        size_t cut = a.find("] {", a.find("\nV", a.size() / 2)) + 20;  // inside an envelope's JSON
        std::string joined = a.substr(0, cut) + b;
        CompileStory s = compileStoryFromText(joined, "cut.log");
        QVERIFY(s.compiles.size() >= 3);
        bool truncated = false;
        for (const auto& r : s.raw) truncated = truncated || contains(r.why, "not complete JSON");
        QVERIFY(truncated);
        // Interleaved in 7-line chunks: payloads land on the wrong records; still no crash.
        std::istringstream ia(a), ib(b);
        std::string mixed, l;
        for (int chunk = 0; ia || ib; ++chunk) {
            std::istringstream& in = chunk % 2 ? ib : ia;
            for (int k = 0; k < 7 && std::getline(in, l); ++k) mixed += l + "\n";
        }
        CompileStory m = compileStoryFromText(mixed, "mixed.log");
        QVERIFY(!m.compiles.empty());
        // Every prefix of a log, cut anywhere, reads.
        for (size_t n = 0; n < a.size(); n += a.size() / 97 + 1) (void)compileStoryFromText(a.substr(0, n), "p.log");
    }

    void unknownKindsAndGarbageAreRaw() {
        std::string log =
            record(R"({"future_kind_2_12": {"x": 1}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0})",
                   "payload of a newer PyTorch");
        log += "this is not a trace line\n\tits payload\n";
        log += record(
            R"({"artifact": {"name": "new_artifact_kind", "encoding": "string"}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0})",
            "text");
        log += std::string("\x01\xff{\"\t\n\n", 7);
        CompileStory s = compileStoryFromText(log, "new.log");
        QCOMPARE(s.compiles.size(), size_t(1));
        QVERIFY(s.raw.size() >= 2);
        QCOMPARE(s.raw[0].kind, std::string("future_kind_2_12"));
        QCOMPARE(s.raw[0].why, std::string("unknown record kind"));
        QCOMPARE(s.raw[0].compileId, std::string("0/0"));
        QCOMPARE(s.raw[1].why, std::string("not a TORCH_TRACE record"));
        // A new artifact name is kept as a stage of its compile, not an error.
        QCOMPARE(s.compiles[0].stages, std::vector<std::string>{"new_artifact_kind"});
        CompileStory g = compileStoryFromText(std::string(4096, '\t'), "tabs.log");
        QVERIFY(g.compiles.empty());
        QCOMPARE(g.raw.size(), size_t(1));
    }

    void ranksAreGrouped() {
        fs::path dir = fs::temp_directory_path() / "fxray_tst_story_ranks";
        fs::remove_all(dir);
        fs::create_directories(dir);
        std::string a = logText("recompiles");
        for (int r : {1, 0}) {
            std::ofstream o(dir / ("dedicated_log_torch_trace_rank_" + std::to_string(r) + "_abc.log"),
                            std::ios::binary);
            o << a;
        }
        auto s = readCompileStory(dir);
        fs::remove_all(dir);
        QVERIFY(s.ok());
        QVERIFY(s->multiRank);
        QCOMPARE(s->compiles.size(), size_t(4));
        QCOMPARE(s->compiles[0].rank, 0);
        QCOMPARE(s->compiles[3].rank, 1);
        QCOMPARE(s->compiles[3].failedGuards.size(), size_t(0));
        QCOMPARE(s->compiles[2].failedGuards.size(), size_t(1));  // rank 1's 0/0, not rank 0's
        QVERIFY(contains(compileStoryTree(*s), "rank 1"));
        QCOMPARE(compileEntryJson(s->compiles[3], true)["rank"].get<int>(), 1);
        QCOMPARE(rankOfTraceFile("dedicated_log_torch_trace_rank_12_x.log"), 12);
        QCOMPARE(rankOfTraceFile("dedicated_log_torch_trace_x.log"), -1);
    }

    void outputCodeKernelsHaveTheirSourceNodes() {
        auto ks = detail::kernelsFromOutputCode(
            "# Topologically Sorted Source Nodes: [y, z], Original ATen: [aten.relu]\n"
            "triton_poi_fused_relu_0 = async_compile.triton('triton_poi_fused_relu_0', '''\n"
            "    extern_kernels.mm(a, b)  # inside the kernel source: not a call\n"
            "''', device_str='cuda')\n"
            "        # Topologically Sorted Source Nodes: [matmul], Original ATen: [aten.mm]\n"
            "        extern_kernels.mm(arg0_1, arg1_1, out=buf0)\n");
        QCOMPARE(ks.size(), size_t(2));
        QCOMPARE(ks[0].name, std::string("triton_poi_fused_relu_0"));
        QCOMPARE(ks[0].nodes, (std::vector<std::string>{"y", "z"}));
        QCOMPARE(ks[1].name, std::string("extern_kernels.mm"));
        QCOMPARE(ks[1].nodes, std::vector<std::string>{"matmul"});
    }
};

QTEST_GUILESS_MAIN(TestCompileStory)
#include "tst_compile_story.moc"
