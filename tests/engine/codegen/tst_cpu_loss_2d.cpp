// nll_loss2d_forward / nll_loss2d_backward, what cross entropy over (N, C, H, W) scores becomes
// (segmentation models): values worked out by hand for every reduction, a weight and an ignored
// class, on the reference executor, on the CPU backend (lowered: no fallback) and through the
// CUDA backend's lowering (no fallback; its source compiles without a device).
#include "cpu_lowering_check.h"
#include "test_util.h"

#include "exec/run_check.h"

using namespace fxray;
using D = std::vector<double>;

class TestCpuLoss2d : public QObject {
    Q_OBJECT
private slots:
    void nllLoss2dEverywhere() {
        // self [1, 2, 1, 2]: class 0 scores (0.5, -1), class 1 scores (2, 3); targets (1, 0);
        // weights (2, 3). Per pixel: -3 * 2 = -6 and -2 * -1 = 2; summed -4 over weight 5.
        auto g = fxtest::parseForward(
            "x: \"f32[1, 2, 1, 2][4, 2, 2, 1]cpu\", t: \"i64[1, 1, 2][2, 2, 1]cpu\", w: \"f32[2][1]cpu\", "
            "go: \"f32[][]cpu\"",
            "        f0 = torch.ops.aten.nll_loss2d_forward.default(x, t, w, 0, -100)\n"
            "        none: \"f32[1, 1, 2][2, 2, 1]cpu\" = f0[0]\n"
            "        f1 = torch.ops.aten.nll_loss2d_forward.default(x, t, w, 1, -100)\n"
            "        mean: \"f32[][]cpu\" = f1[0]\n"
            "        tw: \"f32[][]cpu\" = f1[1]\n"
            "        f2 = torch.ops.aten.nll_loss2d_forward.default(x, t, None, 2, 1)\n"
            "        sum_ignored: \"f32[][]cpu\" = f2[0]\n"
            "        back: \"f32[1, 2, 1, 2][4, 2, 2, 1]cpu\" = torch.ops.aten.nll_loss2d_backward.default(go, x, t, "
            "w, "
            "1, -100, tw)\n"
            "        return (none, mean, tw, sum_ignored, back)\n");
        QVERIFY(g);
        std::vector<Value> in{fxtest::tv({1, 2, 1, 2}, {0.5, -1, 2, 3}), fxtest::tv({1, 1, 2}, {1, 0}, DType::Int64),
                              fxtest::tv({2}, {2, 3}), fxtest::tv({}, {1})};
        // The ignored class 1 leaves pixel 2: -(-1) = 1 unweighted. The mean's gradient: -w_t / 5
        // at each pixel's target class.
        const std::vector<D> want{{-6, 2}, {-0.8}, {5}, {1}, {0, -0.4, -0.6, 0}};
        RunRequest req;
        req.inputs = in;
        auto ref = runAndCheck(*g, req, nullptr);
        QVERIFY2(ref.ok(), ref.ok() ? "" : ref.error().str().c_str());
        for (size_t i = 0; i < want.size(); ++i) FX_COMPARE_VEC(fxtest::values(ref->outputs[i]), want[i], 1e-6);
        std::vector<Value> out;
        fxtest::runCpuWithoutFallback(*g, in, out);
        if (QTest::currentTestFailed()) return;
        for (size_t i = 0; i < want.size(); ++i) FX_COMPARE_VEC(fxtest::values(out[i]), want[i], 1e-6);
        if (!fxtest::cudaLowersWithoutFallback(*g, in))
            QSKIP("NVRTC cannot be loaded: the CUDA lowering is not checked");
    }

    void nllLoss2dChecksItsShapes() {
        // A target whose spatial size differs from the scores': the message says so.
        auto g = fxtest::parseForward("x: \"f32[1, 2, 1, 2][4, 2, 2, 1]cpu\", t: \"i64[1, 1, 3][3, 3, 1]cpu\"",
                                      "        f0 = torch.ops.aten.nll_loss2d_forward.default(x, t, None, 1, -100)\n"
                                      "        loss: \"f32[][]cpu\" = f0[0]\n"
                                      "        return (loss,)\n");
        QVERIFY(g);
        RunRequest req;
        req.inputs = {fxtest::tv({1, 2, 1, 2}, {0, 0, 0, 0}), fxtest::tv({1, 1, 3}, {0, 0, 0}, DType::Int64)};
        auto r = runAndCheck(*g, req, nullptr);
        QVERIFY(!r.ok());
        QVERIFY2(r.error().str().find("spatial sizes don't match") != std::string::npos, r.error().str().c_str());
    }
};

QTEST_GUILESS_MAIN(TestCpuLoss2d)
#include "tst_cpu_loss_2d.moc"
