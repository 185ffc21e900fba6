/* flashrnn_fused.cu — the persistent fused kernels of the head-wise LSTM / GRU: one launch runs
 * all T steps of a pass, each head's R stays in registers for the whole pass, and only the
 * step's inputs and outputs touch device memory. Interface and layouts: flashrnn_fused.h.
 *
 * The work of one block (the tiling from flashrnn_tune.h): hpb heads, or a 1/bph part of one
 * head, for bt batch rows. Its U = hpb·dh/bph hidden units come in unit groups of 16; every
 * group has wk warps, and warp (group, kw) keeps in registers the slice of R it contracts:
 *
 *   forward   gates[16 units × G][bt] += R^T[group's G strips][dh slice kw] · h_{t-1}^T
 *             (mma M = the 16 units of one gate, K = dh / wk = KS, N = 8 batch rows)
 *   backward  dh_{t-1}[16 units][bt]    += R[group's units][gate slice kw] · dra_t^T
 *             (M = the 16 units, K = G·dh / wk = G·KS gate columns, N = 8 batch rows)
 *
 * An mma's C fragment gives a lane the same four (unit, batch row) positions in both passes:
 * units r0 and r0 + 8 of its group (r0 = lane/4) × rows 2·(lane%4) and +1 of the 8-row tile.
 * The forward's fragments hold every gate of those units, so the cell (flashrnn_cell.cuh)
 * runs where the products land, with no exchange; the backward's fragments are dL/dh_{t-1}
 * of those same positions, so the cell's backward finds its input in place too. The wk
 * warps of a group add their partial sums in shared memory and warp kw = 0 runs the cell,
 * or, spread (from wk = 4, Geo::spread), the group's first 4 warps add them and run the cell
 * for one of the 128 positions a thread, a quarter of the chain (at wk = 2 slower; sharing
 * the cell among the wk warps was also measured slower at dh = 32 and 64: flashrnn-warps at
 * 61f56dc). With cell_split = 2 each warp has a twin that makes the same products and runs
 * the cell for the other half of the positions (units r0 + 8): a step is one warp's chain
 * of dependent instructions (one warp per scheduler), and the twin halves the cell's part
 * of it.
 *
 * Per step, forward: prefetch W x_{t+3} (cp.async; where a second stream makes W x in chunks
 * beside the kernel, proj_overlap, the copying threads first wait, between runs of steps, for
 * the chunk's count, wait_wx_chunk), products, cell, then the new h becomes
 * the next step's B operand: written to shared memory when the block holds whole heads
 * (bph = 1). A head split over bph blocks meets in one of two ways (the tuner's head_sync):
 * grid (the grid launched cooperatively, so all blocks are resident and every wait ends):
 * forward, each value of h also stored to global memory as a tagged word (the value beside
 * a tag of its step, Tagged below) that the head's other blocks poll from L2, once their own
 * cells are done and poll_delay cycles more (a poll that comes too early costs a round
 * trip), until it carries the step (in the dense lstm head a spreading thread stores its
 * step's outputs in that wait, not from the cell); backward, dL/d(R h) to global memory, a barrier among
 * the head's blocks (an atomic counter, head_barrier) and a reload from L2, each warp its
 * own k slice (measured faster than tagged words, and than per-block flags, for the
 * backward's G times as many values at dh = 768), where it can the grid also launched in
 * clusters whose blocks share that reload: each issues part of it as copies multicast to
 * the cluster (grid_share, Geo::mc); or cluster, the bph blocks launched as one
 * thread-block cluster, each storing its units of h into the operand buffers of the other
 * blocks (distributed shared memory: from the cell, or copied after a block barrier,
 * st_operand / push_to_cluster) before the cluster's barrier. Backward is the mirror:
 * dL/d(R h) is the exchanged operand. One cluster barrier a step suffices: a block writes
 * buffer t & 1 of its peers only after the barrier that ends step t - 1, which every peer
 * reaches after its last read of that buffer (step t - 1's products forward, step t + 2's
 * backward).
 *
 * Bounds at the issue's shape (lstm, D = 768, B = 16, T = 1024, dh = 64, bf16): a step's
 * products are 16·768·256 = 3.1 M MACs (6.3 MFLOP; 6.4 GFLOP per pass: ~10 µs of the
 * H200's ~700 dense bf16 TFLOP/s), and a step moves W x (196 KB fp32), h and the saved
 * gates and c (~270 KB): 0.47 GB per pass, ~0.11 ms at 4.3 TB/s. Neither binds: the pass is
 * a chain of T dependent steps, each one warp's chain of dependent instructions (mma
 * latencies, the cell, a barrier): measured 1.27 µs forward and 1.96 µs backward at b5c0325.
 * A split head's exchange through global memory adds L2 round trips to every step: at
 * dh = 768 (48 blocks a head, 96 with B = 16) a forward step costs ~1.7 µs (~2850 cycles),
 * of which the barrier, wait and poll of h are about half, the products (~720), partial
 * sums and cell the rest (the probe build's phases, results/flashrnn-split-versions-h200.txt;
 * experiments/flashrnn-headdim). Its bytes: each of the 96 blocks reads the 6144 values
 * of its batch tile's h from L2 every step, 12 KB in 16-bit words (1.2 MB a step in all).
 *
 * Whole-head kernels (SPLIT false) are compiled without any exchange code: with it they held
 * ~35 more registers and ran 5-18% slower at dh <= 64 (flashrnn-headdim at 8255459 against
 * e623117).
 */
#include <cooperative_groups.h>
#include <cuda_bf16.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <type_traits>

#include "../../core/cuda.h"
#include "../../core/cuda_check.cuh"
#include "flashrnn_cell.cuh"
#include "fused.h"

typedef __nv_bfloat16 bf16;

/* ---- tensor-core fragments -------------------------------------------------------------
 * mma.sync row.col: A [16][K] row-major (K = 16 bf16, 8 tf32), B [K][8], C [16][8] fp32.
 * A register i of a lane holds row lane/4 + 8·(i & 1); columns as below. */
template <typename T> struct Frag;

__device__ __forceinline__ uint32_t pack_bf16(float lo, float hi)
{
    __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<uint32_t *>(&v);
}
__device__ __forceinline__ uint32_t to_tf32(float x)
{
    uint32_t r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
    return r;
}

template <> struct Frag<bf16> {
    static constexpr int KT = 16;
    template <class At> static __device__ __forceinline__ void a(uint32_t (&r)[4], int lane, At at)
    {
#pragma unroll
        for (int i = 0; i < 4; i++) {
            int row = (lane >> 2) + 8 * (i & 1), col = (lane & 3) * 2 + 8 * (i >> 1);
            r[i] = pack_bf16(at(row, col), at(row, col + 1));
        }
    }
    /* p: the operand at [n = 0][k0], rows of L elements, stored [n][k]. */
    static __device__ __forceinline__ void b(uint32_t &b0, uint32_t &b1, const bf16 *p, int L, int lane)
    {
        const bf16 *q = p + (lane >> 2) * L + (lane & 3) * 2;
        b0 = *reinterpret_cast<const uint32_t *>(q);
        b1 = *reinterpret_cast<const uint32_t *>(q + 8);
    }
    static __device__ __forceinline__ void mma(float (&d)[4], const uint32_t (&a)[4], uint32_t b0,
                                               uint32_t b1)
    {
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, "
                     "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    }
};

template <> struct Frag<float> {   /* fp32 data, tf32 tensor cores */
    static constexpr int KT = 8;
    template <class At> static __device__ __forceinline__ void a(uint32_t (&r)[4], int lane, At at)
    {
#pragma unroll
        for (int i = 0; i < 4; i++)
            r[i] = to_tf32(at((lane >> 2) + 8 * (i & 1), (lane & 3) + 4 * (i >> 1)));
    }
    static __device__ __forceinline__ void b(uint32_t &b0, uint32_t &b1, const float *p, int L, int lane)
    {
        const float *q = p + (lane >> 2) * L + (lane & 3);
        b0 = to_tf32(q[0]);
        b1 = to_tf32(q[4]);
    }
    static __device__ __forceinline__ void mma(float (&d)[4], const uint32_t (&a)[4], uint32_t b0,
                                               uint32_t b1)
    {
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, "
                     "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    }
};

/* Four 8 x 8 tiles of 16-bit elements from shared memory: lane l gives the address of row
 * l % 8 of tile l / 8 (16 contiguous bytes), and gets in r[i] row l / 4, columns 2·(l % 4)
 * and + 1 of tile i: with tiles of h rows [n][k], an mma B fragment (b0, b1) per two tiles. */
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], unsigned addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}

/* ---- asynchronous copies and the tagged exchange ---------------------------------------- */

/* 16 bytes global -> shared; zeros when !valid (g is then not read). */
__device__ __forceinline__ void cp16(void *s, const void *g, bool valid)
{
    unsigned sa = (unsigned)__cvta_generic_to_shared(s);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(sa), "l"(g), "r"(valid ? 16 : 0));
}
__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;"); }
__device__ __forceinline__ void cp_wait_all() { asm volatile("cp.async.wait_all;" ::: "memory"); }
/* Wait until at most FLASHRNN_STAGES - 2 groups are pending: the next step's inputs are in. */
__device__ __forceinline__ void cp_wait_next()
{
    asm volatile("cp.async.wait_group %0;" ::"n"(FLASHRNN_STAGES - 2) : "memory");
}

/* head_sync = grid, forward: a split head's blocks exchange through global memory in tagged words,
 * each value beside a tag of the step that made it. The cell stores its values where the
 * others poll for them; a word read with the step's tag is that step's value (one word, one
 * single-copy-atomic access), an older word is read again. No counter, fence or barrier: a
 * value costs its store's way to L2 and one load back. Two buffers by step parity: a block
 * writes buffer s & 1 for step s only after reading every block's step s - 1, which each
 * wrote after its last read of step s - 2 from the same buffer; so a word polled for step s
 * holds step s's value or step s - 2's, and the tag need only tell those apart. The launch
 * zeroes the words (step 0 is never polled for; a zero word reads as step 0 in buffer 0 and
 * step -1 in buffer 1). Three forms, the struct X of the helpers below:
 *   Tagged<bf16>  32-bit words, 16 value bits under the step's low 16 bits;
 *   Tagged<float> 64-bit words, the step above the value;
 *   TaggedUnit    bf16 values of cells whose |h| <= 1 (Cell::H_UNIT: the lstm) in 16-bit
 *                 words: a bf16 below 2 in magnitude has its top exponent bit (bit 14) 0,
 *                 and that bit carries the tag, bit 0 of the step's Gray code (s ^ s >> 1),
 *                 which differs between s and s - 2 (and is 0 for steps 0 and -1). Half the
 *                 bytes a poll reads from L2. A NaN (bit 14 set) travels as 0x3fc0, 1.5,
 *                 which no such h is, and the reader makes it a NaN again. */
template <typename T> struct Tagged;
template <> struct Tagged<bf16> {
    typedef uint32_t W;
    typedef uint2 V;                  /* the values of one 16-byte load */
    static constexpr int PER = 4;     /* values per 16-byte load */
    static __device__ __forceinline__ void put(W *p, float v, unsigned step)
    {
        const W w = step << 16 | __bfloat16_as_ushort(__float2bfloat16(v));
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
    static __device__ __forceinline__ V values(uint4 v)   /* 4 bf16 */
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
struct TaggedUnit {
    typedef uint16_t W;
    typedef uint4 V;
    static constexpr int PER = 8;
    static constexpr unsigned TAG = 0x40004000u;   /* bit 14 of both halves of a 32-bit word */
    static __device__ __forceinline__ unsigned tag(unsigned step) { return (step ^ step >> 1) & 1u; }
    static __device__ __forceinline__ void put(W *p, float v, unsigned step)
    {
        const unsigned short b = v == v ? __bfloat16_as_ushort(__float2bfloat16(v)) : 0x3fc0;
        const unsigned short w = (unsigned short)(b | tag(step) << 14);
        asm volatile("st.relaxed.gpu.global.u16 [%0], %1;" ::"l"(p), "h"(w));
    }
    static __device__ __forceinline__ uint4 get(const W *p)   /* eight words, each read whole */
    {
        return Tagged<bf16>::get(reinterpret_cast<const uint32_t *>(p));
    }
    static __device__ __forceinline__ bool ready(uint4 v, unsigned step)
    {
        const unsigned e = tag(step) ? TAG : 0u;
        return (((v.x ^ e) | (v.y ^ e) | (v.z ^ e) | (v.w ^ e)) & TAG) == 0;
    }
    /* two values: the tags cleared, and 0x3fc0 (1.5 with the tag bit cleared: a NaN) back
     * to 0x7fc0 (+ 0x40 carries into bit 14 exactly there) */
    static __device__ __forceinline__ unsigned word(unsigned w)
    {
        return (w & ~TAG) | (((w & 0x3fc03fc0u) + 0x00400040u) & TAG);
    }
    static __device__ __forceinline__ V values(uint4 v)   /* 8 bf16 */
    {
        return make_uint4(word(v.x), word(v.y), word(v.z), word(v.w));
    }
};
/* the exchange of a forward pass */
template <class Cell, typename T> struct TagOf { typedef Tagged<T> type; };
template <class Cell> struct TagOf<Cell, bf16> {
    typedef typename std::conditional<Cell::H_UNIT, TaggedUnit, Tagged<bf16>>::type type;
};

/* Poll the words src + goff[k] of the items k in pend until each carries the step, and put
 * each one's values at dst + soff[k] as it does: every pending load in flight at once. */
/* (Two loads of each word in flight, the second some cycles after the first, so that a
 * word that lands just after the first is not left to the next round trip: slower at every
 * lag tried, 100 to 500 cycles, dense lstm bf16 forward 2.11-2.36 ms against 2.08-2.10.) */
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
 * (all = true), and a step's poll only multiplies them out (dividing them out every step
 * cost 2% of the dense head's forward: results/flashrnn-split-versions-h200.txt); else each
 * step's poll walks it (tagged_to_smem). Rows past the batch are zeros, written here into both of the operand
 * buffers (dst, dst2), which nothing else writes then. */
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

/* The backward's head_sync = grid: all bph blocks of a head have finished `steps` steps, the
 * writes before it visible (to loads that bypass L1: __ldcg); then each block reloads the
 * head's dL/d(R h) from L2. The counter only grows; the launch zeroes it. The arrival is a
 * release reduction, which returns nothing, so the poll starts at once. (The backward
 * exchanges G times the forward's values; as tagged words they cost more than this barrier
 * at dh = 768: flashrnn-headdim README, version log of the split heads.) */
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

/* proj_overlap (models/flashrnn_cuda.cu): W x arrives in chunks of steps that a second stream
 * multiplies beside the forward and counts in w[0]; wait until chunk k is counted (acquire: the
 * copies this thread issues next read the GEMM's stores). A chunk that never comes (a GEMM that
 * could not start, a bug) ends the kernel after 10 s with a trap (the launch's error: unspecified
 * launch failure), not a hang: the tests met one so (a wait past the last chunk). Inline and
 * without a message: a printf here made the kernels slower. */
__device__ __forceinline__ unsigned long long globaltimer_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
__device__ __forceinline__ void wait_wx_chunk(const unsigned *w, unsigned k)
{
    const unsigned long long t0 = globaltimer_ns();
    for (;;) {
        unsigned v;
        asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(w) : "memory");
        if (v >= k) return;
        if (globaltimer_ns() - t0 > 10000000000ull) __trap();
    }
}

/* Thread-block clusters (head_sync = cluster, and grid_share's in the backward) exist from
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
__device__ __forceinline__ unsigned smem_addr(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }
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

/* The geometry of a launch: the tiling and the shared-memory layout (flashrnn_smem_layout). */
struct Geo {
    int hpb, bph, bt, wk, split, nbb, U, gpb, oprow, nf, nd;
    int cl;     /* 1: a split head's bph blocks are one cluster (consecutive block ids) */
    int push;   /* with cl: 1 push_to_cluster, 0 st_operand (below)                     */
    int spread; /* wk > 1: the group's first 4 warps add the partial sums and run the
                 * cell, one of its 128 positions a thread (flashrnn_fused_cell_spread) */
    int mc;     /* head_sync = grid: clusters of mc blocks (consecutive parts of a head) share
                 * the step's reads from L2 (flashrnn_tiling::share); 0 or 1 none         */
    int wgates; /* forward: the gates a warp's products cover (flashrnn_fused_warp_gates) */
    int64_t op, pff, pfd, state, red, bias, mbar;
    /* The block's batch tile bb, part of its head and head group. A cluster's blocks are
     * consecutive, so with clusters the part varies fastest; else the batch tile does. */
    __device__ __forceinline__ void coords(int &bb, int &part, int &hg) const
    {
        const int b = blockIdx.x;
        if (cl || mc > 1) part = b % bph, bb = b / bph % nbb, hg = b / bph / nbb;
        else bb = b % nbb, part = b / nbb % bph, hg = b / nbb / bph;
    }
};

/* With clusters, two ways to give the other blocks a block's part of the exchanged operand
 * (forward h_t, backward dL/d(R h), every gate), chosen per launch (Geo::push, see launch()):
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

/* Copy rows [b0, b0 + bt) of `ncols` elements (a multiple of 16 bytes), starting at column
 * col of a [B][ld] array, into shared memory rows of `srow` elements: rows >= B are zeros.
 * Reads through L2 (another block may have just written them). */
template <typename T>
__device__ void rows_to_smem(T *dst, int srow, const T *src, int64_t ld, int col, int ncols, int b0,
                             int bt, int B)
{
    const int per = 16 / sizeof(T), chunks = ncols / per;
    for (int i = threadIdx.x; i < bt * chunks; i += blockDim.x) {
        int n = i / chunks, j = (i % chunks) * per;
        uint4 v = make_uint4(0, 0, 0, 0);
        if (b0 + n < B) v = __ldcg(reinterpret_cast<const uint4 *>(src + (int64_t)(b0 + n) * ld + col + j));
        *reinterpret_cast<uint4 *>(dst + n * srow + j) = v;
    }
}

/* A thread's walk over the 16-byte chunks (plane q, row n, chunk j) of `planes` planes of
 * bt rows × `chunks` chunks, chunk i (threadIdx.x unless given) first, then every
 * blockDim.x-th: the same every step, so it is split into (q, n, j) once and then advanced
 * without divisions. */
struct Walk {
    int q0, n0, j0, dq, dn, dj, bt, chunks;
    __device__ Walk(int bt_, int chunks_, int i = threadIdx.x) : bt(bt_), chunks(chunks_)
    {
        const int per_plane = bt * chunks, s = blockDim.x;
        q0 = i / per_plane, n0 = (i / chunks) % bt, j0 = i % chunks;
        dq = s / per_plane, dn = (s % per_plane) / chunks, dj = s % chunks;
    }
    /* f(q, n, j) for each of this thread's chunks of planes 0 .. nplanes-1 */
    template <class F> __device__ __forceinline__ void each(int nplanes, F f) const
    {
        for (int q = q0, n = n0, j = j0; q < nplanes;) {
            f(q, n, j);
            j += dj;
            if (j >= chunks) j -= chunks, n++;
            n += dn;
            if (n >= bt) n -= bt, q++;
            q += dq;
        }
    }
};

/* Registers per thread at most: 384 threads (a dh = 768 head's 12 warps) a block then fit
 * an SM's 65,536. The kernels need about as many (R takes 64 with k_slice 64); the split
 * head's exchange would push the lstm bf16 forward at k_slice 64 to 177 uncapped. */
#define FLASHRNN_MAX_REGS 168

/* Built with -DFLASHRNN_PROBE (a workbench build, never the library's): thread 0 of each
 * split-head block adds the SM cycles of each phase of a step and the launch prints their
 * means per step, forward and backward, to stderr. Forward: p0 the fetch and products, p1
 * the partial sums' stores and barrier, p5 a spreading thread's sums, p2 the cell, p3 the
 * barrier and poll of h (grid), p4 the step's end; backward: p4 the products and sums, p0
 * the cell, p1 the counter barrier, p2 the reload, p3 the end barrier. Its own registers
 * can make the kernel spill: compare its medians with the plain build's. */
#ifdef FLASHRNN_PROBE
#define PROBE_PHASES 6
__device__ long long flashrnn_probe[2][256][PROBE_PHASES];
__device__ long long flashrnn_probe_ns[2];   /* block 0: the nanoseconds of its step loop */
/* 32-bit cycle counts (a step's phases are far below 2^32 cycles), to add few registers */
#define PROBE_DECL unsigned probe_acc[PROBE_PHASES] = {0}, probe_last = (unsigned)clock(); \
    const long long probe_t0 = (long long)globaltimer_ns();
#define PROBE(k) do { if (SPLIT && threadIdx.x == 0) { unsigned c_ = (unsigned)clock(); probe_acc[k] += c_ - probe_last; probe_last = c_; } } while (0)
#define PROBE_END(pass) do { if (SPLIT && threadIdx.x == 0 && blockIdx.x < 256) { \
    for (int k_ = 0; k_ < PROBE_PHASES; k_++) flashrnn_probe[pass][blockIdx.x][k_] = probe_acc[k_]; \
    if (blockIdx.x == 0) flashrnn_probe_ns[pass] = (long long)globaltimer_ns() - probe_t0; } } while (0)
#else
#define PROBE_DECL
#define PROBE(k) do { } while (0)
#define PROBE_END(pass) do { } while (0)
#endif

/* The reduction slots, of a group's 128 C-fragment positions: RED_SLOT floats per warp and
 * gate backward, RED_FWD_KW per warp forward (4 gates' slots, any G). Without spread they
 * hold a warp's C fragments as they are (lane-major, 16-byte stores and loads). Spread, they
 * are laid out by the spreading threads' order: thread sp owns batch row sp / 16 and unit
 * sp % 16 of the 8 x 16 tile, so that a warp's stores of h, c and the saved gates to global
 * memory are 16 consecutive units of two rows (a scattered order cost a sector per lane and
 * store). Backward one float a position, RED_PITCH a row: the fragments' scalar stores (rows
 * c0, c0 + 1, units r0, r0 + 8 of 8 lanes each) hit distinct banks. Forward the position's
 * gates side by side (one 16-byte store a fragment element, one 16-byte load a warp's
 * partial: at wk = 12, 12 loads a thread instead of 48), RED_P4 positions a row, 17 so
 * that the 8 lanes of a quarter warp's stores cover all 32 banks. */
#define RED_PITCH 20
#define RED_SLOT (8 * RED_PITCH)
#define RED_FWD_KW (4 * RED_SLOT)
#define RED_P4 17
static_assert(RED_SLOT >= 128 && 8 * RED_P4 * 4 <= RED_FWD_KW, "the slots hold a warp's 32 x 4 fragment values");

/* ---- forward ------------------------------------------------------------------------------ */
/* WGATES (flashrnn_fused_warp_gates; 0: every gate) = 1 or 2: a warp's products cover
 * WGATES gates of the group's 16 units over a k slice 4 / WGATES times as long (the same
 * registers of R), so that the partial sums to add are wk·WGATES / 4 instead of wk (12 at
 * the dense head of 768), each position's 4 gates side by side; the warp reads its longer
 * slice of h with ldmatrix. Only for the tiling flashrnn_fused_warp_gates admits. */
template <class Cell, typename T, int KS, bool SPLIT, int WGATES = 0>
__device__ __forceinline__ void forward_pass(const flashrnn_fused_args &a, const Geo &g)
{
    constexpr int G = Cell::G, KT = Frag<T>::KT, NK = KS / KT;
    static_assert(!WGATES || (G == 4 && sizeof(T) == 2 && SPLIT && KS == 64 && (WGATES == 1 || WGATES == 2)),
                  "warp_gates: the lstm's bf16 split forward, k_slice 64");
    /* WGATES: warp = k slice ks of NKS, gate group gg of NGG (gates gg·WGATES ..), NKT k tiles */
    constexpr int NGG = WGATES ? 4 / WGATES : 1, NKT = WGATES ? 16 / WGATES : NK, CH = WGATES ? 4 / WGATES : 1;
    extern __shared__ __align__(16) unsigned char smem[];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int dh = a.dh, D = a.H * dh, B = a.B, T_ = a.T, U = g.U, bt = g.bt, L = g.oprow;
    const bool cl = SPLIT && g.cl;   /* whole heads (SPLIT false) have no exchange code at all */
    int bb, part, hg;
    g.coords(bb, part, hg);
    const int b0 = bb * bt;
    const int ub = hg * g.hpb * dh + part * U;               /* the block's first unit in D */
    /* a group's warps: wk k slices × split halves; the halves make the same products and
     * each runs the cell for its own 8 of the group's 16 units (C fragment rows e >> 1) */
    const int grp = warp / (g.wk * g.split), kw = warp / g.split % g.wk, half = warp % g.split;
    const int gu = grp * 16;
    const int head = (ub + gu) / dh, u0 = (ub + gu) % dh;     /* the group's head and unit */
    const int hl = SPLIT ? 0 : gu / dh;                       /* its head within the block */
    const int r0 = lane >> 2, c0 = (lane & 3) * 2;
    const int gg = warp % NGG, ks = warp / NGG;   /* WGATES only */
    /* spread: thread sp < 128 of the group owns unit row sp % 16 and batch row nt·8 + sp / 16
     * of each 8-row tile (the reduction slots' layout, RED_SLOT above) */
    const int sp = (kw * g.split + half) * 32 + lane, sn = sp >> 4;
    const bool spreader = g.spread && sp < 128;
    T *op = reinterpret_cast<T *>(smem + g.op);
    float *pff = reinterpret_cast<float *>(smem + g.pff);
    float *cst = reinterpret_cast<float *>(smem + g.state);
    float *red = reinterpret_cast<float *>(smem + g.red);
    const int P = U + 4;   /* row pitch of the fp32 [bt][U] arrays: lanes of 4 rows apart in distinct banks */
    const T *R = static_cast<const T *>(a.R);
    T *hout = static_cast<T *>(a.h);
    typedef typename TagOf<Cell, T>::type X;   /* head_sync = grid: the exchange's words */
    typename X::W *xw = static_cast<typename X::W *>(a.xchg);
    if (a.wx_chunk && blockIdx.x == 0 && threadIdx.x == 0)   /* proj_overlap: the kernel runs (chunk 0 asked for) */
        asm volatile("st.relaxed.gpu.global.u32 [%0], 1;" ::"l"(a.wx_sync + 1) : "memory");

    /* R^T slice: strip q = gate q of the group's 16 units, rows kw·KS .. of the head's dh */
    uint32_t ra[G][NK][4];
#pragma unroll
    for (int q = 0; q < G; q++)
#pragma unroll
        for (int kt = 0; kt < NK; kt++)
            Frag<T>::a(ra[q][kt], lane, [&](int row, int col) {
                if (WGATES) {   /* register f = q·NK + kt: k tile f % NKT of gate gg·WGATES + f / NKT */
                    const int f = q * NK + kt;
                    return ld(R + ((int64_t)head * dh + ks * NKT * KT + f % NKT * KT + col) * G * dh
                              + (gg * WGATES + f / NKT) * dh + u0 + row);
                }
                return ld(R + ((int64_t)head * dh + kw * KS + kt * KT + col) * G * dh + q * dh + u0 + row);
            });
    /* the block's biases, b[G][U] then (gru) bn[U], in shared memory: read by the cell, not
     * held in registers (the split kernels are at their register cap and spilled) */
    float *bias = reinterpret_cast<float *>(smem + g.bias);
    for (int i = threadIdx.x; i < (G + 1) * U; i += blockDim.x) {
        const int q = i / U, u = i % U;
        bias[i] = q < G ? a.bias[q * D + ub + u] : a.bn ? a.bn[ub + u] : 0.0f;
    }

    /* h_{-1} into operand buffer 0, c_{-1} into the state, W x_0 into prefetch buffer 0 */
    for (int hh = 0; hh < g.hpb; hh++)
        rows_to_smem(op + hh * bt * L, L, static_cast<const T *>(a.h0), D, (hg * g.hpb + hh) * dh,
                     dh, b0, bt, B);
    if (G == 4)
        for (int i = threadIdx.x; i < bt * U; i += blockDim.x) {
            int n = i / U, u = i % U;
            cst[n * P + u] = b0 + n < B ? ld(static_cast<const T *>(a.c0) + (int64_t)(b0 + n) * D + ub + u) : 0.0f;
        }
    /* the inputs of step t go to prefetch stage t % FLASHRNN_STAGES, FLASHRNN_STAGES - 1 steps
     * ahead; one commit group per step (empty past the end) keeps the count uniform */
    /* a thread's share of a step's W x is the same every step: up to MAXC chunks, their
     * offsets are worked out once (measured faster than walking them every step); more,
     * or offsets beyond 32 bits, take the walk */
    /* Split kernels: MAXC 1 (the split tilings' blocks of 16-32 units have at most one chunk a
     * thread, more would take the walk; with 4 the lstm bf16 kernel spilled twice as much),
     * counted from the last thread down so
     * that the copies are issued by warps off the cell's path (the spreading threads are the
     * first 128). */
    constexpr int MAXC = SPLIT ? 1 : 4;
    const int chunks = U / 4, total = G * bt * chunks;
    const bool pre = total <= MAXC * (int)blockDim.x && (int64_t)B * G * D < INT32_MAX;
    int soff[MAXC], goff[MAXC], nmine = 0;
    unsigned valid = 0;
    const int tid = SPLIT ? (int)blockDim.x - 1 - (int)threadIdx.x : (int)threadIdx.x;
    if (pre)
#pragma unroll
        for (int k = 0; k < MAXC; k++) {
            const int i = tid + k * blockDim.x;
            const int q = i / (bt * chunks), n = (i / chunks) % bt, j = (i % chunks) * 4;
            soff[k] = (q * bt + n) * P + j;
            goff[k] = (b0 + n) * G * D + q * D + ub + j;
            if (i < total) nmine = k + 1, valid |= (unsigned)(b0 + n < B) << k;
        }
    const Walk wf(bt, chunks);
    auto fetch = [&](int t) {
        if (t < T_) {
            float *dst = pff + (t % FLASHRNN_STAGES) * G * bt * P;
            const float *base = a.wx + (int64_t)t * B * G * D;
            if (pre) {
#pragma unroll
                for (int k = 0; k < MAXC; k++)
                    if (k < nmine) cp16(dst + soff[k], valid >> k & 1 ? base + goff[k] : a.wx, valid >> k & 1);
            } else {
                wf.each(G, [&](int q, int n, int j) {
                    const bool ok = b0 + n < B;
                    cp16(dst + (q * bt + n) * P + 4 * j, ok ? base + (int64_t)(b0 + n) * G * D + q * D + ub + 4 * j : a.wx, ok);
                });
            }
        }
        cp_commit();
    };
    for (int t = 0; t < FLASHRNN_STAGES - 1; t++) fetch(t);
    /* grid: this thread's share of polling h (its offsets), rows past the batch zeroed */
    const TaggedShare<X> share = SPLIT && !cl ? TaggedShare<X>(op, op + bt * L, L, D, dh, b0, bt, B)
                                              : TaggedShare<X>();
    cp_wait_next();
    __syncthreads();
    if (cl) cluster_barrier();   /* every block of the cluster runs before any stores to it */

    /* proj_overlap: the steps whose prefetch reaches a new chunk of W x; before each, the
     * threads that copy wait until the chunk is counted (between runs of steps: the step
     * itself tests nothing) */
    int wx_wait = a.wx_chunk > 0 ? a.wx_chunk - (FLASHRNN_STAGES - 1) : T_;
    /* step t's outputs at batch row b, unit ul of the block: h, the saved gates s, (lstm) c */
    auto store_out = [&](int t, int b, int ul, float h, const float (&s)[4], float c) {
        const int64_t o = (int64_t)t * B + b;
        st(hout + o * D + ub + ul, h);
#pragma unroll
        for (int q = 0; q < 4; q++) a.s[o * 4 * D + q * D + ub + ul] = s[q];
        if (G == 4) a.c[o * D + ub + ul] = c;
    };
    /* warp_gates (the dense lstm head, grid): a spreading thread's one position a step, its
     * outputs kept from the cell until the block waits before its poll (poll_delay) and stored
     * then, off the step's path (dense lstm bf16 forward 1.76-1.77 against 1.98-1.99 ms, A/B
     * in one call; decided at run time, for every spread cell, 1.90-1.92 against this form's
     * 1.82-1.84 in another; the gru's spread cell so was slower, 2.16-2.24 against 2.11) */
    constexpr bool DEFER = WGATES > 0;
    PROBE_DECL
    for (int t = 0; t < T_;) {   /* runs of steps up to the next chunk's wait */
    for (const int tend = wx_wait < T_ ? wx_wait : T_; t < tend; t++) {   /* a step */
        const int cur = t & 1, nxt = cur ^ 1;
        float kept_h, kept_s[4], kept_c;   /* DEFER */
        PROBE(4);
        fetch(t + FLASHRNN_STAGES - 1);
        const T *hop = op + (cur * g.hpb + hl) * bt * L;
        const float *wxs = pff + (t % FLASHRNN_STAGES) * G * bt * P;
        for (int nt = 0; nt < bt / 8; nt++) {
            float acc[G][4];
#pragma unroll
            for (int q = 0; q < G; q++) acc[q][0] = acc[q][1] = acc[q][2] = acc[q][3] = 0.0f;
            if constexpr (WGATES > 0) {   /* acc[gi]: gate gg·WGATES + gi, in CH chains each */
                float w[WGATES * CH][4] = {};
                const unsigned hs = smem_addr(hop + (lane & 7) * L + ks * NKT * KT + (lane >> 3) * 8);
#pragma unroll
                for (int kt = 0; kt < NKT; kt += 2) {   /* two k tiles: b0, b1 of kt, then of kt + 1 */
                    uint32_t b[4];
                    ldmatrix_x4(b, hs + kt * KT * (unsigned)sizeof(T));
#pragma unroll
                    for (int gi = 0; gi < WGATES; gi++) {
                        const int f = gi * NKT + kt;
                        Frag<T>::mma(w[gi * CH + kt % CH], ra[f / NK][f % NK], b[0], b[1]);
                        Frag<T>::mma(w[gi * CH + (kt + 1) % CH], ra[(f + 1) / NK][(f + 1) % NK], b[2], b[3]);
                    }
                }
#pragma unroll
                for (int gi = 0; gi < WGATES; gi++)
#pragma unroll
                    for (int c = 0; c < CH; c++)
#pragma unroll
                        for (int e = 0; e < 4; e++) acc[gi][e] += w[gi * CH + c][e];
            } else {
#pragma unroll
                for (int kt = 0; kt < NK; kt++) {
                    uint32_t x0, x1;
                    Frag<T>::b(x0, x1, hop + nt * 8 * L + kw * KS + kt * KT, L, lane);
#pragma unroll
                    for (int q = 0; q < G; q++) Frag<T>::mma(acc[q], ra[q][kt], x0, x1);
                }
            }
            /* the cell at unit row `row` of the group and batch row n of the tile, on the
             * products rv */
            auto cell = [&](int row, int n, const float (&rv)[G], const float *pav = NULL, float pc = 0.0f) {
                const int ul = gu + row, b = b0 + n;
                float av[G], s[4];
#pragma unroll
                for (int q = 0; q < G; q++) av[q] = pav ? pav[q] : wxs[(q * bt + n) * P + ul] + bias[q * U + ul];
                float hp = G == 3 ? ld(hop + n * L + u0 + row) : 0.0f;
                float c = G == 4 ? (pav ? pc : cst[n * P + ul]) : 0.0f;
                float h = Cell::forward(av, rv, bias[G * U + ul], hp, c, s);
                if (G == 4) cst[n * P + ul] = c;
                if (!SPLIT || cl) st_operand(g, cl, op, ((nxt * g.hpb + hl) * bt + n) * L + u0 + row, h);
                if (b < B) {
                    if (SPLIT && !cl) X::put(xw + ((int64_t)((t + 1) & 1) * B + b) * D + ub + ul, h, t + 1);
                    if constexpr (!DEFER) {
                        store_out(t, b, ul, h, s, c);
                    } else {
                        kept_h = h, kept_c = c;
#pragma unroll
                        for (int q = 0; q < 4; q++) kept_s[q] = s[q];
                    }
                }
            };
            PROBE(0);
            if constexpr (WGATES > 0) {   /* the NKS = wk / NGG k slices' partial sums */
                /* a spreading thread's cell inputs (W x + b, c) read before the barrier, off
                 * the sums' path (here they fit the registers; every gate a warp, they did not) */
                float pav[G], pc = 0.0f;
                if (spreader) {
#pragma unroll
                    for (int q = 0; q < G; q++) pav[q] = wxs[(q * bt + sn) * P + gu + (sp & 15)] + bias[q * U + gu + (sp & 15)];
                    pc = cst[sn * P + gu + (sp & 15)];
                }
                float *rs = red + ks * RED_FWD_KW + gg * WGATES;
#pragma unroll
                for (int e = 0; e < 4; e++) {
                    float *d = rs + ((c0 + (e & 1)) * RED_P4 + r0 + 8 * (e >> 1)) * 4;
                    if (WGATES == 1) *d = acc[0][e];
                    else *reinterpret_cast<float2 *>(d) = make_float2(acc[0][e], acc[WGATES - 1][e]);
                }
                __syncthreads();
                PROBE(1);
                if (spreader) {
                    float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
                    for (int j = 0; j < 12 / NGG; j++) {   /* all loads in flight: wk <= 12 here */
                        if (j >= g.wk / NGG) break;
                        const float4 v = *reinterpret_cast<const float4 *>(red + j * RED_FWD_KW + (sn * RED_P4 + (sp & 15)) * 4);
                        sum.x += v.x, sum.y += v.y, sum.z += v.z, sum.w += v.w;
                    }
                    const float rv[G] = {sum.x, sum.y, sum.z, sum.w};
                    PROBE(5);
                    cell(sp & 15, sn, rv, pav, pc);
                }
                continue;
            }
            if (g.wk > 1) {   /* the group's wk partial sums meet in warp kw = 0, or spread */
                float *rd = red + (int64_t)(((nt & 1) * g.gpb + grp) * g.wk) * RED_FWD_KW;
                if (half == 0 && g.spread)
#pragma unroll
                    for (int e = 0; e < 4; e++)
                        *reinterpret_cast<float4 *>(rd + kw * RED_FWD_KW + ((c0 + (e & 1)) * RED_P4 + r0 + 8 * (e >> 1)) * 4) =
                            make_float4(acc[0][e], acc[1][e], acc[2][e], G == 4 ? acc[3 % G][e] : 0.0f);
                else if (half == 0)
#pragma unroll
                    for (int q = 0; q < G; q++)
                        *reinterpret_cast<float4 *>(rd + kw * RED_FWD_KW + q * RED_SLOT + lane * 4) =
                            make_float4(acc[q][0], acc[q][1], acc[q][2], acc[q][3]);
                __syncthreads();
                PROBE(1);
                if (g.spread) {
                    if (spreader) {
                        float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);   /* in kw order, as below */
#pragma unroll 4
                        for (int j = 0; j < g.wk; j++) {
                            const float4 v = *reinterpret_cast<const float4 *>(rd + j * RED_FWD_KW + (sn * RED_P4 + (sp & 15)) * 4);
                            sum.x += v.x, sum.y += v.y, sum.z += v.z, sum.w += v.w;
                        }
                        const float all[4] = {sum.x, sum.y, sum.z, sum.w};
                        float rv[G];
#pragma unroll
                        for (int q = 0; q < G; q++) rv[q] = all[q];
                        PROBE(5);
                        cell(sp & 15, nt * 8 + sn, rv);
                    }
                    continue;
                }
                if (kw == 0)
                    for (int j = 1; j < g.wk; j++)
#pragma unroll
                        for (int q = 0; q < G; q++) {
                            float4 v = *reinterpret_cast<const float4 *>(rd + j * RED_FWD_KW + q * RED_SLOT + lane * 4);
                            acc[q][0] += v.x, acc[q][1] += v.y, acc[q][2] += v.z, acc[q][3] += v.w;
                        }
            }
            if (kw != 0) continue;
#pragma unroll
            for (int e = 0; e < 4; e++) {
                if (g.split == 2 && (e >> 1) != half) continue;
                float rv[G];
#pragma unroll
                for (int q = 0; q < G; q++) rv[q] = acc[q][e];
                cell(r0 + 8 * (e >> 1), nt * 8 + c0 + (e & 1), rv);
            }
        }
        PROBE(2);
        if (cl && g.push) {   /* the block's units of h_t to the other blocks of its cluster */
            push_to_cluster(g, op + nxt * bt * L, L, 1, 0, part * U, U);
        } else if (SPLIT && !cl) {   /* h_t of the whole head, as the bph blocks that made it tagged it */
            /* not before the block's own cells are done: the words cannot carry the step
             * much earlier (every block's cells finish about together), and warps polling
             * while the cells run slow them down (results/flashrnn-split-versions-h200.txt);
             * nor at once after them: a poll that reaches L2 before a word lands costs a whole
             * round trip more, so first a wait of poll_delay cycles (flashrnn_fused_poll_delay) */
            __syncthreads();
            const unsigned c0 = (unsigned)clock();
            if constexpr (DEFER)
                if (spreader && b0 + sn < B) store_out(t, b0 + sn, gu + (sp & 15), kept_h, kept_s, kept_c);
            while ((unsigned)clock() - c0 < (unsigned)a.poll_delay) {}
            tagged_to_smem(share, op + nxt * bt * L, L, xw + (int64_t)((t + 1) & 1) * B * D + hg * dh, D, dh,
                           b0, bt, B, (unsigned)(t + 1));
        }
        PROBE(3);
        cp_wait_next();
        if (cl) cluster_barrier();   /* h_t of the whole head is in every block's buffer */
        else __syncthreads();
    }
    if (t + FLASHRNN_STAGES - 1 < T_) {   /* past the end nothing is fetched */
        const unsigned k = (unsigned)((t + FLASHRNN_STAGES - 1) / a.wx_chunk);
        if (blockIdx.x == 0 && threadIdx.x == 0)   /* chunks asked for (proj_overlap = late waits on it) */
            asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(a.wx_sync + 1), "r"(k + 1) : "memory");
        if (!pre || nmine > 0) wait_wx_chunk(a.wx_sync, k);
    }
    wx_wait += a.wx_chunk;
    }
    PROBE(4);
    PROBE_END(0);
}

/* ---- backward ----------------------------------------------------------------------------- */
template <class Cell, typename T, int KS, bool SPLIT>
__device__ __forceinline__ void backward_pass(const flashrnn_fused_args &a, const Geo &g)
{
    constexpr int G = Cell::G, KT = Frag<T>::KT, NK = G * KS / KT;
    extern __shared__ __align__(16) unsigned char smem[];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int dh = a.dh, D = a.H * dh, B = a.B, T_ = a.T, U = g.U, bt = g.bt, L = g.oprow;
    const bool cl = SPLIT && g.cl;   /* whole heads (SPLIT false) have no exchange code at all */
    const int mc = SPLIT && !cl && g.mc > 1 ? g.mc : 1;   /* grid: clusters sharing the reload */
    int bb, part, hg;
    g.coords(bb, part, hg);
    const int b0 = bb * bt;
    const int ub = hg * g.hpb * dh + part * U;
    /* a group's warps: wk k slices × split halves; the halves make the same products and
     * each runs the cell for its own 8 of the group's 16 units (C fragment rows e >> 1) */
    const int grp = warp / (g.wk * g.split), kw = warp / g.split % g.wk, half = warp % g.split;
    const int gu = grp * 16;
    const int head = (ub + gu) / dh, u0 = (ub + gu) % dh;
    const int hl = SPLIT ? 0 : gu / dh;
    const int r0 = lane >> 2, c0 = (lane & 3) * 2;
    const int sp = (kw * g.split + half) * 32 + lane;   /* spread: as in the forward */
    const bool spreader = g.spread && sp < 128;
    const int srow = sp & 15, sn = sp >> 4;
    T *op = reinterpret_cast<T *>(smem + g.op);
    float *pff = reinterpret_cast<float *>(smem + g.pff);
    T *pfd = reinterpret_cast<T *>(smem + g.pfd);
    const int P = U + 4, Pd = U + 16 / (int)sizeof(T);   /* row pitches: see the forward */
    float *dhs = reinterpret_cast<float *>(smem + g.state), *dcs = dhs + bt * P;
    float *red = reinterpret_cast<float *>(smem + g.red);
    const T *R = static_cast<const T *>(a.R), *hin = static_cast<const T *>(a.h);
    /* dL/d(R h) of the head, as the next blocks read it back (bph > 1) */
    const T *drx = static_cast<const T *>(G == 4 ? a.dxa : a.dra);

    /* R slice: the group's 16 units (rows) × gate columns kw·G·KS .. of the head */
    uint32_t ra[NK][4];
#pragma unroll
    for (int kt = 0; kt < NK; kt++)
        Frag<T>::a(ra[kt], lane, [&](int row, int col) {
            return ld(R + ((int64_t)head * dh + u0 + row) * G * dh + kw * G * KS + kt * KT + col);
        });

    for (int i = threadIdx.x; i < 2 * bt * P; i += blockDim.x) dhs[i] = 0.0f;
    /* step t's inputs: fp32 planes 0-3 the saved gates, (lstm) 4 c_t, 5 c_{t-1}; dtype plane 0
     * dH_t, (gru) 1 h_{t-1}. Plane bases are arithmetic in (plane, t), rows are ld apart. */
    /* the prefetch's copies counted from the last thread down with head_sync = grid, so that
     * the threads of the cell (the first: spread, or warps kw = 0) issue few or none of them
     * (dense lstm bf16 fwd+bwd 6.02 against 6.22-6.24 ms; in clusters, dh = 256, 0.4-2.5%
     * slower: not there) */
    const int ftid = SPLIT && !cl ? (int)blockDim.x - 1 - (int)threadIdx.x : (int)threadIdx.x;
    const Walk wf(bt, U / 4, ftid), wd(bt, U / (16 / (int)sizeof(T)), ftid), wx(bt, dh / (16 / (int)sizeof(T)));
    /* own (grid, wk > 1, no twins): each warp reloads only the columns of dL/d(R h) its
     * products read (its k slice: G·KS columns, cpr 16-byte chunks a row, at most 32: one a
     * lane) and waits for its own copies, and no block barrier ends the step: the products'
     * reduction barrier publishes the next cell's inputs (each thread's copies waited for)
     * and orders the reuse of buffers. */
    constexpr int cpr = G * KS * (int)sizeof(T) / 16;
    static_assert(cpr <= 32, "a warp's k slice of dL/d(R h) is at most one 16-byte chunk a lane");
    const bool own = SPLIT && !cl && g.wk > 1 && g.split == 1;   /* (twins would copy twice) */
    /* mcast (own, in clusters of mc): the reload comes by the copy engine, each (row, k slice)
     * piece read from L2 once per cluster by one of its blocks and multicast to all of them,
     * counted on the slice's mbarrier, which its warp arms before the step's arrival at the
     * counter (so the copies, issued after every block's arrival, find it armed) and waits
     * on. Rows past the batch are never copied: zeros in both buffers from the start. */
    const bool mcast = own && mc > 1;
    uint64_t *mbar = reinterpret_cast<uint64_t *>(smem + g.mbar);
    const int nvalid = B - b0 < bt ? B - b0 : bt;
    if (mcast) {
        if (threadIdx.x < g.wk) mbar_init(mbar + threadIdx.x);
        const int words = 2 * bt * L * (int)sizeof(T) / 16;   /* L·sizeof(T) is a multiple of 16 */
        for (int i = threadIdx.x; i < words; i += blockDim.x) reinterpret_cast<uint4 *>(op)[i] = make_uint4(0, 0, 0, 0);
    }
    const int own_c = kw * G * KS + lane * (16 / (int)sizeof(T));   /* the lane's column */
    const int own_s = own_c, own_g = own_c / dh * D + own_c % dh;
    const T *dH = static_cast<const T *>(a.dH), *h0 = static_cast<const T *>(a.h0);
    auto fetch = [&](int t) {
        if (t >= 0) {
            const int64_t o = (int64_t)t * B;
            const int k = t % FLASHRNN_STAGES;
            float *ff = pff + k * g.nf * bt * P;
            T *fd = pfd + k * g.nd * bt * Pd;
            /* at t = 0, c_{-1} (plane 5) is c0, of the activations' dtype: filled below */
            wf.each(G == 4 && t == 0 ? 5 : g.nf, [&](int q, int n, int j) {
                const bool valid = b0 + n < B;
                const float *src = q < 4 ? a.s + (o + b0 + n) * 4 * D + q * D
                                         : a.c + (o - (q == 5 ? B : 0) + b0 + n) * D;
                cp16(ff + (q * bt + n) * P + 4 * j, valid ? src + ub + 4 * j : a.s, valid);
            });
            if (G == 4 && t == 0)
                for (int i = threadIdx.x; i < bt * U; i += blockDim.x) {
                    int n = i / U, u = i % U;
                    ff[(5 * bt + n) * P + u] =
                        b0 + n < B ? ld(static_cast<const T *>(a.c0) + (int64_t)(b0 + n) * D + ub + u) : 0.0f;
                }
            constexpr int per = 16 / sizeof(T);
            wd.each(g.nd, [&](int q, int n, int j) {
                const bool valid = b0 + n < B;
                const T *src = q == 0 ? dH + (o + b0 + n) * D
                                      : (t ? hin + (o - B + b0 + n) * D : h0 + (int64_t)(b0 + n) * D);
                cp16(fd + (q * bt + n) * Pd + per * j, valid ? src + ub + per * j : dH, valid);
            });
        }
        cp_commit();
    };
    for (int j = 0; j < FLASHRNN_STAGES - 1; j++) fetch(T_ - 1 - j);
    cp_wait_next();
    __syncthreads();
    if (cl || mc > 1) cluster_barrier();   /* every block of the cluster runs (its barriers set up) before any stores to it */

    PROBE_DECL
    for (int t = T_ - 1; t >= 0; t--) {
        const int cur = t & 1;
        PROBE(4);
        fetch(t - (FLASHRNN_STAGES - 1));
        T *dop = op + (cur * g.hpb + hl) * bt * L;
        const float *ff = pff + (t % FLASHRNN_STAGES) * g.nf * bt * P;
        const T *fd = pfd + (t % FLASHRNN_STAGES) * g.nd * bt * Pd;
        /* the cell's backward at unit row `row` of the group and batch row n of the tile */
        auto cell = [&](int row, int n) {
            const int ul = gu + row, b = b0 + n, i = n * P + ul, id = n * Pd + ul;
            float sv[4], dxa[G], dra[G];
#pragma unroll
            for (int q = 0; q < 4; q++) sv[q] = ff[q * bt * P + i];
            float c = G == 4 ? ff[4 * bt * P + i] : 0.0f, cp = G == 4 ? ff[5 * bt * P + i] : 0.0f;
            float hp = G == 3 ? ld(fd + bt * Pd + id) : 0.0f;
            float dc = G == 4 ? dcs[i] : 0.0f;
            float dh_ = ld(fd + id) + dhs[i];
            dhs[i] = Cell::backward(sv, c, cp, hp, dh_, dc, dxa, dra);
            if (G == 4) dcs[i] = dc;
            if (!SPLIT || cl)
#pragma unroll
                for (int q = 0; q < G; q++) st_operand(g, cl, dop, n * L + q * dh + u0 + row, dra[q]);
            if (b < B) {
                const int64_t o = ((int64_t)t * B + b) * G * D + ub + ul;
#pragma unroll
                for (int q = 0; q < G; q++) {
                    st(static_cast<T *>(a.dxa) + o + q * D, dxa[q]);
                    if (G == 3) st(static_cast<T *>(a.dra) + o + q * D, dra[q]);
                }
            }
        };
        if (g.spread) {
            if (spreader)
                for (int nt = 0; nt < bt / 8; nt++) cell(srow, nt * 8 + sn);
        } else if (kw == 0)
            for (int nt = 0; nt < bt / 8; nt++)
#pragma unroll
                for (int e = 0; e < 4; e++)
                    if (g.split == 1 || (e >> 1) == half) cell(r0 + 8 * (e >> 1), nt * 8 + c0 + (e & 1));
        PROBE(0);
        if (cl && g.push) {   /* the block's units of dL/d(R h), every gate, to the cluster */
            push_to_cluster(g, dop, L, G, dh, part * U, U);
        } else if (SPLIT && !cl) {   /* dL/d(R h_{t-1}) of the whole head, as its blocks stored it */
            const T *src = drx + (int64_t)t * B * G * D + hg * dh;
            if (mcast) {
                /* every block of the head has stored its part: the block's pieces, (row n,
                 * slice s) = p, p = its rank mod mc, one a thread, a slice's G·KS columns of
                 * the head cut where a gate's dh columns end; every warp waits for its slice.
                 * (Warp 0 issuing them, with no second block barrier, was slower: dense lstm
                 * bf16 fwd+bwd 6.44-6.49 against 6.36 ms; thread 0 alone, in a warp whose other
                 * lanes spun on their mbarrier, 7.47.) */
                if (lane == 0) mbar_expect(mbar + kw, (unsigned)(nvalid * G * KS * sizeof(T)));
                head_barrier(a.sync + hg * g.nbb + bb, (unsigned)(g.bph * (T_ - t)));
                const unsigned short mask = (unsigned short)((1u << mc) - 1);
                const int npieces = nvalid * g.wk;
                int p = part % mc + (int)threadIdx.x * mc;
                if (p < npieces) fence_proxy_async();
                for (; p < npieces; p += (int)blockDim.x * mc) {
                    const int n = p / g.wk, sl = p % g.wk;
                    for (int c = sl * G * KS, e = c + G * KS; c < e;) {
                        const int q = c / dh, ce = e < (q + 1) * dh ? e : (q + 1) * dh;
                        bulk_multicast(dop + n * L + c, src + (int64_t)(b0 + n) * G * D + q * D + c % dh,
                                       (unsigned)((ce - c) * sizeof(T)), mbar + sl, mask);
                        c = ce;
                    }
                }
                PROBE(1);
                cp_wait_next();   /* step t-1's inputs: the products' reduction barrier publishes them */
                mbar_wait(mbar + kw, (unsigned)(T_ - 1 - t) & 1u);
            } else {
                head_barrier(a.sync + hg * g.nbb + bb, (unsigned)(g.bph * (T_ - t)));
                PROBE(1);
                if (own) {   /* each warp its own k slice: lane `lane`'s column chunk, every row */
                    if (lane < cpr)
                        for (int n = 0; n < bt; n++) {
                            const bool ok = b0 + n < B;
                            cp16(dop + n * L + own_s, ok ? src + (int64_t)(b0 + n) * G * D + own_g : src, ok);
                        }
                    cp_commit();
                    cp_wait_all();
                    __syncwarp();
                } else {
                    /* every gate q of the head (dh columns, G·D apart by row) at once: all of a
                     * thread's 16-byte copies in flight together (one L2 round trip, not one per
                     * copy), then wait for all */
                    constexpr int per = 16 / sizeof(T);
                    wx.each(G, [&](int q, int n, int j) {
                        const bool ok = b0 + n < B;
                        cp16(dop + n * L + q * dh + per * j, ok ? src + (int64_t)(b0 + n) * G * D + q * D + per * j : src, ok);
                    });
                    cp_commit();
                    cp_wait_all();
                }
            }
        }
        PROBE(2);
        /* One barrier per step. It publishes this step's dL/d(R h) to the products and, with
         * the wait before it, step t-1's inputs (fetched three steps ago) to the next cell.
         * What the next step overwrites before its own barrier (the prefetch stage of step t,
         * the operand buffer of step t+1) was last read before this one. */
        if (!own) {
            cp_wait_next();
            if (cl) cluster_barrier();   /* with clusters, the same barrier for the whole cluster */
            else __syncthreads();
        }
        PROBE(3);
        for (int nt = 0; nt < bt / 8; nt++) {
            /* G·KS/KT mmas into one output tile: CH independent chains, added at the end, so
             * that they overlap instead of waiting on each other */
            constexpr int CH = NK >= 4 ? 4 : NK;
            float part[CH][4];
#pragma unroll
            for (int c = 0; c < CH; c++) part[c][0] = part[c][1] = part[c][2] = part[c][3] = 0.0f;
#pragma unroll
            for (int kt = 0; kt < NK; kt++) {
                uint32_t x0, x1;
                Frag<T>::b(x0, x1, dop + nt * 8 * L + kw * G * KS + kt * KT, L, lane);
                Frag<T>::mma(part[kt % CH], ra[kt], x0, x1);
            }
            float acc[4];
#pragma unroll
            for (int e = 0; e < 4; e++) {
                acc[e] = part[0][e];
#pragma unroll
                for (int c = 1; c < CH; c++) acc[e] += part[c][e];
            }
            if (g.wk > 1) {
                float *rd = red + (int64_t)(((nt & 1) * g.gpb + grp) * g.wk) * RED_SLOT;
                if (half == 0 && g.spread)
#pragma unroll
                    for (int e = 0; e < 4; e++) rd[kw * RED_SLOT + (c0 + (e & 1)) * RED_PITCH + r0 + 8 * (e >> 1)] = acc[e];
                else if (half == 0)
                    *reinterpret_cast<float4 *>(rd + kw * RED_SLOT + lane * 4) = make_float4(acc[0], acc[1], acc[2], acc[3]);
                __syncthreads();
                if (g.spread) {   /* the position's wk partial sums, in kw order as below */
                    if (spreader) {
                        float sum = 0.0f;
#pragma unroll 4
                        for (int j = 0; j < g.wk; j++) sum += rd[j * RED_SLOT + sn * RED_PITCH + srow];
                        dhs[(nt * 8 + sn) * P + gu + srow] += sum;
                    }
                    continue;
                }
                if (kw == 0)
                    for (int j = 1; j < g.wk; j++) {
                        float4 v = *reinterpret_cast<const float4 *>(rd + j * RED_SLOT + lane * 4);
                        acc[0] += v.x, acc[1] += v.y, acc[2] += v.z, acc[3] += v.w;
                    }
            }
            if (kw != 0) continue;
#pragma unroll
            for (int e = 0; e < 4; e++)
                if (g.split == 1 || (e >> 1) == half)
                    dhs[(nt * 8 + c0 + (e & 1)) * P + gu + r0 + 8 * (e >> 1)] += acc[e];
        }
    }
    PROBE(4);
    PROBE_END(1);
    if (mcast) cluster_barrier();   /* no copy into a block of the cluster is left when it exits */
    if (g.spread) __syncthreads();   /* the spread threads' last sums, to warp kw = 0 */
    if (kw == 0)   /* dL/dh_{-1}, dL/dc_{-1} */
        for (int nt = 0; nt < bt / 8; nt++)
            for (int e = 0; e < 4; e++) {
                const int row = r0 + 8 * (e >> 1), n = nt * 8 + c0 + (e & 1), b = b0 + n;
                if (b >= B || (g.split == 2 && (e >> 1) != half)) continue;
                const int64_t o = (int64_t)b * D + ub + gu + row;
                if (a.dh0) st(static_cast<T *>(a.dh0) + o, dhs[n * P + gu + row]);
                if (G == 4 && a.dc0) st(static_cast<T *>(a.dc0) + o, dcs[n * P + gu + row]);
            }
}

/* The kernels: whole heads, and split heads capped at FLASHRNN_MAX_REGS. (The same cap on the
 * whole-head kernels made ptxas give them more registers, not fewer: -Xptxas -v.) */
template <class Cell, typename T, int KS>
__global__ void flashrnn_fwd_kernel(const flashrnn_fused_args a, const Geo g) { forward_pass<Cell, T, KS, false>(a, g); }
template <class Cell, typename T, int KS>
__global__ void __maxnreg__(FLASHRNN_MAX_REGS) flashrnn_fwd_split_kernel(const flashrnn_fused_args a, const Geo g)
{
    forward_pass<Cell, T, KS, true>(a, g);
}
template <class Cell, typename T, int KS, int WGATES>
__global__ void __maxnreg__(FLASHRNN_MAX_REGS) flashrnn_fwd_gates_kernel(const flashrnn_fused_args a, const Geo g)
{
    forward_pass<Cell, T, KS, true, WGATES>(a, g);
}
template <class Cell, typename T, int KS>
__global__ void flashrnn_bwd_kernel(const flashrnn_fused_args a, const Geo g) { backward_pass<Cell, T, KS, false>(a, g); }
template <class Cell, typename T, int KS>
__global__ void __maxnreg__(FLASHRNN_MAX_REGS) flashrnn_bwd_split_kernel(const flashrnn_fused_args a, const Geo g)
{
    backward_pass<Cell, T, KS, true>(a, g);
}

/* ---- the instantiation table -------------------------------------------------------------
 * The only compile-time specialisation: (cell, dtype, k_slice). The registers R takes per
 * thread are G·k_slice/4 (bf16) or G·k_slice/2 (tf32): 64 at most here. */
#define FLASHRNN_INSTANCES(X)                                                                   \
    X(LstmCell, bf16, 16) X(LstmCell, bf16, 32) X(LstmCell, bf16, 64)                          \
    X(LstmCell, float, 16) X(LstmCell, float, 32)                                              \
    X(GruCell, bf16, 16) X(GruCell, bf16, 32) X(GruCell, bf16, 64)                             \
    X(GruCell, float, 16) X(GruCell, float, 32)

typedef void (*kernel_fn)(const flashrnn_fused_args, const Geo);
/* each pass twice: [0] whole heads (no exchange code), [1] split heads (grid or cluster);
 * and the split forward with 1 or 2 gates a warp where the row has it (lstm, bf16, 64) */
struct Instance { flashrnn_instance id; kernel_fn fwd[2], bwd[2], fwd_gates[2]; };

template <class C, typename T, int K, int W> static kernel_fn gates_kernel_of()
{
    if constexpr (C::G == 4 && sizeof(T) == 2 && K == 64) return flashrnn_fwd_gates_kernel<C, T, K, W>;
    else return NULL;
}

#define FLASHRNN_ROW(C, T, K)                                                                   \
    {{C::G, (int)sizeof(T), K},                                                                 \
     {flashrnn_fwd_kernel<C, T, K>, flashrnn_fwd_split_kernel<C, T, K>},                       \
     {flashrnn_bwd_kernel<C, T, K>, flashrnn_bwd_split_kernel<C, T, K>},                       \
     {gates_kernel_of<C, T, K, 1>(), gates_kernel_of<C, T, K, 2>()}},
static const Instance INSTANCES[] = {FLASHRNN_INSTANCES(FLASHRNN_ROW)};
enum { N_INSTANCES = sizeof INSTANCES / sizeof INSTANCES[0] };

extern "C" const flashrnn_instance *flashrnn_fused_table(int *n)
{
    static flashrnn_instance ids[N_INSTANCES];
    for (int i = 0; i < N_INSTANCES; i++) ids[i] = INSTANCES[i].id;
    *n = N_INSTANCES;
    return ids;
}

extern "C" unsigned flashrnn_fused_k_slices(int G, int dtype_bytes)
{
    unsigned m = 0;
    for (int i = 0; i < N_INSTANCES; i++)
        if (INSTANCES[i].id.G == G && INSTANCES[i].id.dtype_bytes == dtype_bytes)
            m |= 1u << (INSTANCES[i].id.k_slice / 16);
    return m;
}

static const Instance *find(int G, int bytes, int k_slice)
{
    for (int i = 0; i < N_INSTANCES; i++)
        if (INSTANCES[i].id.G == G && INSTANCES[i].id.dtype_bytes == bytes
            && INSTANCES[i].id.k_slice == k_slice)
            return &INSTANCES[i];
    return NULL;
}

/* wgates: 0 or 4 every gate a warp, 1 or 2 flashrnn_fwd_gates_kernel (a split forward) */
static kernel_fn kernel_of(const Instance *in, flashrnn_pass pass, int blocks_per_head, int wgates = 0)
{
    const int split = blocks_per_head > 1;
    if (pass == FLASHRNN_FORWARD && split && (wgates == 1 || wgates == 2)) return in->fwd_gates[wgates - 1];
    return pass == FLASHRNN_FORWARD ? in->fwd[split] : in->bwd[split];
}

static int dtype_bytes(logt_dtype dt) { return dt == LOGT_BF16 ? 2 : 4; }

/* Whether the forward's exchange is in TaggedUnit's 16-bit words: TagOf's choice, on the host,
 * from the same cell trait (the instantiated cells: LstmCell for G = 4, GruCell for G = 3). */
static bool unit_words(const flashrnn_fused_args *a)
{
    return a->dtype == LOGT_BF16 && (a->G == LstmCell::G ? LstmCell::H_UNIT : GruCell::H_UNIT);
}

extern "C" int flashrnn_fused_poll_delay(const flashrnn_fused_args *a)
{
    if (a->poll_delay >= 0) return a->poll_delay;
    return unit_words(a) ? FLASHRNN_POLL_DELAY_LSTM_BF16 : FLASHRNN_POLL_DELAY_AUTO;
}

extern "C" size_t flashrnn_fused_xchg_bytes(const flashrnn_fused_args *a)
{
    const size_t word = a->dtype != LOGT_BF16 ? 8 : unit_words(a) ? 2 : 4;   /* Tagged<float>, TaggedUnit, Tagged<bf16> */
    return (size_t)2 * a->B * a->H * a->dh * word;
}

/* With clusters, the cell's own stores (one per value and block) while a cell thread makes at
 * most 16 of them a step, else the block's copy after a barrier (unless args.cluster_store
 * says); a spread cell (one position a thread) always stores its own. Measured at D = 768,
 * B = 16, T = 1024 (flashrnn-cluster-store, lstm, ms, cell against copy). At ec5919b, before
 * spread: f32, dh = 256 (16 blocks, 60 stores a cell thread forward), forward 3.73 against
 * 3.35, fwd+bwd 12.6 against 9.85; f32 dh = 128 fwd+bwd 8.52 against 7.16; in bf16 within 5%
 * either way. At e92967e, spread wherever warps_k >= 4: the cell's stores win every such
 * row, bf16 dh = 256 1.93 / 4.96 against 2.23 / 6.02, f32 dh = 256 2.25 / 6.98 against
 * 2.61 / 8.10, f32 dh = 128 1.97 / 5.72 against 2.17 / 6.40; unspread (bf16 dh = 128, twins)
 * the copy still wins, 2.19 / 5.15 against 2.27 / 5.39. */
extern "C" int flashrnn_fused_cluster_copy(const flashrnn_fused_args *a, const flashrnn_tiling *t,
                                           flashrnn_pass pass)
{
    if (!t->cluster) return 0;
    if (a->cluster_store) return a->cluster_store == FLASHRNN_STORE_COPY;
    if (flashrnn_fused_cell_spread(a, t)) return 0;
    const int stores = (4 / t->cell_split) * (pass == FLASHRNN_FORWARD ? 1 : a->G) * (t->blocks_per_head - 1);
    return stores > 16;
}

/* Spread or not (Geo::spread). AUTO spreads from warps_k = 4 up. Measured at D = 768, B = 16,
 * T = 1024 (flashrnn-headdim with cell_spread = off, on; ms, off against on): wk = 12 (dh =
 * 768 bf16, grid) lstm forward 3.65 against 2.90, fwd+bwd 8.82 against 7.49; wk = 4 and 8
 * (dh = 256, f32 dh = 128, clusters) 8-25% faster; wk = 2 (dh = 128 bf16, twins) slower,
 * lstm forward 2.23 against 2.59 (results/flashrnn-split-versions-h200.txt). */
extern "C" int flashrnn_fused_cell_spread(const flashrnn_fused_args *a, const flashrnn_tiling *t)
{
    if (t->warps_k < 2 || t->warps_k * t->cell_split < 4) return 0;
    if (a->cell_spread == FLASHRNN_SPREAD_AUTO) return t->warps_k >= 4;
    return a->cell_spread == FLASHRNN_SPREAD_ON;
}

/* Whether tiling t's pass can run with 1 or 2 gates a warp: the forward of an lstm in bf16
 * whose head is split through global memory (grid) into blocks of one group of 16 units for
 * 8 batch rows, spread over warps_k = dh / 64 warps, 4, 8 or 12 (the dense head of 768:
 * 12; the kernel's sums are unrolled for at most 12). */
static int warp_gates_fit(const flashrnn_fused_args *a, const flashrnn_tiling *t, flashrnn_pass pass)
{
    return pass == FLASHRNN_FORWARD && a->dtype == LOGT_BF16 && a->G == 4 && t->blocks_per_head > 1
           && !t->cluster && t->batch_tile == 8 && t->heads_per_block * a->dh == 16 * t->blocks_per_head
           && t->cell_split == 1 && t->warps_k % 4 == 0 && t->warps_k <= 12 && a->dh == 64 * t->warps_k
           && flashrnn_fused_cell_spread(a, t);
}

extern "C" int flashrnn_fused_warp_gates(const flashrnn_fused_args *a, const flashrnn_tiling *t,
                                         flashrnn_pass pass)
{
    if (!warp_gates_fit(a, t, pass)) return a->G;
    /* AUTO: 1. Dense lstm bf16 forward, D = 768, B = 16, T = 1024, ms, all / 2 / 1 in the
     * same calls: 2.270 / 2.236 / 2.229, 2.270 / 2.248 / 2.264, 2.311 / 2.279 / 2.219; another
     * call all 2.291, 2.294 against 1 2.248, 2.239 (fwd+bwd 5.79-5.82 against 5.72-5.79).
     * The probe build: 3920 cycles a step against 3640, the products 570 against 845 (the
     * ldmatrix reads of h are 4 times as many), the partial sums' stores and barrier 232
     * against 64, their adding 640 against 380, the cell 396 against 297
     * (results/flashrnn-split-versions-h200.txt). */
    switch (a->warp_gates) {
    case FLASHRNN_WARP_GATES_ALL: return a->G;
    case FLASHRNN_WARP_GATES_2: return 2;
    default: return 1;   /* AUTO, 1 */
    }
}

static void problem_of(const flashrnn_fused_args *a, flashrnn_pass pass, flashrnn_problem *p)
{
    memset(p, 0, sizeof *p);
    p->B = a->B, p->H = a->H, p->dh = a->dh, p->G = a->G;
    p->dtype_bytes = dtype_bytes(a->dtype), p->pass = pass;
    p->k_slices = flashrnn_fused_k_slices(a->G, p->dtype_bytes);
    p->head_sync = a->head_sync;
}

/* The launch geometry of tiling t for a's problem and pass, and its kernel (NULL: none). */
static const Instance *geometry(const flashrnn_fused_args *a, const flashrnn_tiling *t,
                                flashrnn_pass pass, Geo *g, flashrnn_smem *s)
{
    flashrnn_problem p;
    problem_of(a, pass, &p);
    flashrnn_smem_layout(&p, t->heads_per_block, t->blocks_per_head, t->batch_tile, t->warps_k, s);
    g->hpb = t->heads_per_block, g->bph = t->blocks_per_head, g->bt = t->batch_tile, g->wk = t->warps_k;
    g->split = t->cell_split, g->cl = t->cluster > 0;
    g->push = flashrnn_fused_cluster_copy(a, t, pass);
    g->spread = flashrnn_fused_cell_spread(a, t);
    g->nbb = t->batch_blocks, g->U = t->heads_per_block * a->dh / t->blocks_per_head, g->gpb = g->U / 16;
    g->oprow = (pass == FLASHRNN_FORWARD ? a->dh : a->G * a->dh) + s->pad;
    g->nf = s->nf, g->nd = s->nd;
    g->op = s->op, g->pff = s->pff, g->pfd = s->pfd, g->state = s->state, g->red = s->red, g->bias = s->bias;
    g->mbar = s->mbar, g->mc = t->share;
    g->wgates = flashrnn_fused_warp_gates(a, t, pass);
    return a->dh % t->warps_k ? NULL : find(a->G, p.dtype_bytes, a->dh / t->warps_k);
}

/* The launch configuration of a cluster tiling (clusters of blocks_per_head blocks), its
 * kernel set up for it (shared memory opt-in, the non-portable cluster size). */
static logt_status cluster_config(kernel_fn k, const flashrnn_tiling *t, int size, size_t smem,
                                  cudaStream_t st, cudaLaunchConfig_t *cfg, cudaLaunchAttribute *attr)
{
    CUDA_TRY(cudaFuncSetAttribute((const void *)k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    if (size > 8)
        CUDA_TRY(cudaFuncSetAttribute((const void *)k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    *cfg = cudaLaunchConfig_t{};
    cfg->gridDim = dim3(t->grid), cfg->blockDim = dim3(t->threads);
    cfg->dynamicSmemBytes = smem, cfg->stream = st;
    attr->id = cudaLaunchAttributeClusterDimension;
    attr->val.clusterDim.x = size, attr->val.clusterDim.y = 1, attr->val.clusterDim.z = 1;
    cfg->attrs = attr, cfg->numAttrs = 1;
    return LOGT_OK;
}

/* How many clusters of `size` blocks of tiling t the GPU can hold at once
 * (cudaOccupancyMaxActiveClusters; 0 where it refuses the size). */
static logt_status clusters_resident(const flashrnn_fused_args *a, const flashrnn_tiling *t,
                                     flashrnn_pass pass, int size, int *n)
{
    Geo g;
    flashrnn_smem s;
    const Instance *in = geometry(a, t, pass, &g, &s);
    *n = 0;
    if (!in) return LOGT_OK;
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr;
    kernel_fn k = kernel_of(in, pass, t->blocks_per_head);
    LOGT_TRY(cluster_config(k, t, size, (size_t)s.total, 0, &cfg, &attr));
    cudaError_t e = cudaOccupancyMaxActiveClusters(n, (const void *)k, &cfg);
    if (e != cudaSuccess) (void)cudaGetLastError(), *n = 0;
    return LOGT_OK;
}

/* With head_sync = grid, the backward's clusters that share its reload (flashrnn_fused.h,
 * grid_share): the largest size of 16, 8, 4, 2 that divides blocks_per_head, with which the
 * GPU holds the whole grid at once (the launch is cooperative as well), where each warp
 * reloads its own k slice (warps_k > 1, no twins). Measured at D = 768, B = 16, T = 1024
 * (dense lstm bf16, 48 blocks a head in clusters of 16): the reload shared took the
 * backward from 4.42 to 3.87 ms. */
static logt_status choose_share(const flashrnn_fused_args *a, flashrnn_pass pass, flashrnn_tiling *t)
{
    t->share = 0;
    if (pass != FLASHRNN_BACKWARD || !t->grid_sync || a->grid_share == FLASHRNN_SHARE_OFF) return LOGT_OK;
    const int own = t->warps_k > 1 && t->cell_split == 1;
    for (int size = 16; own && size >= 2; size /= 2) {
        if (t->blocks_per_head % size) continue;
        int n;
        LOGT_TRY(clusters_resident(a, t, pass, size, &n));
        if ((int64_t)n * size >= t->grid) {
            t->share = size;
            return LOGT_OK;
        }
    }
    if (a->grid_share == FLASHRNN_SHARE_ON)
        return LOGT_FAIL(LOGT_EUNSUPPORTED,
                         "flashrnn: grid_share = on, but no cluster of 16, 8, 4 or 2 blocks of the "
                         "backward tiling (%d blocks a head, %d blocks, warps_k %d, cell_split %d) %s: "
                         "use grid_share = auto or off",
                         t->blocks_per_head, t->grid, t->warps_k, t->cell_split,
                         own ? "divides the head and lets the GPU hold the whole grid at once"
                             : "can share its reload (that needs warps_k > 1 and cell_split = 1)");
    return LOGT_OK;
}

extern "C" logt_status flashrnn_fused_plan(const flashrnn_fused_args *a, flashrnn_pass pass,
                                           flashrnn_tiling *t)
{
    if (a->dtype != LOGT_BF16 && a->dtype != LOGT_F32)
        return LOGT_FAIL(LOGT_EUNSUPPORTED, "flashrnn fused kernels take bf16 or f32, not %s",
                         logt_dtype_name(a->dtype));
    flashrnn_problem p;
    problem_of(a, pass, &p);
    p.cell_split = a->cell_split;
    if (a->warps_k > 0) {   /* a fixed warps_k: only its k_slice is offered */
        const int ks = a->dh % a->warps_k ? 0 : a->dh / a->warps_k;
        p.k_slices &= ks % 16 == 0 && ks <= FLASHRNN_MAX_KSLICE ? 1u << (ks / 16) : 0u;
        if (!p.k_slices)
            return LOGT_FAIL(LOGT_EUNSUPPORTED,
                             "flashrnn: warps_k = %d with dh = %d gives a k_slice of %d/%d, for "
                             "which no %s %s kernel is compiled: choose warps_k so that dh / "
                             "warps_k is one of the compiled k_slices (multiples of 16 up to %d)",
                             a->warps_k, a->dh, a->dh, a->warps_k, a->G == 4 ? "lstm" : "gru",
                             logt_dtype_name(a->dtype), a->dtype == LOGT_BF16 ? 64 : 32);
    }
    for (int i = 0; i < N_INSTANCES; i++) {   /* the real register counts (the model caches the plan per B) */
        const Instance *in = &INSTANCES[i];
        if (in->id.G != p.G || in->id.dtype_bytes != p.dtype_bytes) continue;
        for (int k = 0; k < 4; k++) {   /* the largest of the whole-head, split-head and gates kernels' */
            const kernel_fn f = kernel_of(in, pass, k ? 2 : 1, k - 1);
            if (!f) continue;
            cudaFuncAttributes fa;
            CUDA_TRY(cudaFuncGetAttributes(&fa, (const void *)f));
            int *r = &p.regs[in->id.k_slice / 16];
            if (fa.numRegs > *r) *r = fa.numRegs;
        }
    }
    flashrnn_device dev;
    LOGT_TRY(flashrnn_device_query(&dev));
#if !defined(LOGT_CUDA_ARCH) || LOGT_CUDA_ARCH < 90
    dev.max_cluster = 0;   /* built for a GPU without clusters: the kernels have no cluster path */
#endif
    LOGT_TRY(flashrnn_tune(&dev, &p, t));
    if ((a->warp_gates == FLASHRNN_WARP_GATES_1 || a->warp_gates == FLASHRNN_WARP_GATES_2)
        && pass == FLASHRNN_FORWARD && !warp_gates_fit(a, t, pass))
        return LOGT_FAIL(LOGT_EUNSUPPORTED,
                         "flashrnn: warp_gates = %d, but the forward's tiling (%d blocks a head, batch tile "
                         "%d, warps_k %d, %s) has none: that is an lstm in bf16 whose head is split "
                         "through global memory into blocks of 16 units, 8 batch rows and dh / 64 "
                         "warps (a multiple of 4). Use warp_gates = auto or all",
                         a->warp_gates == FLASHRNN_WARP_GATES_1 ? 1 : 2, t->blocks_per_head,
                         t->batch_tile, t->warps_k, t->cluster ? "clusters" : "grid");
    if (!t->cluster) return dev.max_cluster ? choose_share(a, pass, t) : LOGT_OK;
    int resident;
    LOGT_TRY(clusters_resident(a, t, pass, t->cluster, &resident));
    if (resident > 0) return LOGT_OK;
    if (a->head_sync == FLASHRNN_SYNC_CLUSTER)
        return LOGT_FAIL(LOGT_EUNSUPPORTED,
                         "flashrnn: %s cannot place a cluster of %d blocks of %d threads and %lld "
                         "bytes of shared memory (cudaOccupancyMaxActiveClusters is 0), which the "
                         "%s pass with head_sync = cluster needs: use head_sync = grid or auto",
                         dev.name, t->cluster, t->threads, (long long)t->smem_per_block,
                         pass == FLASHRNN_FORWARD ? "forward" : "backward");
    p.head_sync = FLASHRNN_SYNC_GRID;   /* auto: the global barrier instead */
    LOGT_TRY(flashrnn_tune(&dev, &p, t));
    return choose_share(a, pass, t);
}

static logt_status launch(logt_ctx *ctx, const flashrnn_fused_args *a, const flashrnn_tiling *t,
                          flashrnn_pass pass)
{
    LOGT_TRY(logt_ctx_require_cuda(ctx, "flashrnn fused kernel"));
    Geo g;
    flashrnn_smem s;
    const Instance *in = geometry(a, t, pass, &g, &s);
    if (!in)
        return LOGT_FAIL(LOGT_EUNSUPPORTED,
                         "flashrnn: no fused kernel for %s %s with k_slice dh/warps_k = %d/%d; the "
                         "instantiated ones are in kernels/flashrnn_fused.cu",
                         a->G == 4 ? "lstm" : "gru", logt_dtype_name(a->dtype), a->dh, t->warps_k);
    if (t->cluster && t->cluster != t->blocks_per_head)
        return LOGT_FAIL(LOGT_EINVAL, "flashrnn: a cluster of %d blocks for a head split over %d: "
                         "plan the tiling with flashrnn_fused_plan", t->cluster, t->blocks_per_head);
    kernel_fn k = kernel_of(in, pass, t->blocks_per_head, g.wgates);
    const int threads = g.gpb * g.wk * g.split * 32;
    if (threads != t->threads || (int64_t)t->grid != (int64_t)(a->H / g.hpb) * g.bph * g.nbb)
        return LOGT_FAIL(LOGT_EINVAL, "flashrnn: the tiling does not match the problem (threads %d "
                         "vs %d, grid %d): plan it with flashrnn_fused_plan", threads, t->threads, t->grid);
    cudaStream_t st = (cudaStream_t)ctx->stream;
    if (g.cl) {   /* one cluster per split head and batch tile: no grid-wide residency needed */
        cudaLaunchConfig_t cfg;
        cudaLaunchAttribute attr;
        LOGT_TRY(cluster_config(k, t, t->cluster, (size_t)s.total, st, &cfg, &attr));
        CUDA_TRY(cudaLaunchKernelEx(&cfg, k, *a, g));
        return LOGT_OK;
    }
    CUDA_TRY(cudaFuncSetAttribute((const void *)k, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  (int)s.total));
    if (g.bph > 1) {
        if (pass == FLASHRNN_FORWARD ? !a->xchg : !a->sync)
            return LOGT_FAIL(LOGT_EINVAL, "flashrnn: a split head needs the exchange words (args.xchg) "
                             "forward and the counters (args.sync) backward");
        if (pass == FLASHRNN_BACKWARD && (uint64_t)g.bph * (uint64_t)a->T >= ((uint64_t)1 << 32))
            return LOGT_FAIL(LOGT_EUNSUPPORTED,
                             "flashrnn: a head split over %d blocks counts %d·T steps in 32 bits in the "
                             "backward: T = %d is too long for it (at most %llu)", g.bph, g.bph, a->T,
                             (unsigned long long)((((uint64_t)1 << 32) - 1) / g.bph));
        if ((int64_t)a->B * a->H * a->dh >= INT32_MAX)
            return LOGT_FAIL(LOGT_EUNSUPPORTED,
                             "flashrnn: a split head's exchange indexes B·D = %lld words in 32 bits: "
                             "B = %d is too large for it (at most %lld)", (long long)a->B * a->H * a->dh,
                             a->B, (long long)(INT32_MAX - 1) / ((int64_t)a->H * a->dh));
        if (pass == FLASHRNN_FORWARD) CUDA_TRY(cudaMemsetAsync(a->xchg, 0, flashrnn_fused_xchg_bytes(a), st));
        else CUDA_TRY(cudaMemsetAsync(a->sync, 0, (size_t)t->grid / g.bph * sizeof(unsigned), st));
        cudaError_t e;
        if (g.mc > 1) {   /* cooperative, in clusters of mc sharing the step's reads */
            if (g.bph % g.mc)
                return LOGT_FAIL(LOGT_EINVAL, "flashrnn: clusters of %d for a head split over %d blocks: "
                                 "plan the tiling with flashrnn_fused_plan", g.mc, g.bph);
            cudaLaunchConfig_t cfg;
            cudaLaunchAttribute attr[2];
            LOGT_TRY(cluster_config(k, t, g.mc, (size_t)s.total, st, &cfg, &attr[0]));
            attr[1].id = cudaLaunchAttributeCooperative, attr[1].val.cooperative = 1;
            cfg.attrs = attr, cfg.numAttrs = 2;
            e = cudaLaunchKernelEx(&cfg, k, *a, g);
        } else {
            void *params[] = {(void *)a, (void *)&g};
            e = cudaLaunchCooperativeKernel((const void *)k, dim3(t->grid), dim3(threads), params,
                                            (size_t)s.total, st);
        }
        if (e == cudaErrorCooperativeLaunchTooLarge) {
            (void)cudaGetLastError();
            return LOGT_FAIL(LOGT_EUNSUPPORTED,
                             "flashrnn: the %d blocks of a split-head tiling are not all resident "
                             "at once on this GPU (the tuner counted %d per SM)",
                             t->grid, t->blocks_per_sm);
        }
        CUDA_TRY(e);
#ifdef FLASHRNN_PROBE
        {   /* the probe's cycles per step, phase by phase: block 0, the mean and max over blocks */
            static long long hp[2][256][PROBE_PHASES];
            CUDA_TRY(cudaStreamSynchronize(st));
            CUDA_TRY(cudaMemcpyFromSymbol(hp, flashrnn_probe, sizeof hp));
            const int pi = pass == FLASHRNN_FORWARD ? 0 : 1, nb = t->grid < 256 ? t->grid : 256;
            fprintf(stderr, "probe %s dh=%d grid=%d cycles/step:", pi ? "bwd" : "fwd", a->dh, t->grid);
            long long tot = 0;
            for (int k = 0; k < PROBE_PHASES; k++) {
                double mean = 0, mx = 0;
                for (int b = 0; b < nb; b++) {
                    double v = (double)hp[pi][b][k] / a->T;
                    mean += v / nb, mx = v > mx ? v : mx;
                }
                tot += hp[pi][0][k];
                fprintf(stderr, " p%d %.0f (mean %.0f max %.0f)", k, (double)hp[pi][0][k] / a->T, mean, mx);
            }
            long long ns[2];
            CUDA_TRY(cudaMemcpyFromSymbol(ns, flashrnn_probe_ns, sizeof ns));
            fprintf(stderr, " total %.0f; block 0's loop %.1f ns/step (%.2f GHz)\n", (double)tot / a->T,
                    (double)ns[pi] / a->T, (double)tot / (double)ns[pi]);
        }
#endif
    } else {
        k<<<t->grid, threads, (size_t)s.total, st>>>(*a, g);
        LAUNCH_TRY();
    }
    return LOGT_OK;
}

extern "C" logt_status flashrnn_fused_forward(logt_ctx *ctx, const flashrnn_fused_args *a,
                                              const flashrnn_tiling *t)
{
    flashrnn_fused_args ar = *a;   /* the kernel spins poll_delay cycles: never a negative (auto) */
    ar.poll_delay = flashrnn_fused_poll_delay(a);
    return launch(ctx, &ar, t, FLASHRNN_FORWARD);
}

extern "C" logt_status flashrnn_fused_backward(logt_ctx *ctx, const flashrnn_fused_args *a,
                                               const flashrnn_tiling *t)
{
    return launch(ctx, a, t, FLASHRNN_BACKWARD);
}
