// The CPU backend's sorting externs (codegen/cpu/extern_fallback_ops.cpp): sort, sort.stable (its
// dim and order by keyword) and topk (largest and smallest, along an inner dim) run as compiled
// extern steps, not reference fallbacks, and give the reference executor's values and indices
// exactly, NaNs and ties included (the reference's own values are checked by hand in
// tst_ops_sort).
#include "cpu_lowering_check.h"
#include "test_util.h"

#include "exec/run_check.h"

#include <cmath>
#include <limits>

using namespace fxray;

class TestCpuSortExterns : public QObject {
    Q_OBJECT
private slots:
    void sortFamilyMatchesTheReference() {
        auto g = fxtest::parseForward(
            "x: \"f32[3, 700][700, 1]cpu\", z: \"f32[6, 7][7, 1]cpu\"",
            "        sort = torch.ops.aten.sort.default(x, 1, True)\n"
            "        getitem: \"f32[3, 700][700, 1]cpu\" = sort[0]\n"
            "        getitem_1: \"i64[3, 700][700, 1]cpu\" = sort[1]\n"
            "        sort_1 = torch.ops.aten.sort.stable(z, stable = True, dim = 0, descending = False)\n"
            "        getitem_2: \"f32[6, 7][7, 1]cpu\" = sort_1[0]\n"
            "        getitem_3: \"i64[6, 7][7, 1]cpu\" = sort_1[1]\n"
            "        topk = torch.ops.aten.topk.default(x, 5)\n"
            "        getitem_4: \"f32[3, 5][5, 1]cpu\" = topk[0]\n"
            "        getitem_5: \"i64[3, 5][5, 1]cpu\" = topk[1]\n"
            "        topk_1 = torch.ops.aten.topk.default(z, 3, 0, False)\n"
            "        getitem_6: \"f32[3, 7][7, 1]cpu\" = topk_1[0]\n"
            "        getitem_7: \"i64[3, 7][7, 1]cpu\" = topk_1[1]\n"
            "        return (getitem, getitem_1, getitem_2, getitem_3, getitem_4, getitem_5, getitem_6, getitem_7)\n");
        QVERIFY(g);
        const double nan = std::numeric_limits<double>::quiet_NaN();
        std::vector<double> xs(2100), zs(42);
        for (size_t i = 0; i < xs.size(); ++i) xs[i] = i % 89 == 3 ? nan : std::floor(20.0 * std::sin(0.61 * i));
        for (size_t i = 0; i < zs.size(); ++i) zs[i] = static_cast<double>((i * 5) % 4);
        std::vector<Value> in{fxtest::tv({3, 700}, xs), fxtest::tv({6, 7}, zs)};
        RunRequest req;
        req.inputs = in;
        auto ref = runAndCheck(*g, req, nullptr);
        QVERIFY2(ref.ok(), ref.ok() ? "" : ref.error().str().c_str());
        // Descending puts each row's NaNs first.
        QVERIFY(std::isnan(fxtest::values(ref->outputs[0])[0]));
        std::vector<Value> out;
        fxtest::runCpuWithoutFallback(*g, in, out);
        if (QTest::currentTestFailed()) return;
        QCOMPARE(out.size(), ref->outputs.size());
        for (size_t i = 0; i < out.size(); ++i) {
            const auto got = fxtest::values(out[i]), want = fxtest::values(ref->outputs[i]);
            QCOMPARE(got.size(), want.size());
            for (size_t e = 0; e < got.size(); ++e)
                if (!(got[e] == want[e]) && !(std::isnan(got[e]) && std::isnan(want[e])))
                    QFAIL(qPrintable(
                        QString("output %1 element %2: %3, want %4").arg(i).arg(e).arg(got[e]).arg(want[e])));
        }
    }
};

QTEST_GUILESS_MAIN(TestCpuSortExterns)
#include "tst_cpu_sort_externs.moc"
