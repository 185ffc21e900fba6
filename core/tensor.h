/* tensor.h — a typed buffer on a device, and the copies between them.
 *
 * Tensors are row-major and, for sequences, time-major: x[T][B][D]. A tensor
 * either owns its buffer (logt_tensor_new) or is a view into another one
 * (logt_tensor_view); logt_tensor_free releases only what it owns.
 * Any dtype may live on any device; by convention the CPU reference works in
 * f64 and CUDA in f32, bf16 or f16 (fp32 arithmetic).
 */
#ifndef LOGT_TENSOR_H
#define LOGT_TENSOR_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum logt_dtype { LOGT_F64, LOGT_F32, LOGT_BF16, LOGT_F16 } logt_dtype;
#define LOGT_NDTYPES (LOGT_F16 + 1)   /* every dtype is below this: loops over them */
typedef enum logt_device { LOGT_CPU, LOGT_CUDA } logt_device;

#define LOGT_MAXDIM 4

typedef struct logt_tensor {
    void *data;                   /* NULL: an empty tensor (e.g. "no initial state") */
    logt_dtype dtype;
    logt_device device;
    int ndim;
    int64_t shape[LOGT_MAXDIM];
    int64_t numel;
    int owns;                     /* 1 when logt_tensor_free releases data */
} logt_tensor;

size_t logt_dtype_size(logt_dtype dt);
const char *logt_dtype_name(logt_dtype dt);              /* "f64", "f32", "bf16", "f16" */
logt_status logt_dtype_parse(const char *s, logt_dtype *out);
const char *logt_device_name(logt_device dev);           /* "cpu", "cuda" */

/* Allocate an uninitialised tensor of the given shape (ndim 1..4). */
logt_status logt_tensor_new(logt_tensor *t, logt_device dev, logt_dtype dt, int ndim,
                            const int64_t *shape);
/* Same, with the shape spelled out: logt_tensor_new3(&x, dev, dt, T, B, D). */
logt_status logt_tensor_new1(logt_tensor *t, logt_device dev, logt_dtype dt, int64_t a);
logt_status logt_tensor_new2(logt_tensor *t, logt_device dev, logt_dtype dt, int64_t a, int64_t b);
logt_status logt_tensor_new3(logt_tensor *t, logt_device dev, logt_dtype dt, int64_t a, int64_t b,
                             int64_t c);
void logt_tensor_free(logt_tensor *t);
/* Make t an owned [a][b][c] tensor of that device and dtype, reallocating only when it
 * is not one already (buffers kept between calls of the same shape). */
logt_status logt_tensor_ensure3(logt_tensor *t, logt_device dev, logt_dtype dt, int64_t a,
                                int64_t b, int64_t c);
/* Make t an owned 1-D scratch buffer of that device and dtype with room for at least n
 * elements (n < 1 counts as 1): kept when it has room, else reallocated to exactly n, so it
 * grows and never shrinks. *fresh (when fresh is not NULL) says whether it was reallocated. */
logt_status logt_tensor_reserve(logt_tensor *t, logt_device dev, logt_dtype dt, int64_t n,
                                int *fresh);

/* A non-owning view of numel elements starting at element `offset`, reshaped. */
logt_tensor logt_tensor_view(const logt_tensor *t, int64_t offset, int ndim, const int64_t *shape);
size_t logt_tensor_bytes(const logt_tensor *t);
/* Element pointer arithmetic that respects the dtype. */
void *logt_tensor_at(const logt_tensor *t, int64_t offset);

/* Copy src into dst (same numel), converting dtype and moving between devices. */
logt_status logt_tensor_copy(logt_tensor *dst, const logt_tensor *src);
logt_status logt_tensor_zero(logt_tensor *t);
/* Host f64 <-> tensor of any dtype/device (n = t->numel values). */
logt_status logt_tensor_to_f64(const logt_tensor *t, double *host);
logt_status logt_tensor_from_f64(logt_tensor *t, const double *host);

/* x [n][I] (numel = n·I, any dtype and device) from n host codes, one a row: code k sets
 * row i to +e_k, ~k (= -k-1) to -e_k, k in [0, I); a code outside [-I, I) is an error that
 * names it. On cuda the codes travel (4 bytes a row) and the rows are written there. */
logt_status logt_tensor_onehot(logt_tensor *x, const int32_t *code, int I);

/* bf16 on the host: round to nearest even, NaN kept NaN. */
uint16_t logt_f32_to_bf16(float f);
float logt_bf16_to_f32(uint16_t b);
/* IEEE half (f16) on the host: round to nearest even, subnormals kept, what rounds past 65504
 * infinity, NaN kept NaN. */
uint16_t logt_f32_to_f16(float f);
float logt_f16_to_f32(uint16_t h);

/* Device memory that logt itself allocates (tensors and workspaces), for the
 * peak-memory column of speed runs. */
size_t logt_mem_current(void);
size_t logt_mem_peak(void);
void logt_mem_reset_peak(void);
void logt_mem_track(ptrdiff_t delta_bytes);

#ifdef __cplusplus
}
#endif
#endif
