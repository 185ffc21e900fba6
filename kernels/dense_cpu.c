/* dense_cpu.c — plain loops behind dense_cpu.h. Cost O(N·R·K) each. */
#include "dense_cpu.h"

#include <string.h>

void dense_set_rows_cpu(int64_t N, int64_t R, const double *bias, double *Y)
{
    for (int64_t n = 0; n < N; n++)
        if (bias) memcpy(Y + n * R, bias, (size_t)R * sizeof *Y);
        else memset(Y + n * R, 0, (size_t)R * sizeof *Y);
}

void dense_add_cpu(int64_t N, int64_t R, int64_t K, const double *W, const double *X, double *Y)
{
    for (int64_t n = 0; n < N; n++)
        for (int64_t r = 0; r < R; r++) {
            double s = 0.0;
            for (int64_t k = 0; k < K; k++) s += W[r * K + k] * X[n * K + k];
            Y[n * R + r] += s;
        }
}

/* The sums over rows run from row N-1 down to row 0: a sequence run in segments, added from
 * the last segment to the first (recompute = K, models/net.c), then sums in the order of the
 * whole sequence at once, and gives the same bits. */
void dense_add_dw_cpu(int64_t N, int64_t R, int64_t K, const double *dY, const double *X,
                      double *dW, double *db)
{
    for (int64_t n = N - 1; n >= 0; n--)
        for (int64_t r = 0; r < R; r++) {
            double d = dY[n * R + r];
            if (db) db[r] += d;
            for (int64_t k = 0; k < K; k++) dW[r * K + k] += d * X[n * K + k];
        }
}

void dense_add_dx_cpu(int64_t N, int64_t R, int64_t K, const double *W, const double *dY,
                      double *dX)
{
    for (int64_t n = 0; n < N; n++)
        for (int64_t k = 0; k < K; k++) {
            double s = 0.0;
            for (int64_t r = 0; r < R; r++) s += W[r * K + k] * dY[n * R + r];
            dX[n * K + k] += s;
        }
}
