/* kernels/dev/scan_vec.cu — workbench for the 16-bit scan's routes (kernels/scan_vec.cuh) in
 * bf16: the vector look-back tile and the pair channel route as the library launches them, and
 * variants of each, timed against a device-to-device copy of one [T][C] array in the same run.
 *
 *   make dev && build/bin/scan-vec-dev            every variant
 *   build/bin/scan-vec-dev vec-rev vec-rev-t       some variants (by name)
 *   build/bin/scan-vec-dev -s 2 vec-fwd            on one shape only (0-3, the list below)
 *
 * Variants (each group's check reference first):
 *   vec-fwd, vec-rev     staged vector tiles of 32 channels (8 + 8 steps a thread, 1024-step
 *                        tiles), forward (direction a template argument) and reversed (an
 *                        argument, REV = -1), no prefetch hint
 *   vec-rev-t            reversed with the direction a template argument (REV = 1)
 *   vec-fwd-a            forward with the direction an argument (REV = -1)
 *   vec-{fwd,rev}-pfN    loads with an L2 prefetch hint of N = 64, 128, 256 bytes (scan_ldw):
 *                        a vector tile's rows are 32 channels, 64 bytes, half a 128-byte line
 *   vec-rev-t-pfN        both
 *   2step-{fwd,rev}      C = 32 only: the paired-step tile (scan_plbs_kernel), each warp load
 *                        whole lines of two steps, partners swapping halves to walk 4 channels
 *   vec64-...            tiles of 64 channels (CB = 64): rows of 128 bytes, 512 steps a tile
 *   pair-{fwd,rev}-uU-bB[-pfN]  the pair channel route (2 channels a thread), U steps' loads in
 *                        flight, blocks of B threads
 * The library (kernels/scan.cu) takes vec64-fwd and vec64-rev where C >= 64, 2step-fwd and
 * 2step-rev at C = 32, vec-fwd-pf128 and vec-rev-t-pf128 between, and pair-*-u32-b128 on the pair
 * route.
 * Shapes: the vector tiles at experiments/scan-bandwidth's four (C, T); the pair route at its
 * two C = 65536 shapes, where the library takes it.
 *
 * Check: every variant's h against the h of its group's reference (the first variant of its route
 * and direction) on the same inputs: the pair route's bit for bit (a channel's steps in one
 * thread, in order); the look-back tiles' within bf16's rounding (a tile's carry is composed
 * along whichever path its look-back finds, so its last bits vary from call to call, and the
 * 64-channel tiles have other boundaries). The library's routes are held to the float64 reference
 * by tests/test_scan_cuda.c. Timing: median of 20 calls after 3 warm-ups, each call followed by
 * the copy, timed the same way (as experiments/scan-bandwidth does); % of copy =
 * (3·T·C·2 / kernel time) / (2·T·C·2 / copy time).
 */
#define WORKBENCH "scan-vec-dev"
#include <cuda_bf16.h>
#include <string.h>

#include "../scan_vec.cuh"
#include "workbench.cuh"

typedef __nv_bfloat16 E;

typedef struct bench {
    int64_t T, C;
    E *a, *b, *h, *ref;
    char *ws;   /* 16 bytes of counter, then the status words */
    size_t ws_bytes;
    unsigned tag;
} bench;

/* ---- the variants -------------------------------------------------------------------------- */

template <int REV, int PF, int CB = 32> static void vec_run(bench *w, int reverse)
{
    constexpr int VS = 8, VR = 8;
    const int64_t G = (w->C + CB - 1) / CB, L = (int64_t)scan_vec_tile<CB>::vlanes * (VS + VR), K = (w->T + L - 1) / L,
                  n = G * K;
    if (16 + (size_t)n * CB * 16 > w->ws_bytes) DIE("status words: %zu bytes, %zu held", 16 + (size_t)n * CB * 16, w->ws_bytes);
    const scan_lb2_status st = {(unsigned long long *)w->ws, (void *)(w->ws + 16), ++w->tag};
    const int smem = SCAN_LB_THREADS * VS * 2 * (int)sizeof(uint4);
    void (*k)(int64_t, int64_t, int, int64_t, const E *, const E *, const E *, E *, scan_lb2_status) =
        scan_vlbs_kernel<VS, VR, 0, E, E, REV, PF, CB>;
    CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    k<<<(unsigned)n, SCAN_LB_THREADS, smem>>>(w->T, w->C, reverse, G, w->a, w->b, NULL, w->h, st);
}

/* The paired-step tile (scan_plbs_kernel), C = 32 only. */
template <int REV> static void twostep_run(bench *w, int)
{
    constexpr int VS = 8, VR = 8;
    const int64_t L = 2 * SCAN_PSTEP_VLANES * (VS + VR), n = (w->T + L - 1) / L;
    if (w->C != 32) DIE("2step: C = 32 only");
    if (16 + (size_t)n * 32 * 16 > w->ws_bytes) DIE("status words: %zu bytes, %zu held", 16 + (size_t)n * 32 * 16, w->ws_bytes);
    const scan_lb2_status st = {(unsigned long long *)w->ws, (void *)(w->ws + 16), ++w->tag};
    const int smem = SCAN_LB_THREADS * VS * 2 * (int)sizeof(uint4);
    void (*k)(int64_t, const E *, const E *, const E *, E *, scan_lb2_status) = scan_plbs_kernel<VS, VR, 0, E, E, REV>;
    CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    k<<<(unsigned)n, SCAN_LB_THREADS, smem>>>(w->T, w->a, w->b, NULL, w->h, st);
}

template <int U, int B, int PF> static void pair_run(bench *w, int reverse)
{
    const int64_t threads = w->C / 2;
    scan_wchannels_kernel<2, U, 0, E, E, PF><<<(unsigned)((threads + B - 1) / B), B>>>(w->T, w->C, reverse, w->a,
                                                                                       w->b, NULL, w->h);
}

typedef struct variant {
    const char *name;
    int pair;      /* the pair route's shapes (C = 65536) only */
    int reverse;
    int lib;       /* the check reference of its route and direction: the others are checked against it */
    int exact;     /* bit for bit (the pair route); else within bf16's rounding (the look-back tiles) */
    void (*run)(bench *, int);
    int c32;       /* the C = 32 shape only */
} variant;

static const variant variants[] = {
    {"vec-fwd", 0, 0, 1, 0, vec_run<0, 0>, 0},
    {"vec-fwd-a", 0, 0, 0, 0, vec_run<-1, 0>, 0},
    {"vec64-fwd", 0, 0, 0, 0, vec_run<0, 0, 64>, 0},
    {"vec64-fwd-pf128", 0, 0, 0, 0, vec_run<0, 128, 64>, 0},
    {"vec-fwd-pf64", 0, 0, 0, 0, vec_run<0, 64>, 0},
    {"vec-fwd-pf128", 0, 0, 0, 0, vec_run<0, 128>, 0},
    {"vec-fwd-pf256", 0, 0, 0, 0, vec_run<0, 256>, 0},
    {"vec-rev", 0, 1, 1, 0, vec_run<-1, 0>, 0},
    {"vec64-rev", 0, 1, 0, 0, vec_run<-1, 0, 64>, 0},
    {"vec64-rev-t", 0, 1, 0, 0, vec_run<1, 0, 64>, 0},
    {"vec64-rev-pf128", 0, 1, 0, 0, vec_run<-1, 128, 64>, 0},
    {"vec-rev-t", 0, 1, 0, 0, vec_run<1, 0>, 0},
    {"vec-rev-pf64", 0, 1, 0, 0, vec_run<-1, 64>, 0},
    {"vec-rev-pf128", 0, 1, 0, 0, vec_run<-1, 128>, 0},
    {"vec-rev-pf256", 0, 1, 0, 0, vec_run<-1, 256>, 0},
    {"vec-rev-t-pf128", 0, 1, 0, 0, vec_run<1, 128>, 0},
    {"vec-rev-t-pf256", 0, 1, 0, 0, vec_run<1, 256>, 0},
    {"2step-fwd", 0, 0, 0, 0, twostep_run<0>, 1},
    {"2step-rev", 0, 1, 0, 0, twostep_run<1>, 1},
    {"pair-fwd-u16-b256", 1, 0, 1, 1, pair_run<16, 256, 0>, 0},
    {"pair-fwd-u16-b128", 1, 0, 0, 1, pair_run<16, 128, 0>, 0},
    {"pair-fwd-u16-b64", 1, 0, 0, 1, pair_run<16, 64, 0>, 0},
    {"pair-fwd-u32-b128", 1, 0, 0, 1, pair_run<32, 128, 0>, 0},
    {"pair-fwd-u32-b64", 1, 0, 0, 1, pair_run<32, 64, 0>, 0},
    {"pair-fwd-u16-b128-pf256", 1, 0, 0, 1, pair_run<16, 128, 256>, 0},
    {"pair-rev-u16-b256", 1, 1, 1, 1, pair_run<16, 256, 0>, 0},
    {"pair-rev-u16-b128", 1, 1, 0, 1, pair_run<16, 128, 0>, 0},
    {"pair-rev-u32-b128", 1, 1, 0, 1, pair_run<32, 128, 0>, 0},
};
#define NVARIANTS (int)(sizeof variants / sizeof variants[0])

/* ---- inputs, check, timing ----------------------------------------------------------------- */

/* a in [0.5, 1), b in [-1, 1), from a hash of the element's index */
__global__ void fill_kernel(int64_t n, E *a, E *b)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        a[i] = __float2bfloat16(0.5f + 0.5f * hash_unit(1, (uint64_t)i)),
        b[i] = __float2bfloat16(2.0f * hash_unit(2, (uint64_t)i) - 1.0f);
}

static void setup(bench *w, int64_t T, int64_t C)
{
    const size_t n = (size_t)(T * C);
    w->T = T, w->C = C, w->tag = 0;
    CK(cudaMalloc(&w->a, n * 2)); CK(cudaMalloc(&w->b, n * 2));
    CK(cudaMalloc(&w->h, n * 2)); CK(cudaMalloc(&w->ref, n * 2));
    w->ws_bytes = 16 + n / 8 + (1 << 20);   /* status words: n / 64 bytes in 32-channel tiles, n / 32 in 64-channel ones, 2T at C = 32 */
    CK(cudaMalloc(&w->ws, w->ws_bytes));
    CK(cudaMemset(w->ws, 0, w->ws_bytes));
    fill_kernel<<<1024, 256>>>((int64_t)n, w->a, w->b);
    CK(cudaGetLastError());
}

static void teardown(bench *w)
{
    CK(cudaFree(w->a)); CK(cudaFree(w->b)); CK(cudaFree(w->h)); CK(cudaFree(w->ref)); CK(cudaFree(w->ws));
}

/* max |ref| into *big (as the bits of a non-negative float, which order as integers) */
__global__ void maxabs_kernel(int64_t n, const E *ref, unsigned *big)
{
    float m = 0;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        m = fmaxf(m, fabsf(__bfloat162float(ref[i])));
    atomicMax(big, __float_as_uint(m));
}

/* The first element of x that differs from ref (exact) or is off by more than bf16's rounding,
 * 2^-7 |ref| + 1e-4 max |ref|, into *first (atomicMin; left at n where none is). */
__global__ void differs_kernel(int64_t n, int exact, const E *x, const E *ref, const unsigned *big,
                               unsigned long long *first)
{
    const float tol = 1e-4f * __uint_as_float(*big);
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        const float u = __bfloat162float(x[i]), v = __bfloat162float(ref[i]);
        const bool bad = exact ? __bfloat16_as_ushort(x[i]) != __bfloat16_as_ushort(ref[i])
                               : !(fabsf(u - v) <= 0x1p-7f * fabsf(v) + tol);
        if (bad) atomicMin(first, (unsigned long long)i);
    }
}

/* The variant's h against ref (which holds the library variant's h): the first element that
 * differs (exact) or lies outside bf16's rounding of it (a wrong carry is off by about |h|),
 * or -1. */
static int64_t differs(const bench *w, int exact)
{
    const int64_t n = w->T * w->C;
    unsigned *big;
    unsigned long long *first, at = (unsigned long long)n;
    CK(cudaMalloc(&big, 4));
    CK(cudaMalloc(&first, 8));
    CK(cudaMemset(big, 0, 4));
    CK(cudaMemcpy(first, &at, 8, cudaMemcpyHostToDevice));
    maxabs_kernel<<<1024, 256>>>(n, w->ref, big);
    differs_kernel<<<1024, 256>>>(n, exact, w->h, w->ref, big, first);
    CK(cudaGetLastError());
    CK(cudaMemcpy(&at, first, 8, cudaMemcpyDeviceToHost));
    CK(cudaFree(big));
    CK(cudaFree(first));
    return at < (unsigned long long)n ? (int64_t)at : -1;
}

/* Median ms of the variant and of the copy (h <- b) that follows each of its calls. */
static void time_ms(const variant *v, bench *w, double *kernel_ms, double *copy_ms)
{
    cudaEvent_t e0, e1, e2;
    CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1)); CK(cudaEventCreate(&e2));
    double k[20], c[20];
    const size_t bytes = (size_t)(w->T * w->C) * 2;
    for (int r = -3; r < 20; r++) {
        CK(cudaEventRecord(e0));
        v->run(w, v->reverse);
        CK(cudaEventRecord(e1));
        CK(cudaMemcpyAsync(w->h, w->b, bytes, cudaMemcpyDeviceToDevice));
        CK(cudaEventRecord(e2));
        CK(cudaEventSynchronize(e2));
        CK(cudaGetLastError());
        float x, y;
        CK(cudaEventElapsedTime(&x, e0, e1)); CK(cudaEventElapsedTime(&y, e1, e2));
        if (r >= 0) k[r] = x, c[r] = y;
    }
    CK(cudaEventDestroy(e0)); CK(cudaEventDestroy(e1)); CK(cudaEventDestroy(e2));
    *kernel_ms = median(k, 20), *copy_ms = median(c, 20);
}

int main(int argc, char **argv)
{
    static char want[NVARIANTS];
    int only = -1, named = 0;   /* only: one shape */
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-s") && i + 1 < argc) {
            only = atoi(argv[++i]);
            if (only < 0 || only > 3) DIE("-s %s: the shapes are 0-3", argv[i]);
            continue;
        }
        named = 1;
        int found = 0;
        for (int v = 0; v < NVARIANTS; v++)
            if (!strcmp(argv[i], variants[v].name)) want[v] = 1, found = 1;
        if (!found) {
            fprintf(stderr, WORKBENCH ": unknown variant %s; the variants:", argv[i]);
            for (int v = 0; v < NVARIANTS; v++) fprintf(stderr, " %s", variants[v].name);
            fputc('\n', stderr);
            return 1;
        }
    }
    if (!named) memset(want, 1, sizeof want);
    workbench_start(1);
    static const int64_t shapes[][2] = {{65536, 1024}, {65536, 16384}, {1024, 1048576}, {32, 4194304}};   /* C, T */
    int bad = 0;
    printf("%-24s %7s %9s %9s %9s %9s %7s  %s\n", "variant", "C", "T", "ms", "copy ms", "GB/s", "%copy", "check");
    for (int s = 0; s < 4; s++) {
        if (only >= 0 && s != only) continue;
        bench w;
        setup(&w, shapes[s][1], shapes[s][0]);
        for (int dir = 0; dir < 2; dir++)
            for (int pair = 0; pair < 2; pair++) {
                if (pair && w.C != 65536) continue;
                const variant *lib = NULL;   /* the check reference of this route and direction */
                for (int v = 0; v < NVARIANTS; v++)
                    if (variants[v].lib && variants[v].pair == pair && variants[v].reverse == dir) lib = &variants[v];
                int any = 0;
                for (int v = 0; v < NVARIANTS; v++)
                    any |= want[v] && variants[v].pair == pair && variants[v].reverse == dir &&
                           (!variants[v].c32 || w.C == 32);
                if (!any) continue;
                CK(cudaMemset(w.ref, 0xff, (size_t)(w.T * w.C) * 2));
                E *h = w.h;
                w.h = w.ref, lib->run(&w, dir), w.h = h;
                CK(cudaDeviceSynchronize());
                for (int v = 0; v < NVARIANTS; v++) {
                    const variant *x = &variants[v];
                    if (!want[v] || x->pair != pair || x->reverse != dir || (x->c32 && w.C != 32)) continue;
                    CK(cudaMemset(w.h, 0xff, (size_t)(w.T * w.C) * 2));
                    x->run(&w, dir);
                    CK(cudaDeviceSynchronize());
                    const int64_t at = differs(&w, x->exact);
                    bad |= at >= 0;
                    double ms, copy;
                    time_ms(x, &w, &ms, &copy);
                    const double bytes = (double)w.T * w.C * 2, gbps = 3 * bytes / ms * 1e-6;
                    char check[64];
                    if (at < 0) snprintf(check, sizeof check, "%s %s", x->exact ? "=" : "~", lib->name);
                    else snprintf(check, sizeof check, "DIFFERS at element %lld", (long long)at);
                    printf("%-24s %7lld %9lld %9.4f %9.4f %9.1f %6.1f%%  %s\n", x->name, (long long)w.C,
                           (long long)w.T, ms, copy, gbps, 100 * gbps / (2 * bytes / copy * 1e-6), check);
                    fflush(stdout);
                }
            }
        teardown(&w);
    }
    return bad;
}
