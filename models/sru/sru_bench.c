/* sru_bench.c — SRU's recurrence as `kind = kernel` experiments time it (kernels/bench.h). */
#include <stdio.h>

#include "../../kernels/bench.h"
#include "sru.h"

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

const logt_kernel logt_sru_recurrence_kernel = {
    "sru-recurrence", "SRU's fused forward recurrence, f32 (sru_recurrence_cuda)", 1u << LOGT_CUDA, 4, 2,
    sru_rec};
