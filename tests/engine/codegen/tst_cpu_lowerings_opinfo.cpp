// The CPU backend's lowering rules against PyTorch's OpInfo samples: a representative slice of
// ../shared/opinfo (one or two graphs per lowered op family: float math, rounding and
// classification, two-operand math, bitwise/logical ops, clamps, masked_fill, activations and
// their backwards, factories, in-place ops and *_copy variants, reductions and norms, shape ops,
// writes through views, resampling) compiled through lowering + fusion + LLVM must (a) reproduce
// PyTorch's recorded outputs and (b) run no op on the reference kernel; the graphs of ops
// Inductor runs as fallback kernels must also (c) run them as CPU extern kernels.
// bench/opinfo_rate.py --backend cpu measures the whole set.
#include "test_util.h"

#include "codegen/cpu/cpu_backend.h"
#include "exec/ops/upsample_filter.h"
#include "exec/run_check.h"
#include "import/lifted_constants.h"
#include "import/loader.h"
#include "import/npy.h"

#include <QString>
#include <QTest>

#include <filesystem>
#include <string>

using namespace fxray;
namespace fs = std::filesystem;

namespace {

fs::path opinfoDir() {
    if (const char* env = std::getenv("FXRAY_OPINFO_DIR"); env && *env) return fs::path(env);
    return fxtest::corpus().parent_path() / "opinfo";
}

// clang-format off
/// case/stage rows: each ran without fallback and matched when its lowering was added.
const char* const kCases[] = {
    // a reduction over no dims (normalized_shape = the whole shape): weight and bias gradients
    "nn_functional_layer_norm__default__s0/backward", "unbind__default__s0/forward", "stack__default__s0/forward",
    // float math
    "sin__default__s0/forward", "cos__default__s0/backward", "tan__default__s0/forward",
    "asin__default__s0/forward", "acosh__default__s0/forward", "atanh__default__s0/forward",
    "erfc__default__s0/forward", "log2__default__s0/forward", "log10__default__s1/forward",
    "exp2__default__s0/forward", "sinc__default__s0/forward", "logit__default__s0/forward",
    "lgamma__default__s0/forward", "deg2rad__default__s0/forward",
    // rounding, sign, classification
    "round__decimals_3__s0/forward", "round__decimals_neg_3__s0/forward", "frac__default__s0/forward",
    "sgn__default__s0/forward", "isnan__default__s0/forward", "isinf__default__s0/forward",
    "nan_to_num__default__s0/forward", "signbit__default__s0/forward",
    // two-operand math
    "atan2__default__s0/forward", "hypot__default__s0/forward", "copysign__default__s0/backward",
    "fmax__default__s0/forward", "logaddexp__default__s0/forward", "xlogy__default__s0/forward",
    "remainder__default__s0/forward", "fmod__default__s0/forward", "floor_divide__default__s0/forward",
    "lerp__default__s0/forward", "addcmul__default__s0/forward", "addcdiv__default__s0/forward",
    "rsub__default__s0/forward", "heaviside__default__s0/forward",
    // bitwise, logical, clamps, masked_fill
    "bitwise_xor__default__s0/forward", "bitwise_left_shift__default__s0/forward",
    "logical_or__default__s0/forward", "clamp__default__s0/forward", "masked_fill__default__s0/forward",
    // activations and backwards
    "nn_functional_hardswish__default__s0/backward", "nn_functional_mish__default__s0/backward",
    "nn_functional_softshrink__default__s0/backward", "nn_functional_threshold__default__s0/forward",
    "nn_functional_logsigmoid__default__s0/forward", "mvlgamma__mvlgamma_p_1__s0/forward",
    "digamma__default__s0/forward", "polygamma__polygamma_n_1__s0/forward", "polygamma__polygamma_n_3__s0/forward",
    // pooling
    "nn_functional_avg_pool2d__default__s0/backward", "nn_functional_adaptive_avg_pool2d__default__s0/backward",
    "nn_functional_max_unpool2d__default__s1/forward", "nn_functional_max_unpool3d__default__s0/forward",
    // in-place ops and copy variants
    "dist__default__s0/backward", "permute_copy__default__s0/forward", "t_copy__default__s0/forward",
    // reductions and norms
    "std__default__s0/forward", "var_mean__default__s0/forward", "logsumexp__default__s0/forward",
    "prod__default__s0/forward", "norm__default__s0/forward", "amax__default__s0/forward",
    "nansum__default__s0/forward", "any__default__s0/forward", "std_mean__default__s0/forward",
    // scans, arg-reductions, contractions
    "cumsum__default__s0/forward", "cumprod__default__s0/forward", "argmin__default__s0/forward",
    "max__reduction_with_dim__s0/forward", "mv__default__s0/backward", "addr__default__s0/forward",
    "dist__default__s0/forward", "torch_ops_aten__safe_softmax_default__default__s0/forward",
    // scatters as gathers
    "scatter_add__default__s0/backward", "scatter_reduce__mean__s0/forward", "scatter__default__s0/forward",
    "index_copy__default__s1/forward",
    // losses
    "nn_functional_mse_loss__default__s0/backward", "nn_functional_huber_loss__default__s0/backward",
    "nn_functional_binary_cross_entropy__default__s0/forward",
    // shape ops
    "flip__default__s0/forward", "roll__default__s1/forward", "repeat__default__s0/forward",
    "nn_functional_pixel_shuffle__default__s0/forward", "take__default__s0/forward",
    "select_scatter__default__s0/forward", "slice_scatter__default__s1/forward",
    "nn_functional_pad__reflect__s0/forward", "rot90__default__s0/forward", "cross__default__s0/backward",
    "cummax__default__s0/forward", "logcumsumexp__default__s0/forward",
    "tril__default__s0/forward", "diag_embed__default__s0/forward", "diagonal__default__s0/backward",
    "slice__default__s0/backward",
    // views by storage position, writes through views (copy_ into as_strided of new_zeros)
    "as_strided__default__s1/forward", "as_strided__partial_views__s0/backward",
    "as_strided_copy__default__s0/backward", "as_strided_scatter__default__s1/forward",
    "unfold__default__s1/forward", "unfold__default__s1/backward", "unfold_copy__default__s0/forward",
    // index_* on a 0-d self, masked gathers
    "index_reduce__amax__s1/forward", "index_reduce__mean__s0/backward", "_unsafe_masked_index__default__s0/forward",
    // resampling and its backwards
    "nn_functional_interpolate__nearest__s0/backward", "nn_functional_interpolate__nearest_exact__s1/backward",
    "nn_functional_interpolate__bilinear__s1/backward", "nn_functional_interpolate__linear__s0/backward",
    "nn_functional_interpolate__trilinear__s0/forward", "grid_sampler_2d__default__s1/forward",
    // norms Inductor decomposes
    "nn_functional_group_norm__default__s0/forward", "nn_functional_rms_norm__default__s1/forward",
    // 3-D average pooling, losses gathering the target class, search and special functions
    "nn_functional_avg_pool3d__default__s0/backward", "nn_functional_adaptive_avg_pool3d__default__s0/backward",
    "nn_functional_nll_loss__default__s0/backward", "nn_functional_multi_margin_loss__default__s0/forward",
    "nn_functional_multilabel_margin_loss__default__s1/forward", "nn_functional_bilinear__default__s1/backward",
    "nn_functional_grid_sample__default__s1/forward", "erfinv__default__s0/backward",
    "bucketize__default__s1/forward", "isin__default__s0/forward", "frexp__default__s0/forward",
    "erfinv__default__s0/forward", "renorm__default__s1/forward", "aminmax__default__s0/forward",
    "trace__default__s0/backward", "nn_functional_bilinear__default__s0/forward",
    // shape ops, masked writes, pad backwards, bicubic resampling
    "block_diag__default__s0/forward", "narrow_copy__default__s0/forward", "masked_scatter__default__s0/backward",
    "nn_functional_pad__replicate__s0/backward", "nn_functional_interpolate__bicubic__s0/backward",
    "index_fill__default__s0/backward",
    // empty results (an empty kernel, whatever the op)
    "roll__default__s0/forward", "nn_functional_unfold__default__s0/forward",
    // modified Bessel functions (i0's backward is special_i1)
    "i0__default__s0/backward", "i0__default__s1/forward",
    // an in-place scatter registered beside its functional form (not in the in-place table)
    "nn_functional_one_hot__default__s1/forward",
};

/// Graphs whose ops Inductor runs as fallback kernels: they must match with no reference
/// fallback and run at least one CPU extern kernel.
const char* const kExternCases[] = {
    "nanquantile__default__s0/forward", "nn_functional_adaptive_max_pool2d__default__s0/backward",
    "nn_functional_adaptive_max_pool3d__default__s1/forward", "_segment_reduce__lengths__s0/backward",
    "_segment_reduce__offsets__s1/forward", "put__default__s0/forward",
    "_unsafe_masked_index_put_accumulate__default__s0/forward", "baddbmm__default__s0/forward",
    "addbmm__default__s1/backward", "quantile__default__s1/backward", "nn_functional_max_pool3d__default__s0/backward",
    "nn_functional_fractional_max_pool2d__default__s0/backward", "native_batch_norm__default__s0/forward",
    "nn_functional_batch_norm__default__s0/forward", "_batch_norm_with_update__default__s0/forward",
    "triangular_solve__default__s0/forward", "matrix_exp__default__s1/backward", "combinations__default__s0/forward",
    // a 0 x 0 matrix (the slogdet extern once crashed on it)
    "logdet__default__s0/forward",
    // elementwise loops of data-dependent length, _chunk_cat beside cat
    "gcd__default__s0/forward", "lcm__default__s1/forward", "igamma__default__s0/forward",
    "igammac__default__s1/forward", "_chunk_cat__default__s0/forward",
    // embedding bags (offset2bag rebuilt from offsets in the backwards)
    "nn_functional_embedding_bag__default__s0/backward", "nn_functional_embedding_bag__default__s1/forward",
    // loss, distance and norm backwards, the storage-less zero tensor of sgn's backward
    "nn_functional_multi_margin_loss__default__s0/backward", "nn_functional_multilabel_margin_loss__default__s1/backward",
    "nn_functional_pdist__default__s0/backward", "nn_functional_group_norm__default__s0/backward",
    "nn_functional_rms_norm__default__s1/backward", "sgn__default__s0/backward",
    // trilinear sampling and the samplers' backwards (align_corners both ways, cuDNN's)
    "grid_sampler_3d__default__s0/backward", "grid_sampler_3d__default__s1/forward",
    "grid_sampler_2d__default__s1/backward", "nn_functional_grid_sample__default__s1/backward",
    // antialiased bilinear resampling (downscaled windows) and its backward
    "_upsample_bilinear2d_aa__default__s0/backward", "_upsample_bilinear2d_aa__default__s1/forward",
    // the memory-efficient attention kernel on BMHK tensors, causal from the top left (s1: scale 1)
    "torch_ops_aten__efficient_attention_forward__default__s0/forward",
    "torch_ops_aten__efficient_attention_forward__default__s1/forward",
    // the SVD (U and Vh used together in the nuclear norm's backward), pinv, lu_solve
    "norm__nuc__s0/forward", "norm__nuc__s1/backward", "pinverse__default__s0/backward",
    "logdet__default__s1/backward",
    // index.Tensor by a boolean mask (the rule declines; a data-dependent length)
    "index_put__default__s1/backward",
    // _to_copy of a real tensor into complex64 / complex128
    "cfloat__default__s0/forward", "cdouble__default__s1/forward",
    // copy_ into an alias of a graph input (instance norm's running mean), written in place
    "nn_functional_instance_norm__default__s0/forward",
    // convolutions of 1 and 3 spatial dims and transposed ones, forward and backward (one im2col
    // engine; before it only 2-D plain convolutions ran as externs, the rest on the reference)
    "nn_functional_conv1d__default__s0/forward", "nn_functional_conv1d__default__s0/backward",
    "nn_functional_conv3d__default__s1/forward", "nn_functional_conv3d__default__s1/backward",
    "nn_functional_conv_transpose1d__default__s0/backward", "nn_functional_conv_transpose2d__default__s1/forward",
    "nn_functional_conv_transpose2d__default__s1/backward", "nn_functional_conv_transpose3d__default__s0/forward",
    "nn_functional_conv_transpose3d__default__s0/backward",
    // index_add into a 0-d self, batch norms in evaluation mode, index_put by a boolean mask
    "index_add__default__s0/forward", "index_select__default__s0/backward",
    "_native_batch_norm_legit__default__s1/forward", "native_batch_norm__default__s1/forward",
    "nn_functional_batch_norm__default__s1/forward", "index_put__default__s1/forward",
    // _unique (index_fill's backward over repeated indices): a data-sized extern
    "index_fill__default__s1/backward",
};
// clang-format on

}  // namespace

class TestCpuLoweringsOpInfo : public QObject {
    Q_OBJECT
private slots:
    void run_data() {
        QTest::addColumn<QString>("key");
        QTest::addColumn<bool>("viaExtern");
        for (const char* k : kCases) QTest::newRow(k) << QString(k) << false;
        for (const char* k : kExternCases) QTest::newRow(k) << QString(k) << true;
    }

    void run() {
        if (!fs::exists(opinfoDir() / "index.json")) QSKIP("../shared/opinfo not found beside the corpus");
        QFETCH(QString, key);
        QFETCH(bool, viaExtern);
        const std::string k = key.toStdString();
        const std::string name = k.substr(0, k.rfind('/')), stage = k.substr(k.rfind('/') + 1);
        const fs::path num = opinfoDir() / name / "numerics";
        QVERIFY2(fs::exists(num / (stage + ".py")), ("not in ../shared/opinfo: " + k).c_str());
        auto f = loadFile(num / (stage + ".py"));
        QVERIFY2(f.ok(), f.ok() ? "" : f.error().str().c_str());
        auto sel = selectGraph(*f, "");
        QVERIFY2(sel.ok(), sel.ok() ? "" : sel.error().str().c_str());
        Graph& g = (*sel)->executable();
        QVERIFY(missingConstants(g).empty());
        auto phs = g.placeholders();
        auto inputs = readNpyFolder(num / stage / "inputs", phs.size());
        QVERIFY2(inputs.ok(), inputs.ok() ? "" : inputs.error().str().c_str());
        for (size_t i = 0; i < inputs->size(); ++i)
            if ((*inputs)[i].isTensor()) (*inputs)[i].t = withAnnotatedStrides((*inputs)[i].t, *phs[i]);
        auto expect = readNpyFolder(num / stage / "outputs", g.outputs().size());
        QVERIFY2(expect.ok(), expect.ok() ? "" : expect.error().str().c_str());
        RunRequest req;
        req.inputs = std::move(inputs).value();
        cg::cpu::CpuRunInfo info;
        auto res = cg::cpu::runAndCheckCpu(g, req, &*expect, &info);
        QVERIFY2(res.ok(), res.ok() ? "" : res.error().str().c_str());
        int compared = 0;
        for (const auto& c : res->comparisons) {
            if (!c.ok)
                QFAIL(qPrintable(QString("output %1: rel_err %2 (tolerance %3) max_abs_err %4 %5")
                                     .arg(c.index)
                                     .arg(c.relErr)
                                     .arg(c.tolerance)
                                     .arg(c.maxAbsErr)
                                     .arg(QString::fromStdString(c.note))));
            ++compared;
        }
        QVERIFY(compared > 0);
        std::string fb;
        for (const auto& [op, n] : info.fallbacks) fb += " " + op + " x" + std::to_string(n);
        QVERIFY2(info.fallbacks.empty(),
                 qPrintable(QString("reference-kernel fallback:%1").arg(QString::fromStdString(fb))));
        if (viaExtern) QVERIFY2(info.externCalls > 0, "no extern kernel ran");
    }

    /// The antialiasing filter the reference, the CPU extern and the device share, on 4 -> 2
    /// worked by hand: scale 2, support 2, taps at |i - centre + 0.5| / 2 weighted 1 - x, so row 0
    /// (centre 1) has 3/4, 3/4, 1/4 over inputs 0..2 and row 1 (centre 3) 1/4, 3/4, 3/4 over 1..3,
    /// each divided by 7/4. The reference op applies exactly that.
    void aaFilterIsTheHandWorkedTriangle() {
        const std::vector<double> w = kern::aaFilterMatrix(4, 2, false, std::nullopt);
        FX_COMPARE_VEC(w, (std::vector<double>{3. / 7, 3. / 7, 1. / 7, 0, 0, 1. / 7, 3. / 7, 3. / 7}), 1e-15);
        auto y = fxtest::run("aten._upsample_bilinear2d_aa.default",
                             {fxtest::tv({1, 1, 1, 4}, {1, 2, 3, 4}), fxtest::ilist({1, 2}), fxtest::bv(false)});
        FX_COMPARE_VEC(fxtest::values(y), (std::vector<double>{12. / 7, 23. / 7}), 1e-6);
    }
};

QTEST_GUILESS_MAIN(TestCpuLoweringsOpInfo)
#include "tst_cpu_lowerings_opinfo.moc"
