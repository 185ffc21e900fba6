/* optim.c — Adam and global-norm clipping over one flat parameter tensor.
 *
 * The loops here are the CPU reference (f64); CUDA tensors go to the kernels of
 * optim.cu. Adam as in Kingma & Ba 2015, Algorithm 1, with g scaled by `scale`
 * (the clipping factor) before it enters the moments:
 *   m = b1 m + (1-b1) g,  v = b2 v + (1-b2) g²,  w -= lr (m / (1-b1^t)) / (sqrt(v / (1-b2^t)) + eps)
 */
#include <math.h>
#include <string.h>

#include "train.h"
#ifdef LOGT_HAVE_CUDA
#include "optim_cuda.h"
#endif

#ifdef LOGT_HAVE_CUDA
static void *stream_of(logt_ctx *ctx) { return ctx ? ctx->stream : NULL; }
#endif

logt_status logt_adam_init(logt_adam *a, const logt_tensor *w, double lr)
{
    memset(a, 0, sizeof *a);
    if (!(lr > 0) || !isfinite(lr))
        return LOGT_FAIL(LOGT_EINVAL, "Adam learning rate %g: it must be a positive number", lr);
    a->lr = lr;
    a->beta1 = 0.9;
    a->beta2 = 0.999;
    a->eps = 1e-8;
    LOGT_TRY(logt_tensor_new1(&a->m, w->device, w->dtype, w->numel));
    logt_status s = logt_tensor_new1(&a->v, w->device, w->dtype, w->numel);
    if (s == LOGT_OK) s = logt_tensor_zero(&a->m);
    if (s == LOGT_OK) s = logt_tensor_zero(&a->v);
    if (s != LOGT_OK) logt_adam_free(a);
    return s;
}

void logt_adam_free(logt_adam *a)
{
    if (!a) return;
    logt_tensor_free(&a->m);
    logt_tensor_free(&a->v);
}

static logt_status check_like(const logt_tensor *t, const logt_tensor *ref, const char *what)
{
    if (t->numel != ref->numel || t->device != ref->device || t->dtype != ref->dtype)
        return LOGT_FAIL(LOGT_EINVAL,
                         "Adam: %s is %lld %s %s but the moments are %lld %s %s (was "
                         "logt_adam_init given these parameters?)",
                         what, (long long)t->numel, logt_device_name(t->device),
                         logt_dtype_name(t->dtype), (long long)ref->numel,
                         logt_device_name(ref->device), logt_dtype_name(ref->dtype));
    return LOGT_OK;
}

logt_status logt_adam_step(logt_adam *a, logt_tensor *w, const logt_tensor *g, double scale,
                           logt_ctx *ctx)
{
    LOGT_TRY(check_like(w, &a->m, "the parameter tensor"));
    LOGT_TRY(check_like(g, &a->m, "the gradient tensor"));
    if (!isfinite(scale))
        return LOGT_FAIL(LOGT_ENUMERIC, "Adam step %lld: gradient scale is %g",
                         (long long)a->t + 1, scale);
    const int64_t n = w->numel;
    const int64_t t = a->t + 1;
    const double bc1 = 1.0 - pow(a->beta1, (double)t), bc2 = 1.0 - pow(a->beta2, (double)t);
    if (w->device == LOGT_CUDA) {
#ifdef LOGT_HAVE_CUDA
        LOGT_TRY(logt_adam_cuda(w->data, g->data, a->m.data, a->v.data, w->dtype, n, a->lr,
                                a->beta1, a->beta2, a->eps, bc1, bc2, scale, stream_of(ctx)));
        a->t = t;
        return LOGT_OK;
#else
        return LOGT_FAIL(LOGT_EUNSUPPORTED, "Adam on a CUDA tensor in a build without CUDA");
#endif
    }
    (void)ctx;
    if (w->dtype != LOGT_F64)
        return LOGT_FAIL(LOGT_EUNSUPPORTED, "Adam on the CPU keeps f64 parameters, not %s",
                         logt_dtype_name(w->dtype));
    double *W = w->data, *M = a->m.data, *Vm = a->v.data;
    const double *G = g->data;
    for (int64_t i = 0; i < n; i++) {
        double gi = G[i] * scale;
        M[i] = a->beta1 * M[i] + (1.0 - a->beta1) * gi;
        Vm[i] = a->beta2 * Vm[i] + (1.0 - a->beta2) * gi * gi;
        W[i] -= a->lr * (M[i] / bc1) / (sqrt(Vm[i] / bc2) + a->eps);
    }
    a->t = t;
    return LOGT_OK;
}

/* Neumaier-compensated sum of squares: the reference is more accurate than the kernel it judges. */
static double sqnorm_cpu(const logt_tensor *g)
{
    double s = 0, comp = 0;
    for (int64_t i = 0; i < g->numel; i++) {
        double x = g->dtype == LOGT_F64   ? ((const double *)g->data)[i]
                 : g->dtype == LOGT_F32   ? (double)((const float *)g->data)[i]
                 : g->dtype == LOGT_F16   ? (double)logt_f16_to_f32(((const uint16_t *)g->data)[i])
                                          : (double)logt_bf16_to_f32(((const uint16_t *)g->data)[i]);
        double y = x * x, t = s + y;
        comp += fabs(s) >= fabs(y) ? (s - t) + y : (y - t) + s;
        s = t;
    }
    return s + comp;
}

logt_status logt_sqnorm(const logt_tensor *g, double *out, logt_ctx *ctx)
{
    *out = 0;
    if (g->device == LOGT_CUDA) {
#ifdef LOGT_HAVE_CUDA
        return logt_sqnorm_cuda(g->data, g->dtype, g->numel, out, stream_of(ctx));
#else
        (void)ctx;
        return LOGT_FAIL(LOGT_EUNSUPPORTED, "sqnorm of a CUDA tensor in a build without CUDA");
#endif
    }
    (void)ctx;
    *out = sqnorm_cpu(g);
    return LOGT_OK;
}

double logt_clip_scale(double norm, double max_norm)
{
    if (!(max_norm > 0) || !(norm > max_norm)) return 1.0;
    return max_norm / norm;
}
