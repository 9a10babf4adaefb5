// The sorting ops beyond sort itself: topk, sort.stable, _unique2 and unique_consecutive, with
// values worked out by hand from PyTorch's documented behaviour (NaN counts as the largest
// value; equal values keep their input order; unique_consecutive collapses runs only), and the
// errors of bad arguments.
#include "test_util.h"

#include <cmath>
#include <limits>

using namespace fxtest;
using fxray::DType;
using fxray::Value;
using V = std::vector<int64_t>;
using D = std::vector<double>;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

/// The positions of NaN in v (FX_COMPARE_VEC lets NaN match anything).
std::vector<bool> nanAt(const std::vector<double>& v) {
    std::vector<bool> r;
    for (double x : v) r.push_back(std::isnan(x));
    return r;
}

}  // namespace

class TestOpsSort : public QObject {
    Q_OBJECT
private slots:
    void topkLargestCountsNaNAsTheLargest() {
        auto r = run("aten.topk.default", {tv({5}, {1, 3, kNaN, 3, 2}), iv(3)});
        QCOMPARE(r.list.size(), size_t(2));
        QCOMPARE(r.list[0].t.shape(), (V{3}));
        QCOMPARE(r.list[1].t.dtype(), DType::Int64);
        const auto v = values(r.list[0]);
        QCOMPARE(nanAt(v), (std::vector<bool>{true, false, false}));
        FX_COMPARE_VEC(v, (D{kNaN, 3, 3}), 0);
        FX_COMPARE_VEC(values(r.list[1]), (D{2, 1, 3}), 0);
    }
    void topkSmallestAlongADim() {
        // Rows [4, 1, 3] and [0, 5, 0]: the two smallest of each, ties in input order.
        auto r = run("aten.topk.default", {tv({2, 3}, {4, 1, 3, 0, 5, 0}), iv(2), iv(1), bv(false)});
        QCOMPARE(r.list[0].t.shape(), (V{2, 2}));
        FX_COMPARE_VEC(values(r.list[0]), (D{1, 3, 0, 0}), 0);
        FX_COMPARE_VEC(values(r.list[1]), (D{1, 2, 0, 2}), 0);
        // Along dim 0 (columns [4, 0], [1, 5], [3, 0]): the largest of each.
        auto c = run("aten.topk.default", {tv({2, 3}, {4, 1, 3, 0, 5, 0}), iv(1), iv(0)});
        QCOMPARE(c.list[0].t.shape(), (V{1, 3}));
        FX_COMPARE_VEC(values(c.list[0]), (D{4, 5, 3}), 0);
        FX_COMPARE_VEC(values(c.list[1]), (D{0, 1, 0}), 0);
    }
    void topkRejectsKPastTheRow() {
        fxray::ExecContext ctx(0);
        auto r = fxray::invokeOp("aten.topk.default", {tv({3}, {1, 2, 3}), iv(4)}, {}, &ctx);
        QVERIFY(!r.ok());
        QVERIFY2(r.error().str().find("selected index k out of range") != std::string::npos, r.error().str().c_str());
    }
    void sortStableTakesItsDimAndOrderByKeyword() {
        // Columns of [[2, 1], [1, 1], [2, 0]] descending: [2, 2, 1] from rows 0, 2, 1 and
        // [1, 1, 0] from rows 0, 1, 2.
        auto r = run("aten.sort.stable", {tv({3, 2}, {2, 1, 1, 1, 2, 0})},
                     {{"stable", bv(true)}, {"dim", iv(0)}, {"descending", bv(true)}});
        FX_COMPARE_VEC(values(r.list[0]), (D{2, 1, 2, 1, 1, 0}), 0);
        FX_COMPARE_VEC(values(r.list[1]), (D{0, 0, 2, 1, 1, 2}), 0);
    }
    void unique2GivesInverseAndCounts() {
        auto r = run("aten._unique2.default", {tv({5}, {2, 1, 2, 3, 1}, DType::Int64), bv(true), bv(true), bv(true)});
        QCOMPARE(r.list.size(), size_t(3));
        FX_COMPARE_VEC(values(r.list[0]), (D{1, 2, 3}), 0);
        QCOMPARE(r.list[0].t.dtype(), DType::Int64);
        FX_COMPARE_VEC(values(r.list[1]), (D{1, 0, 1, 2, 0}), 0);
        FX_COMPARE_VEC(values(r.list[2]), (D{2, 2, 1}), 0);
        // Without them: empty tensors in their places. Each NaN stays its own value, last.
        auto n = run("aten._unique2.default", {tv({2, 2}, {kNaN, 1, kNaN, 1})});
        QCOMPARE(n.list[0].t.shape(), (V{3}));
        QCOMPARE(nanAt(values(n.list[0])), (std::vector<bool>{false, true, true}));
        QCOMPARE(n.list[1].t.shape(), (V{0}));
        QCOMPARE(n.list[2].t.shape(), (V{0}));
    }
    void uniqueConsecutiveCollapsesRunsOnly() {
        auto r = run("aten.unique_consecutive.default",
                     {tv({2, 4}, {1, 1, 2, 2, 3, 1, 1, 2}), bv(true), bv(true)});
        FX_COMPARE_VEC(values(r.list[0]), (D{1, 2, 3, 1, 2}), 0);
        QCOMPARE(r.list[1].t.shape(), (V{2, 4}));
        FX_COMPARE_VEC(values(r.list[1]), (D{0, 0, 1, 1, 2, 3, 3, 4}), 0);
        FX_COMPARE_VEC(values(r.list[2]), (D{2, 2, 1, 2, 1}), 0);
        fxray::ExecContext ctx(0);
        auto d = fxray::invokeOp("aten.unique_consecutive.default", {tv({2}, {1, 1}), bv(false), bv(false), iv(0)}, {},
                                 &ctx);
        QVERIFY(!d.ok());
        QVERIFY2(d.error().str().find("over a dim") != std::string::npos, d.error().str().c_str());
    }
};

QTEST_GUILESS_MAIN(TestOpsSort)
#include "tst_ops_sort.moc"
