/* test_gemm_cuda.c — kernels/gemm.h beyond the plain product: the long-K product
 * (logt_gemm_f32_tn_long) against a float64 loop, and the 3xTF32 products (logt_gemm_f32_3xtf32, and
 * logt_gemm_f32_3planes over split planes): equal to a
 * float64 loop on every transpose, batch and stride layout within fp32's tolerance, and as
 * accurate as strict fp32 (cublasSgemm) on a long inner dimension, where a single TF32
 * product is ~100 times worse. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../core/ctx.h"
#include "../core/rng.h"
#include "../core/tensor.h"
#include "check.h"
#include "gpu.h"
#ifdef LOGT_HAVE_CUDA
#include "../kernels/gemm.h"

/* n values uniform in ±1 from `stream`, rounded to f32 (exact on the device). */
static double *f32_values(int64_t n, uint64_t stream)
{
    double *p = malloc(sizeof(double) * (size_t)(n ? n : 1));
    cr_assert(p, "out of host memory");
    for (int64_t i = 0; i < n; i++) p[i] = (float)(2 * logt_uniform(99, stream, (uint64_t)i) - 1);
    return p;
}

static logt_tensor on_device(const double *v, int64_t n)
{
    logt_tensor t;
    cr_assert_eq(logt_tensor_new1(&t, LOGT_CUDA, LOGT_F32, n ? n : 1), LOGT_OK, "%s", logt_errmsg());
    if (n) cr_assert_eq(logt_tensor_from_f64(&t, v), LOGT_OK, "%s", logt_errmsg());
    return t;
}

static double *on_host(const logt_tensor *t)
{
    double *p = malloc(sizeof(double) * (size_t)t->numel);
    cr_assert(p && logt_tensor_to_f64(t, p) == LOGT_OK, "%s", logt_errmsg());
    return p;
}

/* C[q] = alpha · op(A[q]) · op(B[q]) + beta · C[q] in float64, operand q at q·stride. */
static void reference(int ta, int tb, int64_t M, int64_t N, int64_t K, double alpha, const double *A,
                      int64_t sA, const double *B, int64_t sB, double beta, double *C, int64_t batch)
{
    for (int64_t q = 0; q < batch; q++)
        for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < N; j++) {
                double s = 0;
                for (int64_t k = 0; k < K; k++)
                    s += (ta ? A[q * sA + k * M + i] : A[q * sA + i * K + k]) *
                         (tb ? B[q * sB + j * K + k] : B[q * sB + k * N + j]);
                C[q * M * N + i * N + j] = alpha * s + beta * C[q * M * N + i * N + j];
            }
}
#endif

Test(gemm_cuda, three_tf32_matches_a_loop)
{
    SKIP_WITHOUT_GPU("the 3xTF32 GEMM");
#ifdef LOGT_HAVE_CUDA
    logt_ctx *ctx;
    cr_assert_eq(logt_ctx_create(LOGT_CUDA, &ctx), LOGT_OK, "%s", logt_errmsg());
    static const int sizes[][3] = {{5, 7, 3}, {33, 17, 65}, {1, 9, 4}, {6, 2, 0}, {130, 70, 257}};
    for (int si = 0; si < 5; si++)
        for (int ta = 0; ta < 2; ta++)
            for (int tb = 0; tb < 2; tb++)
                for (int layout = 0; layout < 3; layout++) {   /* one; a batch of 3; 3 sharing A */
                    const int64_t M = sizes[si][0], N = sizes[si][1], K = sizes[si][2];
                    const int64_t batch = layout ? 3 : 1, sA = layout == 1 ? M * K : 0, sB = K * N;
                    const int64_t na = layout == 1 ? 3 * M * K : M * K, nb = batch * K * N, nc = batch * M * N;
                    double *A = f32_values(na, 1), *B = f32_values(nb, 2), *C = f32_values(nc, 3);
                    double *ref = malloc(sizeof(double) * (size_t)nc);
                    cr_assert(ref);
                    for (int64_t i = 0; i < nc; i++) ref[i] = C[i];
                    const float alpha = 0.75f, beta = K ? 0.5f : 0.0f;
                    reference(ta, tb, M, N, K, alpha, A, sA, B, sB, beta, ref, batch);
                    logt_tensor dA = on_device(A, na), dB = on_device(B, nb), dC = on_device(C, nc);
                    cr_assert_eq(logt_gemm_f32_3xtf32(ctx, ta, tb, M, N, K, alpha, dA.data, sA, dB.data, sB,
                                                      beta, dC.data, M * N, batch), LOGT_OK, "%s", logt_errmsg());
                    cr_assert_eq(logt_ctx_sync(ctx), LOGT_OK, "%s", logt_errmsg());
                    double *got = on_host(&dC);
                    char what[64];
                    snprintf(what, sizeof what, "3xtf32 %lldx%lldx%lld t%d%d layout %d",
                             (long long)M, (long long)N, (long long)K, ta, tb, layout);
                    check_result c = check_close(what, got, ref, nc, 1e-5, 1e-5);
                    cr_expect(c.ok, "%s", c.msg);
                    free(A), free(B), free(C), free(ref), free(got);
                    logt_tensor_free(&dA), logt_tensor_free(&dB), logt_tensor_free(&dC);
                }
    logt_ctx_destroy(ctx);
#endif
}

/* logt_gemm_f32_3planes over parts that logt_tf32_split laid out as planes (hi, lo, hi of A;
 * lo, hi, hi of B), on every transpose, odd sizes (the split's scalar path) and multiples of 4
 * (its float4 path), with alpha and beta, both of its ways (products at once and a sum; one
 * after another into C): equal to a float64 loop within fp32's tolerance. */
Test(gemm_cuda, three_tf32_planes_matches_a_loop)
{
    SKIP_WITHOUT_GPU("the 3xTF32 GEMM over planes");
#ifdef LOGT_HAVE_CUDA
    logt_ctx *ctx;
    cr_assert_eq(logt_ctx_create(LOGT_CUDA, &ctx), LOGT_OK, "%s", logt_errmsg());
    /* the last: C with enough tiles that the three products run one after another */
    static const int sizes[][3] = {{5, 7, 3}, {33, 17, 65}, {64, 48, 128}, {1, 9, 4}, {130, 72, 256}, {2100, 2100, 8}};
    for (int si = 0; si < 6; si++)
        for (int ta = 0; ta < 2; ta++)
            for (int tb = 0; tb < 2; tb++) {
                const int64_t M = sizes[si][0], N = sizes[si][1], K = sizes[si][2];
                double *A = f32_values(M * K, 6), *B = f32_values(K * N, 7), *C = f32_values(M * N, 8);
                double *ref = malloc(sizeof(double) * (size_t)(M * N));
                cr_assert(ref);
                for (int64_t i = 0; i < M * N; i++) ref[i] = C[i];
                const float alpha = 0.75f, beta = si % 2 ? 0.5f : 0.0f;
                reference(ta, tb, M, N, K, alpha, A, 0, B, 0, beta, ref, 1);
                logt_tensor dA = on_device(A, M * K), dB = on_device(B, K * N), dC = on_device(C, M * N), pA, pB;
                cr_assert_eq(logt_tensor_new1(&pA, LOGT_CUDA, LOGT_F32, 3 * M * K), LOGT_OK, "%s", logt_errmsg());
                cr_assert_eq(logt_tensor_new1(&pB, LOGT_CUDA, LOGT_F32, 3 * K * N), LOGT_OK, "%s", logt_errmsg());
                /* as stored: A is [M][K] or (ta) [K][M], B [K][N] or (tb) [N][K] */
                const int64_t ar = ta ? K : M, ac = ta ? M : K, br = tb ? N : K, bc = tb ? K : N;
                const int64_t ahi[2] = {0, 2 * M * K}, bhi[2] = {K * N, 2 * K * N};
                cr_assert_eq(logt_tf32_split(ctx, 1, ar, ac, dA.data, 0, pA.data, ac, 0, M * K, 2, ahi),
                             LOGT_OK, "%s", logt_errmsg());
                cr_assert_eq(logt_tf32_split(ctx, 1, br, bc, dB.data, 0, pB.data, bc, 0, 0, 2, bhi),
                             LOGT_OK, "%s", logt_errmsg());
                cr_assert_eq(logt_gemm_f32_3planes(ctx, ta, tb, M, N, K, alpha, pA.data, ac, M * K, pB.data, bc,
                                                   K * N, beta, dC.data),
                             LOGT_OK, "%s", logt_errmsg());
                cr_assert_eq(logt_ctx_sync(ctx), LOGT_OK, "%s", logt_errmsg());
                double *got = on_host(&dC);
                char what[64];
                snprintf(what, sizeof what, "3 planes %lldx%lldx%lld t%d%d", (long long)M, (long long)N,
                         (long long)K, ta, tb);
                check_result c = check_close(what, got, ref, M * N, 1e-5, 1e-5);
                cr_expect(c.ok, "%s", c.msg);
                free(A), free(B), free(C), free(ref), free(got);
                logt_tensor_free(&dA), logt_tensor_free(&dB), logt_tensor_free(&dC);
                logt_tensor_free(&pA), logt_tensor_free(&pB);
            }
    logt_ctx_destroy(ctx);
#endif
}

/* A 64 × 64 product with K = 8192: the largest error against float64 of cublasSgemm (strict
 * fp32), the 3xTF32 product and one TF32 product. 3xTF32 must be within 4× of strict fp32
 * and at least 20× better than TF32 (whose inputs keep 10 of fp32's 23 mantissa bits). */
Test(gemm_cuda, three_tf32_is_as_accurate_as_fp32)
{
    SKIP_WITHOUT_GPU("the 3xTF32 GEMM's accuracy");
#ifdef LOGT_HAVE_CUDA
    logt_ctx *ctx;
    cr_assert_eq(logt_ctx_create(LOGT_CUDA, &ctx), LOGT_OK, "%s", logt_errmsg());
    const int64_t M = 64, N = 64, K = 8192;
    double *A = f32_values(M * K, 4), *B = f32_values(K * N, 5), *ref = calloc((size_t)(M * N), sizeof(double));
    cr_assert(ref);
    reference(0, 0, M, N, K, 1.0, A, 0, B, 0, 0.0, ref, 1);
    logt_tensor dA = on_device(A, M * K), dB = on_device(B, K * N), dC = on_device(ref, M * N);
    double err[3];
    for (int way = 0; way < 3; way++) {
        logt_status s = way == 0 ? logt_gemm_f32(ctx, 0, 0, M, N, K, 1.0f, dA.data, dB.data, 0.0f, dC.data)
                      : way == 1 ? logt_gemm_f32_3xtf32(ctx, 0, 0, M, N, K, 1.0f, dA.data, 0, dB.data, 0, 0.0f,
                                                        dC.data, 0, 1)
                                 : logt_gemm_ex(ctx, 0, 0, M, N, K, 1.0f, LOGT_F32, dA.data, K, 0, dB.data, N, 0,
                                                0.0f, dC.data, N, 0, 1, 1);
        cr_assert_eq(s, LOGT_OK, "%s", logt_errmsg());
        cr_assert_eq(logt_ctx_sync(ctx), LOGT_OK, "%s", logt_errmsg());
        double *got = on_host(&dC);
        err[way] = 0;
        for (int64_t i = 0; i < M * N; i++) err[way] = fmax(err[way], fabs(got[i] - ref[i]));
        free(got);
    }
    fprintf(stderr, "gemm 64x64, K = 8192, max |error| against f64: fp32 %.3g, 3xtf32 %.3g, tf32 %.3g\n",
            err[0], err[1], err[2]);
    cr_expect(err[1] <= 4 * err[0], "3xtf32 error %.3g against fp32's %.3g", err[1], err[0]);
    cr_expect(err[2] >= 20 * err[1], "tf32 error %.3g is not well above 3xtf32's %.3g", err[2], err[1]);
    free(A), free(B), free(ref);
    logt_tensor_free(&dA), logt_tensor_free(&dB), logt_tensor_free(&dC);
    logt_ctx_destroy(ctx);
#endif
}

/* logt_gemm_f32_tn_long: C = alpha A^T B + beta C over a long K, with row strides wider than
 * the operands (A and B read from inside wider rows), on both paths: chunks plus a remainder
 * (K = 100003, C 12 x 4) and one cuBLAS call (K = 5000; C 128 x 128); and K = 0. */
Test(gemm_cuda, long_inner_dimension_matches_a_loop)
{
    SKIP_WITHOUT_GPU("the long-K GEMM");
#ifdef LOGT_HAVE_CUDA
    logt_ctx *ctx;
    cr_assert_eq(logt_ctx_create(LOGT_CUDA, &ctx), LOGT_OK, "%s", logt_errmsg());
    static const int64_t cases[][5] = {{12, 4, 100003, 15, 7}, {128, 128, 5000, 130, 128}};
    for (int c = 0; c < 2; c++) {
        const int64_t M = cases[c][0], N = cases[c][1], K = cases[c][2], lda = cases[c][3], ldb = cases[c][4];
        double *A = f32_values(K * lda, 6), *B = f32_values(K * ldb, 7), *C = f32_values(M * N, 8);
        double *ref = malloc(sizeof(double) * (size_t)(M * N));
        cr_assert(ref);
        for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < N; j++) {
                double sum = 0;
                for (int64_t k = 0; k < K; k++) sum += A[k * lda + i] * B[k * ldb + j];
                ref[i * N + j] = 0.5 * sum + 0.25 * C[i * N + j];
            }
        logt_tensor dA = on_device(A, K * lda), dB = on_device(B, K * ldb), dC = on_device(C, M * N);
        cr_assert_eq(logt_gemm_f32_tn_long(ctx, M, N, K, 0.5f, dA.data, lda, dB.data, ldb, 0.25f, dC.data),
                     LOGT_OK, "%s", logt_errmsg());
        cr_assert_eq(logt_ctx_sync(ctx), LOGT_OK, "%s", logt_errmsg());
        double *got = on_host(&dC), scale = 0;
        for (int64_t i = 0; i < M * N; i++) scale = fmax(scale, fabs(ref[i]));
        char what[64];
        snprintf(what, sizeof what, "tn_long %lldx%lld K=%lld", (long long)M, (long long)N, (long long)K);
        check_result r = check_close(what, got, ref, M * N, 1e-5 * scale + 1e-4, 1e-5);
        cr_expect(r.ok, "%s", r.msg);
        free(A), free(B), free(C), free(ref), free(got);
        logt_tensor_free(&dA), logt_tensor_free(&dB), logt_tensor_free(&dC);
    }
    /* K = 0 with beta 0 (an lstm of T = 1 has no recurrent rows to sum): C becomes 0 */
    double *C = f32_values(12, 9);
    logt_tensor dC = on_device(C, 12);
    cr_assert_eq(logt_gemm_f32_tn_long(ctx, 3, 4, 0, 1.0f, NULL, 3, NULL, 4, 0.0f, dC.data), LOGT_OK,
                 "%s", logt_errmsg());
    double *got = on_host(&dC);
    for (int i = 0; i < 12; i++) cr_expect_eq(got[i], 0.0, "K = 0: C[%d] = %g, not 0", i, got[i]);
    free(C), free(got);
    logt_tensor_free(&dC);
    logt_ctx_destroy(ctx);
#endif
}

/* logt_sum_partials_f32 on awkward sizes (n not a multiple of the 32 a block adds, chunks not
 * a multiple of its 8, 16 or 32 rows of threads, several sums in one call): equal to a float64
 * loop; beta 0 never reads C (NaN there stays out), beta 1 adds to it. */
Test(gemm_cuda, partial_sums_match_a_loop)
{
    SKIP_WITHOUT_GPU("the partial sums");
#ifdef LOGT_HAVE_CUDA
    logt_ctx *ctx;
    cr_assert_eq(logt_ctx_create(LOGT_CUDA, &ctx), LOGT_OK, "%s", logt_errmsg());
    static const int64_t cases[][3] = {{37, 19, 3}, {1, 1, 1}, {4096, 256, 1}, {64, 1024, 4}, {40, 100, 2}};
    for (int c = 0; c < 5; c++) {
        const int64_t n = cases[c][0], nchunks = cases[c][1], batch = cases[c][2];
        for (int add = 0; add < 2; add++) {
            double *part = f32_values(batch * nchunks * n, 10 + c), *C = f32_values(batch * n, 20 + c);
            double *ref = malloc(sizeof(double) * (size_t)(batch * n));
            cr_assert(ref);
            for (int64_t k = 0; k < batch; k++)
                for (int64_t i = 0; i < n; i++) {
                    double s = 0;
                    for (int64_t q = 0; q < nchunks; q++) s += part[(k * nchunks + q) * n + i];
                    ref[k * n + i] = 0.5 * s + (add ? C[k * n + i] : 0.0);
                }
            if (!add)
                for (int64_t i = 0; i < batch * n; i++) C[i] = NAN;
            logt_tensor dP = on_device(part, batch * nchunks * n), dC = on_device(C, batch * n);
            cr_assert_eq(logt_sum_partials_f32(ctx, n, nchunks, batch, dP.data, 0.5f, add ? 1.0f : 0.0f, dC.data),
                         LOGT_OK, "%s", logt_errmsg());
            cr_assert_eq(logt_ctx_sync(ctx), LOGT_OK, "%s", logt_errmsg());
            double *got = on_host(&dC);
            char what[80];
            snprintf(what, sizeof what, "sum_partials n=%lld chunks=%lld batch=%lld beta=%d", (long long)n,
                     (long long)nchunks, (long long)batch, add);
            check_result r = check_close(what, got, ref, batch * n, 1e-5 * sqrt((double)nchunks) + 1e-6, 1e-5);
            cr_expect(r.ok, "%s", r.msg);
            free(part), free(C), free(ref), free(got);
            logt_tensor_free(&dP), logt_tensor_free(&dC);
        }
    }
    cr_expect_neq(logt_sum_partials_f32(ctx, 4, 2, 70000, NULL, 1.0f, 0.0f, NULL), LOGT_OK,
                  "70000 sums in one call must be refused");
    logt_ctx_destroy(ctx);
#endif
}
