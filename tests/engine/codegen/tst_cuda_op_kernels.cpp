// The op families of codegen/cuda/op_kernels.h (embedding_bag.cu, loss_norm_backward.cu,
// mask_index.cu, lu_solve.cu) compile with NVRTC for sm_80 PTX, with an entry for every kernel
// their device externs launch. Needs NVRTC only, not a device (label engine); the kernels run in
// tst_cuda_exec_op_families.
#include "test_util.h"

#include "codegen/cuda/cuda_api.h"
#include "codegen/cuda/op_kernels.h"

#include <map>

using namespace fxray;

class TestCudaOpKernels : public QObject {
    Q_OBJECT
private slots:
    void op_family_kernels_compile() {
        const auto& rt = cg::cuda::runtime();
        if (!rt.haveNvrtc) QSKIP(qPrintable(QString::fromStdString("NVRTC cannot be loaded: " + rt.whyNoNvrtc)));
        const std::map<std::string, std::vector<std::string>> entries = {
            {"embedding_bag.cu",
             {"fx_embedding_bag_f32", "fx_embedding_bag_f64", "fx_embedding_bag_bwd_f32", "fx_embedding_bag_bwd_f64",
              "fx_eb_psw_bwd_f32", "fx_eb_psw_bwd_f64", "fx_eb_count_rows"}},
            {"loss_norm_backward.cu",
             {"fx_multi_margin_bwd_f32", "fx_multilabel_margin_bwd_f64", "fx_pdist_bwd_f32", "fx_pdist_bwd_f64",
              "fx_group_norm_bwd_input_f32", "fx_group_norm_bwd_affine_f64", "fx_rms_norm_bwd_input_f32",
              "fx_rms_norm_bwd_weight_f64"}},
            {"mask_index.cu", {"fx_mask_rank", "fx_mask_gather_b1", "fx_mask_gather_b8", "fx_mask_put_f32",
                               "fx_mask_put_i64", "fx_mask_put_u8"}},
            {"lu_solve.cu", {"fx_lu_solve_f32", "fx_lu_solve_f64"}},
        };
        QCOMPARE(cg::cuda::opKernelFiles().size(), entries.size());
        for (const std::string& file : cg::cuda::opKernelFiles()) {
            cg::cuda::KernelModule* m = cg::cuda::opKernelModule(file);
            QVERIFY2(m, file.c_str());
            auto src = m->source();
            QVERIFY2(src.ok(), src.ok() ? "" : src.error().str().c_str());
            auto out = cg::cuda::nvrtcCompile(*src, "fxray_ops", "compute_80");
            QVERIFY2(out.ok(), out.ok() ? "" : (file + ": " + out.error().str()).c_str());
            QVERIFY2(entries.count(file), file.c_str());
            for (const std::string& fn : entries.at(file))
                QVERIFY2(out->image.find(".entry " + fn) != std::string::npos, (file + ": " + fn).c_str());
        }
        QVERIFY(cg::cuda::opKernelModule("no_such.cu") == nullptr);
    }
};

QTEST_GUILESS_MAIN(TestCudaOpKernels)
#include "tst_cuda_op_kernels.moc"
