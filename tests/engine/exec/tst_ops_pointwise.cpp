// Hand-computed expectations for the pointwise ops (values, dtypes, output layouts, errors).
#include "test_util.h"

#include <cmath>
#include <limits>

using namespace fxtest;
using fxray::DType;
using fxray::Value;

namespace {

/// A strided view over `storage` (values in storage order).
Value strided(std::vector<int64_t> shape, std::vector<int64_t> strides, std::vector<double> storage,
              DType dt = DType::Float32) {
    fxray::Tensor base = tensor({static_cast<int64_t>(storage.size())}, storage, dt);
    fxray::TensorMeta m = base.meta;
    m.shape = std::move(shape);
    m.strides = std::move(strides);
    return Value::ofTensor(base.view(m));
}

Value str(const char* s) {
    Value v;
    v.kind = Value::Kind::String;
    v.s = s;
    return v;
}

/// Runs an op on meta tensors only (shape inference).
fxray::Expected<Value> meta(std::string_view op, std::vector<Value> args,
                            std::vector<std::pair<std::string, Value>> kw = {}) {
    return fxray::invokeOp(op, std::move(args), std::move(kw));
}

/// Runs an op for real and expects a failure.
bool fails(std::string_view op, std::vector<Value> args, std::vector<std::pair<std::string, Value>> kw = {}) {
    fxray::ExecContext ctx(0);
    return !fxray::invokeOp(op, std::move(args), std::move(kw), &ctx).ok();
}

const double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace

class TestOpsPointwise : public QObject {
    Q_OBJECT
private slots:
    /// A contiguous [2,1,3] input whose size-1 dim has stride 1: PyTorch's fast path gives the
    /// output plain row-major strides [3,3,1] (measured with fake tensors in PyTorch 2.11).
    void contiguousInputWithOddSize1StrideGivesRowMajorOutput() {
        fxray::TensorMeta m = fxray::TensorMeta::contiguous({2, 1, 3}, DType::Float32);
        m.strides = {3, 1, 1};
        auto x = fxray::Value::ofTensor(fxray::kern::makeTensor(m, {1, 2, 3, 4, 5, 6}));
        auto r = run("aten.add.Tensor", {x, dv(1.0)});
        QCOMPARE(r.t.strides(), (std::vector<int64_t>{3, 3, 1}));
        FX_COMPARE_VEC(values(r), (std::vector<double>{2, 3, 4, 5, 6, 7}), 0);
    }

    void addBroadcastsAndScalesByAlpha() {
        auto r = run("aten.add.Tensor", {tv({2, 2}, {1, 2, 3, 4}), tv({2}, {10, 20})}, {{"alpha", iv(2)}});
        QCOMPARE(r.t.shape(), (std::vector<int64_t>{2, 2}));
        FX_COMPARE_VEC(values(r), (std::vector<double>{21, 42, 23, 44}), 0);
    }
    void mulByPythonFloatKeepsHalf() {
        auto r = run("aten.mul.Tensor", {tv({2}, {1.5, -3}, DType::Float16), dv(2.0)});
        QCOMPARE(r.t.dtype(), DType::Float16);
        FX_COMPARE_VEC(values(r), (std::vector<double>{3, -6}), 0);
    }
    void mulIntTensorByFloatPromotesToFloat() {
        auto r = run("aten.mul.Tensor", {tv({2}, {1, 2}, DType::Int64), dv(0.5)});
        QCOMPARE(r.t.dtype(), DType::Float32);
        FX_COMPARE_VEC(values(r), (std::vector<double>{0.5, 1}), 0);
    }

    void scalarOverloadsAndAlpha() {
        auto add = run("aten.add.Scalar", {tv({2}, {1, 2}, DType::Int64), iv(3), iv(2)});
        QCOMPARE(add.t.dtype(), DType::Int64);
        FX_COMPARE_VEC(values(add), (std::vector<double>{7, 8}), 0);
        auto sub = run("aten.sub.Tensor", {tv({2}, {10, 20}), tv({2}, {1, 2})}, {{"alpha", dv(0.5)}});
        FX_COMPARE_VEC(values(sub), (std::vector<double>{9.5, 19}), 0);
        auto subS = run("aten.sub.Scalar", {tv({2}, {10, 20}), iv(4)});
        FX_COMPARE_VEC(values(subS), (std::vector<double>{6, 16}), 0);
        auto mulS = run("aten.mul.Scalar", {tv({2}, {1, 0}, DType::Bool), iv(2)});
        QCOMPARE(mulS.t.dtype(), DType::Int64);
        FX_COMPARE_VEC(values(mulS), (std::vector<double>{2, 0}), 0);
    }
    void rsubComputesOtherMinusAlphaSelf() {
        auto f = run("aten.rsub.Scalar", {tv({2}, {1, 2}, DType::Int64), dv(2.5)});
        QCOMPARE(f.t.dtype(), DType::Float32);
        FX_COMPARE_VEC(values(f), (std::vector<double>{1.5, 0.5}), 0);
        auto i = run("aten.rsub.Scalar", {tv({2}, {1, 2}, DType::Int64), iv(2), iv(3)});
        QCOMPARE(i.t.dtype(), DType::Int64);
        FX_COMPARE_VEC(values(i), (std::vector<double>{-1, -4}), 0);
    }
    void subtractingBoolsIsAnError() {
        QVERIFY(fails("aten.sub.Tensor", {tv({1}, {1}, DType::Bool), tv({1}, {0}, DType::Bool)}));
        QVERIFY(fails("aten.rsub.Scalar", {tv({1}, {1}, DType::Bool), bv(true)}));
        QVERIFY(fails("aten.neg.default", {tv({1}, {1}, DType::Bool)}));
    }

    void divIsTrueDivision() {
        auto r = run("aten.div.Tensor", {tv({2}, {7, -7}, DType::Int64), tv({2}, {2, 2}, DType::Int64)});
        QCOMPARE(r.t.dtype(), DType::Float32);
        FX_COMPARE_VEC(values(r), (std::vector<double>{3.5, -3.5}), 0);
        auto s = run("aten.div.Scalar", {tv({2}, {1, 3}), iv(4)});
        FX_COMPARE_VEC(values(s), (std::vector<double>{0.25, 0.75}), 0);
    }
    void divRoundingModesOnIntegers() {
        auto a = tv({2}, {7, -7}, DType::Int64), b = tv({2}, {2, 2}, DType::Int64);
        auto fl = run("aten.div.Tensor_mode", {a, b}, {{"rounding_mode", str("floor")}});
        QCOMPARE(fl.t.dtype(), DType::Int64);
        FX_COMPARE_VEC(values(fl), (std::vector<double>{3, -4}), 0);
        auto tr = run("aten.div.Tensor_mode", {a, b}, {{"rounding_mode", str("trunc")}});
        FX_COMPARE_VEC(values(tr), (std::vector<double>{3, -3}), 0);
        auto none = run("aten.div.Tensor_mode", {a, b}, {{"rounding_mode", Value::none()}});
        QCOMPARE(none.t.dtype(), DType::Float32);
        FX_COMPARE_VEC(values(none), (std::vector<double>{3.5, -3.5}), 0);
    }
    void divRoundingModesOnFloatsFollowPython() {
        // Python: 7 // 2 = 3, -7 // 2 = -4, 5.5 // -0.5 = -11.
        auto fl = run("aten.div.Tensor_mode", {tv({3}, {7, -7, 5.5}), tv({3}, {2, 2, -0.5})},
                      {{"rounding_mode", str("floor")}});
        FX_COMPARE_VEC(values(fl), (std::vector<double>{3, -4, -11}), 0);
        // 1.0 // 0.1 is 9 in Python (0.1 is slightly above 1/10), while the float32 quotient
        // 1/0.1f rounds to exactly 10, so trunc gives 10.
        auto fl2 = run("aten.div.Tensor_mode", {tv({1}, {1.0}), tv({1}, {0.1})}, {{"rounding_mode", str("floor")}});
        FX_COMPARE_VEC(values(fl2), (std::vector<double>{9}), 0);
        auto tr2 = run("aten.div.Tensor_mode", {tv({1}, {1.0}), tv({1}, {0.1})}, {{"rounding_mode", str("trunc")}});
        FX_COMPARE_VEC(values(tr2), (std::vector<double>{10}), 0);
    }
    void divRoundingErrors() {
        QVERIFY(fails("aten.div.Tensor_mode", {tv({1}, {1}), tv({1}, {1})}, {{"rounding_mode", str("round")}}));
        QVERIFY(fails("aten.div.Tensor_mode", {tv({2}, {7, 1}, DType::Int64), tv({2}, {0, 1}, DType::Int64)},
                      {{"rounding_mode", str("floor")}}));
    }

    void powPromotesLikePyTorch() {
        auto i = run("aten.pow.Tensor_Scalar", {tv({2}, {3, -2}, DType::Int64), iv(2)});
        QCOMPARE(i.t.dtype(), DType::Int64);
        FX_COMPARE_VEC(values(i), (std::vector<double>{9, 4}), 0);
        auto f = run("aten.pow.Tensor_Scalar", {tv({2}, {3, -2}, DType::Int64), dv(2.0)});
        QCOMPARE(f.t.dtype(), DType::Float32);
        FX_COMPARE_VEC(values(f), (std::vector<double>{9, 4}), 0);
        auto h = run("aten.pow.Tensor_Scalar", {tv({1}, {4}, DType::Float16), dv(0.5)});
        QCOMPARE(h.t.dtype(), DType::Float16);
        FX_COMPARE_VEC(values(h), (std::vector<double>{2}), 0);
        QVERIFY(fails("aten.pow.Tensor_Scalar", {tv({1}, {3}, DType::Int64), iv(-1)}));
    }
    void powOfIntegerTensorsWithNegativeExponents() {
        // 3^-1 -> 0, (-1)^-3 -> -1, 2^10 -> 1024 (integer power).
        auto r =
            run("aten.pow.Tensor_Tensor", {tv({3}, {3, -1, 2}, DType::Int64), tv({3}, {-1, -3, 10}, DType::Int64)});
        QCOMPARE(r.t.dtype(), DType::Int64);
        FX_COMPARE_VEC(values(r), (std::vector<double>{0, -1, 1024}), 0);
    }

    void unaryMathPromotesIntegersToFloat() {
        auto s = run("aten.sqrt.default", {tv({2}, {4, 9}, DType::Int64)});
        QCOMPARE(s.t.dtype(), DType::Float32);
        FX_COMPARE_VEC(values(s), (std::vector<double>{2, 3}), 0);
        FX_COMPARE_VEC(values(run("aten.rsqrt.default", {tv({1}, {4})})), (std::vector<double>{0.5}), 0);
        FX_COMPARE_VEC(values(run("aten.exp.default", {tv({1}, {0})})), (std::vector<double>{1}), 0);
        FX_COMPARE_VEC(values(run("aten.log.default", {tv({2}, {1, 0})})),
                       (std::vector<double>{0, -std::numeric_limits<double>::infinity()}), 0);
        FX_COMPARE_VEC(values(run("aten.reciprocal.default", {tv({1}, {4}, DType::Int64)})),
                       (std::vector<double>{0.25}), 0);
        FX_COMPARE_VEC(values(run("aten.erf.default", {tv({2}, {0, 0.5})})), (std::vector<double>{0, 0.5204998778}),
                       1e-7);
        auto ab = run("aten.abs.default", {tv({2}, {-3, 2}, DType::Int64)});
        QCOMPARE(ab.t.dtype(), DType::Int64);
        FX_COMPARE_VEC(values(ab), (std::vector<double>{3, 2}), 0);
        FX_COMPARE_VEC(values(run("aten.neg.default", {tv({1}, {3}, DType::Int64)})), (std::vector<double>{-3}), 0);
    }

    void clampPromotesWithItsBounds() {
        auto r = run("aten.clamp.default", {tv({3}, {0, 1, 2}, DType::Int64), dv(0.5)});
        QCOMPARE(r.t.dtype(), DType::Float32);
        FX_COMPARE_VEC(values(r), (std::vector<double>{0.5, 1, 2}), 0);
        // min > max: everything becomes max.
        auto m = run("aten.clamp.default", {tv({3}, {0, 1, 5}, DType::Int64), iv(3), iv(1)});
        QCOMPARE(m.t.dtype(), DType::Int64);
        FX_COMPARE_VEC(values(m), (std::vector<double>{1, 1, 1}), 0);
        auto n = run("aten.clamp.default", {tv({2}, {kNaN, 1}), dv(0), dv(0.5)});
        QVERIFY(std::isnan(values(n)[0]));
        QCOMPARE(values(n)[1], 0.5);
        FX_COMPARE_VEC(values(run("aten.clamp_min.default", {tv({3}, {-1, 0, 2}), iv(0)})),
                       (std::vector<double>{0, 0, 2}), 0);
        FX_COMPARE_VEC(values(run("aten.clamp_max.default", {tv({2}, {1, 5}, DType::Int64), dv(2.5)})),
                       (std::vector<double>{1, 2.5}), 0);
        QVERIFY(fails("aten.clamp.default", {tv({1}, {1})}));
    }
    void maximumMinimumPropagateNaN() {
        auto mx = run("aten.maximum.default", {tv({3}, {kNaN, 1, 4}), tv({3}, {1, kNaN, 2})});
        auto v = values(mx);
        QVERIFY(std::isnan(v[0]) && std::isnan(v[1]));
        QCOMPARE(v[2], 4.0);
        auto mn = run("aten.minimum.default", {tv({2}, {1, 2}, DType::Int64), tv({2}, {1.5, 0.5}, DType::Float16)});
        QCOMPARE(mn.t.dtype(), DType::Float16);
        FX_COMPARE_VEC(values(mn), (std::vector<double>{1, 0.5}), 0);
    }

    void whereDtypesFollowTheValues() {
        auto cond = tv({2}, {1, 0}, DType::Bool);
        auto f = run("aten.where.Scalar", {cond, dv(1.0), dv(0.0)});
        QCOMPARE(f.t.dtype(), DType::Float32);
        FX_COMPARE_VEC(values(f), (std::vector<double>{1, 0}), 0);
        auto i = run("aten.where.Scalar", {cond, iv(1), iv(0)});
        QCOMPARE(i.t.dtype(), DType::Int64);
        auto so = run("aten.where.ScalarOther", {cond, tv({2}, {1, 2}, DType::Int64), dv(0.5)});
        QCOMPARE(so.t.dtype(), DType::Float32);
        FX_COMPARE_VEC(values(so), (std::vector<double>{1, 0.5}), 0);
        auto ss = run("aten.where.ScalarSelf", {cond, dv(-1.0), tv({2}, {5, 6}, DType::Float16)});
        QCOMPARE(ss.t.dtype(), DType::Float16);
        FX_COMPARE_VEC(values(ss), (std::vector<double>{-1, 6}), 0);
    }
    void whereBroadcastsConditionAndKeepsLayout() {
        // cond [2,1] broadcast against self/other [2,3] laid out transposed (strides [1, 2]).
        auto self = strided({2, 3}, {1, 2}, {1, 2, 3, 4, 5, 6});
        auto r = run("aten.where.self", {tv({2, 1}, {1, 0}, DType::Bool), self, dv(0.0)});
        QCOMPARE(r.t.strides(), (std::vector<int64_t>{1, 2}));
        FX_COMPARE_VEC(values(r), (std::vector<double>{1, 3, 5, 0, 0, 0}), 0);
        QVERIFY(fails("aten.where.self", {tv({1}, {1}), tv({1}, {1}), tv({1}, {2})}));
    }

    void comparisonsHappenInThePromotedType() {
        // 0.1 rounds to the same half as the tensor's value.
        auto h = run("aten.eq.Scalar", {tv({1}, {0.1}, DType::Float16), dv(0.1)});
        QCOMPARE(h.t.dtype(), DType::Bool);
        FX_COMPARE_VEC(values(h), (std::vector<double>{1}), 0);
        FX_COMPARE_VEC(values(run("aten.eq.Scalar", {tv({1}, {2}, DType::Int64), dv(2.5)})), (std::vector<double>{0}),
                       0);
        // int64 16777217 becomes 16777216 in float32.
        FX_COMPARE_VEC(values(run("aten.lt.Tensor", {tv({1}, {16777216}), tv({1}, {16777217}, DType::Int64)})),
                       (std::vector<double>{0}), 0);
        FX_COMPARE_VEC(values(run("aten.eq.Tensor", {tv({1}, {16777217}, DType::Int64), tv({1}, {16777216})})),
                       (std::vector<double>{1}), 0);
        auto x = tv({3}, {1, 2, 3});
        FX_COMPARE_VEC(values(run("aten.ne.Scalar", {x, iv(2)})), (std::vector<double>{1, 0, 1}), 0);
        FX_COMPARE_VEC(values(run("aten.le.Scalar", {x, iv(2)})), (std::vector<double>{1, 1, 0}), 0);
        FX_COMPARE_VEC(values(run("aten.gt.Scalar", {x, iv(2)})), (std::vector<double>{0, 0, 1}), 0);
        FX_COMPARE_VEC(values(run("aten.ge.Tensor", {x, tv({3}, {2, 2, 2})})), (std::vector<double>{0, 1, 1}), 0);
        FX_COMPARE_VEC(values(run("aten.lt.Scalar", {tv({2}, {1, 0}, DType::Bool), dv(0.5)})),
                       (std::vector<double>{0, 1}), 0);
    }

    void logicalAndBitwise() {
        auto ln = run("aten.logical_not.default", {tv({2}, {0, 2})});
        QCOMPARE(ln.t.dtype(), DType::Bool);
        FX_COMPARE_VEC(values(ln), (std::vector<double>{1, 0}), 0);
        auto la = run("aten.logical_and.default", {tv({2}, {1, 0}, DType::Int64), tv({2}, {0.5, 2})});
        QCOMPARE(la.t.dtype(), DType::Bool);
        FX_COMPARE_VEC(values(la), (std::vector<double>{1, 0}), 0);
        auto ba = run("aten.bitwise_and.Tensor", {tv({2}, {6, -1}, DType::Int64), tv({2}, {3, 5}, DType::Int64)});
        FX_COMPARE_VEC(values(ba), (std::vector<double>{2, 5}), 0);
        auto bo = run("aten.bitwise_or.Tensor", {tv({1}, {1}, DType::Int32), tv({1}, {2}, DType::Int64)});
        QCOMPARE(bo.t.dtype(), DType::Int64);
        FX_COMPARE_VEC(values(bo), (std::vector<double>{3}), 0);
        auto mixed = run("aten.bitwise_and.Tensor", {tv({1}, {200}, DType::UInt8), tv({1}, {-1}, DType::Int8)});
        QCOMPARE(mixed.t.dtype(), DType::Int16);
        FX_COMPARE_VEC(values(mixed), (std::vector<double>{200}), 0);
        FX_COMPARE_VEC(values(run("aten.bitwise_not.default", {tv({2}, {6, -1}, DType::Int64)})),
                       (std::vector<double>{-7, 0}), 0);
        FX_COMPARE_VEC(values(run("aten.bitwise_not.default", {tv({2}, {1, 0}, DType::Bool)})),
                       (std::vector<double>{0, 1}), 0);
        QVERIFY(fails("aten.bitwise_and.Tensor", {tv({1}, {6}), tv({1}, {3})}));
    }

    void inplaceOpsWriteIntoSelf() {
        auto self = tv({2, 2}, {1, 2, 3, 4});
        auto r = run("aten.add_.Tensor", {self, tv({2}, {10, 20})}, {{"alpha", iv(2)}});
        QCOMPARE(r.t.storage.get(), self.t.storage.get());
        FX_COMPARE_VEC(values(self), (std::vector<double>{21, 42, 23, 44}), 0);
        auto m = run("aten.mul_.Tensor", {self, dv(0.5)});
        FX_COMPARE_VEC(values(self), (std::vector<double>{10.5, 21, 11.5, 22}), 0);
        QCOMPARE(m.t.shape(), (std::vector<int64_t>{2, 2}));
        // Results round to self's dtype.
        auto h = tv({2}, {1, 2}, DType::Float16);
        run("aten.add_.Tensor", {h, tv({2}, {0.5, 0.5})});
        FX_COMPARE_VEC(values(h), (std::vector<double>{1.5, 2.5}), 0);
    }
    void inplaceErrors() {
        QVERIFY(fails("aten.add_.Tensor", {tv({2}, {1, 2}, DType::Int64), tv({2}, {0.5, 0.5})}));
        QVERIFY(fails("aten.mul_.Tensor", {tv({2}, {1, 2}), tv({2, 1}, {1, 2})}));
        QVERIFY(fails("aten.add_.Tensor", {tv({1}, {1}, DType::Bool), tv({1}, {1}, DType::Int64)}));
    }

    void convertElementTypeTruncatesAndKeepsDenseLayout() {
        auto r = run("prims.convert_element_type.default", {tv({3}, {-2.7, 2.7, 0}), Value::ofDType(DType::Int32)});
        QCOMPARE(r.t.dtype(), DType::Int32);
        FX_COMPARE_VEC(values(r), (std::vector<double>{-2, 2, 0}), 0);
        auto b = run("prims.convert_element_type.default", {tv({2}, {0, 0.1}), Value::ofDType(DType::Bool)});
        FX_COMPARE_VEC(values(b), (std::vector<double>{0, 1}), 0);
        // A transposed (dense) input keeps its strides, size-1 dims included.
        auto t = run("prims.convert_element_type.default",
                     {strided({2, 1, 3}, {1, 1, 2}, {1, 2, 3, 4, 5, 6}), Value::ofDType(DType::Float16)});
        QCOMPARE(t.t.strides(), (std::vector<int64_t>{1, 1, 2}));
        FX_COMPARE_VEC(values(t), (std::vector<double>{1, 3, 5, 2, 4, 6}), 0);
        // A sliced (non-dense) input gives a dense layout in the same dim order.
        auto s = meta("prims.convert_element_type.default",
                      {strided({2, 2}, {4, 2}, {0, 1, 2, 3, 4, 5, 6, 7}), Value::ofDType(DType::Float16)});
        QVERIFY(s.ok());
        QCOMPARE(s->t.strides(), (std::vector<int64_t>{2, 1}));
    }

    void fmaAndLayoutOfBinaryOps() {
        auto f = run("prims.fma.default", {tv({2}, {2, 3}), dv(3.0), tv({2}, {1, 1})});
        FX_COMPARE_VEC(values(f), (std::vector<double>{7, 10}), 0);
        auto mixed = meta("prims.fma.default", {tv({1}, {1}, DType::Float16), tv({1}, {1}), tv({1}, {1})});
        QVERIFY(mixed.ok());
        QCOMPARE(mixed->t.dtype(), DType::Float32);
        // The first operand's layout decides: transposed + contiguous gives transposed.
        auto tr = strided({2, 3}, {1, 2}, {1, 2, 3, 4, 5, 6});
        auto r = meta("aten.sub.Tensor", {tr, tv({2, 3}, {0, 0, 0, 0, 0, 0})});
        QVERIFY(r.ok());
        QCOMPARE(r->t.strides(), (std::vector<int64_t>{1, 2}));
        auto c = meta("aten.eq.Tensor", {tv({2, 3}, {0, 0, 0, 0, 0, 0}), tr});
        QVERIFY(c.ok());
        QCOMPARE(c->t.dtype(), DType::Bool);
        QCOMPARE(c->t.strides(), (std::vector<int64_t>{3, 1}));
    }
    void incompatibleShapesAreAnError() {
        QVERIFY(fails("aten.maximum.default", {tv({2}, {1, 2}), tv({3}, {1, 2, 3})}));
    }
};

QTEST_GUILESS_MAIN(TestOpsPointwise)
#include "tst_ops_pointwise.moc"
