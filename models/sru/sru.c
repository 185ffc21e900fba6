/* sru.c — the sru model (equations, knobs and layout in sru.h): its ops and the float64 CPU
 * reference. The CUDA path is sru_cuda.cu and sru_cuda_backward.cu, dispatched from the ops
 * below on cfg.device.
 *
 * Forward: the input projection of all T steps at once (one product per row block of
 * [W; Wp]), then c by one of two routes: the element-wise loop over t (both gates read
 * c_{t-1}), or, when v = 0, the forget gates of every step at once and the shared linear scan.
 * Backward: the reversed recurrence (dL/dc carried from t+1 to t, dv and db summed over all
 * steps), then the weight and input gradients as products over all steps; with v = 0 on the
 * scan route, the reversed scan of kernels/scan.h. Cost O(T·B·D·I), of which O(T·B·D) is
 * sequential.
 */
#include "sru.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/dense_cpu.h"
#include "../../kernels/scan.h"
#include "../../kernels/scan_multi.h"

static double sigmoid(double a) { return 1.0 / (1.0 + exp(-a)); }

/* ---- knobs and layout ------------------------------------------------------------------- */

const char *const sru_math_names[] = {"fp32", "tf32", "3xtf32"};

static const char *const knobs[] = {"v", "route", "highway_scale", "math", "forget_init", "gpus", NULL};

logt_status sru_parse_knobs(const logt_model_cfg *cfg, sru_opts *out)
{
    const char *v = logt_cfg_knob(cfg, "v", "on");
    if (!strcmp(v, "on")) out->v_on = 1;
    else if (!strcmp(v, "zero")) out->v_on = 0;
    else
        return LOGT_FAIL(LOGT_EINVAL,
                         "%s: v = '%s' is not a choice: use on (the EMNLP 2018 form, v_f and v_r "
                         "learned) or zero (the 2017 form, v fixed at 0)",
                         cfg->model, v);

    const char *route = logt_cfg_knob(cfg, "route", "auto");
    out->newton = 0;
    if (!strcmp(route, "auto")) out->use_scan = !out->v_on;
    else if (!strcmp(route, "loop")) out->use_scan = 0;
    else if (!strcmp(route, "scan")) out->use_scan = 1;
    else if (!strcmp(route, "newton")) out->use_scan = 0, out->newton = 1;
    else
        return LOGT_FAIL(LOGT_EINVAL, "%s: route = '%s' is not a route: choose auto, loop, scan "
                         "or newton", cfg->model, route);
    if (out->newton && !out->v_on)
        return LOGT_FAIL(LOGT_EINVAL, "%s: route = newton is for v = on (with v = zero the "
                         "recurrence is linear: route = scan is exact)", cfg->model);
    if (out->use_scan && out->v_on)
        return LOGT_FAIL(LOGT_EINVAL,
                         "%s: route = scan needs v = zero (with v the recurrence is not linear "
                         "in c): set v = zero, or route = auto or loop",
                         cfg->model);

    const char *hs = logt_cfg_knob(cfg, "highway_scale", "off");
    char *end = NULL;
    if (!strcmp(hs, "off")) out->alpha = 1.0;
    else if (!strcmp(hs, "sqrt3")) out->alpha = sqrt(3.0);
    else if ((out->alpha = strtod(hs, &end)), end == hs || *end || !(out->alpha > 0) ||
             !isfinite(out->alpha))
        return LOGT_FAIL(LOGT_EINVAL,
                         "%s: highway_scale = '%s' is not a scale: use off (1), sqrt3 (the "
                         "paper's correction) or a positive number",
                         cfg->model, hs);

    const char *mt = logt_cfg_knob(cfg, "math", "fp32");
    out->math = -1;
    for (int i = SRU_MATH_FP32; i <= SRU_MATH_3XTF32; i++)
        if (!strcmp(mt, sru_math_names[i])) out->math = i;
    if (out->math < 0)
        return LOGT_FAIL(LOGT_EINVAL,
                         "%s: math = '%s' is not a math mode: choose fp32 (strict), tf32 (the "
                         "GEMMs on TF32 tensor cores) or 3xtf32 (fp32's accuracy from three TF32 "
                         "products)",
                         cfg->model, mt);
    if (out->math != SRU_MATH_FP32 && cfg->device != LOGT_CUDA)
        return LOGT_FAIL(LOGT_EINVAL,
                         "%s: math = %s sets the cuda GEMMs; on %s the reference computes in "
                         "f64: leave math unset (fp32) or use the cuda backend",
                         cfg->model, mt, logt_device_name(cfg->device));
    LOGT_TRY(logt_model_gpus(cfg, 0, &out->gpus));
    if (out->gpus > 1 && !out->use_scan)
        return LOGT_FAIL(LOGT_EINVAL, "%s: gpus = %d splits the scan route in time, and this sru takes "
                         "route %s: set v = zero (route auto or scan), or gpus = 1", cfg->model, out->gpus,
                         out->newton ? "newton" : "loop");
    return LOGT_OK;
}

logt_status logt_sru_layout(const logt_model_cfg *cfg, logt_layout *out)
{
    sru_opts o;
    LOGT_TRY(sru_parse_knobs(cfg, &o));
    int64_t D = cfg->hidden_size, I = cfg->input_size;
    double k = 1.0 / sqrt((double)D);
    logt_layout_add(out, "W", k, 2, 3 * D, I, 0);
    if (I != D) logt_layout_add(out, "Wp", k, 2, D, I, 0);
    if (o.v_on) logt_layout_add(out, "v", sqrt(1.5), 1, 2 * D, 0, 0);
    logt_layout_add(out, "b", k, 1, 2 * D, 0, 0);
    logt_layout_memory_gate(out, "b", 0, D, -1);   /* [b_f b_r]: f keeps c */
    return LOGT_OK;
}

int64_t sru_recurrence_bytes(int64_t T, int64_t B, int64_t D, logt_dtype dt, int proj, int has_c0,
                             int v_on)
{
    const int64_t n = T * B * D, ds = (int64_t)logt_dtype_size(dt), f = 4;
    int64_t bytes = n * (3 * f + (proj ? f : ds));   /* read z, W_f x, W_r x, x'      */
    bytes += n * (f + ds);                            /* write c, h                    */
    if (has_c0) bytes += B * D * ds;                  /* read c_{-1}                   */
    bytes += (v_on ? 4 : 2) * D * f;                  /* read b (and v)                */
    return bytes;
}

/* ---- forward ------------------------------------------------------------------------------ */

/* route = newton: c [T][C] with c_t = g_t(c_{t-1}) = φ c_{t-1} + (1 − φ) z_t, φ = σ(pf_t +
 * v_d c_{t-1}) (pf: W_f x + b_f, raw), solved by Newton's method over all steps: evaluate
 * g and g' at the guess, then one linear scan for the next guess. The Jacobian is diagonal,
 * so this is exact Newton (quadratic near the answer) at the cost of the element-wise scan. */
static logt_status newton_c(sru_model *m, int64_t T, int64_t C, int64_t D, const double *z,
                            const double *pf, const double *v, const double *c0, double *c)
{
    const int64_t N = T * C;
    const int max_evals = (int)(sizeof m->residual / sizeof m->residual[0]);
    double *a = malloc((size_t)N * sizeof *a), *b = malloc((size_t)N * sizeof *b);
    if (!a || !b) {
        free(a), free(b);
        return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    }
    memset(c, 0, (size_t)N * sizeof *c);
    logt_status s = LOGT_OK;
    for (int k = 0;; k++) {
        double res = 0.0;
        for (int64_t e = 0; e < N; e++) {
            const int64_t d = e % C % D;
            const double cp = e >= C ? c[e - C] : c0 ? c0[e] : 0.0;
            const double phi = sigmoid(pf[e] + v[d] * cp), g = phi * cp + (1.0 - phi) * z[e];
            a[e] = phi + phi * (1.0 - phi) * v[d] * (cp - z[e]);   /* ∂g/∂c_{t-1} */
            b[e] = g - a[e] * cp;
            const double r = fabs(c[e] - g);
            res = r > res || isnan(r) ? r : res;
        }
        m->residual[k] = res;
        m->iterations = k;
        if (res <= 1e-12) break;
        if (!isfinite(res) || k + 1 == max_evals) {
            s = LOGT_FAIL(LOGT_ENUMERIC, "%s route = newton did not converge: residual %.3g after "
                          "%d iterations. HINT: route = loop", m->base.cfg.model, res, k);
            break;
        }
        if ((s = scan_cpu(T, C, a, b, c0, c)) != LOGT_OK) break;   /* c_t = a_t c_{t-1} + b_t */
    }
    m->base.trace = m->residual, m->base.ntrace = m->iterations + 1;
    snprintf(m->base.trace_name, sizeof m->base.trace_name, "newton_residual");
    free(a), free(b);
    return s;
}

logt_status sru_forward_cpu(sru_model *m, const logt_tensor *x, logt_tensor *h)
{
    const int64_t T = x->shape[0], B = x->shape[1], I = x->shape[2], D = m->base.cfg.hidden_size;
    const int64_t N = T * B, K = I != D ? 4 : 3;
    LOGT_TRY(logt_tensor_ensure3(&m->gates, LOGT_CPU, LOGT_F64, K, N, D));
    LOGT_TRY(logt_tensor_ensure3(&m->c, LOGT_CPU, LOGT_F64, T, B, D));
    const double *W = logt_model_param(&m->base, &m->base.w, "W").data;   /* [3D][I] */
    const double *Wp = I != D ? logt_model_param(&m->base, &m->base.w, "Wp").data : NULL;
    const double *v = m->o.v_on ? logt_model_param(&m->base, &m->base.w, "v").data : NULL;
    const double *bias = logt_model_param(&m->base, &m->base.w, "b").data;  /* [2D]    */
    const double *X = x->data, *c0 = m->base.h0.data, alpha = m->o.alpha;
    double *G = m->gates.data, *C = m->c.data, *H = h->data;
    double *z = G, *f = G + N * D, *r = G + 2 * N * D;
    const double *xp = Wp ? G + 3 * N * D : X;   /* x'_t: W_p x_t, or x_t itself */

    /* 1. every step's projections at once: z, then the gates' pre-activations without v */
    for (int k = 0; k < 3; k++) {
        dense_set_rows_cpu(N, D, k ? bias + (k - 1) * D : NULL, G + k * N * D);
        dense_add_cpu(N, D, I, W + k * D * I, X, G + k * N * D);
    }
    if (Wp) {
        dense_set_rows_cpu(N, D, NULL, G + 3 * N * D);
        dense_add_cpu(N, D, I, Wp, X, G + 3 * N * D);
    }

    /* 2. the cell state */
    if (m->o.use_scan) {   /* v = 0: f needs no c, so c is a linear scan */
        for (int64_t e = 0; e < N * D; e++) {
            f[e] = sigmoid(f[e]);
            C[e] = (1.0 - f[e]) * z[e];   /* the scan's b, in place of its output */
        }
        LOGT_TRY(scan_split_cpu(m->o.gpus, 0, T, B * D, f, C, c0, C));   /* c_t = f_t ⊙ c_{t-1} + (1 − f_t) ⊙ z_t */
        for (int64_t e = 0; e < N * D; e++) r[e] = sigmoid(r[e]);
    } else if (m->o.newton) {   /* Newton over the sequence, then the gates from the answer */
        LOGT_TRY(newton_c(m, T, B * D, D, z, f, v, c0, C));
        for (int64_t e = 0; e < N * D; e++) {
            const int64_t d = e % D;
            const double cp = e >= B * D ? C[e - B * D] : c0 ? c0[e] : 0.0;
            f[e] = sigmoid(f[e] + v[d] * cp);
            r[e] = sigmoid(r[e] + v[D + d] * cp);
            C[e] = f[e] * cp + (1.0 - f[e]) * z[e];
        }
    } else {               /* both gates read c_{t-1}: one step after another */
        for (int64_t t = 0; t < T; t++)
            for (int64_t j = 0; j < B * D; j++) {
                const int64_t e = t * B * D + j, d = j % D;
                const double cp = t ? C[e - B * D] : c0 ? c0[j] : 0.0;   /* c_{t-1} */
                double pf = f[e], pr = r[e];
                if (v) pf += v[d] * cp, pr += v[D + d] * cp;
                f[e] = sigmoid(pf);
                r[e] = sigmoid(pr);
                C[e] = f[e] * cp + (1.0 - f[e]) * z[e];
            }
    }

    /* 3. the highway output */
    for (int64_t e = 0; e < N * D; e++)
        H[e] = r[e] * C[e] + (1.0 - r[e]) * (alpha * xp[e]);
    /* a segment's final state, c_{T-1}, in the h0 slot's place */
    if (m->base.hT.data) memcpy(m->base.hT.data, C + (T - 1) * B * D, (size_t)(B * D) * sizeof *C);
    return LOGT_OK;
}

/* ---- backward ----------------------------------------------------------------------------- */

/* The reversed recurrence, one step after another: from gc = dL/dc_t (its direct part
 * dH ⊙ r in E) write dL/dz into dz, dL/d(pre f) into df, dL/d(pre r) into dr, accumulate dv,
 * and leave dL/dc_{-1} in dc0 unless NULL. */
static void recurrence_backward(int64_t T, int64_t B, int64_t D, const double *z,
                                const double *f, const double *C, const double *c0,
                                const double *v, const double *E, double *dz, double *df,
                                const double *dr, double *dv, double *carry)
{
    const int64_t BD = B * D;
    memset(carry, 0, (size_t)BD * sizeof *carry);   /* dL/dc_t from step t+1 */
    for (int64_t t = T - 1; t >= 0; t--)
        for (int64_t j = 0; j < BD; j++) {
            const int64_t e = t * BD + j, d = j % D;
            const double cp = t ? C[e - BD] : c0 ? c0[j] : 0.0;
            const double gc = carry[j] + E[e];
            df[e] = gc * (cp - z[e]) * f[e] * (1.0 - f[e]);
            dz[e] = gc * (1.0 - f[e]);
            double back = gc * f[e];
            if (v) {
                back += df[e] * v[d] + dr[e] * v[D + d];
                dv[d] += df[e] * cp;
                dv[D + d] += dr[e] * cp;
            }
            carry[j] = back;
        }
}

logt_status sru_backward_cpu(sru_model *m, const logt_tensor *dh, logt_tensor *dx)
{
    const logt_tensor *x = &m->x;
    const int64_t T = x->shape[0], B = x->shape[1], I = x->shape[2], D = m->base.cfg.hidden_size;
    const int64_t N = T * B, ND = N * D, K = I != D ? 4 : 3;
    const double *W = logt_model_param(&m->base, &m->base.w, "W").data;
    const double *Wp = I != D ? logt_model_param(&m->base, &m->base.w, "Wp").data : NULL;
    const double *v = m->o.v_on ? logt_model_param(&m->base, &m->base.w, "v").data : NULL;
    double *dW = logt_model_param(&m->base, &m->base.dw, "W").data;
    double *dWp = Wp ? logt_model_param(&m->base, &m->base.dw, "Wp").data : NULL;
    double *dv = v ? logt_model_param(&m->base, &m->base.dw, "v").data : NULL;
    double *db = logt_model_param(&m->base, &m->base.dw, "b").data;
    const double *X = x->data, *c0 = m->base.h0.data, *dH = dh->data, alpha = m->o.alpha;
    const double *G = m->gates.data, *C = m->c.data;
    const double *z = G, *f = G + ND, *r = G + 2 * ND, *xp = Wp ? G + 3 * ND : X;
    double *dc0 = m->base.dh0.data;   /* the h0 slot holds c_{-1} */

    double *scratch = malloc((size_t)((K + 1) * ND + B * D) * sizeof *scratch);
    if (!scratch) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    double *dG = scratch;            /* [K][N][D] dL/d(z, pre f, pre r, W_p x)       */
    double *E = scratch + K * ND;    /* [N][D] dL/dc_t through h_t alone             */
    double *carry = E + ND;          /* [B][D]                                        */
    double *dz = dG, *df = dG + ND, *dr = dG + 2 * ND, *dxp = Wp ? dG + 3 * ND : NULL;
    logt_status s = LOGT_OK;

    /* 1. h = r ⊙ c + (1 − r) ⊙ α x' */
    for (int64_t e = 0; e < ND; e++) {
        E[e] = dH[e] * r[e];
        dr[e] = dH[e] * (C[e] - alpha * xp[e]) * r[e] * (1.0 - r[e]);
        if (dxp) dxp[e] = dH[e] * (1.0 - r[e]) * alpha;
    }
    /* a segment's dL/dc_{T-1} from the steps after it joins the last step's, as the carry
     * from step T would in the whole sequence */
    const double *dcT = m->base.dhT.data;
    if (dcT)
        for (int64_t j = 0; j < B * D; j++) E[ND - B * D + j] += dcT[j];

    /* 2. the cell state, backwards in time */
    const int add = m->base.dw_add;   /* a segment adds to the gradients of those after it */
    if (v && !add) memset(dv, 0, (size_t)(2 * D) * sizeof *dv);
    if (m->o.use_scan) {   /* a reversed scan: dL/df into df, dL/d((1 − f) ⊙ z) into dz */
        s = scan_backward_split_cpu(m->o.gpus, T, B * D, f, c0, C, E, df, dz, dc0);
        if (s != LOGT_OK) goto done;
        for (int64_t e = 0; e < ND; e++) {
            double gb = dz[e];
            df[e] = (df[e] - gb * z[e]) * f[e] * (1.0 - f[e]);
            dz[e] = gb * (1.0 - f[e]);
        }
    } else {
        recurrence_backward(T, B, D, z, f, C, c0, v, E, dz, df, dr, dv, carry);
        if (dc0) memcpy(dc0, carry, (size_t)(B * D) * sizeof *dc0);
    }

    /* 3. weights and bias, summed over all steps */
    if (!add) {
        memset(dW, 0, (size_t)(3 * D * I) * sizeof *dW);
        memset(db, 0, (size_t)(2 * D) * sizeof *db);
    }
    for (int k = 0; k < 3; k++)
        dense_add_dw_cpu(N, D, I, dG + k * ND, X, dW + k * D * I, k ? db + (k - 1) * D : NULL);
    if (Wp) {
        if (!add) memset(dWp, 0, (size_t)(D * I) * sizeof *dWp);
        dense_add_dw_cpu(N, D, I, dxp, X, dWp, NULL);
    }

    /* 4. the input: through every projection, and the highway directly when x' = x */
    if (dx) {
        double *dX = dx->data;
        memset(dX, 0, (size_t)(N * I) * sizeof *dX);
        for (int k = 0; k < 3; k++) dense_add_dx_cpu(N, D, I, W + k * D * I, dG + k * ND, dX);
        if (Wp) dense_add_dx_cpu(N, D, I, Wp, dxp, dX);
        else
            for (int64_t e = 0; e < ND; e++) dX[e] += dH[e] * (1.0 - r[e]) * alpha;
    }
done:
    free(scratch);
    return s;
}

/* ---- ops ---------------------------------------------------------------------------------- */

static logt_status sru_create(const logt_model_cfg *cfg, logt_model **out)
{
    sru_model *m = calloc(1, sizeof *m);
    if (!m) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    logt_status s = sru_parse_knobs(cfg, &m->o);
    if (s != LOGT_OK) {
        free(m);
        return s;
    }
    if (cfg->device == LOGT_CUDA)   /* sru_forward_cuda says more once it knows the shape */
        snprintf(m->base.impl, sizeof m->base.impl,
                 "cuda %s, math=%s: one batched input GEMM, then %s; v %s, highway scale %g",
                 logt_dtype_name(cfg->dtype), sru_math_names[m->o.math],
                 m->o.use_scan ? "the linear scan for c" : "the fused element-wise loop",
                 m->o.v_on ? "on" : "zero", m->o.alpha);
    else if (m->o.gpus > 1)
        snprintf(m->base.impl, sizeof m->base.impl,
                 "cpu f64 reference: input projection of all steps, then c's linear scan in %d "
                 "pieces of time; v zero, highway scale %g", m->o.gpus, m->o.alpha);
    else
        snprintf(m->base.impl, sizeof m->base.impl,
                 "cpu f64 reference: input projection of all steps, then %s; v %s, highway scale %g",
                 m->o.use_scan ? "a serial linear scan for c"
                 : m->o.newton ? "c by Newton over the sequence (diagonal Jacobian, linear scans)"
                               : "the element-wise recurrence step by step",
                 m->o.v_on ? "on" : "zero", m->o.alpha);
    *out = &m->base;
    return LOGT_OK;
}

static logt_status sru_forward(logt_model *base, const logt_tensor *x, logt_tensor *h,
                               logt_ctx *ctx)
{
    sru_model *m = (sru_model *)base;
    m->x = *x;
    m->h = *h;
    m->x.owns = m->h.owns = 0;
#ifdef LOGT_HAVE_CUDA
    if (base->cfg.device == LOGT_CUDA) return sru_forward_cuda(m, x, h, ctx);
#endif
    (void)ctx;
    return sru_forward_cpu(m, x, h);
}

static logt_status sru_backward(logt_model *base, const logt_tensor *dh, logt_tensor *dx,
                                logt_ctx *ctx)
{
#ifdef LOGT_HAVE_CUDA
    if (base->cfg.device == LOGT_CUDA) return sru_backward_cuda((sru_model *)base, dh, dx, ctx);
#endif
    (void)ctx;
    return sru_backward_cpu((sru_model *)base, dh, dx);
}

static void sru_destroy(logt_model *base)
{
    sru_model *m = (sru_model *)base;
#ifdef LOGT_HAVE_CUDA
    sru_free_cuda(m);
#endif
    logt_tensor_free(&m->gates);
    logt_tensor_free(&m->c);
    free(m);
}

const logt_model_ops logt_sru_ops = {
    .name = "sru",
    .summary = "SRU: one input product for every gate, then an element-wise recurrence in c",
    .devices = LOGT_BIT(LOGT_CPU) | LOGT_BIT(LOGT_CUDA),
    .dtypes = {[LOGT_CPU] = LOGT_BIT(LOGT_F64),
               [LOGT_CUDA] = LOGT_BIT(LOGT_F32) | LOGT_BIT(LOGT_BF16) | LOGT_BIT(LOGT_F16)},
    .nstate = 1,
    .segments = 1,
    .segment_min = LOGT_SEGMENT_MIN_PARALLEL,
    .knobs = knobs,
    .layout = logt_sru_layout,
    .create = sru_create,
    .forward = sru_forward,
    .backward = sru_backward,
    .destroy = sru_destroy,
};
