#pragma once
/// Device externs listed in deviceExternTable() from files of their own: copy_ into a graph input
/// (device_externs_copy_into.cpp). Each returns false, before writing anything, for an instance
/// it does not handle.
#include "codegen/cuda/device_externs.h"

namespace fxray::cg::cuda {

/// copy_ into a graph input: written in place on the device.
Expected<bool> copyIntoInputOnDevice(DeviceCall& c);

}  // namespace fxray::cg::cuda
