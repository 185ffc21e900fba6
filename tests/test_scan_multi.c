/* test_scan_multi.c — the sequence-parallel scan (kernels/scan_multi.h): the pieces
 * algorithm on the CPU against the plain scan of the whole sequence (G = 1, 2, 3, 7,
 * pieces of awkward and of single steps, gates in [0.5, 1), near 1, exactly 1, and small
 * enough that the summary stops early), and on the GPUs (NCCL) against the one-GPU scan.
 *
 * Tolerances: the CPU side is float64 and composes maps in another order than the loop:
 * 1e-12 of max|h|. The GPU side compares with scan_cuda on one GPU in the same dtype: f32
 * 1e-5 of max|h| (the order of composition differs; gates near 1 keep errors ~1000 steps,
 * as in test_scan_cuda.c: 1e-4); bf16 outputs are the same fp32 states rounded, so a few
 * ulps apart where the states differ in their last fp32 bits: 2e-2 relative. (The carry is
 * handed over in fp32: a bf16 carry was off by up to 2 in a state of ~200 with gates at 1.)
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/ctx.h"
#include "../core/rng.h"
#include "../core/tensor.h"
#include "../kernels/scan.h"
#include "../kernels/scan_multi.h"
#include "check.h"
#include "gpu.h"

#define OK(call) cr_assert_eq((call), LOGT_OK, "%s", logt_errmsg())

typedef enum gates { GATES_HALF, GATES_NEAR1, GATES_ONE, GATES_SMALL } gates;

/* a [T][C] gates of the kind asked for (GATES_ONE: every third channel exactly 1, the rest
 * near 1), b [T][C] in [-1, 1), h0 [C] in [-1, 1). */
static void fill(int64_t T, int64_t C, gates g, uint64_t seed, double *a, double *b, double *h0)
{
    logt_rng r = logt_rng_make(seed, 7);
    for (int64_t i = 0; i < T * C; i++) {
        const double u = logt_rng_uniform(&r);
        a[i] = g == GATES_HALF ? 0.5 + 0.5 * u
             : g == GATES_SMALL ? 0.05 * u
             : g == GATES_ONE && (i % C) % 3 == 0 ? 1.0
                                                  : 0.999 + 0.001 * u;
        b[i] = 2.0 * logt_rng_uniform(&r) - 1.0;
    }
    for (int64_t c = 0; c < C; c++) h0[c] = 2.0 * logt_rng_uniform(&r) - 1.0;
}

static double max_abs(const double *x, int64_t n)
{
    double m = 0;
    for (int64_t i = 0; i < n; i++) m = fmax(m, fabs(x[i]));
    return m;
}

/* The whole sequence's T split at the given piece lengths, scanned both ways. */
static void expect_pieces(int G, const int64_t *Tp, int64_t C, gates g, int with_h0)
{
    int64_t T = 0, start[SCAN_MULTI_MAX];
    for (int p = 0; p < G; p++) start[p] = T, T += Tp[p];
    double *a = malloc(T * C * sizeof(double)), *b = malloc(T * C * sizeof(double));
    double *h0 = malloc(C * sizeof(double)), *ref = malloc(T * C * sizeof(double));
    double *out = malloc(T * C * sizeof(double));
    fill(T, C, g, 11 + G, a, b, h0);
    for (int reverse = 0; reverse < 2; reverse++) {
        const double *pa[SCAN_MULTI_MAX], *pb[SCAN_MULTI_MAX];
        double *ph[SCAN_MULTI_MAX];
        for (int p = 0; p < G; p++)
            pa[p] = a + start[p] * C, pb[p] = b + start[p] * C, ph[p] = out + start[p] * C;
        const double *hin = with_h0 ? h0 : NULL;
        OK(reverse ? scan_reverse_cpu(T, C, a, b, hin, ref) : scan_cpu(T, C, a, b, hin, ref));
        memset(out, 0xff, T * C * sizeof(double));
        OK(scan_pieces_cpu(reverse, G, Tp, C, pa, pb, hin, ph));
        check_result r = check_close("h", out, ref, T * C, 1e-12 * fmax(max_abs(ref, T * C), 1e-300), 0);
        cr_expect(r.ok, "G=%d T=%lld C=%lld gates %d h0 %d reverse %d: %s", G, (long long)T,
                  (long long)C, g, with_h0, reverse, r.msg);
    }
    free(a), free(b), free(h0), free(ref), free(out);
}

Test(scan_multi, pieces_equal_the_plain_scan)
{
    const int64_t one[] = {1000}, two[] = {617, 383}, three[] = {1, 998, 1};
    const int64_t seven[] = {1, 2, 31, 32, 33, 500, 401}, singles[] = {1, 1, 1, 1, 1, 1, 1};
    struct { int G; const int64_t *T; } splits[] = {{1, one}, {2, two}, {3, three}, {7, seven}, {7, singles}};
    const int64_t Cs[] = {1, 3, 33};
    for (size_t s = 0; s < sizeof splits / sizeof splits[0]; s++)
        for (int c = 0; c < 3; c++)
            for (int g = GATES_HALF; g <= GATES_SMALL; g++)
                expect_pieces(splits[s].G, splits[s].T, Cs[c], (gates)g, (s + c + g) % 2);
}

/* scan_split_cpu and scan_backward_split_cpu (one array, the models' gpus = N) are
 * scan_pieces_cpu over scan_pieces_split's pieces, to the bit: forward, reversed, in place
 * (b == h), and the backward's reversed scan of T - 1 steps with the gates one step later from
 * g_{T-1} = dh_{T-1}; T below, at and above G. */
Test(scan_multi, split_scans_are_the_pieces)
{
    const int64_t Ts[] = {1, 2, 7, 40}, C = 3;
    const int Gs[] = {2, 3, 16};
    for (int ti = 0; ti < 4; ti++)
        for (int gi = 0; gi < 3; gi++) {
            const int64_t T = Ts[ti];
            const int G = Gs[gi];
            int64_t Tp[SCAN_MULTI_MAX], sum = 0;
            const int n = scan_pieces_split(T, G, Tp);
            cr_assert_eq(n, T < G ? T : G);
            for (int p = 0; p < n; p++) {
                sum += Tp[p];
                cr_assert(Tp[p] >= 1 && Tp[p] <= Tp[0] && Tp[0] - Tp[p] <= 1, "T = %lld, G = %d: piece %d has %lld",
                          (long long)T, G, p, (long long)Tp[p]);
            }
            cr_assert_eq(sum, T);
            const size_t bytes = (size_t)(T * C) * sizeof(double);
            double *a = malloc(bytes), *b = malloc(bytes), *h0 = malloc(C * sizeof(double));
            double *want = malloc(bytes), *got = malloc(bytes), *da = malloc(bytes), *da2 = malloc(bytes);
            double dh0[3], dh02[3];
            fill(T, C, GATES_HALF, 5 + (uint64_t)T, a, b, h0);
            const double *pa[SCAN_MULTI_MAX], *pb[SCAN_MULTI_MAX];
            double *pw[SCAN_MULTI_MAX];
            for (int reverse = 0; reverse < 2; reverse++) {
                int64_t t0 = 0;
                for (int p = 0; p < n; t0 += Tp[p], p++) pa[p] = a + t0 * C, pb[p] = b + t0 * C, pw[p] = want + t0 * C;
                OK(scan_pieces_cpu(reverse, n, Tp, C, pa, pb, h0, pw));
                OK(scan_split_cpu(G, reverse, T, C, a, b, h0, got));
                cr_assert(!memcmp(got, want, bytes), "T = %lld, G = %d, reverse %d", (long long)T, G, reverse);
                memcpy(got, b, bytes);
                OK(scan_split_cpu(G, reverse, T, C, a, got, h0, got));
                cr_assert(!memcmp(got, want, bytes), "in place: T = %lld, G = %d, reverse %d", (long long)T, G, reverse);
            }
            /* the backward, with b as dh and `want` (the forward above, reversed: any h) as h */
            memcpy(want + (T - 1) * C, b + (T - 1) * C, C * sizeof(double));
            if (T > 1) {
                int64_t Tq[SCAN_MULTI_MAX], t0 = 0;
                const int m = scan_pieces_split(T - 1, G, Tq);
                for (int p = 0; p < m; t0 += Tq[p], p++) pa[p] = a + C + t0 * C, pb[p] = b + t0 * C, pw[p] = want + t0 * C;
                OK(scan_pieces_cpu(1, m, Tq, C, pa, pb, want + (T - 1) * C, pw));
            }
            scan_backward_rest_cpu(T, C, a, h0, got, want, da2, dh02);
            double *g = malloc(bytes);
            OK(scan_backward_split_cpu(G, T, C, a, h0, got, b, da, g, dh0));
            cr_assert(!memcmp(g, want, bytes) && !memcmp(da, da2, bytes) && !memcmp(dh0, dh02, sizeof dh0),
                      "backward: T = %lld, G = %d", (long long)T, G);
            free(a), free(b), free(h0), free(want), free(got), free(da), free(da2), free(g);
        }
}

Test(scan_multi, bad_arguments_say_what_is_wrong)
{
    const int64_t T[] = {4, 0};
    double x[8] = {0};
    const double *a[] = {x, x};
    double *h[] = {x, x};
    cr_assert_eq(scan_pieces_cpu(0, 2, T, 1, a, a, NULL, h), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "piece 1 has T = 0"), "%s", logt_errmsg());
    cr_assert_eq(scan_pieces_cpu(0, 0, T, 1, a, a, NULL, h), LOGT_EINVAL);
    cr_assert_eq(scan_pieces_cpu(0, 1, T, 0, a, a, NULL, h), LOGT_EINVAL);
}

#ifdef LOGT_HAVE_CUDA
#include <cuda_runtime.h>

static int gpu_count(void)
{
    int n = 0;
    return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

/* The G-GPU scan of a sequence split at Tp against scan_cuda of the whole on GPU 0. */
static void expect_gpus(int G, const int64_t *Tp, int64_t C, gates g, logt_dtype dt)
{
    int64_t T = 0, start[SCAN_MULTI_MAX];
    for (int p = 0; p < G; p++) start[p] = T, T += Tp[p];
    double *a = malloc(T * C * sizeof(double)), *b = malloc(T * C * sizeof(double));
    double *h0 = malloc(C * sizeof(double)), *ref = malloc(T * C * sizeof(double));
    double *out = malloc(T * C * sizeof(double));
    fill(T, C, g, 5, a, b, h0);
    scan_multi *m = NULL;
    OK(scan_multi_create(G, &m));
    logt_ctx *ctx = NULL;
    OK(cudaSetDevice(0) == cudaSuccess ? LOGT_OK : LOGT_ECUDA);
    OK(logt_ctx_create(LOGT_CUDA, &ctx));
    logt_tensor ta, tb, th, th0, pa[SCAN_MULTI_MAX], pb[SCAN_MULTI_MAX], ph[SCAN_MULTI_MAX];
    OK(logt_tensor_new2(&ta, LOGT_CUDA, dt, T, C));
    OK(logt_tensor_new2(&tb, LOGT_CUDA, dt, T, C));
    OK(logt_tensor_new2(&th, LOGT_CUDA, dt, T, C));
    OK(logt_tensor_from_f64(&ta, a));
    OK(logt_tensor_from_f64(&tb, b));
    for (int reverse = 0; reverse < 2; reverse++) {
        const int first = reverse ? G - 1 : 0;
        /* h0 on the GPU where the state enters, and on GPU 0 for the reference */
        cr_assert_eq(cudaSetDevice(first), cudaSuccess);
        OK(logt_tensor_new1(&th0, LOGT_CUDA, dt, C));
        OK(logt_tensor_from_f64(&th0, h0));
        logt_tensor r0;
        cr_assert_eq(cudaSetDevice(0), cudaSuccess);
        OK(logt_tensor_new1(&r0, LOGT_CUDA, dt, C));
        OK(logt_tensor_from_f64(&r0, h0));
        OK(scan_cuda(ctx, reverse, T, C, dt, ta.data, tb.data, r0.data, th.data));
        OK(logt_ctx_sync(ctx));
        OK(logt_tensor_to_f64(&th, ref));
        const void *va[SCAN_MULTI_MAX], *vb[SCAN_MULTI_MAX];
        void *vh[SCAN_MULTI_MAX];
        for (int p = 0; p < G; p++) {
            cr_assert_eq(cudaSetDevice(p), cudaSuccess);
            OK(logt_tensor_new2(&pa[p], LOGT_CUDA, dt, Tp[p], C));
            OK(logt_tensor_new2(&pb[p], LOGT_CUDA, dt, Tp[p], C));
            OK(logt_tensor_new2(&ph[p], LOGT_CUDA, dt, Tp[p], C));
            OK(logt_tensor_from_f64(&pa[p], a + start[p] * C));
            OK(logt_tensor_from_f64(&pb[p], b + start[p] * C));
            cr_assert_eq(cudaMemset(ph[p].data, 0xff, logt_tensor_bytes(&ph[p])), cudaSuccess);
            va[p] = pa[p].data, vb[p] = pb[p].data, vh[p] = ph[p].data;
        }
        scan_multi_times tm;
        OK(scan_multi_run(m, reverse, Tp, C, dt, va, vb, th0.data, vh, &tm));
        for (int p = 0; p < G; p++) {
            cr_assert_eq(cudaSetDevice(p), cudaSuccess);
            OK(logt_tensor_to_f64(&ph[p], out + start[p] * C));
            logt_tensor_free(&pa[p]), logt_tensor_free(&pb[p]), logt_tensor_free(&ph[p]);
        }
        cr_assert_eq(cudaSetDevice(first), cudaSuccess);
        logt_tensor_free(&th0);
        cr_assert_eq(cudaSetDevice(0), cudaSuccess);
        logt_tensor_free(&r0);
        const double M = fmax(max_abs(ref, T * C), 1e-30);
        const double atol = dt == LOGT_BF16 ? 1e-5 * M : (g == GATES_HALF || g == GATES_SMALL ? 1e-5 : 1e-4) * M;
        check_result r = check_close("h", out, ref, T * C, atol, dt == LOGT_BF16 ? 2e-2 : 0);
        cr_expect(r.ok, "G=%d T=%lld C=%lld gates %d %s reverse %d (%d summary rounds): %s", G,
                  (long long)T, (long long)C, g, logt_dtype_name(dt), reverse, tm.rounds, r.msg);
    }
    logt_tensor_free(&ta), logt_tensor_free(&tb), logt_tensor_free(&th);
    logt_ctx_destroy(ctx);
    scan_multi_destroy(m);
    free(a), free(b), free(h0), free(ref), free(out);
}

Test(scan_multi, one_gpu_equals_scan_cuda)
{
    SKIP_WITHOUT_GPU("the multi-GPU scan on one GPU");
    scan_multi *m = NULL;
    logt_status s = scan_multi_create(1, &m);
    if (s == LOGT_EUNSUPPORTED && strstr(logt_errmsg(), "without NCCL"))
        cr_skip_test("%s", logt_errmsg());
    OK(s);
    scan_multi_destroy(m);
    const int64_t T[] = {33753};
    expect_gpus(1, T, 3, GATES_HALF, LOGT_F32);
}

Test(scan_multi, gpus_equal_one_gpu)
{
    SKIP_WITHOUT_GPU("the multi-GPU scan");
    const int G = gpu_count() < SCAN_MULTI_MAX ? gpu_count() : SCAN_MULTI_MAX;
    if (G < 2) cr_skip_test("one GPU visible: the NCCL scan needs two (nvidia-h200-x2)");
    int64_t awkward[SCAN_MULTI_MAX], ones[SCAN_MULTI_MAX], longer[SCAN_MULTI_MAX];
    for (int p = 0; p < G; p++) awkward[p] = p % 2 ? 16323 : 33753, ones[p] = 1, longer[p] = 127323;
    const logt_dtype dts[] = {LOGT_F32, LOGT_BF16};
    for (int d = 0; d < 2; d++) {
        expect_gpus(G, ones, 3, GATES_HALF, dts[d]);
        expect_gpus(G, awkward, 1, GATES_HALF, dts[d]);
        expect_gpus(G, awkward, 1000, GATES_NEAR1, dts[d]);
        expect_gpus(G, awkward, 32, GATES_ONE, dts[d]);
        expect_gpus(G, longer, 3, GATES_NEAR1, dts[d]);   /* several summary rounds */
        expect_gpus(G, awkward, 1000, GATES_SMALL, dts[d]);
    }
    /* more channels than one warp each in a capped grid (65536 blocks of 8 warps) */
    int64_t few[SCAN_MULTI_MAX];
    for (int p = 0; p < G; p++) few[p] = 3 + p;
    expect_gpus(G, few, 600000, GATES_HALF, LOGT_F32);
}

Test(scan_multi, more_gpus_than_visible_is_an_error)
{
    SKIP_WITHOUT_GPU("the multi-GPU scan");
    scan_multi *m = NULL;
    const int n = gpu_count();
    if (n >= SCAN_MULTI_MAX) cr_skip_test("%d GPUs visible", n);
    const logt_status s = scan_multi_create(n + 1, &m);
    cr_assert_neq(s, LOGT_OK);
    cr_assert(strstr(logt_errmsg(), "visible") || strstr(logt_errmsg(), "without NCCL"), "%s", logt_errmsg());
}
#endif
