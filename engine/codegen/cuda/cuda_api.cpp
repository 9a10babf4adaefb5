#include "codegen/cuda/cuda_api.h"

#include "codegen/cuda/dl_util.h"

#include <chrono>
#include <mutex>
#include <vector>

namespace fxray::cg::cuda {

namespace {

void loadDriver(CudaRuntime& rt) {
    std::string tried;
    void* lib = openFirst({"libcuda.so.1", "libcuda.so"}, rt.driverLib, tried);
    if (!lib) {
        rt.whyNoDevice = "no CUDA device: the driver library libcuda.so.1 was not found";
        return;
    }
    DriverApi& c = rt.cu;
    std::string missing;
    sym(lib, c.cuInit, "cuInit", missing);
    sym(lib, c.cuDriverGetVersion, "cuDriverGetVersion", missing);
    sym(lib, c.cuDeviceGetCount, "cuDeviceGetCount", missing);
    sym(lib, c.cuDeviceGet, "cuDeviceGet", missing);
    sym(lib, c.cuDeviceGetName, "cuDeviceGetName", missing);
    std::string optional;  // absent in old drivers: profiling says so, nothing else needs them
    sym(lib, c.cuEventCreate, "cuEventCreate", optional);
    sym(lib, c.cuDeviceGetPCIBusId, "cuDeviceGetPCIBusId", optional);
    sym(lib, c.cuEventRecord, "cuEventRecord", optional);
    sym(lib, c.cuEventSynchronize, "cuEventSynchronize", optional);
    sym(lib, c.cuEventElapsedTime, "cuEventElapsedTime", optional);
    sym(lib, c.cuEventDestroy, "cuEventDestroy_v2", optional);
    sym(lib, c.cuDeviceGetAttribute, "cuDeviceGetAttribute", missing);
    sym(lib, c.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", missing);
    sym(lib, c.cuCtxSetCurrent, "cuCtxSetCurrent", missing);
    sym(lib, c.cuCtxSynchronize, "cuCtxSynchronize", missing);
    sym(lib, c.cuModuleLoadData, "cuModuleLoadData", missing);
    sym(lib, c.cuModuleUnload, "cuModuleUnload", missing);
    sym(lib, c.cuModuleGetFunction, "cuModuleGetFunction", missing);
    sym(lib, c.cuLaunchKernel, "cuLaunchKernel", missing);
    sym(lib, c.cuMemAlloc, "cuMemAlloc_v2", missing);
    sym(lib, c.cuMemFree, "cuMemFree_v2", missing);
    sym(lib, c.cuMemcpyHtoD, "cuMemcpyHtoD_v2", missing);
    sym(lib, c.cuMemcpyDtoH, "cuMemcpyDtoH_v2", missing);
    sym(lib, c.cuMemcpyDtoD, "cuMemcpyDtoD_v2", missing);
    sym(lib, c.cuMemsetD8, "cuMemsetD8_v2", missing);
    sym(lib, c.cuGetErrorString, "cuGetErrorString", missing);
    if (!missing.empty()) {
        rt.whyNoDevice = "no CUDA device: " + rt.driverLib + " lacks " + missing;
        return;
    }
    rt.haveDriver = true;
    if (CUresult r = c.cuInit(0); r != 0) {
        rt.whyNoDevice = "no CUDA device: cuInit failed (" + driverError(r) + ")";
        return;
    }
    int count = 0;
    if (c.cuDeviceGetCount(&count) != 0 || count == 0) {
        rt.whyNoDevice = "no CUDA device: the driver reports none";
        return;
    }
    if (CUresult r = c.cuDeviceGet(&rt.device, 0); r != 0) {
        rt.whyNoDevice = "no CUDA device: cuDeviceGet failed (" + driverError(r) + ")";
        return;
    }
    char name[256] = {};
    c.cuDeviceGetName(name, sizeof name - 1, rt.device);
    rt.deviceName = name;
    if (c.cuDeviceGetPCIBusId) {
        char bus[64] = {};
        if (c.cuDeviceGetPCIBusId(bus, sizeof bus - 1, rt.device) == 0) rt.pciBusId = bus;
    }
    c.cuDeviceGetAttribute(&rt.ccMajor, 75, rt.device);       // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
    c.cuDeviceGetAttribute(&rt.ccMinor, 76, rt.device);       // ..._MINOR
    c.cuDeviceGetAttribute(&rt.smCount, 16, rt.device);       // CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
    c.cuDeviceGetAttribute(&rt.clockKHz, 13, rt.device);      // CU_DEVICE_ATTRIBUTE_CLOCK_RATE
    c.cuDeviceGetAttribute(&rt.memClockKHz, 36, rt.device);   // CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE
    c.cuDeviceGetAttribute(&rt.busWidthBits, 37, rt.device);  // CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH
    // The primary context: the one cuBLAS (through the runtime API) uses too.
    if (CUresult r = c.cuDevicePrimaryCtxRetain(&rt.context, rt.device); r != 0) {
        rt.whyNoDevice = "no CUDA device: cannot create a context (" + driverError(r) + ")";
        return;
    }
    c.cuCtxSetCurrent(rt.context);
    rt.haveDevice = true;
}

void loadNvrtc(CudaRuntime& rt) {
    std::string tried;
    void* lib = openFirst({envOr("FXRAY_NVRTC"), "libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2",
                           "/usr/local/cuda/lib64/libnvrtc.so", "/usr/local/cuda/lib64/libnvrtc.so.13",
                           "/usr/local/cuda/lib64/libnvrtc.so.12"},
                          rt.nvrtcLib, tried);
    if (!lib) {
        rt.whyNoNvrtc = "NVRTC not found (tried " + tried + "; set FXRAY_NVRTC to its path)";
        return;
    }
    NvrtcApi& n = rt.rtc;
    std::string missing;
    sym(lib, n.nvrtcVersion, "nvrtcVersion", missing);
    sym(lib, n.nvrtcGetErrorString, "nvrtcGetErrorString", missing);
    sym(lib, n.nvrtcCreateProgram, "nvrtcCreateProgram", missing);
    sym(lib, n.nvrtcDestroyProgram, "nvrtcDestroyProgram", missing);
    sym(lib, n.nvrtcCompileProgram, "nvrtcCompileProgram", missing);
    sym(lib, n.nvrtcGetProgramLogSize, "nvrtcGetProgramLogSize", missing);
    sym(lib, n.nvrtcGetProgramLog, "nvrtcGetProgramLog", missing);
    sym(lib, n.nvrtcGetPTXSize, "nvrtcGetPTXSize", missing);
    sym(lib, n.nvrtcGetPTX, "nvrtcGetPTX", missing);
    sym(lib, n.nvrtcGetCUBINSize, "nvrtcGetCUBINSize", missing);
    sym(lib, n.nvrtcGetCUBIN, "nvrtcGetCUBIN", missing);
    if (!missing.empty()) {
        rt.whyNoNvrtc = rt.nvrtcLib + " lacks " + missing;
        return;
    }
    n.nvrtcVersion(&rt.nvrtcMajor, &rt.nvrtcMinor);
    rt.haveNvrtc = true;
}

void loadCublas(CudaRuntime& rt) {
    if (!rt.haveDevice) {
        rt.whyNoCublas = rt.whyNoDevice;
        return;
    }
    std::string tried;
    void* lib = openFirst({envOr("FXRAY_CUBLAS"), "libcublas.so", "libcublas.so.13", "libcublas.so.12",
                           "libcublas.so.11", "/usr/local/cuda/lib64/libcublas.so",
                           "/usr/local/cuda/lib64/libcublas.so.13", "/usr/local/cuda/lib64/libcublas.so.12"},
                          rt.cublasLib, tried);
    if (!lib) {
        rt.whyNoCublas = "cuBLAS not found (tried " + tried + "; set FXRAY_CUBLAS to its path)";
        return;
    }
    CublasApi& b = rt.blas;
    std::string missing;
    sym(lib, b.cublasCreate, "cublasCreate_v2", missing);
    sym(lib, b.cublasDestroy, "cublasDestroy_v2", missing);
    sym(lib, b.cublasSetMathMode, "cublasSetMathMode", missing);
    sym(lib, b.cublasGemmStridedBatchedEx, "cublasGemmStridedBatchedEx", missing);
    if (!missing.empty()) {
        rt.whyNoCublas = rt.cublasLib + " lacks " + missing;
        return;
    }
    if (b.cublasCreate(&rt.cublas) != 0) {
        rt.whyNoCublas = "cublasCreate failed";
        return;
    }
    // Default math: fp32 GEMMs stay fp32 (no TF32 unless asked), fp16/bf16 may use tensor cores.
    b.cublasSetMathMode(rt.cublas, CUBLAS_DEFAULT_MATH);
    rt.haveCublas = true;
}

}  // namespace

const CudaRuntime& runtime() {
    static CudaRuntime rt;
    static std::once_flag once;
    std::call_once(once, [] {
        loadDriver(rt);
        loadNvrtc(rt);
        loadCublas(rt);
    });
    return rt;
}

Status requireDevice() {
    const CudaRuntime& rt = runtime();
    if (!rt.haveDevice) return makeError(rt.whyNoDevice);
    if (!rt.haveNvrtc) return makeError("no CUDA compiler: " + rt.whyNoNvrtc);
    return Status::success();
}

std::string driverError(CUresult r) {
    const CudaRuntime& rt = runtime();
    const char* s = nullptr;
    if (rt.cu.cuGetErrorString) rt.cu.cuGetErrorString(r, &s);
    return s ? std::string(s) + " (CUresult " + std::to_string(r) + ")" : "CUresult " + std::to_string(r);
}

Status check(CUresult r, const std::string& what) {
    if (r == 0) return Status::success();
    return makeError(what + ": " + driverError(r));
}

std::string targetArch() {
    const CudaRuntime& rt = runtime();
    if (rt.haveDevice) return "sm_" + std::to_string(rt.ccMajor * 10 + rt.ccMinor);
    return "compute_80";
}

Expected<NvrtcOutput> nvrtcCompile(const std::string& source, const std::string& name, const std::string& arch) {
    const CudaRuntime& rt = runtime();
    if (!rt.haveNvrtc) return makeError("cannot compile CUDA source: " + rt.whyNoNvrtc);
    const NvrtcApi& n = rt.rtc;
    auto t0 = std::chrono::steady_clock::now();
    nvrtcProgram prog = nullptr;
    if (nvrtcResult r = n.nvrtcCreateProgram(&prog, source.c_str(), (name + ".cu").c_str(), 0, nullptr, nullptr);
        r != 0)
        return makeError("NVRTC: cannot create program " + name + ": " + n.nvrtcGetErrorString(r));
    std::string archOpt = "--gpu-architecture=" + arch;
    // No fast math: the numerics must match the CPU's libm to the corpus tolerances.
    std::vector<const char*> opts = {archOpt.c_str(), "--std=c++17", "-default-device", "--fmad=true"};
    // FXRAY_NVRTC_OPTS: extra options, space-separated (experiments such as --split-compile=0).
    static const std::vector<std::string> extra = [] {
        std::vector<std::string> r;
        std::string e = envOr("FXRAY_NVRTC_OPTS");
        for (size_t i = 0; i < e.size();) {
            size_t j = e.find(' ', i);
            if (j == std::string::npos) j = e.size();
            if (j > i) r.push_back(e.substr(i, j - i));
            i = j + 1;
        }
        return r;
    }();
    for (const auto& o : extra) opts.push_back(o.c_str());
    nvrtcResult cr = n.nvrtcCompileProgram(prog, static_cast<int>(opts.size()), opts.data());
    NvrtcOutput out;
    size_t logSize = 0;
    n.nvrtcGetProgramLogSize(prog, &logSize);
    if (logSize > 1) {
        out.log.resize(logSize);
        n.nvrtcGetProgramLog(prog, out.log.data());
        out.log.resize(logSize - 1);
    }
    if (cr != 0) {
        n.nvrtcDestroyProgram(&prog);
        std::string log = out.log.size() > 4000 ? out.log.substr(0, 4000) + "..." : out.log;
        return makeError("NVRTC failed on " + name + " (" + arch + "): " + n.nvrtcGetErrorString(cr) + "\n" + log);
    }
    out.cubin = arch.rfind("sm_", 0) == 0;
    size_t size = 0;
    if (out.cubin) {
        n.nvrtcGetCUBINSize(prog, &size);
        out.image.resize(size);
        n.nvrtcGetCUBIN(prog, out.image.data());
    } else {
        n.nvrtcGetPTXSize(prog, &size);
        out.image.resize(size);
        n.nvrtcGetPTX(prog, out.image.data());
    }
    n.nvrtcDestroyProgram(&prog);
    out.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

}  // namespace fxray::cg::cuda
