/* lstm.c — the LSTM model: its ops, and the float64 CPU reference.
 *
 * The reference is written to be read: one loop over time, the products W x and
 * R h spelled out per element, the pointwise cell from lstm_cell.h (shared with
 * flashrnn), and backpropagation through time as their mirror image.
 * Cost O(T·B·D·(I+D)); no attempt at speed.
 */
#include "lstm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cells/lstm_cell.h"

logt_status logt_lstm_layout(const logt_model_cfg *cfg, logt_layout *out)
{
    int64_t D = cfg->hidden_size, I = cfg->input_size;
    double k = 1.0 / sqrt((double)D);   /* PyTorch's and cuDNN's customary init */
    logt_layout_add(out, "W", k, 2, 4 * D, I, 0);
    logt_layout_add(out, "R", k, 2, 4 * D, D, 0);
    logt_layout_add(out, "b", k, 1, 4 * D, 0, 0);
    logt_layout_memory_gate(out, "b", D, D, 0);   /* [i f g o]: f keeps, i gets -f (chrono) */
    return LOGT_OK;
}

static logt_status lstm_create(const logt_model_cfg *cfg, logt_model **out)
{
    lstm_model *m = calloc(1, sizeof *m);
    if (!m) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    snprintf(m->base.impl, sizeof m->base.impl, "%s",
             cfg->device == LOGT_CPU ? "cpu f64 reference"
                                     : "cuda f32: input GEMM + per step cuBLAS GEMM and fused pointwise");
    *out = &m->base;
    return LOGT_OK;
}

logt_status lstm_forward_cpu(lstm_model *m, const logt_tensor *x, logt_tensor *h)
{
    const int64_t T = x->shape[0], B = x->shape[1], I = x->shape[2], D = m->base.cfg.hidden_size;
    LOGT_TRY(logt_tensor_ensure3(&m->gates, LOGT_CPU, LOGT_F64, T, B, 4 * D));
    LOGT_TRY(logt_tensor_ensure3(&m->c, LOGT_CPU, LOGT_F64, T, B, D));
    const double *W = logt_model_param(&m->base, &m->base.w, "W").data;   /* [4D][I] */
    const double *R = logt_model_param(&m->base, &m->base.w, "R").data;   /* [4D][D] */
    const double *bias = logt_model_param(&m->base, &m->base.w, "b").data;
    const double *X = x->data, *h0 = m->base.h0.data, *c0 = m->base.c0.data;
    double *H = h->data, *C = m->c.data, *G = m->gates.data;

    for (int64_t t = 0; t < T; t++)
        for (int64_t b = 0; b < B; b++) {
            const double *xt = X + (t * B + b) * I;
            const double *hp = t ? H + ((t - 1) * B + b) * D : h0 ? h0 + b * D : NULL;
            const double *cp = t ? C + ((t - 1) * B + b) * D : c0 ? c0 + b * D : NULL;
            double *g = G + (t * B + b) * 4 * D;
            for (int64_t r = 0; r < 4 * D; r++) {   /* pre-activations of all four gates */
                double a = bias[r];
                for (int64_t k = 0; k < I; k++) a += W[r * I + k] * xt[k];
                if (hp)
                    for (int64_t k = 0; k < D; k++) a += R[r * D + k] * hp[k];
                g[r] = a;
            }
            for (int64_t j = 0; j < D; j++)   /* the pointwise cell, lstm_cell.h */
                C[(t * B + b) * D + j] =
                    lstm_cell_forward(g + j, D, cp ? cp[j] : 0.0, &H[(t * B + b) * D + j]);
        }
    if (m->base.hT.data) memcpy(m->base.hT.data, H + (T - 1) * B * D, (size_t)(B * D) * sizeof *H);
    if (m->base.cT.data) memcpy(m->base.cT.data, C + (T - 1) * B * D, (size_t)(B * D) * sizeof *C);
    return LOGT_OK;
}

logt_status lstm_backward_cpu(lstm_model *m, const logt_tensor *dh, logt_tensor *dx)
{
    const logt_tensor *x = &m->x;
    const int64_t T = x->shape[0], B = x->shape[1], I = x->shape[2], D = m->base.cfg.hidden_size;
    const double *W = logt_model_param(&m->base, &m->base.w, "W").data;
    const double *R = logt_model_param(&m->base, &m->base.w, "R").data;
    double *dW = logt_model_param(&m->base, &m->base.dw, "W").data;
    double *dR = logt_model_param(&m->base, &m->base.dw, "R").data;
    double *db = logt_model_param(&m->base, &m->base.dw, "b").data;
    const double *X = x->data, *H = m->h.data, *C = m->c.data, *G = m->gates.data, *dH = dh->data;
    const double *h0 = m->base.h0.data, *c0 = m->base.c0.data;
    double *dX = dx ? dx->data : NULL;

    if (!m->base.dw_add) {
        memset(dW, 0, (size_t)(4 * D * I) * sizeof *dW);
        memset(dR, 0, (size_t)(4 * D * D) * sizeof *dR);
        memset(db, 0, (size_t)(4 * D) * sizeof *db);
    }
    /* dh_next, dc_next: gradients reaching step t from step t+1, [B][D] each; at the last
     * step, those of the final state (dhT, dcT: a segment's, from the steps after it) */
    double *dh_next = calloc((size_t)(B * D), sizeof *dh_next);
    double *dc_next = calloc((size_t)(B * D), sizeof *dc_next);
    double *da = malloc((size_t)(4 * D) * sizeof *da);   /* dL/d(pre-activation) of one (t, b) */
    if (!dh_next || !dc_next || !da) {
        free(dh_next), free(dc_next), free(da);
        return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    }
    if (m->base.dhT.data) memcpy(dh_next, m->base.dhT.data, (size_t)(B * D) * sizeof *dh_next);
    if (m->base.dcT.data) memcpy(dc_next, m->base.dcT.data, (size_t)(B * D) * sizeof *dc_next);
    for (int64_t t = T - 1; t >= 0; t--)
        for (int64_t b = 0; b < B; b++) {
            const double *g = G + (t * B + b) * 4 * D, *xt = X + (t * B + b) * I;
            const double *hp = t ? H + ((t - 1) * B + b) * D : h0 ? h0 + b * D : NULL;
            const double *cp = t ? C + ((t - 1) * B + b) * D : c0 ? c0 + b * D : NULL;
            double *dhn = dh_next + b * D, *dcn = dc_next + b * D;
            for (int64_t j = 0; j < D; j++)   /* dcn becomes dc_next for step t-1 */
                dcn[j] = lstm_cell_backward(g + j, D, cp ? cp[j] : 0.0, C[(t * B + b) * D + j],
                                            dH[(t * B + b) * D + j] + dhn[j], dcn[j], da + j);
            for (int64_t j = 0; j < D; j++) dhn[j] = 0.0;
            for (int64_t r = 0; r < 4 * D; r++) {
                db[r] += da[r];
                for (int64_t k = 0; k < I; k++) dW[r * I + k] += da[r] * xt[k];
                if (hp)
                    for (int64_t k = 0; k < D; k++) dR[r * D + k] += da[r] * hp[k];
                for (int64_t k = 0; k < D; k++) dhn[k] += R[r * D + k] * da[r];
            }
            if (dX) {
                double *dxt = dX + (t * B + b) * I;
                for (int64_t k = 0; k < I; k++) {
                    double s = 0.0;
                    for (int64_t r = 0; r < 4 * D; r++) s += W[r * I + k] * da[r];
                    dxt[k] = s;
                }
            }
        }
    if (m->base.dh0.data) memcpy(m->base.dh0.data, dh_next, (size_t)(B * D) * sizeof(double));
    if (m->base.dc0.data) memcpy(m->base.dc0.data, dc_next, (size_t)(B * D) * sizeof(double));
    free(dh_next), free(dc_next), free(da);
    return LOGT_OK;
}

static logt_status lstm_forward(logt_model *base, const logt_tensor *x, logt_tensor *h, logt_ctx *ctx)
{
    lstm_model *m = (lstm_model *)base;
    m->x = *x;
    m->h = *h;
    m->x.owns = m->h.owns = 0;
#ifdef LOGT_HAVE_CUDA
    if (base->cfg.device == LOGT_CUDA) return lstm_forward_cuda(m, x, h, ctx);
#endif
    (void)ctx;
    return lstm_forward_cpu(m, x, h);
}

static logt_status lstm_backward(logt_model *base, const logt_tensor *dh, logt_tensor *dx,
                                 logt_ctx *ctx)
{
    lstm_model *m = (lstm_model *)base;
#ifdef LOGT_HAVE_CUDA
    if (base->cfg.device == LOGT_CUDA) return lstm_backward_cuda(m, dh, dx, ctx);
#endif
    (void)ctx;
    return lstm_backward_cpu(m, dh, dx);
}

static void lstm_destroy(logt_model *base)
{
    lstm_model *m = (lstm_model *)base;
#ifdef LOGT_HAVE_CUDA
    lstm_free_cuda(m);
#endif
    logt_tensor_free(&m->gates);
    logt_tensor_free(&m->c);
    free(m);
}

static const char *const lstm_knobs[] = {"forget_init", NULL};

static const char *const lstm_cells[] = {"lstm", NULL};

const logt_model_ops logt_lstm_ops = {
    .name = "lstm",
    .summary = "sequential LSTM: one input GEMM, then per step a cuBLAS GEMM and a fused pointwise kernel",
    .devices = LOGT_BIT(LOGT_CPU) | LOGT_BIT(LOGT_CUDA),
    .dtypes = {[LOGT_CPU] = LOGT_BIT(LOGT_F64), [LOGT_CUDA] = LOGT_BIT(LOGT_F32)},
    .cells = lstm_cells,
    .nstate = 2,
    .segments = 1,
    .knobs = lstm_knobs,
    .layout = logt_lstm_layout,
    .create = lstm_create,
    .forward = lstm_forward,
    .backward = lstm_backward,
    .destroy = lstm_destroy,
};
