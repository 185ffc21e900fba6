/* scan_multi.c — the sequence-parallel scan on the CPU (the algorithm in scan_multi.h),
 * float64, the pieces as separate arrays and the exchange a copy: the reference the GPU
 * version (scan_multi.cu) follows step for step. */
#include "scan_multi.h"

#include <stdlib.h>
#include <string.h>

#include "scan.h"

/* (A, B) of piece p per channel, in the direction of flow: walking from the outflow end,
 * each step earlier in the flow is composed before the map so far, (A, B) ↦ (A·a, A·b + B),
 * until A is exactly 0 (nothing earlier can matter) or the piece ends. */
static void piece_summary(int reverse, int64_t T, int64_t C, const double *a, const double *b,
                          double *A, double *Bm)
{
    for (int64_t c = 0; c < C; c++) {
        double x = 1.0, y = 0.0;
        for (int64_t s = 0; s < T && x != 0.0; s++) {
            const int64_t t = reverse ? s : T - 1 - s;
            y = x * b[t * C + c] + y;
            x = x * a[t * C + c];
        }
        A[c] = x, Bm[c] = y;
    }
}

logt_status scan_pieces_cpu(int reverse, int G, const int64_t *T, int64_t C,
                            const double *const *a, const double *const *b, const double *h0,
                            double *const *h)
{
    if (G < 1 || G > SCAN_MULTI_MAX)
        return LOGT_FAIL(LOGT_EINVAL, "scan_pieces_cpu: G = %d pieces: 1 to %d", G, SCAN_MULTI_MAX);
    if (C < 1)
        return LOGT_FAIL(LOGT_EINVAL, "scan_pieces_cpu: C = %lld channels: at least 1", (long long)C);
    for (int p = 0; p < G; p++)
        if (T[p] < 1)
            return LOGT_FAIL(LOGT_EINVAL, "scan_pieces_cpu: piece %d has T = %lld steps: every "
                             "piece needs at least one", p, (long long)T[p]);
    const int first = reverse ? G - 1 : 0, last = reverse ? 0 : G - 1;
    /* 1. summaries, [G][2][C]: what every piece would send */
    double *all = calloc((size_t)G * 2 * C, sizeof(double)), *carry = malloc((size_t)C * sizeof(double));
    if (!all || !carry) {
        free(all), free(carry);
        return LOGT_FAIL(LOGT_ENOMEM, "scan_pieces_cpu: out of host memory");
    }
    for (int p = 0; p < G; p++) {
        double *A = all + (size_t)p * 2 * C, *Bm = A + C;
        if (p == last) continue;   /* nobody after it needs its summary */
        piece_summary(reverse, T[p], C, a[p], b[p], A, Bm);
        if (p == first)            /* the state entering the flow applied: A = 0 */
            for (int64_t c = 0; c < C; c++) Bm[c] += A[c] * (h0 ? h0[c] : 0.0), A[c] = 0.0;
    }
    /* 2. the exchange is the array itself; 3. carries and 4. scans */
    logt_status s = LOGT_OK;
    for (int p = 0; p < G && s == LOGT_OK; p++) {
        const double *hin = h0;
        if (p != first) {
            for (int64_t c = 0; c < C; c++) carry[c] = 0.0;
            for (int q = first; q != p; q += reverse ? -1 : 1) {
                const double *A = all + (size_t)q * 2 * C, *Bm = A + C;
                for (int64_t c = 0; c < C; c++) carry[c] = A[c] * carry[c] + Bm[c];
            }
            hin = carry;
        }
        s = reverse ? scan_reverse_cpu(T[p], C, a[p], b[p], hin, h[p])
                    : scan_cpu(T[p], C, a[p], b[p], hin, h[p]);
    }
    free(all), free(carry);
    return s;
}

int scan_pieces_split(int64_t T, int G, int64_t *Tp)
{
    const int n = T < G ? (int)T : G;
    for (int p = 0; p < n; p++) Tp[p] = T / n + (p < T % n);
    return n;
}

void scan_pieces_of(const double *a, int n, const int64_t *Tp, int64_t W, double **out)
{
    int64_t t0 = 0;
    for (int p = 0; p < n; t0 += Tp[p], p++) out[p] = a ? (double *)a + t0 * W : NULL;
}

logt_status scan_split_cpu(int G, int reverse, int64_t T, int64_t C, const double *a, const double *b,
                           const double *h0, double *h)
{
    if (G < 1 || G > SCAN_MULTI_MAX)
        return LOGT_FAIL(LOGT_EINVAL, "scan_split_cpu: G = %d pieces: 1 to %d", G, SCAN_MULTI_MAX);
    if (G == 1 || T < 2)
        return reverse ? scan_reverse_cpu(T, C, a, b, h0, h) : scan_cpu(T, C, a, b, h0, h);
    int64_t Tp[SCAN_MULTI_MAX];
    double *pa[SCAN_MULTI_MAX], *pb[SCAN_MULTI_MAX], *ph[SCAN_MULTI_MAX];
    const int n = scan_pieces_split(T, G, Tp);
    scan_pieces_of(a, n, Tp, C, pa), scan_pieces_of(b, n, Tp, C, pb), scan_pieces_of(h, n, Tp, C, ph);
    return scan_pieces_cpu(reverse, n, Tp, C, (const double *const *)pa, (const double *const *)pb, h0, ph);
}

logt_status scan_backward_split_cpu(int G, int64_t T, int64_t C, const double *a, const double *h0,
                                    const double *h, const double *dh, double *da, double *db,
                                    double *dh0)
{
    if (G < 1 || G > SCAN_MULTI_MAX)
        return LOGT_FAIL(LOGT_EINVAL, "scan_backward_split_cpu: G = %d pieces: 1 to %d", G, SCAN_MULTI_MAX);
    if (G == 1) return scan_backward_cpu(T, C, a, h0, h, dh, da, db, dh0);
    if (T < 1 || C < 1)
        return LOGT_FAIL(LOGT_EINVAL, "scan_backward_split_cpu: T = %lld, C = %lld: a scan needs at "
                         "least one step and one channel", (long long)T, (long long)C);
    /* g_{T-1} = dh_{T-1}; the steps before it, a reversed scan over T-1 steps with the gates
     * one step later (a + C) from g_{T-1}, as scan_backward_cpu, in pieces */
    memcpy(db + (T - 1) * C, dh + (T - 1) * C, (size_t)C * sizeof *db);
    if (T > 1) LOGT_TRY(scan_split_cpu(G, 1, T - 1, C, a + C, dh, db + (T - 1) * C, db));
    scan_backward_rest_cpu(T, C, a, h0, h, db, da, dh0);
    return LOGT_OK;
}
