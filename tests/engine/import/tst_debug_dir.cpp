// TORCH_COMPILE_DEBUG folder reader against the corpus's debug/ folders.
#include "test_util.h"

#include "import/debug_dir_reader.h"
#include "import/fx_text_reader.h"

#include <filesystem>
#include <fstream>

using namespace fxray;
namespace fs = std::filesystem;

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

const LoadedGraph* graphById(const LoadedFile& f, const std::string& id) {
    for (const auto& g : f.graphs)
        if (g.id == id) return &g;
    return nullptr;
}

const Artifact* artifact(const LoadedFile& f, const std::string& compileId, const std::string& name) {
    for (const auto& a : f.artifacts)
        if (a.compileId == compileId && a.name == name) return &a;
    return nullptr;
}

/// A fresh empty folder under the temp directory.
fs::path tempDir(const std::string& name) {
    fs::path d = fs::temp_directory_path() / ("fxray_" + name);
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

void copyFolderFiles(const fs::path& from, const fs::path& to) {
    fs::create_directories(to);
    for (const auto& e : fs::directory_iterator(from))
        if (e.is_regular_file()) fs::copy_file(e.path(), to / e.path().filename());
}

/// "" when g has the nodes, targets, arguments and annotations of `ref` (which was read on its
/// own and not finished, so only its annotated nodes carry metadata), else the first difference.
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
        if (b.annotated && (a.meta.size() != b.meta.size() || a.meta[0].annotation() != b.meta[0].annotation()))
            return "annotation of " + b.name();
    }
    return "";
}

}  // namespace

class TestDebugDir : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found at FXRAY_CORPUS_DIR");
    }

    void stageFromFolderName() {
        QCOMPARE(stageFromDebugFolder("model__1_forward_5.0"), std::string("aot_forward_graph"));
        QCOMPARE(stageFromDebugFolder("model__1_backward_7.1"), std::string("aot_backward_graph"));
        QCOMPARE(stageFromDebugFolder("model__1_inference_1.0"), std::string("aot_inference_graph"));
        QCOMPARE(stageFromDebugFolder("model___8.2"), std::string("aot_graph"));
    }

    /// Each corpus model's debug/ folder: every graph folder's files come back as graphs (the
    /// same graph PyTorch printed, node for node) and artifacts (byte for byte).
    void corpusDebugFoldersLoad() {
        int folders = 0, graphs = 0;
        for (const auto& model : fs::directory_iterator(fxtest::corpus())) {
            fs::path dbg = model.path() / "debug";
            if (!fs::is_directory(dbg)) continue;
            QVERIFY(isDebugDir(dbg));
            auto f = readDebugDir(dbg);
            QVERIFY2(f.ok(), f.ok() ? "" : f.error().str().c_str());
            QCOMPARE(f->format, std::string("debug-dir"));
            for (const auto& e : fs::recursive_directory_iterator(dbg)) {
                if (e.path().filename() != "fx_graph_readable.py") continue;
                fs::path folder = e.path().parent_path();
                std::string label = fs::relative(folder, dbg).generic_string();
                std::string stage = stageFromDebugFolder(folder.filename().string());
                ++folders;
                auto direct = readFxFile(e.path());
                const LoadedGraph* lg = graphById(*f, label + "/" + stage);
                if (!direct.ok()) {
                    // Not loadable by the FX reader alone either (AOTInductor's getattr form):
                    // it must be a warning naming the file, not a failure of the folder.
                    QVERIFY(!lg);
                    QVERIFY(std::any_of(f->warnings.begin(), f->warnings.end(), [&](const std::string& w) {
                        return w.rfind(e.path().string() + ":", 0) == 0;
                    }));
                    continue;
                }
                QVERIFY2(lg, (label + "/" + stage).c_str());
                QCOMPARE(lg->stage, stage);
                QCOMPARE(lg->compileId, label);
                QCOMPARE(sameStructure(*lg->graph, **direct), std::string());
                ++graphs;
                if (fs::exists(folder / "fx_graph_transformed.py")) {
                    auto t = readFxFile(folder / "fx_graph_transformed.py");
                    const LoadedGraph* tg = graphById(*f, label + "/inductor_post_grad_graph");
                    QVERIFY(t.ok() && tg);
                    QCOMPARE(sameStructure(*tg->graph, **t), std::string());
                }
                const LoadedGraph* rg = graphById(*f, label + "/fx_graph_runnable");
                QVERIFY2(rg, label.c_str());
                QCOMPARE(rg->stage, stage);
                QCOMPARE(rg->inputSpecs.size(), rg->graph->placeholders().size());
                QCOMPARE(rg->graph->size(), lg->graph->size());
                for (const char* file : {"ir_pre_fusion.txt", "ir_post_fusion.txt"}) {
                    std::string name = std::string(file).substr(0, std::string(file).size() - 4);
                    const Artifact* a = artifact(*f, label, name);
                    QVERIFY2(a, (label + " " + name).c_str());
                    QCOMPARE(a->text, *readTextFile(folder / file));
                }
                const Artifact* code = artifact(*f, label, "inductor_output_code");
                QVERIFY(code);
                fs::path codeFile =
                    fs::exists(folder / "output_code.py") ? folder / "output_code.py" : folder / "output_code.cpp";
                QCOMPARE(code->text, *readTextFile(codeFile));
                if (fs::exists(folder / "inductor_provenance_tracking_node_mappings.json")) {
                    const Artifact* m = artifact(*f, label, "inductor_provenance_tracking_node_mappings");
                    QVERIFY(m && m->encoding == "json");
                }
            }
        }
        QCOMPARE(folders, 35);  // every fx_graph_readable.py in the corpus
        QVERIFY(graphs >= 31);  // all but mlp's AOTInductor folders (getattr form)
    }

    /// Inductor's debug graphs use prims and inductor ops; they load whether or not fxray runs them.
    void primsOpsLoad() {
        auto f = readDebugDir(fxtest::corpus() / "resnet18/debug/model__1_forward_5.0");
        QVERIFY(f.ok());
        const LoadedGraph* g = graphById(*f, "model__1_forward_5.0/aot_forward_graph");
        QVERIFY(g);  // pointing at the graph folder itself labels it by its own name
        bool sawPrims = false;
        for (const auto& n : g->graph->nodes()) sawPrims = sawPrims || contains(n->target(), "torch.ops.prims.");
        QVERIFY(sawPrims);
        QVERIFY(g->graph->verify().ok());
    }

    /// The layout TORCH_COMPILE_DEBUG writes: torch_compile_debug/run_*/torchinductor/<graph>/.
    void torchCompileDebugTree() {
        fs::path root = tempDir("debug_tree");
        fs::path graphDir =
            root / "torch_compile_debug/run_2025_11_21_22_31_44_976000-pid_3016/torchinductor/model__0_forward_1.0";
        copyFolderFiles(fxtest::corpus() / "mlp/debug/model__1_forward_5.0", graphDir);
        fs::create_directories(root / "torch_compile_debug/run_2025_11_21_22_31_44_976000-pid_3016/torchdynamo");
        {
            std::ofstream(root / "torch_compile_debug/run_2025_11_21_22_31_44_976000-pid_3016/torchdynamo/debug.log")
                << "log\n";
        }
        for (const fs::path& start : {root, root / "torch_compile_debug", graphDir.parent_path()}) {
            auto f = readDebugDir(start);
            QVERIFY2(f.ok(), f.ok() ? "" : f.error().str().c_str());
            std::string label = fs::relative(graphDir, start).generic_string();
            QVERIFY2(graphById(*f, label + "/aot_forward_graph"), label.c_str());
            QCOMPARE(f->graphs.size(), size_t(3));
            QVERIFY(f->warnings.empty());
        }
        fs::remove_all(root);
    }

    void brokenFileIsAWarning() {
        fs::path root = tempDir("debug_broken");
        fs::path g = root / "model__0_backward_2.0";
        copyFolderFiles(fxtest::corpus() / "mlp/debug/model__1_backward_7.1", g);
        {
            std::ofstream out(g / "fx_graph_transformed.py", std::ios::trunc);
            out << "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n        y = "
                   "torch.ops.aten.relu.default(x\n";
        }
        auto f = readDebugDir(root);
        QVERIFY(f.ok());
        QVERIFY(graphById(*f, "model__0_backward_2.0/aot_backward_graph"));
        QVERIFY(graphById(*f, "model__0_backward_2.0/fx_graph_runnable"));
        QVERIFY(!graphById(*f, "model__0_backward_2.0/inductor_post_grad_graph"));
        QCOMPARE(f->warnings.size(), size_t(1));
        QVERIFY2(f->warnings[0].rfind((g / "fx_graph_transformed.py").string() + ":3:", 0) == 0,
                 f->warnings[0].c_str());
        QVERIFY(contains(f->warnings[0], "unclosed bracket"));
        fs::remove_all(root);
    }

    // A file past the size limit is refused before it is read (a sparse file: no disk used), with a
    // warning naming it; the folder's other graphs still load.
    void hugeFileIsAWarning() {
        fs::path root = tempDir("debug_huge");
        fs::path g = root / "model__0_backward_2.0";
        copyFolderFiles(fxtest::corpus() / "mlp/debug/model__1_backward_7.1", g);
        const fs::path huge = g / "fx_graph_transformed.py";
        { std::ofstream out(huge, std::ios::trunc); }
        fs::resize_file(huge, (uintmax_t(512) << 20) + 1);
        auto f = readDebugDir(root);
        QVERIFY(f.ok());
        QVERIFY(graphById(*f, "model__0_backward_2.0/aot_backward_graph"));
        QVERIFY(!graphById(*f, "model__0_backward_2.0/inductor_post_grad_graph"));
        QCOMPARE(f->warnings.size(), size_t(1));
        QVERIFY2(f->warnings[0].rfind(huge.string() + ":", 0) == 0, f->warnings[0].c_str());
        QVERIFY2(contains(f->warnings[0], "file too large (512 MiB; fxray reads up to 512 MiB)"),
                 f->warnings[0].c_str());
        fs::remove_all(root);
    }

    void noGraphFolderIsAnError() {
        fs::path root = tempDir("debug_empty");
        fs::create_directories(root / "a/b");
        { std::ofstream(root / "a/notes.txt") << "x\n"; }
        QVERIFY(!isDebugDir(root));
        auto f = readDebugDir(root);
        QVERIFY(!f.ok());
        QVERIFY(contains(f.error().message, "no TORCH_COMPILE_DEBUG graph folder"));
        QCOMPARE(f.error().file, root.string());
        auto file = readDebugDir(root / "a/notes.txt");
        QVERIFY(!file.ok());
        QVERIFY(contains(file.error().message, "not a folder"));
        fs::remove_all(root);
    }
};

QTEST_GUILESS_MAIN(TestDebugDir)
#include "tst_debug_dir.moc"
