/* cuda.h — the CUDA runtime as the C side of logt sees it.
 *
 * Plain C declarations, implemented in core/cuda.cu. In a build without nvcc
 * the C files that call these are compiled with LOGT_HAVE_CUDA undefined and
 * report "built without CUDA" instead of calling them.
 */
#ifndef LOGT_CUDA_H
#define LOGT_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"
#include "tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { LOGT_H2D, LOGT_D2H, LOGT_D2D } logt_copy_kind;

int logt_cuda_device_count(void);   /* 0 when no driver, no device, or built without CUDA */
/* SMs of the current device, asked once per process; 132 (an H200) when the device cannot
 * be asked (the launches that follow will then report what is wrong). For launch shapes. */
int logt_cuda_sm_count(void);
/* Blocks of `block` threads for a grid-stride loop over n elements: ceil(n / block),
 * at least 1 and at most 65536 (the loop strides over the rest). */
unsigned logt_cuda_grid(int64_t n, int block);
logt_status logt_cuda_malloc(void **p, size_t bytes, const char *what);
void logt_cuda_free(void *p, size_t bytes);
logt_status logt_cuda_memcpy(void *dst, const void *src, size_t bytes, logt_copy_kind kind);
logt_status logt_cuda_memset0(void *p, size_t bytes);
/* The float kept as bits in the device word *res by block_max_into (reduce.cuh), after
 * everything queued on stream (one small copy and a synchronisation). */
logt_status logt_cuda_read_max(void *stream, const unsigned *res, float *out);
/* dst[i] = (dst dtype) src[i] for i < n, both on the device: on the legacy default stream
 * (logt_cuda_convert), which waits for every other stream and holds them up until it is done,
 * or queued on `stream` alone (logt_cuda_convert_on). */
logt_status logt_cuda_convert(void *dst, logt_dtype dt_dst, const void *src, logt_dtype dt_src,
                              int64_t n);
logt_status logt_cuda_convert_on(void *stream, void *dst, logt_dtype dt_dst, const void *src,
                                 logt_dtype dt_src, int64_t n);

/* x [n][I] of dtype dt from n one-hot codes (logt_tensor_onehot), both on the device; the
 * codes are already checked. */
logt_status logt_cuda_onehot(void *x, logt_dtype dt, const int32_t *code, int64_t n, int I);

typedef struct logt_device_info {
    char name[256];
    int sm_count, cc_major, cc_minor;
    size_t mem_total, mem_free, l2_bytes, smem_optin_per_block;
    int regs_per_sm, driver_version, runtime_version;
    size_t cudnn_version;
    int cublas_version;
} logt_device_info;
logt_status logt_cuda_info(logt_device_info *out);

#ifdef __cplusplus
}
#endif
#endif
