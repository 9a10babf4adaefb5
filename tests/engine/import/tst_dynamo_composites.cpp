// Dynamo-stage tensor functions ATen implements as composites or aliases
// (dynamo_lowering_composites.cpp, the alias map of lowerGeneric): called as torch.X and as
// methods, lowered to ATen and run on the reference executor, against values worked out here.
#include "dynamo_run.h"
#include "test_util.h"

#include <cmath>

using namespace fxray;
using fxtest::lowerAndRun;

class TestDynamoComposites : public QObject {
    Q_OBJECT
private slots:
    void aliasesAndComposites() {
        const std::vector<double> x = {3, -1, 2, 0, 5, -4}, y = {1, 2, 3, 4, 5, 6};
        auto out = lowerAndRun(
            "L_x_: \"f32[2, 3][3, 1]cpu\", L_y_: \"f32[2, 3][3, 1]cpu\"",
            "        x = L_x_\n        y = L_y_\n"
            "        mul: \"f32[2, 3][3, 1]cpu\" = torch.multiply(x, y)\n"
            "        sub: \"f32[2, 3][3, 1]cpu\" = x.subtract(y)\n"
            "        gt: \"b8[2, 3][3, 1]cpu\" = x.greater(y)\n"
            "        ab: \"f32[2, 3][3, 1]cpu\" = torch.absolute(x)\n"
            "        sw: \"f32[3, 2][1, 3]cpu\" = x.swapaxes(0, 1)\n"
            "        ars: \"i64[2, 3][3, 1]cpu\" = torch.argsort(x, dim = -1)\n"
            "        ms: \"f32[2, 3][3, 1]cpu\" = x.msort()\n"
            "        cnz: \"i64[2][1]cpu\" = x.count_nonzero(-1)\n"
            "        lg: \"f32[2, 3][3, 1]cpu\" = torch.log(x)\n"
            "        fin: \"b8[2, 3][3, 1]cpu\" = lg.isfinite()\n"
            "        sq: \"f32[2, 3][3, 1]cpu\" = torch.sqrt(x)\n"
            "        nm: \"f32[2][1]cpu\" = sq.nanmean(dim = -1)\n"
            "        df: \"f32[2, 2][2, 1]cpu\" = torch.diff(x, dim = -1)\n"
            "        fp: \"f64[2, 3][3, 1]cpu\" = torch.float_power(x, 2)\n"
            "        nt: \"f32[2, 2][2, 1]cpu\" = x.new_tensor([[1, 2], [3, 4]])\n"
            "        bt: \"f32[2, 2, 3][0, 3, 1]cpu\" = x.broadcast_to((2, 2, 3))\n"
            "        mv: \"f32[3, 2][1, 3]cpu\" = torch.movedim(x, 0, 1)\n"
            "        tl: \"f32[2, 6][6, 1]cpu\" = x.tile((2,))\n"
            "        sqr: \"f32[2, 3][3, 1]cpu\" = torch.square(x)\n"
            "        cr: \"f32[2, 3][3, 1]cpu\" = torch.cross(x, y, dim = -1)\n"
            "        ps: \"f32[2, 3][3, 1]cpu\" = x.positive()\n"
            "        return (mul, sub, gt, ab, sw, ars, ms, cnz, fin, nm, df, fp, nt, bt, mv, tl, sqr, cr, ps)\n",
            {fxtest::tv({2, 3}, x), fxtest::tv({2, 3}, y)});
        if (QTest::currentTestFailed()) return;
        QCOMPARE(out.size(), size_t(19));
        using V = std::vector<double>;
        QCOMPARE(fxtest::values(out[0]), (V{3, -2, 6, 0, 25, -24}));
        QCOMPARE(fxtest::values(out[1]), (V{2, -3, -1, -4, 0, -10}));
        QCOMPARE(fxtest::values(out[2]), (V{1, 0, 0, 0, 0, 0}));
        QCOMPARE(fxtest::values(out[3]), (V{3, 1, 2, 0, 5, 4}));
        QCOMPARE(out[4].t.shape(), (std::vector<int64_t>{3, 2}));
        QCOMPARE(fxtest::values(out[4]), (V{3, 0, -1, 5, 2, -4}));
        QCOMPARE(fxtest::values(out[5]), (V{1, 2, 0, 2, 0, 1}));
        QCOMPARE(out[5].t.dtype(), DType::Int64);
        QCOMPARE(fxtest::values(out[6]), (V{0, -1, -4, 3, 5, 2}));
        QCOMPARE(fxtest::values(out[7]), (V{3, 2}));
        QCOMPARE(out[7].t.dtype(), DType::Int64);
        // log: 3, nan, 2 | -inf, 5, nan.
        QCOMPARE(fxtest::values(out[8]), (V{1, 0, 1, 0, 1, 0}));
        // sqrt: sqrt3, nan, sqrt2 | 0, sqrt5, nan: the mean of the non-NaN ones.
        FX_COMPARE_VEC(fxtest::values(out[9]), (V{(std::sqrt(3.0) + std::sqrt(2.0)) / 2, std::sqrt(5.0) / 2}), 1e-6);
        QCOMPARE(fxtest::values(out[10]), (V{-4, 3, 5, -9}));
        QCOMPARE(out[11].t.dtype(), DType::Float64);
        QCOMPARE(fxtest::values(out[11]), (V{9, 1, 4, 0, 25, 16}));
        QCOMPARE(fxtest::values(out[12]), (V{1, 2, 3, 4}));
        QCOMPARE(out[12].t.dtype(), DType::Float32);
        QCOMPARE(fxtest::values(out[13]), (V{3, -1, 2, 0, 5, -4, 3, -1, 2, 0, 5, -4}));
        QCOMPARE(fxtest::values(out[14]), (V{3, 0, -1, 5, 2, -4}));
        QCOMPARE(fxtest::values(out[15]), (V{3, -1, 2, 3, -1, 2, 0, 5, -4, 0, 5, -4}));
        QCOMPARE(fxtest::values(out[16]), (V{9, 1, 4, 0, 25, 16}));
        // (3, -1, 2) x (1, 2, 3) and (0, 5, -4) x (4, 5, 6).
        QCOMPARE(fxtest::values(out[17]), (V{-7, -7, 7, 50, -16, -20}));
        QCOMPARE(fxtest::values(out[18]), x);
    }

    void badArgumentsAreErrors() {
        for (const char* call : {"x.new_tensor([[1, 2], [3]])", "torch.movedim(x, 0, 5)", "torch.cross(x, x)"}) {
            auto g = readFxText(std::string("class GraphModule(torch.nn.Module):\n    def forward(self, L_x_: "
                                            "\"f32[2, 2][2, 1]cpu\"):\n        x = L_x_\n"
                                            "        r: \"f32[2, 2][2, 1]cpu\" = ") +
                                    call + "\n        return (r,)\n",
                                "dynamo.py");
            QVERIFY(g.ok());
            Status st = lowerToAten(**g);
            QVERIFY2(!st.ok(), call);
        }
    }
};

QTEST_GUILESS_MAIN(TestDynamoComposites)
#include "tst_dynamo_composites.moc"
