/* tune.h — the tiling of the persistent head-wise LSTM/GRU kernels (fused_*.cu), chosen by a
 * small integer constraint solver (FlashRNN's "ConstrINT", in C). Pure C, no CUDA: testable on
 * a CPU. Per head (H heads of dh units, G gates: 4 lstm, 3 gru) and step, the kernels compute
 *
 *   forward    gates_t[B][G·dh] = h_{t-1}[B][dh] · R[dh][G·dh]  + Wx_t      then the cell
 *   backward   dh_{t-1}[B][dh]  = dgates_t[B][G·dh] · R^T        (+ the direct gradient)
 *
 * with each head's R in registers for the whole pass. The solver picks how heads, batch and
 * warps are cut into blocks (B_pad = B rounded up to 8):
 *   hpb  heads_per_block  ∈ divisors(H)            heads one block owns
 *   bph  blocks_per_head  ∈ divisors(G·dh)         a head's units cut into bph blocks
 *   bt   batch_tile       ∈ 8 | bt | B_pad         batch rows per block
 *   wk   warps_k          ∈ divisors(dh / 16)      warps that share one unit group's contraction
 *   cs   cell_split       ∈ {1, 2}                 twins of each warp: the same products, each
 *                                                  runs the cell for 8 of the group's 16 units
 *   hs   head_sync        ∈ {grid, cluster}        how a split head's blocks meet each step:
 *                                                  through global memory (the grid launched
 *                                                  cooperatively, all blocks resident), or as one
 *                                                  thread-block cluster (bph <= max_cluster)
 * The kernel fixes warps_n = the block's unit groups (16 units × G gates; wk·cs warps each)
 * and reg_strips = G.
 * The model of it (derive in tune.c): mma tiles of 16 units × 8 batch rows, so dh is a multiple
 * of 16 and kernels exist only for the table's k_slices = dh / wk (problem.k_slices); R takes
 * G·16·k_slice·bytes/128 registers a thread, the rest is the kernel's real count (problem.regs)
 * or an estimate; shared memory is flashrnn_smem_layout below, which the kernels use too.
 * Constraints (need <= limit) and the lexicographic objective are one table each in tune.c,
 * with their reasons. The grid is (H / hpb) · bph · (B_pad / bt) blocks of warps_n·wk·cs warps.
 */
#ifndef LOGT_FLASHRNN_TUNE_H
#define LOGT_FLASHRNN_TUNE_H

#include <stddef.h>
#include <stdint.h>

#include "../../core/cuda.h"
#include "../../core/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the solver needs to know about the GPU (cudaGetDeviceProperties names in brackets). */
typedef struct flashrnn_device {
    char name[64];
    int sm_count;                /* [multiProcessorCount]                                  */
    int regs_per_sm;             /* 32-bit registers per SM [regsPerMultiprocessor]; also  */
                                 /* taken as the per-block limit (equal on sm_70..sm_90)   */
    int max_regs_per_thread;     /* 255                                                    */
    int max_threads_per_block;   /* [maxThreadsPerBlock] 1024                              */
    int max_threads_per_sm;      /* [maxThreadsPerMultiProcessor] 2048 on sm_80 and sm_90  */
    int max_blocks_per_sm;       /* [maxBlocksPerMultiProcessor] 32                        */
    int warp_size;               /* [warpSize] 32                                          */
    int smem_optin_per_block;    /* bytes a block may opt in to [sharedMemPerBlockOptin]   */
    int smem_per_sm;             /* bytes [sharedMemPerMultiprocessor]                     */
    int smem_reserved_per_block; /* bytes CUDA keeps per block [reservedSharedMemPerBlock] */
    int max_cluster;             /* blocks per thread-block cluster: 16 on sm_90 (the       */
                                 /* non-portable size), 0 before sm_90 (no clusters)        */
} flashrnn_device;

typedef enum { FLASHRNN_FORWARD = 0, FLASHRNN_BACKWARD = 1 } flashrnn_pass;

/* How the blocks of a split head meet every step (the problem's request; the tiling's choice). */
typedef enum { FLASHRNN_SYNC_ANY = 0, FLASHRNN_SYNC_GRID = 1, FLASHRNN_SYNC_CLUSTER = 2 } flashrnn_head_sync;

#define FLASHRNN_MAX_KSLICE 256   /* the largest k_slice the problem can name */

typedef struct flashrnn_problem {
    int B;              /* batch                                   */
    int H;              /* heads                                   */
    int dh;             /* head dim; the hidden size is D = H·dh   */
    int G;              /* gates: 4 lstm and slstm, 3 gru, 1 elman */
    int slstm;          /* 1: the sLSTM cell (G = 4)               */
    int dtype_bytes;    /* of R and the mma operands: 2 bf16 or f16, 4 fp32 */
    flashrnn_pass pass;
    /* What the compiled kernels offer (0: anything, the model's estimates):
     * k_slices  bit k set: a kernel with k_slice = dh / warps_k = 16·k is instantiated
     *           (flashrnn_fused_k_slices); warps_k is restricted to those;
     * regs[k]   that kernel's real registers per thread (cudaFuncGetAttributes), used
     *           instead of the model's estimate: the most of its whole-head and
     *           split-head kernels;
     * regs_split[k]  for tilings that split a head, the split-head kernels' own (0: regs[k]):
     *           a whole-head kernel is not register-capped and may take more (the
     *           slstm's cell at k_slice 64), which a split tiling does not pay.      */
    unsigned k_slices;
    int regs[FLASHRNN_MAX_KSLICE / 16 + 1];
    int regs_split[FLASHRNN_MAX_KSLICE / 16 + 1];
    int cell_split;     /* 0: the solver chooses; 1 or 2: only that cell_split */
    flashrnn_head_sync head_sync;   /* ANY: the solver chooses; GRID or CLUSTER: split heads
                                     * only that way (heads that fit one block are not split) */
} flashrnn_problem;

/* The dynamic shared memory of one block of the fused kernels, byte offsets of its parts
 * (each 16-byte aligned) and the total. Used by the tuner's model and by the kernels, so the
 * two cannot disagree. U = units per block = hpb·dh / bph; gpb = U / 16 unit groups.
 *   op     the mma's B operand, double-buffered, rows padded by 16 bytes (no bank conflicts):
 *          forward h_{t-1} [2][hpb][bt][dh + pad]; backward dL/d(R h) [2][hpb][bt][G·dh + pad]
 * The [bt][U] arrays below have rows of U + 16 bytes (U + 4 fp32, U + pad dtype), so that the
 * lanes of an mma fragment, which sit 2 rows apart, fall in distinct banks.
 *   pff    fp32 inputs of the coming steps, prefetched (cp.async), [STAGES][nf][bt][U]:
 *          forward W x (nf = G); backward the saved gates (4) and, lstm, c_t and c_{t-1};
 *          slstm: its 5 saved values, c_t, n_t, c_{t-1}, n_{t-1}; elman: h_t
 *   pfd    dtype inputs of the coming steps, backward only, [STAGES][nd][bt][U]: dH and, gru, h_{t-1}
 *   state  fp32 per unit and batch row: forward lstm c [bt][U] (unused by the gru), slstm
 *          c, n, m [3][bt][U]; backward [2][bt][U] (what reaches h_{t-1} from step t, and
 *          dL/dc), slstm [3][bt][U] (and dL/dn)
 *   red    fp32 partial sums of the warps_k warps of a group, [2][gpb][wk][outs][160]
 *          (outs 4 forward, 1 backward; the layout within: RED_SLOT in fused_common.cuh),
 *          when wk > 1
 *   bias   forward: fp32 biases of the block's units, b [G][U] then bn [U]
 *   mbar   backward, wk > 1: one 8-byte mbarrier per warp k slice, [wk], where the reload of
 *          dL/d(R h) arrives by the copy engine (a split head's blocks sharing it in clusters) */
typedef struct flashrnn_smem { int64_t op, pff, pfd, state, red, bias, mbar, total; int pad, nf, nd; } flashrnn_smem;

/* Steps whose inputs are in flight or ready: the step's own and FLASHRNN_STAGES - 1 ahead
 * (a step takes about one DRAM round trip; three ahead hide it with room to spare). */
#define FLASHRNN_STAGES 4

static inline void flashrnn_smem_layout(const flashrnn_problem *p, int hpb, int bph, int bt, int wk,
                                        flashrnn_smem *s)
{
    const int64_t U = (int64_t)hpb * p->dh / bph, gpb = U / 16, by = p->dtype_bytes;
    const int fwd = p->pass == FLASHRNN_FORWARD, lstm = p->G == 4, sl = p->slstm;
    s->pad = 16 / p->dtype_bytes;
    s->nf = fwd ? p->G : sl ? 5 + 4 : p->G == 1 ? 1 : 4 + (lstm ? 2 : 0);
    s->nd = fwd ? 0 : 1 + (p->G == 3);
    const int64_t oprow = (fwd ? p->dh : (int64_t)p->G * p->dh) + s->pad;
    int64_t at = 0;
#define FLASHRNN_SMEM_PART(field, bytes) s->field = at, at += ((bytes) + 15) / 16 * 16
    FLASHRNN_SMEM_PART(op, 2 * hpb * bt * oprow * by);
    FLASHRNN_SMEM_PART(pff, FLASHRNN_STAGES * s->nf * bt * (U + 4) * 4);
    FLASHRNN_SMEM_PART(pfd, FLASHRNN_STAGES * s->nd * bt * (U + s->pad) * by);
    FLASHRNN_SMEM_PART(state, (sl ? 3 : fwd ? (lstm ? 1 : 0) : 2) * bt * (U + 4) * 4);
    FLASHRNN_SMEM_PART(red, wk > 1 ? 2 * gpb * wk * (fwd ? 4 : 1) * 8 * 20 * 4 : 0);   /* RED_SLOT */
    FLASHRNN_SMEM_PART(bias, fwd ? (p->G + 1) * U * 4 : 0);   /* forward: b, bn */
    FLASHRNN_SMEM_PART(mbar, !fwd && wk > 1 ? 8 * wk : 0);
#undef FLASHRNN_SMEM_PART
    s->total = at;
}

/* The solver's answer: the decision variables, what they cost, and why. */
typedef struct flashrnn_tiling {
    /* decision variables */
    int heads_per_block, blocks_per_head, batch_tile, warps_n, warps_k, reg_strips, cell_split;
    /* derived */
    int gate_tile;           /* columns of the head's [dh][G·dh] R per block: G·dh / blocks_per_head */
    int batch_blocks;        /* B_pad / batch_tile                                     */
    int threads;             /* warps_n · warps_k · cell_split · warp_size             */
    int grid;                /* (H / heads_per_block) · blocks_per_head · batch_blocks */
    int64_t r_bytes_regs;    /* R held in registers, per block                         */
    int64_t r_bytes_smem;    /* R held in shared memory, per block                     */
    int regs_per_thread;     /* the model's estimate, before rounding up to 8          */
    int64_t regs_per_block;  /* rounded as allocated                                   */
    int64_t smem_per_block;  /* bytes of dynamic shared memory to opt in to            */
    int blocks_per_sm;       /* resident blocks per SM (registers, smem, threads)      */
    int waves;               /* ceil(grid / (blocks_per_sm · SMs))                     */
    int grid_sync;           /* 1: an exchange every step through global memory among    */
                             /* the blocks of each head and batch tile (head_sync = grid) */
    int cluster;             /* blocks per thread-block cluster: blocks_per_head when a  */
                             /* split head's blocks are one cluster, else 0             */
    int share;               /* grid_sync, backward: the head's blocks launched in       */
                             /* clusters of this many, which share the step's reload     */
                             /* (multicast copies); 0 none. Set by flashrnn_fused_plan,  */
                             /* not the tuner (fused.h, grid_share)                     */
    char why[256];           /* one sentence for the record; on failure, what failed   */
    /* set when nothing fits (flashrnn_tune returned LOGT_EUNSUPPORTED) */
    const char *failed;      /* the constraint the closest candidate broke, or NULL     */
    int max_dh;              /* largest dh (same B, H, G, dtype, pass, device) that fits, 0: none */
} flashrnn_tiling;

/* The H200 as the tests know it: 132 SMs, 65536 registers/SM, 227 KiB opt-in per block,
 * 228 KiB per SM, 1 KiB reserved per block, 2048 threads and 32 blocks per SM. */
void flashrnn_device_h200(flashrnn_device *dev);

/* Fill dev from core/cuda.h's logt_device_info (name, SMs, registers/SM, smem opt-in); what it
 * does not carry comes from the compute capability: threads per SM (1024 on 7.5, 1536 on 8.6
 * and 8.9, 2048 otherwise), 32 blocks per SM (16 on 7.5, 8.6, 8.9), shared memory per SM =
 * opt-in + 1 KiB (the reserved block share), 255 registers/thread, 1024 threads, warps of 32. */
void flashrnn_device_from_info(const logt_device_info *info, flashrnn_device *dev);

#ifdef LOGT_HAVE_CUDA
/* flashrnn_device_from_info on the current device (logt_cuda_info). */
logt_status flashrnn_device_query(flashrnn_device *dev);
#endif

/* Pick the tiling for p on dev. LOGT_OK: *t holds a tiling that meets every constraint and is
 * best by the objective. LOGT_EINVAL: p or dev makes no sense (B, H, dh < 1, G not 3 or 4,
 * dtype_bytes not 2 or 4, ...). LOGT_EUNSUPPORTED: nothing fits; t->failed names the constraint
 * the closest candidate broke, t->max_dh the largest dh that fits (0: none), and the message
 * (logt_errmsg) says both. Deterministic: the same input gives the same output. */
logt_status flashrnn_tune(const flashrnn_device *dev, const flashrnn_problem *p, flashrnn_tiling *t);

/* The largest multiple of 16, not above p->dh, for which
 * flashrnn_tune finds a tiling with p's other sizes on dev; 0 when none does. */
int flashrnn_max_dh(const flashrnn_device *dev, const flashrnn_problem *p);

/* The cell of G gates (and slstm) by name, for messages: slstm, lstm, gru or elman. */
const char *flashrnn_fused_cell_name(int G, int slstm);

/* The names of the constraints, in the order they are checked, NULL-terminated. */
const char *const *flashrnn_constraint_names(void);

/* t as one line of key=value pairs ending in why="..." (no newline), for the results file.
 * Returns what snprintf returns. */
int flashrnn_tiling_format(const flashrnn_tiling *t, char *buf, size_t n);

#ifdef __cplusplus
}
#endif
#endif
