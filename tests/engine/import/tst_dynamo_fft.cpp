// torch.fft's functions in Dynamo graphs (dynamo_lowering_fft.cpp): lowered to the ATen FFT ops,
// run through the complex rewrite on the reference executor, against DFTs worked out by hand and
// round trips.
#include "dynamo_run.h"
#include "test_util.h"

#include <cmath>

using namespace fxray;
using fxtest::lowerAndRun;
using V = std::vector<double>;

class TestDynamoFft : public QObject {
    Q_OBJECT
private slots:
    // x = [1, 2, 3, 4]: rfft = [10, -2 + 2i, -2]; fft two-sided adds -2 - 2i; fft(x, n=2) is of
    // [1, 2]: [3, -1]; ortho scales by 1/2; ifft of a real x is conj(fft(x)) / 4; irfft(rfft(x))
    // is x; fft of the int tensor [1, 0] is [1, 1].
    void oneDimensional() {
        auto out = lowerAndRun(
            "L_x_: \"f32[4][1]cpu\", L_i_: \"i64[2][1]cpu\"",
            "        x = L_x_\n        i = L_i_\n"
            "        r: \"c64[3][1]cpu\" = torch.fft.rfft(x)\n"
            "        rr: \"f32[3, 2][2, 1]cpu\" = torch.view_as_real(r)\n"
            "        f: \"c64[4][1]cpu\" = torch.fft.fft(x)\n"
            "        fr: \"f32[4, 2][2, 1]cpu\" = torch.view_as_real(f)\n"
            "        s: \"c64[2][1]cpu\" = torch.fft.fft(x, n = 2)\n"
            "        sr: \"f32[2, 2][2, 1]cpu\" = torch.view_as_real(s)\n"
            "        o: \"c64[3][1]cpu\" = torch.fft.rfft(x, norm = 'ortho')\n"
            "        orr: \"f32[3, 2][2, 1]cpu\" = torch.view_as_real(o)\n"
            "        v: \"c64[4][1]cpu\" = torch.fft.ifft(x)\n"
            "        vr: \"f32[4, 2][2, 1]cpu\" = torch.view_as_real(v)\n"
            "        back: \"f32[4][1]cpu\" = torch.fft.irfft(r, n = 4)\n"
            "        fi: \"c64[2][1]cpu\" = torch.fft.fft(i)\n"
            "        fir: \"f32[2, 2][2, 1]cpu\" = torch.view_as_real(fi)\n"
            "        return (rr, fr, sr, orr, vr, back, fir)\n",
            {fxtest::tv({4}, {1, 2, 3, 4}), fxtest::tv({2}, {1, 0}, DType::Int64)});
        if (QTest::currentTestFailed()) return;
        FX_COMPARE_VEC(fxtest::values(out[0]), (V{10, 0, -2, 2, -2, 0}), 1e-5);
        FX_COMPARE_VEC(fxtest::values(out[1]), (V{10, 0, -2, 2, -2, 0, -2, -2}), 1e-5);
        FX_COMPARE_VEC(fxtest::values(out[2]), (V{3, 0, -1, 0}), 1e-5);
        FX_COMPARE_VEC(fxtest::values(out[3]), (V{5, 0, -1, 1, -1, 0}), 1e-5);
        FX_COMPARE_VEC(fxtest::values(out[4]), (V{2.5, 0, -0.5, -0.5, -0.5, 0, -0.5, 0.5}), 1e-5);
        FX_COMPARE_VEC(fxtest::values(out[5]), (V{1, 2, 3, 4}), 1e-5);
        FX_COMPARE_VEC(fxtest::values(out[6]), (V{1, 0, 1, 0}), 1e-6);
    }

    // [[1, 2], [3, 4]]: fft2 = [[10, -2], [-4, 0]]; ifft2 of it is x; rfftn over both dims is the
    // same with the last dim halved (2 // 2 + 1 = 2 bins); irfft2 back to x. fftshift of
    // [0, 1, 2, 3, 4] is [3, 4, 0, 1, 2], ifftshift undoes it; fftfreq(5) and rfftfreq(4).
    void manyDimsShiftsAndFrequencies() {
        auto out = lowerAndRun(
            "L_x_: \"f32[2, 2][2, 1]cpu\", L_a_: \"f32[5][1]cpu\"",
            "        x = L_x_\n        a = L_a_\n"
            "        f: \"c64[2, 2][2, 1]cpu\" = torch.fft.fft2(x)\n"
            "        fr: \"f32[2, 2, 2][4, 2, 1]cpu\" = torch.view_as_real(f)\n"
            "        b: \"c64[2, 2][2, 1]cpu\" = torch.fft.ifft2(f)\n"
            "        br: \"f32[2, 2, 2][4, 2, 1]cpu\" = torch.view_as_real(b)\n"
            "        r: \"c64[2, 2][2, 1]cpu\" = torch.fft.rfftn(x)\n"
            "        x2: \"f32[2, 2][2, 1]cpu\" = torch.fft.irfft2(r, s = (2, 2))\n"
            "        sh: \"f32[5][1]cpu\" = torch.fft.fftshift(a)\n"
            "        un: \"f32[5][1]cpu\" = torch.fft.ifftshift(sh)\n"
            "        q: \"f32[5][1]cpu\" = torch.fft.fftfreq(5)\n"
            "        rq: \"f32[3][1]cpu\" = torch.fft.rfftfreq(4, d = 0.5)\n"
            "        return (fr, br, x2, sh, un, q, rq)\n",
            {fxtest::tv({2, 2}, {1, 2, 3, 4}), fxtest::tv({5}, {0, 1, 2, 3, 4})});
        if (QTest::currentTestFailed()) return;
        FX_COMPARE_VEC(fxtest::values(out[0]), (V{10, 0, -2, 0, -4, 0, 0, 0}), 1e-5);
        FX_COMPARE_VEC(fxtest::values(out[1]), (V{1, 0, 2, 0, 3, 0, 4, 0}), 1e-5);
        FX_COMPARE_VEC(fxtest::values(out[2]), (V{1, 2, 3, 4}), 1e-5);
        QCOMPARE(fxtest::values(out[3]), (V{3, 4, 0, 1, 2}));
        QCOMPARE(fxtest::values(out[4]), (V{0, 1, 2, 3, 4}));
        FX_COMPARE_VEC(fxtest::values(out[5]), (V{0, 0.2, 0.4, -0.4, -0.2}), 1e-6);
        FX_COMPARE_VEC(fxtest::values(out[6]), (V{0, 0.5, 1}), 1e-6);
    }

    void badArgumentsAreErrors() {
        const std::string p = "L_x_: \"f32[4][1]cpu\"";
        QVERIFY(fxtest::loweringRefuses(p, "        x = L_x_\n        r = torch.fft.fft(x, norm = 'bad')\n        return (r,)\n"));
        QVERIFY(fxtest::loweringRefuses(p, "        x = L_x_\n        r = torch.fft.fft(x, dim = 3)\n        return (r,)\n"));
        QVERIFY(fxtest::loweringRefuses(p, "        x = L_x_\n        r = torch.fft.fft(x, n = 0)\n        return (r,)\n"));
        QVERIFY(fxtest::loweringRefuses(p, "        x = L_x_\n        r = torch.fft.fftn(x, s = (2, 2), dim = 0)\n        return (r,)\n"));
    }
};

QTEST_GUILESS_MAIN(TestDynamoFft)
#include "tst_dynamo_fft.moc"
