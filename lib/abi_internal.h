/* abi_internal.h — the CUDA runtime calls of lib/abi.c, implemented in lib/abi_cuda.cu. */
#ifndef LOGT_ABI_INTERNAL_H
#define LOGT_ABI_INTERNAL_H

#include <stddef.h>

#include "../core/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef LOGT_HAVE_CUDA
logt_status abi_cuda_get_device(int *dev);
/* Make `dev` current; *prev is the device to give back with abi_cuda_leave. */
logt_status abi_cuda_enter(int dev, int *prev);
void abi_cuda_leave(int dev, int prev);
logt_status abi_cuda_check_ptr(const void *p, int dev, const char *what);
logt_status abi_cuda_join(void *from, void *to);
logt_status abi_cuda_copy(void *dst, const void *src, size_t bytes, void *stream);
#endif

#ifdef __cplusplus
}
#endif
#endif
