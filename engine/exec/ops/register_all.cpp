#include "exec/ops/register.h"

namespace fxray {

void registerAllOps(OpRegistry& r) {
    registerPointwiseOps(r);
    registerActivationOps(r);
    registerReductionOps(r);
    registerViewOps(r);
    registerShapeOps(r);
    registerIndexingOps(r);
    registerCreationOps(r);
    registerRandomOps(r);
    registerLinalgOps(r);
    registerNormOps(r);
    registerConvOps(r);
    registerMiscOps(r);
    registerAttentionOps(r);
    registerVectorNormOps(r);
    registerScanOps(r);
    registerSortOps(r);
    registerSegmentReduceOps(r);
    registerLossOps(r);
    registerClassLossOps(r);
}

} // namespace fxray
