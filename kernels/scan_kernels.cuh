/* scan_kernels.cuh — the device code of the linear scan h_t = a_t ⊙ h_{t-1} + b_t over [T][C]
 * (kernels/scan.h), shared by the library launchers (kernels/scan.cu) and the workbench
 * (kernels/dev/scan.cu), which adds the versions that lost.
 *
 * Conventions of every kernel here:
 *   - step s of the walk is time t = reverse ? T-1-s : s (a reversed scan mirrors time);
 *   - the gate of time t is a[t + GOFF] (0 outside [0, T)), GOFF a template argument: 0 is the
 *     plain scan, +1 with reverse = 1 the backward of a forward scan (g_t = dh_t + a_{t+1} g_{t+1});
 *   - E is float, __nv_bfloat16 or __half in memory, the arithmetic is fp32; h0's type H is E, or
 *     float for 16-bit arrays whose initial state comes from elsewhere in fp32 (scan_multi);
 *   - offsets are int64 (T·C may exceed 2^31).
 * A chunk of steps maps its carry-in x to A·x + B; composing an earlier map (pa, pb) with a
 * later one (qa, qb) gives (qa·pa, qa·pb + qb). Everything below is that one operator.
 */
#ifndef LOGT_SCAN_KERNELS_CUH
#define LOGT_SCAN_KERNELS_CUH

#include <cuda_bf16.h>
#include <stdint.h>

#include "../core/elem.cuh"



/* h0's type as a parameter that template deduction skips (its default, E, applies when the
 * caller passes NULL). */
template <typename T> struct scan_h0 { typedef T type; };

/* Time of step s, and the gate of time t with its offset applied. */
__device__ __forceinline__ int64_t scan_time(int64_t T, int reverse, int64_t s)
{
    return reverse ? T - 1 - s : s;
}
template <int GOFF, typename E>
__device__ __forceinline__ float scan_gate(const E *a, int64_t T, int64_t C, int64_t t, int64_t c)
{
    if (GOFF == 0) return ld(a + t * C + c);   /* no test in the plain scan's loads */
    int64_t tg = t + GOFF;
    return tg >= 0 && tg < T ? ld(a + tg * C + c) : 0.0f;
}

/* Whether steps s0 .. s0 + n - 1 and their gates (time + GOFF) all lie in [0, T), in either
 * direction: then a tile's loops walk pointers by ±C a step and test nothing (scan_lbs_stage,
 * scan_lb_load, scan_rescan, scan_lbs_out); only the tiles at T's ends take the tested loops. */
template <int GOFF>
__device__ __forceinline__ bool scan_inside(int64_t T, int64_t s0, int64_t n)
{
    return s0 >= GOFF && s0 + n + GOFF <= T;
}

/* ---- channel-parallel: one thread per channel walks all T steps -------------------------- */

/* U steps' loads are issued before their FMAs (U = 1 is the serial baseline). Exactly
 * 3·T·C·bytes of traffic; needs C large enough to fill the GPU by itself. */
template <int U, int GOFF, typename E, typename H = E>
__global__ void scan_channels_kernel(int64_t T, int64_t C, int reverse, const E *a,
                                     const E *b, const typename scan_h0<H>::type *h0, E *h)
{
    int64_t c = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= C) return;
    float x = h0 ? ld(h0 + c) : 0.0f;
    int64_t s = 0;
    for (; s + U <= T; s += U) {
        float av[U], bv[U];
        int64_t off[U];
#pragma unroll
        for (int k = 0; k < U; k++) {
            int64_t t = scan_time(T, reverse, s + k);
            off[k] = t * C + c;
            av[k] = scan_gate<GOFF>(a, T, C, t, c);
            bv[k] = ld(b + off[k]);
        }
#pragma unroll
        for (int k = 0; k < U; k++) {
            x = fmaf(av[k], x, bv[k]);
            st(h + off[k], x);
        }
    }
    for (; s < T; s++) {   /* the last T mod U steps */
        int64_t t = scan_time(T, reverse, s);
        x = fmaf(scan_gate<GOFF>(a, T, C, t, c), x, ld(b + t * C + c));
        st(h + t * C + c, x);
    }
}

/* ---- single pass with decoupled look-back (Merrill & Garland 2016) ------------------------
 *
 * Tiles: a block of SCAN_LB_THREADS threads takes a tile of Cb channels × L = lanes·VL steps.
 * Thread t owns channel t % Cb and VL = VS + VR consecutive steps (its "lane" is t / Cb).
 * Cb = 32 when C >= 32 (a warp's loads at one step are one 128-byte row: coalesced), else
 * Cb = C (the rows a warp touches come back through L1 on the next steps); lanes = 256 / Cb,
 * G = ⌈C/Cb⌉ channel groups, each an independent chain of tiles along T.
 *
 * Per tile, in one pass over a and b (scan_lbs_kernel):
 *   0. stage the thread's first VS steps of a and b in shared memory by cp.async and load
 *      its last VR steps into registers (the tile's only DRAM read; scan_lbs_stage,
 *      scan_lb_load);
 *   1. fold the VL steps to the thread's map, scan the maps across lanes in shared memory,
 *      publish the tile's aggregate per channel (scan_lb2_lanes);
 *   2. look back along each channel over the predecessor tiles of its group, composing their
 *      aggregates until one has published its inclusive value: the carry-in
 *      (scan_lb2_lookback1);
 *   3. publish the inclusive value, rescan the steps from the carry, write h (scan_lbs_out).
 * The status of a (tile, channel) is one 16-byte word: status, and the map (A, B) as float
 * bits. An inclusive value h is the constant map (0, h), so aggregates and inclusive values
 * compose alike, and status and map are one aligned 16-byte store read by one 16-byte load
 * (the packing CUB's tile status uses for small values): no flag array, no fence between a
 * value and its flag, one L2 round trip per look-back round. Lane l of a channel reads
 * predecessors [l·Q, l·Q + Q) of the round's window (lanes·Q tiles) and composes them nearest
 * first up to the first INC; every thread of the channel then composes the lanes' pieces. A
 * round that met an EMPTY word before an INC is polled again, from that word on (PART; what
 * came before it is kept). A round ends on __syncthreads_or (whether a channel is still
 * pending), not on a barrier after which every thread reads the channels' state.
 *
 * Why this shape: with the look-back taken out, the tiles alone run at copy speed, so what is
 * left to cut is the look-back's waiting. A tile of twice the steps registers can hold (half
 * staged in shared memory) halves it per byte; one L2 round trip and one barrier a round, and
 * the lane scan in one barrier, shorten each wait. The versions tried on the way, and what
 * each measured, are in experiments/scan-bandwidth/README.md, "Design notes".
 * DRAM traffic: 3·T·C·bytes plus 32 bytes of status per (tile, channel) (written twice),
 * 1/(3·VL) of the data in f32 at C >= 32.
 *
 * Tile ids: blockIdx in the library's kernel, as CUB's single-pass scans take them (a tile
 * waits only for tiles of lower index, so it relies on blocks starting in index order, which
 * the hardware does and CUDA does not promise); a counter (every tile a block waits for
 * belongs to a block that started earlier, whatever the scheduler does) is a template option,
 * slower by the counter's L2 round trip before the loads (the workbench's versions 34, 40).
 * The status words carry the number of the call that wrote them (its tag): a word of another
 * call reads EMPTY. The library's launcher takes them from logt_ctx_tagged, which zeroes them
 * only when they are (re)allocated, so no memset runs before each call; the workbench zeroes
 * its words before each call and passes 0 (the zeroed word's stamp).
 */
#define SCAN_LB_THREADS 256
enum { SCAN_EMPTY = 0, SCAN_AGG = 1, SCAN_INC = 2 };

/* Later map (qa, qb) after earlier (pa, pb): x -> qa·(pa·x + pb) + qb. */
__device__ __forceinline__ void scan_compose(float &qa, float &qb, float pa, float pb)
{
    qb = fmaf(qa, pb, qb), qa *= pa;
}

/* Channels per look-back tile for C channels. */
static inline int scan_lb_channels(int64_t C) { return C >= 32 ? 32 : (int)C; }

/* The thread's V steps of tile, straight from global memory into registers. */
template <int V, int GOFF, typename E>
__device__ __forceinline__ void scan_lb_load(int64_t T, int64_t C, int reverse, int Cb,
                                             int lanes, int64_t G, int64_t tile, const E *a,
                                             const E *b, float (&av)[V], float (&bv)[V],
                                             int VL = V, int off = 0)
{   /* a lane's VL steps start at (k·lanes + lane)·VL; these V are the ones from off on */
    const int tid = threadIdx.x, lane = tid / Cb, cl = tid % Cb;
    const int64_t g = tile % G, k = tile / G, c = g * Cb + cl, s0 = (k * lanes + lane) * VL + off;
    const bool active = lane < lanes && c < C;
    if (active && scan_inside<GOFF>(T, s0, V)) {
        const int64_t t0 = scan_time(T, reverse, s0), d = reverse ? -C : C;
        const E *pb = b + t0 * C + c, *pa = a + (t0 + GOFF) * C + c;
#pragma unroll
        for (int v = 0; v < V; v++, pa += d, pb += d) av[v] = ld(pa), bv[v] = ld(pb);
        return;
    }
#pragma unroll
    for (int v = 0; v < V; v++) {
        av[v] = 1.0f, bv[v] = 0.0f;   /* identity beyond T or C */
        if (active && s0 + v < T) {
            int64_t t = scan_time(T, reverse, s0 + v);
            av[v] = scan_gate<GOFF>(a, T, C, t, c);
            bv[v] = ld(b + t * C + c);
        }
    }
}

/* Steps s0.. of channel c from state x over the thread's V maps in registers, h written (steps
 * past T skipped); the state after them. Every look-back tile's last phase ends with it. */
template <int V, typename E>
__device__ __forceinline__ float scan_rescan(int64_t T, int64_t C, int reverse, int64_t s0, int64_t c, float x,
                                             const float (&av)[V], const float (&bv)[V], E *h)
{
    if (scan_inside<0>(T, s0, V)) {
        const int64_t d = reverse ? -C : C;
        E *p = h + scan_time(T, reverse, s0) * C + c;
#pragma unroll
        for (int v = 0; v < V; v++, p += d) x = fmaf(av[v], x, bv[v]), ::st(p, x);
        return x;
    }
#pragma unroll
    for (int v = 0; v < V; v++) {
        x = fmaf(av[v], x, bv[v]);
        if (s0 + v < T) ::st(h + scan_time(T, reverse, s0 + v) * C + c, x);
    }
    return x;
}

#define SCAN_LB2_Q 8   /* predecessors per thread per round: window = lanes·Q */
/* A tile's first round reads SCAN_LB2_Q1 words a lane (a window of lanes·Q1) where the tile
 * has G > SCAN_LB2_Q1_G channel groups: there the chain's predecessor is G tiles back, started
 * that much earlier and has mostly published its inclusive value, so the first word usually
 * ends the look-back, and a round takes longer the more words it reads. With G = 1 (C = 32)
 * the inclusive front is further back and a short first round costs a whole extra round, so
 * there the window stays whole. The word count is a compile-time constant, so that a round's
 * loads go out together. (Measurements: experiments/scan-bandwidth, Design notes.) */
#ifndef SCAN_LB2_Q1
#define SCAN_LB2_Q1 2
#endif
#ifndef SCAN_LB2_Q1_G
#define SCAN_LB2_Q1_G 1
#endif

/* Who runs a tile's phases: the whole block. The phases take it as a parameter (S), so that a
 * warp-specialised kernel can hand them a group of SCAN_LB_THREADS threads with its own thread
 * index and barrier. */
struct scan_cta {
    static __device__ __forceinline__ int tid() { return threadIdx.x; }
    static __device__ __forceinline__ void sync() { __syncthreads(); }
    static __device__ __forceinline__ bool any(bool p) { return __syncthreads_or(p); }   /* a barrier too */
};

struct scan_lb2_status {
    unsigned long long *counter;   /* next tile id                                  */
    void *word;                    /* [ntiles][Cb] status words (scan_lbw)             */
    unsigned tag;                  /* this call's number: words of other calls read EMPTY */
};

struct scan_lb2_smem {
    float sA[SCAN_LB_THREADS], sB[SCAN_LB_THREADS];   /* lane scan of the tile: inclusive */
    float xA[SCAN_LB_THREADS], xB[SCAN_LB_THREADS];   /* the lanes' own maps (lanes <= 8) */
    /* each lane's piece of a round, by round parity (scan_lb2_lookback uses buffer 0) */
    float rA[2][SCAN_LB_THREADS], rB[2][SCAN_LB_THREADS];
    unsigned char rI[2][SCAN_LB_THREADS], rE[2][SCAN_LB_THREADS];   /* its first INC, EMPTY */
    float cA[32], cB[32];   /* per channel: predecessors composed so far (nearest first)  */
    long long next[32];     /* per channel: the nearest predecessor not yet composed      */
    float carry[32];
};

/* The status word of a (tile, channel): 16 bytes (status, A, B, tag), EMPTY the zeroed word
 * or one whose tag is not this call's.
 * (W8 = true, 8-byte words, is a workbench variant: kernels/dev/scan.cu.) */
template <bool W8> struct scan_lbw;
template <> struct scan_lbw<false> {
    uint4 v;
    __device__ __forceinline__ void load(const void *base, int64_t i, unsigned tag)
    {
        v = __ldcv((const uint4 *)base + i);
        if (v.w != tag) v.x = SCAN_EMPTY;   /* written by an earlier call, or never */
    }
    __device__ __forceinline__ void inc(float h) { v = make_uint4(SCAN_INC, 0u, __float_as_uint(h), 0u); }
    __device__ __forceinline__ void ident() { v = make_uint4(SCAN_AGG, __float_as_uint(1.0f), 0u, 0u); }
    __device__ __forceinline__ unsigned status() const { return v.x; }
    __device__ __forceinline__ float A() const { return __uint_as_float(v.y); }
    __device__ __forceinline__ float B() const { return __uint_as_float(v.z); }
    static __device__ __forceinline__ void publish(void *base, int64_t i, unsigned status, float A, float B,
                                                   unsigned tag)
    {
        __stcg((uint4 *)base + i, make_uint4(status, __float_as_uint(A), __float_as_uint(B), tag));
    }
};
/* The lanes' maps in sm.sA, sm.sB (written, the block met) scanned by doubling: log2(lanes)
 * rounds of two barriers; (A, B) and the arrays end inclusive. */
template <typename S = scan_cta>
__device__ __forceinline__ void scan_lb2_doubling(int Cb, int lanes, scan_lb2_smem &sm, float &A, float &B)
{
    const int tid = S::tid(), lane = tid / Cb;
    for (int off = 1; off < lanes; off *= 2) {
        float pa = 1.0f, pb = 0.0f;
        if (lane >= off && lane < lanes) pa = sm.sA[tid - off * Cb], pb = sm.sB[tid - off * Cb];
        S::sync();
        scan_compose(A, B, pa, pb);
        sm.sA[tid] = A, sm.sB[tid] = B;
        S::sync();
    }
}

/* Phase 1 of a tile, from the thread's map (A, B) over its own steps: the maps scanned
 * across lanes (sm.sA, sm.sB: inclusive, lane l covers lanes 0..l), and, when `publish`, the
 * tile's aggregate published (k > 0) by the last lane. Leaves the thread's inclusive map in
 * (A, B); the caller meets the block (S::sync) before it reads another thread's sm.sA, sm.sB.
 * Up to 8 lanes (tiles of 32 channels) in one barrier: each thread composes the maps of lanes
 * 0..lane itself, where the doubling scan takes log2(lanes) rounds of two barriers each
 * (measured faster: experiments/scan-bandwidth, Design notes). */
template <bool W8 = false, typename S = scan_cta>
__device__ __forceinline__ void scan_lb2_lanes(int Cb, int lanes, int64_t tile, int64_t G, bool publish,
                                               const scan_lb2_status &st, scan_lb2_smem &sm, float &A, float &B)
{
    const int tid = S::tid(), lane = tid / Cb, cl = tid % Cb;
    if (lanes <= 8) {   /* block-uniform */
        sm.xA[tid] = A, sm.xB[tid] = B;
        S::sync();
        float iA = 1.0f, iB = 0.0f;
#pragma unroll
        for (int l = 0; l < 8; l++) {   /* earliest first; the loads do not wait on each other */
            const bool in = l <= lane && lane < lanes;
            const float pa = in ? sm.xA[l * Cb + cl] : 1.0f, pb = in ? sm.xB[l * Cb + cl] : 0.0f;
            iB = fmaf(pa, iB, pb), iA *= pa;
        }
        if (lane < lanes) A = iA, B = iB;
        sm.sA[tid] = A, sm.sB[tid] = B;
    } else {
        sm.sA[tid] = A, sm.sB[tid] = B;
        S::sync();
        scan_lb2_doubling<S>(Cb, lanes, sm, A, B);
    }
    if (publish && tile >= G && lane == lanes - 1)
        scan_lbw<W8>::publish(st.word, tile * Cb + cl, SCAN_AGG, A, B, st.tag);
}

/* Marks between a tile's phases and look-back rounds: none in the library; the workbench's
 * timeline records them. */
struct scan_no_probe {
    __device__ __forceinline__ void mark(int) const {}
    __device__ __forceinline__ void round() const {}
    __device__ __forceinline__ void empty() const {}
};

/* The status words of predecessors j - lane·QN - q, q < QN <= Q, of channel cl (h0's INC
 * before the first tile); words QN.. are the identity (an AGG of the map x -> x). */
template <int Q, bool W8, int QN = Q>
__device__ __forceinline__ void scan_lb2_words(const scan_lb2_status &st, int64_t G, int64_t g, int Cb, int cl,
                                               int lane, long long j, float h0c, scan_lbw<W8> (&w)[Q])
{
#pragma unroll
    for (int q = 0; q < Q; q++) {
        const long long jj = j - (long long)lane * QN - q;
        if (q >= QN) w[q].ident();
        else if (jj >= 0) w[q].load(st.word, (jj * G + g) * Cb + cl, st.tag);
        else w[q].inc(h0c);
    }
}
/* A lane's piece of a round: its words composed nearest first, up to the first INC (fi) or
 * EMPTY (fe), into (mA, mB). */
template <int Q, bool W8>
__device__ __forceinline__ void scan_lb2_piece(const scan_lbw<W8> (&w)[Q], float &mA, float &mB, int &fi, int &fe)
{
    mA = 1.0f, mB = 0.0f, fi = Q, fe = Q;
#pragma unroll
    for (int q = 0; q < Q; q++) {
        if (fi < Q || fe < Q) continue;
        const unsigned status = w[q].status();
        if (status == SCAN_EMPTY) {
            fe = q;
        } else {
            scan_compose(mA, mB, w[q].A(), w[q].B());
            if (status == SCAN_INC) fi = q;
        }
    }
}

/* A round's first half for a thread: the words of its lane's predecessors of channel cl
 * (nearest j) composed into its piece, written to buffer p (an identity piece when j < 0 or
 * the thread is past the tile's lanes). The first round of a tile with more than SCAN_LB2_Q1_G
 * channel groups reads Q1 words a lane (short1). Returns the words a lane read (qn). */
template <int Q, bool W8, int Q1, typename S = scan_cta>
__device__ __forceinline__ int scan_lb2_round(const scan_lb2_status &st, int64_t G, int Cb, int lanes, int64_t tile,
                                              float h0c, long long j, bool first, scan_lb2_smem &sm, int p)
{
    const int tid = S::tid(), lane = tid / Cb, cl = tid % Cb;
    const int64_t g = tile % G;
    float mA = 1.0f, mB = 0.0f;
    int fi = Q, fe = Q;
    const bool short1 = Q1 < Q && first && G > SCAN_LB2_Q1_G;   /* block-uniform */
    if (j >= 0 && lane < lanes) {
        scan_lbw<W8> w[Q];
        if (short1) scan_lb2_words<Q, W8, Q1>(st, G, g, Cb, cl, lane, j, h0c, w);
        else scan_lb2_words<Q, W8>(st, G, g, Cb, cl, lane, j, h0c, w);
        scan_lb2_piece<Q, W8>(w, mA, mB, fi, fe);
    }
    sm.rA[p][tid] = mA, sm.rB[p][tid] = mB, sm.rI[p][tid] = (unsigned char)fi, sm.rE[p][tid] = (unsigned char)fe;
    return short1 ? Q1 : Q;
}

/* A round's second half for channel cl (buffer p written, the block met): the lanes' pieces,
 * nearest first, composed after the channel's (cA, cB) up to the first INC or EMPTY, and the
 * channel's state moved on: an INC gives the carry (next = -1); a window of aggregates only,
 * the next window; an EMPTY, with PART, what came before it and the EMPTY tile as the next,
 * without PART the same window again. Returns whether it met an EMPTY. */
template <int Q, bool PART>
__device__ __forceinline__ bool scan_lb2_combine(const scan_lb2_smem &sm, int p, int Cb, int lanes, int cl, int qn,
                                                 long long j, float &cA, float &cB, long long &next, float &carry)
{
    float qA = cA, qB = cB;
    int found = 0, empty = 0;
    long long at = -1;   /* PART: the first EMPTY tile */
    for (int l = 0; l < lanes && !found && !empty; l++) {
        const int t = l * Cb + cl;
        if (sm.rE[p][t] < Q) {   /* this lane met an EMPTY before any INC */
            empty = 1;
            if (PART) scan_compose(qA, qB, sm.rA[p][t], sm.rB[p][t]), at = j - (long long)l * qn - sm.rE[p][t];
        } else {
            scan_compose(qA, qB, sm.rA[p][t], sm.rB[p][t]), found = sm.rI[p][t] < Q;
        }
    }
    if (found) carry = qB, next = -1;   /* an INC makes qA = 0 */
    else if (!empty) cA = qA, cB = qB, next = j - (long long)lanes * qn;
    else if (PART) cA = qA, cB = qB, next = at;   /* from the EMPTY on */
    return empty;
}

/* Phase 2: the carry-in of every channel of the tile into sm.carry (h0 for the first chunk),
 * each round's pieces composed by the channel's lane-0 thread, the channel's state in shared
 * memory: two barriers a round (the workbench's version 13; the library's look-back is
 * scan_lb2_lookback1). */
template <int Q = SCAN_LB2_Q, bool W8 = false, typename H, typename S = scan_cta, bool PART = false,
          class P = scan_no_probe, int Q1 = Q>
__device__ __forceinline__ void scan_lb2_lookback(int64_t C, int Cb, int lanes, int64_t G, int64_t tile,
                                                  const H *h0, const scan_lb2_status &st,
                                                  scan_lb2_smem &sm, const P &probe = P())
{
    const int tid = S::tid(), cl = tid % Cb;
    const int64_t g = tile % G, k = tile / G, c = g * Cb + cl;
    const float h0c = (h0 && c < C) ? ld(h0 + c) : 0.0f;
    if (tid < Cb)   /* channels past C (the last group's padding) have nothing to wait for */
        sm.cA[cl] = 1.0f, sm.cB[cl] = 0.0f, sm.next[cl] = k > 0 && c < C ? k - 1 : -1, sm.carry[cl] = h0c;
    S::sync();
    if (k == 0) return;
    for (bool first = true;; first = false) {
        probe.round();
        const long long j = sm.next[cl];   /* -1: this channel is done */
        const int qn = scan_lb2_round<Q, W8, Q1, S>(st, G, Cb, lanes, tile, h0c, j, first, sm, 0);
        S::sync();
        if (tid < Cb && j >= 0   /* lane 0 of the channel */
            && scan_lb2_combine<Q, PART>(sm, 0, Cb, lanes, cl, qn, j, sm.cA[cl], sm.cB[cl], sm.next[cl], sm.carry[cl])
            && cl == 0)
            probe.empty();
        /* the barrier that ends the round asks whether a channel is still pending: its lane-0
         * thread, which wrote sm.next[cl], answers */
        if (!S::any(tid < Cb && sm.next[cl] >= 0)) return;
    }
}

/* Phase 2 as the library runs it, one barrier a round: every thread of a channel composes
 * the lanes' pieces itself (the same values in the same order: the same result in every
 * thread), keeps the channel's state in registers, and a warp, which holds a thread of every
 * channel, votes on whether all are done, so every warp leaves after the same round. The
 * pieces alternate between two buffers: a thread writes round r + 1's after the barrier of
 * round r, which no thread passes before it has read round r - 1's. One barrier a round where
 * scan_lb2_lookback takes two (a barrier, the combine in one warp, a second barrier that
 * votes), measured faster (experiments/scan-bandwidth, Design notes). Where Cb > 32 a warp
 * does not hold every channel: BVOTE, the block votes (a second barrier a round). Returns the
 * channel's carry (every thread of the channel has it; sm.carry is not used). */
template <int Q = SCAN_LB2_Q, bool W8 = false, typename H, typename S = scan_cta, bool PART = false,
          class P = scan_no_probe, int Q1 = Q, bool BVOTE = false>
__device__ __forceinline__ float scan_lb2_lookback1(int64_t C, int Cb, int lanes, int64_t G, int64_t tile,
                                                   const H *h0, const scan_lb2_status &st, scan_lb2_smem &sm,
                                                   const P &probe = P())
{
    const int tid = S::tid(), cl = tid % Cb;
    const int64_t g = tile % G, k = tile / G, c = g * Cb + cl;
    const float h0c = (h0 && c < C) ? ld(h0 + c) : 0.0f;
    float cA = 1.0f, cB = 0.0f, carry = h0c;
    long long j = k > 0 && c < C ? k - 1 : -1;   /* channels past C have nothing to wait for */
    if (k == 0) S::sync();   /* the lane scan's sm.sA, sm.sB: other threads read them next */
    for (int r = 0, first = 1; k > 0; r ^= 1, first = 0) {
        probe.round();
        const int qn = scan_lb2_round<Q, W8, Q1, S>(st, G, Cb, lanes, tile, h0c, j, first, sm, r);
        S::sync();
        if (j >= 0 && scan_lb2_combine<Q, PART>(sm, r, Cb, lanes, cl, qn, j, cA, cB, j, carry) && tid == 0)
            probe.empty();
        if (BVOTE ? !S::any(j >= 0) : __all_sync(0xffffffffu, j < 0)) break;
    }
    return carry;
}

/* Phase 3 and the kernel. A thread's VL = VS + VR steps of its channel: the first VS staged in
 * shared memory by cp.async (no registers held while they fly), the last VR loaded into
 * registers. The tile holds lanes·VL steps: at VS = VR = 32, 512 steps of 32 channels, 128 KB of
 * f32 a and b, twice what registers alone can hold (48 steps a thread spill); one look-back
 * a tile, so the look-back's cost per byte halves and the chain's inclusive front crosses half
 * as many tiles. Copies: f32 tiles of 32 channels wholly inside [0, T) and C, with C a
 * multiple of 4 and a, b 16-byte aligned, whole 128-byte rows in 16-byte pieces (each row
 * lands in one step); other f32 tiles, a thread its own elements by 4-byte copies. bf16, two
 * channels a copy when the tile has 32 channels, C is even and a, b are 4-byte aligned (rows
 * then are), else plain loads. The library's bf16 tiles stage VS = 96 steps (kernels/scan.cu
 * says why). */
#define SCAN_LBS_VS 32
#define SCAN_LBS_VR 32

__device__ __forceinline__ void scan_cp4(void *s, const void *g)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"((unsigned)__cvta_generic_to_shared(s)),
                 "l"(g));
}
__device__ __forceinline__ void scan_cp16(void *s, const void *g)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"((unsigned)__cvta_generic_to_shared(s)),
                 "l"(g));
}

/* The shared part of the tile, [lanes][VS][Cb] of a and of b (the thread's own at
 * [lane][v][cl]): gates of times outside [0, T) are 0 (GOFF), steps past T and channels past
 * C the identity (1, 0). Only issues the copies (one commit group): the caller waits for them
 * (cp.async.wait_all) and meets the block (__syncthreads) before it reads sa or sb, since on
 * the bf16 pairs path a thread's copies are other threads' data. */
template <int VS, int GOFF, typename E>
__device__ __forceinline__ void scan_lbs_stage(int64_t T, int64_t C, int reverse, int Cb, int lanes,
                                               int64_t G, int64_t tile, int VL, const E *a,
                                               const E *b, E *sa, E *sb)
{
    const int tid = threadIdx.x, lane = tid / Cb, cl = tid % Cb;
    const int64_t g = tile % G, k = tile / G, s0 = (k * lanes + lane) * VL;
    if (sizeof(E) == 4 && VS % 32 == 0 && Cb == 32 && lanes == 8 && C % 4 == 0 && (g + 1) * 32 <= C &&
        (((uintptr_t)a | (uintptr_t)b) & 15) == 0 && scan_inside<GOFF>(T, k * lanes * VL, lanes * VL)) {
        /* f32, a tile of 32 channels inside [0, T) and C, rows 16-byte aligned: the block copies
         * whole 128-byte rows in 16-byte pieces, a thread piece q of rows v, v + 32, .. of every
         * lane (each row then lands in one step, not 32 threads' 4-byte copies) */
        const int q = tid & 7;
        for (int v = tid >> 3; v < VS; v += 32) {
            const int64_t t0 = scan_time(T, reverse, k * lanes * VL + v), d = (reverse ? -C : C) * VL;
            const E *pb = b + t0 * C + g * 32 + 4 * q, *pa = a + (t0 + GOFF) * C + g * 32 + 4 * q;
            E *db = sb + v * 32 + 4 * q, *da = sa + v * 32 + 4 * q;
#pragma unroll
            for (int l = 0; l < 8; l++, pb += d, pa += d, db += VS * 32, da += VS * 32)
                scan_cp16(db, pb), scan_cp16(da, pa);
        }
        asm volatile("cp.async.commit_group;\n" ::);
        return;
    }
    if (lane < lanes) {
        /* f32: a copy is one element, the thread's own; bf16 in 32-channel tiles with C even
         * and a, b 4-byte aligned: a copy is channels 2w, 2w + 1 of every other step (the
         * warp is one lane's rows) */
        const bool pairs = sizeof(E) == 2 && Cb == 32 && C % 2 == 0 && (((uintptr_t)a | (uintptr_t)b) & 3) == 0;
        const int per = sizeof(E) == 4 ? 1 : 2, w = pairs ? cl % 16 : cl, v0 = pairs ? cl / 16 : 0,
                  dv = pairs ? 2 : 1;
        const int64_t c = g * Cb + (int64_t)w * (pairs ? 2 : 1);
        if ((sizeof(E) == 4 || pairs) && c < C && scan_inside<GOFF>(T, s0, VL)) {
            const int64_t t0 = scan_time(T, reverse, s0 + v0), d = (reverse ? -C : C) * dv;
            const E *pb = b + t0 * C + c, *pa = a + (t0 + GOFF) * C + c;
            E *db = sb + (lane * VS + v0) * Cb + (pairs ? 2 * w : w), *da = sa + (db - sb);
#pragma unroll 4
            for (int v = v0; v < VS; v += dv, pb += d, pa += d, db += dv * Cb, da += dv * Cb)
                scan_cp4(db, pb), scan_cp4(da, pa);
        } else {
#pragma unroll 4
            for (int v = v0; v < VS; v += dv) {
                E *da = sa + (lane * VS + v) * Cb + (pairs ? 2 * w : w), *db = sb + (da - sa);
                const int64_t s = s0 + v, t = scan_time(T, reverse, s), tg = t + GOFF;
                const bool in = c < C && s < T;
                const bool gate = in && tg >= 0 && tg < T;
                if (sizeof(E) == 4 || pairs) {
                    if (in) scan_cp4(db, b + t * C + c);
                    else for (int e = 0; e < per; e++) ::st(db + e, 0.0f);
                    if (gate) scan_cp4(da, a + tg * C + c);
                    else for (int e = 0; e < per; e++) ::st(da + e, in ? 0.0f : 1.0f);
                } else {
                    ::st(db, in ? ld(b + t * C + c) : 0.0f);
                    ::st(da, gate ? ld(a + tg * C + c) : in ? 0.0f : 1.0f);
                }
            }
        }
    }
    asm volatile("cp.async.commit_group;\n" ::);
}

/* Phase 3 of a staged tile, its channel's carry x0 and its thread's inclusive map (A, B): the
 * tile's inclusive value published, the steps rescanned from the carry, h written.
 * VST (with 32-channel tiles, C a multiple of 16 bytes' elements and h 16-byte aligned): the
 * steps' h go to shared memory first, over the thread's own a and b (step v < VS at sa's
 * slot, step VS + v at sb's slot v: both read already, VR <= VS), and the block writes the
 * tile's rows in 16-byte pieces: a bf16 thread's store is 2 bytes otherwise, a warp's 64. */
template <int VS, int VR, typename E, bool W8 = false, bool VST = false>
__device__ __forceinline__ void scan_lbs_out(int64_t T, int64_t C, int reverse, int Cb, int lanes, int64_t G,
                                             int64_t tile, E *sa, E *sb, const float (&av)[VR],
                                             const float (&bv)[VR], E *h, const scan_lb2_status &st,
                                             const scan_lb2_smem &sm, float A, float B, float x0)
{
    const int tid = threadIdx.x, lane = tid / Cb, cl = tid % Cb;
    E *pa = sa + lane * VS * Cb + cl, *pb = sb + lane * VS * Cb + cl;   /* the thread's own slots */
    const int64_t g = tile % G, k = tile / G, c = g * Cb + cl, s0 = (k * lanes + lane) * (VS + VR);
    if (lane == lanes - 1) scan_lbw<W8>::publish(st.word, tile * Cb + cl, SCAN_INC, 0.0f, fmaf(A, x0, B), st.tag);
    constexpr int EPC = 16 / (int)sizeof(E);   /* elements a 16-byte piece */
    const bool rows = VST && VR <= VS && Cb == 32 && C % EPC == 0 && ((uintptr_t)h & 15) == 0;   /* the block's */
    if (!rows && (lane >= lanes || c >= C)) return;
    float x = x0;
    if (lane < lanes && lane > 0) x = fmaf(sm.sA[tid - Cb], x, sm.sB[tid - Cb]);   /* the lanes before this one */
    if (!rows) {
        if (scan_inside<0>(T, s0, VS)) {
            const int64_t d = reverse ? -C : C;
            E *p = h + scan_time(T, reverse, s0) * C + c;
#pragma unroll 8
            for (int v = 0; v < VS; v++, p += d) x = fmaf(ld(pa + v * Cb), x, ld(pb + v * Cb)), ::st(p, x);
        } else {
#pragma unroll 8
            for (int v = 0; v < VS; v++) {
                x = fmaf(ld(pa + v * Cb), x, ld(pb + v * Cb));
                if (s0 + v < T) ::st(h + scan_time(T, reverse, s0 + v) * C + c, x);
            }
        }
        scan_rescan<VR>(T, C, reverse, s0 + VS, c, x, av, bv, h);
        return;
    }
    if (lane < lanes && c < C) {   /* h into the thread's own slots, then the rows */
#pragma unroll 8
        for (int v = 0; v < VS; v++) x = fmaf(ld(pa + v * Cb), x, ld(pb + v * Cb)), ::st(pa + v * Cb, x);
#pragma unroll
        for (int v = 0; v < VR; v++) x = fmaf(av[v], x, bv[v]), ::st(pb + v * Cb, x);
    }
    __syncthreads();
    constexpr int VL = VS + VR, CPR = 32 / EPC;   /* pieces a row */
    for (int i = tid; i < lanes * VL * CPR; i += SCAN_LB_THREADS) {
        const int r = i / CPR, j = i % CPR, l = r / VL, v = r % VL;
        const int64_t s = (k * lanes + l) * VL + v, c0 = g * Cb + j * EPC;
        if (s >= T || c0 >= C) continue;
        const E *src = (v < VS ? sa + (l * VS + v) * Cb : sb + (l * VS + v - VS) * Cb) + j * EPC;
        *(uint4 *)(h + scan_time(T, reverse, s) * C + c0) = *(const uint4 *)src;
    }
}

/* Phases 1 (from the lane scan on) to 3 of a staged tile whose thread map (A, B) over its
 * VS + VR steps is folded already (scan_lbs_fold). */
template <int VS, int VR, int Q = SCAN_LB2_Q, bool PART = false, typename E, typename H,
          class P = scan_no_probe, bool W8 = false, bool VST = false>
__device__ __forceinline__ void scan_lbs_finish(int64_t T, int64_t C, int reverse, int Cb, int lanes, int64_t G,
                                                int64_t tile, E *sa, E *sb, const float (&av)[VR],
                                                const float (&bv)[VR], const H *h0, E *h,
                                                const scan_lb2_status &st, scan_lb2_smem &sm, float A, float B,
                                                const P &probe = P())
{
    scan_lb2_lanes<W8>(Cb, lanes, tile, G, true, st, sm, A, B);
    probe.mark(1);
    /* phase 2 */
    constexpr int Q1 = SCAN_LB2_Q1 < Q ? SCAN_LB2_Q1 : Q;
    const float x0 = scan_lb2_lookback1<Q, W8, H, scan_cta, PART, P, Q1>(C, Cb, lanes, G, tile, h0, st, sm,
                                                                          probe);   /* the channel's carry */
    probe.mark(2);
    scan_lbs_out<VS, VR, E, W8, VST>(T, C, reverse, Cb, lanes, G, tile, sa, sb, av, bv, h, st, sm, A, B, x0);
}

/* The thread's map (A, B) over its VS + VR steps: its shared part at sa, sb ([lanes][VS][Cb],
 * landed), then its register part in av, bv. */
template <int VS, int VR, typename E>
__device__ __forceinline__ void scan_lbs_fold(int Cb, int lanes, const E *sa, const E *sb, const float (&av)[VR],
                                              const float (&bv)[VR], float &A, float &B)
{
    const int tid = threadIdx.x, lane = tid / Cb, cl = tid % Cb;
    const E *pa = sa + lane * VS * Cb + cl, *pb = sb + lane * VS * Cb + cl;
    A = 1.0f, B = 0.0f;
    if (lane < lanes) {
#pragma unroll 8
        for (int v = 0; v < VS; v++) B = fmaf(ld(pa + v * Cb), B, ld(pb + v * Cb)), A *= ld(pa + v * Cb);
    }
#pragma unroll
    for (int v = 0; v < VR; v++) B = fmaf(av[v], B, bv[v]), A *= av[v];
}

/* The three phases of a staged tile, its shared part at sa, sb ([lanes][VS][Cb], landed) and
 * its register part in av, bv. */
template <int VS, int VR, int Q = SCAN_LB2_Q, bool PART = false, typename E, typename H,
          class P = scan_no_probe, bool W8 = false, bool VST = false>
__device__ __forceinline__ void scan_lbs_tile(int64_t T, int64_t C, int reverse, int Cb, int lanes, int64_t G,
                                              int64_t tile, E *sa, E *sb, const float (&av)[VR],
                                              const float (&bv)[VR], const H *h0, E *h,
                                              const scan_lb2_status &st, scan_lb2_smem &sm, const P &probe = P())
{
    /* phase 1: the thread's map over its VS + VR steps, the lane scan, the aggregate */
    float A, B;
    scan_lbs_fold<VS, VR>(Cb, lanes, sa, sb, av, bv, A, B);
    scan_lbs_finish<VS, VR, Q, PART, E, H, P, W8, VST>(T, C, reverse, Cb, lanes, G, tile, sa, sb, av, bv, h0, h,
                                                        st, sm, A, B, probe);
}

/* A staged tile's one read of a and b: its shared part staged (scan_lbs_stage), its register
 * part loaded into av, bv, both landed and the block met. */
template <int VS, int VR, int GOFF, typename E>
__device__ __forceinline__ void scan_lbs_load(int64_t T, int64_t C, int reverse, int Cb, int lanes, int64_t G,
                                              int64_t tile, const E *a, const E *b, E *sa, E *sb, float (&av)[VR],
                                              float (&bv)[VR])
{
    constexpr int VL = VS + VR;
    scan_lbs_stage<VS, GOFF>(T, C, reverse, Cb, lanes, G, tile, VL, a, b, sa, sb);
    scan_lb_load<VR, GOFF>(T, C, reverse, Cb, lanes, G, tile, a, b, av, bv, VL, VS);
    asm volatile("cp.async.wait_all;\n" ::);
    __syncthreads();
}

/* The tile id. BIDX: blockIdx, as CUB's single-pass scans take it: a tile waits only for
 * tiles of lower index, which is deadlock-free when blocks start in index order (what the
 * hardware does, though CUDA does not promise it). Else the counter's: a tile waits only for
 * tiles of blocks that started before it, whatever the scheduler does, at the price of an L2
 * round trip before the loads can go out.
 * REV: the direction as a template argument (0 forward, 1 reversed) or -1, the argument
 * `reverse_`. Fixed, every step's time index folds to s or T - 1 - s at compile time (the
 * workbench's version 56 against 42). The library fixes it for the plain scan's forward staged
 * tiles only (kernels/scan.cu says why not for the others; the bf16 forward kernel spills 4
 * bytes, the f32 ones none).
 * MINB: blocks an SM the registers are bounded for (2; the workbench's version 64 tries 3).
 * VST: h written in 16-byte pieces of whole rows through shared memory (scan_lbs_out). */
template <int VS, int VR, int GOFF, typename E, typename H = E, int REV = -1, int Q = SCAN_LB2_Q,
          bool BIDX = true, bool PART = true, bool W8 = false, int MINB = 2, bool VST = false>
__global__ void __launch_bounds__(SCAN_LB_THREADS, MINB)
scan_lbs_kernel(int64_t T, int64_t C, int reverse_, int Cb, int lanes, int64_t G, const E *a,
                const E *b, const typename scan_h0<H>::type *h0, E *h, scan_lb2_status st)
{
    const int reverse = REV >= 0 ? REV : reverse_;   /* REV: the direction, fixed at compile time */
    extern __shared__ float4 scan_lbs_dyn[];
    E *sa = (E *)scan_lbs_dyn, *sb = sa + SCAN_LB_THREADS * VS;
    __shared__ scan_lb2_smem sm;
    __shared__ long long s_tile;
    if (!BIDX) {
        if (threadIdx.x == 0) s_tile = (long long)atomicAdd(st.counter, 1ull);
        __syncthreads();
    }
    const long long tile = BIDX ? (long long)blockIdx.x : s_tile;   /* loaded, staged, the phases */
    float av[VR], bv[VR];
    scan_lbs_load<VS, VR, GOFF>(T, C, reverse, Cb, lanes, G, tile, a, b, sa, sb, av, bv);
    scan_lbs_tile<VS, VR, Q, PART, E, H, scan_no_probe, W8, VST>(T, C, reverse, Cb, lanes, G, tile, sa, sb, av, bv,
                                                                 h0, h, st, sm);
}

/* ---- the rest of the scan's backward ------------------------------------------------------
 * With g = db from the shifted reversed scan: da_t = g_t ⊙ h_{t-1} (h_{-1} = h0), dh0 = a_0 ⊙ g_0.
 * dh0 is written before da_0, so da may be a. */
template <typename E>
__global__ void scan_backward_rest_kernel(int64_t T, int64_t C, const E *a, const E *h0,
                                          const E *h, const E *g, E *da, E *dh0)
{
    const int64_t n = T * C;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        float gi = ld(g + i);
        if (i < C) {
            if (dh0) st(dh0 + i, ld(a + i) * gi);
            if (da) st(da + i, h0 ? gi * ld(h0 + i) : 0.0f);
        } else if (da) {
            st(da + i, gi * ld(h + i - C));
        }
    }
}

#endif
