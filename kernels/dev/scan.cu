/* kernels/dev/scan.cu — workbench for the linear scan h_t = a_t ⊙ h_{t-1} + b_t over [T][C]
 * (forward, f32, from h0 = 0): every version validated against a CPU reference, then timed.
 *
 *   make dev && build/bin/scan-dev            all versions, validation then timing
 *   build/bin/scan-dev 4 7                     some versions
 *   build/bin/scan-dev timeline                where a look-back tile's time goes (scan_lbs_probe_kernel)
 *   build/bin/scan-dev timeline paced          the same for the paced loads of versions 75, 76, 79
 *   build/bin/scan-dev timeline persistent     the same for the persistent blocks of versions 81, 85
 *
 * Versions (1, 2, 5-7, 10, 11 run the library's kernels of ../scan_kernels.cuh at other
 * settings; 3, 4, 8, 9 live here):
 *   1  serial: one thread per channel, one step at a time (Martin & Cundy's baseline)
 *   2  channel-parallel: one thread per channel, 8 steps' loads in flight
 *   3  three-pass reduce-then-scan, as Martin & Cundy did it: chunks of T reduced to maps,
 *      the maps scanned (Hillis–Steele in a block per channel), the chunks rewalked from
 *      their carries: a and b read twice, 5·T·C·4 bytes
 *   4  single pass with decoupled look-back, first try: tiles of min(C, 256) channels × 16
 *      steps, warp 0 polls 32 predecessors per round, the lane-0 threads compose them alone.
 *      Measured on the H200: 47-50% of copy at C = 1024, 36-38% at C = 32; a model of the
 *      look-back (at most 32 tiles pass a chain per ~1.2 µs round) predicts about that
 *   5  the library's look-back: 32-channel tiles (L = 8·V steps at C >= 32), 128
 *      predecessors per round, composed by all lanes; 16 steps per thread
 *   6  the same, 8 steps per thread
 *   7  the same, 32 steps per thread (fewer tiles, 2 blocks per SM): the library's choice
 *   8  persistent blocks: the same tiles, 16 steps per thread, the next tile fetched into
 *      shared memory (cp.async) while the current one looks back and writes
 *   9  the same, 8 steps per thread
 *  10  version 7 with 48 steps per thread (96 data registers of 128): spills ~400 bytes a
 *      thread and ran at 54-61% of copy
 *  11  version 7 with FLAT lane combination (scan_lb_tile: one shared-memory round instead
 *      of log2(lanes), in the tile's lane scan and in the look-back), when lanes <= 8
 *  12  version 7 without the look-back (every tile starts from h0): a wrong result, timed
 *      only, to measure what the look-back costs (its difference from version 7)
 *  13  version 7's tiles with the look-back over per-channel 16-byte status words (status
 *      and map in one store, one L2 round trip a round; scan_lookback2_kernel)
 *  14  persistent blocks with two tiles of 16 steps a thread in registers: the next tile's
 *      loads are issued before the current tile looks back (scan_lookback3_kernel)
 * 15-17 version 13's look-back, the tile read again from L2 after it instead of held in
 *      registers through it (scan_lookback4_kernel): 15 V = 16, 3 blocks an SM; 16 the same
 *      with L2 eviction hints (keep on the first read, evict on the second and on h's
 *      stores); 17 V = 32 with the hints; 18 as 16 with 4 blocks an SM (64 registers)
 * 19, 20 version 13 with 8-byte status words (A, B; the status in NaN patterns of A), 16 and
 *      24 predecessors a thread a round (windows of 128 and 192 tiles at 32 channels)
 * 21-23 warp-specialised persistent blocks: a producer warp fills a ring of S tiles in shared
 *      memory by bulk copies while NG groups of 256 threads each take a tile into registers,
 *      free its stage and run version 13's three phases (scan_ring_kernel): 21 V = 32, S = 3,
 *      one group, 16 predecessors a thread a round; 22 V = 32, S = 3, two groups, 8; 23
 *      V = 16, S = 6, two groups, 8. Measured (a3d40ef): 20-22% of copy at C >= 1024 (a bulk copy a
 *      128-byte row: the copy engine's issue rate), 30-43% at C = 32: a stage is loaded
 *      when its tile is claimed but consumed S tiles later, so a tile's predecessors wait
 *      in other SMs' rings and the look-back waits for them
 * 24-26 the ring with static tiles (block b takes b, b + grid, ...: every block is on the same
 *      round, predecessors are being consumed, not queued) and stages filled by 16-byte
 *      cp.async from the producer's lanes (one async arrival a lane, cp.async.mbarrier.arrive):
 *      24 V = 32, S = 3, one group, 16; 25 V = 16, S = 6, two groups, 8; 26 as 24 with the
 *      bulk copies. Measured (5a6cef7): 24 at 62-69%, 25 at 55-66%, 26 at 21-62%: no better
 *      than 13; the consumer's own time a tile (lane scan, look-back, rescan) sets the pace
 * 27-29 the look-back LAG tiles behind the loads (scan_lag_kernel): block j loads tile j,
 *      and while those loads fly completes tile j − LAG from L2 (re-read, look-back over
 *      aggregates published long before, INC, h); at V = 32 the kernel spills (the loads in
 *      flight with them). LAG = the resident blocks (29: twice that); 27 V = 24, Q = 4,
 *      16-byte words; 28, 29 V = 16, Q = 16, 8-byte words; 30 V = 16, Q = 8, 16-byte words
 *      Measured (9eae730): 32-44% of copy on the four shapes, against 13's 66-72% in the
 *      same run: completing a tile from L2 while the next loads fly costs more than the wait
 *      it hides (a second read of the tile, its look-back and h's stores share the block's
 *      issue slots and registers with the loads in flight)
 * 31-44 the staged tile: a thread's first VS steps staged in shared memory by cp.async, its last
 *      VR in registers, one look-back per tile of lanes·(VS + VR) steps (scan_lbs_kernel, the
 *      library's since 17c7344). % of the workbench's copy at (1024, 2^20) and (32, 2^22),
 *      results/scan-workbench-staged-h200.txt, runs A-E:
 *      31 VS = VR = 32, whole 128-byte rows staged by 16-byte copies: 70-75%, 86%
 *      32 the same with VS = 48: 77%, 86%;  33 VR = 16, VS = 32, 3 blocks an SM: 74%, 82%
 *      34 VS = VR = 32, each thread staging its own elements by 4-byte copies, counter ids
 *         (the library at 17c7344): 85-94%, 84-88%
 *      35 31 with blockIdx tile ids: 76-82%, 90-91%;  36 34 with VS = 48: 77%, 82%
 *      37-39 (commit 9ba6372, removed since) the loads issued for the tile blockIdx guesses
 *         while the counter's id flies, again when wrong (37; 38 window 32; 39 VS = 24):
 *         62-65%, 62-65% (the counter's order is not the blocks' start order: guesses miss)
 *      40 34 with blockIdx ids (the library at efe7c8b): 86-91%, 88%;  41 40 with window 32:
 *         93%, 86% (one run)
 *      42 40 with partial look-back rounds (a round that meets an EMPTY keeps what came
 *         before it; the library since d368c3b): 86%, 87%;  43, 44 (commit d368c3b, removed
 *         since) 42 with __nanosleep(200, 500 ns) before a poll: 86%, 87%
 *      Versions 45-54, % of copy at (32, 2^22) and (1024, 2^20), runs of this session
      (results/scan-workbench-staged-h200.txt, runs F-J; 42 in the same calls: 81.5-87.2%
      and 86.3-86.8%):
      45, 46 the shared part by bulk copies (cp.async.bulk, one mbarrier) at C = 32, VS = 32
         and 48: 85.0% and 88.0%; 84.6% and 77.2% (one run)
      47-49 42 with 8-byte words (W8), windows of 128, 64 and 192 tiles (Q = 16, 8, 24;
         24 spills): 84.4%, 86.8-87.3%, 65.8%; 85.0%, 86.3-87.0%, 55.7%
      50 35 (whole rows) with 8-byte words and partial rounds: 90.4-91.4% in five runs of
         six (85.4% in one); 78.2-79.2%. 51-53: 50 with the first round read twice, 500,
         1000, 1500 ns apart (SPEC): 89.8-90.7%, 90.6-90.7%, 88.9%: no gain
      54 (commit b8badf7, removed since) the library's kernel with whole-row copies at C = 32
         (its staging loop, not version 50's kernel): 81.7-81.8% where 50 ran 91%; in
         experiments/scan-bandwidth 73-74% against 78% without the rows, so the library kept
         its per-element staging. The cause of the gap between 54 and 50 was not found.
      55-57 (commit 144c199; 55, 57 removed since) the library's kernel with its direction a
         template argument (REV = 0) and per-element staging (56, the library's since),
         with whole-row copies (55), and the rows with the direction an argument (57, = 54):
         87.5-87.7%, 89.1-90.3%, 79.9-81.1%; 85.1-85.3%, 88.3%, 85.8-86.0% (two runs; 42
         81.7% and 86.2%, 50 85.3-90.7% and 77.5-77.9%)
      Versions 58-69 (runs M-R of results/scan-workbench-staged-h200.txt; times at (32, 2^22),
      where 56 took 0.482-0.525 ms over the same calls and 12, no look-back, 0.436 ms):
      58-60 whole tiles by the copy engine (scan_lbb_kernel below), L = 256, 384, 416 steps:
         0.505-0.514, 0.493-0.501, 0.490-0.495 ms; 61-63 their windows of 128, 128, 192 tiles
         (Q = 16, 16, 24): 0.539, 0.561, 0.596; 68, 69 windows of 128 in 8-byte words at L = 416,
         256: 0.522, 0.492. The loads land in half the time, but a look-back round still takes
         ~2.5 µs, and smaller tiles take more rounds (timeline)
      64, 65 the library's kernel at three and four blocks an SM (VR = 16; VS = 32, 24; they
         spill): 0.593-0.597, 0.693-0.700
      66, 67 the library's kernel with 16- and 8-channel tiles at C = 32 (two and four chains
         of tiles): 0.527-0.529, 0.627-0.628; at 16 channels the rounds fall to 1.24 a tile
         (0.23 after an EMPTY) but the half-row loads and stores take longer
      70-72 56's tile with the look-back replaced by a wait of 0, 2.5 and 5 µs and no carries
         (timing only, run S): 0.389-0.391, 0.417-0.419, 0.463 ms (56: 0.477-0.481 in the same
         call). The wait costs about what the look-back does, with no tile waiting on another:
         the tile's idle residency is the cost, the chain adds ~3%
      73, 74 64 without its spills (three blocks an SM; 8-byte words, Q = 8, and Q = 4; run T):
         0.511-0.512, 0.505-0.508 ms (56: 0.489, 0.512 in the same call): more, smaller
         tiles an SM did not buy time either
      75-80 56's tile with its loads paced: a thread keeps WIN chunks of K steps in flight
         (cp.async groups; the register part through a shared transit ring), folding each
         chunk as it lands, (K, WIN) = (4, 4), (8, 2), (4, 2), (4, 5), (2, 8), (8, 1) (run U):
         0.519-0.571 ms against 56's 0.483-0.523 at (32, 2^22), 3.66-4.45 against 3.42 ms at
         (1024, 2^20). The hypothesis (the queues of ~30 MB of loads in flight make every L2
         round trip long) failed: a look-back round fell from 2.96 to 2.5-2.6 µs (median) while
         the loads took 7 µs instead of 5 (timeline paced)
      81-86 persistent blocks, two staged tiles a block (VS = 24, VR = 16, both sets resident,
         tiles of 320 steps), the next tile's loads issued right after the current tile's
         aggregate (runs V, W): static ids b + rN 0.58-0.61 ms (73-75% of the workbench's
         copy; a start staggered over 8 µs, Q = 4, VR = 12 no better), counter ids claimed a
         step ahead (85, 86) 0.79-0.81 ms. The timeline (persistent) shows why: issuing the
         next tile's 80 KB of loads takes 4.7 µs (the SM's memory pipe is full: an issue
         waits for room), so the block does not reach its look-back sooner, and a tile costs
         11.4 µs for 80 KB where 56's costs 14.7 for 128; with counter ids a claimed tile's
         aggregate waits for its block's current tile, and the look-backs meet EMPTY words
         (3.1 rounds a tile)
      87 56 with h written through shared memory in 16-byte pieces of whole rows (VST,
         scan_lbs_out), 8 stores a thread instead of 64 (run X): 0.489 ms against 56's 0.522
         at (32, 2^22), 3.47 against 3.39 at (1024, 2^20), one call; in the experiment the
         library's f32 with VST ran 79.7% against 80.3-80.9% forward at (32, 2^22) and 69-70%
         against 75-82% reversed, so f32 kept its stores (bf16 took VST: kernels/scan.cu)
      Since 25be840 the library's tiles (so 56 and 87 here) walk pointers without tests when
      they lie wholly inside [0, T); the times above are from before it.
      Timeline with rounds (f7742d5, library tile): at C = 1024 one round a tile, none meeting
      an EMPTY word, 2.6 µs a round (one L2 round trip under load); at C = 32 1.62 rounds,
      0.48 of them after an EMPTY word (a predecessor not yet published), 3.0 µs a round;
      8-byte words with windows of 128 did not change either (1.69, 0.65).
      The workbench's copy of the 512 MB array (C = 32) is 10% slower than the one
 *      experiments/scan-bandwidth times beside each call (3.7 against 4.1 TB/s): there the
 *      library's kernel is at 86% and 78% of copy (results/scan-bandwidth-h200.h5).
 *      `scan-dev timeline` splits a tile's time into its phases (scan_lbs_probe_kernel).
 * The channel-parallel versions run at block sizes 64..1024; the look-back versions fix the
 * block at SCAN_LB_THREADS and vary the tile length instead.
 *
 * Bound: 3·T·C·4 bytes (a, b read, h written) over the copy bandwidth measured in the same
 * run (cudaMemcpy device to device, 2·T·C·4 bytes). Flops: one FMA per element, nothing.
 * The output: per version and shape, median ms of 20 calls after 3 warm-ups, GB/s, % of copy.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_pipeline.h>

#include "../scan_kernels.cuh"

/* ---- kernels of versions that lost, moved out of ../scan_kernels.cuh ------------------------ */

/* ---- version 13 (the library's until version 34): the tile in registers only, V steps a thread */
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

/* ---- versions 4-12: flags, maps and inclusive values in three arrays ---------------------- */

#define SCAN_LB_WINDOW 128   /* predecessors polled per look-back round: 4 per lane of warp 0 */

struct scan_lb_status {
    unsigned long long *counter;   /* next tile id                                  */
    int *flag;                     /* [ntiles] SCAN_EMPTY / SCAN_AGG / SCAN_INC        */
    float2 *agg;                   /* [ntiles][Cb] the tile's map (A, B)               */
    float *inc;                    /* [ntiles][Cb] the state after the tile's last step */
};

/* Shared memory of one look-back tile. */
struct scan_lb_smem {
    float sA[SCAN_LB_THREADS], sB[SCAN_LB_THREADS];   /* lane scan of the tile      */
    float rA[SCAN_LB_THREADS], rB[SCAN_LB_THREADS];   /* look-back pieces           */
    float carry[SCAN_LB_THREADS];                     /* carry-in per channel       */
    int n, found;
};

/* Steps 2-4 for one tile whose V steps per thread are in av, bv (identity beyond T or C).
 * FLAT: the lanes' maps are combined by each thread reading all the lanes before its own
 * (one round of shared memory, O(lanes) reads: meant for lanes <= 8) instead of in log2(lanes)
 * rounds, both in the tile's lane scan and in the look-back's combination. */
template <int V, typename E, bool FLAT = false, typename H = E, bool NOLB = false>
__device__ __forceinline__ void scan_lb_tile(int64_t T, int64_t C, int reverse, int Cb, int lanes,
                                             int64_t G, int64_t tile, const float (&av)[V],
                                             const float (&bv)[V], const typename scan_h0<H>::type *h0, E *h,
                                             const scan_lb_status &st, scan_lb_smem &sm)
{
    const int tid = threadIdx.x, lane = tid / Cb, cl = tid % Cb;
    const int64_t g = tile % G, k = tile / G, c = g * Cb + cl;
    const bool active = lane < lanes && c < C;
    const int64_t s0 = (k * lanes + lane) * V;
    /* 2. the thread's map, then an inclusive scan of the maps across lanes */
    float A = 1.0f, B = 0.0f;
#pragma unroll
    for (int v = 0; v < V; v++) B = fmaf(av[v], B, bv[v]), A *= av[v];   /* step v after the rest */
    sm.sA[tid] = A, sm.sB[tid] = B;
    __syncthreads();
    if (FLAT) {   /* inclusive: lanes 0..lane, the earliest first */
        A = 1.0f, B = 0.0f;
        for (int l = 0; l <= lane && lane < lanes; l++) {
            const float qa = sm.sA[l * Cb + cl];
            B = fmaf(qa, B, sm.sB[l * Cb + cl]), A *= qa;
        }
        __syncthreads();
        sm.sA[tid] = A, sm.sB[tid] = B;
        __syncthreads();
    }
    for (int off = 1; !FLAT && off < lanes; off *= 2) {
        float pa = 1.0f, pb = 0.0f;
        if (lane >= off && lane < lanes) pa = sm.sA[tid - off * Cb], pb = sm.sB[tid - off * Cb];
        __syncthreads();
        scan_compose(A, B, pa, pb);
        sm.sA[tid] = A, sm.sB[tid] = B;
        __syncthreads();
    }

    /* 3. carry-in: h0 for the first chunk, else look back (NOLB: never; a wrong result, for
     * the workbench's timing of what the look-back costs) */
    if (k == 0 || NOLB) {
        if (tid < Cb) sm.carry[cl] = (h0 && c < C) ? ld(h0 + c) : 0.0f;
    } else {
        if (tid >= 32 && tid < 32 + Cb) {   /* warp 1 publishes while warp 0 polls */
            const int pc = tid - 32, pl = (lanes - 1) * Cb + pc;
            st.agg[tile * Cb + pc] = make_float2(sm.sA[pl], sm.sB[pl]);
            __threadfence();
            __syncwarp(Cb == 32 ? 0xffffffffu : (1u << Cb) - 1);
            if (tid == 32) atomicExch(st.flag + tile, SCAN_AGG);
        }
        float cA = 1.0f, cB = 0.0f;   /* lane 0: the windows composed so far, nearest first */
        for (int64_t j = k - 1;; j -= SCAN_LB_WINDOW) {
            if (tid < 32) {   /* warp 0: predecessor i = 4·tid + q is chunk j - i */
                int first_inc = 4, bad;
                do {
                    int f[4];
#pragma unroll
                    for (int q = 0; q < 4; q++) {
                        int64_t jj = j - 4 * tid - q;
                        f[q] = jj >= 0 ? *(volatile int *)(st.flag + jj * G + g) : SCAN_INC;
                    }
                    first_inc = 4, bad = 0;
#pragma unroll
                    for (int q = 3; q >= 0; q--)
                        if (f[q] == SCAN_INC) first_inc = q;
#pragma unroll
                    for (int q = 0; q < 4; q++) bad |= q < first_inc && f[q] == SCAN_EMPTY;
                    unsigned incs = __ballot_sync(0xffffffffu, first_inc < 4);
                    unsigned upto = incs ? (2u << (__ffs(incs) - 1)) - 1 : 0xffffffffu;
                    bad = (__ballot_sync(0xffffffffu, bad) & upto) != 0;   /* lanes <= the INC */
                } while (bad);
                __threadfence();
                unsigned incs = __ballot_sync(0xffffffffu, first_inc < 4);
                int l = incs ? __ffs(incs) - 1 : 0;
                int fi = __shfl_sync(0xffffffffu, first_inc, l);
                if (tid == 0) sm.found = incs != 0, sm.n = incs ? 4 * l + fi : SCAN_LB_WINDOW;
            }
            __syncthreads();
            const int n = sm.n, found = sm.found;
            /* lane l composes predecessors [l·q, l·q + q) of this window, 8 loads in flight */
            const int q = (n + lanes - 1) / lanes, lo = lane * q, hi = min(n, lo + q);
            float pA = 1.0f, pB = 0.0f;
            for (int i0 = lo; i0 < hi; i0 += 8) {
                float2 m[8];
#pragma unroll
                for (int u = 0; u < 8; u++)
                    if (i0 + u < hi) m[u] = __ldcg(st.agg + ((j - i0 - u) * G + g) * Cb + cl);
#pragma unroll
                for (int u = 0; u < 8; u++)
                    if (i0 + u < hi) scan_compose(pA, pB, m[u].x, m[u].y);
            }
            sm.rA[tid] = pA, sm.rB[tid] = pB;
            __syncthreads();
            for (int s = 1; !FLAT && s < lanes; s *= 2) {   /* lane l absorbs lane l + s (older) */
                if (lane % (2 * s) == 0 && lane + s < lanes) {
                    float qa = sm.rA[tid], qb = sm.rB[tid];
                    scan_compose(qa, qb, sm.rA[tid + s * Cb], sm.rB[tid + s * Cb]);
                    sm.rA[tid] = qa, sm.rB[tid] = qb;
                }
                __syncthreads();
            }
            if (tid < Cb) {
                for (int l = 0; l < (FLAT ? lanes : 1); l++)   /* FLAT: every lane's piece */
                    scan_compose(cA, cB, sm.rA[l * Cb + cl], sm.rB[l * Cb + cl]);
                if (found) {
                    int64_t jj = j - n;
                    float x = jj >= 0 ? __ldcg(st.inc + (jj * G + g) * Cb + cl)
                                      : (h0 && c < C ? ld(h0 + c) : 0.0f);
                    sm.carry[cl] = fmaf(cA, x, cB);
                }
            }
            __syncthreads();   /* s_n, rA, rB are rewritten next round */
            if (found) break;
        }
    }
    __syncthreads();
    /* 4. publish the inclusive value, then rescan from the carry and write h */
    if (tid >= 32 && tid < 32 + Cb) {   /* warp 1 publishes, the others go on writing h */
        const int pc = tid - 32, pl = (lanes - 1) * Cb + pc;
        st.inc[tile * Cb + pc] = fmaf(sm.sA[pl], sm.carry[pc], sm.sB[pl]);
        __threadfence();
        __syncwarp(Cb == 32 ? 0xffffffffu : (1u << Cb) - 1);
        if (tid == 32) atomicExch(st.flag + tile, SCAN_INC);
    }
    if (!active) return;
    float x = sm.carry[cl];
    if (lane > 0) x = fmaf(sm.sA[tid - Cb], x, sm.sB[tid - Cb]);   /* the lanes before this one */
    scan_rescan<V>(T, C, reverse, s0, c, x, av, bv, h);
}


/* One tile per block, loaded straight into registers: the library's kernel until e93fb8f (the
 * workbench's versions 5-7, 10, 11 time it at other V and with FLAT). */
template <int V, int GOFF, typename E, bool FLAT = false, typename H = E, bool NOLB = false>
__global__ void __launch_bounds__(SCAN_LB_THREADS, V <= 16 ? 3 : 2)
scan_lookback_kernel(int64_t T, int64_t C, int reverse, int Cb, int lanes, int64_t G,
                     const E *a, const E *b, const typename scan_h0<H>::type *h0, E *h,
                     scan_lb_status st)
{
    __shared__ scan_lb_smem sm;
    __shared__ long long s_tile;
    if (threadIdx.x == 0) s_tile = (long long)atomicAdd(st.counter, 1ull);
    __syncthreads();
    float av[V], bv[V];
    scan_lb_load<V, GOFF>(T, C, reverse, Cb, lanes, G, s_tile, a, b, av, bv);
    scan_lb_tile<V, E, FLAT, H, NOLB>(T, C, reverse, Cb, lanes, G, s_tile, av, bv, h0, h, st, sm);
}


/* The status word of a (tile, channel) in one of two forms (W8):
 *   16 bytes (status, A, B, 0): EMPTY is the zeroed word;
 *   8 bytes (A, B): the status told by A's bits, two NaN patterns that arithmetic never makes
 *   (results are the canonical NaN 0x7fffffff): 0xffffffff EMPTY (a 0xff-filled workspace),
 *   0xfffffffe INC (then B is the value). Twice the predecessors per register of the first. */
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


/* Persistent blocks, two tiles in registers: while the current tile looks back, the next
 * tile's loads are already in flight, so that DRAM stays busy through the look-back's waits.
 * Tile ids come from the counter in order (a block's next tile is later than its current
 * one), so the smallest unfinished tile can always finish: no deadlock. grid <= resident. */
template <int V, int GOFF, typename E, typename H = E>
__global__ void __launch_bounds__(SCAN_LB_THREADS, 2)
scan_lookback3_kernel(int64_t T, int64_t C, int reverse, int Cb, int lanes, int64_t G, int64_t ntiles,
                      const E *a, const E *b, const typename scan_h0<H>::type *h0, E *h,
                      scan_lb2_status st)
{
    __shared__ scan_lb2_smem sm;
    __shared__ long long s_tile[2];
    if (threadIdx.x == 0) s_tile[0] = (long long)atomicAdd(st.counter, 1ull);
    __syncthreads();
    long long cur = s_tile[0];
    if (cur >= ntiles) return;
    float a0[V], b0[V], a1[V], b1[V];
    scan_lb_load<V, GOFF>(T, C, reverse, Cb, lanes, G, cur, a, b, a0, b0);
    for (int buf = 0;; buf ^= 1) {
        if (threadIdx.x == 0) s_tile[1] = (long long)atomicAdd(st.counter, 1ull);
        __syncthreads();   /* also: the last tile's readers of sm are done */
        const long long nxt = s_tile[1];
        float A, B;
        if (buf == 0) {
            scan_lb2_aggregate<V>(Cb, lanes, cur, G, a0, b0, st, sm, A, B);
            if (nxt < ntiles) scan_lb_load<V, GOFF>(T, C, reverse, Cb, lanes, G, nxt, a, b, a1, b1);
            scan_lb2_lookback(C, Cb, lanes, G, cur, h0, st, sm);
            scan_lb2_finish<V>(T, C, reverse, Cb, lanes, G, cur, a0, b0, A, B, h, st, sm);
        } else {
            scan_lb2_aggregate<V>(Cb, lanes, cur, G, a1, b1, st, sm, A, B);
            if (nxt < ntiles) scan_lb_load<V, GOFF>(T, C, reverse, Cb, lanes, G, nxt, a, b, a0, b0);
            scan_lb2_lookback(C, Cb, lanes, G, cur, h0, st, sm);
            scan_lb2_finish<V>(T, C, reverse, Cb, lanes, G, cur, a1, b1, A, B, h, st, sm);
        }
        if (nxt >= ntiles) return;
        cur = nxt;
        __syncthreads();   /* s_tile[1] is rewritten at the top */
    }
}


/* ---- versions 21-23: warp-specialised persistent blocks, a ring of tiles in shared memory ---
 *
 * One block an SM: a producer warp and NG consumer groups of SCAN_LB_THREADS threads. The
 * producer claims tile ids from the counter (in order) and fills a ring of S stages, each one
 * tile of a and b (32 channels × L = 8·V steps, [L][32] floats a plane), by bulk copies
 * (cp.async.bulk, the copy engine: one 128-byte copy a step at C > 32, one for the whole tile
 * at C = 32) completing on the stage's "full" mbarrier. Group i takes every NG-th stage in
 * ring order: it waits for the stage, copies its steps into registers, frees the stage
 * ("empty" mbarrier) at once, and runs the library's three phases (aggregate, look-back,
 * finish) with its own barrier. So while a group waits on its look-back, the producer keeps
 * up to S tiles of loads in flight: waiting for carries no longer holds the data that keeps
 * DRAM busy (what versions 13-20 could not change). Rows the copy engine cannot take (a
 * channel group past C, C not a multiple of 4, steps past T) are written by the producer's
 * lanes with identity values (a = 1, b = 0) where outside the data.
 * No deadlock: each group takes its tiles in increasing order and frees a stage before it
 * looks back, so the smallest unfinished tile always has its data and its predecessors. */
#define RING_L(V) (8 * (V))   /* steps a tile (lanes = 8 at 32 channels) */

/* ---- versions 58-63, 68, 69: whole tiles by the copy engine (C = 32) ----------------------
 *
 * At C = 32 a tile of L steps is one contiguous run of L·32 elements of a, of b and of h. The
 * copy engine (cp.async.bulk, Hopper's TMA) moves it whole: thread 0 hands it one copy of a
 * and one of b into shared memory, completing on an mbarrier, and after the rescan one copy
 * of h (written over b's rows) back. The threads' own loads and stores carry only the
 * look-back's status words, so that these would no longer queue behind the tile's data in the
 * SM's load path (the staged tile's rounds take ~2.5-3 µs under load). No registers hold data:
 * the tile is in shared memory only (L = 256, three blocks an SM; L = 384 or 416, two). Lane
 * l of the 8 takes steps [l·L/8, (l+1)·L/8) of the tile, thread (l, c) channel c of them; the
 * phases are the library's (scan_lb2_lanes, scan_lb2_lookback, the rescan). Rows are in time
 * order, so a reversed tile is walked from its last row; with GOFF = 1 the row of time T - 1
 * has no gate (0), written by the threads. Needs a, b, h 16-byte aligned.
 * Measured (results/scan-workbench-staged-h200.txt, runs M-R): the loads land in half the
 * time (p50 2.6 µs at L = 256 against 5.4 µs for the staged tile) and the finish is shorter,
 * but a look-back round still takes ~2.5 µs: the rounds wait in L2, not in the SM. Smaller
 * tiles need more rounds (2.6 a tile at L = 256, 2.3 at 416, against 1.6), so 60 (L = 416)
 * runs 0.490-0.495 ms at (32, 2^22) against 56's 0.482-0.525 in the same calls: steadier, not
 * faster. Windows of 128 and 192 tiles (61-63; 68, 69 with 8-byte words) cut the rounds to
 * 1.6-1.9 and made each slower (3-4 µs). */
__device__ __forceinline__ unsigned scan_smem_addr(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void scan_mbar_init(unsigned long long *m, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(scan_smem_addr(m)), "r"(count));
}
__device__ __forceinline__ void scan_mbar_arrive_tx(unsigned long long *m, unsigned bytes)
{
    asm volatile("{ .reg .b64 st; mbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1; }" ::"r"(
                     scan_smem_addr(m)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void scan_mbar_wait(unsigned long long *m, unsigned parity)
{
    asm volatile("{ .reg .pred p; W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1; @!p bra W; }" ::"r"(
                     scan_smem_addr(m)), "r"(parity) : "memory");
}
/* bytes from global src to shared dst by the copy engine, counted on mbarrier m */
__device__ __forceinline__ void scan_bulk_load(void *dst, const void *src, unsigned bytes, unsigned long long *m)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                     scan_smem_addr(dst)), "l"(src), "r"(bytes), "r"(scan_smem_addr(m)) : "memory");
}
/* bytes from shared src to global dst; returns once src has been read (the block may exit) */
__device__ __forceinline__ void scan_bulk_store(void *dst, const void *src, unsigned bytes)
{
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;\n"
                 "cp.async.bulk.commit_group;\n"
                 "cp.async.bulk.wait_group.read 0;\n" ::"l"(dst), "r"(scan_smem_addr(src)), "r"(bytes) : "memory");
}

/* The tile (its shared part at sa, sb: [L][32] of a and of b); probe as in scan_lb2_lookback. */
template <int L, int GOFF, typename E, typename H, int Q = SCAN_LB2_Q, class P = scan_no_probe, bool W8 = false>
__device__ __forceinline__ void scan_lbb_tile(int64_t T, int reverse, const E *a, const E *b, const H *h0, E *h,
                                              const scan_lb2_status &st, E *sa, E *sb, scan_lb2_smem &sm,
                                              unsigned long long &full, const P &probe = P())
{
    constexpr int Cb = 32, lanes = SCAN_LB_THREADS / Cb, VL = L / lanes;
    static_assert(L % lanes == 0, "a lane's steps: L / 8");
    const int tid = threadIdx.x, lane = tid / Cb, cl = tid % Cb;
    const int64_t k = blockIdx.x, s0 = k * L;
    const int n = (int)(T - s0 < L ? T - s0 : L);          /* steps in this tile */
    const int64_t t0 = reverse ? T - s0 - n : s0;           /* its rows: times t0 .. t0 + n - 1 */
    const int ng = (int)(t0 + GOFF + n <= T ? n : T - t0 - GOFF);   /* rows with a gate */
    if (tid == 0) {
        scan_mbar_init(&full, 1);
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
        scan_mbar_arrive_tx(&full, (unsigned)((n + ng) * Cb * sizeof(E)));
        if (ng > 0) scan_bulk_load(sa, a + (t0 + GOFF) * Cb, (unsigned)(ng * Cb * sizeof(E)), &full);
        scan_bulk_load(sb, b + t0 * Cb, (unsigned)(n * Cb * sizeof(E)), &full);
    }
    for (int i = ng * Cb + tid; i < n * Cb; i += SCAN_LB_THREADS) ::st(sa + i, 0.0f);   /* no gate */
    __syncthreads();   /* the barrier initialised before anyone waits on it */
    scan_mbar_wait(&full, 0);
    probe.mark(0);
    /* phase 1: the thread's map over its steps, the lane scan, the aggregate */
    float A = 1.0f, B = 0.0f;
#pragma unroll 8
    for (int v = 0; v < VL; v++) {
        const int j = lane * VL + v, r = (reverse ? n - 1 - j : j) * Cb + cl;
        if (j < n) {
            const float x = ld(sa + r);
            B = fmaf(x, B, ld(sb + r)), A *= x;
        }
    }
    scan_lb2_lanes<W8>(Cb, lanes, k, 1, true, st, sm, A, B);
    probe.mark(1);
    /* phase 2 */
    scan_lb2_lookback<Q, W8, H, scan_cta, true, P>(Cb, Cb, lanes, 1, k, h0, st, sm, probe);
    probe.mark(2);
    /* phase 3: the inclusive value; the steps rescanned from the carry into b's rows */
    const float x0 = sm.carry[cl];
    if (lane == lanes - 1) scan_lbw<W8>::publish(st.word, k * Cb + cl, SCAN_INC, 0.0f, fmaf(A, x0, B), st.tag);
    float x = x0;
    if (lane > 0) x = fmaf(sm.sA[tid - Cb], x, sm.sB[tid - Cb]);   /* the lanes before this one */
#pragma unroll 8
    for (int v = 0; v < VL; v++) {
        const int j = lane * VL + v, r = (reverse ? n - 1 - j : j) * Cb + cl;
        if (j < n) {
            x = fmaf(ld(sa + r), x, ld(sb + r));
            ::st(sb + r, x);
        }
    }
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");   /* h's rows, for the copy engine */
    __syncthreads();
    if (tid == 0) scan_bulk_store(h + t0 * Cb, sb, (unsigned)(n * Cb * sizeof(E)));
}

template <int L, int MINB, int GOFF, typename E, typename H = E, int REV = -1, int Q = SCAN_LB2_Q, bool W8 = false>
__global__ void __launch_bounds__(SCAN_LB_THREADS, MINB)
scan_lbb_kernel(int64_t T, int reverse_, const E *a, const E *b, const typename scan_h0<H>::type *h0, E *h,
                scan_lb2_status st)
{
    extern __shared__ float4 scan_lbb_dyn[];
    E *sa = (E *)scan_lbb_dyn;
    __shared__ scan_lb2_smem sm;
    __shared__ __align__(8) unsigned long long full;
    scan_lbb_tile<L, GOFF, E, H, Q, scan_no_probe, W8>(T, REV >= 0 ? REV : reverse_, a, b, h0, h, st, sa, sa + L * 32, sm, full);
}

__device__ __forceinline__ void mbar_arrive(unsigned long long *m)
{
    asm volatile("{ .reg .b64 st; mbarrier.arrive.shared::cta.b64 st, [%0]; }" ::"r"(scan_smem_addr(m)) : "memory");
}
__device__ __forceinline__ void cp_async16(void *dst, const void *src)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(scan_smem_addr(dst)), "l"(src) : "memory");
}
/* one arrival on m once every cp.async this thread issued so far has landed */
__device__ __forceinline__ void cp_async_arrive(unsigned long long *m)
{
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(scan_smem_addr(m)) : "memory");
}

template <int GRP> struct ring_group {
    static __device__ __forceinline__ int tid() { return (int)threadIdx.x - 32 - GRP * SCAN_LB_THREADS; }
    static __device__ __forceinline__ void sync()
    {
        asm volatile("bar.sync %0, %1;" ::"r"(1 + GRP), "r"(SCAN_LB_THREADS) : "memory");
    }
    static __device__ __forceinline__ bool any(bool p)   /* the group's barrier, and p of any thread */
    {
        unsigned r;
        asm volatile("{\n .reg .pred q, o;\n setp.ne.u32 q, %1, 0;\n bar.red.or.pred o, %2, %3, q;\n"
                     " selp.u32 %0, 1, 0, o;\n}" : "=r"(r) : "r"((unsigned)p), "r"(1 + GRP), "r"(SCAN_LB_THREADS)
                     : "memory");
        return r != 0;
    }
};

template <int V, int S, int NG> struct ring_smem {
    float a[S][RING_L(V)][32], b[S][RING_L(V)][32];
    unsigned long long full[S], empty[S];
    long long tile[S];
    scan_lb2_smem sm[NG];
};

/* The producer warp: fill stage s with tile `tile` (or the sentinel -1 when tile >= ntiles). */
template <int V, int S, int NG, bool CPA>
__device__ __forceinline__ void ring_fill(ring_smem<V, S, NG> &r, int s, long long tile, long long ntiles,
                                          int64_t T, int64_t C, int64_t G, const float *a, const float *b)
{
    const int l = threadIdx.x & 31, L = RING_L(V);
    if (tile >= ntiles) {
        if (CPA) cp_async_arrive(&r.full[s]);
        __syncwarp();
        if (l == 0) r.tile[s] = -1, mbar_arrive(&r.full[s]);
        return;
    }
    if (CPA) {   /* 16-byte cp.async per lane; each lane's async arrival, then lane 0's */
        const int64_t s0 = (tile / G) * L, c0 = (tile % G) * 32;
        const int rows = (int)(T - s0 < L ? T - s0 : L);
        for (int i = l; i < L * 8; i += 32) {
            const int row = i >> 3, q = (i & 7) * 4;
            const int64_t c = c0 + q, e = (s0 + row) * C + c;
            if (row < rows && c + 4 <= C && C % 4 == 0) {
                cp_async16(&r.a[s][row][q], a + e);
                cp_async16(&r.b[s][row][q], b + e);
            } else {
                for (int j = 0; j < 4; j++) {
                    const bool in = row < rows && c + j < C;
                    r.a[s][row][q + j] = in ? a[e + j] : 1.0f;
                    r.b[s][row][q + j] = in ? b[e + j] : 0.0f;
                }
            }
        }
        cp_async_arrive(&r.full[s]);
        __syncwarp();
        if (l == 0) r.tile[s] = tile, mbar_arrive(&r.full[s]);
        return;
    }
    const int64_t g = tile % G, k = tile / G, s0 = k * L, c0 = g * 32;
    const int rows = (int)(T - s0 < L ? T - s0 : L);          /* steps with data */
    const bool bulk = c0 + 32 <= C && C % 4 == 0;              /* whole 128-byte rows */
    /* rows the copy engine does not take: written by the lanes (lane = channel) */
    for (int i = bulk ? rows : 0; i < L; i++) {
        const bool in = i < rows && c0 + l < C;
        r.a[s][i][l] = in ? a[(s0 + i) * C + c0 + l] : 1.0f;
        r.b[s][i][l] = in ? b[(s0 + i) * C + c0 + l] : 0.0f;
    }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncwarp();
    if (l == 0) r.tile[s] = tile, scan_mbar_arrive_tx(&r.full[s], bulk ? 2u * 128u * (unsigned)rows : 0u);
    __syncwarp();
    if (!bulk) return;
    if (C == 32) {   /* the tile is one contiguous run in each plane */
        if (l == 0) scan_bulk_load(&r.a[s][0][0], a + s0 * C, 128u * rows, &r.full[s]);
        if (l == 1) scan_bulk_load(&r.b[s][0][0], b + s0 * C, 128u * rows, &r.full[s]);
        return;
    }
    for (int i = l; i < rows; i += 32) {
        scan_bulk_load(&r.a[s][i][0], a + (s0 + i) * C + c0, 128u, &r.full[s]);
        scan_bulk_load(&r.b[s][i][0], b + (s0 + i) * C + c0, 128u, &r.full[s]);
    }
}

template <int V, int S, int NG, int Q, int GRP>
__device__ __forceinline__ void ring_consume(ring_smem<V, S, NG> &r, int64_t T, int64_t C, int64_t G, float *h,
                                             scan_lb2_status st)
{
    typedef ring_group<GRP> grp;
    const int tid = grp::tid(), lane = tid / 32, cl = tid % 32, lanes = 8;
    scan_lb2_smem &sm = r.sm[GRP];
    for (int it = GRP;; it += NG) {
        const int s = it % S;
        scan_mbar_wait(&r.full[s], (unsigned)(it / S) & 1u);
        const long long tile = r.tile[s];
        if (tile < 0) return;
        float av[V], bv[V], A, B;
#pragma unroll
        for (int v = 0; v < V; v++) av[v] = r.a[s][lane * V + v][cl], bv[v] = r.b[s][lane * V + v][cl];
        grp::sync();   /* every thread of the group has its steps: the stage is free */
        if (tid == 0) mbar_arrive(&r.empty[s]);
        scan_lb2_aggregate<V, false, grp>(32, lanes, tile, G, av, bv, st, sm, A, B);
        scan_lb2_lookback<Q, false, float, grp>(C, 32, lanes, G, tile, (const float *)NULL, st, sm);
        scan_lb2_finish<V, false, float, grp>(T, C, 0, 32, lanes, G, tile, av, bv, A, B, h, st, sm);
        grp::sync();   /* sm is reused by the group's next tile */
    }
}

template <int V, int S, int NG, int Q, bool STATIC = false, bool CPA = false>
__global__ void __launch_bounds__(32 + NG * SCAN_LB_THREADS, 1)
scan_ring_kernel(int64_t T, int64_t C, int64_t G, long long ntiles, const float *a, const float *b, float *h,
                 scan_lb2_status st)
{
    extern __shared__ __align__(128) unsigned char ring_raw[];
    ring_smem<V, S, NG> &r = *reinterpret_cast<ring_smem<V, S, NG> *>(ring_raw);
    if (threadIdx.x == 0)
        for (int s = 0; s < S; s++) scan_mbar_init(&r.full[s], CPA ? 33 : 1), scan_mbar_init(&r.empty[s], 1);
    __syncthreads();
    if (threadIdx.x < 32) {   /* the producer warp */
        int sentinels = 0;
        for (int it = 0; sentinels < NG; it++) {
            const int s = it % S;
            if (it >= S) scan_mbar_wait(&r.empty[s], (unsigned)(it / S - 1) & 1u);
            long long tile = 0;
            if (STATIC) tile = (long long)blockIdx.x + (long long)it * gridDim.x;
            else if ((threadIdx.x & 31) == 0) tile = (long long)atomicAdd(st.counter, 1ull);
            if (!STATIC) tile = __shfl_sync(0xffffffffu, tile, 0);
            ring_fill<V, S, NG, CPA>(r, s, tile, ntiles, T, C, G, a, b);
            sentinels += tile >= ntiles;
        }
        return;
    }
    const int grp = (threadIdx.x - 32) / SCAN_LB_THREADS;
    if (grp == 0) ring_consume<V, S, NG, Q, 0>(r, T, C, G, h, st);
    else if (NG > 1) ring_consume<V, S, NG, Q, (NG > 1 ? 1 : 0)>(r, T, C, G, h, st);
}

/* ---- versions 27-29: the look-back LAG tiles behind the loads, the tile re-read from L2 ----
 *
 * Block j (ids from the counter, in start order) issues the loads of tile j into registers,
 * then, while they are in flight, completes tile i = j − LAG: its steps read again (they were
 * read from DRAM by block i, LAG tiles earlier, and are still in L2), its lane scan, its
 * look-back, its INC, its h; then it folds tile j and publishes tile j's aggregate. The
 * look-back of tile i finds its predecessors' aggregates long published (no EMPTY polls), and
 * its waiting overlaps tile j's DRAM loads instead of holding DRAM idle; the price is a
 * second read of each tile from L2 (LAG tiles of a and b, 64 KB each at V = 32, must stay
 * there). The first LAG blocks only load; the last LAG blocks (ids past the tiles) only
 * complete. Deadlock-free: what block j waits for was published by blocks that started
 * earlier. Phase B reads and writes in chunks of LAG_CHUNK steps (phase A's registers are live). */
#define LAG_CHUNK 4   /* phase B's steps in flight a thread */
template <int V, int Q, bool W8>
__device__ __forceinline__ void lag_complete(int64_t T, int64_t C, int Cb, int lanes, int64_t G, int64_t tile,
                                             const float *a, const float *b, float *h, const scan_lb2_status &st,
                                             scan_lb2_smem &sm)
{
    const int tid = threadIdx.x, lane = tid / Cb, cl = tid % Cb;
    const int64_t g = tile % G, k = tile / G, c = g * Cb + cl, s0 = (k * lanes + lane) * V;
    const bool active = lane < lanes && c < C;
    float A = 1.0f, B = 0.0f;
#pragma unroll
    for (int v0 = 0; v0 < V; v0 += LAG_CHUNK) {
        float x[LAG_CHUNK], y[LAG_CHUNK];
#pragma unroll
        for (int v = 0; v < LAG_CHUNK; v++) {
            const bool in = active && s0 + v0 + v < T;
            x[v] = in ? a[(s0 + v0 + v) * C + c] : 1.0f;   /* read again below (L1, else L2) */
            y[v] = in ? b[(s0 + v0 + v) * C + c] : 0.0f;
        }
#pragma unroll
        for (int v = 0; v < LAG_CHUNK; v++) B = fmaf(x[v], B, y[v]), A *= x[v];
    }
    scan_lb2_lanes<W8>(Cb, lanes, tile, G, false, st, sm, A, B);
    scan_lb2_lookback<Q, W8>(C, Cb, lanes, G, tile, (const float *)NULL, st, sm);
    const float x0 = sm.carry[cl];
    if (lane == lanes - 1) scan_lbw<W8>::publish(st.word, tile * Cb + cl, SCAN_INC, 0.0f, fmaf(A, x0, B), st.tag);
    float xc = x0;
    if (lane > 0) xc = fmaf(sm.sA[tid - Cb], xc, sm.sB[tid - Cb]);
    if (!active) return;
#pragma unroll
    for (int v0 = 0; v0 < V; v0 += LAG_CHUNK) {
        float x[LAG_CHUNK], y[LAG_CHUNK];
#pragma unroll
        for (int v = 0; v < LAG_CHUNK; v++) {
            const bool in = s0 + v0 + v < T;
            x[v] = in ? __ldcs(a + (s0 + v0 + v) * C + c) : 1.0f;   /* their last use */
            y[v] = in ? __ldcs(b + (s0 + v0 + v) * C + c) : 0.0f;
        }
#pragma unroll
        for (int v = 0; v < LAG_CHUNK; v++) {
            xc = fmaf(x[v], xc, y[v]);
            if (s0 + v0 + v < T) __stcs(h + (s0 + v0 + v) * C + c, xc);
        }
    }
}

template <int V, int Q, bool W8>
__global__ void __launch_bounds__(SCAN_LB_THREADS, 2)
scan_lag_kernel(int64_t T, int64_t C, int Cb, int lanes, int64_t G, long long ntiles, long long lag, const float *a,
                const float *b, float *h, scan_lb2_status st)
{
    __shared__ scan_lb2_smem sm;
    __shared__ long long s_tile;
    if (threadIdx.x == 0) s_tile = (long long)atomicAdd(st.counter, 1ull);
    __syncthreads();
    const long long j = s_tile, i = j - lag;
    float av[V], bv[V];
    if (j < ntiles) scan_lb_load<V, 0>(T, C, 0, Cb, lanes, G, j, a, b, av, bv);
    if (i >= 0) {
        lag_complete<V, Q, W8>(T, C, Cb, lanes, G, i, a, b, h, st, sm);
        __syncthreads();   /* sm is phase A's next */
    }
    if (j < ntiles) {
        float A, B;
        scan_lb2_aggregate<V, W8>(Cb, lanes, j, G, av, bv, st, sm, A, B);
    }
}

/* ---- versions 31-33, 35: the library's tile (scan_lbs_kernel) staged by 16-byte copies -------
 *
 * Version 12 showed the tiles themselves at copy speed and the look-back's wait as the loss;
 * the wait's cost per byte falls with the tile's size (one look-back a tile, and the chain's
 * inclusive front crosses half as many tiles per byte at twice the size), but registers cap a
 * tile at V = 32 steps a thread (48 spilled, version 10). In scan_lbs_kernel (version 34, the
 * library's since) a thread owns VS + VR consecutive steps of its channel: the first VS land
 * in shared memory by cp.async (no registers while in flight), the last VR in registers.
 * These versions stage the shared part differently: whole 128-byte rows of the tile in
 * 16-byte copies (a row of 32 channels is 8 of them, a thread's copies are other threads'
 * data), C % 4 == 0 and 32-channel tiles only. BIDX (35) takes the tile id from blockIdx
 * instead of the counter: it relies on blocks starting in index order (CUDA does not promise
 * it), timed to see what the counter's round trip costs; the library took it up at efe7c8b.
 * (cp_async16: versions 24-26's, above.) */
template <int VR, int VS, int MINB, bool BIDX = false, bool W8 = false, int SPEC = 0>
__global__ void __launch_bounds__(SCAN_LB_THREADS, MINB)
scan_lbs_rows_kernel(int64_t T, int64_t C, int Cb, int lanes, int64_t G, const float *a, const float *b, float *h,
                     scan_lb2_status st)
{
    constexpr int VL = VS + VR;
    extern __shared__ float4 lbs_dyn[];
    float *sa = (float *)lbs_dyn, *sb = sa + SCAN_LB_THREADS * VS;
    __shared__ scan_lb2_smem sm;
    __shared__ long long s_tile;
    if (!BIDX && threadIdx.x == 0) s_tile = (long long)atomicAdd(st.counter, 1ull);
    if (!BIDX) __syncthreads();
    const long long tile = BIDX ? (long long)blockIdx.x : s_tile;
    const int tid = threadIdx.x;
    const int64_t g = tile % G, k = tile / G;
    /* the shared part: [lane][v][cl], whole rows (C % 4 == 0, Cb = 32) */
    const int64_t c0 = g * 32;
    for (int i = tid; i < lanes * VS * 8; i += SCAN_LB_THREADS) {
        const int row = i / 8, q = i % 8, ln = row / VS, v = row % VS;
        const int64_t s = (k * lanes + ln) * VL + v;
        float *da = sa + (ln * VS + v) * 32 + q * 4, *db = sb + (ln * VS + v) * 32 + q * 4;
        if (s < T && c0 + q * 4 < C) {
            cp_async16(da, a + s * C + c0 + q * 4);
            cp_async16(db, b + s * C + c0 + q * 4);
        } else {
            *(float4 *)da = make_float4(1.0f, 1.0f, 1.0f, 1.0f);
            *(float4 *)db = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        }
    }
    asm volatile("cp.async.commit_group;\n" ::);
    float av[VR], bv[VR];   /* the register part */
    scan_lb_load<VR, 0>(T, C, 0, Cb, lanes, G, tile, a, b, av, bv, VL, VS);
    asm volatile("cp.async.wait_all;\n" ::);
    __syncthreads();
    /* partial rounds (PART) with 8-byte words: version 50 has both, 35 neither */
    scan_lbs_tile<VS, VR, SCAN_LB2_Q, W8, float, float, scan_no_probe, W8, SPEC>(T, C, 0, Cb, lanes, G, tile, sa, sb,
                                                                              av, bv, (const float *)NULL, h, st, sm);
}

/* Versions 70-72: the library's staged tile (VS = VR = 32, forward) with its look-back replaced
 * by a wait of D ns and no carries at all (every tile starts from 0: a wrong result, timed
 * only, as version 12). What a tile's idle time costs by itself, without the chain: if a
 * look-back's ~5 µs of waiting cost the same with no tile waiting on another, the tiles'
 * residency is what to buy; if it cost less, the convoys the chain makes (a late tile holding
 * up every later one) are. */
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

/* ---- versions 75-80: the library's staged tile with its loads paced ---------------------------
 *
 * Every tile issues its whole read at once (128 KB at VS = VR = 32), so ~264 tiles keep ~30 MB
 * of loads queued where DRAM needs ~4 MB in flight (4.8 TB/s × ~0.8 µs): the queues make every
 * L2 round trip long, the look-back's rounds among them (~2.5-3 µs, timeline). Here a thread
 * keeps only WIN chunks of K steps in flight (one cp.async group a chunk; the register part
 * lands in a shared transit ring of WIN slots and is moved to registers), and folds each chunk
 * as it lands: WIN·K·2 KB of loads a block. If the round trips shorten and the loads still
 * fill DRAM, the tile's idle time shrinks. f32, forward; a thread touches only its own shared
 * elements until the lane scan, so no barrier is needed before it. */
template <int n> __device__ __forceinline__ void cp_wait_group() { asm volatile("cp.async.wait_group %0;\n" ::"n"(n) : "memory"); }
__device__ __forceinline__ void cp_wait_dyn(int n)   /* n folds to a constant once unrolled */
{
    switch (n) {
    case 0: cp_wait_group<0>(); break;
    case 1: cp_wait_group<1>(); break;
    case 2: cp_wait_group<2>(); break;
    case 3: cp_wait_group<3>(); break;
    case 4: cp_wait_group<4>(); break;
    case 5: cp_wait_group<5>(); break;
    case 6: cp_wait_group<6>(); break;
    default: cp_wait_group<7>(); break;
    }
}

/* The thread's VS + VR steps: the first VS staged at sa, sb as the library stages them, the
 * last VR through the transit ring ta, tb ([WIN][K][256]) into av, bv; (A, B) their map. */
template <int VS, int VR, int K, int WIN>
__device__ __forceinline__ void scan_lbt_load(int64_t T, int64_t C, int Cb, int lanes, int64_t G, int64_t tile,
                                              const float *a, const float *b, float *sa, float *sb, float *ta,
                                              float *tb, float (&av)[VR], float (&bv)[VR], float &A, float &B)
{
    constexpr int VL = VS + VR, NC = VL / K;
    static_assert(VS % K == 0 && VR % K == 0 && WIN <= 8, "chunks of K steps, at most 8 in flight");
    const int tid = threadIdx.x, lane = tid / Cb, cl = tid % Cb;
    const int64_t g = tile % G, k = tile / G, c = g * Cb + cl, s0 = (k * lanes + lane) * VL;
    const bool active = lane < lanes && c < C;
    auto slot = [&](int v, float *&pa, float *&pb) {   /* where step v lands */
        if (v < VS) pa = sa + (lane * VS + v) * Cb + cl, pb = sb + (lane * VS + v) * Cb + cl;
        else pa = ta + (((v / K) % WIN) * K + v % K) * SCAN_LB_THREADS + tid, pb = tb + (pa - ta);
    };
    auto issue = [&](int i) {
#pragma unroll
        for (int j = 0; j < K; j++) {
            const int v = i * K + j;
            if (v < VS && lane >= lanes) continue;
            float *pa, *pb;
            slot(v, pa, pb);
            if (active && s0 + v < T) scan_cp4(pa, a + (s0 + v) * C + c), scan_cp4(pb, b + (s0 + v) * C + c);
            else *pa = 1.0f, *pb = 0.0f;
        }
        asm volatile("cp.async.commit_group;\n" ::: "memory");
    };
    A = 1.0f, B = 0.0f;
#pragma unroll
    for (int i = 0; i < WIN && i < NC; i++) issue(i);
#pragma unroll
    for (int i = 0; i < NC; i++) {
        cp_wait_dyn((i + WIN < NC ? i + WIN : NC) - i - 1);
#pragma unroll
        for (int j = 0; j < K; j++) {
            const int v = i * K + j;
            float *pa, *pb, x = 1.0f, y = 0.0f;
            slot(v, pa, pb);
            if (v >= VS || lane < lanes) x = *pa, y = *pb;
            if (v >= VS) av[v - VS] = x, bv[v - VS] = y;
            B = fmaf(x, B, y), A *= x;
        }
        if (i + WIN < NC) issue(i + WIN);
    }
}

template <int K, int WIN>
__global__ void __launch_bounds__(SCAN_LB_THREADS, 2)
scan_lbt_kernel(int64_t T, int64_t C, int Cb, int lanes, int64_t G, const float *a, const float *b, float *h,
                scan_lb2_status st)
{
    constexpr int VS = SCAN_LBS_VS, VR = SCAN_LBS_VR;
    extern __shared__ float4 lbt_dyn[];
    float *sa = (float *)lbt_dyn, *sb = sa + SCAN_LB_THREADS * VS, *ta = sb + SCAN_LB_THREADS * VS,
          *tb = ta + WIN * K * SCAN_LB_THREADS;
    __shared__ scan_lb2_smem sm;
    const long long tile = blockIdx.x;
    float av[VR], bv[VR], A, B;
    scan_lbt_load<VS, VR, K, WIN>(T, C, Cb, lanes, G, tile, a, b, sa, sb, ta, tb, av, bv, A, B);
    scan_lbs_finish<VS, VR, SCAN_LB2_Q, true, float, float>(T, C, 0, Cb, lanes, G, tile, sa, sb, av, bv,
                                                            (const float *)NULL, h, st, sm, A, B);
}

/* The persistent kernel's probes: none (lbp2_quiet), or the timeline's stamps per tile
 * (lbp2_probe, as tile_probe's: the step's start to its tile landed and folded (0), the
 * lane scan, the next claim and loads issued (1), the look-back (2), h written (3)). */
struct lbp2_quiet {
    long long *t, *out;
    __device__ __forceinline__ void begin() const {}
    __device__ __forceinline__ void mark(int) const {}
    __device__ __forceinline__ void round() const {}
    __device__ __forceinline__ void empty() const {}
    __device__ __forceinline__ void end(int64_t) const {}
};
struct lbp2_probe {
    long long *t, *out;   /* t: shared [start clock, marks 0-2, EMPTY rounds, rounds]; out: [tile][7] */
    __device__ __forceinline__ void begin() const
    {
        if (threadIdx.x == 0) t[0] = clock64(), t[4] = 0, t[5] = 0;
    }
    __device__ __forceinline__ void mark(int k) const
    {
        if (threadIdx.x == 0) t[1 + k] = clock64();
    }
    __device__ __forceinline__ void round() const
    {
        if (threadIdx.x == 0) t[5]++;
    }
    __device__ __forceinline__ void empty() const { t[4]++; }
    __device__ __forceinline__ void end(int64_t tile) const
    {
        __syncthreads();
        if (threadIdx.x == 0) {
            long long *o = out + tile * 7;
            unsigned long long g;
            unsigned smid;
            asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g));
            asm("mov.u32 %0, %%smid;" : "=r"(smid));
            const long long now = clock64();
            o[0] = (long long)g, o[1] = t[1] - t[0], o[2] = t[2] - t[1], o[3] = t[3] - t[2], o[4] = now - t[3];
            o[5] = smid, o[6] = t[5] | t[4] << 32;
        }
    }
};

/* ---- versions 81-86: persistent blocks, two staged tiles a block ---------------------------
 *
 * The timeline of the library's tile at (32, 2^22) (run U): 14.7 µs a tile, of which the loads
 * take ~6.4 (to the last register), the lane scan 0.7, the look-back 4.4 and writing h 3.2;
 * during the look-back and the writes the tile's loads are done and its block issues none.
 * Here a block stays resident (grid: the blocks that fit at once) and takes tiles b, b + N,
 * b + 2N, ... (N blocks): two sets of buffers (shared stage and registers), and the next
 * tile's loads are issued right after the current tile's aggregate is published, so that
 * they fly during its look-back and its writes. Tiles are smaller (VS + VR steps a thread,
 * both sets resident), so the look-backs per byte rise. A block waits only for tiles of
 * lower index, all held by resident blocks that publish their aggregates without waiting:
 * no deadlock. DYN (85, 86): tile ids from a counter instead, claimed a step ahead (the smallest
 * tile in a block's look-back has every lower tile done, so again no deadlock). STAG > 0: block b starts b·STAG/N ns late, so that the blocks' rounds do not
 * all look back at once (the first tiles of a round otherwise reach the previous round's
 * inclusive value through up to N/window rounds). f32, forward. */
template <int VS, int VR>
__device__ __forceinline__ void scan_lbp2_issue(int64_t T, int64_t C, int Cb, int lanes, int64_t G, int64_t n,
                                                int64_t tile, const float *a, const float *b, float *sa, float *sb,
                                                float (&av)[VR], float (&bv)[VR])
{
    if (tile < n) {
        scan_lbs_stage<VS, 0>(T, C, 0, Cb, lanes, G, tile, VS + VR, a, b, sa, sb);
        scan_lb_load<VR, 0>(T, C, 0, Cb, lanes, G, tile, a, b, av, bv, VS + VR, VS);
    }
    asm volatile("" ::: "memory");   /* the loads stay ahead of the look-back */
}

/* One tile from its landed buffers (sa, sb, av, bv); the next tile's loads into (na, nb, nav, nbv).
 * The next tile: `next`, or (DYN) the counter's id that thread 0 claimed a step ago (`pending`,
 * so that the atomic's round trip is off the path), thread 0 claiming the one after it. */
template <int VS, int VR, int Q, bool DYN, class P = lbp2_quiet>
__device__ __forceinline__ int64_t scan_lbp2_step(int64_t T, int64_t C, int Cb, int lanes, int64_t G, int64_t n,
                                                  int64_t tile, int64_t next, const float *a, const float *b, float *h,
                                                  const scan_lb2_status &st, scan_lb2_smem &sm, float *sa,
                                                  float *sb, const float (&av)[VR], const float (&bv)[VR],
                                                  float *na, float *nb, float (&nav)[VR], float (&nbv)[VR],
                                                  long long *s_next, unsigned long long &pending,
                                                  const P &probe = P())
{
    probe.begin();
    asm volatile("cp.async.wait_all;\n" ::: "memory");   /* this tile's stage: the only group out */
    __syncthreads();   /* and every thread is done with the buffers the next tile's loads take */
    const int tid = threadIdx.x;
    float A, B;
    scan_lbs_fold<VS, VR>(Cb, lanes, sa, sb, av, bv, A, B);
    probe.mark(0);
    scan_lb2_lanes<false>(Cb, lanes, tile, G, true, st, sm, A, B);
    if (DYN) {
        if (tid == 0) *s_next = (long long)pending, pending = atomicAdd(st.counter, 1ull);
        __syncthreads();
        next = *s_next;
    }
    scan_lbp2_issue<VS, VR>(T, C, Cb, lanes, G, n, next, a, b, na, nb, nav, nbv);
    probe.mark(1);
    scan_lb2_lookback<Q, false, float, scan_cta, true, P>(C, Cb, lanes, G, tile, (const float *)NULL, st, sm, probe);
    probe.mark(2);
    scan_lbs_out<VS, VR, float>(T, C, 0, Cb, lanes, G, tile, sa, sb, av, bv, h, st, sm, A, B, sm.carry[threadIdx.x % Cb]);
    probe.end(tile);
    return next;
}

template <int VS, int VR, int Q, int STAG, bool DYN = false, class P = lbp2_quiet>
__global__ void __launch_bounds__(SCAN_LB_THREADS, 2)
scan_lbp2_kernel(int64_t T, int64_t C, int Cb, int lanes, int64_t G, int64_t n, const float *a, const float *b,
                 float *h, scan_lb2_status st, long long *stamps = NULL)
{
    extern __shared__ float4 lbp2_dyn[];
    float *s0a = (float *)lbp2_dyn, *s0b = s0a + SCAN_LB_THREADS * VS, *s1a = s0b + SCAN_LB_THREADS * VS,
          *s1b = s1a + SCAN_LB_THREADS * VS;
    __shared__ scan_lb2_smem sm;
    const int64_t N = gridDim.x;
    if (STAG > 0) {
        unsigned long long t0, t;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
        const unsigned long long until = t0 + (unsigned long long)STAG * blockIdx.x / N;
        do {
            __nanosleep(100);
            asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
        } while (t < until);
    }
    __shared__ long long s_next;
    unsigned long long pending = 0;   /* DYN, thread 0: the id claimed for the step after next */
    float av0[VR], bv0[VR], av1[VR], bv1[VR];
    int64_t t = blockIdx.x;
    if (DYN) {
        if (threadIdx.x == 0) s_next = (long long)atomicAdd(st.counter, 1ull), pending = atomicAdd(st.counter, 1ull);
        __syncthreads();
        t = s_next;
    }
    __shared__ long long pt[6];
    const P probe = {pt, stamps};
    scan_lbp2_issue<VS, VR>(T, C, Cb, lanes, G, n, t, a, b, s0a, s0b, av0, bv0);
    while (t < n) {
        const int64_t t1 = scan_lbp2_step<VS, VR, Q, DYN, P>(T, C, Cb, lanes, G, n, t, t + N, a, b, h, st, sm, s0a,
                                                             s0b, av0, bv0, s1a, s1b, av1, bv1, &s_next, pending,
                                                             probe);
        if (t1 >= n) break;
        t = scan_lbp2_step<VS, VR, Q, DYN, P>(T, C, Cb, lanes, G, n, t1, t1 + N, a, b, h, st, sm, s1a, s1b, av1,
                                              bv1, s0a, s0b, av0, bv0, &s_next, pending, probe);
    }
}

/* ---- versions 45, 46: the library's tile, its shared part by bulk copies at C = 32 -----------
 *
 * At C = 32 a lane's VS staged steps are VS whole rows, one contiguous run of VS·128 bytes of
 * a and of b: thread 0 hands the copy engine 2·lanes bulk copies (cp.async.bulk) completing on
 * one mbarrier, instead of 2·VS 4-byte cp.async from every thread (version 42's, the
 * library's). Tiles that reach past T (the last) and C != 32 stage as the library does.
 * 45 VS = VR = 32; 46 VS = 48 (a tile of 640 steps, 96 KB of shared memory a block). */
template <int VS, int VR>
__global__ void __launch_bounds__(SCAN_LB_THREADS, 2)
scan_lbs_bulk_kernel(int64_t T, int64_t C, int Cb, int lanes, int64_t G, const float *a, const float *b,
                     float *h, scan_lb2_status st)
{
    constexpr int VL = VS + VR;
    extern __shared__ float4 bulk_dyn[];
    float *sa = (float *)bulk_dyn, *sb = sa + SCAN_LB_THREADS * VS;
    __shared__ scan_lb2_smem sm;
    __shared__ __align__(8) unsigned long long full;
    const long long tile = blockIdx.x;
    const int64_t k = tile / G;
    const bool bulk = C == 32 && (k * lanes + lanes) * VL <= T;
    if (bulk) {
        if (threadIdx.x == 0) {
            scan_mbar_init(&full, 1);
            asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
            scan_mbar_arrive_tx(&full, 2u * lanes * VS * 32 * 4);
            for (int l = 0; l < lanes; l++) {
                const int64_t s = (k * lanes + l) * VL;
                scan_bulk_load(sa + l * VS * 32, a + s * 32, VS * 32 * 4, &full);
                scan_bulk_load(sb + l * VS * 32, b + s * 32, VS * 32 * 4, &full);
            }
        }
    } else {
        scan_lbs_stage<VS, 0>(T, C, 0, Cb, lanes, G, tile, VL, a, b, sa, sb);
    }
    float av[VR], bv[VR];
    scan_lb_load<VR, 0>(T, C, 0, Cb, lanes, G, tile, a, b, av, bv, VL, VS);
    if (bulk) {
        __syncthreads();   /* the barrier is initialised before anyone waits on it */
        scan_mbar_wait(&full, 0);
    } else {
        asm volatile("cp.async.wait_all;\n" ::);
    }
    __syncthreads();
    scan_lbs_tile<VS, VR, SCAN_LB2_Q, true>(T, C, 0, Cb, lanes, G, tile, sa, sb, av, bv, (const float *)NULL, h, st,
                                            sm);
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

template <int Q, bool W8, int K = 0, int WIN = 0>   /* K > 0: the loads paced (scan_lbt_load) */
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
    if (K > 0) {
        float A, B, *ta = sb + SCAN_LB_THREADS * VS;
        scan_lbt_load<VS, VR, (K > 0 ? K : 1), (K > 0 ? WIN : 1)>(T, C, Cb, lanes, G, tile, a, b, sa, sb, ta,
                                                                 ta + WIN * K * SCAN_LB_THREADS, av, bv, A, B);
        if (threadIdx.x == 0) t[0] = clock64(), t[3] = 0, t[4] = 0;
        const tile_probe probe = {t};
        scan_lbs_finish<VS, VR, Q, true, float, float, tile_probe, W8>(T, C, 0, Cb, lanes, G, tile, sa, sb, av, bv,
                                                                       (const float *)NULL, h, st, sm, A, B, probe);
    } else {
        scan_lbs_load<VS, VR, 0>(T, C, 0, Cb, lanes, G, tile, a, b, sa, sb, av, bv);
        if (threadIdx.x == 0) t[0] = clock64(), t[3] = 0, t[4] = 0;
        const tile_probe probe = {t};   /* marks 1 and 2, rounds, rounds that met an EMPTY word */
        scan_lbs_tile<VS, VR, Q, true, float, float, tile_probe, W8>(T, C, 0, Cb, lanes, G, tile, sa, sb, av, bv,
                                                                     (const float *)NULL, h, st, sm, probe);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        long long *o = stamps + tile * 7;
        unsigned smid;
        asm("mov.u32 %0, %%smid;" : "=r"(smid));
        o[0] = (long long)g0, o[1] = t[0] - c0, o[2] = t[1] - t[0], o[3] = t[2] - t[1], o[4] = clock64() - t[2];
        o[5] = smid, o[6] = t[4] | t[3] << 32;
    }
}

/* The same stamps on a whole tile by the copy engine (scan_lbb_tile, versions 58-63, 68, 69; C = 32). */
template <int L, int MINB, int Q, bool W8>
__global__ void __launch_bounds__(SCAN_LB_THREADS, MINB)
scan_lbb_probe_kernel(int64_t T, const float *a, const float *b, float *h, scan_lb2_status st, long long *stamps)
{
    extern __shared__ float4 probe_dyn[];
    float *sa = (float *)probe_dyn;
    __shared__ scan_lb2_smem sm;
    __shared__ __align__(8) unsigned long long full;
    __shared__ long long t[5];
    unsigned long long g0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
    const long long c0 = clock64();
    if (threadIdx.x == 0) t[3] = 0, t[4] = 0;   /* seen after the tile's first barrier */
    const tile_probe probe = {t};
    scan_lbb_tile<L, 0, float, float, Q, tile_probe, W8>(T, 0, a, b, (const float *)NULL, h, st, sa,
                                                               sa + L * 32, sm, full, probe);
    __syncthreads();
    if (threadIdx.x == 0) {
        long long *o = stamps + blockIdx.x * 7;
        unsigned smid;
        asm("mov.u32 %0, %%smid;" : "=r"(smid));
        o[0] = (long long)g0, o[1] = t[0] - c0, o[2] = t[1] - t[0], o[3] = t[2] - t[1], o[4] = clock64() - t[2];
        o[5] = smid, o[6] = t[4] | t[3] << 32;
    }
}

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

/* ---- version 4: the first look-back (see the list above) ---------------------------------- */

template <int V, typename E>
__global__ void __launch_bounds__(SCAN_LB_THREADS)
scan_lookback_kernel4(int64_t T, int64_t C, int reverse, int goff, int Cb, int lanes, int64_t G,
                     const E *a, const E *b, const E *h0, E *h, scan_lb_status st)
{
    __shared__ float sA[SCAN_LB_THREADS], sB[SCAN_LB_THREADS], s_carry[SCAN_LB_THREADS];
    __shared__ long long s_tile;
    __shared__ int s_n, s_found;
    const int tid = threadIdx.x, lane = tid / Cb, cl = tid % Cb;
    if (tid == 0) s_tile = (long long)atomicAdd(st.counter, 1ull);
    __syncthreads();
    const int64_t tile = s_tile, g = tile % G, k = tile / G, c = g * Cb + cl;
    const bool active = lane < lanes && c < C;
    const int64_t s0 = (k * lanes + lane) * V;

    /* 1. the tile's one read of a and b */
    float av[V], bv[V];
#pragma unroll
    for (int v = 0; v < V; v++) {
        av[v] = 1.0f, bv[v] = 0.0f;   /* identity beyond T or C */
        if (active && s0 + v < T) {
            int64_t t = scan_time(T, reverse, s0 + v);
            av[v] = scan_gate<0>(a, T, C, t, c);
            bv[v] = ld(b + t * C + c);
        }
    }
    /* 2. the thread's map, then an inclusive scan of the maps across lanes */
    float A = 1.0f, B = 0.0f;
#pragma unroll
    for (int v = 0; v < V; v++) B = fmaf(av[v], B, bv[v]), A *= av[v];
    sA[tid] = A, sB[tid] = B;
    __syncthreads();
    for (int off = 1; off < lanes; off *= 2) {
        float pa = 1.0f, pb = 0.0f;
        if (lane >= off && lane < lanes) pa = sA[tid - off * Cb], pb = sB[tid - off * Cb];
        __syncthreads();
        B = fmaf(A, pb, B), A *= pa;
        sA[tid] = A, sB[tid] = B;
        __syncthreads();
    }
    const int last = (lanes - 1) * Cb + cl;   /* the tile's aggregate, for channel cl */

    /* 3. carry-in: h0 for the first chunk, else look back */
    if (k == 0) {
        if (tid < Cb) s_carry[cl] = (h0 && c < C) ? ld(h0 + c) : 0.0f;
    } else {
        if (tid < Cb) st.agg[tile * Cb + cl] = make_float2(sA[last], sB[last]);
        __threadfence();
        __syncthreads();
        if (tid == 0) atomicExch(st.flag + tile, SCAN_AGG);
        float cA = 1.0f, cB = 0.0f;   /* the predecessors composed so far, nearest first */
        for (int64_t j = k - 1;; j -= 32) {
            if (tid < 32) {   /* warp 0 polls the flags of chunks j, j-1, ..., j-31 */
                int64_t jj = j - tid;
                unsigned empty, inc;
                do {
                    int f = jj >= 0 ? *(volatile int *)(st.flag + jj * G + g) : SCAN_INC;
                    empty = __ballot_sync(0xffffffffu, f == SCAN_EMPTY);
                    inc = __ballot_sync(0xffffffffu, f == SCAN_INC);
                    int n = inc ? __ffs(inc) - 1 : 32;
                    empty &= n == 32 ? 0xffffffffu : (1u << n) - 1;   /* only nearer ones matter */
                } while (empty);
                __threadfence();
                if (tid == 0) s_n = inc ? __ffs(inc) - 1 : 32, s_found = inc != 0;
            }
            __syncthreads();
            const int n = s_n, found = s_found;
            if (tid < Cb) {
                for (int i = 0; i < n; i++) {
                    float2 m = __ldcg(st.agg + ((j - i) * G + g) * Cb + cl);
                    cB = fmaf(cA, m.y, cB), cA *= m.x;
                }
                if (found) {
                    int64_t jj = j - n;
                    float x = jj >= 0 ? __ldcg(st.inc + (jj * G + g) * Cb + cl)
                                      : (h0 && c < C ? ld(h0 + c) : 0.0f);
                    s_carry[cl] = fmaf(cA, x, cB);
                }
            }
            __syncthreads();   /* s_n is rewritten next round */
            if (found) break;
        }
    }
    __syncthreads();
    /* 4. publish the inclusive value, then rescan from the carry and write h */
    if (tid < Cb) st.inc[tile * Cb + cl] = fmaf(sA[last], s_carry[cl], sB[last]);
    __threadfence();
    __syncthreads();
    if (tid == 0) atomicExch(st.flag + tile, SCAN_INC);
    if (!active) return;
    float x = s_carry[cl];
    if (lane > 0) x = fmaf(sA[tid - Cb], x, sB[tid - Cb]);   /* the lanes before this one */
    scan_rescan<V>(T, C, reverse, s0, c, x, av, bv, h);
}

/* ---- versions 8, 9: persistent blocks that fetch the next tile into shared memory ----------
 * (cp.async, no registers held) while they look back and write the current one, so that the
 * look-back's latency would hide behind the next tile's loads. Measured on the H200: 43-45% of
 * copy at C = 65536, 38% at C = 1024, 15% at C = 32, where version 7 reached 57-63%. Likely
 * causes, not measured: a block's next tile publishes its aggregate only after the block has
 * finished the current one, which lengthens every chain by a tile's lifetime (hence C = 32,
 * one chain, suffers most), and 3 blocks of 32 KB per SM keep too little in flight.
 * The tile in shared memory is [L steps][Cb channels], each thread's copies coalesced
 * (consecutive threads, consecutive channels of one step). f32 copies go by cp.async (4 bytes);
 * bf16 elements are 2 bytes, below cp.async's smallest copy, so bf16 tiles are fetched by plain
 * loads (correct, without the overlap). */
template <int V, typename E>
__device__ __forceinline__ void scan_lb_fetch(int64_t T, int64_t C, int reverse, int goff, int Cb,
                                              int lanes, int64_t G, int64_t tile, const E *a,
                                              const E *b, E *ta, E *tb)
{
    const int64_t g = tile % G, k = tile / G, n = (int64_t)lanes * V * Cb;
#pragma unroll
    for (int r = 0; r < V; r++) {
        const int e = threadIdx.x + r * SCAN_LB_THREADS;
        if (e >= n) break;
        const int s = e / Cb, cl = e - s * Cb;
        const int64_t step = k * lanes * V + s, c = g * Cb + cl;
        if (step < T && c < C) {
            const int64_t t = scan_time(T, reverse, step), tg = t + goff;
            if (sizeof(E) == 4) {
                if (tg >= 0 && tg < T) __pipeline_memcpy_async(ta + e, a + tg * C + c, 4);
                else ta[e] = E(0.0f);
                __pipeline_memcpy_async(tb + e, b + t * C + c, 4);
            } else {
                ta[e] = tg >= 0 && tg < T ? a[tg * C + c] : E(0.0f);
                tb[e] = b[t * C + c];
            }
        } else {
            ta[e] = E(1.0f), tb[e] = E(0.0f);
        }
    }
    __pipeline_commit();
}

template <int V, typename E>
__global__ void __launch_bounds__(SCAN_LB_THREADS, 3)
scan_lookback_persistent_kernel(int64_t T, int64_t C, int reverse, int goff, int Cb, int lanes,
                                int64_t G, int64_t ntiles, const E *a, const E *b, const E *h0,
                                E *h, scan_lb_status st)
{
    __shared__ scan_lb_smem sm;
    __shared__ E ta[V * SCAN_LB_THREADS], tb[V * SCAN_LB_THREADS];
    __shared__ long long s_next;
    const int tid = threadIdx.x, lane = tid / Cb, cl = tid % Cb;
    if (tid == 0) s_next = (long long)atomicAdd(st.counter, 1ull);
    __syncthreads();
    int64_t tile = s_next;
    if (tile >= ntiles) return;
    scan_lb_fetch<V>(T, C, reverse, goff, Cb, lanes, G, tile, a, b, ta, tb);
    for (;;) {
        __pipeline_wait_prior(0);
        __syncthreads();   /* every thread's copies have landed */
        float av[V], bv[V];
#pragma unroll
        for (int v = 0; v < V; v++) {
            const int e = (lane * V + v) * Cb + cl;
            av[v] = lane < lanes ? float(ta[e]) : 1.0f;
            bv[v] = lane < lanes ? float(tb[e]) : 0.0f;
        }
        if (tid == 0) s_next = (long long)atomicAdd(st.counter, 1ull);
        __syncthreads();   /* the buffer is free, s_next is set */
        const int64_t next = s_next;
        if (next < ntiles) scan_lb_fetch<V>(T, C, reverse, goff, Cb, lanes, G, next, a, b, ta, tb);
        scan_lb_tile<V, E>(T, C, reverse, Cb, lanes, G, tile, av, bv, h0, h, st, sm);
        if (next >= ntiles) return;
        tile = next;
        __syncthreads();   /* s_next is rewritten at the top */
    }
}

/* ---- versions 15-17: the tile's a and b read again from L2 after the look-back -------------
 * Version 13 holds its tile (a and b, 64 registers a thread) through the look-back's wait, so
 * only two tiles per SM are in flight. Here the registers are free during the wait: phase 3
 * loads a and b again, from L2 (the first read left them there; with HINT the first read asks
 * L2 to keep them, evict_last, the second and the h stores to evict them first). DRAM traffic
 * stays 3·T·C·4 bytes as long as a tile's data survive in L2 for its lifetime (~resident
 * tiles × 32-64 KB: 17-34 MB of the H200's L2). Fewer registers, more tiles per SM. */
template <int HINT>
__device__ __forceinline__ float ld_hint(const float *p, uint64_t pol)
{
    float x;
    if (HINT) asm volatile("ld.global.L2::cache_hint.f32 %0, [%1], %2;" : "=f"(x) : "l"(p), "l"(pol));
    else asm volatile("ld.global.f32 %0, [%1];" : "=f"(x) : "l"(p));
    return x;
}
template <int HINT>
__device__ __forceinline__ void st_hint(float *p, float x, uint64_t pol)
{
    if (HINT) asm volatile("st.global.L2::cache_hint.f32 [%0], %1, %2;" ::"l"(p), "f"(x), "l"(pol) : "memory");
    else *p = x;
}
__device__ __forceinline__ uint64_t l2_policy(int last)
{
    uint64_t pol;
    if (last) asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol));
    else asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
    return pol;
}

/* Forward, f32, h0 = 0: the thread's V steps of tile (identity beyond T or C). */
template <int V, int HINT>
__device__ __forceinline__ void lb4_load(int64_t T, int64_t C, int Cb, int lanes, int64_t G, int64_t tile,
                                         const float *a, const float *b, uint64_t pol, float (&av)[V],
                                         float (&bv)[V])
{
    const int tid = threadIdx.x, lane = tid / Cb, cl = tid % Cb;
    const int64_t g = tile % G, k = tile / G, c = g * Cb + cl, s0 = (k * lanes + lane) * V;
    const int n = lane < lanes && c < C ? (int)(T - s0 < V ? (T - s0 > 0 ? T - s0 : 0) : V) : 0;
    const float *pa = a + s0 * C + c, *pb = b + s0 * C + c;
#pragma unroll
    for (int v = 0; v < V; v++, pa += C, pb += C) {
        av[v] = 1.0f, bv[v] = 0.0f;
        if (v < n) av[v] = ld_hint<HINT>(pa, pol), bv[v] = ld_hint<HINT>(pb, pol);
    }
}

template <int V, int MINB, int HINT>
__global__ void __launch_bounds__(SCAN_LB_THREADS, MINB)
scan_lookback4_kernel(int64_t T, int64_t C, int Cb, int lanes, int64_t G, const float *a, const float *b,
                      float *h, scan_lb2_status st)
{
    __shared__ scan_lb2_smem sm;
    __shared__ long long s_tile;
    if (threadIdx.x == 0) s_tile = (long long)atomicAdd(st.counter, 1ull);
    __syncthreads();
    const int64_t tile = s_tile;
    float A, B;
    {
        float av[V], bv[V];
        lb4_load<V, HINT>(T, C, Cb, lanes, G, tile, a, b, HINT ? l2_policy(1) : 0, av, bv);
        scan_lb2_aggregate<V>(Cb, lanes, tile, G, av, bv, st, sm, A, B);
    }
    scan_lb2_lookback(C, Cb, lanes, G, tile, (const float *)NULL, st, sm);
    const uint64_t pol = HINT ? l2_policy(0) : 0;
    float av[V], bv[V];
    lb4_load<V, HINT>(T, C, Cb, lanes, G, tile, a, b, pol, av, bv);   /* from L2 */
    const int tid = threadIdx.x, lane = tid / Cb, cl = tid % Cb;
    const int64_t g = tile % G, k = tile / G, c = g * Cb + cl;
    const float x0 = sm.carry[cl];
    if (lane == lanes - 1) scan_lbw<false>::publish(st.word, tile * Cb + cl, SCAN_INC, 0.0f, fmaf(A, x0, B), st.tag);
    if (lane >= lanes || c >= C) return;
    const int64_t s0 = (k * lanes + lane) * V;
    const int n = (int)(T - s0 < V ? T - s0 : V);
    float x = x0, *ph = h + s0 * C + c;
    if (lane > 0) x = fmaf(sm.sA[tid - Cb], x, sm.sB[tid - Cb]);
#pragma unroll
    for (int v = 0; v < V; v++, ph += C) {
        x = fmaf(av[v], x, bv[v]);
        if (v < n) st_hint<HINT>(ph, x, pol);
    }
}

/* ---- launchers ------------------------------------------------------------------------------ */

typedef struct bench {
    int64_t T, C;
    float *a, *b, *h;
    char *ws;        /* scratch for versions 3-11 */
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

template <int V, bool FIRST, bool FLAT = false, bool NOLB = false>
static void scan_lb(bench *w)
{
    int Cb = FIRST ? (w->C >= SCAN_LB_THREADS ? SCAN_LB_THREADS : (int)w->C) : scan_lb_channels(w->C);
    int lanes = SCAN_LB_THREADS / Cb;
    int64_t G = (w->C + Cb - 1) / Cb, K = (w->T + (int64_t)lanes * V - 1) / ((int64_t)lanes * V);
    int64_t n = G * K;
    size_t off_agg = (16 + (size_t)n * 4 + 15) / 16 * 16, off_inc = off_agg + (size_t)n * Cb * 8;
    if (off_inc + (size_t)n * Cb * 4 > w->ws_bytes) { fprintf(stderr, "scan_lb: scratch too small\n"); exit(1); }
    scan_lb_status st = {(unsigned long long *)w->ws, (int *)(w->ws + 16), (float2 *)(w->ws + off_agg),
                         (float *)(w->ws + off_inc)};
    cudaCheck(cudaMemsetAsync(w->ws, 0, off_agg));
    if (FIRST)
        scan_lookback_kernel4<V, float><<<(unsigned)n, SCAN_LB_THREADS>>>(w->T, w->C, 0, 0, Cb, lanes,
                                                                          G, w->a, w->b, NULL, w->h, st);
    else if (FLAT && lanes <= 8)
        scan_lookback_kernel<V, 0, float, true><<<(unsigned)n, SCAN_LB_THREADS>>>(
            w->T, w->C, 0, Cb, lanes, G, w->a, w->b, NULL, w->h, st);
    else if (NOLB)
        scan_lookback_kernel<V, 0, float, false, float, true><<<(unsigned)n, SCAN_LB_THREADS>>>(
            w->T, w->C, 0, Cb, lanes, G, w->a, w->b, NULL, w->h, st);
    else
        scan_lookback_kernel<V, 0, float><<<(unsigned)n, SCAN_LB_THREADS>>>(w->T, w->C, 0, Cb, lanes,
                                                                            G, w->a, w->b, NULL, w->h, st);
}

/* versions 13, 19, 20: per-channel status words (scan_lookback2_kernel), Q predecessors a
 * thread a round, 16- or 8-byte words */
template <int Q, bool W8>
static void scan_lb2(bench *w)
{
    int Cb = scan_lb_channels(w->C), lanes = SCAN_LB_THREADS / Cb;
    int64_t G = (w->C + Cb - 1) / Cb, K = (w->T + (int64_t)lanes * 32 - 1) / ((int64_t)lanes * 32);
    int64_t n = G * K;
    size_t bytes = 16 + (size_t)n * Cb * (W8 ? 8 : 16);
    if (bytes > w->ws_bytes) { fprintf(stderr, "scan_lb2: scratch too small\n"); exit(1); }
    scan_lb2_status st = {(unsigned long long *)w->ws, (void *)(w->ws + 16), 0u};
    cudaCheck(cudaMemsetAsync(w->ws, 0, 16));
    cudaCheck(cudaMemsetAsync(w->ws + 16, W8 ? 0xff : 0, bytes - 16));
    scan_lookback2_kernel<32, 0, float, float, Q, W8><<<(unsigned)n, SCAN_LB_THREADS>>>(
        w->T, w->C, 0, Cb, lanes, G, w->a, w->b, NULL, w->h, st);
}

/* version 14: persistent blocks, two tiles of V = 16 steps a thread in registers, the next
 * tile's loads in flight during the current one's look-back (scan_lookback3_kernel) */
static void scan_lb3(bench *w)
{
    const int V = 16;
    int Cb = scan_lb_channels(w->C), lanes = SCAN_LB_THREADS / Cb;
    int64_t G = (w->C + Cb - 1) / Cb, K = (w->T + (int64_t)lanes * V - 1) / ((int64_t)lanes * V);
    int64_t n = G * K;
    size_t bytes = 16 + (size_t)n * Cb * 16;
    if (bytes > w->ws_bytes) { fprintf(stderr, "scan_lb3: scratch too small\n"); exit(1); }
    scan_lb2_status st = {(unsigned long long *)w->ws, (void *)(w->ws + 16), 0u};
    int per_sm = 0, sms = 0;
    cudaCheck(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, scan_lookback3_kernel<V, 0, float>,
                                                            SCAN_LB_THREADS, 0));
    cudaCheck(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    int64_t grid = (int64_t)per_sm * sms < n ? (int64_t)per_sm * sms : n;
    cudaCheck(cudaMemsetAsync(w->ws, 0, bytes));
    scan_lookback3_kernel<V, 0, float><<<(unsigned)grid, SCAN_LB_THREADS>>>(w->T, w->C, 0, Cb, lanes, G, n,
                                                                           w->a, w->b, NULL, w->h, st);
}

template <int V, int MINB, int HINT>
static void scan_lb4(bench *w)
{
    int Cb = scan_lb_channels(w->C), lanes = SCAN_LB_THREADS / Cb;
    int64_t G = (w->C + Cb - 1) / Cb, K = (w->T + (int64_t)lanes * V - 1) / ((int64_t)lanes * V);
    int64_t n = G * K;
    size_t bytes = 16 + (size_t)n * Cb * 16;
    if (bytes > w->ws_bytes) { fprintf(stderr, "scan_lb4: scratch too small\n"); exit(1); }
    scan_lb2_status st = {(unsigned long long *)w->ws, (void *)(w->ws + 16), 0u};
    cudaCheck(cudaMemsetAsync(w->ws, 0, bytes));
    scan_lookback4_kernel<V, MINB, HINT><<<(unsigned)n, SCAN_LB_THREADS>>>(w->T, w->C, Cb, lanes, G, w->a, w->b,
                                                                          w->h, st);
}

template <int V>
static void scan_lbp(bench *w)
{
    int Cb = scan_lb_channels(w->C), lanes = SCAN_LB_THREADS / Cb;
    int64_t G = (w->C + Cb - 1) / Cb, K = (w->T + (int64_t)lanes * V - 1) / ((int64_t)lanes * V);
    int64_t n = G * K;
    size_t off_agg = (16 + (size_t)n * 4 + 15) / 16 * 16, off_inc = off_agg + (size_t)n * Cb * 8;
    if (off_inc + (size_t)n * Cb * 4 > w->ws_bytes) { fprintf(stderr, "scan_lbp: scratch too small\n"); exit(1); }
    scan_lb_status st = {(unsigned long long *)w->ws, (int *)(w->ws + 16), (float2 *)(w->ws + off_agg),
                         (float *)(w->ws + off_inc)};
    int per_sm = 0, sms = 0;
    cudaCheck(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, scan_lookback_persistent_kernel<V, float>,
                                                            SCAN_LB_THREADS, 0));
    cudaCheck(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    int64_t grid = (int64_t)per_sm * sms < n ? (int64_t)per_sm * sms : n;
    cudaCheck(cudaMemsetAsync(w->ws, 0, off_agg));
    scan_lookback_persistent_kernel<V, float><<<(unsigned)grid, SCAN_LB_THREADS>>>(
        w->T, w->C, 0, 0, Cb, lanes, G, n, w->a, w->b, NULL, w->h, st);
}

/* versions 21-23: the ring (scan_ring_kernel), one block an SM */
template <int V, int S, int NG, int Q, bool STATIC = false, bool CPA = false>
static void scan_ring(bench *w)
{
    const int L = RING_L(V);
    const int64_t G = (w->C + 31) / 32, K = (w->T + L - 1) / L, n = G * K;
    size_t bytes = 16 + (size_t)n * 32 * 16;
    if (bytes > w->ws_bytes) { fprintf(stderr, "scan_ring: scratch too small\n"); exit(1); }
    scan_lb2_status st = {(unsigned long long *)w->ws, (void *)(w->ws + 16), 0u};
    const size_t smem = sizeof(ring_smem<V, S, NG>);
    static int ready = 0;   /* per instantiation */
    if (!ready) {
        cudaCheck(cudaFuncSetAttribute(scan_ring_kernel<V, S, NG, Q, STATIC, CPA>,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
        ready = 1;
    }
    int sms = 0;
    cudaCheck(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    cudaCheck(cudaMemsetAsync(w->ws, 0, bytes));
    const int64_t grid = sms < n ? sms : n;
    scan_ring_kernel<V, S, NG, Q, STATIC, CPA><<<(unsigned)grid, 32 + NG * SCAN_LB_THREADS, smem>>>(
        w->T, w->C, G, n, w->a, w->b, w->h, st);
    cudaCheck(cudaGetLastError());
}

/* versions 27-29: the look-back LAG tiles behind (scan_lag_kernel) */
template <int V, int Q, bool W8>
static void scan_lag(bench *w, int lag_per_resident)
{
    int Cb = scan_lb_channels(w->C), lanes = SCAN_LB_THREADS / Cb;
    int64_t G = (w->C + Cb - 1) / Cb, K = (w->T + (int64_t)lanes * V - 1) / ((int64_t)lanes * V);
    int64_t n = G * K;
    size_t bytes = 16 + (size_t)n * Cb * (W8 ? 8 : 16);
    if (bytes > w->ws_bytes) { fprintf(stderr, "scan_lag: scratch too small\n"); exit(1); }
    scan_lb2_status st = {(unsigned long long *)w->ws, (void *)(w->ws + 16), 0u};
    int per_sm = 0, sms = 0;
    cudaCheck(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, scan_lag_kernel<V, Q, W8>, SCAN_LB_THREADS, 0));
    cudaCheck(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const long long lag = (long long)lag_per_resident * per_sm * sms;
    cudaCheck(cudaMemsetAsync(w->ws, 0, 16));
    cudaCheck(cudaMemsetAsync(w->ws + 16, W8 ? 0xff : 0, bytes - 16));
    scan_lag_kernel<V, Q, W8><<<(unsigned)(n + lag), SCAN_LB_THREADS>>>(w->T, w->C, Cb, lanes, G, n, lag, w->a, w->b,
                                                                     w->h, st);
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

/* versions 31-33, 35, 50-53: scan_lbs_rows_kernel (C % 4 == 0); 34, 36, 40-42, 47-49, 56: the
 * library's scan_lbs_kernel */
template <int VR, int VS, int MINB, bool ROWS, bool BIDX = false, int Q = SCAN_LB2_Q, bool PART = false,
          bool W8 = false, int SPEC = 0, int REV = -1, int CB = 0, bool VST = false>
static void scan_lbs(bench *w)
{
    const lbs_tiling p = lbs_tiles(w, VS + VR, "scan_lbs", CB);
    const int Cb = p.Cb, lanes = p.lanes;
    const int64_t G = p.G, n = p.n;
    const size_t bytes = p.bytes;
    if (ROWS && (Cb != 32 || w->C % 4)) {   /* the library's */
        scan_lbs<VR, VS, MINB, false, BIDX, Q, PART, W8>(w);
        return;
    }
    scan_lb2_status st = {(unsigned long long *)w->ws, (void *)(w->ws + 16), 0u};
    const int smem = SCAN_LB_THREADS * VS * 8;
    void (*rows)(int64_t, int64_t, int, int, int64_t, const float *, const float *, float *, scan_lb2_status) =
        scan_lbs_rows_kernel<VR, VS, MINB, BIDX, W8, SPEC>;
    void (*lib)(int64_t, int64_t, int, int, int, int64_t, const float *, const float *, const float *, float *,
                scan_lb2_status) = scan_lbs_kernel<VS, VR, 0, float, float, REV, Q, BIDX, PART, W8, MINB, VST>;
    cudaCheck(cudaFuncSetAttribute(ROWS ? (const void *)rows : (const void *)lib,
                                   cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    cudaCheck(cudaMemsetAsync(w->ws, 0, 16));
    cudaCheck(cudaMemsetAsync(w->ws + 16, W8 ? 0xff : 0, bytes - 16));   /* EMPTY words */
    if (ROWS) rows<<<(unsigned)n, SCAN_LB_THREADS, smem>>>(w->T, w->C, Cb, lanes, G, w->a, w->b, w->h, st);
    else lib<<<(unsigned)n, SCAN_LB_THREADS, smem>>>(w->T, w->C, 0, Cb, lanes, G, w->a, w->b, NULL, w->h, st);
}

/* versions 45, 46: scan_lbs_bulk_kernel */
template <int VS, int VR>
static void scan_lbs_bulk(bench *w)
{
    const lbs_tiling p = lbs_tiles(w, VS + VR, "scan_lbs_bulk");
    const int Cb = p.Cb, lanes = p.lanes;
    const int64_t G = p.G, n = p.n;
    const size_t bytes = p.bytes;
    scan_lb2_status st = {(unsigned long long *)w->ws, (void *)(w->ws + 16), 0u};
    const int smem = SCAN_LB_THREADS * VS * 8;
    cudaCheck(cudaFuncSetAttribute(scan_lbs_bulk_kernel<VS, VR>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    cudaCheck(cudaMemsetAsync(w->ws, 0, bytes));
    scan_lbs_bulk_kernel<VS, VR><<<(unsigned)n, SCAN_LB_THREADS, smem>>>(w->T, w->C, Cb, lanes, G, w->a, w->b, w->h,
                                                                        st);
}

/* versions 58-63, 68, 69: whole tiles by the copy engine at C = 32 (scan_lbb_kernel, above):
 * 58 L = 256 steps, three blocks an SM; 59 L = 384, two; 60 L = 416, two (the most shared
 * memory two blocks can have); 61-63 windows of 128, 128, 192 tiles (Q = 16, 16, 24) at
 * L = 256, 416, 416. Other C, or arrays not 16-byte
 * aligned: version 56. */
template <int L, int MINB, int Q = SCAN_LB2_Q, bool W8 = false>
static void scan_lbb(bench *w)
{
    if (w->C != 32 || (((uintptr_t)w->a | (uintptr_t)w->b | (uintptr_t)w->h) & 15)) {
        scan_lbs<32, 32, 2, false, true, SCAN_LB2_Q, true, false, 0, 0>(w);
        return;
    }
    const int64_t n = (w->T + L - 1) / L;
    const size_t bytes = 16 + (size_t)n * 32 * 16;
    if (bytes > w->ws_bytes) { fprintf(stderr, "scan_lbb: scratch too small\n"); exit(1); }
    scan_lb2_status st = {(unsigned long long *)w->ws, (void *)(w->ws + 16), 0u};
    const int smem = 2 * L * 32 * 4;
    cudaCheck(cudaFuncSetAttribute(scan_lbb_kernel<L, MINB, 0, float, float, 0, Q, W8>,
                                   cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    cudaCheck(cudaMemsetAsync(w->ws, 0, 16));
    cudaCheck(cudaMemsetAsync(w->ws + 16, W8 ? 0xff : 0, bytes - 16));   /* EMPTY words */
    scan_lbb_kernel<L, MINB, 0, float, float, 0, Q, W8><<<(unsigned)n, SCAN_LB_THREADS, smem>>>(w->T, 0, w->a, w->b, NULL,
                                                                                        w->h, st);
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

/* versions 75-80: scan_lbt_kernel, loads paced to WIN chunks of K steps a thread */
template <int K, int WIN>
static void scan_lbt(bench *w)
{
    const lbs_tiling p = lbs_tiles(w, SCAN_LBS_VS + SCAN_LBS_VR, "scan_lbt");
    const int smem = SCAN_LB_THREADS * (SCAN_LBS_VS + WIN * K) * 8;
    scan_lb2_status st = {(unsigned long long *)w->ws, (void *)(w->ws + 16), 0u};
    cudaCheck(cudaFuncSetAttribute(scan_lbt_kernel<K, WIN>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    cudaCheck(cudaMemsetAsync(w->ws, 0, p.bytes));
    scan_lbt_kernel<K, WIN><<<(unsigned)p.n, SCAN_LB_THREADS, smem>>>(w->T, w->C, p.Cb, p.lanes, p.G, w->a, w->b,
                                                                     w->h, st);
}

/* versions 81-86: scan_lbp2_kernel, persistent, as many blocks as fit at once */
template <int VS, int VR, int Q, int STAG, bool DYN = false>
static void scan_lbp2(bench *w)
{
    const lbs_tiling p = lbs_tiles(w, VS + VR, "scan_lbp2");
    const int smem = SCAN_LB_THREADS * VS * 16;
    scan_lb2_status st = {(unsigned long long *)w->ws, (void *)(w->ws + 16), 0u};
    void (*k)(int64_t, int64_t, int, int, int64_t, int64_t, const float *, const float *, float *, scan_lb2_status,
              long long *) = scan_lbp2_kernel<VS, VR, Q, STAG, DYN>;
    cudaCheck(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    int per = 0, sms = 0;
    cudaCheck(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, k, SCAN_LB_THREADS, smem));
    cudaCheck(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const int64_t N = p.n < (int64_t)per * sms ? p.n : (int64_t)per * sms;
    cudaCheck(cudaMemsetAsync(w->ws, 0, p.bytes));
    k<<<(unsigned)N, SCAN_LB_THREADS, smem>>>(w->T, w->C, p.Cb, p.lanes, p.G, p.n, w->a, w->b, w->h, st, NULL);
}

#define NVERSIONS 87
static void scan(int version, bench *w, int bs)
{
    switch (version) {
    case 1: scan1(w, bs); break;
    case 2: scan2(w, bs); break;
    case 3: scan3(w, bs); break;
    case 4: scan_lb<16, true>(w); break;
    case 5: scan_lb<16, false>(w); break;
    case 6: scan_lb<8, false>(w); break;
    case 7: scan_lb<32, false>(w); break;
    case 8: scan_lbp<16>(w); break;
    case 9: scan_lbp<8>(w); break;
    case 10: scan_lb<48, false>(w); break;
    case 11: scan_lb<32, false, true>(w); break;
    case 12: scan_lb<32, false, false, true>(w); break;
    case 13: scan_lb2<8, false>(w); break;
    case 14: scan_lb3(w); break;
    case 15: scan_lb4<16, 3, 0>(w); break;
    case 16: scan_lb4<16, 3, 1>(w); break;
    case 17: scan_lb4<32, 2, 1>(w); break;
    case 18: scan_lb4<16, 4, 1>(w); break;
    case 19: scan_lb2<16, true>(w); break;
    case 20: scan_lb2<24, true>(w); break;
    case 21: scan_ring<32, 3, 1, 16>(w); break;
    case 22: scan_ring<32, 3, 2, 8>(w); break;
    case 23: scan_ring<16, 6, 2, 8>(w); break;
    case 24: scan_ring<32, 3, 1, 16, true, true>(w); break;
    case 25: scan_ring<16, 6, 2, 8, true, true>(w); break;
    case 26: scan_ring<32, 3, 1, 16, true, false>(w); break;
    case 27: scan_lag<24, 4, false>(w, 1); break;
    case 28: scan_lag<16, 16, true>(w, 1); break;
    case 29: scan_lag<16, 16, true>(w, 2); break;
    case 30: scan_lag<16, 8, false>(w, 1); break;
    case 31: scan_lbs<32, 32, 2, true>(w); break;
    case 32: scan_lbs<32, 48, 2, true>(w); break;
    case 33: scan_lbs<16, 32, 3, true>(w); break;
    case 34: scan_lbs<32, 32, 2, false>(w); break;
    case 35: scan_lbs<32, 32, 2, true, true>(w); break;
    case 36: scan_lbs<32, 48, 2, false>(w); break;
    case 37: case 38: case 39:
        fprintf(stderr, "versions 37-39 are at commit 9ba6372 (removed since)\n");
        exit(1);
    case 40: scan_lbs<32, 32, 2, false, true, SCAN_LB2_Q, false>(w); break;
    case 41: scan_lbs<32, 32, 2, false, true, 4, false>(w); break;
    case 42: scan_lbs<32, 32, 2, false, true, SCAN_LB2_Q, true>(w); break;
    case 43: case 44:
        fprintf(stderr, "versions 43 and 44 are at commit d368c3b (removed since)\n");
        exit(1);
    case 45: scan_lbs_bulk<32, 32>(w); break;
    case 46: scan_lbs_bulk<48, 32>(w); break;
    case 47: scan_lbs<32, 32, 2, false, true, 16, true, true>(w); break;
    case 48: scan_lbs<32, 32, 2, false, true, 8, true, true>(w); break;
    case 49: scan_lbs<32, 32, 2, false, true, 24, true, true>(w); break;
    case 50: scan_lbs<32, 32, 2, true, true, SCAN_LB2_Q, true, true>(w); break;
    case 51: scan_lbs<32, 32, 2, true, true, SCAN_LB2_Q, true, true, 500>(w); break;
    case 52: scan_lbs<32, 32, 2, true, true, SCAN_LB2_Q, true, true, 1000>(w); break;
    case 53: scan_lbs<32, 32, 2, true, true, SCAN_LB2_Q, true, true, 1500>(w); break;
    case 54:
        fprintf(stderr, "version 54 is at commit b8badf7 (removed since)\n");
        exit(1);
    case 55: case 57:
        fprintf(stderr, "versions 55 and 57 are at commit 144c199 (removed since)\n");
        exit(1);
    case 56: scan_lbs<32, 32, 2, false, true, SCAN_LB2_Q, true, false, 0, 0>(w); break;
    case 58: scan_lbb<256, 3>(w); break;
    case 59: scan_lbb<384, 2>(w); break;
    case 60: scan_lbb<416, 2>(w); break;
    case 61: scan_lbb<256, 3, 16>(w); break;
    case 62: scan_lbb<416, 2, 16>(w); break;
    case 63: scan_lbb<416, 2, 24>(w); break;
    case 64: scan_lbs<16, 32, 3, false, true, SCAN_LB2_Q, true, false, 0, 0>(w); break;
    case 65: scan_lbs<16, 24, 4, false, true, SCAN_LB2_Q, true, false, 0, 0>(w); break;
    case 66: scan_lbs<32, 32, 2, false, true, SCAN_LB2_Q, true, false, 0, 0, 16>(w); break;
    case 67: scan_lbs<32, 32, 2, false, true, SCAN_LB2_Q, true, false, 0, 0, 8>(w); break;
    case 68: scan_lbb<416, 2, 16, true>(w); break;
    case 69: scan_lbb<256, 3, 16, true>(w); break;
    case 70: scan_lbs_sleep<0>(w); break;
    case 71: scan_lbs_sleep<2500>(w); break;
    case 72: scan_lbs_sleep<5000>(w); break;
    case 73: scan_lbs<16, 32, 3, false, true, 8, true, true, 0, 0>(w); break;
    case 74: scan_lbs<16, 32, 3, false, true, 4, true, false, 0, 0>(w); break;
    case 75: scan_lbt<4, 4>(w); break;
    case 76: scan_lbt<8, 2>(w); break;
    case 77: scan_lbt<4, 2>(w); break;
    case 78: scan_lbt<4, 5>(w); break;
    case 79: scan_lbt<2, 8>(w); break;
    case 80: scan_lbt<8, 1>(w); break;
    case 81: scan_lbp2<24, 16, 8, 0>(w); break;
    case 82: scan_lbp2<24, 16, 8, 8000>(w); break;
    case 83: scan_lbp2<24, 16, 4, 8000>(w); break;
    case 84: scan_lbp2<24, 12, 8, 8000>(w); break;
    case 85: scan_lbp2<24, 16, 8, 0, true>(w); break;
    case 86: scan_lbp2<24, 16, 4, 0, true>(w); break;
    case 87: scan_lbs<32, 32, 2, false, true, SCAN_LB2_Q, true, false, 0, 0, 0, true>(w); break;
    default: fprintf(stderr, "unknown version %d (1..%d)\n", version, NVERSIONS); exit(1);
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
    w->ws_bytes = n * 2 + (1 << 24);   /* the most any version asks: look-back at V = 8 */
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

/* BL > 0: scan_lbb_probe_kernel with tiles of BL steps (C = 32); CB > 0: CB channels a tile;
 * PK > 0: the loads paced, PW chunks of PK steps in flight (scan_lbt_load) */
template <int Q, bool W8, int BL = 0, int CB = 0, int PK = 0, int PW = 0, int PERS = 0>
static void timeline(int64_t T, int64_t C)
{
    bench w;
    setup(&w, T, C, 0);
    int Cb = CB && CB < C ? CB : scan_lb_channels(C), lanes = SCAN_LB_THREADS / Cb;
    const int64_t L = BL ? BL : PERS ? (int64_t)lanes * (24 + 16) : (int64_t)lanes * (SCAN_LBS_VS + SCAN_LBS_VR);
    int64_t G = (C + Cb - 1) / Cb, n = G * ((T + L - 1) / L);
    size_t bytes = 16 + (size_t)n * Cb * 16;
    scan_lb2_status st = {(unsigned long long *)w.ws, (void *)(w.ws + 16), 0u};
    const int smem = BL ? 2 * BL * 32 * 4 : PERS ? SCAN_LB_THREADS * 24 * 16 : SCAN_LB_THREADS * (SCAN_LBS_VS + PK * PW) * 8;
    void (*pers)(int64_t, int64_t, int, int, int64_t, int64_t, const float *, const float *, float *, scan_lb2_status,
                 long long *) = scan_lbp2_kernel<24, 16, Q, 0, PERS == 2, lbp2_probe>;
    int per = 0, sms = 0;
    if (PERS) {
        cudaCheck(cudaFuncSetAttribute(pers, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
        cudaCheck(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, pers, SCAN_LB_THREADS, smem));
        cudaCheck(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    }
    const int64_t N = PERS ? (n < (int64_t)per * sms ? n : (int64_t)per * sms) : n;
    void (*probe)(int64_t, int64_t, int, int, int64_t, const float *, const float *, float *, scan_lb2_status,
                  long long *) = scan_lbs_probe_kernel<Q, W8, PK, PW>;
    void (*bulk)(int64_t, const float *, const float *, float *, scan_lb2_status, long long *) =
        scan_lbb_probe_kernel<(BL ? BL : 256), (BL > 256 ? 2 : 3), Q, W8>;
    if (BL && C != 32) { fprintf(stderr, "timeline: whole tiles need C = 32\n"); exit(1); }
    if (!PERS) cudaCheck(cudaFuncSetAttribute(BL ? (const void *)bulk : (const void *)probe,
                                              cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    long long *d_st, *hs = (long long *)malloc((size_t)n * 7 * sizeof(long long));
    cudaCheck(cudaMalloc(&d_st, (size_t)n * 7 * sizeof(long long)));
    cudaEvent_t e0, e1;
    cudaCheck(cudaEventCreate(&e0)), cudaCheck(cudaEventCreate(&e1));
    float ms = 0;
    for (int r = 0; r < 6; r++) {   /* the last call is the one summed up */
        cudaCheck(cudaMemsetAsync(w.ws, 0, 16));
        cudaCheck(cudaMemsetAsync(w.ws + 16, W8 ? 0xff : 0, bytes - 16));
        cudaCheck(cudaEventRecord(e0));
        if (PERS) pers<<<(unsigned)N, SCAN_LB_THREADS, smem>>>(T, C, Cb, lanes, G, n, w.a, w.b, w.h, st, d_st);
        else if (BL) bulk<<<(unsigned)n, SCAN_LB_THREADS, smem>>>(T, w.a, w.b, w.h, st, d_st);
        else probe<<<(unsigned)n, SCAN_LB_THREADS, smem>>>(T, C, Cb, lanes, G, w.a, w.b, w.h, st, d_st);
        cudaCheck(cudaEventRecord(e1));
        cudaCheck(cudaEventSynchronize(e1));
        cudaCheck(cudaEventElapsedTime(&ms, e0, e1));
    }
    cudaCheck(cudaMemcpy(hs, d_st, (size_t)n * 7 * sizeof(long long), cudaMemcpyDeviceToHost));
    int khz = 0;
    cudaCheck(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
    const double us_per_clk = 1e3 / khz;
    long long gmin = hs[0], gmax = hs[0];
    for (int64_t i = 0; i < n; i++) gmin = hs[i * 7] < gmin ? hs[i * 7] : gmin, gmax = hs[i * 7] > gmax ? hs[i * 7] : gmax;
    if (BL) printf("whole tiles of %d steps: ", BL);
    if (CB) printf("tiles of %d channels: ", Cb);
    if (PK) printf("loads paced, %d chunks of %d steps: ", PW, PK);
    if (PERS) printf("persistent (%s ids, %lld blocks; phase 0 is the step's start to its tile folded, 1 the lane scan "
                     "and the next loads issued): ", PERS == 2 ? "counter" : "static", (long long)N);
    printf("timeline Q=%d %d-byte words T=%lld C=%lld: %lld tiles, kernel %.4f ms (%.1f%% of 3·T·C·4 bytes at 4.2 TB/s), starts over "
           "%.4f ms; clocks at %d MHz (the maximum)\n", Q, W8 ? 8 : 16, (long long)T, (long long)C, (long long)n, ms,
           100 * (3.0 * T * C * 4 / 4.2e12 * 1e3) / ms, (gmax - gmin) * 1e-6, khz / 1000);
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
    free(v), free(hs);
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

int main(int argc, char **argv)
{
    if (argc > 2 && !strcmp(argv[1], "timeline") && !strcmp(argv[2], "paced")) {   /* versions 75, 76, 79 */
        for (int i = 0; i < 2; i++) {
            const int64_t T = i ? 1048576 : 4194304, C = i ? 1024 : 32;
            timeline<SCAN_LB2_Q, false>(T, C);
            timeline<SCAN_LB2_Q, false, 0, 0, 4, 4>(T, C);
            timeline<SCAN_LB2_Q, false, 0, 0, 8, 2>(T, C);
            timeline<SCAN_LB2_Q, false, 0, 0, 2, 8>(T, C);
        }
        return 0;
    }
    if (argc > 2 && !strcmp(argv[1], "timeline") && !strcmp(argv[2], "persistent")) {   /* versions 81, 85 */
        for (int i = 0; i < 2; i++) {
            const int64_t T = i ? 1048576 : 4194304, C = i ? 1024 : 32;
            timeline<SCAN_LB2_Q, false>(T, C);
            timeline<SCAN_LB2_Q, false, 0, 0, 0, 0, 1>(T, C);
            timeline<SCAN_LB2_Q, false, 0, 0, 0, 0, 2>(T, C);
        }
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "timeline")) {
        timeline<SCAN_LB2_Q, false>(1048576, 1024);
        timeline<SCAN_LB2_Q, false>(4194304, 32);
        timeline<SCAN_LB2_Q, false>(65536, 32);
        timeline<16, true>(1048576, 1024);
        timeline<16, true>(4194304, 32);
        timeline<SCAN_LB2_Q, false, 256>(4194304, 32);
        timeline<SCAN_LB2_Q, false, 384>(4194304, 32);
        timeline<16, false, 256>(4194304, 32);
        timeline<16, false, 416>(4194304, 32);
        timeline<24, false, 416>(4194304, 32);
        timeline<SCAN_LB2_Q, false, 416>(4194304, 32);
        timeline<16, true, 416>(4194304, 32);
        timeline<16, true, 256>(4194304, 32);
        return 0;
    }
    static char want[NVERSIONS + 1];   /* want[v]: run version v; none given: all */
    int only = 0;
    for (int i = 1; i < argc; i++) {
        const int v = atoi(argv[i]);
        if (v < 1 || v > NVERSIONS) { fprintf(stderr, "unknown version %s (1..%d)\n", argv[i], NVERSIONS); return 1; }
        want[v] = 1, only = 1;
    }
    cudaDeviceProp p;
    cudaCheck(cudaGetDeviceProperties(&p, 0));
    printf("%s, %d SMs\n", p.name, p.multiProcessorCount);

    static const int64_t vshapes[][2] = {{1, 1}, {33, 3}, {1000, 32}, {16323, 1000}, {127323, 1},
                                         {33753, 257}, {400, 40000}, {65557, 32}};
    static const int sizes[] = {64, 128, 256, 512, 1024};
    int failed = 0;
    for (int v = 1; v <= NVERSIONS; v++) {
        if (only && !want[v]) continue;
        if ((v >= 37 && v <= 39) || v == 43 || v == 44 || v == 54 || v == 55 || v == 57) continue;   /* removed */
        if (v == 12 || (v >= 70 && v <= 72)) {   /* no look-back: wrong by design */
            printf("version %d: timing only (no carries between tiles)\n", v);
            continue;
        }
        int ok = 1;
        for (int i = 0; i < (int)(sizeof vshapes / sizeof vshapes[0]); i++)
            for (int k = 0; k < (v <= 3 ? 5 : 1); k++)
                ok &= validate(v, vshapes[i][0], vshapes[i][1], sizes[k]);
        printf("version %d: %s\n", v, ok ? "matches the CPU reference" : "WRONG");
        failed |= !ok;
    }

    /* the four shapes of the bandwidth experiment, and Martin & Cundy's m = 32, T = 65536 */
    static const int64_t shapes[][2] = {{1024, 65536}, {16384, 65536}, {1048576, 1024},
                                        {4194304, 32}, {65536, 32}};
    printf("\n%3s %5s %9s %8s %9s %9s %7s\n", "ver", "block", "T", "C", "ms", "GB/s", "%copy");
    for (int i = 0; i < 5; i++) {
        bench w;
        setup(&w, shapes[i][0], shapes[i][1], 0);
        double bytes = (double)shapes[i][0] * shapes[i][1] * 4;
        float copy = time_ms(0, &w, 0);
        printf("%3s %5s %9lld %8lld %9.4f %9.1f %7s\n", "copy", "", (long long)w.T, (long long)w.C,
               copy, 2 * bytes / copy * 1e-6, "100%");
        for (int v = 1; v <= NVERSIONS; v++) {
            if (only && !want[v]) continue;
            if ((v >= 37 && v <= 39) || v == 43 || v == 44 || v == 54 || v == 55 || v == 57) continue;
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
