// The .pt (torch.save) reader against the corpus: every eager state dict loads with the names,
// shapes, dtypes and bytes that torch.export wrote independently into the same model's .pt2;
// sample inputs inside .pt2 archives equal the eager inputs; hostile and broken files are refused.
#include "test_util.h"

#include "import/npy.h"
#include "import/pt_reader.h"
#include "import/zip_archive.h"

#include <nlohmann/json.hpp>
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
    Pk& put(int i) { return op('q').u8(i); }
    Pk& get(int i) { return op('h').u8(i); }
    std::string stop() { return b + "."; }
};

/// {'a': tensor[2] at offset 0, 'b': tensor[2] at offset 2} sharing float storage '0' of 4.
std::string sharedStoragePickle() {
    Pk p;
    p.op('}').put(0).op('(');
    p.uni("a")
        .global("torch._utils", "_rebuild_tensor_v2")
        .put(1)
        .op('(')
        .op('(')
        .uni("storage")
        .global("torch", "FloatStorage")
        .put(2)
        .uni("0")
        .uni("cpu")
        .k1(4)
        .op('t')
        .put(3)
        .op('Q')
        .k1(0)
        .k1(2)
        .op(0x85)
        .k1(1)
        .op(0x85)
        .op(0x89)
        .op(')')
        .op('t')
        .op('R');
    p.uni("b").get(1).op('(').get(3).op('Q').k1(2).k1(2).op(0x85).k1(1).op(0x85).op(0x89).op(')').op('t').op('R');
    p.op('u');
    return p.stop();
}
std::string floats(std::vector<float> v) {
    std::string s(v.size() * 4, '\0');
    std::memcpy(s.data(), v.data(), s.size());
    return s;
}

std::vector<fs::path> modelsWith(const char* rel) {
    std::vector<fs::path> out;
    for (const auto& m : fs::directory_iterator(fxtest::corpus()))
        if (fs::exists(m.path() / rel)) out.push_back(m.path());
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

class TestPtReader : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found at FXRAY_CORPUS_DIR");
    }

    /// eager/state_dict.pt (torch.save) against export/exported.pt2's weights config and raw
    /// weight files (torch.export.save), written separately by PyTorch from the same model.
    void eagerStateDictsMatchExportWeights() {
        auto models = modelsWith("eager/state_dict.pt");
        QVERIFY2(models.size() >= 9, "expected the corpus's small models");
        int compared = 0;
        for (const auto& m : models) {
            auto sd = readPt(m / "eager/state_dict.pt");
            QVERIFY2(sd.ok(), sd.ok() ? "" : sd.error().str().c_str());
            QVERIFY(!sd->empty());
            if (!fs::exists(m / "export/exported.pt2")) continue;
            auto z = ZipArchive::open(m / "export/exported.pt2");
            QVERIFY(z.ok());
            auto cfgText = z->read("exported/data/weights/model_weights_config.json");
            QVERIFY(cfgText.ok());
            auto cfg = nlohmann::json::parse(*cfgText).at("config");
            QCOMPARE(sd->size(), cfg.size());
            for (const auto& nt : *sd) {
                QVERIFY2(cfg.contains(nt.name), (m.filename().string() + ": " + nt.name).c_str());
                const auto& e = cfg.at(nt.name);
                std::vector<int64_t> shape;
                for (const auto& s : e.at("tensor_meta").at("sizes")) shape.push_back(s.at("as_int").get<int64_t>());
                QCOMPARE(nt.tensor.shape(), shape);
                QCOMPARE(nt.tensor.dtype(), *dtypeFromExportEnum(e.at("tensor_meta").at("dtype").get<int>()));
                auto raw = z->read("exported/data/weights/" + e.at("path_name").get<std::string>());
                QVERIFY(raw.ok());
                const size_t nbytes = static_cast<size_t>(nt.tensor.meta.nbytes());
                QVERIFY(nt.tensor.meta.isContiguous());
                QCOMPARE(raw->size(), nbytes);
                QVERIFY2(std::memcmp(raw->data(), nt.tensor.raw(), nbytes) == 0,
                         (m.filename().string() + ": bytes of " + nt.name).c_str());
                ++compared;
            }
        }
        QVERIFY(compared >= 40);
    }

    void toFolderStateDictsLoad() {
        for (const auto& m : modelsWith("to_folder/state_dict.pt")) {
            auto sd = readPt(m / "to_folder/state_dict.pt");
            QVERIFY2(sd.ok(), sd.ok() ? "" : sd.error().str().c_str());
            // Dynamo lifted every parameter to a placeholder: the module itself owns none.
            QVERIFY(sd->empty());
        }
    }

    /// data/sample_inputs/model.pt inside the .pt2 is ((x,), {}) and x is eager/input0.npy.
    void sampleInputsEqualEagerInputs() {
        int n = 0;
        for (const auto& m : modelsWith("export/exported.pt2")) {
            if (!fs::exists(m / "eager/input0.npy")) continue;
            auto outer = ZipArchive::open(m / "export/exported.pt2");
            QVERIFY(outer.ok());
            auto bytes = outer->read("exported/data/sample_inputs/model.pt");
            QVERIFY(bytes.ok());
            auto inner = ZipArchive::openBuffer(std::move(bytes).value(), "model.pt");
            QVERIFY(inner.ok());
            auto pt = readPtContents(*inner);
            QVERIFY2(pt.ok(), pt.ok() ? "" : pt.error().str().c_str());
            QCOMPARE(pt->root()->kind, PickleValue::Kind::Tuple);
            auto flat = flattenTensors(*pt, pt->root());
            QCOMPARE(flat.size(), size_t(1));
            QCOMPARE(flat[0].name, std::string("0.0"));
            auto npy = readNpy(m / "eager/input0.npy");
            QVERIFY(npy.ok());
            QCOMPARE(flat[0].tensor.shape(), npy->shape());
            QCOMPARE(flat[0].tensor.dtype(), npy->dtype());
            QCOMPARE(flat[0].tensor.meta.device.type, std::string("cuda"));
            QVERIFY(std::memcmp(flat[0].tensor.raw(), npy->raw(), static_cast<size_t>(npy->meta.nbytes())) == 0);
            ++n;
        }
        QVERIFY(n >= 8);
    }

    void sharedStorageViews() {
        QTemporaryDir tmp;
        fs::path p = fs::path(tmp.path().toStdString()) / "views.pt";
        QVERIFY(writeZip(p, {{"views/data.pkl", sharedStoragePickle()},
                             {"views/data/0", floats({1, 2, 3, 4})},
                             {"views/byteorder", "little"},
                             {"views/version", "3\n"}}));
        auto sd = readPt(p);
        QVERIFY2(sd.ok(), sd.ok() ? "" : sd.error().str().c_str());
        QCOMPARE(sd->size(), size_t(2));
        QCOMPARE((*sd)[0].name, std::string("a"));
        QCOMPARE((*sd)[1].name, std::string("b"));
        QCOMPARE((*sd)[1].tensor.data<float>()[0], 3.0f);
        QCOMPARE((*sd)[1].tensor.data<float>()[1], 4.0f);
        QVERIFY((*sd)[0].tensor.storage == (*sd)[1].tensor.storage);
    }

    void hostilePtIsRefused() {
        QTemporaryDir tmp;
        fs::path p = fs::path(tmp.path().toStdString()) / "evil.pt";
        std::string evil = Pk().global("os", "system").uni("touch /tmp/pwned").op(0x85).op('R').stop();
        QVERIFY(writeZip(p, {{"evil/data.pkl", evil}, {"evil/version", "3\n"}}));
        auto sd = readPt(p);
        QVERIFY(!sd.ok());
        QVERIFY2(sd.error().message.find("refusing to load global 'os.system' at byte 2") == 0,
                 sd.error().str().c_str());
        QCOMPARE(sd.error().file, p.string() + ":evil/data.pkl");
        QVERIFY(!fs::exists("/tmp/pwned"));
    }

    void brokenArchives() {
        QTemporaryDir tmp;
        fs::path dir(tmp.path().toStdString());
        auto expectError = [&](const fs::path& p, const std::string& msg) {
            auto sd = readPt(p);
            QVERIFY2(!sd.ok(), p.string().c_str());
            QVERIFY2(sd.error().str().find(msg) != std::string::npos, sd.error().str().c_str());
        };
        QVERIFY(writeZip(dir / "nostorage.pt", {{"a/data.pkl", sharedStoragePickle()}}));
        expectError(dir / "nostorage.pt", "member 'a/data/0': storage '0' is missing from the archive");
        QVERIFY(writeZip(dir / "short.pt", {{"a/data.pkl", sharedStoragePickle()}, {"a/data/0", floats({1, 2})}}));
        expectError(dir / "short.pt", "member 'a/data/0': holds 8 bytes, the pickle needs 16");
        QVERIFY(writeZip(
            dir / "big.pt",
            {{"a/data.pkl", sharedStoragePickle()}, {"a/data/0", floats({1, 2, 3, 4})}, {"a/byteorder", "big"}}));
        expectError(dir / "big.pt", "byte order 'big' is not supported");
        QVERIFY(writeZip(dir / "nopkl.pt", {{"a/data/0", floats({1})}}));
        expectError(dir / "nopkl.pt", "not a torch.save archive: no data.pkl member");
        std::string legacy = Pk().k1(1).stop();
        writeFile(dir / "legacy.pt", legacy + std::string(8, '\0'));
        expectError(dir / "legacy.pt", "legacy (non-zip) torch.save format is not supported");

        // Truncations of a real file: always a Diagnostic naming the file.
        std::string bytes = readFile(fxtest::corpus() / "mlp/eager/state_dict.pt");
        for (size_t cut : {size_t(10), size_t(500), bytes.size() / 2, bytes.size() - 22, bytes.size() - 1}) {
            fs::path p = dir / ("cut" + std::to_string(cut) + ".pt");
            writeFile(p, bytes.substr(0, cut));
            auto sd = readPt(p);
            QVERIFY2(!sd.ok(), ("truncated at " + std::to_string(cut) + " loaded").c_str());
            QVERIFY(sd.error().file.find(p.filename().string()) != std::string::npos);
        }
    }
};

QTEST_GUILESS_MAIN(TestPtReader)
#include "tst_pt_reader.moc"
