/* readout.c — the linear head y = V h + c and its losses, on the host in f64.
 *
 *   y[n][o] = sum_d V[o][d] h[n][d] + c[o]          V [O][D], c [O], h [N][D]
 *   MSE : L = 1/(N·O) sum_{n,o} (y - t)^2           dL/dy = 2 (y - t) / (N·O)
 *   xent: L = 1/N sum_n (logsumexp(y_n) - y_n[t_n])  dL/dy = (softmax(y_n) - onehot(t_n)) / N
 * and then, for either loss, with g = dL/dy:
 *   dV[o][d] = sum_n g[n][o] h[n][d],   dc[o] = sum_n g[n][o],   dh[n][d] = sum_o g[n][o] V[o][d]
 * Cost O(N·O·D). N is the number of rows that carry targets (out_steps·B): B for most
 * tasks, T·B for charlm, where the rows are shared out among the host's cores.
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/rng.h"
#include "train.h"

/* rng streams of the readout's parameters, away from the net's (layer·16 + slice) */
#define STREAM_V 0x72656164000ull
#define STREAM_C 0x72656164001ull

logt_status logt_readout_init(logt_readout *r, int D, int O, uint64_t seed)
{
    memset(r, 0, sizeof *r);
    if (D < 1 || O < 1)
        return LOGT_FAIL(LOGT_EINVAL, "readout %d -> %d: both sizes must be at least 1", D, O);
    r->D = D;
    r->O = O;
    int64_t n = (int64_t)O * D + O;
    LOGT_TRY(logt_tensor_new1(&r->w, LOGT_CPU, LOGT_F64, n));
    logt_status s = logt_tensor_new1(&r->dw, LOGT_CPU, LOGT_F64, n);
    if (s != LOGT_OK) {
        logt_readout_free(r);
        return s;
    }
    logt_tensor_zero(&r->dw);
    double *V = r->w.data, *c = V + (int64_t)O * D;
    double k = 1.0 / sqrt((double)D);   /* as PyTorch's nn.Linear */
    for (int64_t i = 0; i < (int64_t)O * D; i++)
        V[i] = k * (2.0 * logt_uniform(seed, STREAM_V, (uint64_t)i) - 1.0);
    for (int o = 0; o < O; o++) c[o] = k * (2.0 * logt_uniform(seed, STREAM_C, (uint64_t)o) - 1.0);
    return LOGT_OK;
}

void logt_readout_free(logt_readout *r)
{
    if (!r) return;
    logt_tensor_free(&r->w);
    logt_tensor_free(&r->dw);
}

/* Row n's loss; writes g[o] = d(row loss)/dy (not yet divided by the mean's count). */
static double mse_row(const double *y, const double *t, int O, double *g, int *right)
{
    double l = 0;
    for (int o = 0; o < O; o++) {
        double e = y[o] - t[o];
        l += e * e;
        g[o] = 2.0 * e;
    }
    *right = 0;
    return l;
}

static double xent_row(const double *y, int label, int O, double *g, int *right)
{
    int arg = 0;
    for (int o = 1; o < O; o++)
        if (y[o] > y[arg]) arg = o;
    double mx = y[arg], z = 0;
    for (int o = 0; o < O; o++) z += exp(y[o] - mx);
    double lse = mx + log(z);
    for (int o = 0; o < O; o++) g[o] = exp(y[o] - lse) - (o == label);
    *right = arg == label;
    return lse - y[label];
}

/* Rows are cut into at most MAX_CHUNKS fixed chunks of at least CHUNK_ROWS rows; each chunk
 * sums its own loss, hits and gradient of V and c, and the chunks' sums are added in chunk
 * order: the same numbers whatever the number of threads (and, for N <= CHUNK_ROWS, the same
 * as one loop over the rows). Threads: one per core up to the chunks, once a call's work
 * (N·O·D) is worth them. */
enum { CHUNK_ROWS = 256, MAX_CHUNKS = 32, MAX_THREADS = 32 };
#define THREADS_FROM_WORK 2e6

typedef struct chunk_job {
    const logt_readout *r;
    logt_loss loss;
    const double *h, *target;
    double *dh, inv;
    int64_t n0, n1;     /* rows [n0, n1) */
    double *grad;       /* [O·D + O]: this chunk's dV then dc */
    double total;
    int64_t right;
} chunk_job;

static void chunk_run(chunk_job *j, double *y)
{
    const int D = j->r->D, O = j->r->O;
    const double *V = j->r->w.data, *c = V + (int64_t)O * D;
    double *dV = j->grad, *dc = dV + (int64_t)O * D, *g = y + O;
    memset(j->grad, 0, ((size_t)O * D + O) * sizeof *j->grad);
    j->total = 0, j->right = 0;
    for (int64_t n = j->n0; n < j->n1; n++) {
        const double *hn = j->h + n * D;
        for (int o = 0; o < O; o++) {
            double s = c[o];
            for (int d = 0; d < D; d++) s += V[(int64_t)o * D + d] * hn[d];
            y[o] = s;
        }
        int ok;
        j->total += j->loss == LOGT_LOSS_MSE ? mse_row(y, j->target + n * O, O, g, &ok)
                                             : xent_row(y, (int)j->target[n], O, g, &ok);
        j->right += ok;
        for (int o = 0; o < O; o++) {
            g[o] *= j->inv;
            dc[o] += g[o];
            for (int d = 0; d < D; d++) dV[(int64_t)o * D + d] += g[o] * hn[d];
        }
        if (j->dh) {   /* dh_n = sum_o g[o] V[o][:], row by row of V (the same sums in the same order) */
            double *dhn = j->dh + n * D;
            for (int d = 0; d < D; d++) dhn[d] = 0;
            for (int o = 0; o < O; o++)
                for (int d = 0; d < D; d++) dhn[d] += g[o] * V[(int64_t)o * D + d];
        }
    }
}

typedef struct worker {
    chunk_job *jobs;
    int first, step, njobs;   /* jobs first, first + step, ... */
    double *y;                /* [2·O] scratch */
} worker;

static void *worker_run(void *arg)
{
    worker *w = arg;
    for (int k = w->first; k < w->njobs; k += w->step) chunk_run(&w->jobs[k], w->y);
    return NULL;
}

logt_status logt_readout_check(const logt_readout *r, logt_loss loss, int64_t N, const double *target)
{
    if (!r->w.data) return LOGT_FAIL(LOGT_EINVAL, "readout used before logt_readout_init");
    if (N < 1) return LOGT_FAIL(LOGT_EINVAL, "readout loss over N = %lld rows: need N >= 1", (long long)N);
    if (loss == LOGT_LOSS_XENT)
        for (int64_t n = 0; n < N; n++)
            if (!(target[n] >= 0 && target[n] < r->O && target[n] == floor(target[n])))
                return LOGT_FAIL(LOGT_EINVAL,
                                 "cross-entropy target %g in row %lld is not a class id 0..%d",
                                 target[n], (long long)n, r->O - 1);
    return LOGT_OK;
}

logt_status logt_readout_loss(logt_readout *r, logt_loss loss, const double *h, int64_t N,
                              const double *target, double *dh, double *out_loss, double *acc)
{
    const int D = r->D, O = r->O;
    LOGT_TRY(logt_readout_check(r, loss, N, target));
    int64_t nchunks = (N + CHUNK_ROWS - 1) / CHUNK_ROWS;
    if (nchunks > MAX_CHUNKS) nchunks = MAX_CHUNKS;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int nthreads = (double)N * O * D < THREADS_FROM_WORK || cores < 2 ? 1
                   : cores < nchunks ? (int)cores : (int)nchunks;
    if (nthreads > MAX_THREADS) nthreads = MAX_THREADS;
    const size_t ngrad = (size_t)O * D + O;
    /* chunk 0 sums straight into r->dw; the others into their own buffers */
    double *buf = malloc(((size_t)(nchunks - 1) * ngrad + (size_t)nthreads * 2 * O) * sizeof *buf);
    chunk_job *jobs = malloc((size_t)nchunks * sizeof *jobs);
    if (!buf || !jobs) {
        free(buf), free(jobs);
        return LOGT_FAIL(LOGT_ENOMEM, "out of host memory in the readout");
    }
    /* the mean over rows (and, for MSE, outputs) folded into g */
    const double inv = loss == LOGT_LOSS_MSE ? 1.0 / ((double)N * O) : 1.0 / (double)N;
    for (int64_t k = 0; k < nchunks; k++)
        jobs[k] = (chunk_job){r, loss, h, target, dh, inv, N * k / nchunks, N * (k + 1) / nchunks,
                              k ? buf + (size_t)(k - 1) * ngrad : r->dw.data, 0, 0};
    double *ys = buf + (size_t)(nchunks - 1) * ngrad;
    worker wk[MAX_THREADS];
    pthread_t th[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    for (int t = 0; t < nthreads; t++) {
        wk[t] = (worker){jobs, t, nthreads, (int)nchunks, ys + (size_t)t * 2 * O};
        started[t] = t > 0 && pthread_create(&th[t], NULL, worker_run, &wk[t]) == 0;
        if (t > 0 && !started[t]) worker_run(&wk[t]);   /* no thread: this one does its share */
    }
    worker_run(&wk[0]);
    for (int t = 1; t < nthreads; t++)
        if (started[t]) pthread_join(th[t], NULL);
    double total = jobs[0].total;
    int64_t right = jobs[0].right;
    double *dw = r->dw.data;
    for (int64_t k = 1; k < nchunks; k++) {
        total += jobs[k].total;
        right += jobs[k].right;
        for (size_t i = 0; i < ngrad; i++) dw[i] += jobs[k].grad[i];
    }
    free(buf), free(jobs);
    *out_loss = total * inv;
    if (acc) *acc = loss == LOGT_LOSS_XENT ? (double)right / (double)N : NAN;
    return LOGT_OK;
}
