/* scan_bench.c — the scan's kernels as `kind = kernel` experiments time them (bench.h): on
 * cuda the CUDA version in the run's dtype (f32, bf16 or f16) on ctx's stream, on the cpu the
 * float64 reference (the path a machine without a GPU tests end to end). The scans start
 * from zeros (h0 NULL).
 */
#include "bench.h"

#include <stdio.h>

#include "scan.h"

#define BOTH ((1u << LOGT_CPU) | (1u << LOGT_CUDA))

/* h = the scan of (a, b) from zeros: forward or reversed, the library's kernel or the
 * serial baseline (one thread per channel; serial 2: its loads 8 steps ahead). On the cpu
 * every variant is the reference. */
static logt_status scan_variant(logt_ctx *ctx, const logt_kernel_args *k, int reverse, int serial,
                                char *impl, size_t nimpl)
{
    const void *a = logt_kernel_in(k, 0), *b = logt_kernel_in(k, 1);
    void *h = logt_kernel_out(k, 0);
    if (k->device == LOGT_CPU) {
        (void)ctx;
        (void)serial;
        if (impl)
            snprintf(impl, nimpl, "%s (cpu f64 reference)", reverse ? "scan_reverse_cpu" : "scan_cpu");
        return reverse ? scan_reverse_cpu(k->T, k->C, a, b, NULL, h)
                       : scan_cpu(k->T, k->C, a, b, NULL, h);
    }
#ifdef LOGT_HAVE_CUDA
    if (serial == 2) {
        if (impl) snprintf(impl, nimpl, "scan_cuda_serial_unrolled%s", reverse ? " reverse" : "");
        return scan_cuda_serial_unrolled(ctx, reverse, k->T, k->C, k->dtype, a, b, NULL, h);
    }
    if (serial) {
        if (impl) snprintf(impl, nimpl, "scan_cuda_serial%s", reverse ? " reverse" : "");
        return scan_cuda_serial(ctx, reverse, k->T, k->C, k->dtype, a, b, NULL, h);
    }
    if (impl)
        snprintf(impl, nimpl, "scan_cuda%s route=%s", reverse ? " reverse" : "",
                 scan_cuda_route(k->T, k->C, k->dtype));
    return scan_cuda(ctx, reverse, k->T, k->C, k->dtype, a, b, NULL, h);
#else
    return LOGT_FAIL(LOGT_EUNSUPPORTED, "built without CUDA");
#endif
}

static logt_status scan_fwd(logt_ctx *ctx, const logt_kernel_args *k, char *impl, size_t n)
{
    return scan_variant(ctx, k, 0, 0, impl, n);
}

static logt_status scan_rev(logt_ctx *ctx, const logt_kernel_args *k, char *impl, size_t n)
{
    return scan_variant(ctx, k, 1, 0, impl, n);
}

static logt_status scan_serial(logt_ctx *ctx, const logt_kernel_args *k, char *impl, size_t n)
{
    return scan_variant(ctx, k, 0, 1, impl, n);
}

static logt_status scan_serial_u8(logt_ctx *ctx, const logt_kernel_args *k, char *impl, size_t n)
{
    return scan_variant(ctx, k, 0, 2, impl, n);
}

/* The backward of a forward scan from zeros: in a, h (the forward's output; here random
 * like the others: the work does not depend on the values), dh; out da, db. */
static logt_status scan_bwd(logt_ctx *ctx, const logt_kernel_args *k, char *impl, size_t n)
{
    const void *a = logt_kernel_in(k, 0), *h = logt_kernel_in(k, 1), *dh = logt_kernel_in(k, 2);
    void *da = logt_kernel_out(k, 0), *db = logt_kernel_out(k, 1);
    if (k->device == LOGT_CPU) {
        (void)ctx;
        if (impl) snprintf(impl, n, "scan_backward_cpu (cpu f64 reference)");
        return scan_backward_cpu(k->T, k->C, a, NULL, h, dh, da, db, NULL);
    }
#ifdef LOGT_HAVE_CUDA
    if (impl) snprintf(impl, n, "scan_backward_cuda");
    return scan_backward_cuda(ctx, k->T, k->C, k->dtype, a, NULL, h, dh, da, db, NULL);
#else
    return LOGT_FAIL(LOGT_EUNSUPPORTED, "built without CUDA");
#endif
}

const logt_kernel logt_scan_kernel = {
    "scan", "h_t = a_t*h_{t-1} + b_t over C channels (scan_cuda)", BOTH, 2, 1, scan_fwd};
const logt_kernel logt_scan_reverse_kernel = {
    "scan-reverse", "the scan from t = T-1 down (scan_cuda reverse)", BOTH, 2, 1, scan_rev};
const logt_kernel logt_scan_serial_kernel = {
    "scan-serial", "one thread per channel walks T (scan_cuda_serial)", BOTH, 2, 1, scan_serial};
const logt_kernel logt_scan_serial_u8_kernel = {
    "scan-serial-u8", "the serial kernel with 8 steps of loads ahead (scan_cuda_serial_unrolled)", BOTH, 2,
    1, scan_serial_u8};
const logt_kernel logt_scan_backward_kernel = {
    "scan-backward", "da, db from a, h, dh (scan_backward_cuda)", BOTH, 3, 2, scan_bwd};
