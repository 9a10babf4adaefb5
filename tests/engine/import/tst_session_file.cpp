// fxray session files: graphs, constants, input specs, artifacts and the user's state survive a
// save and a load; damaged or foreign files are refused with a message naming the file.
#include "test_util.h"

#include "exec/compare.h"
#include "exec/run_check.h"
#include "import/loader.h"
#include "import/npy.h"
#include "import/session_file.h"
#include "import/zip_writer.h"
#include "ir/printer.h"

#include <filesystem>
#include <fstream>

using namespace fxray;
namespace fs = std::filesystem;

namespace {

fs::path tempDir() {
    fs::path d = fs::temp_directory_path() / ("fxray_session_" + std::to_string(::getpid()));
    fs::create_directories(d);
    return d;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

/// Runs a graph on seeded random inputs and returns its outputs' values.
std::vector<std::vector<double>> outputsOf(const Graph& g) {
    auto in = randomInputs(g, 7);
    if (!in.ok()) return {};
    RunRequest req;
    req.inputs = *in;
    auto r = runAndCheck(g, req, nullptr);
    if (!r.ok()) return {};
    std::vector<std::vector<double>> out;
    for (const auto& v : r->outputs)
        if (v.isTensor()) out.push_back(kern::toDoubles(v.t));
    return out;
}

}  // namespace

class TestSessionFile : public QObject {
    Q_OBJECT
private Q_SLOTS:
    /// A .pt2 (weights as constants) and a trace (many graphs, artifacts, input specs): the
    /// reloaded graphs print the same, compute the same, and keep specs, artifacts and state.
    void roundTrip() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        for (const fs::path& src : std::vector<fs::path>{fxtest::corpus() / "mlp/export/exported.pt2",
                                                         fxtest::corpus() / "mlp/trace/torch_trace.log"}) {
            auto f = loadFile(src);
            QVERIFY2(f.ok(), src.c_str());
            SessionState st;
            st.graph = f->graphs.back().id;
            st.pipeline = "joint";
            st.passIndex = 3;
            st.selection = {"mm", "relu"};
            st.memoryBudget = 0.25;
            st.skippedPasses = {"fuse_attention"};
            st.nodeNotes["relu"] = "why is this saved?";
            st.view["colour"] = "diff";
            fs::path out = tempDir() / "s.fxray";
            Status s = saveSession(out, *f, st);
            QVERIFY2(s.ok(), s.ok() ? "" : s.error().str().c_str());
            auto back = loadFile(out);
            QVERIFY2(back.ok(), back.ok() ? "" : back.error().str().c_str());
            QCOMPARE(back->format, std::string("session"));
            QVERIFY(back->session.has_value());
            QCOMPARE(back->session->graph, st.graph);
            QCOMPARE(back->session->passIndex, 3);
            QCOMPARE(back->session->selection, st.selection);
            QCOMPARE(back->session->memoryBudget, 0.25);
            QCOMPARE(back->session->skippedPasses, st.skippedPasses);
            QCOMPARE(back->session->nodeNotes, st.nodeNotes);
            QCOMPARE(back->session->view, st.view);
            QCOMPARE(back->graphs.size(), f->graphs.size());
            QCOMPARE(back->artifacts.size(), f->artifacts.size());
            size_t withConstants = 0, withSpecs = 0;
            for (size_t i = 0; i < f->graphs.size(); ++i) {
                const LoadedGraph& a = f->graphs[i];
                const LoadedGraph& b = back->graphs[i];
                QCOMPARE(b.id, a.id);
                QCOMPARE(b.stage, a.stage);
                QCOMPARE(printGraph(*b.graph), printGraph(*a.graph));
                QCOMPARE(b.graph->constants.size(), a.graph->constants.size());
                for (const auto& [name, t] : a.graph->constants) {
                    const Tensor& u = b.graph->constants.at(name);
                    QCOMPARE(u.dtype(), t.dtype());
                    QCOMPARE(u.meta.strides, t.meta.strides);
                    QVERIFY(kern::toDoubles(u) == kern::toDoubles(t));
                }
                if (!a.graph->constants.empty()) ++withConstants;
                QCOMPARE(b.inputSpecs.size(), a.inputSpecs.size());
                for (size_t k = 0; k < a.inputSpecs.size(); ++k) {
                    QCOMPARE(b.inputSpecs[k].name, a.inputSpecs[k].name);
                    QCOMPARE(b.inputSpecs[k].meta.annotation(), a.inputSpecs[k].meta.annotation());
                    QCOMPARE(b.inputSpecs[k].requiresGrad, a.inputSpecs[k].requiresGrad);
                }
                if (!a.inputSpecs.empty()) ++withSpecs;
            }
            for (size_t i = 0; i < f->artifacts.size(); ++i) QCOMPARE(back->artifacts[i].text, f->artifacts[i].text);
            if (src.extension() == ".pt2") {
                QVERIFY(withConstants > 0);
                // The weights came back: the executable graph computes exactly what it did.
                auto before = outputsOf(f->graphs[0].executable());
                auto after = outputsOf(back->graphs[0].executable());
                QVERIFY(!before.empty());
                QVERIFY(before == after);
            } else {
                QVERIFY(withSpecs > 0);
                QVERIFY(!f->artifacts.empty());
            }
        }
    }

    void bf16AndStridedConstantsKeepTheirLayout() {
        auto g = std::make_unique<Graph>();
        auto f = readFxText_("class G(torch.nn.Module):\n    def forward(self, x: \"f32[2, 3]\"):\n        "
                             "_tensor_constant0 = self._tensor_constant0\n"
                             "        add = torch.ops.aten.add.Tensor(x, _tensor_constant0);  x = _tensor_constant0 = "
                             "None\n        return (add,)\n");
        QVERIFY(f);
        // A transposed bf16 constant: .npy can hold neither the dtype nor the strides.
        TensorMeta m;
        m.dtype = DType::BFloat16;
        m.shape = {2, 3};
        m.strides = {1, 2};
        f->graphs[0].graph->constants["_tensor_constant0"] = kern::makeTensor(m, {1, 2, 3, 4, 5, 6});
        fs::path out = tempDir() / "c.fxray";
        QVERIFY(saveSession(out, *f, {}).ok());
        auto back = loadSession(out);
        QVERIFY2(back.ok(), back.ok() ? "" : back.error().str().c_str());
        const Tensor& t = back->file.graphs[0].graph->constants.at("_tensor_constant0");
        QCOMPARE(t.dtype(), DType::BFloat16);
        QCOMPARE(t.meta.strides, (std::vector<int64_t>{1, 2}));
        QCOMPARE(kern::toDoubles(t), (std::vector<double>{1, 2, 3, 4, 5, 6}));
    }

    void damagedFilesAreRefused() {
        fs::path dir = tempDir();
        auto refuse = [&](const fs::path& p, const std::string& part) {
            auto r = loadFile(p);
            QVERIFY2(!r.ok(), p.c_str());
            const std::string msg = r.error().str();
            QVERIFY2(contains(msg, p.string()) && contains(msg, part), msg.c_str());
        };
        auto sessionWith = [&](const std::string& name, const std::string& json,
                               std::vector<std::pair<std::string, std::string>> extra = {}) -> fs::path {
            ZipWriter z;
            z.add("session.json", json);
            for (auto& [m, b] : extra) z.add(m, b);
            fs::path p = dir / name;
            if (!z.write(p).ok()) qFatal("cannot write %s", p.c_str());
            return p;
        };
        refuse(sessionWith("v99.fxray", R"({"format": "fxray-session", "version": 99, "graphs": []})"), "version 99");
        refuse(sessionWith("foreign.fxray", R"({"format": "something-else", "version": 1})"), "fxray-session");
        refuse(sessionWith("notjson.fxray", "{\"format\": "), "not valid JSON");
        refuse(sessionWith("nomember.fxray",
                           R"({"format": "fxray-session", "version": 1, "graphs": [{"file": "graphs/0.py"}]})"),
               "graphs/0.py");
        refuse(sessionWith("badgraph.fxray",
                           R"({"format": "fxray-session", "version": 1, "graphs": [{"file": "graphs/0.py"}]})",
                           {{"graphs/0.py", "class G(torch.nn.Module):\n    def forward(self, x):\n        y = (\n"}}),
               "graphs/0.py");
        // Truncated archive.
        fs::path good = sessionWith("good.fxray", R"({"format": "fxray-session", "version": 1, "graphs": []})");
        std::ifstream in(good, std::ios::binary);
        std::string bytes((std::istreambuf_iterator<char>(in)), {});
        fs::path cut = dir / "cut.fxray";
        std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
        refuse(cut, "");
    }

    void failedSaveKeepsThePreviousFile() {
        fs::path dir = tempDir();
        fs::path p = dir / "keep.fxray";
        LoadedFile empty;
        QVERIFY(saveSession(p, empty, {}).ok());
        const auto size = fs::file_size(p);
        // The temp file's name is taken by a folder, so the write fails half way (as a full disk
        // would); the previous session must survive untouched.
        fs::path blocker = p;
        blocker += ".tmp" + std::to_string(::getpid());
        fs::create_directories(blocker / "x");
        SessionState st;
        st.graph = "something new";
        Status s = saveSession(p, empty, st);
        fs::remove_all(blocker);
        QVERIFY(!s.ok());
        QVERIFY(fs::exists(p));
        QCOMPARE(fs::file_size(p), size);
    }

    void cleanupTestCase() { fs::remove_all(tempDir()); }

private:
    /// An in-memory FX text graph finished like a load.
    static std::unique_ptr<LoadedFile> readFxText_(const std::string& text) {
        fs::path p = tempDir() / "g.py";
        std::ofstream(p) << text;
        auto f = loadFile(p);
        if (!f.ok()) return nullptr;
        return std::make_unique<LoadedFile>(std::move(*f));
    }
};

QTEST_GUILESS_MAIN(TestSessionFile)
#include "tst_session_file.moc"
