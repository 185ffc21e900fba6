/* deer_cuda_full.cu — deer's mode = full on CUDA for states wider than 1 (method in deer.h;
 * the reference is deer_forward_cpu in deer.c): Newton with the whole Jacobians, in float64.
 *
 * Per iteration: deer_full_eval_kernel, thread per (t, b): F_t and J_t [S][S] by deer_cell.h
 * on the device, b_t = F_t − J_t s_{t-1}, the residual; then the matrix scan
 * y_t = J_t y_{t-1} + b_t of each sequence in three passes over P chunks of L steps:
 *   A  block per (chunk, sequence): the chunk's map, M = J_last ··· J_first and v (the chunk
 *      run from 0), M in shared memory, the products spread over the block's threads;
 *   B  block per sequence: the carries between chunks, one chunk after another (S² each);
 *   C  block per (chunk, sequence): the chunk rerun from its carry, y written as the iterate.
 * Work T·B·S³ per iteration (pass A), memory T·B·S² doubles (checked against free memory).
 * The residual comes to the host after every evaluation, as on the launches route.
 */
#include <math.h>
#include <stdio.h>

#include "../../core/cuda.h"
#include "../../core/cuda_check.cuh"
#include "../../core/reduce.cuh"
#include "deer.h"
#include "deer_cell.h"
#include "deer_cuda.cuh"

#define FULL_SMAX 64    /* the widest state (pass A keeps 2 S² doubles in shared memory) */
#define FULL_WORK 256   /* the most gate values G·D (the cell's scratch, per thread)   */

/* Thread per (t, b): J_t [S][S] (its entries clamped to [-clamp, clamp] and counted into
 * *nclamp unless nclamp is NULL) and b_t = F_t − J_t s_{t-1} in float64, and the residual. */
__global__ void deer_full_eval_kernel(deer_cell cell, int64_t N, int B, int D, int S, int I,
                                      const float *WX, const float *X, const float *W,
                                      const double *Rd, const double *bnd, const float *bias,
                                      const float *s0, const float *St, double *J, double *rhs,
                                      unsigned *res, double clamp, unsigned long long *nclamp)
{
    __shared__ float sh[BLOCK / 32];
    const int64_t n = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    float worst = 0.0f;
    unsigned clamped = 0;
    if (n < N) {
        const int GD = gates_of(cell) * D;
        double xa[FULL_WORK], sp[FULL_SMAX], f[FULL_SMAX], work[FULL_WORK];
        for (int c = 0; c < GD; c++) {
            double v = 0.0;
            if (WX) v = WX[n * GD + c];
            else
                for (int i = 0; i < I; i++) v += (double)W[c * I + i] * X[n * I + i];
            xa[c] = v + bias[c];
        }
        const float *spf = n >= B ? St + (n - B) * S : s0 + (n % B) * S;
        for (int j = 0; j < S; j++) sp[j] = spf[j];
        double *Jn = J + n * S * S;
        deer_cell_eval_hd(cell, D, Rd, bnd, xa, sp, f, Jn, NULL, work);
        if (nclamp)
            for (int i = 0; i < S * S; i++) Jn[i] = clamp_entry(Jn[i], clamp, clamped);
        for (int i = 0; i < S; i++) {
            double acc = f[i];
            for (int mm = 0; mm < S; mm++) acc -= Jn[i * S + mm] * sp[mm];
            rhs[n * S + i] = acc;
            worst = worse(worst, fabsf(St[n * S + i] - (float)f[i]));
        }
    }
    if (nclamp) add_clamps(clamped, nclamp);
    block_max_into(worst, sh, res);
}

/* Pass A: chunk blockIdx.y of sequence blockIdx.x. Shared memory: 2 S² + 2 S doubles. */
__global__ void deer_full_chunk_kernel(int64_t T, int B, int S, int64_t L, const double *J,
                                       const double *rhs, double *Mc, double *vc)
{
    extern __shared__ double smem[];
    const int c = blockIdx.y, b = blockIdx.x, tid = threadIdx.x, bd = blockDim.x;
    const int64_t t0 = c * L, t1 = t0 + L < T ? t0 + L : T;
    double *M = smem, *M2 = M + S * S, *v = M2 + S * S, *v2 = v + S;
    for (int e = tid; e < S * S; e += bd) M[e] = e / S == e % S ? 1.0 : 0.0;
    for (int i = tid; i < S; i += bd) v[i] = 0.0;
    __syncthreads();
    for (int64_t t = t0; t < t1; t++) {
        const double *Jt = J + (t * B + b) * S * S, *bt = rhs + (t * B + b) * S;
        for (int e = tid; e < S * S; e += bd) {
            const int i = e / S, k = e % S;
            double acc = 0.0;
            for (int mm = 0; mm < S; mm++) acc += Jt[i * S + mm] * M[mm * S + k];
            M2[e] = acc;
        }
        for (int i = tid; i < S; i += bd) {
            double acc = bt[i];
            for (int mm = 0; mm < S; mm++) acc += Jt[i * S + mm] * v[mm];
            v2[i] = acc;
        }
        __syncthreads();   /* every read of M, v before any write of the next step */
        double *tm = M, *tv = v;
        M = M2, M2 = tm, v = v2, v2 = tv;
    }
    const int64_t q = (int64_t)c * B + b;
    for (int e = tid; e < S * S; e += bd) Mc[q * S * S + e] = M[e];
    for (int i = tid; i < S; i += bd) vc[q * S + i] = v[i];
}

/* Pass B: sequence blockIdx.x, thread i < S: carry[c] = the state before chunk c. */
__global__ void deer_full_carry_kernel(int P, int B, int S, const double *Mc, const double *vc,
                                       const float *s0, double *carry)
{
    __shared__ double xs[2][FULL_SMAX];
    const int b = blockIdx.x, i = threadIdx.x;
    double *x = xs[0], *x2 = xs[1];
    if (i < S) x[i] = s0[b * S + i];
    __syncthreads();
    for (int c = 0; c < P; c++) {
        const int64_t q = (int64_t)c * B + b;
        if (i < S) {
            carry[q * S + i] = x[i];
            double acc = vc[q * S + i];
            for (int mm = 0; mm < S; mm++) acc += Mc[(q * S + i) * S + mm] * x[mm];
            x2[i] = acc;
        }
        __syncthreads();
        double *t = x;
        x = x2, x2 = t;
    }
}

/* Pass C: chunk blockIdx.y of sequence blockIdx.x rerun from its carry into the iterate Sy. */
__global__ void deer_full_apply_kernel(int64_t T, int B, int S, int64_t L, const double *J,
                                       const double *rhs, const double *carry, float *Sy)
{
    __shared__ double ys[2][FULL_SMAX];
    const int c = blockIdx.y, b = blockIdx.x, i = threadIdx.x;
    const int64_t t0 = c * L, t1 = t0 + L < T ? t0 + L : T;
    double *y = ys[0], *y2 = ys[1];
    if (i < S) y[i] = carry[((int64_t)c * B + b) * S + i];
    __syncthreads();
    for (int64_t t = t0; t < t1; t++) {
        const int64_t n = t * B + b;
        if (i < S) {
            double acc = rhs[n * S + i];
            for (int mm = 0; mm < S; mm++) acc += J[(n * S + i) * S + mm] * y[mm];
            y2[i] = acc;
            Sy[n * S + i] = (float)acc;
        }
        __syncthreads();
        double *tt = y;
        y = y2, y2 = tt;
    }
}

/* ---- host ---------------------------------------------------------------------------------- */

logt_status deer_newton_full(deer_model *m, logt_ctx *ctx, deer_cuda_scratch *sc,
                             const newton_args *a, float **Sx)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const int64_t T = a->T, B = a->B, D = m->base.cfg.hidden_size, S = deer_state_size(m->cell, D);
    const int64_t N = T * B, G = gates_of(m->cell);
    int64_t P = (2 * logt_cuda_sm_count() + B - 1) / B;
    P = P < 1 ? 1 : P > T ? T : P;
    const int64_t L = (T + P - 1) / P;
    P = (T + L - 1) / L;
    /* memory: J and b, the chunks' maps, carries; refused before allocating when it would
     * not fit in what the device has free */
    const double need = 8.0 * ((double)N * S * S + (double)N * S + (double)P * B * (S * S + 2 * S));
    size_t free_b = 0, total_b = 0;
    CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
    const double have = (double)free_b + (double)(logt_tensor_bytes(&sc->J) + logt_tensor_bytes(&sc->rhs) +
                                                  logt_tensor_bytes(&sc->mc) + logt_tensor_bytes(&sc->vc) +
                                                  logt_tensor_bytes(&sc->cc));
    if (need > 0.9 * have)
        return LOGT_FAIL(LOGT_ENOMEM, "deer on cuda, mode = full: T·B·S² Jacobians in float64 need "
                         "%.2f GiB (T = %lld, B = %lld, state %lld) and the GPU has %.2f GiB free. "
                         "HINT: mode = quasi (O(T·B·S) memory), or a shorter T or smaller B",
                         need / 1073741824.0, (long long)T, (long long)B, (long long)S,
                         have / 1073741824.0);
    LOGT_TRY(logt_tensor_reserve(&sc->J, LOGT_CUDA, LOGT_F64, N * S * S, NULL));
    LOGT_TRY(logt_tensor_reserve(&sc->rhs, LOGT_CUDA, LOGT_F64, N * S, NULL));
    LOGT_TRY(logt_tensor_reserve(&sc->mc, LOGT_CUDA, LOGT_F64, P * B * S * S, NULL));
    LOGT_TRY(logt_tensor_reserve(&sc->vc, LOGT_CUDA, LOGT_F64, P * B * S, NULL));
    LOGT_TRY(logt_tensor_reserve(&sc->cc, LOGT_CUDA, LOGT_F64, P * B * S, NULL));
    LOGT_TRY(logt_tensor_reserve(&sc->rd, LOGT_CUDA, LOGT_F64, D * G * D, NULL));
    LOGT_TRY(logt_cuda_convert_on(st, sc->rd.data, LOGT_F64, a->R, LOGT_F32, D * G * D));
    if (a->bn) {
        LOGT_TRY(logt_tensor_reserve(&sc->bnd, LOGT_CUDA, LOGT_F64, D, NULL));
        LOGT_TRY(logt_cuda_convert_on(st, sc->bnd.data, LOGT_F64, a->bn, LOGT_F32, D));
    }
    LOGT_TRY(logt_tensor_reserve(&sc->res, LOGT_CUDA, LOGT_F32, 1, NULL));
    double *J = (double *)sc->J.data, *rhs = (double *)sc->rhs.data, *Mc = (double *)sc->mc.data;
    double *vc = (double *)sc->vc.data, *cc = (double *)sc->cc.data;
    const double *Rd = (const double *)sc->rd.data, *bnd = a->bn ? (const double *)sc->bnd.data : NULL;
    float *Sy = (float *)sc->s2.data;
    unsigned *res = (unsigned *)sc->res.data;
    const size_t smem = (size_t)(2 * S * S + 2 * S) * sizeof(double);
    CUDA_TRY(cudaFuncSetAttribute(deer_full_chunk_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    LOGT_TRY(deer_first_guess(st, a->init, *Sx, N * S));
    for (int k = 0;; k++) {
        CUDA_TRY(cudaMemsetAsync(res, 0, sizeof(unsigned), st));
        deer_full_eval_kernel<<<(unsigned)((N + BLOCK - 1) / BLOCK), BLOCK, 0, st>>>(
            m->cell, N, (int)B, (int)D, (int)S, a->I, a->WX, a->X, a->W, Rd, bnd, a->bias, a->s0,
            *Sx, J, rhs, res, m->clamp, a->nclamp);
        LAUNCH_TRY();
        int done;
        LOGT_TRY(deer_newton_step_done(m, ctx, res, k, &done, NULL));
        if (done) return LOGT_OK;
        deer_full_chunk_kernel<<<dim3((unsigned)B, (unsigned)P), BLOCK, smem, st>>>(T, (int)B, (int)S, L, J,
                                                                                rhs, Mc, vc);
        LAUNCH_TRY();
        deer_full_carry_kernel<<<(unsigned)B, FULL_SMAX, 0, st>>>((int)P, (int)B, (int)S, Mc, vc, a->s0, cc);
        LAUNCH_TRY();
        deer_full_apply_kernel<<<dim3((unsigned)B, (unsigned)P), FULL_SMAX, 0, st>>>(T, (int)B, (int)S, L, J,
                                                                                 rhs, cc, Sy);
        LAUNCH_TRY();
        float *tmp = *Sx;
        *Sx = Sy, Sy = tmp;
    }
}
