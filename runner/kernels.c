/* kernels.c — the table of kernels `kind = kernel` experiments time (see kernels.h).
 *
 * Each entry runs one library kernel once: on cuda the CUDA version in the run's
 * dtype (f32 or bf16) on ctx's stream, on the cpu the float64 reference (the path
 * a machine without a GPU tests end to end). The scans start from zeros (h0 NULL).
 */
#include "kernels.h"

#include <stdio.h>
#include <string.h>

#ifdef LOGT_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#include "../kernels/scan.h"
#include "../models/sru/sru.h"
#include "util.h"

#define BOTH ((1u << LOGT_CPU) | (1u << LOGT_CUDA))

/* ---- the kernels ------------------------------------------------------------------------ */

/* h = the scan of (a, b) from zeros: forward or reversed, the library's kernel or the
 * serial baseline (one thread per channel). On the cpu every variant is the reference. */
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

/* SRU's forward element-wise recurrence (the loop route of models/sru/sru_cuda.cu) on its own:
 * in the pre-activation planes z, W_f x, W_r x (f32) and x (I == D, no projection); out c
 * (f32) and h. v and b (2D values each) are read from the first 4D values of the z plane:
 * the kernel's speed does not depend on them, and they are noise next to the planes. f32
 * only: the planes are f32 whatever the activations' dtype, and the runner's arrays are
 * of the run's dtype. 6 arrays of T·B·D: 24 bytes per element, sru_recurrence_bytes. */
static logt_status sru_rec(logt_ctx *ctx, const logt_kernel_args *k, char *impl, size_t n)
{
    if (k->dtype != LOGT_F32)
        return LOGT_FAIL(LOGT_EUNSUPPORTED, "sru-recurrence times the f32 form only (its gate "
                         "planes are f32 whatever the dtype): set dtype = f32, not %s",
                         logt_dtype_name(k->dtype));
    if (k->T * k->C < 4 * k->D)
        return LOGT_FAIL(LOGT_EINVAL, "sru-recurrence needs T·B >= 4 to hold v and b in the "
                         "first plane: T = %lld, B = %lld", (long long)k->T, (long long)k->B);
#ifdef LOGT_HAVE_CUDA
    const float *gates = logt_kernel_in(k, 0), *vb = gates;
    if (impl) snprintf(impl, n, "sru_recurrence_cuda (f32, v on, I == D)");
    return sru_recurrence_cuda(ctx, k->T, k->B, k->D, k->dtype, gates, 0, logt_kernel_in(k, 3),
                               vb, vb + 2 * k->D, 1.0f, NULL, logt_kernel_out(k, 0),
                               logt_kernel_out(k, 1));
#else
    (void)ctx, (void)impl, (void)n;
    return LOGT_FAIL(LOGT_EUNSUPPORTED, "built without CUDA");
#endif
}

/* ---- the table --------------------------------------------------------------------------- */

static const logt_kernel kernels[] = {
    /* name          summary                                           devices nin nout run */
    {"scan",         "h_t = a_t*h_{t-1} + b_t over C channels (scan_cuda)", BOTH, 2, 1, scan_fwd},
    {"scan-reverse", "the scan from t = T-1 down (scan_cuda reverse)",     BOTH, 2, 1, scan_rev},
    {"scan-serial",  "one thread per channel walks T (scan_cuda_serial)",  BOTH, 2, 1, scan_serial},
    {"scan-backward", "da, db from a, h, dh (scan_backward_cuda)",         BOTH, 3, 2, scan_bwd},
    {"sru-recurrence", "SRU's fused forward recurrence, f32 (sru_recurrence_cuda)",
     1u << LOGT_CUDA, 4, 2, sru_rec},
};
enum { NKERNELS = sizeof kernels / sizeof kernels[0] };

const logt_kernel *logt_kernel_find(const char *name)
{
    for (int i = 0; i < NKERNELS; i++)
        if (!strcmp(kernels[i].name, name)) return &kernels[i];
    return NULL;
}

int logt_kernel_count(void) { return NKERNELS; }

const logt_kernel *logt_kernel_at(int i) { return i >= 0 && i < NKERNELS ? &kernels[i] : NULL; }

void logt_kernel_names(char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < NKERNELS && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s", i ? ", " : "", kernels[i].name);
}

/* ---- buffers and the copy ------------------------------------------------------------------ */

static size_t array_bytes(const logt_kernel_args *a)
{
    return (size_t)a->T * (size_t)a->C * logt_dtype_size(a->dtype);
}

const void *logt_kernel_in(const logt_kernel_args *a, int i)
{
    return (const char *)a->in + (size_t)i * array_bytes(a);
}

void *logt_kernel_out(const logt_kernel_args *a, int i)
{
    return (char *)a->out + (size_t)i * array_bytes(a);
}

double logt_kernel_bytes(const logt_kernel *k, const logt_kernel_args *a)
{
    return (double)(k->nin + k->nout) * (double)array_bytes(a);
}

logt_status logt_kernel_copy(logt_ctx *ctx, void *dst, const void *src, size_t bytes)
{
    if (ctx->device == LOGT_CPU) {
        memcpy(dst, src, bytes);
        return LOGT_OK;
    }
#ifdef LOGT_HAVE_CUDA
    cudaError_t e =
        cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, (cudaStream_t)ctx->stream);
    if (e != cudaSuccess)
        return LOGT_FAIL(LOGT_ECUDA, "cudaMemcpyAsync of %zu bytes, device to device: %s", bytes,
                         cudaGetErrorString(e));
    return LOGT_OK;
#else
    return LOGT_FAIL(LOGT_EUNSUPPORTED, "built without CUDA");
#endif
}
