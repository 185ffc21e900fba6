/* gemm.cu — row-major GEMM through column-major cuBLAS.
 *
 * cuBLAS reads a row-major X[r][c] as the column-major matrix X^T with leading
 * dimension c. So for C = op(A)·op(B) we ask cuBLAS for C^T = op(B)^T · op(A)^T:
 * the same product with the operands swapped and M, N exchanged, each operand
 * keeping its own transpose flag:
 *
 *   cublasSgemm(opB, opA, N, M, K, B, ldb, A, lda, C, ldc = N)
 *   lda = columns of A as stored = transA ? M : K,   ldb = transB ? K : N
 */
#include <limits.h>

#include "../core/cuda.h"
#include "../core/cuda_check.cuh"
#include "gemm.h"

static cublasOperation_t op(int trans) { return trans ? CUBLAS_OP_T : CUBLAS_OP_N; }

extern "C" logt_status logt_gemm_f32_batched(logt_ctx *ctx, int transA, int transB, int64_t M,
                                             int64_t N, int64_t K, float alpha, const float *A,
                                             int64_t strideA, const float *B, int64_t strideB,
                                             float beta, float *C, int64_t strideC, int64_t batch)
{
    if (M < 0 || N < 0 || K < 0 || batch < 0)
        return LOGT_FAIL(LOGT_EINVAL, "gemm with a negative size: M=%lld N=%lld K=%lld batch=%lld",
                         (long long)M, (long long)N, (long long)K, (long long)batch);
    if (M > INT_MAX || N > INT_MAX || K > INT_MAX || batch > INT_MAX)
        return LOGT_FAIL(LOGT_EUNSUPPORTED,
                         "gemm of M=%lld N=%lld K=%lld batch=%lld: cuBLAS sizes are 32-bit. "
                         "HINT: use a smaller T or B",
                         (long long)M, (long long)N, (long long)K, (long long)batch);
    if (M == 0 || N == 0 || batch == 0) return LOGT_OK;
    cudaStream_t st = (cudaStream_t)ctx->stream;
    if (K == 0) {   /* C = beta·C with beta 0 or 1: no cuBLAS call, no zero leading dimension */
        if (beta == 1.0f) return LOGT_OK;
        if (beta != 0.0f)
            return LOGT_FAIL(LOGT_EINVAL, "gemm with K = 0 takes beta 0 or 1, not %g", beta);
        for (int64_t i = 0; i < batch; i++)
            CUDA_TRY(cudaMemsetAsync(C + i * strideC, 0, (size_t)(M * N) * sizeof(float), st));
        return LOGT_OK;
    }
    cublasHandle_t h = (cublasHandle_t)ctx->cublas;
    int lda = (int)(transA ? M : K), ldb = (int)(transB ? K : N);
    if (batch == 1)
        CUBLAS_TRY(cublasSgemm(h, op(transB), op(transA), (int)N, (int)M, (int)K, &alpha, B, ldb, A,
                               lda, &beta, C, (int)N));
    else
        CUBLAS_TRY(cublasSgemmStridedBatched(h, op(transB), op(transA), (int)N, (int)M, (int)K,
                                             &alpha, B, ldb, (long long)strideB, A, lda,
                                             (long long)strideA, &beta, C, (int)N,
                                             (long long)strideC, (int)batch));
    return LOGT_OK;
}

extern "C" logt_status logt_gemm_f32(logt_ctx *ctx, int transA, int transB, int64_t M, int64_t N,
                                     int64_t K, float alpha, const float *A, const float *B,
                                     float beta, float *C)
{
    return logt_gemm_f32_batched(ctx, transA, transB, M, N, K, alpha, A, 0, B, 0, beta, C, 0, 1);
}

extern "C" logt_status logt_gemm_ex(logt_ctx *ctx, int transA, int transB, int64_t M, int64_t N,
                                    int64_t K, float alpha, logt_dtype in, const void *A,
                                    int64_t lda, int64_t strideA, const void *B, int64_t ldb,
                                    int64_t strideB, float beta, float *C, int64_t ldc,
                                    int64_t strideC, int64_t batch, int math_tf32)
{
    if (in != LOGT_F32 && in != LOGT_BF16 && in != LOGT_F16)
        return LOGT_FAIL(LOGT_EINVAL, "gemm_ex takes f32, bf16 or f16 operands, not %s", logt_dtype_name(in));
    if (M < 0 || N < 0 || K < 0 || batch < 0 || M > INT_MAX || N > INT_MAX || K > INT_MAX
        || batch > INT_MAX || lda > INT_MAX || ldb > INT_MAX || ldc > INT_MAX)
        return LOGT_FAIL(LOGT_EUNSUPPORTED,
                         "gemm of M=%lld N=%lld K=%lld batch=%lld: sizes must be 0 .. 2^31-1 "
                         "(cuBLAS is 32-bit). HINT: use a smaller T or B",
                         (long long)M, (long long)N, (long long)K, (long long)batch);
    if (M == 0 || N == 0 || batch == 0) return LOGT_OK;
    if (K == 0) {
        if (beta == 1.0f) return LOGT_OK;
        return LOGT_FAIL(LOGT_EINVAL, "gemm_ex with K = 0 takes beta 1 (C unchanged)");
    }
    const cudaDataType_t t = in == LOGT_BF16 ? CUDA_R_16BF : in == LOGT_F16 ? CUDA_R_16F : CUDA_R_32F;
    const cublasComputeType_t ct = in == LOGT_F32 && math_tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32
                                                                : CUBLAS_COMPUTE_32F;
    CUBLAS_TRY(cublasGemmStridedBatchedEx((cublasHandle_t)ctx->cublas, op(transB), op(transA),
                                          (int)N, (int)M, (int)K, &alpha, B, t, (int)ldb,
                                          (long long)strideB, A, t, (int)lda, (long long)strideA,
                                          &beta, C, CUDA_R_32F, (int)ldc, (long long)strideC,
                                          (int)batch, ct, CUBLAS_GEMM_DEFAULT));
    return LOGT_OK;
}

/* x rounded to the nearest TF32 value (10 explicit mantissa bits, ties to even); inf and NaN
 * kept. */
__device__ __forceinline__ float tf32_round(float x)
{
    unsigned u = __float_as_uint(x);
    if ((u & 0x7f800000u) == 0x7f800000u) return x;
    u += 0xfffu + ((u >> 13) & 1u);
    return __uint_as_float(u & 0xffffe000u);
}

/* See logt_tf32_split: element (q, r, c) of x goes to o = out + q·out_stride + r·ld + c, its
 * low part to o[lo], its high part to o[hi.o[j]] for each j < hi.n. A row of threads walks one
 * row of x (blockDim.y rows a block), four columns at a time when `vec` (every offset, stride
 * and pointer a multiple of 16 bytes): one division a row, not per element (64-bit divisions
 * per element made the split compute-bound, far under the copy's speed). */
struct HiOffsets { int64_t o[LOGT_TF32_SPLIT_MAX_HI]; int n; };

__global__ void tf32_split_kernel(int64_t nrows, int64_t rows, int64_t cols, const float *x, int64_t x_stride,
                                  float *out, int64_t ld, int64_t out_stride, int64_t lo, HiOffsets hi, int vec)
{
    for (int64_t rr = (int64_t)blockIdx.x * blockDim.y + threadIdx.y; rr < nrows;
         rr += (int64_t)gridDim.x * blockDim.y) {
        const int64_t q = rr / rows, r = rr - q * rows;
        const float *xr = x + q * x_stride + r * cols;
        float *o = out + q * out_stride + r * ld;
        if (vec) {
            for (int64_t c = 4 * (int64_t)threadIdx.x; c < cols; c += 4 * (int64_t)blockDim.x) {
                const float4 v = *reinterpret_cast<const float4 *>(xr + c);
                const float4 h = make_float4(tf32_round(v.x), tf32_round(v.y), tf32_round(v.z), tf32_round(v.w));
                *reinterpret_cast<float4 *>(o + lo + c) = make_float4(
                    tf32_round(v.x - h.x), tf32_round(v.y - h.y), tf32_round(v.z - h.z), tf32_round(v.w - h.w));
                for (int j = 0; j < hi.n; j++) *reinterpret_cast<float4 *>(o + hi.o[j] + c) = h;
            }
        } else {
            for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) {
                const float v = xr[c], h = tf32_round(v);
                o[lo + c] = tf32_round(v - h);
                for (int j = 0; j < hi.n; j++) o[hi.o[j] + c] = h;
            }
        }
    }
}

extern "C" logt_status logt_tf32_split(logt_ctx *ctx, int64_t batch, int64_t rows, int64_t cols, const float *x,
                                       int64_t x_stride, float *out, int64_t ld, int64_t out_stride, int64_t lo,
                                       int nhi, const int64_t *hi)
{
    if (batch < 0 || rows < 0 || cols < 0 || ld < cols)
        return LOGT_FAIL(LOGT_EINVAL, "tf32 split of %lld x [%lld][%lld] with rows %lld apart: sizes must "
                         "be >= 0 and the rows at least cols apart", (long long)batch, (long long)rows,
                         (long long)cols, (long long)ld);
    if (nhi < 1 || nhi > LOGT_TF32_SPLIT_MAX_HI)
        return LOGT_FAIL(LOGT_EINVAL, "tf32 split with %d copies of the high part: 1 to %d", nhi,
                         LOGT_TF32_SPLIT_MAX_HI);
    const int64_t nrows = batch * rows;
    if (nrows == 0 || cols == 0) return LOGT_OK;
    HiOffsets h;
    h.n = nhi;
    int aligned = lo % 4 == 0;
    for (int j = 0; j < nhi; j++) h.o[j] = hi[j], aligned &= hi[j] % 4 == 0;
    const int vec = aligned && cols % 4 == 0 && ld % 4 == 0 &&
                    (batch == 1 || (x_stride % 4 == 0 && out_stride % 4 == 0)) &&
                    (uintptr_t)x % 16 == 0 && (uintptr_t)out % 16 == 0;
    /* a row of threads covers a row of x (in float4s when vec), up to 128 threads wide */
    const int64_t per_row = vec ? cols / 4 : cols;
    int tx = 32;
    while (tx < 128 && tx < per_row) tx *= 2;
    const dim3 block((unsigned)tx, (unsigned)(256 / tx));
    const int64_t blocks = (nrows + block.y - 1) / block.y;
    const unsigned grid = (unsigned)(blocks < 65535 ? blocks : 65535);
    tf32_split_kernel<<<grid, block, 0, (cudaStream_t)ctx->stream>>>(nrows, rows, cols, x, x_stride, out, ld,
                                                                     out_stride, lo, h, vec);
    LAUNCH_TRY();
    return LOGT_OK;
}

/* C = alpha · (P0 + P1 + P2) + beta · C over n elements, the planes n apart (beta 0: C not read) */
__global__ void sum3_kernel(int64_t n, const float *__restrict__ P, float alpha, float beta, float *__restrict__ C)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        const float s = alpha * ((P[i] + P[n + i]) + P[2 * n + i]);
        C[i] = beta != 0.0f ? s + beta * C[i] : s;
    }
}

extern "C" logt_status logt_gemm_f32_3planes(logt_ctx *ctx, int transA, int transB, int64_t M, int64_t N,
                                             int64_t K, float alpha, const float *A, int64_t lda,
                                             int64_t strideA, const float *B, int64_t ldb, int64_t strideB,
                                             float beta, float *C)
{
    if (M < 0 || N < 0 || K < 0)
        return LOGT_FAIL(LOGT_EINVAL, "gemm (3 planes) with a negative size: M=%lld N=%lld K=%lld",
                         (long long)M, (long long)N, (long long)K);
    if (M == 0 || N == 0) return LOGT_OK;
    if (K == 0) {
        if (beta == 1.0f) return LOGT_OK;
        return LOGT_FAIL(LOGT_EINVAL, "gemm (3 planes) with K = 0 takes beta 1 (C unchanged)");
    }
    /* C alone with tiles (of cuBLAS's ~128 × 128) for two waves over the SMs: the three
     * products one after another, accumulating in C, no workspace; else all three at once */
    int dev = 0, sms = 0;
    CUDA_TRY(cudaGetDevice(&dev));
    CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    if (((M + 127) / 128) * ((N + 127) / 128) >= 2 * (int64_t)sms) {
        for (int k = 0; k < 3; k++)
            LOGT_TRY(logt_gemm_ex(ctx, transA, transB, M, N, K, alpha, LOGT_F32, A + k * strideA, lda, 0,
                                  B + k * strideB, ldb, 0, k ? 1.0f : beta, C, N, 0, 1, 1));
        return LOGT_OK;
    }
    void *ws = NULL;
    const int64_t n = M * N;
    LOGT_TRY(logt_ctx_workspace(ctx, (size_t)(3 * n) * sizeof(float), &ws));
    float *P = (float *)ws;
    LOGT_TRY(logt_gemm_ex(ctx, transA, transB, M, N, K, 1.0f, LOGT_F32, A, lda, strideA, B, ldb, strideB, 0.0f, P,
                          N, n, 3, 1));
    sum3_kernel<<<logt_cuda_grid(n, 256), 256, 0, (cudaStream_t)ctx->stream>>>(n, P, alpha, beta, C);
    LAUNCH_TRY();
    return LOGT_OK;
}

extern "C" logt_status logt_gemm_f32_3xtf32(logt_ctx *ctx, int transA, int transB, int64_t M, int64_t N,
                                            int64_t K, float alpha, const float *A, int64_t strideA,
                                            const float *B, int64_t strideB, float beta, float *C,
                                            int64_t strideC, int64_t batch)
{
    if (M < 0 || N < 0 || K < 0 || batch < 0 || strideA < 0 || strideB < 0)
        return LOGT_FAIL(LOGT_EINVAL, "gemm (3xtf32) with a negative size or stride: M=%lld N=%lld "
                         "K=%lld batch=%lld", (long long)M, (long long)N, (long long)K, (long long)batch);
    if (M == 0 || N == 0 || batch == 0 || K == 0)   /* nothing to split: the plain path's rules */
        return logt_gemm_f32_batched(ctx, transA, transB, M, N, K, alpha, A, strideA, B, strideB,
                                     beta, C, strideC, batch);
    /* A' = A's parts (hi, lo, hi) and B' = B's (lo, hi, hi) along the inner dimension, each
     * operand's batch packed (a shared operand, stride 0, split once) */
    const int64_t ba = strideA ? batch : 1, bb = strideB ? batch : 1;
    void *ws = NULL;
    LOGT_TRY(logt_ctx_workspace(ctx, (size_t)(3 * (ba * M * K + bb * K * N)) * sizeof(float), &ws));
    float *a3 = (float *)ws, *b3 = a3 + 3 * ba * M * K;
    if (transA) {   /* A^T stored [K][M]: blocks of rows hi, lo, hi */
        const int64_t hi[2] = {0, 2 * K * M};
        LOGT_TRY(logt_tf32_split(ctx, ba, K, M, A, strideA, a3, M, 3 * M * K, K * M, 2, hi));
    } else {        /* [M][K]: blocks of columns hi, lo, hi */
        const int64_t hi[2] = {0, 2 * K};
        LOGT_TRY(logt_tf32_split(ctx, ba, M, K, A, strideA, a3, 3 * K, 3 * M * K, K, 2, hi));
    }
    if (transB) {   /* B^T stored [N][K]: columns lo, hi, hi */
        const int64_t hi[2] = {K, 2 * K};
        LOGT_TRY(logt_tf32_split(ctx, bb, N, K, B, strideB, b3, 3 * K, 3 * K * N, 0, 2, hi));
    } else {        /* [K][N]: rows lo, hi, hi */
        const int64_t hi[2] = {K * N, 2 * K * N};
        LOGT_TRY(logt_tf32_split(ctx, bb, K, N, B, strideB, b3, N, 3 * K * N, 0, 2, hi));
    }
    return logt_gemm_ex(ctx, transA, transB, M, N, 3 * K, alpha, LOGT_F32, a3, transA ? M : 3 * K,
                        strideA ? 3 * M * K : 0, b3, transB ? 3 * K : N, strideB ? 3 * K * N : 0, beta, C, N,
                        strideC, batch, 1);
}

/* Long K: chunks of at least LONG_ROWS rows, at most LONG_CHUNKS of them, when C has fewer than
 * LONG_MAX_C elements (below that cuBLAS has too few tiles to spread) and K at least
 * LONG_MIN_K rows. */
#define LONG_ROWS 256
#define LONG_CHUNKS 1024
#define LONG_MAX_C 16384
#define LONG_MIN_K 8192
#define SUM_X 32       /* sum_partials_kernel: consecutive elements a block (one 128-byte line) */
#define SUM_Y_MAX 32   /* rows of threads a block at most, each summing every y-th chunk        */

/* C[k][i] = alpha · Σ_q part[k][q][i] + beta · C[k][i] (beta 0: C not read), part
 * [batch][nchunks][n]: a block per SUM_X consecutive i of one k, whose blockDim.y rows of
 * threads each add every blockDim.y-th chunk (every load a whole line), then the rows in a
 * fixed order (deterministic for a given shape). Bytes: batch·nchunks·n·4 read, batch·n·4
 * written. */
__global__ void __launch_bounds__(SUM_X * SUM_Y_MAX)
sum_partials_kernel(int64_t n, int64_t nchunks, const float *part, float alpha, float beta, float *C)
{
    __shared__ float sh[SUM_Y_MAX][SUM_X + 1];
    const int64_t k = blockIdx.y, i = blockIdx.x * (int64_t)SUM_X + threadIdx.x;
    const float *p = part + k * nchunks * n;
    float acc = 0.0f;
    if (i < n) {
#pragma unroll 8
        for (int64_t q = threadIdx.y; q < nchunks; q += blockDim.y) acc += p[q * n + i];
    }
    sh[threadIdx.y][threadIdx.x] = acc;
    __syncthreads();
    if (threadIdx.y == 0 && i < n) {
        for (unsigned y = 1; y < blockDim.y; y++) acc += sh[y][threadIdx.x];
        float *c = C + k * n + i;
        *c = alpha * acc + (beta != 0.0f ? beta * *c : 0.0f);
    }
}

extern "C" logt_status logt_sum_partials_f32(logt_ctx *ctx, int64_t n, int64_t nchunks, int64_t batch,
                                             const float *part, float alpha, float beta, float *C)
{
    if (n < 1 || batch < 1) return LOGT_OK;
    if (batch > 65535)
        return LOGT_FAIL(LOGT_EINVAL, "logt_sum_partials_f32: %lld sums in one call, at most 65535",
                         (long long)batch);
    /* 8 rows of threads where the blocks fill the GPU; where they are few (a bias gradient's
     * D columns over a thousand chunks), up to 32 rows, so that each thread's chain of
     * dependent loads is short */
    const int64_t blocks = (n + SUM_X - 1) / SUM_X * batch;
    int rows = 8;
    while (rows < SUM_Y_MAX && blocks * rows < 4096 && rows * 8 < nchunks) rows *= 2;
    const dim3 grid((unsigned)((n + SUM_X - 1) / SUM_X), (unsigned)batch), block(SUM_X, (unsigned)rows);
    sum_partials_kernel<<<grid, block, 0, (cudaStream_t)ctx->stream>>>(n, nchunks, part, alpha, beta, C);
    LAUNCH_TRY();
    return LOGT_OK;
}

extern "C" logt_status logt_gemm_f32_tn_long(logt_ctx *ctx, int64_t M, int64_t N, int64_t K, float alpha,
                                             const float *A, int64_t lda, const float *B, int64_t ldb,
                                             float beta, float *C)
{
    if (K == 0 && M > 0 && N > 0 && beta == 0.0f) {   /* an empty sum: C = 0 (gemm_ex refuses it) */
        CUDA_TRY(cudaMemsetAsync(C, 0, (size_t)(M * N) * sizeof(float), (cudaStream_t)ctx->stream));
        return LOGT_OK;
    }
    if (M * N >= LONG_MAX_C || K < LONG_MIN_K)
        return logt_gemm_ex(ctx, 1, 0, M, N, K, alpha, LOGT_F32, A, lda, 0, B, ldb, 0, beta, C, N, 0, 1, 0);
    int64_t L = (K + LONG_CHUNKS - 1) / LONG_CHUNKS;
    L = L < LONG_ROWS ? LONG_ROWS : L;
    const int64_t nchunks = K / L, rest = K - nchunks * L, n = M * N;
    void *ws = NULL;
    LOGT_TRY(logt_ctx_workspace(ctx, (size_t)(nchunks * n) * sizeof(float), &ws));
    float *part = (float *)ws;
    LOGT_TRY(logt_gemm_ex(ctx, 1, 0, M, N, L, 1.0f, LOGT_F32, A, lda, L * lda, B, ldb, L * ldb, 0.0f, part, N,
                          n, nchunks, 0));
    LOGT_TRY(logt_sum_partials_f32(ctx, n, nchunks, 1, part, alpha, beta, C));
    if (rest)
        LOGT_TRY(logt_gemm_ex(ctx, 1, 0, M, N, rest, alpha, LOGT_F32, A + nchunks * L * lda, lda, 0,
                              B + nchunks * L * ldb, ldb, 0, 1.0f, C, N, 0, 1, 0));
    return LOGT_OK;
}
