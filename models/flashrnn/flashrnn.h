/* flashrnn.h — the head-wise recurrent cells of FlashRNN (Pöppel et al., ICLR 2025): the hidden
 * state of size D is split into H heads of dh = D / H units (cfg.head_dim; 0 means one head,
 * dh = D), and the recurrent matrix is block-diagonal, so each head recurs on its own units
 * only. The input projection mixes all of x into every head.
 *
 * Shapes: T steps, B batch, I input, D = H·dh hidden, G gates (4 for lstm and slstm, 3 for
 * gru, 1 for elman).
 *
 * cell = lstm (also when cfg.cell is empty), gates [i f g o]:
 *   a_t = W x_t + b + blockdiag(R) h_{t-1}
 *   [i f g o] = [σ σ tanh σ](a_t),  c_t = f ⊙ c_{t-1} + i ⊙ g,  h_t = o ⊙ tanh(c_t)
 *   (the pointwise part is lstm_cell.h, the same code as the `lstm` model's)
 * cell = gru, gates [r z n], the variant of PyTorch, cuDNN and FlashRNN:
 *   r = σ(W_r x + b_r + R_r h_{t-1}),   z = σ(W_z x + b_z + R_z h_{t-1})
 *   n = tanh(W_n x + b_n + r ⊙ (R_n h_{t-1} + bn))
 *   h_t = (1 − z) ⊙ n + z ⊙ h_{t-1}
 * cell = slstm, the sLSTM of xLSTM (Beck et al. 2024) as FlashRNN computes it, gates [i f z o]
 * of a_t as for the lstm (slstm_cell.h has the equations, the stabiliser and its gradient):
 *   lf = log σ(f) + m_{t-1};  m_t = max(i, lf) (= i where n_{t-1} = 0)
 *   c_t = exp(lf − m_t) c_{t-1} + exp(i − m_t) tanh(z),  n_t = exp(lf − m_t) n_{t-1} + exp(i − m_t)
 *   h_t = σ(o) c_t / n_t   (n_t clamped at 1 as FlashRNN does; it never binds: slstm_cell.h)
 * cell = elman, one gate: h_t = tanh(W x_t + b + blockdiag(R) h_{t-1}).
 *
 * Parameters (one flat buffer, in this order; gate index q, head k, unit j of the head):
 *   W  [G·D][I]        row q·D + k·dh + j: gate-major, so that W x_t is [G][D] = [G][H][dh]
 *                       (for H = 1 the `lstm` model's W exactly); gate q in the cell's order
 *                       above (slstm: i f z o, elman: the one gate)
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
 * Initial state: h0 [B][D] (logt_net_set_state), zeros unless given; c0 [B][D] for lstm and
 * slstm (a gru or elman refuses a c0); for slstm also the normaliser n0 and the stabiliser m0
 * [B][D] (flashrnn_set_slstm_state). All four zero is FlashRNN's default state, from which the
 * first step takes m_1 = i_1. A given n0 is 0 or at least 1 (what an sLSTM's n can be). The
 * rule m_1 = i_1 applies unit by unit where n0 is 0, as in FlashRNN's kernel (its vanilla loop
 * applies it only where all of n0 is 0); there f' = exp(lf − i) multiplies c0, as in the vanilla
 * loop (the kernel clamps f' at 1), and m0 must be 0. From the zero state all of these agree;
 * a c0 given with n0 = 0 (h0 and c0 alone, say) is a state no sLSTM reaches, where the three
 * differ and logt's answer is its own.
 *
 * Devices: cpu (flashrnn.c, float64, a reference written to be read; every cell) and cuda
 * (flashrnn_cuda.cu: bf16, f16 or f32 activations, fp32 parameters and arithmetic, tensor
 * cores; a 16-bit dtype multiplies 16-bit copies of W and R, accumulating in fp32; every cell
 * fused and alternating).
 * Knobs on cuda: kernel = fused (the default: one persistent kernel per pass, fused_*.cu,
 * tiled by tune.h) | alternating (per step a cuBLAS GEMM over the heads and a pointwise
 * kernel); the fused kernel's other knobs fix a part of its tiling or exchange, for ablations
 * and tests (flashrnn.c checks them; its messages say what each does).
 */
#ifndef LOGT_FLASHRNN_H
#define LOGT_FLASHRNN_H

#include "../model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum flashrnn_cell { FLASHRNN_LSTM, FLASHRNN_GRU, FLASHRNN_SLSTM, FLASHRNN_ELMAN } flashrnn_cell;

typedef struct flashrnn_model {
    logt_model base;
    flashrnn_cell cell;
    int64_t H, dh;       /* heads and head dim, D = H·dh                                      */
    logt_tensor x, h;    /* views of forward's input and output, kept for backward            */
    logt_tensor wx;      /* [T][B][G·D] W x_t + b of every step: the input projection         */
    logt_tensor gates;   /* [T][B][4·D] lstm: activated i f g o; gru: r z n and R_n h + bn;    */
                         /* [T][B][5·D] slstm: i' f' tanh z σ(o) σ(−f); elman: none            */
    logt_tensor c;       /* lstm, slstm: [T][B][D] cell states                                 */
    logt_tensor n, stab; /* slstm: [T][B][D] normaliser and stabiliser states n, m             */
    logt_tensor n0, m0;  /* slstm: [B][D] initial n and m, owned; data NULL means zeros        */
    logt_tensor dn0, dm0;/* slstm: [B][D] their gradients, written by backward when given      */
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
/* Check the initial states a forward is given against the cell and the batch B (both backends). */
logt_status flashrnn_check_states(const flashrnn_model *m, int64_t B);

/* The slstm's other initial states, n0 and m0 [L][B][D] (cpu, f64), copied into every layer of
 * a flashrnn net of cell slstm, beside the h0 and c0 of logt_net_set_state (the net carries h
 * and c only). NULL (or data NULL) for either means zeros. After a backward, each layer's
 * flashrnn_model dn0 / dm0 ([B][D]) hold the gradients of the states that were given. */
logt_status flashrnn_set_slstm_state(logt_net *net, const logt_tensor *n0, const logt_tensor *m0);

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
