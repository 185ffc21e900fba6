/* scan.c — the float64 CPU reference of the linear scan (scan.h).
 *
 * One loop over time, the channels side by side: the plain serial recurrence that
 * every faster version is judged against. Cost O(T·C), one pass over a, b and h.
 */
#include "scan.h"

#include <string.h>

static logt_status check_sizes(const char *op, int64_t T, int64_t C)
{
    if (T < 1)
        return LOGT_FAIL(LOGT_EINVAL, "%s: T = %lld steps: a scan needs at least one step (T >= 1)",
                         op, (long long)T);
    if (C < 1)
        return LOGT_FAIL(LOGT_EINVAL,
                         "%s: C = %lld channels: a scan needs at least one channel (C >= 1)", op,
                         (long long)C);
    return LOGT_OK;
}

logt_status scan_cpu(int64_t T, int64_t C, const double *a, const double *b, const double *h0,
                     double *h)
{
    LOGT_TRY(check_sizes("scan_cpu", T, C));
    for (int64_t t = 0; t < T; t++) {
        const double *prev = t ? h + (t - 1) * C : h0;   /* h_{t-1}; NULL: zeros */
        for (int64_t c = 0; c < C; c++)
            h[t * C + c] = a[t * C + c] * (prev ? prev[c] : 0.0) + b[t * C + c];
    }
    return LOGT_OK;
}

logt_status scan_reverse_cpu(int64_t T, int64_t C, const double *a, const double *b,
                             const double *h0, double *h)
{
    LOGT_TRY(check_sizes("scan_reverse_cpu", T, C));
    for (int64_t t = T - 1; t >= 0; t--) {
        const double *next = t < T - 1 ? h + (t + 1) * C : h0;   /* h_{t+1}; NULL: zeros */
        for (int64_t c = 0; c < C; c++)
            h[t * C + c] = a[t * C + c] * (next ? next[c] : 0.0) + b[t * C + c];
    }
    return LOGT_OK;
}

logt_status scan_backward_cpu(int64_t T, int64_t C, const double *a, const double *h0,
                              const double *h, const double *dh, double *da, double *db,
                              double *dh0)
{
    LOGT_TRY(check_sizes("scan_backward_cpu", T, C));
    /* g = db. The last step has no later step: g_{T-1} = dh_{T-1}. The steps before it are
     * a reversed scan over T-1 steps whose gates are a shifted by one step, a + C, and
     * whose initial state is g_{T-1}: g_t = a_{t+1} g_{t+1} + dh_t. */
    double *g = db;
    memcpy(g + (T - 1) * C, dh + (T - 1) * C, (size_t)C * sizeof *g);
    if (T > 1) LOGT_TRY(scan_reverse_cpu(T - 1, C, a + C, dh, g + (T - 1) * C, g));
    scan_backward_rest_cpu(T, C, a, h0, h, g, da, dh0);
    return LOGT_OK;
}

void scan_backward_rest_cpu(int64_t T, int64_t C, const double *a, const double *h0, const double *h,
                            const double *g, double *da, double *dh0)
{
    if (da)
        for (int64_t t = 0; t < T; t++) {
            const double *prev = t ? h + (t - 1) * C : h0;
            for (int64_t c = 0; c < C; c++) da[t * C + c] = g[t * C + c] * (prev ? prev[c] : 0.0);
        }
    if (dh0)
        for (int64_t c = 0; c < C; c++) dh0[c] = a[c] * g[c];
}
