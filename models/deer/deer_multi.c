/* deer_multi.c — quasi-DEER over a sequence split into pieces, on the CPU in float64 (the
 * algorithm in deer_multi.h): the reference the GPU version (deer_multi.cu) follows step for
 * step. Each piece is its own set of arrays; what the GPUs exchange (a piece's last state,
 * the next piece's first λ and W x rows, the gradients' sum) is a copy here, and the linear
 * step is the pieces scan of kernels/scan_multi.h (scan_pieces_cpu). Shapes: piece p has
 * N_p = T_p·B rows; S = D, or 2D for the lstm ([h; c]); GD = G·D gate values.
 */
#include "deer_multi.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/dense_cpu.h"

static int64_t ngates(deer_cell cell) { return cell == DEER_LSTM ? 4 : cell == DEER_GRU ? 3 : 1; }

deer_multi_layout deer_multi_layout_of(deer_cell cell, int64_t I, int64_t D)
{
    const int64_t GD = ngates(cell) * D;
    deer_multi_layout l;
    l.W = 0, l.R = GD * I, l.b = l.R + D * GD, l.n = l.b + GD;
    l.bn = cell == DEER_GRU ? l.n : -1;
    if (cell == DEER_GRU) l.n += D;
    return l;
}

logt_status deer_multi_check(const deer_multi_cfg *cfg, int G, const int64_t *T)
{
    if (!cfg) return LOGT_FAIL(LOGT_EINVAL, "deer_multi: cfg is NULL: pass the cell, B, I, D, tol, max_iter");
    if (cfg->cell != DEER_GRU && cfg->cell != DEER_LSTM && cfg->cell != DEER_TANH)
        return LOGT_FAIL(LOGT_EINVAL, "deer_multi: cell %d: DEER_GRU, DEER_LSTM or DEER_TANH", (int)cfg->cell);
    if (cfg->B < 1 || cfg->I < 1 || cfg->D < 1)
        return LOGT_FAIL(LOGT_EINVAL, "deer_multi: B = %lld, I = %lld, D = %lld: each must be at least 1",
                         (long long)cfg->B, (long long)cfg->I, (long long)cfg->D);
    if (!(cfg->tol >= 0.0))
        return LOGT_FAIL(LOGT_EINVAL, "deer_multi: tol = %g: a tolerance >= 0 on max |s_t - f(s_{t-1})|", cfg->tol);
    if (cfg->max_iter < 1)
        return LOGT_FAIL(LOGT_EINVAL, "deer_multi: max_iter = %d: at least 1 iteration", cfg->max_iter);
    if (G < 1 || G > SCAN_MULTI_MAX)
        return LOGT_FAIL(LOGT_EINVAL, "deer_multi: G = %d pieces: 1 to %d", G, SCAN_MULTI_MAX);
    if (!T) return LOGT_FAIL(LOGT_EINVAL, "deer_multi: T is NULL: pass the G pieces' lengths");
    for (int p = 0; p < G; p++)
        if (T[p] < 1)
            return LOGT_FAIL(LOGT_EINVAL, "deer_multi: piece %d has T = %lld steps: every piece needs "
                             "at least one", p, (long long)T[p]);
    return LOGT_OK;
}

/* The arguments both CPU functions share beyond deer_multi_check. */
static logt_status check_arrays(const char *who, const deer_multi_cfg *cfg, int G, const int64_t *T,
                                const double *w, const double *const *x, const double *c0,
                                const double *const *st)
{
    LOGT_TRY(deer_multi_check(cfg, G, T));
    if (!w || !x || !st)
        return LOGT_FAIL(LOGT_EINVAL, "%s: w, x and st are required, one is NULL", who);
    for (int p = 0; p < G; p++)
        if (!x[p] || !st[p])
            return LOGT_FAIL(LOGT_EINVAL, "%s: piece %d: x and st must be arrays, one is NULL", who, p);
    if (c0 && cfg->cell != DEER_LSTM)
        return LOGT_FAIL(LOGT_EINVAL, "%s: c0 is the lstm's cell state and this cell has none: pass NULL", who);
    return LOGT_OK;
}

/* cfg's sizes and where its parameters lie in w. */
typedef struct dims {
    int64_t B, I, D, GD, S;
    deer_multi_layout L;
    const double *R, *bn;
} dims;

static dims dims_of(const deer_multi_cfg *cfg, const double *w)
{
    dims d;
    d.B = cfg->B, d.I = cfg->I, d.D = cfg->D, d.GD = ngates(cfg->cell) * cfg->D;
    d.S = deer_state_size(cfg->cell, cfg->D), d.L = deer_multi_layout_of(cfg->cell, cfg->I, cfg->D);
    d.R = w + d.L.R, d.bn = cfg->cell == DEER_GRU ? w + d.L.bn : NULL;
    return d;
}

/* Per piece: W x + b [N_p][GD], cut from one allocation with the rest of the work arrays. */
typedef struct pieces {
    double *pool;
    double *wx[SCAN_MULTI_MAX], *a[SCAN_MULTI_MAX], *b[SCAN_MULTI_MAX], *lam[SCAN_MULTI_MAX];
    double *in[SCAN_MULTI_MAX];    /* [B][S] the state entering piece p (in[0]: s0)            */
    double *xn[SCAN_MULTI_MAX];    /* backward: [B][GD] the next piece's first W x + b rows    */
    double *lamn[SCAN_MULTI_MAX];  /* backward: [B][S] λ of the next piece's first step        */
    double *dxa, *dw, *f, *u, *dra, *work;
} pieces;

static logt_status pieces_alloc(const deer_multi_cfg *cfg, int G, const int64_t *T, const double *w,
                                const double *const *x, const double *h0, const double *c0,
                                int backward, pieces *pc)
{
    const dims d = dims_of(cfg, w);
    const int64_t B = d.B, I = d.I, D = d.D, GD = d.GD, S = d.S, P = d.L.n;
    int64_t total = 0, most = 0;
    for (int p = 0; p < G; p++) {
        const int64_t N = T[p] * B;
        total += N * GD + N * S * (backward ? 3 : 2) + B * S + (backward ? B * (GD + S) : 0);
        most = N > most ? N : most;
    }
    total += (backward ? most * GD + P : 0) + S + S + GD + GD + S;
    memset(pc, 0, sizeof *pc);
    pc->pool = calloc((size_t)total, sizeof(double));
    if (!pc->pool)
        return LOGT_FAIL(LOGT_ENOMEM, "deer_multi (cpu): out of host memory for %lld doubles", (long long)total);
    double *q = pc->pool;
    for (int p = 0; p < G; p++) {
        const int64_t N = T[p] * B;
        pc->wx[p] = q, q += N * GD;
        pc->a[p] = q, q += N * S;
        pc->b[p] = q, q += N * S;
        pc->in[p] = q, q += B * S;
        if (backward) pc->lam[p] = q, q += N * S, pc->xn[p] = q, q += B * GD, pc->lamn[p] = q, q += B * S;
        dense_set_rows_cpu(N, GD, w + d.L.b, pc->wx[p]);
        dense_add_cpu(N, GD, I, w, x[p], pc->wx[p]);
    }
    if (backward) pc->dxa = q, q += most * GD, pc->dw = q, q += P;
    pc->f = q, q += S;
    pc->u = q, q += S;
    pc->dra = q, q += GD;
    pc->work = q;   /* GD + S */
    for (int64_t b = 0; b < B; b++)   /* s0 = [h0; c0] */
        for (int64_t j = 0; j < D; j++) {
            pc->in[0][b * S + j] = h0 ? h0[b * D + j] : 0.0;
            if (S > D) pc->in[0][b * S + D + j] = c0 ? c0[b * D + j] : 0.0;
        }
    return LOGT_OK;
}

/* The boundary: piece p > 0 starts from the last state of piece p-1 (a copy of B·S). */
static void pass_states(int G, const int64_t *T, int64_t B, int64_t S, const double *const *st, pieces *pc)
{
    for (int p = 1; p < G; p++)
        memcpy(pc->in[p], st[p - 1] + (T[p - 1] - 1) * B * S, (size_t)(B * S) * sizeof(double));
}

static void keep_residual(deer_multi_report *rep, double r)
{
    if (rep->nres < DEER_MAX_REPORT) rep->residual[rep->nres++] = r;
}

logt_status deer_multi_forward_cpu(const deer_multi_cfg *cfg, int G, const int64_t *T, const double *w,
                                   const double *const *x, const double *h0, const double *c0,
                                   double *const *st, double *const *h, deer_multi_report *rep)
{
    LOGT_TRY(check_arrays("deer_multi_forward_cpu", cfg, G, T, w, x, c0, (const double *const *)st));
    if (!h) return LOGT_FAIL(LOGT_EINVAL, "deer_multi_forward_cpu: h is NULL: pass G arrays [T_p][B][D]");
    for (int p = 0; p < G; p++)
        if (!h[p]) return LOGT_FAIL(LOGT_EINVAL, "deer_multi_forward_cpu: piece %d: h is NULL", p);
    const dims d = dims_of(cfg, w);
    const int64_t B = d.B, D = d.D, GD = d.GD, S = d.S;
    deer_multi_report own;
    if (!rep) rep = &own;
    memset(rep, 0, sizeof *rep);
    pieces pc;
    LOGT_TRY(pieces_alloc(cfg, G, T, w, x, h0, c0, 0, &pc));
    for (int p = 0; p < G; p++) memset(st[p], 0, (size_t)(T[p] * B * S) * sizeof(double));
    logt_status s = LOGT_OK;
    for (int k = 0;; k++) {
        /* 1. boundary, 2. every step of every piece: F_t, a_t = diag J_t, b_t = F_t − a_t s_{t-1} */
        pass_states(G, T, B, S, (const double *const *)st, &pc);
        double res = 0.0;
        for (int p = 0; p < G; p++)
            for (int64_t n = 0; n < T[p] * B; n++) {
                const double *sp = n >= B ? st[p] + (n - B) * S : pc.in[p] + (n % B) * S;
                double *a = pc.a[p] + n * S, *b = pc.b[p] + n * S;
                deer_cell_eval(cfg->cell, D, d.R, d.bn, pc.wx[p] + n * GD, sp, pc.f, NULL, a, pc.work);
                for (int64_t j = 0; j < S; j++) {
                    const double d = fabs(st[p][n * S + j] - pc.f[j]);
                    res = d > res || isnan(d) ? d : res;
                    b[j] = pc.f[j] - a[j] * sp[j];
                }
            }
        /* 3. the residual over the pieces */
        keep_residual(rep, res);
        rep->iterations = k;
        if (res <= cfg->tol) {
            rep->converged = 1;
            break;
        }
        if (!isfinite(res) || k == cfg->max_iter) {
            s = LOGT_FAIL(LOGT_ENUMERIC, "deer_multi_forward_cpu did not converge: residual %.3g after %d "
                          "iterations (tol %g)%s. HINT: a larger tol or max_iter", res, k, cfg->tol,
                          isfinite(res) ? "" : "; the iterate is not finite");
            break;
        }
        /* 4. s' = the scan of (a, b) from s0 over the pieces */
        s = scan_pieces_cpu(0, G, T, B * S, (const double *const *)pc.a, (const double *const *)pc.b,
                            pc.in[0], st);
        if (s != LOGT_OK) break;
    }
    for (int p = 0; p < G && s == LOGT_OK; p++)
        for (int64_t n = 0; n < T[p] * B; n++)
            memcpy(h[p] + n * D, st[p] + n * S, (size_t)D * sizeof(double));
    free(pc.pool);
    return s;
}

logt_status deer_multi_backward_cpu(const deer_multi_cfg *cfg, int G, const int64_t *T, const double *w,
                                    const double *const *x, const double *h0, const double *c0,
                                    const double *const *st, const double *const *dh, double *dw,
                                    double *const *dx, double *dh0, double *dc0, deer_multi_report *rep)
{
    LOGT_TRY(check_arrays("deer_multi_backward_cpu", cfg, G, T, w, x, c0, st));
    if (!dh || !dw) return LOGT_FAIL(LOGT_EINVAL, "deer_multi_backward_cpu: dh and dw are required, one is NULL");
    for (int p = 0; p < G; p++)
        if (!dh[p] || (dx && !dx[p]))
            return LOGT_FAIL(LOGT_EINVAL, "deer_multi_backward_cpu: piece %d: dh (and dx when dx is "
                             "given) must be arrays, one is NULL", p);
    const dims d = dims_of(cfg, w);
    const int64_t B = d.B, I = d.I, D = d.D, GD = d.GD, S = d.S;
    const deer_multi_layout L = d.L;
    const double *R = d.R, *bn = d.bn;
    deer_multi_report own;
    if (!rep) rep = &own;
    rep->adjoint_iterations = 0, rep->adjoint_residual = rep->adjoint_r0 = 0.0;
    pieces pc;
    LOGT_TRY(pieces_alloc(cfg, G, T, w, x, h0, c0, 1, &pc));
    pass_states(G, T, B, S, st, &pc);
    for (int p = 0; p + 1 < G; p++)   /* the next piece's first W x + b rows, once */
        memcpy(pc.xn[p], pc.wx[p + 1], (size_t)(B * GD) * sizeof(double));

    /* 1. the adjoint λ_t = g_t + J_{t+1}^T λ_{t+1}, from λ = 0, by a VJP of every step and a
     * reversed scan over the pieces, until the residual is tol of its first (max |g|) */
    logt_status s = LOGT_OK;
    double r0 = 0.0;
    for (int k = 0;; k++) {
        for (int p = 0; p + 1 < G; p++)
            memcpy(pc.lamn[p], pc.lam[p + 1], (size_t)(B * S) * sizeof(double));
        double res = 0.0;
        for (int p = 0; p < G; p++)
            for (int64_t n = 0; n < T[p] * B; n++) {
                const int64_t N = T[p] * B, b = n % B;
                const double *xa1 = NULL, *lam1 = NULL;   /* step t+1: in this piece, the next, none */
                if (n + B < N) xa1 = pc.wx[p] + (n + B) * GD, lam1 = pc.lam[p] + (n + B) * S;
                else if (p + 1 < G) xa1 = pc.xn[p] + b * GD, lam1 = pc.lamn[p] + b * S;
                double *a = pc.a[p] + n * S, *bv = pc.b[p] + n * S;
                const double *lam = pc.lam[p] + n * S;
                if (xa1) {
                    const double *s_t = st[p] + n * S;
                    deer_cell_eval(cfg->cell, D, R, bn, xa1, s_t, pc.f, NULL, a, pc.work);
                    deer_cell_vjp(cfg->cell, D, R, bn, xa1, s_t, lam1, pc.u, pc.dxa, pc.dra, pc.work);
                } else {
                    for (int64_t j = 0; j < S; j++) a[j] = 0.0, pc.u[j] = 0.0;
                }
                for (int64_t j = 0; j < S; j++) {
                    const double g = j < D ? dh[p][n * D + j] : 0.0;
                    const double d = fabs(lam[j] - g - pc.u[j]);
                    res = d > res || isnan(d) ? d : res;
                    bv[j] = g + pc.u[j] - (xa1 ? a[j] * lam1[j] : 0.0);
                }
            }
        if (k == 0) r0 = res;
        rep->adjoint_iterations = k, rep->adjoint_residual = res, rep->adjoint_r0 = r0;
        if (r0 == 0.0 || res <= cfg->tol * r0) break;
        if (!isfinite(res) || k == cfg->max_iter) {
            s = LOGT_FAIL(LOGT_ENUMERIC, "deer_multi_backward_cpu: the adjoint did not converge: residual "
                          "%.3g after %d iterations (tol %g of %.3g)%s", res, k, cfg->tol, r0,
                          isfinite(res) ? "" : "; the iterate is not finite");
            break;
        }
        s = scan_pieces_cpu(1, G, T, B * S, (const double *const *)pc.a, (const double *const *)pc.b,
                            NULL, pc.lam);
        if (s != LOGT_OK) break;
    }
    /* 2. per piece: every step's VJP at λ_t, the piece's parameter gradients and dx; the
     * pieces' gradients summed (what the GPUs' all-reduce does) */
    if (s == LOGT_OK) memset(dw, 0, (size_t)L.n * sizeof(double));
    for (int p = 0; p < G && s == LOGT_OK; p++) {
        const int64_t N = T[p] * B;
        double *dwp = pc.dw;
        memset(dwp, 0, (size_t)L.n * sizeof(double));
        for (int64_t n = 0; n < N; n++) {
            const double *sp = n >= B ? st[p] + (n - B) * S : pc.in[p] + (n % B) * S;
            deer_cell_vjp(cfg->cell, D, R, bn, pc.wx[p] + n * GD, sp, pc.lam[p] + n * S, pc.u,
                          pc.dxa + n * GD, pc.dra, pc.work);
            for (int64_t mm = 0; mm < D; mm++)   /* dR += h_{t-1} ⊗ dra */
                for (int64_t c = 0; c < GD; c++) dwp[L.R + mm * GD + c] += sp[mm] * pc.dra[c];
            if (bn)
                for (int64_t j = 0; j < D; j++) dwp[L.bn + j] += pc.dra[2 * D + j];
            if (p == 0 && n < B)   /* dL/ds_{-1} */
                for (int64_t j = 0; j < D; j++) {
                    if (dh0) dh0[n * D + j] = pc.u[j];
                    if (dc0 && S > D) dc0[n * D + j] = pc.u[D + j];
                }
        }
        dense_add_dw_cpu(N, GD, I, pc.dxa, x[p], dwp + L.W, dwp + L.b);
        if (dx) {
            memset(dx[p], 0, (size_t)(N * I) * sizeof(double));
            dense_add_dx_cpu(N, GD, I, w + L.W, pc.dxa, dx[p]);
        }
        for (int64_t i = 0; i < L.n; i++) dw[i] += dwp[i];
    }
    free(pc.pool);
    return s;
}
