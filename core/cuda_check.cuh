/* cuda_check.cuh — turn CUDA, cuBLAS and cuDNN errors into logt_status.
 *
 * Every call goes through one of these; a failure becomes a message with the
 * call's text, file:line, the library's own error name and a hint:
 *   CUDA_TRY(cudaMalloc(&p, n));      CUBLAS_TRY(cublasSgemm(...));
 *   LAUNCH_TRY();                      after every kernel launch
 */
#ifndef LOGT_CUDA_CHECK_CUH
#define LOGT_CUDA_CHECK_CUH

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "status.h"

extern "C" const char *logt_cuda_hint(cudaError_t e);
extern "C" const char *logt_cublas_name(cublasStatus_t s);

#define CUDA_TRY(call)                                                                         \
    do {                                                                                       \
        cudaError_t e_ = (call);                                                               \
        if (e_ != cudaSuccess)                                                                 \
            return logt_fail_at(e_ == cudaErrorMemoryAllocation ? LOGT_ENOMEM : LOGT_ECUDA,    \
                                __FILE__, __LINE__, "%s failed: %s (%s). HINT: %s", #call,     \
                                cudaGetErrorName(e_), cudaGetErrorString(e_),                  \
                                logt_cuda_hint(e_));                                           \
    } while (0)

#define LAUNCH_TRY() CUDA_TRY(cudaGetLastError())

#define CUBLAS_TRY(call)                                                                       \
    do {                                                                                       \
        cublasStatus_t s_ = (call);                                                            \
        if (s_ != CUBLAS_STATUS_SUCCESS)                                                       \
            return logt_fail_at(s_ == CUBLAS_STATUS_ALLOC_FAILED ? LOGT_ENOMEM : LOGT_ECUDA,   \
                                __FILE__, __LINE__, "%s failed: %s. HINT: %s", #call,          \
                                logt_cublas_name(s_),                                          \
                                s_ == CUBLAS_STATUS_NOT_INITIALIZED                            \
                                    ? "is the GPU visible (nvidia-smi)?"                       \
                                    : "check the matrix sizes and leading dimensions");        \
    } while (0)

#define CUDNN_TRY(call)                                                                        \
    do {                                                                                       \
        cudnnStatus_t s_ = (call);                                                             \
        if (s_ != CUDNN_STATUS_SUCCESS)                                                        \
            return logt_fail_at(s_ == CUDNN_STATUS_NOT_SUPPORTED ? LOGT_EUNSUPPORTED           \
                                : s_ == CUDNN_STATUS_ALLOC_FAILED ? LOGT_ENOMEM                \
                                                                  : LOGT_ECUDA,                \
                                __FILE__, __LINE__, "%s failed: %s. HINT: %s", #call,          \
                                cudnnGetErrorString(s_),                                       \
                                s_ == CUDNN_STATUS_NOT_SUPPORTED                               \
                                    ? "this cuDNN algorithm does not support the shape or "    \
                                      "math; try algo = standard"                              \
                                    : "is libcudnn 9 on the library path?");                   \
    } while (0)

#endif
