/* scan_bench.c — how fast scan_cuda runs (kernels/scan.cu), for issue 3's two tables.
 *
 *   make dev && build/bin/scan-bench
 *
 * 1. Bandwidth: for each (C, T) and dtype, the median of 20 timed calls (CUDA events on the
 *    ctx stream, after 3 warm-ups), effective bandwidth 3·T·C·bytes / time, against a
 *    device-to-device cudaMemcpyAsync of N = T·C·bytes in the same run, counted 2N / time.
 * 2. Martin & Cundy's Table 1 at batch 1: m channels, T steps, scan_cuda against
 *    scan_cuda_serial (one thread per channel, one step at a time) and the speedup.
 * Inputs are every byte 0x3f (a = b ≈ 0.747): the timing does not depend on the values.
 */
#include <stdio.h>
#include <stdlib.h>

#include "../../core/ctx.h"
#include "../../core/tensor.h"
#include "../scan.h"

#ifdef LOGT_HAVE_CUDA
#include <cuda_runtime.h>

#define REPS 20
#define WARM 3

static void die(const char *what, const char *msg)
{
    fprintf(stderr, "scan-bench: %s: %s\n", what, msg);
    exit(1);
}
#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) die(#call, cudaGetErrorString(e_)); } while (0)
#define OK(call) do { if ((call) != LOGT_OK) die(#call, logt_errmsg()); } while (0)

typedef logt_status (*scan_fn)(logt_ctx *, int, int64_t, int64_t, logt_dtype, const void *,
                               const void *, const void *, void *);

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Median ms of REPS runs of fn (fn NULL: the copy h <- a). */
static double time_ms(logt_ctx *ctx, scan_fn fn, int64_t T, int64_t C, logt_dtype dt, void *a,
                      void *b, void *h)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    size_t bytes = (size_t)(T * C) * logt_dtype_size(dt);
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    double ms[REPS];
    for (int r = -WARM; r < REPS; r++) {
        CK(cudaEventRecord(e0, st));
        if (fn) OK(fn(ctx, 0, T, C, dt, a, b, NULL, h));
        else CK(cudaMemcpyAsync(h, a, bytes, cudaMemcpyDeviceToDevice, st));
        CK(cudaEventRecord(e1, st));
        CK(cudaEventSynchronize(e1));
        float t;
        CK(cudaEventElapsedTime(&t, e0, e1));
        if (r >= 0) ms[r] = t;
    }
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    qsort(ms, REPS, sizeof ms[0], cmp_double);
    return 0.5 * (ms[REPS / 2 - 1] + ms[REPS / 2]);
}

/* Three device arrays [T][C] of dt, every byte 0x3f. */
static void alloc3(int64_t T, int64_t C, logt_dtype dt, logt_tensor t[3])
{
    for (int i = 0; i < 3; i++) {
        OK(logt_tensor_new2(&t[i], LOGT_CUDA, dt, T, C));
        CK(cudaMemset(t[i].data, 0x3f, logt_tensor_bytes(&t[i])));
    }
    CK(cudaDeviceSynchronize());
}

int main(void)
{
    if (!logt_backend_available(LOGT_CUDA)) die("start", "no usable CUDA device");
    logt_ctx *ctx;
    OK(logt_ctx_create(LOGT_CUDA, &ctx));

    static const int64_t shapes[][2] = {{65536, 1024}, {65536, 16384}, {1024, 1048576}, {32, 4194304}};
    static const logt_dtype dts[] = {LOGT_F32, LOGT_BF16};
    printf("bandwidth: scan_cuda forward from zeros, 3·T·C·bytes / median of %d\n", REPS);
    printf("%8s %9s %5s %9s %10s %9s %9s %7s\n", "C", "T", "dtype", "route", "ms", "GB/s",
           "copy GB/s", "%copy");
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 2; j++) {
            int64_t C = shapes[i][0], T = shapes[i][1];
            logt_dtype dt = dts[j];
            logt_tensor t[3];
            alloc3(T, C, dt, t);
            double n_bytes = (double)T * C * logt_dtype_size(dt);
            double ms = time_ms(ctx, scan_cuda, T, C, dt, t[0].data, t[1].data, t[2].data);
            double cms = time_ms(ctx, NULL, T, C, dt, t[0].data, t[1].data, t[2].data);
            double gbs = 3 * n_bytes / ms * 1e-6, cgbs = 2 * n_bytes / cms * 1e-6;
            printf("%8lld %9lld %5s %9s %10.4f %9.1f %9.1f %6.1f%%\n", (long long)C, (long long)T,
                   logt_dtype_name(dt), scan_cuda_route(T, C), ms, gbs, cgbs, 100 * gbs / cgbs);
            fflush(stdout);
            for (int k = 0; k < 3; k++) logt_tensor_free(&t[k]);
        }

    static const int64_t ms_[] = {4, 32, 128}, Ts[] = {16, 256, 4096, 65536};
    printf("\nMartin & Cundy Table 1, batch 1, f32: scan_cuda vs the serial kernel (median ms)\n");
    printf("%5s %7s %9s %11s %11s %9s\n", "m", "T", "route", "serial ms", "scan ms", "speedup");
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) {
            int64_t C = ms_[i], T = Ts[j];
            logt_tensor t[3];
            alloc3(T, C, LOGT_F32, t);
            double ser = time_ms(ctx, scan_cuda_serial, T, C, LOGT_F32, t[0].data, t[1].data, t[2].data);
            double par = time_ms(ctx, scan_cuda, T, C, LOGT_F32, t[0].data, t[1].data, t[2].data);
            printf("%5lld %7lld %9s %11.4f %11.4f %8.1fx\n", (long long)C, (long long)T,
                   scan_cuda_route(T, C), ser, par, ser / par);
            fflush(stdout);
            for (int k = 0; k < 3; k++) logt_tensor_free(&t[k]);
        }
    logt_ctx_destroy(ctx);
    return 0;
}
#else
int main(void)
{
    fprintf(stderr, "scan-bench: built without CUDA (nvcc not found); nothing to time\n");
    return 1;
}
#endif
