/* lstm_cudnn.c — the lstm-cudnn model: its ops, knobs and parameter layout.
 *
 * cuDNN's LSTM (lstm_cudnn.cu) computing the function of lstm.h from the same
 * flat parameters, so the two are comparable number for number: the industry
 * reference row of every speed table. CUDA only; in a build without CUDA,
 * create says so.
 *
 * Knobs:
 *   algo = auto | standard | persist_static | persist_static_small_h   (default auto:
 *          among those cuDNN accepts for the shape, timed, the fastest forward until the
 *          first backward, then the fastest training step: lstm_cudnn.cu)
 *   math = fp32 | tf32 | allow_conversion | fastest   (default fp32: in f32 no tensor-op
 *          math, in bf16 and f16 their tensor ops with fp32 accumulation; tf32 and
 *          allow_conversion (f32 data multiplied on fp16 tensor cores) only for dtype f32;
 *          fastest: every math type cuDNN has for the dtype, timed with the algorithms)
 * dtype = f32, bf16 (cuDNN >= 9.13) or f16; the parameters stay f32 and are rounded to the
 * dtype in cuDNN's weight space.
 */
#include "lstm_cudnn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lstm.h"

static const char *const algo_names[] = {"auto", "standard", "persist_static",
                                         "persist_static_small_h", NULL};
static const char *const math_names[] = {"fp32", "tf32", "fastest", "allow_conversion", NULL};
static const char *const knobs[] = {"algo", "math", "forget_init", NULL};

const char *lstm_cudnn_algo_name(lstm_cudnn_algo a) { return algo_names[a]; }
const char *lstm_cudnn_math_name(lstm_cudnn_math m) { return math_names[m]; }

static logt_status parse_knobs(const logt_model_cfg *cfg, lstm_cudnn_algo *algo, lstm_cudnn_math *math)
{
    const char *a = logt_cfg_knob(cfg, "algo", "auto");
    int found = -1;
    for (int i = 0; algo_names[i]; i++)
        if (!strcmp(a, algo_names[i])) found = i;
    if (found < 0)
        return LOGT_FAIL(LOGT_EINVAL,
                         "%s: algo = '%s' is not an algorithm: choose auto, standard, "
                         "persist_static or persist_static_small_h",
                         cfg->model, a);
    *algo = (lstm_cudnn_algo)found;

    const char *mt = logt_cfg_knob(cfg, "math", "fp32");
    found = -1;
    for (int i = 0; math_names[i]; i++)
        if (!strcmp(mt, math_names[i])) found = i;
    if (found < 0)
        return LOGT_FAIL(LOGT_EINVAL, "%s: math = '%s' is not a math mode: choose fp32, tf32, "
                         "allow_conversion or fastest", cfg->model, mt);
    *math = (lstm_cudnn_math)found;
    if ((*math == LSTM_CUDNN_TF32 || *math == LSTM_CUDNN_ALLOW_CONVERSION) && cfg->dtype != LOGT_F32)
        return LOGT_FAIL(LOGT_EINVAL,
                         "%s: math = %s applies to f32 data; in %s cuDNN multiplies %s with "
                         "fp32 accumulation: leave math unset (fp32), set math = fastest, or set "
                         "dtype = f32", cfg->model, mt, logt_dtype_name(cfg->dtype),
                         logt_dtype_name(cfg->dtype));
    return LOGT_OK;
}

static logt_status lstm_cudnn_layout(const logt_model_cfg *cfg, logt_layout *out)
{
    lstm_cudnn_algo algo;
    lstm_cudnn_math math;
    LOGT_TRY(parse_knobs(cfg, &algo, &math));
    return logt_lstm_layout(cfg, out);   /* the same parameters as lstm's, f32 */
}

static logt_status lstm_cudnn_create(const logt_model_cfg *cfg, logt_model **out)
{
#ifdef LOGT_HAVE_CUDA
    lstm_cudnn_algo algo;
    lstm_cudnn_math math;
    LOGT_TRY(parse_knobs(cfg, &algo, &math));
    LOGT_TRY(lstm_cudnn_check_cuda(cfg));
    lstm_cudnn_model *m = calloc(1, sizeof *m);
    if (!m) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    m->algo = algo;
    m->math = math;
    snprintf(m->base.impl, sizeof m->base.impl, "cudnn (algorithm chosen at the first forward)");
    *out = &m->base;
    return LOGT_OK;
#else
    *out = NULL;
    return LOGT_FAIL(LOGT_EUNSUPPORTED,
                     "%s needs cuDNN, but logt was built without CUDA. HINT: install the CUDA "
                     "toolkit and cuDNN 9 and rebuild, or use model lstm",
                     cfg->model);
#endif
}

static logt_status lstm_cudnn_forward(logt_model *base, const logt_tensor *x, logt_tensor *h,
                                      logt_ctx *ctx)
{
    lstm_cudnn_model *m = (lstm_cudnn_model *)base;
    m->x = *x;
    m->h = *h;
    m->x.owns = m->h.owns = 0;
#ifdef LOGT_HAVE_CUDA
    return lstm_cudnn_forward_cuda(m, x, h, ctx);
#else
    (void)ctx;
    return LOGT_FAIL(LOGT_EUNSUPPORTED, "lstm-cudnn: built without CUDA");
#endif
}

static logt_status lstm_cudnn_backward(logt_model *base, const logt_tensor *dh, logt_tensor *dx,
                                       logt_ctx *ctx)
{
#ifdef LOGT_HAVE_CUDA
    return lstm_cudnn_backward_cuda((lstm_cudnn_model *)base, dh, dx, ctx);
#else
    (void)base, (void)dh, (void)dx, (void)ctx;
    return LOGT_FAIL(LOGT_EUNSUPPORTED, "lstm-cudnn: built without CUDA");
#endif
}

static void lstm_cudnn_destroy(logt_model *base)
{
    lstm_cudnn_model *m = (lstm_cudnn_model *)base;
#ifdef LOGT_HAVE_CUDA
    lstm_cudnn_free_cuda(m);
#endif
    free(m);
}

static const char *const cudnn_cells[] = {"lstm", NULL};

const logt_model_ops logt_lstm_cudnn_ops = {
    .name = "lstm-cudnn",
    .summary = "cuDNN's LSTM (v8 RNN API) on the same parameters as lstm: the reference row",
    .devices = LOGT_BIT(LOGT_CUDA),
    .dtypes = {[LOGT_CUDA] = LOGT_BIT(LOGT_F32) | LOGT_BIT(LOGT_BF16) | LOGT_BIT(LOGT_F16)},
    .cells = cudnn_cells,
    .nstate = 2,
    .knobs = knobs,
    .layout = lstm_cudnn_layout,
    .create = lstm_cudnn_create,
    .forward = lstm_cudnn_forward,
    .backward = lstm_cudnn_backward,
    .destroy = lstm_cudnn_destroy,
};
