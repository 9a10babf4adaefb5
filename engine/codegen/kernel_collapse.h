#pragma once
/// Merging neighbouring loop dims of a kernel that every index walks as one dense range.
///
/// A sum of a [16, 197, 384] gradient over dims 0 and 1 iterates [16r, 197r, 384]; each row
/// index r then splits into r / 197 and r % 197 only to be put back together as
/// 75648 * (r / 197) + 384 * (r % 197) = 384 * r. Two adjacent dims d, d + 1 (both reduced or
/// both kept) merge when, in every index of the kernel (nested ones included), the coefficient
/// of x_d is size(d + 1) times that of x_{d+1}: then c * (size(d+1) * x_d + x_{d+1}) is c times
/// the merged variable, and the kernel computes the same values with one division fewer per
/// point. Inductor's loop bodies collapse dims in the same way (SizeVarAllocator's
/// _simplify_loops).
#include "codegen/kernel_ir.h"

namespace fxray::cg {

/// `k` with every mergeable pair of adjacent dims merged (sizes, reduced flags and all indices
/// renumbered); `k` itself when there is none.
Kernel collapseDims(const Kernel& k);

}  // namespace fxray::cg
