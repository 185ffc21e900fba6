/* lstm_cudnn.h — the lstm-cudnn model, shared by lstm_cudnn.c (ops, knobs, layout)
 * and lstm_cudnn.cu (cuDNN's v8 RNN API).
 *
 * The same function and the same flat parameters as lstm (lstm.h): W [4D][I],
 * R [4D][D], b [4D], gates [i f g o], always f32. Activations are f32, bf16 or f16.
 */
#ifndef LOGT_LSTM_CUDNN_H
#define LOGT_LSTM_CUDNN_H

#include "../model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum lstm_cudnn_algo {
    LSTM_CUDNN_AUTO,                    /* fastest that supports the shape, see lstm_cudnn.cu */
    LSTM_CUDNN_STANDARD,
    LSTM_CUDNN_PERSIST_STATIC,
    LSTM_CUDNN_PERSIST_STATIC_SMALL_H,
} lstm_cudnn_algo;

typedef enum lstm_cudnn_math {
    LSTM_CUDNN_FP32,                    /* no tensor ops in f32 (bf16, f16: their tensor ops) */
    LSTM_CUDNN_TF32,                    /* f32 only                                           */
    LSTM_CUDNN_FASTEST,                 /* every math type of the dtype, the fastest timed    */
    LSTM_CUDNN_ALLOW_CONVERSION,        /* f32 only: f32 data on fp16 tensor cores            */
} lstm_cudnn_math;

/* The knobs' names of an algorithm and a math mode: "persist_static", "allow_conversion". */
const char *lstm_cudnn_algo_name(lstm_cudnn_algo a);
const char *lstm_cudnn_math_name(lstm_cudnn_math m);

typedef struct lstm_cudnn_model {
    logt_model base;
    lstm_cudnn_algo algo;   /* knob `algo` */
    lstm_cudnn_math math;   /* knob `math` */
    logt_tensor x, h;       /* views of the last forward's input and output, for backward */
    void *cudnn;            /* descriptors, weight spaces, workspaces (lstm_cudnn.cu) */
} lstm_cudnn_model;

#ifdef LOGT_HAVE_CUDA
/* Can this cuDNN run cfg (bf16 needs cuDNN >= 9.13)? Called by create; no GPU needed. */
logt_status lstm_cudnn_check_cuda(const logt_model_cfg *cfg);
logt_status lstm_cudnn_forward_cuda(lstm_cudnn_model *m, const logt_tensor *x, logt_tensor *h,
                                    logt_ctx *ctx);
logt_status lstm_cudnn_backward_cuda(lstm_cudnn_model *m, const logt_tensor *dh, logt_tensor *dx,
                                     logt_ctx *ctx);
void lstm_cudnn_free_cuda(lstm_cudnn_model *m);
#endif

#ifdef __cplusplus
}
#endif
#endif
