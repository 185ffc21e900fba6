/* optim_cuda.h — the CUDA side of optim.c (implemented in optim.cu). C callers only,
 * and only in builds with LOGT_HAVE_CUDA. Pointers are device pointers of n elements
 * of dtype dt; stream is a cudaStream_t (NULL: the default stream).
 */
#ifndef LOGT_OPTIM_CUDA_H
#define LOGT_OPTIM_CUDA_H

#include <stdint.h>

#include "../core/status.h"
#include "../core/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Adam on f32 or f64: bc1 = 1 - beta1^t, bc2 = 1 - beta2^t, computed by the caller. */
logt_status logt_adam_cuda(void *w, const void *g, void *m, void *v, logt_dtype dt, int64_t n,
                           double lr, double beta1, double beta2, double eps, double bc1,
                           double bc2, double scale, void *stream);
/* Sum of squares of f32, f64 or bf16 g, accumulated in f64; waits for the result. */
logt_status logt_sqnorm_cuda(const void *g, logt_dtype dt, int64_t n, double *out, void *stream);

#ifdef __cplusplus
}
#endif
#endif
