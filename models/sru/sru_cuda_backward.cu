/* sru_cuda_backward.cu — the SRU layer's backward on CUDA (the reference is sru_backward_cpu
 * in sru.c), from the planes and c a forward of sru_cuda.cu of the same shape kept:
 *   loop route (also route = newton, on the solved c): sru_backward_kernel, thread per channel
 *     walking t down, carrying dL/dc; writes dG[N][K·D] = dL/d(z, pre f, pre r, W_p x) and the
 *     highway's direct dx term, and sums dv, db over t in registers: one write per channel
 *     into part[4][B][D], then sru_sum_batch_kernel sums over B (no atomics).
 *   scan route: element-wise dL/dc through h, scan_backward_cuda, element-wise gate
 *     gradients; db = dG^T·1 by one cublasSgemv.
 *   d[W; Wp] = dG^T · X   one GEMM over the whole sequence;   dX = dG · [W; Wp] (+ the direct term
 *   when I == D)           one GEMM; bf16, f16: dx is made in an f32 scratch, then rounded.
 * A segment (recompute, model.h) starts the walk back, or adds to the scan's last dL/dc, from
 * dhT (dL/dc_{T-1}), and its gradients add to dw (the GEMMs' and sums' beta = 1).
 * Cost: the GEMMs twice the forward's flops; the loop kernel reads z, W_f x, W_r x, c, x', dh
 * and writes K gradient planes and the direct dx: 40·N·D bytes (f32, I == D). Memory: dG
 * K·N·D fp32 (+ 2·N·D on the scan route).
 */
#include <limits.h>
#include <stdlib.h>

#include "../../core/cuda.h"
#include "../../core/cuda_check.cuh"
#include "../../core/elem.cuh"
#include "../../kernels/gemm.h"
#include "../../kernels/scan.h"
#include "sru.h"
#include "sru_cuda.cuh"

/* ---- kernels -------------------------------------------------------------------------------- */

/* Backward, thread j walks t = T-1..0 carrying dL/dc_t from step t+1 (the mirror of
 * recurrence_backward in sru.c), at t = T-1 from dcT (a segment's dL/dc_{T-1} from the steps
 * after it; NULL: zeros). f, r are recomputed from G, v, b and c_{t-1}. Writes row
 * n = t·B + b of dG [N][K·D], the direct dx term into dxd [N][D] (I == D; NULL: none), dL/dc_{-1}
 * into dc0 (NULL: none), and this channel's sums over t of dv_f, dv_r, db_f, db_r into
 * part[q][b][d]: one write each, summed over b by sru_sum_batch_kernel. */
template <typename E, typename XP>
__global__ void __launch_bounds__(BLOCK)
    sru_backward_kernel(int64_t T, int64_t B, int64_t D, int K, const float *__restrict__ G,
                        const XP *__restrict__ xp, const float *__restrict__ C,
                        const E *__restrict__ c0, const E *__restrict__ dH,
                        const float *__restrict__ v, const float *__restrict__ bias, float alpha,
                        float *__restrict__ dG, float *__restrict__ dxd, float *__restrict__ part,
                        const E *__restrict__ dcT, E *__restrict__ dc0)
{
    const int64_t BD = B * D, ND = T * BD, j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= BD) return;
    const int64_t b = j / D, d = j - b * D, KD = K * D;
    const float *z = G, *pf = G + ND, *pr = G + 2 * ND;
    const float vf = v ? v[d] : 0.0f, vr = v ? v[D + d] : 0.0f, bf = bias[d], br = bias[D + d];
    const float cinit = c0 ? ld(c0 + j) : 0.0f;
    float c = C[(T - 1) * BD + j];   /* c_t of the step about to be walked */
    float carry = dcT ? ld(dcT + j) : 0.0f, dvf = 0.0f, dvr = 0.0f, dbf = 0.0f, dbr = 0.0f;
    for (int64_t t0 = T - 1; t0 >= 0; t0 -= UNROLL) {
        float zv[UNROLL], fv[UNROLL], rv[UNROLL], xv[UNROLL], gv[UNROLL], cp[UNROLL];
#pragma unroll
        for (int k = 0; k < UNROLL; k++) {
            const int64_t t = max(t0 - k, (int64_t)0), e = t * BD + j;   /* before 0: unused */
            zv[k] = z[e], fv[k] = pf[e], rv[k] = pr[e], xv[k] = ld(xp + e), gv[k] = ld(dH + e);
            const float cl = C[(t ? t - 1 : 0) * BD + j];   /* loaded unconditionally */
            cp[k] = t ? cl : cinit;                          /* c_{t-1}                */
        }
#pragma unroll
        for (int k = 0; k < UNROLL; k++)
            if (t0 - k >= 0) {
                const int64_t t = t0 - k;
                const float f = sigmoid(fv[k] + vf * cp[k] + bf);
                const float r = sigmoid(rv[k] + vr * cp[k] + br);
                const float dh = gv[k];
                const float dr = dh * (c - alpha * xv[k]) * r * (1.0f - r);   /* dL/d(pre r) */
                const float gc = carry + dh * r;                              /* dL/dc_t     */
                const float df = gc * (cp[k] - zv[k]) * f * (1.0f - f);       /* dL/d(pre f) */
                carry = gc * f + df * vf + dr * vr;                           /* dL/dc_{t-1} */
                dvf += df * cp[k], dvr += dr * cp[k], dbf += df, dbr += dr;
                float *o = dG + (t * B + b) * KD + d;
                o[0] = gc * (1.0f - f), o[D] = df, o[2 * D] = dr;
                const float dxh = dh * (1.0f - r) * alpha;   /* through the highway */
                if (K == 4) o[3 * D] = dxh;
                else if (dxd) dxd[t * BD + j] = dxh;
                c = cp[k];
            }
    }
    if (dc0) st(dc0 + j, carry);
    if (v) part[j] = dvf, part[BD + j] = dvr;
    part[2 * BD + j] = dbf, part[3 * BD + j] = dbr;
}

/* dv = [Σ_b part[0][b][:], Σ_b part[1][b][:]], db likewise from part[2], part[3] (added to
 * them when add: a segment's share). One thread per output, coalesced over d; dv NULL
 * (v = zero) skips its half. */
__global__ void sru_sum_batch_kernel(int64_t B, int64_t D, const float *__restrict__ part, int add,
                                     float *__restrict__ dv, float *__restrict__ db)
{
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= 4 * D) return;
    const int64_t q = i / D, d = i - q * D;
    if (q < 2 && !dv) return;
    float s = 0.0f;
    for (int64_t b = 0; b < B; b++) s += part[(q * B + b) * D + d];
    float *o = q < 2 ? dv + i : db + i - 2 * D;
    *o = add ? *o + s : s;
}

/* Backward through h alone: g = dh ⊙ r (dL/dc_t before the scan adds later steps), dL/d(pre r)
 * into dG, and the highway's dx term into dG's fourth plane (I != D) or dxd (I == D). */
template <typename E, typename XP>
__global__ void sru_scan_back_highway_kernel(int64_t n, int64_t D, int K,
                                             const float *__restrict__ pr,
                                             const float *__restrict__ bias, float alpha,
                                             const float *__restrict__ C,
                                             const XP *__restrict__ xp, const E *__restrict__ dH,
                                             float *__restrict__ g, float *__restrict__ dG,
                                             float *__restrict__ dxd)
{
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < n;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int64_t row = e / D, d = e - row * D;
        const float r = sigmoid(pr[e] + bias[D + d]), dh = ld(dH + e);
        float *o = dG + row * K * D + d;
        g[e] = dh * r;
        o[2 * D] = dh * (C[e] - alpha * ld(xp + e)) * r * (1.0f - r);
        const float dxh = dh * (1.0f - r) * alpha;
        if (K == 4) o[3 * D] = dxh;
        else if (dxd) dxd[e] = dxh;
    }
}

/* g[i] += src[i] (E: f32, bf16 or f16): a segment's dL/dc_{T-1} joins the last step's. */
template <typename E>
__global__ void sru_add_carry_kernel(int64_t n, const E *__restrict__ src, float *__restrict__ g)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        g[i] += ld(src + i);
}

/* After the reversed scan: g = dL/dc_t in total, da = g ⊙ c_{t-1}; then dL/dz = g(1 − f) and
 * dL/d(pre f) = (da − g·z)·f(1 − f) (f moves c_{t-1} in and z out). */
__global__ void sru_scan_back_gates_kernel(int64_t n, int64_t D, int K, const float *__restrict__ z,
                                           const float *__restrict__ F,
                                           const float *__restrict__ g,
                                           const float *__restrict__ da, float *__restrict__ dG)
{
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < n;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int64_t row = e / D, d = e - row * D;
        const float f = F[e];
        float *o = dG + row * K * D + d;
        o[0] = g[e] * (1.0f - f);
        o[D] = (da[e] - g[e] * z[e]) * f * (1.0f - f);
    }
}

/* ---- host ---------------------------------------------------------------------------------- */

/* math = 3xtf32, backward's two GEMMs from the forward's parts (of x, and of the weights as the
 * forward saw them: a step's weights do not change between its forward and backward) and dG's:
 *   d[W; Wp] = dG_hi^T x_lo + dG_lo^T x_hi + dG_hi^T x_hi (+ beta_dw · d[W; Wp])
 *   dx      = dG_hi W_lo + dG_lo W_hi + dG_hi W_hi (+ beta_dx · dx)
 * At T·B <= X3_STACK_ROWS dW is one GEMM over the stacked planes (above) and dx goes through
 * logt_gemm_f32_3planes (its three products at once where C has few tiles); above, each is
 * three TF32 products accumulating in place, and dG has two planes, not three (at D = 768,
 * T·B = 16384 a plane is 151 MB to write). */
static logt_status gemm3x_backward(logt_ctx *ctx, sru_cuda_scratch *s, int64_t N, int64_t D, int64_t I,
                                   int K, const float *dG, float beta_dw, float *dW, float *dx, float beta_dx)
{
    const int64_t KD = (int64_t)K * D;
    const int stacked = N <= X3_STACK_ROWS;
    if (!s->x3.data || logt_tensor_bytes(&s->x3) < (size_t)(3 * N * I) * sizeof(float) || !s->w3.data ||
        logt_tensor_bytes(&s->w3) < (size_t)(3 * KD * I) * sizeof(float) ||
        (stacked && (!s->xs3.data || logt_tensor_bytes(&s->xs3) < (size_t)(3 * N * I) * sizeof(float))))
        return LOGT_FAIL(LOGT_EINVAL, "sru backward (math = 3xtf32) needs the forward's split of x and of "
                         "the weights: call forward first");
    LOGT_TRY(logt_tensor_reserve(&s->g3, LOGT_CUDA, LOGT_F32, (stacked ? 3 : 2) * N * KD, NULL));
    float *g3 = (float *)s->g3.data;
    const float *x3 = (const float *)s->x3.data, *w3 = (const float *)s->w3.data;
    const int64_t ghi[2] = {0, 2 * N * KD};
    LOGT_TRY(logt_tf32_split(ctx, 1, N, KD, dG, 0, g3, KD, 0, N * KD, stacked ? 2 : 1, ghi));
    if (stacked) {
        LOGT_TRY(logt_gemm_ex(ctx, 1, 0, KD, I, 3 * N, 1.0f, LOGT_F32, g3, KD, 0, s->xs3.data, I, 0, beta_dw,
                              dW, I, 0, 1, 1));
        if (dx)
            LOGT_TRY(logt_gemm_f32_3planes(ctx, 0, 0, N, I, KD, 1.0f, g3, KD, N * KD, w3, 3 * I, I, beta_dx,
                                           dx));
        return LOGT_OK;
    }
    /* the pairs (dG_hi, lo), (dG_lo, hi), (dG_hi, hi): x3's columns I, 0, 0 and w3's 0, I, I */
    const float *gp[3] = {g3, g3 + N * KD, g3};
    const int64_t xo[3] = {I, 0, 0}, wo[3] = {0, I, I};
    for (int k = 0; k < 3; k++)
        LOGT_TRY(logt_gemm_ex(ctx, 1, 0, KD, I, N, 1.0f, LOGT_F32, gp[k], KD, 0, x3 + xo[k], 3 * I, 0,
                              k ? 1.0f : beta_dw, dW, I, 0, 1, 1));
    if (dx)
        for (int k = 0; k < 3; k++)
            LOGT_TRY(logt_gemm_ex(ctx, 0, 0, N, I, KD, 1.0f, LOGT_F32, gp[k], KD, 0, w3 + wo[k], 3 * I, 0,
                                  k ? 1.0f : beta_dx, dx, I, 0, 1, 1));
    return LOGT_OK;
}

/* The loop route's backward in dtype dt; x' is W_p x (f32) when K = 4, else x (of dt). */
static logt_status loop_backward(logt_ctx *ctx, logt_dtype dt, int64_t T, int64_t B, int64_t D, int K,
                                 const float *G, const void *xp, const float *C, const void *c0,
                                 const void *dH, const float *v, const float *bias, float alpha,
                                 float *dG, float *dxd, float *part, const void *dcT, void *dc0, int add,
                                 float *dv, float *db)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const int64_t BD = B * D;
    const int threads = sru_walk_threads(BD);
    const unsigned blocks = (unsigned)((BD + threads - 1) / threads);
    logt_by_dtype(dt, [&](auto e) {
        typedef typename decltype(e)::type E;
        if (K == 4)
            sru_backward_kernel<E, float><<<blocks, threads, 0, st>>>(T, B, D, K, G, (const float *)xp, C,
                                                                      (const E *)c0, (const E *)dH, v, bias,
                                                                      alpha, dG, dxd, part, (const E *)dcT,
                                                                      (E *)dc0);
        else
            sru_backward_kernel<E, E><<<blocks, threads, 0, st>>>(T, B, D, K, G, (const E *)xp, C, (const E *)c0,
                                                                  (const E *)dH, v, bias, alpha, dG, dxd, part,
                                                                  (const E *)dcT, (E *)dc0);
        return 0;
    });
    LAUNCH_TRY();
    sru_sum_batch_kernel<<<(unsigned)((4 * D + BLOCK - 1) / BLOCK), BLOCK, 0, st>>>(B, D, part, add,
                                                                                     dv, db);
    LAUNCH_TRY();
    return LOGT_OK;
}

/* The scan route's backward through h in dtype dt; x' is W_p x (f32) when K = 4, else x. */
static logt_status scan_back_highway(logt_ctx *ctx, logt_dtype dt, int64_t n, int64_t D, int K, const float *pr,
                                     const float *bias, float alpha, const float *C,
                                     const void *xp, const void *dH, float *g, float *dG,
                                     float *dxd)
{
    const unsigned grid = logt_cuda_grid(n, BLOCK);
    cudaStream_t st = (cudaStream_t)ctx->stream;
    logt_by_dtype(dt, [&](auto e) {
        typedef typename decltype(e)::type E;
        if (K == 4)
            sru_scan_back_highway_kernel<E, float><<<grid, BLOCK, 0, st>>>(n, D, K, pr, bias, alpha, C,
                                                                           (const float *)xp, (const E *)dH, g,
                                                                           dG, dxd);
        else
            sru_scan_back_highway_kernel<E, E><<<grid, BLOCK, 0, st>>>(n, D, K, pr, bias, alpha, C, (const E *)xp,
                                                                       (const E *)dH, g, dG, dxd);
        return 0;
    });
    LAUNCH_TRY();
    return LOGT_OK;
}

extern "C" logt_status sru_backward_cuda(sru_model *m, const logt_tensor *dh, logt_tensor *dx,
                                         logt_ctx *ctx)
{
    const logt_tensor *x = &m->x;
    const int64_t T = x->shape[0], B = x->shape[1], I = x->shape[2], D = m->base.cfg.hidden_size;
    const int64_t N = T * B, ND = N * D, BD = B * D;
    const int K = I != D ? 4 : 3;
    const logt_dtype dt = m->base.cfg.dtype;
    const float alpha = (float)m->o.alpha;
    LOGT_TRY(logt_ctx_require_cuda(ctx, "sru on cuda"));
    if (!m->gates.data || m->gates.device != LOGT_CUDA || m->gates.shape[1] != N ||
        m->gates.shape[0] != K)
        return LOGT_FAIL(LOGT_EINVAL, "sru backward needs the activations of a forward of the "
                                      "same shape: call forward first");
    if (N > INT_MAX || (int64_t)K * D > INT_MAX)
        return LOGT_FAIL(LOGT_EUNSUPPORTED, "sru backward: T·B = %lld rows or 4·D = %lld: cuBLAS "
                         "sizes are 32-bit. HINT: use a smaller T or B", (long long)N,
                         (long long)(K * D));
    LOGT_TRY(sru_check_act(dh, dt, "the gradient dh"));
    if (dx) LOGT_TRY(sru_check_act(dx, dt, "the gradient dx"));
    sru_cuda_scratch *s = NULL;
    LOGT_TRY(sru_scratch_of(m, &s));
    LOGT_TRY(logt_tensor_reserve(&s->dG, LOGT_CUDA, LOGT_F32, N * K * D, NULL));
    const float *W = sru_param(m, &m->base.w, "W");
    const float *v = m->o.v_on ? sru_param(m, &m->base.w, "v") : NULL;
    const float *bias = sru_param(m, &m->base.w, "b");
    float *dW = sru_param(m, &m->base.dw, "W");   /* d[W; Wp]: [K·D][I] */
    float *dv = v ? sru_param(m, &m->base.dw, "v") : NULL;
    float *db = sru_param(m, &m->base.dw, "b");
    const float *G = (const float *)m->gates.data, *C = (const float *)m->c.data;
    const float *X = dt == LOGT_F32 ? (const float *)x->data : (const float *)s->xf.data;
    const void *xp = K == 4 ? (const void *)(G + 3 * ND) : x->data;
    float *dG = (float *)s->dG.data;
    cudaStream_t st = (cudaStream_t)ctx->stream;

    float *dxf = NULL;   /* dx in f32: dx itself, or a scratch rounded to dt at the end */
    if (dx && dt == LOGT_F32) dxf = (float *)dx->data;
    else if (dx) {
        LOGT_TRY(logt_tensor_reserve(&s->dxf, LOGT_CUDA, LOGT_F32, N * I, NULL));
        dxf = (float *)s->dxf.data;
    }
    float *dxd = K == 3 ? dxf : NULL;   /* the highway's direct term, before the GEMM adds */
    /* a segment (recompute, model.h): dL/dc_{T-1} from the steps after it starts the walk back,
     * and the parameter gradients add to those of the segments after it */
    const void *dcT = m->base.dhT.data;
    const int add = m->base.dw_add;
    const float beta = add ? 1.0f : 0.0f;

    if (!m->o.use_scan) {
        LOGT_TRY(logt_tensor_reserve(&s->part, LOGT_CUDA, LOGT_F32, 4 * BD, NULL));
        float *part = (float *)s->part.data;
        const void *c0 = m->base.h0.data;
        void *dc0 = m->base.dh0.data;
        LOGT_TRY(loop_backward(ctx, dt, T, B, D, K, G, xp, C, c0, dh->data, v, bias, alpha, dG, dxd, part,
                               dcT, dc0, add, dv, db));
    } else {
        int fresh;
        LOGT_TRY(logt_tensor_reserve(&s->g, LOGT_CUDA, LOGT_F32, ND, NULL));
        LOGT_TRY(logt_tensor_reserve(&s->da, LOGT_CUDA, LOGT_F32, ND, NULL));
        LOGT_TRY(logt_tensor_reserve(&s->ones, LOGT_CUDA, LOGT_F32, N, &fresh));
        if (fresh) LOGT_TRY(logt_cuda_fill_f32(ctx, (float *)s->ones.data, N, 1.0f));
        float *g = (float *)s->g.data, *da = (float *)s->da.data;
        const float *F = G + ND, *pr = G + 2 * ND;
        LOGT_TRY(scan_back_highway(ctx, dt, ND, D, K, pr, bias, alpha, C, xp, dh->data, g, dG, dxd));
        if (dcT) {
            logt_by_dtype(dt, [&](auto e) {
                typedef typename decltype(e)::type E;
                sru_add_carry_kernel<E><<<logt_cuda_grid(BD, BLOCK), BLOCK, 0, st>>>(BD, (const E *)dcT,
                                                                                  g + (T - 1) * BD);
                return 0;
            });
            LAUNCH_TRY();
        }
        /* c0 and dc0 in f32 for the scan: as they are, or the forward's f32 copy / a scratch */
        const void *c0 = m->base.h0.data;
        void *dc0 = m->base.dh0.data;
        if (dt != LOGT_F32) {
            if (c0) c0 = s->c0f.data;
            if (dc0) {
                LOGT_TRY(logt_tensor_reserve(&s->dc0f, LOGT_CUDA, LOGT_F32, BD, NULL));
                dc0 = s->dc0f.data;
            }
        }
        /* g_t += f_{t+1} ⊙ g_{t+1} (in place), da_t = g_t ⊙ c_{t-1}, dc0 = f_0 ⊙ g_0 */
        LOGT_TRY(scan_backward_cuda(ctx, T, BD, LOGT_F32, F, c0, C, g, da, g, dc0));
        if (dt != LOGT_F32 && dc0)
            LOGT_TRY(sru_convert(ctx, BD, dt, m->base.dh0.data, LOGT_F32, dc0));
        sru_scan_back_gates_kernel<<<logt_cuda_grid(ND, BLOCK), BLOCK, 0, st>>>(
            ND, D, K, G, F, g, da, dG);
        LAUNCH_TRY();
        /* db = Σ_n dG[n][D .. 3D): column-major, dG is [K·D][N] with leading dimension K·D */
        const float one = 1.0f;
        CUBLAS_TRY(cublasSgemv((cublasHandle_t)ctx->cublas, CUBLAS_OP_N, (int)(2 * D), (int)N, &one,
                               dG + D, (int)(K * D), (const float *)s->ones.data, 1, &beta, db, 1));
    }

    /* the weights over the whole sequence, then the input */
    if (m->o.math == SRU_MATH_3XTF32) {
        LOGT_TRY(gemm3x_backward(ctx, s, N, D, I, K, dG, beta, dW, dx ? dxf : NULL, K == 3 ? 1.0f : 0.0f));
    } else {
        LOGT_TRY(sru_gemm(m, ctx, 1, 0, K * D, I, N, dG, 0, X, 0, beta, dW, 0, 1));
        if (dx) LOGT_TRY(sru_gemm(m, ctx, 0, 0, N, I, K * D, dG, 0, W, 0, K == 3 ? 1.0f : 0.0f, dxf, 0, 1));
    }
    if (dx && dt != LOGT_F32) LOGT_TRY(sru_convert(ctx, N * I, dt, dx->data, LOGT_F32, dxf));
    return LOGT_OK;
}
