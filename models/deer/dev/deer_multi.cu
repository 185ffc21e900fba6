/* deer_multi.cu (workbench) — one quasi-DEER training step (forward + backward, the adjoint
 * and every gradient) of a GRU layer on 1 GPU against the same step over the sequence split
 * across every visible GPU (models/deer/deer_multi.h), for experiments/scan-multigpu:
 *
 *   step     deer_multi_forward + deer_multi_backward, host wall clock from every GPU idle
 *            to every GPU done (deer_multi_times.wall_ms of the two), median of `reps` steps
 *            after one warm-up step; the same T on 1 GPU and split evenly over G GPUs
 *            (strong scaling): speedup = t(1 GPU) / t(G GPUs)
 *   exchange what the G-GPU step spends exchanging: the boundary sends (CUDA events around
 *            each NCCL send/recv group, the slowest GPU, every iteration), the scans'
 *            ncclAllGather and the gradients' ncclAllReduce, and their share of the step
 *   check    the G-GPU step against the 1-GPU step: h (the first, last and 6 more steps of
 *            every piece) and the whole parameter gradient, max |difference| / max |value|;
 *            "ok" when h is within 1e-4 and the gradient within 1e-3, else FAIL (and the
 *            program exits 1 after the table)
 * The 1-GPU run is deer_multi with G = 1 (deer's launches route: the same evaluation kernel,
 * scan_cuda for each linear step). Inputs come from a hash of (seed, array, global index),
 * so each piece is exactly its slice of the whole sequence; the parameters are uniform in
 * ±1/sqrt(D), the same on every GPU; dh uniform in ±1.
 *
 *   build/bin/deer-multi-dev [--quick | --beyond]   (LOGT_COMMIT is echoed in the provenance line)
 *
 * --beyond runs one step at a length one GPU cannot hold (see beyond()).
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../../core/status.h"
#include "../deer_multi.h"

#define WORKBENCH "deer-multi-dev"
#include "../../../kernels/dev/workbench.cuh"

/* x[i] = scale·(2u − 1), u = u(seed, first + i), for i < n, on the current GPU */
__global__ void fill_kernel(float *x, int64_t n, int64_t first, uint64_t seed, float scale)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        x[i] = scale * (2.0f * hash_unit(seed, (uint64_t)(first + i)) - 1.0f);
}

static float *filled(int gpu, int64_t n, int64_t first, uint64_t seed, float scale)
{
    float *p;
    CK(cudaSetDevice(gpu));
    CK(cudaMalloc(&p, (size_t)n * sizeof(float)));
    fill_kernel<<<4096, 256>>>(p, n, first, seed, scale);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    return p;
}

/* What one configuration's steps gave: times (medians, ms), iterations, and for the check h at
 * the sampled steps ([ns][B][D]) and the gradient, on the host. */
typedef struct result {
    double step, fwd, bwd, boundary, gather, reduce;
    double gib;   /* device memory in use after the steps, the most on any GPU, GiB */
    int iterations, adjoint;
    float *h, *dw;
} result;

/* reps steps after one warm-up on G GPUs, T split evenly; the check rows are the global steps
 * in sample[0 .. ns). */
static result run(int G, const deer_multi_cfg *cfg, int64_t T, int reps, const int64_t *sample, int ns)
{
    const int64_t B = cfg->B, I = cfg->I, D = cfg->D, P = deer_multi_layout_of(cfg->cell, I, D).n;
    int64_t Tp[SCAN_MULTI_MAX], start[SCAN_MULTI_MAX], t0 = 0;
    for (int p = 0; p < G; p++) Tp[p] = T / G + (p < T % G), start[p] = t0, t0 += Tp[p];
    deer_multi *m = NULL;
    OK(deer_multi_create(G, cfg, &m));
    const float *w[SCAN_MULTI_MAX], *x[SCAN_MULTI_MAX], *dh[SCAN_MULTI_MAX];
    float *h[SCAN_MULTI_MAX], *dw[SCAN_MULTI_MAX], *dx[SCAN_MULTI_MAX];
    for (int p = 0; p < G; p++) {
        w[p] = filled(p, P, 0, 1, 1.0f / sqrtf((float)D));
        x[p] = filled(p, Tp[p] * B * I, start[p] * B * I, 2, 1.0f);
        dh[p] = filled(p, Tp[p] * B * D, start[p] * B * D, 3, 1.0f);
        h[p] = filled(p, Tp[p] * B * D, 0, 4, 0.0f);   /* outputs: zeros */
        dw[p] = filled(p, P, 0, 5, 0.0f);
        dx[p] = filled(p, Tp[p] * B * I, 0, 6, 0.0f);
    }
    double step[64], fwd[64], bwd[64], bnd[64], gat[64], red[64];
    deer_multi_report rep;
    for (int r = 0; r < reps + 1; r++) {
        deer_multi_times tf, tb;
        OK(deer_multi_forward(m, Tp, w, x, NULL, NULL, h, &rep, &tf));
        OK(deer_multi_backward(m, dh, dw, dx, NULL, NULL, &rep, &tb));
        if (r == 0) continue;   /* the warm-up: buffers, cuBLAS and NCCL set up */
        step[r - 1] = tf.wall_ms + tb.wall_ms, fwd[r - 1] = tf.wall_ms, bwd[r - 1] = tb.wall_ms;
        bnd[r - 1] = tf.boundary_ms + tb.boundary_ms, gat[r - 1] = tf.scan_exchange_ms + tb.scan_exchange_ms;
        red[r - 1] = tb.reduce_ms;
    }
    result res;
    res.step = median(step, reps), res.fwd = median(fwd, reps), res.bwd = median(bwd, reps);
    res.boundary = median(bnd, reps), res.gather = median(gat, reps), res.reduce = median(red, reps);
    res.iterations = rep.iterations, res.adjoint = rep.adjoint_iterations;
    res.h = (float *)malloc((size_t)(ns * B * D) * sizeof(float));
    res.dw = (float *)malloc((size_t)P * sizeof(float));
    for (int k = 0; k < ns; k++) {
        int p = G - 1;
        while (sample[k] < start[p]) p--;
        CK(cudaSetDevice(p));
        CK(cudaMemcpy(res.h + k * B * D, h[p] + (sample[k] - start[p]) * B * D, (size_t)(B * D) * sizeof(float),
                      cudaMemcpyDeviceToHost));
    }
    res.gib = 0;
    for (int p = 0; p < G; p++) {
        size_t free_b, total_b;
        CK(cudaSetDevice(p));
        CK(cudaMemGetInfo(&free_b, &total_b));
        const double used = (double)(total_b - free_b) / 1073741824.0;
        res.gib = used > res.gib ? used : res.gib;
    }
    CK(cudaSetDevice(0));
    CK(cudaMemcpy(res.dw, dw[0], (size_t)P * sizeof(float), cudaMemcpyDeviceToHost));
    for (int p = 0; p < G; p++) {
        CK(cudaSetDevice(p));
        const void *all[] = {w[p], x[p], dh[p], h[p], dw[p], dx[p]};
        for (int i = 0; i < 6; i++) CK(cudaFree((void *)all[i]));
    }
    deer_multi_destroy(m);
    return res;
}

/* max |a − b| / max |b| */
static double rel_diff(const float *a, const float *b, int64_t n)
{
    double worst = 0, scale = 0;
    for (int64_t i = 0; i < n; i++) {
        const double d = fabs((double)a[i] - b[i]);
        worst = d > worst || d != d ? d : worst;
        scale = fabs(b[i]) > scale ? fabs(b[i]) : scale;
    }
    return worst / (scale > 0 ? scale : 1);
}

/* --beyond: a step at a length one GPU cannot hold (GRU, B = 16, D = 16, T = 2^23: about
 * 1.2 KB of buffers a row, 160 GB in all): one GPU is asked first and must refuse with its
 * error; then the step over every GPU, which checks itself (Newton and the adjoint converge,
 * or deer_multi fails), with each GPU's memory in use. */
static int beyond(int G)
{
    const int64_t T = (int64_t)1 << 23;
    const deer_multi_cfg cfg = {DEER_GRU, 16, 4, 16, 1e-5, 200};
    size_t free_b, total_b;
    CK(cudaSetDevice(0));
    CK(cudaMemGetInfo(&free_b, &total_b));
    printf("# beyond one GPU: gru B=16 D=16 I=4 T=%lld; one GPU has %.1f GiB\n", (long long)T,
           (double)total_b / 1073741824.0);
    {
        const int64_t P = deer_multi_layout_of(cfg.cell, cfg.I, cfg.D).n, Tp[1] = {T};
        deer_multi *m = NULL;
        OK(deer_multi_create(1, &cfg, &m));
        const float *w[1] = {filled(0, P, 0, 1, 0.25f)}, *x[1] = {filled(0, T * cfg.B * cfg.I, 0, 2, 1.0f)};
        const float *dh[1] = {filled(0, T * cfg.B * cfg.D, 0, 3, 1.0f)};
        float *h[1] = {filled(0, T * cfg.B * cfg.D, 0, 4, 0.0f)}, *dw[1] = {filled(0, P, 0, 5, 0.0f)};
        float *dx[1] = {filled(0, T * cfg.B * cfg.I, 0, 6, 0.0f)};
        logt_status s = deer_multi_forward(m, Tp, w, x, NULL, NULL, h, NULL, NULL);
        if (s == LOGT_OK) s = deer_multi_backward(m, dh, dw, dx, NULL, NULL, NULL, NULL);
        printf("# 1 GPU: %s%s\n", s == LOGT_OK ? "ran (no refusal: the case is not beyond one GPU)" : "refused: ",
               s == LOGT_OK ? "" : logt_errmsg());
        const void *all[] = {w[0], x[0], dh[0], h[0], dw[0], dx[0]};
        for (int i = 0; i < 6; i++) CK(cudaFree((void *)all[i]));
        deer_multi_destroy(m);
        if (s == LOGT_OK) return 1;
    }
    if (G < 2) {
        printf("# fewer than 2 GPUs: nothing more to run\n");
        return 1;
    }
    int64_t sample[1] = {0};
    const result r = run(G, &cfg, T, 2, sample, 1);
    printf("gru %lld %lld %lld %lld %d | %d adjoint %d | step %.1f ms (fwd %.1f bwd %.1f), median of 2 | exchange "
           "%.1f ms | %.1f GiB in use on the fullest GPU\n",
           (long long)cfg.B, (long long)cfg.D, (long long)cfg.I, (long long)T, G, r.iterations, r.adjoint, r.step,
           r.fwd, r.bwd, r.boundary + r.gather + r.reduce, r.gib);
    free(r.h), free(r.dw);
    return 0;
}

int main(int argc, char **argv)
{
    const int quick = argc > 1 && !strcmp(argv[1], "--quick");
    const int G = workbench_start(SCAN_MULTI_MAX);
    if (argc > 1 && !strcmp(argv[1], "--beyond")) return beyond(G);
    printf("# one quasi-DEER training step (forward + backward) of a GRU, tol 1e-5, medians of the steps "
           "after a warm-up; T split evenly over G GPUs\n");
    printf("# cell B D I T G | iters adjoint | t1_ms (fwd bwd) | tG_ms (fwd bwd) speedup | exchange_ms "
           "(boundary allgather allreduce) pct | check h dw\n");
    struct { int64_t D, T; } full[] = {{4, 1 << 20}, {4, 1 << 22}, {4, 1 << 23}, {16, 1 << 20}, {16, 1 << 22}};
    struct { int64_t D, T; } fast[] = {{4, 1 << 16}, {16, 1 << 18}};
    const int ncase = quick ? 2 : 5, reps = quick ? 3 : 5;
    int failed = 0;
    for (int c = 0; c < ncase; c++) {
        const int64_t D = quick ? fast[c].D : full[c].D, T = quick ? fast[c].T : full[c].T;
        const deer_multi_cfg cfg = {DEER_GRU, 16, 4, D, 1e-5, 200};
        int64_t sample[8 * SCAN_MULTI_MAX];
        int ns = 0;
        int64_t t0 = 0;
        for (int p = 0; p < G; p++) {   /* 8 steps of every piece of the G-GPU split */
            const int64_t Tp = T / G + (p < T % G);
            for (int k = 0; k < 8; k++) sample[ns++] = t0 + (k == 7 ? Tp - 1 : (Tp * k) / 7);
            t0 += Tp;
        }
        const result one = run(1, &cfg, T, reps, sample, ns);
        const result many = run(G, &cfg, T, reps, sample, ns);
        const double eh = rel_diff(many.h, one.h, ns * cfg.B * D);
        const double ew = rel_diff(many.dw, one.dw, deer_multi_layout_of(cfg.cell, cfg.I, D).n);
        const int ok = eh <= 1e-4 && ew <= 1e-3;
        failed |= !ok;
        const double ex = many.boundary + many.gather + many.reduce;
        printf("gru %lld %lld %lld %lld %d | %d/%d %d/%d | %.3f (%.3f %.3f) | %.3f (%.3f %.3f) %.2f | %.3f (%.3f "
               "%.3f %.3f) %.1f%% | %.1e %.1e %s\n",
               (long long)cfg.B, (long long)D, (long long)cfg.I, (long long)T, G, one.iterations, many.iterations,
               one.adjoint, many.adjoint, one.step, one.fwd, one.bwd, many.step, many.fwd, many.bwd,
               one.step / many.step, ex, many.boundary, many.gather, many.reduce, 100.0 * ex / many.step, eh, ew,
               ok ? "ok" : "FAIL");
        fflush(stdout);
        free(one.h), free(one.dw), free(many.h), free(many.dw);
    }
    return failed;
}
