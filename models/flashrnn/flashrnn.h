/* flashrnn.h — the head-wise LSTM / GRU of FlashRNN (Pöppel et al., ICLR 2025): the hidden
 * state of size D is split into H heads of dh = D / H units (cfg.head_dim; 0 means one head,
 * dh = D), and the recurrent matrix is block-diagonal, so each head recurs on its own units
 * only. The input projection mixes all of x into every head.
 *
 * Shapes: T steps, B batch, I input, D = H·dh hidden, G gates (4 for lstm, 3 for gru).
 *
 * cell = lstm (also when cfg.cell is empty), gates [i f g o]:
 *   a_t = W x_t + b + blockdiag(R) h_{t-1}
 *   [i f g o] = [σ σ tanh σ](a_t),  c_t = f ⊙ c_{t-1} + i ⊙ g,  h_t = o ⊙ tanh(c_t)
 *   (the pointwise part is lstm_cell.h, the same code as the `lstm` model's)
 * cell = gru, gates [r z n], the variant of PyTorch, cuDNN and FlashRNN:
 *   r = σ(W_r x + b_r + R_r h_{t-1}),   z = σ(W_z x + b_z + R_z h_{t-1})
 *   n = tanh(W_n x + b_n + r ⊙ (R_n h_{t-1} + bn))
 *   h_t = (1 − z) ⊙ n + z ⊙ h_{t-1}
 *
 * Parameters (one flat buffer, in this order; gate index q, head k, unit j of the head):
 *   W  [G·D][I]        row q·D + k·dh + j: gate-major, so that W x_t is [G][D] = [G][H][dh]
 *                       (for H = 1 the `lstm` model's W exactly)
 *   R  [H][dh][G·dh]   R[k][m][q·dh + j]: the weight from unit m of head k's h_{t-1} to gate q,
 *                       unit j of head k. Stored as h·R (input unit major), so that one head's
 *                       step is the row vector h_k [dh] times the matrix R[k] [dh][G·dh]; for
 *                       H = 1 it is the transpose of the `lstm` model's R [4D][D].
 *   b  [G·D]           the input-side bias of each gate, indexed like W's rows
 *   bn [D]             gru only: the recurrent bias of n, inside r ⊙ (·)
 * One bias per gate (two would only ever be added), but the gru's b_hn, multiplied by r,
 * stays separate as bn: from PyTorch, b = [b_ir + b_hr, b_iz + b_hz, b_in], bn = b_hn (b and
 * bn are adjacent: a kernel may read them as one [4·D] block [r z n n_rec]).
 * Initialisation uniform in ±1/sqrt(D) for W, b, bn (the fan-in of the `lstm`), ±1/sqrt(dh)
 * for R (a head's recurrent fan-in is dh); for H = 1 both are the `lstm` model's.
 * Initial state: h0 [B][D], and c0 [B][D] for lstm; a gru refuses a c0.
 *
 * Devices: cpu (flashrnn.c, float64, a reference written to be read) and cuda
 * (flashrnn_cuda.cu: bf16 or f32 activations, fp32 parameters and arithmetic, tensor cores).
 * Knobs on cuda: kernel = fused (default: one persistent kernel per pass, fused_*.cu, tiled by
 * tune.h) | alternating (per step a cuBLAS GEMM over the heads and a pointwise kernel); the
 * fused kernel's other knobs fix a part of its tiling or exchange, for ablations and tests
 * (flashrnn.c checks them; its messages say what each does).
 */
#ifndef LOGT_FLASHRNN_H
#define LOGT_FLASHRNN_H

#include "../model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum flashrnn_cell { FLASHRNN_LSTM, FLASHRNN_GRU } flashrnn_cell;

typedef struct flashrnn_model {
    logt_model base;
    flashrnn_cell cell;
    int64_t H, dh;       /* heads and head dim, D = H·dh                                      */
    logt_tensor x, h;    /* views of forward's input and output, kept for backward            */
    logt_tensor wx;      /* [T][B][G·D] W x_t + b of every step: the input projection         */
    logt_tensor gates;   /* [T][B][4·D] lstm: activated i f g o; gru: r z n and R_n h + bn    */
    logt_tensor c;       /* lstm: [T][B][D] cell states                                        */
    int alternating;     /* cuda: kernel = alternating                                         */
    int warps_k;         /* cuda fused: 0 (the tuner's choice) or the warps_k knob             */
    int cell_split;      /* cuda fused: 0 (the tuner's choice) or the cell_split knob          */
    int head_sync;       /* cuda fused: 0 auto, 1 grid, 2 cluster (flashrnn_head_sync)         */
    int cluster_store;   /* cuda fused: 0 auto, 1 cell, 2 copy (flashrnn_cluster_store)        */
    int cell_spread;     /* cuda fused: 0 auto, 1 off, 2 on (flashrnn_cell_spread)              */
    int grid_share;      /* cuda fused: 0 auto, 1 off, 2 on (flashrnn_grid_share)               */
    int grad_overlap;    /* cuda fused: 0 auto, 1 off (flashrnn_cuda.cu)                        */
    int proj_overlap;    /* cuda fused: 0 auto, 1 off, 2 late (flashrnn_cuda.cu)                */
    int warp_gates;      /* cuda fused: 0 auto, 1 all, 2 two, 3 one (flashrnn_warp_gates)       */
    int poll_delay;      /* cuda fused: -1 auto, else cycles (flashrnn_fused_args.poll_delay)   */
    void *cuda;          /* cuda: flashrnn_cuda.cu's buffers and tilings                       */
} flashrnn_model;

/* Check cfg (device, dtype, cell, head dim) and list the slices above. */
logt_status logt_flashrnn_layout(const logt_model_cfg *cfg, logt_layout *out);

logt_status flashrnn_forward_cpu(flashrnn_model *m, const logt_tensor *x, logt_tensor *h);
logt_status flashrnn_backward_cpu(flashrnn_model *m, const logt_tensor *dh, logt_tensor *dx);

#ifdef LOGT_HAVE_CUDA
logt_status flashrnn_forward_cuda(flashrnn_model *m, const logt_tensor *x, logt_tensor *h,
                                  logt_ctx *ctx);
logt_status flashrnn_backward_cuda(flashrnn_model *m, const logt_tensor *dh, logt_tensor *dx,
                                   logt_ctx *ctx);
void flashrnn_free_cuda(flashrnn_model *m);
#endif

#ifdef __cplusplus
}
#endif
#endif
