/* sru_cuda.cu — the SRU layer's forward on CUDA (equations and knobs in sru.h; the reference
 * is sru_forward_cpu in sru.c; the backward is sru_cuda_backward.cu; what both share,
 * sru_cuda.cuh). One GEMM for every gate of every step, then element-wise work over time.
 * Activations x, h of dtype f32, bf16 or f16; parameters, planes, c and all arithmetic fp32.
 *
 *   G[k][N][D] = X[N][I] · Wk^T, k < K         one cuBLAS call (strided-batched over the K row
 *                                              blocks of [W; Wp], X shared: stride 0)
 *   loop route (v on, or route = loop):        sru_forward_kernel: thread per channel (b, d)
 *     walks t with the loads of the next UNROLL steps issued before the math of the current
 *     UNROLL (two batches in registers), and computes f, r (from W x + v·c_{t-1} + b), c_t,
 *     h_t. It writes c and h only: backward recomputes f and r from G and c.
 *   scan route (v = zero):                     f = σ(W_f x + b_f) for all steps (in place in
 *     G's f plane) and (1 − f)·z; scan_cuda for c (kernels/scan.h); then h element-wise.
 *   route = newton (v on):                     c by Newton over the sequence, an evaluation
 *     and a scan_cuda an iteration; then h element-wise.
 * Every route writes c_{T-1} to m->hT in cfg.dtype when a segment asks (recompute, model.h).
 * Cost: the GEMM 2·N·K·D·I flops; the loop kernel sru_recurrence_bytes (sru.h), 24·N·D bytes
 * (f32, I == D) and ~30 flops an element (memory-bound), with a depth of T/UNROLL DRAM round
 * trips however small B·D. Memory kept by forward: planes K·N·D + c N·D fp32 (+ x in f32 for
 * 16-bit x). Bounds at the acceptance shape: experiments/sru-speed/README.md, Design notes.
 * bf16 and f16: x is converted to an f32 scratch once per forward (kept for backward's dW GEMM),
 * and the f32 GEMMs of kernels/gemm.h run on it: products of 16-bit x with f32 W, in fp32 (or
 * TF32).
 * math = tf32 sets CUBLAS_TF32_TENSOR_OP_MATH on the handle around each GEMM and restores the
 * handle's mode after; math = 3xtf32 makes each GEMM three TF32 products of split operands
 * (kernels/gemm.h).
 */
#include <stdio.h>
#include <stdlib.h>

#include "../../core/cuda.h"
#include "../../core/cuda_check.cuh"
#include "../../core/reduce.cuh"
#include "../../core/elem.cuh"
#include "../../kernels/gemm.h"
#include "../../kernels/scan.h"
#include "sru.h"
#include "sru_cuda.cuh"

/* ---- the loop route ------------------------------------------------------------------------ */

/* Forward, thread j = b·D + d walks t = 0..T-1 (E: dtype of x, h, c0; XP: of x'). G holds the
 * planes z, W_f x, W_r x; x' is x itself (I == D) or G's fourth plane. Element (t, j) of every
 * [T][B][D] array sits at t·C + j: a warp reads 32 consecutive floats per array and step. */
template <typename E, typename XP>
__global__ void __launch_bounds__(BLOCK, 2)
    sru_forward_kernel(int64_t T, int64_t B, int64_t D, const float *__restrict__ G,
                       const XP *__restrict__ xp, const float *__restrict__ v,
                       const float *__restrict__ bias, float alpha, const E *__restrict__ c0,
                       float *__restrict__ C, E *__restrict__ h)
{
    const int64_t BD = B * D, ND = T * BD, j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= BD) return;
    const int64_t d = j % D;
    const float *z = G, *pf = G + ND, *pr = G + 2 * ND;
    const float vf = v ? v[d] : 0.0f, vr = v ? v[D + d] : 0.0f, bf = bias[d], br = bias[D + d];
    float c = c0 ? ld(c0 + j) : 0.0f;
    /* Two batches of UNROLL steps in registers: the loads of the next batch are issued before
     * the math of this one, whose steps depend on each other through c (two sigmoids a step),
     * so the DRAM round trip overlaps that chain instead of following it. */
    float zv[UNROLL], fv[UNROLL], rv[UNROLL], xv[UNROLL];
    float zn[UNROLL], fn[UNROLL], rn[UNROLL], xn[UNROLL];
#pragma unroll
    for (int k = 0; k < UNROLL; k++) {
        const int64_t e = min((int64_t)k, T - 1) * BD + j;   /* past the end: reread, unused */
        zv[k] = z[e], fv[k] = pf[e], rv[k] = pr[e], xv[k] = ld(xp + e);
    }
    for (int64_t t0 = 0; t0 < T; t0 += UNROLL) {
#pragma unroll
        for (int k = 0; k < UNROLL; k++) {   /* the next batch's loads, in flight together */
            const int64_t e = min(t0 + UNROLL + k, T - 1) * BD + j;
            zn[k] = z[e], fn[k] = pf[e], rn[k] = pr[e], xn[k] = ld(xp + e);
        }
#pragma unroll
        for (int k = 0; k < UNROLL; k++)
            if (t0 + k < T) {
                const int64_t e = (t0 + k) * BD + j;
                const float f = sigmoid(fv[k] + vf * c + bf), r = sigmoid(rv[k] + vr * c + br);
                c = f * c + (1.0f - f) * zv[k];
                C[e] = c;
                st(h + e, r * c + (1.0f - r) * (alpha * xv[k]));
            }
#pragma unroll
        for (int k = 0; k < UNROLL; k++) zv[k] = zn[k], fv[k] = fn[k], rv[k] = rn[k], xv[k] = xn[k];
    }
}

/* ---- the scan route (v = 0): element-wise over all N·D elements, e = n·D + d ---------------- */

/* F = σ(W_f x + b_f) in place (the scan's a), Bv = (1 − F)·z (its b). */
__global__ void sru_scan_gates_kernel(int64_t n, int64_t D, const float *__restrict__ z,
                                      const float *__restrict__ bias, float *__restrict__ F,
                                      float *__restrict__ Bv)
{
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < n;
         e += (int64_t)gridDim.x * blockDim.x) {
        const float f = sigmoid(F[e] + bias[e % D]);
        F[e] = f;
        Bv[e] = (1.0f - f) * z[e];
    }
}

/* h = r ⊙ c + (1 − r) ⊙ α x',  r = σ(W_r x + b_r). */
template <typename E, typename XP>
__global__ void sru_scan_highway_kernel(int64_t n, int64_t D, const float *__restrict__ pr,
                                        const float *__restrict__ bias, float alpha,
                                        const float *__restrict__ C, const XP *__restrict__ xp,
                                        E *__restrict__ h)
{
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < n;
         e += (int64_t)gridDim.x * blockDim.x) {
        const float r = sigmoid(pr[e] + bias[D + e % D]);
        st(h + e, r * C[e] + (1.0f - r) * (alpha * ld(xp + e)));
    }
}

/* ---- route = newton (v on): c by Newton over the sequence, e = n·D + d ----------------------
 * With C the guess: a_e = g'(c_{t-1}) = φ + φ(1 − φ) v_f (c_{t-1} − z) (the exact, diagonal
 * Jacobian), b_e = g(c_{t-1}) − a_e c_{t-1}, and the residual max |C − g| (a block maximum,
 * one atomic per block, NaN the worst); the next guess is the scan of (a, b). */
__global__ void sru_newton_eval_kernel(int64_t n, int64_t BD, int64_t D, const float *__restrict__ z,
                                       const float *__restrict__ pf, const float *__restrict__ v,
                                       const float *__restrict__ bias, const float *__restrict__ c0,
                                       const float *__restrict__ C, float *__restrict__ A,
                                       float *__restrict__ Bv, unsigned *__restrict__ res)
{
    __shared__ float sh[BLOCK / 32];
    float worst = 0.0f;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < n;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int64_t d = e % D;
        const float cp = e >= BD ? C[e - BD] : c0 ? c0[e] : 0.0f;
        const float phi = sigmoid(pf[e] + v[d] * cp + bias[d]);
        const float g = phi * cp + (1.0f - phi) * z[e];
        const float a = phi + phi * (1.0f - phi) * v[d] * (cp - z[e]);
        A[e] = a, Bv[e] = g - a * cp;
        worst = worse(worst, fabsf(C[e] - g));
    }
    block_max_into(worst, sh, res);
}

/* h from the solved C: r = σ(W_r x + v_r c_{t-1} + b_r), h = r c + (1 − r) α x'. */
template <typename E, typename XP>
__global__ void sru_newton_highway_kernel(int64_t n, int64_t BD, int64_t D, const float *__restrict__ pr,
                                          const float *__restrict__ v, const float *__restrict__ bias,
                                          float alpha, const float *__restrict__ c0,
                                          const float *__restrict__ C, const XP *__restrict__ xp,
                                          E *__restrict__ h)
{
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < n;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int64_t d = e % D;
        const float cp = e >= BD ? C[e - BD] : c0 ? c0[e] : 0.0f;
        const float r = sigmoid(pr[e] + v[D + d] * cp + bias[D + d]);
        st(h + e, r * C[e] + (1.0f - r) * (alpha * ld(xp + e)));
    }
}

/* ---- small helpers ---------------------------------------------------------------------- */

template <typename Dst, typename Src>
__global__ void sru_convert_kernel(int64_t n, const Src *__restrict__ src, Dst *__restrict__ dst)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        st(dst + i, ld(src + i));
}

/* ---- host helpers (sru_cuda.cuh) ---------------------------------------------------------- */

int sru_walk_threads(int64_t C) { return C >= (int64_t)BLOCK * logt_cuda_sm_count() ? BLOCK : 64; }

logt_status sru_convert(logt_ctx *ctx, int64_t n, logt_dtype to, void *dst, logt_dtype from,
                        const void *src)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const unsigned grid = logt_cuda_grid(n, BLOCK);
    const int to16 = to == LOGT_BF16 || to == LOGT_F16, from16 = from == LOGT_BF16 || from == LOGT_F16;
    if (to == LOGT_F32 && from16)
        logt_by_dtype(from, [&](auto e) {
            typedef typename decltype(e)::type E;
            sru_convert_kernel<float, E><<<grid, BLOCK, 0, st>>>(n, (const E *)src, (float *)dst);
            return 0;
        });
    else if (to16 && from == LOGT_F32)
        logt_by_dtype(to, [&](auto e) {
            typedef typename decltype(e)::type E;
            sru_convert_kernel<E, float><<<grid, BLOCK, 0, st>>>(n, (const float *)src, (E *)dst);
            return 0;
        });
    else
        return LOGT_FAIL(LOGT_EINVAL, "sru: no conversion from %s to %s", logt_dtype_name(from),
                         logt_dtype_name(to));
    LAUNCH_TRY();
    return LOGT_OK;
}

logt_status sru_scratch_of(sru_model *m, sru_cuda_scratch **out)
{
    if (!m->cuda) {
        m->cuda = calloc(1, sizeof(sru_cuda_scratch));
        if (!m->cuda) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    }
    *out = (sru_cuda_scratch *)m->cuda;
    return LOGT_OK;
}

float *sru_param(sru_model *m, const logt_tensor *flat, const char *name)
{
    return (float *)logt_model_param(&m->base, flat, name).data;
}

logt_status sru_check_act(const logt_tensor *t, logt_dtype dt, const char *what)
{
    if (t->device != LOGT_CUDA || t->dtype != dt)
        return LOGT_FAIL(LOGT_EINVAL, "sru on cuda takes %s as a cuda %s tensor, not %s %s", what,
                         logt_dtype_name(dt), logt_device_name(t->device),
                         logt_dtype_name(t->dtype));
    return LOGT_OK;
}

logt_status sru_gemm(const sru_model *m, logt_ctx *ctx, int transA, int transB, int64_t M, int64_t N,
                     int64_t K, const float *A, int64_t strideA, const float *B, int64_t strideB, float beta,
                     float *C, int64_t strideC, int64_t batch)
{
    const int tf32 = m->o.math == SRU_MATH_TF32;
    cublasHandle_t h = (cublasHandle_t)ctx->cublas;
    cublasMath_t old = CUBLAS_DEFAULT_MATH;
    if (tf32) {
        CUBLAS_TRY(cublasGetMathMode(h, &old));
        CUBLAS_TRY(cublasSetMathMode(h, CUBLAS_TF32_TENSOR_OP_MATH));
    }
    logt_status s = logt_gemm_f32_batched(ctx, transA, transB, M, N, K, 1.0f, A, strideA, B,
                                          strideB, beta, C, strideC, batch);
    if (tf32) {
        cublasStatus_t r = cublasSetMathMode(h, old);
        if (s == LOGT_OK && r != CUBLAS_STATUS_SUCCESS)
            return LOGT_FAIL(LOGT_ECUDA,
                             "cublasSetMathMode (restoring the handle's math) failed: %s",
                             logt_cublas_name(r));
    }
    return s;
}

/* math = 3xtf32, the input GEMM: x and [W; Wp] split into TF32 parts side by side (both kept
 * for the backward), then ONE TF32 GEMM of inner dimension 3I per plane:
 * G_k = [x_hi x_lo x_hi] · [W_lo W_hi W_hi]_k^T (kernels/gemm.h). */
static logt_status gemm3x_forward(logt_ctx *ctx, sru_cuda_scratch *s, int64_t N, int64_t D, int64_t I,
                                  int K, const float *X, const float *W, float *G)
{
    LOGT_TRY(logt_tensor_reserve(&s->x3, LOGT_CUDA, LOGT_F32, 3 * N * I, NULL));
    LOGT_TRY(logt_tensor_reserve(&s->w3, LOGT_CUDA, LOGT_F32, 3 * K * D * I, NULL));
    float *x3 = (float *)s->x3.data, *w3 = (float *)s->w3.data;
    const int64_t xhi[2] = {0, 2 * I}, whi[2] = {I, 2 * I};
    LOGT_TRY(logt_tf32_split(ctx, 1, N, I, X, 0, x3, 3 * I, 0, I, 2, xhi));
    if (N <= X3_STACK_ROWS) {
        LOGT_TRY(logt_tensor_reserve(&s->xs3, LOGT_CUDA, LOGT_F32, 3 * N * I, NULL));
        const int64_t shi[2] = {N * I, 2 * N * I};
        LOGT_TRY(logt_tf32_split(ctx, 1, N, I, X, 0, (float *)s->xs3.data, I, 0, 0, 2, shi));
    }
    LOGT_TRY(logt_tf32_split(ctx, 1, K * D, I, W, 0, w3, 3 * I, 0, 0, 2, whi));
    return logt_gemm_ex(ctx, 0, 1, N, D, 3 * I, 1.0f, LOGT_F32, x3, 3 * I, 0, w3, 3 * I, D * 3 * I, 0.0f, G,
                        D, N * D, K, 1);
}

/* ---- the forward recurrence on its own (sru.h) ------------------------------------------- */

extern "C" logt_status sru_recurrence_cuda(logt_ctx *ctx, int64_t T, int64_t B, int64_t D,
                                           logt_dtype dt, const float *gates, int proj,
                                           const void *x, const float *v, const float *b,
                                           float alpha, const void *c0, float *c, void *h)
{
    if (T < 1 || B < 1 || D < 1)
        return LOGT_FAIL(LOGT_EINVAL,
                         "sru_recurrence_cuda: T = %lld, B = %lld, D = %lld: each must be at "
                         "least 1",
                         (long long)T, (long long)B, (long long)D);
    if (dt != LOGT_F32 && dt != LOGT_BF16 && dt != LOGT_F16)
        return LOGT_FAIL(LOGT_EUNSUPPORTED,
                         "sru_recurrence_cuda: dtype %s: x and h are f32, bf16 or f16",
                         logt_dtype_name(dt));
    if (!gates || !b || !c || !h || (!proj && !x))
        return LOGT_FAIL(LOGT_EINVAL, "sru_recurrence_cuda: gates, b, c, h (and x unless proj) "
                                      "must be device arrays, not NULL");
    const int64_t BD = B * D;
    const int threads = sru_walk_threads(BD);
    const unsigned blocks = (unsigned)((BD + threads - 1) / threads);
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const float *xpl = gates + 3 * T * BD;   /* W_p x, when proj */
    logt_by_dtype(dt, [&](auto e) {   /* x' is W_p x (f32) when proj, else x (of dt) */
        typedef typename decltype(e)::type E;
        if (proj)
            sru_forward_kernel<E, float><<<blocks, threads, 0, st>>>(T, B, D, gates, xpl, v, b, alpha,
                                                                     (const E *)c0, c, (E *)h);
        else
            sru_forward_kernel<E, E><<<blocks, threads, 0, st>>>(T, B, D, gates, (const E *)x, v, b, alpha,
                                                                 (const E *)c0, c, (E *)h);
        return 0;
    });
    LAUNCH_TRY();
    return LOGT_OK;
}

/* ---- forward ------------------------------------------------------------------------------- */

/* h from C on the scan route; x' is W_p x (f32) when K = 4, else x (of dt). */
static logt_status scan_highway(logt_ctx *ctx, logt_dtype dt, int64_t K, int64_t n, int64_t D, const float *pr,
                                const float *bias, float alpha, const float *C, const void *xp, void *h)
{
    const unsigned grid = logt_cuda_grid(n, BLOCK);
    cudaStream_t st = (cudaStream_t)ctx->stream;
    logt_by_dtype(dt, [&](auto e) {
        typedef typename decltype(e)::type E;
        if (K == 4)
            sru_scan_highway_kernel<E, float><<<grid, BLOCK, 0, st>>>(n, D, pr, bias, alpha, C, (const float *)xp,
                                                                      (E *)h);
        else
            sru_scan_highway_kernel<E, E><<<grid, BLOCK, 0, st>>>(n, D, pr, bias, alpha, C, (const E *)xp, (E *)h);
        return 0;
    });
    LAUNCH_TRY();
    return LOGT_OK;
}

/* route = newton: C by Newton from zeros (the residual of each guess kept in m, stopping at
 * 1e-6, or where fp32 rounding stops it falling: under 1e-4 and not halved by the last
 * iteration, both relative to max(1, the first residual), which is the size of c; at most
 * 64 evaluations, as on the cpu), then h from C. */
static logt_status newton_forward(sru_model *m, logt_ctx *ctx, sru_cuda_scratch *s, int64_t T,
                                  int64_t B, int64_t D, int64_t K, const float *G, const float *v,
                                  const float *bias, float alpha, const void *xp, float *C, void *h)
{
    const int64_t BD = B * D, ND = T * BD;
    const logt_dtype dt = m->base.cfg.dtype;
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const void *c0 = m->base.h0.data;
    if (c0 && dt != LOGT_F32) {
        LOGT_TRY(logt_tensor_reserve(&s->c0f, LOGT_CUDA, LOGT_F32, BD, NULL));
        LOGT_TRY(sru_convert(ctx, BD, LOGT_F32, s->c0f.data, dt, c0));
        c0 = s->c0f.data;
    }
    LOGT_TRY(logt_tensor_reserve(&s->g, LOGT_CUDA, LOGT_F32, ND, NULL));
    LOGT_TRY(logt_tensor_reserve(&s->da, LOGT_CUDA, LOGT_F32, ND, NULL));
    LOGT_TRY(logt_tensor_reserve(&s->res, LOGT_CUDA, LOGT_F32, 1, NULL));
    float *A = (float *)s->g.data, *Bv = (float *)s->da.data;
    unsigned *res = (unsigned *)s->res.data;
    const int max_evals = (int)(sizeof m->residual / sizeof m->residual[0]);
    CUDA_TRY(cudaMemsetAsync(C, 0, (size_t)ND * sizeof(float), st));
    float last = INFINITY, scale = 1.0f;
    for (int k = 0;; k++) {
        CUDA_TRY(cudaMemsetAsync(res, 0, sizeof(unsigned), st));
        sru_newton_eval_kernel<<<logt_cuda_grid(ND, BLOCK), BLOCK, 0, st>>>(
            ND, BD, D, G, G + ND, v, bias, (const float *)c0, C, A, Bv, res);
        LAUNCH_TRY();
        float r;
        LOGT_TRY(logt_cuda_read_max(st, res, &r));
        m->residual[k] = r, m->iterations = k;
        m->base.trace = m->residual, m->base.ntrace = k + 1;
        snprintf(m->base.trace_name, sizeof m->base.trace_name, "newton_residual");
        if (k == 0) scale = r > 1.0f ? r : 1.0f;   /* max |g(0)|: the size of c */
        if (r <= 1e-6f * scale || (k >= 2 && r > 0.5f * last && r <= 1e-4f * scale)) break;
        if (!isfinite(r) || k + 1 == max_evals)
            return LOGT_FAIL(LOGT_ENUMERIC, "%s route = newton did not converge: residual %.3g after "
                             "%d iterations. HINT: route = loop", m->base.cfg.model, r, k);
        last = r;
        LOGT_TRY(scan_cuda(ctx, 0, T, BD, LOGT_F32, A, Bv, c0, C));   /* c_t = a_t c_{t-1} + b_t */
    }
    const float *pr = G + 2 * ND;
    const unsigned grid = logt_cuda_grid(ND, BLOCK);
    logt_by_dtype(dt, [&](auto e) {   /* x' is W_p x (f32) when K = 4, else x (of dt) */
        typedef typename decltype(e)::type E;
        if (K == 4)
            sru_newton_highway_kernel<E, float><<<grid, BLOCK, 0, st>>>(ND, BD, D, pr, v, bias, alpha,
                                                                        (const float *)c0, C, (const float *)xp,
                                                                        (E *)h);
        else
            sru_newton_highway_kernel<E, E><<<grid, BLOCK, 0, st>>>(ND, BD, D, pr, v, bias, alpha, (const float *)c0,
                                                                    C, (const E *)xp, (E *)h);
        return 0;
    });
    LAUNCH_TRY();
    return LOGT_OK;
}

/* A segment's final state (recompute, model.h): c_{T-1} into the h0 slot's m->hT, in cfg.dtype. */
static logt_status final_state(sru_model *m, logt_ctx *ctx, const float *C, int64_t T, int64_t BD)
{
    void *hT = m->base.hT.data;
    const logt_dtype dt = m->base.cfg.dtype;
    if (!hT) return LOGT_OK;
    const float *last = C + (T - 1) * BD;
    if (dt == LOGT_F32)
        CUDA_TRY(cudaMemcpyAsync(hT, last, (size_t)BD * sizeof(float), cudaMemcpyDeviceToDevice,
                                 (cudaStream_t)ctx->stream));
    else LOGT_TRY(sru_convert(ctx, BD, dt, hT, LOGT_F32, last));
    return LOGT_OK;
}

extern "C" logt_status sru_forward_cuda(sru_model *m, const logt_tensor *x, logt_tensor *h,
                                        logt_ctx *ctx)
{
    const int64_t T = x->shape[0], B = x->shape[1], I = x->shape[2], D = m->base.cfg.hidden_size;
    const int64_t N = T * B, ND = N * D, K = I != D ? 4 : 3;
    const logt_dtype dt = m->base.cfg.dtype;
    const float alpha = (float)m->o.alpha;
    LOGT_TRY(logt_ctx_require_cuda(ctx, "sru on cuda"));
    LOGT_TRY(sru_check_act(x, dt, "the input x"));
    LOGT_TRY(sru_check_act(h, dt, "the output h"));
    LOGT_TRY(logt_tensor_ensure3(&m->gates, LOGT_CUDA, LOGT_F32, K, N, D));
    LOGT_TRY(logt_tensor_ensure3(&m->c, LOGT_CUDA, LOGT_F32, T, B, D));
    sru_cuda_scratch *s = NULL;
    LOGT_TRY(sru_scratch_of(m, &s));
    const float *W = sru_param(m, &m->base.w, "W");   /* [W; Wp]: [K·D][I], Wp right after W */
    const float *v = m->o.v_on ? sru_param(m, &m->base.w, "v") : NULL;
    const float *bias = sru_param(m, &m->base.w, "b");
    float *G = (float *)m->gates.data, *C = (float *)m->c.data;
    cudaStream_t st = (cudaStream_t)ctx->stream;

    const float *X = (const float *)x->data;
    if (dt != LOGT_F32) {
        LOGT_TRY(logt_tensor_reserve(&s->xf, LOGT_CUDA, LOGT_F32, N * I, NULL));
        LOGT_TRY(sru_convert(ctx, N * I, LOGT_F32, s->xf.data, dt, x->data));
        X = (const float *)s->xf.data;
    }
    /* every gate of every step: plane k = X · (rows kD..kD+D-1 of [W; Wp])^T */
    if (m->o.math == SRU_MATH_3XTF32) LOGT_TRY(gemm3x_forward(ctx, s, N, D, I, (int)K, X, W, G));
    else LOGT_TRY(sru_gemm(m, ctx, 0, 1, N, D, I, X, 0, W, D * I, 0.0f, G, ND, K));

    const char *dts = dt == LOGT_BF16  ? "bf16 (f32 x for GEMMs)"
                      : dt == LOGT_F16 ? "f16 (f32 x for GEMMs)"
                                       : "f32";
    const void *xp = K == 4 ? (const void *)(G + 3 * ND) : x->data;   /* x' */
    if (m->o.newton) {
        snprintf(m->base.impl, sizeof m->base.impl,
                 "cuda %s, math=%s: 1 GEMM over %d planes + c by Newton (diagonal Jacobian, "
                 "a scan an iteration) + gates; v on, highway %g",
                 dts, sru_math_names[m->o.math], (int)K, m->o.alpha);
        LOGT_TRY(newton_forward(m, ctx, s, T, B, D, K, G, v, bias, alpha, xp, C, h->data));
        return final_state(m, ctx, C, T, B * D);
    }
    if (!m->o.use_scan) {
        snprintf(m->base.impl, sizeof m->base.impl,
                 "cuda %s, math=%s: 1 GEMM over %d planes + fused element-wise loop (thread per "
                 "channel, %d steps in flight); v %s, highway %g",
                 dts, sru_math_names[m->o.math], (int)K, UNROLL, m->o.v_on ? "on" : "zero",
                 m->o.alpha);
        LOGT_TRY(sru_recurrence_cuda(ctx, T, B, D, dt, G, K == 4, x->data, v, bias, alpha,
                                     m->base.h0.data, C, h->data));
        return final_state(m, ctx, C, T, B * D);
    }

    /* v = 0: a = f of every step, b = (1 − f)·z, then the shared scan; c0 in f32 */
    snprintf(m->base.impl, sizeof m->base.impl,
             "cuda %s, math=%s: 1 GEMM over %d planes + linear scan for c (scan_cuda) + "
             "element-wise gates; v zero, highway %g",
             dts, sru_math_names[m->o.math], (int)K, m->o.alpha);
    float *F = G + ND;
    sru_scan_gates_kernel<<<logt_cuda_grid(ND, BLOCK), BLOCK, 0, st>>>(ND, D, G, bias, F, C);
    LAUNCH_TRY();
    const void *c0 = m->base.h0.data;
    if (c0 && dt != LOGT_F32) {
        LOGT_TRY(logt_tensor_reserve(&s->c0f, LOGT_CUDA, LOGT_F32, B * D, NULL));
        LOGT_TRY(sru_convert(ctx, B * D, LOGT_F32, s->c0f.data, dt, c0));
        c0 = s->c0f.data;
    }
    LOGT_TRY(scan_cuda(ctx, 0, T, B * D, LOGT_F32, F, C, c0, C));
    LOGT_TRY(scan_highway(ctx, dt, K, ND, D, G + 2 * ND, bias, alpha, C, xp, h->data));
    return final_state(m, ctx, C, T, B * D);
}

extern "C" void sru_free_cuda(sru_model *m)
{
    sru_cuda_scratch *s = (sru_cuda_scratch *)m->cuda;
    if (!s) return;
    logt_tensor *all[] = {&s->res, &s->xf, &s->dG,  &s->dxf,  &s->part, &s->g,
                          &s->da, &s->c0f, &s->dc0f, &s->ones, &s->x3, &s->xs3, &s->w3, &s->g3};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) logt_tensor_free(all[i]);
    free(s);
    m->cuda = NULL;
}
