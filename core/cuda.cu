/* cuda.cu — device memory, copies, dtype conversion and device info for C callers. */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cudnn.h>
#include <stdio.h>
#include <string.h>

#include "cuda.h"
#include "cuda_check.cuh"

extern "C" const char *logt_cuda_hint(cudaError_t e)
{
    switch (e) {
    case cudaErrorMemoryAllocation:
        return "the GPU is out of memory: use a smaller T, B or D, or free the GPU (nvidia-smi)";
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
        return "no usable GPU: check nvidia-smi, or run with --backend cpu";
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorUnsupportedPtxVersion:
        return "the binary has no code for this GPU: rebuild with CUDA_ARCH=sm_XX for it";
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
        return "a kernel faulted: a bug in logt; rerun under compute-sanitizer to find it";
    default: return "see the CUDA error above";
    }
}

extern "C" const char *logt_cublas_name(cublasStatus_t s)
{
    switch (s) {
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    default: return "CUBLAS_STATUS (other)";
    }
}

extern "C" int logt_cuda_device_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError();   /* clear the sticky "no device" error */
        return 0;
    }
    return n;
}

extern "C" int logt_cuda_sm_count(void)
{
    static int n = 0;   /* the device does not change under a process */
    if (!n) {
        int dev = 0, k = 0;
        if (cudaGetDevice(&dev) != cudaSuccess ||
            cudaDeviceGetAttribute(&k, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || k < 1) {
            cudaGetLastError();
            k = 132;
        }
        n = k;
    }
    return n;
}

extern "C" unsigned logt_cuda_grid(int64_t n, int block)
{
    int64_t b = (n + block - 1) / block;
    return (unsigned)(b < 65536 ? (b > 0 ? b : 1) : 65536);
}

extern "C" logt_status logt_cuda_malloc(void **p, size_t bytes, const char *what)
{
    cudaError_t e = cudaMalloc(p, bytes);
    if (e != cudaSuccess) {
        cudaGetLastError();
        size_t free_b = 0, total_b = 0;
        cudaMemGetInfo(&free_b, &total_b);
        *p = NULL;
        return LOGT_FAIL(e == cudaErrorMemoryAllocation ? LOGT_ENOMEM : LOGT_ECUDA,
                         "out of GPU memory: allocating %.3f GiB for %s, %.3f GiB of %.3f GiB "
                         "free (%s). HINT: use a smaller T, B or D",
                         bytes / 1073741824.0, what, free_b / 1073741824.0, total_b / 1073741824.0,
                         cudaGetErrorString(e));
    }
    logt_mem_track((ptrdiff_t)bytes);
    return LOGT_OK;
}

extern "C" void logt_cuda_free(void *p, size_t bytes)
{
    if (!p) return;
    cudaFree(p);
    logt_mem_track(-(ptrdiff_t)bytes);
}

extern "C" logt_status logt_cuda_memcpy(void *dst, const void *src, size_t bytes, logt_copy_kind kind)
{
    cudaMemcpyKind k = kind == LOGT_H2D ? cudaMemcpyHostToDevice
                     : kind == LOGT_D2H ? cudaMemcpyDeviceToHost
                                        : cudaMemcpyDeviceToDevice;
    CUDA_TRY(cudaMemcpy(dst, src, bytes, k));
    return LOGT_OK;
}

extern "C" logt_status logt_cuda_memset0(void *p, size_t bytes)
{
    CUDA_TRY(cudaMemset(p, 0, bytes));
    return LOGT_OK;
}

extern "C" logt_status logt_cuda_read_max(void *stream, const unsigned *res, float *out)
{
    unsigned bits;
    cudaStream_t st = (cudaStream_t)stream;
    CUDA_TRY(cudaMemcpyAsync(&bits, res, sizeof bits, cudaMemcpyDeviceToHost, st));
    CUDA_TRY(cudaStreamSynchronize(st));
    memcpy(out, &bits, sizeof *out);
    return LOGT_OK;
}

/* Element conversions go through float, or through double when either side is f64, so that
 * every conversion rounds once (f64 -> f16 / bf16 included). */
__device__ __forceinline__ float widen(float v) { return v; }
__device__ __forceinline__ double widen(double v) { return v; }
__device__ __forceinline__ float widen(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ float widen(__half v) { return __half2float(v); }

template <typename D> struct narrow {
    template <typename W> static __device__ __forceinline__ D from(W v) { return (D)v; }
};
template <> struct narrow<__nv_bfloat16> {
    static __device__ __forceinline__ __nv_bfloat16 from(float v) { return __float2bfloat16_rn(v); }
    static __device__ __forceinline__ __nv_bfloat16 from(double v) { return __double2bfloat16(v); }
};
template <> struct narrow<__half> {
    static __device__ __forceinline__ __half from(float v) { return __float2half_rn(v); }
    static __device__ __forceinline__ __half from(double v) { return __double2half(v); }
};

template <typename D, typename S>
__global__ void convert_kernel(D *dst, const S *src, int64_t n)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        dst[i] = narrow<D>::from(widen(src[i]));
}

template <typename D, typename S>
static logt_status convert(void *dst, const void *src, int64_t n, cudaStream_t st)
{
    int blocks = (int)((n + 255) / 256 < 65536 ? (n + 255) / 256 : 65536);
    convert_kernel<D, S><<<blocks, 256, 0, st>>>((D *)dst, (const S *)src, n);
    LAUNCH_TRY();
    return LOGT_OK;
}

/* dst (of D) = src of dtype sd. */
template <typename D>
static logt_status convert_to(void *dst, const void *src, logt_dtype sd, int64_t n, cudaStream_t st)
{
    switch (sd) {
    case LOGT_F64: return convert<D, double>(dst, src, n, st);
    case LOGT_F32: return convert<D, float>(dst, src, n, st);
    case LOGT_BF16: return convert<D, __nv_bfloat16>(dst, src, n, st);
    case LOGT_F16: return convert<D, __half>(dst, src, n, st);
    }
    return LOGT_FAIL(LOGT_EINVAL, "no conversion from dtype %d", (int)sd);
}

extern "C" logt_status logt_cuda_convert_on(void *stream, void *dst, logt_dtype dd, const void *src,
                                            logt_dtype sd, int64_t n)
{
    cudaStream_t st = (cudaStream_t)stream;
    if (dd == sd) {
        CUDA_TRY(cudaMemcpyAsync(dst, src, (size_t)n * logt_dtype_size(dd), cudaMemcpyDeviceToDevice, st));
        return LOGT_OK;
    }
    switch (dd) {
    case LOGT_F64: return convert_to<double>(dst, src, sd, n, st);
    case LOGT_F32: return convert_to<float>(dst, src, sd, n, st);
    case LOGT_BF16: return convert_to<__nv_bfloat16>(dst, src, sd, n, st);
    case LOGT_F16: return convert_to<__half>(dst, src, sd, n, st);
    }
    return LOGT_FAIL(LOGT_EINVAL, "no conversion to dtype %d", (int)dd);
}

extern "C" logt_status logt_cuda_convert(void *dst, logt_dtype dd, const void *src, logt_dtype sd,
                                         int64_t n)
{
    if (dd == sd) return logt_cuda_memcpy(dst, src, (size_t)n * logt_dtype_size(dd), LOGT_D2D);
    return logt_cuda_convert_on(NULL, dst, dd, src, sd, n);
}

template <typename T> __device__ T from_float(float v) { return (T)v; }
template <> __device__ __nv_bfloat16 from_float(float v) { return __float2bfloat16(v); }
template <> __device__ __half from_float(float v) { return __float2half(v); }

/* x [n][I]: every element written once, row i all zeros but ±1 at code[i]'s place */
template <typename T> __global__ void onehot_kernel(T *x, const int32_t *code, int64_t n, int I)
{
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n * I;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int64_t row = e / I;
        const int32_t c = code[row], k = c < 0 ? ~c : c;
        x[e] = from_float<T>(e - row * I == k ? (c < 0 ? -1.0f : 1.0f) : 0.0f);
    }
}

extern "C" logt_status logt_cuda_onehot(void *x, logt_dtype dt, const int32_t *code, int64_t n, int I)
{
    const unsigned blocks = logt_cuda_grid(n * I, 256);
    if (dt == LOGT_F32) onehot_kernel<<<blocks, 256>>>((float *)x, code, n, I);
    else if (dt == LOGT_BF16) onehot_kernel<<<blocks, 256>>>((__nv_bfloat16 *)x, code, n, I);
    else if (dt == LOGT_F16) onehot_kernel<<<blocks, 256>>>((__half *)x, code, n, I);
    else onehot_kernel<<<blocks, 256>>>((double *)x, code, n, I);
    LAUNCH_TRY();
    return LOGT_OK;
}

extern "C" logt_status logt_cuda_info(logt_device_info *out)
{
    memset(out, 0, sizeof *out);
    int dev = 0;
    cudaDeviceProp p;
    CUDA_TRY(cudaGetDevice(&dev));
    CUDA_TRY(cudaGetDeviceProperties(&p, dev));
    snprintf(out->name, sizeof out->name, "%s", p.name);
    out->sm_count = p.multiProcessorCount;
    out->cc_major = p.major;
    out->cc_minor = p.minor;
    out->l2_bytes = (size_t)p.l2CacheSize;
    out->smem_optin_per_block = p.sharedMemPerBlockOptin;
    out->regs_per_sm = p.regsPerMultiprocessor;
    CUDA_TRY(cudaMemGetInfo(&out->mem_free, &out->mem_total));
    CUDA_TRY(cudaDriverGetVersion(&out->driver_version));
    CUDA_TRY(cudaRuntimeGetVersion(&out->runtime_version));
    out->cudnn_version = cudnnGetVersion();
    cublasHandle_t h;
    CUBLAS_TRY(cublasCreate(&h));
    cublasGetVersion(h, &out->cublas_version);
    cublasDestroy(h);
    return LOGT_OK;
}
