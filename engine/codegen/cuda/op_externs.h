#pragma once
/// The device externs of the op families of op_kernels.h, listed in deviceExternTable(): the
/// embedding bags (device_externs_embedding_bag.cpp), the margin losses', pdist's and the norms'
/// backwards (device_externs_loss_norm.cpp), indexing by a boolean mask
/// (device_externs_mask_index.cpp), linalg_lu_solve (device_externs_lu_solve.cpp) and copy_ into
/// a graph input (device_externs_copy_into.cpp). Each
/// returns false, before allocating anything, for an instance its kernels do not handle.
#include "codegen/cuda/device_externs.h"

namespace fxray::cg::cuda {

Expected<bool> embeddingBagOnDevice(DeviceCall& c);
Expected<bool> embeddingBagBackwardOnDevice(DeviceCall& c);
Expected<bool> perSampleWeightsBackwardOnDevice(DeviceCall& c);

Expected<bool> multiMarginBackwardOnDevice(DeviceCall& c);
Expected<bool> multilabelMarginBackwardOnDevice(DeviceCall& c);
Expected<bool> pdistBackwardOnDevice(DeviceCall& c);
Expected<bool> groupNormBackwardOnDevice(DeviceCall& c);
Expected<bool> rmsNormBackwardOnDevice(DeviceCall& c);

/// index.Tensor(self, [mask]) with one boolean mask over self's leading dims.
Expected<bool> indexByMaskOnDevice(DeviceCall& c);
/// index_put(self, [mask], values, accumulate) likewise (the index_put extern tries it first);
/// false for other indices.
Expected<bool> maskIndexPutOnDevice(DeviceCall& c);

Expected<bool> luSolveOnDevice(DeviceCall& c);

/// copy_ into a graph input (device_externs_copy_into.cpp): written in place on the device.
Expected<bool> copyIntoInputOnDevice(DeviceCall& c);

}  // namespace fxray::cg::cuda
