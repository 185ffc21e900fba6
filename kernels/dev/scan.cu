/* kernels/dev/scan.cu — workbench for the linear scan h_t = a_t ⊙ h_{t-1} + b_t over [T][C]
 * (forward, f32, from h0 = 0): every version validated against a CPU reference, then timed.
 *
 *   make dev && build/bin/scan-dev            all versions, validation then timing
 *   build/bin/scan-dev 42 56                   some versions
 *   build/bin/scan-dev timeline                where a staged tile's time goes (scan_lbs_probe_kernel)
 *
 * Versions keep the numbers they were first given; what each kept one showed, and the versions
 * that lost and were removed (their code is in git history), are in
 * experiments/scan-bandwidth/README.md, "Design notes".
 *   1   serial: one thread per channel, one step at a time (Martin & Cundy's baseline; the
 *       library's scan_cuda_serial)
 *   2   channel-parallel: one thread per channel, 8 steps' loads in flight (the library's route
 *       where C alone fills the GPU)
 *   3   three-pass reduce-then-scan, as Martin & Cundy did it: chunks of T reduced to maps, the
 *       maps scanned (Hillis–Steele in a block per channel), the chunks walked again from their
 *       carries: a and b read twice, 5·T·C·4 bytes
 *   13  single pass with decoupled look-back, the tile in registers only (32 steps a thread),
 *       status and map in one 16-byte word per (tile, channel), a round's pieces combined by
 *       the channel's lane-0 thread (scan_lookback2_kernel)
 *   The library's staged tile (scan_lbs_kernel of ../scan_kernels.cuh: a thread's first VS
 *   steps in shared memory, its last VR in registers, 512-step tiles) at other settings:
 *   34  tile ids from a counter, a round that meets an EMPTY word polled again whole, the
 *       direction an argument
 *   40  34 with blockIdx tile ids
 *   42  40 with partial rounds (what came before an EMPTY word is kept): the library's
 *       reversed kernel, run forward
 *   48  42 with 8-byte status words (A and B; the status in NaN patterns of A)
 *   56  42 with the direction a template argument: the library's forward f32 kernel
 *   64  56 at three blocks an SM (VR = 16)
 *   66  56 with 16-channel tiles (two chains of tiles at C = 32)
 *   70-72 56's tile with the look-back replaced by a wait of 0, 2.5 and 5 µs and no carries (a
 *       wrong result, timed only): what a tile's waiting costs without the chain
 *   87  56 with h written through shared memory in 16-byte pieces of whole rows (VST, which
 *       the library's bf16 tiles use)
 * The channel-parallel versions run at block sizes 64..1024; the look-back versions fix the
 * block at SCAN_LB_THREADS and vary the tile instead.
 *
 * Bound: 3·T·C·4 bytes (a, b read, h written) over the copy bandwidth measured in the same
 * run (cudaMemcpy device to device, 2·T·C·4 bytes). Flops: one FMA per element, nothing.
 * The output: per version and shape, median ms of 20 calls after 3 warm-ups, GB/s, % of copy.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../scan_kernels.cuh"

#define cudaCheck(err) cuda_check((err), __FILE__, __LINE__)
static void cuda_check(cudaError_t e, const char *file, int line)
{
    if (e == cudaSuccess) return;
    fprintf(stderr, "[CUDA ERROR] at %s:%d: %s\nHINT: is a GPU visible (nvidia-smi)?\n", file,
            line, cudaGetErrorString(e));
    exit(1);
}

/* ---- CPU reference ------------------------------------------------------------------------ */

static void scan_forward_cpu(int64_t T, int64_t C, const float *a, const float *b, double *h)
{
    for (int64_t c = 0; c < C; c++) {
        double x = 0;
        for (int64_t t = 0; t < T; t++) h[t * C + c] = x = (double)a[t * C + c] * x + b[t * C + c];
    }
}

/* ---- version 3: three passes -------------------------------------------------------------- */

/* Pass 1 (and 3 when WRITE): thread i = (chunk p, channel c) walks the steps of its chunk. */
template <bool WRITE>
__global__ void scan_chunk_walk_kernel3(int64_t T, int64_t C, int64_t L, int64_t P, const float *a,
                                        const float *b, float *A, float *Bc, float *h)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= P * C) return;
    int64_t p = i / C, c = i - p * C, s1 = min(T, (p + 1) * L);
    float x = WRITE ? Bc[i] : 0.0f, prod = 1.0f;
    for (int64_t t = p * L; t < s1; t++) {
        float at = a[t * C + c];
        x = fmaf(at, x, b[t * C + c]);
        if (WRITE) h[t * C + c] = x;
        else prod *= at;
    }
    if (!WRITE) A[i] = prod, Bc[i] = x;   /* chunk p maps carry-in y to prod·y + x */
}

/* Pass 2: a block per channel scans its P maps in place, leaving each chunk's carry-in. */
__global__ void scan_chunk_carry_kernel3(int64_t P, int64_t C, const float *A, float *Bc)
{
    __shared__ float sa[256], sb[256];
    int64_t c = blockIdx.x;
    int tid = threadIdx.x;
    int64_t run = (P + 255) / 256, p0 = tid * run, p1 = min(P, p0 + run);
    float ga = 1.0f, gb = 0.0f;
    for (int64_t p = p0; p < p1; p++) gb = fmaf(A[p * C + c], gb, Bc[p * C + c]), ga *= A[p * C + c];
    sa[tid] = ga, sb[tid] = gb;
    __syncthreads();
    for (int off = 1; off < 256; off *= 2) {
        float pa = 1.0f, pb = 0.0f;
        if (tid >= off) pa = sa[tid - off], pb = sb[tid - off];
        __syncthreads();
        gb = fmaf(ga, pb, gb), ga *= pa;
        sa[tid] = ga, sb[tid] = gb;
        __syncthreads();
    }
    float x = tid ? sb[tid - 1] : 0.0f;   /* h0 = 0 */
    for (int64_t p = p0; p < p1; p++) {
        float qa = A[p * C + c], qb = Bc[p * C + c];
        Bc[p * C + c] = x;
        x = fmaf(qa, x, qb);
    }
}

/* ---- version 13: the tile in registers only, V steps a thread ----------------------------- */

/* Phase 1 from the thread's V steps in registers: their map, then scan_lb2_lanes. */
template <int V, bool W8 = false, typename S = scan_cta>
__device__ __forceinline__ void scan_lb2_aggregate(int Cb, int lanes, int64_t tile, int64_t G,
                                                   const float (&av)[V], const float (&bv)[V],
                                                   const scan_lb2_status &st, scan_lb2_smem &sm,
                                                   float &A, float &B)
{
    A = 1.0f, B = 0.0f;
#pragma unroll
    for (int v = 0; v < V; v++) B = fmaf(av[v], B, bv[v]), A *= av[v];
    scan_lb2_lanes<W8, S>(Cb, lanes, tile, G, true, st, sm, A, B);
    S::sync();   /* the lanes' maps, for every thread (the library's callers meet later) */
}

/* Phase 3: publish the tile's inclusive value, rescan the thread's steps from the carry and
 * write h. (A, B) is the thread's inclusive map from phase 1. */
template <int V, bool W8 = false, typename E, typename S = scan_cta>
__device__ __forceinline__ void scan_lb2_finish(int64_t T, int64_t C, int reverse, int Cb, int lanes,
                                                int64_t G, int64_t tile, const float (&av)[V],
                                                const float (&bv)[V], float A, float B, E *h,
                                                const scan_lb2_status &st, const scan_lb2_smem &sm)
{
    const int tid = S::tid(), lane = tid / Cb, cl = tid % Cb;
    const int64_t g = tile % G, k = tile / G, c = g * Cb + cl;
    const float x0 = sm.carry[cl];
    if (lane == lanes - 1) scan_lbw<W8>::publish(st.word, tile * Cb + cl, SCAN_INC, 0.0f, fmaf(A, x0, B), st.tag);
    if (lane >= lanes || c >= C) return;
    const int64_t s0 = (k * lanes + lane) * V;
    float x = x0;
    if (lane > 0) x = fmaf(sm.sA[tid - Cb], x, sm.sB[tid - Cb]);   /* the lanes before this one */
    scan_rescan<V>(T, C, reverse, s0, c, x, av, bv, h);
}

/* Version 13's kernel: one tile per block, loaded straight into registers, the three phases in a row. */
template <int V, int GOFF, typename E, typename H = E, int Q = SCAN_LB2_Q, bool W8 = false>
__global__ void __launch_bounds__(SCAN_LB_THREADS, 2)
scan_lookback2_kernel(int64_t T, int64_t C, int reverse, int Cb, int lanes, int64_t G,
                      const E *a, const E *b, const typename scan_h0<H>::type *h0, E *h,
                      scan_lb2_status st)
{
    __shared__ scan_lb2_smem sm;
    __shared__ long long s_tile;
    if (threadIdx.x == 0) s_tile = (long long)atomicAdd(st.counter, 1ull);
    __syncthreads();
    float av[V], bv[V], A, B;
    scan_lb_load<V, GOFF>(T, C, reverse, Cb, lanes, G, s_tile, a, b, av, bv);
    scan_lb2_aggregate<V, W8>(Cb, lanes, s_tile, G, av, bv, st, sm, A, B);
    scan_lb2_lookback<Q, W8>(C, Cb, lanes, G, s_tile, h0, st, sm);
    scan_lb2_finish<V, W8>(T, C, reverse, Cb, lanes, G, s_tile, av, bv, A, B, h, st, sm);
}

/* ---- version 48: 8-byte status words ------------------------------------------------------ */

/* The status word of a (tile, channel) in one of two forms (W8):
 *   16 bytes (status, A, B, 0): EMPTY is the zeroed word;
 *   8 bytes (A, B): the status told by A's bits, two NaN patterns that arithmetic never makes
 *   (results are the canonical NaN 0x7fffffff): 0xffffffff EMPTY (a 0xff-filled workspace),
 *   0xfffffffe INC (then B is the value). Twice the predecessors per register of the first,
 *   but no room for the call's tag: the words are filled with 0xff before every call. */
#define SCAN_W8_EMPTY 0xffffffffu
#define SCAN_W8_INC 0xfffffffeu
template <> struct scan_lbw<true> {
    unsigned long long v;
    __device__ __forceinline__ void load(const void *base, int64_t i, unsigned)
    {
        v = __ldcv((const unsigned long long *)base + i);
    }
    __device__ __forceinline__ void inc(float h)
    {
        v = (unsigned long long)__float_as_uint(h) << 32 | SCAN_W8_INC;
    }
    __device__ __forceinline__ void ident() { v = __float_as_uint(1.0f); }   /* A = 1, B = 0: an AGG */
    __device__ __forceinline__ unsigned status() const
    {
        const unsigned a = (unsigned)v;
        return a == SCAN_W8_EMPTY ? SCAN_EMPTY : a == SCAN_W8_INC ? SCAN_INC : SCAN_AGG;
    }
    __device__ __forceinline__ float A() const { return (unsigned)v == SCAN_W8_INC ? 0.0f : __uint_as_float((unsigned)v); }
    __device__ __forceinline__ float B() const { return __uint_as_float((unsigned)(v >> 32)); }
    static __device__ __forceinline__ void publish(void *base, int64_t i, unsigned status, float A, float B,
                                                   unsigned)
    {
        unsigned a = status == SCAN_INC ? SCAN_W8_INC : __float_as_uint(A);
        if (status != SCAN_INC && (a == SCAN_W8_EMPTY || a == SCAN_W8_INC)) a = 0x7fffffffu;
        __stcg((unsigned long long *)base + i, (unsigned long long)__float_as_uint(B) << 32 | a);
    }
};

/* ---- versions 70-72: the staged tile without its chain ----------------------------------------
 *
 * The library's staged tile (VS = VR = 32, forward) with its look-back replaced by a wait of D
 * ns and no carries at all (every tile starts from 0: a wrong result, timed only). What a
 * tile's idle time costs by itself: if a look-back's wait costs as much with no tile waiting
 * on another, the tiles' residency is what to buy; if it costs less, the convoys the chain
 * makes (a late tile holding up every later one) are. */
template <int D>
__global__ void __launch_bounds__(SCAN_LB_THREADS, 2)
scan_lbs_sleep_kernel(int64_t T, int64_t C, int Cb, int lanes, int64_t G, const float *a, const float *b, float *h)
{
    constexpr int VS = SCAN_LBS_VS, VR = SCAN_LBS_VR, VL = VS + VR;
    extern __shared__ float4 sleep_dyn[];
    float *sa = (float *)sleep_dyn, *sb = sa + SCAN_LB_THREADS * VS;
    __shared__ scan_lb2_smem sm;
    const long long tile = blockIdx.x;
    float av[VR], bv[VR];
    scan_lbs_load<VS, VR, 0>(T, C, 0, Cb, lanes, G, tile, a, b, sa, sb, av, bv);
    const int tid = threadIdx.x, lane = tid / Cb, cl = tid % Cb;
    const float *pa = sa + lane * VS * Cb + cl, *pb = sb + lane * VS * Cb + cl;
    float A, B;
    scan_lbs_fold<VS, VR>(Cb, lanes, sa, sb, av, bv, A, B);
    scan_lb2_lanes<false>(Cb, lanes, tile, G, false, scan_lb2_status{}, sm, A, B);
    __syncthreads();   /* the lanes' maps, read below */
    if (D > 0) {   /* the look-back's time, without its dependence */
        unsigned long long t0, t;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
        do {
            __nanosleep(200);
            asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
        } while (t < t0 + (unsigned long long)D);
    }
    const int64_t g = tile % G, k = tile / G, c = g * Cb + cl, s0 = (k * lanes + lane) * VL;
    if (lane >= lanes || c >= C) return;
    float x = lane > 0 ? sm.sB[tid - Cb] : 0.0f;   /* from 0: the lanes before this one */
#pragma unroll 8
    for (int v = 0; v < VS; v++) {
        x = fmaf(pa[v * Cb], x, pb[v * Cb]);
        if (s0 + v < T) h[(s0 + v) * C + c] = x;
    }
    scan_rescan<VR>(T, C, 0, s0 + VS, c, x, av, bv, h);
}

/* ---- the timeline: the library's tile (scan_lbs_kernel) with clock stamps between phases ----
 *
 * `scan-dev timeline`: per tile, thread 0 reads clock64 at the start, when the loads have
 * landed (0), after the lane scan and the aggregate's publication (1), after the look-back
 * (2) and at the end (3), and %globaltimer at the start; the host prints each phase's mean
 * and quantiles over the tiles of one call, and how many tiles were in each phase on average
 * (the phase's total time over the call's time). */
struct tile_probe {
    long long *t;   /* shared: the block's stamps, then its look-back rounds */
    __device__ __forceinline__ void mark(int k) const
    {
        if (threadIdx.x == 0) t[k] = clock64();
    }
    __device__ __forceinline__ void round() const
    {
        if (threadIdx.x == 0) t[4]++;
    }
    __device__ __forceinline__ void empty() const { t[3]++; }   /* one thread: channel 0's */
};

template <int Q, bool W8>
__global__ void __launch_bounds__(SCAN_LB_THREADS, 2)
scan_lbs_probe_kernel(int64_t T, int64_t C, int Cb, int lanes, int64_t G, const float *a, const float *b, float *h,
                      scan_lb2_status st, long long *stamps)
{
    constexpr int VS = SCAN_LBS_VS, VR = SCAN_LBS_VR;
    extern __shared__ float4 probe_dyn[];
    float *sa = (float *)probe_dyn, *sb = sa + SCAN_LB_THREADS * VS;
    __shared__ scan_lb2_smem sm;
    __shared__ long long t[5];
    unsigned long long g0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
    const long long c0 = clock64();
    const long long tile = blockIdx.x;
    float av[VR], bv[VR];
    scan_lbs_load<VS, VR, 0>(T, C, 0, Cb, lanes, G, tile, a, b, sa, sb, av, bv);
    if (threadIdx.x == 0) t[0] = clock64(), t[3] = 0, t[4] = 0;
    const tile_probe probe = {t};   /* marks 1 and 2, rounds, rounds that met an EMPTY word */
    scan_lbs_tile<VS, VR, Q, true, float, float, tile_probe, W8>(T, C, 0, Cb, lanes, G, tile, sa, sb, av, bv,
                                                                 (const float *)NULL, h, st, sm, probe);
    __syncthreads();
    if (threadIdx.x == 0) {
        long long *o = stamps + tile * 7;
        unsigned smid;
        asm("mov.u32 %0, %%smid;" : "=r"(smid));
        o[0] = (long long)g0, o[1] = t[0] - c0, o[2] = t[1] - t[0], o[3] = t[2] - t[1], o[4] = clock64() - t[2];
        o[5] = smid, o[6] = t[4] | t[3] << 32;
    }
}

/* ---- launchers ------------------------------------------------------------------------------ */

typedef struct bench {
    int64_t T, C;
    float *a, *b, *h;
    char *ws;        /* scratch: version 3's maps, the look-back's counter and status words */
    size_t ws_bytes;
} bench;

static unsigned blocks(int64_t n, int bs) { return (unsigned)((n + bs - 1) / bs); }

static void scan1(bench *w, int bs)
{
    scan_channels_kernel<1, 0, float><<<blocks(w->C, bs), bs>>>(w->T, w->C, 0, w->a, w->b, NULL, w->h);
}

static void scan2(bench *w, int bs)
{
    scan_channels_kernel<8, 0, float><<<blocks(w->C, bs), bs>>>(w->T, w->C, 0, w->a, w->b, NULL, w->h);
}

static void scan3(bench *w, int bs)
{
    int sms = 0;
    cudaCheck(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    int64_t want = ((int64_t)sms * 1024 + w->C - 1) / w->C, most = w->T / 64 > 1 ? w->T / 64 : 1;
    int64_t P = want < most ? want : most, L = (w->T + P - 1) / P;
    P = (w->T + L - 1) / L;
    float *A = (float *)w->ws, *Bc = A + P * w->C;
    if ((size_t)(2 * P * w->C) * 4 > w->ws_bytes) { fprintf(stderr, "scan3: scratch too small\n"); exit(1); }
    scan_chunk_walk_kernel3<false><<<blocks(P * w->C, bs), bs>>>(w->T, w->C, L, P, w->a, w->b, A, Bc, NULL);
    scan_chunk_carry_kernel3<<<(unsigned)w->C, 256>>>(P, w->C, A, Bc);
    scan_chunk_walk_kernel3<true><<<blocks(P * w->C, bs), bs>>>(w->T, w->C, L, P, w->a, w->b, A, Bc, w->h);
}

/* version 13: scan_lookback2_kernel, 8 predecessors a thread a round, 16-byte words */
static void scan_lb2(bench *w)
{
    int Cb = scan_lb_channels(w->C), lanes = SCAN_LB_THREADS / Cb;
    int64_t G = (w->C + Cb - 1) / Cb, K = (w->T + (int64_t)lanes * 32 - 1) / ((int64_t)lanes * 32);
    int64_t n = G * K;
    size_t bytes = 16 + (size_t)n * Cb * 16;
    if (bytes > w->ws_bytes) { fprintf(stderr, "scan_lb2: scratch too small\n"); exit(1); }
    scan_lb2_status st = {(unsigned long long *)w->ws, (void *)(w->ws + 16), 0u};
    cudaCheck(cudaMemsetAsync(w->ws, 0, bytes));
    scan_lookback2_kernel<32, 0, float, float, SCAN_LB2_Q, false><<<(unsigned)n, SCAN_LB_THREADS>>>(
        w->T, w->C, 0, Cb, lanes, G, w->a, w->b, NULL, w->h, st);
}

/* The tiling of a staged tile of VL steps a thread: Cb channels, lanes, G groups, n tiles, and the
 * workspace (counter and 16-byte status words) it needs */
struct lbs_tiling {
    int Cb, lanes;
    int64_t G, n;
    size_t bytes;
};
static lbs_tiling lbs_tiles(const bench *w, int VL, const char *who, int Cb = 0)   /* Cb: 0 the library's */
{
    lbs_tiling p;
    p.Cb = Cb && Cb < w->C ? Cb : scan_lb_channels(w->C), p.lanes = SCAN_LB_THREADS / p.Cb;
    p.G = (w->C + p.Cb - 1) / p.Cb;
    p.n = p.G * ((w->T + (int64_t)p.lanes * VL - 1) / ((int64_t)p.lanes * VL));
    p.bytes = 16 + (size_t)p.n * p.Cb * 16;
    if (p.bytes > w->ws_bytes) { fprintf(stderr, "%s: scratch too small\n", who); exit(1); }
    return p;
}

/* versions 34-66, 87: the library's scan_lbs_kernel, VR steps a thread in registers and VS in
 * shared memory, MINB blocks an SM; the status words zeroed (8-byte: 0xff, EMPTY) before each
 * call and stamped 0 */
template <int VR, int VS, int MINB, bool BIDX, bool PART, bool W8 = false, int REV = -1, int CB = 0,
          bool VST = false>
static void scan_lbs(bench *w)
{
    const lbs_tiling p = lbs_tiles(w, VS + VR, "scan_lbs", CB);
    scan_lb2_status st = {(unsigned long long *)w->ws, (void *)(w->ws + 16), 0u};
    const int smem = SCAN_LB_THREADS * VS * 8;
    void (*k)(int64_t, int64_t, int, int, int, int64_t, const float *, const float *, const float *, float *,
              scan_lb2_status) = scan_lbs_kernel<VS, VR, 0, float, float, REV, SCAN_LB2_Q, BIDX, PART, W8, MINB, VST>;
    cudaCheck(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    cudaCheck(cudaMemsetAsync(w->ws, 0, 16));
    cudaCheck(cudaMemsetAsync(w->ws + 16, W8 ? 0xff : 0, p.bytes - 16));   /* EMPTY words */
    k<<<(unsigned)p.n, SCAN_LB_THREADS, smem>>>(w->T, w->C, 0, p.Cb, p.lanes, p.G, w->a, w->b, NULL, w->h, st);
}

/* versions 70-72: scan_lbs_sleep_kernel (timing only) */
template <int D>
static void scan_lbs_sleep(bench *w)
{
    const lbs_tiling p = lbs_tiles(w, SCAN_LBS_VS + SCAN_LBS_VR, "scan_lbs_sleep");
    const int smem = SCAN_LB_THREADS * SCAN_LBS_VS * 8;
    cudaCheck(cudaFuncSetAttribute(scan_lbs_sleep_kernel<D>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    scan_lbs_sleep_kernel<D><<<(unsigned)p.n, SCAN_LB_THREADS, smem>>>(w->T, w->C, p.Cb, p.lanes, p.G, w->a, w->b,
                                                                      w->h);
}

static const int versions[] = {1, 2, 3, 13, 34, 40, 42, 48, 56, 64, 66, 70, 71, 72, 87};
#define NVERSIONS (int)(sizeof versions / sizeof versions[0])

static void scan(int version, bench *w, int bs)
{
    switch (version) {
    case 1: scan1(w, bs); break;
    case 2: scan2(w, bs); break;
    case 3: scan3(w, bs); break;
    case 13: scan_lb2(w); break;
    case 34: scan_lbs<32, 32, 2, false, false>(w); break;
    case 40: scan_lbs<32, 32, 2, true, false>(w); break;
    case 42: scan_lbs<32, 32, 2, true, true>(w); break;
    case 48: scan_lbs<32, 32, 2, true, true, true>(w); break;
    case 56: scan_lbs<32, 32, 2, true, true, false, 0>(w); break;
    case 64: scan_lbs<16, 32, 3, true, true, false, 0>(w); break;
    case 66: scan_lbs<32, 32, 2, true, true, false, 0, 16>(w); break;
    case 70: scan_lbs_sleep<0>(w); break;
    case 71: scan_lbs_sleep<2500>(w); break;
    case 72: scan_lbs_sleep<5000>(w); break;
    case 87: scan_lbs<32, 32, 2, true, true, false, 0, 0, true>(w); break;
    default: fprintf(stderr, "unknown version %d\n", version); exit(1);
    }
    cudaCheck(cudaGetLastError());
}

/* ---- main ------------------------------------------------------------------------------------ */

static int cmp_float(const void *x, const void *y)
{
    float a = *(const float *)x, b = *(const float *)y;
    return (a > b) - (a < b);
}

/* Median ms of 20 calls after 3 warm-ups (50 for the copy, timed first on each shape); version 0
 * is the copy h <- a. */
static float time_ms(int version, bench *w, int bs)
{
    cudaEvent_t e0, e1;
    cudaCheck(cudaEventCreate(&e0));
    cudaCheck(cudaEventCreate(&e1));
    float ms[20];
    for (int r = version ? -3 : -50; r < 20; r++) {   /* the copy first: clocks up before it is timed */
        cudaCheck(cudaEventRecord(e0));
        if (version) scan(version, w, bs);
        else cudaCheck(cudaMemcpyAsync(w->h, w->a, (size_t)(w->T * w->C) * 4, cudaMemcpyDeviceToDevice));
        cudaCheck(cudaEventRecord(e1));
        cudaCheck(cudaEventSynchronize(e1));
        if (r >= 0) cudaCheck(cudaEventElapsedTime(&ms[r], e0, e1));
    }
    cudaCheck(cudaEventDestroy(e0));
    cudaCheck(cudaEventDestroy(e1));
    qsort(ms, 20, sizeof ms[0], cmp_float);
    return 0.5f * (ms[9] + ms[10]);
}

static float frand(uint64_t *s)   /* xorshift, [0, 1) */
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return (float)(*s >> 40) / 16777216.0f;
}

static void setup(bench *w, int64_t T, int64_t C, int fill)
{
    size_t n = (size_t)(T * C);
    w->T = T, w->C = C;
    cudaCheck(cudaMalloc(&w->a, n * 4));
    cudaCheck(cudaMalloc(&w->b, n * 4));
    cudaCheck(cudaMalloc(&w->h, n * 4));
    w->ws_bytes = n * 2 + (1 << 24);   /* ample: version 3's maps take T·C/8 bytes at most */
    cudaCheck(cudaMalloc(&w->ws, w->ws_bytes));
    if (!fill) {   /* timing only: the values do not matter */
        cudaCheck(cudaMemset(w->a, 0x3f, n * 4));
        cudaCheck(cudaMemset(w->b, 0x3f, n * 4));
    }
}

static void teardown(bench *w)
{
    cudaCheck(cudaFree(w->a)), cudaCheck(cudaFree(w->b)), cudaCheck(cudaFree(w->h));
    cudaCheck(cudaFree(w->ws));
}

/* `scan-dev timeline`: the probe kernel on a shape, its phases summed up (see scan_lbs_probe_kernel) */
static int cmp_ll(const void *x, const void *y)
{
    long long a = *(const long long *)x, b = *(const long long *)y;
    return (a > b) - (a < b);
}

/* Phase times of one call's tiles, read from the probe's stamps hs ([n][7]: start, the four
 * phases in clocks, SM, rounds | EMPTY rounds << 32): mean and quantiles per phase, and how many
 * tiles were in it on average (its total time over the call's, ms). */
static void timeline_report(const long long *hs, int64_t n, float ms, double us_per_clk)
{
    static const char *names[] = {"loads (start to landed)", "lane scan + aggregate", "look-back", "finish (INC, h)",
                                  "whole tile"};
    long long *v = (long long *)malloc((size_t)n * sizeof(long long));
    printf("  %-24s %9s %9s %9s %9s %9s %10s\n", "phase (µs)", "mean", "p10", "p50", "p90", "p99", "tiles in it");
    for (int k = 0; k < 5; k++) {
        double sum = 0;
        for (int64_t i = 0; i < n; i++) {
            v[i] = k < 4 ? hs[i * 7 + 1 + k] : hs[i * 7 + 1] + hs[i * 7 + 2] + hs[i * 7 + 3] + hs[i * 7 + 4];
            sum += v[i];
        }
        qsort(v, (size_t)n, sizeof *v, cmp_ll);
        printf("  %-24s %9.3f %9.3f %9.3f %9.3f %9.3f %10.1f\n", names[k], sum / n * us_per_clk,
               v[n / 10] * us_per_clk, v[n / 2] * us_per_clk, v[n * 9 / 10] * us_per_clk, v[n * 99 / 100] * us_per_clk,
               sum * us_per_clk * 1e-3 / ms);
    }
    /* look-back rounds a tile, and the look-back's time over its rounds (a round: one L2
     * round trip for the status words, two barriers) */
    for (int j = 0; j < 2; j++) {   /* rounds (low word), rounds that met an EMPTY word (high) */
        double rsum = 0;
        for (int64_t i = 0; i < n; i++) v[i] = j ? hs[i * 7 + 6] >> 32 : hs[i * 7 + 6] & 0xffffffff, rsum += v[i];
        qsort(v, (size_t)n, sizeof *v, cmp_ll);
        printf("  %-24s %9.2f %9lld %9lld %9lld %9lld\n", j ? "rounds that met EMPTY" : "look-back rounds",
               rsum / n, v[n / 10], v[n / 2], v[n * 9 / 10], v[n * 99 / 100]);
    }
    for (int64_t i = 0; i < n; i++) {
        const long long r = hs[i * 7 + 6] & 0xffffffff;
        v[i] = r > 0 ? hs[i * 7 + 3] / r : 0;
    }
    qsort(v, (size_t)n, sizeof *v, cmp_ll);
    printf("  %-24s %9s %9.3f %9.3f %9.3f %9.3f\n", "µs a round", "", v[n / 10] * us_per_clk,
           v[n / 2] * us_per_clk, v[n * 9 / 10] * us_per_clk, v[n * 99 / 100] * us_per_clk);
    free(v);
}

/* The probe kernel on a shape (Q words a lane a round, 8- or 16-byte words), six calls, the
 * last one's tiles summed up. */
template <int Q, bool W8>
static void timeline(int64_t T, int64_t C)
{
    bench w;
    setup(&w, T, C, 0);
    const lbs_tiling p = lbs_tiles(&w, SCAN_LBS_VS + SCAN_LBS_VR, "timeline");
    const int64_t n = p.n;
    scan_lb2_status st = {(unsigned long long *)w.ws, (void *)(w.ws + 16), 0u};
    const int smem = SCAN_LB_THREADS * SCAN_LBS_VS * 8;
    cudaCheck(cudaFuncSetAttribute(scan_lbs_probe_kernel<Q, W8>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    long long *d_st, *hs = (long long *)malloc((size_t)n * 7 * sizeof(long long));
    cudaCheck(cudaMalloc(&d_st, (size_t)n * 7 * sizeof(long long)));
    cudaEvent_t e0, e1;
    cudaCheck(cudaEventCreate(&e0)), cudaCheck(cudaEventCreate(&e1));
    float ms = 0;
    for (int r = 0; r < 6; r++) {   /* the last call is the one summed up */
        cudaCheck(cudaMemsetAsync(w.ws, 0, 16));
        cudaCheck(cudaMemsetAsync(w.ws + 16, W8 ? 0xff : 0, p.bytes - 16));
        cudaCheck(cudaEventRecord(e0));
        scan_lbs_probe_kernel<Q, W8><<<(unsigned)n, SCAN_LB_THREADS, smem>>>(T, C, p.Cb, p.lanes, p.G, w.a, w.b, w.h,
                                                                             st, d_st);
        cudaCheck(cudaEventRecord(e1));
        cudaCheck(cudaEventSynchronize(e1));
        cudaCheck(cudaEventElapsedTime(&ms, e0, e1));
    }
    cudaCheck(cudaMemcpy(hs, d_st, (size_t)n * 7 * sizeof(long long), cudaMemcpyDeviceToHost));
    int khz = 0;
    cudaCheck(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
    long long gmin = hs[0], gmax = hs[0];
    for (int64_t i = 0; i < n; i++) gmin = hs[i * 7] < gmin ? hs[i * 7] : gmin, gmax = hs[i * 7] > gmax ? hs[i * 7] : gmax;
    printf("timeline Q=%d %d-byte words T=%lld C=%lld: %lld tiles, kernel %.4f ms (%.1f%% of 3·T·C·4 bytes at 4.2 TB/s), starts over "
           "%.4f ms; clocks at %d MHz (the maximum)\n", Q, W8 ? 8 : 16, (long long)T, (long long)C, (long long)n, ms,
           100 * (3.0 * T * C * 4 / 4.2e12 * 1e3) / ms, (gmax - gmin) * 1e-6, khz / 1000);
    timeline_report(hs, n, ms, 1e3 / khz);
    free(hs);
    cudaCheck(cudaFree(d_st));
    cudaCheck(cudaEventDestroy(e0)), cudaCheck(cudaEventDestroy(e1));
    teardown(&w);
}

/* Gates near 1 (a in [0.999, 1)) so that a wrong carry stays visible; tolerance as in
 * tests/test_scan_cuda.c: |h - ref| <= 1e-4·max|ref| + 1e-5·|ref|. */
static int validate(int version, int64_t T, int64_t C, int bs)
{
    bench w;
    setup(&w, T, C, 1);
    size_t n = (size_t)(T * C);
    float *a = (float *)malloc(n * 4), *b = (float *)malloc(n * 4), *h = (float *)malloc(n * 4);
    double *ref = (double *)malloc(n * 8);
    uint64_t s = 88172645463325252ull ^ (uint64_t)(T * 131 + C);
    for (size_t i = 0; i < n; i++) a[i] = 0.999f + 0.001f * frand(&s), b[i] = 2 * frand(&s) - 1;
    cudaCheck(cudaMemcpy(w.a, a, n * 4, cudaMemcpyHostToDevice));
    cudaCheck(cudaMemcpy(w.b, b, n * 4, cudaMemcpyHostToDevice));
    cudaCheck(cudaMemset(w.h, 0xFF, n * 4));
    scan(version, &w, bs);
    cudaCheck(cudaMemcpy(h, w.h, n * 4, cudaMemcpyDeviceToHost));
    scan_forward_cpu(T, C, a, b, ref);
    double big = 0;
    for (size_t i = 0; i < n; i++) big = fmax(big, fabs(ref[i]));
    int bad = 0;
    for (size_t i = 0; i < n && bad < 3; i++)
        if (!(fabs(h[i] - ref[i]) <= 1e-4 * big + 1e-5 * fabs(ref[i]))) {
            printf("  version %d T=%lld C=%lld block %d: h[%zu] = %.7g, reference %.7g\n", version,
                   (long long)T, (long long)C, bs, i, h[i], ref[i]);
            bad++;
        }
    free(a), free(b), free(h), free(ref);
    teardown(&w);
    return bad == 0;
}

static int known(int v)
{
    for (int i = 0; i < NVERSIONS; i++)
        if (versions[i] == v) return 1;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "timeline")) {   /* version 56's tile; 16-byte words, then 8-byte ones */
        timeline<SCAN_LB2_Q, false>(1048576, 1024);
        timeline<SCAN_LB2_Q, false>(4194304, 32);
        timeline<SCAN_LB2_Q, false>(65536, 32);
        timeline<16, true>(1048576, 1024);
        timeline<16, true>(4194304, 32);
        return 0;
    }
    static char want[128];   /* want[v]: run version v; none given: all */
    int only = 0;
    for (int i = 1; i < argc; i++) {
        const int v = atoi(argv[i]);
        if (!known(v)) {
            fprintf(stderr, "unknown version %s (kept:", argv[i]);
            for (int k = 0; k < NVERSIONS; k++) fprintf(stderr, " %d", versions[k]);
            fprintf(stderr, "; the others are in git history)\n");
            return 1;
        }
        want[v] = 1, only = 1;
    }
    cudaDeviceProp p;
    cudaCheck(cudaGetDeviceProperties(&p, 0));
    printf("%s, %d SMs\n", p.name, p.multiProcessorCount);

    static const int64_t vshapes[][2] = {{1, 1}, {33, 3}, {1000, 32}, {16323, 1000}, {127323, 1},
                                         {33753, 257}, {400, 40000}, {65557, 32}};
    static const int sizes[] = {64, 128, 256, 512, 1024};
    int failed = 0;
    for (int i = 0; i < NVERSIONS; i++) {
        const int v = versions[i];
        if (only && !want[v]) continue;
        if (v >= 70 && v <= 72) {   /* no look-back: wrong by design */
            printf("version %d: timing only (no carries between tiles)\n", v);
            continue;
        }
        int ok = 1;
        for (int s = 0; s < (int)(sizeof vshapes / sizeof vshapes[0]); s++)
            for (int k = 0; k < (v <= 3 ? 5 : 1); k++)
                ok &= validate(v, vshapes[s][0], vshapes[s][1], sizes[k]);
        printf("version %d: %s\n", v, ok ? "matches the CPU reference" : "WRONG");
        failed |= !ok;
    }

    /* the four shapes of the bandwidth experiment, and Martin & Cundy's m = 32, T = 65536 */
    static const int64_t shapes[][2] = {{1024, 65536}, {16384, 65536}, {1048576, 1024},
                                        {4194304, 32}, {65536, 32}};
    printf("\n%3s %5s %9s %8s %9s %9s %7s\n", "ver", "block", "T", "C", "ms", "GB/s", "%copy");
    for (int s = 0; s < 5; s++) {
        bench w;
        setup(&w, shapes[s][0], shapes[s][1], 0);
        double bytes = (double)shapes[s][0] * shapes[s][1] * 4;
        float copy = time_ms(0, &w, 0);
        printf("%3s %5s %9lld %8lld %9.4f %9.1f %7s\n", "copy", "", (long long)w.T, (long long)w.C,
               copy, 2 * bytes / copy * 1e-6, "100%");
        for (int i = 0; i < NVERSIONS; i++) {
            const int v = versions[i];
            if (only && !want[v]) continue;
            if (v == 1 && w.T * w.C > (1ll << 26) && w.C < 4096) continue;   /* minutes */
            for (int k = 0; k < (v <= 3 ? 5 : 1); k++) {
                int bs = v <= 3 ? sizes[k] : SCAN_LB_THREADS;
                float ms = time_ms(v, &w, bs);
                double gbs = 3 * bytes / ms * 1e-6;
                printf("%3d %5d %9lld %8lld %9.4f %9.1f %6.1f%%\n", v, bs, (long long)w.T,
                       (long long)w.C, ms, gbs, 100 * gbs / (2 * bytes / copy * 1e-6));
            }
        }
        fflush(stdout);
        teardown(&w);
    }
    return failed;
}
