/* test_scan_cuda.c — scan_cuda (kernels/scan.cu) against the f64 CPU reference scan_cpu.
 *
 * Both sides see the same inputs: a, b, h0 are drawn in f64, converted to the device dtype
 * through logt_tensor_copy, and read back, so the reference runs on the f32- or bf16-rounded
 * values and only the GPU's arithmetic and output rounding are measured. h is poisoned
 * (every byte 0xFF: NaN in f32 and in bf16) before each call, so an unwritten output fails.
 *
 * Tolerances, |x - ref| <= atol + rtol·|ref| with M = max|ref|:
 *   f32, a in [0.5, 1)  atol 1e-5·M, rtol 1e-5. Each step rounds once (one fma, ~6e-8
 *                       relative) and the errors of earlier steps are multiplied by the
 *                       gates, so they sum like Σ_k Π a ≈ Σ 0.75^k = 4 steps' worth: ~2.4e-7·M.
 *                       The look-back route composes tile maps instead (a product of up to L
 *                       gates, ~L·6e-8 relative, but multiplying a carry the product has
 *                       already shrunk): the same order. 1e-5 leaves a margin of ~40.
 *   f32, a in [0.999, 1] errors survive ~1/(1-a) = 1000 steps instead of ~4, so the bound is
 *                       min(T, 1000)·6e-8·M = 6e-5·M: atol 1e-4·M. (It grows with T up to the
 *                       gates' memory, and would grow with T without limit for gates exactly 1.)
 *   bf16                the state stays fp32 inside the kernel, only h is rounded on the way
 *                       out: half an ulp of bf16 is 2^-9 ≈ 2e-3 of |h|, so rtol 1e-2, plus the
 *                       f32 atol 1e-5·M for the arithmetic.
 *   f16                 the same with an 11-bit significand: half an ulp is at most 2^-11 ≈
 *                       4.9e-4 of |h| (|h| stays far inside f16's range here), so rtol 2e-3.
 * A 16-bit scan goes in 16-byte vectors where C is a multiple of 8 (C >= 32) and the arrays are
 * 16-byte aligned (scan_vec.cuh), else a channel a thread: the cases take both.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/ctx.h"
#include "../core/rng.h"
#include "../core/tensor.h"
#include "../kernels/scan.h"
#include "check.h"
#include "gpu.h"

#ifdef LOGT_HAVE_CUDA
#include <cuda_runtime.h>

#define OK(call) cr_assert_eq((call), LOGT_OK, "%s", logt_errmsg())

typedef struct scan_case {
    int64_t T, C;
    logt_dtype dt;
    int reverse, with_h0, in_place;
    uint64_t seed;
    double alo, ahi;   /* gates uniform in [alo, ahi); b in [-1, 1), h0 in [-1, 1) */
    double atol_rel;   /* atol = atol_rel·max|ref| */
    int misalign;      /* a, b, h0, h start this many elements past an allocation's (aligned)
                        * start: 1 is not 4-byte aligned in 16 bits, 2 is 4- but not 16-byte */
} scan_case;

/* The 16-bit rtol of the file's header (f32: 1e-5). */
static double rtol_of(logt_dtype dt) { return dt == LOGT_BF16 ? 1e-2 : dt == LOGT_F16 ? 2e-3 : 1e-5; }

/* A copy of d k elements further into a fresh allocation (the pointer scan_cuda sees). */
static void *shifted(logt_tensor *keep, const logt_tensor *d, int k)
{
    size_t esz = logt_dtype_size(d->dtype);
    OK(logt_tensor_new1(keep, LOGT_CUDA, d->dtype, d->numel + k));
    char *p = (char *)keep->data + esz * (size_t)k;
    cr_assert_eq(cudaMemcpy(p, d->data, logt_tensor_bytes(d), cudaMemcpyDeviceToDevice), cudaSuccess);
    return p;
}

static double *alloc_f64(int64_t n)
{
    double *p = malloc(sizeof(double) * (size_t)n);
    cr_assert(p, "out of host memory for %lld doubles", (long long)n);
    return p;
}

/* Draw host values, put them on the device in c->dt and read the rounded values back. */
static void to_device(logt_tensor *d, double *host, int64_t n, logt_dtype dt, uint64_t seed,
                      uint64_t stream, double lo, double hi)
{
    logt_uniform_fill(seed, stream, host, n, lo, hi);
    OK(logt_tensor_new1(d, LOGT_CUDA, dt, n));
    OK(logt_tensor_from_f64(d, host));
    OK(logt_tensor_to_f64(d, host));
}

static void run_case(logt_ctx *ctx, const scan_case *c)
{
    if (!test_only_case()) return;
    int64_t T = c->T, C = c->C, n = T * C;
    double *a = alloc_f64(n), *b = alloc_f64(n), *got = alloc_f64(n), *ref = alloc_f64(n);
    double *h0 = alloc_f64(C);
    logt_tensor da, db, dh0, dh;
    to_device(&da, a, n, c->dt, c->seed, 1, c->alo, c->ahi);
    to_device(&db, b, n, c->dt, c->seed, 2, -1, 1);
    to_device(&dh0, h0, C, c->dt, c->seed, 3, -1, 1);
    if (c->in_place) dh = db;
    else OK(logt_tensor_new1(&dh, LOGT_CUDA, c->dt, n));
    if (!c->in_place) cr_assert_eq(cudaMemset(dh.data, 0xFF, logt_tensor_bytes(&dh)), cudaSuccess);
    cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);

    void *pa = da.data, *pb = db.data, *ph0 = dh0.data, *ph = dh.data;
    logt_tensor ma, mb, mh0, mh;   /* misaligned copies */
    if (c->misalign) {
        const int k = c->misalign;
        pa = shifted(&ma, &da, k), pb = shifted(&mb, &db, k), ph0 = shifted(&mh0, &dh0, k);
        ph = c->in_place ? pb : shifted(&mh, &dh, k);
    }
    OK(scan_cuda(ctx, c->reverse, T, C, c->dt, pa, pb, c->with_h0 ? ph0 : NULL, ph));
    OK(logt_ctx_sync(ctx));
    if (c->misalign)
        cr_assert_eq(cudaMemcpy(dh.data, ph, logt_tensor_bytes(&dh), cudaMemcpyDeviceToDevice), cudaSuccess);
    OK(logt_tensor_to_f64(&dh, got));
    const double *h0r = c->with_h0 ? h0 : NULL;
    OK(c->reverse ? scan_reverse_cpu(T, C, a, b, h0r, ref) : scan_cpu(T, C, a, b, h0r, ref));

    double big = 0;
    for (int64_t i = 0; i < n; i++) big = fmax(big, fabs(ref[i]));
    char what[96];
    snprintf(what, sizeof what, "T=%lld C=%lld %s %s%s%s%s s%llu %s", (long long)T,
             (long long)C, logt_dtype_name(c->dt), c->reverse ? "rev" : "fwd",
             c->with_h0 ? " h0" : "", c->in_place ? " in place" : "",
             c->misalign ? " misaligned" : "", (unsigned long long)c->seed, scan_cuda_route(T, C, c->dt));
    check_result r = check_close(what, got, ref, n, c->atol_rel * big, rtol_of(c->dt));
    cr_assert(r.ok, "%s", r.msg);

    logt_tensor_free(&da), logt_tensor_free(&db), logt_tensor_free(&dh0);
    if (!c->in_place) logt_tensor_free(&dh);
    if (c->misalign) {
        logt_tensor_free(&ma), logt_tensor_free(&mb), logt_tensor_free(&mh0);
        if (!c->in_place) logt_tensor_free(&mh);
    }
    free(a), free(b), free(got), free(ref), free(h0);
}

/* The grid T × C; at each shape the 8 variants (direction × h0 × seed) of dtype dt, or
 * fewer at the large shapes (about 8M elements' worth per shape) to keep the file fast. The
 * largest, T = 127323 × C = 1000, is left out: T = 127323 is covered with C ≤ 32. */
static void grid(logt_dtype dt)
{
    static const int64_t Ts[] = {1, 2, 31, 32, 33, 1000, 8000, 16323, 33753, 127323};
    static const int64_t Cs[] = {1, 3, 32, 1000};
    logt_ctx *ctx;
    OK(logt_ctx_create(LOGT_CUDA, &ctx));
    int shape = 0;
    for (size_t i = 0; i < sizeof Ts / sizeof Ts[0]; i++)
        for (size_t j = 0; j < sizeof Cs / sizeof Cs[0]; j++, shape++) {
            int64_t n = Ts[i] * Cs[j];
            if (n > 64 << 20) continue;
            int64_t k = (8 << 20) / n;
            int variants = k >= 8 ? 8 : k < 1 ? 1 : (int)k;
            for (int v = 0; v < variants; v++) {
                int m = (shape * 3 + v * 5) % 8;   /* v*5 mod 8 permutes: vary which are kept */
                scan_case c = {Ts[i], Cs[j], dt, m & 1, (m >> 1) & 1, 0, 1 + (uint64_t)(m >> 2),
                               0.5, 1.0, 1e-5, 0};
                run_case(ctx, &c);
            }
        }
    logt_ctx_destroy(ctx);
}
#endif

Test(scan_cuda, matches_cpu_f32, .timeout = 120)
{
    SKIP_WITHOUT_GPU("scan_cuda f32 vs scan_cpu");
#ifdef LOGT_HAVE_CUDA
    grid(LOGT_F32);
#endif
}

Test(scan_cuda, matches_cpu_bf16, .timeout = 120)
{
    SKIP_WITHOUT_GPU("scan_cuda bf16 vs scan_cpu");
#ifdef LOGT_HAVE_CUDA
    grid(LOGT_BF16);
#endif
}

Test(scan_cuda, matches_cpu_f16, .timeout = 120)
{
    SKIP_WITHOUT_GPU("scan_cuda f16 vs scan_cpu");
#ifdef LOGT_HAVE_CUDA
    grid(LOGT_F16);
#endif
}

/* a in [0.999, 1]: the state remembers ~1000 steps, so a wrong carry between chunks stays
 * visible downstream instead of decaying within a few steps. C = 3: many chunks per channel. */
Test(scan_cuda, gates_near_one_over_long_T, .timeout = 120)
{
    SKIP_WITHOUT_GPU("scan_cuda with gates near 1");
#ifdef LOGT_HAVE_CUDA
    logt_ctx *ctx;
    OK(logt_ctx_create(LOGT_CUDA, &ctx));
    cr_assert(!strncmp(scan_cuda_route(127323, 3, LOGT_F32), "lookback", 8), "%s",
              scan_cuda_route(127323, 3, LOGT_F32));
    for (int m = 0; m < 4; m++) {
        scan_case c = {127323, 3, LOGT_F32, m & 1, m >> 1, 0, 5, 0.999, 1.0, 1e-4, 0};
        run_case(ctx, &c);
    }
    logt_ctx_destroy(ctx);
#endif
}

/* Both routes, and the threshold between them crossed from both sides. */
Test(scan_cuda, routes_and_their_threshold, .timeout = 120)
{
    SKIP_WITHOUT_GPU("scan_cuda's two routes");
#ifdef LOGT_HAVE_CUDA
    logt_ctx *ctx;
    OK(logt_ctx_create(LOGT_CUDA, &ctx));
    int64_t thr = scan_cuda_channel_threshold();
    for (int d = 0; d < 3; d++) {
        const logt_dtype dt = d == 0 ? LOGT_F32 : d == 1 ? LOGT_BF16 : LOGT_F16;
        cr_assert(!strncmp(scan_cuda_route(64, 65536, dt), "channels", 8), "%s", scan_cuda_route(64, 65536, dt));
        cr_assert(!strncmp(scan_cuda_route(300, thr - 1, dt), "lookback", 8), "%s", scan_cuda_route(300, thr - 1, dt));
        /* an even C in 16 bits goes in pairs of channels (the vector channel route needs 8·thr),
         * an odd one a channel a thread */
        cr_assert_str_eq(scan_cuda_route(300, thr + 1, dt), "channels");
        cr_assert_str_eq(scan_cuda_route(300, thr, dt), d ? "channels-pair" : "channels");
    }
    /* and the look-back tilings: Cb = C with idle threads (100: 2 lanes of 100 in 256
     * threads; 255: one lane), a partial channel group (257 = 256 + 1), one channel with
     * 256 lanes over many tiles, T shorter than one tile */
    struct { int64_t T, C; } shapes[] = {{64, 65536}, {300, thr - 1}, {300, thr},
                                         {5000, 100}, {3001, 255}, {4099, 257},
                                         {300007, 1}, {7, 2000}};
    for (int i = 0; i < (int)(sizeof shapes / sizeof shapes[0]); i++)
        for (int m = 0; m < 4; m++) {
            scan_case c = {shapes[i].T, shapes[i].C, m & 2 ? LOGT_BF16 : LOGT_F32, m & 1, 1, 0,
                           7, 0.5, 1.0, 1e-5, 0};
            run_case(ctx, &c);
        }
    /* h = b, on both routes */
    scan_case inplace[] = {{1000, 3, LOGT_F32, 0, 1, 1, 8, 0.5, 1.0, 1e-5, 0},
                           {1000, 3, LOGT_BF16, 1, 1, 1, 8, 0.5, 1.0, 1e-5, 0},
                           {64, 65536, LOGT_F32, 1, 0, 1, 8, 0.5, 1.0, 1e-5, 0}};
    for (int i = 0; i < 3; i++) run_case(ctx, &inplace[i]);
    logt_ctx_destroy(ctx);
#endif
}

#ifdef LOGT_HAVE_CUDA
/* An odd T at which C channels of dtype dt take the staged tiles on this GPU, a channel or 8 a
 * thread (their threshold depends on its SM count, and 16-bit tiles are longer): 4097, doubled
 * plus one until the route says so (at most ~2x past it). */
static int64_t staged_T(int64_t C, logt_dtype dt)
{
    int64_t T = 4097;
    while (!strstr(scan_cuda_route(T, C, dt), "staged")) {
        cr_assert(!strncmp(scan_cuda_route(T, C, dt), "lookback", 8), "C = %lld: T = %lld: %s", (long long)C,
                  (long long)T, scan_cuda_route(T, C, dt));
        T = 2 * T + 1;
    }
    return T;
}
#endif

/* The staged tiles (half of a tile in shared memory; scan_lbs_stage) at the tilings the grid
 * does not stage: one channel (256 lanes), 3 and 100 channels (Cb = C, idle threads), 32
 * (bf16 in 16-byte vectors, also in place; with arrays 4-byte but not 16-byte aligned, two
 * channels a copy; not 4-byte aligned, where the copies fall back to plain loads) and 33 (a
 * one-channel last group: bf16 with C odd), at T from staged_T. */
Test(scan_cuda, staged_tiles, .timeout = 120)
{
    SKIP_WITHOUT_GPU("scan_cuda's staged tiles");
#ifdef LOGT_HAVE_CUDA
    logt_ctx *ctx;
    OK(logt_ctx_create(LOGT_CUDA, &ctx));
    static const int64_t Cs[] = {1, 3, 100, 32, 33};
    for (int i = 0; i < 5; i++) {
        const int64_t C = Cs[i], T = staged_T(C, LOGT_F32), Tb = staged_T(C, LOGT_BF16);
        for (int m = 0; m < 4; m++) {
            scan_case c = {m & 2 ? Tb : T, C, m & 2 ? LOGT_BF16 : LOGT_F32, m & 1, (m + i) & 1, 0,
                           11 + (uint64_t)i, 0.5, 1.0, 1e-5, 0};
            run_case(ctx, &c);
        }
        if (C == 32) {
            scan_case more[] = {{Tb, C, LOGT_BF16, 0, 1, 1, 12, 0.5, 1.0, 1e-5, 0},
                                {Tb, C, LOGT_BF16, 1, 0, 0, 13, 0.5, 1.0, 1e-5, 1},
                                {Tb, C, LOGT_BF16, 0, 1, 1, 14, 0.5, 1.0, 1e-5, 1},
                                {T, C, LOGT_F32, 1, 1, 1, 15, 0.999, 1.0, 1e-4, 0},
                                {Tb, C, LOGT_BF16, 1, 1, 0, 16, 0.999, 1.0, 1e-3, 0},
                                {Tb, C, LOGT_BF16, 0, 1, 0, 17, 0.5, 1.0, 1e-5, 2},
                                {Tb, C, LOGT_BF16, 1, 0, 1, 18, 0.5, 1.0, 1e-5, 2}};
            for (int k = 0; k < 7; k++) run_case(ctx, &more[k]);
        }
    }
    logt_ctx_destroy(ctx);
#endif
}

#ifdef LOGT_HAVE_CUDA
/* scan_cuda_f32_state on 16-bit arrays: h0 an f32 array, not rounded to dt on the way in. */
static void f32_state_case(logt_ctx *ctx, int64_t T, int64_t C, logt_dtype dt, int reverse, uint64_t seed)
{
    if (!test_only_case()) return;
    const int64_t n = T * C;
    double *a = alloc_f64(n), *b = alloc_f64(n), *got = alloc_f64(n), *ref = alloc_f64(n), *h0 = alloc_f64(C);
    logt_tensor da, db, dh0, dh;
    to_device(&da, a, n, dt, seed, 1, 0.5, 1.0);
    to_device(&db, b, n, dt, seed, 2, -1, 1);
    to_device(&dh0, h0, C, LOGT_F32, seed, 3, -1, 1);
    OK(logt_tensor_new1(&dh, LOGT_CUDA, dt, n));
    OK(scan_cuda_f32_state(ctx, reverse, T, C, dt, da.data, db.data, dh0.data, dh.data));
    OK(logt_ctx_sync(ctx));
    OK(logt_tensor_to_f64(&dh, got));
    OK(reverse ? scan_reverse_cpu(T, C, a, b, h0, ref) : scan_cpu(T, C, a, b, h0, ref));
    double big = 0;
    for (int64_t i = 0; i < n; i++) big = fmax(big, fabs(ref[i]));
    char what[80];
    snprintf(what, sizeof what, "f32 state T=%lld C=%lld %s %s %s", (long long)T, (long long)C,
             logt_dtype_name(dt), reverse ? "rev" : "fwd", scan_cuda_route(T, C, dt));
    check_result r = check_close(what, got, ref, n, 1e-5 * big, rtol_of(dt));
    cr_assert(r.ok, "%s", r.msg);
    logt_tensor_free(&da), logt_tensor_free(&db), logt_tensor_free(&dh0), logt_tensor_free(&dh);
    free(a), free(b), free(got), free(ref), free(h0);
}
#endif

/* The paired-step tiles (C = 32 in 16-bit vectors: a pair row of two steps a line, partner
 * threads swapping halves; scan_vec.cuh), bf16 and f16 against the float64 reference:
 * register-only tiles at T = 128 (the shortest), around one 512-step tile (511, 512, 513) and
 * odd T over several; staged tiles at odd and even T (a last pair row half past T); both
 * directions, with and without h0, in place, gates near 1, h0 in f32. The backward's reversed
 * scan, its gates a step later, at C = 32: backward_matches_cpu and _f16. */
Test(scan_cuda, two_step_tiles, .timeout = 120)
{
    SKIP_WITHOUT_GPU("scan_cuda's paired-step tiles");
#ifdef LOGT_HAVE_CUDA
    logt_ctx *ctx;
    OK(logt_ctx_create(LOGT_CUDA, &ctx));
    for (int d = 0; d < 2; d++) {
        const logt_dtype dt = d ? LOGT_F16 : LOGT_BF16;
        const int64_t Ts = staged_T(32, dt), Ts_even = Ts + 1;
        const int64_t Ts_list[] = {128, 511, 512, 513, 3001, Ts, Ts_even};
        for (int i = 0; i < 7; i++) {
            const int64_t T = Ts_list[i];
            const char *route = scan_cuda_route(T, 32, dt);
            cr_assert(strstr(route, "2step") && (strstr(route, "staged") != NULL) == (i >= 5),
                      "T = %lld, C = 32 %s: route %s", (long long)T, logt_dtype_name(dt), route);
            for (int m = 0; m < 4; m++) {
                scan_case c = {T, 32, dt, m & 1, (m >> 1) & 1, m == 3 && i % 2, 80 + (uint64_t)(8 * i + m), 0.5,
                               1.0, 1e-5, 0};
                run_case(ctx, &c);
            }
        }
        for (int v = 0; v < 2; v++) {   /* gates near 1 (atol 1e-3·M, as vectors_16bit's) */
            scan_case c = {v ? Ts_even : Ts, 32, dt, v, 1, 0, 140 + (uint64_t)v, 0.999, 1.0, 1e-3, 0};
            run_case(ctx, &c);
        }
        f32_state_case(ctx, Ts_even, 32, dt, 1, 150 + (uint64_t)d);
        f32_state_case(ctx, 513, 32, dt, 0, 152 + (uint64_t)d);
    }
    logt_ctx_destroy(ctx);
#endif
}

/* 16-bit arrays in 16-byte vectors (scan_vec.cuh) and beside them, bf16 and f16: C a multiple
 * of 8 from one 32-channel tile up, with a partial last tile (40, 264: 8 channels in it);
 * C off the vector rule (8 and 24, less than a tile; 36, not a multiple of 8); arrays 1, 2
 * and 8 elements into their allocation (8: 16 bytes, aligned again); T around a tile's 1024
 * steps and the channel route's 128; gates near 1 over staged tiles; the vector channel
 * route at 8·thr channels; pairs of channels from thr up to just below that, T = 21 (16 steps
 * of loads and 5 after) and 9 (fewer than 16), misaligned (2 bytes: a channel a thread) and 4-
 * but not 16-byte aligned; the vector look-back just below thr; h0 in f32 (scan_cuda_f32_state). */
Test(scan_cuda, vectors_16bit, .timeout = 120)
{
    SKIP_WITHOUT_GPU("scan_cuda's 16-bit vectors");
#ifdef LOGT_HAVE_CUDA
    logt_ctx *ctx;
    OK(logt_ctx_create(LOGT_CUDA, &ctx));
    const int64_t thr = scan_cuda_channel_threshold();
    static const int shifts[] = {0, 1, 2, 8};
    const struct { int64_t T, C; const char *route; } shapes[] = {
        {5000, 40, "lookback"},  {1023, 264, "lookback"}, {1025, 32, "lookback"}, {128, 48, "lookback"},
        {127, 48, "channels"},   {3001, 8, "lookback"},   {3001, 24, "lookback"}, {3001, 36, "lookback"},
        {37, 8 * thr, "channels-vec"}, {131, 8 * thr - 8, "channels-pair"}, {21, thr + 2, "channels-pair"},
        {9, thr + 2, "channels-pair"},
        {300, thr - 8, "lookback-staged-vec"}};
    for (int i = 0; i < (int)(sizeof shapes / sizeof shapes[0]); i++) {
        const int64_t T = shapes[i].T, C = shapes[i].C;
        const int pair = C >= thr && C < 8 * thr;
        const int vec = C % 8 == 0 && C >= 32 && (C >= 8 * thr || (T >= 128 && !pair)), big = T * C > (1 << 22);
        for (int d = 0; d < 2; d++) {
            const logt_dtype dt = d ? LOGT_F16 : LOGT_BF16;
            const char *route = scan_cuda_route(T, C, dt);
            cr_assert(!strncmp(route, shapes[i].route, strlen(shapes[i].route)) &&
                          vec == (strstr(route, "-vec") != NULL),
                      "T = %lld, C = %lld %s: route %s", (long long)T, (long long)C, logt_dtype_name(dt), route);
            for (int v = 0; v < 4; v += big ? 3 : 1) {   /* the large arrays: two cases, aligned */
                const int m = (i + v) % 4;
                scan_case c = {T, C, dt, v & 1, (v >> 1) & 1, m == 3, 50 + (uint64_t)(4 * i + v), 0.5, 1.0, 1e-5,
                               big ? 0 : shifts[m]};
                run_case(ctx, &c);
            }
        }
    }
    /* gates near 1 (f16 rounds [0.999, 1) to 0.9990, 0.9995 or 1: atol 1e-3·M, as bf16's) */
    const int64_t Th = staged_T(40, LOGT_F16);
    for (int v = 0; v < 2; v++) {
        scan_case c = {Th, 40, LOGT_F16, v, 1, 0, 70 + (uint64_t)v, 0.999, 1.0, 1e-3, 0};
        run_case(ctx, &c);
    }
    f32_state_case(ctx, staged_T(32, LOGT_F16), 32, LOGT_F16, 0, 71);
    f32_state_case(ctx, 3001, 40, LOGT_BF16, 1, 72);
    f32_state_case(ctx, 3001, 36, LOGT_F16, 0, 73);
    logt_ctx_destroy(ctx);
#endif
}

#ifdef LOGT_HAVE_CUDA
/* Every status word an INC of h = 1e30 stamped `tag`: what the call numbered tag would leave. */
static void stale_words(logt_ctx *ctx, uint32_t tag)
{
    const size_t n = (size_t)ctx->tagged.numel / 4;   /* 16-byte words */
    uint32_t *w = malloc(16 * n);
    cr_assert(w, "out of host memory");
    const float big = 1e30f;
    uint32_t bits;
    memcpy(&bits, &big, 4);
    for (size_t i = 0; i < n; i++) w[4 * i] = 2, w[4 * i + 1] = 0, w[4 * i + 2] = bits, w[4 * i + 3] = tag;
    cr_assert_eq(cudaMemcpy(ctx->tagged.data, w, 16 * n, cudaMemcpyHostToDevice), cudaSuccess);
    free(w);
}
#endif

/* The look-back's status words are not zeroed before a call (logt_ctx_tagged): a call reads
 * words stamped by another as EMPTY. Words left as the previous call would leave them, but
 * every one an INC of 1e30 (taken, it would wreck every carry), then calls across the wrap
 * of the call numbers (UINT32_MAX - 1, UINT32_MAX, then zeroed and 1, 2). */
Test(scan_cuda, status_words_of_other_calls_read_empty, .timeout = 120)
{
    SKIP_WITHOUT_GPU("scan_cuda's status words");
#ifdef LOGT_HAVE_CUDA
    logt_ctx *ctx;
    OK(logt_ctx_create(LOGT_CUDA, &ctx));
    const int64_t C = 32, T = staged_T(C, LOGT_F32), Tb = staged_T(C, LOGT_BF16);
    scan_case c = {T, C, LOGT_F32, 0, 1, 0, 21, 0.5, 1.0, 1e-5, 0};
    run_case(ctx, &c);   /* the words allocated */
    cr_assert(ctx->tag >= 1 && ctx->tagged.data, "tag %u", (unsigned)ctx->tag);
    stale_words(ctx, ctx->tag);
    c.reverse = 1, c.seed = 22;
    run_case(ctx, &c);
    stale_words(ctx, ctx->tag);
    scan_case cb = {Tb, C, LOGT_BF16, 0, 1, 0, 23, 0.5, 1.0, 1e-5, 0};
    run_case(ctx, &cb);
    ctx->tag = UINT32_MAX - 2;
    for (int k = 0; k < 4; k++) {
        stale_words(ctx, ctx->tag);
        c.reverse = k & 1, c.seed = 24 + (uint64_t)k;
        run_case(ctx, &c);
        cr_assert_eq(ctx->tag, k < 2 ? UINT32_MAX - 1 + (uint32_t)k : (uint32_t)k - 1, "call %d: tag %u", k,
                     (unsigned)ctx->tag);
    }
    logt_ctx_destroy(ctx);
#endif
}

#ifdef LOGT_HAVE_CUDA
/* T·C > 2^31 elements (f32: 3 × 8.6 GB). Every byte 0x3f makes every a and b
 * v = 12533567/2^24 (0x3f3f3f3f), so from zeros h at step s (of the walk) is
 * v·Σ_{k<=s} v^k; checked at rows around the 2^31st element and at the ends. */
static void beyond_2_to_31(logt_ctx *ctx, int64_t T, int64_t C, int reverse)
{
    int64_t n = T * C;
    cr_assert(n > (1ll << 31));
    logt_tensor a, h;
    logt_status s = logt_tensor_new1(&a, LOGT_CUDA, LOGT_F32, n);
    if (s == LOGT_ENOMEM) cr_skip_test("not enough GPU memory for 2^31 floats: %s", logt_errmsg());
    OK(s);
    s = logt_tensor_new1(&h, LOGT_CUDA, LOGT_F32, n);
    if (s == LOGT_ENOMEM) cr_skip_test("not enough GPU memory for 2 · 2^31 floats: %s", logt_errmsg());
    OK(s);
    cr_assert_eq(cudaMemset(a.data, 0x3f, (size_t)n * 4), cudaSuccess);
    cr_assert_eq(cudaMemset(h.data, 0xFF, (size_t)n * 4), cudaSuccess);
    cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
    OK(scan_cuda(ctx, reverse, T, C, LOGT_F32, a.data, a.data, NULL, h.data));   /* b = a */
    OK(logt_ctx_sync(ctx));
    const double v = 12533567.0 / 16777216.0;
    int64_t mid = (1ll << 31) / C;
    int64_t rows[] = {0, 1, mid - 1, mid, mid + 1, T - 2, T - 1};
    float *row = malloc(sizeof(float) * (size_t)C);
    for (int i = 0; i < 7; i++) {
        int64_t t = rows[i], steps = reverse ? T - 1 - t : t;   /* walk step of row t */
        double want = v * (1 - pow(v, (double)(steps + 1))) / (1 - v);
        cr_assert_eq(cudaMemcpy(row, (float *)h.data + t * C, sizeof(float) * (size_t)C,
                                cudaMemcpyDeviceToHost), cudaSuccess);
        for (int64_t c = 0; c < C; c++)
            cr_assert(fabs(row[c] - want) <= 1e-5 * want, "T=%lld C=%lld %s: h[%lld][%lld] = %.9g, want %.9g",
                      (long long)T, (long long)C, reverse ? "reversed" : "forward", (long long)t,
                      (long long)c, row[c], want);
    }
    free(row);
    logt_tensor_free(&a), logt_tensor_free(&h);
}
#endif

Test(scan_cuda, beyond_2_to_31_elements, .timeout = 120)
{
    SKIP_WITHOUT_GPU("scan_cuda past 2^31 elements");
#ifdef LOGT_HAVE_CUDA
    logt_ctx *ctx;
    OK(logt_ctx_create(LOGT_CUDA, &ctx));
    beyond_2_to_31(ctx, (1ll << 31) / 1000 + 100, 1000, 0);    /* look-back */
    beyond_2_to_31(ctx, (1ll << 31) / 1000 + 100, 1000, 1);
    beyond_2_to_31(ctx, (1ll << 31) / 65536 + 2, 65536, 1);   /* channel-parallel */
    logt_ctx_destroy(ctx);
#endif
}

Test(scan_cuda, bad_inputs_say_what_is_wrong)
{
    SKIP_WITHOUT_GPU("scan_cuda's argument errors");
#ifdef LOGT_HAVE_CUDA
    logt_ctx *ctx;
    OK(logt_ctx_create(LOGT_CUDA, &ctx));
    float x[4];
    logt_errclear();
    cr_assert_eq(scan_cuda(ctx, 0, 0, 2, LOGT_F32, x, x, NULL, x), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "scan_cuda: T = 0 steps: a scan needs at least one step (T >= 1)"),
              "%s", logt_errmsg());
    logt_errclear();
    cr_assert_eq(scan_cuda(ctx, 1, 2, 0, LOGT_BF16, x, x, NULL, x), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "scan_cuda: C = 0 channels"), "%s", logt_errmsg());
    logt_errclear();
    cr_assert_eq(scan_cuda(ctx, 0, 2, 2, LOGT_F64, x, x, NULL, x), LOGT_EUNSUPPORTED);
    cr_assert(strstr(logt_errmsg(), "scan_cuda: dtype f64: the CUDA scan takes f32, bf16 or f16"), "%s",
              logt_errmsg());
    logt_errclear();
    cr_assert_eq(scan_cuda_serial(ctx, 0, -1, 2, LOGT_F32, x, x, NULL, x), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "scan_cuda_serial: T = -1 steps"), "%s", logt_errmsg());
    logt_ctx_destroy(ctx);
#endif
}

/* The serial baselines of the bench give the same answers: one step at a time, and with 8
 * steps of loads ahead (T = 1000 leaves no partial group of 8; T = 1003 does). */
Test(scan_cuda, serial_baseline_matches_cpu)
{
    SKIP_WITHOUT_GPU("scan_cuda_serial vs scan_cpu");
#ifdef LOGT_HAVE_CUDA
    logt_ctx *ctx;
    OK(logt_ctx_create(LOGT_CUDA, &ctx));
    for (int u = 0; u < 3; u++) {
    const int64_t T = u == 2 ? 1003 : 1000, C = 33, n = T * C;
    double *a = alloc_f64(n), *b = alloc_f64(n), *got = alloc_f64(n), *ref = alloc_f64(n), h0[33];
    logt_tensor da, db, dh0, dh;
    to_device(&da, a, n, LOGT_F32, 9, 1, 0.5, 1.0);
    to_device(&db, b, n, LOGT_F32, 9, 2, -1, 1);
    to_device(&dh0, h0, C, LOGT_F32, 9, 3, -1, 1);
    OK(logt_tensor_new1(&dh, LOGT_CUDA, LOGT_F32, n));
    for (int reverse = 0; reverse < 2; reverse++) {
        cr_assert_eq(cudaMemset(dh.data, 0xFF, logt_tensor_bytes(&dh)), cudaSuccess);
        cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
        OK((u ? scan_cuda_serial_unrolled : scan_cuda_serial)(ctx, reverse, T, C, LOGT_F32, da.data,
                                                               db.data, dh0.data, dh.data));
        OK(logt_ctx_sync(ctx));
        OK(logt_tensor_to_f64(&dh, got));
        OK(reverse ? scan_reverse_cpu(T, C, a, b, h0, ref) : scan_cpu(T, C, a, b, h0, ref));
        double big = 0;
        for (int64_t i = 0; i < n; i++) big = fmax(big, fabs(ref[i]));
        char what[64];
        snprintf(what, sizeof what, "serial%s T=%lld %s", u ? " unrolled" : "", (long long)T,
                 reverse ? "reversed" : "forward");
        check_result r = check_close(what, got, ref, n, 1e-5 * big, 1e-5);
        cr_assert(r.ok, "%s", r.msg);
    }
    logt_tensor_free(&da), logt_tensor_free(&db), logt_tensor_free(&dh0), logt_tensor_free(&dh);
    free(a), free(b), free(got), free(ref);
    }
    logt_ctx_destroy(ctx);
#endif
}

#ifdef LOGT_HAVE_CUDA
/* scan_backward_cuda against scan_backward_cpu on the same (rounded) a, h0, h, dh: db, da
 * and dh0, with db written over dh (in place) half of the time. Tolerance: g is a reversed
 * scan like the forward (f32 atol 1e-5·M, rtol 1e-5, or 1e-4·M with gates near 1); da and
 * dh0 are one product more (rtol 2e-5); bf16 rounds g on the way out (rtol 1e-2) and da is
 * computed from that rounded g (rtol 2e-2); f16 likewise (2e-3, 4e-3). */
static void backward_case(logt_ctx *ctx, int64_t T, int64_t C, logt_dtype dt, int with_h0,
                          int in_place, uint64_t seed, double alo, int serial)
{
    if (!test_only_case()) return;
    int64_t n = T * C;
    double *a = alloc_f64(n), *h = alloc_f64(n), *dh = alloc_f64(n), *h0 = alloc_f64(C);
    double *ref_db = alloc_f64(n), *ref_da = alloc_f64(n), *ref_dh0 = alloc_f64(C);
    double *got = alloc_f64(n);
    logt_tensor d_a, d_h, d_dh, d_h0, d_da, d_db, d_dh0;
    to_device(&d_a, a, n, dt, seed, 1, alo, 1.0);
    to_device(&d_h, h, n, dt, seed, 2, -1, 1);   /* any h: the backward only reads it */
    to_device(&d_dh, dh, n, dt, seed, 3, -1, 1);
    to_device(&d_h0, h0, C, dt, seed, 4, -1, 1);
    OK(logt_tensor_new1(&d_da, LOGT_CUDA, dt, n));
    OK(logt_tensor_new1(&d_dh0, LOGT_CUDA, dt, C));
    if (in_place) d_db = d_dh;
    else OK(logt_tensor_new1(&d_db, LOGT_CUDA, dt, n));
    if (!in_place) cr_assert_eq(cudaMemset(d_db.data, 0xFF, logt_tensor_bytes(&d_db)), cudaSuccess);
    cr_assert_eq(cudaMemset(d_da.data, 0xFF, logt_tensor_bytes(&d_da)), cudaSuccess);
    cr_assert_eq(cudaMemset(d_dh0.data, 0xFF, logt_tensor_bytes(&d_dh0)), cudaSuccess);
    cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
    OK((serial ? scan_backward_cuda_serial : scan_backward_cuda)(
        ctx, T, C, dt, d_a.data, with_h0 ? d_h0.data : NULL, d_h.data, d_dh.data, d_da.data,
        d_db.data, d_dh0.data));
    OK(logt_ctx_sync(ctx));
    OK(scan_backward_cpu(T, C, a, with_h0 ? h0 : NULL, h, dh, ref_da, ref_db, ref_dh0));

    char what[96];
    const double gtol = alo > 0.9 ? 1e-4 : 1e-5, rtol = rtol_of(dt), rtol2 = dt == LOGT_F32 ? 2e-5 : 2 * rtol;
    snprintf(what, sizeof what, "backward%s T=%lld C=%lld %s%s%s db", serial ? " serial" : "",
             (long long)T, (long long)C, logt_dtype_name(dt), with_h0 ? " h0" : "",
             in_place ? " in place" : "");
    double big = 0;
    for (int64_t i = 0; i < n; i++) big = fmax(big, fabs(ref_db[i]));
    OK(logt_tensor_to_f64(&d_db, got));
    check_result r = check_close(what, got, ref_db, n, gtol * big, rtol);
    cr_assert(r.ok, "%s", r.msg);
    what[strlen(what) - 1] = 'a';   /* "... db" becomes "... da" */
    OK(logt_tensor_to_f64(&d_da, got));
    r = check_close(what, got, ref_da, n, gtol * big, rtol2);
    cr_assert(r.ok, "%s", r.msg);
    strcat(what, " dh0");
    OK(logt_tensor_to_f64(&d_dh0, got));
    r = check_close(what, got, ref_dh0, C, gtol * big, rtol2);
    cr_assert(r.ok, "%s", r.msg);

    logt_tensor_free(&d_a), logt_tensor_free(&d_h), logt_tensor_free(&d_h0);
    logt_tensor_free(&d_da), logt_tensor_free(&d_dh0), logt_tensor_free(&d_dh);
    if (!in_place) logt_tensor_free(&d_db);
    free(a), free(h), free(dh), free(h0), free(ref_db), free(ref_da), free(ref_dh0), free(got);
}
#endif

Test(scan_cuda, backward_matches_cpu, .timeout = 120)
{
    SKIP_WITHOUT_GPU("scan_backward_cuda vs scan_backward_cpu");
#ifdef LOGT_HAVE_CUDA
    logt_ctx *ctx;
    OK(logt_ctx_create(LOGT_CUDA, &ctx));
    struct { int64_t T, C; } shapes[] = {{1, 1}, {2, 3}, {33, 32}, {1000, 1000}, {16323, 3},
                                         {33753, 32}, {127323, 1}, {40, 40000}};
    for (int i = 0; i < (int)(sizeof shapes / sizeof shapes[0]); i++)
        for (int m = 0; m < 4; m++)
            backward_case(ctx, shapes[i].T, shapes[i].C, m & 2 ? LOGT_BF16 : LOGT_F32, m & 1,
                          (i + m) & 1, 11 + (uint64_t)i, 0.5, 0);
    backward_case(ctx, 127323, 3, LOGT_F32, 1, 0, 12, 0.999, 0);   /* gates near 1 */
    backward_case(ctx, 127323, 3, LOGT_F32, 0, 1, 13, 0.999, 0);
    /* staged tiles: the backward's reversed kernels with the gates read a step later */
    backward_case(ctx, staged_T(32, LOGT_F32), 32, LOGT_F32, 0, 1, 16, 0.5, 0);
    backward_case(ctx, staged_T(32, LOGT_BF16), 32, LOGT_BF16, 1, 0, 17, 0.5, 0);
    backward_case(ctx, staged_T(32, LOGT_BF16) + 1, 32, LOGT_BF16, 0, 1, 20, 0.5, 0);   /* T even */
    backward_case(ctx, 512, 32, LOGT_BF16, 1, 1, 21, 0.5, 0);
    backward_case(ctx, staged_T(1000, LOGT_F32), 1000, LOGT_F32, 1, 1, 18, 0.999, 0);
    backward_case(ctx, staged_T(1000, LOGT_BF16), 1000, LOGT_BF16, 0, 1, 19, 0.5, 0);
    /* the serial baseline's backward (Martin & Cundy's kernel, for models with scan = serial) */
    backward_case(ctx, 1000, 33, LOGT_F32, 1, 0, 14, 0.5, 1);
    backward_case(ctx, 3001, 3, LOGT_BF16, 0, 1, 15, 0.5, 1);
    logt_ctx_destroy(ctx);
#endif
}

/* f16's backward on the backward test's shapes and a partial vector tile (C = 40), the
 * staged tiles, and the serial form (the rest of the backward in vectors where C is a multiple
 * of 8). */
Test(scan_cuda, backward_matches_cpu_f16, .timeout = 120)
{
    SKIP_WITHOUT_GPU("scan_backward_cuda f16 vs scan_backward_cpu");
#ifdef LOGT_HAVE_CUDA
    logt_ctx *ctx;
    OK(logt_ctx_create(LOGT_CUDA, &ctx));
    struct { int64_t T, C; } shapes[] = {{1, 1},         {2, 3},     {33, 32},     {1000, 1000}, {16323, 3},
                                         {33753, 32},    {127323, 1}, {40, 40000}, {3001, 40}};
    for (int i = 0; i < (int)(sizeof shapes / sizeof shapes[0]); i++)
        for (int m = 0; m < 2; m++)
            backward_case(ctx, shapes[i].T, shapes[i].C, LOGT_F16, m, (i + m) & 1, 31 + (uint64_t)i, 0.5, 0);
    backward_case(ctx, staged_T(32, LOGT_F16), 32, LOGT_F16, 1, 0, 41, 0.5, 0);
    backward_case(ctx, staged_T(32, LOGT_F16) + 1, 32, LOGT_F16, 0, 1, 47, 0.5, 0);   /* T even */
    backward_case(ctx, staged_T(1000, LOGT_F16), 1000, LOGT_F16, 0, 1, 42, 0.5, 0);
    backward_case(ctx, 3001, 3, LOGT_F16, 0, 1, 43, 0.5, 1);
    backward_case(ctx, 1000, 40, LOGT_F16, 1, 0, 44, 0.5, 1);
    /* the pair route's backward, its gates a step later, whatever the GPU's threshold */
    backward_case(ctx, 19, scan_cuda_channel_threshold() + 2, LOGT_F16, 1, 1, 45, 0.5, 0);
    backward_case(ctx, 19, scan_cuda_channel_threshold() + 2, LOGT_BF16, 0, 0, 46, 0.5, 0);
    logt_ctx_destroy(ctx);
#endif
}

#ifdef LOGT_HAVE_CUDA
/* da may be a (scan.h): the gradient of the gates overwrites the gates, dh0 read first. */
Test(scan_cuda, backward_da_over_a, .timeout = 60)
{
    SKIP_WITHOUT_GPU("scan_backward_cuda with da = a");
    logt_ctx *ctx;
    OK(logt_ctx_create(LOGT_CUDA, &ctx));
    int64_t T = 2000, C = 40, n = T * C;
    double *a = alloc_f64(n), *h = alloc_f64(n), *dh = alloc_f64(n), *h0 = alloc_f64(C);
    double *ra = alloc_f64(n), *rb = alloc_f64(n), *rh0 = alloc_f64(C), *got = alloc_f64(n);
    logt_tensor d_a, d_h, d_dh, d_h0, d_db, d_dh0;
    to_device(&d_a, a, n, LOGT_F32, 21, 1, 0.5, 1.0);
    to_device(&d_h, h, n, LOGT_F32, 21, 2, -1, 1);
    to_device(&d_dh, dh, n, LOGT_F32, 21, 3, -1, 1);
    to_device(&d_h0, h0, C, LOGT_F32, 21, 4, -1, 1);
    OK(logt_tensor_new1(&d_db, LOGT_CUDA, LOGT_F32, n));
    OK(logt_tensor_new1(&d_dh0, LOGT_CUDA, LOGT_F32, C));
    OK(scan_backward_cuda(ctx, T, C, LOGT_F32, d_a.data, d_h0.data, d_h.data, d_dh.data,
                          d_a.data, d_db.data, d_dh0.data));
    OK(logt_ctx_sync(ctx));
    OK(scan_backward_cpu(T, C, a, h0, h, dh, ra, rb, rh0));
    double big = 0;
    for (int64_t i = 0; i < n; i++) big = fmax(big, fabs(rb[i]));
    OK(logt_tensor_to_f64(&d_a, got));
    check_result r = check_close("da written over a", got, ra, n, 1e-5 * big, 2e-5);
    cr_assert(r.ok, "%s", r.msg);
    OK(logt_tensor_to_f64(&d_dh0, got));
    r = check_close("dh0 with da over a", got, rh0, C, 1e-5 * big, 2e-5);
    cr_assert(r.ok, "%s", r.msg);
    logt_tensor_free(&d_a), logt_tensor_free(&d_h), logt_tensor_free(&d_dh);
    logt_tensor_free(&d_h0), logt_tensor_free(&d_db), logt_tensor_free(&d_dh0);
    free(a), free(h), free(dh), free(h0), free(ra), free(rb), free(rh0), free(got);
    logt_ctx_destroy(ctx);
}

/* A scan without a cuda context or without its arrays is an error that says so, before any
 * device work: runs without a GPU. */
Test(scan_cuda, needs_a_cuda_context_and_its_arrays)
{
    logt_ctx *cpu;
    OK(logt_ctx_create(LOGT_CPU, &cpu));
    float x[4];
    logt_errclear();
    cr_assert_eq(scan_cuda(cpu, 0, 4, 1, LOGT_F32, x, x, NULL, x), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "scan_cuda runs on a cuda context, not cpu"), "%s",
              logt_errmsg());
    logt_errclear();
    cr_assert_eq(scan_cuda(NULL, 0, 4, 1, LOGT_F32, x, x, NULL, x), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "not NULL"), "%s", logt_errmsg());
    logt_ctx_destroy(cpu);
    if (!logt_backend_available(LOGT_CUDA)) return;
    logt_ctx *ctx;
    OK(logt_ctx_create(LOGT_CUDA, &ctx));
    logt_errclear();
    cr_assert_eq(scan_cuda(ctx, 0, 4, 1, LOGT_F32, x, NULL, NULL, x), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "a, b and h must be device arrays"), "%s", logt_errmsg());
    logt_errclear();
    cr_assert_eq(scan_backward_cuda(ctx, 4, 1, LOGT_F32, x, NULL, NULL, x, x, x, NULL), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "da needs the forward's output h"), "%s", logt_errmsg());
    logt_ctx_destroy(ctx);
}
#endif
