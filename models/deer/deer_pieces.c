/* deer_pieces.c — deer with gpus = N on the CPU: quasi-DEER's forward and backward over the
 * sequence split in time into N pieces (scan_pieces_split), by deer_multi's float64 reference
 * (deer_multi.h), the algorithm its GPUs run. The pieces are views of the model's [T][B][·]
 * arrays; the parameters are the model's flat array, whose layout is deer_multi's. */
#include <stdio.h>
#include <string.h>

#include "deer.h"
#include "deer_multi.h"

logt_status deer_pieces_check(const logt_model_cfg *cfg, deer_mode mode, int warm, int fallback, double clamp,
                              int solver, int newton_kernel, int *gpus)
{
    LOGT_TRY(logt_model_gpus(cfg, 1, gpus));
    if (*gpus == 1) return LOGT_OK;
    int K, wave;
    LOGT_TRY(logt_net_recompute_of(cfg, &K));
    LOGT_TRY(logt_net_wavefront_of(cfg, &wave));
    const char *need = mode != DEER_QUASI ? "mode = quasi (the pieces solve quasi-DEER)"
                       : solver || newton_kernel == 1
                           ? "solver = newton and newton_kernel = auto or launches (an evaluation kernel and "
                             "a scan per iteration on each piece)"
                       : warm             ? "warm = off"
                       : fallback         ? "on_fail = error or retry (there is no sequential fallback over pieces)"
                       : clamp > 0        ? "jacobian_clamp off"
                       : K || wave        ? "recompute and layers_wavefront off (the pieces take the whole sequence)"
                                          : NULL;
    if (need)
        return LOGT_FAIL(LOGT_EUNSUPPORTED, "%s: gpus = %d splits the sequence in time, and needs %s",
                         cfg->model, *gpus, need);
    return LOGT_OK;
}

void deer_pieces_report(deer_model *m, const char *what, int n, const deer_multi_report *rep)
{
    m->iterations = rep->iterations, m->converged = rep->converged, m->fell_back = 0, m->nonfinite = 0;
    m->nres = rep->nres;
    memcpy(m->residual, rep->residual, (size_t)rep->nres * sizeof *m->residual);
    m->base.trace = m->residual, m->base.ntrace = m->nres;
    snprintf(m->base.trace_name, sizeof m->base.trace_name, "newton_residual");
    snprintf(m->base.detail, sizeof m->base.detail,
             "mode=quasi %s=%d iterations=%d converged=%d residual first=%.3g last=%.3g", what, n, m->iterations,
             m->converged, m->nres ? m->residual[0] : 0.0, m->nres ? m->residual[m->nres - 1] : 0.0);
    deer_detail_settings(m);
}

deer_multi_cfg deer_pieces_cfg(const deer_model *m, const logt_tensor *x)
{
    const deer_multi_cfg c = {m->cell, x->shape[1], x->shape[2], m->base.cfg.hidden_size, m->tol, m->max_iter};
    return c;
}

logt_status deer_forward_pieces_cpu(deer_model *m, const logt_tensor *x, logt_tensor *h)
{
    const int64_t T = x->shape[0], B = x->shape[1], I = x->shape[2], D = m->base.cfg.hidden_size;
    const int64_t S = deer_state_size(m->cell, D);
    LOGT_TRY(logt_tensor_ensure3(&m->st, LOGT_CPU, LOGT_F64, T, B, S));
    int64_t Tp[SCAN_MULTI_MAX];
    const int n = scan_pieces_split(T, m->gpus, Tp);
    double *px[SCAN_MULTI_MAX], *pst[SCAN_MULTI_MAX], *ph[SCAN_MULTI_MAX];
    scan_pieces_of(x->data, n, Tp, B * I, px), scan_pieces_of(m->st.data, n, Tp, B * S, pst);
    scan_pieces_of(h->data, n, Tp, B * D, ph);
    const deer_multi_cfg c = deer_pieces_cfg(m, x);
    deer_multi_report rep = {0};
    const logt_status s = deer_multi_forward_cpu(&c, n, Tp, m->base.w.data, (const double *const *)px, m->base.h0.data,
                                                 m->base.c0.data, pst, ph, &rep);
    deer_pieces_report(m, "pieces", n, &rep);
    m->solved = s == LOGT_OK;
    return s;
}

logt_status deer_backward_pieces_cpu(deer_model *m, const logt_tensor *dh, logt_tensor *dx)
{
    if (!m->solved)
        return LOGT_FAIL(LOGT_EINVAL, "deer backward: the last forward did not give a solution "
                         "(it failed): run a forward that succeeds first");
    const logt_tensor *x = &m->x;
    const int64_t T = x->shape[0], B = x->shape[1], I = x->shape[2], D = m->base.cfg.hidden_size;
    const int64_t S = deer_state_size(m->cell, D);
    int64_t Tp[SCAN_MULTI_MAX];
    const int n = scan_pieces_split(T, m->gpus, Tp);
    double *px[SCAN_MULTI_MAX], *pst[SCAN_MULTI_MAX], *pdh[SCAN_MULTI_MAX], *pdx[SCAN_MULTI_MAX];
    scan_pieces_of(x->data, n, Tp, B * I, px), scan_pieces_of(m->st.data, n, Tp, B * S, pst);
    scan_pieces_of(dh->data, n, Tp, B * D, pdh), scan_pieces_of(dx ? dx->data : NULL, n, Tp, B * I, pdx);
    const deer_multi_cfg c = deer_pieces_cfg(m, x);
    deer_multi_report rep = {0};
    return deer_multi_backward_cpu(&c, n, Tp, m->base.w.data, (const double *const *)px, m->base.h0.data,
                                   m->base.c0.data, (const double *const *)pst, (const double *const *)pdh,
                                   m->base.dw.data, dx ? pdx : NULL, m->base.dh0.data, m->base.dc0.data, &rep);
}
