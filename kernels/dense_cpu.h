/* dense_cpu.h — the float64 CPU loops of a linear layer applied to every step at once.
 *
 * N = T·B rows, weights W [R][K] row-major (one output row r per weight row), inputs
 * X [N][K], outputs Y [N][R]. Forward and both halves of its backward, written to be
 * read; the CUDA side does the same with one cuBLAS GEMM each (kernels/gemm.h).
 */
#ifndef LOGT_DENSE_CPU_H
#define LOGT_DENSE_CPU_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Y[n] = bias for every row n, or zeros when bias is NULL. */
void dense_set_rows_cpu(int64_t N, int64_t R, const double *bias, double *Y);
/* Y[n][r] += Σ_k W[r][k] X[n][k] */
void dense_add_cpu(int64_t N, int64_t R, int64_t K, const double *W, const double *X, double *Y);
/* dW[r][k] += Σ_n dY[n][r] X[n][k], and db[r] += Σ_n dY[n][r] unless db is NULL. */
void dense_add_dw_cpu(int64_t N, int64_t R, int64_t K, const double *dY, const double *X,
                      double *dW, double *db);
/* dX[n][k] += Σ_r W[r][k] dY[n][r] */
void dense_add_dx_cpu(int64_t N, int64_t R, int64_t K, const double *W, const double *dY,
                      double *dX);

#ifdef __cplusplus
}
#endif
#endif
