/* deer_cuda.cu — the deer model's forward on CUDA (method in deer.h; the reference is deer.c),
 * f32, and the two sequential baselines every DEER speed number is compared with.
 *
 * Newton (solver = newton, mode = quasi; full for a state of 1):
 *   WX = X W^T                              one GEMM over all steps (strict fp32), unless
 *                                           G·D·I <= 256: then the evaluation kernel works
 *                                           out W x_t itself (no GEMM launch, no WX pass;
 *                                           the baselines always read the GEMM's WX)
 *   per iteration k:
 *     eval kernel, thread per (t, b): F_t = f(S_{t-1}), a_t = diag J_t, b_t = F_t − a_t S_{t-1},
 *       and max |S_t − F_t| (a warp maximum, then one atomicMax per warp)
 *     S' = scan(a, b) from s0                 kernels/scan.h over C = B·S channels
 *   the residual comes to the host after every evaluation (one small copy and a stream
 *   synchronisation per iteration: the price of stopping on time).
 *   Bounds, GRU, B = 16, D = 1, T = 100000: an iteration reads/writes ~6 arrays of T·B·S
 *   floats (38 MB: ~9 µs at 4.3 TB/s) and the scan 3 more (~5 µs); ~10 µs of launch and sync
 *   overhead; a handful of iterations: ~0.1-0.2 ms in all.
 * Baselines: solver = launch, one kernel per step (thread per sequence, all of its units:
 *   what a framework loop does, DEER's own protocol); solver = fused, one persistent kernel,
 *   block per sequence, thread per unit, the state in shared memory, a barrier per step.
 * Not built here: backward (the CPU reference has the adjoint), mode = damped, mode = full
 * for a state wider than 1 (the matrix scan).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/cuda.h"
#include "../core/cuda_check.cuh"
#include "../kernels/gemm.h"
#include "../kernels/scan.h"
#include "deer.h"

#define BLOCK 256

typedef struct deer_cuda_scratch {
    logt_tensor wx;          /* [N][G·D] W x (the bias is added by the kernels)          */
    logt_tensor s, s2;       /* [N][S] the iterate and the next one                      */
    logt_tensor a, b;        /* [N][S] the scan's gates and inputs                       */
    logt_tensor s0;          /* [B][S] s_{-1}                                           */
    logt_tensor res;         /* [1] the residual, as the bits of a non-negative float    */
} deer_cuda_scratch;

/* ---- the cells, one unit j of one sequence element ------------------------------------------ */

__device__ __forceinline__ float sig(float a) { return 1.0f / (1.0f + expf(-a)); }

__host__ __device__ __forceinline__ int gates_of(deer_cell cell)
{
    return cell == DEER_LSTM ? 4 : cell == DEER_GRU ? 3 : 1;
}

/* The j-th pre-activation from the recurrent side: Σ_m hp_m R[m][c] for column c. */
__device__ __forceinline__ float rdot(const float *hp, const float *R, int D, int GD, int c)
{
    float s = 0.0f;
    for (int mm = 0; mm < D; mm++) s += hp[mm] * R[mm * GD + c];
    return s;
}

/* f and diag J of unit j: writes f_j (and, lstm, c_j at f[D + j]) and jd likewise. */
__device__ void cell_unit(deer_cell cell, int D, const float *R, const float *bias, const float *bn,
                          const float *xa, const float *sp, int j, float *f, float *jd)
{
    const float *hp = sp;
    if (cell == DEER_TANH) {
        const float v = tanhf(xa[j] + bias[j] + rdot(hp, R, D, D, j));
        f[j] = v;
        if (jd) jd[j] = (1.0f - v * v) * R[j * D + j];
        return;
    }
    if (cell == DEER_GRU) {
        const int GD = 3 * D;
        const float r = sig(xa[j] + bias[j] + rdot(hp, R, D, GD, j));
        const float z = sig(xa[D + j] + bias[D + j] + rdot(hp, R, D, GD, D + j));
        const float rn = rdot(hp, R, D, GD, 2 * D + j) + bn[j];
        const float n = tanhf(xa[2 * D + j] + bias[2 * D + j] + r * rn);
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
    const float i = sig(xa[j] + bias[j] + rdot(hp, R, D, GD, j));
    const float fg = sig(xa[D + j] + bias[D + j] + rdot(hp, R, D, GD, D + j));
    const float g = tanhf(xa[2 * D + j] + bias[2 * D + j] + rdot(hp, R, D, GD, 2 * D + j));
    const float o = sig(xa[3 * D + j] + bias[3 * D + j] + rdot(hp, R, D, GD, 3 * D + j));
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

/* ---- Newton ------------------------------------------------------------------------------ */

/* Thread per (t, b): a_t, b_t of the linearised step, and the residual of the iterate. */
__global__ void deer_eval_kernel(deer_cell cell, int64_t N, int B, int D, int S, int I, const float *WX,
                                 const float *X, const float *W, const float *R, const float *bias,
                                 const float *bn, const float *s0, const float *St, float *A, float *Bv,
                                 unsigned *res)
{
    const int64_t n = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    float worst = 0.0f;
    if (n < N) {
        const int G = gates_of(cell);
        const float *sp = n >= B ? St + (n - B) * S : s0 + (n % B) * S;
        float *f = Bv + n * S, *jd = A + n * S;   /* f first, then b = f − a·s_{t-1} in place */
        float buf[XMAX];
        const float *xa = xa_of(WX, X, W, n, G * D, I, buf);
        for (int j = 0; j < D; j++) cell_unit(cell, D, R, bias, bn, xa, sp, j, f, jd);
        for (int j = 0; j < S; j++) {
            const float d = fabsf(St[n * S + j] - f[j]);
            worst = d > worst || isnan(d) ? d : worst;
            f[j] -= jd[j] * sp[j];
        }
    }
    for (int off = 16; off > 0; off >>= 1) {   /* NaN wins: it is the worst */
        const float o = __shfl_xor_sync(0xffffffffu, worst, off);
        worst = o > worst || isnan(o) ? o : worst;
    }
    if ((threadIdx.x & 31) == 0) atomicMax(res, isnan(worst) ? 0x7fc00000u : __float_as_uint(worst));
}

/* ---- the sequential baselines ---------------------------------------------------------------- */

/* solver = launch: step t, thread per sequence b, all of its units. */
__global__ void deer_step_kernel(deer_cell cell, int B, int D, int S, const float *WXt, const float *R,
                                 const float *bias, const float *bn, const float *sp, float *st)
{
    const int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= B) return;
    const int G = gates_of(cell);
    for (int j = 0; j < D; j++)
        cell_unit(cell, D, R, bias, bn, WXt + (int64_t)b * G * D, sp + (int64_t)b * S, j, st + (int64_t)b * S, NULL);
}

/* solver = fused: block per sequence, thread per unit, s_{t-1} in shared memory. */
__global__ void deer_fused_kernel(deer_cell cell, int64_t T, int B, int D, int S, const float *WX,
                                  const float *R, const float *bias, const float *bn, const float *s0,
                                  float *St)
{
    extern __shared__ float sh[];   /* [2][S] */
    const int b = blockIdx.x, j = threadIdx.x;
    const int G = gates_of(cell);
    float *cur = sh, *nxt = sh + S;
    for (int k = j; k < S; k += blockDim.x) cur[k] = s0[(int64_t)b * S + k];
    __syncthreads();
    for (int64_t t = 0; t < T; t++) {
        const int64_t n = t * B + b;
        if (j < D) cell_unit(cell, D, R, bias, bn, WX + n * G * D, cur, j, nxt, NULL);
        __syncthreads();
        for (int k = j; k < S; k += blockDim.x) St[n * S + k] = nxt[k];
        float *tmp = cur;
        cur = nxt, nxt = tmp;
        __syncthreads();
    }
}

__global__ void deer_state_kernel(int64_t n, int D, int S, const float *h0, const float *c0, float *s0)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n * S;
         i += (int64_t)gridDim.x * blockDim.x) {
        const int64_t b = i / S, k = i % S;
        const float *src = k < D ? h0 : c0;
        s0[i] = src ? src[b * D + (k < D ? k : k - D)] : 0.0f;
    }
}

__global__ void deer_h_of_state_kernel(int64_t N, int D, int S, const float *St, float *h)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < N * D;
         i += (int64_t)gridDim.x * blockDim.x)
        h[i] = St[(i / D) * S + i % D];
}

/* ---- host ---------------------------------------------------------------------------------- */

static logt_status scratch_of(deer_model *m, deer_cuda_scratch **out)
{
    if (!m->cuda) {
        m->cuda = calloc(1, sizeof(deer_cuda_scratch));
        if (!m->cuda) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    }
    *out = (deer_cuda_scratch *)m->cuda;
    return LOGT_OK;
}

/* WX [N][GD] = X [N][I] · W^T, strict fp32, into sc->wx. */
static logt_status project(logt_ctx *ctx, deer_cuda_scratch *sc, int64_t N, int64_t GD, int64_t I,
                           const float *X, const float *W)
{
    LOGT_TRY(logt_tensor_reserve(&sc->wx, LOGT_CUDA, LOGT_F32, N * GD, NULL));
    return logt_gemm_ex(ctx, 0, 1, N, GD, I, 1.0f, LOGT_F32, X, I, 0, W, I, 0, 0.0f,
                        (float *)sc->wx.data, GD, 0, 1, 0);
}

static const float *param(deer_model *m, const char *name)
{
    return (const float *)logt_model_param(&m->base, &m->base.w, name).data;
}

extern "C" logt_status deer_forward_cuda(deer_model *m, const logt_tensor *x, logt_tensor *h,
                                         logt_ctx *ctx)
{
    LOGT_TRY(logt_ctx_require_cuda(ctx, "deer"));
    if (x->device != LOGT_CUDA || x->dtype != LOGT_F32 || h->device != LOGT_CUDA || h->dtype != LOGT_F32)
        return LOGT_FAIL(LOGT_EINVAL, "deer on cuda takes x and h as cuda f32 tensors");
    deer_cuda_scratch *sc = NULL;
    LOGT_TRY(scratch_of(m, &sc));
    const int64_t T = x->shape[0], B = x->shape[1], I = x->shape[2], D = m->base.cfg.hidden_size;
    const int G = gates_of(m->cell);
    const int64_t S = deer_state_size(m->cell, D), N = T * B;
    if (B > INT32_MAX / 2 || S > 4096)
        return LOGT_FAIL(LOGT_EUNSUPPORTED, "deer on cuda: B = %lld, D = %lld is too large",
                         (long long)B, (long long)D);
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const float *R = param(m, "R"), *bias = param(m, "b"), *bn = m->cell == DEER_GRU ? param(m, "bn") : NULL;
    LOGT_TRY(logt_tensor_reserve(&sc->s, LOGT_CUDA, LOGT_F32, N * S, NULL));
    LOGT_TRY(logt_tensor_reserve(&sc->s0, LOGT_CUDA, LOGT_F32, B * S, NULL));
    const float *X = (const float *)x->data, *Wt = param(m, "W");
    /* Newton on a small G·D·I works out W x in its kernel (no GEMM launch, no WX pass); the
     * sequential baselines always read the GEMM's WX: their best */
    const int in_kernel = m->solver == 0 && (int64_t)G * D * I <= XMAX;
    if (!in_kernel) LOGT_TRY(project(ctx, sc, N, G * D, I, X, Wt));
    deer_state_kernel<<<logt_cuda_grid(B * S, BLOCK), BLOCK, 0, st>>>(
        B, (int)D, (int)S, (const float *)m->base.h0.data, (const float *)m->base.c0.data,
        (float *)sc->s0.data);
    LAUNCH_TRY();
    const float *WX = in_kernel ? NULL : (const float *)sc->wx.data, *s0 = (const float *)sc->s0.data;
    float *Sx = (float *)sc->s.data;
    m->iterations = 0, m->converged = 0, m->fell_back = 0, m->nonfinite = 0, m->nres = 0;

    int sequential = m->solver;
    if (D > 1024 && (m->solver == 2 || (m->solver == 0 && m->fallback)))
        return LOGT_FAIL(LOGT_EUNSUPPORTED, "deer on cuda: the fused sequential kernel has a thread "
                         "per unit, so at most D = 1024, not %lld: use solver = launch, or "
                         "on_fail = error", (long long)D);
    if (m->solver == 0) {   /* Newton */
        LOGT_TRY(logt_tensor_reserve(&sc->s2, LOGT_CUDA, LOGT_F32, N * S, NULL));
        LOGT_TRY(logt_tensor_reserve(&sc->a, LOGT_CUDA, LOGT_F32, N * S, NULL));
        LOGT_TRY(logt_tensor_reserve(&sc->b, LOGT_CUDA, LOGT_F32, N * S, NULL));
        LOGT_TRY(logt_tensor_reserve(&sc->res, LOGT_CUDA, LOGT_F32, 1, NULL));
        float *Sy = (float *)sc->s2.data, *A = (float *)sc->a.data, *Bv = (float *)sc->b.data;
        unsigned *res = (unsigned *)sc->res.data;
        CUDA_TRY(cudaMemsetAsync(Sx, 0, (size_t)(N * S) * sizeof(float), st));
        for (int k = 0;; k++) {
            CUDA_TRY(cudaMemsetAsync(res, 0, sizeof(unsigned), st));
            deer_eval_kernel<<<(unsigned)((N + BLOCK - 1) / BLOCK), BLOCK, 0, st>>>(
                m->cell, N, (int)B, (int)D, (int)S, (int)I, WX, X, Wt, R, bias, bn, s0, Sx, A, Bv, res);
            LAUNCH_TRY();
            unsigned bits;
            CUDA_TRY(cudaMemcpyAsync(&bits, res, sizeof bits, cudaMemcpyDeviceToHost, st));
            CUDA_TRY(cudaStreamSynchronize(st));
            float r;
            memcpy(&r, &bits, sizeof r);
            if (m->nres < DEER_MAX_REPORT) m->residual[m->nres++] = r;
            m->iterations = k;
            if (r <= m->tol) {
                m->converged = 1;
                break;
            }
            if (!isfinite(r)) m->nonfinite++;
            if (!isfinite(r) || k == m->max_iter) {
                if (!m->fallback)
                    return LOGT_FAIL(LOGT_ENUMERIC,
                                     "deer on cuda (mode %s) did not converge: residual %.3g after "
                                     "%d iterations (tol %g)%s. HINT: a larger tol or max_iter, or "
                                     "on_fail = sequential",
                                     m->mode == DEER_QUASI ? "quasi" : "full", r, k, m->tol,
                                     isfinite(r) ? "" : "; the iterate is not finite");
                sequential = 2, m->fell_back = 1;
                break;
            }
            LOGT_TRY(scan_cuda(ctx, 0, T, B * S, LOGT_F32, A, Bv, s0, Sy));
            float *tmp = Sx;
            Sx = Sy, Sy = tmp;
        }
        /* the solution may have ended in s2: keep the buffers' roles straight for next time */
        if (Sx != (float *)sc->s.data) {
            logt_tensor t = sc->s;
            sc->s = sc->s2, sc->s2 = t;
        }
    }
    if (sequential && !WX) {   /* Newton's fall-back after W x in the kernel: the GEMM now */
        LOGT_TRY(project(ctx, sc, N, G * D, I, X, Wt));
        WX = (const float *)sc->wx.data;
    }
    if (sequential == 1) {
        for (int64_t t = 0; t < T; t++) {
            deer_step_kernel<<<(unsigned)((B + 127) / 128), 128, 0, st>>>(
                m->cell, (int)B, (int)D, (int)S, WX + t * B * G * D, R, bias, bn,
                t ? Sx + (t - 1) * B * S : s0, Sx + t * B * S);
            LAUNCH_TRY();
        }
    } else if (sequential == 2) {
        const int threads = (int)((D + 31) / 32 * 32);
        deer_fused_kernel<<<(unsigned)B, threads, 2 * S * sizeof(float), st>>>(
            m->cell, T, (int)B, (int)D, (int)S, WX, R, bias, bn, s0, Sx);
        LAUNCH_TRY();
    }
    if (S == D) {
        CUDA_TRY(cudaMemcpyAsync(h->data, Sx, (size_t)(N * D) * sizeof(float), cudaMemcpyDeviceToDevice, st));
    } else {
        deer_h_of_state_kernel<<<logt_cuda_grid(N * D, BLOCK), BLOCK, 0, st>>>(N, (int)D, (int)S, Sx,
                                                                                (float *)h->data);
        LAUNCH_TRY();
    }
    m->base.trace = m->residual, m->base.ntrace = m->nres;
    snprintf(m->base.trace_name, sizeof m->base.trace_name, "newton_residual");
    if (m->solver)
        snprintf(m->base.detail, sizeof m->base.detail, "sequential baseline %s",
                 m->solver == 1 ? "launch" : "fused");
    else
        snprintf(m->base.detail, sizeof m->base.detail,
                 "mode=%s iterations=%d converged=%d fell_back=%d nonfinite=%d residual first=%.3g "
                 "last=%.3g", m->mode == DEER_QUASI ? "quasi" : "full", m->iterations, m->converged,
                 m->fell_back, m->nonfinite, m->nres ? m->residual[0] : NAN,
                 m->nres ? m->residual[m->nres - 1] : NAN);
    return LOGT_OK;
}

extern "C" void deer_free_cuda(deer_model *m)
{
    deer_cuda_scratch *sc = (deer_cuda_scratch *)m->cuda;
    if (!sc) return;
    logt_tensor *all[] = {&sc->wx, &sc->s, &sc->s2, &sc->a, &sc->b, &sc->s0, &sc->res};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) logt_tensor_free(all[i]);
    free(sc);
    m->cuda = NULL;
}
