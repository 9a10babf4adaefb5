#include "codegen/cuda/cudnn_api.h"

#include "codegen/cuda/cuda_api.h"
#include "codegen/cuda/dl_util.h"

#include <mutex>

namespace fxray::cg::cuda {

namespace {

void loadCudnn(CudnnRuntime& rt) {
    if (envOr("FXRAY_NO_CUDNN") == "1") {
        rt.whyNot = "cuDNN not used (FXRAY_NO_CUDNN=1)";
        return;
    }
    const CudaRuntime& cuda = runtime();
    if (!cuda.haveDevice) {
        rt.whyNot = cuda.whyNoDevice;
        return;
    }
    std::string tried;
    // cuDNN 9's libcudnn.so.9 is a shim that loads its sub-libraries (cnn, ops, engines) itself.
    void* lib = openFirst({envOr("FXRAY_CUDNN"), "libcudnn.so.9", "libcudnn.so", "/usr/local/cuda/lib64/libcudnn.so.9",
                           "/usr/lib/x86_64-linux-gnu/libcudnn.so.9"},
                          rt.lib, tried);
    if (!lib) {
        rt.whyNot = "cuDNN not found (tried " + tried + "; set FXRAY_CUDNN to its path)";
        return;
    }
    CudnnApi& d = rt.dnn;
    std::string missing;
    sym(lib, d.cudnnGetVersion, "cudnnGetVersion", missing);
    sym(lib, d.cudnnGetErrorString, "cudnnGetErrorString", missing);
    sym(lib, d.cudnnCreate, "cudnnCreate", missing);
    sym(lib, d.cudnnSetStream, "cudnnSetStream", missing);
    sym(lib, d.cudnnCreateTensorDescriptor, "cudnnCreateTensorDescriptor", missing);
    sym(lib, d.cudnnDestroyTensorDescriptor, "cudnnDestroyTensorDescriptor", missing);
    sym(lib, d.cudnnSetTensorNdDescriptor, "cudnnSetTensorNdDescriptor", missing);
    sym(lib, d.cudnnCreateFilterDescriptor, "cudnnCreateFilterDescriptor", missing);
    sym(lib, d.cudnnDestroyFilterDescriptor, "cudnnDestroyFilterDescriptor", missing);
    sym(lib, d.cudnnSetFilterNdDescriptor, "cudnnSetFilterNdDescriptor", missing);
    sym(lib, d.cudnnCreateConvolutionDescriptor, "cudnnCreateConvolutionDescriptor", missing);
    sym(lib, d.cudnnDestroyConvolutionDescriptor, "cudnnDestroyConvolutionDescriptor", missing);
    sym(lib, d.cudnnSetConvolutionNdDescriptor, "cudnnSetConvolutionNdDescriptor", missing);
    sym(lib, d.cudnnSetConvolutionGroupCount, "cudnnSetConvolutionGroupCount", missing);
    sym(lib, d.cudnnSetConvolutionMathType, "cudnnSetConvolutionMathType", missing);
    sym(lib, d.cudnnGetConvolutionForwardAlgorithm_v7, "cudnnGetConvolutionForwardAlgorithm_v7", missing);
    sym(lib, d.cudnnFindConvolutionForwardAlgorithmEx, "cudnnFindConvolutionForwardAlgorithmEx", missing);
    sym(lib, d.cudnnGetConvolutionForwardWorkspaceSize, "cudnnGetConvolutionForwardWorkspaceSize", missing);
    sym(lib, d.cudnnConvolutionForward, "cudnnConvolutionForward", missing);
    sym(lib, d.cudnnFindConvolutionBackwardDataAlgorithmEx, "cudnnFindConvolutionBackwardDataAlgorithmEx", missing);
    sym(lib, d.cudnnGetConvolutionBackwardDataWorkspaceSize, "cudnnGetConvolutionBackwardDataWorkspaceSize", missing);
    sym(lib, d.cudnnConvolutionBackwardData, "cudnnConvolutionBackwardData", missing);
    sym(lib, d.cudnnFindConvolutionBackwardFilterAlgorithmEx, "cudnnFindConvolutionBackwardFilterAlgorithmEx", missing);
    sym(lib, d.cudnnGetConvolutionBackwardFilterWorkspaceSize, "cudnnGetConvolutionBackwardFilterWorkspaceSize",
        missing);
    sym(lib, d.cudnnConvolutionBackwardFilter, "cudnnConvolutionBackwardFilter", missing);
    sym(lib, d.cudnnConvolutionBackwardBias, "cudnnConvolutionBackwardBias", missing);
    sym(lib, d.cudnnAddTensor, "cudnnAddTensor", missing);
    if (!missing.empty()) {
        rt.whyNot = rt.lib + " lacks " + missing + " (fxray needs cuDNN 8 or 9's convolution API)";
        return;
    }
    rt.version = d.cudnnGetVersion();
    if (rt.version < 8000) {
        rt.whyNot = rt.lib + " is cuDNN " + std::to_string(rt.version) + "; fxray needs 8 or newer";
        return;
    }
    // The handle binds to the current context: the driver runtime made the primary one current.
    if (cudnnStatus_t s = d.cudnnCreate(&rt.handle); s != 0) {
        rt.whyNot = "cudnnCreate failed: " + std::string(d.cudnnGetErrorString(s));
        return;
    }
    rt.available = true;
}

}  // namespace

const CudnnRuntime& cudnnRuntime() {
    static CudnnRuntime rt;
    static std::once_flag once;
    std::call_once(once, [] { loadCudnn(rt); });
    return rt;
}

Status cudnnCheck(cudnnStatus_t s, const std::string& what) {
    if (s == 0) return Status::success();
    const CudnnRuntime& rt = cudnnRuntime();
    const char* msg = rt.dnn.cudnnGetErrorString ? rt.dnn.cudnnGetErrorString(s) : nullptr;
    return makeError(what + ": " + (msg ? std::string(msg) : "cudnnStatus " + std::to_string(s)));
}

}  // namespace fxray::cg::cuda
