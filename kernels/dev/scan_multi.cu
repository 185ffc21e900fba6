/* scan_multi.cu (workbench) — the sequence-parallel scan (kernels/scan_multi.h) on every
 * visible GPU against the one-GPU scan (scan_cuda) and a device-to-device copy, for
 * experiments/scan-multigpu:
 *
 *   weak scaling    each GPU holds T_g steps of C channels; G GPUs scan G·T_g steps;
 *                   ratio = G · t(1 GPU, T_g) / t(G GPUs, G·T_g)   (G at best)
 *   strong scaling  T_g steps split over G GPUs; ratio = t(1 GPU, T_g) / t(G GPUs)
 *   exchange        the ncclAllGather's share of the G-GPU wall time
 *   check           the G-GPU result against scan_cuda of the whole sequence on GPU 0:
 *                   the first, last and 6 more rows of every piece, max |diff| / max |h|
 * Times are medians of `repeats` calls after `warmup`; the G-GPU time is the host's wall
 * clock from all GPUs idle to all GPUs done (scan_multi_times.wall_ms), the one-GPU time
 * CUDA events. Inputs come from a hash of (seed, array, global index), so a piece is
 * exactly its slice of the whole sequence: gates a in [lo, 1), b in [-1, 1).
 *
 *   build/bin/scan-multi-dev [--quick]      (prints one line per case; LOGT_COMMIT is echoed)
 */
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../core/ctx.h"
#include "../../core/elem.cuh"
#include "../../core/status.h"
#include "../scan.h"
#include "../scan_multi.h"

#define WORKBENCH "scan-multi-dev"
#include "workbench.cuh"

/* x[i] = lo + (hi - lo)·u(seed, first + i) for i < n */
template <typename E>
__global__ void fill_kernel(E *x, int64_t n, int64_t first, uint64_t seed, float lo, float hi)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        st(x + i, lo + (hi - lo) * hash_unit(seed, (uint64_t)(first + i)));
}

static void fill(void *x, int bf16, int64_t n, int64_t first, uint64_t seed, float lo, float hi)
{
    if (bf16) fill_kernel<__nv_bfloat16><<<65536, 256>>>((__nv_bfloat16 *)x, n, first, seed, lo, hi);
    else fill_kernel<float><<<65536, 256>>>((float *)x, n, first, seed, lo, hi);
    CK(cudaGetLastError());
}

static double row_value(const void *row, int bf16, int64_t c)
{
    if (bf16) {
        const uint16_t u = ((const uint16_t *)row)[c];
        uint32_t w = (uint32_t)u << 16;
        float f;
        memcpy(&f, &w, sizeof f);
        return f;
    }
    return ((const float *)row)[c];
}

typedef struct shape {
    int64_t C, Tg;
} shape;

int main(int argc, char **argv)
{
    const int quick = argc > 1 && !strcmp(argv[1], "--quick");
    const int G = workbench_start(SCAN_MULTI_MAX);
    printf("# case dtype gates C T_per_gpu G | t1_ms copy1_ms 1gpu_pct_copy | weak_ms weak_ratio "
           "exchange_ms exchange_pct summary_ms rounds | strong_ms strong_ratio | check\n");
    const shape shapes[] = {{65536, 32768}, {1024, 2097152}, {32, 33554432}};
    const shape qshapes[] = {{65536, 1024}, {32, 1 << 20}};
    const float gates_lo[] = {0.5f, 0.9999f};
    const int nshape = quick ? 2 : 3, warm = 2, reps = quick ? 3 : 10;
    scan_multi *m = NULL;
    OK(scan_multi_create(G, &m));
    logt_ctx *ctx = NULL;
    CK(cudaSetDevice(0));
    OK(logt_ctx_create(LOGT_CUDA, &ctx));
    cudaStream_t st0 = (cudaStream_t)ctx->stream;
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int bf16 = 0; bf16 < 2; bf16++)
        for (int si = 0; si < nshape; si++)
            for (int gi = 0; gi < 2; gi++) {
                const shape sh = quick ? qshapes[si] : shapes[si];
                const int64_t C = sh.C, Tg = sh.Tg, T = G * Tg;
                const size_t el = bf16 ? 2 : 4;
                const logt_dtype dt = bf16 ? LOGT_BF16 : LOGT_F32;
                /* the whole sequence on GPU 0 (reference and the one-GPU times), pieces on each GPU */
                void *wa, *wb, *wh;
                CK(cudaSetDevice(0));
                CK(cudaMalloc(&wa, T * C * el));
                CK(cudaMalloc(&wb, T * C * el));
                CK(cudaMalloc(&wh, T * C * el));
                fill(wa, bf16, T * C, 0, 1, gates_lo[gi], 1.0f);
                fill(wb, bf16, T * C, 0, 2, -1.0f, 1.0f);
                void *pa[SCAN_MULTI_MAX], *pb[SCAN_MULTI_MAX], *ph[SCAN_MULTI_MAX];
                int64_t Tp[SCAN_MULTI_MAX], Ts[SCAN_MULTI_MAX];
                for (int p = 0; p < G; p++) {
                    CK(cudaSetDevice(p));
                    CK(cudaMalloc(&pa[p], Tg * C * el));
                    CK(cudaMalloc(&pb[p], Tg * C * el));
                    CK(cudaMalloc(&ph[p], Tg * C * el));
                    fill(pa[p], bf16, Tg * C, p * Tg * C, 1, gates_lo[gi], 1.0f);
                    fill(pb[p], bf16, Tg * C, p * Tg * C, 2, -1.0f, 1.0f);
                    CK(cudaDeviceSynchronize());
                    Tp[p] = Tg;
                    Ts[p] = Tg / G + (p < Tg % G);
                }
                /* one GPU: scan of T_g steps, and the copy of one array */
                double v[64], cv[64];
                for (int r = 0; r < warm + reps; r++) {
                    float ms, cms;
                    CK(cudaEventRecord(e0, st0));
                    OK(scan_cuda(ctx, 0, Tg, C, dt, wa, wb, NULL, wh));
                    CK(cudaEventRecord(e1, st0));
                    CK(cudaEventSynchronize(e1));
                    CK(cudaEventElapsedTime(&ms, e0, e1));
                    CK(cudaEventRecord(e0, st0));
                    CK(cudaMemcpyAsync(wh, wb, Tg * C * el, cudaMemcpyDeviceToDevice, st0));
                    CK(cudaEventRecord(e1, st0));
                    CK(cudaEventSynchronize(e1));
                    CK(cudaEventElapsedTime(&cms, e0, e1));
                    if (r >= warm) v[r - warm] = ms, cv[r - warm] = cms;
                }
                const double t1 = median(v, reps), c1 = median(cv, reps);
                const double pct1 = 100.0 * (3.0 * Tg * C * el / t1) / (2.0 * Tg * C * el / c1);
                /* G GPUs, weak: G·T_g steps */
                double xv[64], sv[64];
                int rounds = 0;
                const void *ca[SCAN_MULTI_MAX], *cb[SCAN_MULTI_MAX];
                for (int p = 0; p < G; p++) ca[p] = pa[p], cb[p] = pb[p];
                for (int r = 0; r < warm + reps; r++) {
                    scan_multi_times tm;
                    OK(scan_multi_run(m, 0, Tp, C, dt, ca, cb, NULL, ph, &tm));
                    if (r >= warm) v[r - warm] = tm.wall_ms, xv[r - warm] = tm.exchange_ms, sv[r - warm] = tm.summary_ms;
                    rounds = tm.rounds;
                }
                const double tw = median(v, reps), tx = median(xv, reps), ts = median(sv, reps);
                /* check the weak run against the one-GPU scan of all G·T_g steps */
                CK(cudaSetDevice(0));
                OK(scan_cuda(ctx, 0, T, C, dt, wa, wb, NULL, wh));
                CK(cudaStreamSynchronize(st0));
                double worst = 0, scale = 0;
                char *r1 = (char *)malloc(C * el), *r2 = (char *)malloc(C * el);
                for (int p = 0; p < G; p++)
                    for (int k = 0; k < 8; k++) {
                        const int64_t t = k == 0 ? 0 : k == 7 ? Tg - 1 : (Tg * k) / 7 + k;
                        CK(cudaMemcpy(r1, (char *)ph[p] + t * C * el, C * el, cudaMemcpyDeviceToHost));
                        CK(cudaMemcpy(r2, (char *)wh + (p * Tg + t) * C * el, C * el, cudaMemcpyDeviceToHost));
                        for (int64_t c = 0; c < C; c++) {
                            const double x = row_value(r1, bf16, c), y = row_value(r2, bf16, c);
                            scale = fabs(y) > scale ? fabs(y) : scale;
                            worst = fabs(x - y) > worst || x != x ? fabs(x - y) : worst;
                        }
                    }
                free(r1), free(r2);
                /* G GPUs, strong: the T_g steps of GPU 0's data split over the GPUs (piece p
                 * reads the first Ts[p] steps of its own arrays: the same amount of work) */
                for (int r = 0; r < warm + reps; r++) {
                    scan_multi_times tm;
                    OK(scan_multi_run(m, 0, Ts, C, dt, ca, cb, NULL, ph, &tm));
                    if (r >= warm) v[r - warm] = tm.wall_ms;
                }
                const double tsg = median(v, reps);
                printf("%s %s %.4g %lld %lld %d | %.4f %.4f %.1f | %.4f %.2f %.4f %.1f %.4f %d | %.4f %.2f | %.2e\n",
                       "scan", bf16 ? "bf16" : "f32", gates_lo[gi], (long long)C, (long long)Tg, G, t1,
                       c1, pct1, tw, G * t1 / tw, tx, 100.0 * tx / tw, ts, rounds, tsg, t1 / tsg,
                       worst / (scale > 0 ? scale : 1));
                fflush(stdout);
                CK(cudaSetDevice(0));
                CK(cudaFree(wa));
                CK(cudaFree(wb));
                CK(cudaFree(wh));
                for (int p = 0; p < G; p++) {
                    CK(cudaSetDevice(p));
                    CK(cudaFree(pa[p]));
                    CK(cudaFree(pb[p]));
                    CK(cudaFree(ph[p]));
                }
            }
    scan_multi_destroy(m);
    logt_ctx_destroy(ctx);
    return 0;
}
