// fxray sweep: graphs found under folders, checked in child processes, one result per graph;
// shards (explicit, Slurm array, Kubernetes indexed job) merge to exactly a single run's results,
// a rerun resumes, GPU workers get their own CUDA_VISIBLE_DEVICES, the report compares sweeps.
#include "cli_test_util.h"

#include "minify/subprocess.h"
#include "sweep/sweep.h"

#include <nlohmann/json.hpp>

#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

namespace sweep = fxray::sweep;
namespace minify = fxray::minify;
using fxtest::cli;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

fs::path opinfo() { return fxtest::corpus().parent_path() / "opinfo"; }

/// A fixed slice of the OpInfo set: 12 cases spread over the alphabet (forward and, where
/// PyTorch made one, backward graphs), some that match and some that fail.
std::vector<std::string> sliceArgs() {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(opinfo()))
        if (e.is_directory()) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    std::vector<std::string> out;
    for (size_t i = 0; i < names.size() && out.size() < 12; i += std::max<size_t>(1, names.size() / 12))
        out.push_back((opinfo() / names[i]).string());
    return out;
}

/// id -> what must agree between two sweeps of the same graphs (not timings or workers).
std::map<std::string, std::string> outcomes(const fs::path& dir) {
    std::map<std::string, std::string> m;
    for (const auto& r : sweep::readResults(dir))
        m[r["id"]] =
            r.value("status", "") + "|" + r.value("message", "") + "|" + std::to_string(r.value("max_rel_err", 0.0));
    return m;
}

std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

}  // namespace

class TestCliSweep : public QObject {
    Q_OBJECT
    QTemporaryDir m_tmp;
    size_t m_graphs = 0;  // graph files in the slice (a case may have a forward graph only)
    fs::path single() const { return fs::path(m_tmp.path().toStdString()) / "single"; }

private slots:
    void initTestCase() {
        if (!fs::exists(opinfo() / "index.json")) QSKIP("../shared/opinfo not found beside the corpus");
        if (minify::findFxrayExecutable().empty())
            QSKIP("the fxray executable is not built next to this test (ninja fxray); checks run in it");
        QVERIFY(m_tmp.isValid());
        std::vector<fs::path> roots;
        for (const auto& a : sliceArgs()) roots.push_back(a);
        auto found = sweep::discoverGraphs(roots);
        QVERIFY(found.ok());
        m_graphs = found->size();
        QVERIFY(m_graphs >= 12);
        auto r =
            cli(concat({"sweep"}, concat(sliceArgs(), {"--check", "run", "--out", single().string(), "--jobs", "2"})));
        QVERIFY2(r.status == 0, r.err.c_str());
        QCOMPARE(outcomes(single()).size(), m_graphs);
    }

    void resultsClassifyEachGraph() {
        std::set<std::string> statuses;
        for (const auto& r : sweep::readResults(single())) {
            statuses.insert(r["status"].get<std::string>());
            QVERIFY(r.contains("seconds") && r.contains("worker") && r.contains("file"));
            if (r["status"] != "ok") QVERIFY2(!r.value("message", "").empty(), r.dump().c_str());
        }
        QVERIFY(statuses.count("ok"));
    }

    void threeShardsMergeToTheSingleRun() {
        const fs::path dir = fs::path(m_tmp.path().toStdString()) / "sharded";
        std::set<std::string> listed;
        size_t listedTotal = 0;
        for (int k = 0; k < 3; ++k) {
            auto l = cli(concat(
                {"sweep"}, concat(sliceArgs(), {"--list", "--num-shards", "3", "--shard-index", std::to_string(k)})));
            QCOMPARE(l.status, 0);
            std::istringstream in(l.out);
            for (std::string line; std::getline(in, line);) {
                listed.insert(line.substr(0, line.find('\t')));
                ++listedTotal;
            }
            auto r = cli(concat({"sweep"}, concat(sliceArgs(), {"--check", "run", "--out", dir.string(), "--num-shards",
                                                                "3", "--shard-index", std::to_string(k), "--json"})));
            QVERIFY2(r.status == 0, r.err.c_str());
            auto j = json::parse(r.out);
            const size_t selected = j["selected"].get<size_t>();
            QVERIFY(selected >= m_graphs / 3 - 2 && selected <= m_graphs / 3 + 2);  // balanced, not all in one
        }
        QCOMPARE(listedTotal, m_graphs);  // every graph in exactly one shard
        QCOMPARE(listed.size(), m_graphs);
        QCOMPARE(outcomes(dir), outcomes(single()));
    }

    void slurmArrayVariablesShardLikeFlags() {
        const fs::path dir = fs::path(m_tmp.path().toStdString()) / "slurm";
        // sbatch --array=1-3: task ids 1..3, min 1, count 3.
        qputenv("SLURM_ARRAY_TASK_MIN", "1");
        qputenv("SLURM_ARRAY_TASK_COUNT", "3");
        for (int id = 1; id <= 3; ++id) {
            qputenv("SLURM_ARRAY_TASK_ID", QByteArray::number(id));
            auto r = cli(concat({"sweep"}, concat(sliceArgs(), {"--check", "run", "--out", dir.string(), "--json"})));
            QVERIFY2(r.status == 0, r.err.c_str());
            auto j = json::parse(r.out);
            QCOMPARE(j["shard"]["source"].get<std::string>(), std::string("slurm"));
            QCOMPARE(j["shard"]["index"].get<int>(), id - 1);
        }
        qunsetenv("SLURM_ARRAY_TASK_ID");
        qunsetenv("SLURM_ARRAY_TASK_MIN");
        qunsetenv("SLURM_ARRAY_TASK_COUNT");
        QCOMPARE(outcomes(dir), outcomes(single()));
    }

    void kubernetesIndexNeedsTheCount() {
        auto env = [](const char* n) -> const char* {
            return std::string(n) == "JOB_COMPLETION_INDEX" ? "2" : nullptr;
        };
        auto s = sweep::resolveShard(4, std::nullopt, env);
        QVERIFY(s.ok());
        QCOMPARE(s->index, 2);
        QCOMPARE(s->count, 4);
        QCOMPARE(s->source, std::string("kubernetes"));
        QVERIFY(!sweep::resolveShard(std::nullopt, std::nullopt, env).ok());
        QVERIFY(!sweep::resolveShard(2, std::nullopt, env).ok());  // index 2 of 2 is out of range
    }

    void shardsAreBalancedByWeight() {
        std::vector<sweep::GraphEntry> all;
        for (int i = 0; i < 40; ++i) {
            sweep::GraphEntry e;
            e.id = "g" + std::to_string(i);
            e.weight = i < 4 ? 1000 : 10;  // four big graphs must land in four shards
            all.push_back(e);
        }
        std::vector<uint64_t> loads;
        size_t total = 0;
        for (int k = 0; k < 4; ++k) {
            uint64_t load = 0;
            auto part = sweep::shardEntries(all, {4, k, "flags"});
            for (const auto& e : part) load += e.weight;
            loads.push_back(load);
            total += part.size();
        }
        QCOMPARE(total, all.size());
        QVERIFY(*std::max_element(loads.begin(), loads.end()) - *std::min_element(loads.begin(), loads.end()) <= 10);
    }

    void rerunResumesWithoutRunning() {
        auto r = cli(concat({"sweep"}, concat(sliceArgs(), {"--check", "run", "--out", single().string(), "--json"})));
        QVERIFY2(r.status == 0, r.err.c_str());
        auto j = json::parse(r.out);
        QCOMPARE(j["skipped"].get<size_t>(), m_graphs);
        QCOMPARE(j["ran"].get<int>(), 0);
        QVERIFY(j["seconds"].get<double>() < 5.0);
    }

    void gpuWorkersGetTheirDevice() {
        const fs::path dir = fs::path(m_tmp.path().toStdString()) / "gpus";
        auto r =
            cli(concat({"sweep"}, concat(sliceArgs(), {"--check", "run", "--out", dir.string(), "--gpus", "3,5"})));
        QVERIFY2(r.status == 0, r.err.c_str());
        std::map<int, std::set<std::string>> gpusOfWorker;
        for (const auto& res : sweep::readResults(dir)) gpusOfWorker[res["worker"]].insert(res["gpu"]);
        QCOMPARE(gpusOfWorker.size(), size_t(2));
        QCOMPARE(gpusOfWorker[0], std::set<std::string>{"3"});
        QCOMPARE(gpusOfWorker[1], std::set<std::string>{"5"});
        QCOMPARE(outcomes(dir), outcomes(single()));
    }

    void processPerGraphGivesTheWorkersResults() {
        // The default long-lived workers (one process answering graph after graph) against a
        // fresh process for every graph: the same outcome for every graph of the slice.
        const fs::path dir = fs::path(m_tmp.path().toStdString()) / "per-graph";
        auto r = cli(concat({"sweep"}, concat(sliceArgs(), {"--check", "run", "--out", dir.string(), "--jobs", "2",
                                                            "--process-per-graph"})));
        QVERIFY2(r.status == 0, r.err.c_str());
        QCOMPARE(outcomes(dir), outcomes(single()));
    }

    void fileRootsAreNamedByTheirFolders() {
        // Graph files of one name given one by one (the realistic-size set's forward.py and
        // backward.py per model): ids tell them apart by folder, not by order.
        const auto cases = sliceArgs();
        const fs::path a = fs::path(cases[0]) / "numerics" / "forward.py",
                       b = fs::path(cases[1]) / "numerics" / "forward.py";
        auto found = sweep::discoverGraphs({b, a});
        QVERIFY(found.ok());
        QCOMPARE(found->size(), size_t(2));
        std::set<std::string> ids{(*found)[0].id, (*found)[1].id};
        const std::string ida = fs::path(cases[0]).filename().string() + "/numerics/forward";
        const std::string idb = fs::path(cases[1]).filename().string() + "/numerics/forward";
        QCOMPARE(ids, (std::set<std::string>{ida, idb}));
        for (const auto& e : *found) QVERIFY(!e.inputs.empty());  // recorded inputs found beside each file
    }

    void timeoutIsAResult() {
        const fs::path dir = fs::path(m_tmp.path().toStdString()) / "timeout";
        auto r = cli({"sweep", sliceArgs()[0], "--check", "run", "--out", dir.string(), "--timeout", "0.001"});
        QVERIFY2(r.status == 0, r.err.c_str());
        for (const auto& res : sweep::readResults(dir))
            QCOMPARE(res["status"].get<std::string>(), std::string("timeout"));
    }

    void reportComparesWithAnEarlierSweep() {
        // The later sweep is a copy of the single run in which one graph that matched now differs
        // and another matched but took a second longer.
        const fs::path now = fs::path(m_tmp.path().toStdString()) / "now";
        fs::copy(single(), now, fs::copy_options::recursive);
        std::vector<std::string> okIds;
        for (const auto& res : sweep::readResults(single()))
            if (res["status"] == "ok") okIds.push_back(res["id"]);
        QVERIFY(okIds.size() >= 2);
        auto edit = [&](const std::string& id, auto f) {
            std::ifstream in(sweep::resultPath(now, id));
            json j = json::parse(in);
            f(j);
            QVERIFY(sweep::writeResult(now, j).ok());
        };
        edit(okIds[0], [](json& j) {
            j["status"] = "differ";
            j["message"] = "output 0 rel_err 0.5";
        });
        edit(okIds[1], [](json& j) { j["seconds"] = j.value("seconds", 0.0) + 1.0; });
        auto r = cli({"sweep", "--report", now.string(), "--compare", single().string(), "--json"});
        QCOMPARE(r.status, 1);  // something newly fails
        auto j = json::parse(r.out);
        QCOMPARE(j["counts"]["graphs"].get<size_t>(), m_graphs);
        QCOMPARE(j["compare"]["newly_failing"].size(), size_t(1));
        QCOMPARE(j["compare"]["newly_failing"][0]["id"].get<std::string>(), okIds[0]);
        QCOMPARE(j["compare"]["slower"].size(), size_t(1));
        QCOMPARE(j["compare"]["slower"][0]["id"].get<std::string>(), okIds[1]);
        // Backwards, the differing graph newly passes and nothing newly fails.
        auto back = cli({"sweep", "--report", single().string(), "--compare", now.string(), "--json"});
        QCOMPARE(back.status, 0);
        QCOMPARE(json::parse(back.out)["compare"]["newly_passing"].size(), size_t(1));
        auto same = cli({"sweep", "--report", single().string(), "--compare", single().string()});
        QCOMPARE(same.status, 0);
        QVERIFY(same.out.find("newly failing 0") != std::string::npos);
    }

    void reportCountsOksWithFallbacks() {
        // Two ok results that ran ops on the host (what a compiled backend records): the report
        // counts them apart and names the ops by how many graphs used each.
        const fs::path fb = fs::path(m_tmp.path().toStdString()) / "fallbacks";
        fs::copy(single(), fb, fs::copy_options::recursive);
        std::vector<std::string> okIds;
        for (const auto& res : sweep::readResults(single()))
            if (res["status"] == "ok") okIds.push_back(res["id"]);
        QVERIFY(okIds.size() >= 2);
        const json fallbacks[2] = {{{"aten.sort.default", 1}, {"aten.rand.default", 2}}, {{"aten.sort.default", 3}}};
        for (int i = 0; i < 2; ++i) {
            std::ifstream in(sweep::resultPath(fb, okIds[static_cast<size_t>(i)]));
            json j = json::parse(in);
            j["fallbacks"] = fallbacks[i];
            QVERIFY(sweep::writeResult(fb, j).ok());
        }
        auto r = cli({"sweep", "--report", fb.string(), "--json"});
        auto j = json::parse(r.out);
        QCOMPARE(j["counts"]["ok"].get<size_t>(), okIds.size());
        QCOMPARE(j["counts"]["ok_with_fallbacks"].get<int>(), 2);
        QCOMPARE(j["fallback_ops"]["aten.sort.default"].get<int>(), 2);  // graphs, not calls
        QCOMPARE(j["fallback_ops"]["aten.rand.default"].get<int>(), 1);
        auto text = cli({"sweep", "--report", fb.string()});
        const std::string want = "ok without fallbacks " + std::to_string(okIds.size() - 2);
        QVERIFY2(text.out.find(want) != std::string::npos, text.out.c_str());
        QVERIFY2(text.out.find("2 ok with fallbacks: aten.sort.default 2, aten.rand.default 1") != std::string::npos,
                 text.out.c_str());
        // Without fallbacks the line is absent.
        QVERIFY(cli({"sweep", "--report", single().string()}).out.find("ok without fallbacks") == std::string::npos);
    }

    /// The scheduler examples under resources/examples/sweep run as each scheduler would start
    /// them (its variables set, nothing else), and their shards merge to the single run.
    void exampleScriptsShardAsTheirSchedulers_data() {
        QTest::addColumn<QString>("script");
        QTest::addColumn<QStringList>("vars");  // per shard k: NAME=VALUE with %1 = k
        QTest::newRow("slurm array 1-3") << "slurm_array.sbatch"
                                         << QStringList{"SLURM_ARRAY_TASK_ID=%2", "SLURM_ARRAY_TASK_MIN=1",
                                                        "SLURM_ARRAY_TASK_COUNT=3", "CHECK=run",
                                                        "CUDA_VISIBLE_DEVICES=0"};
        QTest::newRow("kubernetes indexed job") << "shard.sh" << QStringList{"JOB_COMPLETION_INDEX=%1", "NUM_SHARDS=3"};
        QTest::newRow("ci matrix") << "shard.sh" << QStringList{"SHARD_INDEX=%1", "NUM_SHARDS=3", "JOBS=2"};
    }

    void exampleScriptsShardAsTheirSchedulers() {
        QFETCH(QString, script);
        QFETCH(QStringList, vars);
        const QString dir = m_tmp.path() + "/example-" + QString(QTest::currentDataTag()).replace(' ', '_');
        QString graphs;
        for (const auto& g : sliceArgs()) graphs += QString::fromStdString(g) + " ";
        for (int k = 0; k < 3; ++k) {
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.insert("GRAPHS", graphs.trimmed());
            env.insert("RESULTS", dir);
            env.insert("FXRAY", QString::fromStdString(minify::findFxrayExecutable().string()));
            env.insert("SLURM_SUBMIT_DIR", FXRAY_SOURCE_DIR);
            for (const auto& v : vars) {
                const QString kv = QString(v).replace("%1", QString::number(k)).replace("%2", QString::number(k + 1));
                env.insert(kv.section('=', 0, 0), kv.section('=', 1));
            }
            QProcess p;
            p.setProcessEnvironment(env);
            p.start("bash", {QString(FXRAY_SOURCE_DIR) + "/resources/examples/sweep/" + script});
            QVERIFY(p.waitForFinished(120000));
            QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        }
        QCOMPARE(outcomes(dir.toStdString()), outcomes(single()));
    }

    void badUsageExitsTwo_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown check") << QStringList{"sweep", "DIR", "--check", "frobnicate", "--out", "X"}
                                       << "unknown check";
        QTest::newRow("no out") << QStringList{"sweep", "DIR", "--check", "run"} << "--out";
        QTest::newRow("index without count")
            << QStringList{"sweep", "DIR", "--check", "run", "--out", "X", "--shard-index", "1"} << "--num-shards";
        QTest::newRow("index out of range")
            << QStringList{"sweep", "DIR", "--check", "run", "--out", "X", "--num-shards", "2", "--shard-index", "2"}
            << "outside";
        QTest::newRow("missing folder") << QStringList{"sweep", "/nonexistent/graphs", "--check", "run", "--out", "X"}
                                        << "no such file";
        QTest::newRow("missing results") << QStringList{"sweep", "--report", "/nonexistent/results"}
                                         << "no such results folder";
    }

    void badUsageExitsTwo() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        std::vector<std::string> argv;
        for (const auto& s : args) argv.push_back(s == "DIR" ? sliceArgs()[0] : s.toStdString());
        auto r = cli(argv);
        QCOMPARE(r.status, 2);
        QVERIFY2(r.err.find(message.toStdString()) != std::string::npos, r.err.c_str());
    }
};

QTEST_GUILESS_MAIN(TestCliSweep)
#include "tst_cli_sweep.moc"
