// Random ops: values differ from PyTorch's (other generator) but must be well-formed and
// deterministic for a seed; inactive dropout is exact.
#include "test_util.h"

#include <algorithm>
#include <cmath>

using namespace fxtest;
using fxray::DType;
using fxray::Value;
using V = std::vector<int64_t>;

namespace {

fxray::Expected<Value> runSeeded(uint64_t seed, std::string_view op, std::vector<Value> args,
                                 std::vector<std::pair<std::string, Value>> kw = {}) {
    fxray::ExecContext ctx(seed);
    return fxray::invokeOp(op, std::move(args), std::move(kw), &ctx);
}

Value device(const char* d) {
    Value v;
    v.kind = Value::Kind::Device;
    v.device = *fxray::parseDevice(d);
    return v;
}

Value str(const char* s) {
    Value v;
    v.kind = Value::Kind::String;
    v.s = s;
    return v;
}

}  // namespace

class TestOpsRandom : public QObject {
    Q_OBJECT
private slots:
    void inactiveDropoutIsIdentity() {
        Value x = tv({2, 2}, {1.5, -2, 3, 0.25});
        for (auto train : {bv(false), Value::none()}) {
            auto r = run("aten.native_dropout.default", {x, dv(0.5), train});
            QCOMPARE(r.list.size(), size_t(2));
            FX_COMPARE_VEC(values(r.list[0]), values(x), 0);
            QCOMPARE(r.list[1].t.dtype(), DType::Bool);
            FX_COMPARE_VEC(values(r.list[1]), (std::vector<double>{1, 1, 1, 1}), 0);
        }
        auto p0 = run("aten.native_dropout.default", {x, dv(0.0), bv(true)});
        FX_COMPARE_VEC(values(p0.list[0]), values(x), 0);
    }
    void dropoutMasksAndScales() {
        std::vector<double> ones(10000, 1.0);
        Value x = tv({100, 100}, ones);
        auto r = runSeeded(7, "aten.native_dropout.default", {x, dv(0.25), bv(true)});
        QVERIFY(r.ok());
        auto out = values(r->list[0]), mask = values(r->list[1]);
        const double scale = double(1.0f / 0.75f);
        double kept = 0;
        for (size_t i = 0; i < out.size(); ++i) {
            kept += mask[i];
            QVERIFY(std::abs(out[i] - mask[i] * scale) < 1e-6);
        }
        QVERIFY(std::abs(kept / 10000 - 0.75) < 0.03);
        auto again = runSeeded(7, "aten.native_dropout.default", {x, dv(0.25), bv(true)});
        FX_COMPARE_VEC(values(again->list[1]), mask, 0);
        auto other = runSeeded(8, "aten.native_dropout.default", {x, dv(0.25), bv(true)});
        QVERIFY(values(other->list[1]) != mask);
        auto all = run("aten.native_dropout.default", {x, dv(1.0), bv(true)});
        auto dropped = values(all.list[0]);
        QCOMPARE(*std::max_element(dropped.begin(), dropped.end()), 0.0);
        QVERIFY(!runSeeded(0, "aten.native_dropout.default", {x, dv(1.5), bv(true)}).ok());
    }
    void dropoutBackward() {
        auto r =
            run("aten.native_dropout_backward.default", {tv({3}, {1, 2, 3}), tv({3}, {1, 0, 1}, DType::Bool), dv(2.0)});
        FX_COMPARE_VEC(values(r), (std::vector<double>{2, 0, 6}), 0);
        auto d = run("aten.dropout.default", {tv({2}, {4, 5}), dv(0.5), bv(false)});
        FX_COMPARE_VEC(values(d), (std::vector<double>{4, 5}), 0);
    }
    void randpermIsAPermutation() {
        auto r = runSeeded(3, "aten.randperm.default", {iv(50)}, {{"device", device("cuda:0")}});
        QVERIFY(r.ok());
        QCOMPARE(r->t.dtype(), DType::Int64);
        QCOMPARE(r->t.meta.device.str(), std::string("cuda:0"));
        auto v = values(*r);
        auto sorted = v;
        std::sort(sorted.begin(), sorted.end());
        for (int i = 0; i < 50; ++i) QCOMPARE(sorted[i], double(i));
        QVERIFY(v != sorted);
        FX_COMPARE_VEC(values(*runSeeded(3, "aten.randperm.default", {iv(50)})), v, 0);
        auto i32 = run("aten.randperm.default", {iv(4)}, {{"dtype", Value::ofDType(DType::Int32)}});
        QCOMPARE(i32.t.dtype(), DType::Int32);
    }
    void uniformAndNormal() {
        auto u = values(run("aten.rand.default", {ilist({20000})}));
        double mean = 0;
        for (double x : u) {
            QVERIFY(x >= 0.0 && x < 1.0);
            mean += x / u.size();
        }
        QVERIFY(std::abs(mean - 0.5) < 0.02);
        auto n = values(run("aten.randn.default", {ilist({20000})}, {{"dtype", Value::ofDType(DType::Float64)}}));
        double m = 0, sq = 0;
        for (double x : n) {
            m += x / n.size();
            sq += x * x / n.size();
        }
        QVERIFY(std::abs(m) < 0.05);
        QVERIFY(std::abs(sq - 1.0) < 0.05);
        auto t = run("aten.t.default", {tv({2, 3}, {0, 1, 2, 3, 4, 5})});
        auto like = run("aten.rand_like.default", {t});
        QCOMPARE(like.t.strides(), (V{1, 3}));
        QVERIFY(!runSeeded(0, "aten.rand.default", {ilist({2})}, {{"dtype", Value::ofDType(DType::Int64)}}).ok());
    }
    void bernoulli() {
        auto b = values(run("aten.bernoulli.p", {tv({1000}, std::vector<double>(1000, 0)), dv(0.3)}));
        double ones = 0;
        for (double x : b) {
            QVERIFY(x == 0.0 || x == 1.0);
            ones += x;
        }
        QVERIFY(std::abs(ones / 1000 - 0.3) < 0.06);
    }
    void inductorSeeds() {
        auto seeds = run("prims.inductor_seeds.default", {iv(3), device("cuda:0")});
        QCOMPARE(seeds.t.shape(), (V{3}));
        QCOMPARE(seeds.t.dtype(), DType::Int64);
        auto s1 = run("prims.inductor_lookup_seed.default", {seeds, iv(1)});
        QCOMPARE(s1.t.dim(), int64_t(0));
        QCOMPARE(values(s1)[0], values(seeds)[1]);
        // The seed alone decides inductor_random's values.
        auto r1 = runSeeded(1, "prims.inductor_random.default", {ilist({4}), s1, str("rand")});
        auto r2 = runSeeded(2, "prims.inductor_random.default", {ilist({4}), s1, str("rand")});
        FX_COMPARE_VEC(values(*r1), values(*r2), 0);
        QCOMPARE(r1->t.meta.device.str(), std::string("cuda:0"));
        QVERIFY(!runSeeded(0, "prims.inductor_random.default", {ilist({4}), s1, str("uniform")}).ok());
        QVERIFY(!runSeeded(0, "prims.inductor_lookup_seed.default", {seeds, iv(3)}).ok());
    }
};

QTEST_GUILESS_MAIN(TestOpsRandom)
#include "tst_ops_random.moc"
