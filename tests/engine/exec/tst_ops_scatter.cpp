// Scatters with reductions, the index_* family, masked_scatter, _unsafe_masked_index and
// take/put: values (reductions in double, integer mean by floor division), layouts, and the
// error messages of bad arguments.
#include "test_util.h"

#include <cstdint>

using namespace fxtest;
using fxray::DType;
using fxray::Value;
using V = std::vector<int64_t>;
using D = std::vector<double>;

namespace {

Value str(std::string s) {
    Value v;
    v.kind = Value::Kind::String;
    v.s = std::move(s);
    return v;
}

Value idx(V shape, D values) { return tv(std::move(shape), std::move(values), DType::Int64); }

Value mask(V shape, D values) { return tv(std::move(shape), std::move(values), DType::Bool); }

/// The op fails with a message containing `what`.
bool failsWith(std::string_view op, std::vector<Value> args, const std::string& what,
               std::vector<std::pair<std::string, Value>> kw = {}) {
    fxray::ExecContext ctx(0);
    auto r = fxray::invokeOp(op, std::move(args), std::move(kw), &ctx);
    if (r.ok()) return false;
    if (r.error().str().find(what) == std::string::npos) {
        qWarning("%s", r.error().str().c_str());
        return false;
    }
    return true;
}

}  // namespace

class TestOpsScatter : public QObject {
    Q_OBJECT
private slots:
    void scatterReduce() {
        Value self = tv({4}, {10, 20, 30, 40});
        Value index = idx({3}, {0, 0, 2});
        Value src = tv({3}, {1, 2, 7});
        FX_COMPARE_VEC(values(run("aten.scatter_reduce.two", {self, iv(0), index, src, str("sum")})),
                       (D{13, 20, 37, 40}), 0);
        FX_COMPARE_VEC(values(run("aten.scatter_reduce.two", {self, iv(0), index, src, str("amax")},
                                  {{"include_self", bv(false)}})),
                       (D{2, 20, 7, 40}), 0);
        FX_COMPARE_VEC(values(run("aten.scatter_reduce.two", {self, iv(0), index, src, str("mean")})),
                       (D{13.0 / 3, 20, 18.5, 40}), 1e-6);
        // Integer mean divides with floor.
        Value iself = idx({4}, {10, 20, 30, 40});
        FX_COMPARE_VEC(values(run("aten.scatter_reduce.two", {iself, iv(0), index, idx({3}, {1, 2, 7}), str("mean")})),
                       (D{4, 20, 18, 40}), 0);
        QVERIFY(failsWith("aten.scatter_reduce.two", {self, iv(0), index, src, str("max")},
                          "reduce argument must be either sum, prod, mean, amax or amin"));
        QVERIFY(failsWith("aten.scatter_reduce.two", {self, iv(0), idx({1}, {4}), tv({1}, {1}), str("sum")},
                          "index 4 is out of bounds for dimension 0 with size 4"));
    }
    void legacyScatterReduceAndInplace() {
        Value self = tv({4}, {10, 20, 30, 40});
        FX_COMPARE_VEC(values(run("aten.scatter.reduce", {self, iv(0), idx({3}, {0, 0, 2}), tv({3}, {1, 2, 7})},
                                  {{"reduce", str("multiply")}})),
                       (D{20, 20, 210, 40}), 0);
        Value z = idx({3}, {0, 0, 0});
        auto r = run("aten.scatter_.value", {z, iv(-1), idx({1}, {2}), iv(1)});
        QVERIFY(r.t.storage == z.t.storage);
        FX_COMPARE_VEC(values(z), (D{0, 0, 1}), 0);
        QVERIFY(failsWith("aten.scatter.reduce", {self, iv(0), idx({1}, {0}), tv({1}, {1})}, "add or multiply",
                          {{"reduce", str("sum")}}));
    }
    void indexReduceCopyFill() {
        Value self = tv({3, 2}, {0, 1, 2, 3, 4, 5});
        auto p =
            run("aten.index_reduce.default", {self, iv(0), idx({2}, {2, 2}), tv({2, 2}, {2, 3, 4, 5}), str("prod")});
        FX_COMPARE_VEC(values(p), (D{0, 1, 2, 3, 32, 75}), 0);
        auto m =
            run("aten.index_reduce.default", {self, iv(0), idx({2}, {2, 2}), tv({2, 2}, {2, 3, 4, 5}), str("mean")},
                {{"include_self", bv(false)}});
        FX_COMPARE_VEC(values(m), (D{0, 1, 2, 3, 3, 4}), 0);
        auto c = run("aten.index_copy.default", {self, iv(0), idx({2}, {2, 0}), tv({2, 2}, {9, 8, 7, 6})});
        FX_COMPARE_VEC(values(c), (D{7, 6, 2, 3, 9, 8}), 0);
        auto f = run("aten.index_fill.int_Scalar", {self, iv(1), idx({1}, {-1}), dv(-2.5)});
        FX_COMPARE_VEC(values(f), (D{0, -2.5, 2, -2.5, 4, -2.5}), 0);
        QVERIFY(failsWith("aten.index_reduce.default",
                          {self, iv(0), idx({1}, {0}), tv({2, 2}, {1, 1, 1, 1}), str("prod")},
                          "Number of indices (1) should be equal to source.size(dim) (2)"));
        QVERIFY(failsWith("aten.index_reduce.default", {self, iv(0), idx({1}, {0}), tv({1, 2}, {1, 1}), str("sum")},
                          "Expected reduce to be one of prod, mean, amax or amin"));
        QVERIFY(failsWith("aten.index_fill.int_Tensor", {self, iv(0), idx({1}, {0}), tv({1}, {1})},
                          "0-dimensional value tensor"));
    }
    void maskedScatterAndBackward() {
        auto r = run("aten.masked_scatter.default", {tv({2, 2}, {0, 0, 0, 0}), mask({2}, {1, 0}), tv({3}, {5, 6, 7})});
        QCOMPARE(r.t.shape(), (V{2, 2}));
        FX_COMPARE_VEC(values(r), (D{5, 0, 6, 0}), 0);
        auto b = run("aten.masked_scatter_backward.default", {tv({2, 2}, {1, 2, 3, 4}), mask({2}, {0, 1}), ilist({5})});
        FX_COMPARE_VEC(values(b), (D{2, 4, 0, 0, 0}), 0);
        QVERIFY(failsWith("aten.masked_scatter.default", {tv({2}, {0, 0}), mask({2}, {1, 1}), tv({1}, {5})},
                          "Number of elements of source < number of ones in mask"));
    }
    void unsafeMaskedIndexIgnoresMaskedOutIndices() {
        Value self = tv({3}, {1, 2, 3});
        auto r = run("aten._unsafe_masked_index.default",
                     {self, mask({4}, {1, 0, 1, 0}), Value::ofList({idx({4}, {2, 7, 0, -9})}), dv(-1)});
        FX_COMPARE_VEC(values(r), (D{3, -1, 1, -1}), 0);
        auto p =
            run("aten._unsafe_masked_index_put_accumulate.default",
                {self, mask({4}, {1, 0, 1, 1}), Value::ofList({idx({4}, {2, 7, 0, 2})}), tv({4}, {10, 20, 30, 40})});
        FX_COMPARE_VEC(values(p), (D{31, 2, 53}), 0);
        QVERIFY(failsWith("aten._unsafe_masked_index.default",
                          {self, idx({1}, {1}), Value::ofList({idx({1}, {0})}), dv(0)}, "boolean masks"));
    }
    void takeAndPutIndexTheFlatTensor() {
        Value x = tv({2, 3}, {0, 1, 2, 3, 4, 5});
        auto t = run("aten.take.default", {x, idx({2, 2}, {-1, 0, 3, 2})});
        QCOMPARE(t.t.shape(), (V{2, 2}));
        FX_COMPARE_VEC(values(t), (D{5, 0, 3, 2}), 0);
        auto p = run("aten.put.default", {x, idx({3}, {-1, 0, -1}), tv({3}, {1, 2, 3}), bv(true)});
        FX_COMPARE_VEC(values(p), (D{2, 1, 2, 3, 4, 9}), 0);
        QVERIFY(failsWith("aten.take.default", {x, idx({1}, {6})},
                          "out of range: tried to access index 6 on a tensor of 6"));
        QVERIFY(failsWith("aten.put.default", {x, idx({2}, {0, 1}), tv({1}, {1})},
                          "Expected source and index to have the same number of elements"));
    }
};

QTEST_GUILESS_MAIN(TestOpsScatter)
#include "tst_ops_scatter.moc"
