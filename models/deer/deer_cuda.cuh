/* deer_cuda.cuh — what deer's CUDA files share (the forward deer_cuda.cu and deer_cuda_full.cu,
 * the damped step, the backward, deer_multi.cu): the buffers kept between calls, the Newton
 * arguments, the cells with the diagonal of their Jacobian in fp32 (one unit of one sequence
 * element at a time), W x_t, and the parameters. */
#ifndef LOGT_DEER_CUDA_CUH
#define LOGT_DEER_CUDA_CUH

#include <math.h>
#include <stdint.h>

#include "../../core/ctx.h"
#include "../../core/tensor.h"
#include "deer.h"

#define BLOCK 256

typedef struct deer_cuda_scratch {
    logt_tensor wx;          /* [N][G·D] W x (the bias is added by the kernels)          */
    logt_tensor s, s2;       /* [N][S] the iterate and the next one                      */
    logt_tensor a, b;        /* [N][S] the scan's gates and inputs                       */
    logt_tensor s0;          /* [B][S] s_{-1}                                           */
    logt_tensor res;         /* launches: [1] the residual, as the bits of a non-negative
                                float; persistent: [max_iter + 1] residuals, then the
                                iterations made and whether it converged                 */
    logt_tensor agg, carry;  /* persistent: per block and channel, the block's composed
                                (a, b) and the state before its chunk                     */
    logt_tensor lam, lam2, u; /* backward: [N][S] λ (two iterates); [B][S] J_0^T λ_0      */
    logt_tensor cf;          /* backward: [N][adjoint_ncoef] the coefficients of J_{t+1}^T */
    logt_tensor dxa, dra;    /* backward: [N][G·D] dL/d(W x), dL/d(R h)                   */
    logt_tensor ones;        /* backward: [N] ones (bias gradients as products)          */
    int wx_valid;            /* wx holds the last forward's W x (else the kernels work it out) */
    logt_tensor J, rhs;      /* mode = full: [N][S][S] Jacobians, [N][S] right-hand sides (f64) */
    logt_tensor mc, vc, cc;  /* mode = full: per (chunk, sequence) M [S][S], v [S], carry [S] */
    logt_tensor rd, bnd;     /* mode = full: R and bn in f64                              */
    logt_tensor dmaps, dcarry; /* mode = damped: per (chunk, channel) the sweep's 2×2 map and
                                the c' entering the chunk                                 */
    logt_tensor dfb, dnc;    /* mode = damped: [N][S] the forward scan's inputs, then r'; the
                                reversed scan's gates −c'                                 */
    logt_tensor nclamp;      /* jacobian_clamp: [1] the entries clamped, a 64-bit count   */
    logt_tensor ut;          /* backward of a segment: [B][S] dL/d(final state), [dhT; dcT] */
} deer_cuda_scratch;

/* mode = damped's step (deer_cuda_damped.cu): for each of the C = B·S channels of the [T][C]
 * arrays, out = argmin Σ_t (h_t − a_t h_{t-1} − b_t)² + λ Σ_t (h_t − g_t)², h_{-1} = s0 [C]
 * (NULL: zeros); out must not overlap a, b, g. Buffers in sc (dmaps, dcarry, dfb, dnc). */
logt_status deer_damped_cuda(logt_ctx *ctx, deer_cuda_scratch *sc, int64_t T, int64_t C, float lambda,
                             const float *a, const float *b, const float *g, const float *s0, float *out);

/* A Newton solve's arguments: the persistent kernel's, and what the host routes read. */
typedef struct newton_args {
    int64_t T;
    int B, I, Bb, lanes, nq, L, max_iter;   /* Bb sequences × lanes runs of L steps a block */
    float tol;
    const float *WX, *X, *W, *R, *bias, *bn, *s0;
    const float *init; /* the first guess [N][S] (warm = on), NULL: zeros               */
    float *St, *A, *Bv;
    float2 *agg;       /* [grid][Bb·S] each block's composed (a, b) per channel           */
    float *carry;      /* [grid][Bb·S] the state just before each block's chunk           */
    unsigned *res;     /* [max_iter + 1] residuals, then [2] iterations made, converged   */
    float clamp;       /* jacobian_clamp's bound, used when nclamp is not NULL             */
    unsigned long long *nclamp;   /* the entries clamped, counted over the solve; NULL: off */
} newton_args;

/* deer_cuda.cu's Newton steps that deer_cuda_full.cu shares: the first iterate (the guess
 * init, or zeros, into Sx [n]); and, after evaluation k, its residual read (one small copy and
 * a synchronisation) into m's report (and *residual unless NULL), *done = 1 when Newton stops
 * there (converged, not finite, or max_iter reached). */
logt_status deer_first_guess(cudaStream_t st, const float *init, float *Sx, int64_t n);
logt_status deer_newton_step_done(deer_model *m, logt_ctx *ctx, const unsigned *res, int k, int *done,
                                  float *residual);
/* mode = full with a state wider than 1 (deer_cuda_full.cu): per iteration the evaluation and
 * the three passes of the matrix scan, the residual checked on the host; *Sx ends at the last
 * iterate (sc->s or sc->s2), the report in m. */
logt_status deer_newton_full(deer_model *m, logt_ctx *ctx, deer_cuda_scratch *sc, const newton_args *a,
                             float **Sx);

/* ---- jacobian_clamp -------------------------------------------------------------------------- */

/* v clamped to [-X, X]; n counts it when it was outside (NaN stays, uncounted). */
template <typename R>
__device__ __forceinline__ R clamp_entry(R v, R X, unsigned &n)
{
    if (v > X) return n++, X;
    if (v < -X) return n++, -X;
    return v;
}

/* The warp's counts added to *total: a shuffle sum, one atomic per warp with any. Every lane
 * of the warp calls it (the kernels call it where every thread of the block arrives). */
__device__ __forceinline__ void add_clamps(unsigned n, unsigned long long *total)
{
    for (int off = 16; off > 0; off >>= 1) n += __shfl_xor_sync(0xffffffffu, n, off);
    if ((threadIdx.x & 31) == 0 && n) atomicAdd(total, (unsigned long long)n);
}

/* ---- the cells, one unit j of one sequence element ------------------------------------------ */

__device__ __forceinline__ float sig(float a) { return 1.0f / (1.0f + expf(-a)); }

__host__ __device__ __forceinline__ int gates_of(deer_cell cell)
{
    return cell == DEER_LSTM ? 4 : cell == DEER_GRU ? 3 : 1;
}

/* A thread's row of S floats (a state) for inner loops that read it D·G·D times: copied to
 * buf in the thread's local memory when S <= ROW_MAX, else the row itself. Local memory
 * interleaves a warp's threads word by word, so the loops then read it in one transaction a
 * warp, where 32 rows S floats apart take up to 32. */
#define ROW_MAX 64
__device__ __forceinline__ const float *row_local(const float *row, int S, float *buf)
{
    if (S > ROW_MAX) return row;
    for (int k = 0; k < S; k++) buf[k] = row[k];
    return buf;
}

/* The j-th pre-activation from the recurrent side: Σ_m hp_m R[m][c] for column c. */
__device__ __forceinline__ float rdot(const float *hp, const float *R, int D, int GD, int c)
{
    float s = 0.0f;
    for (int mm = 0; mm < D; mm++) s += hp[mm] * R[mm * GD + c];
    return s;
}

/* Unit j's activated gates from its inputs W x_t (without b), gate g's at xj[g * xs], the
 * bias and sp's h part through R: gru q = {r, z, n, rn} (rn = (h R)_n + bn), lstm {i, f, g,
 * o}, tanh {f}. xj = xa + j, xs = D reads a row of W x; xs = 1 a thread's own registers. */
__device__ __forceinline__ void unit_gates(deer_cell cell, int D, const float *R, const float *bias,
                                           const float *bn, const float *xj, int xs, const float *sp,
                                           int j, float q[4])
{
    if (cell == DEER_TANH) {
        q[0] = tanhf(xj[0] + bias[j] + rdot(sp, R, D, D, j));
        return;
    }
    if (cell == DEER_GRU) {
        const int GD = 3 * D;
        q[0] = sig(xj[0] + bias[j] + rdot(sp, R, D, GD, j));
        q[1] = sig(xj[xs] + bias[D + j] + rdot(sp, R, D, GD, D + j));
        q[3] = rdot(sp, R, D, GD, 2 * D + j) + bn[j];
        q[2] = tanhf(xj[2 * xs] + bias[2 * D + j] + q[0] * q[3]);
        return;
    }
    const int GD = 4 * D;
    q[0] = sig(xj[0] + bias[j] + rdot(sp, R, D, GD, j));
    q[1] = sig(xj[xs] + bias[D + j] + rdot(sp, R, D, GD, D + j));
    q[2] = tanhf(xj[2 * xs] + bias[2 * D + j] + rdot(sp, R, D, GD, 2 * D + j));
    q[3] = sig(xj[3 * xs] + bias[3 * D + j] + rdot(sp, R, D, GD, 3 * D + j));
}

/* f and diag J of unit j from its inputs W x_t at xj[g * xs] (as unit_gates): writes f_j
 * (and, lstm, c_j at f[D + j]) and jd likewise. */
__device__ __forceinline__ void cell_unit_x(deer_cell cell, int D, const float *R, const float *bias,
                                            const float *bn, const float *xj, int xs, const float *sp,
                                            int j, float *f, float *jd)
{
    const float *hp = sp;
    float q[4];
    unit_gates(cell, D, R, bias, bn, xj, xs, sp, j, q);
    if (cell == DEER_TANH) {
        const float v = q[0];
        f[j] = v;
        if (jd) jd[j] = (1.0f - v * v) * R[j * D + j];
        return;
    }
    if (cell == DEER_GRU) {
        const int GD = 3 * D;
        const float r = q[0], z = q[1], n = q[2], rn = q[3];
        f[j] = (1.0f - z) * n + z * hp[j];
        if (jd) {
            const float cn = (1.0f - z) * (1.0f - n * n);
            const float *Rj = R + j * GD;
            jd[j] = cn * rn * r * (1.0f - r) * Rj[j] + (hp[j] - n) * z * (1.0f - z) * Rj[D + j] +
                    cn * r * Rj[2 * D + j] + z;
        }
        return;
    }
    const int GD = 4 * D;   /* lstm: state [h; c] */
    const float i = q[0], fg = q[1], g = q[2], o = q[3];
    const float cp = sp[D + j], c = fg * cp + i * g, tc = tanhf(c);
    f[j] = o * tc, f[D + j] = c;
    if (jd) {
        const float *Rj = R + j * GD;
        const float dc = g * i * (1.0f - i) * Rj[j] + cp * fg * (1.0f - fg) * Rj[D + j] +
                         i * (1.0f - g * g) * Rj[2 * D + j];
        jd[j] = tc * o * (1.0f - o) * Rj[3 * D + j] + o * (1.0f - tc * tc) * dc;
        jd[D + j] = fg;
    }
}

/* The same from xa, the row W x_t of all units. */
__device__ __forceinline__ void cell_unit(deer_cell cell, int D, const float *R, const float *bias,
                                          const float *bn, const float *xa, const float *sp, int j,
                                          float *f, float *jd)
{
    cell_unit_x(cell, D, R, bias, bn, xa + j, D, sp, j, f, jd);
}

/* W x_t of sequence element n: WX's row when the GEMM made it, else (a small G·D·I, at most
 * XMAX) worked out here, which saves the GEMM's launch and pass over memory. */
#define XMAX 256
__device__ __forceinline__ const float *xa_of(const float *WX, const float *X, const float *W,
                                              int64_t n, int GD, int I, float *buf)
{
    if (WX) return WX + n * GD;
    for (int c = 0; c < GD; c++) {
        float s = 0.0f;
        for (int i = 0; i < I; i++) s += W[c * I + i] * X[n * I + i];
        buf[c] = s;
    }
    return buf;
}

/* ---- kernels of deer_cuda.cu and deer_cuda_backward.cu that deer_multi.cu launches too --------
 * (arguments as at their definitions; N = T·B rows, St [N][S] the states, s0 [B][S] s_{-1}) */
__global__ void deer_eval_kernel(deer_cell cell, int64_t N, int B, int D, int S, int I, const float *WX,
                                 const float *X, const float *W, const float *R, const float *bias,
                                 const float *bn, const float *s0, const float *St, float *A, float *Bv,
                                 unsigned *res, float clamp, unsigned long long *nclamp);
__global__ void deer_state_kernel(int64_t n, int D, int S, const float *h0, const float *c0, float *s0);
__global__ void deer_h_of_state_kernel(int64_t N, int D, int S, const float *St, float *h);
__global__ void deer_adjoint_coef_kernel(deer_cell cell, int64_t N, int B, int D, int S, int I,
                                         const float *WX, const float *X, const float *W, const float *R,
                                         const float *bias, const float *bn, const float *St,
                                         const float *XAn, float *A, float *Cf);
__global__ void deer_adjoint_step_kernel(deer_cell cell, int64_t N, int B, int D, int S, const float *R,
                                         const float *Cf, const float *A, const float *dH, const float *Lam,
                                         const float *Lamn, const float *uT, float *Bv, unsigned *res);
/* Floats of J_{t+1}^T's coefficients per row (deer_adjoint_coef_kernel). */
__host__ __device__ inline int adjoint_ncoef(deer_cell cell, int D)
{
    return gates_of(cell) * D + (cell == DEER_GRU ? D : cell == DEER_LSTM ? 2 * D : 0);
}
__global__ void deer_vjp_rows_kernel(deer_cell cell, int64_t N, int B, int D, int S, int I,
                                     const float *WX, const float *X, const float *W, const float *R,
                                     const float *bias, const float *bn, const float *s0,
                                     const float *St, const float *Lam, float *U, float *dXA, float *dRA);
__global__ void deer_state_grad_kernel(int B, int D, int S, const float *U, float *dh0, float *dc0);

/* The adjoint's stop after its k-th residual r (r0 the first, last the one before): tol·r0,
 * or where fp32 rounding stops the residual falling (under 1e-4·r0 and not halved by the
 * last scan); r0 = 0 (dh = 0) at once. */
static inline int deer_adjoint_stops(int k, float r, float r0, float last, double tol)
{
    return r0 == 0.0f || r <= tol * r0 || (k >= 2 && r > 0.5f * last && r <= 1e-4f * r0);
}

/* The parameter gradients of T·B rows from dXA = dL/d(W x + b) and dRA = dL/d(h_{t-1} R)
 * [T·B][G·D] (deer_vjp_rows_kernel): dW = dXA^T X, db = dXA^T 1, dbn (gru) = dRA's n part^T 1,
 * dR = [s0; St]^T dRA (h_{t-1}: s0's h part, then the states shifted), and dx = dXA W unless
 * dx is NULL; ones [T·B]. Strict fp32 GEMMs on ctx, overwriting the parameter gradients
 * (beta = 0) or adding to them (beta = 1: a segment's), overwriting dx (deer_cuda_backward.cu). */
logt_status deer_param_grads_cuda(logt_ctx *ctx, deer_cell cell, int64_t T, int64_t B, int64_t D,
                                  int64_t I, const float *X, const float *W, const float *s0,
                                  const float *St, const float *dXA, const float *dRA, const float *ones,
                                  float beta, float *dW, float *dR, float *db, float *dbn, float *dx);

/* The parameter `name` of m in fp32 on the device. */
static inline const float *param(deer_model *m, const char *name)
{
    return (const float *)logt_model_param(&m->base, &m->base.w, name).data;
}

#endif
