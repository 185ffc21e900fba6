/* ctx_cuda.cu — stream, cuBLAS/cuDNN handles, event timers and fills of a CUDA logt_ctx. */
#include <cudnn.h>

#include "ctx.h"
#include "cuda.h"
#include "cuda_check.cuh"

/* One thread spins on the global nanosecond timer until `ns` have passed. */
__global__ void head_start_kernel(unsigned long long ns)
{
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    while (t - t0 < ns);
}

extern "C" logt_status logt_ctx_cuda_init(logt_ctx *ctx)
{
    cudaStream_t st;
    cublasHandle_t h;
    cudaEvent_t a, b;
    CUDA_TRY(cudaStreamCreate(&st));   /* blocking: ordered with cudaMemcpy on stream 0 */
    ctx->stream = st;
    CUBLAS_TRY(cublasCreate(&h));
    ctx->cublas = h;
    CUBLAS_TRY(cublasSetStream(h, st));
    CUBLAS_TRY(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));   /* strict fp32: no TF32 */
    CUDA_TRY(cudaEventCreate(&a));
    ctx->ev_start = a;
    CUDA_TRY(cudaEventCreate(&b));
    ctx->ev_stop = b;
    /* Load the head start's kernel now (modules load lazily at a kernel's first launch): a
     * first head start inside a timed region would otherwise add the load to its time. */
    cudaFuncAttributes fa;
    CUDA_TRY(cudaFuncGetAttributes(&fa, head_start_kernel));
    return LOGT_OK;
}

extern "C" void logt_ctx_cuda_fini(logt_ctx *ctx)
{
    if (ctx->cudnn) cudnnDestroy((cudnnHandle_t)ctx->cudnn);
    if (ctx->cublas) cublasDestroy((cublasHandle_t)ctx->cublas);
    if (ctx->ev_start) cudaEventDestroy((cudaEvent_t)ctx->ev_start);
    if (ctx->ev_stop) cudaEventDestroy((cudaEvent_t)ctx->ev_stop);
    if (ctx->stream) cudaStreamDestroy((cudaStream_t)ctx->stream);
}

extern "C" logt_status logt_ctx_cuda_sync(logt_ctx *ctx)
{
    CUDA_TRY(cudaStreamSynchronize((cudaStream_t)ctx->stream));
    CUDA_TRY(cudaGetLastError());
    return LOGT_OK;
}

extern "C" logt_status logt_ctx_cuda_wait_for(logt_ctx *waiter, logt_ctx *other)
{
    cudaEvent_t e;
    CUDA_TRY(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    cudaError_t r = cudaEventRecord(e, (cudaStream_t)other->stream);
    if (r == cudaSuccess) r = cudaStreamWaitEvent((cudaStream_t)waiter->stream, e, 0);
    cudaEventDestroy(e);   /* released once the wait is met */
    CUDA_TRY(r);
    return LOGT_OK;
}

extern "C" logt_status logt_ctx_cuda_cudnn(logt_ctx *ctx)
{
    cudnnHandle_t h;
    CUDNN_TRY(cudnnCreate(&h));
    ctx->cudnn = h;
    CUDNN_TRY(cudnnSetStream(h, (cudaStream_t)ctx->stream));
    return LOGT_OK;
}

__global__ void logt_fill_f32_kernel(float *p, int64_t n, float v)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        p[i] = v;
}

extern "C" logt_status logt_cuda_fill_f32(logt_ctx *ctx, float *p, int64_t n, float v)
{
    logt_fill_f32_kernel<<<logt_cuda_grid(n, 256), 256, 0, (cudaStream_t)ctx->stream>>>(p, n, v);
    LAUNCH_TRY();
    return LOGT_OK;
}


extern "C" logt_status logt_ctx_cuda_head_start(logt_ctx *ctx, int us)
{
    head_start_kernel<<<1, 1, 0, (cudaStream_t)ctx->stream>>>(1000ull * (unsigned long long)us);
    LAUNCH_TRY();
    return LOGT_OK;
}

extern "C" logt_status logt_ctx_cuda_timer_begin(logt_ctx *ctx)
{
    CUDA_TRY(cudaEventRecord((cudaEvent_t)ctx->ev_start, (cudaStream_t)ctx->stream));
    return LOGT_OK;
}

extern "C" logt_status logt_ctx_cuda_timer_end(logt_ctx *ctx, double *ms)
{
    float f = 0;
    CUDA_TRY(cudaEventRecord((cudaEvent_t)ctx->ev_stop, (cudaStream_t)ctx->stream));
    CUDA_TRY(cudaEventSynchronize((cudaEvent_t)ctx->ev_stop));
    CUDA_TRY(cudaEventElapsedTime(&f, (cudaEvent_t)ctx->ev_start, (cudaEvent_t)ctx->ev_stop));
    *ms = f;
    return LOGT_OK;
}
