// CUDA source generation without a GPU: every corpus graph (graphs/*.py and numerics/*.py) is
// lowered, fused, turned into CUDA C++ and compiled by NVRTC to PTX, which is what CI can check
// with no device. The no-device path must report plainly, never crash.
#include "rnn_cells_graph.h"
#include "test_util.h"

#include "codegen/cuda/backward_ops.h"
#include "codegen/cuda/builtin_kernels.h"
#include "codegen/cuda/cuda_backend.h"
#include "codegen/cuda/device_attention.h"
#include "codegen/cuda/embedding_bag_kernels.h"
#include "codegen/cuda/fallback_kernels.h"
#include "codegen/cuda/kernel_module.h"
#include "codegen/cuda/linalg_svd.h"
#include "codegen/cuda/loop_pointwise.h"
#include "codegen/cuda/random_kernels.h"
#include "codegen/cuda/sampling_kernels.h"
#include "codegen/cuda/sort_kernels.h"
#include "exec/shape_inference.h"
#include "import/fx_text_reader.h"
#include "import/loader.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>

using namespace fxray;
namespace fs = std::filesystem;

class TestCudaCodegen : public QObject {
    Q_OBJECT
private slots:
    void prelude_and_small_graph() {
        // One pointwise chain and one reduction: the generated module names both kernels and
        // uses the launch modes the header documents.
        auto gp =
            fxtest::parseForward("arg0_1: \"f32[4, 300][300, 1]cpu\"",
                                 "        relu: \"f32[4, 300][300, 1]cpu\" = torch.ops.aten.relu.default(arg0_1)\n"
                                 "        sum_1: \"f32[4][1]cpu\" = torch.ops.aten.sum.dim_IntList(relu, [1])\n"
                                 "        exp: \"f32[4, 300][300, 1]cpu\" = torch.ops.aten.exp.default(arg0_1)\n"
                                 "        return (sum_1, exp)\n");
        QVERIFY(gp);
        Graph& g = *gp;
        auto inputs = cg::cuda::annotatedInputs(g);
        QVERIFY(inputs.ok());
        auto lg = cg::lowerGraph(g, *inputs);
        QVERIFY(lg.ok());
        auto prog = cg::schedule(std::move(lg).value());
        QVERIFY(prog.ok());
        auto cs = cg::cuda::generateCudaSource(prog->kernels);
        QVERIFY2(cs.ok(), cs.ok() ? "" : cs.error().str().c_str());
        QCOMPARE(cs->plans.size(), prog->kernels.size());
        bool warp = false, pointwise = false;
        for (const auto& p : cs->plans) {
            warp = warp || p.mode == cg::cuda::LaunchPlan::Mode::WarpReduce;
            pointwise = pointwise || p.mode == cg::cuda::LaunchPlan::Mode::Pointwise;
            QVERIFY(cs->source.find(p.name) != std::string::npos);
        }
        QVERIFY(warp);    // a 300-element row reduces in one warp
        (void)pointwise;  // exp may fuse horizontally into the reduction's loop
        QVERIFY(cs->source.find("expf(") != std::string::npos);
        QVERIFY(cs->source.find("fx_warp_all") != std::string::npos);
    }

    void column_reduction_launch() {
        // A sum over 2400 rows into 4096 columns (a bias gradient) takes the column launch (32
        // columns per block, 32 warps over the rows), one into 384 columns too (8 per block), and
        // compiles; a sum over the last dim and a column sum with few columns keep their row
        // launches (cuda_source.h says why).
        auto gp = fxtest::parseForward("x: \"f32[2400, 4096][4096, 1]cpu\", y: \"f32[2400, 64][64, 1]cpu\", z: "
                                       "\"f32[16, 197, 384][75648, 384, 1]cpu\"",
                                       "        sum_1: \"f32[4096][1]cpu\" = torch.ops.aten.sum.dim_IntList(x, [0])\n"
                                       "        sum_2: \"f32[2400][1]cpu\" = torch.ops.aten.sum.dim_IntList(x, [1])\n"
                                       "        sum_3: \"f32[64][1]cpu\" = torch.ops.aten.sum.dim_IntList(y, [0])\n"
                                       "        sum_4: \"f32[384][1]cpu\" = torch.ops.aten.sum.dim_IntList(z, [0, 1])\n"
                                       "        return (sum_1, sum_2, sum_3, sum_4)\n");
        QVERIFY(gp);
        auto inputs = cg::cuda::annotatedInputs(*gp);
        QVERIFY(inputs.ok());
        auto lg = cg::lowerGraph(*gp, *inputs);
        QVERIFY(lg.ok());
        cg::ScheduleOptions so;
        so.fuse = false;  // one kernel per sum, so that each has its own launch
        auto prog = cg::schedule(std::move(lg).value(), so);
        QVERIFY(prog.ok());
        auto cs = cg::cuda::generateCudaSource(prog->kernels);
        QVERIFY2(cs.ok(), cs.ok() ? "" : cs.error().str().c_str());
        std::map<std::string, cg::cuda::LaunchPlan::Mode> byNode;
        for (size_t i = 0; i < prog->kernels.size(); ++i)
            for (const auto& n : prog->kernels[i].nodes) byNode[n] = cs->plans[i].mode;
        QCOMPARE(int(byNode["sum_1"]), int(cg::cuda::LaunchPlan::Mode::ColumnReduce));
        QCOMPARE(int(byNode["sum_4"]), int(cg::cuda::LaunchPlan::Mode::ColumnReduce));
        for (size_t i = 0; i < prog->kernels.size(); ++i)
            if (cs->plans[i].mode == cg::cuda::LaunchPlan::Mode::ColumnReduce)
                QCOMPARE(cs->plans[i].columns,
                         cs->plans[i].split > 1 || prog->kernels[i].outerCount() >= 4096 ? 32 : 8);
        QVERIFY(byNode["sum_2"] != cg::cuda::LaunchPlan::Mode::ColumnReduce);
        QVERIFY(byNode["sum_3"] != cg::cuda::LaunchPlan::Mode::ColumnReduce);
        QVERIFY(cs->source.find("fx_col_all") != std::string::npos);
        // Both column sums have fewer than 256 tiles of 32 columns (128 and 12): their rows are
        // cut into parts (grid y), 8 warps per block, combined by each tile's last block; the
        // [16, 197] rows of sum_4 are one dim of 3152 (kernel_collapse.h), so no row division.
        for (size_t i = 0; i < prog->kernels.size(); ++i) {
            const auto& p = cs->plans[i];
            if (p.mode != cg::cuda::LaunchPlan::Mode::ColumnReduce) {
                QCOMPARE(p.split, 1);
                continue;
            }
            QVERIFY2(p.split >= 8, std::to_string(p.split).c_str());
            QCOMPARE(p.threads, 256);
            QVERIFY(cs->kernelSources[i].find("atomicAdd(&" + p.name + "_cnt") != std::string::npos);
            QVERIFY(cs->kernelSources[i].find(" / 197LL") == std::string::npos);
        }
        const auto& rt = cg::cuda::runtime();
        if (!rt.haveNvrtc) QSKIP(qPrintable(QString::fromStdString("NVRTC cannot be loaded: " + rt.whyNoNvrtc)));
        auto out = cg::cuda::nvrtcCompile(cs->source, "colsum", "compute_80");
        QVERIFY2(out.ok(), out.ok() ? "" : out.error().str().c_str());
        for (const auto& p : cs->plans) QVERIFY2(out->image.find(p.name) != std::string::npos, p.name.c_str());
    }

    void no_device_path() {
        const auto& rt = cg::cuda::runtime();
        if (rt.haveDevice) {
            qInfo("device present: %s sm_%d%d", rt.deviceName.c_str(), rt.ccMajor, rt.ccMinor);
            QVERIFY(cg::cuda::requireDevice().ok() || !rt.haveNvrtc);
            return;
        }
        Status s = cg::cuda::requireDevice();
        QVERIFY(!s.ok());
        QVERIFY2(s.error().message.rfind("no CUDA device", 0) == 0, s.error().message.c_str());
        auto g = fxtest::parseForward(
            "arg0_1: \"f32[4][1]cpu\"",
            "        relu: \"f32[4][1]cpu\" = torch.ops.aten.relu.default(arg0_1)\n        return (relu,)\n");
        QVERIFY(g);
        auto in = cg::cuda::annotatedInputs(*g);
        QVERIFY(in.ok());
        auto c = cg::cuda::CompiledGraph::compile(*g, *in);
        QVERIFY(!c.ok());
        QVERIFY2(c.error().message.find("no CUDA device") != std::string::npos, c.error().message.c_str());
    }

    void builtin_kernels_compile_to_ptx() {
        // The hand-written device ops (strided copy, convolution and its backward, the
        // atomic scatter-adds, batch norm, max pooling) compile for sm_80 PTX, with an entry
        // for every launcher.
        const auto& rt = cg::cuda::runtime();
        if (!rt.haveNvrtc) QSKIP(qPrintable(QString::fromStdString("NVRTC cannot be loaded: " + rt.whyNoNvrtc)));
        auto out = cg::cuda::nvrtcCompile(cg::cuda::builtinSource(), "fxray_builtin", "compute_80");
        QVERIFY2(out.ok(), out.ok() ? "" : out.error().str().c_str());
        for (const char* fn : {"fx_strided_copy", "fx_conv_fwd_f32", "fx_conv_fwd_f64", "fx_conv_bwd_input_f32",
                               "fx_conv_bwd_weight_f32", "fx_conv_bwd_bias_f32", "fx_embedding_bwd_f32",
                               "fx_embedding_count", "fx_index_add_f32", "fx_index_add_f64", "fx_bn_train_f32",
                               "fx_bn_bwd_f32", "fx_maxpool2d_f32", "fx_maxpool2d_bwd_f32"})
            QVERIFY2(out->image.find(std::string(".entry ") + fn) != std::string::npos, fn);
        // fp32 scatter-adds are atomics (rows sharing an index collide), not plain stores.
        QVERIFY(out->image.find("atom.global.add.f32") != std::string::npos ||
                out->image.find("red.global.add.f32") != std::string::npos);
    }

    void attention_kernels_compile() {
        // The fused attention kernels (kernels/attention.cu, embedded at build time with their
        // argument header) compile for sm_80 PTX: forward, backward and the helpers for every
        // storage type and head-dim bucket, each within the 48 KB of static shared memory a block
        // may have.
        const auto& rt = cg::cuda::runtime();
        if (!rt.haveNvrtc) QSKIP(qPrintable(QString::fromStdString("NVRTC cannot be loaded: " + rt.whyNoNvrtc)));
        auto src = cg::cuda::attentionSource();
        QVERIFY2(src.ok(), src.ok() ? "" : src.error().str().c_str());
        QVERIFY(src->find("struct FxAttnArgs") != std::string::npos);
        auto out = cg::cuda::nvrtcCompile(*src, "fxray_attention", "compute_80");
        QVERIFY2(out.ok(), out.ok() ? "" : out.error().str().c_str());
        for (const char* t : {"f32", "f16", "bf16"}) {
            for (const char* hd : {"64", "128", "256"}) {
                QVERIFY2(out->image.find(std::string(".entry fx_attn_fwd_") + t + "_" + hd) != std::string::npos, t);
                QVERIFY2(out->image.find(std::string(".entry fx_attn_bwd_") + t + "_" + hd) != std::string::npos, t);
            }
            QVERIFY(out->image.find(std::string(".entry fx_attn_rowdot_") + t) != std::string::npos);
            QVERIFY(out->image.find(std::string(".entry fx_attn_cast_") + t) != std::string::npos);
        }
        // Static shared memory per kernel within the 48 KB a block may have. The arrays are
        // locals of the fx_attn_fwd / fx_attn_bwd templates, which PTX declares at module scope
        // as ".shared .align 4 .b8 _ZZ<function>E<len><name>[<bytes>];": summed per function.
        const std::string& ptx = out->image;
        static const std::regex decl(R"(\.shared\s+\.align\s+\d+\s+\.b8\s+(_ZZ\S+)E\d+[A-Za-z_]\w*\[(\d+)\];)");
        std::map<std::string, size_t> perFunction;
        for (std::sregex_iterator it(ptx.begin(), ptx.end(), decl), e; it != e; ++it)
            perFunction[(*it)[1].str()] += std::stoul((*it)[2].str());
        // 3 storage types x 3 head-dim buckets x (forward, backward).
        QCOMPARE(perFunction.size(), size_t(18));
        for (const auto& [fn, bytes] : perFunction)
            QVERIFY2(bytes <= 48 * 1024,
                     qPrintable(QString::fromStdString(fn) + " uses " + QString::number(bytes) + " bytes"));
    }

    void attention_tensor_core_kernels_compile() {
        // The fp32 tensor-core kernels (kernels/attention_tc.cu; head dims 64 and 128, head dim
        // 64's backward in 32- and 16-row steps) are in the module for sm_80+, as 3xTF32 mma.sync
        // products; for older targets the module still compiles without them (the host keeps the
        // SIMT kernels there).
        const auto& rt = cg::cuda::runtime();
        if (!rt.haveNvrtc) QSKIP(qPrintable(QString::fromStdString("NVRTC cannot be loaded: " + rt.whyNoNvrtc)));
        auto src = cg::cuda::attentionSource();
        QVERIFY2(src.ok(), src.ok() ? "" : src.error().str().c_str());
        const char* entries[] = {".entry fx_attn_tc_fwd_64",     ".entry fx_attn_tc_bwd_64",
                                 ".entry fx_attn_tc_bwd_64_q16", ".entry fx_attn_tc_fwd_128",
                                 ".entry fx_attn_tc_bwd_128",    ".entry fx_attn_tc_rowdot"};
        auto sm80 = cg::cuda::nvrtcCompile(*src, "fxray_attention", "compute_80");
        QVERIFY2(sm80.ok(), sm80.ok() ? "" : sm80.error().str().c_str());
        for (const char* e : entries) QVERIFY2(sm80->image.find(e) != std::string::npos, e);
        QVERIFY(sm80->image.find("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32") != std::string::npos);
        auto sm75 = cg::cuda::nvrtcCompile(*src, "fxray_attention", "compute_75");
        QVERIFY2(sm75.ok(), sm75.ok() ? "" : sm75.error().str().c_str());
        for (const char* e : entries) QVERIFY2(sm75->image.find(e) == std::string::npos, e);
        QVERIFY(sm75->image.find(".entry fx_attn_fwd_f32_64") != std::string::npos);
    }

    void channel_sum_kernels_compile() {
        // The per-channel sum (a convolution's bias gradient where cuDNN has none, e.g. bf16).
        const auto& rt = cg::cuda::runtime();
        if (!rt.haveNvrtc) QSKIP(qPrintable(QString::fromStdString("NVRTC cannot be loaded: " + rt.whyNoNvrtc)));
        cg::cuda::KernelModule m("fxray_channel_sum", {"dtype_io.cuh", "channel_sum.cu"});
        auto src = m.source();
        QVERIFY2(src.ok(), src.ok() ? "" : src.error().str().c_str());
        auto out = cg::cuda::nvrtcCompile(*src, "fxray_channel_sum", "compute_80");
        QVERIFY2(out.ok(), out.ok() ? "" : out.error().str().c_str());
        for (const char* t : {"f32", "f16", "bf16", "f64"})
            QVERIFY2(out->image.find(std::string(".entry fx_channel_sum_") + t) != std::string::npos, t);
        // A file that is not embedded is an error naming it, not a crash.
        cg::cuda::KernelModule bad("bad", {"no_such_kernel.cu"});
        auto b = bad.source();
        QVERIFY(!b.ok());
        QVERIFY(b.error().message.find("no_such_kernel.cu") != std::string::npos);
    }

    void fallback_op_kernels_compile() {
        // The kernels for Inductor's fallback ops (kernels/fallback_ops.cu: windowed max pooling
        // with indices, segment_reduce and its backward, put, the index puts (every dtype) and the
        // mask's coordinates, masked_select, batch norm in evaluation mode, triangular_solve,
        // slogdet, matrix_exp) compile for sm_80 PTX with an entry for every launcher; put's
        // accumulation is atomic.
        const auto& rt = cg::cuda::runtime();
        if (!rt.haveNvrtc) QSKIP(qPrintable(QString::fromStdString("NVRTC cannot be loaded: " + rt.whyNoNvrtc)));
        auto src = cg::cuda::fallbackOpsSource();
        QVERIFY2(src.ok(), src.ok() ? "" : src.error().str().c_str());
        QVERIFY(src->find("struct FxWindowArgs") != std::string::npos);
        auto out = cg::cuda::nvrtcCompile(*src, "fxray_fallback_ops", "compute_80");
        QVERIFY2(out.ok(), out.ok() ? "" : out.error().str().c_str());
        for (const char* fn : {"fx_window_max_f32",
                               "fx_window_max_f64",
                               "fx_segment_reduce_f32",
                               "fx_segment_reduce_f64",
                               "fx_segment_reduce_bwd_f32",
                               "fx_segment_reduce_bwd_f64",
                               "fx_put_f32",
                               "fx_put_f64",
                               "fx_masked_put_acc_f32",
                               "fx_masked_put_acc_f64",
                               "fx_masked_put_acc_i64",
                               "fx_masked_put_acc_i32",
                               "fx_masked_put_acc_b8",
                               "fx_masked_put_acc_f16",
                               "fx_masked_put_acc_bf16",
                               "fx_mask_coords",
                               "fx_masked_select_any",
                               "fx_bn_eval_f32",
                               "fx_bn_eval_f64",
                               "fx_trsm_f32",
                               "fx_trsm_f64",
                               "fx_lu_pivot_f32",
                               "fx_lu_pivot_f64",
                               "fx_slogdet_f32",
                               "fx_slogdet_f64",
                               "fx_matrix_exp_f32",
                               "fx_matrix_exp_f64"})
            QVERIFY2(out->image.find(std::string(".entry ") + fn) != std::string::npos, fn);
        QVERIFY(out->image.find("atom.global.add.f32") != std::string::npos ||
                out->image.find("red.global.add.f32") != std::string::npos);
        // fp16 / bf16 index puts accumulate by compare-and-swap on 32-bit words.
        QVERIFY(out->image.find(".cas.b32") != std::string::npos);
        // The int64 index put accumulates atomically too (64-bit integer adds).
        QVERIFY(out->image.find("atom.global.add.u64") != std::string::npos ||
                out->image.find("red.global.add.u64") != std::string::npos);
    }

    void sort_kernels_compile() {
        // kernels/sort.cu (the merge sort behind sort, sort.stable, topk and the uniques)
        // compiles for sm_80 PTX with every launcher for every key type the externs accept.
        const auto& rt = cg::cuda::runtime();
        if (!rt.haveNvrtc) QSKIP(qPrintable(QString::fromStdString("NVRTC cannot be loaded: " + rt.whyNoNvrtc)));
        auto src = cg::cuda::sortOpsSource();
        QVERIFY2(src.ok(), src.ok() ? "" : src.error().str().c_str());
        QVERIFY(src->find("struct FxSortArgs") != std::string::npos);
        auto out = cg::cuda::nvrtcCompile(*src, "fxray_sort", "compute_80");
        QVERIFY2(out.ok(), out.ok() ? "" : out.error().str().c_str());
        for (const char* fn : {"fx_unique_counts", "fx_repeat_scan", "fx_repeat_index", "fx_mask_scan"})
            QVERIFY2(out->image.find(std::string(".entry ") + fn) != std::string::npos, fn);
        for (const char* t : {"f32", "f64", "f16", "bf16", "i64", "i32", "i16", "i8", "u8"})
            for (const char* k : {"fx_sort_gather_", "fx_sort_merge_", "fx_sort_scatter_", "fx_unique_scan_",
                                  "fx_unique_write_", "fx_masked_scatter_", "fx_masked_gather_"})
                QVERIFY2(out->image.find(std::string(".entry ") + k + t) != std::string::npos,
                         qPrintable(QString(k) + t));
        // Every dtype the externs accept has its kernels (a dtype added to one side only fails).
        for (DType t : {DType::Float32, DType::Float64, DType::Float16, DType::BFloat16, DType::Int64, DType::Int32,
                        DType::Int16, DType::Int8, DType::UInt8, DType::Bool})
            QVERIFY(cg::cuda::deviceSortSupports(t));
        QVERIFY(!cg::cuda::deviceSortSupports(DType::Complex64));
    }

    void fallback_replacement_kernels_compile_to_ptx() {
        // kernels/sampling.cu (grid sampling and its backward, the antialiasing filter's banded
        // passes), kernels/mt_random.cu (the reference's mt19937_64 stream), loop_pointwise.cu,
        // svd.cu and backward_ops.cu compile for sm_80 PTX with an entry for every launcher;
        // grad_input's scatter is atomic.
        const auto& rt = cg::cuda::runtime();
        if (!rt.haveNvrtc) QSKIP(qPrintable(QString::fromStdString("NVRTC cannot be loaded: " + rt.whyNoNvrtc)));
        auto src = cg::cuda::samplingOpsSource();
        QVERIFY2(src.ok(), src.ok() ? "" : src.error().str().c_str());
        QVERIFY(src->find("struct FxGridArgs") != std::string::npos);
        auto out = cg::cuda::nvrtcCompile(*src, "fxray_sampling", "compute_80");
        QVERIFY2(out.ok(), out.ok() ? "" : out.error().str().c_str());
        for (const char* fn : {"fx_grid_sample_f32", "fx_grid_sample_f64", "fx_grid_sample_backward_f32",
                               "fx_grid_sample_backward_f64", "fx_band_apply_f32", "fx_band_apply_f64"})
            QVERIFY2(out->image.find(std::string(".entry ") + fn) != std::string::npos, fn);
        QVERIFY(out->image.find("atom.global.add.f32") != std::string::npos ||
                out->image.find("red.global.add.f32") != std::string::npos);
        auto rsrc = cg::cuda::randomOpsSource();
        QVERIFY2(rsrc.ok(), rsrc.ok() ? "" : rsrc.error().str().c_str());
        auto rout = cg::cuda::nvrtcCompile(*rsrc, "fxray_mt_random", "compute_80");
        QVERIFY2(rout.ok(), rout.ok() ? "" : rout.error().str().c_str());
        for (const char* fn : {"fx_mt_uniform_f32", "fx_mt_uniform_f64", "fx_mt_randperm_i64", "fx_mt_randperm_i32",
                               "fx_mt_randperm_f32", "fx_mt_randperm_f64"})
            QVERIFY2(rout->image.find(std::string(".entry ") + fn) != std::string::npos, fn);
        // kernels/loop_pointwise.cu: gcd, lcm, igamma, igammac.
        auto lsrc = cg::cuda::loopPointwiseSource();
        QVERIFY2(lsrc.ok(), lsrc.ok() ? "" : lsrc.error().str().c_str());
        auto lout = cg::cuda::nvrtcCompile(*lsrc, "fxray_loop_pointwise", "compute_80");
        QVERIFY2(lout.ok(), lout.ok() ? "" : lout.error().str().c_str());
        for (const char* fn : {"fx_gcd_i64", "fx_gcd_i32", "fx_lcm_i64", "fx_lcm_i32", "fx_igamma_f32", "fx_igamma_f64",
                               "fx_igammac_f32", "fx_igammac_f64"})
            QVERIFY2(lout->image.find(std::string(".entry ") + fn) != std::string::npos, fn);
        // kernels/svd.cu: the Jacobi SVD and pinv.
        auto ssrc = cg::cuda::svdSource();
        QVERIFY2(ssrc.ok(), ssrc.ok() ? "" : ssrc.error().str().c_str());
        auto sout = cg::cuda::nvrtcCompile(*ssrc, "fxray_svd", "compute_80");
        QVERIFY2(sout.ok(), sout.ok() ? "" : sout.error().str().c_str());
        for (const char* fn : {"fx_svd_f32", "fx_svd_f64", "fx_pinv_f32", "fx_pinv_f64"})
            QVERIFY2(sout->image.find(std::string(".entry ") + fn) != std::string::npos, fn);
        // kernels/backward_ops.cu: the margin losses', pdist's and the norms' backwards.
        auto bsrc = cg::cuda::backwardOpsSource();
        QVERIFY2(bsrc.ok(), bsrc.ok() ? "" : bsrc.error().str().c_str());
        auto bout = cg::cuda::nvrtcCompile(*bsrc, "fxray_backward_ops", "compute_80");
        QVERIFY2(bout.ok(), bout.ok() ? "" : bout.error().str().c_str());
        for (const char* k :
             {"fx_multi_margin_bwd", "fx_multilabel_margin_bwd", "fx_pdist_bwd", "fx_group_norm_bwd_input",
              "fx_group_norm_bwd_affine", "fx_rms_norm_bwd_input", "fx_rms_norm_bwd_weight"})
            for (const char* sfx : {"_f32", "_f64"})
                QVERIFY2(bout->image.find(std::string(".entry ") + k + sfx) != std::string::npos, k);
        // Group norm's backward also for fp16 / bf16 (mixed-precision UNets).
        for (const char* k : {"fx_group_norm_bwd_input", "fx_group_norm_bwd_affine"})
            for (const char* sfx : {"_f16", "_bf16"})
                QVERIFY2(bout->image.find(std::string(".entry ") + k + sfx) != std::string::npos, k);
        // kernels/embedding_bag.cu.
        auto esrc = cg::cuda::embeddingBagSource();
        QVERIFY2(esrc.ok(), esrc.ok() ? "" : esrc.error().str().c_str());
        auto eout = cg::cuda::nvrtcCompile(*esrc, "fxray_embedding_bag", "compute_80");
        QVERIFY2(eout.ok(), eout.ok() ? "" : eout.error().str().c_str());
        for (const char* k : {"fx_bag_forward", "fx_bag_backward", "fx_bag_backward_max", "fx_bag_psw_backward"})
            for (const char* sfx : {"_f32", "_f64"})
                QVERIFY2(eout->image.find(std::string(".entry ") + k + sfx) != std::string::npos, k);
        // scale_grad_by_freq's row counts.
        QVERIFY(eout->image.find(".entry fx_bag_count") != std::string::npos);
    }

    void rnn_cells_compile_to_ptx() {
        // The fused LSTM / GRU cells, their backwards and the activation backwards of
        // rnn_cells_graph.h: lowered with nothing left on the host, and the CUDA C compiles.
        auto [params, body] = fxtest::rnnCellsGraph("cuda:0");
        auto g = fxtest::parseForward(params, body);
        QVERIFY(g);
        auto inputs = cg::cuda::annotatedInputs(*g);
        QVERIFY2(inputs.ok(), inputs.ok() ? "" : inputs.error().str().c_str());
        auto lg = cg::lowerGraph(*g, *inputs);
        QVERIFY2(lg.ok(), lg.ok() ? "" : lg.error().str().c_str());
        QVERIFY2(lg->fallbackOps.empty(), lg->fallbackOps.begin()->first.c_str());
        const auto& rt = cg::cuda::runtime();
        if (!rt.haveNvrtc) QSKIP(qPrintable(QString::fromStdString("NVRTC cannot be loaded: " + rt.whyNoNvrtc)));
        auto so = cg::cuda::compileSourceOnly(*g, *inputs, "compute_80");
        QVERIFY2(so.ok(), so.ok() ? "" : so.error().str().c_str());
        for (const auto& plan : so->source.plans)
            QVERIFY2(so->compiled.image.find(plan.name) != std::string::npos, plan.name.c_str());
    }

    void corpus_graphs_compile_to_ptx() {
        if (!fxtest::haveCorpus()) QSKIP("corpus not found at FXRAY_CORPUS_DIR");
        const auto& rt = cg::cuda::runtime();
        if (!rt.haveNvrtc) QSKIP(qPrintable(QString::fromStdString("NVRTC cannot be loaded: " + rt.whyNoNvrtc)));
        std::vector<fs::path> files;
        for (const auto& model : fs::directory_iterator(fxtest::corpus())) {
            for (const char* sub : {"graphs", "numerics"}) {
                fs::path dir = model.path() / sub;
                if (!fs::is_directory(dir)) continue;
                for (const auto& e : fs::directory_iterator(dir))
                    if (e.path().extension() == ".py") files.push_back(e.path());
            }
        }
        std::sort(files.begin(), files.end());
        int compiled = 0, skipped = 0, kernels = 0;
        double nvrtcMs = 0;
        for (const auto& p : files) {
            auto f = loadFile(p);
            if (!f.ok() || f->graphs.empty()) {
                ++skipped;
                continue;
            }
            for (auto& gi : f->graphs) {
                Graph& g = *gi.graph;
                auto inputs = cg::cuda::annotatedInputs(g);
                if (!inputs.ok()) {  // symbolic shapes or unannotated inputs: not compilable statically
                    ++skipped;
                    continue;
                }
                auto lg = cg::lowerGraph(g, *inputs);
                if (!lg.ok()) {  // a graph the shared lowering refuses is the CPU backend's concern too
                    ++skipped;
                    continue;
                }
                auto so = cg::cuda::compileSourceOnly(g, *inputs, "compute_80");
                QVERIFY2(so.ok(),
                         qPrintable(QString::fromStdString(p.string() + ": " + (so.ok() ? "" : so.error().str()))));
                QVERIFY(so->compiled.image.find(".entry") != std::string::npos || so->program.kernels.empty());
                for (const auto& plan : so->source.plans)
                    QVERIFY2(so->compiled.image.find(plan.name) != std::string::npos, plan.name.c_str());
                ++compiled;
                kernels += static_cast<int>(so->program.kernels.size());
                nvrtcMs += so->stats.nvrtcMs;
            }
        }
        qInfo("%d graphs compiled to PTX (%d kernels, NVRTC %.0f ms in all), %d skipped (symbolic/unloadable)",
              compiled, kernels, nvrtcMs, skipped);
        // Most graphs must compile (not all skipped): at least 20 of the full corpus, at least half
        // of a trimmed copy (the GPU machine's bundle carries a few models).
        QVERIFY2(compiled >= std::min<int>(20, static_cast<int>(files.size()) / 2),
                 qPrintable(QString("%1 of %2 files compiled").arg(compiled).arg(files.size())));
    }
};

QTEST_GUILESS_MAIN(TestCudaCodegen)
#include "tst_cuda_codegen.moc"
