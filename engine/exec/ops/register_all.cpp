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
    registerCopyVariantOps(r);
    registerReorderOps(r);
    registerViewScatterOps(r);
    registerScatterOps(r);
    registerMaskedIndexOps(r);
}

} // namespace fxray
