/* lstm_cell.h — the pointwise math of one LSTM unit at one step, forward and backward, in
 * float64: shared by the CPU references of `lstm` (lstm.c) and of flashrnn's lstm cell
 * (flashrnn.c), so that the two models cannot drift apart.
 *
 *   [i f g o] = [σ σ tanh σ](a),   c = f ⊙ c_prev + i ⊙ g,   h = o ⊙ tanh(c)
 *
 * The four gates of one unit lie `s` apart (a [4][s] block packed [i f g o], s = D in both
 * models): a[0] is i, a[s] f, a[2s] g, a[3s] o. Only the pointwise part lives here; the
 * matrix products around it (W x, R h, and their transposes) stay with each model. Also
 * compiled for the device (LOGT_HD) where deer's CUDA code includes it.
 */
#ifndef LOGT_LSTM_CELL_H
#define LOGT_LSTM_CELL_H

#include <math.h>
#include <stdint.h>

/* Compiled for the device too where a .cu file includes it. */
#ifndef LOGT_HD
#ifdef __CUDACC__
#define LOGT_HD __host__ __device__
#else
#define LOGT_HD
#endif
#endif

LOGT_HD static inline double lstm_sigmoid(double a) { return 1.0 / (1.0 + exp(-a)); }

/* Activate the pre-activations a[0], a[s], a[2s], a[3s] in place (they become i, f, g, o,
 * which backward reads); write h and return the new cell state c. */
LOGT_HD static inline double lstm_cell_forward(double *a, int64_t s, double c_prev, double *h)
{
    double i = lstm_sigmoid(a[0]), f = lstm_sigmoid(a[s]);
    double g = tanh(a[2 * s]), o = lstm_sigmoid(a[3 * s]);
    a[0] = i, a[s] = f, a[2 * s] = g, a[3 * s] = o;
    double c = f * c_prev + i * g;
    *h = o * tanh(c);
    return c;
}

/* Backward of lstm_cell_forward. q: the activated gates (stride s); dh: all of dL/dh_t (from
 * the loss and from step t+1); dc: dL/dc_t arriving from step t+1. Writes dL/da of the four
 * gates to da[0], da[s], da[2s], da[3s] and returns dL/dc_prev. */
LOGT_HD static inline double lstm_cell_backward(const double *q, int64_t s, double c_prev, double c,
                                        double dh, double dc, double *da)
{
    double i = q[0], f = q[s], g = q[2 * s], o = q[3 * s];
    double tc = tanh(c);
    dc += dh * o * (1.0 - tc * tc);
    da[0] = dc * g * i * (1.0 - i);
    da[s] = dc * c_prev * f * (1.0 - f);
    da[2 * s] = dc * i * (1.0 - g * g);
    da[3 * s] = dh * tc * o * (1.0 - o);
    return dc * f;
}

#endif
