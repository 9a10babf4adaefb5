// The to_folder reader against the corpus: every to_folder directory loads into the graph that
// PyTorch printed as graphs/dynamo_graph.py (the same GraphModule, saved by to_folder), with
// pickled submodules (checkpoint body, cond branches) as subgraphs; with the eager weights bound
// to its lifted parameters it reproduces eager/output0.npy. Hand-made folders cover module
// calls lowered to ATen, the folder's own state dict, and hostile or missing files.
#include "test_util.h"

#include "exec/run_check.h"
#include "import/fx_text_reader.h"
#include "import/npy.h"
#include "import/pt2_reader.h"
#include "import/to_folder_reader.h"

#if __has_include("import/dynamo_lowering.h")
#include "import/dynamo_lowering.h"
#define FXRAY_HAVE_LOWERING 1
#endif

#include <zip.h>

#include <QTemporaryDir>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <type_traits>

using namespace fxray;
namespace fs = std::filesystem;

namespace {

void writeFile(const fs::path& p, const std::string& bytes) {
    std::ofstream f(p, std::ios::binary);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}
bool writeZip(const fs::path& p, const std::vector<std::pair<std::string, std::string>>& members) {
    int err = 0;
    zip_t* z = zip_open(p.string().c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
    if (!z) return false;
    for (const auto& [name, data] : members) {
        zip_source_t* s = zip_source_buffer(z, data.data(), data.size(), 0);
        if (zip_file_add(z, name.c_str(), s, ZIP_FL_OVERWRITE) < 0) {
            zip_source_free(s);
            zip_discard(z);
            return false;
        }
    }
    return zip_close(z) == 0;
}

struct Pk {
    std::string b;
    Pk() {
        b += char(0x80);
        b += char(2);
    }
    Pk& op(int c) {
        b += char(c);
        return *this;
    }
    Pk& u8(int v) {
        b += char(v & 0xff);
        return *this;
    }
    Pk& u32(uint32_t v) {
        for (int k = 0; k < 4; ++k) b += char((v >> (8 * k)) & 0xff);
        return *this;
    }
    Pk& uni(const std::string& s) {
        op('X').u32(static_cast<uint32_t>(s.size()));
        b += s;
        return *this;
    }
    Pk& global(const std::string& m, const std::string& n) {
        op('c');
        b += m + "\n" + n + "\n";
        return *this;
    }
    Pk& k1(int v) { return op('K').u8(v); }
    std::string stop() { return b + "."; }
};

/// A torch.save state dict of float tensors given as (name, shape, values).
struct Entry {
    std::string name;
    std::vector<int> shape;
    std::vector<float> values;
};
std::vector<std::pair<std::string, std::string>> stateDictMembers(const std::vector<Entry>& entries) {
    Pk p;
    p.global("collections", "OrderedDict").op(')').op('R').op('(');
    std::vector<std::pair<std::string, std::string>> members;
    for (size_t i = 0; i < entries.size(); ++i) {
        const Entry& e = entries[i];
        p.uni(e.name).global("torch._utils", "_rebuild_tensor_v2").op('(');
        p.op('(')
            .uni("storage")
            .global("torch", "FloatStorage")
            .uni(std::to_string(i))
            .uni("cpu")
            .k1(static_cast<int>(e.values.size()))
            .op('t')
            .op('Q');
        p.k1(0).op('(');
        for (int s : e.shape) p.k1(s);
        p.op('t').op('(');
        int stride = 1;
        std::vector<int> strides(e.shape.size());
        for (size_t d = e.shape.size(); d-- > 0;) {
            strides[d] = stride;
            stride *= e.shape[d];
        }
        for (int s : strides) p.k1(s);
        p.op('t').op(0x89).global("collections", "OrderedDict").op(')').op('R').op('t').op('R');
        std::string bytes(e.values.size() * 4, '\0');
        std::memcpy(bytes.data(), e.values.data(), bytes.size());
        members.emplace_back("state_dict/data/" + std::to_string(i), bytes);
    }
    p.op('u');
    members.emplace_back("state_dict/data.pkl", p.stop());
    members.emplace_back("state_dict/byteorder", "little");
    return members;
}

const char* kModule = "\n"
                      "import torch\n"
                      "from torch.nn import *\n"
                      "class FxModule(torch.nn.Module):\n"
                      "    def __init__(self):\n"
                      "        super().__init__()\n"
                      "        self.fc1 = Linear(in_features=2, out_features=2, bias=True)\n"
                      "        self.act = ReLU()\n"
                      "        self.id = Identity()\n"
                      "        self.load_state_dict(torch.load(r'/nonexistent/elsewhere/state_dict.pt'))\n"
                      "\n"
                      "    def forward(self, x):\n"
                      "        fc1 = self.fc1(x);  x = None\n"
                      "        act = self.act(fc1);  fc1 = None\n"
                      "        id_1 = self.id(act);  act = None\n"
                      "        return (id_1,)\n";

std::vector<fs::path> toFolders() {
    std::vector<fs::path> out;
    for (const auto& m : fs::directory_iterator(fxtest::corpus()))
        if (isToFolder(m.path() / "to_folder")) out.push_back(m.path());
    std::sort(out.begin(), out.end());
    return out;
}

std::string structureDiff(const Graph& a, const Graph& b, const std::string& where) {
    if (a.size() != b.size()) return where + ": " + std::to_string(a.size()) + " nodes vs " + std::to_string(b.size());
    for (size_t i = 0; i < a.size(); ++i) {
        const Node& x = *a.nodes()[i];
        const Node& y = *b.nodes()[i];
        std::string at = where + " node '" + y.name() + "'";
        if (x.name() != y.name() || x.kind() != y.kind() || x.target() != y.target())
            return at + ": got '" + x.name() + "' " + x.target();
        if (x.args.size() != y.args.size() || x.kwargs.size() != y.kwargs.size()) return at + ": argument count";
        for (size_t k = 0; k < x.args.size(); ++k)
            if (x.args[k].repr() != y.args[k].repr()) return at + ": " + x.args[k].repr() + " vs " + y.args[k].repr();
        for (size_t k = 0; k < x.kwargs.size(); ++k)
            if (x.kwargs[k].first != y.kwargs[k].first || x.kwargs[k].second.repr() != y.kwargs[k].second.repr())
                return at + ": kwarg";
    }
    if (a.subgraphs().size() != b.subgraphs().size()) return where + ": subgraph count";
    for (size_t s = 0; s < a.subgraphs().size(); ++s) {
        if (a.subgraphs()[s].first != b.subgraphs()[s].first) return where + ": subgraph " + a.subgraphs()[s].first;
        auto d =
            structureDiff(*a.subgraphs()[s].second, *b.subgraphs()[s].second, where + "." + a.subgraphs()[s].first);
        if (!d.empty()) return d;
    }
    return {};
}

#ifdef FXRAY_HAVE_LOWERING
/// Calls lowerToAten whatever it returns; false with a message on failure.
bool lower(Graph& g, std::string& msg) {
    if constexpr (std::is_void_v<decltype(lowerToAten(g))>) {
        lowerToAten(g);
        return true;
    } else {
        auto r = lowerToAten(g);
        if constexpr (requires {
                          r.ok();
                          r.error().str();
                      }) {
            if (!r.ok()) {
                msg = r.error().str();
                return false;
            }
        } else if constexpr (std::is_convertible_v<decltype(r), bool>) {
            if (!static_cast<bool>(r)) {
                msg = "lowerToAten failed";
                return false;
            }
        }
        return true;
    }
}
#endif

}  // namespace

class TestToFolder : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found at FXRAY_CORPUS_DIR");
    }

    /// to_folder wrote the GraphModule whose print_readable is graphs/dynamo_graph.py.
    void everyFolderEqualsDynamoGraph() {
        auto all = toFolders();
        QVERIFY2(all.size() >= 9, "expected the corpus's 9 to_folder directories");
        std::string failures;
        for (const auto& m : all) {
            auto f = readToFolder(m / "to_folder");
            if (!f.ok()) {
                failures += f.error().str() + "\n";
                continue;
            }
            QCOMPARE(f->format, std::string("to-folder"));
            QCOMPARE(f->graphs.size(), size_t(1));
            auto ref = readFxFile(m / "graphs/dynamo_graph.py");
            QVERIFY(ref.ok());
            auto d = structureDiff(*f->graphs[0].graph, **ref, m.filename().string());
            if (!d.empty())
                failures += d + "\n";
            else
                qInfo("%s: %zu nodes equal to dynamo_graph.py", m.filename().string().c_str(),
                      f->graphs[0].graph->size());
            QVERIFY(f->graphs[0].graph->verify().ok());
        }
        QVERIFY2(failures.empty(), failures.c_str());
    }

    void pickledSubmodulesBecomeSubgraphs() {
        auto f = readToFolder(fxtest::corpus() / "cond_subgraph/to_folder");
        QVERIFY2(f.ok(), f.ok() ? "" : f.error().str().c_str());
        const Graph& g = *f->graphs[0].graph;
        QCOMPARE(g.subgraphs().size(), size_t(2));
        QCOMPARE(g.subgraphs()[0].first, std::string("cond_true_0"));
        const Graph* t = g.subgraph("cond_true_0");
        QVERIFY(t);
        QCOMPARE(t->placeholders().size(), size_t(3));
        QVERIFY(t->find("relu") != nullptr);
        QVERIFY(g.subgraph("cond_false_0")->find("sigmoid") != nullptr);
    }

    /// Dynamo's lifted placeholder names map back to the eager state dict's keys.
    void liftedParametersMatchStateDictKeys() {
        struct Case {
            const char* model;
            std::vector<std::pair<std::string, std::string>> expect;
        };
        std::vector<Case> cases = {
            {"mlp",
             {{"l_fn_modules_0_parameters_weight_", "0.weight"},
              {"l_fn_modules_0_parameters_bias_", "0.bias"},
              {"l_fn_modules_2_parameters_weight_", "2.weight"},
              {"l_fn_modules_2_parameters_bias_", "2.bias"}}},
            {"randperm_index_add", {{"l_s_parameters_y_", "y"}}},
        };
        for (const auto& c : cases) {
            auto f = readToFolder(fxtest::corpus() / c.model / "to_folder");
            QVERIFY(f.ok());
            auto sd = readPt(fxtest::corpus() / c.model / "eager/state_dict.pt");
            QVERIFY(sd.ok());
            QCOMPARE(matchLiftedParameters(*f->graphs[0].graph, *sd), c.expect);
        }
        // Buffers and names with underscores: every non-input placeholder of every model binds.
        for (const auto& m : toFolders()) {
            if (!fs::exists(m / "eager/state_dict.pt")) continue;
            auto f = readToFolder(m / "to_folder");
            auto sd = readPt(m / "eager/state_dict.pt");
            QVERIFY(f.ok() && sd.ok());
            Graph& g = *f->graphs[0].graph;
            size_t bound = bindLiftedParameters(g, *sd);
            size_t params = 0;
            for (Node* p : g.placeholders())
                params += p->target().find("_parameters_") != std::string::npos ||
                          p->target().find("_buffers_") != std::string::npos;
            QVERIFY2(bound == params && bound > 0, m.filename().string().c_str());
        }
        auto cb = readToFolder(fxtest::corpus() / "convbn_freeze/to_folder");
        auto cbsd = readPt(fxtest::corpus() / "convbn_freeze/eager/state_dict.pt");
        QVERIFY(cb.ok() && cbsd.ok());
        auto pairs = matchLiftedParameters(*cb->graphs[0].graph, *cbsd);
        QVERIFY(std::find(pairs.begin(), pairs.end(),
                          std::pair<std::string, std::string>("l_fn_modules_4_buffers_running_var_",
                                                              "4.running_var")) != pairs.end());
    }

    /// With the eager weights, the graph computes eager/output0.npy from eager/input0.npy.
    void runsToEagerOutputs() {
#ifndef FXRAY_HAVE_LOWERING
        QSKIP("import/dynamo_lowering.h (lowerToAten) is not available: to_folder graphs are torch-level and need it "
              "to run");
#else
        int ran = 0;
        std::string failures;
        for (const auto& m : toFolders()) {
            const std::string name = m.filename().string();
            if (!fs::exists(m / "eager/output0.npy") || name == "randperm_index_add")
                continue;  // randperm: RNG-dependent
            auto f = readToFolder(m / "to_folder");
            QVERIFY(f.ok());
            auto sd = readPt(m / "eager/state_dict.pt");
            QVERIFY(sd.ok());
            LoadedGraph& lg = f->graphs[0];
            bindLiftedParameters(*lg.graph, *sd);
            auto x = readNpy(m / "eager/input0.npy");
            auto y = readNpy(m / "eager/output0.npy");
            QVERIFY(x.ok() && y.ok());
            auto inputs = completeInputs(*lg.graph, {Value::ofTensor(*x)});
            if (!inputs.ok()) {
                failures += name + ": " + inputs.error().str() + "\n";
                continue;
            }
            setPlaceholderMeta(*lg.graph, *inputs);
            std::string msg;
            if (!lower(*lg.graph, msg)) {
                failures += name + ": lowering: " + msg + "\n";
                continue;
            }
            finishGraph(lg);
            RunRequest req;
            req.inputs = std::move(inputs).value();
            std::vector<Value> want = {Value::ofTensor(*y)};
            auto res = runAndCheck(*lg.graph, req, &want);
            if (!res.ok()) {
                failures += name + ": " + res.error().str() + "\n";
                continue;
            }
            if (!res->ok) {
                failures += name + ": output differs from eager/output0.npy\n";
                continue;
            }
            qInfo("%s: to_folder graph reproduces eager/output0.npy", name.c_str());
            ++ran;
        }
        QVERIFY2(failures.empty(), failures.c_str());
        QVERIFY(ran >= 7);
#endif
    }

    /// Module calls become ATen calls on the folder's own state dict (not the path in module.py).
    void moduleCallsLowerToAten() {
        QTemporaryDir tmp;
        fs::path dir(tmp.path().toStdString());
        writeFile(dir / "module.py", kModule);
        QVERIFY(writeZip(dir / "state_dict.pt",
                         stateDictMembers({{"fc1.weight", {2, 2}, {1, 2, 3, 4}}, {"fc1.bias", {2}, {0.5f, -100}}})));
        auto f = readToFolder(dir);
        QVERIFY2(f.ok(), f.ok() ? "" : f.error().str().c_str());
        const Graph& g = *f->graphs[0].graph;
        const Node* fc1 = g.find("fc1");
        QVERIFY(fc1);
        QCOMPARE(fc1->target(), std::string("torch.ops.aten.linear.default"));
        QCOMPARE(fc1->args[1].repr(), std::string("fc1_weight"));
        QCOMPARE(g.find("fc1_weight")->target(), std::string("fc1.weight"));
        QCOMPARE(g.find("act")->target(), std::string("torch.ops.aten.relu.default"));
        QVERIFY(!g.find("id_1"));  // Identity: its users read act directly
        QCOMPARE(g.outputs()[0].repr(), std::string("act"));
        QCOMPARE(g.constants.size(), size_t(2));
        // x = [1, 1]: fc1 = [1+2+0.5, 3+4-100] = [3.5, -93]; relu -> [3.5, 0]
        RunRequest req;
        req.inputs = {fxtest::tv({1, 2}, {1, 1})};
        auto res = runAndCheck(g, req, nullptr);
        QVERIFY2(res.ok(), res.ok() ? "" : res.error().str().c_str());
        FX_COMPARE_VEC(fxtest::values(res->outputs[0]), (std::vector<double>{3.5, 0}), 1e-6);
    }

    void moduleWithoutWeightsStaysCallModule() {
        QTemporaryDir tmp;
        fs::path dir(tmp.path().toStdString());
        writeFile(dir / "module.py", kModule);
        QVERIFY(writeZip(dir / "state_dict.pt", stateDictMembers({})));
        auto f = readToFolder(dir);
        QVERIFY2(f.ok(), f.ok() ? "" : f.error().str().c_str());
        const Graph& g = *f->graphs[0].graph;
        QCOMPARE(g.find("fc1")->kind(), NodeKind::CallModule);
        QCOMPARE(g.find("act")->target(), std::string("torch.ops.aten.relu.default"));
        const auto& notes = f->graphs[0].notes;
        QVERIFY(std::find(notes.begin(), notes.end(), "state_dict.pt has no 'fc1.weight'") != notes.end());
        QVERIFY(std::find(notes.begin(), notes.end(), "call of self.fc1 (Linear) kept as call_module") != notes.end());
    }

    void errors() {
        QTemporaryDir tmp;
        fs::path dir(tmp.path().toStdString());
        auto nf = readToFolder(dir);
        QVERIFY(!nf.ok());
        QCOMPARE(nf.error().message,
                 std::string("not a to_folder directory: module.py and state_dict.pt are required"));

        writeFile(dir / "module.py", kModule);
        QVERIFY(writeZip(dir / "state_dict.pt",
                         {{"s/data.pkl", Pk().global("os", "system").uni("x").op(0x85).op('R').stop()}}));
        auto evil = readToFolder(dir);
        QVERIFY(!evil.ok());
        QVERIFY2(evil.error().message.find("refusing to load global 'os.system' at byte 2") == 0,
                 evil.error().str().c_str());

        // A submodule pickle holding an ordinary nn.Module (a class global) is refused too.
        std::string withSub = std::string(kModule);
        withSub.insert(withSub.find("        self.load_state_dict"),
                       "        setattr(self, 'sub', torch.load(r'/abs/sub.pt', weights_only=False)) # Linear()\n");
        writeFile(dir / "module.py", withSub);
        QVERIFY(writeZip(dir / "state_dict.pt", stateDictMembers({})));
        QVERIFY(writeZip(dir / "sub.pt",
                         {{"sub/data.pkl", Pk().global("torch.nn.modules.linear", "Linear").op(')').op(0x81).stop()}}));
        auto sub = readToFolder(dir);
        QVERIFY(!sub.ok());
        QVERIFY2(sub.error().message.find("refusing to load global 'torch.nn.modules.linear.Linear'") == 0,
                 sub.error().str().c_str());
        QVERIFY(sub.error().file.find("sub.pt") != std::string::npos);

        std::filesystem::remove(dir / "sub.pt");
        auto missing = readToFolder(dir);
        QVERIFY(!missing.ok());
        QCOMPARE(missing.error().message, std::string("no such file"));
    }
};

QTEST_GUILESS_MAIN(TestToFolder)
#include "tst_to_folder.moc"
