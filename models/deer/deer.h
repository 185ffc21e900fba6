/* deer.h — nonlinear recurrences solved over the whole sequence by Newton's method (DEER,
 * Lim et al., ICLR 2024; quasi-DEER and the damped ELK step, Gonzalez et al., NeurIPS 2024).
 *
 * From a guess H^0 of every h_t (zeros, or the previous call's solution with warm = on),
 * iteration k evaluates the cell f and its analytic Jacobian J_t = ∂f/∂h at every step at once,
 *     F_t = f(H^k_{t-1}, x_t),   residual_k = max_t |H^k_t − F_t|,
 * stops when residual_k <= tol, and otherwise solves the linearised recurrence
 *     H^{k+1}_t = J_t H^{k+1}_{t-1} + (F_t − J_t H^k_{t-1}),   H_{-1} = h0,
 * by a parallel scan: O(T) work and O(log T) depth an iteration. mode = full keeps J_t
 * (T·B·D² memory, refused before allocating when it would not fit), quasi its diagonal
 * (O(T·B·D), the element-wise scan of kernels/scan.h), damped quasi with a Levenberg–Marquardt
 * term λ Σ_t (h_t − H^k_t)² (a tridiagonal system per channel). No silent NaN: past max_iter,
 * or not finite, the call fails or (on_fail = sequential) the sequential loop answers, and the
 * report says so. Backward by the adjoint λ_t = dL/dh_t + J_{t+1}^T λ_{t+1} with the exact
 * Jacobians (BPTT's gradients in every mode), then every step's parameter gradients from λ_t.
 *
 * Cells (cfg.cell) in flashrnn's one-head parameter layout: gru (the default; W [3D][I],
 * R [1][D][3D], b [3D], bn [D]), lstm (W [4D][I], R [1][D][4D], b [4D]; its state is
 * s = [h; c], 2D wide, h0 and c0) and tanh (h_t = tanh(W x_t + b + h_{t-1} R), W [D][I],
 * R [1][D][D], b [D]). The residual and tol are over the whole state.
 * Devices: cpu (deer.c, float64, every mode, forward and backward: the reference) and cuda
 * (f32 states: deer_cuda.cu, deer_cuda_full.cu, deer_cuda_damped.cu, deer_cuda_backward.cu);
 * over a sequence split in time across GPUs: deer_multi.h.
 *
 * Knobs (checked in deer.c; what they measure: experiments/deer-convergence and deer-speedup):
 *   mode = full (default) | quasi | damped      tol = 1e-10 (cpu) or 1e-5 (cuda), on the residual
 *   max_iter = 200          on_fail = error (default) | sequential (report, then the loop's answer)
 *                           | retry (report and fail; a training run then goes back to its last
 *                           checkpoint with the solver relaxed: logt_model.retry, ctx->relax)
 *   tol_schedule = START:END:STEPS (instead of tol: the tolerance at training step s is
 *                  START·(END/START)^(min(s, STEPS)/STEPS), geometric from START at step 0 to
 *                  END at step STEPS, then END; END <= START, both > 0, STEPS >= 1; outside
 *                  training, ctx->step < 0, END)
 *   jacobian_clamp = off (default) | X > 0: each entry of the Jacobian Newton uses (its diagonal
 *                  in quasi and damped mode, the whole matrix in full mode) clamped to [-X, X]
 *                  and counted (logt_model.clamped). The residual is f's own, so Newton still
 *                  stops at the true solution; only its steps change. The backward's adjoint
 *                  keeps the exact Jacobians
 *   A forward's tol and max_iter are the schedule's at ctx->step, times 10^relax and 2^relax
 *   (ctx->relax: the retries of on_fail = retry so far), max_iter at most 1000000.
 *   lambda = 1 (damped: the initial damping, halved after a step that lowers the residual)
 *   warm = off | on (start from the previous call's solution of the same shape; refused with
 *   recompute or layers_wavefront, whose segments would each start from another segment's)
 *   recompute = K, layers_wavefront (net.c): every mode, cell and solver runs a layer in
 *   segments, each solved from zeros over its own steps (so to tol of the whole sequence's
 *   solve, not its bits); the lstm cell hands on h and c, the gru and tanh cells h. In the
 *   backward the gru and tanh cells take a segment's states from its output (their state is
 *   h: ops->restore, deer_restore_cpu) and solve nothing again; the lstm's c is not in its
 *   output, so it solves each segment again
 *   r_scale = 1 (a factor on R's initialisation bound)
 *   cuda only: solver = newton (default) | launch | fused (the sequential baselines: a kernel a
 *   step, or one persistent kernel); newton_kernel = auto | persistent | launches (the whole
 *   solve in one cooperative kernel, states of 1 to 4; or a kernel and a scan an iteration).
 */
#ifndef LOGT_DEER_H
#define LOGT_DEER_H

#include "../model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum deer_cell { DEER_GRU, DEER_TANH, DEER_LSTM } deer_cell;
typedef enum deer_mode { DEER_FULL, DEER_QUASI, DEER_DAMPED } deer_mode;

#define DEER_MAX_REPORT 1024   /* residuals kept per call */

typedef struct deer_model {
    logt_model base;
    deer_cell cell;
    deer_mode mode;
    double tol, lambda;      /* tol and max_iter: the forward's own (deer_settings)              */
    int max_iter, fallback, warm;
    double tol_start, tol_end;   /* tol_schedule, or tol twice                                   */
    int64_t tol_steps;       /* the schedule's length; 0: tol, fixed                             */
    int max_iter_knob;       /* max_iter as set, before any relaxation                           */
    double clamp;            /* jacobian_clamp: the bound on the Jacobian's entries; 0: off       */
    int solver;              /* cuda: 0 newton, 1 launch, 2 fused (the sequential baselines) */
    int newton_kernel;       /* cuda: 0 auto, 1 persistent, 2 launches                     */
    void *cuda;              /* deer_cuda.cu's buffers                                    */
    logt_tensor x, h;        /* views of forward's input and output                      */
    logt_tensor wx;          /* [T][B][G·D] W x + b                                      */
    logt_tensor st;          /* [T][B][S] the state of every step (S = 2D lstm: [h; c])  */
    logt_tensor prev;        /* [T][B][S] the last solution (warm = on)                  */
    /* the last forward's report */
    int iterations;          /* Newton iterations made (evaluations - 1)                 */
    int converged;           /* 1: residual <= tol                                       */
    int solved;              /* 1: st holds the last forward's answer (backward needs it) */
    int fell_back;           /* 1: the sequential loop gave the answer                   */
    int nonfinite;           /* iterates with a NaN or Inf                               */
    int nres;
    double residual[DEER_MAX_REPORT];   /* residual_k, k = 0 .. nres-1                  */
    int gpus;                /* gpus = N: the sequence in N pieces of time (deer_pieces.c,   */
    void *pieces;            /* deer_pieces_cuda.cu: on GPUs 0 .. N-1, its handle and copies) */
} deer_model;

/* gpus = N (deer_pieces.c): N into *gpus, and above 1 an error unless the other settings are
 * what the pieces solve (quasi by Newton, its kernels launched per iteration; no warm start,
 * fallback, clamp or segments). solver, newton_kernel: deer.c's indices (0 newton; 1 persistent). */
logt_status deer_pieces_check(const logt_model_cfg *cfg, deer_mode mode, int warm, int fallback, double clamp,
                              int solver, int newton_kernel, int *gpus);
/* The report of a pieces forward (deer_multi_report) into m: iterations, residuals (the trace),
 * and detail, "mode=quasi WHAT=n ..." (WHAT: pieces on the cpu, gpus on cuda). */
struct deer_multi_report;
void deer_pieces_report(deer_model *m, const char *what, int n, const struct deer_multi_report *rep);
/* The deer_multi_cfg (deer_multi.h) of this model for input x: cell, B, I, D, tol, max_iter. */
struct deer_multi_cfg deer_pieces_cfg(const deer_model *m, const logt_tensor *x);
/* The forward and backward over gpus pieces of time on the CPU (deer_multi's reference). */
logt_status deer_forward_pieces_cpu(deer_model *m, const logt_tensor *x, logt_tensor *h);
logt_status deer_backward_pieces_cpu(deer_model *m, const logt_tensor *dh, logt_tensor *dx);

/* "full", "quasi" or "damped". */
const char *deer_mode_name(deer_mode mode);

/* The scheduled tolerance at training step `step` (tol_schedule; tol when there is none; END
 * for step < 0), before any relaxation. */
double deer_tol_at(const deer_model *m, int64_t step);
/* The forward's tol and max_iter into m: the schedule's at ctx->step, relaxed ctx->relax times
 * (ctx NULL: outside training, not relaxed). Every forward, cpu and cuda, starts with it. */
void deer_settings(deer_model *m, const logt_ctx *ctx);
/* The forward's settings appended to m->base.detail: tol, max_iter and, with jacobian_clamp,
 * the entries clamped. */
void deer_detail_settings(deer_model *m);

/* The state's width: D, or 2D for the lstm ([h; c]). */
int64_t deer_state_size(deer_cell cell, int64_t D);

/* f(sp, x_t) for one sequence element: xa = W x_t + b [G·D], sp = s_{t-1} [S]. Writes f [S];
 * when J is not NULL the Jacobian J[j·S + m] = ∂f_j/∂sp_m, when jd is not NULL its diagonal.
 * work: G·D doubles. R, bn as in the layout (bn NULL but for the gru). */
void deer_cell_eval(deer_cell cell, int64_t D, const double *R, const double *bn, const double *xa,
                    const double *sp, double *f, double *J, double *jd, double *work);

/* The vector-Jacobian product of f at (xa, sp), xa = W x_t + b [G·D], sp = s_{t-1} [S], with
 * lam = dL/ds_t [S]: u = J^T lam = dL/ds_{t-1} [S] (overwritten), dxa = dL/d(W x_t + b) and
 * dra = dL/d(h_{t-1} R) [G·D] (the gru's bn gradient is dra's n part). work: G·D + S doubles. */
void deer_cell_vjp(deer_cell cell, int64_t D, const double *R, const double *bn, const double *xa,
                   const double *sp, const double *lam, double *u, double *dxa, double *dra, double *work);

/* Bytes of the Jacobians of mode = full: T·B·D² doubles. */
double deer_full_bytes(int64_t T, int64_t B, int64_t D);
/* LOGT_OK when mode's memory fits in avail bytes, else an error naming the need, the
 * limit and what would fit. */
logt_status deer_check_memory(deer_mode mode, int64_t T, int64_t B, int64_t D, double avail);

/* The linear recurrence h_t = A_t h_{t-1} + b_t, A_t [D][D] (T of them), h_{-1} = h0 (NULL:
 * zeros), written to h [T][D]: step by step, and by the associative (A, b) composition a
 * parallel scan uses, in chunks of `chunk` steps (each chunk's composed map, the carries
 * between chunks, then every step from its chunk's carry). Equal up to rounding.
 * deer_solvers.c, like the damped step's solves below. */
void deer_mscan_serial(int64_t T, int64_t D, const double *A, const double *b, const double *h0,
                       double *h);
logt_status deer_mscan_chunked(int64_t T, int64_t D, const double *A, const double *b,
                               const double *h0, int64_t chunk, double *h);

/* One channel's damped step (mode = damped): minimise Σ_t (h_t − a_t h_{t-1} − b_t)²
 * + λ Σ_t (h_t − g_t)² with h_{-1} = h0, a tridiagonal system, into out [T]: by the Thomas
 * algorithm (what deer_forward_cpu does), and in the associative form the GPU's solve takes
 * (deer_cuda_damped.cu: Thomas's forward sweep as a scan of normalised 2×2 Möbius maps, then
 * two linear scans), in chunks of `chunk` steps. Equal up to rounding. */
logt_status deer_damped_thomas(int64_t T, const double *a, const double *b, const double *g,
                               double h0, double lambda, double *out);
logt_status deer_damped_chunked(int64_t T, const double *a, const double *b, const double *g,
                                double h0, double lambda, int64_t chunk, double *out);
/* deer_damped_thomas on arrays strided by s; cp, dp: T doubles of scratch each. */
void deer_damped_channel(int64_t T, int64_t s, const double *a, const double *b, const double *g,
                         double h0, double lambda, double *cp, double *dp, double *out);

logt_status deer_forward_cpu(deer_model *m, const logt_tensor *x, logt_tensor *h);
logt_status deer_backward_cpu(deer_model *m, const logt_tensor *dh, logt_tensor *dx);
/* A gru or tanh cell (its state is h) made ready for the backward of input x with states h,
 * as though a forward had answered h: W x + b formed, the states copied, no solve (recompute's
 * segments, net.c). */
logt_status deer_restore_cpu(deer_model *m, const logt_tensor *x, const logt_tensor *h);

#ifdef LOGT_HAVE_CUDA
logt_status deer_forward_cuda(deer_model *m, const logt_tensor *x, logt_tensor *h, logt_ctx *ctx);
logt_status deer_backward_cuda(deer_model *m, const logt_tensor *dh, logt_tensor *dx, logt_ctx *ctx);
logt_status deer_restore_cuda(deer_model *m, const logt_tensor *x, const logt_tensor *h, logt_ctx *ctx);
/* One damped step on the GPU, as deer_damped_thomas for each of C channels: a, b, g, out
 * are device [T][C] f32 arrays, s0 a device [C] array (NULL: zeros); out overlaps none of
 * them. Runs on ctx->stream and synchronises it (its buffers are its own): for tests. */
logt_status deer_damped_step_cuda(logt_ctx *ctx, int64_t T, int64_t C, double lambda, const float *a,
                                  const float *b, const float *g, const float *s0, float *out);
void deer_free_cuda(deer_model *m);
/* gpus = N on CUDA (deer_pieces_cuda.cu): the model's tensors on GPU 0, piece p solved on
 * GPU p by deer_multi. */
logt_status deer_forward_pieces_cuda(deer_model *m, const logt_tensor *x, logt_tensor *h, logt_ctx *ctx);
logt_status deer_backward_pieces_cuda(deer_model *m, const logt_tensor *dh, logt_tensor *dx, logt_ctx *ctx);
void deer_pieces_free_cuda(deer_model *m);
#endif

#ifdef __cplusplus
}
#endif
#endif
