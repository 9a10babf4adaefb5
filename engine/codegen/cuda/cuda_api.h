#pragma once
/// The CUDA driver API, NVRTC and cuBLAS, opened at run time with dlopen.
///
/// fxray has no link-time dependency on CUDA: it must start and run on machines without a GPU,
/// a driver or a toolkit, and say plainly why the CUDA backend is unavailable. So the few types
/// and functions called are declared here (ABI-compatible with cuda.h, nvrtc.h, cublas_api.h)
/// instead of including the toolkit headers, and every entry point is looked up by name.
#include "support/diagnostic.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace fxray::cg::cuda {

// ----- the driver API's types (cuda.h) -------------------------------------------------------
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st*;
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using CUstream = struct CUstream_st*;
using CUevent = struct CUevent_st*;

struct DriverApi {
    CUresult (*cuInit)(unsigned) = nullptr;
    CUresult (*cuDriverGetVersion)(int*) = nullptr;
    CUresult (*cuDeviceGetCount)(int*) = nullptr;
    CUresult (*cuDeviceGet)(CUdevice*, int) = nullptr;
    CUresult (*cuDeviceGetName)(char*, int, CUdevice) = nullptr;
    CUresult (*cuDeviceGetPCIBusId)(char*, int, CUdevice) = nullptr;
    CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice) = nullptr;
    CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice) = nullptr;
    CUresult (*cuCtxSetCurrent)(CUcontext) = nullptr;
    CUresult (*cuCtxSynchronize)() = nullptr;
    CUresult (*cuModuleLoadData)(CUmodule*, const void*) = nullptr;
    CUresult (*cuModuleUnload)(CUmodule) = nullptr;
    CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*) = nullptr;
    CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                               CUstream, void**, void**) = nullptr;
    CUresult (*cuMemAlloc)(CUdeviceptr*, size_t) = nullptr;
    CUresult (*cuMemFree)(CUdeviceptr) = nullptr;
    CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void*, size_t) = nullptr;
    CUresult (*cuMemcpyDtoH)(void*, CUdeviceptr, size_t) = nullptr;
    CUresult (*cuMemcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t) = nullptr;
    CUresult (*cuMemsetD8)(CUdeviceptr, unsigned char, size_t) = nullptr;
    CUresult (*cuGetErrorString)(CUresult, const char**) = nullptr;
    // Events time the steps of a profiled run (CompiledGraph::profile); optional.
    CUresult (*cuEventCreate)(CUevent*, unsigned) = nullptr;
    CUresult (*cuEventRecord)(CUevent, CUstream) = nullptr;
    CUresult (*cuEventSynchronize)(CUevent) = nullptr;
    CUresult (*cuEventElapsedTime)(float*, CUevent, CUevent) = nullptr;
    CUresult (*cuEventDestroy)(CUevent) = nullptr;
};

// ----- NVRTC (nvrtc.h) -----------------------------------------------------------------------
using nvrtcResult = int;
using nvrtcProgram = struct _nvrtcProgram*;

struct NvrtcApi {
    nvrtcResult (*nvrtcVersion)(int*, int*) = nullptr;
    const char* (*nvrtcGetErrorString)(nvrtcResult) = nullptr;
    nvrtcResult (*nvrtcCreateProgram)(nvrtcProgram*, const char*, const char*, int, const char* const*,
                                      const char* const*) = nullptr;
    nvrtcResult (*nvrtcDestroyProgram)(nvrtcProgram*) = nullptr;
    nvrtcResult (*nvrtcCompileProgram)(nvrtcProgram, int, const char* const*) = nullptr;
    nvrtcResult (*nvrtcGetProgramLogSize)(nvrtcProgram, size_t*) = nullptr;
    nvrtcResult (*nvrtcGetProgramLog)(nvrtcProgram, char*) = nullptr;
    nvrtcResult (*nvrtcGetPTXSize)(nvrtcProgram, size_t*) = nullptr;
    nvrtcResult (*nvrtcGetPTX)(nvrtcProgram, char*) = nullptr;
    nvrtcResult (*nvrtcGetCUBINSize)(nvrtcProgram, size_t*) = nullptr;
    nvrtcResult (*nvrtcGetCUBIN)(nvrtcProgram, char*) = nullptr;
};

// ----- cuBLAS (cublas_api.h) -----------------------------------------------------------------
using cublasStatus_t = int;
using cublasHandle_t = struct cublasContext*;
enum : int { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 };
enum : int { CUBLAS_DEFAULT_MATH = 0, CUBLAS_PEDANTIC_MATH = 2 };
enum : int { CUDA_R_32F = 0, CUDA_R_64F = 1, CUDA_R_16F = 2, CUDA_R_16BF = 14 };
enum : int { CUBLAS_COMPUTE_32F = 68, CUBLAS_COMPUTE_32F_PEDANTIC = 69, CUBLAS_COMPUTE_64F = 70 };
enum : int { CUBLAS_GEMM_DEFAULT = -1 };

struct CublasApi {
    cublasStatus_t (*cublasCreate)(cublasHandle_t*) = nullptr;
    cublasStatus_t (*cublasDestroy)(cublasHandle_t) = nullptr;
    cublasStatus_t (*cublasSetMathMode)(cublasHandle_t, int) = nullptr;
    cublasStatus_t (*cublasGemmStridedBatchedEx)(cublasHandle_t, int, int, int, int, int, const void*, const void*, int,
                                                 int, long long, const void*, int, int, long long, const void*, void*,
                                                 int, int, long long, int, int, int) = nullptr;
};

/// What the process found: the libraries, the device, and the context made current.
struct CudaRuntime {
    DriverApi cu;
    NvrtcApi rtc;
    CublasApi blas;
    bool haveDriver = false, haveNvrtc = false, haveCublas = false, haveDevice = false;
    std::string driverLib, nvrtcLib, cublasLib;  ///< the paths that were opened
    std::string whyNoDevice;                     ///< "no CUDA device: libcuda.so.1 not found"
    std::string whyNoNvrtc, whyNoCublas;
    CUdevice device = 0;
    CUcontext context = nullptr;
    std::string deviceName;
    std::string pciBusId;  ///< "0000:19:00.0": tells apart devices of one name (multi-GPU sweeps)
    int ccMajor = 0, ccMinor = 0, smCount = 0;
    int clockKHz = 0, memClockKHz = 0, busWidthBits = 0;  ///< for peak rates (0: not reported)
    int nvrtcMajor = 0, nvrtcMinor = 0;
    cublasHandle_t cublas = nullptr;
};

/// The process-wide runtime, loaded on first use (thread-safe). Never fails: what is missing is
/// recorded in the why* fields.
const CudaRuntime& runtime();

/// "no CUDA device: ..." unless a device is usable.
Status requireDevice();

/// The driver's message for a result ("CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access...").
std::string driverError(CUresult r);

/// Status of a driver call: ok, or "<what>: <driver message>".
Status check(CUresult r, const std::string& what);

/// NVRTC output: PTX (`arch` "compute_XX") or a cubin (`arch` "sm_XX").
struct NvrtcOutput {
    std::string image;  ///< PTX text or cubin bytes
    bool cubin = false;
    std::string log;
    double ms = 0.0;
};

/// Compiles CUDA C++ source with NVRTC for `arch` (no device needed). `name` labels errors.
Expected<NvrtcOutput> nvrtcCompile(const std::string& source, const std::string& name, const std::string& arch);

/// The arch to compile for: "sm_XX" of the device, or "compute_80" (PTX) without one.
std::string targetArch();

}  // namespace fxray::cg::cuda
