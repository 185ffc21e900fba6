/* abi_cuda.cu — what the C ABI (lib/abi.c) needs from the CUDA runtime: the current device,
 * pointer checks, and the ordering of a layer's stream after and before the caller's. */
#include <cuda_runtime.h>

#include "../core/cuda_check.cuh"
#include "../core/status.h"
#include "abi_internal.h"

extern "C" logt_status abi_cuda_get_device(int *dev)
{
    CUDA_TRY(cudaGetDevice(dev));
    return LOGT_OK;
}

extern "C" logt_status abi_cuda_enter(int dev, int *prev)
{
    CUDA_TRY(cudaGetDevice(prev));
    if (*prev != dev) CUDA_TRY(cudaSetDevice(dev));
    return LOGT_OK;
}

extern "C" void abi_cuda_leave(int dev, int prev)
{
    if (prev != dev) cudaSetDevice(prev);
}

/* A pointer the caller passes must be device memory (or managed) of the layer's device: a
 * host pointer on the cuda path would fault inside a kernel, far from its cause. */
extern "C" logt_status abi_cuda_check_ptr(const void *p, int dev, const char *what)
{
    cudaPointerAttributes a;
    cudaError_t e = cudaPointerGetAttributes(&a, p);
    if (e != cudaSuccess) {
        cudaGetLastError();   /* clear it: the caller's next call must not see it */
        return LOGT_FAIL(LOGT_EINVAL, "%s (%p) is not CUDA memory: %s", what, p, cudaGetErrorString(e));
    }
    if (a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged)
        return LOGT_FAIL(LOGT_EINVAL, "%s (%p) is %s memory but a cuda layer takes device memory",
                         what, p, a.type == cudaMemoryTypeHost ? "pinned host" : "unregistered host");
    if (a.type == cudaMemoryTypeDevice && a.device != dev)
        return LOGT_FAIL(LOGT_EINVAL, "%s is on cuda:%d but the layer is on cuda:%d", what,
                         a.device, dev);
    return LOGT_OK;
}

/* Work queued on `to` from now on waits for what is queued on `from` so far. */
extern "C" logt_status abi_cuda_join(void *from, void *to)
{
    if (from == to) return LOGT_OK;
    cudaEvent_t ev;
    CUDA_TRY(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
    cudaError_t e = cudaEventRecord(ev, (cudaStream_t)from);
    if (e == cudaSuccess) e = cudaStreamWaitEvent((cudaStream_t)to, ev, 0);
    cudaEventDestroy(ev);   /* released once the wait is done with it */
    CUDA_TRY(e);
    return LOGT_OK;
}

extern "C" logt_status abi_cuda_copy(void *dst, const void *src, size_t bytes, void *stream)
{
    CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, (cudaStream_t)stream));
    return LOGT_OK;
}
