/* deer_cuda_backward.cu — deer's backward on CUDA by the adjoint (method in deer.h; the
 * reference is deer_backward_cpu in deer.c), after a forward of deer_cuda.cu in any mode it
 * runs: the converged states are in the forward's buffers (deer_cuda.cuh). A segment's backward
 * (recompute, model.h) starts the adjoint at the last step from dhT, dcT and adds its
 * parameter gradients to dw (the GEMMs' beta = 1) when dw_add. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../core/cuda.h"
#include "../../core/cuda_check.cuh"
#include "../../core/reduce.cuh"
#include "../../kernels/gemm.h"
#include "../../kernels/scan.h"
#include "deer.h"
#include "deer_cell.h"
#include "deer_cuda.cuh"

/* ---- backward: the adjoint -------------------------------------------------------------
 * λ_t = dL/ds_t in total solves the reversed linear recurrence λ_t = g_t + J_{t+1}^T λ_{t+1}
 * (g: dL/dh on the h part of the state). With J^T = diag(d) + O it is solved by iterating
 *     λ^{k+1}_t = d_{t+1} λ^{k+1}_{t+1} + (g_t + J_{t+1}^T λ^k_{t+1} − d_{t+1} λ^k_{t+1}),
 * each iteration J^T λ at every step (all in parallel, from coefficients of J worked out
 * once: below) and one reversed element-wise scan; the fixed point is the exact adjoint
 * (BPTT's), and a state of 1 gets it in one scan. Then every step's dL/d(W x), dL/d(R h)
 * (one VJP of the cell at λ_t, in float64) and the parameter gradients by GEMMs.
 * Per iteration a row reads λ_{t+1}, its coefficients, the diagonal, g and λ_t and writes the
 * scan's input, (G + 6)·D floats for the gru (16·D lstm, 6·D tanh), and makes about
 * 2·G·D² flops (R·P, each element of u summed in a register): no read-modify-write of
 * global memory (experiments/deer-speedup, Design notes). */

/* Adds J_t^T λ_t to u [S] (unless u is NULL) for one sequence element (xa = W x_t without b,
 * sp = s_{t-1}, lam = λ_t); when dxa is not NULL also writes dL/d(W x_t + b) to dxa and
 * dL/d(R h_{t-1}) to dra [G·D]. The pointwise math is the float64 references' (gru_cell.h, lstm_cell.h). */
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
            const float uz = (float)gru_cell_backward(q4, 1, sp[j], lam[j], da, dr);   /* through z */
            if (u) u[j] += uz;
        } else {
            double pre[4] = {a[0] + ra[0], a[1] + ra[1], a[2] + ra[2], a[3] + ra[3]}, hh;
            const double c = lstm_cell_forward(pre, 1, sp[D + j], &hh);
            const float uc = (float)lstm_cell_backward(pre, 1, sp[D + j], c, lam[j], lam[D + j], da);
            if (u) u[D + j] += uc;
            for (int q = 0; q < 4; q++) dr[q] = da[q];
        }
        for (int q = 0; q < G; q++) {
            const int c = q * D + j;
            if (dxa) dxa[c] = (float)da[q], dra[c] = (float)dr[q];
            for (int mm = 0; u && mm < D; mm++) u[mm] += R[mm * GD + c] * (float)dr[q];   /* through R */
        }
    }
}

/* ---- the adjoint's linearisation, once per backward -------------------------------------
 * J_{t+1}^T λ is linear in λ with coefficients that depend on the step only, so they are
 * worked out once from the converged states (deer_adjoint_coef_kernel) and each adjoint
 * iteration is u = R·P(λ) + direct(λ) per step (deer_adjoint_step_kernel), P the gradients
 * of the gates' recurrent pre-activations (adjoint_unit):
 *   gru   P_r = λ C_r, P_z = λ C_z, P_n = λ C_n; direct z λ, with
 *         C_r = (1−z)(1−n²) rn r(1−r), C_z = (h−n) z(1−z), C_n = (1−z)(1−n²) r
 *   lstm  dc = λc + λh a; P_{i,f,g} = dc C_{i,f,g}, P_o = λh C_o; direct (the c part) dc f,
 *         with a = o(1−tanh²c), C_i = g i(1−i), C_f = c_t f(1−f), C_g = i(1−g²), C_o = tanh(c) o(1−o)
 *   tanh  P = λ (1−f²)
 * A row of coefficients: [G][D] gate coefficients, then z (gru) or a and f (lstm). The
 * diagonal of J_{t+1} (the scan's gates) is the same map applied to unit vectors. */
/* Unit j of a row: P[q] (q < G) from unit j's λ_{t+1} (lh; lc its c part, lstm) and the row's
 * coefficients cf; *hdir, *cdir: the direct terms of unit j's own h and c. */
__device__ __forceinline__ void adjoint_unit(deer_cell cell, int D, const float *cf, int j, float lh, float lc,
                                             float P[4], float *hdir, float *cdir)
{
    const int GD = gates_of(cell) * D;
    *hdir = *cdir = 0.0f;
    if (cell == DEER_TANH) {
        P[0] = lh * cf[j];
    } else if (cell == DEER_GRU) {
        for (int q = 0; q < 3; q++) P[q] = lh * cf[q * D + j];
        *hdir = lh * cf[GD + j];
    } else {
        const float dc = lc + lh * cf[GD + j];
        for (int q = 0; q < 3; q++) P[q] = dc * cf[q * D + j];
        P[3] = lh * cf[3 * D + j];
        *cdir = dc * cf[GD + D + j];
    }
}

/* Row n = (t, b): the coefficients of J_{t+1} at s_t (Cf [N][adjoint_ncoef]) and its diagonal
 * (A [N][S], the reversed scan's gates). The last B rows: when XAn is NULL they end the
 * sequence (A = 0, Cf = 0); else (a piece of deer_multi.cu) step t+1 is the next piece's
 * first, with W x rows XAn [B][G·D] (or, WX NULL, its x rows [B][I]). */
__global__ void deer_adjoint_coef_kernel(deer_cell cell, int64_t N, int B, int D, int S, int I,
                                         const float *WX, const float *X, const float *W, const float *R,
                                         const float *bias, const float *bn, const float *St,
                                         const float *XAn, float *A, float *Cf)
{
    const int G = gates_of(cell), GD = G * D, NC = adjoint_ncoef(cell, D);
    for (int64_t n = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; n < N; n += (int64_t)gridDim.x * blockDim.x) {
        float *a = A + n * S, *cf = Cf + n * NC;
        if (n + B >= N && !XAn) {
            for (int j = 0; j < S; j++) a[j] = 0.0f;
            for (int k = 0; k < NC; k++) cf[k] = 0.0f;
            continue;
        }
        const int64_t n1 = n + B;
        float buf[XMAX], q[4], row[ROW_MAX];
        const float *xa = n1 < N ? xa_of(WX, X, W, n1, GD, I, buf) : xa_of(WX ? XAn : NULL, XAn, W, n1 - N, GD, I, buf);
        const float *sp = row_local(St + n * S, S, row);
        for (int j = 0; j < D; j++) {
            unit_gates(cell, D, R, bias, bn, xa + j, D, sp, j, q);
            if (cell == DEER_TANH) {
                cf[j] = 1.0f - q[0] * q[0];
            } else if (cell == DEER_GRU) {
                const float r = q[0], z = q[1], nn = q[2], rn = q[3], cn = (1.0f - z) * (1.0f - nn * nn);
                cf[j] = cn * rn * r * (1.0f - r), cf[D + j] = (sp[j] - nn) * z * (1.0f - z);
                cf[2 * D + j] = cn * r, cf[GD + j] = z;
            } else {
                const float i = q[0], f = q[1], g = q[2], o = q[3], cp = sp[D + j];
                const float tc = tanhf(f * cp + i * g);
                cf[j] = g * i * (1.0f - i), cf[D + j] = cp * f * (1.0f - f), cf[2 * D + j] = i * (1.0f - g * g);
                cf[3 * D + j] = tc * o * (1.0f - o), cf[GD + j] = o * (1.0f - tc * tc), cf[GD + D + j] = f;
            }
        }
        for (int j = 0; j < D; j++) {   /* the diagonal: the map applied to unit vectors */
            float P[4], hd, cd;
            adjoint_unit(cell, D, cf, j, 1.0f, 0.0f, P, &hd, &cd);
            float v = hd;
            for (int qq = 0; qq < G; qq++) v += R[j * GD + qq * D + j] * P[qq];
            a[j] = v;
            if (S > D) {
                adjoint_unit(cell, D, cf, j, 0.0f, 1.0f, P, &hd, &cd);
                a[D + j] = cd;
            }
        }
    }
}

#define P_MAX 256   /* G·D up to which a row's P is kept in local memory (and D <= ROW_MAX) */

/* One adjoint iteration at row n = (t, b): u = J_{t+1}^T λ_{t+1} from the coefficients, the
 * reversed scan's inputs Bv[n] = g_t + u − A[n] λ_{t+1} (λ: the current iterate Lam), and the
 * residual |λ_t − g_t − u|. Each element of u is summed in a register from the gates' P of
 * every unit: worked out once into local memory (G·D <= P_MAX), or recomputed for each
 * element (wider states). The last B rows: no t+1 when
 * Lamn is NULL (u = uT [B][S], a segment's dL/d(final state) from the steps after it, or 0
 * when uT is NULL too); else step t+1 is the next piece's first, its λ Lamn [B][S]
 * (deer_multi.cu). */
__global__ void deer_adjoint_step_kernel(deer_cell cell, int64_t N, int B, int D, int S, const float *R,
                                         const float *Cf, const float *A, const float *dH, const float *Lam,
                                         const float *Lamn, const float *uT, float *Bv, unsigned *res)
{
    __shared__ float sh[BLOCK / 32];
    const int64_t n = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    float worst = 0.0f;
    if (n < N) {
        const int G = gates_of(cell), GD = G * D;
        float *bv = Bv + n * S;
        const float *lam = Lam + n * S, *a = A + n * S;
        const int next = n + B < N || Lamn;
        const float *lam1 = !next ? NULL : n + B < N ? Lam + (n + B) * S : Lamn + (n + B - N) * S;
        const float *cf = Cf + n * adjoint_ncoef(cell, D);
        /* every unit's P and direct terms once, in local memory, when they fit */
        float Pl[P_MAX], hdl[ROW_MAX], cdl[ROW_MAX];
        const int cached = next && GD <= P_MAX && D <= ROW_MAX;
        for (int j = 0; cached && j < D; j++) {
            float P[4];
            adjoint_unit(cell, D, cf, j, lam1[j], S > D ? lam1[D + j] : 0.0f, P, &hdl[j], &cdl[j]);
            for (int q = 0; q < G; q++) Pl[q * D + j] = P[q];
        }
        for (int k = 0; k < S; k++) {   /* element k of u: h part k < D, c part (lstm) k >= D */
            float u = 0.0f, P[4], hd, cd;
            if (cached) {
                if (k < D) {
                    for (int c = 0; c < GD; c++) u += R[k * GD + c] * Pl[c];
                    u += hdl[k];
                } else {
                    u = cdl[k - D];
                }
            } else if (next && k < D) {
                for (int j = 0; j < D; j++) {
                    adjoint_unit(cell, D, cf, j, lam1[j], S > D ? lam1[D + j] : 0.0f, P, &hd, &cd);
                    for (int q = 0; q < G; q++) u += R[k * GD + q * D + j] * P[q];
                    if (j == k) u += hd;
                }
            } else if (next) {
                adjoint_unit(cell, D, cf, k - D, lam1[k - D], lam1[k], P, &hd, &cd);
                u = cd;
            } else if (uT) {
                u = uT[(n + B - N) * S + k];
            }
            const float g = k < D ? dH[n * D + k] : 0.0f;
            worst = worse(worst, fabsf(lam[k] - g - u));
            bv[k] = g + u - (next ? a[k] * lam1[k] : 0.0f);
        }
    }
    block_max_into(worst, sh, res);
}

/* Row n = (t, b) with λ_t: dXA[n], dRA[n]; and, at t = 0 only, J_0^T λ_0 into U[n] (dL/ds_{-1}). */
__global__ void deer_vjp_rows_kernel(deer_cell cell, int64_t N, int B, int D, int S, int I,
                                     const float *WX, const float *X, const float *W, const float *R,
                                     const float *bias, const float *bn, const float *s0,
                                     const float *St, const float *Lam, float *U, float *dXA, float *dRA)
{
    const int G = gates_of(cell);
    for (int64_t n = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; n < N; n += (int64_t)gridDim.x * blockDim.x) {
        float buf[XMAX], row[ROW_MAX], *u = n < B ? U + n * S : NULL;
        const float *xa = xa_of(WX, X, W, n, G * D, I, buf);
        const float *sp = row_local(n >= B ? St + (n - B) * S : s0 + n * S, S, row);
        for (int j = 0; u && j < S; j++) u[j] = 0.0f;
        cell_vjp(cell, D, R, bias, bn, xa, sp, Lam + n * S, u, dXA + n * G * D, dRA + n * G * D);
    }
}

/* uT [B][S] = [dhT; dcT] (lstm), or dhT: a segment's dL/d(final state); NULL parts are zeros. */
__global__ void deer_final_grad_kernel(int B, int D, int S, const float *dhT, const float *dcT, float *uT)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (int64_t)B * S;
         i += (int64_t)gridDim.x * blockDim.x) {
        const int64_t b = i / S, k = i % S;
        const float *src = k < D ? dhT : dcT;
        uT[i] = src ? src[b * D + (k < D ? k : k - D)] : 0.0f;
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
                                  float beta, float *dW, float *dR, float *db, float *dbn, float *dx)
{
    const int64_t S = deer_state_size(cell, D), GD = gates_of(cell) * D, N = T * B;
    LOGT_TRY(logt_gemm_f32_tn_long(ctx, GD, I, N, 1.0f, dXA, GD, X, I, beta, dW));
    LOGT_TRY(logt_gemm_f32_tn_long(ctx, GD, 1, N, 1.0f, dXA, GD, ones, 1, beta, db));
    if (dbn) LOGT_TRY(logt_gemm_f32_tn_long(ctx, D, 1, N, 1.0f, dRA + 2 * D, GD, ones, 1, beta, dbn));
    /* dR[m][c] = Σ_n h_{t-1}[m] dRA[n][c]: h_{-1} = s0's h part, the rest the states shifted */
    LOGT_TRY(logt_gemm_f32_tn_long(ctx, D, GD, B, 1.0f, s0, S, dRA, GD, beta, dR));
    if (T > 1) LOGT_TRY(logt_gemm_f32_tn_long(ctx, D, GD, N - B, 1.0f, St, S, dRA + B * GD, GD, 1.0f, dR));
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
    LOGT_TRY(logt_tensor_reserve(&sc->u, LOGT_CUDA, LOGT_F32, B * S, NULL));   /* dL/ds_{-1} */
    LOGT_TRY(logt_tensor_reserve(&sc->a, LOGT_CUDA, LOGT_F32, N * S, NULL));
    LOGT_TRY(logt_tensor_reserve(&sc->b, LOGT_CUDA, LOGT_F32, N * S, NULL));
    LOGT_TRY(logt_tensor_reserve(&sc->res, LOGT_CUDA, LOGT_F32, 1, NULL));
    float *Lam = (float *)sc->lam.data, *Lam2 = (float *)sc->lam2.data, *U = (float *)sc->u.data;
    float *A = (float *)sc->a.data, *Bv = (float *)sc->b.data;
    unsigned *res = (unsigned *)sc->res.data;
    /* a segment's dL/d(final state) from the steps after it (recompute, model.h): J_T^T λ_T */
    const float *dhT = (const float *)m->base.dhT.data, *dcT = S > D ? (const float *)m->base.dcT.data : NULL;
    float *uT = NULL;
    if (dhT || dcT) {
        LOGT_TRY(logt_tensor_reserve(&sc->ut, LOGT_CUDA, LOGT_F32, B * S, NULL));
        uT = (float *)sc->ut.data;
        deer_final_grad_kernel<<<logt_cuda_grid(B * S, BLOCK), BLOCK, 0, st>>>((int)B, (int)D, (int)S, dhT,
                                                                               dcT, uT);
        LAUNCH_TRY();
    }

    /* 0. J_{t+1}^T's coefficients and diagonal at every step, once */
    LOGT_TRY(logt_tensor_reserve(&sc->cf, LOGT_CUDA, LOGT_F32, N * adjoint_ncoef(m->cell, (int)D), NULL));
    float *Cf = (float *)sc->cf.data;
    deer_adjoint_coef_kernel<<<logt_cuda_grid(N, BLOCK), BLOCK, 0, st>>>(
        m->cell, N, (int)B, (int)D, (int)S, (int)I, WX, X, Wt, R, bias, bn, St, NULL, A, Cf);
    LAUNCH_TRY();
    /* 1. the adjoint, from λ = 0. The residual of λ = 0 is max |g|: the stop is relative to
     * it, tol·max|g|, or where fp32 rounding stops the residual falling (under 1e-4·max|g|
     * and not halved by the last scan) */
    CUDA_TRY(cudaMemsetAsync(Lam, 0, (size_t)(N * S) * sizeof(float), st));
    float r0 = 0.0f, r = 0.0f, last = INFINITY;
    int k = 0;
    for (;; k++) {
        CUDA_TRY(cudaMemsetAsync(res, 0, sizeof(unsigned), st));
        deer_adjoint_step_kernel<<<(unsigned)((N + BLOCK - 1) / BLOCK), BLOCK, 0, st>>>(
            m->cell, N, (int)B, (int)D, (int)S, R, Cf, A, (const float *)dh->data, Lam, NULL, uT, Bv, res);
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
                                   (const float *)sc->ones.data, m->base.dw_add ? 1.0f : 0.0f,
                                   grad(m, "W"), grad(m, "R"),
                                   grad(m, "b"), m->cell == DEER_GRU ? grad(m, "bn") : NULL,
                                   dx ? (float *)dx->data : NULL));
    /* after the forward's report; a backward with no forward since (a restored segment)
     * replaces the previous backward's words */
    const char *prev = strstr(m->base.detail, "; adjoint: ");
    const size_t len = prev ? (size_t)(prev - m->base.detail) : strlen(m->base.detail);
    snprintf(m->base.detail + len, sizeof m->base.detail - len, "; adjoint: %d scans, residual %.3g of %.3g",
             k, r, r0);
    return LOGT_OK;
}

