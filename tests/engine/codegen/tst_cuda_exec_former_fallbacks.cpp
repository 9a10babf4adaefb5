// Device externs of ops that used to run on the host, on a GPU (label gpu): PyTorch's recorded
// OpInfo runs (embedding bags, the margin losses', pdist's and the norms' backwards, index /
// index_put by a boolean mask, linalg_lu_solve, copy_ into a graph input) judged as the sweep
// judges them, and the variants those runs do not reach (embedding bag mean / max modes,
// padding_idx, include_last_offset, scale_grad_by_freq, also embedding_dense_backward's; a mask
// with row-wise values and accumulation, a bool self, int64 accumulation; several right-hand
// sides, the adjoint and the right solve; norms without weights) against the reference executor,
// itself checked against PyTorch in its own tests. Every case asserts that no op ran on the host. The
// reference side runs without a GPU too; the rest is skipped with the reason, as is a case whose
// device extern this build does not have (deviceExternTable() names them).
#include "test_util.h"

#include "codegen/cuda/cuda_backend.h"
#include "codegen/cuda/device_externs.h"
#include "exec/compare.h"
#include "exec/run_check.h"
#include "exec/shape_inference.h"
#include "import/fx_text_reader.h"
#include "import/loader.h"
#include "import/npy.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

using namespace fxray;

namespace {

#define SKIP_WITHOUT_DEVICE()                                                                                          \
    if (Status s_ = cg::cuda::requireDevice(); !s_.ok()) QSKIP(qPrintable(QString::fromStdString(s_.error().message)))

/// The first of the device externs `names` (comma-separated) this build lacks, or empty.
std::string missingExtern(const std::string& names) {
    size_t at = 0;
    while (at <= names.size()) {
        const size_t end = std::min(names.find(',', at), names.size());
        const std::string n = names.substr(at, end - at);
        if (!n.empty() && !cg::cuda::findDeviceExtern(n)) return n;
        at = end + 1;
    }
    return {};
}

#define SKIP_WITHOUT_EXTERNS(names)                                                                                    \
    if (std::string m_ = missingExtern(names); !m_.empty())                                                            \
    QSKIP(qPrintable(QString::fromStdString("no device extern '" + m_ + "' in this build")))

std::string hostOps(const cg::cuda::RunStats& s) {
    std::string r;
    for (const auto& [op, n] : s.hostOps) r += op + " x" + std::to_string(n) + " ";
    return r;
}

/// Deterministic values in [-1, 1) that are not all alike.
std::vector<double> wave(size_t n, double phase) {
    std::vector<double> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = std::sin(1.7 * static_cast<double>(i) + phase);
    return v;
}

/// The graph on the reference executor and on the device (when this build has the device
/// `externs`): every output alike within tol, no host op, at least one device extern or GEMM.
/// `hostGap`: why some instance still declines to the host (the no-host-op check is then an
/// expected failure, which turns into a failure when the gap closes, to be removed here).
void compareWithReference(const Graph& g, const std::vector<Value>& in, double tol, const std::string& externs,
                          const char* hostGap = nullptr) {
    RunRequest req;
    req.inputs = in;
    auto ref = runAndCheck(g, req, nullptr);
    QVERIFY2(ref.ok(), ref.ok() ? "" : ref.error().str().c_str());
    SKIP_WITHOUT_DEVICE();
    SKIP_WITHOUT_EXTERNS(externs);
    cg::cuda::CudaRunInfo info;
    auto r = cg::cuda::runAndCheckCuda(g, req, nullptr, &info);
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().str().c_str());
    QCOMPARE(r->outputs.size(), ref->outputs.size());
    for (size_t i = 0; i < ref->outputs.size(); ++i) {
        QVERIFY2(r->outputs[i].isTensor() && ref->outputs[i].isTensor(), qPrintable(QString("output %1").arg(i)));
        QCOMPARE(r->outputs[i].t.shape(), ref->outputs[i].t.shape());
        QCOMPARE(r->outputs[i].t.dtype(), ref->outputs[i].t.dtype());
        FX_COMPARE_VEC(fxtest::values(r->outputs[i]), fxtest::values(ref->outputs[i]), tol);
    }
    QVERIFY2(info.fallbacks.empty(), "a fallback at compile time");
    // Where every instance of the graph declines, no device extern runs either. A GEMM extern
    // (matmul) counts among the run's cuBLAS calls, not its device externs.
    const size_t ran = info.run.deviceExterns + info.run.gemms;
    if (hostGap && ran == 0) QEXPECT_FAIL("", hostGap, Continue);
    QVERIFY(ran > 0);
    if (hostGap) QEXPECT_FAIL("", hostGap, Continue);
    QVERIFY2(info.run.hostOps.empty(), hostOps(info.run).c_str());
}

}  // namespace

class TestCudaExecFormerFallbacks : public QObject {
    Q_OBJECT
private slots:

    void opinfo_runs_data() {
        QTest::addColumn<QString>("graph");
        QTest::addColumn<QString>("externs");  // the device externs the run needs
        auto rows = [](std::initializer_list<const char*> cases, std::initializer_list<const char*> stages,
                       const char* externs) {
            for (const char* c : cases)
                for (const char* st : stages)
                    QTest::newRow((std::string(c) + "/" + st).c_str())
                        << QString("%1/numerics/%2").arg(c, st) << QString(externs);
        };
        rows({"nn_functional_embedding_bag__default__s0", "nn_functional_embedding_bag__default__s1"},
             {"forward", "backward"}, "embedding_bag,embedding_bag_backward,embedding_bag_per_sample_weights_backward");
        rows({"index_put__default__s0", "index_put__default__s1"}, {"forward", "backward"}, "index_put,index_by_mask");
        // copy_ into an alias of a graph input (the running mean's update), written in place.
        rows({"nn_functional_instance_norm__default__s0", "nn_functional_instance_norm__default__s1"}, {"forward"},
             "copy_into_input");
        rows({"nn_functional_rms_norm__default__s0", "nn_functional_rms_norm__default__s1"}, {"backward"},
             "rms_norm_backward");
        rows({"nn_functional_pdist__default__s0", "nn_functional_pdist__default__s1"}, {"backward"}, "pdist_backward");
        rows({"nn_functional_group_norm__default__s0", "nn_functional_group_norm__default__s1"}, {"backward"},
             "group_norm_backward");
        rows({"nn_functional_multi_margin_loss__default__s0", "nn_functional_multi_margin_loss__default__s1"},
             {"backward"}, "multi_margin_loss_backward");
        rows({"nn_functional_multilabel_margin_loss__default__s0", "nn_functional_multilabel_margin_loss__default__s1"},
             {"backward"}, "multilabel_margin_loss_backward");
        rows({"logdet__default__s0", "logdet__default__s1"}, {"backward"}, "lu_solve");
    }

    void opinfo_runs() {
        // PyTorch's recorded inputs and outputs (../shared/opinfo beside the corpus; the GPU
        // bundle unpacks its copy there), judged as `fxray run --expect` judges them.
        QFETCH(QString, graph);
        QFETCH(QString, externs);
        const auto stem = fxtest::corpus().parent_path() / "opinfo" / graph.toStdString();
        if (!std::filesystem::exists(stem.string() + ".py")) QSKIP("the OpInfo graphs are not beside the corpus");
        auto rec = fxtest::loadRecordedStage(stem);
        QVERIFY2(rec.ok(), rec.ok() ? "" : rec.error().str().c_str());
        Graph& g = rec->graph();
        const std::vector<Value>* expect = &rec->expect;
        RunRequest req;
        req.inputs = rec->inputs;
        auto ref = runAndCheck(g, req, expect);
        QVERIFY2(ref.ok() && ref->ok, "the reference executor does not reproduce this recording");
        SKIP_WITHOUT_DEVICE();
        SKIP_WITHOUT_EXTERNS(externs.toStdString());
        cg::cuda::CudaRunInfo info;
        auto r = cg::cuda::runAndCheckCuda(g, req, expect, &info);
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().str().c_str());
        for (const auto& c : r->comparisons)
            QVERIFY2(c.ok, qPrintable(QString("output %1 rel_err %2").arg(c.index).arg(c.relErr)));
        QVERIFY2(info.fallbacks.empty(), "a fallback at compile time");
        QVERIFY2(info.run.hostOps.empty(), hostOps(info.run).c_str());
        QVERIFY(info.run.deviceExterns > 0);
    }

    void embedding_bag_modes_vs_reference() {
        // Bags [0, 3), [3, 5), [5, 7) of the indices; padding_idx 2 drops two entries from the
        // mean; max with include_last_offset has two bags (CPU's rule: the last ends at offset 5),
        // the sum with per-sample weights the CPU fast path's empty offset2bag. scale_grad_by_freq
        // (row 2 is named twice) on the mean, the max and the weighted sum.
        auto g = fxtest::parseForward(
            "w: \"f32[6, 3][3, 1]cuda:0\", i: \"i64[7][1]cuda:0\", o: \"i64[3][1]cuda:0\", "
            "g: \"f32[3, 3][3, 1]cuda:0\", g2: \"f32[2, 3][3, 1]cuda:0\", p: \"f32[7][1]cuda:0\"",
            "        eb = torch.ops.aten._embedding_bag.default(w, i, o, False, 1, False, None, False, 2)\n"
            "        getitem = eb[0]\n        getitem_1 = eb[1]\n        getitem_2 = eb[2]\n        getitem_3 = eb[3]\n"
            "        bw = torch.ops.aten._embedding_bag_backward.default(g, i, o, getitem_1, getitem_2, getitem_3, 6, "
            "True, 1, False, None, 2)\n"
            "        eb_1 = torch.ops.aten._embedding_bag.default(w, i, o, False, 2, False, None, True)\n"
            "        getitem_4 = eb_1[0]\n        getitem_5 = eb_1[1]\n        getitem_6 = eb_1[2]\n"
            "        getitem_7 = eb_1[3]\n"
            "        bw_1 = torch.ops.aten._embedding_bag_backward.default(g2, i, o, getitem_5, getitem_6, getitem_7, "
            "6, "
            "False, 2, False, None)\n"
            "        eb_2 = torch.ops.aten._embedding_bag.default(w, i, o, False, 0, False, p)\n"
            "        getitem_8 = eb_2[0]\n        getitem_9 = eb_2[1]\n        getitem_10 = eb_2[2]\n"
            "        getitem_11 = eb_2[3]\n"
            "        pw = torch.ops.aten._embedding_bag_per_sample_weights_backward.default(g, w, i, o, getitem_9, 0)\n"
            "        bw_2 = torch.ops.aten._embedding_bag_backward.default(g, i, o, getitem_9, getitem_10, getitem_11, "
            "6, "
            "False, 0, False, p)\n"
            "        eb_3 = torch.ops.aten._embedding_bag_forward_only.default(w, i, o, False, 0, False, None)\n"
            "        getitem_12 = eb_3[0]\n"
            "        bw_3 = torch.ops.aten._embedding_bag_backward.default(g2, i, o, getitem_5, getitem_6, getitem_7, "
            "6, True, 2, False, None)\n"
            "        bw_4 = torch.ops.aten._embedding_bag_backward.default(g, i, o, getitem_9, getitem_10, getitem_11, "
            "6, True, 0, False, p)\n"
            "        return (getitem, getitem_2, bw, getitem_4, getitem_5, getitem_6, getitem_7, bw_1, getitem_8, pw, "
            "bw_2, getitem_12, bw_3, bw_4)\n");
        QVERIFY(g);
        std::vector<Value> in{
            fxtest::tv({6, 3}, wave(18, 0.3)),        fxtest::tv({7}, {0, 2, 5, 2, 1, 3, 4}, DType::Int64),
            fxtest::tv({3}, {0, 3, 5}, DType::Int64), fxtest::tv({3, 3}, wave(9, 1.1)),
            fxtest::tv({2, 3}, wave(6, 2.3)),         fxtest::tv({7}, wave(7, 0.7))};
        compareWithReference(*g, in, 1e-5,
                             "embedding_bag,embedding_bag_backward,embedding_bag_per_sample_weights_backward");
    }

    void embedding_bag_int32_vs_reference() {
        // int32 indices and offsets (CPU's auxiliary outputs then int32): the bags above as mean
        // with padding_idx and frequency scaling, max with include_last_offset, the weighted sum
        // and its per-sample weights' gradient; int32 indices with int64 offsets (int64
        // auxiliary outputs, the offsets' dtype).
        auto g = fxtest::parseForward(
            "w: \"f32[6, 3][3, 1]cuda:0\", i: \"i32[7][1]cuda:0\", o: \"i32[3][1]cuda:0\", "
            "g: \"f32[3, 3][3, 1]cuda:0\", g2: \"f32[2, 3][3, 1]cuda:0\", p: \"f32[7][1]cuda:0\", "
            "o64: \"i64[3][1]cuda:0\"",
            "        eb = torch.ops.aten._embedding_bag.default(w, i, o, False, 1, False, None, False, 2)\n"
            "        getitem = eb[0]\n        getitem_1 = eb[1]\n        getitem_2 = eb[2]\n        getitem_3 = eb[3]\n"
            "        bw = torch.ops.aten._embedding_bag_backward.default(g, i, o, getitem_1, getitem_2, getitem_3, 6, "
            "True, 1, False, None, 2)\n"
            "        eb_1 = torch.ops.aten._embedding_bag.default(w, i, o, False, 2, False, None, True)\n"
            "        getitem_4 = eb_1[0]\n        getitem_5 = eb_1[1]\n        getitem_6 = eb_1[2]\n"
            "        getitem_7 = eb_1[3]\n"
            "        bw_1 = torch.ops.aten._embedding_bag_backward.default(g2, i, o, getitem_5, getitem_6, getitem_7, "
            "6, False, 2, False, None)\n"
            "        eb_2 = torch.ops.aten._embedding_bag.default(w, i, o, False, 0, False, p)\n"
            "        getitem_8 = eb_2[0]\n        getitem_9 = eb_2[1]\n        getitem_10 = eb_2[2]\n"
            "        getitem_11 = eb_2[3]\n"
            "        pw = torch.ops.aten._embedding_bag_per_sample_weights_backward.default(g, w, i, o, getitem_9, 0)\n"
            "        bw_2 = torch.ops.aten._embedding_bag_backward.default(g, i, o, getitem_9, getitem_10, getitem_11, "
            "6, False, 0, False, p)\n"
            "        eb_3 = torch.ops.aten._embedding_bag.default(w, i, o64, False, 1, False, None)\n"
            "        getitem_12 = eb_3[0]\n        getitem_13 = eb_3[1]\n        getitem_14 = eb_3[2]\n"
            "        getitem_15 = eb_3[3]\n"
            "        bw_3 = torch.ops.aten._embedding_bag_backward.default(g, i, o64, getitem_13, getitem_14, "
            "getitem_15, 6, False, 1, False, None)\n"
            "        return (getitem, getitem_1, getitem_2, getitem_3, bw, getitem_4, getitem_5, getitem_6, "
            "getitem_7, bw_1, getitem_8, pw, bw_2, getitem_12, getitem_13, getitem_14, bw_3)\n");
        QVERIFY(g);
        std::vector<Value> in{
            fxtest::tv({6, 3}, wave(18, 0.3)),        fxtest::tv({7}, {0, 2, 5, 2, 1, 3, 4}, DType::Int32),
            fxtest::tv({3}, {0, 3, 5}, DType::Int32), fxtest::tv({3, 3}, wave(9, 1.1)),
            fxtest::tv({2, 3}, wave(6, 2.3)),         fxtest::tv({7}, wave(7, 0.7)),
            fxtest::tv({3}, {0, 3, 5}, DType::Int64)};
        compareWithReference(*g, in, 1e-5,
                             "embedding_bag,embedding_bag_backward,embedding_bag_per_sample_weights_backward");
    }

    void embedding_dense_backward_scaled_vs_reference() {
        // scale_grad_by_freq: row 2 is named three times (each of its gradients a third), row 0
        // once; padding_idx 3 drops its entry but is counted; int64 and int32 indices.
        auto g = fxtest::parseForward(
            "g: \"f32[2, 3, 4][12, 4, 1]cuda:0\", i: \"i64[2, 3][3, 1]cuda:0\", j: \"i32[2, 3][3, 1]cuda:0\"",
            "        edb: \"f32[5, 4][4, 1]cuda:0\" = "
            "torch.ops.aten.embedding_dense_backward.default(g, i, 5, 3, True)\n"
            "        edb_1: \"f32[5, 4][4, 1]cuda:0\" = "
            "torch.ops.aten.embedding_dense_backward.default(g, j, 5, -1, True)\n"
            "        return (edb, edb_1)\n");
        QVERIFY(g);
        std::vector<Value> in{fxtest::tv({2, 3, 4}, wave(24, 0.5)),
                              fxtest::tv({2, 3}, {2, 0, 2, 3, 2, 4}, DType::Int64),
                              fxtest::tv({2, 3}, {2, 0, 2, 3, 2, 4}, DType::Int32)};
        compareWithReference(*g, in, 1e-5, "embedding_backward");
    }

    void embedding_dense_backward_half_types_vs_reference() {
        // A bf16 / fp16 model's token embedding gradient (gemma_block_bf16's backward ran it on
        // the host): rows named several times sum in fp32 and round once; padding_idx 3 drops
        // its entries. The reference sums in double and rounds once, so within a half-type ulp.
        auto g = fxtest::parseForward(
            "g: \"bf16[2, 3, 4][12, 4, 1]cuda:0\", h: \"f16[2, 3, 4][12, 4, 1]cuda:0\", i: \"i64[2, 3][3, "
            "1]cuda:0\"",
            "        edb: \"bf16[5, 4][4, 1]cuda:0\" = "
            "torch.ops.aten.embedding_dense_backward.default(g, i, 5, 3, False)\n"
            "        edb_1: \"f16[5, 4][4, 1]cuda:0\" = "
            "torch.ops.aten.embedding_dense_backward.default(h, i, 5, -1, False)\n"
            "        return (edb, edb_1)\n");
        QVERIFY(g);
        std::vector<Value> in{fxtest::tv({2, 3, 4}, wave(24, 0.5), DType::BFloat16),
                              fxtest::tv({2, 3, 4}, wave(24, 0.7), DType::Float16),
                              fxtest::tv({2, 3}, {2, 0, 2, 3, 2, 4}, DType::Int64)};
        compareWithReference(*g, in, 2e-2, "embedding_backward");
    }

    void batch_norm_half_types_vs_reference() {
        // A bf16 model's training batch norm (MobileViT's and a video block's bf16 graphs ran it
        // on the host): bf16 activations and parameters, fp32 saved and updated statistics, as
        // PyTorch records them; its backward with fp32 running and saved statistics; an fp16
        // in-place native_batch_norm updating fp16 running statistics.
        auto g = fxtest::parseForward(
            "x: \"bf16[2, 3, 4, 4][48, 16, 4, 1]cuda:0\", w: \"bf16[3][1]cuda:0\", b: \"bf16[3][1]cuda:0\", "
            "rm: \"bf16[3][1]cuda:0\", rv: \"bf16[3][1]cuda:0\", gy: \"bf16[2, 3, 4, 4][48, 16, 4, 1]cuda:0\", "
            "rm32: \"f32[3][1]cuda:0\", rv32: \"f32[3][1]cuda:0\", h: \"f16[2, 3, 5][15, 5, 1]cuda:0\", "
            "hw: \"f16[3][1]cuda:0\", hm: \"f16[3][1]cuda:0\", hv: \"f16[3][1]cuda:0\"",
            "        bn = torch.ops.aten._native_batch_norm_legit_functional.default(x, w, b, rm, rv, True, 0.1, "
            "1e-05)\n"
            "        y: \"bf16[2, 3, 4, 4][48, 16, 4, 1]cuda:0\" = bn[0]\n"
            "        m: \"f32[3][1]cuda:0\" = bn[1]\n"
            "        s: \"f32[3][1]cuda:0\" = bn[2]\n"
            "        nrm: \"f32[3][1]cuda:0\" = bn[3]\n"
            "        nrv: \"f32[3][1]cuda:0\" = bn[4]\n"
            "        bwd = torch.ops.aten.native_batch_norm_backward.default(gy, x, w, rm32, rv32, m, s, True, 1e-05, "
            "[True, True, True])\n"
            "        gx: \"bf16[2, 3, 4, 4][48, 16, 4, 1]cuda:0\" = bwd[0]\n"
            "        gw: \"bf16[3][1]cuda:0\" = bwd[1]\n"
            "        gb: \"bf16[3][1]cuda:0\" = bwd[2]\n"
            "        hn = torch.ops.aten.native_batch_norm.default(h, hw, hw, hm, hv, True, 0.2, 1e-05)\n"
            "        hy: \"f16[2, 3, 5][15, 5, 1]cuda:0\" = hn[0]\n"
            "        return (y, m, s, nrm, nrv, gx, gw, gb, hy)\n");
        QVERIFY(g);
        std::vector<Value> in{fxtest::tv({2, 3, 4, 4}, wave(96, 0.37), DType::BFloat16),
                              fxtest::tv({3}, {0.5, 1.5, -1}, DType::BFloat16),
                              fxtest::tv({3}, {0.25, 0, -0.5}, DType::BFloat16),
                              fxtest::tv({3}, {0.1, -0.2, 0.3}, DType::BFloat16),
                              fxtest::tv({3}, {1, 0.5, 2}, DType::BFloat16),
                              fxtest::tv({2, 3, 4, 4}, wave(96, 0.91), DType::BFloat16),
                              fxtest::tv({3}, {0.1, -0.2, 0.3}),
                              fxtest::tv({3}, {1, 0.5, 2}),
                              fxtest::tv({2, 3, 5}, wave(30, 0.6), DType::Float16),
                              fxtest::tv({3}, {1, -0.5, 2}, DType::Float16),
                              fxtest::tv({3}, {0, 0.5, -0.5}, DType::Float16),
                              fxtest::tv({3}, {1, 2, 0.5}, DType::Float16)};
        // Outputs up to about 5 in magnitude: a bf16 ulp there is 2^-5; one ulp of rounding apart.
        compareWithReference(*g, in, 7e-2, "batch_norm_train,batch_norm_update,batch_norm_backward");
    }

    void max_pools_half_types_vs_reference() {
        // A bf16 video model's max_pool3d_with_indices and its backward ran on the host. Windows
        // [2, 2, 2] at stride [1, 2, 2] overlap along time, so the backward adds two gradients
        // into one input where a maximum repeats; an fp16 adaptive pool and its backward too.
        auto g = fxtest::parseForward(
            "x: \"bf16[1, 2, 3, 4, 5][120, 60, 20, 5, 1]cuda:0\", gy: \"bf16[1, 2, 2, 2, 2][16, 8, 4, 2, 1]cuda:0\", "
            "h: \"f16[2, 5, 7][35, 7, 1]cuda:0\", gh: \"f16[2, 3, 3][9, 3, 1]cuda:0\"",
            "        pool = torch.ops.aten.max_pool3d_with_indices.default(x, [2, 2, 2], [1, 2, 2])\n"
            "        y: \"bf16[1, 2, 2, 2, 2][16, 8, 4, 2, 1]cuda:0\" = pool[0]\n"
            "        i: \"i64[1, 2, 2, 2, 2][16, 8, 4, 2, 1]cuda:0\" = pool[1]\n"
            "        gx: \"bf16[1, 2, 3, 4, 5][120, 60, 20, 5, 1]cuda:0\" = "
            "torch.ops.aten.max_pool3d_with_indices_backward.default(gy, x, [2, 2, 2], [1, 2, 2], [0, 0, 0], "
            "[1, 1, 1], False, i)\n"
            "        ap = torch.ops.aten.adaptive_max_pool2d.default(h, [3, 3])\n"
            "        hy: \"f16[2, 3, 3][9, 3, 1]cuda:0\" = ap[0]\n"
            "        hi: \"i64[2, 3, 3][9, 3, 1]cuda:0\" = ap[1]\n"
            "        ghx: \"f16[2, 5, 7][35, 7, 1]cuda:0\" = "
            "torch.ops.aten.adaptive_max_pool2d_backward.default(gh, h, hi)\n"
            "        return (y, i, gx, hy, hi, ghx)\n");
        QVERIFY(g);
        // x repeats values (a coarse wave rounded to bf16), so ties pick the first in window order.
        std::vector<double> xs = wave(120, 0.37);
        for (double& v : xs) v = std::round(v * 4) / 4;
        std::vector<Value> in{fxtest::tv({1, 2, 3, 4, 5}, xs, DType::BFloat16),
                              fxtest::tv({1, 2, 2, 2, 2}, wave(16, 0.91), DType::BFloat16),
                              fxtest::tv({2, 5, 7}, wave(70, 0.6), DType::Float16),
                              fxtest::tv({2, 3, 3}, wave(18, 1.3), DType::Float16)};
        // Maxima and indices exactly; gradient sums of two bf16 values differ by at most an ulp.
        compareWithReference(*g, in, 2e-2,
                             "max_pool3d,max_pool3d_backward,adaptive_max_pool,adaptive_max_pool_backward");
    }

    void mask_index_vs_reference() {
        // Mask [1, 0, 1, 1] over the rows of a [4, 3] self: index gathers rows 0, 2, 3; index_put
        // stores a broadcast row, stores and accumulates a row per set position, fills a bool
        // self, accumulates int64 rows, fp16 rows and a bf16 row; a [4, 3] mask over every dim
        // takes one value per set element (row-major order).
        auto g = fxtest::parseForward(
            "s: \"f32[4, 3][3, 1]cuda:0\", m: \"b8[4][1]cuda:0\", v: \"f32[3][1]cuda:0\", v2: \"f32[3, 3][3, "
            "1]cuda:0\", "
            "b: \"b8[4, 3][3, 1]cuda:0\", t: \"b8[][]cuda:0\", m2: \"b8[4, 3][3, 1]cuda:0\", v3: \"f32[6][1]cuda:0\", "
            "si: \"i64[4, 3][3, 1]cuda:0\", vi: \"i64[3, 3][3, 1]cuda:0\", tb: \"b8[3, 3][3, 1]cuda:0\", "
            "sh: \"f16[4, 3][3, 1]cuda:0\", vh: \"f16[3, 3][3, 1]cuda:0\", sb: \"bf16[4, 3][3, 1]cuda:0\", "
            "vb: \"bf16[3][1]cuda:0\"",
            "        index: \"f32[3, 3][3, 1]cuda:0\" = torch.ops.aten.index.Tensor(s, [m])\n"
            "        index_put: \"f32[4, 3][3, 1]cuda:0\" = torch.ops.aten.index_put.default(s, [m], v)\n"
            "        index_put_1: \"f32[4, 3][3, 1]cuda:0\" = torch.ops.aten.index_put.default(s, [m], v2, True)\n"
            "        index_put_2: \"b8[4, 3][3, 1]cuda:0\" = torch.ops.aten.index_put.default(b, [m], t)\n"
            "        index_put_3: \"f32[4, 3][3, 1]cuda:0\" = torch.ops.aten.index_put.default(s, [m], v2)\n"
            "        index_put_4: \"f32[4, 3][3, 1]cuda:0\" = torch.ops.aten.index_put.default(s, [m2], v3)\n"
            "        index_put_5: \"i64[4, 3][3, 1]cuda:0\" = torch.ops.aten.index_put.default(si, [m], vi, True)\n"
            "        index_put_6: \"b8[4, 3][3, 1]cuda:0\" = torch.ops.aten.index_put.default(b, [m], tb)\n"
            "        index_put_7: \"f16[4, 3][3, 1]cuda:0\" = torch.ops.aten.index_put.default(sh, [m], vh, True)\n"
            "        index_put_8: \"bf16[4, 3][3, 1]cuda:0\" = torch.ops.aten.index_put.default(sb, [m], vb, True)\n"
            "        return (index, index_put, index_put_1, index_put_2, index_put_3, index_put_4, index_put_5, "
            "index_put_6, index_put_7, index_put_8)\n");
        QVERIFY(g);
        std::vector<Value> in{fxtest::tv({4, 3}, wave(12, 0.1)),
                              fxtest::tv({4}, {1, 0, 1, 1}, DType::Bool),
                              fxtest::tv({3}, {7, 8, 9}),
                              fxtest::tv({3, 3}, wave(9, 0.9)),
                              fxtest::tv({4, 3}, std::vector<double>(12, 0), DType::Bool),
                              fxtest::tv({}, {1}, DType::Bool),
                              fxtest::tv({4, 3}, {1, 0, 1, 0, 0, 1, 1, 1, 0, 0, 1, 0}, DType::Bool),
                              fxtest::tv({6}, wave(6, 2.1)),
                              fxtest::tv({4, 3}, {5, -3, 8, 1, 0, 2, -7, 4, 6, 9, -1, 3}, DType::Int64),
                              fxtest::tv({3, 3}, {10, 20, 30, -40, 50, -60, 70, 80, 90}, DType::Int64),
                              fxtest::tv({3, 3}, {1, 0, 1, 0, 1, 1, 1, 0, 0}, DType::Bool),
                              fxtest::tv({4, 3}, wave(12, 0.4), DType::Float16),
                              fxtest::tv({3, 3}, wave(9, 1.4), DType::Float16),
                              fxtest::tv({4, 3}, wave(12, 2.6), DType::BFloat16),
                              fxtest::tv({3}, {0.5, -1.25, 3}, DType::BFloat16)};
        // fp16 / bf16 sums are rounded once to the storage type on both sides.
        compareWithReference(*g, in, 1e-6, "index_put,index_by_mask");
    }

    void lu_solve_vs_reference() {
        // Two 3 x 3 factors with row swaps (1-based pivots), solved plainly and as the adjoint,
        // from the left (two right-hand sides) and from the right (X M = B, two rows); one factor
        // broadcast over both batches of B.
        auto g = fxtest::parseForward(
            "lu: \"f32[2, 3, 3][9, 3, 1]cuda:0\", piv: \"i32[2, 3][3, 1]cuda:0\", "
            "b: \"f32[2, 3, 2][6, 2, 1]cuda:0\", b2: \"f32[2, 2, 3][6, 3, 1]cuda:0\", "
            "lu1: \"f32[3, 3][3, 1]cuda:0\", piv1: \"i32[3][1]cuda:0\"",
            "        x: \"f32[2, 3, 2][6, 2, 1]cuda:0\" = torch.ops.aten.linalg_lu_solve.default(lu, piv, b)\n"
            "        x_1: \"f32[2, 3, 2][6, 2, 1]cuda:0\" = "
            "torch.ops.aten.linalg_lu_solve.default(lu, piv, b, adjoint = True)\n"
            "        x_2: \"f32[2, 2, 3][6, 3, 1]cuda:0\" = "
            "torch.ops.aten.linalg_lu_solve.default(lu, piv, b2, left = False)\n"
            "        x_3: \"f32[2, 2, 3][6, 3, 1]cuda:0\" = "
            "torch.ops.aten.linalg_lu_solve.default(lu, piv, b2, left = False, adjoint = True)\n"
            "        x_4: \"f32[2, 3, 2][6, 1, 3]cuda:0\" = torch.ops.aten.linalg_lu_solve.default(lu1, piv1, b)\n"
            "        x_5: \"f32[2, 2, 3][6, 3, 1]cuda:0\" = "
            "torch.ops.aten.linalg_lu_solve.default(lu1, piv1, b2, left = False, adjoint = True)\n"
            "        return (x, x_1, x_2, x_3, x_4, x_5)\n");
        QVERIFY(g);
        std::vector<double> lu = wave(18, 0.4);
        for (int b = 0; b < 2; ++b)
            for (int d = 0; d < 3; ++d) lu[static_cast<size_t>(b * 9 + d * 4)] = 2.0 + d;  // a well-conditioned U
        std::vector<Value> in{fxtest::tv({2, 3, 3}, lu),
                              fxtest::tv({2, 3}, {2, 2, 3, 3, 3, 3}, DType::Int32),
                              fxtest::tv({2, 3, 2}, wave(12, 1.9)),
                              fxtest::tv({2, 2, 3}, wave(12, 0.6)),
                              fxtest::tv({3, 3}, std::vector<double>(lu.begin() + 9, lu.end())),
                              fxtest::tv({3}, {3, 3, 3}, DType::Int32)};
        // The left solutions are column-major per batch (metaLuSolve), written through their strides.
        compareWithReference(*g, in, 1e-5, "lu_solve");
    }

    void matmul_broadcast_batches_vs_reference() {
        // matmul whose batch dims broadcast against each other (a capsule network's W @ u in its
        // Dynamo graph): both operands expanded dense to the common batch, one batched GEMM. It
        // ran on the host before.
        auto g = fxtest::parseForward(
            "w: \"f32[1, 3, 2, 4, 2][48, 16, 8, 2, 1]cuda:0\", u: \"f32[2, 3, 1, 2, 1][6, 2, 2, 1, 1]cuda:0\"",
            "        m: \"f32[2, 3, 2, 4, 1][24, 8, 4, 1, 1]cuda:0\" = torch.ops.aten.matmul.default(w, u)\n"
            "        return (m,)\n");
        QVERIFY(g);
        std::vector<Value> in{fxtest::tv({1, 3, 2, 4, 2}, wave(48, 0.3)), fxtest::tv({2, 3, 1, 2, 1}, wave(12, 0.9))};
        compareWithReference(*g, in, 1e-5, "matmul");
    }

    void bf16_conv_bias_as_recorded() {
        // PointNet's first bf16 conv1d with a bias as PyTorch 2.11 recorded it on an H200
        // (data/bf16_conv_bias): the device gives the recorded values exactly (ATen rounds
        // cuDNN's product to bf16 before adding the bias; tst_popular_ops3 checks the reference
        // and CPU backends on the same data).
        SKIP_WITHOUT_DEVICE();
        const auto dir = std::filesystem::path(FXRAY_TESTS_DIR) / "engine" / "codegen" / "data" / "bf16_conv_bias";
        auto f = loadFile(dir / "forward.py");
        QVERIFY2(f.ok() && !f->graphs.empty(), f.ok() ? "no graph" : f.error().str().c_str());
        const Graph& g = *f->graphs[0].graph;
        auto in = readNpyFolder(dir / "inputs", 3);
        QVERIFY(in.ok());
        QVERIFY(layOutRecordedInputs(g, *in).ok());
        auto want = readNpy(dir / "outputs" / "000.npy");
        QVERIFY(want.ok());
        RunRequest req;
        req.inputs = *in;
        cg::cuda::CudaRunInfo info;
        auto r = cg::cuda::runAndCheckCuda(g, req, nullptr, &info);
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().str().c_str());
        QCOMPARE(fxtest::values(r->outputs[0]), kern::toDoubles(*want));
        QVERIFY2(info.run.hostOps.empty(), hostOps(info.run).c_str());
    }

    void copy_into_input_then_read_vs_reference() {
        // copy_ into an alias of input x, between a read of x before it (old values) and one
        // after it (new values: the scheduler keeps that kernel after the call). Not yet run on a
        // device when written (the CPU backend's twin, tst_cpu_input_mutation, runs everywhere).
        auto g = fxtest::parseForward("x: \"f32[4][1]cuda:0\", y: \"f32[4][1]cuda:0\"",
                                      "        mul: \"f32[4][1]cuda:0\" = torch.ops.aten.mul.Tensor(x, 2.0)\n"
                                      "        alias: \"f32[4][1]cuda:0\" = torch.ops.aten.alias.default(x)\n"
                                      "        copy_: \"f32[4][1]cuda:0\" = torch.ops.aten.copy_.default(alias, y)\n"
                                      "        add: \"f32[4][1]cuda:0\" = torch.ops.aten.add.Tensor(x, 1.0)\n"
                                      "        return (mul, copy_, add)\n");
        QVERIFY(g);
        std::vector<Value> in{fxtest::tv({4}, {1, 2, 3, 4}), fxtest::tv({4}, {10, 20, 30, 40})};
        compareWithReference(*g, in, 0, "copy_into_input");
    }

    void norm_backwards_without_weight_vs_reference() {
        // native_group_norm_backward without a weight and without grad_weight; rms norm's without
        // a weight (grad_weight None).
        auto g = fxtest::parseForward(
            "x: \"f32[2, 4, 3][12, 3, 1]cuda:0\", dy: \"f32[2, 4, 3][12, 3, 1]cuda:0\"",
            "        gn = torch.ops.aten.native_group_norm.default(x, None, None, 2, 4, 3, 2, 1e-05)\n"
            "        getitem_1 = gn[1]\n        getitem_2 = gn[2]\n"
            "        gnb = torch.ops.aten.native_group_norm_backward.default(dy, x, getitem_1, getitem_2, "
            "None, 2, 4, 3, "
            "2, [True, False, True])\n"
            "        getitem_3 = gnb[0]\n        getitem_5 = gnb[2]\n"
            "        rn = torch.ops.aten._fused_rms_norm.default(x, [3], None, 1e-06)\n"
            "        getitem_6 = rn[1]\n"
            "        rnb = torch.ops.aten._fused_rms_norm_backward.default(dy, x, [3], getitem_6, None, "
            "[True, False])\n"
            "        getitem_7 = rnb[0]\n"
            "        return (getitem_3, getitem_5, getitem_7)\n");
        QVERIFY(g);
        std::vector<Value> in{fxtest::tv({2, 4, 3}, wave(24, 0.2)), fxtest::tv({2, 4, 3}, wave(24, 1.3))};
        compareWithReference(*g, in, 1e-5, "group_norm_backward,rms_norm_backward");
    }

    void group_norm_backward_half_vs_reference_data() {
        QTest::addColumn<QString>("dtype");
        QTest::newRow("bf16") << QString("bf16");
        QTest::newRow("f16") << QString("f16");
    }
    void group_norm_backward_half_vs_reference() {
        // Mixed-precision UNets (bench/gen_popular.py unet_block_bf16): group norm's backward in
        // the input's 16-bit dtype, statistics included, on the device.
        QFETCH(QString, dtype);
        const std::string t = dtype.toStdString();
        const DType dt = t == "bf16" ? DType::BFloat16 : DType::Float16;
        auto g = fxtest::parseForward(
            "x: \"" + t + "[2, 4, 3][12, 3, 1]cuda:0\", dy: \"" + t + "[2, 4, 3][12, 3, 1]cuda:0\", w: \"" + t +
                "[4][1]cuda:0\", b: \"" + t + "[4][1]cuda:0\"",
            "        gn = torch.ops.aten.native_group_norm.default(x, w, b, 2, 4, 3, 2, 1e-05)\n"
            "        getitem_1 = gn[1]\n        getitem_2 = gn[2]\n"
            "        gnb = torch.ops.aten.native_group_norm_backward.default(dy, x, getitem_1, getitem_2, w, 2, 4, 3, "
            "2, [True, True, True])\n"
            "        getitem_3 = gnb[0]\n        getitem_4 = gnb[1]\n        getitem_5 = gnb[2]\n"
            "        return (getitem_3, getitem_4, getitem_5)\n");
        QVERIFY(g);
        std::vector<Value> in{fxtest::tv({2, 4, 3}, wave(24, 0.2), dt), fxtest::tv({2, 4, 3}, wave(24, 1.3), dt),
                              fxtest::tv({4}, wave(4, 0.7), dt), fxtest::tv({4}, wave(4, 2.1), dt)};
        compareWithReference(*g, in, 3e-2, "group_norm_backward");
    }
};

QTEST_GUILESS_MAIN(TestCudaExecFormerFallbacks)
#include "tst_cuda_exec_former_fallbacks.moc"
