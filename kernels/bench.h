/* bench.h — a kernel timed on its own, as `kind = kernel` experiments do: its arguments, its
 * traffic, and the copy it is measured against.
 *
 * A kernel experiment times one library kernel on its own (no model around it) and
 * compares it with a device-to-device copy timed in the same run. Each kernel's owner
 * defines its logt_kernel (kernels/scan_bench.c, models/sru/sru_bench.c); the table of
 * names is models/kernels.c. An entry runs the kernel once on buffers the runner has
 * already allocated and filled.
 *
 * Shapes: every array is [T][C] elements of the run's dtype, C = B·D channels.
 * The runner allocates the kernel's `nin` input arrays as one block `in` (array i
 * starts at element i·T·C) and fills it once per shape from the seed: array 0
 * uniform in [0.5, 1) (gates that neither vanish nor blow up over T), the others
 * uniform in [-1, 1); the `nout` output arrays are one block `out`. On cuda both
 * are device memory and the kernel runs on ctx's stream; on cpu they are host f64
 * and the kernel is the float64 reference.
 *
 * Traffic: a kernel must read each input and write each output once at the least,
 * so its bytes are (nin + nout)·T·C·sizeof(dtype) and its effective bandwidth is
 * those bytes over its median time.
 *
 * Adding a kernel is one function with the signature of `run`, its logt_kernel beside it,
 * and one line in models/kernels.c (a kernel whose arrays are not [T][C] takes several: SRU's packed gates
 * [T][B][3D] are 3 arrays of the block).
 */
#ifndef LOGT_KERNELS_BENCH_H
#define LOGT_KERNELS_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "../core/ctx.h"

typedef struct logt_kernel_args {
    logt_device device;
    logt_dtype dtype;
    int64_t T, B, D, C;      /* C = B·D                                     */
    const void *in;          /* [nin][T][C]: the inputs, filled once        */
    void *out;               /* [nout][T][C]: the outputs                   */
} logt_kernel_args;

typedef struct logt_kernel {
    const char *name;        /* "scan", "scan-serial", ...                   */
    const char *summary;
    unsigned devices;        /* bit (1u << LOGT_CPU) | (1u << LOGT_CUDA)      */
    int nin, nout;           /* [T][C] arrays read and written               */
    /* Run once on ctx's stream. When impl is not NULL, also say what ran there
     * ("scan_cuda route=lookback"); the runner asks on the first call only. */
    logt_status (*run)(logt_ctx *ctx, const logt_kernel_args *a, char *impl, size_t nimpl);
} logt_kernel;

/* Array i of the input or output block. */
const void *logt_kernel_in(const logt_kernel_args *a, int i);
void *logt_kernel_out(const logt_kernel_args *a, int i);
/* The minimum traffic of one call in bytes: (nin + nout)·T·C·sizeof(dtype). */
double logt_kernel_bytes(const logt_kernel *k, const logt_kernel_args *a);

/* The yardstick: copy `bytes` from src to dst, on ctx's stream (cudaMemcpyAsync,
 * device to device) on cuda, memcpy on the cpu. */
logt_status logt_kernel_copy(logt_ctx *ctx, void *dst, const void *src, size_t bytes);

#endif
