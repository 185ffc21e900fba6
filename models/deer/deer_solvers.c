/* deer_solvers.c — the float64 linear solves of deer's Newton step (deer.h): the recurrence
 * with D×D matrices, serial and in chunks composed associatively (the form a parallel scan
 * takes), and the damped step's tridiagonal system per channel, by Thomas and in chunks. The
 * CPU reference (deer.c) and the tests hold the parallel forms to the serial ones.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "deer.h"

/* ---- linear recurrences with matrices ------------------------------------------------------ */

void deer_mscan_serial(int64_t T, int64_t D, const double *A, const double *b, const double *h0,
                       double *h)
{
    for (int64_t t = 0; t < T; t++) {
        const double *hp = t ? h + (t - 1) * D : h0;
        for (int64_t j = 0; j < D; j++) {
            double s = b[t * D + j];
            if (hp)
                for (int64_t mm = 0; mm < D; mm++) s += A[(t * D + j) * D + mm] * hp[mm];
            h[t * D + j] = s;
        }
    }
}

/* y = P x + q for P [D][D] (y may not alias x). */
static void affine(int64_t D, const double *P, const double *q, const double *x, double *y)
{
    for (int64_t j = 0; j < D; j++) {
        double s = q ? q[j] : 0.0;
        if (x)
            for (int64_t mm = 0; mm < D; mm++) s += P[j * D + mm] * x[mm];
        y[j] = s;
    }
}

logt_status deer_mscan_chunked(int64_t T, int64_t D, const double *A, const double *b,
                               const double *h0, int64_t chunk, double *h)
{
    if (T < 1 || D < 1 || chunk < 1)
        return LOGT_FAIL(LOGT_EINVAL, "deer_mscan_chunked: T = %lld, D = %lld, chunk = %lld must "
                         "all be at least 1", (long long)T, (long long)D, (long long)chunk);
    const int64_t nc = (T + chunk - 1) / chunk;
    /* per chunk c the composed map h_end = P_c h_start + q_c, the associative combination
     * (A2, b2) ∘ (A1, b1) = (A2 A1, A2 b1 + b2) applied along the chunk */
    double *P = malloc((size_t)(nc * D * D) * sizeof *P), *q = malloc((size_t)(nc * D) * sizeof *q);
    double *tmpP = malloc((size_t)(D * D) * sizeof *tmpP), *tmpq = malloc((size_t)D * sizeof *tmpq);
    double *carry = malloc((size_t)((nc + 1) * D) * sizeof *carry);
    if (!P || !q || !tmpP || !tmpq || !carry) {
        free(P), free(q), free(tmpP), free(tmpq), free(carry);
        return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    }
    for (int64_t c = 0; c < nc; c++) {   /* independent across chunks: the parallel part */
        double *Pc = P + c * D * D, *qc = q + c * D;
        for (int64_t i = 0; i < D * D; i++) Pc[i] = (i / D == i % D);
        for (int64_t j = 0; j < D; j++) qc[j] = 0.0;
        for (int64_t t = c * chunk; t < T && t < (c + 1) * chunk; t++) {
            const double *At = A + t * D * D;
            for (int64_t j = 0; j < D; j++)
                for (int64_t k = 0; k < D; k++) {
                    double s = 0.0;
                    for (int64_t mm = 0; mm < D; mm++) s += At[j * D + mm] * Pc[mm * D + k];
                    tmpP[j * D + k] = s;
                }
            memcpy(Pc, tmpP, (size_t)(D * D) * sizeof *Pc);
            affine(D, At, b + t * D, qc, tmpq);
            memcpy(qc, tmpq, (size_t)D * sizeof *qc);
        }
    }
    /* the carries: the state entering each chunk (log-depth in a parallel scan; a loop here) */
    for (int64_t j = 0; j < D; j++) carry[j] = h0 ? h0[j] : 0.0;
    for (int64_t c = 0; c < nc; c++) affine(D, P + c * D * D, q + c * D, carry + c * D, carry + (c + 1) * D);
    /* every step from its chunk's carry: independent across chunks again */
    for (int64_t c = 0; c < nc; c++) {
        const int64_t t0 = c * chunk, n = T - t0 < chunk ? T - t0 : chunk;
        deer_mscan_serial(n, D, A + t0 * D * D, b + t0 * D, carry + c * D, h + t0 * D);
    }
    free(P), free(q), free(tmpP), free(tmpq), free(carry);
    return LOGT_OK;
}

/* The damped step for one channel: minimise Σ_t (h_t − a_t h_{t-1} − b_t)² + λ Σ_t (h_t − g_t)²
 * with h_{-1} = h0: a tridiagonal system, solved by the Thomas algorithm. a, b, g, out are
 * strided by `s`; cp, dp: T doubles of scratch. */
void deer_damped_channel(int64_t T, int64_t s, const double *a, const double *b, const double *g,
                         double h0, double lambda, double *cp, double *dp, double *out)
{
    for (int64_t t = 0; t < T; t++) {
        const double an = t + 1 < T ? a[(t + 1) * s] : 0.0, bn = t + 1 < T ? b[(t + 1) * s] : 0.0;
        const double diag = 1.0 + lambda + an * an, sub = t ? -a[t * s] : 0.0, sup = -an;
        double rhs = b[t * s] + lambda * g[t * s] - an * bn;
        if (t == 0) rhs += a[0] * h0;
        const double den = diag - (t ? sub * cp[t - 1] : 0.0);
        cp[t] = sup / den;
        dp[t] = (rhs - (t ? sub * dp[t - 1] : 0.0)) / den;
    }
    out[(T - 1) * s] = dp[T - 1];
    for (int64_t t = T - 2; t >= 0; t--) out[t * s] = dp[t] - cp[t] * out[(t + 1) * s];
}

/* The same system (stride 1) in the associative form a parallel scan uses, chunk steps at a
 * time. Thomas's forward sweep c'_t = u_t / (d_t − l_t c'_{t-1}) is a Möbius map of c'_{t-1}:
 * [c'_t; 1] ∝ M_t [c'_{t-1}; 1] with M_t = [[0, u_t], [−l_t, d_t]], so a chunk composes its
 * M_t (2×2 products, each normalised by its largest entry: only the ratio matters), the
 * carries c' pass between chunks, and each chunk reruns from its carry. With every den_t
 * known, r'_t = (rhs_t − l_t r'_{t-1}) / den_t and h_t = r'_t − c'_t h_{t+1} are linear
 * recurrences: deer_mscan_chunked with D = 1, the second on the reversed sequence. */
logt_status deer_damped_chunked(int64_t T, const double *a, const double *b, const double *g,
                                double h0, double lambda, int64_t chunk, double *out)
{
    if (T < 1 || chunk < 1)
        return LOGT_FAIL(LOGT_EINVAL, "deer_damped_chunked: T = %lld, chunk = %lld must both be at "
                         "least 1", (long long)T, (long long)chunk);
    const int64_t nc = (T + chunk - 1) / chunk;
    double *l = malloc((size_t)(6 * T + 4 * nc + 1) * sizeof(double));
    if (!l) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    double *d = l + T, *u = d + T, *rhs = u + T, *cp = rhs + T, *al = cp + T, *Pc = al + T;
    for (int64_t t = 0; t < T; t++) {   /* the rows of deer_damped_channel's system */
        const double an = t + 1 < T ? a[t + 1] : 0.0, bn = t + 1 < T ? b[t + 1] : 0.0;
        l[t] = t ? -a[t] : 0.0, d[t] = 1.0 + lambda + an * an, u[t] = -an;
        rhs[t] = b[t] + lambda * g[t] - an * bn + (t == 0 ? a[0] * h0 : 0.0);
    }
    /* the chunks' Möbius maps (independent: the parallel part), normalised products */
    for (int64_t c = 0; c < nc; c++) {
        double m00 = 1.0, m01 = 0.0, m10 = 0.0, m11 = 1.0;
        for (int64_t t = c * chunk; t < T && t < (c + 1) * chunk; t++) {
            const double n00 = u[t] * m10, n01 = u[t] * m11;   /* [[0, u], [−l, d]] · M */
            const double n10 = -l[t] * m00 + d[t] * m10, n11 = -l[t] * m01 + d[t] * m11;
            const double big = fmax(fmax(fabs(n00), fabs(n01)), fmax(fabs(n10), fabs(n11)));
            m00 = n00 / big, m01 = n01 / big, m10 = n10 / big, m11 = n11 / big;
        }
        Pc[4 * c] = m00, Pc[4 * c + 1] = m01, Pc[4 * c + 2] = m10, Pc[4 * c + 3] = m11;
    }
    /* carries: c' before each chunk, from c'_{-1} = 0; then each chunk rerun from its carry */
    double carry = 0.0;
    for (int64_t c = 0; c < nc; c++) {
        double x = carry;
        for (int64_t t = c * chunk; t < T && t < (c + 1) * chunk; t++) {
            const double den = d[t] - l[t] * x;
            cp[t] = x = u[t] / den;
            al[t] = den;   /* kept for r' */
        }
        const double *M = Pc + 4 * c;   /* the same carry by the chunk's composed map */
        carry = (M[0] * carry + M[1]) / (M[2] * carry + M[3]);
    }
    /* r'_t = (−l_t / den_t) r'_{t-1} + rhs_t / den_t, then h_t = −c'_t h_{t+1} + r'_t reversed */
    double *A1 = malloc((size_t)(4 * T) * sizeof(double));
    if (!A1) {
        free(l);
        return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    }
    double *B1 = A1 + T, *rp = B1 + T, *hr = rp + T;
    for (int64_t t = 0; t < T; t++) A1[t] = -l[t] / al[t], B1[t] = rhs[t] / al[t];
    logt_status s = deer_mscan_chunked(T, 1, A1, B1, NULL, chunk, rp);
    for (int64_t t = 0; s == LOGT_OK && t < T; t++)   /* reversed: step k is time T-1-k */
        A1[t] = t ? -cp[T - 1 - t] : 0.0, B1[t] = rp[T - 1 - t];
    if (s == LOGT_OK) s = deer_mscan_chunked(T, 1, A1, B1, NULL, chunk, hr);
    for (int64_t t = 0; s == LOGT_OK && t < T; t++) out[t] = hr[T - 1 - t];
    free(A1), free(l);
    return s;
}

/* One channel's damped step by Thomas (deer_damped_channel) on contiguous arrays: the reference
 * deer_damped_chunked is held to. */
logt_status deer_damped_thomas(int64_t T, const double *a, const double *b, const double *g,
                               double h0, double lambda, double *out)
{
    if (T < 1) return LOGT_FAIL(LOGT_EINVAL, "deer_damped_thomas: T = %lld must be at least 1", (long long)T);
    double *cp = malloc((size_t)(2 * T) * sizeof(double));
    if (!cp) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    deer_damped_channel(T, 1, a, b, g, h0, lambda, cp, cp + T, out);
    free(cp);
    return LOGT_OK;
}
