// Gather/scatter, index_select/index_add, advanced indexing, embedding, masked_fill.
#include "test_util.h"

using namespace fxtest;
using fxray::DType;
using fxray::TensorMeta;
using fxray::Value;
using V = std::vector<int64_t>;

namespace {

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

Value idx(V shape, std::vector<double> v) { return tv(std::move(shape), std::move(v), DType::Int64); }
Value list(std::vector<Value> v) { return Value::ofList(std::move(v)); }

fxray::Expected<Value> tryRun(std::string_view op, std::vector<Value> args,
                              std::vector<std::pair<std::string, Value>> kw = {}) {
    fxray::ExecContext ctx(0);
    return fxray::invokeOp(op, std::move(args), std::move(kw), &ctx);
}

}  // namespace

class TestOpsIndexing : public QObject {
    Q_OBJECT
private slots:
    void gatherAcceptsAnEmptyIndexOfAnyDtype() {
        // PyTorch checks the index dtype only when there is an index (OpInfo's gather sample 3
        // passes an empty uint8 one); scatter_add, its backward, likewise.
        Value x = tv({5}, iota(5));
        auto g = run("aten.gather.default", {x, iv(0), tv({0}, {}, DType::UInt8)});
        QCOMPARE(g.t.numel(), int64_t(0));
        auto s = run("aten.scatter_add.default", {x, iv(0), tv({0}, {}, DType::UInt8), tv({0}, {})});
        FX_COMPARE_VEC(values(s), iota(5), 0);
        QVERIFY(!tryRun("aten.gather.default", {x, iv(0), tv({1}, {0}, DType::UInt8)}).ok());
    }
    void repeatInterleaveRepeatsEachIndex() {
        auto r = run("aten.repeat_interleave.Tensor", {tv({3}, {2, 0, 3}, DType::Int64)});
        QCOMPARE(r.t.dtype(), DType::Int64);
        FX_COMPARE_VEC(values(r), (std::vector<double>{0, 0, 2, 2, 2}), 0);
        QVERIFY(!tryRun("aten.repeat_interleave.Tensor", {tv({2}, {1, -1}, DType::Int64)}).ok());
        auto sized = tryRun("aten.repeat_interleave.Tensor", {tv({2}, {1, 1}, DType::Int64)}, {{"output_size", iv(3)}});
        QVERIFY(!sized.ok());
        QVERIFY2(sized.error().str().find("does not match") != std::string::npos, sized.error().str().c_str());
    }
    void indexAddInPlaceWritesSelf() {
        Value self = tv({3}, {0, 0, 0});
        auto r = run("aten.index_add_.default", {self, iv(0), tv({3}, {0, 2, 0}, DType::Int64), tv({3}, {1, 2, 3})});
        FX_COMPARE_VEC(values(self), (std::vector<double>{4, 0, 2}), 0);
        QVERIFY(r.t.storage == self.t.storage);
    }
    void gatherAlongDim() {
        Value x = tv({2, 3}, {1, 2, 3, 4, 5, 6});
        auto r = run("aten.gather.default", {x, iv(1), idx({2, 2}, {2, 0, 1, 1})});
        QCOMPARE(r.t.shape(), (V{2, 2}));
        FX_COMPARE_VEC(values(r), (std::vector<double>{3, 1, 5, 5}), 0);
        auto bad = tryRun("aten.gather.default", {x, iv(1), idx({2, 1}, {3, 0})});
        QVERIFY(!bad.ok());
        QVERIFY(bad.error().str().find("index 3 is out of bounds for dimension 1 with size 3") != std::string::npos);
        // int32 indices are accepted (PyTorch 2.11's OpInfo records them); a float index is not.
        auto r32 = run("aten.gather.default", {x, iv(1), tv({2, 1}, {2, 0}, DType::Int32)});
        FX_COMPARE_VEC(values(r32), (std::vector<double>{3, 4}), 0);
        QVERIFY(!tryRun("aten.gather.default", {x, iv(1), tv({2, 1}, {0, 0}, DType::Float32)}).ok());
    }
    void scatterVariants() {
        Value z = tv({2, 3}, std::vector<double>(6, 0));
        Value i = idx({1, 3}, {1, 0, 1});
        auto s = run("aten.scatter.src", {z, iv(0), i, tv({1, 3}, {7, 8, 9})});
        FX_COMPARE_VEC(values(s), (std::vector<double>{0, 8, 0, 7, 0, 9}), 0);
        auto v = run("aten.scatter.value", {z, iv(0), i, dv(5)});
        FX_COMPARE_VEC(values(v), (std::vector<double>{0, 5, 0, 5, 0, 5}), 0);
        auto a =
            run("aten.scatter_add.default", {tv({3}, {1, 1, 1}), iv(0), idx({4}, {0, 2, 0, 0}), tv({4}, {1, 2, 3, 4})});
        FX_COMPARE_VEC(values(a), (std::vector<double>{9, 1, 3}), 0);
    }
    void indexSelectAndIndexAdd() {
        Value x = tv({3, 2}, iota(6));
        auto s = run("aten.index_select.default", {x, iv(0), idx({3}, {2, 0, 2})});
        QCOMPARE(s.t.shape(), (V{3, 2}));
        FX_COMPARE_VEC(values(s), (std::vector<double>{4, 5, 0, 1, 4, 5}), 0);
        auto c = run("aten.index_select.default", {x, iv(1), idx({1}, {1})});
        FX_COMPARE_VEC(values(c), (std::vector<double>{1, 3, 5}), 0);
        auto a =
            run("aten.index_add.default", {x, iv(0), idx({2}, {2, 2}), tv({2, 2}, {1, 1, 10, 10})}, {{"alpha", iv(2)}});
        FX_COMPARE_VEC(values(a), (std::vector<double>{0, 1, 2, 3, 26, 27}), 0);
        QVERIFY(!tryRun("aten.index_add.default", {x, iv(0), idx({2}, {0, 1}), tv({3, 2}, iota(6))}).ok());
        QVERIFY(!tryRun("aten.index_select.default", {x, iv(0), idx({1}, {-1})}).ok());
    }
    void advancedIndexing() {
        Value x = tv({2, 3, 4}, iota(24));
        // x[:, [2, 0]] -> [2, 2, 4]
        auto a = run("aten.index.Tensor", {x, list({Value::none(), idx({2}, {2, 0})})});
        QCOMPARE(a.t.shape(), (V{2, 2, 4}));
        FX_COMPARE_VEC(head(a, 5), (std::vector<double>{8, 9, 10, 11, 0}), 0);
        // x[[1, 0], :, [3, -1]]: non-adjacent indexed dims go first -> [2, 3]
        auto b = run("aten.index.Tensor", {x, list({idx({2}, {1, 0}), Value::none(), idx({2}, {3, -1})})});
        QCOMPARE(b.t.shape(), (V{2, 3}));
        FX_COMPARE_VEC(values(b), (std::vector<double>{15, 19, 23, 3, 7, 11}), 0);
        // broadcast index tensors: x[[[0], [1]], [1, 2]] -> [2, 2, 4]
        auto c = run("aten.index.Tensor", {x, list({idx({2, 1}, {0, 1}), idx({2}, {1, 2})})});
        QCOMPARE(c.t.shape(), (V{2, 2, 4}));
        QCOMPARE(values(c)[0], 4.0);
        QCOMPARE(values(c)[12], 20.0);
        // a boolean mask selects by its true elements
        auto m = run("aten.index.Tensor", {tv({2, 2}, {1, 2, 3, 4}), list({tv({2, 2}, {1, 0, 0, 1}, DType::Bool)})});
        FX_COMPARE_VEC(values(m), (std::vector<double>{1, 4}), 0);
        auto bad = tryRun("aten.index.Tensor", {x, list({idx({1}, {2})})});
        QVERIFY(!bad.ok());
        QVERIFY(bad.error().str().find("out of bounds") != std::string::npos);
    }
    void indexOutputFollowsSelfLayout() {
        // self [6, 4, 5] laid out with dim 0 innermost; x[:, idx] keeps that order (PyTorch 2.11).
        TensorMeta m = TensorMeta::contiguous({6, 4, 5}, DType::Float32);
        m.strides = {1, 30, 6};
        Value self = Value::ofTensor(fxray::kern::makeTensor(m, iota(120)));
        auto r = run("aten.index.Tensor", {self, list({Value::none(), idx({3}, {0, 2, 1})})});
        QCOMPARE(r.t.shape(), (V{6, 3, 5}));
        QCOMPARE(r.t.strides(), (V{1, 6, 18}));
        QCOMPARE(values(r)[5], 10.0);  // r[0, 1, 0] = self[0, 2, 0] = 2 * 5
    }
    void indexPut() {
        Value x = tv({3}, {0, 0, 0});
        auto acc = run("aten.index_put.default", {x, list({idx({3}, {0, 2, 0})}), tv({3}, {1, 2, 3}), bv(true)});
        FX_COMPARE_VEC(values(acc), (std::vector<double>{4, 0, 2}), 0);
        FX_COMPARE_VEC(values(x), (std::vector<double>{0, 0, 0}), 0);  // functional
        auto set = run("aten.index_put.default", {x, list({idx({2}, {1, -1})}), tv({}, {5})});
        FX_COMPARE_VEC(values(set), (std::vector<double>{0, 5, 5}), 0);
        auto inplace = run("aten.index_put_.default", {x, list({idx({1}, {1})}), tv({1}, {7})});
        QVERIFY(inplace.t.storage == x.t.storage);
        FX_COMPARE_VEC(values(x), (std::vector<double>{0, 7, 0}), 0);
        QVERIFY(!tryRun("aten.index_put.default", {x, list({idx({1}, {1})}), tv({1}, {7}, DType::Float16)}).ok());
    }
    void embeddingAndBackward() {
        Value w = tv({4, 2}, iota(8));
        auto e = run("aten.embedding.default", {w, idx({2, 2}, {3, 0, 1, 3})});
        QCOMPARE(e.t.shape(), (V{2, 2, 2}));
        FX_COMPARE_VEC(values(e), (std::vector<double>{6, 7, 0, 1, 2, 3, 6, 7}), 0);
        QVERIFY(!tryRun("aten.embedding.default", {w, idx({1}, {4})}).ok());

        Value g = tv({3, 2}, {1, 1, 2, 2, 4, 4});
        Value ids = idx({3}, {1, 1, 0});
        auto plain = run("aten.embedding_dense_backward.default", {g, ids, iv(3), iv(-1), bv(false)});
        QCOMPARE(plain.t.shape(), (V{3, 2}));
        FX_COMPARE_VEC(values(plain), (std::vector<double>{4, 4, 3, 3, 0, 0}), 0);
        // padding_idx rows get no gradient; scale_grad_by_freq divides by the index's count.
        auto scaled = run("aten.embedding_dense_backward.default", {g, ids, iv(3), iv(0), bv(true)});
        FX_COMPARE_VEC(values(scaled), (std::vector<double>{0, 0, 1.5, 1.5, 0, 0}), 0);
    }
    void maskedFill() {
        Value x = tv({2, 2}, {1, 2, 3, 4});
        auto r = run("aten.masked_fill.Scalar", {x, tv({2}, {1, 0}, DType::Bool), dv(-1)});
        FX_COMPARE_VEC(values(r), (std::vector<double>{-1, 2, -1, 4}), 0);
        auto t = run("aten.masked_fill.Tensor", {x, tv({2, 1}, {0, 1}, DType::Bool), tv({}, {9})});
        FX_COMPARE_VEC(values(t), (std::vector<double>{1, 2, 9, 9}), 0);
        auto bad = tryRun("aten.masked_fill.Scalar", {x, tv({2}, {1, 0}), dv(0)});
        QVERIFY(!bad.ok());
        QVERIFY(bad.error().str().find("boolean") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestOpsIndexing)
#include "tst_ops_indexing.moc"
