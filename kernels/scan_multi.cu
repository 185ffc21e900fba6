/* scan_multi.cu — the sequence-parallel scan on G GPUs of one process (scan_multi.h): each
 * GPU summarises its piece, the summaries go to every GPU by ncclAllGather, each GPU folds
 * the carries before it and runs the one-GPU scan (scan_cuda) from its carry.
 *
 * The summary, per round (a window of steps next to the part already composed, doubling):
 *   win_tiles   thread per (channel, run of L steps of the window): the run's map (A, B),
 *               walked in the direction of flow;
 *   win_fold    a warp per channel: the runs' maps composed in flow order (each lane a
 *               contiguous share, then an ordered tree over the lanes), composed before the
 *               map so far, and a flag raised when some channel's A is not yet 0.
 * The host reads the flags after each round (one small copy per GPU): a round more only
 * where a GPU still has a channel whose A is not 0. Gates in [0.5, 1) end in the first
 * round (A underflows to 0 within ~350 steps); gates at 1 walk the whole piece.
 */
#include "scan_multi.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/cuda.h"
#include "../core/cuda_check.cuh"
#include "../core/ctx.h"
#include "../core/elem.cuh"
#include "scan.h"

#if __has_include(<nccl.h>) && defined(LOGT_HAVE_NCCL)
#include <nccl.h>
#define HAVE_NCCL 1
#else
#define HAVE_NCCL 0
#endif

#define BLOCK 256
#define WINDOW0 4096        /* the first window: steps next to the outflow end        */
#define THREADS_WANTED (1 << 18)   /* threads a round aims for (runs × channels)     */

__device__ __forceinline__ float2 after(float2 earlier, float2 later)
{
    return make_float2(later.x * earlier.x, later.x * earlier.y + later.y);
}

/* Steps [t0, t1) of the piece, flow order = increasing t (forward) or decreasing (reversed):
 * run j covers [t0 + j·L, t0 + (j+1)·L) ∩ [t0, t1); thread per (channel, run), grid-stride. */
template <typename E>
__global__ void win_tiles_kernel(int reverse, int64_t C, int64_t t0, int64_t t1, int64_t L,
                                 int64_t nruns, const E *a, const E *b, float2 *runs)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < nruns * C;
         i += (int64_t)gridDim.x * blockDim.x) {
        const int64_t c = i % C, j = i / C;
        const int64_t lo = t0 + j * L, hi = lo + L < t1 ? lo + L : t1;
        float2 m = make_float2(1.0f, 0.0f);
        for (int64_t s = 0; s < hi - lo; s++) {
            const int64_t t = reverse ? hi - 1 - s : lo + s;
            m = after(m, make_float2(ld(a + t * C + c), ld(b + t * C + c)));
        }
        runs[j * C + c] = m;
    }
}

/* A warp per channel (the warps of the grid striding over the channels): the window's runs
 * in flow order (forward: j up; reversed: j down), then before the map so far:
 * sofar = window ∘ sofar. A[c], B[c] hold the map so far. */
__global__ void win_fold_kernel(int reverse, int64_t C, int64_t nruns, const float2 *runs,
                                float *A, float *Bm, int *open)
{
    const int lane = threadIdx.x & 31;
    const int64_t nwarps = (int64_t)gridDim.x * (blockDim.x / 32);
    for (int64_t w = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32; w < C; w += nwarps) {
        const int64_t per = (nruns + 31) / 32, k0 = lane * per < nruns ? lane * per : nruns;
        const int64_t k1 = k0 + per < nruns ? k0 + per : nruns;
        float2 m = make_float2(1.0f, 0.0f);
        for (int64_t k = k0; k < k1; k++) {   /* k-th run in flow order */
            const int64_t j = reverse ? nruns - 1 - k : k;
            m = after(m, runs[j * C + w]);
        }
        for (int d = 1; d < 32; d <<= 1) {   /* lane i: [i, i + 2d) from [i, i + d) and [i + d, i + 2d) */
            const float2 o = make_float2(__shfl_down_sync(0xffffffffu, m.x, d),
                                         __shfl_down_sync(0xffffffffu, m.y, d));
            if (lane + d < 32) m = after(m, o);
        }
        if (lane == 0) {
            const float2 s = after(m, make_float2(A[w], Bm[w]));
            A[w] = s.x, Bm[w] = s.y;
            if (s.x != 0.0f) atomicOr(open, 1);
        }
    }
}

/* The piece where the state enters: its map applied to h0, so A = 0, B = the state leaving. */
template <typename E>
__global__ void apply_h0_kernel(int64_t C, const E *h0, float *A, float *Bm)
{
    for (int64_t c = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; c < C; c += (int64_t)gridDim.x * blockDim.x) {
        Bm[c] += A[c] * (h0 ? ld(h0 + c) : 0.0f);
        A[c] = 0.0f;
    }
}

__global__ void identity_kernel(int64_t C, float *A, float *Bm)
{
    for (int64_t c = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; c < C; c += (int64_t)gridDim.x * blockDim.x)
        A[c] = 1.0f, Bm[c] = 0.0f;
}

/* Piece p's carry from the gathered maps [G][2][C]: the pieces before it in flow order, in
 * fp32 whatever the arrays' dtype (a bf16 carry would round the state handed over). */
__global__ void carry_kernel(int reverse, int G, int p, int64_t C, const float *all, float *carry)
{
    for (int64_t c = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; c < C; c += (int64_t)gridDim.x * blockDim.x) {
        float x = 0.0f;
        for (int q = reverse ? G - 1 : 0; q != p; q += reverse ? -1 : 1)
            x = all[(int64_t)q * 2 * C + c] * x + all[(int64_t)q * 2 * C + C + c];
        carry[c] = x;
    }
}

/* ---- host ---------------------------------------------------------------------------------- */

struct scan_multi {
    int G;
    logt_ctx *ctx[SCAN_MULTI_MAX];
    logt_tensor send[SCAN_MULTI_MAX];    /* [2][C] this GPU's map                          */
    logt_tensor all[SCAN_MULTI_MAX];     /* [G][2][C] every GPU's                           */
    logt_tensor carry[SCAN_MULTI_MAX];   /* [C] fp32                                        */
    logt_tensor runs[SCAN_MULTI_MAX];    /* a window's run maps                             */
    logt_tensor open[SCAN_MULTI_MAX];    /* [1] int: some channel's A is not 0              */
    cudaEvent_t ev[SCAN_MULTI_MAX][4];
#if HAVE_NCCL
    ncclComm_t comm[SCAN_MULTI_MAX];
#endif
};

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

extern "C" int scan_multi_gpus(const scan_multi *m) { return m->G; }

extern "C" logt_ctx *scan_multi_ctx(scan_multi *m, int p) { return p >= 0 && p < m->G ? m->ctx[p] : NULL; }

extern "C" void *scan_multi_comm(scan_multi *m, int p)
{
#if HAVE_NCCL
    return p >= 0 && p < m->G ? (void *)m->comm[p] : NULL;
#else
    (void)m, (void)p;
    return NULL;
#endif
}

extern "C" void scan_multi_destroy(scan_multi *m)
{
    if (!m) return;
    for (int p = 0; p < m->G; p++) {
        cudaSetDevice(p);
#if HAVE_NCCL
        if (m->comm[p]) ncclCommDestroy(m->comm[p]);
#endif
        logt_tensor *all[] = {&m->send[p], &m->all[p], &m->carry[p], &m->runs[p], &m->open[p]};
        for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) logt_tensor_free(all[i]);
        for (int e = 0; e < 4; e++)
            if (m->ev[p][e]) cudaEventDestroy(m->ev[p][e]);
        logt_ctx_destroy(m->ctx[p]);
    }
    cudaSetDevice(0);
    free(m);
}

extern "C" logt_status scan_multi_create(int G, scan_multi **out)
{
    *out = NULL;
    if (G < 1 || G > SCAN_MULTI_MAX)
        return LOGT_FAIL(LOGT_EINVAL, "scan_multi: G = %d GPUs: 1 to %d", G, SCAN_MULTI_MAX);
#if !HAVE_NCCL
    return LOGT_FAIL(LOGT_EUNSUPPORTED, "scan_multi: logt was built without NCCL (nccl.h and "
                     "libnccl were not found next to nvcc): the multi-GPU scan needs it. HINT: "
                     "install NCCL (Debian: libnccl-dev) and rebuild");
#else
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n < G)
        return LOGT_FAIL(LOGT_EUNSUPPORTED, "scan_multi: %d GPUs asked for, %d visible%s%s", G,
                         e == cudaSuccess ? n : 0, e == cudaSuccess ? "" : ": ",
                         e == cudaSuccess ? "" : cudaGetErrorString(e));
    scan_multi *m = (scan_multi *)calloc(1, sizeof *m);
    if (!m) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    m->G = G;
    setenv("NCCL_NVLS_ENABLE", "0", 0);   /* NVLink multicast off unless asked for */
    logt_status s = LOGT_OK;
    for (int p = 0; p < G && s == LOGT_OK; p++) {
        cudaError_t e = cudaSetDevice(p);
        if (e != cudaSuccess) {
            s = LOGT_FAIL(LOGT_ECUDA, "scan_multi: cudaSetDevice(%d) failed: %s", p, cudaGetErrorString(e));
            break;
        }
        s = logt_ctx_create(LOGT_CUDA, &m->ctx[p]);
        for (int k = 0; k < 4 && s == LOGT_OK; k++)
            if (cudaEventCreate(&m->ev[p][k]) != cudaSuccess)
                s = LOGT_FAIL(LOGT_ECUDA, "scan_multi: cudaEventCreate on GPU %d failed", p);
    }
    if (s == LOGT_OK) {
        int devs[SCAN_MULTI_MAX];
        for (int p = 0; p < G; p++) devs[p] = p;
        ncclResult_t r = ncclCommInitAll(m->comm, G, devs);
        if (r != ncclSuccess)
            s = LOGT_FAIL(LOGT_ECUDA, "scan_multi: ncclCommInitAll over %d GPUs failed: %s", G,
                          ncclGetErrorString(r));
    }
    cudaSetDevice(0);
    if (s != LOGT_OK) {
        scan_multi_destroy(m);
        return s;
    }
    *out = m;
    return LOGT_OK;
#endif
}

#if HAVE_NCCL
/* One round of GPU p's summary: the window [off, off + len) of flow distance from the
 * outflow end composed before the map so far in m->send[p], and m->open[p] raised when some
 * channel's A is not yet 0 (queued, not waited for). */
template <typename E>
static logt_status summary_round(scan_multi *m, int p, int reverse, int64_t T, int64_t C,
                                 const E *a, const E *b, int64_t off, int64_t len)
{
    cudaStream_t st = (cudaStream_t)m->ctx[p]->stream;
    float *A = (float *)m->send[p].data, *Bm = A + C;
    /* the window: steps at flow distance [off, off + len) from the outflow end */
    const int64_t t0 = reverse ? off : T - off - len, t1 = t0 + len;
    int64_t nruns = THREADS_WANTED / C;
    nruns = nruns < 1 ? 1 : nruns > len ? len : nruns;
    const int64_t L = (len + nruns - 1) / nruns;
    nruns = (len + L - 1) / L;
    LOGT_TRY(logt_tensor_reserve(&m->runs[p], LOGT_CUDA, LOGT_F32, 2 * nruns * C, NULL));
    float2 *runs = (float2 *)m->runs[p].data;
    int *open = (int *)m->open[p].data;
    CUDA_TRY(cudaMemsetAsync(open, 0, sizeof(int), st));
    win_tiles_kernel<E><<<logt_cuda_grid(nruns * C, BLOCK), BLOCK, 0, st>>>(reverse, C, t0, t1, L, nruns, a, b, runs);
    LAUNCH_TRY();
    win_fold_kernel<<<logt_cuda_grid(C * 32, BLOCK), BLOCK, 0, st>>>(reverse, C, nruns, runs, A, Bm, open);
    LAUNCH_TRY();
    return LOGT_OK;
}

template <typename E>
static logt_status run_typed(scan_multi *m, int reverse, const int64_t *T, int64_t C, logt_dtype dt,
                             const void *const *a, const void *const *b, const void *h0,
                             void *const *h, scan_multi_times *times)
{
    const int G = m->G, first = reverse ? G - 1 : 0, last = reverse ? 0 : G - 1;
    for (int p = 0; p < G; p++) {   /* buffers, then everyone idle before the clock starts */
        CUDA_TRY(cudaSetDevice(p));
        LOGT_TRY(logt_tensor_reserve(&m->send[p], LOGT_CUDA, LOGT_F32, 2 * C, NULL));
        LOGT_TRY(logt_tensor_reserve(&m->all[p], LOGT_CUDA, LOGT_F32, (int64_t)G * 2 * C, NULL));
        LOGT_TRY(logt_tensor_reserve(&m->carry[p], LOGT_CUDA, LOGT_F32, C, NULL));
        LOGT_TRY(logt_tensor_reserve(&m->open[p], LOGT_CUDA, LOGT_F32, 1, NULL));
        CUDA_TRY(cudaDeviceSynchronize());
    }
    const double t_start = now_ms();
    /* 1. summaries: every GPU but the outflow one, rounds of doubling windows */
    int64_t off[SCAN_MULTI_MAX] = {0}, len[SCAN_MULTI_MAX];
    int active[SCAN_MULTI_MAX], rounds[SCAN_MULTI_MAX] = {0}, left = 0;
    for (int p = 0; p < G; p++) {
        CUDA_TRY(cudaSetDevice(p));
        cudaStream_t st = (cudaStream_t)m->ctx[p]->stream;
        CUDA_TRY(cudaEventRecord(m->ev[p][0], st));
        float *A = (float *)m->send[p].data;
        identity_kernel<<<logt_cuda_grid(C, BLOCK), BLOCK, 0, st>>>(C, A, A + C);
        LAUNCH_TRY();
        active[p] = p != last;
        len[p] = WINDOW0 < T[p] ? WINDOW0 : T[p];
        left += active[p];
    }
    while (left > 0) {
        for (int p = 0; p < G; p++) {
            if (!active[p]) continue;
            CUDA_TRY(cudaSetDevice(p));
            LOGT_TRY(summary_round<E>(m, p, reverse, T[p], C, (const E *)a[p], (const E *)b[p], off[p], len[p]));
            rounds[p]++;
        }
        for (int p = 0; p < G; p++) {
            if (!active[p]) continue;
            CUDA_TRY(cudaSetDevice(p));
            int open = 0;
            CUDA_TRY(cudaMemcpyAsync(&open, m->open[p].data, sizeof open, cudaMemcpyDeviceToHost,
                                     (cudaStream_t)m->ctx[p]->stream));
            CUDA_TRY(cudaStreamSynchronize((cudaStream_t)m->ctx[p]->stream));
            off[p] += len[p];
            if (!open || off[p] >= T[p]) {
                active[p] = 0, left--;
            } else {
                len[p] = 2 * len[p] < T[p] - off[p] ? 2 * len[p] : T[p] - off[p];
            }
        }
    }
    for (int p = 0; p < G; p++) {
        CUDA_TRY(cudaSetDevice(p));
        cudaStream_t st = (cudaStream_t)m->ctx[p]->stream;
        float *A = (float *)m->send[p].data;
        if (p == first && p != last) {
            apply_h0_kernel<E><<<logt_cuda_grid(C, BLOCK), BLOCK, 0, st>>>(C, (const E *)h0, A, A + C);
            LAUNCH_TRY();
        }
        CUDA_TRY(cudaEventRecord(m->ev[p][1], st));
    }
    /* 2. exchange */
    if (G > 1) {
        ncclResult_t r = ncclGroupStart();
        for (int p = 0; p < G && r == ncclSuccess; p++)
            r = ncclAllGather(m->send[p].data, m->all[p].data, (size_t)(2 * C), ncclFloat, m->comm[p],
                              (cudaStream_t)m->ctx[p]->stream);
        ncclResult_t r2 = ncclGroupEnd();
        if (r == ncclSuccess) r = r2;
        if (r != ncclSuccess)
            return LOGT_FAIL(LOGT_ECUDA, "scan_multi: ncclAllGather of %lld floats failed: %s",
                             (long long)(2 * C), ncclGetErrorString(r));
    }
    /* 3. carries, 4. scans */
    for (int p = 0; p < G; p++) {
        CUDA_TRY(cudaSetDevice(p));
        cudaStream_t st = (cudaStream_t)m->ctx[p]->stream;
        CUDA_TRY(cudaEventRecord(m->ev[p][2], st));
        if (p == first) {
            LOGT_TRY(scan_cuda(m->ctx[p], reverse, T[p], C, dt, a[p], b[p], h0, h[p]));
        } else {
            float *carry = (float *)m->carry[p].data;
            carry_kernel<<<logt_cuda_grid(C, BLOCK), BLOCK, 0, st>>>(reverse, G, p, C,
                                                                   (const float *)m->all[p].data, carry);
            LAUNCH_TRY();
            LOGT_TRY(scan_cuda_f32_state(m->ctx[p], reverse, T[p], C, dt, a[p], b[p], carry, h[p]));
        }
        CUDA_TRY(cudaEventRecord(m->ev[p][3], st));
    }
    for (int p = 0; p < G; p++) {
        CUDA_TRY(cudaSetDevice(p));
        CUDA_TRY(cudaStreamSynchronize((cudaStream_t)m->ctx[p]->stream));
    }
    const double wall = now_ms() - t_start;
    if (times) {
        memset(times, 0, sizeof *times);
        times->wall_ms = wall;
        for (int p = 0; p < G; p++) {
            float s = 0, x = 0, c = 0;
            cudaEventElapsedTime(&s, m->ev[p][0], m->ev[p][1]);
            cudaEventElapsedTime(&x, m->ev[p][1], m->ev[p][2]);
            cudaEventElapsedTime(&c, m->ev[p][2], m->ev[p][3]);
            if (s > times->summary_ms) times->summary_ms = s;
            if (x > times->exchange_ms) times->exchange_ms = x;
            if (c > times->scan_ms) times->scan_ms = c;
            if (rounds[p] > times->rounds) times->rounds = rounds[p];
        }
    }
    return LOGT_OK;
}
#endif

extern "C" logt_status scan_multi_run(scan_multi *m, int reverse, const int64_t *T, int64_t C,
                                      logt_dtype dt, const void *const *a, const void *const *b,
                                      const void *h0, void *const *h, scan_multi_times *times)
{
#if !HAVE_NCCL
    (void)m, (void)reverse, (void)T, (void)C, (void)dt, (void)a, (void)b, (void)h0, (void)h, (void)times;
    return LOGT_FAIL(LOGT_EUNSUPPORTED, "scan_multi: logt was built without NCCL");
#else
    if (C < 1)
        return LOGT_FAIL(LOGT_EINVAL, "scan_multi: C = %lld channels: at least 1", (long long)C);
    if (dt != LOGT_F32 && dt != LOGT_BF16)
        return LOGT_FAIL(LOGT_EUNSUPPORTED, "scan_multi: dtype %s: f32 or bf16", logt_dtype_name(dt));
    for (int p = 0; p < m->G; p++) {
        if (T[p] < 1)
            return LOGT_FAIL(LOGT_EINVAL, "scan_multi: piece %d has T = %lld steps: every piece "
                             "needs at least one", p, (long long)T[p]);
        if (!a[p] || !b[p] || !h[p])
            return LOGT_FAIL(LOGT_EINVAL, "scan_multi: piece %d: a, b and h must be arrays on GPU "
                             "%d, and one is NULL", p, p);
    }
    logt_status s = dt == LOGT_F32 ? run_typed<float>(m, reverse, T, C, dt, a, b, h0, h, times)
                                   : run_typed<__nv_bfloat16>(m, reverse, T, C, dt, a, b, h0, h, times);
    cudaSetDevice(0);
    return s;
#endif
}
