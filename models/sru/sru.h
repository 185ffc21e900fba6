/* sru.h — the Simple Recurrent Unit (Lei, Zhang, Wang, Dai & Artzi, "Simple Recurrent Units
 * for Highly Parallelizable Recurrence", EMNLP 2018, arXiv 1709.02755): every weight
 * multiplies the input only, so one product covers all T steps; what is left across time is
 * element-wise: O(T·B·D·I) work of which O(T·B·D) is sequential. The EMNLP form (paper §2):
 *
 *   z_t = W x_t                                        the candidate ("W x_t" in the paper)
 *   f_t = σ(W_f x_t + v_f ⊙ c_{t-1} + b_f)            forget gate
 *   r_t = σ(W_r x_t + v_r ⊙ c_{t-1} + b_r)            reset (highway) gate
 *   c_t = f_t ⊙ c_{t-1} + (1 − f_t) ⊙ z_t
 *   h_t = r_t ⊙ c_t + (1 − r_t) ⊙ α x'_t               x'_t = x_t when I == D, else W_p x_t
 *
 * Knobs (checked in sru_parse_knobs; the reasons behind them in experiments/sru-speed,
 * Design notes):
 *   v = on (default) | zero      zero: the 2017 form, v ≡ 0, c a linear recurrence in c
 *   route = auto | loop | scan | newton
 *                                c by the loop over t; by the shared linear scan (v = zero
 *                                only: a = f, b = (1 − f) ⊙ z); or (v = on) by Newton over the
 *                                sequence, whose Jacobian g' = f + f(1 − f) v_f (c_{t-1} − z)
 *                                is exactly diagonal: one evaluation and one scan an iteration,
 *                                until max |c_t − g(c_{t-1})| <= 1e-12 (cpu) or 1e-6 of
 *                                max(1, max |c|) (cuda), at most 64 evaluations. auto: scan
 *                                when v = zero, else loop
 *   highway_scale = off | sqrt3 | a positive number
 *                                α above; off (default) is 1, sqrt3 the authors' scaling for a
 *                                highway bias initialised at 0, applied at run time
 *   math = fp32 (default) | tf32 | 3xtf32
 *                                the cuda GEMMs: strict fp32, TF32 tensor cores, or three TF32
 *                                products of split operands (fp32's accuracy, kernels/gemm.h)
 *
 * Parameters, in this order (W and Wp adjacent: [W; Wp] is one [4D][I] matrix, one GEMM):
 *   W  [3D][I]  rows 0..D-1 W (candidate z), D..2D-1 W_f, 2D..3D-1 W_r (the authors' U order)
 *   Wp [D][I]   only when I != D: the projection of x on the highway path (a parameter)
 *   v  [2D]     only when v = on: v_f then v_r (uniform ±√(3/2), the authors' choice)
 *   b  [2D]     b_f then b_r
 * State: c alone (h never feeds back), so nstate = 1 and the model.h slot h0 holds c_{-1};
 * dh0 receives dL/dc_{-1}; a cell state c0 is refused. Dtypes: cpu f64; cuda x, h (dh, dx,
 * h0, dh0) f32, bf16 or f16, parameters, planes, c and all arithmetic fp32. Activations are kept as
 * planes [K][T·B][D] (z, f, r, and W_p x when I != D), each the [T][C] array (C = B·D) the
 * scan takes: f and r activated on the cpu; on cuda what the GEMM wrote (backward recomputes
 * σ from them and c), the f plane activated in place on the scan route.
 */
#ifndef LOGT_SRU_H
#define LOGT_SRU_H

#include "../model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sru_math { SRU_MATH_FP32, SRU_MATH_TF32, SRU_MATH_3XTF32 } sru_math;
extern const char *const sru_math_names[];   /* "fp32", "tf32", "3xtf32" */

typedef struct sru_opts {
    int v_on;       /* 1: v_f, v_r are parameters; 0: v ≡ 0 (the 2017 form)   */
    int use_scan;   /* the route taken for c: 1 scan, 0 loop                  */
    int newton;     /* route = newton: c by Newton over the sequence (cpu)     */
    double alpha;   /* highway scale α                                        */
    int math;       /* the cuda GEMMs: SRU_MATH_FP32, _TF32 or _3XTF32        */
    int gpus;       /* gpus = N: the scan route's scans in N pieces of time   */
                    /* (cpu: kernels/scan_multi.h's float64 reference)       */
} sru_opts;

typedef struct sru_model {
    logt_model base;
    sru_opts o;
    logt_tensor x, h;   /* views of forward's input and output, kept for backward          */
    logt_tensor gates;  /* [K][T·B][D]: z, f, r, (W_p x when I != D); f and r activated on the
                         * cpu, the raw W_f x, W_r x on cuda (f activated on its scan route) */
    logt_tensor c;      /* [T][B][D] cell states                                            */
    int iterations;     /* route = newton: evaluations - 1 of the last forward             */
    double residual[64];   /* route = newton: max |c_t - g(c_{t-1})| per evaluation        */
    void *cuda;         /* the CUDA path's scratch buffers (sru_cuda.cu)                     */
} sru_model;

/* The knobs of cfg, checked: an error names the valid values. */
logt_status sru_parse_knobs(const logt_model_cfg *cfg, sru_opts *out);
logt_status logt_sru_layout(const logt_model_cfg *cfg, logt_layout *out);

logt_status sru_forward_cpu(sru_model *m, const logt_tensor *x, logt_tensor *h);
logt_status sru_backward_cpu(sru_model *m, const logt_tensor *dh, logt_tensor *dx);

/* Bytes the forward recurrence kernel (sru_recurrence_cuda) must move for this shape: every
 * array it touches, read once or written once (dsize = bytes of an activation of dtype dt):
 *   read   z, W_f x, W_r x               3 planes of T·B·D fp32            12·T·B·D
 *          x' = W_p x (proj) or x        T·B·D fp32 (proj) or of dt         4 or dsize per element
 *          c_{-1} (has_c0)               B·D of dt
 *          b, and v when v_on            2D, 2D fp32
 *   write  c                             T·B·D fp32                         4·T·B·D
 *          h                             T·B·D of dt                        dsize·T·B·D
 * f32, I == D: 24 bytes per element (T·B·D); bf16 or f16, I == D: 20. Its effective bandwidth is
 * this count over its time; compare with a device-to-device copy of the same size. */
int64_t sru_recurrence_bytes(int64_t T, int64_t B, int64_t D, logt_dtype dt, int proj, int has_c0,
                             int v_on);

#ifdef LOGT_HAVE_CUDA
/* The cuda path (sru_cuda.cu, sru_cuda_backward.cu): forward, backward, and freeing its
 * scratch. Same contract as the cpu pair above; x, h, dh, dx are cuda tensors of cfg.dtype
 * (f32, bf16 or f16). */
logt_status sru_forward_cuda(sru_model *m, const logt_tensor *x, logt_tensor *h, logt_ctx *ctx);
logt_status sru_backward_cuda(sru_model *m, const logt_tensor *dh, logt_tensor *dx, logt_ctx *ctx);
void sru_free_cuda(sru_model *m);

/* Only the forward element-wise recurrence (the loop route's kernel), for a bandwidth bench;
 * every pointer is device memory, everything runs on ctx->stream:
 *   gates  [K][T·B][D] fp32 planes z, W_f x, W_r x (without b, v), and W_p x when proj (K = 4)
 *   x      [T][B][D] of dt, the highway input when !proj (ignored when proj; may be NULL then)
 *   v      [2D] v_f then v_r, or NULL (v ≡ 0);   b  [2D] b_f then b_r
 *   c0     [B][D] of dt, c_{-1}, or NULL (zeros)
 *   c      [T][B][D] fp32 out;   h  [T][B][D] of dt out
 * dt is LOGT_F32, LOGT_BF16 or LOGT_F16; α the highway scale. Moves sru_recurrence_bytes(...) bytes. */
logt_status sru_recurrence_cuda(logt_ctx *ctx, int64_t T, int64_t B, int64_t D, logt_dtype dt,
                                const float *gates, int proj, const void *x, const float *v,
                                const float *b, float alpha, const void *c0, float *c, void *h);
#endif

#ifdef __cplusplus
}
#endif
#endif
