/* fused_common.cuh — what the forward and backward fused kernels share: the tensor-core
 * fragments, the asynchronous copies, a launch's geometry (Geo) and the reduction slots.
 * The C API and the layouts are fused.h; the kernels fused_forward.cu and fused_backward.cu;
 * a split head's exchange exchange.cuh.
 *
 * The work of one block (the tiling from tune.h): hpb heads, or a 1/bph part of one head,
 * for bt batch rows. Its U = hpb·dh/bph hidden units come in unit groups of 16; every group
 * has wk warps, and warp (group, kw) keeps in registers the slice of R it contracts:
 *
 *   forward   gates[16 units × G][bt] += R^T[group's G strips][dh slice kw] · h_{t-1}^T
 *             (mma M = the 16 units of one gate, K = dh / wk = KS, N = 8 batch rows)
 *   backward  dh_{t-1}[16 units][bt]    += R[group's units][gate slice kw] · dra_t^T
 *             (M = the 16 units, K = G·dh / wk = G·KS gate columns, N = 8 batch rows)
 *
 * An mma's C fragment gives a lane the same four (unit, batch row) positions in both passes:
 * units r0 and r0 + 8 of its group (r0 = lane/4) × rows 2·(lane%4) and +1 of the 8-row tile.
 * The forward's fragments hold every gate of those units, so the cell (flashrnn_cell.cuh)
 * runs where the products land; the backward's hold dL/dh_{t-1} of the same positions, so
 * the cell's backward finds its input in place too. The wk warps of a group add their
 * partial sums in shared memory and warp kw = 0 runs the cell, or, spread (Geo::spread,
 * from wk = 4), the group's first 4 warps add them and run the cell for one of the 128
 * positions a thread: a quarter of the chain (at wk = 2, or shared by all wk warps, slower:
 * experiments/flashrnn-headdim, Design notes). With cell_split = 2 each warp has a twin that
 * makes the same products and runs the cell for the other half of the positions (units
 * r0 + 8): a step is one warp's chain of dependent instructions (one warp per scheduler),
 * and the twin halves the cell's part of it.
 */
#ifndef LOGT_FLASHRNN_FUSED_COMMON_CUH
#define LOGT_FLASHRNN_FUSED_COMMON_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#include "flashrnn_cell.cuh"
#include "fused.h"

typedef __nv_bfloat16 bf16;
typedef __half f16;

/* ---- tensor-core fragments -------------------------------------------------------------
 * mma.sync row.col: A [16][K] row-major (K = 16 bf16 or f16, 8 tf32), B [K][8], C [16][8] fp32.
 * A register i of a lane holds row lane/4 + 8·(i & 1); columns as below. */
template <typename T> struct Frag;

__device__ __forceinline__ uint32_t pack_bf16(float lo, float hi)
{
    __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<uint32_t *>(&v);
}
__device__ __forceinline__ uint32_t pack_f16(float lo, float hi)
{
    __half2 v = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<uint32_t *>(&v);
}
__device__ __forceinline__ uint32_t pack16(bf16 *, float lo, float hi) { return pack_bf16(lo, hi); }
__device__ __forceinline__ uint32_t pack16(f16 *, float lo, float hi) { return pack_f16(lo, hi); }
__device__ __forceinline__ uint32_t to_tf32(float x)
{
    uint32_t r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
    return r;
}

/* 16-bit data (bf16, f16): one fragment layout, K tile 16; only the packing of two values and
 * the mma's operand type differ (Frag<bf16>, Frag<f16>). */
template <typename T> struct Frag16 {
    static constexpr int KT = 16;
    template <class At> static __device__ __forceinline__ void a(uint32_t (&r)[4], int lane, At at)
    {
#pragma unroll
        for (int i = 0; i < 4; i++) {
            int row = (lane >> 2) + 8 * (i & 1), col = (lane & 3) * 2 + 8 * (i >> 1);
            r[i] = pack16((T *)nullptr, at(row, col), at(row, col + 1));
        }
    }
    /* p: the operand at [n = 0][k0], rows of L elements, stored [n][k]. */
    static __device__ __forceinline__ void b(uint32_t &b0, uint32_t &b1, const T *p, int L, int lane)
    {
        const T *q = p + (lane >> 2) * L + (lane & 3) * 2;
        b0 = *reinterpret_cast<const uint32_t *>(q);
        b1 = *reinterpret_cast<const uint32_t *>(q + 8);
    }
};

/* Frag<T> of a 16-bit T: Frag16's layout and the m16n8k16 mma on operands of PTX type TY. */
#define FLASHRNN_FRAG16(T, TY)                                                                  \
    template <> struct Frag<T> : Frag16<T> {                                                    \
        static __device__ __forceinline__ void mma(float (&d)[4], const uint32_t (&a)[4],       \
                                                   uint32_t b0, uint32_t b1)                    \
        {                                                                                       \
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f32." TY "." TY ".f32 "             \
                         "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"                \
                         : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                       \
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));       \
        }                                                                                       \
    };
FLASHRNN_FRAG16(bf16, "bf16")
FLASHRNN_FRAG16(f16, "f16")
#undef FLASHRNN_FRAG16

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

/* ---- asynchronous copies ----------------------------------------------------------------- */

__device__ __forceinline__ unsigned smem_addr(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

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

__device__ __forceinline__ unsigned long long globaltimer_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* ---- a launch's geometry ------------------------------------------------------------------ */

/* The tiling and the shared-memory layout (flashrnn_smem_layout), worked out by the launch. */
struct Geo {
    int hpb, bph, bt, wk, split, nbb, U, gpb, oprow, nf, nd;
    int cl;     /* 1: a split head's bph blocks are one cluster (consecutive block ids) */
    int push;   /* with cl: 1 push_to_cluster, 0 st_operand (exchange.cuh)               */
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
 * block adds the SM cycles of each phase of a step and the launch prints their means per step
 * for split heads, forward and backward, to stderr. Forward: p0 the fetch and products, p1 the
 * partial sums' stores and barrier, p5 a spreading thread's sums, p2 the cell, p3 the barrier
 * and poll of h (grid), p4 the step's end; backward: p4 the products and sums, p0 the cell,
 * p1 the counter barrier, p2 the reload, p3 the end barrier. The counts live in static shared
 * memory (36 bytes more a block; thread 0's alone), so that the phase functions reach them;
 * the sums of each pass's file (its own static copy) are read back by probe_read. Compare
 * its medians with the plain build's. */
#ifdef FLASHRNN_PROBE
#define PROBE_PHASES 6
static __device__ long long flashrnn_probe[2][256][PROBE_PHASES];
static __device__ long long flashrnn_probe_ns[2];   /* block 0: the nanoseconds of its step loop */
static __shared__ unsigned probe_acc[PROBE_PHASES], probe_last;   /* 32-bit: a step's phases are far below 2^32 cycles */
static __shared__ long long probe_t0;
#define PROBE_START do { if (threadIdx.x == 0) { for (int k_ = 0; k_ < PROBE_PHASES; k_++) probe_acc[k_] = 0; \
    probe_last = (unsigned)clock(), probe_t0 = (long long)globaltimer_ns(); } } while (0)
#define PROBE(k) do { if (threadIdx.x == 0) { unsigned c_ = (unsigned)clock(); probe_acc[k] += c_ - probe_last; probe_last = c_; } } while (0)
#define PROBE_END(pass) do { if (threadIdx.x == 0 && blockIdx.x < 256) { \
    for (int k_ = 0; k_ < PROBE_PHASES; k_++) flashrnn_probe[pass][blockIdx.x][k_] = probe_acc[k_]; \
    if (blockIdx.x == 0) flashrnn_probe_ns[pass] = (long long)globaltimer_ns() - probe_t0; } } while (0)
/* pass 0 forward, 1 backward: its sums cycles[block][phase] and block 0's loop in ns */
static inline cudaError_t probe_read(int pass, long long (*cycles)[PROBE_PHASES], long long *ns)
{
    const size_t n = sizeof flashrnn_probe[0];
    cudaError_t e = cudaMemcpyFromSymbol(cycles, flashrnn_probe, n, pass * n);
    return e != cudaSuccess ? e : cudaMemcpyFromSymbol(ns, flashrnn_probe_ns, sizeof *ns, pass * sizeof *ns);
}
#else
#define PROBE_START do { } while (0)
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

#endif
