/* check.h — the one tolerance helper every test uses.
 *
 * Passes when |x - ref| <= atol + rtol*|ref| for every element; on failure the
 * message gives the max abs and max rel error and the first mismatches.
 */
#ifndef LOGT_TEST_CHECK_H
#define LOGT_TEST_CHECK_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct check_result {
    int ok;
    double max_abs, max_rel;
    char msg[512];
} check_result;

static inline check_result check_close(const char *what, const double *x, const double *ref,
                                       int64_t n, double atol, double rtol)
{
    check_result r = {1, 0, 0, ""};
    int shown = 0;
    size_t used = 0;
    for (int64_t i = 0; i < n; i++) {
        double d = fabs(x[i] - ref[i]);
        double rel = d / (fabs(ref[i]) > 1e-300 ? fabs(ref[i]) : 1e-300);
        if (!(d <= atol + rtol * fabs(ref[i]))) {   /* NaN fails */
            r.ok = 0;
            if (shown++ < 3 && used < sizeof r.msg)
                used += (size_t)snprintf(r.msg + used, sizeof r.msg - used,
                                         " [%lld] %.10g vs %.10g;", (long long)i, x[i], ref[i]);
        }
        if (d > r.max_abs || isnan(d)) r.max_abs = d;
        if (rel > r.max_rel && d > atol) r.max_rel = rel;
    }
    char head[160];
    snprintf(head, sizeof head, "%s: max abs err %.3g, max rel err %.3g (atol %.1g, rtol %.1g)%s",
             what, r.max_abs, r.max_rel, atol, rtol, r.ok ? "" : ", mismatches:");
    char tail[sizeof r.msg];
    memcpy(tail, r.msg, sizeof tail);
    size_t h = strlen(head);
    memcpy(r.msg, head, h + 1);
    strncat(r.msg, tail, sizeof r.msg - h - 1);
    return r;
}

/* ||x - ref|| / ||ref||, the norm-wise relative error. */
static inline double rel_l2(const double *x, const double *ref, int64_t n)
{
    double num = 0, den = 0;
    for (int64_t i = 0; i < n; i++) {
        num += (x[i] - ref[i]) * (x[i] - ref[i]);
        den += ref[i] * ref[i];
    }
    return den > 0 ? sqrt(num / den) : sqrt(num);
}

#endif
