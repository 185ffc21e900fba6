/* alternating.cu — flashrnn's alternating path on CUDA (alternating.h): per step one cuBLAS
 * strided-batched GEMM over the H heads and one pointwise kernel, a thread per (b, j), for
 * every cell (the pointwise math: flashrnn_cell.cuh).
 *
 * Bounds of a step's pointwise kernel (B·D units; G gates, NS saved and NST state floats a
 * unit): it reads W x and R h (2·G floats) and the states, and writes h, the saved values and
 * the states: about (2·G + NS + 2·NST + 1)·4 bytes and some 30 flops a unit. At B = 16,
 * D = 768 (the slstm: 8 + 5 + 6 + 1 = 20 floats, 80 bytes a unit) that is 1 MB a step, 0.2 us
 * at 4.8 TB/s and 0.4 Mflop: far below a launch (a few us). The step is bound by the two
 * launches and the GEMM's latency, not by bytes or flops: the fused kernels' reason to be.
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdlib.h>

#include "../../core/cuda.h"
#include "../../core/cuda_check.cuh"
#include "../../kernels/gemm.h"
#include "alternating.h"
#include "flashrnn_cell.cuh"

typedef __nv_bfloat16 bf16;
typedef __half f16;

#define BLOCK 256

/* ---- the alternating path's pointwise kernels: thread per (b, j), j < D ------------------- */

/* The alternating path's view of a cell: G gates, NS saved values and NST fp32 states a unit,
 * whether dL/d(R h) differs from dL/d(W x + b) (DRA, the gru's n); forward reads the states
 * of t-1 from sp and writes those of t to st; backward carries the states' gradients in ds
 * (in: of step t, out: of t-1) and returns the part of dL/dh_{t-1} that does not go through
 * R. The sLSTM and Elman cells have this form; the lstm's and gru's (shared with the fused
 * kernels) are adapted. */
template <class Cell> struct Alt {
    static constexpr int G = Cell::G, NS = Cell::NS, NST = Cell::NST;
    static constexpr bool DRA = false;
    static __device__ __forceinline__ float forward(const float *a, const float *r, float bn, float hp,
                                                    const float *sp, float *st, float *s)
    {
        (void)bn, (void)hp;
        return Cell::forward(a, r, sp, st, s);
    }
    static __device__ __forceinline__ float backward(const float *s, const float *sp, const float *st,
                                                     float hp, float dh, float *ds, float *dxa, float *dra)
    {
        (void)hp, (void)dra;
        Cell::backward(s, sp, st, dh, ds, dxa);
        return 0.0f;
    }
};
template <> struct Alt<LstmCell> {
    static constexpr int G = 4, NS = 4, NST = 1;
    static constexpr bool DRA = false;
    static __device__ __forceinline__ float forward(const float *a, const float *r, float bn, float hp,
                                                    const float *sp, float *st, float *s)
    {
        float c = sp[0], h = LstmCell::forward(a, r, bn, hp, c, s);
        st[0] = c;
        return h;
    }
    static __device__ __forceinline__ float backward(const float *s, const float *sp, const float *st,
                                                     float hp, float dh, float *ds, float *dxa, float *dra)
    {
        return LstmCell::backward(s, st[0], sp[0], hp, dh, ds[0], dxa, dra);
    }
};
template <> struct Alt<GruCell> {
    static constexpr int G = 3, NS = 4, NST = 0;
    static constexpr bool DRA = true;
    static __device__ __forceinline__ float forward(const float *a, const float *r, float bn, float hp,
                                                    const float *sp, float *st, float *s)
    {
        (void)sp, (void)st;
        float c = 0.0f;
        return GruCell::forward(a, r, bn, hp, c, s);
    }
    static __device__ __forceinline__ float backward(const float *s, const float *sp, const float *st,
                                                     float hp, float dh, float *ds, float *dxa, float *dra)
    {
        (void)sp, (void)st, (void)ds;
        float dc = 0.0f;
        return GruCell::backward(s, 0.0f, 0.0f, hp, dh, dc, dxa, dra);
    }
};

/* The states before step 0, [B][NST][D]: c from c0 (the dtype's), then (slstm) n0 and m0. */
template <typename T>
__global__ void alt_initial_states(int B, int D, int nst, const T *__restrict__ c0,
                                   const float *__restrict__ n0, const float *__restrict__ m0,
                                   float *__restrict__ st0)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (int64_t)B * D;
         i += (int64_t)gridDim.x * blockDim.x) {
        float *o = st0 + (i / D) * nst * D + i % D;
        o[0] = ld(c0 + i);
        if (nst > 1) o[D] = n0 ? n0[i] : 0.0f, o[2 * D] = m0 ? m0[i] : 0.0f;
    }
}

/* rh [H][B][G·dh] = h_{t-1} R per head; prev: the states of t-1 [B][NST·D]. Writes h_t, the
 * saved gates s [B][NS·D] and the states of t, state [B][NST·D]. */
template <class Cell, typename T>
__global__ void alt_forward_step(int B, int H, int dh, const float *__restrict__ wx,
                                 const float *__restrict__ rh, const float *__restrict__ bias,
                                 const float *__restrict__ bn, const T *__restrict__ hp,
                                 const float *__restrict__ prev, T *__restrict__ h,
                                 float *__restrict__ s, float *__restrict__ state)
{
    typedef Alt<Cell> C;
    constexpr int G = C::G, NS = C::NS, NST = C::NST, NSTA = NST ? NST : 1;
    const int D = H * dh;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (int64_t)B * D;
         i += (int64_t)gridDim.x * blockDim.x) {   /* grid-stride: the grid is capped */
    const int b = (int)(i / D), j = (int)(i % D), k = j / dh, jj = j % dh;
    float av[G], rv[G], sv[NS], spv[NSTA], stv[NSTA];
    for (int q = 0; q < G; q++) {
        av[q] = wx[(int64_t)b * G * D + q * D + j] + bias[q * D + j];
        rv[q] = rh[((int64_t)k * B + b) * G * dh + q * dh + jj];
    }
    for (int q = 0; q < NST; q++) spv[q] = prev[((int64_t)b * NST + q) * D + j];
    float hv = C::forward(av, rv, bn ? bn[j] : 0.0f, ld(hp + i), spv, stv, sv);
    st(h + i, hv);
    for (int q = 0; q < NS; q++) s[((int64_t)b * NS + q) * D + j] = sv[q];
    for (int q = 0; q < NST; q++) state[((int64_t)b * NST + q) * D + j] = stv[q];
    }
}

/* dhr: what reaches h_t through R from step t+1 in; the part of dL/dh_{t-1} that does not go
 * through R out (the GEMM adds the rest). dsr [B][NST·D]: the states' gradients, of step t in
 * and of t-1 out. prev, state: the states of t-1 and t. Writes dxa_t (and dra_t), the packed
 * pk [H][B][G·dh]. */
template <class Cell, typename T>
__global__ void alt_backward_step(int B, int H, int dh, const T *__restrict__ dH,
                                  const float *__restrict__ s, const float *__restrict__ state,
                                  const float *__restrict__ prev, const T *__restrict__ hp,
                                  float *__restrict__ dhr, float *__restrict__ dsr,
                                  T *__restrict__ dxa, T *__restrict__ dra, T *__restrict__ pk)
{
    typedef Alt<Cell> C;
    constexpr int G = C::G, NS = C::NS, NST = C::NST, NSTA = NST ? NST : 1;
    const int D = H * dh;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (int64_t)B * D;
         i += (int64_t)gridDim.x * blockDim.x) {   /* grid-stride: the grid is capped */
    const int b = (int)(i / D), j = (int)(i % D), k = j / dh, jj = j % dh;
    float sv[NS], spv[NSTA], stv[NSTA], dsv[NSTA], dx[G], dr[G];
    for (int q = 0; q < NS; q++) sv[q] = s[((int64_t)b * NS + q) * D + j];
    for (int q = 0; q < NST; q++) {
        const int64_t e = ((int64_t)b * NST + q) * D + j;
        spv[q] = prev[e], stv[q] = state[e], dsv[q] = dsr[e];
    }
    dhr[i] = C::backward(sv, spv, stv, ld(hp + i), ld(dH + i) + dhr[i], dsv, dx, dr);
    for (int q = 0; q < NST; q++) dsr[((int64_t)b * NST + q) * D + j] = dsv[q];
    for (int q = 0; q < G; q++) {
        const float r = C::DRA ? dr[q] : dx[q];
        st(dxa + (int64_t)b * G * D + q * D + j, dx[q]);
        if (C::DRA) st(dra + (int64_t)b * G * D + q * D + j, r);
        st(pk + ((int64_t)k * B + b) * G * dh + q * dh + jj, r);
    }
    }
}

/* The states before step 0 into sc->st0 [B][NST·D]: c0 (zeros unless given) and, for the
 * slstm, n0 and m0, which the model keeps on the host in float64 (flashrnn_set_slstm_state). */
template <typename T>
static logt_status alt_initial(flashrnn_model *m, flashrnn_alt_scratch *sc, logt_ctx *ctx,
                               const flashrnn_fused_args *a, int nst)
{
    const int64_t B = a->B, D = (int64_t)a->H * a->dh;
    cudaStream_t st = (cudaStream_t)ctx->stream;
    LOGT_TRY(logt_tensor_reserve(&sc->st0, LOGT_CUDA, LOGT_F32, B * nst * D, NULL));
    const float *n0 = NULL, *m0 = NULL;
    if (nst > 1 && (m->n0.data || m->m0.data)) {
        float *host = (float *)malloc((size_t)(2 * B * D) * sizeof(float));
        if (!host) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
        const double *src[2] = {(const double *)m->n0.data, (const double *)m->m0.data};
        for (int k = 0; k < 2; k++)
            for (int64_t i = 0; i < B * D; i++) host[k * B * D + i] = src[k] ? (float)src[k][i] : 0.0f;
        logt_status s = logt_tensor_reserve(&sc->nm0, LOGT_CUDA, LOGT_F32, 2 * B * D, NULL);
        /* the copy reads host memory freed below: waited for here (only with n0 or m0 given) */
        if (s == LOGT_OK && (cudaMemcpyAsync(sc->nm0.data, host, (size_t)(2 * B * D) * sizeof(float),
                                             cudaMemcpyHostToDevice, st) != cudaSuccess
                             || cudaStreamSynchronize(st) != cudaSuccess))
            s = LOGT_FAIL(LOGT_ECUDA, "flashrnn slstm: copying n0, m0 to the device failed: %s",
                          cudaGetErrorString(cudaGetLastError()));
        free(host);
        LOGT_TRY(s);
        n0 = (const float *)sc->nm0.data, m0 = n0 + B * D;
    }
    alt_initial_states<T><<<logt_cuda_grid(B * D, BLOCK), BLOCK, 0, st>>>(
        (int)B, (int)D, nst, (const T *)a->c0, n0, m0, (float *)sc->st0.data);
    LAUNCH_TRY();
    return LOGT_OK;
}

template <class Cell, typename T>
static logt_status alt_forward(flashrnn_model *m, flashrnn_alt_scratch *sc, logt_ctx *ctx,
                               const flashrnn_fused_args *a)
{
    constexpr int G = Alt<Cell>::G, NS = Alt<Cell>::NS, NST = Alt<Cell>::NST;
    const int B = a->B, H = a->H, dh = a->dh, D = H * dh;
    cudaStream_t st = (cudaStream_t)ctx->stream;
    LOGT_TRY(logt_tensor_reserve(&sc->rh, LOGT_CUDA, LOGT_F32, (int64_t)H * B * G * dh, NULL));
    if (NST) LOGT_TRY(alt_initial<T>(m, sc, ctx, a, NST));
    for (int t = 0; t < a->T; t++) {
        const int64_t o = (int64_t)t * B;
        const T *hp = t ? (const T *)a->h + (o - B) * D : (const T *)a->h0;
        LOGT_TRY(logt_gemm_ex(ctx, 0, 0, B, (int64_t)G * dh, dh, 1.0f, a->dtype, hp, D, dh, a->R,
                              (int64_t)G * dh, (int64_t)dh * G * dh, 0.0f, (float *)sc->rh.data,
                              (int64_t)G * dh, (int64_t)B * G * dh, H, 1));
        alt_forward_step<Cell, T><<<logt_cuda_grid((int64_t)B * D, BLOCK), BLOCK, 0, st>>>(
            B, H, dh, a->wx + o * G * D, (const float *)sc->rh.data, a->bias, a->bn, hp,
            NST ? (t ? a->c + (o - B) * NST * D : (const float *)sc->st0.data) : NULL,
            (T *)a->h + o * D, a->s + o * NS * D, NST ? a->c + o * NST * D : NULL);
        LAUNCH_TRY();
    }
    return LOGT_OK;
}

/* One state's gradient, plane q of the carried [B][NST·D] (fp32), into sc->dtmp [B][D]. */
static logt_status gather_state_grad(flashrnn_alt_scratch *sc, logt_ctx *ctx, int64_t B, int64_t D,
                                     int nst, int q)
{
    LOGT_TRY(logt_tensor_reserve(&sc->dtmp, LOGT_CUDA, LOGT_F32, B * D, NULL));
    CUDA_TRY(cudaMemcpy2DAsync(sc->dtmp.data, (size_t)D * sizeof(float),
                               (const float *)sc->dcr.data + q * D, (size_t)(nst * D) * sizeof(float),
                               (size_t)D * sizeof(float), (size_t)B, cudaMemcpyDeviceToDevice,
                               (cudaStream_t)ctx->stream));
    return LOGT_OK;
}

extern "C" logt_status flashrnn_alt_slstm_state_grads(flashrnn_model *m, flashrnn_alt_scratch *sc,
                                                      logt_ctx *ctx, int64_t B, int64_t D)
{
    logt_tensor *out[2] = {&m->dn0, &m->dm0};
    for (int k = 0; k < 2; k++) {
        if (!out[k]->data) continue;
        LOGT_TRY(gather_state_grad(sc, ctx, B, D, 3, 1 + k));
        CUDA_TRY(cudaStreamSynchronize((cudaStream_t)ctx->stream));
        logt_tensor dev = sc->dtmp;
        dev.ndim = 2, dev.shape[0] = B, dev.shape[1] = D, dev.numel = B * D, dev.owns = 0;
        LOGT_TRY(logt_tensor_to_f64(&dev, (double *)out[k]->data));
    }
    return LOGT_OK;
}

/* dst [n] f32 from src of dtype dt on stream st (a copy for f32). */
static logt_status to_f32(float *dst, const void *src, logt_dtype dt, int64_t n, cudaStream_t st)
{
    if (dt == LOGT_F32)
        CUDA_TRY(cudaMemcpyAsync(dst, src, (size_t)n * sizeof(float), cudaMemcpyDeviceToDevice, st));
    else LOGT_TRY(logt_cuda_convert_on(st, dst, LOGT_F32, src, dt, n));
    return LOGT_OK;
}

template <class Cell, typename T>
static logt_status alt_backward(flashrnn_model *m, flashrnn_alt_scratch *sc, logt_ctx *ctx,
                                const flashrnn_fused_args *a)
{
    constexpr int G = Alt<Cell>::G, NS = Alt<Cell>::NS, NST = Alt<Cell>::NST;
    const int B = a->B, H = a->H, dh = a->dh, D = H * dh;
    cudaStream_t st = (cudaStream_t)ctx->stream;
    LOGT_TRY(logt_tensor_reserve(&sc->pk, LOGT_CUDA, a->dtype, (int64_t)H * B * G * dh, NULL));
    LOGT_TRY(logt_tensor_reserve(&sc->dhr, LOGT_CUDA, LOGT_F32, (int64_t)B * D, NULL));
    LOGT_TRY(logt_tensor_reserve(&sc->dcr, LOGT_CUDA, LOGT_F32, (int64_t)B * (NST ? NST : 1) * D, NULL));
    /* the carries start from zeros, or a segment's from dL/d(final state): a->dhT and (the
     * lstm's one state plane, [B][D]) a->dcT */
    if (a->dhT) LOGT_TRY(to_f32((float *)sc->dhr.data, a->dhT, a->dtype, (int64_t)B * D, st));
    else CUDA_TRY(cudaMemsetAsync(sc->dhr.data, 0, (size_t)B * D * sizeof(float), st));
    if (NST == 1 && a->dcT) LOGT_TRY(to_f32((float *)sc->dcr.data, a->dcT, a->dtype, (int64_t)B * D, st));
    else CUDA_TRY(cudaMemsetAsync(sc->dcr.data, 0, (size_t)B * (NST ? NST : 1) * D * sizeof(float), st));
    float *dhr = (float *)sc->dhr.data;   /* the states before step 0: sc->st0, the forward's */
    for (int t = a->T - 1; t >= 0; t--) {
        const int64_t o = (int64_t)t * B;
        const T *hp = t ? (const T *)a->h + (o - B) * D : (const T *)a->h0;
        alt_backward_step<Cell, T><<<logt_cuda_grid((int64_t)B * D, BLOCK), BLOCK, 0, st>>>(
            B, H, dh, (const T *)a->dH + o * D, a->s + o * NS * D, NST ? a->c + o * NST * D : NULL,
            NST ? (t ? a->c + (o - B) * NST * D : (const float *)sc->st0.data) : NULL, hp, dhr,
            (float *)sc->dcr.data, (T *)a->dxa + o * G * D, Alt<Cell>::DRA ? (T *)a->dra + o * G * D : NULL,
            (T *)sc->pk.data);
        LAUNCH_TRY();
        /* dL/dh_{t-1} += dRA_t,k R_k^T, per head */
        LOGT_TRY(logt_gemm_ex(ctx, 0, 1, B, dh, (int64_t)G * dh, 1.0f, a->dtype, sc->pk.data,
                              (int64_t)G * dh, (int64_t)B * G * dh, a->R, (int64_t)G * dh,
                              (int64_t)dh * G * dh, 1.0f, dhr, D, dh, H, 1));
    }
    if (a->dh0) LOGT_TRY(logt_cuda_convert_on(ctx->stream, a->dh0, a->dtype, dhr, LOGT_F32, (int64_t)B * D));
    if (NST && a->dc0) {   /* dL/dc0: plane 0 of the carried gradients */
        LOGT_TRY(gather_state_grad(sc, ctx, B, D, NST, 0));
        LOGT_TRY(logt_cuda_convert_on(ctx->stream, a->dc0, a->dtype, sc->dtmp.data, LOGT_F32, (int64_t)B * D));
    }
    if (NST == 3) LOGT_TRY(flashrnn_alt_slstm_state_grads(m, sc, ctx, B, D));
    return LOGT_OK;
}

/* f(cell_tag<Cell>(), dtype_tag<T>()) for m's cell and the pass's dtype: the one place a
 * run picks its instantiation. */
template <class Cell> struct cell_tag { typedef Cell type; };
template <typename T> struct dtype_tag { typedef T type; };
template <class F>
static logt_status with_cell(const flashrnn_model *m, logt_dtype dt, F f)
{
    auto in = [&](auto cell) {
        return dt == LOGT_BF16  ? f(cell, dtype_tag<bf16>())
               : dt == LOGT_F16 ? f(cell, dtype_tag<f16>())
                                : f(cell, dtype_tag<float>());
    };
    switch (m->cell) {
    case FLASHRNN_LSTM: return in(cell_tag<LstmCell>());
    case FLASHRNN_GRU: return in(cell_tag<GruCell>());
    case FLASHRNN_SLSTM: return in(cell_tag<SlstmCell>());
    case FLASHRNN_ELMAN: return in(cell_tag<ElmanCell>());
    }
    return LOGT_FAIL(LOGT_EINVAL, "flashrnn: cell %d unknown", (int)m->cell);
}

extern "C" logt_status flashrnn_alt_forward(flashrnn_model *m, flashrnn_alt_scratch *sc, logt_ctx *ctx,
                                            const flashrnn_fused_args *a)
{
    return with_cell(m, a->dtype, [&](auto cell, auto dt) {
        return alt_forward<typename decltype(cell)::type, typename decltype(dt)::type>(m, sc, ctx, a);
    });
}

extern "C" logt_status flashrnn_alt_backward(flashrnn_model *m, flashrnn_alt_scratch *sc, logt_ctx *ctx,
                                             const flashrnn_fused_args *a)
{
    return with_cell(m, a->dtype, [&](auto cell, auto dt) {
        return alt_backward<typename decltype(cell)::type, typename decltype(dt)::type>(m, sc, ctx, a);
    });
}

extern "C" logt_status flashrnn_alt_slstm_initial(flashrnn_model *m, flashrnn_alt_scratch *sc, logt_ctx *ctx,
                                                  const flashrnn_fused_args *a)
{
    return a->dtype == LOGT_BF16  ? alt_initial<bf16>(m, sc, ctx, a, 3)
           : a->dtype == LOGT_F16 ? alt_initial<f16>(m, sc, ctx, a, 3)
                                  : alt_initial<float>(m, sc, ctx, a, 3);
}

extern "C" void flashrnn_alt_free(flashrnn_alt_scratch *sc)
{
    logt_tensor *all[] = {&sc->rh, &sc->pk, &sc->dhr, &sc->dcr, &sc->st0, &sc->nm0, &sc->dtmp};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) logt_tensor_free(all[i]);
}
