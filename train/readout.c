/* readout.c — the linear head y = V h + c and its losses, on the host in f64.
 *
 *   y[n][o] = sum_d V[o][d] h[n][d] + c[o]          V [O][D], c [O], h [N][D]
 *   MSE : L = 1/(N·O) sum_{n,o} (y - t)^2           dL/dy = 2 (y - t) / (N·O)
 *   xent: L = 1/N sum_n (logsumexp(y_n) - y_n[t_n])  dL/dy = (softmax(y_n) - onehot(t_n)) / N
 * and then, for either loss, with g = dL/dy:
 *   dV[o][d] = sum_n g[n][o] h[n][d],   dc[o] = sum_n g[n][o],   dh[n][d] = sum_o g[n][o] V[o][d]
 * Cost O(N·O·D). N is the number of rows that carry targets (out_steps·B), small.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

logt_status logt_readout_loss(logt_readout *r, logt_loss loss, const double *h, int64_t N,
                              const double *target, double *dh, double *out_loss, double *acc)
{
    const int D = r->D, O = r->O;
    if (!r->w.data) return LOGT_FAIL(LOGT_EINVAL, "readout used before logt_readout_init");
    if (N < 1) return LOGT_FAIL(LOGT_EINVAL, "readout loss over N = %lld rows: need N >= 1", (long long)N);
    if (loss == LOGT_LOSS_XENT)
        for (int64_t n = 0; n < N; n++)
            if (!(target[n] >= 0 && target[n] < O && target[n] == floor(target[n])))
                return LOGT_FAIL(LOGT_EINVAL,
                                 "cross-entropy target %g in row %lld is not a class id 0..%d",
                                 target[n], (long long)n, O - 1);
    const double *V = r->w.data, *c = V + (int64_t)O * D;
    double *dV = r->dw.data, *dc = dV + (int64_t)O * D;
    memset(r->dw.data, 0, logt_tensor_bytes(&r->dw));
    double *y = malloc(2 * (size_t)O * sizeof *y);
    if (!y) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory in the readout");
    double *g = y + O;
    /* the mean over rows (and, for MSE, outputs) folded into g */
    const double inv = loss == LOGT_LOSS_MSE ? 1.0 / ((double)N * O) : 1.0 / (double)N;
    double total = 0;
    int64_t right = 0;
    for (int64_t n = 0; n < N; n++) {
        const double *hn = h + n * D;
        for (int o = 0; o < O; o++) {
            double s = c[o];
            for (int d = 0; d < D; d++) s += V[(int64_t)o * D + d] * hn[d];
            y[o] = s;
        }
        int ok;
        total += loss == LOGT_LOSS_MSE ? mse_row(y, target + n * O, O, g, &ok)
                                       : xent_row(y, (int)target[n], O, g, &ok);
        right += ok;
        for (int o = 0; o < O; o++) {
            g[o] *= inv;
            dc[o] += g[o];
            for (int d = 0; d < D; d++) dV[(int64_t)o * D + d] += g[o] * hn[d];
        }
        if (dh)
            for (int d = 0; d < D; d++) {
                double s = 0;
                for (int o = 0; o < O; o++) s += g[o] * V[(int64_t)o * D + d];
                dh[n * D + d] = s;
            }
    }
    free(y);
    *out_loss = total * inv;
    if (acc) *acc = loss == LOGT_LOSS_XENT ? (double)right / (double)N : NAN;
    return LOGT_OK;
}
