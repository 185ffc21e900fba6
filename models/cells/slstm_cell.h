/* slstm_cell.h — the pointwise math of one sLSTM unit at one step (xLSTM, Beck et al. 2024),
 * forward and backward, in float64, in the form FlashRNN computes it (its vanilla
 * `flashrnn/vanilla/slstm.py: flashrnn_forward_pointwise` and its CUDA kernel
 * `flashrnn/fused/slstm_fused_pointwise.cuh`): used by flashrnn's slstm cell (flashrnn.c).
 *
 *   pre-activations i, f, z, o (FlashRNN's gate order) of W x + R h_{t-1} + b
 *   lf = log σ(f) + m_{t-1}
 *   m  = i             where n_{t-1} = 0 (the first step from a fresh state)
 *        max(i, lf)    elsewhere
 *   i' = exp(i − m),  f' = exp(lf − m)
 *   c  = f' c_{t-1} + i' tanh(z),  n = max(f' n_{t-1} + i', 1),  h = σ(o) c / n
 *
 * m is a stabiliser: c and n are exp(−m) times the unstabilised c̃ = σ(f) c̃_{t-1} + exp(i) z
 * and ñ = σ(f) ñ_{t-1} + exp(i), so h = σ(o) c̃ / ñ whatever m is, while exp never sees more
 * than exp(0), but for f' on a fresh state's first step (m = i), where it multiplies zeros.
 * The clamp of n at 1 is FlashRNN's guard against rounding: n >= 1 holds by
 * construction from n_{t-1} = 0 or n_{t-1} >= 1 (one of i', f' is 1), so it never binds for
 * the states flashrnn accepts and the backward passes its gradient through, as FlashRNN's does.
 *
 * The four gates of one unit lie `s` apart (a [4][s] block packed [i f z o], s = D). Also
 * compiled for the device (LOGT_HD, lstm_cell.h) where a .cu file includes it.
 */
#ifndef LOGT_SLSTM_CELL_H
#define LOGT_SLSTM_CELL_H

#include <math.h>
#include <stdint.h>

#include "lstm_cell.h"   /* LOGT_HD, lstm_sigmoid */

/* log σ(a) without overflow or loss for large |a|. */
LOGT_HD static inline double slstm_logsigmoid(double a)
{
    return a < 0 ? a - log1p(exp(a)) : -log1p(exp(-a));
}

/* Forward of one unit. a: the pre-activations i, f, z, o at a[0], a[s], a[2s], a[3s],
 * overwritten by what backward reads: i', f', tanh(z), σ(o), and a[4s] = σ(−f) = 1 − σ(f)
 * (the rows are 5·s long). c_prev, n_prev, m_prev: the unit's states at t−1. Writes c, n, m
 * of step t and returns h. */
LOGT_HD static inline double slstm_cell_forward(double *a, int64_t s, double c_prev, double n_prev,
                                                double m_prev, double *c, double *n, double *m)
{
    const double i = a[0], f = a[s];
    const double lf = slstm_logsigmoid(f) + m_prev;
    const double mt = n_prev == 0.0 ? i : fmax(i, lf);
    const double ig = exp(i - mt), fg = exp(lf - mt);
    const double z = tanh(a[2 * s]), o = lstm_sigmoid(a[3 * s]);
    a[0] = ig, a[s] = fg, a[2 * s] = z, a[3 * s] = o, a[4 * s] = lstm_sigmoid(-f);
    /* on a fresh state's first step m = i ignores lf, so f' is unbounded: it multiplies
     * zeros there (c_prev, n_prev = 0), and a zero stays a zero rather than inf · 0 */
    *c = (c_prev == 0.0 ? 0.0 : fg * c_prev) + ig * z;
    *n = fmax((n_prev == 0.0 ? 0.0 : fg * n_prev) + ig, 1.0);
    *m = mt;
    return o * *c / *n;
}

/* Backward of slstm_cell_forward. q: the forward's i', f', tanh(z), σ(o), σ(−f) (stride s);
 * c_prev, n_prev: the states at t−1; c, n: those of step t; dh: all of dL/dh_t. dc, dn: in,
 * dL/dc_t and dL/dn_t arriving from step t+1; out, dL/dc_{t-1} and dL/dn_{t-1}. Writes dL/da of
 * the four gates to da[0], da[s], da[2s], da[3s] and returns dL/dlf, which is dL/dm_{t-1}.
 *
 * The stabiliser m is held constant, as FlashRNN's backward does (its kernel and its
 * vanilla_fwbw pass zero to dm_{t-1}): since h does not depend on the m_t it computes (above),
 * the gradient through m_t = max(i, lf) sums to zero and dropping it is exact. Only the
 * initial m0 is an input rather than a stabiliser of the step's own choice: it scales the
 * carried c0 and n0 against the new input, so its gradient is the forget path's dL/dlf,
 * returned here (FlashRNN's kernel gives zero there, its autograd loop this value). */
LOGT_HD static inline double slstm_cell_backward(const double *q, int64_t s, double c_prev,
                                                 double n_prev, double c, double n, double dh,
                                                 double *dc, double *dn, double *da)
{
    const double ig = q[0], fg = q[s], z = q[2 * s], o = q[3 * s], sf = q[4 * s];
    const double dct = *dc + dh * o / n;              /* dL/dc_t, all of it */
    const double dnt = *dn - dh * o * c / (n * n);    /* dL/dn_t, all of it */
    const double carried = (c_prev == 0.0 ? 0.0 : dct * c_prev) + (n_prev == 0.0 ? 0.0 : dnt * n_prev);
    const double dlf = carried == 0.0 ? 0.0 : fg * carried;   /* zeros stay zeros, as forward */
    da[0] = (dct * z + dnt) * ig;
    da[s] = dlf * sf;                                 /* d log σ(f) / df = σ(−f) */
    da[2 * s] = dct * ig * (1.0 - z * z);
    da[3 * s] = dh * (c / n) * o * (1.0 - o);
    *dc = dct == 0.0 ? 0.0 : dct * fg;
    *dn = dnt == 0.0 ? 0.0 : dnt * fg;
    return dlf;
}

#endif
