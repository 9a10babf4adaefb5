// The device extern of copy_ where the lowering cannot rebind self to a new value (self is a
// graph input or an alias of one: instance norm's running statistics; codegen/lowering.cpp maps
// it to copy_into_input): src broadcast into self's device storage, in place as PyTorch writes
// it, and into the call's output. Same dtype only (the strided copy moves bytes); other
// instances decline to the host before anything is written.
#include "codegen/cuda/op_externs.h"

#include "codegen/cuda/fallback_kernels.h"

namespace fxray::cg::cuda {

Expected<bool> copyIntoInputOnDevice(DeviceCall& c) {
    // copy_(self, src, non_blocking=False) -> self
    const TensorMeta* om = c.out0();
    auto self = c.view(0), src = c.view(1);
    if (!om || !self || !src || src->meta.dtype != self->meta.dtype || om->dtype != self->meta.dtype ||
        om->shape != self->meta.shape || self->meta.shape.size() > 8)
        return false;
    auto full = broadcastShape(src->meta.shape, self->meta.shape);
    if (!full || *full != self->meta.shape) return false;
    auto o = c.out(0);
    if (!o.ok()) return o.error();
    if (Status s = stridedCopy(*src, *self); !s.ok()) return s.error();
    if (Status s = stridedCopy(*src, **o); !s.ok()) return s.error();
    c.stats().deviceCopies += 2;
    ++c.stats().deviceExterns;
    return true;
}

}  // namespace fxray::cg::cuda
