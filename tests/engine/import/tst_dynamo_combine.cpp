// Dynamo graphs calling the composites of dynamo_lowering_combine.cpp (tensor_split, kron,
// block_diag, cartesian_prod, combinations, sum_to_size, cov, corrcoef, polygamma,
// special.xlog1py, special.log_softmax): lowered to ATen and run on the reference executor,
// against values worked out by hand.
#include "dynamo_run.h"
#include "test_util.h"

#include <cmath>
#include <limits>

using namespace fxray;
using fxtest::lowerAndRun;
using V = std::vector<double>;

class TestDynamoCombine : public QObject {
    Q_OBJECT
private slots:
    void splitsAndProducts() {
        auto out = lowerAndRun(
            "L_x_: \"f32[2, 3][3, 1]cpu\", L_a_: \"f32[2, 2][2, 1]cpu\", L_b_: \"f32[2, 2][2, 1]cpu\", "
            "L_u_: \"f32[2][1]cpu\", L_w_: \"f32[3][1]cpu\"",
            "        x = L_x_\n        a = L_a_\n        b = L_b_\n        u = L_u_\n        w = L_w_\n"
            "        ts = torch.tensor_split(x, 2, 1)\n"
            "        t0: \"f32[2, 2][3, 1]cpu\" = ts[0]\n"
            "        t1: \"f32[2, 1][3, 1]cpu\" = ts[1];  ts = None\n"
            "        ti = x.tensor_split([1], dim = 1)\n"
            "        i1: \"f32[2, 2][3, 1]cpu\" = ti[1];  ti = None\n"
            "        kr: \"f32[4, 4][4, 1]cpu\" = torch.kron(a, b)\n"
            "        bd: \"f32[4, 4][4, 1]cpu\" = torch.block_diag(a, b)\n"
            "        cp: \"f32[6, 2][2, 1]cpu\" = torch.cartesian_prod(u, w)\n"
            "        cb: \"f32[3, 2][2, 1]cpu\" = torch.combinations(w)\n"
            "        cr: \"f32[3, 2][2, 1]cpu\" = torch.combinations(u, with_replacement = True)\n"
            "        s1: \"f32[1, 3][3, 1]cpu\" = x.sum_to_size(1, 3)\n"
            "        s2: \"f32[3][1]cpu\" = x.sum_to_size((3,))\n"
            "        s3: \"f32[][]cpu\" = x.sum_to_size()\n"
            "        return (t0, t1, i1, kr, bd, cp, cb, cr, s1, s2, s3)\n",
            {fxtest::tv({2, 3}, {1, 2, 3, 4, 5, 6}), fxtest::tv({2, 2}, {1, 2, 3, 4}), fxtest::tv({2, 2}, {0, 1, 1, 0}),
             fxtest::tv({2}, {1, 2}), fxtest::tv({3}, {3, 4, 5})});
        if (QTest::currentTestFailed()) return;
        QCOMPARE(out.size(), size_t(11));
        QCOMPARE(fxtest::values(out[0]), (V{1, 2, 4, 5}));
        QCOMPARE(fxtest::values(out[1]), (V{3, 6}));
        QCOMPARE(fxtest::values(out[2]), (V{2, 3, 5, 6}));
        QCOMPARE(fxtest::values(out[3]), (V{0, 1, 0, 2, 1, 0, 2, 0, 0, 3, 0, 4, 3, 0, 4, 0}));
        QCOMPARE(fxtest::values(out[4]), (V{1, 2, 0, 0, 3, 4, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0}));
        QCOMPARE(fxtest::values(out[5]), (V{1, 3, 1, 4, 1, 5, 2, 3, 2, 4, 2, 5}));
        QCOMPARE(fxtest::values(out[6]), (V{3, 4, 3, 5, 4, 5}));
        QCOMPARE(fxtest::values(out[7]), (V{1, 1, 1, 2, 2, 2}));
        QCOMPARE(out[8].t.meta.shape, (std::vector<int64_t>{1, 3}));
        QCOMPARE(fxtest::values(out[8]), (V{5, 7, 9}));
        QCOMPARE(fxtest::values(out[9]), (V{5, 7, 9}));
        QVERIFY(out[10].t.meta.shape.empty());  // a 0-d size: every dim summed
        QCOMPARE(fxtest::values(out[10]), (V{21}));
    }

    // Rows are variables: [1, 2, 4] and [2, 0, 1] centre to [-4/3, -1/3, 5/3] and [1, -1, 0], so
    // cov = [[7/3, -1/2], [-1/2, 1]] over N - 1 = 2 and [[14/9, -1/3], [-1/3, 2/3]] over 3.
    void covariance() {
        auto out = lowerAndRun("L_y_: \"f32[2, 3][3, 1]cpu\", L_v_: \"f32[3][1]cpu\"",
                               "        y = L_y_\n        v = L_v_\n"
                               "        c1: \"f32[2, 2][2, 1]cpu\" = torch.cov(y)\n"
                               "        c0: \"f32[2, 2][2, 1]cpu\" = y.cov(correction = 0)\n"
                               "        cc: \"f32[2, 2][2, 1]cpu\" = torch.corrcoef(y)\n"
                               "        cv: \"f32[][]cpu\" = torch.cov(v)\n"
                               "        return (c1, c0, cc, cv)\n",
                               {fxtest::tv({2, 3}, {1, 2, 4, 2, 0, 1}), fxtest::tv({3}, {1, 2, 6})});
        if (QTest::currentTestFailed()) return;
        FX_COMPARE_VEC(fxtest::values(out[0]), (V{7.0 / 3, -0.5, -0.5, 1}), 1e-6);
        FX_COMPARE_VEC(fxtest::values(out[1]), (V{14.0 / 9, -1.0 / 3, -1.0 / 3, 2.0 / 3}), 1e-6);
        const double r = -0.5 / std::sqrt(7.0 / 3);
        FX_COMPARE_VEC(fxtest::values(out[2]), (V{1, r, r, 1}), 1e-6);
        QVERIFY(out[3].t.meta.shape.empty());
        FX_COMPARE_VEC(fxtest::values(out[3]), (V{7}), 1e-6);  // [1, 2, 6]: mean 3, (4 + 1 + 9) / 2
    }

    // polygamma(1, 1) = pi^2/6 and polygamma(0, 1) = -Euler's gamma; xlog1py(0, NaN) is NaN,
    // xlog1py(0, 3) is 0; special.log_softmax is log_softmax.
    void specialFunctions() {
        const double nan = std::numeric_limits<double>::quiet_NaN();
        auto out = lowerAndRun("L_x_: \"f32[1][1]cpu\", L_p_: \"f32[3][1]cpu\", L_q_: \"f32[3][1]cpu\"",
                               "        x = L_x_\n        p = L_p_\n        q = L_q_\n"
                               "        t: \"f32[1][1]cpu\" = x.polygamma(1)\n"
                               "        d: \"f32[1][1]cpu\" = torch.polygamma(0, x)\n"
                               "        xl: \"f32[3][1]cpu\" = torch.special.xlog1py(p, q)\n"
                               "        ls: \"f32[3][1]cpu\" = torch.special.log_softmax(q, 0)\n"
                               "        return (t, d, xl, ls)\n",
                               {fxtest::tv({1}, {1}), fxtest::tv({3}, {0, 2, 0}), fxtest::tv({3}, {nan, 1, 3})});
        if (QTest::currentTestFailed()) return;
        FX_COMPARE_VEC(fxtest::values(out[0]), (V{M_PI * M_PI / 6}), 1e-5);
        FX_COMPARE_VEC(fxtest::values(out[1]), (V{-0.5772156649}), 1e-5);
        const V xl = fxtest::values(out[2]);
        QVERIFY(std::isnan(xl[0]));
        QCOMPARE(xl[1], double(2 * std::log(2.0f)));
        QCOMPARE(xl[2], 0.0);
        for (double v : fxtest::values(out[3])) QVERIFY(std::isnan(v));  // q holds a NaN
    }

    // A = [[1, 2], [3, 4]] (not symmetric: a transposed factorization would show): A^-1 =
    // [[-2, 1], [1.5, -0.5]], solve(A, [5, 6]) = [-4, 4.5]; the 3x3 needs a row swap (a zero
    // pivot): its inverse is [[-4.5, 7, -1.5], [-2, 4, -1], [1.5, -2, 0.5]].
    void solvesAndInverses() {
        auto out = lowerAndRun("L_a_: \"f32[2, 2][2, 1]cpu\", L_b_: \"f32[2][1]cpu\", L_m_: \"f32[3, 3][3, 1]cpu\"",
                               "        a = L_a_\n        b = L_b_\n        m = L_m_\n"
                               "        x: \"f32[2][1]cpu\" = torch.linalg.solve(a, b)\n"
                               "        ia: \"f32[2, 2][2, 1]cpu\" = torch.linalg.inv(a)\n"
                               "        im: \"f32[3, 3][3, 1]cpu\" = m.inverse()\n"
                               "        bc: \"f32[2, 1][1, 1]cpu\" = b.unsqueeze(-1)\n"
                               "        xm: \"f32[2, 1][1, 1]cpu\" = torch.linalg.solve(a, bc)\n"
                               "        return (x, ia, im, xm)\n",
                               {fxtest::tv({2, 2}, {1, 2, 3, 4}), fxtest::tv({2}, {5, 6}),
                                fxtest::tv({3, 3}, {0, 1, 2, 1, 0, 3, 4, -3, 8})});
        if (QTest::currentTestFailed()) return;
        FX_COMPARE_VEC(fxtest::values(out[0]), (V{-4, 4.5}), 1e-5);
        FX_COMPARE_VEC(fxtest::values(out[1]), (V{-2, 1, 1.5, -0.5}), 1e-5);
        FX_COMPARE_VEC(fxtest::values(out[2]), (V{-4.5, 7, -1.5, -2, 4, -1, 1.5, -2, 0.5}), 1e-5);
        FX_COMPARE_VEC(fxtest::values(out[3]), (V{-4, 4.5}), 1e-5);
    }

    void badArgumentsAreErrors() {
        const std::string params = "L_x_: \"f32[2, 3][3, 1]cpu\"";
        QVERIFY(fxtest::loweringRefuses(params, "        x = L_x_\n        r = torch.tensor_split(x, 0)\n        return (r,)\n"));
        QVERIFY(fxtest::loweringRefuses(params, "        x = L_x_\n        r = torch.combinations(x)\n        return (r,)\n"));
        QVERIFY(fxtest::loweringRefuses(params, "        x = L_x_\n        r = x.sum_to_size(2, 2)\n        return (r,)\n"));
        QVERIFY(fxtest::loweringRefuses(params, "        x = L_x_\n        r = torch.cov(x, fweights = x)\n        return (r,)\n"));
        // Sizes the rules must not index or allocate blindly.
        QVERIFY(fxtest::loweringRefuses(params, "        x = L_x_\n        r = torch.tensor_split(x, 1000000000)\n        return (r,)\n"));
        const std::string vec = "L_v_: \"f32[3][1]cpu\"";
        QVERIFY(fxtest::loweringRefuses(vec, "        v = L_v_\n        r = torch.combinations(v, 1000000000)\n        return (r,)\n"));
        QVERIFY(fxtest::loweringRefuses(vec, "        v = L_v_\n        r = torch.combinations(v, 4)\n        return (r,)\n"));
    }
};

QTEST_GUILESS_MAIN(TestDynamoCombine)
#include "tst_dynamo_combine.moc"
