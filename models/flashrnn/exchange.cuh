/* exchange.cuh — how the bph blocks of a split head meet every step (the tuner's head_sync).
 * The exchanged operand is h_t forward and dL/d(R h_t), every gate, backward.
 *
 * grid: the grid is launched cooperatively, so all blocks are resident and every wait ends.
 *   Forward, each value of h is stored to global memory as a tagged word (Tagged: the value
 *   beside a tag of its step), which the head's other blocks poll from L2 once their own
 *   cells are done and poll_delay cycles more (a poll that reaches L2 before the word costs
 *   a whole round trip more) until it carries the step. Backward, dL/d(R h) goes to global
 *   memory, the head's blocks meet at an atomic counter (head_barrier) and each block
 *   reloads it from L2, each warp its own k slice; where the grid can also be launched in
 *   clusters (grid_share, Geo::mc), a cluster's blocks share that reload, each issuing part
 *   of it as bulk copies multicast to the whole cluster.
 * cluster: the bph blocks are one thread-block cluster, each storing its units into the
 *   operand buffers of the others (distributed shared memory: from the cell, st_operand, or
 *   copied after a block barrier, push_to_cluster) before the cluster's barrier. One cluster
 *   barrier a step suffices: a block writes buffer t & 1 of its peers only after the barrier
 *   that ends step t - 1, which every peer reaches after its last read of that buffer (step
 *   t - 1's products forward, step t + 2's backward).
 *
 * Bytes: a block polls bt·dh values of h a step forward, and reloads bt·G·dh backward.
 */
#ifndef LOGT_FLASHRNN_EXCHANGE_CUH
#define LOGT_FLASHRNN_EXCHANGE_CUH

#include <cooperative_groups.h>

#include <type_traits>

#include "fused_common.cuh"

/* ---- grid, forward: tagged words ---------------------------------------------------------
 * The cell stores each value of h where the others poll for it, beside a tag of the step
 * that made it; a word read with the step's tag is that step's value (one word, one
 * single-copy-atomic access), an older word is read again. No counter, fence or barrier: a
 * value costs its store's way to L2 and one load back. Two buffers by step parity: a block
 * writes buffer s & 1 for step s only after reading every block's step s - 1, which each
 * wrote after its last read of step s - 2 from the same buffer; so a word polled for step s
 * holds step s's value or step s - 2's, and the tag need only tell those apart. The launch
 * zeroes the words (step 0 is never polled for; a zero word reads as step 0 in buffer 0 and
 * step -1 in buffer 1). Three forms, the struct X of the helpers below:
 *   Tagged<T>     16-bit T (bf16, f16): 32-bit words, 16 value bits under the step's low 16 bits;
 *   Tagged<float> 64-bit words, the step above the value;
 *   TaggedUnit<T> 16-bit values of cells whose |h| <= 1 (Cell::H_UNIT: the lstm) in 16-bit
 *                 words: a bf16 or f16 below 2 in magnitude has its top exponent bit (bit 14)
 *                 0, and that bit carries the tag, bit 0 of the step's Gray code (s ^ s >> 1),
 *                 which differs between s and s - 2 (and is 0 for steps 0 and -1). Half the
 *                 bytes a poll reads from L2. A NaN (bit 14 set) travels as 1.5 (bf16 0x3fc0,
 *                 f16 0x3e00), which no such h is, and the reader makes it a NaN again. */

/* v rounded to the nearest 16-bit T, as its bits */
__device__ __forceinline__ unsigned short bits16(bf16 *, float v) { return __bfloat16_as_ushort(__float2bfloat16(v)); }
__device__ __forceinline__ unsigned short bits16(f16 *, float v) { return __half_as_ushort(__float2half_rn(v)); }

template <typename T> struct Tagged {   /* 16-bit T */
    static_assert(sizeof(T) == 2, "Tagged<T>: a 16-bit T, or float");
    typedef uint32_t W;
    typedef uint2 V;                  /* the values of one 16-byte load */
    static constexpr int PER = 4;     /* values per 16-byte load */
    static __device__ __forceinline__ void put(W *p, float v, unsigned step)
    {
        const W w = step << 16 | bits16((T *)nullptr, v);
        asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(w));
    }
    static __device__ __forceinline__ uint4 get(const W *p)   /* four words, each read whole */
    {
        uint4 v;
        asm volatile("ld.relaxed.gpu.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
        return v;
    }
    static __device__ __forceinline__ bool ready(uint4 v, unsigned step)
    {
        const unsigned s = step & 0xffffu;
        return (v.x >> 16) == s && (v.y >> 16) == s && (v.z >> 16) == s && (v.w >> 16) == s;
    }
    static __device__ __forceinline__ V values(uint4 v)   /* 4 values of T */
    {
        return make_uint2(__byte_perm(v.x, v.y, 0x5410), __byte_perm(v.z, v.w, 0x5410));
    }
};
template <> struct Tagged<float> {
    typedef unsigned long long W;
    typedef uint2 V;
    static constexpr int PER = 2;
    static __device__ __forceinline__ void put(W *p, float v, unsigned step)
    {
        const W w = (W)step << 32 | __float_as_uint(v);
        asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(w));
    }
    static __device__ __forceinline__ uint4 get(const W *p)   /* two words, each read whole */
    {
        W a, b;
        asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];" : "=l"(a), "=l"(b) : "l"(p));
        return make_uint4((unsigned)a, (unsigned)(a >> 32), (unsigned)b, (unsigned)(b >> 32));
    }
    static __device__ __forceinline__ bool ready(uint4 v, unsigned step) { return v.y == step && v.w == step; }
    static __device__ __forceinline__ V values(uint4 v) { return make_uint2(v.x, v.z); }   /* 2 f32 */
};
/* TaggedUnit's stand-in for a NaN, WORD = 1.5 (bit 14 clear), and MASK, the bits of a word's two
 * halves that are all set in 1.5 and in no value below it in magnitude: adding ADD to them
 * carries into bit 14 exactly for 1.5 (sign aside). */
template <typename T> struct UnitNan;
template <> struct UnitNan<bf16> {   /* 1 + 8 exponent + 7 mantissa bits */
    static constexpr unsigned short WORD = 0x3fc0;
    static constexpr unsigned MASK = 0x3fc03fc0u, ADD = 0x00400040u;
};
template <> struct UnitNan<f16> {    /* 1 + 5 exponent + 10 mantissa bits */
    static constexpr unsigned short WORD = 0x3e00;
    static constexpr unsigned MASK = 0x3e003e00u, ADD = 0x02000200u;
};
template <typename T> struct TaggedUnit {
    typedef uint16_t W;
    typedef uint4 V;
    static constexpr int PER = 8;
    static constexpr unsigned TAG = 0x40004000u;   /* bit 14 of both halves of a 32-bit word */
    static __device__ __forceinline__ unsigned tag(unsigned step) { return (step ^ step >> 1) & 1u; }
    static __device__ __forceinline__ void put(W *p, float v, unsigned step)
    {
        const unsigned short b = v == v ? bits16((T *)nullptr, v) : UnitNan<T>::WORD;
        const unsigned short w = (unsigned short)(b | tag(step) << 14);
        asm volatile("st.relaxed.gpu.global.u16 [%0], %1;" ::"l"(p), "h"(w));
    }
    static __device__ __forceinline__ uint4 get(const W *p)   /* eight words, each read whole */
    {
        return Tagged<T>::get(reinterpret_cast<const uint32_t *>(p));
    }
    static __device__ __forceinline__ bool ready(uint4 v, unsigned step)
    {
        const unsigned e = tag(step) ? TAG : 0u;
        return (((v.x ^ e) | (v.y ^ e) | (v.z ^ e) | (v.w ^ e)) & TAG) == 0;
    }
    /* two values: the tags cleared, and 1.5 with the tag bit cleared (a NaN) back to a NaN
     * (bf16 0x3fc0 to 0x7fc0, f16 0x3e00 to 0x7e00: + ADD carries into bit 14 exactly there) */
    static __device__ __forceinline__ unsigned word(unsigned w)
    {
        return (w & ~TAG) | (((w & UnitNan<T>::MASK) + UnitNan<T>::ADD) & TAG);
    }
    static __device__ __forceinline__ V values(uint4 v)   /* 8 values of T */
    {
        return make_uint4(word(v.x), word(v.y), word(v.z), word(v.w));
    }
};
/* the exchange of a forward pass: 16-bit words for a 16-bit T where |h| <= 1 */
template <class Cell, typename T> struct TagOf {
    typedef typename std::conditional<sizeof(T) == 2 && Cell::H_UNIT, TaggedUnit<T>, Tagged<T>>::type type;
};

/* Poll the words src + goff[k] of the items k in pend until each carries the step, and put
 * each one's values at dst + soff[k] as it does: every pending load in flight at once, one
 * load of each word a round (two, some cycles apart, were slower: experiments/flashrnn-headdim,
 * Design notes). */
template <class X, typename T, int NB>
__device__ __forceinline__ void poll_tagged(T *dst, const typename X::W *src, const int (&goff)[NB],
                                            const int (&soff)[NB], unsigned pend, unsigned step)
{
    while (pend) {
        uint4 v[NB];
#pragma unroll
        for (int k = 0; k < NB; k++)
            if (pend >> k & 1) v[k] = X::get(src + goff[k]);
#pragma unroll
        for (int k = 0; k < NB; k++)
            if ((pend >> k & 1) && X::ready(v[k], step)) {
                *reinterpret_cast<typename X::V *>(dst + soff[k]) = X::values(v[k]);
                pend &= ~(1u << k);
            }
    }
}

/* A thread's share of a step's tagged h (rows [b0, b0 + bt) of a [B][ld] array, ncols values
 * from the buffer's column 0, into shared rows of srow elements): the same every step, so
 * its (row, chunk) pairs are worked out once, here, when it is at most NB 16-byte words
 * (all = true), and a step's poll only multiplies them out (dividing them out every step was
 * slower at the dense head: Design notes); else each step's poll walks it (tagged_to_smem).
 * Rows past the batch are zeros, written here into both of the operand buffers (dst, dst2),
 * which nothing else writes then. */
template <class X> struct TaggedShare {
    static constexpr int NB = X::PER == 8 ? 2 : 4;   /* 16-byte words a thread polls at the dense head (384 threads) */
    unsigned nj[NB];   /* row << 16 | chunk */
    unsigned pend;
    bool all;
    __device__ TaggedShare() : pend(0), all(true) {}   /* no exchange */
    template <typename T>
    __device__ TaggedShare(T *dst, T *dst2, int srow, int ld, int ncols, int b0, int bt, int B)
    {
        constexpr int per = X::PER;
        const int chunks = ncols / per, items = bt * chunks;
        all = items <= NB * (int)blockDim.x, pend = 0;
#pragma unroll
        for (int k = 0; k < NB; k++) {
            const int i = threadIdx.x + k * blockDim.x, j = i % chunks, n = i / chunks;
            nj[k] = (unsigned)n << 16 | (unsigned)j;
            if (i < items && b0 + n < B) pend |= 1u << k;
        }
        for (int i = threadIdx.x; i < bt * chunks; i += blockDim.x)
            if (b0 + i / chunks >= B) {
                const int o = i / chunks * srow + i % chunks * per;
                *reinterpret_cast<typename X::V *>(dst + o) = *reinterpret_cast<typename X::V *>(dst2 + o) = {};
            }
    }
};

/* Step `step`'s tagged words into shared memory, polling until every word carries the step
 * (the share's rows and columns; rows past the batch were zeroed by the share). */
template <class X, typename T>
__device__ __forceinline__ void tagged_to_smem(const TaggedShare<X> &sh, T *dst, int srow,
                                               const typename X::W *src, int ld, int ncols,
                                               int b0, int bt, int B, unsigned step)
{
    constexpr int per = X::PER, NB = TaggedShare<X>::NB;
    if (sh.all) {
        int goff[NB], soff[NB];
#pragma unroll
        for (int k = 0; k < NB; k++) {
            const int n = sh.nj[k] >> 16, j = sh.nj[k] & 0xffffu;
            goff[k] = (b0 + n) * ld + j * per, soff[k] = n * srow + j * per;
        }
        poll_tagged<X, T, NB>(dst, src, goff, soff, sh.pend, step);
        return;
    }
    const int chunks = ncols / per, items = bt * chunks;
    for (int i0 = threadIdx.x; i0 < items; i0 += NB * blockDim.x) {
        int goff[NB], soff[NB];
        unsigned pend = 0;
#pragma unroll
        for (int k = 0; k < NB; k++) {
            const int i = i0 + k * blockDim.x, j = i % chunks, n = i / chunks;
            goff[k] = (b0 + n) * ld + j * per, soff[k] = n * srow + j * per;
            if (i < items && b0 + n < B) pend |= 1u << k;
        }
        poll_tagged<X, T, NB>(dst, src, goff, soff, pend, step);
    }
}

/* ---- grid, backward: the counter barrier --------------------------------------------------
 * All bph blocks of a head have finished `steps` steps, the writes before it visible (to
 * loads that bypass L1: __ldcg); then each block reloads the head's dL/d(R h) from L2. The
 * counter only grows; the launch zeroes it. The arrival is a release reduction, which
 * returns nothing, so the poll starts at once. (The backward exchanges G times the forward's
 * values: as tagged words they were slower than this barrier at the dense head, and so were
 * per-block flags: experiments/flashrnn-headdim.) */
__device__ __forceinline__ void head_barrier(unsigned *ctr, unsigned target)
{
    __syncthreads();
    if (threadIdx.x == 0) {
        asm volatile("red.release.gpu.global.add.u32 [%0], 1;" ::"l"(ctr) : "memory");
        unsigned v;
        do asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(ctr) : "memory");
        while (v < target);
    }
    __syncthreads();
}

/* ---- clusters ------------------------------------------------------------------------------
 * Thread-block clusters (head_sync = cluster, and grid_share's in the backward) exist from
 * sm_90; built for an older GPU the tuner and the plan never pick them, and these compile to
 * nothing. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define FLASHRNN_CLUSTERS_ON_DEVICE 1
#endif

/* The whole cluster (every thread of its blocks) has arrived: the stores to distributed
 * shared memory before it are visible to every block after it (release / acquire). */
__device__ __forceinline__ void cluster_barrier()
{
#ifdef FLASHRNN_CLUSTERS_ON_DEVICE
    cooperative_groups::this_cluster().sync();
#endif
}

/* The copy engine and its barriers (sm_90), for the backward's shared reload: a bulk copy
 * from global memory lands at the same offset in the shared memory of every block of the
 * cluster named by the mask and counts its bytes on the mbarrier at the same offset in each;
 * a block's waiting threads see the data once the barrier's phase completes (its expected
 * bytes all arrived and its one arrival made). */
__device__ __forceinline__ void mbar_init(uint64_t *b)
{
#ifdef FLASHRNN_CLUSTERS_ON_DEVICE
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(b)) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
}
/* the barrier's one arrival for its current phase, which completes once `bytes` more have come */
__device__ __forceinline__ void mbar_expect(uint64_t *b, unsigned bytes)
{
#ifdef FLASHRNN_CLUSTERS_ON_DEVICE
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(b)), "r"(bytes) : "memory");
#endif
}
__device__ __forceinline__ void mbar_wait(uint64_t *b, unsigned parity)
{
#ifdef FLASHRNN_CLUSTERS_ON_DEVICE
    unsigned done;
    do asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                    : "=r"(done) : "r"(smem_addr(b)), "r"(parity) : "memory");
    while (!done);
#endif
}
/* `bytes` (a multiple of 16, both addresses 16-byte aligned) from global src to dst in every
 * block of the cluster in `mask`, counted on barrier b in each */
__device__ __forceinline__ void bulk_multicast(void *dst, const void *src, unsigned bytes, uint64_t *b,
                                               unsigned short mask)
{
#ifdef FLASHRNN_CLUSTERS_ON_DEVICE
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster "
                 "[%0], [%1], %2, [%3], %4;"
                 ::"r"(smem_addr(dst)), "l"(src), "r"(bytes), "r"(smem_addr(b)), "h"(mask) : "memory");
#endif
}
/* what this thread's generic accesses saw (global memory written by other blocks, acquired)
 * ordered before its copies by the copy engine (the async proxy) */
__device__ __forceinline__ void fence_proxy_async()
{
#ifdef FLASHRNN_CLUSTERS_ON_DEVICE
    asm volatile("fence.proxy.async.global;" ::: "memory");
#endif
}

/* With clusters, two ways to give the other blocks a block's part of the exchanged operand,
 * chosen per launch (Geo::push, flashrnn_fused_cluster_copy):
 *
 * st_operand: each value as the cell makes it, one store per block of the cluster (its own
 *   included: the same offset in each, they share the layout). Few stores for the cell warps,
 *   which are a step's critical path, when heads split over few blocks.
 * push_to_cluster: after a block barrier, the block's part (rows of L elements; per row nseg
 *   segments seg apart, each `cols` elements from column col0), already in its own buffer,
 *   copied by all threads to every other block, 16 bytes a store: fewer, wider stores, off
 *   the cell warps, for many blocks or many segments, at the price of the barrier.
 * Either way the cluster barrier after publishes it. All offsets are multiples of 16 bytes. */
template <typename T>
__device__ __forceinline__ void st_operand(const Geo &g, bool cl, T *p, int o, float v)
{
#ifdef FLASHRNN_CLUSTERS_ON_DEVICE
    if (cl && !g.push) {
        cooperative_groups::cluster_group c = cooperative_groups::this_cluster();
        for (int r = 0; r < g.bph; r++) st(c.map_shared_rank(p, r) + o, v);
        return;
    }
#endif
    st(p + o, v);
}

template <typename T>
__device__ __forceinline__ void push_to_cluster(const Geo &g, T *buf, int L, int nseg, int seg,
                                                int col0, int cols)
{
#ifdef FLASHRNN_CLUSTERS_ON_DEVICE
    cooperative_groups::cluster_group c = cooperative_groups::this_cluster();
    constexpr int per = 16 / sizeof(T);
    const int chunks = cols / per, items = g.bt * nseg * chunks, me = (int)c.block_rank();
    __syncthreads();
    for (int i = threadIdx.x; i < items * (g.bph - 1); i += blockDim.x) {
        int r = i / items, k = i % items;
        r += r >= me;   /* the other blocks */
        const int j = k % chunks, q = k / chunks % nseg, n = k / chunks / nseg;
        const int o = n * L + q * seg + col0 + j * per;
        *reinterpret_cast<uint4 *>(c.map_shared_rank(buf, r) + o) = *reinterpret_cast<const uint4 *>(buf + o);
    }
#endif
}

#endif
