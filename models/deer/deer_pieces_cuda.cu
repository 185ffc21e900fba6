/* deer_pieces_cuda.cu — deer with gpus = N on CUDA: quasi-DEER's forward and backward over the
 * sequence split in time into N pieces (scan_pieces_split), piece p on GPU p, by deer_multi
 * (deer_multi.h), for a model whose tensors live on GPU 0 like every other model's.
 *
 * Piece 0 is views of the model's own arrays (x, h, dh, dx, the parameters and their
 * gradients): it moves nothing. Each later piece's x and dh rows go from GPU 0 to GPU p before
 * the solve, its h and dx rows come back after it, and the parameters are copied to every GPU
 * when they change (wversion). The Newton iterates, the scans' gates and the adjoint, which
 * are what does not fit one GPU (deer_check_memory), stay on each piece's GPU. Copies beyond
 * the one-GPU pass: (I + D)·T·B·(N − 1)/N floats each way over a forward and a backward, and
 * the parameters once per change.
 *
 * Bounds: the solve is deer_multi's; the copies at NVLink's ~450 GB/s a direction take, for
 * T = 2^23, B = 16, I = 4, D = 16 on two GPUs, 2^22·16·20·4 bytes = 5.4 GB: about 12 ms each
 * way, beside a Newton solve of some seconds.
 */
#include <stdio.h>
#include <string.h>

#include "../../core/cuda.h"
#include "../../core/cuda_check.cuh"
#include "deer.h"
#include "deer_multi.h"

/* The handle and GPU p's copies of piece p (p >= 1; slot 0 unused), kept between calls. */
typedef struct deer_pieces_cuda {
    deer_multi *dm;
    deer_multi_cfg cfg;                 /* what dm was made for (B, I, D, cell)             */
    logt_tensor w[SCAN_MULTI_MAX], dw[SCAN_MULTI_MAX];
    logt_tensor x[SCAN_MULTI_MAX], h[SCAN_MULTI_MAX], dh[SCAN_MULTI_MAX], dx[SCAN_MULTI_MAX];
    const void *w_of;                   /* w[p] hold the parameters at w_of, w_version      */
    uint64_t w_version;
} deer_pieces_cuda;

/* Row t0 of a [T][W] f32 array. */
static float *rows(const logt_tensor *t, int64_t t0, int64_t W) { return (float *)t->data + t0 * W; }

/* n floats on GPU p in t (grown on demand, made on GPU p). */
static logt_status on_gpu(int p, logt_tensor *t, int64_t n)
{
    CUDA_TRY(cudaSetDevice(p));
    const logt_status s = logt_tensor_reserve(t, LOGT_CUDA, LOGT_F32, n, NULL);
    CUDA_TRY(cudaSetDevice(0));
    return s;
}

/* The handle for this model and x's B and I: made at the first call, again when they change
 * (the tolerance and iteration cap follow deer_settings at every call). */
static logt_status handle_of(deer_model *m, const logt_tensor *x, deer_pieces_cuda **out)
{
    deer_pieces_cuda *pc = (deer_pieces_cuda *)m->pieces;
    if (!pc) {
        pc = (deer_pieces_cuda *)calloc(1, sizeof *pc);
        if (!pc) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
        m->pieces = pc;
    }
    const deer_multi_cfg c = deer_pieces_cfg(m, x);
    if (pc->dm && (pc->cfg.B != c.B || pc->cfg.I != c.I)) deer_multi_destroy(pc->dm), pc->dm = NULL;
    if (!pc->dm) {
        const logt_status s = deer_multi_create(m->gpus, &c, &pc->dm);
        if (s != LOGT_OK)
            return logt_errctx("deer gpus = %d: the sequence splits over GPUs 0 .. %d of this process",
                               m->gpus, m->gpus - 1), s;
        pc->cfg = c, pc->w_of = NULL;
    }
    deer_multi_set_solver(pc->dm, m->tol, m->max_iter);
    *out = pc;
    return LOGT_OK;
}

/* The parameters on every GPU after the first, copied where they changed. */
static logt_status params_out(deer_model *m, deer_pieces_cuda *pc, int n, cudaStream_t st)
{
    const int64_t nw = m->base.w.numel;
    if (pc->w_of == m->base.w.data && pc->w_version == m->base.wversion) return LOGT_OK;
    for (int p = 1; p < n; p++) {
        LOGT_TRY(on_gpu(p, &pc->w[p], nw));
        CUDA_TRY(cudaMemcpyPeerAsync(pc->w[p].data, p, m->base.w.data, 0, (size_t)nw * sizeof(float), st));
    }
    pc->w_of = m->base.w.data, pc->w_version = m->base.wversion;
    return LOGT_OK;
}

/* Piece p's rows [T_p][W] of a GPU 0 array src to GPU p's buffer (p >= 1). */
static logt_status piece_out(int p, int64_t t0, int64_t Tp, int64_t W, const logt_tensor *src, logt_tensor *dst,
                             cudaStream_t st)
{
    LOGT_TRY(on_gpu(p, dst, Tp * W));
    CUDA_TRY(cudaMemcpyPeerAsync(dst->data, p, rows(src, t0, W), 0, (size_t)(Tp * W) * sizeof(float), st));
    return LOGT_OK;
}

/* What the pieces made, in the model's report and detail: the forward's solve, its times and
 * the memory in use on each GPU after it; a backward appends its own times and memory. */
static void report(deer_model *m, int n, const deer_multi_report *rep, const deer_multi_times *tm, int forward)
{
    if (forward) deer_pieces_report(m, "gpus", n, rep);
    size_t k = strlen(m->base.detail);
    k += (size_t)snprintf(m->base.detail + k, sizeof m->base.detail - k,
                          "; %s ms: wall %.3f boundary %.3f scan %.3f scan-exchange %.3f reduce %.3f; GB in use "
                          "per GPU after it:", forward ? "forward" : "backward", tm->wall_ms, tm->boundary_ms,
                          tm->scan_ms, tm->scan_exchange_ms, tm->reduce_ms);
    for (int p = 0; p < n && k < sizeof m->base.detail; p++) {
        size_t fr = 0, total = 0;
        if (cudaSetDevice(p) == cudaSuccess && cudaMemGetInfo(&fr, &total) == cudaSuccess)
            k += (size_t)snprintf(m->base.detail + k, sizeof m->base.detail - k, " %.2f", (double)(total - fr) / 1e9);
    }
    cudaSetDevice(0);
}

extern "C" logt_status deer_forward_pieces_cuda(deer_model *m, const logt_tensor *x, logt_tensor *h, logt_ctx *ctx)
{
    LOGT_TRY(logt_ctx_require_cuda(ctx, "deer"));
    const int64_t T = x->shape[0], B = x->shape[1], I = x->shape[2], D = m->base.cfg.hidden_size;
    deer_pieces_cuda *pc = NULL;
    LOGT_TRY(handle_of(m, x, &pc));
    int64_t Tp[SCAN_MULTI_MAX];
    const int n = scan_pieces_split(T, m->gpus, Tp);
    if (n < m->gpus)
        return LOGT_FAIL(LOGT_EINVAL, "deer gpus = %d: T = %lld steps cannot give each GPU a piece: use "
                         "gpus <= %lld", m->gpus, (long long)T, (long long)T);
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const float *w[SCAN_MULTI_MAX], *px[SCAN_MULTI_MAX];
    float *ph[SCAN_MULTI_MAX];
    LOGT_TRY(params_out(m, pc, n, st));
    w[0] = (const float *)m->base.w.data, px[0] = rows(x, 0, B * I), ph[0] = rows(h, 0, B * D);
    int64_t t0 = Tp[0];
    for (int p = 1; p < n; t0 += Tp[p], p++) {
        LOGT_TRY(piece_out(p, t0, Tp[p], B * I, x, &pc->x[p], st));
        LOGT_TRY(on_gpu(p, &pc->h[p], Tp[p] * B * D));
        w[p] = (const float *)pc->w[p].data, px[p] = (const float *)pc->x[p].data, ph[p] = (float *)pc->h[p].data;
    }
    CUDA_TRY(cudaStreamSynchronize(st));   /* x and the parameters in place: deer_multi's streams go on */
    deer_multi_report rep;
    deer_multi_times tm;
    memset(&rep, 0, sizeof rep), memset(&tm, 0, sizeof tm);
    m->solved = 0;
    const logt_status s = deer_multi_forward(pc->dm, Tp, w, px, (const float *)m->base.h0.data,
                                             (const float *)m->base.c0.data, ph, &rep, &tm);
    report(m, n, &rep, &tm, 1);
    if (s != LOGT_OK) return s;
    t0 = Tp[0];
    for (int p = 1; p < n; t0 += Tp[p], p++)
        CUDA_TRY(cudaMemcpyPeerAsync(rows(h, t0, B * D), 0, ph[p], p, (size_t)(Tp[p] * B * D) * sizeof(float), st));
    m->solved = 1;
    return LOGT_OK;
}

extern "C" logt_status deer_backward_pieces_cuda(deer_model *m, const logt_tensor *dh, logt_tensor *dx,
                                                 logt_ctx *ctx)
{
    deer_pieces_cuda *pc = (deer_pieces_cuda *)m->pieces;
    if (!m->solved || !pc || !pc->dm)
        return LOGT_FAIL(LOGT_EINVAL, "deer backward: the last forward did not give a solution "
                         "(it failed): run a forward that succeeds first");
    LOGT_TRY(logt_ctx_require_cuda(ctx, "deer"));
    const logt_tensor *x = &m->x;
    const int64_t T = x->shape[0], B = x->shape[1], I = x->shape[2], D = m->base.cfg.hidden_size;
    const int64_t nw = m->base.w.numel;
    int64_t Tp[SCAN_MULTI_MAX];
    const int n = scan_pieces_split(T, m->gpus, Tp);
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const float *pdh[SCAN_MULTI_MAX];
    float *pdw[SCAN_MULTI_MAX], *pdx[SCAN_MULTI_MAX];
    pdh[0] = rows(dh, 0, B * D), pdw[0] = (float *)m->base.dw.data, pdx[0] = dx ? rows(dx, 0, B * I) : NULL;
    int64_t t0 = Tp[0];
    for (int p = 1; p < n; t0 += Tp[p], p++) {
        LOGT_TRY(piece_out(p, t0, Tp[p], B * D, dh, &pc->dh[p], st));
        LOGT_TRY(on_gpu(p, &pc->dw[p], nw));
        if (dx) LOGT_TRY(on_gpu(p, &pc->dx[p], Tp[p] * B * I));
        pdh[p] = (const float *)pc->dh[p].data, pdw[p] = (float *)pc->dw[p].data;
        pdx[p] = dx ? (float *)pc->dx[p].data : NULL;
    }
    CUDA_TRY(cudaStreamSynchronize(st));
    deer_multi_report rep;
    deer_multi_times tm;
    memset(&rep, 0, sizeof rep), memset(&tm, 0, sizeof tm);
    const logt_status s = deer_multi_backward(pc->dm, pdh, pdw, dx ? pdx : NULL, (float *)m->base.dh0.data,
                                              (float *)m->base.dc0.data, &rep, &tm);
    report(m, n, &rep, &tm, 0);   /* and GPU 0 current again, whatever deer_multi left */
    if (s != LOGT_OK) return s;
    if (dx) {
        t0 = Tp[0];
        for (int p = 1; p < n; t0 += Tp[p], p++)
            CUDA_TRY(cudaMemcpyPeerAsync(rows(dx, t0, B * I), 0, pdx[p], p, (size_t)(Tp[p] * B * I) * sizeof(float), st));
    }
    return LOGT_OK;
}

extern "C" void deer_pieces_free_cuda(deer_model *m)
{
    deer_pieces_cuda *pc = (deer_pieces_cuda *)m->pieces;
    if (!pc) return;
    for (int p = 1; p < m->gpus; p++) {   /* GPU p's, made there (on_gpu) */
        logt_tensor *all[] = {&pc->w[p], &pc->dw[p], &pc->x[p], &pc->h[p], &pc->dh[p], &pc->dx[p]};
        const size_t n = sizeof all / sizeof all[0];
        size_t made = 0;
        for (size_t i = 0; i < n; i++) made += all[i]->data != NULL;
        /* none made (a model refused for want of GPUs has none): GPU p may not exist */
        if (!made) continue;
        if (cudaSetDevice(p) != cudaSuccess) {
            cudaGetLastError();   /* nothing to free there; the next launch's check must not see it */
            continue;
        }
        for (size_t i = 0; i < n; i++) logt_tensor_free(all[i]);
    }
    cudaSetDevice(0);
    deer_multi_destroy(pc->dm);
    free(pc);
    m->pieces = NULL;
}
