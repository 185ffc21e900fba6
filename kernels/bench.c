/* bench.c — the arrays, the traffic and the copy of a kernel timed on its own (bench.h). */
#include "bench.h"

#include <string.h>

#ifdef LOGT_HAVE_CUDA
#include <cuda_runtime.h>
#endif

/* ---- buffers and the copy ------------------------------------------------------------------ */

static size_t array_bytes(const logt_kernel_args *a)
{
    return (size_t)a->T * (size_t)a->C * logt_dtype_size(a->dtype);
}

const void *logt_kernel_in(const logt_kernel_args *a, int i)
{
    return (const char *)a->in + (size_t)i * array_bytes(a);
}

void *logt_kernel_out(const logt_kernel_args *a, int i)
{
    return (char *)a->out + (size_t)i * array_bytes(a);
}

double logt_kernel_bytes(const logt_kernel *k, const logt_kernel_args *a)
{
    return (double)(k->nin + k->nout) * (double)array_bytes(a);
}

logt_status logt_kernel_copy(logt_ctx *ctx, void *dst, const void *src, size_t bytes)
{
    if (ctx->device == LOGT_CPU) {
        memcpy(dst, src, bytes);
        return LOGT_OK;
    }
#ifdef LOGT_HAVE_CUDA
    cudaError_t e =
        cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, (cudaStream_t)ctx->stream);
    if (e != cudaSuccess)
        return LOGT_FAIL(LOGT_ECUDA, "cudaMemcpyAsync of %zu bytes, device to device: %s", bytes,
                         cudaGetErrorString(e));
    return LOGT_OK;
#else
    return LOGT_FAIL(LOGT_EUNSUPPORTED, "built without CUDA");
#endif
}
