// The compile-log navigator on the command line: `fxray info TRACE` (its compiles and the text
// tree) and `fxray report TRACE --out DIR` on the real PyTorch 2.11 logs of ../traces.
#include "cli_test_util.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace {

using fxtest::cli;

fs::path traces() { return fxtest::corpus().parent_path() / "traces"; }

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace

class TestCliReport : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (!fs::exists(traces() / "graph_breaks")) QSKIP("traces not found next to FXRAY_CORPUS_DIR");
    }

    void infoJsonHasCompiles() {
        auto r = cli({"info", (traces() / "graph_breaks/trace").string(), "--json"});
        QCOMPARE(r.status, 0);
        auto j = nlohmann::json::parse(r.out);
        QCOMPARE(j["compiles"].size(), size_t(5));
        QCOMPARE(j["compiles"][1]["id"].get<std::string>(), std::string("0/0_1"));
        QCOMPARE(j["compiles"][1]["status"].get<std::string>(), std::string("graph_break"));
        const auto& b = j["compiles"][1]["graph_breaks"][0];
        QCOMPARE(b["user_frame"]["line"].get<int>(), 5);
        QCOMPARE(b["count"].get<int>(), 1);
        QVERIFY(contains(b["user_frame"]["code"].get<std::string>(), "print(\"side effect\")"));
        QCOMPARE(j["compile_graph_breaks"].size(), size_t(2));
        QVERIFY(j["compiles"][4]["metrics"]["entire_frame_compile_time"].get<double>() > 0);
    }

    void infoTextHasTheTree() {
        auto r = cli({"info", (traces() / "recompiles/trace").string()});
        QCOMPARE(r.status, 0);
        QVERIFY(contains(r.out, "2 compiles: 2 ok"));
        QVERIFY(contains(r.out, "[0/1] ok"));
        QVERIFY(contains(r.out, "recompiled because 0/0: tensor 'args[0]' size mismatch"));
        QVERIFY(contains(r.out, "symbol s33 = 16 from L['args'][0].size()[0]"));
    }

    void reportWritesMarkdownAndGraphs() {
        fs::path out = fs::temp_directory_path() / "fxray_tst_report";
        fs::remove_all(out);
        auto r = cli({"report", (traces() / "graph_breaks/trace").string(), "--out", out.string(), "--json"});
        QCOMPARE(r.status, 0);
        auto j = nlohmann::json::parse(r.out);
        std::string md = slurp(out / "report.md");
        QVERIFY(contains(md, "## Graph breaks"));
        QVERIFY(contains(md, "print(\"side effect\")"));
        QVERIFY(contains(md, "if y.sum().item() > 0:"));
        QVERIFY(contains(md, "| entire_frame_compile_time |"));
        QVERIFY(contains(md, "(graphs/0_0_1_dynamo_output_graph.py)"));
        QVERIFY(fs::exists(out / "graphs/0_0_1_dynamo_output_graph.py"));
        QVERIFY(contains(slurp(out / "graphs/0_0_1_dynamo_output_graph.py"), "class GraphModule(torch.nn.Module)"));
        QVERIFY(j["files"].size() > 5);
        fs::remove_all(out);
    }

    // The graphs' pictures: SVG drawn by libgvc beside each graph's FX text. 0/0_1's post-grad
    // graph as the trace logged it is mm(arg0_1, arg1_1) -> relu.
    void reportDrawsGraphsAsSvg() {
        fs::path out = fs::temp_directory_path() / "fxray_tst_report_svg";
        fs::remove_all(out);
        auto r = cli({"report", (traces() / "graph_breaks/trace").string(), "--out", out.string()});
        QCOMPARE(r.status, 0);
        std::string md = slurp(out / "report.md");
        if (contains(md, "built without Graphviz")) QSKIP("fxray built without Graphviz");
        const std::string py = slurp(out / "graphs/0_0_1_inductor_post_grad_graph.py");
        QVERIFY(contains(py, "torch.ops.aten.mm.default(arg0_1, arg1_1)"));
        QVERIFY(contains(py, "torch.ops.aten.relu.default(mm)"));
        const std::string svg = slurp(out / "graphs/0_0_1_inductor_post_grad_graph.svg");
        QVERIFY(contains(svg, "<svg"));
        QVERIFY(contains(svg, "</svg>"));
        QVERIFY(contains(svg, ">aten.mm.default</text>"));
        QVERIFY(contains(svg, ">aten.relu.default</text>"));
        QVERIFY(contains(svg, "<title>arg0_1&#45;&gt;mm</title>"));  // the edge arg0_1 -> mm
        QVERIFY(contains(md, "![0/0_1 inductor_post_grad_graph](graphs/0_0_1_inductor_post_grad_graph.svg)"));
        // Every picture the report links exists.
        for (size_t at = md.find("](graphs/"); at != std::string::npos; at = md.find("](graphs/", at + 1)) {
            const std::string rel = md.substr(at + 2, md.find(')', at) - at - 2);
            QVERIFY2(fs::exists(out / rel), rel.c_str());
        }
        fs::remove_all(out);
        // gpt2's joint graph is too large for a picture: said, not drawn.
        r = cli({"report", (traces() / "inductor_failure/trace").string(), "--out", out.string()});
        QCOMPARE(r.status, 0);
        md = slurp(out / "report.md");
        QVERIFY(contains(md, "(not drawn: "));
        QVERIFY(fs::exists(out / "graphs/0_0_aot_joint_graph.py"));
        QVERIFY(!fs::exists(out / "graphs/0_0_aot_joint_graph.svg"));
        fs::remove_all(out);
    }

    void reportErrors() {
        QCOMPARE(cli({"report", (traces() / "graph_breaks/trace").string()}).status, 2);  // no --out
        auto r = cli({"report", "/nonexistent/trace.log", "--out", "/tmp/x"});
        QCOMPARE(r.status, 2);
        QVERIFY(contains(r.err, "/nonexistent/trace.log"));
    }
};

QTEST_GUILESS_MAIN(TestCliReport)
#include "tst_cli_report.moc"
