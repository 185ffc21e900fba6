/* flashrnn_cuda.cu — the flashrnn model on CUDA (equations and layout in flashrnn.h; the CPU
 * reference is flashrnn.c). Activations x, h of dtype bf16, f16 or f32; parameters fp32, with
 * copies of W and R in the dtype when it is bf16 or f16 (16 bits), made again only after the
 * parameters change; arithmetic fp32.
 *
 * Shapes: T steps, B batch, I input, D = H·dh, G gates, N = T·B rows.
 *
 * Forward:
 *   WX[N][G·D] = X · W^T                       one GEMM over all steps (fp32 out; b is added by
 *                                              the recurrence), or in chunks of steps beside
 *                                              the fused kernel (proj_overlap, below)
 *   kernel = fused (default)                   one persistent launch for all T steps
 *                                              (fused_forward.cu), tiling from the tuner
 *                                              (tune.h), recorded in the model's `detail`
 *   kernel = alternating                       per step: one strided-batched GEMM over the H
 *                                              heads (h_{t-1} · R_k) and one pointwise kernel:
 *                                              FlashRNN's "alternating" baseline
 *   Both save, per step, the gates S [N][NS·D] and the states [N][NST·D] in fp32 for backward
 *   (NS, NST: the cell's, Alt below; lstm 4 and 1 (c), gru 4 and 0, slstm 5 and 3 (c, n, m),
 *   elman 1 and 0). The slstm's states before step 0 (c0, and n0, m0 from the model) are one
 *   fp32 array made by the forward (alternating.h), which both paths read.
 * Backward: the recurrence (fused: one launch; alternating: per step a pointwise kernel and
 * the GEMM dL/dh_{t-1} += dRA_t,k · R_k^T) gives dXA = dL/d(W x + b) and, for the gru,
 * dRA = dL/d(R h) [N][G·D], in the activations' dtype (16 bits: rounded before the products
 * below, as a bf16 or f16 training step does); then over all steps at once, or in chunks
 * beside the fused kernel (grad_overlap, below):
 *   dR_k[:, q] = Hprev_k^T · dRA[:, q, k]      2·G strided-batched GEMMs (batch over heads;
 *                                              Hprev is h0, then h shifted by a step: no copy)
 *   dW = dXA^T · X,  db = dXA^T · 1,  (gru) dbn = dRA_n^T · 1,  dX = dXA · W
 * Segments (recompute = K, models/model.h): the forward also copies the final h and (lstm) c,
 * the latter from the f32 states into the dtype, to m->hT, m->cT; the backward starts its
 * recursion from m->dhT, m->dcT (the fused kernel reads them, fused.h; the alternating path
 * copies them into its carries) and, with m->dw_add, adds the weights' gradients (beta = 1).
 * Precision: the fp32 dtype runs every product on TF32 (10-bit mantissa) tensor cores, the
 * recurrent ones included: "fp32" here is fp32 storage and accumulation, TF32 multiplies.
 */
#include <cublas_v2.h>
#include <cuda.h>   /* the driver's stream wait (types only: the entry point comes from the runtime) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/cuda.h"
#include "../../core/cuda_check.cuh"
#include "fused.h"
#include "../../kernels/gemm.h"
#include "alternating.h"
#include "flashrnn.h"

typedef struct flashrnn_cuda_scratch {
    logt_tensor wd, rd;       /* 16-bit copies of W and R (dtype bf16 or f16)               */
    const void *w16_of;       /* wd, rd are of this w.data at w16_version (NULL: not made)   */
    uint64_t w16_version;
    logt_tensor wx;           /* [N][G·D] W x, f32                                          */
    logt_tensor s, c;         /* [N][NS·D] saved gates, [N][NST·D] states (lstm: c), f32     */
    logt_tensor zeros;        /* [B][D] dtype zeros: h0, c0 when the model has none          */
    logt_tensor dxa, dra;     /* [N][G·D] dtype; dra for the gru only                        */
    logt_tensor dxf;          /* [N][I] f32 dx before rounding to 16 bits                    */
    logt_tensor ones;         /* [N] ones, dtype                                             */
    logt_tensor xchg;         /* split heads' tagged exchange words (as f32 elements; flashrnn_fused_xchg_bytes) */
    logt_tensor sync;         /* split heads' backward counters (unsigned; any 4-byte dtype holds them) */
    flashrnn_alt_scratch alt; /* the alternating path's (alternating.h)                      */
    void *side, *ev_fork, *ev_join;   /* grad_overlap, proj_overlap: the second stream and its two events */
    logt_tensor proj;         /* proj_overlap: [0] W x chunks counted, [1] the kernel runs (unsigned) */
    int64_t primed_rows;      /* proj_overlap: the chunk GEMM the second stream has run once:   */
    int primed_sms;           /* its rows and its SM target                                     */
    int planned_B[2];         /* tile[pass] is for this B (0: not planned yet)               */
    flashrnn_tiling tile[2];  /* forward, backward: each planned when its pass first runs    */
} flashrnn_cuda_scratch;

#define BLOCK 256

/* bf16 and f16: activations in 16 bits, with 16-bit copies of W and R as the products' operands */
static int is16(logt_dtype dt) { return dt == LOGT_BF16 || dt == LOGT_F16; }

/* Gates, saved values and fp32 states per unit of each cell (Alt below has them per type). */
static int ngates(const flashrnn_model *m)
{
    static const int G[] = {[FLASHRNN_LSTM] = 4, [FLASHRNN_GRU] = 3, [FLASHRNN_SLSTM] = 4,
                            [FLASHRNN_ELMAN] = 1};
    return G[m->cell];
}
static int nsaved(const flashrnn_model *m) { return m->cell == FLASHRNN_SLSTM ? 5 : m->cell == FLASHRNN_ELMAN ? 1 : 4; }
static int nstates(const flashrnn_model *m) { return m->cell == FLASHRNN_SLSTM ? 3 : m->cell == FLASHRNN_LSTM; }

static float *param(flashrnn_model *m, const logt_tensor *flat, const char *name)
{
    return (float *)logt_model_param(&m->base, flat, name).data;
}

static logt_status scratch_of(flashrnn_model *m, flashrnn_cuda_scratch **out)
{
    if (!m->cuda) {
        m->cuda = calloc(1, sizeof(flashrnn_cuda_scratch));
        if (!m->cuda) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    }
    *out = (flashrnn_cuda_scratch *)m->cuda;
    return LOGT_OK;
}

static logt_status check_act(const flashrnn_model *m, const logt_tensor *t, const char *what)
{
    if (t->device != LOGT_CUDA || t->dtype != m->base.cfg.dtype)
        return LOGT_FAIL(LOGT_EINVAL, "flashrnn on cuda takes %s as a cuda %s tensor, not %s %s",
                         what, logt_dtype_name(m->base.cfg.dtype), logt_device_name(t->device),
                         logt_dtype_name(t->dtype));
    return LOGT_OK;
}

/* ---- shared pieces -------------------------------------------------------------------------- */

static logt_status prepare(flashrnn_model *m, flashrnn_cuda_scratch *sc, int64_t T, int64_t B,
                           flashrnn_fused_args *a)
{
    const int G = ngates(m);
    const logt_dtype dt = m->base.cfg.dtype;
    const int64_t D = m->base.cfg.hidden_size, N = T * B;
    if (T > INT32_MAX / 4 || N * 4 * D > ((int64_t)1 << 40))
        return LOGT_FAIL(LOGT_EUNSUPPORTED, "flashrnn on cuda: T = %lld, B = %lld is too large",
                         (long long)T, (long long)B);
    int fresh = 0;   /* the zeros are only ever read: clear them when they are allocated */
    LOGT_TRY(logt_tensor_reserve(&sc->zeros, LOGT_CUDA, dt, B * D, &fresh));
    if (fresh) LOGT_TRY(logt_cuda_memset0(sc->zeros.data, (size_t)(B * D) * logt_dtype_size(dt)));
    memset(a, 0, sizeof *a);
    a->T = (int)T, a->B = (int)B, a->H = (int)m->H, a->dh = (int)m->dh, a->G = G, a->dtype = dt;
    a->slstm = m->cell == FLASHRNN_SLSTM;
    a->bias = param(m, &m->base.w, "b");
    a->bn = m->cell == FLASHRNN_GRU ? param(m, &m->base.w, "bn") : NULL;
    a->R = is16(dt) ? sc->rd.data : (const void *)param(m, &m->base.w, "R");
    a->h0 = m->base.h0.data ? m->base.h0.data : sc->zeros.data;
    a->c0 = m->base.c0.data ? m->base.c0.data : sc->zeros.data;
    a->warps_k = m->warps_k;
    a->cell_split = m->cell_split;
    a->head_sync = (flashrnn_head_sync)m->head_sync;
    a->cluster_store = (flashrnn_cluster_store)m->cluster_store;
    a->cell_spread = (flashrnn_cell_spread)m->cell_spread;
    a->grid_share = (flashrnn_grid_share)m->grid_share;
    a->warp_gates = (flashrnn_warp_gates)m->warp_gates;
    a->poll_delay = m->poll_delay;
    return LOGT_OK;
}

/* Tilings of both passes for this B, from the tuner, cached. */
static logt_status plan(flashrnn_model *m, flashrnn_cuda_scratch *sc, const flashrnn_fused_args *a,
                        flashrnn_pass pass)
{
    LOGT_TRY(logt_tensor_reserve(&sc->xchg, LOGT_CUDA, LOGT_F32,
                                 (int64_t)(flashrnn_fused_xchg_bytes(a) / sizeof(float)), NULL));
    LOGT_TRY(logt_tensor_reserve(&sc->sync, LOGT_CUDA, LOGT_F32, (int64_t)a->H * ((a->B + 7) / 8),
                                 NULL));
    if (sc->planned_B[pass] == a->B) return LOGT_OK;
    LOGT_TRY(flashrnn_fused_plan(a, pass, &sc->tile[pass]));
    sc->planned_B[pass] = a->B;
    char line[2][160];   /* each pass's tiling (a pass not planned yet says so) */
    for (int i = 0; i < 2; i++) {
        const flashrnn_tiling *t = &sc->tile[i];
        char gates[24] = "";   /* a warp's gates, where fewer than all */
        const int wg = sc->planned_B[i] == a->B ? flashrnn_fused_warp_gates(a, t, (flashrnn_pass)i) : a->G;
        if (wg < a->G) snprintf(gates, sizeof gates, " gates=%d", wg);
        char share[24] = "";   /* backward: the clusters sharing the reload; forward: the wait before a poll */
        if (t->share > 1) snprintf(share, sizeof share, " share=%d", t->share);
        else if (i == FLASHRNN_FORWARD && t->grid_sync && !t->cluster && t->blocks_per_head > 1)
            snprintf(share, sizeof share, " poll=%d", flashrnn_fused_poll_delay(a));
        if (sc->planned_B[i] != a->B)
            snprintf(line[i], sizeof line[i], "not planned yet");
        else
            snprintf(line[i], sizeof line[i],
                     "hpb=%d bph=%d bt=%d wk=%d split=%d%s%s sync=%s%s threads=%d grid=%d regs=%d smem=%lld",
                     t->heads_per_block, t->blocks_per_head, t->batch_tile, t->warps_k,
                     t->cell_split, flashrnn_fused_cell_spread(a, t) ? " spread" : "",
                     gates,
                     !t->cluster ? (t->grid_sync ? "grid" : "none")
                     : flashrnn_fused_cluster_copy(a, t, (flashrnn_pass)i) ? "cluster/copy" : "cluster/cell",
                     share, t->threads, t->grid, t->regs_per_thread, (long long)t->smem_per_block);
    }
    snprintf(m->base.detail, sizeof m->base.detail, "fused tiling forward: %s; backward: %s; %.150s",
             line[0], line[1], sc->tile[pass].why);
    return LOGT_OK;
}

/* ---- the second stream ------------------------------------------------------------------ */

/* cuStreamWaitValue32 (a stream waits, holding no SM, until a word in device memory reaches a
 * value), from the driver through the runtime; NULL where it cannot be had. */
typedef CUresult (*wait_value_fn)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);
static void *driver_entry(const char *name)
{
    void *p = NULL;
    cudaDriverEntryPointQueryResult q;
    if (cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &q) == cudaSuccess
        && q == cudaDriverEntryPointSuccess)
        return p;
    (void)cudaGetLastError();
    return NULL;
}
static wait_value_fn stream_wait_value(void)
{
    static int tried;
    static wait_value_fn fn;
    if (!tried) tried = 1, fn = (wait_value_fn)driver_entry("cuStreamWaitValue32");
    return fn;
}
/* cuStreamWriteValue32: the stream writes a word once its work before it is done (by default
 * after a memory barrier: what that work wrote is visible to whoever reads the word) */
static wait_value_fn stream_write_value(void)
{
    static int tried;
    static wait_value_fn fn;
    if (!tried) tried = 1, fn = (wait_value_fn)driver_entry("cuStreamWriteValue32");
    return fn;
}

/* The second stream and its fork and join events, made once. */
static logt_status side_stream(flashrnn_cuda_scratch *sc)
{
    if (sc->side) return LOGT_OK;
    cudaStream_t s2;
    cudaEvent_t e1, e2;
    CUDA_TRY(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    sc->side = s2;
    CUDA_TRY(cudaEventCreateWithFlags(&e1, cudaEventDisableTiming));
    sc->ev_fork = e1;
    CUDA_TRY(cudaEventCreateWithFlags(&e2, cudaEventDisableTiming));
    sc->ev_join = e2;
    return LOGT_OK;
}

/* The input projection beside the forward (proj_overlap): W x in nch chunks of T / nch steps,
 * where the fused kernel leaves at least PROJ_FREE_SMS SMs without a block of its own (the
 * chunks' GEMMs run there while the kernel waits on nothing it holds), T / nch >= 16 steps
 * with nch <= 16, and every chunk's operands sit at the same alignment as the first's (the
 * same cuBLAS kernel for each: nothing the library does at a first call can come after the
 * launch). *nch = 1: the projection whole, before the kernel. The second stream is primed
 * before any kernel waits on it (forward_overlapped), and the kernel's wait ends in a trap
 * after 10 s. Timings: experiments/flashrnn-headdim, Design notes. */
#define PROJ_FREE_SMS 8
/* Also only where the chunks' GEMMs can keep ahead of the steps on those SMs: at most
 * PROJ_FLOP_PER_SM flops of W x a step for each free SM (bf16, f16; half that on TF32), a step
 * being about a microsecond; beyond it the kernel waits for its chunks
 * (experiments/flashrnn-headdim, Design notes). */
#define PROJ_FLOP_PER_SM 4.5e6
static logt_status proj_chunks(const flashrnn_model *m, const logt_ctx *ctx, const flashrnn_tiling *t, const logt_tensor *x,
                               int *nch, int *free_sms)
{
    *nch = 1;
    const int64_t T = x->shape[0], B = x->shape[1], I = x->shape[2];
    const int64_t GD = (int64_t)ngates(m) * m->base.cfg.hidden_size;
    const size_t es = logt_dtype_size(m->base.cfg.dtype);
    if (m->proj_overlap == 1 || !stream_wait_value() || !stream_write_value()) return LOGT_OK;
    /* other kernels beside this one (the net's wavefront): the SMs its tiling leaves are not
     * free for the chunks it would wait for */
    if (ctx->concurrent) return LOGT_OK;
    int dev = 0, sms = 0;
    CUDA_TRY(cudaGetDevice(&dev));
    CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    if (t->grid + PROJ_FREE_SMS > sms) return LOGT_OK;
    *free_sms = sms - t->grid;
    const double step_flop = 2.0 * (double)B * (double)I * (double)GD;
    if (step_flop > PROJ_FLOP_PER_SM * *free_sms * (is16(m->base.cfg.dtype) ? 1.0 : 0.5)) return LOGT_OK;
    for (int n = 16; n >= 2; n--) {
        const int64_t c = T / n;
        if (T % n == 0 && c >= 16 && c * B * I * (int64_t)es % 256 == 0 && c * B * GD * 4 % 256 == 0) {
            *nch = n;
            return LOGT_OK;
        }
    }
    return LOGT_OK;
}

/* The forward with its input projection in nch chunks (proj_chunks): chunk 0 on the context's
 * stream, then the kernel; on the second stream, once the kernel runs (its block 0 sets
 * proj[1]), each further chunk's GEMM and then its count in proj[0], which the kernel's
 * prefetch waits for before it copies that chunk's first step. The second stream's GEMMs are
 * told to fit the free_sms SMs the kernel leaves (cublasSetSmCountTarget): a library kernel
 * sized for the whole GPU whose blocks wait for each other (a split of the K loop over all
 * SMs) could otherwise wait for SMs that the kernel, waiting for it, never frees (until the
 * kernel's time-out). The first time a chunk's shape is
 * seen the second stream runs chunk 0 alone, so told, and the host waits for it, so that
 * anything the library does on a first call (load its kernel, set up a workspace) is done
 * before a kernel waits on that stream. The main stream then waits for the second. late
 * (proj_overlap = late, for the tests): each chunk's GEMM waits until the kernel asks for that
 * chunk (block 0 sets proj[1] to k + 1), so that the kernel waits for every chunk, the case
 * in which a kernel that did not wait would read W x before it is made. */
static logt_status forward_overlapped(flashrnn_cuda_scratch *sc, logt_ctx *ctx, flashrnn_fused_args *a,
                                      const logt_tensor *x, const void *Wop, int nch, int free_sms, int late)
{
    const int64_t T = a->T, B = a->B, I = x->shape[2], GD = (int64_t)a->G * a->H * a->dh, C = T / nch;
    const logt_dtype dt = a->dtype;
    const size_t es = logt_dtype_size(dt);
    cudaStream_t st = (cudaStream_t)ctx->stream;
    LOGT_TRY(side_stream(sc));
    cudaStream_t s2 = (cudaStream_t)sc->side;
    LOGT_TRY(logt_tensor_reserve(&sc->proj, LOGT_CUDA, LOGT_F32, 2, NULL));
    unsigned *w = (unsigned *)sc->proj.data;
    logt_ctx side = *ctx;
    side.stream = s2;
    cublasHandle_t hb = (cublasHandle_t)ctx->cublas;
    auto chunk = [&](logt_ctx *c, int64_t k) {
        return logt_gemm_ex(c, 0, 1, C * B, GD, I, 1.0f, dt, (const char *)x->data + k * C * B * I * es, I, 0,
                            Wop, I, 0, 0.0f, (float *)a->wx + k * C * B * GD, GD, 0, 1, 1);
    };
    auto on_side = [&](bool yes) {
        return cublasSetStream(hb, yes ? s2 : st) == CUBLAS_STATUS_SUCCESS
                       && cublasSetSmCountTarget(hb, yes ? free_sms : 0) == CUBLAS_STATUS_SUCCESS
                   ? LOGT_OK
                   : LOGT_FAIL(LOGT_ECUDA, "flashrnn forward: cublasSetStream or cublasSetSmCountTarget failed");
    };
    if (sc->primed_rows != C * B || sc->primed_sms != free_sms) {
        CUDA_TRY(cudaEventRecord((cudaEvent_t)sc->ev_fork, st));
        CUDA_TRY(cudaStreamWaitEvent(s2, (cudaEvent_t)sc->ev_fork, 0));
        LOGT_TRY(on_side(true));
        logt_status s = chunk(&side, 0);
        LOGT_TRY(on_side(false));
        LOGT_TRY(s);
        CUDA_TRY(cudaStreamSynchronize(s2));
        sc->primed_rows = C * B, sc->primed_sms = free_sms;
    }
    CUDA_TRY(cudaMemsetAsync(w, 0, 2 * sizeof(unsigned), st));
    LOGT_TRY(chunk(ctx, 0));
    CUDA_TRY(cudaEventRecord((cudaEvent_t)sc->ev_fork, st));
    a->wx_chunk = (int)C, a->wx_sync = w;
    LOGT_TRY(flashrnn_fused_forward(ctx, a, &sc->tile[0]));
    /* from here the kernel waits on the second stream: every way out of this function leaves
     * proj[0] counting all chunks, so that it ends (with a failure, its numbers are wrong) */
    CUDA_TRY(cudaStreamWaitEvent(s2, (cudaEvent_t)sc->ev_fork, 0));
    logt_status s = LOGT_OK;
    if (stream_wait_value()((CUstream)s2, (CUdeviceptr)(w + 1), 1, CU_STREAM_WAIT_VALUE_GEQ) != CUDA_SUCCESS)
        s = LOGT_FAIL(LOGT_ECUDA, "flashrnn forward: cuStreamWaitValue32 failed");
    if (s == LOGT_OK) s = on_side(true);
    for (int64_t k = 1; k < nch && s == LOGT_OK; k++) {
        if (late && stream_wait_value()((CUstream)s2, (CUdeviceptr)(w + 1), (cuuint32_t)(k + 1),
                                        CU_STREAM_WAIT_VALUE_GEQ) != CUDA_SUCCESS)
            s = LOGT_FAIL(LOGT_ECUDA, "flashrnn forward: cuStreamWaitValue32 failed");
        if (s == LOGT_OK) s = chunk(&side, k);
        if (s == LOGT_OK && stream_write_value()((CUstream)s2, (CUdeviceptr)w, (cuuint32_t)k, 0) != CUDA_SUCCESS)
            s = LOGT_FAIL(LOGT_ECUDA, "flashrnn forward: cuStreamWriteValue32 failed");
    }
    if (s != LOGT_OK) {   /* release the kernel: every chunk counted, after what did get queued */
        (void)cudaMemsetAsync(w, 0xff, sizeof(unsigned), s2);
        (void)on_side(false);
        return s;
    }
    LOGT_TRY(on_side(false));
    CUDA_TRY(cudaEventRecord((cudaEvent_t)sc->ev_join, s2));
    CUDA_TRY(cudaStreamWaitEvent(st, (cudaEvent_t)sc->ev_join, 0));
    return LOGT_OK;
}

/* ---- the final state and its gradient, for segments (recompute) --------------------------- */

/* dst [n] of dtype dt from the f32 src on ctx's stream (a copy for f32). */
static logt_status from_f32(void *dst, logt_dtype dt, const float *src, int64_t n, cudaStream_t st)
{
    if (dt == LOGT_F32)
        CUDA_TRY(cudaMemcpyAsync(dst, src, (size_t)n * sizeof(float), cudaMemcpyDeviceToDevice, st));
    else LOGT_TRY(logt_cuda_convert_on(st, dst, dt, src, LOGT_F32, n));
    return LOGT_OK;
}

/* The final state of a forward over T steps into m->hT, m->cT where their data is given: h's
 * last row (the dtype's), and the lstm's c, kept in f32 by both paths, in the dtype. */
static logt_status final_state(flashrnn_model *m, flashrnn_cuda_scratch *sc, logt_ctx *ctx,
                               const logt_tensor *h, int64_t T, int64_t B)
{
    const int64_t D = m->base.cfg.hidden_size;
    const logt_dtype dt = m->base.cfg.dtype;
    const size_t es = logt_dtype_size(dt);
    cudaStream_t st = (cudaStream_t)ctx->stream;
    if (m->base.hT.data)
        CUDA_TRY(cudaMemcpyAsync(m->base.hT.data, (const char *)h->data + (T - 1) * B * D * es,
                                 (size_t)(B * D) * es, cudaMemcpyDeviceToDevice, st));
    if (m->base.cT.data && m->cell == FLASHRNN_LSTM)   /* a gru keeps nothing in c */
        LOGT_TRY(from_f32(m->base.cT.data, dt, (const float *)sc->c.data + (T - 1) * B * D, B * D, st));
    return LOGT_OK;
}

/* ---- forward -------------------------------------------------------------------------------- */

static logt_status forward_pass(flashrnn_model *m, flashrnn_cuda_scratch *sc, const logt_tensor *x,
                                logt_tensor *h, logt_ctx *ctx);

extern "C" logt_status flashrnn_forward_cuda(flashrnn_model *m, const logt_tensor *x,
                                             logt_tensor *h, logt_ctx *ctx)
{
    LOGT_TRY(logt_ctx_require_cuda(ctx, "flashrnn"));
    LOGT_TRY(check_act(m, x, "x"));
    LOGT_TRY(check_act(m, h, "h"));
    flashrnn_cuda_scratch *sc = NULL;
    LOGT_TRY(scratch_of(m, &sc));
    LOGT_TRY(forward_pass(m, sc, x, h, ctx));
    return final_state(m, sc, ctx, h, x->shape[0], x->shape[1]);
}

/* The 16-bit copies of W (nw values) and R (nr) that the products take, made again only when
 * the parameters have changed since the last copy (every writer of them moves wversion on,
 * models/model.h): a recomputed segment, a forward-only sweep and the backward reuse them.
 * An instance of a layer (m->base.origin: a wavefront's kept segment, on the layer's stream)
 * takes views of the layer's copies, made current first, instead of copies of its own. */
static logt_status weights16(flashrnn_model *m, flashrnn_cuda_scratch *sc, logt_ctx *ctx, const float *W,
                             const float *R, int64_t nw, int64_t nr)
{
    const logt_dtype dt = m->base.cfg.dtype;
    if (m->base.origin) {
        flashrnn_model *o = (flashrnn_model *)m->base.origin;
        flashrnn_cuda_scratch *osc = NULL;
        LOGT_TRY(scratch_of(o, &osc));
        LOGT_TRY(weights16(o, osc, ctx, W, R, nw, nr));
        sc->wd = osc->wd, sc->rd = osc->rd;
        sc->wd.owns = sc->rd.owns = 0;
        return LOGT_OK;
    }
    if (sc->w16_of == m->base.w.data && sc->w16_version == m->base.wversion) return LOGT_OK;
    sc->w16_of = NULL;   /* until both copies are made */
    LOGT_TRY(logt_tensor_reserve(&sc->wd, LOGT_CUDA, dt, nw, NULL));
    LOGT_TRY(logt_tensor_reserve(&sc->rd, LOGT_CUDA, dt, nr, NULL));
    LOGT_TRY(logt_cuda_convert_on(ctx->stream, sc->wd.data, dt, W, LOGT_F32, nw));
    LOGT_TRY(logt_cuda_convert_on(ctx->stream, sc->rd.data, dt, R, LOGT_F32, nr));
    sc->w16_of = m->base.w.data, sc->w16_version = m->base.wversion;
    return LOGT_OK;
}

/* The forward's input projection and recurrence. */
static logt_status forward_pass(flashrnn_model *m, flashrnn_cuda_scratch *sc, const logt_tensor *x,
                                logt_tensor *h, logt_ctx *ctx)
{
    const int64_t T = x->shape[0], B = x->shape[1], I = x->shape[2], D = m->base.cfg.hidden_size;
    const int64_t N = T * B, G = ngates(m), H = m->H, dh = m->dh, NS = nsaved(m), NST = nstates(m);
    const logt_dtype dt = m->base.cfg.dtype;
    LOGT_TRY(flashrnn_check_states(m, B));
    const float *W = param(m, &m->base.w, "W"), *R = param(m, &m->base.w, "R");
    if (is16(dt)) LOGT_TRY(weights16(m, sc, ctx, W, R, G * D * I, H * dh * G * dh));
    LOGT_TRY(logt_tensor_reserve(&sc->wx, LOGT_CUDA, LOGT_F32, N * G * D, NULL));
    LOGT_TRY(logt_tensor_reserve(&sc->s, LOGT_CUDA, LOGT_F32, N * NS * D, NULL));
    if (NST) LOGT_TRY(logt_tensor_reserve(&sc->c, LOGT_CUDA, LOGT_F32, N * NST * D, NULL));
    flashrnn_fused_args a;
    LOGT_TRY(prepare(m, sc, T, B, &a));
    a.wx = (const float *)sc->wx.data, a.h = h->data, a.s = (float *)sc->s.data;
    a.c = NST ? (float *)sc->c.data : NULL;
    const void *Wop = is16(dt) ? sc->wd.data : (const void *)W;
    if (!m->alternating) {   /* fused: the projection may run beside the kernel (proj_overlap) */
        if (a.slstm) {   /* c0, n0, m0 as one fp32 array, which the backward reads too */
            LOGT_TRY(flashrnn_alt_slstm_initial(m, &sc->alt, ctx, &a));
            a.st0 = (const float *)sc->alt.st0.data;
        }
        LOGT_TRY(plan(m, sc, &a, FLASHRNN_FORWARD));
        a.xchg = sc->xchg.data, a.sync = (unsigned *)sc->sync.data;
        int nch = 1, free_sms = 0;
        LOGT_TRY(proj_chunks(m, ctx, &sc->tile[0], x, &nch, &free_sms));
        if (nch > 1) return forward_overlapped(sc, ctx, &a, x, Wop, nch, free_sms, m->proj_overlap == 2);
    }

    /* 1. the input projection of every step: WX = X W^T */
    LOGT_TRY(logt_gemm_ex(ctx, 0, 1, N, G * D, I, 1.0f, dt, x->data, I, 0, Wop, I, 0, 0.0f,
                          (float *)sc->wx.data, G * D, 0, 1, 1));
    /* 2. the recurrence */
    if (m->alternating) {
        snprintf(m->base.detail, sizeof m->base.detail,
                 "alternating: per step one cuBLAS strided-batched GEMM over %lld heads "
                 "([%lld x %lld] x [%lld x %lld]) and one pointwise kernel",
                 (long long)H, (long long)B, (long long)dh, (long long)dh, (long long)(G * dh));
        return flashrnn_alt_forward(m, &sc->alt, ctx, &a);
    }
    return flashrnn_fused_forward(ctx, &a, &sc->tile[0]);
}

/* ---- backward ------------------------------------------------------------------------------- */

/* The weights' gradients over the steps [t0, t1) (operands of the activations' dtype, fp32
 * results, added to what is there unless `first` and not m->base.dw_add, which a segment
 * sets to add to the segments after it), and dx's rows of those steps into dxf. */
static logt_status grad_gemms(flashrnn_model *m, flashrnn_cuda_scratch *sc, logt_ctx *ctx, const void *h0,
                              float *dxf, int64_t t0, int64_t t1, int first)
{
    const logt_tensor *x = &m->x;
    const int64_t B = x->shape[1], I = x->shape[2], D = m->base.cfg.hidden_size;
    const int64_t G = ngates(m), H = m->H, hd = m->dh, n0 = t0 * B, n = (t1 - t0) * B;
    const logt_dtype dt = m->base.cfg.dtype;
    const size_t es = logt_dtype_size(dt);
    const int gru = m->cell == FLASHRNN_GRU;   /* the one cell whose dL/d(R h) is its own */
    const char *dxa = (const char *)sc->dxa.data, *dra = gru ? (const char *)sc->dra.data : dxa;
    const float beta = first && !m->base.dw_add ? 0.0f : 1.0f;
    float *dW = param(m, &m->base.dw, "W"), *dR = param(m, &m->base.dw, "R");
    float *db = param(m, &m->base.dw, "b");
    const void *W = is16(dt) ? sc->wd.data : (const void *)param(m, &m->base.w, "W");
    /* dR[k][m][q·dh + j] = Σ_n h_{n-1}[k·dh + m] dRA[n][q·D + k·dh + j]: the first step's
     * h_{-1} is h0, the others' are h's rows shifted by one step (no copy) */
    for (int64_t q = 0; q < G; q++) {
        float b = beta;
        if (t0 == 0) {
            LOGT_TRY(logt_gemm_ex(ctx, 1, 0, hd, hd, B, 1.0f, dt, h0, D, hd, dra + q * D * es, G * D,
                                  hd, b, dR + q * hd, G * hd, hd * G * hd, H, 1));
            b = 1.0f;
        }
        const int64_t s0 = t0 ? t0 : 1;   /* steps from s0 on take h_{s-1} from h */
        if (t1 > s0)
            LOGT_TRY(logt_gemm_ex(ctx, 1, 0, hd, hd, (t1 - s0) * B, 1.0f, dt,
                                  (const char *)m->h.data + (s0 - 1) * B * D * es, D, hd,
                                  dra + (s0 * B * G * D + q * D) * es, G * D, hd, b, dR + q * hd,
                                  G * hd, hd * G * hd, H, 1));
    }
    LOGT_TRY(logt_gemm_ex(ctx, 1, 0, G * D, I, n, 1.0f, dt, dxa + n0 * G * D * es, G * D, 0,
                          (const char *)x->data + n0 * I * es, I, 0, beta, dW, I, 0, 1, 1));
    LOGT_TRY(logt_gemm_ex(ctx, 1, 0, G * D, 1, n, 1.0f, dt, dxa + n0 * G * D * es, G * D, 0,
                          sc->ones.data, 1, 0, beta, db, 1, 0, 1, 1));
    if (gru)
        LOGT_TRY(logt_gemm_ex(ctx, 1, 0, D, 1, n, 1.0f, dt, dra + (n0 * G * D + 2 * D) * es, G * D, 0,
                              sc->ones.data, 1, 0, beta, param(m, &m->base.dw, "bn"), 1, 0, 1, 1));
    if (dxf)
        LOGT_TRY(logt_gemm_ex(ctx, 0, 0, n, I, G * D, 1.0f, dt, dxa + n0 * G * D * es, G * D, 0, W, I, 0,
                              0.0f, dxf + n0 * I, I, 0, 1, 1));
    return LOGT_OK;
}

/* Chunks of steps whose weight gradients run beside the fused backward (grad_overlap): where
 * the tiling counts steps in global memory (head_sync = grid) and shares its reload
 * (grid_share), T has at least 64 steps and the driver's stream wait is there; up to 8, each
 * at least 32 steps. 1: none (after it). Without the shared reload, where every block
 * reloads the whole exchange from L2 each step, the products' traffic slows the recurrence
 * more than the overlap gains (experiments/flashrnn-headdim, Design notes). */
static int overlap_chunks(const flashrnn_model *m, const flashrnn_tiling *t, int64_t T)
{
    if (m->alternating || m->grad_overlap == 1 || !t->grid_sync || t->share < 2 || T < 64
        || !stream_wait_value())
        return 1;
    const int64_t c = T / 32;
    return c > 8 ? 8 : (int)c;
}

/* The fused backward with the gradients' products beside it: the counters zeroed, a fork
 * event, the kernel; on the second stream, for each chunk of steps from the last down, a
 * wait until every (head group, batch tile) has counted its steps, then their products; the
 * main stream then waits for the second. */
static logt_status backward_overlapped(flashrnn_model *m, flashrnn_cuda_scratch *sc, logt_ctx *ctx,
                                       flashrnn_fused_args *a, float *dxf, int nch)
{
    const flashrnn_tiling *t = &sc->tile[1];
    const int64_t T = a->T;
    cudaStream_t st = (cudaStream_t)ctx->stream;
    LOGT_TRY(side_stream(sc));
    cudaStream_t s2 = (cudaStream_t)sc->side;
    const int ncounters = t->grid / t->blocks_per_head;
    /* zeroed here, before the fork, as well as by the launch: the second stream must not read
     * the last pass's counts */
    CUDA_TRY(cudaMemsetAsync(a->sync, 0, (size_t)ncounters * sizeof(unsigned), st));
    CUDA_TRY(cudaEventRecord((cudaEvent_t)sc->ev_fork, st));
    LOGT_TRY(flashrnn_fused_backward(ctx, a, t));
    CUDA_TRY(cudaStreamWaitEvent(s2, (cudaEvent_t)sc->ev_fork, 0));
    logt_ctx side = *ctx;
    side.stream = s2;
    cublasHandle_t hb = (cublasHandle_t)ctx->cublas;
    if (cublasSetStream(hb, s2) != CUBLAS_STATUS_SUCCESS)
        return LOGT_FAIL(LOGT_ECUDA, "flashrnn backward: cublasSetStream to the second stream failed");
    logt_status s = LOGT_OK;
    wait_value_fn wait = stream_wait_value();
    for (int c = 0; c < nch && s == LOGT_OK; c++) {
        const int64_t t1 = T - T * c / nch, t0 = T - T * (c + 1) / nch;
        for (int k = 0; k < ncounters && s == LOGT_OK; k++)
            if (wait((CUstream)s2, (CUdeviceptr)((unsigned *)a->sync + k),
                     (cuuint32_t)((int64_t)t->blocks_per_head * (T - t0)), CU_STREAM_WAIT_VALUE_GEQ) != CUDA_SUCCESS)
                s = LOGT_FAIL(LOGT_ECUDA, "flashrnn backward: cuStreamWaitValue32 failed");
        if (s == LOGT_OK) s = grad_gemms(m, sc, &side, a->h0, dxf, t0, t1, c == 0);
    }
    if (cublasSetStream(hb, st) != CUBLAS_STATUS_SUCCESS && s == LOGT_OK)
        s = LOGT_FAIL(LOGT_ECUDA, "flashrnn backward: cublasSetStream back to the context's stream failed");
    CUDA_TRY(cudaEventRecord((cudaEvent_t)sc->ev_join, s2));
    CUDA_TRY(cudaStreamWaitEvent(st, (cudaEvent_t)sc->ev_join, 0));
    return s;
}

extern "C" logt_status flashrnn_backward_cuda(flashrnn_model *m, const logt_tensor *dh,
                                              logt_tensor *dx, logt_ctx *ctx)
{
    LOGT_TRY(logt_ctx_require_cuda(ctx, "flashrnn"));
    LOGT_TRY(check_act(m, dh, "dh"));
    if (dx) LOGT_TRY(check_act(m, dx, "dx"));
    flashrnn_cuda_scratch *sc = NULL;
    LOGT_TRY(scratch_of(m, &sc));
    if (!sc->s.data)
        return LOGT_FAIL(LOGT_EINVAL, "flashrnn backward before forward: run forward first");
    const logt_tensor *x = &m->x;
    const int64_t T = x->shape[0], B = x->shape[1], I = x->shape[2], D = m->base.cfg.hidden_size;
    const int64_t N = T * B, G = ngates(m);
    const logt_dtype dt = m->base.cfg.dtype;
    if (dh->shape[0] != T || dh->shape[1] != B || dh->shape[2] != D)
        return LOGT_FAIL(LOGT_EINVAL, "flashrnn backward: dh is [%lld][%lld][%lld], forward's h "
                         "was [%lld][%lld][%lld]", (long long)dh->shape[0], (long long)dh->shape[1],
                         (long long)dh->shape[2], (long long)T, (long long)B, (long long)D);
    const int gru = m->cell == FLASHRNN_GRU;
    LOGT_TRY(logt_tensor_reserve(&sc->dxa, LOGT_CUDA, dt, N * G * D, NULL));
    if (gru) LOGT_TRY(logt_tensor_reserve(&sc->dra, LOGT_CUDA, dt, N * G * D, NULL));
    flashrnn_fused_args a;
    LOGT_TRY(prepare(m, sc, T, B, &a));
    a.h = m->h.data, a.s = (float *)sc->s.data, a.c = nstates(m) ? (float *)sc->c.data : NULL;
    a.dH = dh->data, a.dxa = sc->dxa.data, a.dra = gru ? sc->dra.data : NULL;
    a.dh0 = m->base.dh0.data, a.dc0 = m->base.dc0.data;
    a.dhT = m->base.dhT.data, a.dcT = m->cell == FLASHRNN_LSTM ? m->base.dcT.data : NULL;
    if (a.slstm && !m->alternating) {   /* from the forward's st0; dL/d(c0, n0, m0) into dcr */
        LOGT_TRY(logt_tensor_reserve(&sc->alt.dcr, LOGT_CUDA, LOGT_F32, B * 3 * D, NULL));
        a.st0 = (const float *)sc->alt.st0.data, a.dst0 = (float *)sc->alt.dcr.data;
    }

    /* 2. (below) the weights' gradients and dx, every step at once, or beside the fused
     * kernel in chunks of steps (backward_overlapped) */
    int fresh = 0;
    LOGT_TRY(logt_tensor_reserve(&sc->ones, LOGT_CUDA, dt, N, &fresh));
    if (fresh) {   /* ones in the dtype, through an fp32 fill of dxf's space */
        LOGT_TRY(logt_tensor_reserve(&sc->dxf, LOGT_CUDA, LOGT_F32, N * I > N ? N * I : N, NULL));
        LOGT_TRY(logt_cuda_fill_f32(ctx, (float *)sc->dxf.data, N, 1.0f));
        LOGT_TRY(logt_cuda_convert_on(ctx->stream, sc->ones.data, dt, sc->dxf.data, LOGT_F32, N));
    }
    float *dxf = NULL;
    if (dx) {
        dxf = (float *)dx->data;
        if (is16(dt)) {
            LOGT_TRY(logt_tensor_reserve(&sc->dxf, LOGT_CUDA, LOGT_F32, N * I, NULL));
            dxf = (float *)sc->dxf.data;
        }
    }

    /* 1. back through time */
    if (m->alternating) {
        LOGT_TRY(flashrnn_alt_backward(m, &sc->alt, ctx, &a));
    } else {
        LOGT_TRY(plan(m, sc, &a, FLASHRNN_BACKWARD));
        a.xchg = sc->xchg.data, a.sync = (unsigned *)sc->sync.data;
        const int nch = overlap_chunks(m, &sc->tile[1], T);
        if (nch > 1) {
            LOGT_TRY(backward_overlapped(m, sc, ctx, &a, dxf, nch));
            if (dx && is16(dt)) LOGT_TRY(logt_cuda_convert_on(ctx->stream, dx->data, dt, dxf, LOGT_F32, N * I));
            if (a.slstm) LOGT_TRY(flashrnn_alt_slstm_state_grads(m, &sc->alt, ctx, B, D));
            return LOGT_OK;
        }
        LOGT_TRY(flashrnn_fused_backward(ctx, &a, &sc->tile[1]));
        if (a.slstm) LOGT_TRY(flashrnn_alt_slstm_state_grads(m, &sc->alt, ctx, B, D));
    }
    LOGT_TRY(grad_gemms(m, sc, ctx, a.h0, dxf, 0, T, 1));
    if (dx && is16(dt)) LOGT_TRY(logt_cuda_convert_on(ctx->stream, dx->data, dt, dxf, LOGT_F32, N * I));
    return LOGT_OK;
}

extern "C" void flashrnn_free_cuda(flashrnn_model *m)
{
    flashrnn_cuda_scratch *sc = (flashrnn_cuda_scratch *)m->cuda;
    if (!sc) return;
    logt_tensor *all[] = {&sc->wd, &sc->rd, &sc->wx, &sc->s, &sc->c, &sc->zeros, &sc->dxa,
                          &sc->dra, &sc->dxf, &sc->ones, &sc->xchg, &sc->sync, &sc->proj,
                         };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) logt_tensor_free(all[i]);
    flashrnn_alt_free(&sc->alt);
    if (sc->side) (void)cudaStreamDestroy((cudaStream_t)sc->side);
    if (sc->ev_fork) (void)cudaEventDestroy((cudaEvent_t)sc->ev_fork);
    if (sc->ev_join) (void)cudaEventDestroy((cudaEvent_t)sc->ev_join);
    free(sc);
    m->cuda = NULL;
}
