/* flashrnn_cell.cuh — the pointwise math of flashrnn's cells, one unit at one step, in fp32 on
 * the device: the same equations as the float64 references (lstm_cell.h, and the gru cell of
 * flashrnn.c), shared by the fused persistent kernels (fused_forward.cu, fused_backward.cu)
 * and the alternating path's pointwise kernels (flashrnn_cuda.cu). Nothing here knows how the
 * matrix products around it are done.
 *
 * Conventions, per unit: `a[q]` the pre-activation of gate q from the input side (W x + b),
 * `r[q]` the recurrent side (R h_{t-1}); the saved gates `s[4]` are what backward reads:
 *   lstm  s = [i f g o] activated                      state c (fp32)
 *   gru   s = [r z n rn], rn = R_n h_{t-1} + bn        state h_{t-1} (read back from h)
 * The sLSTM and Elman cells carry their states as arrays:
 *   slstm s = [i' f' tanh z σ(o) σ(−f)]                states c, n, m (fp32)
 *   elman s = [h]                                      no state
 */
#ifndef LOGT_FLASHRNN_CELL_CUH
#define LOGT_FLASHRNN_CELL_CUH

#include "../../core/elem.cuh"

/* The activations on the hardware's fast paths: tanh.approx (one MUFU instruction, relative
 * error < 2^-10.9) for tanh, and σ(a) = (1 + tanh(a / 2)) / 2 on it (absolute error < 2^-11.9):
 * far below bf16's 2^-8, and about what the TF32 products of the fp32 path already cost
 * (2^-11 per operand). They sit on every step's critical path, where σ by ex2 and a division
 * was two dependent MUFU instructions, and slower (experiments/flashrnn-headdim, Design notes). */
__device__ __forceinline__ float fast_tanh(float a)
{
    float r;
    asm("tanh.approx.f32 %0, %1;" : "=f"(r) : "f"(a));
    return r;
}
__device__ __forceinline__ float fast_sigmoid(float a) { return fmaf(0.5f, fast_tanh(0.5f * a), 0.5f); }

struct LstmCell {
    static constexpr int G = 4;   /* gates [i f g o]; 4 saved values per unit */
    /* |h_t| = |o·tanh(c_t)| <= 1 whatever the inputs and initial state (NaN aside), with the
     * approximations too (tanh.approx lies in [-1, 1]): the exchange's 16-bit words (exchange.cuh) */
    static constexpr bool H_UNIT = true;

    /* a[q] + r[q] are the pre-activations; c: c_{t-1} in, c_t out; returns h_t. */
    static __device__ __forceinline__ float forward(const float *a, const float *r, float bn,
                                                    float hp, float &c, float *s)
    {
        (void)bn, (void)hp;
        float i = fast_sigmoid(a[0] + r[0]), f = fast_sigmoid(a[1] + r[1]);
        float g = fast_tanh(a[2] + r[2]), o = fast_sigmoid(a[3] + r[3]);
        s[0] = i, s[1] = f, s[2] = g, s[3] = o;
        c = f * c + i * g;
        return o * fast_tanh(c);
    }

    /* dh: all of dL/dh_t; dc: dL/dc_t from step t+1 in, dL/dc_{t-1} out; c, cp: c_t, c_{t-1}.
     * Writes dL/d(W x) to dxa and dL/d(R h) to dra (equal for the lstm); returns the part of
     * dL/dh_{t-1} that does not go through R (none for the lstm). */
    static __device__ __forceinline__ float backward(const float *s, float c, float cp, float hp,
                                                     float dh, float &dc, float *dxa, float *dra)
    {
        (void)hp;
        float i = s[0], f = s[1], g = s[2], o = s[3], tc = fast_tanh(c);
        float d = dc + dh * o * (1.0f - tc * tc);
        dxa[0] = dra[0] = d * g * i * (1.0f - i);
        dxa[1] = dra[1] = d * cp * f * (1.0f - f);
        dxa[2] = dra[2] = d * i * (1.0f - g * g);
        dxa[3] = dra[3] = dh * tc * o * (1.0f - o);
        dc = d * f;
        return 0.0f;
    }
};

struct GruCell {
    static constexpr int G = 3;   /* gates [r z n]; saved: r z n and rn = R_n h + bn */
    static constexpr bool H_UNIT = false;   /* h_t keeps a part of h0, which may be any size */

    /* bn: the recurrent bias of n; hp: h_{t-1}; c unused. Returns h_t. */
    static __device__ __forceinline__ float forward(const float *a, const float *r, float bn,
                                                    float hp, float &c, float *s)
    {
        (void)c;
        float rg = fast_sigmoid(a[0] + r[0]), z = fast_sigmoid(a[1] + r[1]);
        float rn = r[2] + bn, n = fast_tanh(a[2] + rg * rn);
        s[0] = rg, s[1] = z, s[2] = n, s[3] = rn;
        return (1.0f - z) * n + z * hp;
    }

    static __device__ __forceinline__ float backward(const float *s, float c, float cp, float hp,
                                                     float dh, float &dc, float *dxa, float *dra)
    {
        (void)c, (void)cp, (void)dc;
        float rg = s[0], z = s[1], n = s[2], rn = s[3];
        float dan = dh * (1.0f - z) * (1.0f - n * n);
        dxa[0] = dra[0] = dan * rn * rg * (1.0f - rg);
        dxa[1] = dra[1] = dh * (hp - n) * z * (1.0f - z);
        dxa[2] = dan;
        dra[2] = dan * rg;
        return dh * z;
    }
};

/* exp and log on the MUFU unit: ex2.approx (relative error about 2^-22) and lg2.approx (absolute
 * error about 2^-22 on [0.5, 2], where log1p takes it here), against the accurate expf and
 * log1pf's chains of dependent instructions. The rounding of a·log2 e adds |a|·2^-24 of
 * relative error to exp(a): at |a| = 160, the most the sLSTM's stabilised arguments reach,
 * about 2^-16, far inside every dtype's tolerance (TF32 products alone cost 2^-11). */
__device__ __forceinline__ float fast_exp(float a)
{
    float r;
    asm("ex2.approx.f32 %0, %1;" : "=f"(r) : "f"(a * 1.4426950408889634f));
    return r;
}
__device__ __forceinline__ float fast_log1p_unit(float e)   /* log(1 + e) for e in [0, 1] */
{
    float r;
    asm("lg2.approx.f32 %0, %1;" : "=f"(r) : "f"(1.0f + e));
    return r * 0.6931471805599453f;
}
__device__ __forceinline__ float fast_rcp(float a)   /* 1 / a, relative error about 2^-23 */
{
    float r;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(a));
    return r;
}

/* The sLSTM (slstm_cell.h, the float64 reference's equations) in fp32, on the fast paths: the
 * gates' exp and log σ by fast_exp and fast_log1p_unit, whose arguments reach ±80 and more
 * (the stabiliser keeps exp's result at most 1, not its argument small); tanh z and σ(o) as
 * the LSTM's; c / n by fast_rcp (n >= 1). All of it lies on the step's chain. */
struct SlstmCell {
    static constexpr int G = 4;      /* gates [i f z o]                                    */
    static constexpr int NS = 5;     /* saved: i' f' tanh z σ(o) σ(−f)                      */
    static constexpr int NST = 3;    /* states c, n, m                                     */
    /* h_t = σ(o) c_t / n_t is bounded by the states, not by 1: with initial states of any size
     * (c0 large beside n0) |h| exceeds 1, so the exchange keeps h in the dtype's own words */
    static constexpr bool H_UNIT = false;

    /* sp: c, n, m of t-1; writes those of t to st, the saved values to s; returns h_t. */
    static __device__ __forceinline__ float forward(const float *a, const float *r, const float *sp,
                                                    float *st, float *s)
    {
        const float i = a[0] + r[0], f = a[1] + r[1];
        /* with e = exp(−|f|): log σ(f) = min(f, 0) − log(1 + e), no overflow and no loss for
         * large |f|; σ(−f) = e / (1 + e) or 1 / (1 + e), to relative error, where the LSTM's
         * σ by tanh.approx is good to 2^-12 absolute only (and σ(−f) is dL/df's factor) */
        const float e = fast_exp(-fabsf(f)), r1e = fast_rcp(1.0f + e);
        const float lf = fminf(f, 0.0f) - fast_log1p_unit(e) + sp[2];
        const float m = sp[1] == 0.0f ? i : fmaxf(i, lf);
        const float ig = fast_exp(i - m), fg = fast_exp(lf - m);
        const float z = fast_tanh(a[2] + r[2]), o = fast_sigmoid(a[3] + r[3]);
        s[0] = ig, s[1] = fg, s[2] = z, s[3] = o, s[4] = (f > 0.0f ? e : 1.0f) * r1e;
        /* a fresh state's first step: f' multiplies zeros, which stay zeros (not inf · 0) */
        const float c = (sp[0] == 0.0f ? 0.0f : fg * sp[0]) + ig * z;
        const float n = fmaxf((sp[1] == 0.0f ? 0.0f : fg * sp[1]) + ig, 1.0f);
        st[0] = c, st[1] = n, st[2] = m;
        return o * c * fast_rcp(n);
    }

    /* dh: all of dL/dh_t; ds: dL/dc_t, dL/dn_t in, dL/dc_{t-1}, dL/dn_{t-1} out, and ds[2]
     * out dL/dm_{t-1} (m held constant within the step, as FlashRNN's backward: exact, since
     * h does not depend on the m it chooses). dra = dxa. */
    static __device__ __forceinline__ void backward(const float *s, const float *sp, const float *st,
                                                    float dh, float *ds, float *dxa)
    {
        const float ig = s[0], fg = s[1], z = s[2], o = s[3], sf = s[4], c = st[0], n = st[1];
        const float rn = fast_rcp(n), hn = c * rn;   /* 1 / n and c / n */
        const float dct = ds[0] + dh * o * rn, dnt = ds[1] - dh * o * hn * rn;
        const float carried = (sp[0] == 0.0f ? 0.0f : dct * sp[0]) + (sp[1] == 0.0f ? 0.0f : dnt * sp[1]);
        const float dlf = carried == 0.0f ? 0.0f : fg * carried;
        dxa[0] = (dct * z + dnt) * ig;
        dxa[1] = dlf * sf;
        dxa[2] = dct * ig * (1.0f - z * z);
        dxa[3] = dh * hn * o * (1.0f - o);
        ds[0] = dct == 0.0f ? 0.0f : dct * fg;
        ds[1] = dnt == 0.0f ? 0.0f : dnt * fg;
        ds[2] = dlf;
    }
};

/* The Elman cell, h_t = tanh(W x_t + b + R h_{t-1}); saves h_t. */
struct ElmanCell {
    static constexpr int G = 1;
    static constexpr int NS = 1;
    static constexpr int NST = 0;
    static constexpr bool H_UNIT = true;   /* |tanh| <= 1 whatever the initial state */

    static __device__ __forceinline__ float forward(const float *a, const float *r, const float *sp,
                                                    float *st, float *s)
    {
        (void)sp, (void)st;
        return s[0] = fast_tanh(a[0] + r[0]);
    }

    static __device__ __forceinline__ void backward(const float *s, const float *sp, const float *st,
                                                    float dh, float *ds, float *dxa)
    {
        (void)sp, (void)st, (void)ds;
        dxa[0] = dh * (1.0f - s[0] * s[0]);
    }
};

#endif
