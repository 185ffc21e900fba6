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
