/* sru_cuda.cu — the SRU layer on CUDA (equations and knobs in sru.h): one GEMM for every gate
 * of every step, then element-wise work over time. Activations x, h of dtype f32 or bf16;
 * parameters, planes, c and all arithmetic fp32.
 *
 * Shapes: T steps, B batch, D hidden, I input, N = T·B rows, K = 3 planes (I == D) or 4
 * (I != D: W_p x too), C = B·D channels. Row-major, time-major.
 *
 * Forward:
 *   G[k][N][D] = X[N][I] · Wk^T, k < K         one cuBLAS call (strided-batched over the K row
 *                                              blocks of [W; Wp], X shared: stride 0)
 *   loop route (v on, or route = loop):        sru_forward_kernel: thread per channel (b, d)
 *     walks t with the loads of the next UNROLL = 8 steps issued before the math of the
 *     current 8 (two batches in registers), and computes f, r
 *     (from W x + v·c_{t-1} + b), c_t, h_t. It writes c and h only: backward recomputes f and r
 *     from G and c.
 *   scan route (v = zero):                     f = σ(W_f x + b_f) for all steps (in place in
 *     G's f plane) and (1 − f)·z; scan_cuda for c (kernels/scan.h); then h element-wise.
 * Backward:
 *   loop route: sru_backward_kernel, thread per channel walking t down, carrying dL/dc; writes
 *     dG[N][K·D] = dL/d(z, pre f, pre r, W_p x) and the highway's direct dx term, and sums
 *     dv, db over t in registers: one write per channel into part[4][B][D], then
 *     sru_sum_batch_kernel sums over B (no atomics).
 *   scan route: element-wise dL/dc through h, scan_backward_cuda, element-wise gate
 *     gradients; db = dG^T·1 by one cublasSgemv.
 *   d[W; Wp] = dG^T · X   one GEMM over the whole sequence;   dX = dG · [W; Wp] (+ the direct term
 *   when I == D)           one GEMM.
 * bf16: x is converted to an f32 scratch once per forward (kept for backward's dW GEMM), and
 * the f32 GEMMs of kernels/gemm.h run on it: products of bf16 x with f32 W, in fp32 (or TF32).
 * dx is made in an f32 scratch, then rounded to bf16. math = tf32 sets CUBLAS_TF32_TENSOR_OP_MATH
 * on the handle around each of the three GEMMs and restores the handle's mode after; math =
 * 3xtf32 makes each GEMM three TF32 products of split operands (kernels/gemm.h).
 *
 * Bounds (bytes of fp32 4, bf16 2; H200: ~4.3 TB/s copy, ~50 TFLOP/s strict fp32, ~400 TF32).
 *   GEMMs:  forward 2·N·K·D·I flops, backward twice that. At the issue's shape D = I = 768,
 *           B = 16, T = 1024 (N = 16384, N·D = 12.6 M, K = 3): 58 + 116 = 174 GFLOP: 3.5 ms in
 *           strict fp32 (above the 3.0 ms target whatever the rest does), ~0.45 ms in TF32.
 *           Their operands move ~0.65 GB (X, G, dG, dX): ~0.15 ms.
 *   forward loop kernel: sru_recurrence_bytes (sru.h): 24·N·D bytes (f32, I == D): read z,
 *           W_f x, W_r x, x; write c, h. 302 MB there: 70 µs. ~30 flops per element (two
 *           sigmoids, ten FMAs): 0.4 GFLOP, 8 µs: memory-bound by 10x.
 *   backward loop kernel: read z, W_f x, W_r x, c, x', dh, write 3 (K) gradient planes and the
 *           direct dx: 40·N·D bytes (f32, I == D), 503 MB there: 117 µs.
 *   depth:  each thread walks T steps; the loads of UNROLL = 8 steps share one DRAM round trip
 *           (~0.7 µs), so ~T/8 · 0.7 µs (90 µs at T = 1024) however small B·D: at B·D = 12288
 *           the loop kernels are latency-bound, at B·D >= 65536 and long T bandwidth-bound.
 *   So at the issue's shape: ~3.9 ms strict fp32, ~0.8 ms with math = tf32 (floors, not
 *   measurements). Memory kept by forward: planes K·N·D + c N·D fp32 (+ x in f32 for bf16);
 *   backward adds dG K·N·D fp32 (+ 2·N·D on the scan route).
 * The reference is sru_forward_cpu / sru_backward_cpu in sru.c.
 */
#include <cuda_bf16.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../core/cuda.h"
#include "../../core/cuda_check.cuh"
#include "../../core/reduce.cuh"
#include "../../core/elem.cuh"
#include "../../kernels/gemm.h"
#include "../../kernels/scan.h"
#include "sru.h"

/* Steps whose loads are issued before the math of the first of them. */
#define UNROLL 8
#define BLOCK 256

typedef struct sru_cuda_scratch {
    logt_tensor xf;     /* [N][I] f32 copy of a bf16 x: the GEMMs' input                  */
    logt_tensor dG;     /* [N][K·D] dL/d(z, pre f, pre r, W_p x)                           */
    logt_tensor dxf;    /* [N][I] f32 dx before its rounding to bf16                       */
    logt_tensor part;   /* [4][B][D] per-channel sums of dv_f, dv_r, db_f, db_r            */
    logt_tensor g, da;  /* [N][D] each: the scan route's dL/dc and dL/da                   */
    logt_tensor c0f;    /* [B][D] f32 c_{-1} for the scan route when h0 is bf16           */
    logt_tensor dc0f;   /* [B][D] f32 dL/dc_{-1} from the scan route, before bf16          */
    logt_tensor ones;   /* [N] ones: db = dG^T·1 on the scan route                         */
    logt_tensor res;    /* [1] route = newton: the residual, as a non-negative float's bits */
    logt_tensor x3;     /* math = 3xtf32: [N][3I] x's TF32 parts hi | lo | hi                 */
    logt_tensor xs3;    /* math = 3xtf32, N <= X3_STACK_ROWS: [3][N][I] x's parts lo; hi; hi  */
    logt_tensor w3;     /* math = 3xtf32: [K·D][3I] [W; Wp]'s parts lo | hi | hi             */
    logt_tensor g3;     /* math = 3xtf32: [3][N][K·D] dG's parts hi; lo; hi (N above
                         * X3_STACK_ROWS: [2][N][K·D], hi; lo)                                */
} sru_cuda_scratch;

/* ---- element access and math ----------------------------------------------------------- */



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

/* Backward, thread j walks t = T-1..0 carrying dL/dc_t from step t+1 (the mirror of
 * recurrence_backward in sru.c). f, r are recomputed from G, v, b and c_{t-1}. Writes row
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
                        E *__restrict__ dc0)
{
    const int64_t BD = B * D, ND = T * BD, j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= BD) return;
    const int64_t b = j / D, d = j - b * D, KD = K * D;
    const float *z = G, *pf = G + ND, *pr = G + 2 * ND;
    const float vf = v ? v[d] : 0.0f, vr = v ? v[D + d] : 0.0f, bf = bias[d], br = bias[D + d];
    const float cinit = c0 ? ld(c0 + j) : 0.0f;
    float c = C[(T - 1) * BD + j];   /* c_t of the step about to be walked */
    float carry = 0.0f, dvf = 0.0f, dvr = 0.0f, dbf = 0.0f, dbr = 0.0f;
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

/* dv = [Σ_b part[0][b][:], Σ_b part[1][b][:]], db likewise from part[2], part[3]. One thread
 * per output, coalesced over d; dv NULL (v = zero) skips its half. */
__global__ void sru_sum_batch_kernel(int64_t B, int64_t D, const float *__restrict__ part,
                                     float *__restrict__ dv, float *__restrict__ db)
{
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= 4 * D) return;
    const int64_t q = i / D, d = i - q * D;
    if (q < 2 && !dv) return;
    float s = 0.0f;
    for (int64_t b = 0; b < B; b++) s += part[(q * B + b) * D + d];
    if (q < 2) dv[i] = s;
    else db[i - 2 * D] = s;
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

/* Threads per block for a channel-parallel walk over C channels: 256, or 64 when 256 would
 * leave SMs without a block (B·D = 12288 at D = 768, B = 16: 192 blocks of 64, not 48 of 256). */
static int walk_threads(int64_t C) { return C >= (int64_t)BLOCK * logt_cuda_sm_count() ? BLOCK : 64; }

static logt_status convert(logt_ctx *ctx, int64_t n, logt_dtype to, void *dst, logt_dtype from,
                           const void *src)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const unsigned grid = logt_cuda_grid(n, BLOCK);
    if (to == LOGT_F32 && from == LOGT_BF16)
        sru_convert_kernel<float, __nv_bfloat16>
            <<<grid, BLOCK, 0, st>>>(n, (const __nv_bfloat16 *)src, (float *)dst);
    else if (to == LOGT_BF16 && from == LOGT_F32)
        sru_convert_kernel<__nv_bfloat16, float>
            <<<grid, BLOCK, 0, st>>>(n, (const float *)src, (__nv_bfloat16 *)dst);
    else
        return LOGT_FAIL(LOGT_EINVAL, "sru: no conversion from %s to %s", logt_dtype_name(from),
                         logt_dtype_name(to));
    LAUNCH_TRY();
    return LOGT_OK;
}

static logt_status scratch_of(sru_model *m, sru_cuda_scratch **out)
{
    if (!m->cuda) {
        m->cuda = calloc(1, sizeof(sru_cuda_scratch));
        if (!m->cuda) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    }
    *out = (sru_cuda_scratch *)m->cuda;
    return LOGT_OK;
}

static float *param(sru_model *m, const logt_tensor *flat, const char *name)
{
    return (float *)logt_model_param(&m->base, flat, name).data;
}

static logt_status check_act(const logt_tensor *t, logt_dtype dt, const char *what)
{
    if (t->device != LOGT_CUDA || t->dtype != dt)
        return LOGT_FAIL(LOGT_EINVAL, "sru on cuda takes %s as a cuda %s tensor, not %s %s", what,
                         logt_dtype_name(dt), logt_device_name(t->device),
                         logt_dtype_name(t->dtype));
    return LOGT_OK;
}

/* A row-major GEMM of kernels/gemm.h under the layer's math, strict fp32 or TF32 tensor cores
 * (the handle's mode set around the call and restored after, also after a failure); math =
 * 3xtf32 has its own two functions below, which keep the split operands. */
static logt_status gemm(const sru_model *m, logt_ctx *ctx, int transA, int transB, int64_t M,
                        int64_t N, int64_t K, const float *A, int64_t strideA, const float *B,
                        int64_t strideB, float beta, float *C, int64_t strideC, int64_t batch)
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

/* math = 3xtf32 at T·B <= X3_STACK_ROWS rows: backward's dW, a sum over the rows, is ONE TF32
 * GEMM over the row-stacked planes of dG and of x (inner dimension 3·T·B, so that cuBLAS may
 * split it as it would a plain long product), which needs x's parts also stacked; above, the
 * three products run one after another (each already long enough to spread) and x's parts
 * are kept once. The batched route of logt_gemm_f32_3planes gave cuBLAS 72 blocks for dW at
 * D = 512, T = 32: 43 of the pass's 154 µs (results/sru-ncu-T32-D512-3xtf32-da7d1c0-h200.csv). */
#define X3_STACK_ROWS 4096

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

/* math = 3xtf32, backward's two GEMMs from the forward's parts (of x, and of the weights as the
 * forward saw them: a step's weights do not change between its forward and backward) and dG's:
 *   d[W; Wp] = dG_hi^T x_lo + dG_lo^T x_hi + dG_hi^T x_hi
 *   dx      = dG_hi W_lo + dG_lo W_hi + dG_hi W_hi (+ beta · dx)
 * At T·B <= X3_STACK_ROWS dW is one GEMM over the stacked planes (above) and dx goes through
 * logt_gemm_f32_3planes (its three products at once where C has few tiles); above, each is
 * three TF32 products accumulating in place, and dG has two planes, not three (at D = 768,
 * T·B = 16384 a plane is 151 MB to write). */
static logt_status gemm3x_backward(logt_ctx *ctx, sru_cuda_scratch *s, int64_t N, int64_t D, int64_t I,
                                   int K, const float *dG, float *dW, float *dx, float beta_dx)
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
        LOGT_TRY(logt_gemm_ex(ctx, 1, 0, KD, I, 3 * N, 1.0f, LOGT_F32, g3, KD, 0, s->xs3.data, I, 0, 0.0f, dW,
                              I, 0, 1, 1));
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
                              k ? 1.0f : 0.0f, dW, I, 0, 1, 1));
    if (dx)
        for (int k = 0; k < 3; k++)
            LOGT_TRY(logt_gemm_ex(ctx, 0, 0, N, I, KD, 1.0f, LOGT_F32, gp[k], KD, 0, w3 + wo[k], 3 * I, 0,
                                  k ? 1.0f : beta_dx, dx, I, 0, 1, 1));
    return LOGT_OK;
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
    if (dt != LOGT_F32 && dt != LOGT_BF16)
        return LOGT_FAIL(LOGT_EUNSUPPORTED,
                         "sru_recurrence_cuda: dtype %s: x and h are f32 or bf16",
                         logt_dtype_name(dt));
    if (!gates || !b || !c || !h || (!proj && !x))
        return LOGT_FAIL(LOGT_EINVAL, "sru_recurrence_cuda: gates, b, c, h (and x unless proj) "
                                      "must be device arrays, not NULL");
    const int64_t BD = B * D;
    const int threads = walk_threads(BD);
    const unsigned blocks = (unsigned)((BD + threads - 1) / threads);
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const float *xpl = gates + 3 * T * BD;   /* W_p x, when proj */
    if (dt == LOGT_F32)
        sru_forward_kernel<float, float><<<blocks, threads, 0, st>>>(
            T, B, D, gates, proj ? xpl : (const float *)x, v, b, alpha, (const float *)c0, c,
            (float *)h);
    else if (proj)
        sru_forward_kernel<__nv_bfloat16, float><<<blocks, threads, 0, st>>>(
            T, B, D, gates, xpl, v, b, alpha, (const __nv_bfloat16 *)c0, c, (__nv_bfloat16 *)h);
    else
        sru_forward_kernel<__nv_bfloat16, __nv_bfloat16><<<blocks, threads, 0, st>>>(
            T, B, D, gates, (const __nv_bfloat16 *)x, v, b, alpha, (const __nv_bfloat16 *)c0, c,
            (__nv_bfloat16 *)h);
    LAUNCH_TRY();
    return LOGT_OK;
}

/* ---- forward ------------------------------------------------------------------------------- */

template <typename E, typename XP>
static logt_status scan_highway(logt_ctx *ctx, int64_t n, int64_t D, const float *pr,
                                const float *bias, float alpha, const float *C, const void *xp,
                                void *h)
{
    sru_scan_highway_kernel<E, XP>
        <<<logt_cuda_grid(n, BLOCK), BLOCK, 0, (cudaStream_t)ctx->stream>>>(
            n, D, pr, bias, alpha, C, (const XP *)xp, (E *)h);
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
    if (c0 && dt == LOGT_BF16) {
        LOGT_TRY(logt_tensor_reserve(&s->c0f, LOGT_CUDA, LOGT_F32, BD, NULL));
        LOGT_TRY(convert(ctx, BD, LOGT_F32, s->c0f.data, LOGT_BF16, c0));
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
    if (dt == LOGT_F32)
        sru_newton_highway_kernel<float, float><<<grid, BLOCK, 0, st>>>(
            ND, BD, D, pr, v, bias, alpha, (const float *)c0, C, (const float *)xp, (float *)h);
    else if (K == 4)
        sru_newton_highway_kernel<__nv_bfloat16, float><<<grid, BLOCK, 0, st>>>(
            ND, BD, D, pr, v, bias, alpha, (const float *)c0, C, (const float *)xp, (__nv_bfloat16 *)h);
    else
        sru_newton_highway_kernel<__nv_bfloat16, __nv_bfloat16><<<grid, BLOCK, 0, st>>>(
            ND, BD, D, pr, v, bias, alpha, (const float *)c0, C, (const __nv_bfloat16 *)xp,
            (__nv_bfloat16 *)h);
    LAUNCH_TRY();
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
    LOGT_TRY(check_act(x, dt, "the input x"));
    LOGT_TRY(check_act(h, dt, "the output h"));
    LOGT_TRY(logt_tensor_ensure3(&m->gates, LOGT_CUDA, LOGT_F32, K, N, D));
    LOGT_TRY(logt_tensor_ensure3(&m->c, LOGT_CUDA, LOGT_F32, T, B, D));
    sru_cuda_scratch *s = NULL;
    LOGT_TRY(scratch_of(m, &s));
    const float *W = param(m, &m->base.w, "W");   /* [W; Wp]: [K·D][I], Wp right after W */
    const float *v = m->o.v_on ? param(m, &m->base.w, "v") : NULL;
    const float *bias = param(m, &m->base.w, "b");
    float *G = (float *)m->gates.data, *C = (float *)m->c.data;
    cudaStream_t st = (cudaStream_t)ctx->stream;

    const float *X = (const float *)x->data;
    if (dt == LOGT_BF16) {
        LOGT_TRY(logt_tensor_reserve(&s->xf, LOGT_CUDA, LOGT_F32, N * I, NULL));
        LOGT_TRY(convert(ctx, N * I, LOGT_F32, s->xf.data, LOGT_BF16, x->data));
        X = (const float *)s->xf.data;
    }
    /* every gate of every step: plane k = X · (rows kD..kD+D-1 of [W; Wp])^T */
    if (m->o.math == SRU_MATH_3XTF32) LOGT_TRY(gemm3x_forward(ctx, s, N, D, I, (int)K, X, W, G));
    else LOGT_TRY(gemm(m, ctx, 0, 1, N, D, I, X, 0, W, D * I, 0.0f, G, ND, K));

    const char *dts = dt == LOGT_BF16 ? "bf16 (f32 x for GEMMs)" : "f32";
    const void *xp = K == 4 ? (const void *)(G + 3 * ND) : x->data;   /* x' */
    if (m->o.newton) {
        snprintf(m->base.impl, sizeof m->base.impl,
                 "cuda %s, math=%s: 1 GEMM over %d planes + c by Newton (diagonal Jacobian, "
                 "a scan an iteration) + gates; v on, highway %g",
                 dts, sru_math_names[m->o.math], (int)K, m->o.alpha);
        return newton_forward(m, ctx, s, T, B, D, K, G, v, bias, alpha, xp, C, h->data);
    }
    if (!m->o.use_scan) {
        snprintf(m->base.impl, sizeof m->base.impl,
                 "cuda %s, math=%s: 1 GEMM over %d planes + fused element-wise loop (thread per "
                 "channel, %d steps in flight); v %s, highway %g",
                 dts, sru_math_names[m->o.math], (int)K, UNROLL, m->o.v_on ? "on" : "zero",
                 m->o.alpha);
        return sru_recurrence_cuda(ctx, T, B, D, dt, G, K == 4, x->data, v, bias, alpha,
                                   m->base.h0.data, C, h->data);
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
    if (c0 && dt == LOGT_BF16) {
        LOGT_TRY(logt_tensor_reserve(&s->c0f, LOGT_CUDA, LOGT_F32, B * D, NULL));
        LOGT_TRY(convert(ctx, B * D, LOGT_F32, s->c0f.data, LOGT_BF16, c0));
        c0 = s->c0f.data;
    }
    LOGT_TRY(scan_cuda(ctx, 0, T, B * D, LOGT_F32, F, C, c0, C));
    const float *pr = G + 2 * ND;
    if (dt == LOGT_F32)
        return scan_highway<float, float>(ctx, ND, D, pr, bias, alpha, C, xp, h->data);
    if (K == 4)
        return scan_highway<__nv_bfloat16, float>(ctx, ND, D, pr, bias, alpha, C, xp, h->data);
    return scan_highway<__nv_bfloat16, __nv_bfloat16>(ctx, ND, D, pr, bias, alpha, C, xp, h->data);
}

/* ---- backward ------------------------------------------------------------------------------ */

template <typename E, typename XP>
static logt_status loop_backward(logt_ctx *ctx, int64_t T, int64_t B, int64_t D, int K,
                                 const float *G, const void *xp, const float *C, const void *c0,
                                 const void *dH, const float *v, const float *bias, float alpha,
                                 float *dG, float *dxd, float *part, void *dc0, float *dv,
                                 float *db)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const int64_t BD = B * D;
    const int threads = walk_threads(BD);
    sru_backward_kernel<E, XP><<<(unsigned)((BD + threads - 1) / threads), threads, 0, st>>>(
        T, B, D, K, G, (const XP *)xp, C, (const E *)c0, (const E *)dH, v, bias, alpha, dG, dxd,
        part, (E *)dc0);
    LAUNCH_TRY();
    sru_sum_batch_kernel<<<(unsigned)((4 * D + BLOCK - 1) / BLOCK), BLOCK, 0, st>>>(B, D, part,
                                                                                     dv, db);
    LAUNCH_TRY();
    return LOGT_OK;
}

template <typename E, typename XP>
static logt_status scan_back_highway(logt_ctx *ctx, int64_t n, int64_t D, int K, const float *pr,
                                     const float *bias, float alpha, const float *C,
                                     const void *xp, const void *dH, float *g, float *dG,
                                     float *dxd)
{
    sru_scan_back_highway_kernel<E, XP>
        <<<logt_cuda_grid(n, BLOCK), BLOCK, 0, (cudaStream_t)ctx->stream>>>(
            n, D, K, pr, bias, alpha, C, (const XP *)xp, (const E *)dH, g, dG, dxd);
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
    LOGT_TRY(check_act(dh, dt, "the gradient dh"));
    if (dx) LOGT_TRY(check_act(dx, dt, "the gradient dx"));
    sru_cuda_scratch *s = NULL;
    LOGT_TRY(scratch_of(m, &s));
    LOGT_TRY(logt_tensor_reserve(&s->dG, LOGT_CUDA, LOGT_F32, N * K * D, NULL));
    const float *W = param(m, &m->base.w, "W");
    const float *v = m->o.v_on ? param(m, &m->base.w, "v") : NULL;
    const float *bias = param(m, &m->base.w, "b");
    float *dW = param(m, &m->base.dw, "W");   /* d[W; Wp]: [K·D][I] */
    float *dv = v ? param(m, &m->base.dw, "v") : NULL;
    float *db = param(m, &m->base.dw, "b");
    const float *G = (const float *)m->gates.data, *C = (const float *)m->c.data;
    const float *X = dt == LOGT_F32 ? (const float *)x->data : (const float *)s->xf.data;
    const void *xp = K == 4 ? (const void *)(G + 3 * ND) : x->data;
    float *dG = (float *)s->dG.data;
    cudaStream_t st = (cudaStream_t)ctx->stream;

    float *dxf = NULL;   /* dx in f32: dx itself, or a scratch rounded to bf16 at the end */
    if (dx && dt == LOGT_F32) dxf = (float *)dx->data;
    else if (dx) {
        LOGT_TRY(logt_tensor_reserve(&s->dxf, LOGT_CUDA, LOGT_F32, N * I, NULL));
        dxf = (float *)s->dxf.data;
    }
    float *dxd = K == 3 ? dxf : NULL;   /* the highway's direct term, before the GEMM adds */

    if (!m->o.use_scan) {
        LOGT_TRY(logt_tensor_reserve(&s->part, LOGT_CUDA, LOGT_F32, 4 * BD, NULL));
        float *part = (float *)s->part.data;
        const void *c0 = m->base.h0.data;
        void *dc0 = m->base.dh0.data;
        if (dt == LOGT_F32)
            LOGT_TRY((loop_backward<float, float>(ctx, T, B, D, K, G, xp, C, c0, dh->data, v, bias,
                                                  alpha, dG, dxd, part, dc0, dv, db)));
        else if (K == 4)
            LOGT_TRY((loop_backward<__nv_bfloat16, float>(ctx, T, B, D, K, G, xp, C, c0, dh->data,
                                                          v, bias, alpha, dG, dxd, part, dc0, dv,
                                                          db)));
        else
            LOGT_TRY((loop_backward<__nv_bfloat16, __nv_bfloat16>(ctx, T, B, D, K, G, xp, C, c0,
                                                                  dh->data, v, bias, alpha, dG,
                                                                  dxd, part, dc0, dv, db)));
    } else {
        int fresh;
        LOGT_TRY(logt_tensor_reserve(&s->g, LOGT_CUDA, LOGT_F32, ND, NULL));
        LOGT_TRY(logt_tensor_reserve(&s->da, LOGT_CUDA, LOGT_F32, ND, NULL));
        LOGT_TRY(logt_tensor_reserve(&s->ones, LOGT_CUDA, LOGT_F32, N, &fresh));
        if (fresh) LOGT_TRY(logt_cuda_fill_f32(ctx, (float *)s->ones.data, N, 1.0f));
        float *g = (float *)s->g.data, *da = (float *)s->da.data;
        const float *F = G + ND, *pr = G + 2 * ND;
        if (dt == LOGT_F32)
            LOGT_TRY((scan_back_highway<float, float>(ctx, ND, D, K, pr, bias, alpha, C, xp,
                                                      dh->data, g, dG, dxd)));
        else if (K == 4)
            LOGT_TRY((scan_back_highway<__nv_bfloat16, float>(ctx, ND, D, K, pr, bias, alpha, C, xp,
                                                              dh->data, g, dG, dxd)));
        else
            LOGT_TRY((scan_back_highway<__nv_bfloat16, __nv_bfloat16>(
                ctx, ND, D, K, pr, bias, alpha, C, xp, dh->data, g, dG, dxd)));
        /* c0 and dc0 in f32 for the scan: as they are, or the forward's f32 copy / a scratch */
        const void *c0 = m->base.h0.data;
        void *dc0 = m->base.dh0.data;
        if (dt == LOGT_BF16) {
            if (c0) c0 = s->c0f.data;
            if (dc0) {
                LOGT_TRY(logt_tensor_reserve(&s->dc0f, LOGT_CUDA, LOGT_F32, BD, NULL));
                dc0 = s->dc0f.data;
            }
        }
        /* g_t += f_{t+1} ⊙ g_{t+1} (in place), da_t = g_t ⊙ c_{t-1}, dc0 = f_0 ⊙ g_0 */
        LOGT_TRY(scan_backward_cuda(ctx, T, BD, LOGT_F32, F, c0, C, g, da, g, dc0));
        if (dt == LOGT_BF16 && dc0)
            LOGT_TRY(convert(ctx, BD, LOGT_BF16, m->base.dh0.data, LOGT_F32, dc0));
        sru_scan_back_gates_kernel<<<logt_cuda_grid(ND, BLOCK), BLOCK, 0, st>>>(
            ND, D, K, G, F, g, da, dG);
        LAUNCH_TRY();
        /* db = Σ_n dG[n][D .. 3D): column-major, dG is [K·D][N] with leading dimension K·D */
        const float one = 1.0f, zero = 0.0f;
        CUBLAS_TRY(cublasSgemv((cublasHandle_t)ctx->cublas, CUBLAS_OP_N, (int)(2 * D), (int)N, &one,
                               dG + D, (int)(K * D), (const float *)s->ones.data, 1, &zero, db, 1));
    }

    /* the weights over the whole sequence, then the input */
    if (m->o.math == SRU_MATH_3XTF32) {
        LOGT_TRY(gemm3x_backward(ctx, s, N, D, I, K, dG, dW, dx ? dxf : NULL, K == 3 ? 1.0f : 0.0f));
    } else {
        LOGT_TRY(gemm(m, ctx, 1, 0, K * D, I, N, dG, 0, X, 0, 0.0f, dW, 0, 1));
        if (dx) LOGT_TRY(gemm(m, ctx, 0, 0, N, I, K * D, dG, 0, W, 0, K == 3 ? 1.0f : 0.0f, dxf, 0, 1));
    }
    if (dx && dt == LOGT_BF16) LOGT_TRY(convert(ctx, N * I, LOGT_BF16, dx->data, LOGT_F32, dxf));
    return LOGT_OK;
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
