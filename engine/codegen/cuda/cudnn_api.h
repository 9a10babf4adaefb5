#pragma once
/// cuDNN, opened at run time like cuBLAS (cuda_api.h): the legacy convolution API of cuDNN 9
/// (descriptors, algorithm search, forward / backward data / backward filter / backward bias),
/// which the CUDA backend uses for aten.convolution and its backward. The few types and entry
/// points are declared here, ABI-compatible with cudnn_graph.h / cudnn_ops.h / cudnn_cnn.h, so
/// that fxray builds without cuDNN and runs without it (the direct convolution kernels of
/// builtin_kernels.cpp then run instead). FXRAY_CUDNN names the library; FXRAY_NO_CUDNN=1
/// leaves it unopened (to compare the two paths).
#include "support/diagnostic.h"

#include <cstddef>
#include <string>

namespace fxray::cg::cuda {

using cudnnStatus_t = int;
using cudnnHandle_t = struct cudnnContext*;
using cudnnTensorDescriptor_t = struct cudnnTensorStruct*;
using cudnnFilterDescriptor_t = struct cudnnFilterStruct*;
using cudnnConvolutionDescriptor_t = struct cudnnConvolutionStruct*;

enum : int { CUDNN_DATA_FLOAT = 0, CUDNN_DATA_DOUBLE = 1, CUDNN_DATA_HALF = 2, CUDNN_DATA_BFLOAT16 = 9 };
enum : int { CUDNN_TENSOR_NCHW = 0 };
enum : int { CUDNN_CROSS_CORRELATION = 1 };
enum : int {
    CUDNN_DEFAULT_MATH = 0,
    CUDNN_TENSOR_OP_MATH = 1,
    CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION = 2,
    CUDNN_FMA_MATH = 3
};

/// cudnnConvolution{Fwd,BwdData,BwdFilter}AlgoPerf_t: one layout for the three.
struct CudnnAlgoPerf {
    int algo;
    cudnnStatus_t status;
    float time;
    size_t memory;
    int determinism;
    int mathType;
    int reserved[3];
};

struct CudnnApi {
    size_t (*cudnnGetVersion)() = nullptr;
    const char* (*cudnnGetErrorString)(cudnnStatus_t) = nullptr;
    cudnnStatus_t (*cudnnCreate)(cudnnHandle_t*) = nullptr;
    cudnnStatus_t (*cudnnSetStream)(cudnnHandle_t, void*) = nullptr;
    cudnnStatus_t (*cudnnCreateTensorDescriptor)(cudnnTensorDescriptor_t*) = nullptr;
    cudnnStatus_t (*cudnnDestroyTensorDescriptor)(cudnnTensorDescriptor_t) = nullptr;
    cudnnStatus_t (*cudnnSetTensorNdDescriptor)(cudnnTensorDescriptor_t, int, int, const int*, const int*) = nullptr;
    cudnnStatus_t (*cudnnCreateFilterDescriptor)(cudnnFilterDescriptor_t*) = nullptr;
    cudnnStatus_t (*cudnnDestroyFilterDescriptor)(cudnnFilterDescriptor_t) = nullptr;
    cudnnStatus_t (*cudnnSetFilterNdDescriptor)(cudnnFilterDescriptor_t, int, int, int, const int*) = nullptr;
    cudnnStatus_t (*cudnnCreateConvolutionDescriptor)(cudnnConvolutionDescriptor_t*) = nullptr;
    cudnnStatus_t (*cudnnDestroyConvolutionDescriptor)(cudnnConvolutionDescriptor_t) = nullptr;
    cudnnStatus_t (*cudnnSetConvolutionNdDescriptor)(cudnnConvolutionDescriptor_t, int, const int*, const int*,
                                                     const int*, int, int) = nullptr;
    cudnnStatus_t (*cudnnSetConvolutionGroupCount)(cudnnConvolutionDescriptor_t, int) = nullptr;
    cudnnStatus_t (*cudnnSetConvolutionMathType)(cudnnConvolutionDescriptor_t, int) = nullptr;
    cudnnStatus_t (*cudnnGetConvolutionForwardAlgorithm_v7)(cudnnHandle_t, cudnnTensorDescriptor_t,
                                                            cudnnFilterDescriptor_t, cudnnConvolutionDescriptor_t,
                                                            cudnnTensorDescriptor_t, int, int*,
                                                            CudnnAlgoPerf*) = nullptr;
    cudnnStatus_t (*cudnnFindConvolutionForwardAlgorithmEx)(cudnnHandle_t, cudnnTensorDescriptor_t, const void*,
                                                            cudnnFilterDescriptor_t, const void*,
                                                            cudnnConvolutionDescriptor_t, cudnnTensorDescriptor_t,
                                                            void*, int, int*, CudnnAlgoPerf*, void*, size_t) = nullptr;
    cudnnStatus_t (*cudnnGetConvolutionForwardWorkspaceSize)(cudnnHandle_t, cudnnTensorDescriptor_t,
                                                             cudnnFilterDescriptor_t, cudnnConvolutionDescriptor_t,
                                                             cudnnTensorDescriptor_t, int, size_t*) = nullptr;
    cudnnStatus_t (*cudnnConvolutionForward)(cudnnHandle_t, const void*, cudnnTensorDescriptor_t, const void*,
                                             cudnnFilterDescriptor_t, const void*, cudnnConvolutionDescriptor_t, int,
                                             void*, size_t, const void*, cudnnTensorDescriptor_t, void*) = nullptr;
    cudnnStatus_t (*cudnnFindConvolutionBackwardDataAlgorithmEx)(cudnnHandle_t, cudnnFilterDescriptor_t, const void*,
                                                                 cudnnTensorDescriptor_t, const void*,
                                                                 cudnnConvolutionDescriptor_t, cudnnTensorDescriptor_t,
                                                                 void*, int, int*, CudnnAlgoPerf*, void*,
                                                                 size_t) = nullptr;
    cudnnStatus_t (*cudnnGetConvolutionBackwardDataWorkspaceSize)(cudnnHandle_t, cudnnFilterDescriptor_t,
                                                                  cudnnTensorDescriptor_t, cudnnConvolutionDescriptor_t,
                                                                  cudnnTensorDescriptor_t, int, size_t*) = nullptr;
    cudnnStatus_t (*cudnnConvolutionBackwardData)(cudnnHandle_t, const void*, cudnnFilterDescriptor_t, const void*,
                                                  cudnnTensorDescriptor_t, const void*, cudnnConvolutionDescriptor_t,
                                                  int, void*, size_t, const void*, cudnnTensorDescriptor_t,
                                                  void*) = nullptr;
    cudnnStatus_t (*cudnnFindConvolutionBackwardFilterAlgorithmEx)(cudnnHandle_t, cudnnTensorDescriptor_t, const void*,
                                                                   cudnnTensorDescriptor_t, const void*,
                                                                   cudnnConvolutionDescriptor_t,
                                                                   cudnnFilterDescriptor_t, void*, int, int*,
                                                                   CudnnAlgoPerf*, void*, size_t) = nullptr;
    cudnnStatus_t (*cudnnGetConvolutionBackwardFilterWorkspaceSize)(cudnnHandle_t, cudnnTensorDescriptor_t,
                                                                    cudnnTensorDescriptor_t,
                                                                    cudnnConvolutionDescriptor_t,
                                                                    cudnnFilterDescriptor_t, int, size_t*) = nullptr;
    cudnnStatus_t (*cudnnConvolutionBackwardFilter)(cudnnHandle_t, const void*, cudnnTensorDescriptor_t, const void*,
                                                    cudnnTensorDescriptor_t, const void*, cudnnConvolutionDescriptor_t,
                                                    int, void*, size_t, const void*, cudnnFilterDescriptor_t,
                                                    void*) = nullptr;
    cudnnStatus_t (*cudnnConvolutionBackwardBias)(cudnnHandle_t, const void*, cudnnTensorDescriptor_t, const void*,
                                                  const void*, cudnnTensorDescriptor_t, void*) = nullptr;
    cudnnStatus_t (*cudnnAddTensor)(cudnnHandle_t, const void*, cudnnTensorDescriptor_t, const void*, const void*,
                                    cudnnTensorDescriptor_t, void*) = nullptr;
};

/// What the process found: the library, its version, a handle (made once a device exists).
struct CudnnRuntime {
    CudnnApi dnn;
    bool available = false;
    std::string lib;     ///< the path that was opened
    std::string whyNot;  ///< "cuDNN not found (tried ...)"
    size_t version = 0;  ///< cudnnGetVersion(): 91400 for 9.14.0
    cudnnHandle_t handle = nullptr;
};

/// The process-wide cuDNN, loaded on first use after the CUDA runtime (thread-safe). Never
/// fails: what is missing is in whyNot.
const CudnnRuntime& cudnnRuntime();

/// Status of a cuDNN call: ok, or "<what>: <cuDNN message>".
Status cudnnCheck(cudnnStatus_t s, const std::string& what);

}  // namespace fxray::cg::cuda
