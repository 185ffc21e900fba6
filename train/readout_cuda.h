/* readout_cuda.h — the readout of train.h on the GPU (implemented in readout.cu), for a cuda
 * f32 model whose batches carry many target rows (charlm: every step). C callers only, and
 * only in builds with LOGT_HAVE_CUDA.
 *
 * The same head and losses as logt_readout_loss (readout.c), with the heavy part where h
 * already is: y = h·V^T + c, the loss's gradient g = dL/dy, dV = g^T·h, dc = Σ_n g,
 * dh = g·V, in f32 arithmetic (cuBLAS strict fp32, deterministic sums). The parameters stay
 * host f64 in r->w (Adam and checkpoints are unchanged): V and c are rounded to f32 for the
 * call, and dV, dc come back into r->dw in f64. Per-row losses and hits come back too and
 * are summed on the host in row order, in f64.
 */
#ifndef LOGT_READOUT_CUDA_H
#define LOGT_READOUT_CUDA_H

#include "train.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Device scratch of the GPU readout, grown on demand; zero-initialised is empty. */
typedef struct logt_readout_gpu {
    logt_tensor V, y, target, row;   /* f32 [O][D] then c [O]; [N][O]; [N] or [N][O]; [N][2] */
    logt_tensor dw;                  /* f32 [O][D] then [O]                                  */
    float *host;                     /* host staging of max(O·D + O + targets, 2N) floats    */
    int64_t host_n;
} logt_readout_gpu;

/* h [N][D] and dh [N][D] are f32 device arrays on ctx's device; dh NULL: the loss and the
 * accuracy only (r->dw is then left as it was). Same errors as logt_readout_loss. */
logt_status logt_readout_loss_cuda(logt_readout *r, logt_readout_gpu *g, logt_loss loss,
                                   const float *h, int64_t N, const double *target, float *dh,
                                   double *out_loss, double *acc, logt_ctx *ctx);
void logt_readout_gpu_free(logt_readout_gpu *g);

/* The checks both readouts make (readout.c): initialised, N >= 1, class ids in 0..O-1. */
logt_status logt_readout_check(const logt_readout *r, logt_loss loss, int64_t N, const double *target);

#ifdef __cplusplus
}
#endif
#endif
