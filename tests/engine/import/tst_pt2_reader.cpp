// The .pt2 reader against the corpus: every torch.export archive (and extracted archive folder)
// rebuilds the graph PyTorch printed in graphs/export_graph.py — same nodes, targets, arguments,
// annotations, provenance — with weights equal to the eager state dict, and runs on its sample
// inputs to the eager outputs. Version and format errors have clear messages.
#include "test_util.h"

#include "exec/run_check.h"
#include "import/fx_text_reader.h"
#include "import/npy.h"
#include "import/pt2_reader.h"
#include "import/pt_reader.h"
#include "ir/printer.h"

#include <zip.h>

#include <QTemporaryDir>

#include <cstring>
#include <filesystem>
#include <fstream>

using namespace fxray;
namespace fs = std::filesystem;

namespace {

std::string readFile(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
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
std::string member(const fs::path& zipPath, const std::string& name) {
    int err = 0;
    zip_t* z = zip_open(zipPath.string().c_str(), ZIP_RDONLY, &err);
    if (!z) return {};
    zip_stat_t st;
    std::string out;
    if (zip_stat(z, name.c_str(), 0, &st) == 0) {
        zip_file_t* f = zip_fopen(z, name.c_str(), 0);
        out.resize(st.size);
        zip_fread(f, out.data(), st.size);
        zip_fclose(f);
    }
    zip_discard(z);
    return out;
}
/// s with the first occurrence of `from` replaced (empty when absent, failing the caller's check).
std::string replaceFirst(std::string s, const std::string& from, const std::string& to) {
    size_t at = s.find(from);
    if (at == std::string::npos) return {};
    return s.replace(at, from.size(), to);
}
std::string stripTrailing(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
}

/// Each model's export: the .pt2 file, else the extracted folder (large models).
std::vector<std::pair<std::string, fs::path>> exports() {
    std::vector<std::pair<std::string, fs::path>> out;
    for (const auto& m : fs::directory_iterator(fxtest::corpus())) {
        if (fs::exists(m.path() / "export/exported.pt2"))
            out.emplace_back(m.path().filename().string(), m.path() / "export/exported.pt2");
        else if (fs::exists(m.path() / "export/exported"))
            out.emplace_back(m.path().filename().string(), m.path() / "export/exported");
    }
    std::sort(out.begin(), out.end());
    return out;
}

/// Differences between two graphs node by node (empty when equal), recursing into subgraphs.
std::string graphDiff(const Graph& a, const Graph& b, const std::string& where) {
    if (a.size() != b.size()) return where + ": " + std::to_string(a.size()) + " nodes vs " + std::to_string(b.size());
    for (size_t i = 0; i < a.size(); ++i) {
        const Node& x = *a.nodes()[i];
        const Node& y = *b.nodes()[i];
        auto at = where + " node " + std::to_string(i) + " '" + y.name() + "'";
        if (x.name() != y.name()) return at + ": name " + x.name();
        if (x.kind() != y.kind()) return at + ": kind " + std::string(nodeKindName(x.kind()));
        if (x.target() != y.target()) return at + ": target " + x.target() + " vs " + y.target();
        if (x.args.size() != y.args.size()) return at + ": arg count";
        for (size_t k = 0; k < x.args.size(); ++k)
            if (x.args[k].repr() != y.args[k].repr())
                return at + ": arg " + x.args[k].repr() + " vs " + y.args[k].repr();
        if (x.kwargs.size() != y.kwargs.size()) return at + ": kwarg count";
        for (size_t k = 0; k < x.kwargs.size(); ++k)
            if (x.kwargs[k].first != y.kwargs[k].first || x.kwargs[k].second.repr() != y.kwargs[k].second.repr())
                return at + ": kwarg " + x.kwargs[k].first;
        if (y.annotated) {
            if (!x.annotated || x.meta.size() != 1) return at + ": not annotated";
            if (x.meta[0].shape != y.meta[0].shape || x.meta[0].dtype != y.meta[0].dtype)
                return at + ": meta " + x.meta[0].annotation(false, false) + " vs " +
                       y.meta[0].annotation(false, false);
        }
        if (x.sourceComment != y.sourceComment)
            return at + ": comment '" + x.sourceComment + "' vs '" + y.sourceComment + "'";
    }
    if (a.subgraphs().size() != b.subgraphs().size()) return where + ": subgraph count";
    for (size_t s = 0; s < a.subgraphs().size(); ++s) {
        if (a.subgraphs()[s].first != b.subgraphs()[s].first) return where + ": subgraph " + a.subgraphs()[s].first;
        auto d = graphDiff(*a.subgraphs()[s].second, *b.subgraphs()[s].second, where + "." + a.subgraphs()[s].first);
        if (!d.empty()) return d;
    }
    return {};
}

std::string jsonOf(const std::string& model) {
    return member(fxtest::corpus() / model / "export/exported.pt2", "exported/models/model.json");
}

}  // namespace

class TestPt2Reader : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found at FXRAY_CORPUS_DIR");
    }

    /// The graph equals PyTorch's own print of the same exported program, for every model.
    void graphsEqualExportGraphPy() {
        auto all = exports();
        QVERIFY2(all.size() >= 13, "expected an export for every corpus model");
        std::string failures;
        for (const auto& [model, path] : all) {
            auto ar = readPt2Archive(path);
            if (!ar.ok()) {
                failures += model + ": " + ar.error().str() + "\n";
                continue;
            }
            QCOMPARE(ar->file.graphs.size(), size_t(1));
            QCOMPARE(ar->file.format, std::string("pt2"));
            const Graph& g = *ar->file.graphs[0].graph;
            auto ref = readFxFile(fxtest::corpus() / model / "graphs/export_graph.py");
            QVERIFY(ref.ok());
            auto d = graphDiff(g, **ref, model);
            if (!d.empty()) {
                failures += d + "\n";
                continue;
            }
            auto text = readTextFile(fxtest::corpus() / model / "graphs/export_graph.py");
            if (stripTrailing(printGraph(g)) != stripTrailing(*text)) failures += model + ": printed form differs\n";
            QVERIFY(g.verify().ok());
            qInfo("%s: %zu nodes equal to export_graph.py", model.c_str(), g.size());
        }
        QVERIFY2(failures.empty(), failures.c_str());
    }

    /// Parameters and buffers are attached under their placeholder names with the eager state
    /// dict's data; the signature names them.
    void weightsEqualEagerStateDict() {
        int checked = 0;
        for (const auto& [model, path] : exports()) {
            auto ar = readPt2Archive(path);
            QVERIFY2(ar.ok(), ar.ok() ? "" : ar.error().str().c_str());
            const Graph& g = *ar->file.graphs[0].graph;
            const Pt2Model& pm = ar->models[0];
            const bool hasData = path.extension() == ".pt2";
            for (const auto& in : pm.signature.inputs) {
                QVERIFY(g.find(in.placeholder) != nullptr);
                if (in.kind == ExportInputSpec::Kind::UserInput) {
                    QVERIFY(!g.constants.count(in.placeholder));
                    continue;
                }
                QCOMPARE(in.hasValue, hasData);
                QCOMPARE(g.constants.count(in.placeholder) > 0, hasData);
            }
            if (!hasData) {
                QVERIFY(ar->file.graphs[0].notes[0].find("the archive holds no weight data") == 0);
                continue;
            }
            auto sd = readPt(fxtest::corpus() / model / "eager/state_dict.pt");
            QVERIFY(sd.ok());
            for (const auto& nt : *sd) {
                auto it = std::find_if(pm.signature.inputs.begin(), pm.signature.inputs.end(),
                                       [&](const ExportInputSpec& s) { return s.target == nt.name; });
                QVERIFY2(it != pm.signature.inputs.end(), nt.name.c_str());
                const Tensor& t = g.constants.at(it->placeholder);
                QCOMPARE(t.shape(), nt.tensor.shape());
                QCOMPARE(g.find(it->placeholder)->meta[0].shape, t.shape());
                QVERIFY(std::memcmp(t.raw(), nt.tensor.raw(), static_cast<size_t>(t.meta.nbytes())) == 0);
                ++checked;
            }
        }
        QVERIFY(checked >= 40);
    }

    /// The archive's sample inputs through the graph give the eager outputs (models without
    /// random ops).
    void runsOnSampleInputs() {
        int ran = 0;
        std::string failures;
        for (const auto& [model, path] : exports()) {
            if (path.extension() != ".pt2" || !fs::exists(fxtest::corpus() / model / "eager/output0.npy")) continue;
            if (model == "randperm_index_add") continue;  // randperm: outputs depend on the RNG
            auto ar = readPt2Archive(path);
            QVERIFY(ar.ok());
            const Pt2Model& pm = ar->models[0];
            QVERIFY(pm.haveSampleArgs);
            QCOMPARE(pm.sampleArgs.size(), size_t(1));
            std::vector<Value> user;
            for (const auto& t : pm.sampleArgs) user.push_back(Value::ofTensor(t));
            auto inputs = completeInputs(*ar->file.graphs[0].graph, user);
            QVERIFY2(inputs.ok(), inputs.ok() ? "" : inputs.error().str().c_str());
            auto expect = readNpy(fxtest::corpus() / model / "eager/output0.npy");
            QVERIFY(expect.ok());
            std::vector<Value> want = {Value::ofTensor(*expect)};
            RunRequest req;
            req.inputs = std::move(inputs).value();
            auto res = runAndCheck(*ar->file.graphs[0].graph, req, &want);
            if (!res.ok()) {
                failures += model + ": " + res.error().str() + "\n";
                continue;
            }
            if (!res->ok) {
                failures += model + ": outputs differ from eager/output0.npy\n";
                continue;
            }
            qInfo("%s: ran on sample inputs, matches eager/output0.npy", model.c_str());
            ++ran;
        }
        QVERIFY2(failures.empty(), failures.c_str());
        QVERIFY(ran >= 7);
    }

    void completeInputsCountsUserInputs() {
        auto ar = readPt2Archive(fxtest::corpus() / "mlp/export/exported.pt2");
        QVERIFY(ar.ok());
        auto none = completeInputs(*ar->file.graphs[0].graph, {});
        QVERIFY(!none.ok());
        QVERIFY2(none.error().message.find("no value for placeholder 'input_1'") != std::string::npos,
                 none.error().str().c_str());
        std::vector<Value> two = {Value::ofTensor(ar->models[0].sampleArgs[0]),
                                  Value::ofTensor(ar->models[0].sampleArgs[0])};
        auto extra = completeInputs(*ar->file.graphs[0].graph, two);
        QVERIFY(!extra.ok());
        QVERIFY(extra.error().message.find("2 inputs given, the graph takes 1") == 0);
    }

    void schemaVersionAndJsonErrors() {
        std::string json = jsonOf("mlp");
        QVERIFY(json.find("\"major\": 8") != std::string::npos);
        std::string v9 = replaceFirst(json, "\"major\": 8", "\"major\": 9");
        auto r = readExportedProgramJson(v9, "m.json");
        QVERIFY(!r.ok());
        QCOMPARE(r.error().message,
                 std::string("unsupported torch.export schema version 9.17 (fxray reads major version 8)"));
        QCOMPARE(r.error().file, std::string("m.json"));

        auto bad = readExportedProgramJson(json.substr(0, 100), "m.json");
        QVERIFY(!bad.ok());
        QVERIFY2(bad.error().message.find("invalid JSON at byte 101") == 0, bad.error().str().c_str());

        auto notEp = readExportedProgramJson("{\"x\": 1}", "m.json");
        QVERIFY(!notEp.ok());
        QVERIFY(notEp.error().message.find("not a serialized ExportedProgram") == 0);

        std::string unknownKind = replaceFirst(json, "{\"as_tensor\": {\"name\": \"p_0_weight\"}}, \"kind\"",
                                               "{\"as_quantum\": {\"name\": \"p_0_weight\"}}, \"kind\"");
        auto uk = readExportedProgramJson(unknownKind, "m.json");
        QVERIFY(!uk.ok());
        QVERIFY2(uk.error().message.find("unsupported argument kind 'as_quantum'") == 0, uk.error().str().c_str());
        QCOMPARE(uk.error().node, std::string("linear"));

        std::string dangling = replaceFirst(json, "{\"as_tensor\": {\"name\": \"relu\"}}, \"kind\"",
                                            "{\"as_tensor\": {\"name\": \"nope\"}}, \"kind\"");
        auto dg = readExportedProgramJson(dangling, "m.json");
        QVERIFY(!dg.ok());
        QVERIFY2(dg.error().message.find("reference to unknown value 'nope'") == 0, dg.error().str().c_str());

        std::string wrongType = replaceFirst(json, "\"nodes\": [", "\"nodes\": 5, \"x\": [");
        auto wt = readExportedProgramJson(wrongType, "m.json");
        QVERIFY(!wt.ok());
        QVERIFY2(wt.error().message.find("malformed exported program:") == 0, wt.error().str().c_str());

        // A symbolic size is parsed on import: one that is no expression fails there, naming the
        // value and the dimension; a good one becomes a SymInt carrying the export's hint.
        const std::string weightSizes =
            "\"p_0_weight\": {\"dtype\": 7, \"sizes\": [{\"as_int\": 128}, {\"as_int\": 64}]";
        QVERIFY(json.find(weightSizes) != std::string::npos);
        auto withSize1 = [&](const std::string& expr) {
            return replaceFirst(json, weightSizes,
                                "\"p_0_weight\": {\"dtype\": 7, \"sizes\": [{\"as_int\": 128}, {\"as_expr\": " + expr +
                                    "}]");
        };
        auto be = readExportedProgramJson(withSize1("{\"expr_str\": \"s0 +* 2\"}"), "m.json");
        QVERIFY(!be.ok());
        QVERIFY2(be.error().message.find("value 'p_0_weight' size 1: cannot read symbolic expression 's0 +* 2'") == 0,
                 be.error().str().c_str());
        QCOMPARE(be.error().file, std::string("m.json"));
        auto ge = readExportedProgramJson(withSize1("{\"expr_str\": \"s0\", \"hint\": {\"as_int\": 64}}"), "m.json");
        QVERIFY2(ge.ok(), ge.ok() ? "" : ge.error().str().c_str());
        const Node* w = nullptr;
        for (Node* ph : (*ge)->placeholders())
            if (!ph->meta.empty() && ph->meta[0].isSymbolicDim(1)) w = ph;
        QVERIFY(w);
        QCOMPARE(QString::fromStdString(w->meta[0].sizeAt(1).text()), QString("s0"));
        QVERIFY(w->meta[0].sizeAt(1).hint() == std::optional<int64_t>(64));
        QCOMPARE(w->meta[0].shape[1], TensorMeta::kUnboundSize);

        // Unknown keys are kept out of the way, never fatal.
        std::string extra =
            replaceFirst(json, "\"graph_module\": {", "\"future_key\": [1, 2], \"graph_module\": {\"another\": {}, ");
        auto ex = readExportedProgramJson(extra, "m.json");
        QVERIFY2(ex.ok(), ex.ok() ? "" : ex.error().str().c_str());
    }

    void archiveErrors() {
        QTemporaryDir tmp;
        fs::path dir(tmp.path().toStdString());
        const fs::path mlp = fxtest::corpus() / "mlp/export/exported.pt2";
        std::string json = jsonOf("mlp");
        std::string cfg = member(mlp, "exported/data/weights/model_weights_config.json");

        QVERIFY(writeZip(dir / "fmt.pt2", {{"e/archive_format", "zip9"}, {"e/models/model.json", json}}));
        auto f = readPt2(dir / "fmt.pt2");
        QVERIFY(!f.ok());
        QCOMPARE(f.error().message, std::string("archive_format is 'zip9', not 'pt2'"));

        QVERIFY(writeZip(dir / "empty.pt2", {{"e/archive_format", "pt2"}, {"e/data/x", "1"}}));
        auto e = readPt2(dir / "empty.pt2");
        QVERIFY(!e.ok());
        QVERIFY(e.error().message.find("archive holds no exported program") == 0);

        QVERIFY(writeZip(dir / "short.pt2", {{"e/archive_format", "pt2"},
                                             {"e/models/model.json", json},
                                             {"e/data/weights/model_weights_config.json", cfg},
                                             {"e/data/weights/weight_0", std::string(100, '\0')}}));
        auto s = readPt2(dir / "short.pt2");
        QVERIFY(!s.ok());
        QVERIFY2(s.error().message.find("'0.weight': needs 32768 bytes, 'data/weights/weight_0' holds 100") == 0,
                 s.error().str().c_str());
        QVERIFY(s.error().file.find("short.pt2:e/data/weights/model_weights_config.json") != std::string::npos);

        // Weights missing from the archive: the graph still loads, with a note.
        QVERIFY(writeZip(dir / "noweights.pt2", {{"e/archive_format", "pt2"}, {"e/models/model.json", json}}));
        auto nw = readPt2(dir / "noweights.pt2");
        QVERIFY2(nw.ok(), nw.ok() ? "" : nw.error().str().c_str());
        QVERIFY(nw->graphs[0].graph->constants.empty());
        QCOMPARE(
            nw->graphs[0].notes[0],
            std::string(
                "the archive holds no weight data: 4 parameters/buffers/constants are placeholders without values"));

        // A truncated archive is refused with the file named.
        std::string bytes = readFile(mlp);
        std::ofstream(dir / "cut.pt2", std::ios::binary)
            .write(bytes.data(), static_cast<std::streamsize>(bytes.size() / 2));
        auto c = readPt2(dir / "cut.pt2");
        QVERIFY(!c.ok());
        QVERIFY(c.error().file.find("cut.pt2") != std::string::npos);
    }

    /// Older archives: serialized_exported_program.json with the state dict as a .pt member.
    void legacyLayout() {
        QTemporaryDir tmp;
        fs::path p = fs::path(tmp.path().toStdString()) / "legacy.pt2";
        QVERIFY(
            writeZip(p, {{"legacy/serialized_exported_program.json", jsonOf("mlp")},
                         {"legacy/serialized_state_dict.pt", readFile(fxtest::corpus() / "mlp/eager/state_dict.pt")},
                         {"legacy/version", "1"}}));
        auto ar = readPt2Archive(p);
        QVERIFY2(ar.ok(), ar.ok() ? "" : ar.error().str().c_str());
        const Graph& g = *ar->file.graphs[0].graph;
        QCOMPARE(g.constants.size(), size_t(4));
        QCOMPARE(g.constants.at("p_2_weight").shape(), (std::vector<int64_t>{32, 128}));
    }
};

QTEST_GUILESS_MAIN(TestPt2Reader)
#include "tst_pt2_reader.moc"
