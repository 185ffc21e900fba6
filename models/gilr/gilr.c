/* gilr.c — the gilr and gilr-lstm models (equations in gilr.h): their ops, and the float64
 * CPU reference (the CUDA path, the same steps on the GPU, is gilr_cuda.cu).
 *
 * Forward: the input projection of all T steps at once (one product per gate), the
 * activations, then the state by a linear scan. Backward mirrors it: the scan's backward
 * (a reversed scan, kernels/scan.h), the activations' derivatives, then the weight
 * gradients as sums over all steps. Nothing runs step by step except inside the scan.
 * Cost O(T·B·D·(I+D)) like the LSTM, but only O(T·B·D) of it is sequential.
 */
#include "gilr.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/dense_cpu.h"
#include "../../kernels/scan.h"
#include "../../kernels/scan_multi.h"

static double sigmoid(double a) { return 1.0 / (1.0 + exp(-a)); }

/* ---- the GILR: shared by both models ------------------------------------------------ */

/* The activated gate g and impulse i of one GILR over x [N][I] from W [2D][I], bias [2D],
 * into sur [2][N][D]; and, unless b is NULL, the scan's input (1 − g) ⊙ i into b [N][D]. */
static void gilr_planes(int64_t N, int64_t I, int64_t D, const double *W, const double *bias, const double *X,
                        double *sur, double *b)
{
    double *g = sur, *imp = sur + N * D;
    for (int k = 0; k < 2; k++) {   /* the projection of every step at once */
        dense_set_rows_cpu(N, D, bias + k * D, sur + k * N * D);
        dense_add_cpu(N, D, I, W + k * D * I, X, sur + k * N * D);
    }
    for (int64_t e = 0; e < N * D; e++) {
        g[e] = sigmoid(g[e]);
        imp[e] = tanh(imp[e]);
        if (b) b[e] = (1.0 - g[e]) * imp[e];
    }
}

/* Forward of one GILR: gilr_planes, then the state into hs [T][B][D] by the scan in G pieces
 * (its input b written in place of its output). */
static logt_status gilr_run(int G, int64_t T, int64_t B, int64_t I, int64_t D, const double *W,
                            const double *bias, const double *X, const double *h0, double *sur,
                            double *hs)
{
    gilr_planes(T * B, I, D, W, bias, X, sur, hs);
    return scan_split_cpu(G, 0, T, B * D, sur, hs, h0, hs);   /* h_t = g_t ⊙ h_{t-1} + (1 − g_t) ⊙ i_t */
}

/* Backward of gilr_run: given dhs = dL/dh [T][B][D], write the gradients of the gate and
 * impulse pre-activations into dsur [2][N][D], and dh0 [B][D] unless NULL. */
static logt_status gilr_run_backward(int G, int64_t T, int64_t B, int64_t D, const double *sur,
                                     const double *h0, const double *hs, const double *dhs,
                                     double *dsur, double *dh0)
{
    const int64_t N = T * B;
    const double *g = sur, *imp = sur + N * D;
    double *dg = dsur, *dimp = dsur + N * D;
    /* through the scan: dL/da into dg, dL/db into dimp */
    LOGT_TRY(scan_backward_split_cpu(G, T, B * D, g, h0, hs, dhs, dg, dimp, dh0));
    for (int64_t e = 0; e < N * D; e++) {
        double gb = dimp[e];                           /* dL/db_t, b = (1 − g) ⊙ i */
        double dgate = dg[e] - gb * imp[e];            /* g is both a and part of b  */
        double dimpulse = gb * (1.0 - g[e]);
        dg[e] = dgate * g[e] * (1.0 - g[e]);
        dimp[e] = dimpulse * (1.0 - imp[e] * imp[e]);
    }
    return LOGT_OK;
}

/* ---- layouts ------------------------------------------------------------------------ */

static logt_status check_cfg(const logt_model_cfg *cfg)
{
    const char *scan = logt_cfg_knob(cfg, "scan", "parallel");
    if (strcmp(scan, "parallel") && strcmp(scan, "serial"))
        return LOGT_FAIL(LOGT_EINVAL, "%s: scan = %s: the valid values are parallel (scan_cuda, the "
                         "default) and serial (one thread per channel walks T: Martin & Cundy's "
                         "baseline)", cfg->model, scan);
    int gpus;
    return logt_model_gpus(cfg, 0, &gpus);
}

logt_status logt_gilr_layout(const logt_model_cfg *cfg, logt_layout *out)
{
    LOGT_TRY(check_cfg(cfg));
    int64_t D = cfg->hidden_size, I = cfg->input_size;
    double k = 1.0 / sqrt((double)D);   /* as lstm */
    logt_layout_add(out, "W", k, 2, 2 * D, I, 0);
    logt_layout_add(out, "b", k, 1, 2 * D, 0, 0);
    logt_layout_memory_gate(out, "b", 0, D, -1);   /* [g i]: g keeps h */
    return LOGT_OK;
}

logt_status logt_gilr_lstm_layout(const logt_model_cfg *cfg, logt_layout *out)
{
    LOGT_TRY(check_cfg(cfg));
    int64_t D = cfg->hidden_size, I = cfg->input_size;
    double k = 1.0 / sqrt((double)D);
    logt_layout_add(out, "Ws", k, 2, 2 * D, I, 0);
    logt_layout_add(out, "bs", k, 1, 2 * D, 0, 0);
    logt_layout_add(out, "W", k, 2, 4 * D, I, 0);
    logt_layout_add(out, "U", k, 2, 4 * D, D, 0);
    logt_layout_add(out, "b", k, 1, 4 * D, 0, 0);
    logt_layout_memory_gate(out, "bs", 0, D, -1);   /* the surrogate's g */
    logt_layout_memory_gate(out, "b", D, D, 0);     /* [i f z o]: f (i gets -f, chrono) */
    return LOGT_OK;
}

/* ---- segments (recompute, model.h) ------------------------------------------------------- */

/* A segment's final state: row T-1 of a [T][B][D] array into out [B][D], unless out is NULL. */
static void last_row(int64_t T, int64_t B, int64_t D, const double *a, double *out)
{
    if (out) memcpy(out, a + (T - 1) * B * D, (size_t)(B * D) * sizeof *out);
}

/* dL/d(final state) from the steps after a segment (NULL: none) joins row T-1 of a scan's
 * dL/dh, E [T][B][D]: the whole sequence's reversed scan adds it there, a_{t+1} ⊙ g_{t+1}. */
static void add_last_row(int64_t T, int64_t B, int64_t D, const double *carry, double *E)
{
    if (carry)
        for (int64_t j = 0; j < B * D; j++) E[(T - 1) * B * D + j] += carry[j];
}

/* ---- gilr ----------------------------------------------------------------------------- */

logt_status gilr_forward_cpu(gilr_model *m, const logt_tensor *x, logt_tensor *h)
{
    const int64_t T = x->shape[0], B = x->shape[1], I = x->shape[2], D = m->base.cfg.hidden_size;
    LOGT_TRY(logt_tensor_ensure3(&m->sur, LOGT_CPU, LOGT_F64, 2, T * B, D));
    const double *W = logt_model_param(&m->base, &m->base.w, "W").data;      /* [2D][I] */
    const double *bias = logt_model_param(&m->base, &m->base.w, "b").data;   /* [2D]    */
    LOGT_TRY(gilr_run(m->gpus, T, B, I, D, W, bias, x->data, m->base.h0.data, m->sur.data, h->data));
    last_row(T, B, D, h->data, m->base.hT.data);
    return LOGT_OK;
}

logt_status gilr_restore_cpu(gilr_model *m, const logt_tensor *x)
{
    const int64_t T = x->shape[0], B = x->shape[1], I = x->shape[2], D = m->base.cfg.hidden_size;
    LOGT_TRY(logt_tensor_ensure3(&m->sur, LOGT_CPU, LOGT_F64, 2, T * B, D));
    gilr_planes(T * B, I, D, logt_model_param(&m->base, &m->base.w, "W").data,
                logt_model_param(&m->base, &m->base.w, "b").data, x->data, m->sur.data, NULL);
    return LOGT_OK;
}

logt_status gilr_backward_cpu(gilr_model *m, const logt_tensor *dh, logt_tensor *dx)
{
    const logt_tensor *x = &m->x;
    const int64_t T = x->shape[0], B = x->shape[1], I = x->shape[2], D = m->base.cfg.hidden_size;
    const int64_t N = T * B;
    const double *W = logt_model_param(&m->base, &m->base.w, "W").data;
    double *dW = logt_model_param(&m->base, &m->base.dw, "W").data;
    double *db = logt_model_param(&m->base, &m->base.dw, "b").data;
    const double *dhT = m->base.dhT.data;
    /* [2][N][D] pre-activations; with dhT, [N][D] more: dh with dhT added to its last row */
    double *dsur = malloc((size_t)((dhT ? 3 : 2) * N * D) * sizeof *dsur);
    if (!dsur) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    const double *dH = dh->data;
    if (dhT) {
        double *E = dsur + 2 * N * D;
        memcpy(E, dH, (size_t)(N * D) * sizeof *E);
        add_last_row(T, B, D, dhT, E);
        dH = E;
    }

    logt_status s = gilr_run_backward(m->gpus, T, B, D, m->sur.data, m->base.h0.data, m->h.data, dH,
                                      dsur, m->base.dh0.data);
    if (s == LOGT_OK) {
        if (!m->base.dw_add) {   /* a segment adds to the gradients of those after it */
            memset(dW, 0, (size_t)(2 * D * I) * sizeof *dW);
            memset(db, 0, (size_t)(2 * D) * sizeof *db);
        }
        for (int k = 0; k < 2; k++)
            dense_add_dw_cpu(N, D, I, dsur + k * N * D, x->data, dW + k * D * I, db + k * D);
        if (dx) {
            memset(dx->data, 0, (size_t)(N * I) * sizeof(double));
            for (int k = 0; k < 2; k++)
                dense_add_dx_cpu(N, D, I, W + k * D * I, dsur + k * N * D, dx->data);
        }
    }
    free(dsur);
    return s;
}

/* ---- gilr-lstm -------------------------------------------------------------------------- */

logt_status gilr_lstm_forward_cpu(gilr_model *m, const logt_tensor *x, logt_tensor *h)
{
    const int64_t T = x->shape[0], B = x->shape[1], I = x->shape[2], D = m->base.cfg.hidden_size;
    const int64_t N = T * B;
    LOGT_TRY(logt_tensor_ensure3(&m->sur, LOGT_CPU, LOGT_F64, 2, N, D));
    LOGT_TRY(logt_tensor_ensure3(&m->hs, LOGT_CPU, LOGT_F64, T, B, D));
    LOGT_TRY(logt_tensor_ensure3(&m->gates, LOGT_CPU, LOGT_F64, 4, N, D));
    LOGT_TRY(logt_tensor_ensure3(&m->c, LOGT_CPU, LOGT_F64, T, B, D));
    const double *Ws = logt_model_param(&m->base, &m->base.w, "Ws").data;    /* [2D][I] */
    const double *bs = logt_model_param(&m->base, &m->base.w, "bs").data;    /* [2D]    */
    const double *W = logt_model_param(&m->base, &m->base.w, "W").data;      /* [4D][I] */
    const double *U = logt_model_param(&m->base, &m->base.w, "U").data;      /* [4D][D] */
    const double *bias = logt_model_param(&m->base, &m->base.w, "b").data;   /* [4D]    */
    const double *X = x->data, *h0 = m->base.h0.data, *c0 = m->base.c0.data;
    double *Hs = m->hs.data, *P = m->gates.data, *C = m->c.data, *H = h->data;

    /* 1. the surrogate h̃: a GILR over x */
    LOGT_TRY(gilr_run(m->gpus, T, B, I, D, Ws, bs, X, h0, m->sur.data, Hs));

    /* 2. the LSTM pre-activations of every step at once, from x_t and h̃_{t-1}: the rows of
     *    step t >= 1 read row t-1 of h̃, those of step 0 read h0 (zeros when NULL) */
    for (int k = 0; k < 4; k++) {
        double *Pk = P + k * N * D;
        dense_set_rows_cpu(N, D, bias + k * D, Pk);
        dense_add_cpu(N, D, I, W + k * D * I, X, Pk);
        dense_add_cpu(N - B, D, D, U + k * D * D, Hs, Pk + B * D);
        if (h0) dense_add_cpu(B, D, D, U + k * D * D, h0, Pk);
    }

    /* 3. activations; the cell scan's input i ⊙ z goes in place of its output */
    double *gi = P, *gf = P + N * D, *gz = P + 2 * N * D, *go = P + 3 * N * D;
    for (int64_t e = 0; e < N * D; e++) {
        gi[e] = sigmoid(gi[e]), gf[e] = sigmoid(gf[e]);
        gz[e] = tanh(gz[e]), go[e] = sigmoid(go[e]);
        C[e] = gi[e] * gz[e];
    }
    LOGT_TRY(scan_split_cpu(m->gpus, 0, T, B * D, gf, C, c0, C));   /* c_t = f_t ⊙ c_{t-1} + i_t ⊙ z_t */
    for (int64_t e = 0; e < N * D; e++) H[e] = go[e] * C[e];
    last_row(T, B, D, Hs, m->base.hT.data);   /* the state slots hold h̃ and c */
    last_row(T, B, D, C, m->base.cT.data);
    return LOGT_OK;
}

logt_status gilr_lstm_backward_cpu(gilr_model *m, const logt_tensor *dh, logt_tensor *dx)
{
    const logt_tensor *x = &m->x;
    const int64_t T = x->shape[0], B = x->shape[1], I = x->shape[2], D = m->base.cfg.hidden_size;
    const int64_t N = T * B;
    const double *Ws = logt_model_param(&m->base, &m->base.w, "Ws").data;
    const double *W = logt_model_param(&m->base, &m->base.w, "W").data;
    const double *U = logt_model_param(&m->base, &m->base.w, "U").data;
    double *dWs = logt_model_param(&m->base, &m->base.dw, "Ws").data;
    double *dbs = logt_model_param(&m->base, &m->base.dw, "bs").data;
    double *dW = logt_model_param(&m->base, &m->base.dw, "W").data;
    double *dU = logt_model_param(&m->base, &m->base.dw, "U").data;
    double *db = logt_model_param(&m->base, &m->base.dw, "b").data;
    const double *X = x->data, *h0 = m->base.h0.data, *c0 = m->base.c0.data;
    const double *Hs = m->hs.data, *P = m->gates.data, *C = m->c.data, *dH = dh->data;
    double *dh0 = m->base.dh0.data, *dc0 = m->base.dc0.data;

    double *scratch = malloc((size_t)(7 * N * D + B * D) * sizeof *scratch);
    if (!scratch) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    double *dA = scratch;              /* [4][N][D] dL/d(pre-activation), i f z o     */
    double *dS = scratch + 4 * N * D;  /* [2][N][D] the same for the surrogate's g, j */
    double *E = scratch + 6 * N * D;   /* [N][D] dL/dc from h directly, then dL/dh̃   */
    double *u = scratch + 7 * N * D;   /* [B][D] dL/dh̃_{-1} through step 0's gates     */
    const int add = m->base.dw_add;    /* a segment adds to the gradients of those after it */
    double *dAi = dA, *dAf = dA + N * D, *dAz = dA + 2 * N * D, *dAo = dA + 3 * N * D;
    const double *gi = P, *gf = P + N * D, *gz = P + 2 * N * D, *go = P + 3 * N * D;

    /* 1. h = o ⊙ c */
    for (int64_t e = 0; e < N * D; e++) {
        dAo[e] = dH[e] * C[e];   /* dL/do for now */
        E[e] = dH[e] * go[e];
    }
    add_last_row(T, B, D, m->base.dcT.data, E);   /* a segment's dL/dc_{T-1} from after it */
    /* 2. the cell scan: dL/df into dAf, dL/d(i ⊙ z) into dAz, and dc0 */
    logt_status s = scan_backward_split_cpu(m->gpus, T, B * D, gf, c0, C, E, dAf, dAz, dc0);
    if (s != LOGT_OK) goto done;

    /* 3. through the activations */
    for (int64_t e = 0; e < N * D; e++) {
        double i = gi[e], f = gf[e], z = gz[e], o = go[e], diz = dAz[e];
        dAi[e] = diz * z * i * (1.0 - i);
        dAf[e] = dAf[e] * f * (1.0 - f);
        dAz[e] = diz * i * (1.0 - z * z);
        dAo[e] = dAo[e] * o * (1.0 - o);
    }

    /* 4. the LSTM weights, and dL/dh̃: step t's gates read h̃_{t-1}, so the gradient they
     *    send lands one step earlier, and nothing reaches h̃_{T-1} */
    if (!add) {
        memset(dW, 0, (size_t)(4 * D * I) * sizeof *dW);
        memset(dU, 0, (size_t)(4 * D * D) * sizeof *dU);
        memset(db, 0, (size_t)(4 * D) * sizeof *db);
    }
    memset(E, 0, (size_t)(N * D) * sizeof *E);
    for (int k = 0; k < 4; k++) {
        const double *dAk = dA + k * N * D;
        dense_add_dw_cpu(N, D, I, dAk, X, dW + k * D * I, db + k * D);
        dense_add_dw_cpu(N - B, D, D, dAk + B * D, Hs, dU + k * D * D, NULL);
        if (h0) dense_add_dw_cpu(B, D, D, dAk, h0, dU + k * D * D, NULL);
        dense_add_dx_cpu(N - B, D, D, U + k * D * D, dAk + B * D, E);
    }

    /* 5. the surrogate GILR, from a segment's dL/dh̃_{T-1} (row T-1 of E is 0 until then);
     *    h0 = h̃_{-1} also feeds step 0's gates directly: u, summed over the gates first and
     *    then added to the scan's part, as row t-1 of E is to a_t ⊙ g_t in a longer sequence */
    add_last_row(T, B, D, m->base.dhT.data, E);
    s = gilr_run_backward(m->gpus, T, B, D, m->sur.data, h0, Hs, E, dS, dh0);
    if (s != LOGT_OK) goto done;
    if (dh0) {
        memset(u, 0, (size_t)(B * D) * sizeof *u);
        for (int k = 0; k < 4; k++) dense_add_dx_cpu(B, D, D, U + k * D * D, dA + k * N * D, u);
        for (int64_t j = 0; j < B * D; j++) dh0[j] += u[j];
    }
    if (!add) {
        memset(dWs, 0, (size_t)(2 * D * I) * sizeof *dWs);
        memset(dbs, 0, (size_t)(2 * D) * sizeof *dbs);
    }
    for (int k = 0; k < 2; k++)
        dense_add_dw_cpu(N, D, I, dS + k * N * D, X, dWs + k * D * I, dbs + k * D);

    /* 6. x feeds both the LSTM gates and the surrogate */
    if (dx) {
        memset(dx->data, 0, (size_t)(N * I) * sizeof(double));
        for (int k = 0; k < 4; k++)
            dense_add_dx_cpu(N, D, I, W + k * D * I, dA + k * N * D, dx->data);
        for (int k = 0; k < 2; k++)
            dense_add_dx_cpu(N, D, I, Ws + k * D * I, dS + k * N * D, dx->data);
    }
done:
    free(scratch);
    return s;
}

/* ---- ops: the CPU reference here, the CUDA path in gilr_cuda.cu ---------------------------- */

#define GILR_DEVICES (LOGT_BIT(LOGT_CPU) | LOGT_BIT(LOGT_CUDA))
#define GILR_DTYPES                                                                                    \
    {[LOGT_CPU] = LOGT_BIT(LOGT_F64), [LOGT_CUDA] = LOGT_BIT(LOGT_F32) | LOGT_BIT(LOGT_BF16) | LOGT_BIT(LOGT_F16)}

static logt_status gilr_create(const logt_model_cfg *cfg, logt_model **out)
{
    int gpus;
    LOGT_TRY(logt_model_gpus(cfg, 0, &gpus));
    gilr_model *m = calloc(1, sizeof *m);
    if (!m) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    m->gpus = gpus;
    if (cfg->device != LOGT_CPU)
        snprintf(m->base.impl, sizeof m->base.impl, "cuda: whole-sequence cuBLAS GEMMs, fused pointwise, "
                 "linear scans (set by forward)");
    else if (gpus == 1)
        snprintf(m->base.impl, sizeof m->base.impl, "cpu f64 reference: input projection of all steps, "
                 "then a serial linear scan");
    else
        snprintf(m->base.impl, sizeof m->base.impl, "cpu f64 reference: input projection of all steps, "
                 "then each linear scan in %d pieces of time (kernels/scan_multi.h)", gpus);
    *out = &m->base;
    return LOGT_OK;
}

static logt_status keep_io(logt_model *base, const logt_tensor *x, logt_tensor *h)
{
    gilr_model *m = (gilr_model *)base;
    m->x = *x;
    m->h = *h;
    m->x.owns = m->h.owns = 0;
    return LOGT_OK;
}

static logt_status gilr_forward(logt_model *base, const logt_tensor *x, logt_tensor *h,
                                logt_ctx *ctx)
{
    LOGT_TRY(keep_io(base, x, h));
#ifdef LOGT_HAVE_CUDA
    if (base->cfg.device == LOGT_CUDA) return gilr_forward_cuda((gilr_model *)base, x, h, ctx);
#endif
    (void)ctx;
    return gilr_forward_cpu((gilr_model *)base, x, h);
}

static logt_status gilr_backward(logt_model *base, const logt_tensor *dh, logt_tensor *dx,
                                 logt_ctx *ctx)
{
#ifdef LOGT_HAVE_CUDA
    if (base->cfg.device == LOGT_CUDA) return gilr_backward_cuda((gilr_model *)base, dh, dx, ctx);
#endif
    (void)ctx;
    return gilr_backward_cpu((gilr_model *)base, dh, dx);
}

/* ops->restore (model.h): gilr's state is its output h, so a segment's backward needs only
 * the gate and impulse planes, formed again from x without the scan. In 16 bits the backward
 * reads f32 states that h rounds, so there the net runs the forward again. */
static logt_status gilr_restore(logt_model *base, const logt_tensor *x, const logt_tensor *h, logt_ctx *ctx,
                                int *done)
{
    *done = 0;
    if (base->cfg.dtype != LOGT_F32 && base->cfg.dtype != LOGT_F64) return LOGT_OK;
    LOGT_TRY(keep_io(base, x, (logt_tensor *)h));
#ifdef LOGT_HAVE_CUDA
    if (base->cfg.device == LOGT_CUDA) {
        LOGT_TRY(gilr_restore_cuda((gilr_model *)base, x, ctx));
        *done = 1;
        return LOGT_OK;
    }
#endif
    (void)ctx;
    LOGT_TRY(gilr_restore_cpu((gilr_model *)base, x));
    *done = 1;
    return LOGT_OK;
}

static logt_status gilr_lstm_forward(logt_model *base, const logt_tensor *x, logt_tensor *h,
                                     logt_ctx *ctx)
{
    LOGT_TRY(keep_io(base, x, h));
#ifdef LOGT_HAVE_CUDA
    if (base->cfg.device == LOGT_CUDA) return gilr_lstm_forward_cuda((gilr_model *)base, x, h, ctx);
#endif
    (void)ctx;
    return gilr_lstm_forward_cpu((gilr_model *)base, x, h);
}

static logt_status gilr_lstm_backward(logt_model *base, const logt_tensor *dh, logt_tensor *dx,
                                      logt_ctx *ctx)
{
#ifdef LOGT_HAVE_CUDA
    if (base->cfg.device == LOGT_CUDA) return gilr_lstm_backward_cuda((gilr_model *)base, dh, dx, ctx);
#endif
    (void)ctx;
    return gilr_lstm_backward_cpu((gilr_model *)base, dh, dx);
}

static void gilr_destroy(logt_model *base)
{
    gilr_model *m = (gilr_model *)base;
#ifdef LOGT_HAVE_CUDA
    gilr_free_cuda(m);
#endif
    logt_tensor_free(&m->sur);
    logt_tensor_free(&m->hs);
    logt_tensor_free(&m->gates);
    logt_tensor_free(&m->c);
    free(m);
}

/* scan = parallel | serial: the linear recurrences by scan_cuda, or by the serial kernel that
 * Martin & Cundy's Table 2 compares it with (cuda; the cpu reference is the same either way).
 * gpus = N: the scans split in time into N pieces (kernels/scan_multi.h), on the cpu the
 * float64 reference of the sequence-parallel path. */
static const char *const gilr_knobs[] = {"scan", "forget_init", "gpus", NULL};

/* recompute = auto's floor: segments of at least 2^25 elements (128 MiB a plane in f32), 8
 * times the other parallel models' (LOGT_SEGMENT_MIN_PARALLEL). Each segment's backward
 * reduces its weight and bias gradients over its rows in chunks, adds them to the others' and
 * runs the input GEMMs again, passes whose cost grows with the number of segments; the floor
 * trades a larger segment's activations for fewer of them (experiments/long-memory, Design
 * notes, has the measurements that chose it). */
#define GILR_SEGMENT_MIN ((int64_t)1 << 25)

const logt_model_ops logt_gilr_ops = {
    .name = "gilr",
    .summary = "GILR: gate and impulse from the input only, the state by a linear scan",
    .devices = GILR_DEVICES,
    .dtypes = GILR_DTYPES,
    .nstate = 1,
    .segments = 1,
    .segment_min = GILR_SEGMENT_MIN,
    .knobs = gilr_knobs,
    .layout = logt_gilr_layout,
    .create = gilr_create,
    .forward = gilr_forward,
    .backward = gilr_backward,
    .restore = gilr_restore,
    .destroy = gilr_destroy,
};

const logt_model_ops logt_gilr_lstm_ops = {
    .name = "gilr-lstm",
    .summary = "GILR-LSTM: an LSTM fed a GILR surrogate of its output; two linear scans",
    .devices = GILR_DEVICES,
    .dtypes = GILR_DTYPES,
    .nstate = 2,
    .segments = 1,
    .segment_min = GILR_SEGMENT_MIN,
    .knobs = gilr_knobs,
    .layout = logt_gilr_lstm_layout,
    .create = gilr_create,
    .forward = gilr_lstm_forward,
    .backward = gilr_lstm_backward,
    .destroy = gilr_destroy,
};
