/* test_scan.c — the float64 CPU linear scan (kernels/scan.h): hand-worked cases, gates near 1
 * over a long sequence against a more accurate judge, the backward against finite differences
 * and against the reversed-scan identity, and the size errors. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/rng.h"
#include "../kernels/scan.h"
#include "check.h"

/* T = 3 steps, C = 2 channels; every number below is exact in binary. */
static const double A3[6] = {0.5, 2, /* t=0 */ 1, -1, /* t=1 */ 0.25, 0.5 /* t=2 */};
static const double B3[6] = {1, 1, 2, 3, 4, -2};
static const double H0[2] = {2, -1};

static void expect_exact(const char *what, const double *x, const double *ref, int64_t n)
{
    check_result r = check_close(what, x, ref, n, 0, 0);
    cr_assert(r.ok, "%s", r.msg);
}

Test(scan_cpu, forward_by_hand)
{
    double h[6];
    /* from zeros: h_0 = b_0; h_1 = a_1 h_0 + b_1 = (1·1 + 2, −1·1 + 3); h_2 = (0.25·3 + 4, 0.5·2 − 2) */
    cr_assert_eq(scan_cpu(3, 2, A3, B3, NULL, h), LOGT_OK, "%s", logt_errmsg());
    expect_exact("from zeros", h, (double[]){1, 1, 3, 2, 4.75, -1}, 6);
    /* from h0 = (2, −1): h_0 = (0.5·2 + 1, 2·−1 + 1) = (2, −1); h_1 = (4, 4); h_2 = (5, 0) */
    cr_assert_eq(scan_cpu(3, 2, A3, B3, H0, h), LOGT_OK, "%s", logt_errmsg());
    expect_exact("from h0", h, (double[]){2, -1, 4, 4, 5, 0}, 6);
    /* in place: h = b */
    double hb[6];
    memcpy(hb, B3, sizeof hb);
    cr_assert_eq(scan_cpu(3, 2, A3, hb, H0, hb), LOGT_OK);
    expect_exact("in place", hb, (double[]){2, -1, 4, 4, 5, 0}, 6);
}

Test(scan_cpu, reversed_by_hand)
{
    double h[6];
    /* from zeros: h_2 = b_2 = (4, −2); h_1 = a_1 h_2 + b_1 = (4 + 2, 2 + 3); h_0 = (0.5·6 + 1, 2·5 + 1) */
    cr_assert_eq(scan_reverse_cpu(3, 2, A3, B3, NULL, h), LOGT_OK, "%s", logt_errmsg());
    expect_exact("from zeros", h, (double[]){4, 11, 6, 5, 4, -2}, 6);
    /* from h_3 = (2, −1): h_2 = (0.5 + 4, −0.5 − 2); h_1 = (4.5 + 2, 2.5 + 3); h_0 = (3.25 + 1, 11 + 1) */
    cr_assert_eq(scan_reverse_cpu(3, 2, A3, B3, H0, h), LOGT_OK, "%s", logt_errmsg());
    expect_exact("from h0", h, (double[]){4.25, 12, 6.5, 5.5, 4.5, -2.5}, 6);
    double hb[6];
    memcpy(hb, B3, sizeof hb);
    cr_assert_eq(scan_reverse_cpu(3, 2, A3, hb, H0, hb), LOGT_OK);
    expect_exact("in place", hb, (double[]){4.25, 12, 6.5, 5.5, 4.5, -2.5}, 6);
}

Test(scan_cpu, one_step)
{
    double h[2];
    cr_assert_eq(scan_cpu(1, 2, A3, B3, H0, h), LOGT_OK);
    expect_exact("forward", h, (double[]){2, -1}, 2);
    cr_assert_eq(scan_reverse_cpu(1, 2, A3, B3, H0, h), LOGT_OK);
    expect_exact("reversed", h, (double[]){2, -1}, 2);
    double dh[2] = {3, 5}, da[2], db[2], dh0[2];
    cr_assert_eq(scan_backward_cpu(1, 2, A3, H0, h, dh, da, db, dh0), LOGT_OK);
    expect_exact("db", db, dh, 2);
    expect_exact("da", da, (double[]){6, -5}, 2);     /* g_0 h0 */
    expect_exact("dh0", dh0, (double[]){1.5, 10}, 2); /* a_0 g_0 */
}

Test(scan_cpu, backward_by_hand)
{
    /* Forward from h0 = (2, −1) gave h = ((2, −1), (4, 4), (5, 0)). With dh = ((1, 0), (0, 1), (1, 1)):
     *   g_2 = (1, 1);  g_1 = dh_1 + a_2 g_2 = (0.25, 1.5);  g_0 = dh_0 + a_1 g_1 = (1.25, −1.5)
     *   da_0 = g_0 h0 = (2.5, 1.5);  da_1 = g_1 h_0 = (0.5, −1.5);  da_2 = g_2 h_1 = (4, 4)
     *   dh0 = a_0 g_0 = (0.625, −3) */
    double h[6], da[6], db[6], dh0[2];
    const double dh[6] = {1, 0, 0, 1, 1, 1};
    cr_assert_eq(scan_cpu(3, 2, A3, B3, H0, h), LOGT_OK);
    cr_assert_eq(scan_backward_cpu(3, 2, A3, H0, h, dh, da, db, dh0), LOGT_OK, "%s", logt_errmsg());
    expect_exact("db", db, (double[]){1.25, -1.5, 0.25, 1.5, 1, 1}, 6);
    expect_exact("da", da, (double[]){2.5, 1.5, 0.5, -1.5, 4, 4}, 6);
    expect_exact("dh0", dh0, (double[]){0.625, -3}, 2);
    /* from zeros: da_0 = 0, the rest follow the zero-state forward; da and dh0 may be NULL */
    cr_assert_eq(scan_cpu(3, 2, A3, B3, NULL, h), LOGT_OK);
    cr_assert_eq(scan_backward_cpu(3, 2, A3, NULL, h, dh, da, db, NULL), LOGT_OK);
    expect_exact("da from zeros", da, (double[]){0, 0, 0.25, 1.5, 3, 2}, 6);
    cr_assert_eq(scan_backward_cpu(3, 2, A3, NULL, h, dh, NULL, db, NULL), LOGT_OK);
    expect_exact("db alone", db, (double[]){1.25, -1.5, 0.25, 1.5, 1, 1}, 6);
}

static void fill(double *p, int64_t n, uint64_t stream, double lo, double hi)
{
    logt_uniform_fill(7, stream, p, n, lo, hi);
}

/* The judge for long scans: the same recurrence in long double (64-bit mantissa on x86,
 * 11 more bits than double), and, at a few steps, the closed form
 *   h_t = (Π_{r<=t} a_r) h0 + Σ_{s<=t} (Π_{s<r<=t} a_r) b_s
 * summed with Kahan compensation: a different algorithm, with no recurrence in it. */
static void judge_forward(int64_t T, int64_t C, const double *a, const double *b, const double *h0,
                          double *h)
{
    for (int64_t c = 0; c < C; c++) {
        long double s = h0[c];
        for (int64_t t = 0; t < T; t++) {
            s = (long double)a[t * C + c] * s + (long double)b[t * C + c];
            h[t * C + c] = (double)s;
        }
    }
}

static double closed_form(int64_t t, int64_t C, int64_t c, const double *a, const double *b,
                          const double *h0)
{
    long double sum = 0, comp = 0, prod = 1;
    for (int64_t s = t; s >= -1; s--) {
        long double term = prod * (s >= 0 ? (long double)b[s * C + c] : (long double)h0[c]);
        long double y = term - comp, u = sum + y;   /* Kahan */
        comp = (u - sum) - y;
        sum = u;
        if (s >= 0) prod *= a[s * C + c];
    }
    return (double)sum;
}

Test(scan_cpu, gates_near_one_over_long_T)
{
    /* a in [0.999, 1]: the memory spans the whole sequence, so an error in any carry stays
     * visible at the end instead of decaying away. Rounding grows with T: each step adds
     * ~1 ulp, so after T = 10000 steps the error bound is ~T·eps·max|h| ≈ 1e-12·max|h|. */
    const int64_t T = 10000, C = 5;
    double *a = malloc(sizeof(double) * T * C), *b = malloc(sizeof(double) * T * C);
    double *h = malloc(sizeof(double) * T * C), *ref = malloc(sizeof(double) * T * C);
    double h0[5];
    fill(a, T * C, 1, 0.999, 1.0), fill(b, T * C, 2, -1, 1), fill(h0, C, 3, -1, 1);
    for (int64_t c = 0; c < C; c++) a[(T / 2) * C + c] = 1.0;   /* and some gates exactly 1 */

    cr_assert_eq(scan_cpu(T, C, a, b, h0, h), LOGT_OK);
    judge_forward(T, C, a, b, h0, ref);
    double big = 0;
    for (int64_t i = 0; i < T * C; i++) big = fmax(big, fabs(ref[i]));
    cr_assert(big > 10, "the test should reach large states (max |h| = %g)", big);
    const double atol = 1e-12 * big, rtol = 1e-12;
    check_result r = check_close("forward vs long double", h, ref, T * C, atol, rtol);
    cr_assert(r.ok, "%s", r.msg);
    const int64_t steps[] = {0, 1, 4999, 5000, T - 2, T - 1};
    for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++)
        for (int64_t c = 0; c < C; c++) {
            double cf = closed_form(steps[k], C, c, a, b, h0), x = h[steps[k] * C + c];
            cr_assert(fabs(x - cf) <= atol + rtol * fabs(cf),
                      "t = %lld, c = %lld: %.17g vs closed form %.17g", (long long)steps[k],
                      (long long)c, x, cf);
        }

    /* reversed: the reversed scan of the time-flipped arrays is the flipped forward scan */
    double *af = malloc(sizeof(double) * T * C), *bf = malloc(sizeof(double) * T * C);
    for (int64_t t = 0; t < T; t++) {
        memcpy(af + t * C, a + (T - 1 - t) * C, sizeof(double) * C);
        memcpy(bf + t * C, b + (T - 1 - t) * C, sizeof(double) * C);
    }
    cr_assert_eq(scan_reverse_cpu(T, C, af, bf, h0, h), LOGT_OK);
    for (int64_t t = 0; t < T / 2; t++)   /* flip h back into time order */
        for (int64_t c = 0; c < C; c++) {
            double keep = h[t * C + c];
            h[t * C + c] = h[(T - 1 - t) * C + c];
            h[(T - 1 - t) * C + c] = keep;
        }
    r = check_close("reversed vs long double", h, ref, T * C, atol, rtol);
    cr_assert(r.ok, "%s", r.msg);
    free(a), free(b), free(h), free(ref), free(af), free(bf);
}

Test(scan_cpu, reversed_is_the_flipped_forward)
{
    const int64_t Ts[] = {1, 2, 31, 1000}, Cs[] = {1, 3};
    for (size_t i = 0; i < 4; i++)
        for (size_t j = 0; j < 2; j++) {
            int64_t T = Ts[i], C = Cs[j], n = T * C;
            double *a = malloc(sizeof(double) * n), *b = malloc(sizeof(double) * n);
            double *af = malloc(sizeof(double) * n), *bf = malloc(sizeof(double) * n);
            double *h = malloc(sizeof(double) * n), *hr = malloc(sizeof(double) * n), h0[3];
            fill(a, n, 10 + i, -1.1, 1.1), fill(b, n, 20 + j, -1, 1), fill(h0, C, 30, -1, 1);
            for (int64_t t = 0; t < T; t++) {
                memcpy(af + t * C, a + (T - 1 - t) * C, sizeof(double) * C);
                memcpy(bf + t * C, b + (T - 1 - t) * C, sizeof(double) * C);
            }
            cr_assert_eq(scan_cpu(T, C, a, b, h0, h), LOGT_OK);
            cr_assert_eq(scan_reverse_cpu(T, C, af, bf, h0, hr), LOGT_OK);
            for (int64_t t = 0; t < T; t++)   /* the same operations in the same order: exact */
                cr_assert(!memcmp(h + t * C, hr + (T - 1 - t) * C, sizeof(double) * C),
                          "T = %lld, C = %lld: step %lld differs", (long long)T, (long long)C, (long long)t);
            free(a), free(b), free(af), free(bf), free(h), free(hr);
        }
}

/* L = Σ w ⊙ h over the forward scan of (a, b) from h0. */
static double scan_loss(int64_t T, int64_t C, const double *a, const double *b, const double *h0,
                        const double *w, double *h)
{
    cr_assert_eq(scan_cpu(T, C, a, b, h0, h), LOGT_OK);
    double L = 0;
    for (int64_t i = 0; i < T * C; i++) L += w[i] * h[i];
    return L;
}

static void scan_gradcheck(int with_h0)
{
    enum { T = 7, C = 3, N = T * C };
    double a[N], b[N], h0[C], w[N], h[N], da[N], db[N], dh0[C];
    fill(a, N, 40, -1.3, 1.3), fill(b, N, 41, -1, 1), fill(w, N, 43, -1, 1);
    if (with_h0) fill(h0, C, 42, -1, 1);
    else memset(h0, 0, sizeof h0);   /* NULL to the scan; zeros to the finite differences */
    const double *h0p = with_h0 ? h0 : NULL;
    scan_loss(T, C, a, b, h0p, w, h);
    cr_assert_eq(scan_backward_cpu(T, C, a, h0p, h, w, da, db, dh0), LOGT_OK);

    struct { const char *what; double *p, *g; int n; } groups[] = {
        {"da", a, da, N}, {"db", b, db, N}, {"dh0", h0, dh0, C}};
    for (int k = 0; k < 3; k++) {
        double num[N];
        for (int i = 0; i < groups[k].n; i++) {   /* central differences, step 1e-5 */
            double *p = &groups[k].p[i], keep = *p, eps = 1e-5;
            *p = keep + eps;
            double up = scan_loss(T, C, a, b, h0, w, h);
            *p = keep - eps;
            double down = scan_loss(T, C, a, b, h0, w, h);
            *p = keep;
            num[i] = (up - down) / (2 * eps);
        }
        check_result r = check_close(groups[k].what, groups[k].g, num, groups[k].n, 1e-9, 1e-6);
        cr_assert(r.ok, "%s", r.msg);
    }
}

Test(scan_cpu, backward_matches_finite_differences) { scan_gradcheck(1); }
Test(scan_cpu, backward_from_zero_state_matches_finite_differences) { scan_gradcheck(0); }

Test(scan_cpu, backward_is_a_reversed_scan_with_shifted_gates)
{
    /* g = scan_reverse(a shifted one step earlier, dh), the gate after the last step 0:
     *   g_t = a_{t+1} g_{t+1} + dh_t;   db = g,   da_t = g_t h_{t-1},   dh0 = a_0 g_0.
     * Built here from an explicit shifted copy, gates near 1 so nothing decays. */
    const int64_t Ts[] = {1, 2, 1000}, C = 4;
    for (size_t i = 0; i < 3; i++) {
        int64_t T = Ts[i], n = T * C;
        double *a = malloc(sizeof(double) * n), *b = malloc(sizeof(double) * n);
        double *h = malloc(sizeof(double) * n), *dh = malloc(sizeof(double) * n);
        double *da = malloc(sizeof(double) * n), *db = malloc(sizeof(double) * n);
        double *ashift = malloc(sizeof(double) * n), *g = malloc(sizeof(double) * n);
        double h0[4], dh0[4];
        fill(a, n, 50, 0.99, 1.0), fill(b, n, 51, -1, 1), fill(dh, n, 52, -1, 1), fill(h0, C, 53, -1, 1);
        cr_assert_eq(scan_cpu(T, C, a, b, h0, h), LOGT_OK);
        cr_assert_eq(scan_backward_cpu(T, C, a, h0, h, dh, da, db, dh0), LOGT_OK);

        for (int64_t t = 0; t < T; t++)
            for (int64_t c = 0; c < C; c++) ashift[t * C + c] = t + 1 < T ? a[(t + 1) * C + c] : 0.0;
        cr_assert_eq(scan_reverse_cpu(T, C, ashift, dh, NULL, g), LOGT_OK);
        expect_exact("db = g", db, g, n);
        for (int64_t t = 0; t < T; t++)
            for (int64_t c = 0; c < C; c++) {
                double prev = t ? h[(t - 1) * C + c] : h0[c];
                cr_assert_eq(da[t * C + c], g[t * C + c] * prev, "T = %lld: da[%lld][%lld]",
                             (long long)T, (long long)t, (long long)c);
            }
        for (int64_t c = 0; c < C; c++)
            cr_assert_eq(dh0[c], a[c] * g[c], "T = %lld: dh0[%lld]", (long long)T, (long long)c);
        free(a), free(b), free(h), free(dh), free(da), free(db), free(ashift), free(g);
    }
}

static void expect_size_error(logt_status got, const char *op, const char *msg)
{
    cr_assert_eq(got, LOGT_EINVAL, "%s accepted a bad size", op);
    cr_assert(strstr(logt_errmsg(), op) && strstr(logt_errmsg(), msg), "%s", logt_errmsg());
}

Test(scan_cpu, bad_sizes_say_what_is_wrong)
{
    double x[4] = {0}, y[4];
    struct { int64_t T, C; const char *msg; } bad[] = {
        {0, 2, "T = 0 steps: a scan needs at least one step (T >= 1)"},
        {-3, 2, "T = -3 steps"},
        {2, 0, "C = 0 channels: a scan needs at least one channel (C >= 1)"},
        {2, -1, "C = -1 channels"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int64_t T = bad[i].T, C = bad[i].C;
        logt_errclear();
        expect_size_error(scan_cpu(T, C, x, x, NULL, y), "scan_cpu: ", bad[i].msg);
        logt_errclear();
        expect_size_error(scan_reverse_cpu(T, C, x, x, NULL, y), "scan_reverse_cpu: ", bad[i].msg);
        logt_errclear();
        expect_size_error(scan_backward_cpu(T, C, x, NULL, x, x, y, y, NULL), "scan_backward_cpu: ",
                          bad[i].msg);
    }
}
