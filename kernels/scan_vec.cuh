/* scan_vec.cuh — the linear scan h_t = a_t ⊙ h_{t-1} + b_t (kernels/scan.h) on 16-bit arrays
 * (E = __nv_bfloat16 or __half) moved in 16-byte vectors: a thread owns 8 adjacent channels,
 * each of its loads and stores carries one step of those 8 channels (a uint4), and the
 * arithmetic is fp32 in registers (widen8, narrow8: core/elem.cuh). kernels/scan.cu takes these
 * kernels where C is a multiple of 8, C >= 32 and the arrays are 16-byte aligned; other 16-bit
 * scans take scan_kernels.cuh's, one channel a thread. Conventions (step s, time t, GOFF, H,
 * int64 offsets) are scan_kernels.cuh's.
 *
 * Why vectors. A one-channel thread moves 2 bytes a load, a store and a shared-memory access:
 * a warp's access carries 64 bytes where an f32 warp's carries 128, so a 16-bit tile costs
 * about what an f32 tile of as many steps costs, for half the bytes. With 8 channels a thread
 * every access carries 16 bytes a thread, and a tile of as many bytes as f32's (128 KB of a and
 * b) costs about what f32's does.
 *
 * Bounds. Bytes moved: 3·T·C·2 (a, b read once, h written once); the look-back adds 32 bytes
 * of status words per (tile, channel), 1/192 of a 1024-step tile's bytes. Flops: 2 per element
 * (one FMA) on the channel route, 5 on the look-back route (the fold's FMA and product, the
 * rescan's FMA), besides the conversions. At an H200's 4.8 TB/s and ~67 TFLOP/s of fp32, the
 * shapes of experiments/scan-bandwidth: (C, T) = (65536, 16384) and (1024, 2^20) are 2^30
 * elements, 6.4 GB: 1.34 ms for the bytes, 0.08 ms for the flops; (65536, 1024) 0.40 GB,
 * 0.084 ms; (32, 2^22) 0.81 GB, 0.17 ms. Memory-bound by ~16x on every shape.
 */
#ifndef LOGT_SCAN_VEC_CUH
#define LOGT_SCAN_VEC_CUH

#include "scan_kernels.cuh"

#define SCAN_VEC_W 8                                       /* channels a thread: 16 bytes   */
/* A vector look-back tile of CB channels: 32, or 64 (rows of 128 bytes; the library's where C >= 64) */
template <int CB> struct scan_vec_tile {
    static constexpr int cols = CB / SCAN_VEC_W;              /* threads across a row        */
    static constexpr int vlanes = SCAN_LB_THREADS / cols;     /* vector lanes along T        */
    static constexpr int lanes = SCAN_LB_THREADS / CB;        /* scalar lanes of a channel   */
    static constexpr int per = vlanes / lanes;                /* vector lanes a scalar lane  */
};
static_assert(scan_vec_tile<32>::per == 8 && scan_vec_tile<64>::per == 8, "a scalar lane composes 8 vector lanes");

/* One step of W adjacent 16-bit channels as one word: W = 8 a uint4 (16 bytes, the vector
 * routes), W = 4 a uint2 (half of one, the paired-step tile's), W = 2 a uint32_t (4 bytes, the
 * pair route); widened to fp32 and back (elem.cuh). */
template <int W> struct scan_word;
template <> struct scan_word<8> {
    typedef uint4 type;
    static __device__ __forceinline__ type zero() { return make_uint4(0u, 0u, 0u, 0u); }
    template <typename E> static __device__ __forceinline__ void widen(type v, float (&f)[8]) { widen8<E>(v, f); }
    template <typename E> static __device__ __forceinline__ type narrow(const float (&f)[8]) { return narrow8<E>(f); }
};
template <> struct scan_word<4> {
    typedef uint2 type;
    static __device__ __forceinline__ type zero() { return make_uint2(0u, 0u); }
    template <typename E> static __device__ __forceinline__ void widen(type v, float (&f)[4])
    {
        const float2 p = widen2<E>(v.x), r = widen2<E>(v.y);
        f[0] = p.x, f[1] = p.y, f[2] = r.x, f[3] = r.y;
    }
    template <typename E> static __device__ __forceinline__ type narrow(const float (&f)[4])
    {
        return make_uint2(narrow2<E>(f[0], f[1]), narrow2<E>(f[2], f[3]));
    }
};
template <> struct scan_word<2> {
    typedef uint32_t type;
    static __device__ __forceinline__ type zero() { return 0u; }
    template <typename E> static __device__ __forceinline__ void widen(type v, float (&f)[2])
    {
        const float2 p = widen2<E>(v);
        f[0] = p.x, f[1] = p.y;
    }
    template <typename E> static __device__ __forceinline__ type narrow(const float (&f)[2]) { return narrow2<E>(f[0], f[1]); }
};

/* Loads of one word with an L2 prefetch hint (PF: 0 none, 64, 128 or 256 bytes: the L2 fetches
 * that much around the word from DRAM, so that the neighbouring threads' or tiles' parts of a
 * line come in one request). The library's kernels take PF = 0; the workbench
 * kernels/dev/scan_vec.cu times the others. */
#define SCAN_LDW16(Q, g, v) \
    asm("ld.global.L2::" Q ".v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(g))
#define SCAN_LDW4(Q, g, v) asm("ld.global.L2::" Q ".u32 %0, [%1];" : "=r"(v) : "l"(g))
#define SCAN_CP16(Q, d, g) asm volatile("cp.async.cg.shared.global.L2::" Q " [%0], [%1], 16;\n" ::"r"(d), "l"(g))
template <int PF, typename V> __device__ __forceinline__ V scan_ldw(const void *g)
{
    static_assert(PF == 0 || PF == 64 || PF == 128 || PF == 256, "prefetch of 0, 64, 128 or 256 bytes");
    if constexpr (PF == 0) {
        return *(const V *)g;
    } else {
        V v;
        if constexpr (sizeof(V) == 16) {
            if constexpr (PF == 64) SCAN_LDW16("64B", g, v);
            else if constexpr (PF == 128) SCAN_LDW16("128B", g, v);
            else SCAN_LDW16("256B", g, v);
        } else {
            if constexpr (PF == 64) SCAN_LDW4("64B", g, v);
            else if constexpr (PF == 128) SCAN_LDW4("128B", g, v);
            else SCAN_LDW4("256B", g, v);
        }
        return v;
    }
}
template <int PF> __device__ __forceinline__ void scan_cp16_pf(void *s, const void *g)
{
    const unsigned d = (unsigned)__cvta_generic_to_shared(s);
    if constexpr (PF == 0) scan_cp16(s, g);
    else if constexpr (PF == 64) SCAN_CP16("64B", d, g);
    else if constexpr (PF == 128) SCAN_CP16("128B", d, g);
    else SCAN_CP16("256B", d, g);
}
#undef SCAN_LDW16
#undef SCAN_LDW4
#undef SCAN_CP16

/* The gates of time t (offset by GOFF; 0 outside [0, T)) for channels c0 .. c0 + W - 1. */
template <int GOFF, int W, typename E, int PF = 0>
__device__ __forceinline__ typename scan_word<W>::type scan_wgate(const E *a, int64_t T, int64_t C, int64_t t, int64_t c0)
{
    typedef typename scan_word<W>::type V;
    if (GOFF == 0) return scan_ldw<PF, V>(a + t * C + c0);
    const int64_t tg = t + GOFF;
    return tg >= 0 && tg < T ? scan_ldw<PF, V>(a + tg * C + c0) : scan_word<W>::zero();
}
template <int GOFF, typename E>
__device__ __forceinline__ uint4 scan_vgate(const E *a, int64_t T, int64_t C, int64_t t, int64_t c0)
{
    return scan_wgate<GOFF, SCAN_VEC_W>(a, T, C, t, c0);
}

/* One step of W channels: x = a ⊙ x + b. */
template <typename E, int W>
__device__ __forceinline__ void scan_wstep(float (&x)[W], typename scan_word<W>::type a, typename scan_word<W>::type b)
{
    float av[W], bv[W];
    scan_word<W>::template widen<E>(a, av), scan_word<W>::template widen<E>(b, bv);
#pragma unroll
    for (int j = 0; j < W; j++) x[j] = fmaf(av[j], x[j], bv[j]);
}
template <typename E> __device__ __forceinline__ void scan_vstep(float (&x)[8], uint4 a, uint4 b)
{
    scan_wstep<E, 8>(x, a, b);
}

/* The maps (A, B) of W channels (8: a uint4) followed by one more step. */
template <typename E, int W>
__device__ __forceinline__ void scan_vfold(float (&A)[W], float (&B)[W], typename scan_word<W>::type a,
                                           typename scan_word<W>::type b)
{
    float av[W], bv[W];
    scan_word<W>::template widen<E>(a, av), scan_word<W>::template widen<E>(b, bv);
#pragma unroll
    for (int j = 0; j < W; j++) B[j] = fmaf(av[j], B[j], bv[j]), A[j] *= av[j];
}

/* ---- channel-parallel: one thread per W channels walks all T steps ----------------------
 *
 * U steps' loads issued before their FMAs, as scan_channels_kernel; C / W threads, each access
 * one word of W channels. W = 8 (16-byte words) needs C >= 8 times scan.cu's channel threshold
 * to fill the GPU. W = 2 (the pair route) is for 16-bit arrays where C alone fills it but not
 * 8 channels a thread: a warp's access is one 128-byte row, as on the f32 channel route, with
 * half its threads, and twice its U puts as many bytes in flight a thread. C a multiple of W,
 * the arrays aligned to a word. */
template <int W, int U, int GOFF, typename E, typename H = E, int PF = 0>
__global__ void scan_wchannels_kernel(int64_t T, int64_t C, int reverse, const E *a, const E *b,
                                      const typename scan_h0<H>::type *h0, E *h)
{
    typedef scan_word<W> Word;
    typedef typename Word::type V;
    const int64_t c0 = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) * W;
    if (c0 >= C) return;
    float x[W];
#pragma unroll
    for (int j = 0; j < W; j++) x[j] = h0 ? ld(h0 + c0 + j) : 0.0f;
    int64_t s = 0;
    for (; s + U <= T; s += U) {
        V av[U], bv[U];
        int64_t off[U];
#pragma unroll
        for (int k = 0; k < U; k++) {
            const int64_t t = scan_time(T, reverse, s + k);
            off[k] = t * C + c0;
            av[k] = scan_wgate<GOFF, W, E, PF>(a, T, C, t, c0);
            bv[k] = scan_ldw<PF, V>(b + off[k]);
        }
#pragma unroll
        for (int k = 0; k < U; k++) {
            scan_wstep<E, W>(x, av[k], bv[k]);
            *(V *)(h + off[k]) = Word::template narrow<E>(x);
        }
    }
    for (; s < T; s++) {   /* the last T mod U steps */
        const int64_t t = scan_time(T, reverse, s);
        scan_wstep<E, W>(x, scan_wgate<GOFF, W>(a, T, C, t, c0), *(const V *)(b + t * C + c0));
        *(V *)(h + t * C + c0) = Word::template narrow<E>(x);
    }
}

/* ---- single pass with decoupled look-back, 8 channels a thread ----------------------------
 *
 * A tile is 32 channels × 64·VL steps (VL = VS + VR), 256 threads. In the data phases thread
 * (vl, cv) = (tid / 4, tid % 4) owns channels 32g + 8cv .. + 7 over the VL steps of vector lane
 * vl: its first VS steps staged in shared memory by 16-byte cp.async (its own slots: no barrier
 * before it reads them), its last VR in registers, both as raw 16-bit vectors (uint4). Between
 * them the tile's maps pass through shared memory (scan_vec_smem) to the layout of
 * scan_kernels.cuh's look-back, one channel a thread: thread (lane, cl) = (tid / 32, tid % 32)
 * composes vector lanes 8·lane .. 8·lane + 7 of channel cl, and from there the lane scan, the
 * aggregate, the look-back and the inclusive value are the scalar tile's (scan_lb2_lanes,
 * scan_lb2_lookback1, 16-byte status words per channel). Its carry, run through the same 8
 * vector lanes, gives each vector lane its carry-in, and the data threads rescan their steps
 * from it and write h in 16-byte stores. With VS = VR = 8 a tile holds 1024 steps, 128 KB of a
 * and b, as the f32 tile does (scan_kernels.cuh says why that size); VS = 0 is the
 * register-only tile of 512 steps.
 */
template <int CB = 32> struct __align__(16) scan_vec_smem {
    /* per vector lane and channel: the lane's map over its steps; after the look-back, B holds
     * the lane's carry-in */
    float A[scan_vec_tile<CB>::vlanes][CB], B[scan_vec_tile<CB>::vlanes][CB];
};

/* Step s of channels c0 .. c0 + 7 at a tile's edge: its gates and b, or the identity (one, zero)
 * past T or C. */
template <int GOFF, typename E>
__device__ __forceinline__ void scan_vlb_edge(int64_t T, int64_t C, int reverse, bool active, int64_t s, int64_t c0,
                                              const E *a, const E *b, uint4 one, uint4 zero, uint4 &av, uint4 &bv)
{
    av = one, bv = zero;
    if (active && s < T) {
        const int64_t t = scan_time(T, reverse, s);
        av = scan_vgate<GOFF>(a, T, C, t, c0);
        bv = *(const uint4 *)(b + t * C + c0);
    }
}

/* The thread's VL steps of channels c0 .. c0 + 7 from step s0: the first VS copied to its slots
 * of sa, sb ([VS][256] vectors; cp.async, one commit group, landed by the caller's
 * cp.async.wait_all), the last VR loaded into ra, rb. Steps past T and channels past C are the
 * identity (1, 0); gates of times outside [0, T) are 0 (GOFF). */
template <int VS, int VR, int GOFF, typename E, int PF = 0>
__device__ __forceinline__ void scan_vlb_load(int64_t T, int64_t C, int reverse, bool active, int64_t s0,
                                              int64_t c0, const E *a, const E *b, uint4 *sa, uint4 *sb,
                                              uint4 (&ra)[VR], uint4 (&rb)[VR])
{
    constexpr int VL = VS + VR;
    const int tid = threadIdx.x;
    if (active && scan_inside<GOFF>(T, s0, VL)) {   /* the tile's inside: pointers walk, no tests */
        const int64_t t0 = scan_time(T, reverse, s0), d = reverse ? -C : C;
        const E *pb = b + t0 * C + c0, *pa = a + (t0 + GOFF) * C + c0;
#pragma unroll
        for (int v = 0; v < VS; v++, pa += d, pb += d)
            scan_cp16_pf<PF>(sa + v * SCAN_LB_THREADS + tid, pa), scan_cp16_pf<PF>(sb + v * SCAN_LB_THREADS + tid, pb);
        asm volatile("cp.async.commit_group;\n" ::);
#pragma unroll
        for (int v = 0; v < VR; v++, pa += d, pb += d) ra[v] = scan_ldw<PF, uint4>(pa), rb[v] = scan_ldw<PF, uint4>(pb);
        return;
    }
    const uint4 one = splat8<E>(1.0f), zero = make_uint4(0u, 0u, 0u, 0u);
    uint4 av, bv;
#pragma unroll
    for (int v = 0; v < VS; v++) {
        scan_vlb_edge<GOFF>(T, C, reverse, active, s0 + v, c0, a, b, one, zero, av, bv);
        sa[v * SCAN_LB_THREADS + tid] = av, sb[v * SCAN_LB_THREADS + tid] = bv;
    }
#pragma unroll
    for (int v = 0; v < VR; v++)
        scan_vlb_edge<GOFF>(T, C, reverse, active, s0 + VS + v, c0, a, b, one, zero, ra[v], rb[v]);
}

/* The thread's steps rescanned from the carry-ins x of its 8 channels, h written (steps past T
 * skipped). */
template <int VS, int VR, typename E>
__device__ __forceinline__ void scan_vlb_out(int64_t T, int64_t C, int reverse, int64_t s0, int64_t c0,
                                             float (&x)[8], const uint4 *sa, const uint4 *sb,
                                             const uint4 (&ra)[VR], const uint4 (&rb)[VR], E *h)
{
    const int tid = threadIdx.x;
    if (scan_inside<0>(T, s0, VS + VR)) {
        const int64_t d = reverse ? -C : C;
        E *p = h + scan_time(T, reverse, s0) * C + c0;
#pragma unroll
        for (int v = 0; v < VS; v++, p += d)
            scan_vstep<E>(x, sa[v * SCAN_LB_THREADS + tid], sb[v * SCAN_LB_THREADS + tid]),
                *(uint4 *)p = narrow8<E>(x);
#pragma unroll
        for (int v = 0; v < VR; v++, p += d) scan_vstep<E>(x, ra[v], rb[v]), *(uint4 *)p = narrow8<E>(x);
        return;
    }
#pragma unroll
    for (int v = 0; v < VS; v++) {
        scan_vstep<E>(x, sa[v * SCAN_LB_THREADS + tid], sb[v * SCAN_LB_THREADS + tid]);
        if (s0 + v < T) *(uint4 *)(h + scan_time(T, reverse, s0 + v) * C + c0) = narrow8<E>(x);
    }
#pragma unroll
    for (int v = 0; v < VR; v++) {
        scan_vstep<E>(x, ra[v], rb[v]);
        if (s0 + VS + v < T) *(uint4 *)(h + scan_time(T, reverse, s0 + VS + v) * C + c0) = narrow8<E>(x);
    }
}

/* The tile's scalar part, thread (lane, cl): channel cl's map over vector lanes PER·lane ..
 * PER·lane + PER - 1 (vm written, the block met; PER = 8 where the tile has VLANES =
 * scan_vec_tile<CB>::vlanes), the lane scan and the aggregate, the look-back, the inclusive
 * value published, and each of those vector lanes' carry-in into vm.B. The caller meets the
 * block before the data threads read vm.B. */
template <typename H, int CB = 32, int VLANES = scan_vec_tile<CB>::vlanes>
__device__ __forceinline__ void scan_vlb_carries(int64_t C, int64_t G, int64_t tile, const H *h0,
                                                 const scan_lb2_status &st, scan_lb2_smem &sm, scan_vec_smem<CB> &vm)
{
    constexpr int Cb = CB, lanes = scan_vec_tile<CB>::lanes, PER = VLANES / lanes;
    static_assert(VLANES % lanes == 0 && VLANES <= scan_vec_tile<CB>::vlanes, "whole vector lanes a scalar lane");
    const int tid = threadIdx.x, lane = tid / Cb, cl = tid % Cb;
    float A = 1.0f, B = 0.0f;
#pragma unroll
    for (int i = 0; i < PER; i++) {   /* earliest first */
        const float pa = vm.A[lane * PER + i][cl], pb = vm.B[lane * PER + i][cl];
        B = fmaf(pa, B, pb), A *= pa;
    }
    scan_lb2_lanes<false>(Cb, lanes, tile, G, true, st, sm, A, B);
    constexpr int Q = SCAN_LB2_Q, Q1 = SCAN_LB2_Q1 < Q ? SCAN_LB2_Q1 : Q;
    const float x0 = scan_lb2_lookback1<Q, false, H, scan_cta, true, scan_no_probe, Q1, (CB > 32)>(C, Cb, lanes, G,
                                                                                                   tile, h0, st, sm);
    if (lane == lanes - 1) scan_lbw<false>::publish(st.word, tile * Cb + cl, SCAN_INC, 0.0f, fmaf(A, x0, B), st.tag);
    float x = lane > 0 ? fmaf(sm.sA[tid - Cb], x0, sm.sB[tid - Cb]) : x0;   /* after the lanes before */
#pragma unroll
    for (int i = 0; i < PER; i++) {
        const int v = lane * PER + i;
        const float pa = vm.A[v][cl], pb = vm.B[v][cl];
        vm.B[v][cl] = x;
        x = fmaf(pa, x, pb);
    }
}

/* The kernel: a tile a block (tile id blockIdx, as scan_lbs_kernel), its steps loaded and
 * folded by the data threads, its carries by the scalar part, then rescanned. REV: the
 * direction as a template argument (0, 1) or -1, the argument reverse_ (scan_lbs_kernel). PF:
 * the loads' L2 prefetch hint (scan_ldw). CB: the tile's channels, 32, or 64 (where C >= 64)
 * whose rows are whole 128-byte lines: 8 threads across, 32 vector lanes, 4 scalar lanes a
 * channel, and the look-back's rounds end on a block vote (a warp no longer holds every
 * channel). */
template <int VS, int VR, int GOFF, typename E, typename H = E, int REV = -1, int PF = 0, int CB = 32>
__global__ void __launch_bounds__(SCAN_LB_THREADS, 2)
scan_vlbs_kernel(int64_t T, int64_t C, int reverse_, int64_t G, const E *a, const E *b,
                 const typename scan_h0<H>::type *h0, E *h, scan_lb2_status st)
{
    const int reverse = REV >= 0 ? REV : reverse_;
    extern __shared__ uint4 scan_vec_dyn[];   /* [VS][256] of a, then of b */
    uint4 *sa = scan_vec_dyn, *sb = sa + SCAN_LB_THREADS * VS;
    typedef scan_vec_tile<CB> Tile;
    __shared__ scan_vec_smem<CB> vm;
    __shared__ scan_lb2_smem sm;
    const int tid = threadIdx.x, vl = tid / Tile::cols, cv = tid % Tile::cols;
    const int64_t tile = blockIdx.x, g = tile % G, k = tile / G;
    const int64_t c0 = g * CB + cv * SCAN_VEC_W, s0 = (k * Tile::vlanes + vl) * (VS + VR);
    const bool active = c0 < C;   /* C is a multiple of 8: a vector is wholly in or out */
    uint4 ra[VR], rb[VR];
    scan_vlb_load<VS, VR, GOFF, E, PF>(T, C, reverse, active, s0, c0, a, b, sa, sb, ra, rb);
    asm volatile("cp.async.wait_all;\n" ::);   /* the thread's own slots: no barrier needed */
    float A[8], B[8];
#pragma unroll
    for (int j = 0; j < 8; j++) A[j] = 1.0f, B[j] = 0.0f;
#pragma unroll
    for (int v = 0; v < VS; v++) scan_vfold<E, 8>(A, B, sa[v * SCAN_LB_THREADS + tid], sb[v * SCAN_LB_THREADS + tid]);
#pragma unroll
    for (int v = 0; v < VR; v++) scan_vfold<E, 8>(A, B, ra[v], rb[v]);
    float4 *pA = (float4 *)&vm.A[vl][cv * SCAN_VEC_W], *pB = (float4 *)&vm.B[vl][cv * SCAN_VEC_W];
    pA[0] = make_float4(A[0], A[1], A[2], A[3]), pA[1] = make_float4(A[4], A[5], A[6], A[7]);
    pB[0] = make_float4(B[0], B[1], B[2], B[3]), pB[1] = make_float4(B[4], B[5], B[6], B[7]);
    __syncthreads();
    scan_vlb_carries<H, CB>(C, G, tile, h0, st, sm, vm);
    __syncthreads();
    if (!active) return;
    const float4 x03 = pB[0], x47 = pB[1];
    float x[8] = {x03.x, x03.y, x03.z, x03.w, x47.x, x47.y, x47.z, x47.w};
    scan_vlb_out<VS, VR>(T, C, reverse, s0, c0, x, sa, sb, ra, rb, h);
}

/* ---- the paired-step tile: C = 32 ----------------------------------------------------------
 *
 * A row of 32 16-bit channels is 64 bytes, half a 128-byte line, so each warp load of the tile
 * above touches 8 half lines. Here a line is a pair row q (steps 2q and 2q + 1 in memory),
 * loaded by the 8 threads cv = 0..7 of a vector lane: thread cv takes step 2q + hf (hf = cv / 4),
 * channels 8 (cv % 4) .. + 7, in one 16-byte load. Partners (cv, cv ^ 4) then swap halves (the
 * staged part through shared memory, the register part by shuffles), so that each holds its 4
 * channels 8 (cv % 4) + 4 hf .. + 3 at both steps and walks its vector lane's 2·VL steps in
 * order; the stores swap back, and each warp store is whole lines too. A tile is 32 vector lanes
 * × VL pair rows (1024 steps at VS = VR = 8, 512 at VS = 0, as the 32-channel vector tile); its
 * carries are the vector tile's scalar part with 8 scalar lanes a channel, 4 vector lanes each.
 * Pair rows are fixed in memory, so a reversed scan takes a pair's odd step first; a step past T
 * (T odd, or past the last tile) is the identity and is not stored; gates of times outside
 * [0, T) are 0 (GOFF). REV, the direction, is a template argument.
 */
#define SCAN_PSTEP_VLANES (SCAN_LB_THREADS / 8)   /* 8 threads across a pair row */

__device__ __forceinline__ uint2 scan_half(uint4 v, int hf) { return hf ? make_uint2(v.z, v.w) : make_uint2(v.x, v.y); }
__device__ __forceinline__ uint2 scan_swap_partner(uint2 v)   /* thread cv ^ 4's value */
{
    return make_uint2(__shfl_xor_sync(0xffffffffu, v.x, 4), __shfl_xor_sync(0xffffffffu, v.y, 4));
}
/* One step of the thread's 4 channels, h of that step returned as a word. */
template <typename E> __device__ __forceinline__ uint2 scan_step4(float (&x)[4], uint2 a, uint2 b)
{
    scan_wstep<E, 4>(x, a, b);
    return scan_word<4>::template narrow<E>(x);
}

template <int VS, int VR, int GOFF, typename E, typename H = E, int REV = 0>
__global__ void __launch_bounds__(SCAN_LB_THREADS, 2)
scan_plbs_kernel(int64_t T, const E *a, const E *b, const typename scan_h0<H>::type *h0, E *h, scan_lb2_status st)
{
    static_assert(REV == 0 || REV == 1, "the direction a template argument");
    constexpr int VL = VS + VR, ROW = 64;   /* a pair row: 2 steps of 32 channels */
    extern __shared__ uint4 scan_vec_dyn[];   /* [VS][256] of a, then of b */
    uint4 *sa = scan_vec_dyn, *sb = sa + SCAN_LB_THREADS * VS;
    __shared__ scan_vec_smem<32> vm;
    __shared__ scan_lb2_smem sm;
    const int tid = threadIdx.x, vl = tid / 8, cv = tid % 8, hf = cv / 4, c0 = 8 * (cv % 4), c4 = c0 + 4 * hf;
    const int64_t Q = (T + 1) / 2, tile = blockIdx.x, p0 = (tile * SCAN_PSTEP_VLANES + vl) * VL;
    const int64_t q0 = REV ? Q - 1 - p0 : p0, dq = REV ? -1 : 1;   /* the lane's first pair row, in memory */
    const int64_t qlo = REV ? q0 - (VL - 1) : q0, qhi = REV ? q0 : q0 + VL - 1;
    const bool inside = qlo >= 0 && 2 * qhi + 1 + GOFF < T;   /* every step and gate in [0, T) */
    /* as loaded: step 2q + hf, 8 channels; swapped where used, in the fold and again in the
     * rescan (held swapped, both halves of both steps, the kernel spilled more under ptxas) */
    uint4 ra[VR], rb[VR];
    if (inside) {
        const int64_t d = dq * ROW;
        const E *pa = a + (2 * q0 + hf + GOFF) * 32 + c0, *pb = b + (2 * q0 + hf) * 32 + c0;
#pragma unroll
        for (int v = 0; v < VS; v++)
            scan_cp16(sa + v * SCAN_LB_THREADS + tid, pa + v * d),
                scan_cp16(sb + v * SCAN_LB_THREADS + tid, pb + v * d);
        asm volatile("cp.async.commit_group;\n" ::);
#pragma unroll
        for (int v = 0; v < VR; v++)
            ra[v] = *(const uint4 *)(pa + (VS + v) * d), rb[v] = *(const uint4 *)(pb + (VS + v) * d);
    } else {
        const uint4 one = splat8<E>(1.0f), zero = make_uint4(0u, 0u, 0u, 0u);
        auto edge = [&](int v, uint4 &av, uint4 &bv) {
            const int64_t t = 2 * (q0 + v * dq) + hf;
            av = one, bv = zero;
            if (t >= 0 && t < T) av = scan_vgate<GOFF>(a, T, 32, t, c0), bv = *(const uint4 *)(b + t * 32 + c0);
        };
#pragma unroll
        for (int v = 0; v < VS; v++) edge(v, sa[v * SCAN_LB_THREADS + tid], sb[v * SCAN_LB_THREADS + tid]);
#pragma unroll
        for (int v = 0; v < VR; v++) edge(VS + v, ra[v], rb[v]);
    }
    asm volatile("cp.async.wait_all;\n" ::);
    __syncwarp();   /* the partner's staged slots */
    /* the thread's 4 channels at steps 2q, 2q + 1 of pair row v (selects: hf indexes no array) */
    auto pair_at = [&](int v, uint2 &a0, uint2 &a1, uint2 &b0, uint2 &b1) {
        uint2 ma, oa, mb, ob;
        if (v < VS) {
            const int i = v * SCAN_LB_THREADS;
            ma = scan_half(sa[i + tid], hf), oa = scan_half(sa[i + (tid ^ 4)], hf);
            mb = scan_half(sb[i + tid], hf), ob = scan_half(sb[i + (tid ^ 4)], hf);
        } else {
            ma = scan_half(ra[v - VS], hf), oa = scan_swap_partner(scan_half(ra[v - VS], hf ^ 1));
            mb = scan_half(rb[v - VS], hf), ob = scan_swap_partner(scan_half(rb[v - VS], hf ^ 1));
        }
        a0 = hf ? oa : ma, a1 = hf ? ma : oa, b0 = hf ? ob : mb, b1 = hf ? mb : ob;
    };
    float A[4] = {1.0f, 1.0f, 1.0f, 1.0f}, B[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
    for (int v = 0; v < VL; v++) {
        uint2 a0, a1, b0, b1;
        pair_at(v, a0, a1, b0, b1);
        if (REV) scan_vfold<E, 4>(A, B, a1, b1), scan_vfold<E, 4>(A, B, a0, b0);
        else scan_vfold<E, 4>(A, B, a0, b0), scan_vfold<E, 4>(A, B, a1, b1);
    }
#pragma unroll
    for (int j = 0; j < 4; j++) vm.A[vl][c4 + j] = A[j], vm.B[vl][c4 + j] = B[j];
    __syncthreads();
    scan_vlb_carries<H, 32, SCAN_PSTEP_VLANES>(32, 1, tile, h0, st, sm, vm);
    __syncthreads();
    float x[4];
#pragma unroll
    for (int j = 0; j < 4; j++) x[j] = vm.B[vl][c4 + j];
#pragma unroll
    for (int v = 0; v < VL; v++) {
        uint2 a0, a1, b0, b1, y0, y1;
        pair_at(v, a0, a1, b0, b1);
        if (REV) y1 = scan_step4<E>(x, a1, b1), y0 = scan_step4<E>(x, a0, b0);
        else y0 = scan_step4<E>(x, a0, b0), y1 = scan_step4<E>(x, a1, b1);
        const uint2 mine = hf ? y1 : y0, theirs = scan_swap_partner(hf ? y0 : y1);   /* step 2q + hf's other half */
        const int64_t t = 2 * (q0 + v * dq) + hf;
        if (inside || (t >= 0 && t < T))
            *(uint4 *)(h + t * 32 + c0) = hf ? make_uint4(theirs.x, theirs.y, mine.x, mine.y)
                                             : make_uint4(mine.x, mine.y, theirs.x, theirs.y);
    }
}

/* ---- the rest of the scan's backward, 8 channels a thread ---------------------------------
 * scan_backward_rest_kernel on 16-bit arrays with C a multiple of 8 and every array 16-byte
 * aligned: element e = 8i .. 8i + 7 a thread, all of one row. Bytes: g and h read, da written,
 * 3·T·C·2 (and a, h0 read, dh0 written on row 0). */
template <typename E>
__global__ void scan_backward_rest_vec_kernel(int64_t T, int64_t C, const E *a, const E *h0, const E *h,
                                              const E *g, E *da, E *dh0)
{
    const int64_t n = T * C / SCAN_VEC_W;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        const int64_t e = i * SCAN_VEC_W;
        float gv[8], v[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        widen8<E>(*(const uint4 *)(g + e), gv);
        if (e < C) {   /* dh0 = a_0 ⊙ g_0 before da_0 = g_0 ⊙ h0 (da may be a) */
            if (dh0) {
                widen8<E>(*(const uint4 *)(a + e), v);
#pragma unroll
                for (int j = 0; j < 8; j++) v[j] *= gv[j];
                *(uint4 *)(dh0 + e) = narrow8<E>(v);
            }
            if (!da) continue;
            if (h0) widen8<E>(*(const uint4 *)(h0 + e), v);
#pragma unroll
            for (int j = 0; j < 8; j++) v[j] = h0 ? v[j] * gv[j] : 0.0f;   /* no h0: da_0 = 0 */
            *(uint4 *)(da + e) = narrow8<E>(v);
        } else if (da) {
            widen8<E>(*(const uint4 *)(h + e - C), v);
#pragma unroll
            for (int j = 0; j < 8; j++) v[j] *= gv[j];
            *(uint4 *)(da + e) = narrow8<E>(v);
        }
    }
}

#endif
