/* readout.cu — the readout's loss and gradients on the GPU (readout_cuda.h); the host f64
 * version and the formulas are in readout.c.
 *
 *   y  = h·V^T            cuBLAS, [N][D]·[D][O]
 *   per row (one warp):   y += c; the loss, the hit, g = dL/dy over y in place
 *   dV = g^T·h            logt_gemm_f32_tn_long (a sum over N rows: chunked, deterministic)
 *   dc = Σ_n g[n]         one block per output, rows in a fixed order
 *   dh = g·V              cuBLAS, [N][O]·[O][D]
 * Cost: three products of 2·N·D·O flops (charlm: N = T·B = 16384, D = 256, O = 96, 0.8 GFLOP
 * each) and h, dh of N·D floats, which stay on the device, where the host readout moves h
 * and dh across and does the products in f64 on the host's cores. What each takes on a GPU:
 * experiments/train-charlm (Design notes).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/cuda_check.cuh"
#include "../kernels/gemm.h"
#include "readout_cuda.h"

#define BLOCK 256
#define WARPS (BLOCK / 32)

/* Cross-entropy of row n against class t[n] (one warp a row): y[n] gets c added, then is
 * replaced by g = (softmax(y) - onehot(t)) · inv; row[2n] the row's loss, row[2n + 1] 1 when
 * its arg max (the first, as readout.c) is t[n]. */
__global__ void readout_xent_kernel(int64_t N, int O, float *y, const float *c, const float *t, float inv,
                                    float *row)
{
    const int lane = threadIdx.x % 32;
    const int64_t n = (int64_t)blockIdx.x * WARPS + threadIdx.x / 32;
    if (n >= N) return;
    float *yn = y + n * O;
    float mx = -INFINITY;
    int arg = O;
    for (int o = lane; o < O; o += 32) {
        const float v = yn[o] + c[o];
        yn[o] = v;
        if (v > mx) mx = v, arg = o;
    }
    for (int off = 16; off; off /= 2) {   /* the largest, the lowest index among equals */
        const float m2 = __shfl_xor_sync(0xffffffffu, mx, off);
        const int a2 = __shfl_xor_sync(0xffffffffu, arg, off);
        if (m2 > mx || (m2 == mx && a2 < arg)) mx = m2, arg = a2;
    }
    float z = 0.0f;
    for (int o = lane; o < O; o += 32) z += expf(yn[o] - mx);
    for (int off = 16; off; off /= 2) z += __shfl_xor_sync(0xffffffffu, z, off);
    const float lse = mx + logf(z);
    const int label = (int)t[n];
    __syncwarp();   /* every lane's y + c written */
    const float yl = yn[label];
    __syncwarp();   /* read before any lane overwrites it */
    for (int o = lane; o < O; o += 32) yn[o] = (expf(yn[o] - lse) - (o == label ? 1.0f : 0.0f)) * inv;
    if (lane == 0) row[2 * n] = lse - yl, row[2 * n + 1] = arg == label ? 1.0f : 0.0f;
}

/* Squared error of row n against t[n][:]: y[n] = (y + c - t) · 2 inv; row[2n] the row's sum. */
__global__ void readout_mse_kernel(int64_t N, int O, float *y, const float *c, const float *t, float inv,
                                   float *row)
{
    const int lane = threadIdx.x % 32;
    const int64_t n = (int64_t)blockIdx.x * WARPS + threadIdx.x / 32;
    if (n >= N) return;
    float *yn = y + n * O;
    float l = 0.0f;
    for (int o = lane; o < O; o += 32) {
        const float e = yn[o] + c[o] - t[n * O + o];
        l += e * e;
        yn[o] = 2.0f * e * inv;
    }
    for (int off = 16; off; off /= 2) l += __shfl_xor_sync(0xffffffffu, l, off);
    if (lane == 0) row[2 * n] = l, row[2 * n + 1] = 0.0f;
}

/* dc[o] = Σ_n g[n][o]: block o, each thread its rows n ≡ tid (mod BLOCK) in order, then a tree. */
__global__ void readout_colsum_kernel(int64_t N, int O, const float *g, float *dc)
{
    __shared__ float part[BLOCK];
    const int o = blockIdx.x;
    float s = 0.0f;
    for (int64_t n = threadIdx.x; n < N; n += BLOCK) s += g[n * O + o];
    part[threadIdx.x] = s;
    __syncthreads();
    for (int w = BLOCK / 2; w; w /= 2) {
        if (threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) dc[o] = part[0];
}

/* Host staging of at least n floats. */
static logt_status staging(logt_readout_gpu *g, int64_t n)
{
    if (g->host_n >= n) return LOGT_OK;
    float *p = (float *)realloc(g->host, (size_t)n * sizeof(float));
    if (!p) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory for the readout's staging");
    g->host = p, g->host_n = n;
    return LOGT_OK;
}

extern "C" logt_status logt_readout_loss_cuda(logt_readout *r, logt_readout_gpu *g, logt_loss loss,
                                              const float *h, int64_t N, const double *target, float *dh,
                                              double *out_loss, double *acc, logt_ctx *ctx)
{
    LOGT_TRY(logt_ctx_require_cuda(ctx, "the GPU readout"));
    LOGT_TRY(logt_readout_check(r, loss, N, target));
    const int D = r->D, O = r->O;
    const int64_t nw = (int64_t)O * D + O, nt = loss == LOGT_LOSS_MSE ? N * O : N;
    cudaStream_t st = (cudaStream_t)ctx->stream;
    LOGT_TRY(logt_tensor_reserve(&g->V, LOGT_CUDA, LOGT_F32, nw, NULL));
    LOGT_TRY(logt_tensor_reserve(&g->y, LOGT_CUDA, LOGT_F32, N * O, NULL));
    LOGT_TRY(logt_tensor_reserve(&g->target, LOGT_CUDA, LOGT_F32, nt, NULL));
    LOGT_TRY(logt_tensor_reserve(&g->row, LOGT_CUDA, LOGT_F32, 2 * N, NULL));
    LOGT_TRY(logt_tensor_reserve(&g->dw, LOGT_CUDA, LOGT_F32, nw, NULL));
    LOGT_TRY(staging(g, nw + nt > 2 * N ? nw + nt : 2 * N));
    float *V = (float *)g->V.data, *c = V + (int64_t)O * D, *y = (float *)g->y.data;
    float *t = (float *)g->target.data, *row = (float *)g->row.data;
    const double *w = (const double *)r->w.data;

    /* V, c and the targets to the device, side by side in the staging buffer */
    float *hv = g->host, *ht = g->host + nw;
    for (int64_t i = 0; i < nw; i++) hv[i] = (float)w[i];
    for (int64_t i = 0; i < nt; i++) ht[i] = (float)target[i];
    CUDA_TRY(cudaMemcpyAsync(V, hv, (size_t)nw * sizeof(float), cudaMemcpyHostToDevice, st));
    CUDA_TRY(cudaMemcpyAsync(t, ht, (size_t)nt * sizeof(float), cudaMemcpyHostToDevice, st));

    /* y, then the loss and g over y */
    LOGT_TRY(logt_gemm_f32(ctx, 0, 1, N, O, D, 1.0f, h, V, 0.0f, y));
    const float inv = (float)(loss == LOGT_LOSS_MSE ? 1.0 / ((double)N * O) : 1.0 / (double)N);
    const unsigned blocks = (unsigned)((N + WARPS - 1) / WARPS);
    if (loss == LOGT_LOSS_MSE) readout_mse_kernel<<<blocks, BLOCK, 0, st>>>(N, O, y, c, t, inv, row);
    else readout_xent_kernel<<<blocks, BLOCK, 0, st>>>(N, O, y, c, t, inv, row);
    LAUNCH_TRY();

    if (dh) {   /* the gradients: of V and c back to r->dw in f64, of h into dh */
        float *dV = (float *)g->dw.data, *dc = dV + (int64_t)O * D;
        LOGT_TRY(logt_gemm_f32_tn_long(ctx, O, D, N, 1.0f, y, O, h, D, 0.0f, dV));
        readout_colsum_kernel<<<(unsigned)O, BLOCK, 0, st>>>(N, O, y, dc);
        LAUNCH_TRY();
        LOGT_TRY(logt_gemm_f32(ctx, 0, 0, N, D, O, 1.0f, y, V, 0.0f, dh));
    }
    CUDA_TRY(cudaMemcpyAsync(g->host, row, (size_t)(2 * N) * sizeof(float), cudaMemcpyDeviceToHost, st));
    CUDA_TRY(cudaStreamSynchronize(st));
    double total = 0, right = 0;   /* in row order, in f64 */
    for (int64_t n = 0; n < N; n++) total += g->host[2 * n], right += g->host[2 * n + 1];
    if (dh) {
        CUDA_TRY(cudaMemcpyAsync(g->host, g->dw.data, (size_t)nw * sizeof(float), cudaMemcpyDeviceToHost, st));
        CUDA_TRY(cudaStreamSynchronize(st));
        double *dw = (double *)r->dw.data;
        for (int64_t i = 0; i < nw; i++) dw[i] = g->host[i];
    }
    *out_loss = total * (loss == LOGT_LOSS_MSE ? 1.0 / ((double)N * O) : 1.0 / (double)N);
    if (acc) *acc = loss == LOGT_LOSS_XENT ? right / (double)N : NAN;
    return LOGT_OK;
}

extern "C" void logt_readout_gpu_free(logt_readout_gpu *g)
{
    if (!g) return;
    logt_tensor_free(&g->V);
    logt_tensor_free(&g->y);
    logt_tensor_free(&g->target);
    logt_tensor_free(&g->row);
    logt_tensor_free(&g->dw);
    free(g->host);
    memset(g, 0, sizeof *g);
}
