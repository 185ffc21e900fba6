/* deer_multi.h — quasi-DEER (deer.h, mode = quasi) over a sequence split in time into G
 * contiguous pieces, one per GPU (or, on the CPU, one per array), forward and backward: a
 * GRU, LSTM or tanh layer that trains on a sequence too long for one GPU.
 *
 * Piece p holds steps [T_0 + … + T_{p-1}, … + T_p) of every sequence: x as [T_p][B][I], the
 * states as [T_p][B][S] (S = D, or 2D for the lstm's [h; c]). The parameters are replicated,
 * and after a backward every GPU holds the whole gradient. Per Newton iteration, from zeros:
 *   1. boundary  piece p > 0 gets the iterate's last state of piece p-1 [B][S] (one NCCL
 *                send/recv group, GPU p → p+1; piece 0 starts from s0 = [h0; c0]);
 *   2. evaluate  every step of every piece: a_t = diag J_t, b_t = F_t − a_t s_{t-1} and the
 *                piece's residual (deer_eval_kernel);
 *   3. residual  the max over the pieces, taken on the host, which needs it anyway to decide
 *                whether to scan; the stop rules are deer's;
 *   4. linear    s^{k+1} = scan(a, b) from s0: one scan_multi_run (kernels/scan_multi.h).
 * The backward has the same shape on the adjoint λ_t = g_t + J_{t+1}^T λ_{t+1} (λ of the next
 * piece's first step passed back, a reversed scan), then each GPU's parameter-gradient GEMMs
 * over its piece, summed by one ncclAllReduce; dh0 (dc0) on GPU 0.
 * Traffic per iteration beyond the one-GPU solve: B·S floats per GPU boundary, the scan's
 * 2·G·B·S-float exchange, G residual words; per backward also B·(G·D or I) floats once and
 * one all-reduce of the parameters' size. The GPUs' results are the one-GPU deer's (mode =
 * quasi, newton_kernel = launches) to fp32 rounding (tests/test_deer_multi.c); the float64
 * CPU version runs the same pieces algorithm (the exchanges are copies) and equals
 * deer_forward_cpu / deer_backward_cpu with mode = quasi to rounding.
 *
 * Parameters: one flat array per device in deer's layout: W [G·D][I], R [D][G·D], b [G·D],
 * then bn [D] for the gru (G = 3 gates gru, 4 lstm, 1 tanh); deer_multi_layout_of gives the
 * offsets. CPU: deer_multi_forward_cpu, deer_multi_backward_cpu; GPUs: deer_multi_create(G)
 * ... forward, backward ... destroy, timed by build/bin/deer-multi-dev (models/deer/dev/).
 */
#ifndef LOGT_DEER_MULTI_H
#define LOGT_DEER_MULTI_H

#include <stdint.h>

#include "../../core/status.h"
#include "../../kernels/scan_multi.h"
#include "deer.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct deer_multi_cfg {
    deer_cell cell;      /* DEER_GRU, DEER_LSTM or DEER_TANH                                   */
    int64_t B, I, D;     /* sequences, input size, hidden size                                 */
    double tol;          /* Newton stops at max |s_t − f(s_{t-1})| <= tol (cpu 1e-10, cuda 1e-5
                            as deer's); the adjoint at tol of its first residual                */
    int max_iter;        /* Newton iterations, and adjoint iterations, at most                 */
} deer_multi_cfg;

/* What the last forward and backward did. */
typedef struct deer_multi_report {
    int iterations;      /* Newton iterations made (evaluations − 1)                          */
    int converged;       /* 1: residual <= tol                                                 */
    int nres;
    double residual[DEER_MAX_REPORT];   /* residual_k over all pieces, k = 0 .. nres-1         */
    int adjoint_iterations;             /* backward: reversed scans made                       */
    double adjoint_residual, adjoint_r0;   /* its last and first residual                      */
} deer_multi_report;

/* Where each parameter starts in the flat array of (cell, I, D), and the array's length n
 * (bn: the gru's only; -1 for the other cells). */
typedef struct deer_multi_layout { int64_t W, R, b, bn, n; } deer_multi_layout;
deer_multi_layout deer_multi_layout_of(deer_cell cell, int64_t I, int64_t D);

/* LOGT_OK when cfg and the pieces T[0 .. G-1] make a problem both versions solve; else an
 * error naming the argument, its value and what would be right. */
logt_status deer_multi_check(const deer_multi_cfg *cfg, int G, const int64_t *T);

/* The float64 reference. x[p] [T_p][B][I]; w the parameters; h0, c0 [B][D] (NULL: zeros;
 * c0 only for the lstm). Writes st[p] [T_p][B][S] (the states, what backward reads) and
 * h[p] [T_p][B][D]. Fails (LOGT_ENUMERIC, saying so) when Newton does not reach tol. */
logt_status deer_multi_forward_cpu(const deer_multi_cfg *cfg, int G, const int64_t *T, const double *w,
                                   const double *const *x, const double *h0, const double *c0,
                                   double *const *st, double *const *h, deer_multi_report *rep);
/* The backward of that forward (same cfg, T, w, x, h0, c0, and its st), from dh[p] [T_p][B][D]:
 * writes dw (the whole gradient, the sum over pieces), dx[p] [T_p][B][I] unless dx is NULL,
 * dh0 and dc0 [B][D] unless NULL. */
logt_status deer_multi_backward_cpu(const deer_multi_cfg *cfg, int G, const int64_t *T, const double *w,
                                    const double *const *x, const double *h0, const double *c0,
                                    const double *const *st, const double *const *dh, double *dw,
                                    double *const *dx, double *dh0, double *dc0, deer_multi_report *rep);

#ifdef LOGT_HAVE_CUDA
/* Times of the last forward or backward, ms: the whole call (host clock, every GPU idle to
 * every GPU done), the boundary exchanges (CUDA events around each NCCL send/recv group on
 * each GPU, the slowest GPU's, summed over the iterations), the scans (scan_multi_run's wall
 * clock, summed) and their ncclAllGather (scan_multi_times.exchange_ms, summed), and the
 * backward's gradient all-reduce. */
typedef struct deer_multi_times {
    double wall_ms, boundary_ms, scan_ms, scan_exchange_ms, reduce_ms;
} deer_multi_times;

typedef struct deer_multi deer_multi;

/* One process driving GPUs 0 .. G-1: a scan_multi handle (its NCCL communicators and its
 * stream per GPU, which every kernel here runs on) and buffers grown on demand. Fails with a
 * clear error when built without NCCL, when fewer than G GPUs are visible, or on a bad cfg. */
logt_status deer_multi_create(int G, const deer_multi_cfg *cfg, deer_multi **out);
int deer_multi_gpus(const deer_multi *m);
/* The Newton tolerance and iteration cap of the next forward and backward (cfg's until set):
 * a schedule or a relaxation changes them between calls (deer_settings). */
void deer_multi_set_solver(deer_multi *m, double tol, int max_iter);
/* The forward over pieces T[p] (fp32): w[p] the parameters, x[p] [T_p][B][I] on GPU p; h0, c0
 * [B][D] on GPU 0 (NULL: zeros; c0 only for the lstm); writes h[p] [T_p][B][D] on GPU p.
 * Backward reads w and x again: keep them unchanged until it has run. rep, times may be NULL. */
logt_status deer_multi_forward(deer_multi *m, const int64_t *T, const float *const *w,
                               const float *const *x, const float *h0, const float *c0,
                               float *const *h, deer_multi_report *rep, deer_multi_times *times);
/* The backward of the last forward (which must have succeeded), from dh[p] [T_p][B][D] on GPU
 * p: writes dw[p] (the whole gradient, on every GPU), dx[p] [T_p][B][I] unless dx is NULL,
 * dh0, dc0 [B][D] on GPU 0 unless NULL. Fills rep's adjoint fields. */
logt_status deer_multi_backward(deer_multi *m, const float *const *dh, float *const *dw,
                                float *const *dx, float *dh0, float *dc0, deer_multi_report *rep,
                                deer_multi_times *times);
void deer_multi_destroy(deer_multi *m);
#endif

#ifdef __cplusplus
}
#endif
#endif
