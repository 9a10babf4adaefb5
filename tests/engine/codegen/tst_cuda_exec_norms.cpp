// Reductions on the CUDA backend (label gpu): the column-reduction launch (bias and LayerNorm
// weight gradients: split rows, unsplit, and one block per column, each against the reference
// executor and bit-for-bit between runs) and batch norm's device externs (the in-place running
// statistics updates and evaluation mode by hand; training forward and backward over many
// elements, the launch that cuts channels into parts, against the reference). The by-hand values
// are checked on the reference executor too, also without a GPU. Skipped with the reason
// without a device. (Split from tst_cuda_exec_ops.cpp.)
#include "cuda_exec_util.h"
#include "test_util.h"

#include "exec/run_check.h"

#include <cmath>

using namespace fxray;
using namespace cudatest;

class TestCudaExecNorms : public QObject {
    Q_OBJECT
private slots:
    void column_reductions_vs_reference() {
        // Sums over rows into columns (bias gradients) with a fused pointwise result stored from
        // the row loop (gelu_backward), a max over rows, and a LayerNorm backward's weight
        // gradients: the column-reduction launch (32 columns per block, warps splitting the rows;
        // cuda_source.h) against the reference executor. 2050 columns (16 per block) and 300 (8
        // per block, over two reduced dims): the last block's threads past the end must neither
        // store nor hang at the barriers.
        auto g = fxtest::parseForward("x: " + ann({600, 2050}) + ", y: " + ann({600, 2050}) + ", w: " + ann({2050}) +
                                          ", z: " + ann({4, 175, 300}),
                                      "        gelu_backward: " + ann({600, 2050}) +
                                          " = torch.ops.aten.gelu_backward.default(x, y)\n"
                                          "        sum_1: " +
                                          ann({1, 2050}) +
                                          " = torch.ops.aten.sum.dim_IntList(gelu_backward, [0], True)\n"
                                          "        amax: " +
                                          ann({2050}) +
                                          " = torch.ops.aten.amax.default(y, [0])\n"
                                          "        mean: " +
                                          ann({600, 1}) +
                                          " = torch.ops.aten.mean.dim(y, [1], True)\n"
                                          "        sub: " +
                                          ann({600, 2050}) +
                                          " = torch.ops.aten.sub.Tensor(y, mean)\n"
                                          "        mul: " +
                                          ann({600, 2050}) +
                                          " = torch.ops.aten.mul.Tensor(x, sub)\n"
                                          "        sum_2: " +
                                          ann({2050}) +
                                          " = torch.ops.aten.sum.dim_IntList(mul, [0])\n"
                                          "        mul_1: " +
                                          ann({600, 2050}) +
                                          " = torch.ops.aten.mul.Tensor(x, w)\n"
                                          "        sum_3: " +
                                          ann({300}) +
                                          " = torch.ops.aten.sum.dim_IntList(z, [0, 1])\n"
                                          "        return (gelu_backward, sum_1, amax, sum_2, mul_1, sum_3)\n");
        QVERIFY(g);
        auto in = randomInputs(*g, 5);
        QVERIFY2(in.ok(), in.ok() ? "" : in.error().str().c_str());
        auto ref = reference(*g, *in);
        QVERIFY(!ref.empty());
        SKIP_WITHOUT_DEVICE();
        for (const char* mode : {"1", "nosplit", "0"}) {
            // The column launch with its rows cut into parts (129 and 38 tiles: splitRows), without
            // the cut, and, as a check of the check, the block-per-column one. Split sums are
            // deterministic: a second run gives the same bits (the parts combine in part order,
            // whichever block finishes last), and the tile counters are back at zero for it.
            qputenv("FXRAY_CUDA_COLREDUCE", mode);
            auto r = runOnDevice(*g, *in);
            QVERIFY2(r.error.empty(), r.error.c_str());
            QCOMPARE(r.outputs.size(), ref.size());
            for (size_t i = 0; i < r.outputs.size(); ++i) {
                auto cmp = compareValues(i, r.outputs[i], ref[i]);
                QVERIFY2(cmp.ok, qPrintable(QString("output %1 rel_err %2").arg(i).arg(cmp.relErr)));
            }
            QVERIFY2(r.stats.hostOps.empty(), hostOps(r).c_str());
            auto again = runOnDevice(*g, *in);
            QVERIFY2(again.error.empty(), again.error.c_str());
            for (size_t i = 0; i < r.outputs.size(); ++i)
                QVERIFY2(fxtest::values(again.outputs[i]) == fxtest::values(r.outputs[i]),
                         qPrintable(QString("output %1 differs between runs (%2)").arg(i).arg(mode)));
        }
        qunsetenv("FXRAY_CUDA_COLREDUCE");
    }

    void batch_norm_update_by_hand_data() {
        QTest::addColumn<QString>("call");  // the op with its arguments x, w, b, rm, rv
        QTest::addColumn<bool>("reserve");  // a fourth (empty) output
        QTest::newRow("native_batch_norm")
            << QString("native_batch_norm.default(x, w, b, rm, rv, True, 0.5, 0.0)") << false;
        QTest::newRow("_native_batch_norm_legit")
            << QString("_native_batch_norm_legit.default(x, w, b, rm, rv, True, 0.5, 0.0)") << false;
        QTest::newRow("cudnn_batch_norm")
            << QString("cudnn_batch_norm.default(x, w, b, rm, rv, True, 0.5, 0.0)") << true;
        QTest::newRow("_batch_norm_with_update")
            << QString("_batch_norm_with_update.default(x, w, b, rm, rv, 0.5, 0.0)") << true;
    }

    void batch_norm_update_by_hand() {
        // x [N 2, C 2]: channel 0 holds 1, 3 (mean 2, biased var 1, unbiased 2), channel 1 holds
        // 2, 6 (mean 4, var 4, unbiased 8); eps 0: invstd 1, 0.5. w [1, 2], b [0, 1]: y = [[-1, -1],
        // [1, 3]]. Running stats 0, 1 with momentum 0.5 become [1, 2] and [1.5, 4.5], written in
        // place: the clones after the op read them.
        QFETCH(QString, call);
        QFETCH(bool, reserve);
        auto g =
            fxtest::parseForward("x: \"f32[2, 2][2, 1]cuda:0\", w: \"f32[2][1]cuda:0\", b: \"f32[2][1]cuda:0\", rm: "
                                 "\"f32[2][1]cuda:0\", rv: \"f32[2][1]cuda:0\"",
                                 "        bn = torch.ops.aten." + call.toStdString() +
                                     "\n"
                                     "        getitem: \"f32[2, 2][2, 1]cuda:0\" = bn[0]\n"
                                     "        getitem_1: \"f32[2][1]cuda:0\" = bn[1]\n"
                                     "        getitem_2: \"f32[2][1]cuda:0\" = bn[2]\n" +
                                     std::string(reserve ? "        getitem_3: \"u8[0][1]cuda:0\" = bn[3]\n" : "") +
                                     "        clone: \"f32[2][1]cuda:0\" = torch.ops.aten.clone.default(rm)\n"
                                     "        clone_1: \"f32[2][1]cuda:0\" = torch.ops.aten.clone.default(rv)\n"
                                     "        return (getitem, getitem_1, getitem_2, clone, clone_1" +
                                     std::string(reserve ? ", getitem_3)\n" : ")\n"));
        QVERIFY(g);
        // Fresh inputs per run: the op writes the running statistics in place.
        auto inputs = [] {
            return std::vector<Value>{fxtest::tv({2, 2}, {1, 2, 3, 6}), fxtest::tv({2}, {1, 2}),
                                      fxtest::tv({2}, {0, 1}), fxtest::tv({2}, {0, 0}), fxtest::tv({2}, {1, 1})};
        };
        const std::vector<std::vector<double>> want{{-1, -1, 1, 3}, {2, 4}, {1, 0.5}, {1, 2}, {1.5, 4.5}};
        // cuDNN's reserve, returned as the OpInfo graphs of _batch_norm_with_update do, is an
        // empty tensor, not None.
        const size_t nOut = reserve ? 6 : 5;
        auto ref = reference(*g, inputs());
        QCOMPARE(ref.size(), nOut);
        for (size_t i = 0; i < 5; ++i) FX_COMPARE_VEC(fxtest::values(ref[i]), want[i], 1e-5);
        if (reserve) QVERIFY(ref[5].isTensor() && ref[5].t.numel() == 0);
        SKIP_WITHOUT_DEVICE();
        auto r = runOnDevice(*g, inputs());
        QVERIFY2(r.error.empty(), r.error.c_str());
        QCOMPARE(r.outputs.size(), nOut);
        for (size_t i = 0; i < 5; ++i) FX_COMPARE_VEC(fxtest::values(r.outputs[i]), want[i], 1e-5);
        if (reserve) QVERIFY(r.outputs[5].isTensor() && r.outputs[5].t.numel() == 0);
        QVERIFY2(r.stats.hostOps.empty(), hostOps(r).c_str());
    }

    void batch_norm_many_elements_vs_reference_data() {
        QTest::addColumn<QString>("dtype");
        QTest::newRow("f32") << QString("f32");
        QTest::newRow("f64") << QString("f64");
    }

    void batch_norm_many_elements_vs_reference() {
        // 3 channels of 4 x 128 x 128 elements: the kernels that cut a channel into parts
        // (kernels/builtin.cu, fx_bn_stats_partial; 8 parts a channel on an H100/H200) for the
        // training forward with running statistics, and the backward in training and evaluation
        // mode. x is offset by 100 so that the shifted sums matter: a variance from plain sums
        // of squares would lose the spread of the values to their mean.
        QFETCH(QString, dtype);
        const std::string t = dtype.toStdString();
        const std::vector<int64_t> X{4, 3, 128, 128}, C{3};
        const std::string x = ann(X, t), c = ann(C, t);
        auto g = fxtest::parseForward(
            "x: " + x + ", gy: " + x + ", w: " + c + ", b: " + c + ", rm: " + c + ", rv: " + c,
            "        add: " + x + " = torch.ops.aten.add.Tensor(x, 100.0)\n" +
                "        bn = torch.ops.aten._native_batch_norm_legit_functional.default(add, w, b, rm, rv, True, "
                "0.1, 1e-05)\n"
                "        getitem: " + x + " = bn[0]\n" +
                "        getitem_1: " + c + " = bn[1]\n" +
                "        getitem_2: " + c + " = bn[2]\n" +
                "        getitem_3: " + c + " = bn[3]\n" +
                "        getitem_4: " + c + " = bn[4]\n" +
                "        bwd = torch.ops.aten.native_batch_norm_backward.default(gy, add, w, rm, rv, getitem_1, "
                "getitem_2, True, 1e-05, [True, True, True])\n"
                "        getitem_5: " + x + " = bwd[0]\n" +
                "        getitem_6: " + c + " = bwd[1]\n" +
                "        getitem_7: " + c + " = bwd[2]\n" +
                "        abs_1: " + c + " = torch.ops.aten.abs.default(rv)\n" +
                "        ev = torch.ops.aten.native_batch_norm_backward.default(gy, add, w, rm, abs_1, None, None, "
                "False, 1e-05, [True, True, False])\n"
                "        getitem_8: " + x + " = ev[0]\n" +
                "        getitem_9: " + c + " = ev[1]\n" +
                "        return (getitem, getitem_1, getitem_2, getitem_3, getitem_4, getitem_5, getitem_6, "
                "getitem_7, getitem_8, getitem_9)\n");
        QVERIFY(g);
        auto in = randomInputs(*g, 11);
        QVERIFY2(in.ok(), in.ok() ? "" : in.error().str().c_str());
        auto ref = reference(*g, *in);
        QCOMPARE(ref.size(), size_t(10));
        SKIP_WITHOUT_DEVICE();
        auto r = runOnDevice(*g, *in);
        QVERIFY2(r.error.empty(), r.error.c_str());
        QCOMPARE(r.outputs.size(), ref.size());
        for (size_t i = 0; i < r.outputs.size(); ++i) {
            auto cmp = compareValues(i, r.outputs[i], ref[i]);
            QVERIFY2(cmp.ok, qPrintable(QString("output %1 rel_err %2").arg(i).arg(cmp.relErr)));
        }
        QVERIFY2(r.stats.hostOps.empty(), hostOps(r).c_str());
    }

    void batch_norm_eval_by_hand_data() {
        QTest::addColumn<QString>("op");
        QTest::addColumn<bool>("cudnn");  // cuDNN saves no statistics in evaluation ([0]) and has a reserve output
        QTest::newRow("native_batch_norm") << QString("native_batch_norm") << false;
        QTest::newRow("_native_batch_norm_legit") << QString("_native_batch_norm_legit") << false;
        QTest::newRow("cudnn_batch_norm") << QString("cudnn_batch_norm") << true;
    }

    void batch_norm_eval_by_hand() {
        // training False: running mean [2, 4] and var [1, 4] (eps 0: invstd 1, 0.5) normalise x
        // [[1, 2], [3, 6]] with w [1, 2], b [0, 1]: [[-1, -1], [1, 3]]; the saved statistics are the
        // running mean and invstd (PyTorch's CUDA kernels), empty for cuDNN; nothing is updated.
        QFETCH(QString, op);
        QFETCH(bool, cudnn);
        const std::vector<int64_t> saved{cudnn ? 0 : 2};
        auto g = fxtest::parseForward(
            "x: " + ann({2, 2}) + ", w: " + ann({2}) + ", b: " + ann({2}) + ", rm: " + ann({2}) + ", rv: " + ann({2}),
            "        bn = torch.ops.aten." + op.toStdString() +
                ".default(x, w, b, rm, rv, False, 0.5, 0.0)\n"
                "        getitem: " +
                ann({2, 2}) +
                " = bn[0]\n"
                "        getitem_1: " +
                ann(saved) +
                " = bn[1]\n"
                "        getitem_2: " +
                ann(saved) + " = bn[2]\n" +
                std::string(cudnn ? "        getitem_3: " + ann({0}, "u8") + " = bn[3];  getitem_3 = None\n" : "") +
                "        clone: " + ann({2}) +
                " = torch.ops.aten.clone.default(rv)\n"
                "        return (getitem, getitem_1, getitem_2, clone)\n");
        QVERIFY(g);
        // Inputs on cuda:0 as the graph says: what the op saves in evaluation depends on the device.
        auto inputs = [] {
            std::vector<Value> v{fxtest::tv({2, 2}, {1, 2, 3, 6}), fxtest::tv({2}, {1, 2}), fxtest::tv({2}, {0, 1}),
                                 fxtest::tv({2}, {2, 4}), fxtest::tv({2}, {1, 4})};
            for (Value& x : v) x.t.meta.device = Device{"cuda", 0};
            return v;
        };
        const std::vector<std::vector<double>> want{{-1, -1, 1, 3},
                                                    cudnn ? std::vector<double>{} : std::vector<double>{2, 4},
                                                    cudnn ? std::vector<double>{} : std::vector<double>{1, 0.5},
                                                    {1, 4}};
        auto ref = reference(*g, inputs());
        QCOMPARE(ref.size(), size_t(4));
        for (size_t i = 0; i < 4; ++i) FX_COMPARE_VEC(fxtest::values(ref[i]), want[i], 1e-6);
        SKIP_WITHOUT_DEVICE();
        auto r = runOnDevice(*g, inputs());
        QVERIFY2(r.error.empty(), r.error.c_str());
        for (size_t i = 0; i < 4; ++i) FX_COMPARE_VEC(fxtest::values(r.outputs[i]), want[i], 1e-6);
        QVERIFY2(r.stats.hostOps.empty(), hostOps(r).c_str());
    }
};

QTEST_GUILESS_MAIN(TestCudaExecNorms)
#include "tst_cuda_exec_norms.moc"
