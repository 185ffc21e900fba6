/* gilr_cuda.cu — gilr and gilr-lstm on CUDA: the equations of gilr.h, the CPU reference's
 * steps (gilr.c) on the GPU, fp32 arithmetic. Shapes: T steps, B batch, I input, D hidden,
 * N = T·B rows, a "plane" is one [T][B][D] = [N][D] array, the [T][C] (C = B·D) of a scan.
 *
 * gilr-lstm runs two GEMMs over all rows, a pointwise pass, the surrogate's scan, one GEMM
 * for every step's U h̃_{t-1}, a pointwise pass, the cell's scan and h (the forward's
 * diagram above gilr_lstm_forward_cuda; the backward, its mirror, above
 * gilr_lstm_backward_cuda); gilr is the surrogate part alone, its state written to h.
 * Bias gradients: a two-pass column sum (blocks of 32 columns × 8 rows sum a chunk of rows
 * each, then one thread per column adds the chunks in order): deterministic, no atomics.
 * Nothing steps through T except inside the scans.
 * Segments (recompute, model.h): forward writes the final states (gilr h, gilr-lstm h̃ and
 * c) to hT, cT in the model's dtype; backward adds dhT, dcT to the last row of its scans'
 * dL/dh and sums its weight gradients with beta = 1 when dw_add.
 *
 * dtype: f32, or bf16 or f16 at the interface (x, h, dh, dx, h0, c0, dh0, dc0 are 16-bit, read
 * and written by the kernels that touch them). Inside, everything is f32: the GEMMs are fp32
 * (kernels/gemm.h) and so are the saved planes and the scans. 16-bit x is converted once
 * into an f32 copy kept for backward, dx is accumulated in f32 and converted at the end.
 *
 * Cost per gilr-lstm layer: GEMM flops forward 12·N·D·I + 8·N·D², backward twice that;
 * pointwise 23 planes moved forward, 37 backward (gilr: 4·N·D·I flops and 8 planes forward,
 * twice the flops and 14 planes backward). Memory: forward keeps 8 f32 planes a gilr-lstm
 * layer (S 2, h̃ 1, G 4, c 1; gilr: 2), backward adds 5 (dA 4, dh̃ 1; gilr: 2), reused while
 * the shape holds. The bounds at Martin & Cundy's shape: experiments/gilr-vs-lstm/README.md,
 * Design notes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/cuda.h"
#include "../../core/cuda_check.cuh"
#include "../../core/elem.cuh"
#include "../../kernels/gemm.h"
#include "../../kernels/scan.h"
#include "gilr.h"

#define BLOCK 256
#define CS_Y 8                /* rows per block of the column sum's first pass */
#define CS_MAX_CHUNKS 1024    /* its row chunks: partials [K][chunks][D] */
#define CS_MIN_ROWS 64

typedef struct gilr_cuda_scratch {
    logt_tensor x32;    /* [N·I] 16-bit models: the input in f32, kept for backward          */
    logt_tensor dx32;   /* [N·I] 16-bit models: dx accumulated in f32                        */
    logt_tensor dpre;   /* [K][N][D] pre-activation gradients (K = 2 gilr, 4 gilr-lstm)      */
    logt_tensor dhs;    /* gilr-lstm: [T+1][B][D] dL/dh̃ through U, row t is dL/dh̃_{t-1}    */
    logt_tensor st;     /* [4][B·D] f32 h0, c0, dh0, dc0 (16-bit states; the gradients always) */
    logt_tensor part;   /* column-sum partials                                               */
} gilr_cuda_scratch;

enum { ST_H0, ST_C0, ST_DH0, ST_DC0 };

#define FOR_EACH(e, n)                                                                         \
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < (n);                  \
         e += (int64_t)gridDim.x * blockDim.x)

/* Device code in an unnamed namespace: kernel names stay private to this file. */
namespace {


/* ---- kernels: forward ------------------------------------------------------------------ */

/* The GILR's activations in place: g = σ(g + bg), imp = tanh(imp + bi), and the scan's
 * input b = (1 − g) ⊙ imp. Element e of a plane is unit j = e mod D. */
__global__ void gilr_act_kernel(int64_t n, int64_t D, float *g, float *imp, const float *bias,
                                float *b)
{
    FOR_EACH(e, n) {
        int64_t j = e % D;
        float gv = sigmoid(g[e] + bias[j]), iv = tanhf(imp[e] + bias[D + j]);
        g[e] = gv, imp[e] = iv;
        if (b) b[e] = (1.0f - gv) * iv;
    }
}

/* The LSTM gates in place, planes i f z o at G + k·n: activated, and c ← i ⊙ z. */
__global__ void gates_act_kernel(int64_t n, int64_t D, float *G, const float *bias, float *c)
{
    FOR_EACH(e, n) {
        int64_t j = e % D;
        float i = sigmoid(G[e] + bias[j]), f = sigmoid(G[n + e] + bias[D + j]);
        float z = tanhf(G[2 * n + e] + bias[2 * D + j]), o = sigmoid(G[3 * n + e] + bias[3 * D + j]);
        G[e] = i, G[n + e] = f, G[2 * n + e] = z, G[3 * n + e] = o;
        c[e] = i * z;
    }
}

template <typename E> __global__ void out_kernel(int64_t n, const float *o, const float *c, E *h)
{
    FOR_EACH(e, n) st(h + e, o[e] * c[e]);
}

template <typename To, typename From>
__global__ void convert_kernel(int64_t n, const From *src, To *dst)
{
    FOR_EACH(e, n) st(dst + e, ld(src + e));
}

/* ---- kernels: backward ----------------------------------------------------------------- */

/* Through the GILR's activations: dg = dL/da, dimp = dL/db of its scan on entry; the
 * gradients of the two pre-activations on exit. b = (1 − g) ⊙ imp, so g is both a and in b. */
__global__ void gilr_act_backward_kernel(int64_t n, const float *g, const float *imp, float *dg,
                                         float *dimp)
{
    FOR_EACH(e, n) {
        float gv = g[e], iv = imp[e], gb = dimp[e];
        float dgate = dg[e] - gb * iv, dimpulse = gb * (1.0f - gv);
        dg[e] = dgate * gv * (1.0f - gv);
        dimp[e] = dimpulse * (1.0f - iv * iv);
    }
}

/* h = o ⊙ c: dL/d(o's pre-activation) into dAo, dL/dc (directly from h) into e. */
template <typename E>
__global__ void out_backward_kernel(int64_t n, const E *dh, const float *c, const float *o,
                                    float *dAo, float *ec)
{
    FOR_EACH(e, n) {
        float d = ld(dh + e), ov = o[e];
        dAo[e] = d * c[e] * ov * (1.0f - ov);
        ec[e] = d * ov;
    }
}

/* Through i f z (planes of G): on entry dA's plane 1 holds dL/df and plane 2 dL/d(i ⊙ z),
 * both from the cell scan's backward; on exit planes 0-2 hold the pre-activation gradients. */
__global__ void gates_backward_kernel(int64_t n, const float *G, float *dA)
{
    FOR_EACH(e, n) {
        float i = G[e], f = G[n + e], z = G[2 * n + e], diz = dA[2 * n + e];
        dA[e] = diz * z * i * (1.0f - i);
        dA[n + e] = dA[n + e] * f * (1.0f - f);
        dA[2 * n + e] = diz * i * (1.0f - z * z);
    }
}

/* acc[e] += src[e] (E: the state's dtype): a segment's dL/d(final state) joins the last row
 * of a scan's dL/dh. */
template <typename E> __global__ void add_state_kernel(int64_t n, const E *src, float *acc)
{
    FOR_EACH(e, n) acc[e] += ld(src + e);
}

/* out = a (+ b when given), into the state's dtype: dh0, dc0. */
template <typename E> __global__ void state_grad_kernel(int64_t n, const float *a, const float *b, E *out)
{
    FOR_EACH(e, n) st(out + e, a[e] + (b ? b[e] : 0.0f));
}

/* Column sums, pass 1: block (x, chunk, k) sums rows [chunk·L, chunk·L + L) of columns
 * 32x..32x+31 of plane k (A + k·plane, [R][Cn]); threadIdx.y strides the rows, a warp reads
 * 32 consecutive columns of one row. */
__global__ void colsum_partial_kernel(const float *A, int64_t plane, int64_t R, int64_t Cn,
                                      int64_t L, float *part)
{
    __shared__ float s[CS_Y][33];
    int64_t c = blockIdx.x * 32 + threadIdx.x, chunk = blockIdx.y, k = blockIdx.z;
    int64_t r0 = chunk * L, r1 = r0 + L < R ? r0 + L : R;
    const float *Ak = A + k * plane;
    float acc = 0.0f;
    if (c < Cn)
        for (int64_t r = r0 + threadIdx.y; r < r1; r += CS_Y) acc += Ak[r * Cn + c];
    s[threadIdx.y][threadIdx.x] = acc;
    __syncthreads();
    if (threadIdx.y == 0 && c < Cn) {
        for (int y = 1; y < CS_Y; y++) acc += s[y][threadIdx.x];
        part[(k * gridDim.y + chunk) * Cn + c] = acc;
    }
}

}   /* namespace */

/* ---- host side -------------------------------------------------------------------------- */

/* bf16 or f16 activations: f32 copies of x and the states, f32 planes, conversions at the ends */
static int is_16bit(const gilr_model *m) { return m->base.cfg.dtype != LOGT_F32; }

static logt_status check_act(const gilr_model *m, const logt_tensor *t, const char *what)
{
    if (t->device != LOGT_CUDA || t->dtype != m->base.cfg.dtype)
        return LOGT_FAIL(LOGT_EINVAL, "%s on cuda takes %s as a cuda %s tensor, not %s %s",
                         m->base.cfg.model, what, logt_dtype_name(m->base.cfg.dtype),
                         logt_device_name(t->device), logt_dtype_name(t->dtype));
    return LOGT_OK;
}

static logt_status check_ctx(const gilr_model *m, const logt_ctx *ctx)
{
    return logt_ctx_require_cuda(ctx, m->base.cfg.model);
}

static logt_status scratch_of(gilr_model *m, int64_t B, int64_t D, gilr_cuda_scratch **out)
{
    if (!m->cuda) {
        m->cuda = calloc(1, sizeof(gilr_cuda_scratch));
        if (!m->cuda) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    }
    gilr_cuda_scratch *s = (gilr_cuda_scratch *)m->cuda;
    LOGT_TRY(logt_tensor_reserve(&s->st, LOGT_CUDA, LOGT_F32, 4 * B * D, NULL));
    *out = s;
    return LOGT_OK;
}

static float *slot(gilr_cuda_scratch *s, int k, int64_t BD) { return (float *)s->st.data + k * BD; }

static float *param(gilr_model *m, const logt_tensor *flat, const char *name)
{
    return (float *)logt_model_param(&m->base, flat, name).data;
}

/* dst[n] (f32) = src (the model's dtype), on the stream. */
static logt_status to_f32(gilr_model *m, cudaStream_t st, const void *src, float *dst, int64_t n)
{
    if (!is_16bit(m)) {
        CUDA_TRY(cudaMemcpyAsync(dst, src, (size_t)n * sizeof(float), cudaMemcpyDeviceToDevice, st));
        return LOGT_OK;
    }
    logt_by_dtype(m->base.cfg.dtype, [&](auto e) {
        typedef typename decltype(e)::type E;
        convert_kernel<<<logt_cuda_grid(n, BLOCK), BLOCK, 0, st>>>(n, (const E *)src, dst);
        return 0;
    });
    LAUNCH_TRY();
    return LOGT_OK;
}

/* dst[n] (the model's dtype) = src (f32) + add (f32, or NULL). */
static logt_status from_f32(gilr_model *m, cudaStream_t st, const float *src, const float *add,
                            void *dst, int64_t n)
{
    logt_by_dtype(m->base.cfg.dtype, [&](auto e) {
        typedef typename decltype(e)::type E;
        state_grad_kernel<<<logt_cuda_grid(n, BLOCK), BLOCK, 0, st>>>(n, src, add, (E *)dst);
        return 0;
    });
    LAUNCH_TRY();
    return LOGT_OK;
}

/* The input as f32: x itself, or (16-bit) its copy converted into s->x32. Forward only. */
static logt_status input_f32(gilr_model *m, gilr_cuda_scratch *s, cudaStream_t st,
                             const logt_tensor *x, const float **out)
{
    if (!is_16bit(m)) {
        *out = (const float *)x->data;
        return LOGT_OK;
    }
    LOGT_TRY(logt_tensor_reserve(&s->x32, LOGT_CUDA, LOGT_F32, x->numel, NULL));
    LOGT_TRY(to_f32(m, st, x->data, (float *)s->x32.data, x->numel));
    *out = (const float *)s->x32.data;
    return LOGT_OK;
}

/* The same f32 input again, in backward. */
static const float *saved_input(gilr_model *m)
{
    gilr_cuda_scratch *s = (gilr_cuda_scratch *)m->cuda;
    return is_16bit(m) ? (const float *)s->x32.data : (const float *)m->x.data;
}

/* A segment's final state (recompute, model.h): row `row` of the f32 array A [..][B·D] into
 * out's data, in the model's dtype; nothing when out has none. */
static logt_status final_state(gilr_model *m, cudaStream_t st, const float *A, int64_t row, int64_t BD,
                               const logt_tensor *out)
{
    if (!out->data) return LOGT_OK;
    if (!is_16bit(m)) {
        CUDA_TRY(cudaMemcpyAsync(out->data, A + row * BD, (size_t)BD * sizeof(float),
                                 cudaMemcpyDeviceToDevice, st));
        return LOGT_OK;
    }
    return from_f32(m, st, A + row * BD, NULL, out->data, BD);
}

/* acc [B·D] f32 += a segment's dL/d(final state) t (the model's dtype), unless t has no data. */
static logt_status add_state(gilr_model *m, cudaStream_t st, const logt_tensor *t, float *acc, int64_t BD)
{
    if (!t->data) return LOGT_OK;
    logt_by_dtype(m->base.cfg.dtype, [&](auto e) {
        typedef typename decltype(e)::type E;
        add_state_kernel<<<logt_cuda_grid(BD, BLOCK), BLOCK, 0, st>>>(BD, (const E *)t->data, acc);
        return 0;
    });
    LAUNCH_TRY();
    return LOGT_OK;
}

/* A state h0/c0 as f32: NULL (zeros), the tensor itself (f32), or its copy in slot k. */
static logt_status state_f32(gilr_model *m, gilr_cuda_scratch *s, cudaStream_t st,
                             const logt_tensor *t, int k, int64_t BD, const float **out)
{
    *out = NULL;
    if (!t->data) return LOGT_OK;
    if (!is_16bit(m)) {
        *out = (const float *)t->data;
        return LOGT_OK;
    }
    LOGT_TRY(to_f32(m, st, t->data, slot(s, k, BD), BD));
    *out = slot(s, k, BD);
    return LOGT_OK;
}

static const float *saved_state(gilr_model *m, const logt_tensor *t, int k, int64_t BD)
{
    if (!t->data) return NULL;
    return is_16bit(m) ? slot((gilr_cuda_scratch *)m->cuda, k, BD) : (const float *)t->data;
}

/* out[k][Cn] = column sums of the K planes [R][Cn] at A + k·plane (+= when add: a segment's
 * share): colsum_partial_kernel's chunk partials, added by logt_sum_partials_f32 (gemm.h). */
static logt_status colsum(logt_ctx *ctx, gilr_cuda_scratch *s, const float *A, int64_t plane,
                          int64_t R, int64_t Cn, int64_t K, int add, float *out)
{
    int64_t nchunks = (R + CS_MIN_ROWS - 1) / CS_MIN_ROWS;
    if (nchunks > CS_MAX_CHUNKS) nchunks = CS_MAX_CHUNKS;
    int64_t L = (R + nchunks - 1) / nchunks;
    LOGT_TRY(logt_tensor_reserve(&s->part, LOGT_CUDA, LOGT_F32, K * nchunks * Cn, NULL));
    cudaStream_t st = (cudaStream_t)ctx->stream;
    dim3 grid((unsigned)((Cn + 31) / 32), (unsigned)nchunks, (unsigned)K), block(32, CS_Y);
    colsum_partial_kernel<<<grid, block, 0, st>>>(A, plane, R, Cn, L, (float *)s->part.data);
    LAUNCH_TRY();
    return logt_sum_partials_f32(ctx, Cn, nchunks, K, (const float *)s->part.data, 1.0f, add ? 1.0f : 0.0f, out);
}

/* dW_k [D][I] = dP_k^T · X over the K planes dP [K][N][D], X [N][I]: a sum over all N = T·B
 * rows. When D·I is small (Martin & Cundy's first layer reads I = 4 features; the recurrent
 * weights U are D × D) the product has few outputs, which cuBLAS alone spreads over few SMs
 * however long N is: logt_gemm_f32_tn_long cuts the rows into chunks then (experiments/
 * gilr-vs-lstm, Design notes). beta = 1 adds to dW (a segment's share). */
static logt_status wgrad(logt_ctx *ctx, int64_t N, int64_t D, int64_t I, int64_t K, const float *dP,
                         const float *X, float beta, float *dW)
{
    for (int64_t k = 0; k < K; k++)
        LOGT_TRY(logt_gemm_f32_tn_long(ctx, D, I, N, 1.0f, dP + k * N * D, D, X, I, beta, dW + k * D * I));
    return LOGT_OK;
}

/* dx (f32 target) += Σ_k dP_k · W_k over K planes; beta0 = 0 starts it afresh. */
static logt_status dx_gemms(logt_ctx *ctx, int64_t N, int64_t I, int64_t D, int64_t K,
                            const float *dP, const float *W, float beta0, float *dx)
{
    for (int64_t k = 0; k < K; k++)
        LOGT_TRY(logt_gemm_f32(ctx, 0, 0, N, I, D, 1.0f, dP + k * N * D, W + k * D * I,
                               k ? 1.0f : beta0, dx));
    return LOGT_OK;
}

/* The knob scan = serial: the recurrences by Martin & Cundy's serial kernel instead. */
static int serial(const gilr_model *m)
{
    return !strcmp(logt_cfg_knob(&m->base.cfg, "scan", "parallel"), "serial");
}

static logt_status fscan(gilr_model *m, logt_ctx *ctx, int64_t T, int64_t C, const float *a,
                         const float *b, const float *h0, float *h)
{
    return serial(m) ? scan_cuda_serial(ctx, 0, T, C, LOGT_F32, a, b, h0, h)
                     : scan_cuda(ctx, 0, T, C, LOGT_F32, a, b, h0, h);
}

static logt_status bscan(gilr_model *m, logt_ctx *ctx, int64_t T, int64_t C, const float *a,
                         const float *h0, const float *h, const float *dh, float *da, float *db,
                         float *dh0)
{
    return serial(m) ? scan_backward_cuda_serial(ctx, T, C, LOGT_F32, a, h0, h, dh, da, db, dh0)
                     : scan_backward_cuda(ctx, T, C, LOGT_F32, a, h0, h, dh, da, db, dh0);
}

static void set_impl(gilr_model *m, int64_t T, int64_t C, int nscans)
{
    snprintf(m->base.impl, sizeof m->base.impl,
             "cuda %s%s: whole-sequence fp32 cuBLAS GEMMs, fused pointwise, %d linear scan%s "
             "(%s)",
             logt_dtype_name(m->base.cfg.dtype), is_16bit(m) ? " x/h, f32 inside" : "", nscans, nscans > 1 ? "s" : "",
             serial(m) ? "scan = serial: scan_cuda_serial" : scan_cuda_route(T, C, LOGT_F32));
}

static logt_status check_forward(gilr_model *m, const logt_tensor *x, const logt_tensor *h,
                                 logt_ctx *ctx)
{
    LOGT_TRY(check_ctx(m, ctx));
    LOGT_TRY(check_act(m, x, "the input x"));
    return check_act(m, h, "the output h");
}

static logt_status check_backward(gilr_model *m, const logt_tensor *dh, const logt_tensor *dx,
                                  logt_ctx *ctx)
{
    const logt_tensor *x = &m->x;
    if (!m->cuda || !m->sur.data || m->sur.shape[1] != x->shape[0] * x->shape[1])
        return LOGT_FAIL(LOGT_EINVAL, "%s backward needs the activations of a forward of the "
                                      "same shape: call forward first", m->base.cfg.model);
    LOGT_TRY(check_ctx(m, ctx));
    LOGT_TRY(check_act(m, dh, "the gradient dh"));
    if (dx) LOGT_TRY(check_act(m, dx, "the gradient dx"));
    return LOGT_OK;
}

/* What both forwards start with: checks, the scratch, the GILR planes [2][T·B][D]. */
static logt_status forward_begin(gilr_model *m, const logt_tensor *x, const logt_tensor *h,
                                 logt_ctx *ctx, gilr_cuda_scratch **s)
{
    const int64_t D = m->base.cfg.hidden_size;
    LOGT_TRY(check_forward(m, x, h, ctx));
    LOGT_TRY(scratch_of(m, x->shape[1], D, s));
    return logt_tensor_ensure3(&m->sur, LOGT_CUDA, LOGT_F32, 2, x->shape[0] * x->shape[1], D);
}

/* ---- gilr ------------------------------------------------------------------------------- */

/* The activated gate g and impulse i of N rows of X [N][I] into m->sur's planes, and, unless b
 * is NULL, the scan's input (1 − g) ⊙ i into b [N][D] (gilr_planes of gilr.c). */
static logt_status gilr_planes(gilr_model *m, logt_ctx *ctx, int64_t N, int64_t I, const float *X, float *b)
{
    const int64_t D = m->base.cfg.hidden_size, ND = N * D;
    float *P = (float *)m->sur.data;
    LOGT_TRY(logt_gemm_f32_batched(ctx, 0, 1, N, D, I, 1.0f, X, 0, param(m, &m->base.w, "W"), D * I, 0.0f, P, ND, 2));
    gilr_act_kernel<<<logt_cuda_grid(ND, BLOCK), BLOCK, 0, (cudaStream_t)ctx->stream>>>(
        ND, D, P, P + ND, param(m, &m->base.w, "b"), b);
    LAUNCH_TRY();
    return LOGT_OK;
}

extern "C" logt_status gilr_forward_cuda(gilr_model *m, const logt_tensor *x, logt_tensor *h,
                                         logt_ctx *ctx)
{
    const int64_t T = x->shape[0], B = x->shape[1], I = x->shape[2], D = m->base.cfg.hidden_size;
    const int64_t N = T * B, ND = N * D, BD = B * D;
    gilr_cuda_scratch *s = NULL;
    LOGT_TRY(forward_begin(m, x, h, ctx, &s));
    cudaStream_t st = (cudaStream_t)ctx->stream;
    float *Hs = (float *)h->data;   /* the state, in f32: h itself, or a plane of its own */
    if (is_16bit(m)) {
        LOGT_TRY(logt_tensor_ensure3(&m->hs, LOGT_CUDA, LOGT_F32, T, B, D));
        Hs = (float *)m->hs.data;
    }
    const float *X, *h0;
    LOGT_TRY(input_f32(m, s, st, x, &X));
    LOGT_TRY(state_f32(m, s, st, &m->base.h0, ST_H0, BD, &h0));
    float *P = (float *)m->sur.data;   /* planes g, i */
    LOGT_TRY(gilr_planes(m, ctx, N, I, X, Hs));
    LOGT_TRY(fscan(m, ctx, T, BD, P, Hs, h0, Hs));
    if (is_16bit(m)) LOGT_TRY(from_f32(m, st, Hs, NULL, h->data, ND));
    LOGT_TRY(final_state(m, st, Hs, T - 1, BD, &m->base.hT));
    set_impl(m, T, BD, 1);
    return LOGT_OK;
}

/* f32 gilr: the planes of x again (the GEMM and the activations, not the scan), for a backward
 * whose states m->h already holds. */
extern "C" logt_status gilr_restore_cuda(gilr_model *m, const logt_tensor *x, logt_ctx *ctx)
{
    gilr_cuda_scratch *s = NULL;
    LOGT_TRY(forward_begin(m, x, &m->h, ctx, &s));
    if (is_16bit(m))
        return LOGT_FAIL(LOGT_EUNSUPPORTED, "gilr restore: %s activations keep f32 states apart from h; "
                         "run the forward", logt_dtype_name(m->base.cfg.dtype));
    const float *X;
    LOGT_TRY(input_f32(m, s, (cudaStream_t)ctx->stream, x, &X));
    return gilr_planes(m, ctx, x->shape[0] * x->shape[1], x->shape[2], X, NULL);
}

extern "C" logt_status gilr_backward_cuda(gilr_model *m, const logt_tensor *dh, logt_tensor *dx,
                                          logt_ctx *ctx)
{
    LOGT_TRY(check_backward(m, dh, dx, ctx));
    const int64_t T = m->x.shape[0], B = m->x.shape[1], I = m->x.shape[2];
    const int64_t D = m->base.cfg.hidden_size, N = T * B, ND = N * D, BD = B * D;
    gilr_cuda_scratch *s = NULL;
    LOGT_TRY(scratch_of(m, B, D, &s));
    LOGT_TRY(logt_tensor_reserve(&s->dpre, LOGT_CUDA, LOGT_F32, 2 * ND, NULL));
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const float *X = saved_input(m), *P = (const float *)m->sur.data;
    const float *Hs = is_16bit(m) ? (const float *)m->hs.data : (const float *)m->h.data;
    const float *h0 = saved_state(m, &m->base.h0, ST_H0, BD);
    const float *W = param(m, &m->base.w, "W");
    float *dW = param(m, &m->base.dw, "W"), *db = param(m, &m->base.dw, "b");
    float *dP = (float *)s->dpre.data;   /* planes dg, di */
    float *dh0 = m->base.dh0.data ? slot(s, ST_DH0, BD) : NULL;

    /* the scan's backward wants dh in f32: 16-bit dh is converted into the plane it overwrites;
     * a segment's dL/dh_{T-1} from the steps after it (dhT) is added to its last row there */
    const float *dH = (const float *)dh->data;
    const int add = m->base.dw_add;   /* a segment adds to the gradients of those after it */
    if (is_16bit(m) || m->base.dhT.data) {
        LOGT_TRY(to_f32(m, st, dh->data, dP + ND, ND));
        LOGT_TRY(add_state(m, st, &m->base.dhT, dP + ND + (T - 1) * BD, BD));
        dH = dP + ND;
    }
    LOGT_TRY(bscan(m, ctx, T, BD, P, h0, Hs, dH, dP, dP + ND, dh0));
    gilr_act_backward_kernel<<<logt_cuda_grid(ND, BLOCK), BLOCK, 0, st>>>(ND, P, P + ND, dP,
                                                                          dP + ND);
    LAUNCH_TRY();

    LOGT_TRY(wgrad(ctx, N, D, I, 2, dP, X, add ? 1.0f : 0.0f, dW));
    LOGT_TRY(colsum(ctx, s, dP, ND, N, D, 2, add, db));
    if (dx) {
        float *dX = (float *)dx->data;
        if (is_16bit(m)) {
            LOGT_TRY(logt_tensor_reserve(&s->dx32, LOGT_CUDA, LOGT_F32, N * I, NULL));
            dX = (float *)s->dx32.data;
        }
        LOGT_TRY(dx_gemms(ctx, N, I, D, 2, dP, W, 0.0f, dX));
        if (is_16bit(m)) LOGT_TRY(from_f32(m, st, dX, NULL, dx->data, N * I));
    }
    if (dh0) LOGT_TRY(from_f32(m, st, dh0, NULL, m->base.dh0.data, BD));
    return LOGT_OK;
}

/* ---- gilr-lstm ---------------------------------------------------------------------------- */

/* Forward (gilr-lstm; gilr is the surrogate part alone, its state written to h):
 *   S[k] = X · Ws_k^T, G[k] = X · W_k^T          two strided-batched GEMMs over all N rows
 *                                                 (2 and 4 planes; a single [6D][I] product
 *                                                 would need W next to Ws in the layout,
 *                                                 and bs sits between them)
 *   g, j = σ, tanh(S + bs);  b = (1−g)⊙j          fused pointwise, b into h̃ rows 1..T
 *   h̃ = scan(a = g, b) from h̃_{-1}                scan_cuda; h̃ lives in hs [T+1][B][D] whose
 *                                                 row 0 is h̃_{-1} (h0, or zeros), so rows
 *                                                 0..T-1 are h̃_{t-1} of every step t:
 *   G[k] += hs[0..T) · U_k^T                      ONE strided-batched GEMM, h0 term included
 *   i f z o = σ σ tanh σ(G + b);  c ← i⊙z         fused pointwise (activations in place)
 *   c = scan(a = f, b = i⊙z) from c0;  h = o⊙c    scan_cuda, then a pointwise pass */
extern "C" logt_status gilr_lstm_forward_cuda(gilr_model *m, const logt_tensor *x, logt_tensor *h,
                                              logt_ctx *ctx)
{
    const int64_t T = x->shape[0], B = x->shape[1], I = x->shape[2], D = m->base.cfg.hidden_size;
    const int64_t N = T * B, ND = N * D, BD = B * D;
    gilr_cuda_scratch *s = NULL;
    LOGT_TRY(forward_begin(m, x, h, ctx, &s));
    cudaStream_t st = (cudaStream_t)ctx->stream;
    LOGT_TRY(logt_tensor_ensure3(&m->hs, LOGT_CUDA, LOGT_F32, T + 1, B, D));
    LOGT_TRY(logt_tensor_ensure3(&m->gates, LOGT_CUDA, LOGT_F32, 4, N, D));
    LOGT_TRY(logt_tensor_ensure3(&m->c, LOGT_CUDA, LOGT_F32, T, B, D));
    const float *Ws = param(m, &m->base.w, "Ws"), *bs = param(m, &m->base.w, "bs");
    const float *W = param(m, &m->base.w, "W"), *U = param(m, &m->base.w, "U");
    const float *bias = param(m, &m->base.w, "b");
    float *S = (float *)m->sur.data, *Hs = (float *)m->hs.data;   /* Hs: row 0 is h̃_{-1} */
    float *G = (float *)m->gates.data, *C = (float *)m->c.data;
    const float *X, *c0;
    LOGT_TRY(input_f32(m, s, st, x, &X));
    LOGT_TRY(state_f32(m, s, st, &m->base.c0, ST_C0, BD, &c0));
    if (m->base.h0.data) LOGT_TRY(to_f32(m, st, m->base.h0.data, Hs, BD));
    else CUDA_TRY(cudaMemsetAsync(Hs, 0, (size_t)BD * sizeof(float), st));

    /* 1. the surrogate h̃, and the input part of the LSTM pre-activations */
    LOGT_TRY(logt_gemm_f32_batched(ctx, 0, 1, N, D, I, 1.0f, X, 0, Ws, D * I, 0.0f, S, ND, 2));
    LOGT_TRY(logt_gemm_f32_batched(ctx, 0, 1, N, D, I, 1.0f, X, 0, W, D * I, 0.0f, G, ND, 4));
    gilr_act_kernel<<<logt_cuda_grid(ND, BLOCK), BLOCK, 0, st>>>(ND, D, S, S + ND, bs, Hs + BD);
    LAUNCH_TRY();
    LOGT_TRY(fscan(m, ctx, T, BD, S, Hs + BD, Hs, Hs + BD));

    /* 2. every step's U h̃_{t-1} at once: rows 0..T-1 of Hs are h̃_{-1..T-2} */
    LOGT_TRY(logt_gemm_f32_batched(ctx, 0, 1, N, D, D, 1.0f, Hs, 0, U, D * D, 1.0f, G, ND, 4));

    /* 3. gates, the cell scan, h = o ⊙ c */
    gates_act_kernel<<<logt_cuda_grid(ND, BLOCK), BLOCK, 0, st>>>(ND, D, G, bias, C);
    LAUNCH_TRY();
    LOGT_TRY(fscan(m, ctx, T, BD, G + ND, C, c0, C));
    logt_by_dtype(m->base.cfg.dtype, [&](auto e) {
        typedef typename decltype(e)::type E;
        out_kernel<<<logt_cuda_grid(ND, BLOCK), BLOCK, 0, st>>>(ND, G + 3 * ND, C, (E *)h->data);
        return 0;
    });
    LAUNCH_TRY();
    LOGT_TRY(final_state(m, st, Hs, T, BD, &m->base.hT));   /* h̃_{T-1}: row T of Hs */
    LOGT_TRY(final_state(m, st, C, T - 1, BD, &m->base.cT));
    set_impl(m, T, BD, 2);
    return LOGT_OK;
}

/* Backward, its mirror (dA [4][N][D] pre-activation gradients, dS reuses its planes 0-1):
 *   dA_o = dh⊙c⊙o(1−o), e = dh⊙o                  pointwise
 *   scan_backward_cuda(f, c0, c, e) → dL/df, dL/d(i⊙z), dc0
 *   dA_i, dA_f, dA_z                              pointwise
 *   dh̃[0..T) = Σ_k dA_k · U_k                     4 GEMMs accumulating (row t is dL/dh̃_{t-1};
 *                                                 a sum over planes is not one cuBLAS call)
 *   dW_k = dA_k^T X, dU_k = dA_k^T hs[0..T)       strided-batched, db by a column sum
 *   dx = Σ_k dA_k W_k                             4 GEMMs accumulating
 *   scan_backward_cuda(g, h̃_{-1}, h̃, dh̃[1..T]) → dS; pointwise; dWs, dbs, dx += Σ dS_k Ws_k
 *   dh0 = (a_0⊙g_0 from the scan) + dh̃ row 0 */
extern "C" logt_status gilr_lstm_backward_cuda(gilr_model *m, const logt_tensor *dh,
                                               logt_tensor *dx, logt_ctx *ctx)
{
    LOGT_TRY(check_backward(m, dh, dx, ctx));
    const int64_t T = m->x.shape[0], B = m->x.shape[1], I = m->x.shape[2];
    const int64_t D = m->base.cfg.hidden_size, N = T * B, ND = N * D, BD = B * D;
    gilr_cuda_scratch *s = NULL;
    LOGT_TRY(scratch_of(m, B, D, &s));
    LOGT_TRY(logt_tensor_reserve(&s->dpre, LOGT_CUDA, LOGT_F32, 4 * ND, NULL));
    LOGT_TRY(logt_tensor_reserve(&s->dhs, LOGT_CUDA, LOGT_F32, ND + BD, NULL));
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const float *Ws = param(m, &m->base.w, "Ws"), *W = param(m, &m->base.w, "W");
    const float *U = param(m, &m->base.w, "U");
    float *dWs = param(m, &m->base.dw, "Ws"), *dbs = param(m, &m->base.dw, "bs");
    float *dW = param(m, &m->base.dw, "W"), *dU = param(m, &m->base.dw, "U");
    float *db = param(m, &m->base.dw, "b");
    const float *X = saved_input(m), *S = (const float *)m->sur.data;
    const float *Hs = (const float *)m->hs.data, *G = (const float *)m->gates.data;
    const float *C = (const float *)m->c.data, *c0 = saved_state(m, &m->base.c0, ST_C0, BD);
    float *dA = (float *)s->dpre.data;   /* planes i f z o; then the surrogate's g j in 0-1 */
    float *dHs = (float *)s->dhs.data;   /* row t: dL/dh̃_{t-1} through U */
    float *dh0 = m->base.dh0.data ? slot(s, ST_DH0, BD) : NULL;
    float *dc0 = m->base.dc0.data ? slot(s, ST_DC0, BD) : NULL;
    float *dX = dx ? (float *)dx->data : NULL;
    if (dx && is_16bit(m)) {
        LOGT_TRY(logt_tensor_reserve(&s->dx32, LOGT_CUDA, LOGT_F32, N * I, NULL));
        dX = (float *)s->dx32.data;
    }

    /* 1. h = o ⊙ c, then the cell scan: dL/df into plane 1, dL/d(i ⊙ z) in place in plane 2 */
    logt_by_dtype(m->base.cfg.dtype, [&](auto e) {
        typedef typename decltype(e)::type E;
        out_backward_kernel<<<logt_cuda_grid(ND, BLOCK), BLOCK, 0, st>>>(ND, (const E *)dh->data, C, G + 3 * ND,
                                                                         dA + 3 * ND, dA + 2 * ND);
        return 0;
    });
    LAUNCH_TRY();
    LOGT_TRY(add_state(m, st, &m->base.dcT, dA + 2 * ND + (T - 1) * BD, BD));   /* a segment's */
    LOGT_TRY(bscan(m, ctx, T, BD, G + ND, c0, C, dA + 2 * ND, dA + ND,
                                dA + 2 * ND, dc0));
    gates_backward_kernel<<<logt_cuda_grid(ND, BLOCK), BLOCK, 0, st>>>(ND, G, dA);
    LAUNCH_TRY();

    /* 2. the LSTM's weights, its share of dx, and dL/dh̃ (nothing reaches h̃_{T-1} through U:
     *    its row holds a segment's dL/dh̃_{T-1} from the steps after it, or zeros) */
    const int add = m->base.dw_add;   /* a segment adds to the gradients of those after it */
    const float beta = add ? 1.0f : 0.0f;
    for (int64_t k = 0; k < 4; k++)
        LOGT_TRY(logt_gemm_f32(ctx, 0, 0, N, D, D, 1.0f, dA + k * ND, U + k * D * D,
                               k ? 1.0f : 0.0f, dHs));
    if (m->base.dhT.data) LOGT_TRY(to_f32(m, st, m->base.dhT.data, dHs + ND, BD));
    else CUDA_TRY(cudaMemsetAsync(dHs + ND, 0, (size_t)BD * sizeof(float), st));
    LOGT_TRY(wgrad(ctx, N, D, I, 4, dA, X, beta, dW));
    LOGT_TRY(wgrad(ctx, N, D, D, 4, dA, Hs, beta, dU));
    LOGT_TRY(colsum(ctx, s, dA, ND, N, D, 4, add, db));
    if (dX) LOGT_TRY(dx_gemms(ctx, N, I, D, 4, dA, W, 0.0f, dX));

    /* 3. the surrogate: its scan's backward from dL/dh̃_0..T-1, into dA's (now free) planes 0-1 */
    LOGT_TRY(bscan(m, ctx, T, BD, S, Hs, Hs + BD, dHs + BD, dA, dA + ND, dh0));
    gilr_act_backward_kernel<<<logt_cuda_grid(ND, BLOCK), BLOCK, 0, st>>>(ND, S, S + ND, dA,
                                                                          dA + ND);
    LAUNCH_TRY();
    LOGT_TRY(wgrad(ctx, N, D, I, 2, dA, X, beta, dWs));
    LOGT_TRY(colsum(ctx, s, dA, ND, N, D, 2, add, dbs));
    if (dX) LOGT_TRY(dx_gemms(ctx, N, I, D, 2, dA, Ws, 1.0f, dX));

    /* 4. out in the model's dtype; h̃_{-1} = h0 also fed step 0's gates (row 0 of dHs) */
    if (dx && is_16bit(m)) LOGT_TRY(from_f32(m, st, dX, NULL, dx->data, N * I));
    if (dh0) LOGT_TRY(from_f32(m, st, dh0, dHs, m->base.dh0.data, BD));
    if (dc0) LOGT_TRY(from_f32(m, st, dc0, NULL, m->base.dc0.data, BD));
    return LOGT_OK;
}

extern "C" void gilr_free_cuda(gilr_model *m)
{
    gilr_cuda_scratch *s = (gilr_cuda_scratch *)m->cuda;
    if (!s) return;
    logt_tensor_free(&s->x32);
    logt_tensor_free(&s->dx32);
    logt_tensor_free(&s->dpre);
    logt_tensor_free(&s->dhs);
    logt_tensor_free(&s->st);
    logt_tensor_free(&s->part);
    free(s);
    m->cuda = NULL;
}
