// Aliases, copies, fills, *_like factories and _assert_tensor_metadata: storage sharing,
// layouts, dtype conversions and errors.
#include "test_util.h"

using namespace fxtest;
using fxray::DType;
using fxray::Value;

namespace {

Value strided(std::vector<int64_t> shape, std::vector<int64_t> strides, std::vector<double> storage,
              DType dt = DType::Float32, int64_t offset = 0) {
    fxray::Tensor base = tensor({static_cast<int64_t>(storage.size())}, storage, dt);
    fxray::TensorMeta m = base.meta;
    m.shape = std::move(shape);
    m.strides = std::move(strides);
    m.offset = offset;
    return Value::ofTensor(base.view(m));
}

Value memFormat(fxray::MemoryFormat f) {
    Value v;
    v.kind = Value::Kind::MemoryFormat;
    v.memoryFormat = f;
    return v;
}

bool fails(std::string_view op, std::vector<Value> args, std::vector<std::pair<std::string, Value>> kw = {}) {
    fxray::ExecContext ctx(0);
    return !fxray::invokeOp(op, std::move(args), std::move(kw), &ctx).ok();
}

using Shape = std::vector<int64_t>;

}  // namespace

class TestOpsMisc : public QObject {
    Q_OBJECT
private slots:
    void detachAndAliasShareStorage() {
        auto x = strided({2, 2}, {1, 2}, {0, 1, 2, 3, 4}, DType::Float32, 1);
        for (const char* op : {"aten.detach.default", "aten.alias.default"}) {
            auto r = run(op, {x});
            QCOMPARE(r.t.storage.get(), x.t.storage.get());
            QCOMPARE(r.t.strides(), (Shape{1, 2}));
            QCOMPARE(r.t.meta.offset, int64_t{1});
            FX_COMPARE_VEC(values(r), (std::vector<double>{1, 3, 2, 4}), 0);
        }
        const auto* info = fxray::OpRegistry::instance().find("aten.detach.default");
        QVERIFY(info && info->aliasesInput && !info->inplace);
        auto d = run("aten.detach_.default", {x});
        QCOMPARE(d.t.storage.get(), x.t.storage.get());
        const auto* inplace = fxray::OpRegistry::instance().find("aten.detach_.default");
        QVERIFY(inplace && inplace->inplace && inplace->aliasesInput);
    }
    void liftFreshCopyIsAContiguousCopy() {
        auto x = strided({2, 2}, {1, 2}, {1, 2, 3, 4});
        auto r = run("aten.lift_fresh_copy.default", {x});
        QVERIFY(r.t.storage.get() != x.t.storage.get());
        QCOMPARE(r.t.strides(), (Shape{2, 1}));
        FX_COMPARE_VEC(values(r), (std::vector<double>{1, 3, 2, 4}), 0);
        auto s = run("aten.lift_fresh_copy.default", {tv({}, {3})});
        QCOMPARE(s.t.shape(), Shape{});
        FX_COMPARE_VEC(values(s), (std::vector<double>{3}), 0);
    }
    void assertTensorMetadataNeverFails() {
        auto r = run("aten._assert_tensor_metadata.default", {tv({1}, {1})}, {{"dtype", Value::ofDType(DType::Int64)}});
        QVERIFY(r.isNone());
        auto m = fxray::invokeOp("aten._assert_tensor_metadata.default", {tv({1}, {1})});
        QVERIFY(m.ok() && m->isNone());
    }
    void copyBroadcastsConvertsAndKeepsSelfStrides() {
        auto self = tv({2, 2}, {1, 2, 3, 4});
        auto r = run("aten.copy.default", {self, tv({2}, {5, 6}, DType::Int64)});
        QCOMPARE(r.t.dtype(), DType::Float32);
        QVERIFY(r.t.storage.get() != self.t.storage.get());
        FX_COMPARE_VEC(values(r), (std::vector<double>{5, 6, 5, 6}), 0);
        FX_COMPARE_VEC(values(self), (std::vector<double>{1, 2, 3, 4}), 0);
        auto i = run("aten.copy.default", {tv({2}, {1, 2}, DType::Int64), tv({2}, {2.7, -2.7})});
        FX_COMPARE_VEC(values(i), (std::vector<double>{2, -2}), 0);
        // Self's strides are kept, even non-dense ones (clone_preserve_strides).
        auto sliced = strided({2, 2}, {4, 2}, {0, 0, 0, 0, 0, 0, 0, 0});
        auto s = run("aten.copy.default", {sliced, tv({2, 2}, {1, 2, 3, 4})});
        QCOMPARE(s.t.strides(), (Shape{4, 2}));
        FX_COMPARE_VEC(values(s), (std::vector<double>{1, 2, 3, 4}), 0);
        // An expanded self overlaps itself: the copy is dense instead.
        auto expanded = strided({2, 3}, {0, 1}, {0, 0, 0});
        auto e = run("aten.copy.default", {expanded, tv({2, 3}, {1, 2, 3, 4, 5, 6})});
        QCOMPARE(e.t.strides(), (Shape{3, 1}));
        FX_COMPARE_VEC(values(e), (std::vector<double>{1, 2, 3, 4, 5, 6}), 0);
        QVERIFY(fails("aten.copy.default", {self, tv({3}, {1, 2, 3})}));
    }
    void copyInplaceWritesIntoSelf() {
        auto self = tv({2}, {1, 2}, DType::Int64);
        auto r = run("aten.copy_.default", {self, tv({1}, {7.9})});
        QCOMPARE(r.t.storage.get(), self.t.storage.get());
        FX_COMPARE_VEC(values(self), (std::vector<double>{7, 7}), 0);
        QVERIFY(fails("aten.copy_.default", {self, tv({3}, {1, 2, 3})}));
    }
    void fillConvertsToSelfDtype() {
        FX_COMPARE_VEC(values(run("aten.fill.Scalar", {tv({2}, {1, 2}, DType::Int64), dv(2.7)})),
                       (std::vector<double>{2, 2}), 0);
        FX_COMPARE_VEC(values(run("aten.fill.Scalar", {tv({2}, {1, 2}, DType::Int64), dv(-2.7)})),
                       (std::vector<double>{-2, -2}), 0);
        auto b = run("aten.fill.Scalar", {tv({2}, {1, 0}, DType::Bool), dv(0.5)});
        QCOMPARE(b.t.dtype(), DType::Bool);
        FX_COMPARE_VEC(values(b), (std::vector<double>{1, 1}), 0);
        auto t = run("aten.fill.Scalar", {strided({2, 3}, {1, 2}, {0, 0, 0, 0, 0, 0}), iv(3)});
        QCOMPARE(t.t.strides(), (Shape{1, 2}));
    }
    void likeFactoriesPreserveLayout() {
        auto tr = strided({2, 3}, {1, 2}, {0, 0, 0, 0, 0, 0});
        auto z = run("aten.zeros_like.default", {tr});
        QCOMPARE(z.t.strides(), (Shape{1, 2}));
        FX_COMPARE_VEC(values(z), (std::vector<double>(6, 0.0)), 0);
        auto o = run("aten.ones_like.default", {tr}, {{"dtype", Value::ofDType(DType::Float16)}});
        QCOMPARE(o.t.dtype(), DType::Float16);
        FX_COMPARE_VEC(values(o), (std::vector<double>(6, 1.0)), 0);
        auto c = run("aten.empty_like.default", {tr}, {{"memory_format", memFormat(fxray::MemoryFormat::Contiguous)}});
        QCOMPARE(c.t.strides(), (Shape{3, 1}));
        // A contiguous input with an odd size-1 stride gives plain contiguous strides.
        auto odd = strided({2, 1, 3}, {3, 1, 1}, {0, 0, 0, 0, 0, 0});
        QCOMPARE(run("aten.zeros_like.default", {odd}).t.strides(), (Shape{3, 3, 1}));
        // A sliced input gets a dense layout in its own dim order.
        auto sliced = strided({2, 2}, {4, 2}, {0, 0, 0, 0, 0, 0, 0, 0});
        QCOMPARE(run("aten.empty_like.default", {sliced}).t.strides(), (Shape{2, 1}));
        auto cl = run("aten.zeros_like.default", {tv({1, 2, 2, 2}, std::vector<double>(8, 0.0))},
                      {{"memory_format", memFormat(fxray::MemoryFormat::ChannelsLast)}});
        QCOMPARE(cl.t.strides(), (Shape{8, 1, 4, 2}));
        QVERIFY(
            fails("aten.zeros_like.default", {tr}, {{"memory_format", memFormat(fxray::MemoryFormat::ChannelsLast)}}));
    }
    void fullLikeUsesSelfDtype() {
        auto i = run("aten.full_like.default", {tv({2}, {1, 2}, DType::Int64), dv(2.5)});
        QCOMPARE(i.t.dtype(), DType::Int64);
        FX_COMPARE_VEC(values(i), (std::vector<double>{2, 2}), 0);
        auto b = run("aten.full_like.default", {tv({2}, {1, 2}, DType::Int64), iv(2)},
                     {{"dtype", Value::ofDType(DType::Bool)}});
        QCOMPARE(b.t.dtype(), DType::Bool);
        FX_COMPARE_VEC(values(b), (std::vector<double>{1, 1}), 0);
    }
};

QTEST_GUILESS_MAIN(TestOpsMisc)
#include "tst_ops_misc.moc"
