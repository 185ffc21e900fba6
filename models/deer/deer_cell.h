/* deer_cell.h — deer's cells and their analytic Jacobians in float64 (deer_cell_eval of
 * deer.h), one definition for the CPU reference (deer.c) and the CUDA full-Newton
 * evaluation (deer_cuda_full.cu), which runs it on the device (LOGT_HD). */
#ifndef LOGT_DEER_CELL_H
#define LOGT_DEER_CELL_H

#include <math.h>
#include <stdint.h>

#include "deer.h"
#include "../cells/gru_cell.h"
#include "../cells/lstm_cell.h"

LOGT_HD static inline void deer_cell_eval_hd(deer_cell cell, int64_t D, const double *R,
                                              const double *bn, const double *xa, const double *sp,
                                              double *f, double *J, double *jd, double *work)
{
    const int64_t G = cell == DEER_LSTM ? 4 : cell == DEER_GRU ? 3 : 1, S = cell == DEER_LSTM ? 2 * D : D;
    const double *hp = sp;   /* h_{t-1}: the first D of the state */
    double *ra = work;       /* hp R [G·D] (gru: + bn in the n gate) */
    for (int64_t c = 0; c < G * D; c++) ra[c] = 0.0;
    for (int64_t mm = 0; mm < D; mm++)
        for (int64_t c = 0; c < G * D; c++) ra[c] += hp[mm] * R[mm * G * D + c];
    if (J)
        for (int64_t i = 0; i < S * S; i++) J[i] = 0.0;
    if (cell == DEER_TANH) {
        for (int64_t j = 0; j < D; j++) {
            f[j] = tanh(xa[j] + ra[j]);
            const double g = 1.0 - f[j] * f[j];
            if (J)
                for (int64_t mm = 0; mm < D; mm++) J[j * D + mm] = g * R[mm * D + j];
            if (jd) jd[j] = g * R[j * D + j];
        }
        return;
    }
    if (cell == DEER_LSTM) {
        const double *cprev = sp + D;
        for (int64_t j = 0; j < D; j++) {
            double a[4] = {xa[j] + ra[j], xa[D + j] + ra[D + j], xa[2 * D + j] + ra[2 * D + j],
                           xa[3 * D + j] + ra[3 * D + j]};
            double h;
            const double c = lstm_cell_forward(a, 1, cprev[j], &h);   /* a becomes i f g o */
            const double i = a[0], fg = a[1], g = a[2], o = a[3], tc = tanh(c);
            f[j] = h, f[D + j] = c;
            /* ∂c/∂hp_m = cp f(1-f) R_f + g i(1-i) R_i + i(1-g²) R_g,  ∂c/∂cp = f δ;
             * ∂h/∂hp_m = tc o(1-o) R_o + o(1-tc²) ∂c/∂hp_m,  ∂h/∂cp = o(1-tc²) f δ */
            const double ci = g * i * (1.0 - i), cf = cprev[j] * fg * (1.0 - fg);
            const double cg = i * (1.0 - g * g), ho = tc * o * (1.0 - o), hc = o * (1.0 - tc * tc);
            if (J) {
                for (int64_t mm = 0; mm < D; mm++) {
                    const double *Rm = R + mm * 4 * D;
                    const double dc = ci * Rm[j] + cf * Rm[D + j] + cg * Rm[2 * D + j];
                    J[(D + j) * S + mm] = dc;
                    J[j * S + mm] = ho * Rm[3 * D + j] + hc * dc;
                }
                J[(D + j) * S + D + j] = fg;
                J[j * S + D + j] = hc * fg;
            }
            if (jd) {
                const double *Rj = R + j * 4 * D;
                const double dc = ci * Rj[j] + cf * Rj[D + j] + cg * Rj[2 * D + j];
                jd[j] = ho * Rj[3 * D + j] + hc * dc;
                jd[D + j] = fg;
            }
        }
        return;
    }
    for (int64_t j = 0; j < D; j++) ra[2 * D + j] += bn[j];
    double q[4];
    for (int64_t j = 0; j < D; j++) {
        const double xj[3] = {xa[j], xa[D + j], xa[2 * D + j]};
        const double rj[3] = {ra[j], ra[D + j], ra[2 * D + j]};
        f[j] = gru_cell_forward(xj, rj, hp[j], 1, q);
        const double r = q[0], z = q[1], n = q[2], rn = q[3];
        /* ∂f_j/∂hp_m = (1-z)(1-n²)(rn r(1-r) R_r + r R_n) + (hp_j - n) z(1-z) R_z + z δ_jm */
        const double cn = (1.0 - z) * (1.0 - n * n), cr = cn * rn * r * (1.0 - r), crn = cn * r;
        const double cz = (hp[j] - n) * z * (1.0 - z);
        if (J)
            for (int64_t mm = 0; mm < D; mm++) {
                const double *Rm = R + mm * 3 * D;
                J[j * D + mm] = cr * Rm[j] + cz * Rm[D + j] + crn * Rm[2 * D + j] + (mm == j ? z : 0.0);
            }
        if (jd) {
            const double *Rj = R + j * 3 * D;
            jd[j] = cr * Rj[j] + cz * Rj[D + j] + crn * Rj[2 * D + j] + z;
        }
    }
}

#endif
