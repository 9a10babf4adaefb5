// .npy reading and writing, against the corpus's files and hand-made damaged ones.
#include "test_util.h"

#include "import/npy.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace fxray;
namespace fs = std::filesystem;

namespace {
std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}
}  // namespace

class TestNpy : public QObject {
    Q_OBJECT
private slots:
    void readsCorpusFilesWithRecordedShapes() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        auto meta = nlohmann::json::parse(slurp(fxtest::corpus() / "pad_mm/numerics/numerics.json"));
        for (const auto& in : meta["forward"]["inputs"]) {
            char name[16];
            std::snprintf(name, sizeof name, "%03d.npy", in["index"].get<int>());
            auto t = readNpy(fxtest::corpus() / "pad_mm/numerics/forward/inputs" / name);
            QVERIFY2(t.ok(), t.ok() ? "" : t.error().str().c_str());
            QCOMPARE(t->shape(), in["shape"].get<std::vector<int64_t>>());
            QCOMPARE(std::string(dtypeTorchName(t->dtype())), in["dtype"].get<std::string>());
        }
    }

    void roundTripsDtypesAndStrides_data() {
        QTest::addColumn<int>("dtype");
        for (DType d :
             {DType::Float32, DType::Float16, DType::Float64, DType::Int64, DType::Int32, DType::Bool, DType::UInt8})
            QTest::newRow(std::string(dtypeAbbrev(d)).c_str()) << int(d);
    }
    void roundTripsDtypesAndStrides() {
        QFETCH(int, dtype);
        DType dt = DType(dtype);
        // A transposed (non-contiguous) 2x3 tensor: written in logical C order.
        TensorMeta m = TensorMeta::contiguous({2, 3}, dt);
        m.strides = {1, 2};
        std::vector<double> vals = {1, 0, 3, 0, 5, 1};
        if (dt == DType::Bool) vals = {1, 0, 1, 0, 1, 1};
        Tensor t = kern::makeTensor(m, vals);
        auto path = fs::temp_directory_path() / "fxray_rt.npy";
        QVERIFY(writeNpy(path, t).ok());
        auto back = readNpy(path);
        QVERIFY(back.ok());
        QCOMPARE(back->shape(), (std::vector<int64_t>{2, 3}));
        QCOMPARE(back->dtype(), dt);
        QVERIFY(back->meta.isContiguous());
        FX_COMPARE_VEC(kern::toDoubles(*back), vals, 0);
    }

    void damagedFilesAreRefusedWithOffsets_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("message");
        QByteArray good("\x93NUMPY\x01\x00", 8);
        QByteArray header("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }");
        auto file = [&](QByteArray h, QByteArray data) {
            QByteArray b = good;
            b.append(char(h.size() & 0xff)).append(char(h.size() >> 8)).append(h).append(data);
            return b;
        };
        QTest::newRow("magic") << QByteArray("PK\x03\x04 not npy") << "bad magic";
        QTest::newRow("truncated data") << file(header, QByteArray(8, '\0')) << "truncated data: need 16 bytes, have 8";
        QTest::newRow("truncated header") << good + QByteArray("\x50\x00{'descr'", 10) << "truncated header";
        QTest::newRow("fortran") << file(QByteArray(header).replace("False", "True"), QByteArray(16, '\0'))
                                 << "Fortran-order";
        QTest::newRow("big endian") << file(QByteArray(header).replace("<f4", ">f4"), QByteArray(16, '\0'))
                                    << "big-endian";
        QTest::newRow("object") << file(QByteArray(header).replace("<f4", "|O"), QByteArray(16, '\0'))
                                << "unsupported dtype '|O'";
        QTest::newRow("shape") << file(QByteArray(header).replace("(2, 2)", "(2, x)"), QByteArray(16, '\0'))
                               << "malformed shape";
        // fuzz_npy's find: a 16-byte file claiming 2^40 x 2^40 elements must not be allocated.
        QTest::newRow("huge shape") << file(QByteArray(header).replace("(2, 2)", "(1099511627776, 1099511627776)"),
                                            QByteArray(16, '\0'))
                                    << "too large";
        QTest::newRow("large shape, little data")
            << file(QByteArray(header).replace("(2, 2)", "(100000, 100000)"), QByteArray(16, '\0'))
            << "truncated data: need 40000000000 bytes";
    }
    void damagedFilesAreRefusedWithOffsets() {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, message);
        auto r = parseNpy(std::string_view(bytes.constData(), size_t(bytes.size())), "x.npy");
        QVERIFY(!r.ok());
        QVERIFY2(r.error().message.find(message.toStdString()) != std::string::npos, r.error().str().c_str());
        QVERIFY(r.error().message.find("(at byte ") != std::string::npos);
        QCOMPARE(r.error().file, std::string("x.npy"));
    }
};

QTEST_GUILESS_MAIN(TestNpy)
#include "tst_npy.moc"
