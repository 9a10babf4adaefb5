// View ops: shapes, strides and offsets as PyTorch 2.11 reports them (cases checked against
// FakeTensor), storage sharing, and values.
#include "test_util.h"

#include <cstdint>

using namespace fxtest;
using fxray::DType;
using fxray::Tensor;
using fxray::TensorMeta;
using fxray::Value;
using V = std::vector<int64_t>;

namespace {

/// A tensor with explicit strides holding `values` in row-major logical order.
Value strided(V shape, V strides, std::vector<double> values, DType dt = DType::Float32) {
    TensorMeta m = TensorMeta::contiguous(std::move(shape), dt);
    m.strides = std::move(strides);
    return Value::ofTensor(fxray::kern::makeTensor(m, values));
}

/// The first n values of a tensor, row-major.
std::vector<double> head(const Value& v, size_t n) {
    auto all = values(v);
    all.resize(n);
    return all;
}

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

}  // namespace

class TestOpsView : public QObject {
    Q_OBJECT
private slots:
    void viewSharesStorageAndInfersMinusOne() {
        Value x = tv({2, 3, 4}, iota(24));
        auto r = run("aten.view.default", {x, ilist({4, -1})});
        QCOMPARE(r.t.shape(), (V{4, 6}));
        QCOMPARE(r.t.strides(), (V{6, 1}));
        QVERIFY(r.t.storage == x.t.storage);
        FX_COMPARE_VEC(values(r), iota(24), 0);
    }
    void viewOfTransposedNeedsReshape() {
        auto t = run("aten.t.default", {tv({2, 3}, iota(6))});
        QCOMPARE(t.t.strides(), (V{1, 3}));
        auto r = tryRun("aten.view.default", {t, ilist({6})});
        QVERIFY(!r.ok());
        QVERIFY(r.error().str().find("reshape") != std::string::npos);
        // Splitting a dim of a transposed tensor is a view.
        auto s = run("aten.view.default", {t, ilist({3, 2, 1})});
        QCOMPARE(s.t.strides(), (V{1, 3, 3}));
    }
    void viewKeepsStridesOfSizeOneDims() {
        // PyTorch's view meta (the Python reference) keeps a size-1 dim's stride when the dim
        // survives, and gives a new trailing size-1 dim the stride of the dim it splits from.
        Value x = strided({2, 1, 3}, {3, 1, 1}, iota(6));
        QCOMPARE(run("aten.view.default", {x, ilist({2, 1, 3})}).t.strides(), (V{3, 1, 1}));
        QCOMPARE(run("aten.view.default", {x, ilist({1, 2, 1, 3, 1})}).t.strides(), (V{6, 3, 1, 1, 1}));
        QCOMPARE(run("aten.view.default", {x, ilist({3, 2})}).t.strides(), (V{2, 1}));
    }
    void viewRejectsWrongNumel() {
        auto r = tryRun("aten.view.default", {tv({2, 3}, iota(6)), ilist({4, 2})});
        QVERIFY(!r.ok());
        QVERIFY(r.error().str().find("invalid for input of size 6") != std::string::npos);
        QVERIFY(!tryRun("aten.view.default", {tv({2, 3}, iota(6)), ilist({-1, -1})}).ok());
    }
    void reshapeCopiesWhenNoViewExists() {
        auto t = run("aten.t.default", {tv({2, 3}, iota(6))});
        auto r = run("aten.reshape.default", {t, ilist({6})});
        QCOMPARE(r.t.strides(), (V{1}));
        QVERIFY(r.t.storage != t.t.storage);
        FX_COMPARE_VEC(values(r), (std::vector<double>{0, 3, 1, 4, 2, 5}), 0);
        // _unsafe_view behaves alike; a viewable reshape aliases.
        FX_COMPARE_VEC(values(run("aten._unsafe_view.default", {t, ilist({3, 2})})),
                       (std::vector<double>{0, 3, 1, 4, 2, 5}), 0);
        Value c = tv({2, 3}, iota(6));
        QVERIFY(run("aten.reshape.default", {c, ilist({3, 2})}).t.storage == c.t.storage);
    }
    void flattenAndUnflatten() {
        Value x = tv({2, 3, 4}, iota(24));
        auto f = run("aten.flatten.using_ints", {x, iv(1), iv(-1)});
        QCOMPARE(f.t.shape(), (V{2, 12}));
        auto p = run("aten.permute.default", {x, ilist({0, 2, 1})});
        auto fp = run("aten.flatten.using_ints", {p, iv(1)});  // not viewable: a copy
        QCOMPARE(fp.t.strides(), (V{12, 1}));
        FX_COMPARE_VEC(head(fp, 4), (std::vector<double>{0, 4, 8, 1}), 0);
        auto u = run("aten.unflatten.int", {f, iv(-1), ilist({2, -1})});
        QCOMPARE(u.t.shape(), (V{2, 2, 6}));
        QCOMPARE(u.t.strides(), (V{12, 6, 1}));
        QVERIFY(!tryRun("aten.unflatten.int", {f, iv(1), ilist({5, 2})}).ok());
    }
    void transposeAndPermute() {
        Value x = tv({2, 3, 4}, iota(24));
        auto t = run("aten.transpose.int", {x, iv(-1), iv(0)});
        QCOMPARE(t.t.shape(), (V{4, 3, 2}));
        QCOMPARE(t.t.strides(), (V{1, 4, 12}));
        auto p = run("aten.permute.default", {x, ilist({2, 0, 1})});
        QCOMPARE(p.t.shape(), (V{4, 2, 3}));
        QCOMPARE(p.t.strides(), (V{1, 12, 4}));
        FX_COMPARE_VEC(head(p, 4), (std::vector<double>{0, 4, 8, 12}), 0);
        QVERIFY(!tryRun("aten.permute.default", {x, ilist({0, 0, 1})}).ok());
        QVERIFY(!tryRun("aten.transpose.int", {x, iv(3), iv(0)}).ok());
    }
    void expandGivesZeroStrides() {
        Value x = tv({3, 1}, {1, 2, 3});
        auto e = run("aten.expand.default", {x, ilist({2, 3, 4})});
        QCOMPARE(e.t.strides(), (V{0, 1, 0}));
        auto v = values(e);
        QCOMPARE(v.size(), size_t(24));
        QCOMPARE(v[4], 2.0);
        QCOMPARE(v[23], 3.0);
        // -1 keeps a size; a new leading dim of size 1 takes the outer stride a contiguous
        // layout would have (prims.broadcast_in_dim).
        QCOMPARE(run("aten.expand.default", {x, ilist({1, -1, 5})}).t.strides(), (V{3, 1, 0}));
        Value s = Value::ofTensor(fxtest::tensor({}, {7}));
        QCOMPARE(run("aten.expand.default", {s, ilist({1, 2})}).t.strides(), (V{1, 0}));
        auto bad = tryRun("aten.expand.default", {x, ilist({2, 4, 4})});
        QVERIFY(!bad.ok());
        QVERIFY(bad.error().str().find("must match the existing size") != std::string::npos);
    }
    void unsqueezeAndSqueeze() {
        auto t = run("aten.t.default", {tv({2, 4}, iota(8))});  // [4, 2] strides [1, 4]
        QCOMPARE(run("aten.unsqueeze.default", {t, iv(1)}).t.strides(), (V{1, 8, 4}));
        QCOMPARE(run("aten.unsqueeze.default", {t, iv(-1)}).t.strides(), (V{1, 4, 1}));
        Value x = tv({2, 1, 3, 1}, iota(6));
        QCOMPARE(run("aten.squeeze.dims", {x, ilist({1, 3})}).t.shape(), (V{2, 3}));
        QCOMPARE(run("aten.squeeze.dims", {x, ilist({0, -1})}).t.shape(), (V{2, 1, 3}));
        QCOMPARE(run("aten.squeeze.dim", {x, iv(0)}).t.shape(), (V{2, 1, 3, 1}));
        QCOMPARE(run("aten.squeeze.default", {x}).t.shape(), (V{2, 3}));
    }
    void sliceClampsAndSteps() {
        Value x = tv({5, 6}, iota(30));
        auto s = run("aten.slice.Tensor", {x, iv(1), iv(1), iv(5), iv(2)});
        QCOMPARE(s.t.shape(), (V{5, 2}));
        QCOMPARE(s.t.strides(), (V{6, 2}));
        QCOMPARE(s.t.meta.offset, int64_t(1));
        FX_COMPARE_VEC(head(s, 4), (std::vector<double>{1, 3, 7, 9}), 0);
        auto tail = run("aten.slice.Tensor", {x, iv(0), iv(-3)});
        QCOMPARE(tail.t.shape(), (V{3, 6}));
        QCOMPARE(tail.t.meta.offset, int64_t(12));
        auto all = run("aten.slice.Tensor", {x, iv(0), iv(-10), iv(INT64_MAX)});
        QCOMPARE(all.t.shape(), (V{5, 6}));
        auto none = run("aten.slice.Tensor", {x, iv(1), Value::none(), Value::none(), iv(4)});
        QCOMPARE(none.t.shape(), (V{5, 2}));
        QCOMPARE(none.t.strides(), (V{6, 4}));
        QCOMPARE(run("aten.slice.Tensor", {x, iv(1), iv(7), iv(9)}).t.shape(), (V{5, 0}));
        QCOMPARE(run("aten.slice.Tensor", {x, iv(1), iv(4), iv(2)}).t.shape(), (V{5, 0}));
        QVERIFY(!tryRun("aten.slice.Tensor", {x, iv(1), iv(0), iv(4), iv(0)}).ok());
    }
    void selectNarrowAndAsStrided() {
        Value x = tv({5, 6}, iota(30));
        auto s = run("aten.select.int", {x, iv(1), iv(-2)});
        QCOMPARE(s.t.shape(), (V{5}));
        QCOMPARE(s.t.strides(), (V{6}));
        QCOMPARE(s.t.meta.offset, int64_t(4));
        FX_COMPARE_VEC(values(s), (std::vector<double>{4, 10, 16, 22, 28}), 0);
        QVERIFY(!tryRun("aten.select.int", {x, iv(0), iv(5)}).ok());
        auto n = run("aten.narrow.default", {x, iv(1), iv(-4), iv(3)});
        QCOMPARE(n.t.shape(), (V{5, 3}));
        QCOMPARE(n.t.meta.offset, int64_t(2));
        QVERIFY(!tryRun("aten.narrow.default", {x, iv(1), iv(4), iv(3)}).ok());
        auto a = run("aten.as_strided.default", {x, ilist({2, 2}), ilist({1, 2}), iv(3)});
        FX_COMPARE_VEC(values(a), (std::vector<double>{3, 5, 4, 6}), 0);
        auto oob = tryRun("aten.as_strided.default", {x, ilist({2, 2}), ilist({30, 1})});
        QVERIFY(!oob.ok());
        QVERIFY(oob.error().str().find("out of bounds") != std::string::npos);
    }
    void diagonal() {
        Value x = tv({3, 4}, iota(12));
        FX_COMPARE_VEC(values(run("aten.diagonal.default", {x})), (std::vector<double>{0, 5, 10}), 0);
        FX_COMPARE_VEC(values(run("aten.diagonal.default", {x, iv(1)})), (std::vector<double>{1, 6, 11}), 0);
        auto lower = run("aten.diagonal.default", {x, iv(-2)});
        QCOMPARE(lower.t.strides(), (V{5}));
        FX_COMPARE_VEC(values(lower), (std::vector<double>{8}), 0);
    }
    void splitsAreViews() {
        Value x = tv({5, 6}, iota(30));
        auto parts = run("aten.split.Tensor", {x, iv(4), iv(1)});
        QCOMPARE(parts.list.size(), size_t(2));
        QCOMPARE(parts.list[0].t.shape(), (V{5, 4}));
        QCOMPARE(parts.list[1].t.shape(), (V{5, 2}));
        QCOMPARE(parts.list[1].t.meta.offset, int64_t(4));
        QVERIFY(parts.list[1].t.storage == x.t.storage);
        auto ws = run("aten.split_with_sizes.default", {x, ilist({1, 0, 4}), iv(0)});
        QCOMPARE(ws.list[1].t.shape(), (V{0, 6}));
        QCOMPARE(ws.list[2].t.meta.offset, int64_t(6));
        QVERIFY(!tryRun("aten.split_with_sizes.default", {x, ilist({1, 2}), iv(0)}).ok());
        auto ub = run("aten.unbind.int", {tv({2, 2}, {1, 2, 3, 4}), iv(1)});
        FX_COMPARE_VEC(values(ub.list[1]), (std::vector<double>{2, 4}), 0);
        auto ch = run("aten.chunk.default", {x, iv(4), iv(1)});  // chunks of 2
        QCOMPARE(ch.list.size(), size_t(3));
    }
};

QTEST_GUILESS_MAIN(TestOpsView)
#include "tst_ops_view.moc"
