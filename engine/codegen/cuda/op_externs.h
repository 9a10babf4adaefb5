#pragma once
/// Device externs listed in deviceExternTable() from files of their own: indexing by a boolean
/// mask (device_externs_mask_index.cpp) and copy_ into a graph input
/// (device_externs_copy_into.cpp). Each returns false, before allocating anything, for an
/// instance its kernels do not handle.
#include "codegen/cuda/device_externs.h"

namespace fxray::cg::cuda {

/// index.Tensor(self, [mask]) with one boolean mask over self's leading dims.
Expected<bool> indexByMaskOnDevice(DeviceCall& c);
/// index_put(self, [mask], values, accumulate) likewise (the index_put extern tries it first);
/// false for other indices.
Expected<bool> maskIndexPutOnDevice(DeviceCall& c);

/// copy_ into a graph input: written in place on the device.
Expected<bool> copyIntoInputOnDevice(DeviceCall& c);

}  // namespace fxray::cg::cuda
