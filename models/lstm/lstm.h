/* lstm.h — the LSTM layer shared by the CPU reference (lstm.c) and CUDA (lstm_cuda.cu).
 *
 *   [i f g o]_t = [σ σ tanh σ]( W x_t + R h_{t-1} + b )      gates packed [i f g o]
 *   c_t = f ⊙ c_{t-1} + i ⊙ g,     h_t = o ⊙ tanh(c_t)
 *
 * Parameters (one flat buffer, in this order):
 *   W [4D][I], R [4D][D], b [4D]; rows 0..D-1 are gate i, D..2D-1 f, 2D..3D-1 g, 3D..4D-1 o.
 * One bias per gate (cuDNN's two biases map to b and 0).
 */
#ifndef LOGT_LSTM_H
#define LOGT_LSTM_H

#include "../model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lstm_model {
    logt_model base;
    logt_tensor x, h;    /* views of forward's input and output, kept for backward      */
    logt_tensor gates;   /* [T][B][4D] activated gates i f g o, saved by forward         */
    logt_tensor c;       /* [T][B][D]  cell states                                        */
    void *cuda;          /* the CUDA path's scratch buffers (lstm_cuda.cu)               */
} lstm_model;

logt_status logt_lstm_layout(const logt_model_cfg *cfg, logt_layout *out);

logt_status lstm_forward_cpu(lstm_model *m, const logt_tensor *x, logt_tensor *h);
logt_status lstm_backward_cpu(lstm_model *m, const logt_tensor *dh, logt_tensor *dx);

#ifdef LOGT_HAVE_CUDA
logt_status lstm_forward_cuda(lstm_model *m, const logt_tensor *x, logt_tensor *h, logt_ctx *ctx);
logt_status lstm_backward_cuda(lstm_model *m, const logt_tensor *dh, logt_tensor *dx, logt_ctx *ctx);
void lstm_free_cuda(lstm_model *m);
#endif

#ifdef __cplusplus
}
#endif
#endif
