// Copies and shape-building ops: cat, stack, clone, contiguous, conversions, repeat, padding.
#include "test_util.h"

using namespace fxtest;
using fxray::DType;
using fxray::TensorMeta;
using fxray::Value;
using V = std::vector<int64_t>;

namespace {

Value strided(V shape, V strides, std::vector<double> values, DType dt = DType::Float32) {
    TensorMeta m = TensorMeta::contiguous(std::move(shape), dt);
    m.strides = std::move(strides);
    return Value::ofTensor(fxray::kern::makeTensor(m, values));
}

std::vector<double> iota(int n) {
    std::vector<double> v(n);
    for (int i = 0; i < n; ++i) v[i] = i;
    return v;
}

Value list(std::vector<Value> v) { return Value::ofList(std::move(v)); }

Value memFormat(fxray::MemoryFormat f) {
    Value v;
    v.kind = Value::Kind::MemoryFormat;
    v.memoryFormat = f;
    return v;
}

fxray::Expected<Value> tryRun(std::string_view op, std::vector<Value> args,
                              std::vector<std::pair<std::string, Value>> kw = {}) {
    fxray::ExecContext ctx(0);
    return fxray::invokeOp(op, std::move(args), std::move(kw), &ctx);
}

}  // namespace

class TestOpsShape : public QObject {
    Q_OBJECT
private slots:
    void catPromotesAndSkipsLegacyEmpty() {
        auto r =
            run("aten.cat.default",
                {list({tv({2, 1}, {1, 2}), tv({0}, {}), tv({2, 2}, {0.5, 1.5, 2.5, 3.5}, DType::Float16)}), iv(1)});
        QCOMPARE(r.t.dtype(), DType::Float32);
        QCOMPARE(r.t.shape(), (V{2, 3}));
        QCOMPARE(r.t.strides(), (V{3, 1}));
        FX_COMPARE_VEC(values(r), (std::vector<double>{1, 0.5, 1.5, 2, 2.5, 3.5}), 0);
        auto ints = run("aten.cat.default", {list({tv({2}, {1, 2}, DType::Int64), tv({1}, {3}, DType::Bool)})});
        QCOMPARE(ints.t.dtype(), DType::Int64);
        FX_COMPARE_VEC(values(ints), (std::vector<double>{1, 2, 1}), 0);
    }
    void catKeepsChannelsLast() {
        // [N, C, H, W] = [1, 2, 1, 2] stored channels-last: strides [4, 1, 4, 2].
        Value a = strided({1, 2, 1, 2}, {4, 1, 4, 2}, {1, 2, 3, 4});
        auto r = run("aten.cat.default", {list({a, a}), iv(1)});
        QCOMPARE(r.t.shape(), (V{1, 4, 1, 2}));
        QCOMPARE(r.t.strides(), (V{8, 1, 8, 4}));
        FX_COMPARE_VEC(values(r), (std::vector<double>{1, 2, 3, 4, 1, 2, 3, 4}), 0);
        // Mixed formats fall back to contiguous.
        auto mixed = run("aten.cat.default", {list({a, tv({1, 2, 1, 2}, iota(4))}), iv(1)});
        QCOMPARE(mixed.t.strides(), (V{8, 2, 2, 1}));
    }
    void catRejectsBadShapes() {
        auto r = tryRun("aten.cat.default", {list({tv({2, 2}, iota(4)), tv({3, 3}, iota(9))}), iv(1)});
        QVERIFY(!r.ok());
        QVERIFY(r.error().str().find("sizes of tensors must match") != std::string::npos);
        QVERIFY(!tryRun("aten.cat.default", {list({Value::ofTensor(tensor({}, {1}))})}).ok());
    }
    void stackInsertsDim() {
        Value a = tv({2}, {1, 2}), b = tv({2}, {3, 4});
        auto s0 = run("aten.stack.default", {list({a, b})});
        QCOMPARE(s0.t.shape(), (V{2, 2}));
        FX_COMPARE_VEC(values(s0), (std::vector<double>{1, 2, 3, 4}), 0);
        auto s1 = run("aten.stack.default", {list({a, b}), iv(-1)});
        QCOMPARE(s1.t.shape(), (V{2, 2}));
        FX_COMPARE_VEC(values(s1), (std::vector<double>{1, 3, 2, 4}), 0);
        QVERIFY(!tryRun("aten.stack.default", {list({a, tv({3}, iota(3))})}).ok());
    }
    void clonePreservesDenseLayouts() {
        auto t = run("aten.t.default", {tv({2, 3}, iota(6))});  // strides [1, 3]
        auto c = run("aten.clone.default", {t});
        QCOMPARE(c.t.strides(), (V{1, 3}));
        QVERIFY(c.t.storage != t.t.storage);
        FX_COMPARE_VEC(values(c), values(t), 0);
        auto cc = run("aten.clone.default", {t}, {{"memory_format", memFormat(fxray::MemoryFormat::Contiguous)}});
        QCOMPARE(cc.t.strides(), (V{2, 1}));
        // A non-dense input gets a dense layout in its own dim order.
        auto sl = run("aten.slice.Tensor", {t, iv(0), iv(0), iv(3), iv(2)});  // [2, 2] strides [2, 3]
        QCOMPARE(run("aten.clone.default", {sl}).t.strides(), (V{1, 2}));
    }
    void contiguousAliasesWhenPossible() {
        Value x = tv({2, 3}, iota(6));
        QVERIFY(run("aten.contiguous.default", {x}).t.storage == x.t.storage);
        auto t = run("aten.t.default", {x});
        auto c = run("aten.contiguous.default", {t});
        QCOMPARE(c.t.strides(), (V{2, 1}));
        FX_COMPARE_VEC(values(c), (std::vector<double>{0, 3, 1, 4, 2, 5}), 0);
    }
    void conversionsRoundOnce() {
        Value x = tv({3}, {0.1, -1.7, 2.5});
        auto h = run("aten._to_copy.default", {x}, {{"dtype", Value::ofDType(DType::Float16)}});
        QCOMPARE(h.t.dtype(), DType::Float16);
        // 0.1f rounds to 0.0999755859375 in half precision.
        FX_COMPARE_VEC(values(h), (std::vector<double>{0.0999755859375, -1.7001953125, 2.5}), 0);
        auto i = run("aten.to.dtype", {x, Value::ofDType(DType::Int64)});
        FX_COMPARE_VEC(values(i), (std::vector<double>{0, -1, 2}), 0);
        auto b = run("aten._to_copy.default", {tv({3}, {0, -2, 0.5})}, {{"dtype", Value::ofDType(DType::Bool)}});
        FX_COMPARE_VEC(values(b), (std::vector<double>{0, 1, 1}), 0);
    }
    void toAliasesUnlessCopying() {
        Value x = tv({2}, {1, 2});
        QVERIFY(run("aten.to.dtype", {x, Value::ofDType(DType::Float32)}).t.storage == x.t.storage);
        auto c = run("aten.to.dtype", {x, Value::ofDType(DType::Float32), bv(false), bv(true)});
        QVERIFY(c.t.storage != x.t.storage);
        auto o = run("aten.to.other", {x, tv({1}, {0}, DType::Float64)});
        QCOMPARE(o.t.dtype(), DType::Float64);
        auto ta = run("aten.type_as.default", {x, tv({1}, {0}, DType::Int32)});
        QCOMPARE(ta.t.dtype(), DType::Int32);
    }
    void repeatTiles() {
        auto r = run("aten.repeat.default", {tv({2}, {1, 2}), ilist({2, 2})});
        QCOMPARE(r.t.shape(), (V{2, 4}));
        FX_COMPARE_VEC(values(r), (std::vector<double>{1, 2, 1, 2, 1, 2, 1, 2}), 0);
        QVERIFY(!tryRun("aten.repeat.default", {tv({2, 2}, iota(4)), ilist({2})}).ok());
    }
    void constantPad() {
        Value x = tv({2, 2}, {1, 2, 3, 4});
        auto p = run("aten.constant_pad_nd.default", {x, ilist({1, 0}), dv(9)});
        QCOMPARE(p.t.shape(), (V{2, 3}));
        FX_COMPARE_VEC(values(p), (std::vector<double>{9, 1, 2, 9, 3, 4}), 0);
        // Pads apply from the last dim; negative pads crop.
        auto q = run("aten.constant_pad_nd.default", {x, ilist({0, -1, 1, 0})});
        QCOMPARE(q.t.shape(), (V{3, 1}));
        FX_COMPARE_VEC(values(q), (std::vector<double>{0, 1, 3}), 0);
        auto pd = run("aten.pad.default", {x, ilist({0, 1})}, {{"value", dv(-1)}});
        FX_COMPARE_VEC(values(pd), (std::vector<double>{1, 2, -1, 3, 4, -1}), 0);
        Value mode;
        mode.kind = Value::Kind::String;
        mode.s = "reflect";
        QVERIFY(!tryRun("aten.pad.default", {x, ilist({1, 1}), mode}).ok());
        QVERIFY(!tryRun("aten.constant_pad_nd.default", {x, ilist({1})}).ok());
    }
};

QTEST_GUILESS_MAIN(TestOpsShape)
#include "tst_ops_shape.moc"
