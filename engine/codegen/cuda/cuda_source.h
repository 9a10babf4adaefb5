#pragma once
/// Kernel IR -> CUDA C++ source: one `extern "C" __global__` function per kernel, compiled
/// together by NVRTC into one module.
///
/// Launch shapes (why they are what they are):
/// - Pointwise: a grid-stride loop over all points; the innermost dim varies fastest across
///   threadIdx.x so that neighbouring threads touch neighbouring elements (coalesced). When the
///   innermost size is a multiple of 4 and some fp32 access is contiguous along it, each thread
///   takes 4 neighbouring points and those accesses become 16-byte float4 loads/stores (the
///   others stay scalar); FXRAY_CUDA_VEC=0 turns this off.
/// - Reductions with at most kWarpReduceMax points per row: one warp per outer point (several
///   rows per block), lanes stride over the row, butterfly shuffles leave the result in every
///   lane (no shared memory, no block barriers).
/// - Longer rows: one block per outer point, threads stride over the row, warp shuffles then a
///   shared-memory combine across warps; every thread gets the result, so later phases
///   (softmax's normalised store) read it as a register.
/// - Reductions that keep the innermost dim (sums over rows into columns: bias and LayerNorm
///   weight gradients) with at least kColumnReduceMinOuter columns: W = 32, 16 or 8 neighbouring
///   columns per block (fewer for fewer columns, so that there are enough blocks), the block's
///   threads splitting the rows, so every warp load is whole 32-byte sectors; a shared-memory
///   combine at the end. A block per column reads it down with a stride (one sector per element):
///   435-720 GB/s on [2048..8192, 4096] on an H200, where eager's column sums reach ~2 TB/s.
///   With fewer than 256 tiles the rows are also cut into parts (grid y), each block leaving a
///   partial per column and the tile's last block combining them in part order (splitRows).
/// fp16/bf16 are loaded as float and rounded on store with bit conversions (no CUDA headers, so
/// NVRTC needs no include path).
#include "codegen/kernel_ir.h"
#include "support/diagnostic.h"

#include <string>
#include <vector>

namespace fxray::cg::cuda {

constexpr int64_t kWarpReduceMax = 1024;
/// Column reductions with fewer outer points keep the block-per-point form: 8 columns per block
/// would leave most of the GPU idle.
constexpr int64_t kColumnReduceMinOuter = 256;

/// How the executor launches one kernel.
struct LaunchPlan {
    enum class Mode : uint8_t { Pointwise, WarpReduce, BlockReduce, ColumnReduce };
    Mode mode = Mode::Pointwise;
    std::string name;      ///< the __global__ function
    int64_t work = 0;      ///< points (pointwise) or outer points (reductions)
    int threads = 256;     ///< threads per block
    int rowsPerBlock = 1;  ///< WarpReduce, ColumnReduce: warps per block
    int vector = 1;        ///< Pointwise: points per thread (4: float4 accesses, work = points / 4)
    int columns = 32;      ///< ColumnReduce: outer points per block
    int split = 1;         ///< ColumnReduce: parts the rows are cut into (the grid's y)
};

struct CudaSource {
    std::string source;                      ///< the whole module
    std::vector<LaunchPlan> plans;           ///< one per kernel, in order
    std::vector<std::string> kernelSources;  ///< each kernel's function alone (for the kernel pane)
};

/// Generates the module for `kernels`. Fails on a kernel using a dtype the generator has no
/// storage type for (a Diagnostic naming the kernel).
Expected<CudaSource> generateCudaSource(const std::vector<Kernel>& kernels);

/// The helpers every module starts with (conversions, NaN-propagating min/max, reductions).
const std::string& cudaPrelude();

}  // namespace fxray::cg::cuda
