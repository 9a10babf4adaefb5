// Element-moving shape ops (flip, roll, rot90, tril/triu, diag_embed, _chunk_cat), the
// *_scatter ops and view backwards, and the *_copy variants of views: values, the layouts eager
// PyTorch 2.11 gives, and the error messages of bad arguments.
#include "test_util.h"

#include <cstdint>

using namespace fxtest;
using fxray::DType;
using fxray::Value;
using V = std::vector<int64_t>;
using D = std::vector<double>;

namespace {

std::vector<double> iota(int n) {
    std::vector<double> v(n);
    for (int i = 0; i < n; ++i) v[i] = i;
    return v;
}

fxray::Expected<Value> tryRun(std::string_view op, std::vector<Value> args,
                              std::vector<std::pair<std::string, Value>> kw = {}) {
    fxray::ExecContext ctx(0);
    return fxray::invokeOp(op, std::move(args), std::move(kw), &ctx);
}

/// The op fails with a message containing `what`.
bool failsWith(std::string_view op, std::vector<Value> args, const std::string& what) {
    auto r = tryRun(op, std::move(args));
    if (r.ok()) return false;
    if (r.error().str().find(what) == std::string::npos) {
        qWarning("%s", r.error().str().c_str());
        return false;
    }
    return true;
}

}  // namespace

class TestOpsReorder : public QObject {
    Q_OBJECT
private slots:
    void flipKeepsTheInputLayout() {
        auto t = run("aten.t.default", {tv({2, 3}, iota(6))});
        auto f = run("aten.flip.default", {t, ilist({0})});
        QCOMPARE(f.t.strides(), (V{1, 3}));
        QVERIFY(f.t.storage != t.t.storage);
        FX_COMPARE_VEC(values(f), (D{2, 5, 1, 4, 0, 3}), 0);
        QVERIFY(failsWith("aten.flip.default", {tv({2, 3}, iota(6)), ilist({0, -2})}, "dims has duplicates"));
    }
    void rollShiftsEachDimOrTheFlatTensor() {
        Value x = tv({2, 3}, iota(6));
        FX_COMPARE_VEC(values(run("aten.roll.default", {x, ilist({1, -1}), ilist({0, 1})})), (D{4, 5, 3, 1, 2, 0}), 0);
        FX_COMPARE_VEC(values(run("aten.roll.default", {x, ilist({2})})), (D{4, 5, 0, 1, 2, 3}), 0);
        QVERIFY(failsWith("aten.roll.default", {x, ilist({1, 2})}, "shifts and dimensions must align"));
    }
    void rot90IsAFlipAndATranspose() {
        Value x = tv({2, 3}, iota(6));
        auto r1 = run("aten.rot90.default", {x});
        QCOMPARE(r1.t.shape(), (V{3, 2}));
        QCOMPARE(r1.t.strides(), (V{1, 3}));
        FX_COMPARE_VEC(values(r1), (D{2, 5, 1, 4, 0, 3}), 0);
        FX_COMPARE_VEC(values(run("aten.rot90.default", {x, iv(2)})), (D{5, 4, 3, 2, 1, 0}), 0);
        FX_COMPARE_VEC(values(run("aten.rot90.default", {x, iv(-1)})), (D{3, 0, 4, 1, 5, 2}), 0);
        QCOMPARE(run("aten.rot90.default", {x, iv(4)}).t.strides(), (V{3, 1}));
        QVERIFY(failsWith("aten.rot90.default", {x, iv(1), ilist({0, 0})}, "expected rotation dims to be different"));
    }
    void trilTriu() {
        Value x = tv({2, 3}, {1, 2, 3, 4, 5, 6});
        FX_COMPARE_VEC(values(run("aten.tril.default", {x})), (D{1, 0, 0, 4, 5, 0}), 0);
        FX_COMPARE_VEC(values(run("aten.triu.default", {x, iv(1)})), (D{0, 2, 3, 0, 0, 6}), 0);
        QVERIFY(failsWith("aten.tril.default", {tv({3}, iota(3))}, "at least 2 dimensions"));
    }
    void diagEmbed() {
        auto r = run("aten.diag_embed.default", {tv({2}, {1, 2}), iv(1)});
        QCOMPARE(r.t.shape(), (V{3, 3}));
        FX_COMPARE_VEC(values(r), (D{0, 1, 0, 0, 0, 2, 0, 0, 0}), 0);
        QVERIFY(failsWith("aten.diag_embed.default", {tv({2, 3}, iota(6)), iv(0), iv(1), iv(-2)},
                          "diagonal dimensions cannot be identical"));
    }
    void chunkCatPadsEachChunk() {
        Value a = tv({1, 3}, {0, 1, 2});
        Value b = tv({1, 2}, {7, 8});
        auto r = run("aten._chunk_cat.default", {Value::ofList({a, b}), iv(1), iv(2)});
        QCOMPARE(r.t.shape(), (V{1, 2, 3}));
        FX_COMPARE_VEC(values(r), (D{0, 1, 7, 2, 0, 8}), 0);
        QVERIFY(failsWith("aten._chunk_cat.default", {Value::ofList({a, b}), iv(1), iv(0)}, "positive num_chunks"));
    }
    void scattersKeepSelfsStrides() {
        auto t = run("aten.t.default", {tv({2, 3}, iota(6))});
        auto s = run("aten.select_scatter.default", {t, tv({2}, {-1, -2}), iv(0), iv(1)});
        QCOMPARE(s.t.strides(), (V{1, 3}));
        FX_COMPARE_VEC(values(s), (D{0, 3, -1, -2, 2, 5}), 0);
        auto sl =
            run("aten.slice_scatter.default", {tv({6}, iota(6)), tv({2}, {9, 9}), iv(0), iv(1), Value::none(), iv(3)});
        FX_COMPARE_VEC(values(sl), (D{0, 9, 2, 3, 9, 5}), 0);
        auto as = run("aten.as_strided_scatter.default",
                      {tv({2, 3}, iota(6)), tv({2}, {7, 8}), ilist({2}), ilist({2}), iv(1)});
        FX_COMPARE_VEC(values(as), (D{0, 7, 2, 8, 4, 5}), 0);
        QVERIFY(failsWith("aten.diagonal_scatter.default", {tv({3, 3}, iota(9)), tv({2}, {1, 1})},
                          "expected src to have a size equal to the slice of self"));
    }
    void viewBackwardsAreZerosWithTheGradient() {
        auto sb = run("aten.slice_backward.default", {tv({2}, {1, 2}), ilist({4}), iv(0), iv(1), iv(3), iv(1)});
        FX_COMPARE_VEC(values(sb), (D{0, 1, 2, 0}), 0);
        auto db = run("aten.diagonal_backward.default", {tv({2}, {1, 2}), ilist({2, 3}), iv(1), iv(0), iv(1)});
        FX_COMPARE_VEC(values(db), (D{0, 1, 0, 0, 0, 2}), 0);
        // Overlapping unfold windows add up.
        auto ub = run("aten.unfold_backward.default", {tv({3, 3}, D(9, 1.0)), ilist({5}), iv(0), iv(3), iv(1)});
        FX_COMPARE_VEC(values(ub), (D{1, 2, 3, 2, 1}), 0);
        QVERIFY(
            failsWith("aten.select_backward.default", {tv({3}, iota(3)), ilist({2, 3}), iv(0), iv(5)}, "out of range"));
    }
    void copyVariantsAreFreshContiguousCopies() {
        Value x = tv({2, 3}, iota(6));
        auto t = run("aten.t_copy.default", {x});
        QCOMPARE(t.t.strides(), (V{2, 1}));
        QVERIFY(t.t.storage != x.t.storage);
        FX_COMPARE_VEC(values(t), (D{0, 3, 1, 4, 2, 5}), 0);
        auto u = run("aten.unfold_copy.default", {x, iv(1), iv(2), iv(1)});
        QCOMPARE(u.t.shape(), (V{2, 2, 2}));
        QCOMPARE(u.t.strides(), (V{4, 2, 1}));
        auto parts = run("aten.unbind_copy.int", {x, iv(1)});
        QCOMPARE(parts.list.size(), size_t(3));
        FX_COMPARE_VEC(values(parts.list[2]), (D{2, 5}), 0);
        // view_copy reshapes where no view exists.
        FX_COMPARE_VEC(values(run("aten.view_copy.default", {run("aten.t.default", {x}), ilist({6})})),
                       (D{0, 3, 1, 4, 2, 5}), 0);
        QVERIFY(failsWith("aten.view_copy.default", {x, ilist({4})}, "invalid for input of size 6"));
    }
    void unfoldAndInplaceSqueeze() {
        auto u = run("aten.unfold.default", {tv({2, 3}, iota(6)), iv(1), iv(2), iv(1)});
        QCOMPARE(u.t.shape(), (V{2, 2, 2}));
        QCOMPARE(u.t.strides(), (V{3, 1, 1}));
        QVERIFY(failsWith("aten.unfold.default", {tv({2, 3}, iota(6)), iv(1), iv(4), iv(1)}, "maximum size"));
        Value x = tv({2, 1}, {4, 5});
        auto s = run("aten.squeeze_.dim", {x, iv(-1)});
        QCOMPARE(s.t.shape(), (V{2}));
        QVERIFY(s.t.storage == x.t.storage);
    }
};

QTEST_GUILESS_MAIN(TestOpsReorder)
#include "tst_ops_reorder.moc"
