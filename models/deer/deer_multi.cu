/* deer_multi.cu — quasi-DEER on G GPUs of one process (the algorithm in deer_multi.h; the
 * reference is deer_multi.c). Per Newton iteration: an NCCL send/recv group passes each
 * piece's last state to the next GPU, deer_eval_kernel runs on every GPU, the host reads each
 * GPU's residual and takes the max, one scan_multi_run solves the linear step across the GPUs.
 * The backward has the same shape (J^T's coefficients once, by deer_adjoint_coef_kernel; then
 * per iteration λ of each piece's first step passed back, deer_adjoint_step_kernel and the
 * reversed scan), then deer_vjp_rows_kernel and the parameter
 * GEMMs on each GPU and one ncclAllReduce. All of GPU p's work runs on scan_multi's stream
 * for GPU p, so each step follows the last on its GPU with no further synchronisation; the
 * host waits only to read the residuals (and scan_multi_run waits for every GPU).
 * The kernels are deer's own (deer_cuda.cu, deer_cuda_backward.cu; declared in deer_cuda.cuh).
 */
#include "deer_multi.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/ctx.h"
#include "../../core/cuda.h"
#include "../../core/cuda_check.cuh"
#include "../../kernels/gemm.h"
#include "../../kernels/scan_multi.h"
#include "deer.h"
#include "deer_cuda.cuh"

#if __has_include(<nccl.h>) && defined(LOGT_HAVE_NCCL)
#include <nccl.h>
#define HAVE_NCCL 1
#else
#define HAVE_NCCL 0
#endif

/* GPU p's buffers, N = T_p·B rows, grown on demand and kept between calls. */
typedef struct piece {
    logt_tensor wx;          /* [N][G·D] W x (the kernels add b), when G·D·I > XMAX       */
    logt_tensor s, s2;       /* [N][S] the iterate and the next one                      */
    logt_tensor a, b;        /* [N][S] the scans' gates and inputs                       */
    logt_tensor s0;          /* [B][S] the state entering the piece                      */
    logt_tensor res;         /* [1] the residual, as the bits of a non-negative float    */
    logt_tensor xn, lamn;    /* backward: the next piece's first W x (or x) rows [B][G·D or I]
                                and its first λ [B][S]                                   */
    logt_tensor lam, lam2, u; /* backward: [N][S] λ (two iterates); [B][S] J_0^T λ_0      */
    logt_tensor cf;          /* backward: [N][adjoint_ncoef] the coefficients of J_{t+1}^T */
    logt_tensor dxa, dra;    /* backward: [N][G·D] dL/d(W x + b), dL/d(h_{t-1} R)        */
    logt_tensor ones;        /* backward: [N] ones (bias gradients as products)          */
} piece;

struct deer_multi {
    deer_multi_cfg cfg;
    int G;
    int in_kernel;           /* G·D·I <= XMAX: the kernels work W x out (no GEMM, no wx) */
    int solved;              /* the last forward converged: backward may run             */
    scan_multi *scan;        /* communicators and a context (stream, cuBLAS) per GPU     */
    int64_t T[SCAN_MULTI_MAX];
    const float *w[SCAN_MULTI_MAX], *x[SCAN_MULTI_MAX];   /* the last forward's (caller's) */
    piece pc[SCAN_MULTI_MAX];
    cudaEvent_t ev[SCAN_MULTI_MAX][2];   /* around an exchange on each GPU                */
};

static logt_ctx *ctx_of(deer_multi *m, int p) { return scan_multi_ctx(m->scan, p); }
static cudaStream_t stream_of(deer_multi *m, int p) { return (cudaStream_t)ctx_of(m, p)->stream; }

extern "C" int deer_multi_gpus(const deer_multi *m) { return m->G; }

extern "C" void deer_multi_set_solver(deer_multi *m, double tol, int max_iter)
{
    m->cfg.tol = tol, m->cfg.max_iter = max_iter;
}

extern "C" void deer_multi_destroy(deer_multi *m)
{
    if (!m) return;
    for (int p = 0; p < m->G; p++) {
        cudaSetDevice(p);
        piece *q = &m->pc[p];
        logt_tensor *all[] = {&q->wx, &q->s,    &q->s2,   &q->a,   &q->b,   &q->s0,  &q->res, &q->xn,
                              &q->lamn, &q->lam, &q->lam2, &q->u,  &q->dxa, &q->dra, &q->ones, &q->cf};
        for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) logt_tensor_free(all[i]);
        for (int e = 0; e < 2; e++)
            if (m->ev[p][e]) cudaEventDestroy(m->ev[p][e]);
    }
    scan_multi_destroy(m->scan);
    cudaSetDevice(0);
    free(m);
}

extern "C" logt_status deer_multi_create(int G, const deer_multi_cfg *cfg, deer_multi **out)
{
    if (!out) return LOGT_FAIL(LOGT_EINVAL, "deer_multi_create: out is NULL: pass where to put the handle");
    *out = NULL;
    int64_t ones[SCAN_MULTI_MAX];
    for (int p = 0; p < SCAN_MULTI_MAX; p++) ones[p] = 1;
    LOGT_TRY(deer_multi_check(cfg, G, ones));
    const int64_t S = deer_state_size(cfg->cell, cfg->D), GD = gates_of(cfg->cell) * cfg->D;
    if (cfg->B > INT32_MAX / 2 || S > 4096 || cfg->I > INT32_MAX / 2)
        return LOGT_FAIL(LOGT_EUNSUPPORTED, "deer_multi on cuda: B = %lld, I = %lld, D = %lld is too "
                         "large (B and I up to %d, states up to 4096)", (long long)cfg->B,
                         (long long)cfg->I, (long long)cfg->D, INT32_MAX / 2);
    deer_multi *m = (deer_multi *)calloc(1, sizeof *m);
    if (!m) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    m->cfg = *cfg, m->in_kernel = GD * cfg->I <= XMAX;
    logt_status s = scan_multi_create(G, &m->scan);
    if (s != LOGT_OK) {
        free(m);
        return s;
    }
    m->G = G;
    for (int p = 0; p < G && s == LOGT_OK; p++) {
        if (cudaSetDevice(p) != cudaSuccess) s = LOGT_FAIL(LOGT_ECUDA, "deer_multi: cudaSetDevice(%d) failed", p);
        for (int e = 0; e < 2 && s == LOGT_OK; e++)
            if (cudaEventCreate(&m->ev[p][e]) != cudaSuccess)
                s = LOGT_FAIL(LOGT_ECUDA, "deer_multi: cudaEventCreate on GPU %d failed", p);
    }
    cudaSetDevice(0);
    if (s != LOGT_OK) {
        deer_multi_destroy(m);
        return s;
    }
    *out = m;
    return LOGT_OK;
}

/* ---- the exchanges ---------------------------------------------------------------------------- */

/* One NCCL group of point-to-point copies of n floats: dir = +1, every GPU p < G-1 sends src[p]
 * to GPU p+1's dst[p+1]; dir = -1, every p > 0 sends src[p] to GPU p-1's dst[p-1]. Queued on
 * the GPUs' streams between events ev[p][0] and ev[p][1]. */
static logt_status pass_boundary(deer_multi *m, int dir, int64_t n, const float *const *src, float *const *dst)
{
#if HAVE_NCCL
    const int G = m->G;
    for (int p = 0; p < G; p++) {
        CUDA_TRY(cudaSetDevice(p));
        CUDA_TRY(cudaEventRecord(m->ev[p][0], stream_of(m, p)));
    }
    ncclResult_t r = ncclGroupStart();
    for (int p = 0; p < G && r == ncclSuccess; p++) {
        const ncclComm_t comm = (ncclComm_t)scan_multi_comm(m->scan, p);
        const int to = p + dir, from = p - dir;
        if (to >= 0 && to < G) r = ncclSend(src[p], (size_t)n, ncclFloat, to, comm, stream_of(m, p));
        if (r == ncclSuccess && from >= 0 && from < G)
            r = ncclRecv(dst[p], (size_t)n, ncclFloat, from, comm, stream_of(m, p));
    }
    const ncclResult_t r2 = ncclGroupEnd();
    if (r == ncclSuccess) r = r2;
    if (r != ncclSuccess)
        return LOGT_FAIL(LOGT_ECUDA, "deer_multi: the boundary exchange (ncclSend/ncclRecv of %lld "
                         "floats between neighbouring GPUs) failed: %s", (long long)n, ncclGetErrorString(r));
    for (int p = 0; p < G; p++) {
        CUDA_TRY(cudaSetDevice(p));
        CUDA_TRY(cudaEventRecord(m->ev[p][1], stream_of(m, p)));
    }
    return LOGT_OK;
#else
    (void)m, (void)dir, (void)n, (void)src, (void)dst;
    return LOGT_FAIL(LOGT_EUNSUPPORTED, "deer_multi: logt was built without NCCL");
#endif
}

/* dw[p] (n floats on every GPU) = the sum over the GPUs, in place, between the events. */
static logt_status sum_over_gpus(deer_multi *m, int64_t n, float *const *dw)
{
#if HAVE_NCCL
    for (int p = 0; p < m->G; p++) {
        CUDA_TRY(cudaSetDevice(p));
        CUDA_TRY(cudaEventRecord(m->ev[p][0], stream_of(m, p)));
    }
    ncclResult_t r = ncclGroupStart();
    for (int p = 0; p < m->G && r == ncclSuccess; p++)
        r = ncclAllReduce(dw[p], dw[p], (size_t)n, ncclFloat, ncclSum, (ncclComm_t)scan_multi_comm(m->scan, p),
                          stream_of(m, p));
    const ncclResult_t r2 = ncclGroupEnd();
    if (r == ncclSuccess) r = r2;
    if (r != ncclSuccess)
        return LOGT_FAIL(LOGT_ECUDA, "deer_multi: the gradients' ncclAllReduce of %lld floats failed: %s",
                         (long long)n, ncclGetErrorString(r));
    for (int p = 0; p < m->G; p++) {
        CUDA_TRY(cudaSetDevice(p));
        CUDA_TRY(cudaEventRecord(m->ev[p][1], stream_of(m, p)));
    }
    return LOGT_OK;
#else
    (void)m, (void)n, (void)dw;
    return LOGT_FAIL(LOGT_EUNSUPPORTED, "deer_multi: logt was built without NCCL");
#endif
}

/* The slowest GPU's time between its two events (both done: the caller has synchronised). */
static double exchange_ms(deer_multi *m)
{
    double worst = 0.0;
    for (int p = 0; p < m->G; p++) {
        float ms = 0.0f;
        cudaSetDevice(p);
        if (cudaEventElapsedTime(&ms, m->ev[p][0], m->ev[p][1]) == cudaSuccess && ms > worst) worst = ms;
    }
    return worst;
}

/* The residual over the pieces: each GPU's word once its queued work is done (the GPUs run
 * at once, the host reads them in turn), the max taken here, NaN the worst. */
static logt_status read_residual(deer_multi *m, float *r)
{
    float worst = 0.0f;
    for (int p = 0; p < m->G; p++) {
        CUDA_TRY(cudaSetDevice(p));
        float v;
        LOGT_TRY(logt_cuda_read_max(stream_of(m, p), (const unsigned *)m->pc[p].res.data, &v));
        if (!isnan(worst) && (v > worst || isnan(v))) worst = v;
    }
    *r = worst;
    return LOGT_OK;
}

static logt_status sync_all(deer_multi *m)
{
    for (int p = 0; p < m->G; p++) {
        CUDA_TRY(cudaSetDevice(p));
        CUDA_TRY(cudaStreamSynchronize(stream_of(m, p)));
    }
    return LOGT_OK;
}

static float *f32(logt_tensor *t) { return (float *)t->data; }

/* What a loop over the GPUs uses of GPU p: its buffers, rows N = T_p·B, stream, the
 * parameters (views of the last forward's flat array w[p]) and W x rows (NULL where the
 * kernels work W x out). use_gpu also makes p the current device. */
typedef struct gpu_view {
    piece *q;
    int64_t N;
    cudaStream_t st;
    const float *W, *R, *bias, *bn, *WX;
} gpu_view;

static logt_status use_gpu(deer_multi *m, int p, gpu_view *g)
{
    CUDA_TRY(cudaSetDevice(p));
    const deer_multi_layout L = deer_multi_layout_of(m->cfg.cell, m->cfg.I, m->cfg.D);
    g->q = &m->pc[p], g->N = m->T[p] * m->cfg.B, g->st = stream_of(m, p);
    g->W = m->w[p] + L.W, g->R = m->w[p] + L.R, g->bias = m->w[p] + L.b;
    g->bn = m->cfg.cell == DEER_GRU ? m->w[p] + L.bn : NULL;
    g->WX = m->in_kernel ? NULL : f32(&m->pc[p].wx);
    return LOGT_OK;
}

/* The linear step over the GPUs: one scan_multi_run of every piece's (a, b), C = B·S channels,
 * forward into the next iterate s2 from s0 on GPU 0, or reversed into λ's next iterate lam2
 * from zeros; then each pair of iterates swaps. Its times are added to tm. */
static logt_status linear_step(deer_multi *m, int reverse, deer_multi_times *tm)
{
    const void *a[SCAN_MULTI_MAX], *b[SCAN_MULTI_MAX];
    void *out[SCAN_MULTI_MAX];
    for (int p = 0; p < m->G; p++) {
        piece *q = &m->pc[p];
        a[p] = q->a.data, b[p] = q->b.data, out[p] = reverse ? q->lam2.data : q->s2.data;
    }
    scan_multi_times sm;
    LOGT_TRY(scan_multi_run(m->scan, reverse, m->T, m->cfg.B * deer_state_size(m->cfg.cell, m->cfg.D),
                            LOGT_F32, a, b, reverse ? NULL : m->pc[0].s0.data, out, &sm));
    tm->scan_ms += sm.wall_ms, tm->scan_exchange_ms += sm.exchange_ms;
    for (int p = 0; p < m->G; p++) {
        piece *q = &m->pc[p];
        logt_tensor *x = reverse ? &q->lam : &q->s, *y = reverse ? &q->lam2 : &q->s2;
        const logt_tensor t = *x;
        *x = *y, *y = t;
    }
    return LOGT_OK;
}

/* ---- forward ----------------------------------------------------------------------------------- */

/* ptr (unless NULL) must be memory of GPU p (device or managed memory), else an error naming
 * `what` and where it is. */
static logt_status check_on(const char *who, const void *ptr, const char *what, int p)
{
    if (!ptr) return LOGT_OK;
    cudaPointerAttributes at;
    if (cudaPointerGetAttributes(&at, ptr) != cudaSuccess) {
        (void)cudaGetLastError();
        return LOGT_FAIL(LOGT_EINVAL, "%s: %s is not memory CUDA knows: pass an array on GPU %d", who, what, p);
    }
    if (at.type == cudaMemoryTypeManaged || (at.type == cudaMemoryTypeDevice && at.device == p)) return LOGT_OK;
    if (at.type == cudaMemoryTypeDevice)
        return LOGT_FAIL(LOGT_EINVAL, "%s: %s is on GPU %d, not GPU %d: each piece's arrays live on its "
                         "own GPU (h0, c0, dh0, dc0 on GPU 0)", who, what, at.device, p);
    return LOGT_FAIL(LOGT_EINVAL, "%s: %s is host memory, not memory of GPU %d: copy it to GPU %d first",
                     who, what, p, p);
}

/* a[0 .. G) (a may be NULL when may_be_null): each an array on its GPU. */
static logt_status check_pieces(const char *who, int G, const void *const *a, const char *what, int may_be_null)
{
    if (!a) return may_be_null ? LOGT_OK : LOGT_FAIL(LOGT_EINVAL, "%s: %s is NULL: pass %d arrays, one per GPU", who, what, G);
    for (int p = 0; p < G; p++) {
        char name[32];
        snprintf(name, sizeof name, "%s[%d]", what, p);
        if (!a[p]) return LOGT_FAIL(LOGT_EINVAL, "%s: %s is NULL: pass an array on GPU %d", who, name, p);
        LOGT_TRY(check_on(who, a[p], name, p));
    }
    return LOGT_OK;
}

extern "C" logt_status deer_multi_forward(deer_multi *m, const int64_t *T, const float *const *w,
                                          const float *const *x, const float *h0, const float *c0,
                                          float *const *h, deer_multi_report *rep, deer_multi_times *times)
{
    const char *who = "deer_multi_forward";
    if (!m) return LOGT_FAIL(LOGT_EINVAL, "%s: the handle is NULL: deer_multi_create first", who);
    m->solved = 0;   /* a forward that fails leaves nothing for backward */
    const int G = m->G;
    LOGT_TRY(deer_multi_check(&m->cfg, G, T));
    LOGT_TRY(check_pieces(who, G, (const void *const *)w, "w", 0));
    LOGT_TRY(check_pieces(who, G, (const void *const *)x, "x", 0));
    LOGT_TRY(check_pieces(who, G, (const void *const *)h, "h", 0));
    if (c0 && m->cfg.cell != DEER_LSTM)
        return LOGT_FAIL(LOGT_EINVAL, "%s: c0 is the lstm's cell state and this cell has none: pass NULL", who);
    LOGT_TRY(check_on(who, h0, "h0", 0));
    LOGT_TRY(check_on(who, c0, "c0", 0));
    const deer_cell cell = m->cfg.cell;
    const int64_t B = m->cfg.B, I = m->cfg.I, D = m->cfg.D, S = deer_state_size(cell, D), GD = gates_of(cell) * D;
    deer_multi_report own;
    if (!rep) rep = &own;
    rep->iterations = 0, rep->converged = 0, rep->nres = 0;
    deer_multi_times tm;
    memset(&tm, 0, sizeof tm);
    LOGT_TRY(sync_all(m));
    const double t0 = logt_now();
    /* buffers, W x, the first iterate (zeros), s0 = [h0; c0] on GPU 0 */
    for (int p = 0; p < G; p++) {
        m->T[p] = T[p], m->w[p] = w[p], m->x[p] = x[p];
        gpu_view g;
        LOGT_TRY(use_gpu(m, p, &g));
        piece *q = g.q;
        const int64_t N = g.N;
        cudaStream_t st = g.st;
        logt_tensor *ns[] = {&q->s, &q->s2, &q->a, &q->b};
        for (int i = 0; i < 4; i++) LOGT_TRY(logt_tensor_reserve(ns[i], LOGT_CUDA, LOGT_F32, N * S, NULL));
        LOGT_TRY(logt_tensor_reserve(&q->s0, LOGT_CUDA, LOGT_F32, B * S, NULL));
        LOGT_TRY(logt_tensor_reserve(&q->res, LOGT_CUDA, LOGT_F32, 1, NULL));
        if (!m->in_kernel) {
            LOGT_TRY(logt_tensor_reserve(&q->wx, LOGT_CUDA, LOGT_F32, N * GD, NULL));
            LOGT_TRY(logt_gemm_ex(ctx_of(m, p), 0, 1, N, GD, I, 1.0f, LOGT_F32, x[p], I, 0, g.W, I, 0,
                                  0.0f, f32(&q->wx), GD, 0, 1, 0));
        }
        CUDA_TRY(cudaMemsetAsync(q->s.data, 0, (size_t)(N * S) * sizeof(float), st));
        if (p == 0) {
            deer_state_kernel<<<logt_cuda_grid(B * S, BLOCK), BLOCK, 0, st>>>(B, (int)D, (int)S, h0, c0, f32(&q->s0));
            LAUNCH_TRY();
        }
    }
    for (int k = 0;; k++) {
        /* 1. each piece's first step starts from the last state of the previous piece */
        if (G > 1) {
            const float *src[SCAN_MULTI_MAX];
            float *dst[SCAN_MULTI_MAX];
            for (int p = 0; p < G; p++) src[p] = f32(&m->pc[p].s) + (T[p] - 1) * B * S, dst[p] = f32(&m->pc[p].s0);
            LOGT_TRY(pass_boundary(m, +1, B * S, src, dst));
        }
        /* 2. every step of every piece: F, a = diag J, b = F − a s_{t-1}, the residual */
        for (int p = 0; p < G; p++) {
            gpu_view g;
            LOGT_TRY(use_gpu(m, p, &g));
            piece *q = g.q;
            CUDA_TRY(cudaMemsetAsync(q->res.data, 0, sizeof(unsigned), g.st));
            deer_eval_kernel<<<(unsigned)((g.N + BLOCK - 1) / BLOCK), BLOCK, 0, g.st>>>(
                cell, g.N, (int)B, (int)D, (int)S, (int)I, g.WX, x[p], g.W, g.R, g.bias, g.bn, f32(&q->s0),
                f32(&q->s), f32(&q->a), f32(&q->b), (unsigned *)q->res.data, 0.0f, NULL);
            LAUNCH_TRY();
        }
        /* 3. the residual over the pieces */
        float r;
        LOGT_TRY(read_residual(m, &r));
        if (G > 1) tm.boundary_ms += exchange_ms(m);
        if (rep->nres < DEER_MAX_REPORT) rep->residual[rep->nres++] = r;
        rep->iterations = k;
        if (r <= m->cfg.tol) {
            rep->converged = 1;
            break;
        }
        if (!isfinite(r) || k == m->cfg.max_iter)
            return LOGT_FAIL(LOGT_ENUMERIC, "%s did not converge: residual %.3g after %d iterations (tol %g)%s. "
                             "HINT: a larger tol or max_iter", who, r, k, m->cfg.tol,
                             isfinite(r) ? "" : "; the iterate is not finite");
        /* 4. the linear step over the GPUs, from s0 on GPU 0 */
        LOGT_TRY(linear_step(m, 0, &tm));
    }
    /* h: the first D of each state */
    for (int p = 0; p < G; p++) {
        gpu_view g;
        LOGT_TRY(use_gpu(m, p, &g));
        if (S == D) {
            CUDA_TRY(cudaMemcpyAsync(h[p], g.q->s.data, (size_t)(g.N * D) * sizeof(float), cudaMemcpyDeviceToDevice, g.st));
        } else {
            deer_h_of_state_kernel<<<logt_cuda_grid(g.N * D, BLOCK), BLOCK, 0, g.st>>>(g.N, (int)D, (int)S, f32(&g.q->s), h[p]);
            LAUNCH_TRY();
        }
    }
    LOGT_TRY(sync_all(m));
    CUDA_TRY(cudaSetDevice(0));
    tm.wall_ms = (logt_now() - t0) * 1e3;
    if (times) *times = tm;
    m->solved = 1;
    return LOGT_OK;
}

/* ---- backward ---------------------------------------------------------------------------------- */

extern "C" logt_status deer_multi_backward(deer_multi *m, const float *const *dh, float *const *dw,
                                           float *const *dx, float *dh0, float *dc0, deer_multi_report *rep,
                                           deer_multi_times *times)
{
    const char *who = "deer_multi_backward";
    if (!m) return LOGT_FAIL(LOGT_EINVAL, "%s: the handle is NULL: deer_multi_create first", who);
    if (!m->solved)
        return LOGT_FAIL(LOGT_EINVAL, "%s: the last forward did not give a solution (it failed, or none "
                         "ran): run a forward that succeeds first", who);
    const int G = m->G;
    LOGT_TRY(check_pieces(who, G, (const void *const *)dh, "dh", 0));
    LOGT_TRY(check_pieces(who, G, (const void *const *)dw, "dw", 0));
    LOGT_TRY(check_pieces(who, G, (const void *const *)dx, "dx", 1));
    LOGT_TRY(check_on(who, dh0, "dh0", 0));
    LOGT_TRY(check_on(who, dc0, "dc0", 0));
    const deer_cell cell = m->cfg.cell;
    const int64_t B = m->cfg.B, I = m->cfg.I, D = m->cfg.D, S = deer_state_size(cell, D), GD = gates_of(cell) * D;
    const deer_multi_layout L = deer_multi_layout_of(cell, I, D);
    const int64_t *T = m->T;
    deer_multi_times tm;
    memset(&tm, 0, sizeof tm);
    LOGT_TRY(sync_all(m));
    const double t0 = logt_now();
    for (int p = 0; p < G; p++) {
        gpu_view g;
        LOGT_TRY(use_gpu(m, p, &g));
        piece *q = g.q;
        logt_tensor *ns[] = {&q->lam, &q->lam2};
        for (int i = 0; i < 2; i++) LOGT_TRY(logt_tensor_reserve(ns[i], LOGT_CUDA, LOGT_F32, g.N * S, NULL));
        LOGT_TRY(logt_tensor_reserve(&q->u, LOGT_CUDA, LOGT_F32, B * S, NULL));   /* J_0^T λ_0 */
        LOGT_TRY(logt_tensor_reserve(&q->lamn, LOGT_CUDA, LOGT_F32, B * S, NULL));
        LOGT_TRY(logt_tensor_reserve(&q->xn, LOGT_CUDA, LOGT_F32, B * (m->in_kernel ? I : GD), NULL));
        CUDA_TRY(cudaMemsetAsync(q->lam.data, 0, (size_t)(g.N * S) * sizeof(float), g.st));
    }
    /* the next piece's first W x rows (or x rows, when the kernels work W x out), once */
    if (G > 1) {
        const float *src[SCAN_MULTI_MAX];
        float *dst[SCAN_MULTI_MAX];
        for (int p = 0; p < G; p++) src[p] = m->in_kernel ? m->x[p] : f32(&m->pc[p].wx), dst[p] = f32(&m->pc[p].xn);
        LOGT_TRY(pass_boundary(m, -1, B * (m->in_kernel ? I : GD), src, dst));
    }
    /* J_{t+1}^T's coefficients and diagonal at every step of every piece, once (a piece's last
     * rows from the next piece's first W x rows) */
    for (int p = 0; p < G; p++) {
        gpu_view g;
        LOGT_TRY(use_gpu(m, p, &g));
        piece *q = g.q;
        LOGT_TRY(logt_tensor_reserve(&q->cf, LOGT_CUDA, LOGT_F32, g.N * adjoint_ncoef(cell, (int)D), NULL));
        deer_adjoint_coef_kernel<<<logt_cuda_grid(g.N, BLOCK), BLOCK, 0, g.st>>>(
            cell, g.N, (int)B, (int)D, (int)S, (int)I, g.WX, m->x[p], g.W, g.R, g.bias, g.bn, f32(&q->s),
            p + 1 < G ? f32(&q->xn) : NULL, f32(&q->a), f32(&q->cf));
        LAUNCH_TRY();
    }
    /* 1. the adjoint from λ = 0: J^T λ from the coefficients, the residual over the pieces, a
     * reversed scan */
    float r0 = 0.0f, r = 0.0f, last = INFINITY;
    int k = 0;
    for (;; k++) {
        if (G > 1) {
            const float *src[SCAN_MULTI_MAX];
            float *dst[SCAN_MULTI_MAX];
            for (int p = 0; p < G; p++) src[p] = f32(&m->pc[p].lam), dst[p] = f32(&m->pc[p].lamn);
            LOGT_TRY(pass_boundary(m, -1, B * S, src, dst));
        }
        for (int p = 0; p < G; p++) {
            gpu_view g;
            LOGT_TRY(use_gpu(m, p, &g));
            piece *q = g.q;
            CUDA_TRY(cudaMemsetAsync(q->res.data, 0, sizeof(unsigned), g.st));
            deer_adjoint_step_kernel<<<(unsigned)((g.N + BLOCK - 1) / BLOCK), BLOCK, 0, g.st>>>(
                cell, g.N, (int)B, (int)D, (int)S, g.R, f32(&q->cf), f32(&q->a), dh[p], f32(&q->lam),
                p + 1 < G ? f32(&q->lamn) : NULL, NULL, f32(&q->b), (unsigned *)q->res.data);
            LAUNCH_TRY();
        }
        LOGT_TRY(read_residual(m, &r));
        if (G > 1) tm.boundary_ms += exchange_ms(m);
        if (k == 0) r0 = r;
        if (deer_adjoint_stops(k, r, r0, last, m->cfg.tol)) break;
        last = r;
        if (!isfinite(r) || k == m->cfg.max_iter)
            return LOGT_FAIL(LOGT_ENUMERIC, "%s: the adjoint did not converge: residual %.3g after %d "
                             "iterations (tol %g of %.3g)%s", who, r, k, m->cfg.tol, r0,
                             isfinite(r) ? "" : "; the iterate is not finite");
        LOGT_TRY(linear_step(m, 1, &tm));
    }
    if (rep) rep->adjoint_iterations = k, rep->adjoint_residual = r, rep->adjoint_r0 = r0;
    /* 2. every step's VJP at λ_t; 3. each GPU's parameter gradients over its piece, and dx */
    for (int p = 0; p < G; p++) {
        gpu_view g;
        LOGT_TRY(use_gpu(m, p, &g));
        piece *q = g.q;
        const int64_t N = g.N;
        cudaStream_t st = g.st;
        LOGT_TRY(logt_tensor_reserve(&q->dxa, LOGT_CUDA, LOGT_F32, N * GD, NULL));
        LOGT_TRY(logt_tensor_reserve(&q->dra, LOGT_CUDA, LOGT_F32, N * GD, NULL));
        int fresh = 0;
        LOGT_TRY(logt_tensor_reserve(&q->ones, LOGT_CUDA, LOGT_F32, N, &fresh));
        if (fresh) LOGT_TRY(logt_cuda_fill_f32(ctx_of(m, p), f32(&q->ones), N, 1.0f));
        deer_vjp_rows_kernel<<<logt_cuda_grid(N, BLOCK), BLOCK, 0, st>>>(
            cell, N, (int)B, (int)D, (int)S, (int)I, g.WX, m->x[p], g.W, g.R, g.bias, g.bn, f32(&q->s0),
            f32(&q->s), f32(&q->lam), f32(&q->u), f32(&q->dxa), f32(&q->dra));
        LAUNCH_TRY();
        if (p == 0 && (dh0 || dc0)) {
            deer_state_grad_kernel<<<logt_cuda_grid(B * D, BLOCK), BLOCK, 0, st>>>((int)B, (int)D, (int)S,
                                                                                 f32(&q->u), dh0, dc0);
            LAUNCH_TRY();
        }
        LOGT_TRY(deer_param_grads_cuda(ctx_of(m, p), cell, T[p], B, D, I, m->x[p], g.W, f32(&q->s0),
                                       f32(&q->s), f32(&q->dxa), f32(&q->dra), f32(&q->ones), 0.0f,
                                       dw[p] + L.W, dw[p] + L.R, dw[p] + L.b,
                                       cell == DEER_GRU ? dw[p] + L.bn : NULL, dx ? dx[p] : NULL));
    }
    /* 4. the gradients summed over the GPUs, on every GPU */
    if (G > 1) LOGT_TRY(sum_over_gpus(m, L.n, dw));
    LOGT_TRY(sync_all(m));
    CUDA_TRY(cudaSetDevice(0));
    if (G > 1) tm.reduce_ms = exchange_ms(m);
    tm.wall_ms = (logt_now() - t0) * 1e3;
    if (times) *times = tm;
    return LOGT_OK;
}
