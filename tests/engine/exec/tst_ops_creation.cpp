// Factory ops: dtype inference, lengths, values, layouts, devices.
#include "test_util.h"

using namespace fxtest;
using fxray::DType;
using fxray::TensorMeta;
using fxray::Value;
using V = std::vector<int64_t>;

namespace {

Value dt(DType t) { return Value::ofDType(t); }

Value cuda() {
    Value v;
    v.kind = Value::Kind::Device;
    v.device = *fxray::parseDevice("cuda:0");
    return v;
}

fxray::Expected<Value> tryRun(std::string_view op, std::vector<Value> args,
                              std::vector<std::pair<std::string, Value>> kw = {}) {
    fxray::ExecContext ctx(0);
    return fxray::invokeOp(op, std::move(args), std::move(kw), &ctx);
}

}  // namespace

class TestOpsCreation : public QObject {
    Q_OBJECT
private slots:
    void arangeInfersDtypeAndLength() {
        auto a = run("aten.arange.default", {iv(5)}, {{"device", cuda()}});
        QCOMPARE(a.t.dtype(), DType::Int64);
        QCOMPARE(a.t.meta.device.str(), std::string("cuda:0"));
        FX_COMPARE_VEC(values(a), (std::vector<double>{0, 1, 2, 3, 4}), 0);
        auto f = run("aten.arange.start_step", {iv(0), iv(2), dv(0.5)});
        QCOMPARE(f.t.dtype(), DType::Float32);
        FX_COMPARE_VEC(values(f), (std::vector<double>{0, 0.5, 1, 1.5}), 0);
        auto down = run("aten.arange.start_step", {iv(10), iv(0), iv(-3)});
        FX_COMPARE_VEC(values(down), (std::vector<double>{10, 7, 4, 1}), 0);
        // ceil((1 - 0) / 0.1) = 10 elements
        QCOMPARE(run("aten.arange.start_step", {iv(0), iv(1), dv(0.1)}).t.numel(), int64_t(10));
        // int64 ranges truncate their bounds first: arange(0.5, 3) as int64 is [0, 1, 2]
        auto ti = run("aten.arange.start", {dv(0.5), iv(3)}, {{"dtype", dt(DType::Int64)}});
        FX_COMPARE_VEC(values(ti), (std::vector<double>{0, 1, 2}), 0);
        auto h = run("aten.arange.start", {iv(1), iv(4)}, {{"dtype", dt(DType::Float16)}});
        QCOMPARE(h.t.dtype(), DType::Float16);
        QVERIFY(!tryRun("aten.arange.start_step", {iv(0), iv(3), iv(0)}).ok());
        QVERIFY(!tryRun("aten.arange.start_step", {iv(3), iv(0), iv(1)}).ok());
    }
    void iota() {
        auto r = run("prims.iota.default", {iv(4)},
                     {{"start", iv(2)},
                      {"step", iv(3)},
                      {"dtype", dt(DType::Int64)},
                      {"device", cuda()},
                      {"requires_grad", bv(false)}});
        FX_COMPARE_VEC(values(r), (std::vector<double>{2, 5, 8, 11}), 0);
        QCOMPARE(r.t.meta.device.str(), std::string("cuda:0"));
    }
    void fullInfersDtypeFromFill() {
        QCOMPARE(run("aten.full.default", {ilist({2}), bv(true)}).t.dtype(), DType::Bool);
        QCOMPARE(run("aten.full.default", {ilist({2}), iv(3)}).t.dtype(), DType::Int64);
        auto f = run("aten.full.default", {ilist({2, 2}), dv(1.5)});
        QCOMPARE(f.t.dtype(), DType::Float32);
        FX_COMPARE_VEC(values(f), (std::vector<double>{1.5, 1.5, 1.5, 1.5}), 0);
        auto t = run("aten.full.default", {ilist({2}), dv(3.7)}, {{"dtype", dt(DType::Int64)}});
        FX_COMPARE_VEC(values(t), (std::vector<double>{3, 3}), 0);
        auto s = run("aten.full.default", {ilist({}), dv(0.0)}, {{"dtype", dt(DType::Float16)}});
        QCOMPARE(s.t.dim(), int64_t(0));
        QVERIFY(!tryRun("aten.full.default", {ilist({2, -1}), dv(0)}).ok());
    }
    void zerosOnesEmpty() {
        FX_COMPARE_VEC(values(run("aten.ones.default", {ilist({3})})), (std::vector<double>{1, 1, 1}), 0);
        FX_COMPARE_VEC(values(run("aten.zeros.default", {ilist({2})})), (std::vector<double>{0, 0}), 0);
        auto e = run("aten.empty.memory_format", {ilist({2, 2})});
        FX_COMPARE_VEC(values(e), (std::vector<double>{0, 0, 0, 0}), 0);  // deterministic zeros
        Value cl;
        cl.kind = Value::Kind::MemoryFormat;
        cl.memoryFormat = fxray::MemoryFormat::ChannelsLast;
        auto c = run("aten.empty.memory_format", {ilist({2, 3, 4, 5})}, {{"memory_format", cl}});
        QCOMPARE(c.t.strides(), (V{60, 1, 15, 3}));
        auto st = run("aten.empty_strided.default", {ilist({2, 3}), ilist({1, 2})});
        QCOMPARE(st.t.strides(), (V{1, 2}));
        QCOMPARE(run("aten.zeros.default", {ilist({2, 0, 3})}).t.numel(), int64_t(0));
    }
    void newFactoriesFollowSelf() {
        Value self = tv({2}, {1, 2}, DType::Float16);
        auto n = run("aten.new_full.default", {self, ilist({3}), iv(7)});
        QCOMPARE(n.t.dtype(), DType::Float16);
        FX_COMPARE_VEC(values(n), (std::vector<double>{7, 7, 7}), 0);
        QCOMPARE(run("aten.new_zeros.default", {self, ilist({2})}, {{"dtype", dt(DType::Int32)}}).t.dtype(),
                 DType::Int32);
        FX_COMPARE_VEC(values(run("aten.new_ones.default", {self, ilist({2})})), (std::vector<double>{1, 1}), 0);
        auto es = run("aten.new_empty_strided.default", {self, ilist({2, 2}), ilist({1, 2})});
        QCOMPARE(es.t.strides(), (V{1, 2}));
        QCOMPARE(es.t.dtype(), DType::Float16);
    }
    void scalarTensor() {
        auto s = run("aten.scalar_tensor.default", {iv(3)});
        QCOMPARE(s.t.dtype(), DType::Float32);
        QCOMPARE(s.t.dim(), int64_t(0));
        FX_COMPARE_VEC(values(s), (std::vector<double>{3}), 0);
        auto l = run("aten.scalar_tensor.default", {dv(-3.4028234663852886e+38)}, {{"dtype", dt(DType::Float32)}});
        QCOMPARE(values(l)[0], -3.4028234663852886e+38);
    }
};

QTEST_GUILESS_MAIN(TestOpsCreation)
#include "tst_ops_creation.moc"
