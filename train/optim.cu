/* optim.cu — Adam and the squared gradient norm on the GPU.
 *
 *   adam_kernel1    one thread per parameter (grid-stride), the moments in the
 *                   parameters' precision: m = b1 m + (1-b1) g, v = b2 v + (1-b2) g²,
 *                   w -= lr (m/bc1) / (sqrt(v/bc2) + eps), with g scaled first.
 *   sqnorm_kernel1  each block sums its grid-stride share of g² in double (warp
 *                   shuffles, then shared memory) into one partial;
 *   sum_kernel1     one block adds the partials. A fixed grid makes the sum
 *                   deterministic: the same g gives the same bits every call.
 * Indices are 64-bit throughout, so any length works, including > 2^31 elements.
 * The CPU references are the loops in optim.c.
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "../core/cuda_check.cuh"
#include "optim_cuda.h"

#define BLOCK 256
#define MAX_PARTIALS 1024   /* grid of the reduction; BLOCK * MAX_PARTIALS threads stride over g */

static int grid_for(int64_t n, int64_t cap)
{
    int64_t b = (n + BLOCK - 1) / BLOCK;
    return (int)(b < cap ? (b > 0 ? b : 1) : cap);
}

template <typename T>
__global__ void adam_kernel1(T *w, const T *g, T *m, T *v, int64_t n, T lr, T b1, T b2, T eps,
                             T bc1, T bc2, T scale)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        T gi = g[i] * scale;
        T mi = b1 * m[i] + (T(1) - b1) * gi;
        T vi = b2 * v[i] + (T(1) - b2) * gi * gi;
        m[i] = mi;
        v[i] = vi;
        w[i] -= lr * (mi / bc1) / (sqrt(vi / bc2) + eps);
    }
}

template <typename T>
static logt_status adam1(void *w, const void *g, void *m, void *v, int64_t n, double lr, double b1,
                         double b2, double eps, double bc1, double bc2, double scale,
                         cudaStream_t st)
{
    adam_kernel1<T><<<grid_for(n, 1 << 20), BLOCK, 0, st>>>(
        (T *)w, (const T *)g, (T *)m, (T *)v, n, (T)lr, (T)b1, (T)b2, (T)eps, (T)bc1, (T)bc2,
        (T)scale);
    LAUNCH_TRY();
    return LOGT_OK;
}

extern "C" logt_status logt_adam_cuda(void *w, const void *g, void *m, void *v, logt_dtype dt,
                                      int64_t n, double lr, double beta1, double beta2, double eps,
                                      double bc1, double bc2, double scale, void *stream)
{
    if (n == 0) return LOGT_OK;
    cudaStream_t st = (cudaStream_t)stream;
    if (dt == LOGT_F32) return adam1<float>(w, g, m, v, n, lr, beta1, beta2, eps, bc1, bc2, scale, st);
    if (dt == LOGT_F64) return adam1<double>(w, g, m, v, n, lr, beta1, beta2, eps, bc1, bc2, scale, st);
    return LOGT_FAIL(LOGT_EUNSUPPORTED, "Adam on CUDA keeps f32 or f64 parameters, not %s",
                     logt_dtype_name(dt));
}

/* ---- sum of squares ---------------------------------------------------------- */

__device__ inline double as_double(float x) { return (double)x; }
__device__ inline double as_double(double x) { return x; }
__device__ inline double as_double(__nv_bfloat16 x) { return (double)__bfloat162float(x); }
__device__ inline double as_double(__half x) { return (double)__half2float(x); }

/* Sum of `x` over the block; the result is valid in thread 0. */
__device__ double block_sum(double x)
{
    __shared__ double warp_sums[BLOCK / 32];
    for (int off = 16; off > 0; off >>= 1) x += __shfl_down_sync(0xffffffffu, x, off);
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) warp_sums[warp] = x;
    __syncthreads();
    if (warp == 0) {
        x = lane < BLOCK / 32 ? warp_sums[lane] : 0.0;
        for (int off = 16; off > 0; off >>= 1) x += __shfl_down_sync(0xffffffffu, x, off);
    }
    return x;
}

template <typename T> __global__ void sqnorm_kernel1(const T *g, int64_t n, double *partial)
{
    double acc = 0;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        double x = as_double(g[i]);
        acc += x * x;
    }
    acc = block_sum(acc);
    if (threadIdx.x == 0) partial[blockIdx.x] = acc;
}

__global__ void sum_kernel1(const double *partial, int n, double *out)
{
    double acc = 0;
    for (int i = threadIdx.x; i < n; i += blockDim.x) acc += partial[i];
    acc = block_sum(acc);
    if (threadIdx.x == 0) *out = acc;
}

template <typename T>
static logt_status sqnorm1(const void *g, int64_t n, double *out, cudaStream_t st)
{
    int grid = grid_for(n, MAX_PARTIALS);
    double *d_buf = NULL;   /* [grid] partials, then the total */
    CUDA_TRY(cudaMallocAsync((void **)&d_buf, (size_t)(grid + 1) * sizeof(double), st));
    sqnorm_kernel1<T><<<grid, BLOCK, 0, st>>>((const T *)g, n, d_buf);
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) {
        sum_kernel1<<<1, BLOCK, 0, st>>>(d_buf, grid, d_buf + grid);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess) e = cudaMemcpyAsync(out, d_buf + grid, sizeof(double), cudaMemcpyDeviceToHost, st);
    cudaFreeAsync(d_buf, st);
    CUDA_TRY(e);
    CUDA_TRY(cudaStreamSynchronize(st));
    return LOGT_OK;
}

extern "C" logt_status logt_sqnorm_cuda(const void *g, logt_dtype dt, int64_t n, double *out,
                                        void *stream)
{
    *out = 0;
    if (n == 0) return LOGT_OK;
    cudaStream_t st = (cudaStream_t)stream;
    switch (dt) {
    case LOGT_F32: return sqnorm1<float>(g, n, out, st);
    case LOGT_F64: return sqnorm1<double>(g, n, out, st);
    case LOGT_BF16: return sqnorm1<__nv_bfloat16>(g, n, out, st);
    case LOGT_F16: return sqnorm1<__half>(g, n, out, st);
    }
    return LOGT_FAIL(LOGT_EINVAL, "sqnorm of an unknown dtype");
}
