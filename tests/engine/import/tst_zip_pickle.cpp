// The zip wrapper and the restricted pickle reader: corpus archives open and list, hostile and
// broken inputs give Diagnostics with the archive/member and byte offset, never a crash.
#include "test_util.h"

#include "import/pickle.h"
#include "import/zip_archive.h"

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

/// Writes a zip with stored (uncompressed) members, the way torch.save does.
bool writeZip(const fs::path& p, const std::vector<std::pair<std::string, std::string>>& members) {
    int err = 0;
    zip_t* z = zip_open(p.string().c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
    if (!z) return false;
    for (const auto& [name, data] : members) {
        zip_source_t* s = zip_source_buffer(z, data.data(), data.size(), 0);
        zip_int64_t idx = zip_file_add(z, name.c_str(), s, ZIP_FL_OVERWRITE);
        if (idx < 0) {
            zip_source_free(s);
            zip_discard(z);
            return false;
        }
        zip_set_file_compression(z, static_cast<zip_uint64_t>(idx), ZIP_CM_STORE, 0);
    }
    return zip_close(z) == 0;
}

std::string errorOf(const Expected<PickleResult>& r) { return r.ok() ? std::string("<no error>") : r.error().str(); }

Expected<PickleResult> unp(const std::string& bytes, const PickleOptions& o = {}) {
    return unpickle(bytes, "test.pkl", o);
}

/// Builds pickle bytes opcode by opcode (string literals with \x escapes are too easy to get wrong).
struct Pk {
    std::string b;
    explicit Pk(int proto = 2) {
        b += char(0x80);
        b += char(proto);
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
    Pk& sUni(const std::string& s) {
        op(0x8c).u8(static_cast<int>(s.size()));
        b += s;
        return *this;
    }
    Pk& global(const std::string& m, const std::string& n) {
        op('c');
        b += m + "\n" + n + "\n";
        return *this;
    }
    Pk& k1(int v) { return op('K').u8(v); }
    Pk& m2(int v) { return op('M').u8(v).u8(v >> 8); }
    Pk& put(int i) { return op('q').u8(i); }
    Pk& get(int i) { return op('h').u8(i); }
    std::string stop() { return b + "."; }
};

/// A pickle (protocol 2, as torch.save writes it) of {'w': tensor(sizeA x sizeB) on storage '0'
/// of `numel` floats}.
std::string tensorPickle(int sizeA, int sizeB, int numel) {
    Pk p;
    p.op('}').put(0).uni("w").put(1).global("torch._utils", "_rebuild_tensor_v2").put(2);
    p.op('(')
        .op('(')
        .uni("storage")
        .put(3)
        .global("torch", "FloatStorage")
        .put(4)
        .uni("0")
        .put(5)
        .uni("cpu")
        .put(6)
        .m2(numel);
    p.op('t').put(7).op('Q').k1(0).k1(sizeA).k1(sizeB).op(0x86).put(8).k1(sizeB).k1(1).op(0x86).put(9).op(0x89);
    p.global("collections", "OrderedDict").put(10).op(')').op('R').put(11).op('t').put(12).op('R').put(13).op('s');
    return p.stop();
}

}  // namespace

class TestZipPickle : public QObject {
    Q_OBJECT
private slots:
    // ---- zip ----

    void corpusStateDictListsAndReads() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        auto z = ZipArchive::open(fxtest::corpus() / "mlp/eager/state_dict.pt");
        QVERIFY2(z.ok(), z.ok() ? "" : z.error().str().c_str());
        QCOMPARE(z->rootFolder(), std::string("state_dict"));
        QVERIFY(z->contains("state_dict/data.pkl"));
        // 0.weight is 128x64 float32 (the model's first Linear), 32768 bytes.
        QCOMPARE(z->memberSize("state_dict/data/0").value_or(0), uint64_t(128 * 64 * 4));
        auto data = z->read("state_dict/data/0");
        QVERIFY(data.ok());
        QCOMPARE(data->size(), size_t(32768));
        auto bo = z->read("state_dict/byteorder");
        QVERIFY(bo.ok());
        QCOMPARE(*bo, std::string("little"));
    }

    void missingMemberNamesArchiveAndMember() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        auto z = ZipArchive::open(fxtest::corpus() / "mlp/eager/state_dict.pt");
        QVERIFY(z.ok());
        auto r = z->read("state_dict/data/99");
        QVERIFY(!r.ok());
        QVERIFY(r.error().file.find("state_dict.pt") != std::string::npos);
        QVERIFY(r.error().message.find("member 'state_dict/data/99': no such member") != std::string::npos);
    }

    void memberOverLimitIsRefused() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        auto z = ZipArchive::open(fxtest::corpus() / "mlp/eager/state_dict.pt");
        QVERIFY(z.ok());
        auto r = z->read("state_dict/data/0", 1000);
        QVERIFY(!r.ok());
        QVERIFY2(r.error().message.find("declares 32768 bytes, more than the limit of 1000") != std::string::npos,
                 r.error().str().c_str());
    }

    void notAZipAndMissingFile() {
        QTemporaryDir tmp;
        fs::path p = fs::path(tmp.path().toStdString()) / "plain.pt";
        writeFile(p, "this is not a zip archive at all");
        auto z = ZipArchive::open(p);
        QVERIFY(!z.ok());
        QVERIFY2(z.error().message.find("not a readable zip archive") != std::string::npos, z.error().str().c_str());
        QCOMPARE(z.error().file, p.string());
        auto m = ZipArchive::open(fs::path(tmp.path().toStdString()) / "nope.pt");
        QVERIFY(!m.ok());
        QVERIFY(m.error().message.find("no such file") != std::string::npos);
    }

    void truncatedArchiveIsRefused() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        std::string bytes = readFile(fxtest::corpus() / "mlp/eager/state_dict.pt");
        QTemporaryDir tmp;
        // Cut inside the storages and inside the central directory: both must fail cleanly.
        for (size_t cut : {bytes.size() / 2, bytes.size() - 30, size_t(100)}) {
            fs::path p = fs::path(tmp.path().toStdString()) / ("cut" + std::to_string(cut) + ".pt");
            writeFile(p, bytes.substr(0, cut));
            auto z = ZipArchive::open(p);
            if (z.ok()) {
                bool anyFail = false;
                for (const auto& m : z->members()) anyFail = anyFail || !z->read(m).ok();
                QVERIFY2(anyFail, "a truncated archive read without error");
            } else {
                QVERIFY(z.error().message.find("not a readable zip archive") != std::string::npos);
            }
        }
    }

    void forgedSizeIsRefusedBeforeAllocating() {
        QTemporaryDir tmp;
        fs::path p = fs::path(tmp.path().toStdString()) / "forged.zip";
        QVERIFY(writeZip(p, {{"a/data.pkl", std::string(100, 'x')}}));
        std::string bytes = readFile(p);
        // Patch the uncompressed size (central directory offset 24, local header offset 22).
        auto patch = [&](const char* sig, size_t off) {
            size_t at = bytes.find(sig);
            QVERIFY(at != std::string::npos);
            uint32_t huge = 0x7fffffff;
            std::memcpy(&bytes[at + off], &huge, 4);
        };
        patch("PK\x01\x02", 24);
        patch("PK\x03\x04", 22);
        writeFile(p, bytes);
        auto z = ZipArchive::open(p);
        QVERIFY(z.ok());
        auto r = z->read("a/data.pkl");
        QVERIFY(!r.ok());
        QVERIFY2(r.error().message.find("is impossible for an archive of") != std::string::npos,
                 r.error().str().c_str());
    }

    void inMemoryArchive() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        auto z = ZipArchive::openBuffer(readFile(fxtest::corpus() / "mlp/eager/state_dict.pt"), "mem.pt");
        QVERIFY(z.ok());
        QVERIFY(z->read("state_dict/data.pkl").ok());
        auto bad = ZipArchive::openBuffer("garbage", "mem2.pt");
        QVERIFY(!bad.ok());
        QCOMPARE(bad.error().file, std::string("mem2.pt"));
    }

    // ---- pickle ----

    void hostileGlobalIsRefused() {
        // GLOBAL 'os system', then REDUCE with ('ls',): what a malicious .pt would hold.
        std::string p = Pk().global("os", "system").put(0).uni("ls").put(1).op(0x85).put(2).op('R').put(3).stop();
        auto r = unp(p);
        QVERIFY(!r.ok());
        QVERIFY2(r.error().message.find("refusing to load global 'os.system' at byte 2") == 0, errorOf(r).c_str());
        QCOMPARE(r.error().file, std::string("test.pkl"));
    }

    void otherHostileGlobals() {
        struct Case {
            std::string bytes, name;
        };
        std::vector<Case> cases = {
            {Pk().global("__builtin__", "eval").op(')').op('R').stop(), "builtins.eval"},
            {Pk().global("subprocess", "Popen").op(')').op('R').stop(), "subprocess.Popen"},
            {Pk(4).sUni("builtins").sUni("exec").op(0x93).op(')').op('R').stop(), "builtins.exec"},
            {Pk().global("torch.nn.modules.linear", "Linear").op(')').op(0x81).stop(),
             "torch.nn.modules.linear.Linear"},
            {Pk().global("__builtin__", "set").op(')').op('R').stop(), "builtins.set"},  // only with allowGraphModule
            {Pk().global("torch", "load").op(')').op('R').stop(), "torch.load"},
        };
        for (const auto& c : cases) {
            auto r = unp(c.bytes);
            QVERIFY2(!r.ok(), c.name.c_str());
            QVERIFY2(r.error().message.find("refusing to load global '" + c.name + "'") == 0, errorOf(r).c_str());
        }
        PickleOptions gm;
        gm.allowGraphModule = true;
        auto set = unp(Pk().global("__builtin__", "set").op(']').op(0x85).op('R').stop(), gm);
        QVERIFY2(set.ok(), errorOf(set).c_str());
        QCOMPARE(set->root->kind, PickleValue::Kind::Set);
        // An allowed global is still not callable with arbitrary meaning.
        auto call = unp(Pk().global("torch", "FloatStorage").op(')').op('R').stop());
        QVERIFY(!call.ok());
        QVERIFY2(call.error().message.find("cannot call 'torch.FloatStorage' at byte") == 0, errorOf(call).c_str());
    }

    void plainValues() {
        // {'a': 1, 'b': -2 (LONG1), 'c': 2.5, 'd': None, 'e': True, 'f': (1, 'x'), 'g': [300, 70000]}
        Pk p;
        p.op('}').put(0).op('(');
        p.uni("a").k1(1);
        p.uni("b").op(0x8a).u8(1).u8(0xfe);
        p.uni("c").op('G');
        for (int v : {0x40, 0x04, 0, 0, 0, 0, 0, 0}) p.u8(v);
        p.uni("d").op('N');
        p.uni("e").op(0x88);
        p.uni("f").k1(1).sUni("x").op(0x86);
        p.uni("g").op(']').put(1).op('(').m2(300).op('J').u32(70000).op('e');
        p.op('u');
        auto r = unp(p.stop());
        QVERIFY2(r.ok(), errorOf(r).c_str());
        const PickleValue* d = r->root;
        QCOMPARE(d->kind, PickleValue::Kind::Dict);
        QCOMPARE(d->entries.size(), size_t(7));
        QCOMPARE(d->get("a")->i, int64_t(1));
        QCOMPARE(d->get("b")->i, int64_t(-2));
        QCOMPARE(d->get("c")->f, 2.5);
        QCOMPARE(d->get("d")->kind, PickleValue::Kind::None);
        QVERIFY(d->get("e")->b);
        QCOMPARE(d->get("f")->items[1]->s, std::string("x"));
        QCOMPARE(d->get("g")->items[0]->i, int64_t(300));
        QCOMPARE(d->get("g")->items[1]->i, int64_t(70000));
    }

    void tensorRebuildIsData() {
        auto r = unp(tensorPickle(4, 8, 32));
        QVERIFY2(r.ok(), errorOf(r).c_str());
        const PickleValue* t = r->root->get("w");
        QVERIFY(t && t->kind == PickleValue::Kind::Tensor);
        QCOMPARE(t->meta.shape, (std::vector<int64_t>{4, 8}));
        QCOMPARE(t->meta.strides, (std::vector<int64_t>{8, 1}));
        QCOMPARE(t->storage->s, std::string("0"));
        QCOMPARE(t->storage->numel, int64_t(32));
        QCOMPARE(t->meta.dtype, DType::Float32);
    }

    void tensorBeyondStorageIsRefused() {
        auto r = unp(tensorPickle(4, 8, 31));
        QVERIFY(!r.ok());
        QVERIFY2(r.error().message.find("reaches beyond its storage of 31 elements at byte") != std::string::npos,
                 errorOf(r).c_str());
    }

    void truncatedPickleGivesOffset() {
        std::string full = tensorPickle(4, 8, 32);
        for (size_t cut = 1; cut < full.size(); cut += 7) {
            auto r = unp(full.substr(0, cut));
            QVERIFY2(!r.ok(), "a truncated pickle was accepted");
            QVERIFY2(r.error().message.find("at byte") != std::string::npos, errorOf(r).c_str());
        }
        // A length prefix larger than the input must not allocate it.
        Pk big;
        big.op('X').u32(0x7fffffff);
        auto bigR = unp(big.b + "abc");
        QVERIFY(!bigR.ok());
        QVERIFY2(bigR.error().message.find("truncated pickle: opcode needs 2147483647 more bytes, 3 left at byte 2") ==
                     0,
                 errorOf(bigR).c_str());
    }

    void malformedPickles() {
        struct Case {
            std::string bytes, msg;
        };
        std::vector<Case> cases = {
            {Pk().get(5).stop(), "memo key 5 not defined at byte 2"},
            {Pk().op('a').stop(), "stack underflow at byte 2"},
            {Pk().op('(').op('I').stop(), "unsupported pickle opcode 0x49 at byte 3"},
            {Pk().op(']').put(0).get(0).op('a').stop(), "reference cycle"},
            {Pk().k1(1).k1(2).stop(), "STOP with 2 values on the stack"},
            {Pk(9).stop(), "unsupported pickle protocol 9"},
            {Pk().op('(').uni("storage").k1(1).k1(2).k1(3).k1(4).op('t').op('Q').stop(),
             "persistent id names an unknown storage type at byte 24"},
            {Pk().op('(').uni("blob").k1(1).op('t').op('Q').stop(), "unsupported persistent id"},
            {Pk().op('(')
                 .uni("storage")
                 .global("torch", "FloatStorage")
                 .uni("0")
                 .uni("cpu")
                 .k1(4)
                 .op('t')
                 .op('Q')
                 .op('Q')
                 .stop(),
             "unsupported persistent id"},
            {Pk().op(0x85).stop(), "stack underflow"},
            {Pk().uni("x").op('R').stop(), "stack underflow"},
            {Pk().uni("x").op(')').op('R').stop(), "REDUCE on a value that is not a callable global"},
        };
        for (const auto& c : cases) {
            auto r = unp(c.bytes);
            QVERIFY2(!r.ok(), c.msg.c_str());
            QVERIFY2(r.error().message.find(c.msg) != std::string::npos, errorOf(r).c_str());
        }
        // Deep nesting is capped (consumers may recurse).
        Pk deep;
        for (int k = 0; k < 1000; ++k) deep.op(']');
        for (int k = 0; k < 999; ++k) deep.op('a');
        auto r = unp(deep.stop());
        QVERIFY(!r.ok());
        QVERIFY2(r.error().message.find("nests deeper than 256") != std::string::npos, errorOf(r).c_str());
        // Object count is capped.
        PickleOptions small;
        small.maxObjects = 10;
        Pk many;
        many.op('(');
        for (int k = 0; k < 20; ++k) many.op('N');
        many.op('l');
        auto m = unp(many.stop(), small);
        QVERIFY(!m.ok());
        QVERIFY2(m.error().message.find("more than 10 objects") != std::string::npos, errorOf(m).c_str());
    }

    void corpusPicklesParse() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found");
        auto z = ZipArchive::open(fxtest::corpus() / "convbn_freeze/eager/state_dict.pt");
        QVERIFY(z.ok());
        auto pkl = z->read(z->rootFolder() + "/data.pkl");
        QVERIFY(pkl.ok());
        auto r = unpickle(*pkl, "convbn");
        QVERIFY2(r.ok(), errorOf(r).c_str());
        // 10 parameters and 6 buffers (running stats and num_batches_tracked of two BatchNorms).
        QCOMPARE(r->root->entries.size(), size_t(16));
        const PickleValue* nbt = r->root->get("1.num_batches_tracked");
        QVERIFY(nbt && nbt->kind == PickleValue::Kind::Tensor);
        QCOMPARE(nbt->meta.dtype, DType::Int64);
        QVERIFY(nbt->meta.shape.empty());
        // A pickled GraphModule (to_folder) needs the opt-in; without it, 'set' is refused.
        auto gz = ZipArchive::open(fxtest::corpus() / "checkpointed/to_folder/wrap_body_0.pt");
        QVERIFY(gz.ok());
        auto gp = gz->read(gz->rootFolder() + "/data.pkl");
        QVERIFY(gp.ok());
        auto refused = unpickle(*gp, "wrap_body_0");
        QVERIFY(!refused.ok());
        QVERIFY2(refused.error().message.find(
                     "refusing to load global 'torch.fx.graph_module.reduce_graph_module' at byte 2") == 0,
                 refused.error().str().c_str());
        PickleOptions gm;
        gm.allowGraphModule = true;
        auto ok = unpickle(*gp, "wrap_body_0", gm);
        QVERIFY2(ok.ok(), errorOf(ok).c_str());
        QCOMPARE(ok->root->kind, PickleValue::Kind::GraphModule);
        const PickleValue* code = ok->root->items[0]->get("_code");
        QVERIFY(code && code->s.find("def forward(self, l_x_") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestZipPickle)
#include "tst_zip_pickle.moc"
