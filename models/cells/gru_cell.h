/* gru_cell.h — the pointwise math of one GRU unit at one step, forward and backward, in
 * float64 (the variant of PyTorch, cuDNN and FlashRNN; equations in flashrnn.h): shared by
 * the CPU references of flashrnn's gru cell (flashrnn.c) and of deer's (deer.c).
 *
 *   r = σ(xa_r + ra_r),  z = σ(xa_z + ra_z),  n = tanh(xa_n + r ⊙ ra_n),  h = (1 − z) n + z h_prev
 *
 * xa: W x + b of the three gates, ra: R h_prev (ra_n with the recurrent bias bn added), each
 * `s` apart. Only the pointwise part lives here; the products stay with each model. Also
 * compiled for the device (LOGT_HD, lstm_cell.h) for deer's CUDA code.
 */
#ifndef LOGT_GRU_CELL_H
#define LOGT_GRU_CELL_H

#include <math.h>
#include <stdint.h>

#include "lstm_cell.h"   /* lstm_sigmoid */

/* xa: W x + b of r, z, n (xa[0], xa[s], xa[2s]); ra: R h_{t-1} of r, z, n, with bn already
 * in ra[2s]. Writes r, z, n and ra[2s] (needed by backward) to q[0], q[s], q[2s], q[3s] and
 * returns h_t. */
LOGT_HD static inline double gru_cell_forward(const double *xa, const double *ra, double hp, int64_t s,
                                      double *q)
{
    double r = lstm_sigmoid(xa[0] + ra[0]), z = lstm_sigmoid(xa[s] + ra[s]);
    double n = tanh(xa[2 * s] + r * ra[2 * s]);
    q[0] = r, q[s] = z, q[2 * s] = n, q[3 * s] = ra[2 * s];
    return (1.0 - z) * n + z * hp;
}

/* Backward of gru_cell_forward given dh = all of dL/dh_t: writes dL/dxa to dxa[0, s, 2s] and
 * dL/dra to dra[0, s, 2s] (they differ only in n, which r gates); returns the part of
 * dL/dh_{t-1} that flows through z (the part through R is the caller's). */
LOGT_HD static inline double gru_cell_backward(const double *q, int64_t s, double hp, double dh,
                                       double *dxa, double *dra)
{
    double r = q[0], z = q[s], n = q[2 * s], rn = q[3 * s];
    double dan = dh * (1.0 - z) * (1.0 - n * n);   /* d(pre-activation of n) */
    double dar = dan * rn * r * (1.0 - r);
    double daz = dh * (hp - n) * z * (1.0 - z);
    dxa[0] = dra[0] = dar;
    dxa[s] = dra[s] = daz;
    dxa[2 * s] = dan;
    dra[2 * s] = dan * r;
    return dh * z;
}

#endif
