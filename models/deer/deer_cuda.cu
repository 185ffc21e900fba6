/* deer_cuda.cu — deer's forward on CUDA (method in deer.h; the reference is deer.c), f32
 * states: Newton (solver = newton) and the two sequential baselines every DEER speed number is
 * compared with. mode = full with a state wider than 1 is deer_cuda_full.cu, mode = damped's
 * step deer_cuda_damped.cu, the backward deer_cuda_backward.cu; what they share, deer_cuda.cuh.
 *
 * Newton iteration k evaluates F_t = f(S_{t-1}), a_t = diag J_t, b_t = F_t − a_t S_{t-1} and
 * the residual max |S_t − F_t| at every step and, above tol, scans S' = scan(a, b) from s0:
 * O(T·B·S) work and O(log T) depth an iteration. W x_t comes from one strict-fp32 GEMM over
 * all steps, unless G·D·I <= XMAX: then the kernels work it out themselves (no GEMM launch,
 * no WX pass; the baselines always read the GEMM's WX). Two routes (knob newton_kernel; auto
 * takes the first where it applies):
 *   persistent  the whole solve in one cooperative kernel (states S <= PS_MAX, instantiated
 *               per cell and S): two grid syncs and no host round trip an iteration; the
 *               residuals come back once, at the end (deer_newton_persistent_kernel).
 *   launches    per iteration an evaluation kernel (thread per (t, b), all its units; block
 *               maximum of the residual, one atomic per block) and kernels/scan over C = B·S
 *               channels (mode = damped: the damped step instead); the residual comes to the
 *               host after every evaluation (a small copy and a stream synchronisation: the
 *               price of stopping on time).
 * Baselines: solver = launch, one kernel per step (thread per sequence, all of its units:
 * what a framework loop does, DEER's own protocol); solver = fused, one persistent kernel,
 * block per sequence, thread per unit, the state in shared memory, a barrier per step.
 * A segment (recompute, model.h) also gets its final state, in hT (and cT, lstm).
 * Bounds and times: experiments/deer-speedup/README.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cooperative_groups.h>

#include "../../core/cuda.h"
#include "../../core/cuda_check.cuh"
#include "../../core/reduce.cuh"
#include "../../kernels/gemm.h"
#include "../../kernels/scan.h"
#include "deer.h"
#include "deer_cell.h"
#include "deer_cuda.cuh"

/* ---- Newton ------------------------------------------------------------------------------ */

/* Thread per (t, b): a_t, b_t of the linearised step (a_t clamped to [-clamp, clamp] and
 * counted into *nclamp unless nclamp is NULL), and the residual of the iterate. */
__global__ void deer_eval_kernel(deer_cell cell, int64_t N, int B, int D, int S, int I, const float *WX,
                                 const float *X, const float *W, const float *R, const float *bias,
                                 const float *bn, const float *s0, const float *St, float *A, float *Bv,
                                 unsigned *res, float clamp, unsigned long long *nclamp)
{
    __shared__ float sh[BLOCK / 32];
    const int64_t n = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    float worst = 0.0f;
    unsigned clamped = 0;
    if (n < N) {
        const int G = gates_of(cell);
        float row[ROW_MAX];
        const float *sp = row_local(n >= B ? St + (n - B) * S : s0 + (n % B) * S, S, row);
        float *f = Bv + n * S, *jd = A + n * S;   /* f first, then b = f − a·s_{t-1} in place */
        float buf[XMAX];
        const float *xa = xa_of(WX, X, W, n, G * D, I, buf);
        for (int j = 0; j < D; j++) cell_unit(cell, D, R, bias, bn, xa, sp, j, f, jd);
        for (int j = 0; j < S; j++) {
            worst = worse(worst, fabsf(St[n * S + j] - f[j]));
            if (nclamp) jd[j] = clamp_entry(jd[j], clamp, clamped);
            f[j] -= jd[j] * sp[j];
        }
    }
    if (nclamp) add_clamps(clamped, nclamp);
    block_max_into(worst, sh, res);
}

#define PB 256          /* threads per block                                          */
#define PS_MAX 4        /* the widest state instantiated                               */

/* (a, b) of the later map after (a, b) of the earlier: s -> a2 (a1 s + b1) + b2. */
__device__ __forceinline__ float2 after(float2 earlier, float2 later)
{
    return make_float2(later.x * earlier.x, later.x * earlier.y + later.y);
}

/* The persistent route: the whole Newton solve in one cooperative launch. Thread per
 * (sequence, run of L steps), block per (group of Bb sequences, chunk of time). Per iteration
 * one walk over the thread's steps applies the last iteration's (a, b) to get S_t and
 * evaluates the cell there (a, b, S written in place), composing the run's (a, b) on the way;
 * a Hillis–Steele scan over the block's runs in shared memory; grid sync; every block reads
 * the residual and stops or not, all alike; a warp per channel scans the blocks' aggregates
 * into carries; grid sync. */
template <deer_cell CELL, int S>
__global__ void __launch_bounds__(PB) deer_newton_persistent_kernel(newton_args p)
{
    constexpr int D = CELL == DEER_LSTM ? S / 2 : S;
    constexpr int GD = (CELL == DEER_LSTM ? 4 : CELL == DEER_GRU ? 3 : 1) * D;
    __shared__ float2 sh[PB * S];
    __shared__ float shmax[PB / 32];
    cooperative_groups::grid_group grid = cooperative_groups::this_grid();
    const int tid = threadIdx.x, bl = tid % p.Bb, lane = tid / p.Bb, nch = p.Bb * S;
    const int g = blockIdx.x / p.nq, q = blockIdx.x % p.nq, b = g * p.Bb + bl;
    const int64_t t0 = ((int64_t)q * p.lanes + lane) * p.L;
    const bool live = lane < p.lanes && b < p.B && t0 < p.T;
    const int64_t t1 = live ? (t0 + p.L < p.T ? t0 + p.L : p.T) : t0;
    float2 pre[S];   /* the composed (a, b) of the block's runs before this one */
    float sp[S];     /* the iterate at t0 − 1: S_0 is zero but for s_{-1} = s0  */
    for (int j = 0; j < S; j++)
        sp[j] = !live ? 0.0f : t0 == 0 ? p.s0[b * S + j]
                             : p.init ? p.init[((t0 - 1) * p.B + b) * S + j] : 0.0f;
    for (int k = 0;; k++) {
        float2 run[S];
        float worst = 0.0f;
        unsigned clamped = 0;
        for (int j = 0; j < S; j++) run[j] = make_float2(1.0f, 0.0f);
        for (int64_t t = t0; t < t1; t++) {
            const int64_t n = t * p.B + b;
            float s[S], f[S], jd[S], xa[GD];   /* xa: W x_t, in registers */
            for (int j = 0; j < S; j++)
                s[j] = k ? p.A[n * S + j] * sp[j] + p.Bv[n * S + j] : p.init ? p.init[n * S + j] : 0.0f;
            for (int c = 0; c < GD; c++) {
                float v = 0.0f;
                if (p.WX) v = p.WX[n * GD + c];
                else
                    for (int i = 0; i < p.I; i++) v += p.W[c * p.I + i] * p.X[n * p.I + i];
                xa[c] = v;
            }
            for (int j = 0; j < D; j++) cell_unit(CELL, D, p.R, p.bias, p.bn, xa, sp, j, f, jd);
            for (int j = 0; j < S; j++) {
                worst = worse(worst, fabsf(s[j] - f[j]));
                if (p.nclamp) jd[j] = clamp_entry(jd[j], p.clamp, clamped);
                const float2 e = make_float2(jd[j], f[j] - jd[j] * sp[j]);
                p.A[n * S + j] = e.x, p.Bv[n * S + j] = e.y, p.St[n * S + j] = s[j];
                run[j] = after(run[j], e);
            }
            for (int j = 0; j < S; j++) sp[j] = s[j];
        }
        /* the block's runs, composed in time order: Hillis–Steele over lanes */
        for (int j = 0; j < S; j++) sh[tid * S + j] = run[j];
        if (p.nclamp) add_clamps(clamped, p.nclamp);
        block_max_into(worst, shmax, p.res + k);
        __syncthreads();
        for (int d = 1; d < p.lanes; d <<= 1) {
            const bool has = lane >= d && lane < p.lanes;
            float2 e[S];
            for (int j = 0; j < S; j++) e[j] = has ? sh[(tid - d * p.Bb) * S + j] : make_float2(1.0f, 0.0f);
            __syncthreads();
            if (has)
                for (int j = 0; j < S; j++) sh[tid * S + j] = after(e[j], sh[tid * S + j]);
            __syncthreads();
        }
        for (int j = 0; j < S; j++) {
            pre[j] = lane > 0 && lane < p.lanes ? sh[(tid - p.Bb) * S + j] : make_float2(1.0f, 0.0f);
            if (lane == p.lanes - 1) p.agg[(int64_t)blockIdx.x * nch + bl * S + j] = sh[tid * S + j];
        }
        grid.sync();
        const float r = __uint_as_float(__ldcg(p.res + k));
        if (r <= p.tol || !isfinite(r) || k == p.max_iter) {   /* every thread reads the same r */
            if (blockIdx.x == 0 && tid == 0)
                p.res[p.max_iter + 1] = (unsigned)k, p.res[p.max_iter + 2] = r <= p.tol;
            return;
        }
        /* carries: a warp per channel, each lane a piece of the chunks, then a warp scan */
        const int wl = tid & 31, nwarps = gridDim.x * (PB / 32), groups = gridDim.x / p.nq;
        for (int c = (blockIdx.x * PB + tid) / 32; c < groups * nch; c += nwarps) {
            const int cg_ = c / nch, cc = c % nch, cb = cg_ * p.Bb + cc / S;
            const int per = (p.nq + 31) / 32, q0 = wl * per < p.nq ? wl * per : p.nq;
            const int q1 = q0 + per < p.nq ? q0 + per : p.nq;
            const float2 *ag = p.agg + (int64_t)cg_ * p.nq * nch + cc;
            float2 e = make_float2(1.0f, 0.0f);
            for (int qq = q0; qq < q1; qq++) e = after(e, __ldcg(ag + (int64_t)qq * nch));
            for (int d = 1; d < 32; d <<= 1) {
                const float2 o = make_float2(__shfl_up_sync(0xffffffffu, e.x, d),
                                             __shfl_up_sync(0xffffffffu, e.y, d));
                if (wl >= d) e = after(o, e);
            }
            float2 ex = make_float2(__shfl_up_sync(0xffffffffu, e.x, 1), __shfl_up_sync(0xffffffffu, e.y, 1));
            if (wl == 0) ex = make_float2(1.0f, 0.0f);
            float st = cb < p.B ? p.s0[cb * S + cc % S] : 0.0f;
            st = ex.x * st + ex.y;
            for (int qq = q0; qq < q1; qq++) {
                p.carry[((int64_t)cg_ * p.nq + qq) * nch + cc] = st;
                const float2 a = __ldcg(ag + (int64_t)qq * nch);
                st = a.x * st + a.y;
            }
        }
        grid.sync();
        for (int j = 0; j < S; j++) {
            const float cin = __ldcg(p.carry + (int64_t)blockIdx.x * nch + bl * S + j);
            sp[j] = pre[j].x * cin + pre[j].y;
        }
    }
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

/* solver = fused: block per sequence, thread per unit, s_{t-1} in shared memory. A step's
 * W x_t does not depend on the state, so thread j loads its G inputs of step t + 1 into
 * registers before it computes step t, and the load's latency hides behind the step. The two
 * state buffers alternate: a step reads one and writes the other, so one barrier a step keeps
 * the next step's writes off what a slower thread still reads; when D fits a warp (the block
 * is one warp) that barrier is the warp's own.
 * Bounds, per step and sequence: G·D inputs read and S states written (at D = 1, B = 16,
 * T = 1e5: 26 MB, 6 us of the H200's bandwidth), G·D·D multiply-adds: the time is the step's
 * dependent chain (the products, a sigmoid and a tanh, a shared-memory round trip and the
 * barrier), some hundreds of cycles a step. */
__global__ void deer_fused_kernel(deer_cell cell, int64_t T, int B, int D, int S, const float *WX,
                                  const float *R, const float *bias, const float *bn, const float *s0,
                                  float *St)
{
    extern __shared__ float sh[];   /* [2][S] */
    const int b = blockIdx.x, j = threadIdx.x;
    const int G = gates_of(cell), GD = G * D;
    const bool unit = j < D, one_warp = blockDim.x == 32;
    float *cur = sh, *nxt = sh + S;
    float x[4] = {0.0f, 0.0f, 0.0f, 0.0f}, xn[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int k = j; k < S; k += blockDim.x) cur[k] = s0[(int64_t)b * S + k];
    if (unit) {
#pragma unroll
        for (int g = 0; g < 4; g++)
            if (g < G) x[g] = WX[(int64_t)b * GD + g * D + j];
    }
    __syncthreads();
    for (int64_t t = 0; t < T; t++) {
        const int64_t n = t * B + b;
        if (unit) {
            if (t + 1 < T) {
#pragma unroll
                for (int g = 0; g < 4; g++)
                    if (g < G) xn[g] = WX[(n + B) * GD + g * D + j];
            }
            cell_unit_x(cell, D, R, bias, bn, x, 1, cur, j, nxt, NULL);
            St[n * S + j] = nxt[j];
            if (S > D) St[n * S + D + j] = nxt[D + j];   /* lstm: c_j */
        }
        if (one_warp) __syncwarp();
        else __syncthreads();
        float *tmp = cur;
        cur = nxt, nxt = tmp;
#pragma unroll
        for (int g = 0; g < 4; g++) x[g] = xn[g];
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

/* ---- Newton's two routes -------------------------------------------------------------- */

typedef void (*persistent_kernel)(newton_args);

static persistent_kernel persistent_of(deer_cell cell, int64_t S)
{
    static const persistent_kernel gru[] = {deer_newton_persistent_kernel<DEER_GRU, 1>,
                                            deer_newton_persistent_kernel<DEER_GRU, 2>,
                                            deer_newton_persistent_kernel<DEER_GRU, 3>,
                                            deer_newton_persistent_kernel<DEER_GRU, 4>};
    static const persistent_kernel tanh_[] = {deer_newton_persistent_kernel<DEER_TANH, 1>,
                                              deer_newton_persistent_kernel<DEER_TANH, 2>,
                                              deer_newton_persistent_kernel<DEER_TANH, 3>,
                                              deer_newton_persistent_kernel<DEER_TANH, 4>};
    static const persistent_kernel lstm[] = {deer_newton_persistent_kernel<DEER_LSTM, 2>,
                                             deer_newton_persistent_kernel<DEER_LSTM, 4>};
    if (S < 1 || S > PS_MAX) return NULL;
    if (cell == DEER_GRU) return gru[S - 1];
    if (cell == DEER_TANH) return tanh_[S - 1];
    return S % 2 ? NULL : lstm[S / 2 - 1];
}

/* The persistent route's grid: Bb sequences × lanes runs a block, the blocks of a group of
 * Bb sequences one chunk of time each, as many blocks as the GPU holds at once (a
 * cooperative launch needs them all resident). Fails, saying why, when it does not apply. */
typedef struct persistent_plan {
    persistent_kernel kernel;
    int Bb, lanes, nq, L, grid;
} persistent_plan;

static logt_status plan_persistent(deer_cell cell, int64_t T, int64_t B, int64_t S, persistent_plan *pl)
{
    pl->kernel = persistent_of(cell, S);
    if (!pl->kernel)
        return LOGT_FAIL(LOGT_EUNSUPPORTED, "deer on cuda: newton_kernel = persistent is built for "
                         "states of 1 to %d (lstm: 2 or 4), not %lld: use newton_kernel = launches "
                         "(or auto)", PS_MAX, (long long)S);
    int per_sm = 0;
    cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, (const void *)pl->kernel, PB, 0);
    if (e != cudaSuccess)
        return LOGT_FAIL(LOGT_ECUDA, "deer on cuda: the persistent kernel's occupancy: %s",
                         cudaGetErrorString(e));
    const int64_t cap = (int64_t)per_sm * logt_cuda_sm_count();
    pl->Bb = (int)(B < 32 ? B : 32);
    pl->lanes = PB / pl->Bb;
    const int64_t groups = (B + pl->Bb - 1) / pl->Bb;
    if (groups > cap)
        return LOGT_FAIL(LOGT_EUNSUPPORTED, "deer on cuda: newton_kernel = persistent holds at most "
                         "%lld sequences (%lld resident blocks of %d), not B = %lld: use "
                         "newton_kernel = launches (or auto)", (long long)(cap * pl->Bb),
                         (long long)cap, pl->Bb, (long long)B);
    const int64_t nq0 = cap / groups, L = (T + nq0 * pl->lanes - 1) / (nq0 * pl->lanes);
    if (L > INT32_MAX) return LOGT_FAIL(LOGT_EUNSUPPORTED, "deer on cuda: T = %lld is too long", (long long)T);
    pl->L = (int)L;
    pl->nq = (int)((T + L * pl->lanes - 1) / (L * pl->lanes));
    pl->grid = (int)(groups * pl->nq);
    return LOGT_OK;
}

/* Newton, one cooperative launch: Sx is left holding the last iterate; the report in m. */
static logt_status newton_persistent(deer_model *m, logt_ctx *ctx, deer_cuda_scratch *sc,
                                     const persistent_plan *pl, newton_args a)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const int64_t S = deer_state_size(m->cell, m->base.cfg.hidden_size), nch = (int64_t)pl->Bb * S;
    LOGT_TRY(logt_tensor_reserve(&sc->agg, LOGT_CUDA, LOGT_F32, 2 * pl->grid * nch, NULL));
    LOGT_TRY(logt_tensor_reserve(&sc->carry, LOGT_CUDA, LOGT_F32, pl->grid * nch, NULL));
    LOGT_TRY(logt_tensor_reserve(&sc->res, LOGT_CUDA, LOGT_F32, (int64_t)m->max_iter + 3, NULL));
    unsigned *res = (unsigned *)sc->res.data;
    CUDA_TRY(cudaMemsetAsync(res, 0, ((size_t)m->max_iter + 3) * sizeof(unsigned), st));
    a.Bb = pl->Bb, a.lanes = pl->lanes, a.nq = pl->nq, a.L = pl->L, a.max_iter = m->max_iter;
    a.tol = (float)m->tol;
    a.agg = (float2 *)sc->agg.data, a.carry = (float *)sc->carry.data, a.res = res;
    void *args[] = {&a};
    CUDA_TRY(cudaLaunchCooperativeKernel((const void *)pl->kernel, dim3(pl->grid), dim3(PB), args, 0, st));
    /* one copy back: the status words after the residuals, so copy the residuals kept and then
     * the two words (a second small copy when max_iter is beyond what the report keeps) */
    const int keep = m->max_iter + 1 < DEER_MAX_REPORT ? m->max_iter + 1 : DEER_MAX_REPORT;
    unsigned words[DEER_MAX_REPORT + 2];
    if (keep == m->max_iter + 1) {
        CUDA_TRY(cudaMemcpyAsync(words, res, (size_t)(keep + 2) * sizeof(unsigned), cudaMemcpyDeviceToHost, st));
    } else {
        CUDA_TRY(cudaMemcpyAsync(words, res, (size_t)keep * sizeof(unsigned), cudaMemcpyDeviceToHost, st));
        CUDA_TRY(cudaMemcpyAsync(words + keep, res + m->max_iter + 1, 2 * sizeof(unsigned),
                                 cudaMemcpyDeviceToHost, st));
    }
    CUDA_TRY(cudaStreamSynchronize(st));
    m->iterations = (int)words[keep], m->converged = (int)words[keep + 1];
    for (int k = 0; k <= m->iterations && k < keep; k++) {
        float r;
        memcpy(&r, &words[k], sizeof r);
        m->residual[m->nres++] = r;
        if (!isfinite(r)) m->nonfinite++;
    }
    return LOGT_OK;
}

logt_status deer_first_guess(cudaStream_t st, const float *init, float *Sx, int64_t n)
{
    if (init) CUDA_TRY(cudaMemcpyAsync(Sx, init, (size_t)n * sizeof(float), cudaMemcpyDeviceToDevice, st));
    else CUDA_TRY(cudaMemsetAsync(Sx, 0, (size_t)n * sizeof(float), st));
    return LOGT_OK;
}

logt_status deer_newton_step_done(deer_model *m, logt_ctx *ctx, const unsigned *res, int k, int *done,
                                  float *residual)
{
    float r;
    LOGT_TRY(logt_cuda_read_max(ctx->stream, res, &r));
    if (residual) *residual = r;
    if (m->nres < DEER_MAX_REPORT) m->residual[m->nres++] = r;
    m->iterations = k;
    if (!isfinite(r)) m->nonfinite++;
    if (r <= m->tol) m->converged = 1;
    *done = r <= m->tol || !isfinite(r) || k == m->max_iter;
    return LOGT_OK;
}

/* Newton, an evaluation kernel and a scan per iteration (mode = damped: the damped step of
 * deer_cuda_damped.cu instead of the scan, λ adapted as on the cpu), the residual checked on
 * the host; *Sx is left pointing at the last iterate (sc->s or sc->s2); the report in m. */
static logt_status newton_launches(deer_model *m, logt_ctx *ctx, deer_cuda_scratch *sc,
                                   const newton_args *a, float **Sx)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const int64_t T = a->T, B = a->B, D = m->base.cfg.hidden_size, S = deer_state_size(m->cell, D), N = T * B;
    LOGT_TRY(logt_tensor_reserve(&sc->res, LOGT_CUDA, LOGT_F32, 1, NULL));
    float *Sy = (float *)sc->s2.data;
    unsigned *res = (unsigned *)sc->res.data;
    LOGT_TRY(deer_first_guess(st, a->init, *Sx, N * S));
    double lambda = m->lambda;
    float last = INFINITY;
    for (int k = 0;; k++) {
        CUDA_TRY(cudaMemsetAsync(res, 0, sizeof(unsigned), st));
        deer_eval_kernel<<<(unsigned)((N + BLOCK - 1) / BLOCK), BLOCK, 0, st>>>(
            m->cell, N, (int)B, (int)D, (int)S, a->I, a->WX, a->X, a->W, a->R, a->bias, a->bn,
            a->s0, *Sx, a->A, a->Bv, res, a->clamp, a->nclamp);
        LAUNCH_TRY();
        int done;
        float r;
        LOGT_TRY(deer_newton_step_done(m, ctx, res, k, &done, &r));
        if (done) return LOGT_OK;
        if (m->mode == DEER_DAMPED) {   /* the first step uses the knob's λ */
            if (k > 0) lambda = r > last ? lambda * 4.0 : lambda * 0.5;
            last = r;
            LOGT_TRY(deer_damped_cuda(ctx, sc, T, B * S, (float)lambda, a->A, a->Bv, *Sx, a->s0, Sy));
        } else {
            LOGT_TRY(scan_cuda(ctx, 0, T, B * S, LOGT_F32, a->A, a->Bv, a->s0, Sy));
        }
        float *tmp = *Sx;
        *Sx = Sy, Sy = tmp;
    }
}


/* ---- the forward: its route, the solve, the baselines, the report ------------------------ */

/* Peak device memory of the forward's own buffers (the scan's workspace aside), MiB. */
static double scratch_mib(const deer_cuda_scratch *sc)
{
    const logt_tensor *all[] = {&sc->wx,  &sc->s,  &sc->s2, &sc->a,   &sc->b,  &sc->s0, &sc->res,
                                &sc->agg, &sc->carry, &sc->J, &sc->rhs, &sc->mc, &sc->vc, &sc->cc,
                                &sc->rd, &sc->bnd, &sc->dmaps, &sc->dcarry, &sc->dfb, &sc->dnc,
                                &sc->nclamp};
    double bytes = 0;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (all[i]->data) bytes += (double)logt_tensor_bytes(all[i]);
    return bytes / (1024.0 * 1024.0);
}

/* The Newton route, chosen before any work: a forced persistent route that does not apply
 * fails here. */
typedef struct newton_route {
    int full;              /* mode = full with a state wider than 1: the matrix scan */
    int persistent;        /* the persistent route applies and is taken              */
    persistent_plan plan;  /* its grid                                               */
} newton_route;

static logt_status choose_route(const deer_model *m, int64_t T, int64_t B, int64_t S, newton_route *r)
{
    memset(&r->plan, 0, sizeof r->plan);
    r->persistent = 0;
    r->full = m->solver == 0 && m->mode == DEER_FULL && S > 1;
    const int damped = m->solver == 0 && m->mode == DEER_DAMPED;   /* launches only */
    if (damped && m->newton_kernel == 1)
        return LOGT_FAIL(LOGT_EUNSUPPORTED, "deer on cuda: mode = damped runs on the launches route "
                         "(an evaluation kernel and the damped step per iteration), not newton_kernel "
                         "= persistent: use newton_kernel = launches (or auto)");
    if (m->solver == 0 && m->newton_kernel != 2 && !r->full && !damped) {
        logt_status s = plan_persistent(m->cell, T, B, S, &r->plan);
        if (s != LOGT_OK && m->newton_kernel == 1) return s;
        r->persistent = s == LOGT_OK;
        if (!r->persistent) {   /* auto: the launches route instead, nothing left of the attempt */
            logt_errclear();
            (void)cudaGetLastError();
        }
    }
    return LOGT_OK;
}

/* Newton by route r from the inputs in a; *Sx ends at the solution, which sc->s holds. Not
 * converged: an error, or (on_fail = sequential) m->fell_back for the fused baseline. */
static logt_status solve_newton(deer_model *m, logt_ctx *ctx, deer_cuda_scratch *sc, const newton_route *r,
                                newton_args a, float **Sx, int *warm)
{
    const int64_t T = a.T, B = a.B, N = T * B, S = deer_state_size(m->cell, m->base.cfg.hidden_size);
    if (!r->full) {   /* the element-wise routes' gates and inputs (full keeps J and b in f64) */
        LOGT_TRY(logt_tensor_reserve(&sc->a, LOGT_CUDA, LOGT_F32, N * S, NULL));
        LOGT_TRY(logt_tensor_reserve(&sc->b, LOGT_CUDA, LOGT_F32, N * S, NULL));
    }
    if (!r->persistent || r->full) LOGT_TRY(logt_tensor_reserve(&sc->s2, LOGT_CUDA, LOGT_F32, N * S, NULL));
    a.St = *Sx, a.A = (float *)sc->a.data, a.Bv = (float *)sc->b.data;
    /* warm = on: the first guess is the last solution of the same shape */
    *warm = m->warm && m->prev.data && m->prev.shape[0] == T && m->prev.shape[1] == B;
    a.init = *warm ? (const float *)m->prev.data : NULL;
    cudaStream_t st = (cudaStream_t)ctx->stream;
    if (m->clamp > 0) {   /* jacobian_clamp: one count over the solve, read back at its end */
        LOGT_TRY(logt_tensor_reserve(&sc->nclamp, LOGT_CUDA, LOGT_F64, 1, NULL));
        a.clamp = (float)m->clamp, a.nclamp = (unsigned long long *)sc->nclamp.data;
        CUDA_TRY(cudaMemsetAsync(a.nclamp, 0, sizeof *a.nclamp, st));
    }
    if (r->full) LOGT_TRY(deer_newton_full(m, ctx, sc, &a, Sx));
    else if (r->persistent) LOGT_TRY(newton_persistent(m, ctx, sc, &r->plan, a));
    else LOGT_TRY(newton_launches(m, ctx, sc, &a, Sx));
    if (a.nclamp) {
        unsigned long long clamped = 0;
        CUDA_TRY(cudaMemcpyAsync(&clamped, a.nclamp, sizeof clamped, cudaMemcpyDeviceToHost, st));
        CUDA_TRY(cudaStreamSynchronize(st));
        m->base.clamped = (int64_t)clamped;
    }
    /* the solution may have ended in s2: keep the buffers' roles straight for next time */
    if (*Sx != (float *)sc->s.data) {
        logt_tensor t = sc->s;
        sc->s = sc->s2, sc->s2 = t;
    }
    if (!m->converged) {
        const double res = m->nres ? m->residual[m->nres - 1] : NAN;
        if (!m->fallback)
            return LOGT_FAIL(LOGT_ENUMERIC,
                             "deer on cuda (mode %s) did not converge: residual %.3g after %d "
                             "iterations (tol %g)%s. HINT: a larger tol or max_iter, or "
                             "on_fail = sequential or retry",
                             deer_mode_name(m->mode), res, m->iterations, m->tol,
                             isfinite(res) ? "" : "; the iterate is not finite");
        m->fell_back = 1;
    }
    return LOGT_OK;
}

/* The sequential baselines into Sx [T][B][S] from WX [T][B][G·D]: solver = launch (1), one
 * kernel per step; fused (2), one persistent kernel. */
static logt_status run_sequential(const deer_model *m, cudaStream_t st, int sequential, int64_t T,
                                  int64_t B, const float *WX, const float *R, const float *bias,
                                  const float *bn, const float *s0, float *Sx)
{
    const int64_t D = m->base.cfg.hidden_size, S = deer_state_size(m->cell, D);
    const int G = gates_of(m->cell);
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
    return LOGT_OK;
}

/* The run's report: the residuals as its trace, and the route, iterations and buffers. */
static void report(deer_model *m, const deer_cuda_scratch *sc, const newton_route *r, int warm)
{
    const persistent_plan *pl = &r->plan;
    const double first = m->nres ? m->residual[0] : NAN, last = m->nres ? m->residual[m->nres - 1] : NAN;
    m->base.trace = m->residual, m->base.ntrace = m->nres;
    snprintf(m->base.trace_name, sizeof m->base.trace_name, "newton_residual");
    if (m->solver)
        snprintf(m->base.detail, sizeof m->base.detail, "sequential baseline %s; buffers %.1f MiB",
                 m->solver == 1 ? "launch" : "fused", scratch_mib(sc));
    else if (r->full)
        snprintf(m->base.detail, sizeof m->base.detail,
                 "mode=full kernel=matrix-scan%s iterations=%d converged=%d fell_back=%d "
                 "nonfinite=%d residual first=%.3g last=%.3g; buffers %.1f MiB", warm ? " warm" : "",
                 m->iterations, m->converged, m->fell_back, m->nonfinite, first, last, scratch_mib(sc));
    else if (r->persistent)
        snprintf(m->base.detail, sizeof m->base.detail,
                 "mode=%s kernel=persistent (grid %d = %d chunks x %lld groups, %d x %d runs of %d "
                 "steps a block)%s iterations=%d converged=%d fell_back=%d nonfinite=%d residual "
                 "first=%.3g last=%.3g; buffers %.1f MiB",
                 deer_mode_name(m->mode), pl->grid, pl->nq, (long long)(pl->grid / pl->nq), pl->Bb,
                 pl->lanes, pl->L, warm ? " warm" : "", m->iterations, m->converged, m->fell_back,
                 m->nonfinite, first, last, scratch_mib(sc));
    else
        snprintf(m->base.detail, sizeof m->base.detail,
                 "mode=%s kernel=launches%s iterations=%d converged=%d fell_back=%d nonfinite=%d "
                 "residual first=%.3g last=%.3g; buffers %.1f MiB",
                 deer_mode_name(m->mode), warm ? " warm" : "", m->iterations, m->converged,
                 m->fell_back, m->nonfinite, first, last, scratch_mib(sc));
    deer_detail_settings(m);
}

/* What the solve and the backward read besides the states: sc->s made [N][S], s0 from h0 (c0),
 * and W x + b by a GEMM into sc->wx unless *in_kernel: Newton on a small G·D·I works W x out
 * in its kernels (no GEMM launch, no WX pass); the sequential baselines always read the GEMM's
 * WX, their best. */
static logt_status prepare(deer_model *m, logt_ctx *ctx, deer_cuda_scratch *sc, const logt_tensor *x,
                           int *in_kernel)
{
    const int64_t T = x->shape[0], B = x->shape[1], I = x->shape[2], D = m->base.cfg.hidden_size;
    const int64_t G = gates_of(m->cell), S = deer_state_size(m->cell, D), N = T * B;
    LOGT_TRY(logt_tensor_reserve(&sc->s, LOGT_CUDA, LOGT_F32, N * S, NULL));
    LOGT_TRY(logt_tensor_reserve(&sc->s0, LOGT_CUDA, LOGT_F32, B * S, NULL));
    *in_kernel = m->solver == 0 && G * D * I <= XMAX;
    if (!*in_kernel) LOGT_TRY(project(ctx, sc, N, G * D, I, (const float *)x->data, param(m, "W")));
    deer_state_kernel<<<logt_cuda_grid(B * S, BLOCK), BLOCK, 0, (cudaStream_t)ctx->stream>>>(
        B, (int)D, (int)S, (const float *)m->base.h0.data, (const float *)m->base.c0.data,
        (float *)sc->s0.data);
    LAUNCH_TRY();
    return LOGT_OK;
}

extern "C" logt_status deer_restore_cuda(deer_model *m, const logt_tensor *x, const logt_tensor *h, logt_ctx *ctx)
{
    LOGT_TRY(logt_ctx_require_cuda(ctx, "deer"));
    if (x->device != LOGT_CUDA || x->dtype != LOGT_F32 || h->device != LOGT_CUDA || h->dtype != LOGT_F32)
        return LOGT_FAIL(LOGT_EINVAL, "deer on cuda takes x and h as cuda f32 tensors");
    deer_cuda_scratch *sc = NULL;
    LOGT_TRY(scratch_of(m, &sc));
    int in_kernel = 0;
    LOGT_TRY(prepare(m, ctx, sc, x, &in_kernel));
    CUDA_TRY(cudaMemcpyAsync(sc->s.data, h->data, (size_t)h->numel * sizeof(float), cudaMemcpyDeviceToDevice,
                             (cudaStream_t)ctx->stream));
    m->solved = 1, sc->wx_valid = !in_kernel;
    return LOGT_OK;
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
    if (D > 1024 && (m->solver == 2 || (m->solver == 0 && m->fallback)))
        return LOGT_FAIL(LOGT_EUNSUPPORTED, "deer on cuda: the fused sequential kernel has a thread "
                         "per unit, so at most D = 1024, not %lld: use solver = launch, or "
                         "on_fail = error", (long long)D);
    newton_route route;
    LOGT_TRY(choose_route(m, T, B, S, &route));
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const float *R = param(m, "R"), *bias = param(m, "b"), *bn = m->cell == DEER_GRU ? param(m, "bn") : NULL;
    const float *X = (const float *)x->data, *Wt = param(m, "W");
    int in_kernel = 0;
    LOGT_TRY(prepare(m, ctx, sc, x, &in_kernel));
    const float *WX = in_kernel ? NULL : (const float *)sc->wx.data, *s0 = (const float *)sc->s0.data;
    float *Sx = (float *)sc->s.data;
    m->iterations = 0, m->converged = 0, m->fell_back = 0, m->nonfinite = 0, m->nres = 0;
    m->solved = 0, m->base.clamped = 0;

    int sequential = m->solver, warm = 0;
    if (m->solver == 0) {   /* Newton */
        newton_args a;
        memset(&a, 0, sizeof a);
        a.T = T, a.B = (int)B, a.I = (int)I;
        a.WX = WX, a.X = X, a.W = Wt, a.R = R, a.bias = bias, a.bn = bn, a.s0 = s0;
        LOGT_TRY(solve_newton(m, ctx, sc, &route, a, &Sx, &warm));
        if (m->fell_back) sequential = 2;
    }
    if (sequential && !WX) {   /* Newton's fall-back after W x in the kernel: the GEMM now */
        LOGT_TRY(project(ctx, sc, N, G * D, I, X, Wt));
        WX = (const float *)sc->wx.data;
    }
    LOGT_TRY(run_sequential(m, st, sequential, T, B, WX, R, bias, bn, s0, Sx));
    if (S == D) {
        CUDA_TRY(cudaMemcpyAsync(h->data, Sx, (size_t)(N * D) * sizeof(float), cudaMemcpyDeviceToDevice, st));
    } else {
        deer_h_of_state_kernel<<<logt_cuda_grid(N * D, BLOCK), BLOCK, 0, st>>>(N, (int)D, (int)S, Sx,
                                                                                (float *)h->data);
        LAUNCH_TRY();
    }
    /* a segment's final state (recompute, model.h): row T-1's h part into hT, its c part into cT */
    const size_t pitch = (size_t)S * sizeof(float), width = (size_t)D * sizeof(float);
    const float *last = Sx + (T - 1) * B * S;
    if (m->base.hT.data)
        CUDA_TRY(cudaMemcpy2DAsync(m->base.hT.data, width, last, pitch, width, (size_t)B,
                                   cudaMemcpyDeviceToDevice, st));
    if (S > D && m->base.cT.data)
        CUDA_TRY(cudaMemcpy2DAsync(m->base.cT.data, width, last + D, pitch, width, (size_t)B,
                                   cudaMemcpyDeviceToDevice, st));
    m->solved = 1, sc->wx_valid = WX != NULL;
    if (m->warm) {   /* the next call's first guess */
        LOGT_TRY(logt_tensor_ensure3(&m->prev, LOGT_CUDA, LOGT_F32, T, B, S));
        CUDA_TRY(cudaMemcpyAsync(m->prev.data, Sx, (size_t)(N * S) * sizeof(float),
                                 cudaMemcpyDeviceToDevice, st));
    }
    report(m, sc, &route, warm);
    return LOGT_OK;
}

extern "C" void deer_free_cuda(deer_model *m)
{
    deer_cuda_scratch *sc = (deer_cuda_scratch *)m->cuda;
    if (!sc) return;
    logt_tensor *all[] = {&sc->wx, &sc->s,   &sc->s2, &sc->a,   &sc->b,   &sc->s0, &sc->res,
                          &sc->agg, &sc->carry, &sc->lam, &sc->lam2, &sc->u, &sc->dxa, &sc->dra,
                          &sc->ones, &sc->J, &sc->rhs, &sc->mc, &sc->vc, &sc->cc, &sc->rd,
                          &sc->bnd, &sc->dmaps, &sc->dcarry, &sc->dfb, &sc->dnc, &sc->cf,
                          &sc->nclamp, &sc->ut};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) logt_tensor_free(all[i]);
    free(sc);
    m->cuda = NULL;
}
