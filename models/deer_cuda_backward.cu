/* deer_cuda_backward.cu — deer's backward on CUDA by the adjoint (method in deer.h; the
 * reference is deer_backward_cpu in deer.c), after a forward of deer_cuda.cu in any mode it
 * runs: the converged states are in the forward's buffers (deer_cuda.cuh). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../core/cuda.h"
#include "../core/cuda_check.cuh"
#include "../core/reduce.cuh"
#include "../kernels/gemm.h"
#include "../kernels/scan.h"
#include "deer.h"
#include "deer_cell.h"
#include "deer_cuda.cuh"

/* ---- backward: the adjoint -------------------------------------------------------------
 * λ_t = dL/ds_t in total solves the reversed linear recurrence λ_t = g_t + J_{t+1}^T λ_{t+1}
 * (g: dL/dh on the h part of the state). With J^T = diag(d) + O it is solved by iterating
 *     λ^{k+1}_t = d_{t+1} λ^{k+1}_{t+1} + (g_t + J_{t+1}^T λ^k_{t+1} − d_{t+1} λ^k_{t+1}),
 * each iteration one VJP of every step's cell (all in parallel) and one reversed element-
 * wise scan; the fixed point is the exact adjoint (BPTT's), and a state of 1 gets it in
 * one scan. Then every step's dL/d(W x), dL/d(R h) and the parameter gradients by GEMMs. */

/* Adds J_t^T λ_t to u [S] for one sequence element (xa = W x_t without b, sp = s_{t-1},
 * lam = λ_t); when dxa is not NULL also writes dL/d(W x_t + b) to dxa and dL/d(R h_{t-1})
 * to dra [G·D]. The pointwise math is the float64 references' (gru_cell.h, lstm_cell.h). */
__device__ void cell_vjp(deer_cell cell, int D, const float *R, const float *bias, const float *bn,
                         const float *xa, const float *sp, const float *lam, float *u, float *dxa,
                         float *dra)
{
    const int G = gates_of(cell), GD = G * D;
    for (int j = 0; j < D; j++) {
        double a[4], ra[4], da[4] = {0, 0, 0, 0}, dr[4] = {0, 0, 0, 0};
        for (int q = 0; q < G; q++) {
            const int c = q * D + j;
            a[q] = (double)xa[c] + bias[c], ra[q] = rdot(sp, R, D, GD, c);
        }
        if (cell == DEER_TANH) {
            const double f = tanh(a[0] + ra[0]);
            da[0] = dr[0] = lam[j] * (1.0 - f * f);
        } else if (cell == DEER_GRU) {
            double q4[4];
            ra[2] += bn[j];
            gru_cell_forward(a, ra, sp[j], 1, q4);
            u[j] += (float)gru_cell_backward(q4, 1, sp[j], lam[j], da, dr);   /* through z */
        } else {
            double pre[4] = {a[0] + ra[0], a[1] + ra[1], a[2] + ra[2], a[3] + ra[3]}, hh;
            const double c = lstm_cell_forward(pre, 1, sp[D + j], &hh);
            u[D + j] += (float)lstm_cell_backward(pre, 1, sp[D + j], c, lam[j], lam[D + j], da);
            for (int q = 0; q < 4; q++) dr[q] = da[q];
        }
        for (int q = 0; q < G; q++) {
            const int c = q * D + j;
            if (dxa) dxa[c] = (float)da[q], dra[c] = (float)dr[q];
            for (int mm = 0; mm < D; mm++) u[mm] += R[mm * GD + c] * (float)dr[q];   /* through R */
        }
    }
}

/* Row n = (t, b): the scan's gates A[n] = diag J_{t+1}, inputs Bv[n] = g_t + J_{t+1}^T λ_{t+1}
 * − d_{t+1} λ_{t+1} (λ: the current iterate Lam), and the residual |λ_t − g_t − J_{t+1}^T λ_{t+1}|.
 * The last B rows: when Lamn is NULL they end the sequence, no t+1: A = 0, Bv = g; else (a
 * piece of deer_multi.cu) step t+1 is the next piece's first, with λ Lamn [B][S] and W x rows
 * XAn [B][G·D] (or, WX NULL, its x rows [B][I]). */
__global__ void deer_adjoint_kernel(deer_cell cell, int64_t N, int B, int D, int S, int I,
                                    const float *WX, const float *X, const float *W, const float *R,
                                    const float *bias, const float *bn, const float *St,
                                    const float *dH, const float *Lam, float *A, float *Bv, float *U,
                                    const float *XAn, const float *Lamn, unsigned *res)
{
    __shared__ float sh[BLOCK / 32];
    const int64_t n = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    float worst = 0.0f;
    if (n < N) {
        float *a = A + n * S, *bv = Bv + n * S, *u = U + n * S;
        const float *lam = Lam + n * S;
        if (n + B < N || Lamn) {
            const int G = gates_of(cell);
            const int64_t n1 = n + B;
            float buf[XMAX];
            const float *xa = n1 < N ? xa_of(WX, X, W, n1, G * D, I, buf)
                                     : xa_of(WX ? XAn : NULL, XAn, W, n1 - N, G * D, I, buf);
            const float *sp = St + n * S, *lam1 = n1 < N ? Lam + n1 * S : Lamn + (n1 - N) * S;
            for (int j = 0; j < D; j++) cell_unit(cell, D, R, bias, bn, xa, sp, j, bv, a);   /* bv: f, scratch */
            for (int j = 0; j < S; j++) u[j] = 0.0f;
            cell_vjp(cell, D, R, bias, bn, xa, sp, lam1, u, NULL, NULL);
            for (int j = 0; j < S; j++) {
                const float g = j < D ? dH[n * D + j] : 0.0f;
                worst = worse(worst, fabsf(lam[j] - g - u[j]));
                bv[j] = g + u[j] - a[j] * lam1[j];
            }
        } else {
            for (int j = 0; j < S; j++) {
                const float g = j < D ? dH[n * D + j] : 0.0f;
                worst = worse(worst, fabsf(lam[j] - g));
                a[j] = 0.0f, bv[j] = g;
            }
        }
    }
    block_max_into(worst, sh, res);
}

/* Row n = (t, b) with λ_t: dXA[n], dRA[n]; and, at t = 0, J_0^T λ_0 into U[n] (dL/ds_{-1}). */
__global__ void deer_vjp_rows_kernel(deer_cell cell, int64_t N, int B, int D, int S, int I,
                                     const float *WX, const float *X, const float *W, const float *R,
                                     const float *bias, const float *bn, const float *s0,
                                     const float *St, const float *Lam, float *U, float *dXA, float *dRA)
{
    const int G = gates_of(cell);
    for (int64_t n = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; n < N; n += (int64_t)gridDim.x * blockDim.x) {
        float buf[XMAX], *u = U + n * S;
        const float *xa = xa_of(WX, X, W, n, G * D, I, buf);
        const float *sp = n >= B ? St + (n - B) * S : s0 + n * S;
        for (int j = 0; j < S; j++) u[j] = 0.0f;
        cell_vjp(cell, D, R, bias, bn, xa, sp, Lam + n * S, u, dXA + n * G * D, dRA + n * G * D);
    }
}

/* dh0 [B][D] and dc0 [B][D] (lstm) from U's first B rows (dL/ds_{-1}). */
__global__ void deer_state_grad_kernel(int B, int D, int S, const float *U, float *dh0, float *dc0)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (int64_t)B * D;
         i += (int64_t)gridDim.x * blockDim.x) {
        const int64_t b = i / D, j = i % D;
        if (dh0) dh0[i] = U[b * S + j];
        if (dc0 && S > D) dc0[i] = U[b * S + D + j];
    }
}

/* ---- host ---------------------------------------------------------------------------------- */

static float *grad(deer_model *m, const char *name)
{
    return (float *)logt_model_param(&m->base, &m->base.dw, name).data;
}

logt_status deer_param_grads_cuda(logt_ctx *ctx, deer_cell cell, int64_t T, int64_t B, int64_t D,
                                  int64_t I, const float *X, const float *W, const float *s0,
                                  const float *St, const float *dXA, const float *dRA, const float *ones,
                                  float *dW, float *dR, float *db, float *dbn, float *dx)
{
    const int64_t S = deer_state_size(cell, D), GD = gates_of(cell) * D, N = T * B;
    LOGT_TRY(logt_gemm_ex(ctx, 1, 0, GD, I, N, 1.0f, LOGT_F32, dXA, GD, 0, X, I, 0, 0.0f, dW, I, 0, 1, 0));
    LOGT_TRY(logt_gemm_ex(ctx, 1, 0, GD, 1, N, 1.0f, LOGT_F32, dXA, GD, 0, ones, 1, 0, 0.0f, db, 1, 0, 1, 0));
    if (dbn)
        LOGT_TRY(logt_gemm_ex(ctx, 1, 0, D, 1, N, 1.0f, LOGT_F32, dRA + 2 * D, GD, 0, ones, 1, 0,
                              0.0f, dbn, 1, 0, 1, 0));
    /* dR[m][c] = Σ_n h_{t-1}[m] dRA[n][c]: h_{-1} = s0's h part, the rest the states shifted */
    LOGT_TRY(logt_gemm_ex(ctx, 1, 0, D, GD, B, 1.0f, LOGT_F32, s0, S, 0, dRA, GD, 0, 0.0f, dR, GD, 0, 1, 0));
    if (T > 1)
        LOGT_TRY(logt_gemm_ex(ctx, 1, 0, D, GD, N - B, 1.0f, LOGT_F32, St, S, 0, dRA + B * GD, GD, 0,
                              1.0f, dR, GD, 0, 1, 0));
    if (dx)
        LOGT_TRY(logt_gemm_ex(ctx, 0, 0, N, I, GD, 1.0f, LOGT_F32, dXA, GD, 0, W, I, 0, 0.0f, dx, I, 0, 1, 0));
    return LOGT_OK;
}

extern "C" logt_status deer_backward_cuda(deer_model *m, const logt_tensor *dh, logt_tensor *dx,
                                          logt_ctx *ctx)
{
    LOGT_TRY(logt_ctx_require_cuda(ctx, "deer backward"));
    deer_cuda_scratch *sc = (deer_cuda_scratch *)m->cuda;
    if (!m->solved || !sc)
        return LOGT_FAIL(LOGT_EINVAL, "deer backward: the last forward did not give a solution "
                         "(it failed): run a forward that succeeds first");
    if (dh->device != LOGT_CUDA || dh->dtype != LOGT_F32 || (dx && (dx->device != LOGT_CUDA || dx->dtype != LOGT_F32)))
        return LOGT_FAIL(LOGT_EINVAL, "deer backward on cuda takes dh and dx as cuda f32 tensors");
    const logt_tensor *x = &m->x;
    const int64_t T = x->shape[0], B = x->shape[1], I = x->shape[2], D = m->base.cfg.hidden_size;
    const int G = gates_of(m->cell);
    const int64_t S = deer_state_size(m->cell, D), N = T * B, GD = G * D;
    if (dh->ndim != 3 || dh->shape[0] != T || dh->shape[1] != B || dh->shape[2] != D)
        return LOGT_FAIL(LOGT_EINVAL, "deer backward: dh must be [T][B][D] = [%lld][%lld][%lld] "
                         "like the last forward's h", (long long)T, (long long)B, (long long)D);
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const float *R = param(m, "R"), *bias = param(m, "b"), *bn = m->cell == DEER_GRU ? param(m, "bn") : NULL;
    const float *X = (const float *)x->data, *Wt = param(m, "W"), *s0 = (const float *)sc->s0.data;
    const float *WX = sc->wx_valid ? (const float *)sc->wx.data : NULL, *St = (const float *)sc->s.data;
    LOGT_TRY(logt_tensor_reserve(&sc->lam, LOGT_CUDA, LOGT_F32, N * S, NULL));
    LOGT_TRY(logt_tensor_reserve(&sc->lam2, LOGT_CUDA, LOGT_F32, N * S, NULL));
    LOGT_TRY(logt_tensor_reserve(&sc->u, LOGT_CUDA, LOGT_F32, N * S, NULL));
    LOGT_TRY(logt_tensor_reserve(&sc->a, LOGT_CUDA, LOGT_F32, N * S, NULL));
    LOGT_TRY(logt_tensor_reserve(&sc->b, LOGT_CUDA, LOGT_F32, N * S, NULL));
    LOGT_TRY(logt_tensor_reserve(&sc->res, LOGT_CUDA, LOGT_F32, 1, NULL));
    float *Lam = (float *)sc->lam.data, *Lam2 = (float *)sc->lam2.data, *U = (float *)sc->u.data;
    float *A = (float *)sc->a.data, *Bv = (float *)sc->b.data;
    unsigned *res = (unsigned *)sc->res.data;

    /* 1. the adjoint, from λ = 0. The residual of λ = 0 is max |g|: the stop is relative to
     * it, tol·max|g|, or where fp32 rounding stops the residual falling (under 1e-4·max|g|
     * and not halved by the last scan) */
    CUDA_TRY(cudaMemsetAsync(Lam, 0, (size_t)(N * S) * sizeof(float), st));
    float r0 = 0.0f, r = 0.0f, last = INFINITY;
    int k = 0;
    for (;; k++) {
        CUDA_TRY(cudaMemsetAsync(res, 0, sizeof(unsigned), st));
        deer_adjoint_kernel<<<(unsigned)((N + BLOCK - 1) / BLOCK), BLOCK, 0, st>>>(
            m->cell, N, (int)B, (int)D, (int)S, (int)I, WX, X, Wt, R, bias, bn, St,
            (const float *)dh->data, Lam, A, Bv, U, NULL, NULL, res);
        LAUNCH_TRY();
        LOGT_TRY(logt_cuda_read_max(st, res, &r));
        if (k == 0) r0 = r;
        if (deer_adjoint_stops(k, r, r0, last, m->tol)) break;
        last = r;
        if (!isfinite(r) || k == m->max_iter)
            return LOGT_FAIL(LOGT_ENUMERIC, "deer backward on cuda: the adjoint did not converge: "
                             "residual %.3g after %d iterations (tol %g of %.3g)%s", r, k, m->tol,
                             r0, isfinite(r) ? "" : "; the iterate is not finite");
        LOGT_TRY(scan_cuda(ctx, 1, T, B * S, LOGT_F32, A, Bv, NULL, Lam2));
        float *t = Lam;
        Lam = Lam2, Lam2 = t;
    }
    /* 2. every step's dL/d(W x), dL/d(R h); dL/ds_{-1} from step 0 */
    LOGT_TRY(logt_tensor_reserve(&sc->dxa, LOGT_CUDA, LOGT_F32, N * GD, NULL));
    LOGT_TRY(logt_tensor_reserve(&sc->dra, LOGT_CUDA, LOGT_F32, N * GD, NULL));
    float *dXA = (float *)sc->dxa.data, *dRA = (float *)sc->dra.data;
    deer_vjp_rows_kernel<<<logt_cuda_grid(N, BLOCK), BLOCK, 0, st>>>(
        m->cell, N, (int)B, (int)D, (int)S, (int)I, WX, X, Wt, R, bias, bn, s0, St, Lam, U, dXA, dRA);
    LAUNCH_TRY();
    if (m->base.dh0.data || m->base.dc0.data) {
        deer_state_grad_kernel<<<logt_cuda_grid(B * D, BLOCK), BLOCK, 0, st>>>(
            (int)B, (int)D, (int)S, U, (float *)m->base.dh0.data, (float *)m->base.dc0.data);
        LAUNCH_TRY();
    }
    /* 3. parameter gradients and dx, strict fp32 GEMMs over all steps */
    int fresh = 0;
    LOGT_TRY(logt_tensor_reserve(&sc->ones, LOGT_CUDA, LOGT_F32, N, &fresh));
    if (fresh) LOGT_TRY(logt_cuda_fill_f32(ctx, (float *)sc->ones.data, N, 1.0f));
    LOGT_TRY(deer_param_grads_cuda(ctx, m->cell, T, B, D, I, X, Wt, s0, St, dXA, dRA,
                                   (const float *)sc->ones.data, grad(m, "W"), grad(m, "R"),
                                   grad(m, "b"), m->cell == DEER_GRU ? grad(m, "bn") : NULL,
                                   dx ? (float *)dx->data : NULL));
    const size_t len = strlen(m->base.detail);
    snprintf(m->base.detail + len, sizeof m->base.detail - len, "; adjoint: %d scans, residual %.3g of %.3g",
             k, r, r0);
    return LOGT_OK;
}

