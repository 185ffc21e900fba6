/* fused.h — the persistent fused kernels of the head-wise LSTM / GRU / sLSTM (one launch per pass runs
 * all T steps), for C callers. The model around them is flashrnn_cuda.cu; the tiling comes from
 * tune.h; the kernels are fused_forward.cu and fused_backward.cu (their design and bounds:
 * fused_common.cuh, exchange.cuh), launched by fused_launch.cu.
 *
 * Layouts (row-major, time-major; D = H·dh, gate-major columns as in flashrnn.h):
 *   wx     [T][B][G·D]  fp32  W x_t (no bias: the kernel adds b and, gru, bn)
 *   R      [H][dh][G·dh] dtype (bf16 or f16, or fp32 used as tf32 by the tensor cores)
 *   h0, c0 [B][D]       dtype (never NULL: zeros when the model has no initial state)
 *   h      [T][B][D]    dtype out
 *   s      [T][B][4·D]  fp32 out: the saved gates (lstm i f g o; gru r z n rn)
 *   c      [T][B][D]    fp32 out (lstm)
 * The slstm (G = 4, flashrnn_cell.cuh's SlstmCell) keeps s [T][B][5·D] and its states c, n, m
 * in c [T][B][3·D], starting from st0 [B][3·D] fp32 (not h0's dtype: n0 and m0 are the
 * model's own, flashrnn_set_slstm_state). The elman (G = 1) keeps s [T][B][D] (h in fp32) and
 * no states. The alternating path (alternating.h) takes the same arguments.
 * Backward reads those and dH [T][B][D] (dtype), writes dxa = dL/d(W x + b) and, for the gru,
 * dra = dL/d(R h) [T][B][G·D] in the dtype (for the other cells dra is dxa; the
 * weight-gradient GEMMs read them), and dh0, dc0 (dtype, may be NULL), and for the slstm
 * dst0 [B][3·D] fp32, dL/d(c, n, m before step 0); it starts from dhT, dcT where given.
 */
#ifndef LOGT_FLASHRNN_FUSED_H
#define LOGT_FLASHRNN_FUSED_H

#include <stdint.h>

#include "../../core/ctx.h"
#include "../../core/status.h"
#include "../../core/tensor.h"
#include "tune.h"

#ifdef __cplusplus
extern "C" {
#endif

/* With head_sync = cluster: the cell stores each value into every block of the cluster
 * (CELL), or each block copies its part to the others after a block barrier (COPY). */
typedef enum { FLASHRNN_STORE_AUTO = 0, FLASHRNN_STORE_CELL = 1, FLASHRNN_STORE_COPY = 2 } flashrnn_cluster_store;

/* Where a unit group's wk > 1 warps split the contraction: warp kw = 0 adds their partial
 * sums and runs the cell for all 128 (unit, batch row) positions of the group, 4 a lane
 * (OFF), or the group's first 4 warps do, one position a thread, so that the step's chain
 * of instructions is a quarter as long (ON; only where the group has at least 4 warps). */
typedef enum { FLASHRNN_SPREAD_AUTO = 0, FLASHRNN_SPREAD_OFF = 1, FLASHRNN_SPREAD_ON = 2 } flashrnn_cell_spread;

/* With head_sync = grid, the backward: the head's blocks launched in thread-block clusters
 * that share the step's reload of dL/d(R h) from L2, each block issuing 1/share of it as
 * copies multicast to every block of its cluster (ON; AUTO, the default, where it can), or
 * every block reloading all of it (OFF). The clusters are the largest of 16, 8, 4 or 2 blocks
 * that divides blocks_per_head and lets the GPU hold the whole grid; only where each warp
 * reloads its own k slice (warps_k > 1, cell_split = 1). ON is an error where none fits. */
typedef enum { FLASHRNN_SHARE_AUTO = 0, FLASHRNN_SHARE_OFF = 1, FLASHRNN_SHARE_ON = 2 } flashrnn_grid_share;

/* How many gates of its unit group a warp's products cover in the forward: ALL (each warp
 * a k slice of dh / warps_k, every gate: wk partial sums a position), or 2 or 1 over a k slice
 * 2 or 4 times as long (wk / 2 or wk / 4 partial sums), where the tiling allows it
 * (flashrnn_fused_warp_gates: the split dense lstm head in bf16 or f16); AUTO: the kernel's rule. */
typedef enum { FLASHRNN_WARP_GATES_AUTO = 0, FLASHRNN_WARP_GATES_ALL = 1, FLASHRNN_WARP_GATES_2 = 2,
               FLASHRNN_WARP_GATES_1 = 3 } flashrnn_warp_gates;

typedef struct flashrnn_fused_args {
    int T, B, H, dh, G;        /* G: 4 lstm and slstm, 3 gru, 1 elman                     */
    logt_dtype dtype;          /* of R, h, h0, c0, dH, dh0, dc0: LOGT_BF16, LOGT_F16, LOGT_F32 */
    const float *wx, *bias, *bn;
    const void *R, *h0, *c0;
    void *h;
    float *s, *c;
    const void *dH;
    void *dxa, *dra;
    void *dh0, *dc0;
    const void *dhT, *dcT;     /* backward: dL/dh, dL/dc of the last step's state from steps  */
                               /* after the pass (a segment's, recompute), read once at the   */
                               /* start, [B][D] dtype; NULL: zeros (dcT: lstm only)           */
    int warps_k;               /* 0: the tuner's choice; else only tilings with this warps_k */
    int cell_split;            /* 0: the tuner's choice; 1 or 2: only that cell_split        */
    flashrnn_head_sync head_sync;   /* ANY: the tuner's choice; GRID or CLUSTER: split heads
                                     * only that way (tune.h)                                   */
    flashrnn_cluster_store cluster_store;   /* with clusters, how a block's part reaches the
                                             * others: AUTO (flashrnn_fused_cluster_copy's
                                             * rule), CELL or COPY                          */
    flashrnn_cell_spread cell_spread;   /* AUTO: flashrnn_fused_cell_spread's rule */
    flashrnn_grid_share grid_share;     /* AUTO: the backward's shared where it can be  */
    flashrnn_warp_gates warp_gates;     /* AUTO: the kernel's rule                      */
    int poll_delay;            /* head_sync = grid, forward: the cycles a block waits, its   */
                               /* cells done, before its first poll of h (< 0: auto: the      */
                               /* launch takes flashrnn_fused_poll_delay's)                   */
    void *xchg;                /* head_sync = grid (tilings with blocks_per_head > 1): the   */
                               /* forward's tagged words, flashrnn_fused_xchg_bytes(args)    */
    unsigned *sync;            /* and the backward's zeroed counters, one per (head group,  */
                               /* batch tile): H · ceil(B/8) of them                         */
    int wx_chunk;              /* forward: 0, W x is all there at launch; else it arrives in  */
    unsigned *wx_sync;         /* chunks of wx_chunk steps, chunk k >= 1 once wx_sync[0] >= k */
                               /* (a second stream counts them); block 0 sets wx_sync[1] to   */
                               /* k + 1 as it asks for chunk k (1 once the kernel runs)       */
                               /* (flashrnn_cuda.cu, proj_overlap)                            */
    int slstm;                 /* 1: the sLSTM cell (G = 4), 0: lstm or gru                */
    const float *st0;          /* slstm: the states c, n, m before step 0, [B][3·D] fp32      */
    float *dst0;               /* slstm backward: their gradients out, [B][3·D] fp32          */
} flashrnn_fused_args;

/* The forward's wait before its first poll of a split head's h through global memory, in
 * SM cycles: args.poll_delay, or where that is < 0 the best of a sweep on the H200 for the
 * exchange's words (the dense head in bf16: the lstm's 16-bit words, the gru's 32-bit ones;
 * experiments/flashrnn-headdim/README.md; f16, whose words are the same, takes bf16's). A
 * poll that reaches L2 before the words it reads is answered with old words and goes again,
 * a whole round trip later; the others' words land about as the block's own cells end. */
#define FLASHRNN_POLL_DELAY_LSTM_BF16 250
#define FLASHRNN_POLL_DELAY_AUTO 200
int flashrnn_fused_poll_delay(const flashrnn_fused_args *a);

/* Bytes of args.xchg: two buffers of B · D words, 8 bytes each for f32, 4 for bf16 and f16,
 * 2 for the lstm's bf16 and f16 (the launch zeroes them). */
size_t flashrnn_fused_xchg_bytes(const flashrnn_fused_args *a);

/* The instantiated kernels: one per (cell, dtype, k_slice), where k_slice is the part of the
 * contraction one warp does (dh / warps_k forward, the same rows of R backward). A dh is
 * served when some warps_k makes dh / warps_k an instantiated k_slice. */
typedef struct flashrnn_instance { int G, slstm, dtype_bytes, k_slice; logt_dtype dtype; } flashrnn_instance;
const flashrnn_instance *flashrnn_fused_table(int *n);

/* Bitmask of the instantiated k_slices for the cell (G, slstm) in dtype: bit k set when
 * k_slice = 16·k exists (the tuner's problem.k_slices). */
unsigned flashrnn_fused_k_slices(int G, int slstm, logt_dtype dtype);

/* 1 when tiling t spreads the partial sums and the cell over 4 warps of a group (a's
 * cell_spread, or when AUTO the kernel's rule); 0 when it cannot (wk = 1, fewer than 4 warps
 * a group) or does not. */
int flashrnn_fused_cell_spread(const flashrnn_fused_args *a, const flashrnn_tiling *t);

/* The gates a warp's products cover in tiling t's pass: G (every gate), or 1 or 2 (a's
 * warp_gates, where t is the forward of an lstm in bf16 or f16 whose head is split through
 * global memory into blocks of 16 units, 8 batch rows and dh / 64 warps, a multiple of 4). */
int flashrnn_fused_warp_gates(const flashrnn_fused_args *a, const flashrnn_tiling *t, flashrnn_pass pass);

/* 1 when a cluster tiling t's pass copies each block's part after a block barrier (COPY),
 * 0 when the cell stores it (CELL) or t has no clusters: a's cluster_store, or when AUTO,
 * CELL where the cell is spread, else COPY once a cell thread would make more than 16
 * stores a step (experiments/flashrnn-headdim, Design notes). */
int flashrnn_fused_cluster_copy(const flashrnn_fused_args *a, const flashrnn_tiling *t,
                                flashrnn_pass pass);

#ifdef LOGT_HAVE_CUDA
/* Pick the tiling for the pass on the current device (the kernel's real register count in the
 * model), or say why none fits. */
logt_status flashrnn_fused_plan(const flashrnn_fused_args *a, flashrnn_pass pass,
                                flashrnn_tiling *t);
/* Run one pass with the tiling t (from flashrnn_fused_plan) on ctx's stream. */
logt_status flashrnn_fused_forward(logt_ctx *ctx, const flashrnn_fused_args *a,
                                   const flashrnn_tiling *t);
logt_status flashrnn_fused_backward(logt_ctx *ctx, const flashrnn_fused_args *a,
                                    const flashrnn_tiling *t);
#endif

#ifdef __cplusplus
}
#endif
#endif
