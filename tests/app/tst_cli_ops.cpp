// fxray ops: the op table's coverage matrix, as text and as JSON, checked on ops whose facts are
// known (mm: reference kernel, CPU extern kernel, cuBLAS on the device, VJP rule).
#include "cli_test_util.h"

#include <nlohmann/json.hpp>

#include <set>
#include <sstream>

namespace {

using fxtest::cli;

/// The text row of `op` split into its columns, or empty.
std::vector<std::string> textRow(const std::string& out, const std::string& op) {
    std::istringstream in(out);
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream cols(line);
        std::vector<std::string> v;
        for (std::string w; cols >> w;) v.push_back(w);
        if (!v.empty() && v[0] == op) return v;
    }
    return {};
}

}  // namespace

class TestCliOps : public QObject {
    Q_OBJECT
private slots:
    void listedInHelp() {
        auto r = cli({"--help"});
        QCOMPARE(r.status, 0);
        QVERIFY(r.out.find("  ops ") != std::string::npos);
    }

    void textTableHasRealRows() {
        auto r = cli({"ops"});
        QCOMPARE(r.status, 0);
        auto head = textRow(r.out, "op");
        QVERIFY(head == (std::vector<std::string>{"op", "category", "ref", "cpu", "cuda", "vjp", "partition"}));
        auto mm = textRow(r.out, "aten.mm.default");
        QCOMPARE(mm.size(), size_t(7));
        QCOMPARE(mm[1], std::string("extern"));
        QCOMPARE(mm[2], std::string("yes"));
#ifdef FXRAY_HAVE_CPU_BACKEND
        QCOMPARE(mm[3], std::string("extern"));
#endif
        QCOMPARE(mm[4], std::string("extern"));
        QCOMPARE(mm[5], std::string("rule"));
        QCOMPARE(mm[6], std::string("compute-intensive"));
        auto relu = textRow(r.out, "aten.relu.default");
        QCOMPARE(relu.size(), size_t(7));
        QCOMPARE(relu[4], std::string("lowered"));
        QCOMPARE(relu[6], std::string("recomputable"));
        // Columns are aligned: every row starts its second column at the same offset.
        std::istringstream in(r.out);
        std::string line;
        std::getline(in, line);
        const size_t col = line.find("category");
        int rows = 0;
        while (std::getline(in, line) && !line.empty()) {
            QVERIFY2(line.size() > col && line[col - 1] == ' ' && line[col] != ' ', line.c_str());
            ++rows;
        }
        QVERIFY(rows > 100);
        // The totals line counts the rows.
        QVERIFY2(r.out.find(std::to_string(rows) + " ops: ref ") != std::string::npos, r.out.c_str());
    }

    void jsonListsObjectsAndTotals() {
        auto r = cli({"ops", "--json"});
        QCOMPARE(r.status, 0);
        auto j = nlohmann::json::parse(r.out);
        QVERIFY(j["ops"].is_array());
        QVERIFY(j["ops"].size() > 100);
        QCOMPARE(j["totals"]["ops"].get<size_t>(), j["ops"].size());
        const std::set<std::string> keys = {"op", "category", "ref", "cpu", "cuda", "vjp", "partition"};
        size_t ref = 0, rules = 0;
        nlohmann::json mm;
        for (const auto& o : j["ops"]) {
            std::set<std::string> have;
            for (const auto& [k, v] : o.items()) have.insert(k);
            QVERIFY2(have == keys, o.dump().c_str());
            QVERIFY(o["ref"].is_boolean());
            ref += o["ref"].get<bool>() ? 1 : 0;
            rules += o["vjp"] == "rule" ? 1 : 0;
            if (o["op"] == "aten.mm.default") mm = o;
        }
        QCOMPARE(j["totals"]["ref"].get<size_t>(), ref);
        QCOMPARE(j["totals"]["vjp"]["rule"].get<size_t>(), rules);
        QVERIFY(!mm.is_null());
        QCOMPARE(mm["ref"].get<bool>(), true);
        QCOMPARE(mm["vjp"].get<std::string>(), std::string("rule"));
        QCOMPARE(mm["cuda"].get<std::string>(), std::string("extern"));
#ifdef FXRAY_HAVE_CPU_BACKEND
        QCOMPARE(mm["cpu"].get<std::string>(), std::string("extern"));
#endif
        QCOMPARE(mm["partition"].get<std::string>(), std::string("compute-intensive"));
    }

    void filterKeepsMatchingOps() {
        auto r = cli({"ops", "--json", "--filter", "aten.mm."});
        QCOMPARE(r.status, 0);
        auto j = nlohmann::json::parse(r.out);
        QCOMPARE(j["ops"].size(), size_t(1));
        QCOMPARE(j["ops"][0]["op"].get<std::string>(), std::string("aten.mm.default"));
        auto none = cli({"ops", "--filter", "no_such_op"});
        QCOMPARE(none.status, 0);
        QVERIFY(none.out.find("0 ops: ") != std::string::npos);
    }

    void rejectsBadArguments() {
        auto r = cli({"ops", "--bogus"});
        QCOMPARE(r.status, 2);
        QVERIFY(!r.err.empty());
        auto f = cli({"ops", "some_file.py"});
        QCOMPARE(f.status, 2);
    }
};

QTEST_GUILESS_MAIN(TestCliOps)
#include "tst_cli_ops.moc"
