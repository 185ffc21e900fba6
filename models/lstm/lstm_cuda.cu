/* lstm_cuda.cu — the LSTM layer on CUDA in fp32: cuBLAS GEMMs and fused pointwise kernels.
 *
 * Forward, "alternating" like cuDNN's STANDARD algorithm (shapes row-major, time-major):
 *   G[T·B][4D] = X[T·B][I] · W^T                 one GEMM for every step at once
 *   for t = 0..T-1:
 *     G_t += H_{t-1} · R^T                        one GEMM [B][D]·[D][4D]; skipped at t = 0 without h0
 *     (i f g o) = (σ σ tanh σ)(G_t + b)           one fused pointwise kernel, which also writes
 *     c_t = f⊙c_{t-1} + i⊙g,  h_t = o⊙tanh(c_t)   c_t, h_t, and the activated gates into G_t
 * Backward, its mirror image; dG[T·B][4D] holds dL/d(pre-activation) of every step:
 *   for t = T-1..0:
 *     dG_t, dc = f(dh_t + dh_rec, dc, G_t, c_t, c_{t-1})   one fused pointwise kernel
 *     dh_rec = dG_t · R                                    one GEMM [B][4D]·[4D][D] (into dh0 at t = 0)
 *   dW = dG^T X,  dR = dG[B:]^T H[:-B] (+ dG_0^T h0),  db = dG^T 1,  dx = dG W
 *
 * Cost (T steps, batch B, hidden D, input I; fp32 bytes):
 *   forward   2·T·B·4D·I (input GEMM)  +  T · (8·B·D² GEMM + ~30·B·D pointwise) flops;
 *             per step 16·D² bytes of R (L2-resident once it fits) + ~80·B·D bytes.
 *   backward  T · (8·B·D² + ~40·B·D)  +  8·T·B·D·(2I + D + 1) flops;
 *             per step 16·D² bytes of R + ~76·B·D bytes.
 *   Sequential depth O(T), two launches per step each way. At D = I = 768, B = 16,
 *   T = 1024: forward 155 GFLOP, backward 309 GFLOP, but each step is only 75 MFLOP
 *   on 9.4 MB of R, so the steps are latency-bound, not flop-bound.
 *   Memory kept by forward: gates + c, 20·T·B·D bytes; backward adds dG, 16·T·B·D bytes.
 * The step GEMMs take cuBLAS's own choice of kernel, which at small B·D is not its fastest
 * (experiments/lstm-vs-cudnn, Design notes).
 * The reference is lstm_forward_cpu / lstm_backward_cpu in lstm.c.
 */
#include <stdlib.h>

#include "../../core/cuda.h"
#include "../../core/cuda_check.cuh"
#include "../../kernels/gemm.h"
#include "lstm.h"

#define BLOCK 256

typedef struct lstm_cuda_scratch {
    logt_tensor dG;       /* [T·B·4D] pre-activation gradients of every step */
    logt_tensor dh_rec;   /* [B·D]  dL/dh_{t-1} through R, carried to step t-1 */
    logt_tensor dc;       /* [B·D]  dL/dc_t, carried to step t-1 */
    logt_tensor ones;     /* [T·B]  ones: db = dG^T · 1 */
} lstm_cuda_scratch;

__device__ __forceinline__ float sigmoid(float a) { return 1.0f / (1.0f + expf(-a)); }

/* One forward step over B·D units. G_t holds the pre-activations without b and
 * leaves holding the activated gates; unit (b, j) reads gates i f g o at
 * G_t[b][j], [D + j], [2D + j], [3D + j]. c_prev NULL means zeros. */
__global__ void lstm_forward_kernel1(float *G, const float *bias, const float *c_prev, float *c,
                                     float *h, int64_t B, int64_t D)
{
    for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < B * D;
         k += (int64_t)gridDim.x * blockDim.x) {
        int64_t b = k / D, j = k - b * D;
        float *g = G + b * 4 * D + j;
        float i = sigmoid(g[0] + bias[j]);
        float f = sigmoid(g[D] + bias[D + j]);
        float gg = tanhf(g[2 * D] + bias[2 * D + j]);
        float o = sigmoid(g[3 * D] + bias[3 * D + j]);
        float ct = f * (c_prev ? c_prev[k] : 0.0f) + i * gg;
        g[0] = i, g[D] = f, g[2 * D] = gg, g[3 * D] = o;
        c[k] = ct;
        h[k] = o * tanhf(ct);
    }
}

/* One backward step: dh_t + dh_rec and dc (= dc_{t+1}·f_{t+1}) in, dG_t out, and
 * dc replaced by dc_t·f_t for step t-1 (each unit reads, then writes, its own). */
__global__ void lstm_backward_kernel1(const float *G, const float *c, const float *c_prev,
                                      const float *dh, const float *dh_rec, float *dc, float *dG,
                                      int64_t B, int64_t D)
{
    for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < B * D;
         k += (int64_t)gridDim.x * blockDim.x) {
        int64_t b = k / D, j = k - b * D;
        const float *g = G + b * 4 * D + j;
        float *dg = dG + b * 4 * D + j;
        float i = g[0], f = g[D], gg = g[2 * D], o = g[3 * D];
        float tc = tanhf(c[k]);
        float dht = dh[k] + dh_rec[k];
        float dct = dc[k] + dht * o * (1.0f - tc * tc);
        float cp = c_prev ? c_prev[k] : 0.0f;
        dg[0] = dct * gg * i * (1.0f - i);
        dg[D] = dct * cp * f * (1.0f - f);
        dg[2 * D] = dct * i * (1.0f - gg * gg);
        dg[3 * D] = dht * tc * o * (1.0f - o);
        dc[k] = dct * f;
    }
}

/* ---- host side ----------------------------------------------------------------- */

static logt_status check_f32(const logt_tensor *t, const char *what)
{
    if (t->device != LOGT_CUDA || t->dtype != LOGT_F32)
        return LOGT_FAIL(LOGT_EINVAL, "lstm on cuda takes %s as a cuda f32 tensor, not %s %s", what,
                         logt_device_name(t->device), logt_dtype_name(t->dtype));
    return LOGT_OK;
}

static float *param(lstm_model *m, const logt_tensor *flat, const char *name)
{
    return (float *)logt_model_param(&m->base, flat, name).data;
}

extern "C" logt_status lstm_forward_cuda(lstm_model *m, const logt_tensor *x, logt_tensor *h,
                                         logt_ctx *ctx)
{
    const int64_t T = x->shape[0], B = x->shape[1], I = x->shape[2], D = m->base.cfg.hidden_size;
    LOGT_TRY(check_f32(x, "the input x"));
    LOGT_TRY(check_f32(h, "the output h"));
    LOGT_TRY(logt_tensor_ensure3(&m->gates, LOGT_CUDA, LOGT_F32, T, B, 4 * D));
    LOGT_TRY(logt_tensor_ensure3(&m->c, LOGT_CUDA, LOGT_F32, T, B, D));
    const float *W = param(m, &m->base.w, "W");   /* [4D][I] */
    const float *R = param(m, &m->base.w, "R");   /* [4D][D] */
    const float *bias = param(m, &m->base.w, "b");
    const float *h0 = (const float *)m->base.h0.data, *c0 = (const float *)m->base.c0.data;
    float *G = (float *)m->gates.data, *C = (float *)m->c.data, *H = (float *)h->data;
    cudaStream_t st = (cudaStream_t)ctx->stream;

    LOGT_TRY(logt_gemm_f32(ctx, 0, 1, T * B, 4 * D, I, 1.0f, (const float *)x->data, W, 0.0f, G));
    for (int64_t t = 0; t < T; t++) {
        float *Gt = G + t * B * 4 * D;
        const float *hp = t ? H + (t - 1) * B * D : h0;
        const float *cp = t ? C + (t - 1) * B * D : c0;
        if (hp) LOGT_TRY(logt_gemm_f32(ctx, 0, 1, B, 4 * D, D, 1.0f, hp, R, 1.0f, Gt));
        lstm_forward_kernel1<<<logt_cuda_grid(B * D, BLOCK), BLOCK, 0, st>>>(
            Gt, bias, cp, C + t * B * D, H + t * B * D, B, D);
        LAUNCH_TRY();
    }
    const size_t row = (size_t)(B * D) * sizeof(float);   /* the final state, for a segment */
    if (m->base.hT.data)
        CUDA_TRY(cudaMemcpyAsync(m->base.hT.data, H + (T - 1) * B * D, row, cudaMemcpyDeviceToDevice, st));
    if (m->base.cT.data)
        CUDA_TRY(cudaMemcpyAsync(m->base.cT.data, C + (T - 1) * B * D, row, cudaMemcpyDeviceToDevice, st));
    return LOGT_OK;
}

/* dst = src ([B·D] floats), or zeros where src is NULL. */
static logt_status copy_or_zero(float *dst, const void *src, int64_t n, cudaStream_t st)
{
    if (src) CUDA_TRY(cudaMemcpyAsync(dst, src, (size_t)n * sizeof(float), cudaMemcpyDeviceToDevice, st));
    else CUDA_TRY(cudaMemsetAsync(dst, 0, (size_t)n * sizeof(float), st));
    return LOGT_OK;
}

extern "C" logt_status lstm_backward_cuda(lstm_model *m, const logt_tensor *dh, logt_tensor *dx,
                                          logt_ctx *ctx)
{
    const logt_tensor *x = &m->x;
    const int64_t T = x->shape[0], B = x->shape[1], I = x->shape[2], D = m->base.cfg.hidden_size;
    if (!m->gates.data || m->gates.shape[0] != T || m->gates.shape[1] != B)
        return LOGT_FAIL(LOGT_EINVAL, "lstm backward needs the activations of a forward of the same "
                                      "shape: call forward first");
    LOGT_TRY(check_f32(dh, "the gradient dh"));
    if (dx) LOGT_TRY(check_f32(dx, "the gradient dx"));
    if (!m->cuda) {
        m->cuda = calloc(1, sizeof(lstm_cuda_scratch));
        if (!m->cuda) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    }
    lstm_cuda_scratch *s = (lstm_cuda_scratch *)m->cuda;
    int fresh, fresh_ones;
    LOGT_TRY(logt_tensor_reserve(&s->dG, LOGT_CUDA, LOGT_F32, T * B * 4 * D, &fresh));
    LOGT_TRY(logt_tensor_reserve(&s->dh_rec, LOGT_CUDA, LOGT_F32, B * D, &fresh));
    LOGT_TRY(logt_tensor_reserve(&s->dc, LOGT_CUDA, LOGT_F32, B * D, &fresh));
    LOGT_TRY(logt_tensor_reserve(&s->ones, LOGT_CUDA, LOGT_F32, T * B, &fresh_ones));
    cudaStream_t st = (cudaStream_t)ctx->stream;
    if (fresh_ones) LOGT_TRY(logt_cuda_fill_f32(ctx, (float *)s->ones.data, s->ones.numel, 1.0f));
    const float *W = param(m, &m->base.w, "W"), *R = param(m, &m->base.w, "R");
    float *dW = param(m, &m->base.dw, "W"), *dR = param(m, &m->base.dw, "R");
    float *db = param(m, &m->base.dw, "b");
    const float *X = (const float *)x->data, *H = (const float *)m->h.data;
    const float *G = (const float *)m->gates.data, *C = (const float *)m->c.data;
    const float *dH = (const float *)dh->data;
    const float *h0 = (const float *)m->base.h0.data, *c0 = (const float *)m->base.c0.data;
    float *dh0 = (float *)m->base.dh0.data, *dc0 = (float *)m->base.dc0.data;
    float *dG = (float *)s->dG.data, *dh_rec = (float *)s->dh_rec.data, *dc = (float *)s->dc.data;

    /* the carries start from dL/d(final state) where a segment has one (dhT, dcT) */
    LOGT_TRY(copy_or_zero(dh_rec, m->base.dhT.data, B * D, st));
    LOGT_TRY(copy_or_zero(dc, m->base.dcT.data, B * D, st));
    for (int64_t t = T - 1; t >= 0; t--) {
        float *dGt = dG + t * B * 4 * D;
        const float *cp = t ? C + (t - 1) * B * D : c0;
        lstm_backward_kernel1<<<logt_cuda_grid(B * D, BLOCK), BLOCK, 0, st>>>(
            G + t * B * 4 * D, C + t * B * D, cp, dH + t * B * D, dh_rec, dc, dGt, B, D);
        LAUNCH_TRY();
        float *into = t ? dh_rec : dh0;   /* at t = 0 this is dL/dh0, when asked for */
        if (into) LOGT_TRY(logt_gemm_f32(ctx, 0, 0, B, D, 4 * D, 1.0f, dGt, R, 0.0f, into));
    }
    if (dc0) CUDA_TRY(cudaMemcpyAsync(dc0, dc, (size_t)(B * D) * sizeof(float),
                                      cudaMemcpyDeviceToDevice, st));

    /* The parameter gradients: every step at once, sums over T·B rows (chunked where the
     * product is small and the sum long: logt_gemm_f32_tn_long). */
    const int64_t G4 = 4 * D;
    const float beta = m->base.dw_add ? 1.0f : 0.0f;   /* a segment adds to the others' */
    LOGT_TRY(logt_gemm_f32_tn_long(ctx, G4, I, T * B, 1.0f, dG, G4, X, I, beta, dW));
    if (T > 1 || !m->base.dw_add)
        LOGT_TRY(logt_gemm_f32_tn_long(ctx, G4, D, (T - 1) * B, 1.0f, dG + B * G4, G4, H, D, beta, dR));
    if (h0) LOGT_TRY(logt_gemm_f32_tn_long(ctx, G4, D, B, 1.0f, dG, G4, h0, D, 1.0f, dR));
    LOGT_TRY(logt_gemm_f32_tn_long(ctx, G4, 1, T * B, 1.0f, dG, G4, (const float *)s->ones.data, 1,
                                   beta, db));
    if (dx) LOGT_TRY(logt_gemm_f32(ctx, 0, 0, T * B, I, 4 * D, 1.0f, dG, W, 0.0f, (float *)dx->data));
    return LOGT_OK;
}

extern "C" void lstm_free_cuda(lstm_model *m)
{
    lstm_cuda_scratch *s = (lstm_cuda_scratch *)m->cuda;
    if (!s) return;
    logt_tensor_free(&s->dG);
    logt_tensor_free(&s->dh_rec);
    logt_tensor_free(&s->dc);
    logt_tensor_free(&s->ones);
    free(s);
    m->cuda = NULL;
}
