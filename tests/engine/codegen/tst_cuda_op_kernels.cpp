// The modules of codegen/cuda/op_kernels.h (mask_index.cu) compile with NVRTC for sm_80 PTX, with
// an entry for every kernel their device externs launch. Needs NVRTC only, not a device (label
// engine); the kernels run in tst_cuda_exec_former_fallbacks.
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
            {"mask_index.cu", {"fx_mask_rank", "fx_mask_gather_b1", "fx_mask_gather_b2", "fx_mask_gather_b4",
                               "fx_mask_gather_b8", "fx_mask_put_f32", "fx_mask_put_f64", "fx_mask_put_i64",
                               "fx_mask_put_i32", "fx_mask_put_i16", "fx_mask_put_i8", "fx_mask_put_u8"}},
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
