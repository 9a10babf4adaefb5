// The AOT cache (codegen/cpu/aot_cache.h): a miss compiles and publishes an entry, a second call
// is a hit that writes nothing; a library run from the cache reproduces PyTorch's recorded
// outputs; corrupt or foreign entries are rebuilt, never loaded; a symbolic graph compiles per
// binding (mlp of corpus_dynamic at both recorded sizes) and guards it;
// two `fxray aot-compile` processes racing on one key both succeed and leave a valid entry.
#include "test_util.h"

#include "codegen/cpu/aot_cache.h"
#include "exec/compare.h"
#include "exec/shape_binding.h"
#include "import/loader.h"
#include "import/npy.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>

#include <filesystem>
#include <fstream>
#include <map>

using namespace fxray;
namespace fs = std::filesystem;

namespace {

fs::path freshDir(const std::string& name) {
    fs::path d = fs::temp_directory_path() /
                 ("fxray_tst_aot_" + name + "_" + std::to_string(QCoreApplication::applicationPid()));
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

/// Every file under dir with its size and modification time.
std::map<std::string, std::pair<uintmax_t, fs::file_time_type>> listing(const fs::path& dir) {
    std::map<std::string, std::pair<uintmax_t, fs::file_time_type>> r;
    for (const auto& e : fs::recursive_directory_iterator(dir))
        if (e.is_regular_file()) r[e.path().string()] = {e.file_size(), e.last_write_time()};
    return r;
}

fs::path mlpForward() { return fxtest::corpus() / "mlp" / "numerics" / "forward.py"; }

std::string slurp(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
}

void spit(const fs::path& p, const std::string& s) {
    std::ofstream f(p, std::ios::binary | std::ios::trunc);
    f << s;
}

}  // namespace

class TestAotCache : public QObject {
    Q_OBJECT
private slots:
    void missThenHit() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found at FXRAY_CORPUS_DIR");
        auto f = loadFile(mlpForward());
        QVERIFY(f.ok());
        const Graph& g = *f->graphs[0].graph;
        cg::cpu::AotOptions o;
        o.cacheDir = freshDir("hit").string();
        auto first = cg::cpu::aotCompile(g, o);
        QVERIFY2(first.ok(), first.ok() ? "" : first.error().str().c_str());
        QVERIFY(!first->hit);
        QVERIFY(first->compileMs > 0.0);
        QVERIFY(fs::is_regular_file(first->library));
        QVERIFY(fs::is_regular_file(first->metadata));
        auto before = listing(o.cacheDir);
        auto second = cg::cpu::aotCompile(g, o);
        QVERIFY2(second.ok(), second.ok() ? "" : second.error().str().c_str());
        QVERIFY(second->hit);
        QCOMPARE(second->library, first->library);
        QCOMPARE(second->compileMs, 0.0);
        // Nothing compiled: no object file, library or metadata written or touched.
        QVERIFY(listing(o.cacheDir) == before);
        for (const auto& [path, info] : before) QVERIFY2(fs::path(path).extension() != ".o", path.c_str());
        // The metadata carries what the key is made of.
        auto meta = QJsonDocument::fromJson(QByteArray::fromStdString(slurp(first->metadata))).object();
        for (const char* k : {"inputs", "graph_fingerprint", "fxray", "llvm", "target", "checksum", "plan"})
            QVERIFY2(meta.contains(k), k);
        auto in0 = meta["inputs"].toArray()[0].toObject();
        QCOMPARE(in0["dtype"].toString(), QString("torch.float32"));
        QCOMPARE(in0["shape"].toArray().size(), 2);  // primals_1: f32[128, 64][64, 1]
        QCOMPARE(in0["shape"].toArray()[0].toInt(), 128);
        QCOMPARE(in0["stride"].toArray()[0].toInt(), 64);
        fs::remove_all(o.cacheDir);
    }

    void cachedLibraryReproducesRecordedOutputs() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found at FXRAY_CORPUS_DIR");
        fs::path num = fxtest::corpus() / "mlp" / "numerics";
        auto f = loadFile(num / "forward.py");
        QVERIFY(f.ok());
        const Graph& g = *f->graphs[0].graph;
        cg::cpu::AotOptions o;
        o.cacheDir = freshDir("run").string();
        auto e = cg::cpu::aotCompile(g, o);
        QVERIFY2(e.ok(), e.ok() ? "" : e.error().str().c_str());
        // A second "process": a hit, loaded with dlopen, no LLVM.
        auto hit = cg::cpu::aotCompile(g, o);
        QVERIFY(hit.ok() && hit->hit);
        auto loaded = cg::cpu::aotLoad(g, *hit, o);
        QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.error().str().c_str());
        QVERIFY(loaded->graph->program().kernels.size() > 0);
        auto phs = g.placeholders();
        auto inputs = readNpyFolder(num / "forward" / "inputs", phs.size());
        QVERIFY(inputs.ok());
        for (size_t i = 0; i < inputs->size(); ++i) (*inputs)[i].t = withAnnotatedStrides((*inputs)[i].t, *phs[i]);
        auto outs = loaded->graph->run(*inputs);
        QVERIFY2(outs.ok(), outs.ok() ? "" : outs.error().str().c_str());
        auto expect = readNpyFolder(num / "forward" / "outputs", g.outputs().size());
        QVERIFY(expect.ok());
        QCOMPARE(outs->size(), expect->size());
        for (size_t i = 0; i < outs->size(); ++i) {
            auto c = compareValues(i, (*outs)[i], (*expect)[i]);
            QVERIFY2(c.relErr <= 1e-4,
                     ("output " + std::to_string(i) + " rel_err " + std::to_string(c.relErr)).c_str());
        }
        // And the JIT computes the same thing from the same plan.
        auto jit = cg::cpu::CompiledGraph::compile(g, *inputs);
        QVERIFY(jit.ok());
        auto jouts = (*jit)->run(*inputs);
        QVERIFY(jouts.ok());
        for (size_t i = 0; i < outs->size(); ++i) QVERIFY(compareValues(i, (*outs)[i], (*jouts)[i]).relErr <= 1e-6);
        fs::remove_all(o.cacheDir);
    }

    void corruptOrForeignEntriesAreRebuilt_data() {
        QTest::addColumn<QString>("damage");
        QTest::addColumn<QString>("reason");
        QTest::newRow("flipped library bytes") << "library"
                                               << "checksum";
        QTest::newRow("other fxray version") << "version"
                                             << "foreign";
        QTest::newRow("unreadable metadata") << "json"
                                             << "not valid JSON";
        QTest::newRow("deleted library") << "missing"
                                         << "missing";
    }

    void corruptOrForeignEntriesAreRebuilt() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found at FXRAY_CORPUS_DIR");
        QFETCH(QString, damage);
        QFETCH(QString, reason);
        auto f = loadFile(mlpForward());
        QVERIFY(f.ok());
        const Graph& g = *f->graphs[0].graph;
        cg::cpu::AotOptions o;
        o.cacheDir = freshDir("corrupt").string();
        auto e = cg::cpu::aotCompile(g, o);
        QVERIFY(e.ok() && !e->hit);
        if (damage == "library") {
            std::string bytes = slurp(e->library);
            QVERIFY(bytes.size() > 4096);
            for (size_t i = bytes.size() / 2; i < bytes.size() / 2 + 16; ++i) bytes[i] = static_cast<char>(~bytes[i]);
            spit(e->library, bytes);
        } else if (damage == "version") {
            std::string m = slurp(e->metadata);
            auto at = m.find("\"fxray\": \"");
            QVERIFY(at != std::string::npos);
            m.insert(at + 10, "0.0.0-other-");
            spit(e->metadata, m);
        } else if (damage == "json") {
            std::string m = slurp(e->metadata);
            spit(e->metadata, m.substr(0, m.size() / 2));
        } else {
            fs::remove(e->library);
        }
        // Never loaded blindly...
        auto bad = cg::cpu::aotLoad(g, *e, o);
        QVERIFY(!bad.ok());
        QVERIFY2(QString::fromStdString(bad.error().message).contains(reason), bad.error().message.c_str());
        // ...but rebuilt, and the rebuilt entry is valid.
        auto again = cg::cpu::aotCompile(g, o);
        QVERIFY2(again.ok(), again.ok() ? "" : again.error().str().c_str());
        QVERIFY(!again->hit);
        QVERIFY2(QString::fromStdString(again->rebuiltBecause).contains(reason), again->rebuiltBecause.c_str());
        auto third = cg::cpu::aotCompile(g, o);
        QVERIFY(third.ok() && third->hit);
        QVERIFY(cg::cpu::aotLoad(g, *third, o).ok());
        fs::remove_all(o.cacheDir);
    }

    void symbolicGraphCompilesPerBinding() {
        // A symbolic graph compiles once per binding: --sizes, else the hints, else 8 per symbol.
        fs::path dir = freshDir("dyn");
        fs::path file = dir / "dyn.py";
        spit(file, "class GraphModule(torch.nn.Module):\n"
                   "    def forward(self, x: \"f32[s0, 4][4, 1]cpu\"):\n"
                   "        relu: \"f32[s0, 4][4, 1]cpu\" = torch.ops.aten.relu.default(x);  x = None\n"
                   "        return (relu,)\n");
        auto f = loadFile(file);
        QVERIFY2(f.ok(), f.ok() ? "" : f.error().str().c_str());
        const Graph& g = *f->graphs[0].graph;
        cg::cpu::AotOptions o;
        o.cacheDir = (dir / "cache").string();
        auto e8 = cg::cpu::aotCompile(g, o);
        QVERIFY2(e8.ok(), e8.ok() ? "" : e8.error().str().c_str());
        QCOMPARE(e8->binding.at("s0").i, int64_t(8));  // no hint: 8
        o.sizes = {{"s0", sym::Num::ofInt(3)}};
        auto e3 = cg::cpu::aotCompile(g, o);
        QVERIFY(e3.ok() && !e3->hit);
        QVERIFY(e3->key != e8->key);
        // A symbol the graph does not have is refused by name, before touching the cache.
        o.sizes = {{"s9", sym::Num::ofInt(3)}};
        auto bad = cg::cpu::aotCompile(g, o);
        QVERIFY(!bad.ok());
        QVERIFY2(bad.error().message.find("'s9'") != std::string::npos, bad.error().message.c_str());
        fs::remove_all(dir);
    }

    void symbolicMlpAtTwoSizes() {
        // corpus_dynamic's mlp forward (batch s33) compiled for both recorded sizes: two entries,
        // each reproduces PyTorch's run at its size; an entry refuses the other size's inputs.
        const fs::path num = fxtest::corpus().parent_path() / "corpus_dynamic" / "mlp" / "numerics";
        if (!fs::exists(num / "forward.py")) QSKIP("corpus_dynamic not found beside the corpus");
        auto f = loadFile(num / "forward.py");
        QVERIFY(f.ok());
        const Graph& g = *f->graphs[0].graph;
        cg::cpu::AotOptions o;
        o.cacheDir = freshDir("dynmlp").string();
        auto phs = g.placeholders();
        std::map<std::string, std::vector<Value>> inputsOf;
        std::map<std::string, cg::cpu::AotEntry> entryOf;
        for (const char* run : {"forward", "forward_2"}) {
            auto vals = readNpyFolder(num / run / "inputs", phs.size());
            QVERIFY(vals.ok());
            std::vector<Value> inputs = std::move(vals).value();
            scalarizeSymInputs(g, inputs);
            auto b = bindInputs(g, inputs, false);
            QVERIFY2(b.ok(), b.ok() ? "" : b.error().str().c_str());
            for (size_t i = 0; i < inputs.size(); ++i)
                if (inputs[i].isTensor())
                    inputs[i].t = withAnnotatedStrides(inputs[i].t, *bindMeta(phs[i]->meta[0], *b));
            o.sizes = *b;
            auto e = cg::cpu::aotCompile(g, o);
            QVERIFY2(e.ok(), e.ok() ? "" : e.error().str().c_str());
            QVERIFY(!e->hit);
            auto hit = cg::cpu::aotCompile(g, o);
            QVERIFY(hit.ok() && hit->hit && hit->key == e->key);
            auto loaded = cg::cpu::aotLoad(g, *hit, o);
            QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.error().str().c_str());
            auto outs = loaded->run(inputs);
            QVERIFY2(outs.ok(), outs.ok() ? "" : outs.error().str().c_str());
            auto expect = readNpyFolder(num / run / "outputs", g.outputs().size());
            QVERIFY(expect.ok());
            QCOMPARE(outs->size(), expect->size());
            for (size_t i = 0; i < outs->size(); ++i) {
                auto c = compareValues(i, (*outs)[i], (*expect)[i]);
                QVERIFY2(c.ok && c.relErr <= 1e-4,
                         (std::string(run) + " output " + std::to_string(i) + " rel_err " + std::to_string(c.relErr))
                             .c_str());
            }
            inputsOf[run] = std::move(inputs);
            entryOf[run] = *hit;
        }
        QCOMPARE(entryOf["forward"].binding.at("s33").i, int64_t(16));
        QCOMPARE(entryOf["forward_2"].binding.at("s33").i, int64_t(19));
        QVERIFY(entryOf["forward"].key != entryOf["forward_2"].key);
        // The guard: the s33=16 library on s33=19 inputs.
        auto loaded16 = cg::cpu::aotLoad(g, entryOf["forward"], o);
        QVERIFY(loaded16.ok());
        auto wrong = loaded16->run(inputsOf["forward_2"]);
        QVERIFY(!wrong.ok());
        const std::string& msg = wrong.error().message;
        QVERIFY2(msg.find("s33=16") != std::string::npos && msg.find("s33=19") != std::string::npos, msg.c_str());
        // aotRun picks the entry of the inputs' size: both are hits now.
        for (const char* run : {"forward", "forward_2"}) {
            cg::cpu::AotEntry used;
            auto outs = cg::cpu::aotRun(g, inputsOf[run], o, &used);
            QVERIFY2(outs.ok(), outs.ok() ? "" : outs.error().str().c_str());
            QVERIFY(used.hit);
            QCOMPARE(used.key, entryOf[run].key);
        }
        fs::remove_all(o.cacheDir);
    }

    void concurrentProcessesBothSucceed() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found at FXRAY_CORPUS_DIR");
        QString exe = QCoreApplication::applicationDirPath() + "/../app/fxray";
        if (!fs::exists(exe.toStdString())) QSKIP("the fxray executable of this build tree (app/fxray) is not built");
        fs::path cache = freshDir("race");
        QStringList args{"aot-compile", QString::fromStdString(mlpForward().string()), "--cache-dir",
                         QString::fromStdString(cache.string()), "--json"};
        QProcess a, b;
        a.start(exe, args);
        b.start(exe, args);
        QVERIFY(a.waitForFinished(120000));
        QVERIFY(b.waitForFinished(120000));
        QCOMPARE(a.exitCode(), 0);
        QCOMPARE(b.exitCode(), 0);
        auto ja = QJsonDocument::fromJson(a.readAllStandardOutput()).object();
        auto jb = QJsonDocument::fromJson(b.readAllStandardOutput()).object();
        // The key's lock serialises them: one builds, the other finds the published entry.
        QStringList caches{ja["cache"].toString(), jb["cache"].toString()};
        caches.sort();
        QCOMPARE(caches, (QStringList{"hit", "miss"}));
        QCOMPARE(ja["library"].toString(), jb["library"].toString());
        for (const auto& ent : fs::directory_iterator(cache))
            QVERIFY2(ent.path().filename().string().rfind(".tmp-", 0) != 0, "a temporary folder was left behind");
        auto f = loadFile(mlpForward());
        QVERIFY(f.ok());
        cg::cpu::AotOptions o;
        o.cacheDir = cache.string();
        auto e = cg::cpu::aotCompile(*f->graphs[0].graph, o);
        QVERIFY(e.ok() && e->hit);
        QVERIFY(cg::cpu::aotLoad(*f->graphs[0].graph, *e, o).ok());
        // The command line compiles a dynamic-shape graph for --sizes, and refuses a symbol the
        // graph does not have with exit status 2.
        fs::path dyn = cache / "dyn.py";
        spit(dyn, "class GraphModule(torch.nn.Module):\n"
                  "    def forward(self, x: \"f32[s0, 4][4, 1]cpu\"):\n"
                  "        relu: \"f32[s0, 4][4, 1]cpu\" = torch.ops.aten.relu.default(x);  x = None\n"
                  "        return (relu,)\n");
        QProcess d;
        d.start(exe, {"aot-compile", QString::fromStdString(dyn.string()), "--cache-dir",
                      QString::fromStdString(cache.string()), "--sizes", "s0=3", "--json"});
        QVERIFY(d.waitForFinished(60000));
        QCOMPARE(d.exitCode(), 0);
        auto jd = QJsonDocument::fromJson(d.readAllStandardOutput()).object();
        QCOMPARE(jd["binding"].toObject()["s0"].toInt(), 3);
        QProcess bad;
        bad.start(exe, {"aot-compile", QString::fromStdString(dyn.string()), "--cache-dir",
                        QString::fromStdString(cache.string()), "--sizes", "s9=3"});
        QVERIFY(bad.waitForFinished(60000));
        QCOMPARE(bad.exitCode(), 2);
        QVERIFY(QString::fromUtf8(bad.readAllStandardError()).contains("'s9'"));
        fs::remove_all(cache);
    }
};

QTEST_GUILESS_MAIN(TestAotCache)
#include "tst_aot_cache.moc"
