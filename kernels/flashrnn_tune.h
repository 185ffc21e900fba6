/* flashrnn_tune.h — the tiling of the persistent head-wise LSTM/GRU kernels, chosen by a small
 * integer constraint solver (FlashRNN's "ConstrINT", in C). Pure C, no CUDA: testable on a CPU.
 *
 * The recurrence of one pass, per head (H heads of dh units, G gates: 4 lstm, 3 gru):
 *
 *   forward    gates_t[B][G·dh] = h_{t-1}[B][dh] · R[dh][G·dh]  + Wx_t      then the cell
 *   backward   dh_{t-1}[B][dh]  = dgates_t[B][G·dh] · R^T        (+ the direct gradient)
 *
 * R of every head is loaded on chip (registers + shared memory) once per pass and kept there
 * for all T steps. The solver picks how R, the batch and the warps are cut into blocks:
 *
 *   variables (domains)                                             meaning
 *   hpb  heads_per_block  ∈ divisors(H)                              heads one block owns
 *   bph  blocks_per_head  ∈ divisors(G·dh)                           a head's gate columns cut into bph blocks
 *   bt   batch_tile       ∈ multiples of 8 dividing B_pad            batch rows per block
 *   wn   warps_n          ∈ divisors(unit groups per block)          warps along the gate columns
 *   wk   warps_k          ∈ divisors(dh / 16)                        warps along dh (the forward's K)
 *   r    reg_strips       ∈ 0 .. strips per warp                     a warp's R strips kept in registers
 *
 * with gate_tile = G·dh / bph columns of R per block, B_pad = B rounded up to 8.
 * Constraints (need <= limit, all must hold): dh_mma_granularity, unit_groups_whole,
 * split_head_alone, threads_per_block, regs_per_thread (<= 255), regs_per_block (<= per SM),
 * smem_per_block (<= opt-in), smem_per_sm, threads_per_sm, co_resident_for_grid_sync.
 * Objective (lexicographic, each minimised): grid_sync, waves, step_cost (MACs on the busiest
 * SM per step / busy tensor units), blocks_per_head, R bytes in shared memory, warps_k; then
 * the first candidate found. Their definitions sit in flashrnn_tune.c, one table each, next
 * to the resource model; flashrnn_constraint_names() lists the constraints.
 *
 * ASSUMPTIONS a kernel built on this tiling must honour (the numbers are a model of that kernel;
 * when the kernel changes, change the model here, not the other way round):
 *  - Tensor cores: bf16 mma.sync m16n8k16 (fp32 accumulate); fp32 as tf32 m16n8k8. The gate
 *    columns are the mma M side (tiles of 16), dh is K, the batch is N (tiles of 8: bt is
 *    padded to 8). dh must be a multiple of 16 (bf16's K tile; and a strip, below, holds 16
 *    units), so every K slice dh/wk is a multiple of 16 for bf16 and of 8 for tf32.
 *  - Gate column order on chip: in unit groups. A group is 16 hidden units × G gates = G strips
 *    of 16 columns (strip g holds gate g of the group's 16 units), so a warp that owns a group
 *    has every gate of its units and the cell's pointwise math needs no exchange. A block owns
 *    whole groups: gate_tile is a multiple of 16·G.
 *  - A strip is 16 gate columns × dh/wk rows of R. Warp (n, k) owns the strips of its groups,
 *    rows slice k; r of its strips live in registers (as mma fragments), the rest in shared
 *    memory. The backward keeps exactly the forward's layout of R: it loads the same slices
 *    (read transposed from global memory once, at kernel start, in the fragment layout it
 *    needs) and computes dh_{t-1} = dgates · R^T from them; no second copy of R exists.
 *    dR and dW are not accumulated in the kernel: the backward stores dgates for all steps and
 *    they are one GEMM each afterwards (as in FlashRNN).
 *  - Registers per thread = 32 (addresses, loop state, pointwise temporaries; measure with
 *    -Xptxas -v and update FLASHRNN_BASE_REGS) + R fragments + fp32 accumulators of every output
 *    the warp produces in one step (forward: its strips' gate columns; backward: its dh/wk rows)
 *    × bt + the fp32 cell state of the block's units spread over the threads (lstm: c and h,
 *    gru: h). Allocation rounds registers per thread up to 8.
 *  - Shared memory per block = R not in registers + double-buffered mma operand (forward:
 *    h_{t-1} [bt][dh]; backward: dgates_t [bt][gate_tile]) in the dtype + double-buffered
 *    prefetch of the step's input (forward: Wx_t; backward: the saved gates) in the dtype +
 *    fp32 partial sums (forward, when wk > 1: gates over the wk warps; backward: dh over the
 *    wn warps), all per head × heads_per_block. CUDA reserves 1 KiB more per block and SM.
 *  - blocks_per_head > 1: a head's blocks exchange h (or dh partial sums) through global memory
 *    and a grid-wide barrier every step (cooperative launch, or a cluster when it fits one);
 *    such a grid must be resident all at once, which the solver checks.
 *  - blocks_per_head > 1 only with one head per block.
 *
 * Shapes: the grid is (H / hpb) · bph · (B_pad / bt) blocks of wn·wk warps.
 */
#ifndef LOGT_FLASHRNN_TUNE_H
#define LOGT_FLASHRNN_TUNE_H

#include <stddef.h>
#include <stdint.h>

#include "../core/cuda.h"
#include "../core/status.h"

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
} flashrnn_device;

typedef enum { FLASHRNN_FORWARD = 0, FLASHRNN_BACKWARD = 1 } flashrnn_pass;

typedef struct flashrnn_problem {
    int B;              /* batch                                   */
    int H;              /* heads                                   */
    int dh;             /* head dim; the hidden size is D = H·dh   */
    int G;              /* gates: 4 lstm, 3 gru                    */
    int dtype_bytes;    /* of R and the mma operands: 2 bf16, 4 fp32 */
    flashrnn_pass pass;
} flashrnn_problem;

/* The solver's answer: the decision variables, what they cost, and why. */
typedef struct flashrnn_tiling {
    /* decision variables */
    int heads_per_block, blocks_per_head, batch_tile, warps_n, warps_k, reg_strips;
    /* derived */
    int gate_tile;           /* columns of the head's [dh][G·dh] R per block: G·dh / blocks_per_head */
    int batch_blocks;        /* B_pad / batch_tile                                     */
    int threads;             /* warps_n · warps_k · warp_size                          */
    int grid;                /* (H / heads_per_block) · blocks_per_head · batch_blocks */
    int64_t r_bytes_regs;    /* R held in registers, per block                         */
    int64_t r_bytes_smem;    /* R held in shared memory, per block                     */
    int regs_per_thread;     /* the model's estimate, before rounding up to 8          */
    int64_t regs_per_block;  /* rounded as allocated                                   */
    int64_t smem_per_block;  /* bytes of dynamic shared memory to opt in to            */
    int blocks_per_sm;       /* resident blocks per SM (registers, smem, threads)      */
    int waves;               /* ceil(grid / (blocks_per_sm · SMs))                     */
    int grid_sync;           /* 1: a grid-wide barrier every step (blocks_per_head > 1) */
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

/* The names of the constraints, in the order they are checked, NULL-terminated. */
const char *const *flashrnn_constraint_names(void);

/* t as one line of key=value pairs ending in why="..." (no newline), for the results file.
 * Returns what snprintf returns. */
int flashrnn_tiling_format(const flashrnn_tiling *t, char *buf, size_t n);

#ifdef __cplusplus
}
#endif
#endif
