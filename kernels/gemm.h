/* gemm.h — row-major matrix products on cuBLAS, for C callers.
 *
 *   C[M][N] = alpha · op(A) · op(B) + beta · C        op(X) = X or X^T
 *
 * Every matrix is row-major and packed (leading dimension = its number of columns):
 * A is [M][K], or [K][M] when transA; B is [K][N], or [N][K] when transB.
 * The batched form repeats this `batch` times, operand i at X + i·strideX (elements).
 * fp32 only, with the handle's math mode (logt's is strict fp32: no TF32), on
 * ctx's stream. K = 0 is allowed with beta 0 (C = 0) or 1 (C unchanged).
 */
#ifndef LOGT_GEMM_H
#define LOGT_GEMM_H

#include <stdint.h>

#include "../core/ctx.h"
#include "../core/status.h"
#include "../core/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef LOGT_HAVE_CUDA
logt_status logt_gemm_f32(logt_ctx *ctx, int transA, int transB, int64_t M, int64_t N, int64_t K,
                          float alpha, const float *A, const float *B, float beta, float *C);

logt_status logt_gemm_f32_batched(logt_ctx *ctx, int transA, int transB, int64_t M, int64_t N,
                                  int64_t K, float alpha, const float *A, int64_t strideA,
                                  const float *B, int64_t strideB, float beta, float *C,
                                  int64_t strideC, int64_t batch);

/* The general form: explicit leading dimensions (ld*: elements between rows as stored) and
 * strides, A and B of dtype `in` (LOGT_F32, LOGT_BF16 or LOGT_F16), C always fp32, fp32
 * accumulation. math_tf32: fp32 operands on TF32 tensor cores (ignored for bf16 and f16, which
 * always use them). */
logt_status logt_gemm_ex(logt_ctx *ctx, int transA, int transB, int64_t M, int64_t N, int64_t K,
                         float alpha, logt_dtype in, const void *A, int64_t lda, int64_t strideA,
                         const void *B, int64_t ldb, int64_t strideB, float beta, float *C,
                         int64_t ldc, int64_t strideC, int64_t batch, int math_tf32);

/* C[M][N] = alpha · A^T · B + beta · C for A [K][M] and B [K][N] (rows lda and ldb elements
 * apart), C packed, strict fp32: a sum over K rows, as the weight and bias gradients of a
 * recurrence are (K = T·B). cuBLAS spreads such a product over as many SMs as C has tiles, so
 * a long K with a small C runs on a handful of SMs; then K is cut into chunks, one batched
 * product makes a partial C per chunk in ctx's workspace, logt_sum_partials_f32 adds the
 * partials in a fixed order (deterministic), and the rows past the last whole chunk are added
 * by one more product. Otherwise it is one logt_gemm_ex. */
logt_status logt_gemm_f32_tn_long(logt_ctx *ctx, int64_t M, int64_t N, int64_t K, float alpha, const float *A,
                                  int64_t lda, const float *B, int64_t ldb, float beta, float *C);

/* The partial sums of a reduction split in chunks, added: C[k][i] = alpha · Σ_q part[k][q][i]
 * + beta · C[k][i] for part [batch][nchunks][n] and C [batch][n] (beta 0: C not read), in a
 * fixed order (deterministic), on ctx's stream. batch <= 65535. */
logt_status logt_sum_partials_f32(logt_ctx *ctx, int64_t n, int64_t nchunks, int64_t batch, const float *part,
                                  float alpha, float beta, float *C);

/* logt_gemm_f32_batched with fp32's accuracy on TF32 tensor cores (3xTF32): each operand X is
 * split into X_hi = tf32(X) and X_lo = tf32(X − X_hi) (round to nearest; both exact in TF32,
 * so the tensor cores' own conversion changes nothing), and
 *     C = alpha · (A_hi·B_lo + A_lo·B_hi + A_hi·B_hi) + beta · C,
 * as ONE TF32 GEMM of inner dimension 3K over the parts laid side by side (A' = [A_hi A_lo
 * A_hi], B' = [B_lo; B_hi; B_hi]), accumulated in fp32: C is written once. What is dropped,
 * A_lo·B_lo and the rounding of the lo parts, is ~2^-22 of |A||B| a term, against fp32's 2^-24
 * rounding of each product and sum: fp32-level error (tests/test_gemm_cuda.c measures it
 * against cublasSgemm's), for 3x a TF32 GEMM's flops plus a pass over each operand. The parts
 * live in ctx's workspace (3 floats per element of A and of B; a stride-0 operand once). */
logt_status logt_gemm_f32_3xtf32(logt_ctx *ctx, int transA, int transB, int64_t M, int64_t N, int64_t K,
                                 float alpha, const float *A, int64_t strideA, const float *B,
                                 int64_t strideB, float beta, float *C, int64_t strideC, int64_t batch);

/* The same three products over parts that the caller keeps apart (planes, or columns of parts
 * side by side read with a stride):
 *     C = alpha · (A_0·B_0 + A_1·B_1 + A_2·B_2) + beta · C,   A_k = A + k·strideA, B_k = B + k·strideB
 * (the pairs (hi, lo), (lo, hi), (hi, hi) of logt_tf32_split's parts, in any order), C packed
 * [M][N]. Where C has too few tiles to fill the GPU twice (SRU's backward at small T·B), one
 * batched TF32 GEMM makes the three products at once into ctx's workspace and a pass adds
 * them (k in order) into C; else three TF32 GEMMs accumulate in C. */
logt_status logt_gemm_f32_3planes(logt_ctx *ctx, int transA, int transB, int64_t M, int64_t N, int64_t K,
                                  float alpha, const float *A, int64_t lda, int64_t strideA, const float *B,
                                  int64_t ldb, int64_t strideB, float beta, float *C);

/* The split itself, for callers that keep the parts (and lay them out) themselves: element
 * (q, r, c) of x (batch of [rows][cols] packed, x_stride apart) lands at o = out +
 * q·out_stride + r·ld + c: its TF32 low part at o[lo] and its high part at o[hi[j]] for each of
 * the nhi (1 to LOGT_TF32_SPLIT_MAX_HI) offsets. Offsets are in elements and may be negative. */
#define LOGT_TF32_SPLIT_MAX_HI 3
logt_status logt_tf32_split(logt_ctx *ctx, int64_t batch, int64_t rows, int64_t cols, const float *x,
                            int64_t x_stride, float *out, int64_t ld, int64_t out_stride, int64_t lo, int nhi,
                            const int64_t *hi);
#endif

#ifdef __cplusplus
}
#endif
#endif
