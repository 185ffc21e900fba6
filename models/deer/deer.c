/* deer.c — the deer model (method, modes and knobs in deer.h): its ops and the float64 CPU
 * reference. Written to be read and to judge the parallel versions against: each Newton
 * iteration is "evaluate every step, then solve one linear recurrence", in that order, but
 * the recurrence is solved here by the plain loop (deer_mscan_chunked, deer_solvers.c, shows
 * the associative form a parallel scan uses, and the tests hold the two equal).
 */
#include "deer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../kernels/dense_cpu.h"
#include "deer_cell.h"

static const char *const knobs[] = {"mode",          "tol",     "max_iter",     "on_fail",
                                    "lambda",        "warm",    "solver",       "newton_kernel",
                                    "r_scale",       "forget_init", "tol_schedule", "jacobian_clamp",
                                    "gpus",          NULL};
static const char *const solver_names[] = {"newton", "launch", "fused"};
static const char *const newton_kernel_names[] = {"auto", "persistent", "launches"};
static const char *const mode_names[] = {"full", "quasi", "damped"};
static const char *const cell_names[] = {[DEER_GRU] = "gru", [DEER_TANH] = "tanh", [DEER_LSTM] = "lstm", NULL};
extern const logt_model_ops logt_deer_ops;

const char *deer_mode_name(deer_mode mode)
{
    return mode >= DEER_FULL && mode <= DEER_DAMPED ? mode_names[mode] : "?";
}

static int ngates(deer_cell cell) { return cell == DEER_LSTM ? 4 : cell == DEER_GRU ? 3 : 1; }

/* ---- configuration ------------------------------------------------------------------- */

typedef struct opts {
    deer_cell cell;
    deer_mode mode;
    double tol, lambda, r_scale;
    int max_iter, fallback, retry, warm, solver, newton_kernel, gpus;
    double tol_end, clamp;   /* tol_schedule's END (tol: START), jacobian_clamp (0: off) */
    int64_t tol_steps;       /* tol_schedule's STEPS; 0: no schedule                    */
} opts;

static logt_status parse_num(const logt_model_cfg *cfg, const char *key, const char *dflt,
                             double lo, double hi, const char *what, double *out)
{
    const char *v = logt_cfg_knob(cfg, key, dflt);
    char *end;
    double d = strtod(v, &end);
    if (end == v || *end || !(d >= lo && d <= hi))
        return LOGT_FAIL(LOGT_EINVAL, "%s: %s = '%s': %s", cfg->model, key, v, what);
    *out = d;
    return LOGT_OK;
}

/* tol_schedule = START:END:STEPS into o (tol = START), or tol alone (END = tol, no steps). */
static logt_status parse_schedule(const logt_model_cfg *cfg, opts *o)
{
    const char *v = logt_cfg_knob(cfg, "tol_schedule", NULL);
    o->tol_end = o->tol, o->tol_steps = 0;
    if (!v) return LOGT_OK;
    if (logt_cfg_knob(cfg, "tol", NULL))
        return LOGT_FAIL(LOGT_EINVAL, "%s: tol = %s and tol_schedule = %s: set one of them (the "
                         "schedule starts at its START)", cfg->model, logt_cfg_knob(cfg, "tol", ""), v);
    char *p;   /* three numbers, each after the one before and a ':' */
    const char *q = v;
    double a = strtod(q, &p), b = 0, n = 0;
    int ok = p != q && *p == ':';
    if (ok) q = p + 1, b = strtod(q, &p), ok = p != q && *p == ':';
    if (ok) q = p + 1, n = strtod(q, &p), ok = p != q && !*p;
    if (!ok)
        return LOGT_FAIL(LOGT_EINVAL, "%s: tol_schedule = '%s': START:END:STEPS, e.g. 1e-4:1e-8:1000 "
                         "(the tolerance from START at step 0 to END at step STEPS, geometrically, "
                         "then END)", cfg->model, v);
    if (!(a > 0 && b > 0 && a < 1e300 && b < 1e300))
        return LOGT_FAIL(LOGT_EINVAL, "%s: tol_schedule = '%s': START and END must be tolerances "
                         "above 0 (the schedule is geometric), e.g. 1e-4:1e-8:1000", cfg->model, v);
    if (b > a)
        return LOGT_FAIL(LOGT_EINVAL, "%s: tol_schedule = '%s' ends looser than it starts (END %g > "
                         "START %g): a schedule tightens, END <= START, e.g. %g:%g:%.0f", cfg->model,
                         v, b, a, b, a, n);
    if (!(n >= 1 && n <= 1e15 && n == floor(n)))
        return LOGT_FAIL(LOGT_EINVAL, "%s: tol_schedule = '%s': STEPS must be a whole number of "
                         "training steps, at least 1", cfg->model, v);
    o->tol = a, o->tol_end = b, o->tol_steps = (int64_t)n;
    return LOGT_OK;
}

/* jacobian_clamp = off | X > 0 into o->clamp (0: off). */
static logt_status parse_clamp(const logt_model_cfg *cfg, opts *o)
{
    const char *v = logt_cfg_knob(cfg, "jacobian_clamp", "off");
    char *end;
    o->clamp = 0;
    if (!strcmp(v, "off")) return LOGT_OK;
    const double x = strtod(v, &end);
    if (end == v || *end || !(x > 0 && x < 1e300))
        return LOGT_FAIL(LOGT_EINVAL, "%s: jacobian_clamp = '%s': a bound X > 0 on the entries of the "
                         "Jacobian Newton uses (each clamped to [-X, X] and counted), e.g. 1, or off",
                         cfg->model, v);
    o->clamp = x;
    return LOGT_OK;
}

static logt_status check_cfg(const logt_model_cfg *cfg, opts *o)
{
    const int c = logt_model_cell(&logt_deer_ops, cfg);   /* cell_names: the enum's order */
    if (c < 0) return logt_model_check(&logt_deer_ops, cfg);   /* names the valid cells */
    o->cell = (deer_cell)c;
    const char *mode = logt_cfg_knob(cfg, "mode", "full");
    int found = -1;
    for (int i = 0; i < 3; i++)
        if (!strcmp(mode, mode_names[i])) found = i;
    if (found < 0)
        return LOGT_FAIL(LOGT_EINVAL, "%s: mode = '%s': choose full (Newton, D×D Jacobians), "
                         "quasi (their diagonal) or damped (quasi with an ELK damping term)",
                         cfg->model, mode);
    o->mode = (deer_mode)found;
    double mi;
    LOGT_TRY(parse_num(cfg, "tol", cfg->device == LOGT_CUDA ? "1e-5" : "1e-10", 0, 1e300,
                       "a tolerance >= 0 on max |h_t - f(h_{t-1})|", &o->tol));
    LOGT_TRY(parse_num(cfg, "max_iter", "200", 1, 1e6, "1 to 1000000 Newton iterations", &mi));
    LOGT_TRY(parse_num(cfg, "lambda", "1", 0, 1e12, "the initial damping, >= 0", &o->lambda));
    LOGT_TRY(parse_num(cfg, "r_scale", "1", 1e-6, 1e6,
                       "a factor > 0 on R's initialisation bound (1: flashrnn's 1/sqrt(D))", &o->r_scale));
    o->max_iter = (int)mi;
    if (mi != o->max_iter)
        return LOGT_FAIL(LOGT_EINVAL, "%s: max_iter must be a whole number", cfg->model);
    LOGT_TRY(parse_schedule(cfg, o));
    LOGT_TRY(parse_clamp(cfg, o));
    const char *of = logt_cfg_knob(cfg, "on_fail", "error");
    if (strcmp(of, "error") && strcmp(of, "sequential") && strcmp(of, "retry"))
        return LOGT_FAIL(LOGT_EINVAL, "%s: on_fail = '%s': error (report and fail), sequential "
                         "(report and solve step by step) or retry (report and fail; training goes "
                         "back to its last checkpoint with tol x10 and max_iter x2)", cfg->model, of);
    o->fallback = !strcmp(of, "sequential");
    o->retry = !strcmp(of, "retry");
    const char *w = logt_cfg_knob(cfg, "warm", "off");
    if (strcmp(w, "off") && strcmp(w, "on"))
        return LOGT_FAIL(LOGT_EINVAL, "%s: warm = '%s': on (start from the previous call's "
                         "solution when the shape matches) or off (zeros)", cfg->model, w);
    o->warm = !strcmp(w, "on");
    int K, wave;
    LOGT_TRY(logt_net_recompute_of(cfg, &K));
    LOGT_TRY(logt_net_wavefront_of(cfg, &wave));
    if ((K || wave) && o->warm)
        return LOGT_FAIL(LOGT_EUNSUPPORTED, "%s: warm = on starts a call from the previous call's "
                         "solution of the same sequence, and %s runs the sequence in segments, "
                         "each of which would start from another segment's: leave warm off, or %s "
                         "off", cfg->model, K ? "recompute" : "layers_wavefront", K ? "recompute" : "layers_wavefront");
    const char *sv = logt_cfg_knob(cfg, "solver", "newton");
    o->solver = -1;
    for (int i = 0; i < 3; i++)
        if (!strcmp(sv, solver_names[i])) o->solver = i;
    if (o->solver < 0 || (o->solver && cfg->device != LOGT_CUDA))
        return LOGT_FAIL(LOGT_EINVAL, "%s: solver = '%s': newton (the default), or on cuda the "
                         "sequential baselines launch (one kernel launch per step) and fused (one "
                         "persistent kernel, the state in shared memory)", cfg->model, sv);
    if (o->solver && o->clamp > 0)
        return LOGT_FAIL(LOGT_EINVAL, "%s: jacobian_clamp bounds Newton's Jacobians, and solver = %s "
                         "has none: use solver = newton, or leave jacobian_clamp off", cfg->model, sv);
    const char *nk = logt_cfg_knob(cfg, "newton_kernel", "auto");
    o->newton_kernel = -1;
    for (int i = 0; i < 3; i++)
        if (!strcmp(nk, newton_kernel_names[i])) o->newton_kernel = i;
    if (o->newton_kernel < 0)
        return LOGT_FAIL(LOGT_EINVAL, "%s: newton_kernel = '%s': auto (the default), persistent "
                         "(the whole Newton solve in one cooperative kernel, states of 1-4) or "
                         "launches (an evaluation kernel and a scan per iteration)", cfg->model, nk);
    LOGT_TRY(deer_pieces_check(cfg, o->mode, o->warm, o->fallback, o->clamp, o->solver, o->newton_kernel, &o->gpus));
    if (cfg->device == LOGT_CUDA && o->solver == 0) {
        if (o->mode == DEER_FULL && (deer_state_size(o->cell, cfg->hidden_size) > 64 ||
                                     ngates(o->cell) * cfg->hidden_size > 256))
            return LOGT_FAIL(LOGT_EUNSUPPORTED, "%s: mode = full on cuda is built for states of "
                             "at most 64 (and G·D <= 256), not %lld (cell %s, D = %d): use "
                             "mode = quasi, or the cpu", cfg->model,
                             (long long)deer_state_size(o->cell, cfg->hidden_size),
                             cell_names[o->cell], cfg->hidden_size);
    }
    return LOGT_OK;
}

static logt_status deer_layout(const logt_model_cfg *cfg, logt_layout *out)
{
    opts o;
    LOGT_TRY(check_cfg(cfg, &o));
    const int64_t D = cfg->hidden_size, I = cfg->input_size, G = ngates(o.cell);
    const double k = 1.0 / sqrt((double)D);   /* the fan-ins of flashrnn with one head */
    logt_layout_add(out, "W", k, 2, G * D, I, 0);
    logt_layout_add(out, "R", k * o.r_scale, 3, 1, D, G * D);
    logt_layout_add(out, "b", k, 1, G * D, 0, 0);
    if (o.cell == DEER_GRU) logt_layout_add(out, "bn", k, 1, D, 0, 0);
    if (o.cell != DEER_TANH)   /* as flashrnn: lstm's f (i gets -f, chrono), gru's z */
        logt_layout_memory_gate(out, "b", D, D, o.cell == DEER_LSTM ? 0 : -1);
    return LOGT_OK;
}

static logt_status deer_create(const logt_model_cfg *cfg, logt_model **out)
{
    opts o;
    LOGT_TRY(check_cfg(cfg, &o));
    deer_model *m = calloc(1, sizeof *m);
    if (!m) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    m->cell = o.cell, m->mode = o.mode, m->tol = o.tol, m->lambda = o.lambda;
    m->max_iter = m->max_iter_knob = o.max_iter, m->fallback = o.fallback, m->warm = o.warm;
    m->solver = o.solver, m->newton_kernel = o.newton_kernel, m->gpus = o.gpus;
    m->base.nslots = o.cell == DEER_LSTM ? 2 : 1;   /* h, c / h */
    m->tol_start = o.tol, m->tol_end = o.tol_end, m->tol_steps = o.tol_steps, m->clamp = o.clamp;
    m->base.retry = o.retry, m->base.clamping = o.clamp > 0;
    deer_settings(m, NULL);
    char tol[96], clamp[48] = "";
    if (o.tol_steps)
        snprintf(tol, sizeof tol, "tol %g to %g over %lld steps", o.tol, o.tol_end, (long long)o.tol_steps);
    else
        snprintf(tol, sizeof tol, "tol %g", o.tol);
    if (o.clamp > 0) snprintf(clamp, sizeof clamp, ", Jacobian clamped to %g", o.clamp);
    if (cfg->device == LOGT_CUDA && o.solver)
        snprintf(m->base.impl, sizeof m->base.impl, "cuda f32 %s cell, sequential baseline: %s",
                 cell_names[o.cell], o.solver == 1 ? "one kernel launch per step"
                                                   : "one persistent kernel, state in shared memory");
    else
        snprintf(m->base.impl, sizeof m->base.impl, "%s, %s cell, Newton mode %s, %s, at most %d "
                 "iterations%s", cfg->device == LOGT_CUDA ? (o.gpus > 1 ? "cuda f32, pieces" : "cuda f32")
                 : o.gpus > 1 ? "cpu f64, pieces" : "cpu f64 reference",
                 cell_names[o.cell], mode_names[o.mode], tol, o.max_iter, clamp);
    *out = &m->base;
    return LOGT_OK;
}

/* ---- the forward's settings ----------------------------------------------------------------- */

double deer_tol_at(const deer_model *m, int64_t step)
{
    if (!m->tol_steps || step < 0) return m->tol_end;
    const double f = step < m->tol_steps ? (double)step / (double)m->tol_steps : 1.0;
    return m->tol_start * pow(m->tol_end / m->tol_start, f);
}

void deer_settings(deer_model *m, const logt_ctx *ctx)
{
    const int relax = ctx && ctx->relax > 0 ? (ctx->relax < 60 ? ctx->relax : 60) : 0;
    m->tol = deer_tol_at(m, ctx ? ctx->step : -1) * pow(10.0, relax);
    const double cap = ldexp((double)m->max_iter_knob, relax);
    m->max_iter = cap < 1e6 ? (int)cap : 1000000;   /* the knob's own limit */
}

void deer_detail_settings(deer_model *m)
{
    const size_t n = strlen(m->base.detail);
    if (m->solver) return;   /* the sequential baselines have no Newton settings */
    if (m->clamp > 0)
        snprintf(m->base.detail + n, sizeof m->base.detail - n, " tol=%g max_iter=%d clamped=%lld",
                 m->tol, m->max_iter, (long long)m->base.clamped);
    else
        snprintf(m->base.detail + n, sizeof m->base.detail - n, " tol=%g max_iter=%d", m->tol,
                 m->max_iter);
}

/* jacobian_clamp: the n entries of J clamped to [-X, X]; returns how many were outside. */
static int64_t clamp_entries(double *J, int64_t n, double X)
{
    int64_t c = 0;
    for (int64_t i = 0; i < n; i++)
        if (fabs(J[i]) > X) J[i] = copysign(X, J[i]), c++;
    return c;
}

/* ---- the cells and their Jacobians ------------------------------------------------------ */

int64_t deer_state_size(deer_cell cell, int64_t D) { return cell == DEER_LSTM ? 2 * D : D; }

void deer_cell_eval(deer_cell cell, int64_t D, const double *R, const double *bn, const double *xa,
                    const double *sp, double *f, double *J, double *jd, double *work)
{
    deer_cell_eval_hd(cell, D, R, bn, xa, sp, f, J, jd, work);
}

void deer_cell_vjp(deer_cell cell, int64_t D, const double *R, const double *bn, const double *xa,
                   const double *sp, const double *lam, double *u, double *dxa, double *dra, double *work)
{
    const int64_t G = ngates(cell), S = deer_state_size(cell, D);
    const double *hp = sp;
    double *f = work + G * D;
    deer_cell_eval(cell, D, R, bn, xa, sp, f, NULL, NULL, work);   /* work: hp R (+bn) */
    for (int64_t j = 0; j < S; j++) u[j] = 0.0;
    if (cell == DEER_TANH) {
        for (int64_t j = 0; j < D; j++) dxa[j] = dra[j] = lam[j] * (1.0 - f[j] * f[j]);
    } else if (cell == DEER_LSTM) {
        for (int64_t j = 0; j < D; j++) {
            double a[4] = {xa[j] + work[j], xa[D + j] + work[D + j], xa[2 * D + j] + work[2 * D + j],
                           xa[3 * D + j] + work[3 * D + j]};
            double hh, da[4];
            const double c = lstm_cell_forward(a, 1, sp[D + j], &hh);
            u[D + j] = lstm_cell_backward(a, 1, sp[D + j], c, lam[j], lam[D + j], da);
            for (int g = 0; g < 4; g++) dxa[g * D + j] = dra[g * D + j] = da[g];
        }
    } else {
        double q[4];
        for (int64_t j = 0; j < D; j++) {
            const double xj[3] = {xa[j], xa[D + j], xa[2 * D + j]};
            const double rj[3] = {work[j], work[D + j], work[2 * D + j]};
            double gx[3], gr[3];
            gru_cell_forward(xj, rj, hp[j], 1, q);
            u[j] += gru_cell_backward(q, 1, hp[j], lam[j], gx, gr);   /* through z */
            for (int g = 0; g < 3; g++) dxa[g * D + j] = gx[g], dra[g * D + j] = gr[g];
        }
    }
    for (int64_t mm = 0; mm < D; mm++) {   /* through R: R dra */
        double acc = 0.0;
        for (int64_t c = 0; c < G * D; c++) acc += R[mm * G * D + c] * dra[c];
        u[mm] += acc;
    }
}

/* ---- memory ------------------------------------------------------------------------------- */

double deer_full_bytes(int64_t T, int64_t B, int64_t D)
{
    return (double)T * (double)B * (double)D * (double)D * sizeof(double);
}

logt_status deer_check_memory(deer_mode mode, int64_t T, int64_t B, int64_t D, double avail)
{
    if (mode != DEER_FULL) return LOGT_OK;
    const double need = deer_full_bytes(T, B, D);
    if (need <= avail) return LOGT_OK;
    const double fit_T = floor(avail / deer_full_bytes(1, B, D));
    return LOGT_FAIL(LOGT_ENOMEM,
                     "deer mode = full needs %.3g GiB for the T·B·D² Jacobians (T = %lld, B = %lld, "
                     "D = %lld) and %.3g GiB may be used here: use mode = quasi or damped (O(T·B·D), "
                     "%.3g GiB), or T <= %.0f",
                     need / 1073741824.0, (long long)T, (long long)B, (long long)D,
                     avail / 1073741824.0, (double)T * B * D * 8 * 4 / 1073741824.0, fit_T);
}

/* Half the machine's memory: what the Jacobians of one call may take. */
static double memory_for_jacobians(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && size > 0 ? 0.5 * (double)pages * (double)size : 1e9;
}

/* ---- forward ------------------------------------------------------------------------------- */

/* The plain loop: s_t = f(s_{t-1}, x_t), s_{-1} = s0 [B][S]. */
static void sequential(const deer_model *m, int64_t T, int64_t B, int64_t D, const double *R,
                       const double *bn, const double *WX, const double *s0, double *St,
                       double *work)
{
    const int64_t G = ngates(m->cell), S = deer_state_size(m->cell, D);
    for (int64_t n = 0; n < T * B; n++)
        deer_cell_eval(m->cell, D, R, bn, WX + n * G * D, n >= B ? St + (n - B) * S : s0 + (n % B) * S,
                       St + n * S, NULL, NULL, work);
}

/* s_{-1} of every sequence: [h0; c0] (lstm) or h0, zeros where not given. */
static void initial_state(const deer_model *m, int64_t B, int64_t D, double *s0)
{
    const int64_t S = deer_state_size(m->cell, D);
    const double *h0 = m->base.h0.data, *c0 = m->base.c0.data;
    for (int64_t b = 0; b < B; b++)
        for (int64_t j = 0; j < D; j++) {
            s0[b * S + j] = h0 ? h0[b * D + j] : 0.0;
            if (S > D) s0[b * S + D + j] = c0 ? c0[b * D + j] : 0.0;
        }
}

/* m->wx = W x_t + b at every step, and m->st made [T][B][S]: what the solve and the backward read. */
static logt_status project_cpu(deer_model *m, const logt_tensor *x)
{
    const int64_t T = x->shape[0], B = x->shape[1], I = x->shape[2], D = m->base.cfg.hidden_size;
    const int64_t G = ngates(m->cell), S = deer_state_size(m->cell, D);
    LOGT_TRY(logt_tensor_ensure3(&m->wx, LOGT_CPU, LOGT_F64, T, B, G * D));
    LOGT_TRY(logt_tensor_ensure3(&m->st, LOGT_CPU, LOGT_F64, T, B, S));
    dense_set_rows_cpu(T * B, G * D, logt_model_param(&m->base, &m->base.w, "b").data, m->wx.data);
    dense_add_cpu(T * B, G * D, I, logt_model_param(&m->base, &m->base.w, "W").data, x->data, m->wx.data);
    return LOGT_OK;
}

logt_status deer_forward_cpu(deer_model *m, const logt_tensor *x, logt_tensor *h)
{
    if (m->gpus > 1) return deer_forward_pieces_cpu(m, x, h);
    const int64_t T = x->shape[0], B = x->shape[1], D = m->base.cfg.hidden_size;
    const int64_t G = ngates(m->cell), N = T * B, S = deer_state_size(m->cell, D);
    const int full = m->mode == DEER_FULL;
    LOGT_TRY(deer_check_memory(m->mode, T, B, S, memory_for_jacobians()));
    LOGT_TRY(project_cpu(m, x));
    const double *R = logt_model_param(&m->base, &m->base.w, "R").data;
    const double *bn = m->cell == DEER_GRU ? logt_model_param(&m->base, &m->base.w, "bn").data : NULL;
    double *WX = m->wx.data, *St = m->st.data;   /* St: the iterate, then the solution */

    double *F = malloc((size_t)(N * S) * sizeof *F), *NX = malloc((size_t)(N * S) * sizeof *NX);
    double *Jm = malloc((size_t)(full ? N * S * S : N * S) * sizeof *Jm);
    double *work = malloc((size_t)(G * D + B * S + 2 * T) * sizeof *work);
    if (!F || !NX || !Jm || !work) {
        free(F), free(NX), free(Jm), free(work);
        return LOGT_FAIL(LOGT_ENOMEM, "deer: out of host memory for T = %lld, B = %lld, D = %lld",
                         (long long)T, (long long)B, (long long)D);
    }
    double *s0 = work + G * D, *cp = s0 + B * S, *dp = cp + T;
    initial_state(m, B, D, s0);

    /* the first guess: the previous solution (warm = on, same shape) or zeros */
    if (m->warm && m->prev.data && m->prev.shape[0] == T && m->prev.shape[1] == B)
        memcpy(St, m->prev.data, (size_t)(N * S) * sizeof *St);
    else
        memset(St, 0, (size_t)(N * S) * sizeof *St);

    m->iterations = 0, m->converged = 0, m->fell_back = 0, m->nonfinite = 0, m->nres = 0;
    m->solved = 0, m->base.clamped = 0;
    double lambda = m->lambda, last = INFINITY;
    logt_status s = LOGT_OK;
    for (int k = 0;; k++) {
        /* 1. every step at once: F_t = f(s_{t-1}), J_t, and the residual of the guess */
        double res = 0.0;
        for (int64_t n = 0; n < N; n++) {
            const double *sp = n >= B ? St + (n - B) * S : s0 + (n % B) * S;
            deer_cell_eval(m->cell, D, R, bn, WX + n * G * D, sp, F + n * S,
                           full ? Jm + n * S * S : NULL, full ? NULL : Jm + n * S, work);
            if (m->clamp > 0)
                m->base.clamped += clamp_entries(full ? Jm + n * S * S : Jm + n * S, full ? S * S : S,
                                                 m->clamp);
            for (int64_t j = 0; j < S; j++) {
                const double d = fabs(St[n * S + j] - F[n * S + j]);
                res = d > res || isnan(d) ? d : res;
            }
        }
        if (m->nres < DEER_MAX_REPORT) m->residual[m->nres++] = res;
        m->iterations = k;
        if (res <= m->tol) {
            m->converged = 1;
            break;
        }
        if (!isfinite(res)) m->nonfinite++;
        if (!isfinite(res) || k == m->max_iter) {
            s = LOGT_FAIL(LOGT_ENUMERIC,
                          "deer (%s, mode %s) did not converge: residual max|s_t - f(s_{t-1})| = "
                          "%.3g after %d iterations (tol %g)%s. HINT: mode = damped, a larger "
                          "max_iter, or on_fail = sequential or retry",
                          cell_names[m->cell], mode_names[m->mode], res, k, m->tol,
                          isfinite(res) ? "" : "; the iterate is not finite");
            break;
        }
        /* 2. the linearised recurrence s'_t = F_t + J_t (s'_{t-1} − s_{t-1}) into NX */
        if (m->mode == DEER_DAMPED) {
            if (k > 0) lambda = res > last ? lambda * 4.0 : lambda * 0.5;   /* the first step uses the knob's */
            for (int64_t b = 0; b < B; b++)
                for (int64_t j = 0; j < S; j++) {
                    /* b_t = F_t − a_t s_{t-1}, into NX as scratch, then solved in place */
                    for (int64_t t = 0; t < T; t++) {
                        const int64_t n = t * B + b;
                        const double sp = t ? St[(n - B) * S + j] : s0[b * S + j];
                        NX[n * S + j] = F[n * S + j] - Jm[n * S + j] * sp;
                    }
                    deer_damped_channel(T, B * S, Jm + b * S + j, NX + b * S + j, St + b * S + j,
                                   s0[b * S + j], lambda, cp, dp, NX + b * S + j);
                }
        } else {
            for (int64_t n = 0; n < N; n++) {
                const double *pn = n >= B ? NX + (n - B) * S : NULL, *po = n >= B ? St + (n - B) * S : NULL;
                for (int64_t j = 0; j < S; j++) {
                    double v = F[n * S + j];
                    if (pn) {   /* at t = 0, s_{-1} is s0 in both: the step is F_0 */
                        if (full)
                            for (int64_t mm = 0; mm < S; mm++)
                                v += Jm[(n * S + j) * S + mm] * (pn[mm] - po[mm]);
                        else
                            v += Jm[n * S + j] * (pn[j] - po[j]);
                    }
                    NX[n * S + j] = v;
                }
            }
        }
        last = res;
        memcpy(St, NX, (size_t)(N * S) * sizeof *St);
    }
    if (s != LOGT_OK && m->fallback) {
        sequential(m, T, B, D, R, bn, WX, s0, St, work);
        m->fell_back = 1;
        s = LOGT_OK;
    }
    for (int64_t n = 0; n < N; n++)   /* h: the first D of each state */
        memcpy((double *)h->data + n * D, St + n * S, (size_t)D * sizeof(double));
    for (int64_t b = 0; s == LOGT_OK && b < B; b++) {   /* a segment's final state */
        const double *last = St + ((T - 1) * B + b) * S;
        if (m->base.hT.data) memcpy((double *)m->base.hT.data + b * D, last, (size_t)D * sizeof(double));
        if (S > D && m->base.cT.data)
            memcpy((double *)m->base.cT.data + b * D, last + D, (size_t)D * sizeof(double));
    }
    m->solved = s == LOGT_OK;
    if (s == LOGT_OK && m->warm) {
        s = logt_tensor_ensure3(&m->prev, LOGT_CPU, LOGT_F64, T, B, S);
        if (s == LOGT_OK) memcpy(m->prev.data, St, (size_t)(N * S) * sizeof *St);
    }
    m->base.trace = m->residual, m->base.ntrace = m->nres;
    snprintf(m->base.trace_name, sizeof m->base.trace_name, "newton_residual");
    snprintf(m->base.detail, sizeof m->base.detail,
             "mode=%s iterations=%d converged=%d fell_back=%d nonfinite=%d residual first=%.3g "
             "last=%.3g", mode_names[m->mode], m->iterations, m->converged, m->fell_back,
             m->nonfinite, m->nres ? m->residual[0] : NAN, m->nres ? m->residual[m->nres - 1] : NAN);
    deer_detail_settings(m);
    free(F), free(NX), free(Jm), free(work);
    return s;
}

/* The states of a gru or tanh cell are its h (S = D): given a segment's x and h, the backward
 * has all it reads once W x_t + b is formed again, with no solve. */
logt_status deer_restore_cpu(deer_model *m, const logt_tensor *x, const logt_tensor *h)
{
    LOGT_TRY(project_cpu(m, x));
    memcpy(m->st.data, h->data, (size_t)h->numel * sizeof(double));
    m->solved = 1;
    return LOGT_OK;
}

/* ---- backward: the adjoint ------------------------------------------------------------------ */

logt_status deer_backward_cpu(deer_model *m, const logt_tensor *dh, logt_tensor *dx)
{
    if (m->gpus > 1) return deer_backward_pieces_cpu(m, dh, dx);
    const logt_tensor *x = &m->x;
    const int64_t T = x->shape[0], B = x->shape[1], I = x->shape[2], D = m->base.cfg.hidden_size;
    const int64_t G = ngates(m->cell), N = T * B, S = deer_state_size(m->cell, D);
    const double *W = logt_model_param(&m->base, &m->base.w, "W").data;
    const double *R = logt_model_param(&m->base, &m->base.w, "R").data;
    const double *bn = m->cell == DEER_GRU ? logt_model_param(&m->base, &m->base.w, "bn").data : NULL;
    double *dW = logt_model_param(&m->base, &m->base.dw, "W").data;
    double *dR = logt_model_param(&m->base, &m->base.dw, "R").data;
    double *db = logt_model_param(&m->base, &m->base.dw, "b").data;
    double *dbn = m->cell == DEER_GRU ? logt_model_param(&m->base, &m->base.dw, "bn").data : NULL;
    const double *St = m->st.data, *WX = m->wx.data, *dH = dh->data;
    if (!m->solved)
        return LOGT_FAIL(LOGT_EINVAL, "deer backward: the last forward did not give a solution "
                         "(it failed): run a forward that succeeds first");

    if (!m->base.dw_add) {   /* a segment adds to the gradients of the segments after it */
        memset(dW, 0, (size_t)(G * D * I) * sizeof *dW);
        memset(dR, 0, (size_t)(D * G * D) * sizeof *dR);
        memset(db, 0, (size_t)(G * D) * sizeof *db);
        if (dbn) memset(dbn, 0, (size_t)D * sizeof *dbn);
    }
    double *dXA = malloc((size_t)(N * G * D) * sizeof *dXA);
    double *carry = calloc((size_t)(B * S), sizeof *carry);   /* J_{t+1}^T λ_{t+1}, per b */
    double *lam = malloc((size_t)S * sizeof *lam), *dra = malloc((size_t)(G * D) * sizeof *dra);
    double *s0 = malloc((size_t)(B * S) * sizeof *s0), *work = malloc((size_t)(G * D + S) * sizeof *work);
    if (!dXA || !carry || !lam || !dra || !s0 || !work) {
        free(dXA), free(carry), free(lam), free(dra), free(s0), free(work);
        return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    }
    initial_state(m, B, D, s0);
    /* at the last step, J_T^T λ_T is a segment's dL/d(final state) from the steps after it */
    const double *dhT = m->base.dhT.data, *dcT = m->base.dcT.data;
    for (int64_t b = 0; b < B; b++)
        for (int64_t j = 0; j < D; j++) {
            if (dhT) carry[b * S + j] = dhT[b * D + j];
            if (S > D && dcT) carry[b * S + D + j] = dcT[b * D + j];
        }

    /* λ_t = dL/ds_t + J_{t+1}^T λ_{t+1}, from t = T-1 down (dL/ds_t: dh on the h part);
     * each step's vector-Jacobian product gives its parameter gradients and J_t^T λ_t */
    for (int64_t t = T - 1; t >= 0; t--)
        for (int64_t b = 0; b < B; b++) {
            const int64_t n = t * B + b;
            const double *hp = t ? St + (n - B) * S : s0 + b * S;
            double *dxa = dXA + n * G * D, *cb = carry + b * S;
            for (int64_t j = 0; j < S; j++) lam[j] = (j < D ? dH[n * D + j] : 0.0) + cb[j];
            deer_cell_vjp(m->cell, D, R, bn, WX + n * G * D, hp, lam, cb, dxa, dra, work);
            for (int64_t mm = 0; mm < D; mm++)   /* dR += hp ⊗ dra */
                for (int64_t c = 0; c < G * D; c++) dR[mm * G * D + c] += hp[mm] * dra[c];
            if (dbn)
                for (int64_t j = 0; j < D; j++) dbn[j] += dra[2 * D + j];
        }
    dense_add_dw_cpu(N, G * D, I, dXA, x->data, dW, db);
    if (dx) {
        memset(dx->data, 0, (size_t)(N * I) * sizeof(double));
        dense_add_dx_cpu(N, G * D, I, W, dXA, dx->data);
    }
    for (int64_t b = 0; b < B; b++)
        for (int64_t j = 0; j < D; j++) {
            if (m->base.dh0.data) ((double *)m->base.dh0.data)[b * D + j] = carry[b * S + j];
            if (S > D && m->base.dc0.data) ((double *)m->base.dc0.data)[b * D + j] = carry[b * S + D + j];
        }
    free(dXA), free(carry), free(lam), free(dra), free(s0), free(work);
    return LOGT_OK;
}

/* ---- ops ------------------------------------------------------------------------------------ */

static logt_status deer_forward(logt_model *base, const logt_tensor *x, logt_tensor *h, logt_ctx *ctx)
{
    deer_model *m = (deer_model *)base;
    if (m->base.c0.data && m->cell != DEER_LSTM)
        return LOGT_FAIL(LOGT_EINVAL, "%s with cell %s has no cell state c0: set only h0",
                         base->cfg.model, cell_names[m->cell]);
    m->solved = 0;   /* a forward that fails before solving leaves nothing for backward */
    deer_settings(m, ctx);
    m->x = *x, m->h = *h;
    m->x.owns = m->h.owns = 0;
#ifdef LOGT_HAVE_CUDA
    if (base->cfg.device == LOGT_CUDA)
        return m->gpus > 1 ? deer_forward_pieces_cuda(m, x, h, ctx) : deer_forward_cuda(m, x, h, ctx);
#endif
    return deer_forward_cpu(m, x, h);
}

static logt_status deer_backward(logt_model *base, const logt_tensor *dh, logt_tensor *dx, logt_ctx *ctx)
{
#ifdef LOGT_HAVE_CUDA
    deer_model *m = (deer_model *)base;
    if (base->cfg.device == LOGT_CUDA)
        return m->gpus > 1 ? deer_backward_pieces_cuda(m, dh, dx, ctx) : deer_backward_cuda(m, dh, dx, ctx);
#endif
    (void)ctx;
    return deer_backward_cpu((deer_model *)base, dh, dx);
}

/* ops->restore (model.h): the states from the output where they are all of it (gru, tanh). */
static logt_status deer_restore(logt_model *base, const logt_tensor *x, const logt_tensor *h, logt_ctx *ctx,
                                int *done)
{
    deer_model *m = (deer_model *)base;
    *done = 0;
    if (deer_state_size(m->cell, base->cfg.hidden_size) != base->cfg.hidden_size || m->gpus > 1) return LOGT_OK;
    m->solved = 0;
    m->x = *x, m->h = *h;
    m->x.owns = m->h.owns = 0;
#ifdef LOGT_HAVE_CUDA
    if (base->cfg.device == LOGT_CUDA) {
        LOGT_TRY(deer_restore_cuda(m, x, h, ctx));
        *done = 1;
        return LOGT_OK;
    }
#endif
    (void)ctx;
    LOGT_TRY(deer_restore_cpu(m, x, h));
    *done = 1;
    return LOGT_OK;
}

static void deer_destroy(logt_model *base)
{
    deer_model *m = (deer_model *)base;
    logt_tensor_free(&m->wx);
    logt_tensor_free(&m->prev);
    logt_tensor_free(&m->st);
#ifdef LOGT_HAVE_CUDA
    deer_free_cuda(m);
    deer_pieces_free_cuda(m);
#endif
    free(m);
}

const logt_model_ops logt_deer_ops = {
    .name = "deer",
    .summary = "nonlinear RNN (gru, lstm or tanh cell) solved over the sequence by Newton's "
               "method (mode = full | quasi | damped); cpu f64 reference; cuda every mode, "
               "adjoint backward",
    .devices = LOGT_BIT(LOGT_CPU) | LOGT_BIT(LOGT_CUDA),
    .dtypes = {[LOGT_CPU] = LOGT_BIT(LOGT_F64), [LOGT_CUDA] = LOGT_BIT(LOGT_F32)},
    .cells = cell_names,
    .nstate = 2,   /* h0, and c0 for the lstm cell */
    .segments = 1, /* every mode, cell and solver; not with warm = on (check_cfg) */
    .segment_min = LOGT_SEGMENT_MIN_PARALLEL,
    .knobs = knobs,
    .layout = deer_layout,
    .create = deer_create,
    .forward = deer_forward,
    .backward = deer_backward,
    .restore = deer_restore,
    .destroy = deer_destroy,
};
