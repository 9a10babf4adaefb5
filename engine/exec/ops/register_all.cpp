#include "exec/ops/register.h"

namespace fxray {

// weight_norm.cpp: _weight_norm_interface + backward (declared here, not in register.h, whose
// every includer would rebuild for one new family).
void registerWeightNormOps(OpRegistry& r);
// complex.cpp: complex, polar, view_as_complex/view_as_real, conj and its variants, real/imag (likewise).
void registerComplexOps(OpRegistry& r);
// fft.cpp: _fft_r2c, _fft_c2c, _fft_c2r (likewise).
void registerFftOps(OpRegistry& r);
// data_sized.cpp: nonzero, bincount (likewise).
void registerDataSizedOps(OpRegistry& r);

void registerAllOps(OpRegistry& r) {
    registerPointwiseOps(r);
    registerActivationOps(r);
    registerActivationExtraOps(r);
    registerMathOps(r);
    registerSpecialMathOps(r);
    registerReductionOps(r);
    registerViewOps(r);
    registerShapeOps(r);
    registerIndexingOps(r);
    registerCreationOps(r);
    registerRandomOps(r);
    registerLinalgOps(r);
    registerLinalgDecompOps(r);
    registerLinalgSvdOps(r);
    registerNormOps(r);
    registerConvOps(r);
    registerMiscOps(r);
    registerAttentionOps(r);
    registerPoolingOps(r);
    registerIndexedPoolingOps(r);
    registerPaddingOps(r);
    registerFoldOps(r);
    registerShuffleOps(r);
    registerDistanceOps(r);
    registerTrilinearOps(r);
    registerRmsNormOps(r);
    registerWeightNormOps(r);
    registerRnnCellOps(r);
    registerBinaryOps(r);
    registerInplaceOps(r);
    registerCopyVariantOps(r);
    registerReorderOps(r);
    registerViewScatterOps(r);
    registerScatterOps(r);
    registerMaskedIndexOps(r);
    registerUpsampleOps(r);
    registerGridSampleOps(r);
    registerEmbeddingBagOps(r);
    registerVectorNormOps(r);
    registerScanOps(r);
    registerSortOps(r);
    registerSegmentReduceOps(r);
    registerLossOps(r);
    registerClassLossOps(r);
    registerSymOps(r);
    registerComplexOps(r);
    registerFftOps(r);
    registerDataSizedOps(r);
}

}  // namespace fxray
