// TORCH_TRACE reader: the corpus's structured logs against the separately dumped graphs, payload
// digests, damaged logs, unknown keys, compile ids, folders of logs.
#include "test_util.h"

#include "import/fx_text_reader.h"
#include "import/lifted_constants.h"
#include "import/md5.h"
#include "import/torch_trace_reader.h"

#include <filesystem>
#include <fstream>
#include <map>

using namespace fxray;
namespace fs = std::filesystem;

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::vector<fs::path> corpusTraces() {
    std::vector<fs::path> out;
    for (const auto& model : fs::directory_iterator(fxtest::corpus())) {
        fs::path t = model.path() / "trace/torch_trace.log";
        if (fs::exists(t)) out.push_back(t);
    }
    std::sort(out.begin(), out.end());
    return out;
}

/// Annotations agree on what both state: dtype and shape always, strides and device when both
/// print them (the dumped Dynamo graphs omit them, the trace's include them).
bool sameMeta(const TensorMeta& a, const TensorMeta& b) {
    if (a.dtype != b.dtype || a.shape != b.shape || a.symShape != b.symShape) return false;
    if (a.stridesKnown && b.stridesKnown && a.strides != b.strides) return false;
    if (a.deviceKnown && b.deviceKnown && !(a.device == b.device)) return false;
    return true;
}

/// "" when g has the nodes, targets, arguments (by Argument::repr) and annotations of `ref`,
/// recursively through subgraphs; else the first difference. Provenance comments may differ.
std::string sameStructure(const Graph& g, const Graph& ref) {
    if (g.size() != ref.size()) return "node count " + std::to_string(g.size()) + " vs " + std::to_string(ref.size());
    for (size_t i = 0; i < g.size(); ++i) {
        const Node& a = *g.nodes()[i];
        const Node& b = *ref.nodes()[i];
        if (a.name() != b.name() || a.target() != b.target() || a.kind() != b.kind()) return "node " + b.name();
        if (a.args.size() != b.args.size() || a.kwargs.size() != b.kwargs.size()) return "arity of " + b.name();
        for (size_t k = 0; k < a.args.size(); ++k)
            if (a.args[k].repr() != b.args[k].repr()) return "argument of " + b.name();
        for (size_t k = 0; k < a.kwargs.size(); ++k)
            if (a.kwargs[k].first != b.kwargs[k].first || a.kwargs[k].second.repr() != b.kwargs[k].second.repr())
                return "keyword argument of " + b.name();
        if (a.annotated != b.annotated) return "annotation presence of " + b.name();
        if (b.annotated) {
            if (a.meta.size() != b.meta.size()) return "annotation of " + b.name();
            for (size_t k = 0; k < a.meta.size(); ++k)
                if (!sameMeta(a.meta[k], b.meta[k])) return "annotation of " + b.name();
        }
    }
    if (g.subgraphs().size() != ref.subgraphs().size()) return "subgraph count";
    for (size_t k = 0; k < g.subgraphs().size(); ++k) {
        if (g.subgraphs()[k].first != ref.subgraphs()[k].first) return "subgraph " + ref.subgraphs()[k].first;
        std::string d = sameStructure(*g.subgraphs()[k].second, *ref.subgraphs()[k].second);
        if (!d.empty()) return ref.subgraphs()[k].first + ": " + d;
    }
    return "";
}

std::string slurp(const fs::path& p) { return *readTextFile(p); }

/// Offset of the start of 1-based line `line`.
size_t lineOffset(const std::string& text, int line) {
    size_t pos = 0;
    for (int l = 1; l < line; ++l) pos = text.find('\n', pos) + 1;
    return pos;
}

/// One record as PyTorch writes it: envelope with the payload's md5, then tab-indented lines.
std::string record(const std::string& envelope, const std::string& payload) {
    std::string out = "V1121 22:31:45.288000 3016 torch/_functorch/_aot_autograd/graph_compile.py:1619] {" + envelope;
    if (payload.empty()) return out + "}\n";
    out += ", \"has_payload\": \"" + md5Hex(payload) + "\"}\n";
    size_t pos = 0;
    while (pos <= payload.size()) {
        size_t nl = payload.find('\n', pos);
        if (nl == std::string::npos) nl = payload.size();
        out += "\t" + payload.substr(pos, nl - pos) + "\n";
        pos = nl + 1;
    }
    return out;
}

const char* kSmall = "class GraphModule(torch.nn.Module):\n"
                     "    def forward(self, x: \"f32[2, 3][3, 1]cpu\"):\n"
                     "        relu: \"f32[2, 3][3, 1]cpu\" = torch.ops.aten.relu.default(x);  x = None\n"
                     "        return (relu,)\n";

const LoadedGraph* graphById(const LoadedFile& f, const std::string& id) {
    for (const auto& g : f.graphs)
        if (g.id == id) return &g;
    return nullptr;
}

}  // namespace

class TestTorchTrace : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found at FXRAY_CORPUS_DIR");
    }

    /// RFC 1321's test suite, and incremental hashing equals one-shot hashing.
    void md5MatchesRfc1321() {
        QCOMPARE(md5Hex(""), std::string("d41d8cd98f00b204e9800998ecf8427e"));
        QCOMPARE(md5Hex("a"), std::string("0cc175b9c0f1b6a831c399e269772661"));
        QCOMPARE(md5Hex("abc"), std::string("900150983cd24fb0d6963f7d28e17f72"));
        QCOMPARE(md5Hex("message digest"), std::string("f96b697d7cb7938d525a2f31aaf161d0"));
        QCOMPARE(md5Hex("abcdefghijklmnopqrstuvwxyz"), std::string("c3fcd3d76192e4007dfb496cca67e13b"));
        QCOMPARE(md5Hex("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"),
                 std::string("d174ab98d277d9f5a5611c2c9f419d9f"));
        std::string digits;
        for (int i = 0; i < 8; ++i) digits += "1234567890";
        QCOMPARE(md5Hex(digits), std::string("57edf4a22be3c955ac49da2e2107b67a"));
        for (size_t chunk : {1, 7, 63, 64, 65, 1000}) {
            Md5 m;
            for (size_t i = 0; i < digits.size(); i += chunk) m.update(std::string_view(digits).substr(i, chunk));
            QCOMPARE(m.hexDigest(), md5Hex(digits));
        }
    }

    /// Every corpus trace loads without a digest or record warning, holds both compiles (capture
    /// backend and Inductor), and keeps kernel code and metrics.
    void corpusTracesLoad() {
        auto traces = corpusTraces();
        QVERIFY(traces.size() >= 14);
        for (const auto& t : traces) {
            auto f = readTorchTrace(t);
            QVERIFY2(f.ok(), f.ok() ? "" : f.error().str().c_str());
            QCOMPARE(f->format, std::string("torch-trace"));
            for (const auto& w : f->warnings) {
                QVERIFY2(!contains(w, "has_payload"), w.c_str());
                QVERIFY2(!contains(w, "not a TORCH_TRACE record"), w.c_str());
                QVERIFY2(!contains(w, "not valid JSON"), w.c_str());
                // The only graphs that do not load: AOTInductor's getattr(self, "0") form.
                QVERIFY2(contains(w, "unsupported attribute expression"), w.c_str());
            }
            std::map<std::string, int> stages, artifacts;
            for (const auto& g : f->graphs) {
                ++stages[g.stage];
                QVERIFY(g.graph->verify().ok());
                QVERIFY(g.inference.mismatches.empty());
            }
            for (const auto& a : f->artifacts) ++artifacts[a.name];
            // The file itself says how many compiles started: one dynamo_output_graph each.
            std::string text = slurp(t);
            int dynamoRecords = 0;
            for (size_t p = text.find("] {\"dynamo_output_graph\""); p != std::string::npos;
                 p = text.find("] {\"dynamo_output_graph\"", p + 1))
                ++dynamoRecords;
            QVERIFY2(dynamoRecords >= 2, t.string().c_str());
            QCOMPARE(stages["dynamo_output_graph"], dynamoRecords);
            QVERIFY(stages["inductor_post_grad_graph"] >= 1);
            QVERIFY(artifacts["inductor_output_code"] >= 1);
            QVERIFY(artifacts["compilation_metrics"] >= 2);
            QVERIFY(artifacts["fx_graph_runnable"] >= 1);
        }
    }

    /// For every model, each separately dumped graphs/<stage>.py equals the trace's graph of that
    /// stage for at least one compile: same nodes, targets, arguments and annotations.
    void traceGraphsMatchDumpedGraphs() {
        const std::pair<const char*, const char*> files[] = {
            {"dynamo_graph.py", "dynamo_output_graph"},        {"aot_joint_graph.py", "aot_joint_graph"},
            {"aot_forward_graph.py", "aot_forward_graph"},     {"aot_backward_graph.py", "aot_backward_graph"},
            {"aot_inference_graph.py", "aot_inference_graph"},
        };
        int compared = 0;
        for (const auto& t : corpusTraces()) {
            fs::path model = t.parent_path().parent_path();
            auto f = readTorchTrace(t);
            QVERIFY(f.ok());
            QString report = QString::fromStdString(model.filename().string()) + ":";
            for (const auto& [file, stage] : files) {
                fs::path p = model / "graphs" / file;
                if (!fs::exists(p)) continue;
                auto ref = readFxFile(p);
                QVERIFY(ref.ok());
                std::string matched, why;
                for (const auto& g : f->graphs) {
                    if (g.stage != stage) continue;
                    std::string d = sameStructure(*g.graph, **ref);
                    if (d.empty()) {
                        matched = g.id;
                        break;
                    }
                    why += " " + g.id + " (" + d + ")";
                }
                QVERIFY2(!matched.empty(), (p.string() + " matches no trace graph:" + why).c_str());
                report += " " + QString::fromStdString(stage) + "=" + QString::fromStdString(matched);
                ++compared;
            }
            qInfo("%s", qPrintable(report));
        }
        QCOMPARE(compared, 48);  // every dumped graph of the 14 models
    }

    /// AOT graphs print lifted constants without values; the trace's Dynamo graph of the same
    /// compile has them as torch.tensor literals, and the reader links the two.
    void liftedConstantsComeFromTheSameCompile() {
        for (const char* model : {"bert", "gpt2"}) {
            auto alone = readFxFile(fxtest::corpus() / model / "graphs/aot_joint_graph.py");
            QVERIFY(alone.ok());
            QVERIFY(!missingConstants(**alone).empty());
            auto f = readTorchTrace(fxtest::corpus() / model / "trace/torch_trace.log");
            QVERIFY(f.ok());
            int joints = 0;
            for (const auto& g : f->graphs) {
                if (g.stage != "aot_joint_graph") continue;
                ++joints;
                QVERIFY2(missingConstants(*g.graph).empty(), g.id.c_str());
                QVERIFY(std::any_of(g.notes.begin(), g.notes.end(), [](const std::string& n) {
                    return contains(n, "lifted constants taken from torch.tensor literals of");
                }));
            }
            QVERIFY(joints >= 2);
        }
    }

    /// Nodes remember their line in the log, so a GUI can jump into it.
    void nodeLinesPointIntoTheLog() {
        fs::path t = fxtest::corpus() / "mlp/trace/torch_trace.log";
        std::string text = slurp(t);
        auto f = readTorchTrace(t);
        QVERIFY(f.ok());
        const LoadedGraph* g = graphById(*f, "0/0/aot_joint_graph");
        QVERIFY(g);
        QCOMPARE(g->graph->sourceFile, t.string());
        for (const auto& n : g->graph->nodes()) {
            if (n->kind() != NodeKind::CallFunction) continue;
            size_t at = lineOffset(text, n->sourceLine);
            QVERIFY2(text.compare(at, 9 + n->name().size(), "\t        " + n->name()) == 0, n->name().c_str());
        }
        // Each compile's graphs say where the compile started (the string table resolves it).
        QVERIFY(std::any_of(g->notes.begin(), g->notes.end(),
                            [](const std::string& n) { return contains(n, "gen_corpus.py:"); }));
    }

    void editedPayloadIsReportedByLine() {
        std::string text = slurp(fxtest::corpus() / "mlp/trace/torch_trace.log");
        size_t rec = text.find("{\"aot_joint_graph\"");
        int joint = int(std::count(text.begin(), text.begin() + long(rec), '\n')) + 1;
        size_t at = text.find("aten.relu.default", rec);
        std::string edited = text;
        edited.replace(at, 17, "aten.gelu.default");
        auto f = readTorchTraceText(edited, "trace.log");
        QVERIFY(f.ok());
        QCOMPARE(std::count_if(f->warnings.begin(), f->warnings.end(),
                               [](const std::string& w) { return contains(w, "has_payload"); }),
                 long(1));
        std::string want = "trace.log:" + std::to_string(joint) + ": payload does not match its has_payload digest";
        QVERIFY2(f->warnings[0].rfind(want, 0) == 0, f->warnings[0].c_str());
        // The edit is still read: the graph has the edited op.
        const LoadedGraph* g = graphById(*f, "0/0/aot_joint_graph");
        QVERIFY(g && g->graph->find("relu")->target() == "torch.ops.aten.gelu.default");
    }

    void truncatedLogKeepsWhatCameBefore() {
        std::string text = slurp(fxtest::corpus() / "mlp/trace/torch_trace.log");
        // Cut inside the payload of the first aot_forward_graph record.
        size_t rec = text.find("{\"aot_forward_graph\"");
        int recLine = int(std::count(text.begin(), text.begin() + long(rec), '\n')) + 1;
        size_t cut = text.find("\n\t", rec);
        cut = text.find('\n', cut + 200);
        auto f = readTorchTraceText(std::string_view(text).substr(0, cut), "cut.log");
        QVERIFY(f.ok());
        QVERIFY(graphById(*f, "0/0/aot_joint_graph"));
        QVERIFY(!graphById(*f, "0/0/aot_forward_graph"));
        QVERIFY(f->warnings.size() >= 2);
        QVERIFY2(f->warnings[0].rfind("cut.log:" + std::to_string(recLine) + ": payload does not match", 0) == 0,
                 f->warnings[0].c_str());
        QVERIFY2(contains(f->warnings[1], "aot_forward_graph of compile 0/0 not loaded: cut.log:"),
                 f->warnings[1].c_str());

        // Cut inside an envelope line: the record is reported by line, the rest still loads.
        size_t env = text.find("{\"aot_backward_graph\"");
        int envLine = int(std::count(text.begin(), text.begin() + long(env), '\n')) + 1;
        auto g = readTorchTraceText(std::string_view(text).substr(0, env + 30), "cut.log");
        QVERIFY(g.ok());
        QVERIFY(graphById(*g, "0/0/aot_forward_graph"));
        QCOMPARE(g->warnings.back(), "cut.log:" + std::to_string(envLine) +
                                         ": record envelope is not valid JSON (truncated line?); skipped");
    }

    /// Damaged logs never crash: every cut point of a small real trace loads or gives an error.
    void everyCutPointIsSafe() {
        std::string text = slurp(fxtest::corpus() / "attention_infer/trace/torch_trace.log");
        for (size_t cut = 0; cut < text.size(); cut += 1009) {
            auto f = readTorchTraceText(std::string_view(text).substr(0, cut), "cut.log");
            if (!f.ok()) QVERIFY(contains(f.error().message, "no TORCH_TRACE records"));
        }
    }

    void strayLinesAreWarnings() {
        std::string text =
            "\torphan payload\n" +
            record("\"aot_joint_graph\": {}, \"frame_id\": 0, \"frame_compile_id\": 0, \"attempt\": 0", kSmall) +
            "hello world\n\tits payload\n" +
            record("\"aot_forward_graph\": {}, \"frame_id\": 0, \"frame_compile_id\": 0, \"attempt\": 0", kSmall);
        auto f = readTorchTraceText(text, "t.log");
        QVERIFY(f.ok());
        QCOMPARE(f->graphs.size(), size_t(2));
        QCOMPARE(f->warnings, (std::vector<std::string>{
                                  "t.log:1: payload line without a record before it; skipped",
                                  "t.log:8: not a TORCH_TRACE record (no glog prefix and JSON object); skipped"}));
    }

    void graphErrorsNameTheLogLine() {
        std::string bad = std::string(kSmall);
        bad.replace(bad.find("(x);"), 4, "(y);");
        std::string text =
            record("\"str\": [\"/x.py\", 0]", "") +
            record("\"dynamo_output_graph\": {}, \"frame_id\": 1, \"frame_compile_id\": 2, \"attempt\": 0", bad);
        auto f = readTorchTraceText(text, "t.log");
        QVERIFY(f.ok());
        QCOMPARE(f->graphs.size(), size_t(0));
        QCOMPARE(f->warnings.size(), size_t(1));
        // The payload's line 3 is the log's line 2 + 3; its column shifts by the tab.
        QVERIFY2(contains(f->warnings[0], "dynamo_output_graph of compile 1/2 not loaded: t.log:5:"),
                 f->warnings[0].c_str());
        QVERIFY(contains(f->warnings[0], "unknown name 'y'"));
        QVERIFY(contains(readTorchTraceText(record("\"aot_joint_graph\": {}", ""), "t.log")->warnings[0],
                         "t.log:1: aot_joint_graph record without a graph payload"));
    }

    void compileIdsAndRepeats() {
        std::string text =
            record("\"dynamo_output_graph\": {}, \"frame_id\": 0, \"frame_compile_id\": 1, \"attempt\": 0", kSmall) +
            record("\"aot_joint_graph\": {}, \"frame_id\": 0, \"frame_compile_id\": 1, \"attempt\": 2", kSmall) +
            record("\"aot_joint_graph\": {}, \"compiled_autograd_id\": 3, \"frame_id\": 4, \"frame_compile_id\": 5, "
                   "\"attempt\": 0",
                   kSmall) +
            record("\"aot_inference_graph\": {}", kSmall) +
            record("\"dynamo_output_graph\": {}, \"frame_id\": 0, \"frame_compile_id\": 1, \"attempt\": 0", kSmall) +
            record("\"artifact\": {\"name\": \"after_pre_grad_graph\", \"encoding\": \"string\"}, \"frame_id\": 0, "
                   "\"frame_compile_id\": 1, \"attempt\": 0",
                   kSmall) +
            record("\"graph_dump\": {\"name\": \"my_pass_graph\", \"type\": \"python\"}, \"frame_id\": 0, "
                   "\"frame_compile_id\": 1, \"attempt\": 0",
                   kSmall) +
            record("\"graph_dump\": {\"name\": \"inductor_aot_wrapper_code\", \"type\": \"cpp\"}", "int main() {}");
        auto f = readTorchTraceText(text, "t.log");
        QVERIFY(f.ok());
        QVERIFY(f->warnings.empty());
        std::vector<std::string> ids;
        for (const auto& g : f->graphs) ids.push_back(g.id);
        QCOMPARE(ids,
                 (std::vector<std::string>{"0/1/dynamo_output_graph", "0/1_2/aot_joint_graph", "!3/4/5/aot_joint_graph",
                                           "unknown/aot_inference_graph", "0/1/dynamo_output_graph#2",
                                           "0/1/after_pre_grad_graph", "0/1/my_pass_graph"}));
        QCOMPARE(f->graphs[1].compileId, std::string("0/1_2"));
        QCOMPARE(f->graphs[3].compileId, std::string());
        QCOMPARE(f->artifacts.size(), size_t(1));
        QCOMPARE(f->artifacts[0].name, std::string("inductor_aot_wrapper_code"));
        QCOMPARE(f->artifacts[0].encoding, std::string("cpp"));
        QCOMPARE(f->artifacts[0].text, std::string("int main() {}"));
    }

    /// Keys from newer PyTorch versions are kept (payload as an artifact) and counted, never fatal.
    void unknownKeysAreKeptAndCounted() {
        std::string text = record("\"brand_new_key\": {\"x\": [1, {\"y\": \"}\"}]}, \"frame_id\": 0, "
                                  "\"frame_compile_id\": 0, \"attempt\": 0",
                                  "hello\n\tworld") +
                           record("\"brand_new_key\": {}", "") + record("\"other_new_key\": 3", "") +
                           record("\"compilation_metrics\": {\"compile_id\": \"0/0\", \"graph_op_count\": 3}, "
                                  "\"frame_id\": 0, \"frame_compile_id\": 0, \"attempt\": 0",
                                  "");
        auto f = readTorchTraceText(text, "t.log");
        QVERIFY(f.ok());
        QVERIFY(f->warnings.empty());
        QCOMPARE(f->artifacts.size(), size_t(3));
        QCOMPARE(f->artifacts[0].name, std::string("brand_new_key"));
        QCOMPARE(f->artifacts[0].text, std::string("hello\n\tworld"));
        QCOMPARE(f->artifacts[0].compileId, std::string("0/0"));
        QCOMPARE(f->artifacts[1].name, std::string("compilation_metrics"));
        QCOMPARE(f->artifacts[1].encoding, std::string("json"));
        QCOMPARE(f->artifacts[1].text, std::string("{\"compile_id\": \"0/0\", \"graph_op_count\": 3}"));
        QCOMPARE(f->artifacts[2].name, std::string("unknown_keys"));
        QCOMPARE(f->artifacts[2].text, std::string("{\"brand_new_key\":2,\"other_new_key\":1}"));
    }

    void noRecordsIsAnError() {
        for (const char* text : {"", "\n\n", "just some text\n", "V1121 no json here\n"}) {
            auto f = readTorchTraceText(text, "empty.log");
            QVERIFY(!f.ok());
            QCOMPARE(f.error().file, std::string("empty.log"));
            QVERIFY(contains(f.error().message, "no TORCH_TRACE records found"));
        }
        auto missing = readTorchTrace(fs::temp_directory_path() / "fxray_no_such_trace.log");
        QVERIFY(!missing.ok());
        fs::path dir = fs::temp_directory_path() / "fxray_trace_empty_dir";
        fs::remove_all(dir);
        fs::create_directories(dir);
        auto none = readTorchTrace(dir);
        QVERIFY(!none.ok());
        QVERIFY(contains(none.error().message, "no TORCH_TRACE log (*.log) in this folder"));
        fs::remove_all(dir);
        QVERIFY(looksLikeTorchTrace("V1121 22:31:44.976000 3016 torch/_dynamo/utils.py:2126] {\"x\": 1}\n"));
        QVERIFY(!looksLikeTorchTrace("class GraphModule(torch.nn.Module):\n"));
    }

    /// A TORCH_TRACE folder with one log per rank: ids say which rank.
    void folderOfRankLogs() {
        fs::path dir = fs::temp_directory_path() / "fxray_trace_ranks";
        fs::remove_all(dir);
        fs::create_directories(dir);
        fs::path src = fxtest::corpus() / "attention_infer/trace/torch_trace.log";
        fs::copy_file(src, dir / "dedicated_log_torch_trace_rank_0_abc.log");
        fs::copy_file(src, dir / "dedicated_log_torch_trace_rank_1_def.log");
        { std::ofstream(dir / "other.log") << "not part of it\n"; }
        QCOMPARE(traceLogFiles(dir).size(), size_t(2));
        auto f = readTorchTrace(dir);
        QVERIFY2(f.ok(), f.ok() ? "" : f.error().str().c_str());
        auto one = readTorchTrace(src);
        QVERIFY(one.ok());
        QCOMPARE(f->graphs.size(), 2 * one->graphs.size());
        QCOMPARE(f->graphs[0].id, "rank0:" + one->graphs[0].id);
        QCOMPARE(f->graphs.back().id, "rank1:" + one->graphs.back().id);
        fs::remove_all(dir);
    }
};

QTEST_GUILESS_MAIN(TestTorchTrace)
#include "tst_torch_trace.moc"
