/* gilr.h — GILR and GILR-LSTM (Martin & Cundy, "Parallelizing Linear Recurrent Neural Nets
 * Over Sequence Length", ICLR 2018): layers whose only dependence across time is linear, so
 * the state comes from a linear scan (kernels/scan.h) and every weight multiplies all T steps
 * in one product. Equations as in the paper; τ, "any activation" there, is tanh here (as in
 * the authors' GILR-LSTM code).
 *
 * gilr — the gated impulse linear recurrent layer (paper §3.1):
 *   g_t = σ(W_g x_t + b_g),   i_t = tanh(W_i x_t + b_i)
 *   h_t = g_t ⊙ h_{t-1} + (1 − g_t) ⊙ i_t              a scan with a = g, b = (1 − g) ⊙ i
 * Parameters: W [2D][I] (rows 0..D-1 gate g, D..2D-1 impulse i), b [2D].
 * Initial state: h0 is h_{-1}.
 *
 * gilr-lstm — an LSTM whose recurrent input is a GILR "linear surrogate" h̃ of its output
 * (paper §3.2, Linear surrogate RNNs; the display after "we obtain the GILR-LSTM"):
 *   g_t = σ(V_g x_t + b_g),   j_t = tanh(V_j x_t + b_j)
 *   h̃_t = g_t ⊙ h̃_{t-1} + (1 − g_t) ⊙ j_t                              scan 1
 *   [i f z o]_t = [σ σ tanh σ](W x_t + U h̃_{t-1} + b)
 *   c_t = f_t ⊙ c_{t-1} + i_t ⊙ z_t                                      scan 2
 *   h_t = o_t ⊙ c_t                                     (no tanh on c: the paper's LSTM)
 * Parameters: Ws [2D][I] (rows g then j), bs [2D], W [4D][I], U [4D][D], b [4D]; LSTM rows
 * packed [i f z o] like lstm.h. Initial state: h0 is the surrogate's h̃_{-1} (the output h
 * never feeds back, so it has no initial value of its own), c0 is c_{-1}.
 * The authors' TensorFlow code (eamartin/parallelizing_linear_rnns, layers.py) feeds h̃_t,
 * not h̃_{t-1}, to the gates; we follow the paper.
 *
 * Activations are kept as planes, one [T][B][D] block per gate: each the [T][C] array
 * (C = B·D) that the scan takes. Cost O(T·B·D·(I + D)) work, nothing sequential but the
 * scans' O(log T) depth. Devices: cpu (f64, gilr.c) and cuda (gilr_cuda.cu: fp32 arithmetic,
 * parameters f32, x, h and the states f32, bf16 or f16; the planes inside are f32 always).
 */
#ifndef LOGT_GILR_H
#define LOGT_GILR_H

#include "../model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gilr_model {
    logt_model base;
    logt_tensor x, h;   /* views of forward's input and output, kept for backward         */
    logt_tensor sur;    /* [2][T·B][D] the GILR's activated gate g and impulse (i, or j)   */
    logt_tensor hs;     /* gilr-lstm: [T][B][D] surrogate states h̃; on cuda [T+1][B][D]
                           with row 0 holding h̃_{-1}. gilr on cuda in 16 bits: f32 states h */
    logt_tensor gates;  /* gilr-lstm: [4][T·B][D] activated i f z o                         */
    logt_tensor c;      /* gilr-lstm: [T][B][D] cell states                                 */
    int gpus;           /* gpus = N: the scans in N pieces of time (cpu: the float64 pieces
                         * reference of kernels/scan_multi.h; cuda: 1 only)               */
    void *cuda;         /* the CUDA path's scratch buffers (gilr_cuda.cu)                   */
} gilr_model;

logt_status logt_gilr_layout(const logt_model_cfg *cfg, logt_layout *out);
logt_status logt_gilr_lstm_layout(const logt_model_cfg *cfg, logt_layout *out);

logt_status gilr_forward_cpu(gilr_model *m, const logt_tensor *x, logt_tensor *h);
logt_status gilr_backward_cpu(gilr_model *m, const logt_tensor *dh, logt_tensor *dx);
/* gilr made ready for the backward of input x whose output (every state) m->h already holds:
 * the gate and impulse planes formed again, no scan (recompute's segments, net.c). */
logt_status gilr_restore_cpu(gilr_model *m, const logt_tensor *x);
logt_status gilr_lstm_forward_cpu(gilr_model *m, const logt_tensor *x, logt_tensor *h);
logt_status gilr_lstm_backward_cpu(gilr_model *m, const logt_tensor *dh, logt_tensor *dx);

#ifdef LOGT_HAVE_CUDA
logt_status gilr_forward_cuda(gilr_model *m, const logt_tensor *x, logt_tensor *h, logt_ctx *ctx);
logt_status gilr_backward_cuda(gilr_model *m, const logt_tensor *dh, logt_tensor *dx, logt_ctx *ctx);
logt_status gilr_restore_cuda(gilr_model *m, const logt_tensor *x, logt_ctx *ctx);   /* f32 */
logt_status gilr_lstm_forward_cuda(gilr_model *m, const logt_tensor *x, logt_tensor *h,
                                   logt_ctx *ctx);
logt_status gilr_lstm_backward_cuda(gilr_model *m, const logt_tensor *dh, logt_tensor *dx,
                                    logt_ctx *ctx);
void gilr_free_cuda(gilr_model *m);
#endif

#ifdef __cplusplus
}
#endif
#endif
