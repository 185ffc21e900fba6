/* test_flashrnn_cells.c — flashrnn's slstm and elman cells in the float64 CPU reference
 * (models/flashrnn/flashrnn.h, models/cells/slstm_cell.h): every gradient, of the parameters, x
 * and each initial state (h0, c0, n0, m0), against central differences (one head and several,
 * odd B, T = 1, I != D, one layer and two); H heads = H one-head models; the slstm against its
 * unstabilised form evaluated here in long double, from the zero state, from an arbitrary one
 * and with pre-activations |i|, |f| up to 80; an elman step by hand; the states and
 * configurations they refuse, and the cuda kernel they run (alternating). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../models/flashrnn/flashrnn.h"
#include "check.h"
#include "gradcheck.h"

static logt_net *make_net(const char *cell, int I, int D, int dh, int L, uint64_t seed)
{
    logt_model_cfg cfg;
    logt_model_cfg_init(&cfg, "flashrnn", LOGT_CPU, I, D);
    snprintf(cfg.cell, sizeof cfg.cell, "%s", cell);
    cfg.head_dim = dh;
    cfg.layers = L;
    cfg.seed = seed;
    logt_net *net;
    cr_assert_eq(logt_net_create(&cfg, &net), LOGT_OK, "%s", logt_errmsg());
    return net;
}

/* Layer l's slice `name` of the parameters (or, with grad, of the gradients). */
static double *slice_of(logt_net *net, int l, const char *name, int grad)
{
    const logt_slice *s = logt_layout_find(&net->layout[l], name);
    cr_assert(s, "no slice %s", name);
    return (double *)(grad ? net->dw.data : net->w.data) + net->layer_offset[l] + s->offset;
}

static flashrnn_model *layer(logt_net *net, int l) { return (flashrnn_model *)net->layer[l]; }

/* n values uniform in [lo, hi] from stream. */
static void fill_in(double *p, int64_t n, uint64_t stream, double lo, double hi)
{
    for (int64_t i = 0; i < n; i++) p[i] = lo + (hi - lo) * logt_uniform(77, stream, (uint64_t)i);
}

/* The initial states of a test: h0, c0 in [-1, 1], n0 in [1, 3], m0 in [-2, 2], [L][B][D] each. */
typedef struct states { logt_tensor h0, c0, n0, m0; } states;

static states make_states(int L, int B, int D)
{
    states s = {tensor3(L, B, D, NULL), tensor3(L, B, D, NULL), tensor3(L, B, D, NULL),
                tensor3(L, B, D, NULL)};
    fill_in(s.h0.data, s.h0.numel, 1, -1, 1), fill_in(s.c0.data, s.c0.numel, 2, -1, 1);
    fill_in(s.n0.data, s.n0.numel, 3, 1, 3), fill_in(s.m0.data, s.m0.numel, 4, -2, 2);
    return s;
}

static void free_states(states *s)
{
    logt_tensor_free(&s->h0), logt_tensor_free(&s->c0), logt_tensor_free(&s->n0), logt_tensor_free(&s->m0);
}

/* ---- gradients ------------------------------------------------------------------------ */

/* with: 0 zero state; 1 h0 (and c0 for slstm); 2 also n0 and m0 (slstm) */
typedef struct gc_case {
    const char *cell;
    int T, B, I, D, dh, L, with;
    double scale_if;   /* slstm: b's i and f rows scaled to this size (0: as initialised) */
} gc_case;

/* Make |i|, |f| large: layer l's b rows of i and f become ±scale·(0.9 .. 1), signs mixed. */
static void extreme_if(logt_net *net, int l, int D, double scale)
{
    double *b = slice_of(net, l, "b", 0), *W = slice_of(net, l, "W", 0);
    const int I = (int)net->layout[l].s[0].shape[1];
    for (int r = 0; r < 2 * D; r++) {
        b[r] = scale * (0.9 + 0.1 * logt_uniform(5, 9, (uint64_t)r)) * ((r * 7 / 3) % 2 ? 1 : -1);
        for (int k = 0; k < I; k++) W[r * I + k] *= 4;   /* x moves i, f by a few units a step */
    }
    logt_net_params_written(net);
}

static void gradcheck(gc_case c)
{
    const int slstm = !strcmp(c.cell, "slstm");
    char label[128];
    snprintf(label, sizeof label, "flashrnn %s T=%d B=%d I=%d D=%d dh=%d L=%d state %d%s", c.cell, c.T,
             c.B, c.I, c.D, c.dh, c.L, c.with, c.scale_if ? " extreme i, f" : "");
    logt_net *net = make_net(c.cell, c.I, c.D, c.dh, c.L, 5);
    cr_assert_eq(logt_net_nslices(net), c.L * 3, "%s: slices W, R, b per layer", label);
    for (int l = 0; c.scale_if && l < c.L; l++) extreme_if(net, l, c.D, c.scale_if);
    logt_tensor x = tensor3(c.T, c.B, c.I, NULL), dh = tensor3(c.T, c.B, c.D, NULL);
    logt_tensor dx = tensor3(c.T, c.B, c.I, NULL);
    fill(x.data, x.numel, 1), fill(dh.data, dh.numel, 2);
    states s = make_states(c.L, c.B, c.D);
    if (c.with)
        cr_assert_eq(logt_net_set_state(net, &s.h0, slstm ? &s.c0 : NULL), LOGT_OK, "%s", logt_errmsg());
    if (c.with == 2)
        cr_assert_eq(flashrnn_set_slstm_state(net, &s.n0, &s.m0), LOGT_OK, "%s", logt_errmsg());

    loss_of(net, &x, dh.data);
    cr_assert_eq(logt_net_backward(net, &dh, &dx, NULL), LOGT_OK, "%s", logt_errmsg());
    for (int k = 0; k < logt_net_nslices(net); k++) {
        char name[64];
        int64_t off, len;
        cr_assert_eq(logt_net_slice(net, k, name, sizeof name, &off, &len), LOGT_OK);
        expect_grad(net, &x, dh.data, label, name, (double *)net->w.data + off,
                    (double *)net->dw.data + off, len);
    }
    expect_grad(net, &x, dh.data, label, "dx", x.data, dx.data, x.numel);
    if (c.with) {
        expect_grad(net, &x, dh.data, label, "dh0", net->h0.data, net->dh0.data, net->h0.numel);
        if (slstm) expect_grad(net, &x, dh.data, label, "dc0", net->c0.data, net->dc0.data, net->c0.numel);
    }
    for (int l = 0; c.with == 2 && l < c.L; l++) {   /* n0 and m0 live in each layer */
        flashrnn_model *m = layer(net, l);
        char what[32];
        snprintf(what, sizeof what, "dn0 of layer %d", l);
        expect_grad(net, &x, dh.data, label, what, m->n0.data, m->dn0.data, m->n0.numel);
        snprintf(what, sizeof what, "dm0 of layer %d", l);
        expect_grad(net, &x, dh.data, label, what, m->m0.data, m->dm0.data, m->m0.numel);
    }
    logt_tensor_free(&x), logt_tensor_free(&dh), logt_tensor_free(&dx);
    free_states(&s);
    logt_net_destroy(net);
}

/* cell, T, B, I, D, dh, L, with, scale_if. B odd throughout (but the two-layer B = 1); I != D. */
static const gc_case slstm_cases[] = {
    {"slstm", 5, 3, 3, 4, 0, 1, 2, 0},   /* one head (dh = D), every initial state       */
    {"slstm", 5, 3, 4, 6, 2, 1, 2, 0},   /* H = 3 heads of 2                             */
    {"slstm", 5, 3, 4, 6, 2, 1, 1, 0},   /* h0, c0 only: n0 = 0, so m_1 = i_1 with c0 != 0 */
    {"slstm", 5, 3, 4, 6, 3, 1, 0, 0},   /* from the zero state                          */
    {"slstm", 1, 3, 4, 6, 3, 1, 2, 0},   /* T = 1: only the initial state recurs         */
    {"slstm", 4, 1, 3, 4, 2, 2, 2, 0},   /* two layers, B = 1                            */
    {"slstm", 4, 3, 3, 4, 2, 1, 2, 76},  /* |i|, |f| up to about 80                      */
    {"slstm", 4, 3, 3, 4, 2, 1, 0, 76},  /* ... from the zero state                      */
};
static const gc_case elman_cases[] = {
    {"elman", 5, 3, 3, 4, 0, 1, 1, 0},
    {"elman", 5, 3, 4, 6, 2, 1, 1, 0},
    {"elman", 5, 3, 4, 6, 2, 1, 0, 0},
    {"elman", 1, 3, 4, 6, 3, 1, 1, 0},
    {"elman", 4, 1, 3, 4, 2, 2, 1, 0},
};

Test(flashrnn_cells, slstm_gradients_match_finite_differences)
{
    for (size_t i = 0; i < sizeof slstm_cases / sizeof slstm_cases[0]; i++) gradcheck(slstm_cases[i]);
}

Test(flashrnn_cells, elman_gradients_match_finite_differences)
{
    for (size_t i = 0; i < sizeof elman_cases / sizeof elman_cases[0]; i++) gradcheck(elman_cases[i]);
}

/* ---- the slstm against its unstabilised form in long double ----------------------------- */

/* One slstm layer as c̃_t = σ(f) c̃_{t-1} + e^i tanh z, ñ_t = σ(f) ñ_{t-1} + e^i, h = σ(o) c̃ / ñ
 * from c̃_0 = e^{m0} c0, ñ_0 = e^{m0} n0: the function the stabilised cell computes, with no
 * stabiliser at all (long double holds e^{±80·T} for the T here). States NULL: zeros. Also
 * gives the largest |i| and |f| met. */
static void slstm_ref(int T, int B, int I, int D, int dh, const double *W, const double *R,
                      const double *b, const double *x, const double *h0, const double *c0,
                      const double *n0, const double *m0, double *h, double *max_if)
{
    long double *hp = calloc((size_t)(B * D), sizeof *hp), *c = calloc((size_t)(B * D), sizeof *c);
    long double *n = calloc((size_t)(B * D), sizeof *n), *a = malloc(sizeof *a * 4 * (size_t)D);
    cr_assert(hp && c && n && a);
    for (int e = 0; e < B * D; e++) {
        const long double s = m0 ? expl(m0[e]) : 1.0L;
        hp[e] = h0 ? h0[e] : 0, c[e] = c0 ? s * c0[e] : 0, n[e] = n0 ? s * n0[e] : 0;
    }
    *max_if = 0;
    for (int t = 0; t < T; t++) {
        long double *hn = malloc(sizeof *hn * (size_t)(B * D));
        cr_assert(hn);
        for (int bb = 0; bb < B; bb++) {
            for (int q = 0; q < 4; q++)
                for (int u = 0; u < D; u++) {
                    const int k = u / dh, j = u % dh;
                    long double s = b[q * D + u];
                    for (int i = 0; i < I; i++) s += (long double)W[(q * D + u) * I + i] * x[(t * B + bb) * I + i];
                    for (int mm = 0; mm < dh; mm++)
                        s += hp[bb * D + k * dh + mm] * R[(k * dh + mm) * 4 * dh + q * dh + j];
                    a[q * D + u] = s;
                }
            for (int u = 0; u < D; u++) {
                const long double ai = a[u], af = a[D + u], z = tanhl(a[2 * D + u]);
                const long double o = 1 / (1 + expl(-a[3 * D + u])), sf = 1 / (1 + expl(-af));
                *max_if = fmax(*max_if, fmax(fabs((double)ai), fabs((double)af)));
                const int e = bb * D + u;
                c[e] = sf * c[e] + expl(ai) * z;
                n[e] = sf * n[e] + expl(ai);
                hn[e] = o * c[e] / n[e];
                h[(t * B + bb) * D + u] = (double)hn[e];
            }
        }
        memcpy(hp, hn, sizeof *hp * (size_t)(B * D));
        free(hn);
    }
    free(hp), free(c), free(n), free(a);
}

/* The model's h against slstm_ref for one layer of H heads, with `with` as in gc_case. */
static void against_long_double(int with, double scale_if, double want_if)
{
    const int T = 6, B = 3, I = 3, D = 6, dh = 2;
    logt_net *net = make_net("slstm", I, D, dh, 1, 31);
    if (scale_if) extreme_if(net, 0, D, scale_if);
    logt_tensor x = tensor3(T, B, I, NULL);
    fill(x.data, x.numel, 1);
    states s = make_states(1, B, D);
    if (with) cr_assert_eq(logt_net_set_state(net, &s.h0, &s.c0), LOGT_OK, "%s", logt_errmsg());
    if (with == 2) cr_assert_eq(flashrnn_set_slstm_state(net, &s.n0, &s.m0), LOGT_OK, "%s", logt_errmsg());
    const logt_tensor *h;
    cr_assert_eq(logt_net_forward(net, &x, &h, NULL), LOGT_OK, "%s", logt_errmsg());
    double *want = malloc(sizeof(double) * T * B * D), max_if;
    slstm_ref(T, B, I, D, dh, slice_of(net, 0, "W", 0), slice_of(net, 0, "R", 0), slice_of(net, 0, "b", 0),
              x.data, with ? s.h0.data : NULL, with ? s.c0.data : NULL, with == 2 ? s.n0.data : NULL,
              with == 2 ? s.m0.data : NULL, want, &max_if);
    cr_assert_geq(max_if, want_if, "the pre-activations reach |i|, |f| = %g only", max_if);
    cr_assert_leq(max_if, 80);
    for (int64_t e = 0; e < h->numel; e++)
        cr_assert(isfinite(((double *)h->data)[e]), "h[%lld] is not finite", (long long)e);
    check_result r = check_close("slstm h", h->data, want, T * B * D, 1e-14, 1e-12);
    cr_assert(r.ok, "state %d, |i|, |f| up to %.3g: %s", with, max_if, r.msg);

    logt_tensor dh_ = tensor3(T, B, D, NULL), dx = tensor3(T, B, I, NULL);
    fill(dh_.data, dh_.numel, 2);
    cr_assert_eq(logt_net_backward(net, &dh_, &dx, NULL), LOGT_OK, "%s", logt_errmsg());
    for (int64_t e = 0; e < net->dw.numel; e++)
        cr_assert(isfinite(((double *)net->dw.data)[e]), "dw[%lld] is not finite", (long long)e);
    for (int64_t e = 0; e < dx.numel; e++)
        cr_assert(isfinite(((double *)dx.data)[e]), "dx[%lld] is not finite", (long long)e);
    free(want);
    logt_tensor_free(&x), logt_tensor_free(&dh_), logt_tensor_free(&dx);
    free_states(&s);
    logt_net_destroy(net);
}

Test(flashrnn_cells, slstm_from_zero_state_is_its_unstabilised_form) { against_long_double(0, 0, 0); }
Test(flashrnn_cells, slstm_from_an_arbitrary_state_is_its_unstabilised_form) { against_long_double(2, 0, 0); }
Test(flashrnn_cells, slstm_with_c0_and_fresh_n0_is_its_unstabilised_form) { against_long_double(1, 0, 0); }

Test(flashrnn_cells, slstm_with_extreme_gates_stays_finite_and_exact)
{
    against_long_double(0, 76, 75);
    against_long_double(2, 76, 75);
}

/* From a fresh state the first step takes m = i whatever lf is, so f' = exp(lf - i) is
 * unbounded there; it multiplies zeros (c0 = n0 = 0), and h and every gradient stay finite
 * even where it overflows (an input gate near -800). */
Test(flashrnn_cells, slstm_first_step_from_a_fresh_state_stays_finite)
{
    const int T = 4, B = 2, I = 3, D = 4;
    logt_net *net = make_net("slstm", I, D, 0, 1, 9);
    double *b = slice_of(net, 0, "b", 0);
    for (int j = 0; j < D; j++) b[j] = -800;   /* gate i of every unit */
    logt_tensor x = tensor3(T, B, I, NULL), dh = tensor3(T, B, D, NULL), dx = tensor3(T, B, I, NULL);
    fill(x.data, x.numel, 2);
    fill(dh.data, dh.numel, 3);
    const logt_tensor *h;
    cr_assert_eq(logt_net_forward(net, &x, &h, NULL), LOGT_OK, "%s", logt_errmsg());
    for (int64_t e = 0; e < h->numel; e++) cr_assert(isfinite(((double *)h->data)[e]), "h[%lld]", (long long)e);
    cr_assert_eq(logt_net_backward(net, &dh, &dx, NULL), LOGT_OK, "%s", logt_errmsg());
    for (int64_t e = 0; e < net->dw.numel; e++)
        cr_assert(isfinite(((double *)net->dw.data)[e]), "dw[%lld] = %g", (long long)e, ((double *)net->dw.data)[e]);
    for (int64_t e = 0; e < dx.numel; e++) cr_assert(isfinite(((double *)dx.data)[e]), "dx[%lld]", (long long)e);
    logt_tensor_free(&x), logt_tensor_free(&dh), logt_tensor_free(&dx);
    logt_net_destroy(net);
}

/* Zero initial states given explicitly are the default (FlashRNN's zero state). */
Test(flashrnn_cells, slstm_zero_state_is_the_default)
{
    const int T = 4, B = 3, I = 3, D = 4;
    logt_net *a = make_net("slstm", I, D, 2, 2, 41), *b = make_net("slstm", I, D, 2, 2, 41);
    logt_tensor x = tensor3(T, B, I, NULL), z = tensor3(2, B, D, NULL);
    fill(x.data, x.numel, 3);
    logt_tensor_zero(&z);
    cr_assert_eq(logt_net_set_state(b, &z, &z), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(flashrnn_set_slstm_state(b, &z, &z), LOGT_OK, "%s", logt_errmsg());
    const logt_tensor *ha, *hb;
    cr_assert_eq(logt_net_forward(a, &x, &ha, NULL), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_net_forward(b, &x, &hb, NULL), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(memcmp(ha->data, hb->data, sizeof(double) * (size_t)ha->numel), 0);
    /* and clearing them returns to it */
    cr_assert_eq(flashrnn_set_slstm_state(b, NULL, NULL), LOGT_OK, "%s", logt_errmsg());
    cr_assert_null(layer(b, 0)->n0.data);
    cr_assert_null(layer(b, 1)->dm0.data);
    logt_tensor_free(&x), logt_tensor_free(&z);
    logt_net_destroy(a), logt_net_destroy(b);
}

/* ---- elman by hand ---------------------------------------------------------------------- */

Test(flashrnn_cells, elman_two_steps_by_hand)
{
    logt_net *net = make_net("elman", 1, 1, 0, 1, 1);   /* W, R, b: one number each */
    const double p[3] = {0.7, -0.4, 0.2};
    cr_assert_eq(net->w.numel, 3);
    memcpy(net->w.data, p, sizeof p);
    logt_net_params_written(net);
    const double xs[2] = {1.5, -0.5}, hinit = 0.3;
    logt_tensor x = tensor3(2, 1, 1, xs), h0 = tensor3(1, 1, 1, &hinit);
    cr_assert_eq(logt_net_set_state(net, &h0, NULL), LOGT_OK, "%s", logt_errmsg());
    const logt_tensor *h;
    cr_assert_eq(logt_net_forward(net, &x, &h, NULL), LOGT_OK, "%s", logt_errmsg());
    double hp = hinit;
    for (int t = 0; t < 2; t++) {
        hp = tanh(0.7 * xs[t] + 0.2 - 0.4 * hp);
        cr_assert_float_eq(((double *)h->data)[t], hp, 1e-15, "step %d", t);
    }
    logt_tensor_free(&x), logt_tensor_free(&h0);
    logt_net_destroy(net);
}

/* ---- structure -------------------------------------------------------------------------- */

/* A model of H heads of dh is H one-head models of hidden size dh, each given its head's rows
 * of W and b, its R[k] and its part of every initial state. */
static void heads_are_separate(const char *cell)
{
    const int T = 4, B = 3, I = 3, D = 6, dh = 2, H = D / dh, slstm = !strcmp(cell, "slstm");
    const int G = slstm ? 4 : 1;
    logt_net *big = make_net(cell, I, D, dh, 1, 11);
    logt_tensor x = tensor3(T, B, I, NULL);
    fill(x.data, x.numel, 1);
    states s = make_states(1, B, D);
    cr_assert_eq(logt_net_set_state(big, &s.h0, slstm ? &s.c0 : NULL), LOGT_OK, "%s", logt_errmsg());
    if (slstm) cr_assert_eq(flashrnn_set_slstm_state(big, &s.n0, &s.m0), LOGT_OK, "%s", logt_errmsg());
    const logt_tensor *hb;
    cr_assert_eq(logt_net_forward(big, &x, &hb, NULL), LOGT_OK, "%s", logt_errmsg());
    const double *W = slice_of(big, 0, "W", 0), *R = slice_of(big, 0, "R", 0), *b = slice_of(big, 0, "b", 0);

    for (int k = 0; k < H; k++) {
        logt_net *one = make_net(cell, I, dh, 0, 1, 12);
        double *w1 = slice_of(one, 0, "W", 0), *r1 = slice_of(one, 0, "R", 0), *b1 = slice_of(one, 0, "b", 0);
        for (int q = 0; q < G; q++)
            for (int j = 0; j < dh; j++) {
                memcpy(w1 + (q * dh + j) * I, W + (q * D + k * dh + j) * I, sizeof(double) * I);
                b1[q * dh + j] = b[q * D + k * dh + j];
            }
        memcpy(r1, R + k * dh * G * dh, sizeof(double) * dh * G * dh);
        logt_net_params_written(one);
        states sk = {tensor3(1, B, dh, NULL), tensor3(1, B, dh, NULL), tensor3(1, B, dh, NULL),
                     tensor3(1, B, dh, NULL)};
        const logt_tensor *from[4] = {&s.h0, &s.c0, &s.n0, &s.m0};
        logt_tensor *to[4] = {&sk.h0, &sk.c0, &sk.n0, &sk.m0};
        for (int v = 0; v < 4; v++)
            for (int n = 0; n < B; n++)
                memcpy((double *)to[v]->data + n * dh, (const double *)from[v]->data + n * D + k * dh,
                       sizeof(double) * dh);
        cr_assert_eq(logt_net_set_state(one, &sk.h0, slstm ? &sk.c0 : NULL), LOGT_OK, "%s", logt_errmsg());
        if (slstm) cr_assert_eq(flashrnn_set_slstm_state(one, &sk.n0, &sk.m0), LOGT_OK, "%s", logt_errmsg());
        const logt_tensor *h1;
        cr_assert_eq(logt_net_forward(one, &x, &h1, NULL), LOGT_OK, "%s", logt_errmsg());
        double *got = malloc(sizeof(double) * T * B * dh);
        for (int n = 0; n < T * B; n++)
            for (int j = 0; j < dh; j++) got[n * dh + j] = ((double *)hb->data)[n * D + k * dh + j];
        check_result r = check_close("head's h", got, h1->data, T * B * dh, 1e-14, 1e-13);
        cr_assert(r.ok, "%s, head %d of %d: %s", cell, k, H, r.msg);
        free(got);
        free_states(&sk);
        logt_net_destroy(one);
    }
    logt_tensor_free(&x);
    free_states(&s);
    logt_net_destroy(big);
}

Test(flashrnn_cells, slstm_heads_are_separate_recurrences) { heads_are_separate("slstm"); }
Test(flashrnn_cells, elman_heads_are_separate_recurrences) { heads_are_separate("elman"); }

/* ---- registration and refusals ---------------------------------------------------------- */

Test(flashrnn_cells, declared_with_their_layout)
{
    const logt_model_ops *ops = logt_model_find("flashrnn");
    cr_assert(ops);
    const char *want[] = {"lstm", "gru", "slstm", "elman"};
    for (int c = 0; c < 4; c++) cr_assert_str_eq(ops->cells[c], want[c]);
    cr_assert_null(ops->cells[4]);
    logt_net *s = make_net("slstm", 5, 12, 4, 1, 1), *e = make_net("elman", 5, 12, 4, 1, 1);
    const logt_slice *b = logt_layout_find(&s->layout[0], "b");
    cr_assert(b && b->numel == 4 * 12 && b->keep == 12 && b->nkeep == 12 && b->neg == -1,
              "slstm: the memory gate is f, rows D .. 2D-1 of b; i is left alone");
    cr_assert_null(logt_layout_find(&s->layout[0], "bn"));
    cr_assert_eq(s->w.numel, 4 * 12 * 5 + 3 * 4 * 4 * 4 + 4 * 12);
    const logt_slice *R = logt_layout_find(&e->layout[0], "R");
    cr_assert(R && R->shape[0] == 3 && R->shape[1] == 4 && R->shape[2] == 4, "elman R is [H][dh][dh]");
    cr_assert_eq(logt_layout_find(&e->layout[0], "b")->nkeep, 0, "elman has no memory gate");
    cr_assert_eq(e->w.numel, 12 * 5 + 3 * 4 * 4 + 12);
    logt_net_destroy(s), logt_net_destroy(e);
}

/* Layer l's part [1][B][D] of a state [L][B][D]. */
static logt_tensor layer_part(const logt_tensor *s, int l)
{
    const int64_t n = s->shape[1] * s->shape[2];
    return tensor3(1, s->shape[1], s->shape[2], (const double *)s->data + l * n);
}

/* Two stacked slstm layers, each with its own h0, c0, n0 and m0 (some units fresh: n0 = 0),
 * are two one-layer nets chained, the first's h the second's x and the second's dx the
 * first's dh: h, dx, every parameter's gradient and every initial state's, to rounding. */
Test(flashrnn_cells, two_layers_are_two_chained_nets)
{
    const int T = 5, B = 3, I = 3, D = 4, dh = 2;
    logt_net *two = make_net("slstm", I, D, dh, 2, 13);
    logt_tensor x = tensor3(T, B, I, NULL), dy = tensor3(T, B, D, NULL), dx = tensor3(T, B, I, NULL);
    fill(x.data, x.numel, 1), fill(dy.data, dy.numel, 2);
    states s = make_states(2, B, D);
    double *n0 = s.n0.data, *m0 = s.m0.data;
    for (int64_t i = 0; i < s.n0.numel; i += 5) n0[i] = m0[i] = 0.0;   /* fresh units */
    cr_assert_eq(logt_net_set_state(two, &s.h0, &s.c0), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(flashrnn_set_slstm_state(two, &s.n0, &s.m0), LOGT_OK, "%s", logt_errmsg());
    const logt_tensor *h2;
    cr_assert_eq(logt_net_forward(two, &x, &h2, NULL), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_net_backward(two, &dy, &dx, NULL), LOGT_OK, "%s", logt_errmsg());

    logt_net *one[2];
    const logt_tensor *h[2];
    logt_tensor dxs[2] = {tensor3(T, B, I, NULL), tensor3(T, B, D, NULL)};
    for (int l = 0; l < 2; l++) {
        one[l] = make_net("slstm", l ? D : I, D, dh, 1, 14 + (uint64_t)l);
        memcpy(one[l]->w.data, (double *)two->w.data + two->layer_offset[l], sizeof(double) * one[l]->w.numel);
        logt_net_params_written(one[l]);
        logt_tensor st[4] = {layer_part(&s.h0, l), layer_part(&s.c0, l), layer_part(&s.n0, l),
                             layer_part(&s.m0, l)};
        cr_assert_eq(logt_net_set_state(one[l], &st[0], &st[1]), LOGT_OK, "%s", logt_errmsg());
        cr_assert_eq(flashrnn_set_slstm_state(one[l], &st[2], &st[3]), LOGT_OK, "%s", logt_errmsg());
        for (int k = 0; k < 4; k++) logt_tensor_free(&st[k]);
        cr_assert_eq(logt_net_forward(one[l], l ? h[0] : &x, &h[l], NULL), LOGT_OK, "%s", logt_errmsg());
    }
    check_result r = check_close("h", h[1]->data, h2->data, T * B * D, 1e-15, 1e-14);
    cr_assert(r.ok, "%s", r.msg);
    for (int l = 1; l >= 0; l--)
        cr_assert_eq(logt_net_backward(one[l], l ? &dy : &dxs[1], &dxs[l], NULL), LOGT_OK, "%s",
                     logt_errmsg());
    r = check_close("dx", dxs[0].data, dx.data, T * B * I, 1e-15, 1e-13);
    cr_assert(r.ok, "%s", r.msg);
    for (int l = 0; l < 2; l++) {
        const int64_t n = B * D;
        const struct { const char *what; const double *got, *want; int64_t len; } g[] = {
            {"dparams", one[l]->dw.data, (double *)two->dw.data + two->layer_offset[l], one[l]->dw.numel},
            {"dh0", one[l]->dh0.data, (double *)two->dh0.data + l * n, n},
            {"dc0", one[l]->dc0.data, (double *)two->dc0.data + l * n, n},
            {"dn0", layer(one[l], 0)->dn0.data, layer(two, l)->dn0.data, n},
            {"dm0", layer(one[l], 0)->dm0.data, layer(two, l)->dm0.data, n},
        };
        for (size_t k = 0; k < sizeof g / sizeof g[0]; k++) {
            r = check_close(g[k].what, g[k].got, g[k].want, g[k].len, 1e-15, 1e-13);
            cr_assert(r.ok, "layer %d: %s", l, r.msg);
        }
    }
    for (int l = 0; l < 2; l++) logt_net_destroy(one[l]), logt_tensor_free(&dxs[l]);
    logt_tensor_free(&x), logt_tensor_free(&dy), logt_tensor_free(&dx);
    free_states(&s);
    logt_net_destroy(two);
}

/* On cuda the slstm and the elman have both kernels: their layouts are made with the kernel
 * unset, alternating or fused, and any other kernel is refused by name (the runs:
 * test_flashrnn_cuda.c). */
Test(flashrnn_cells, cuda_kernels_of_each_cell)
{
    const logt_model_ops *ops = logt_model_find("flashrnn");
    const char *cell[] = {"slstm", "elman"};
    for (int c = 0; c < 2; c++)
        for (int k = 0; k < 4; k++) {
            const int refused = k == 3;
            logt_model_cfg cfg;
            logt_model_cfg_init(&cfg, "flashrnn", LOGT_CUDA, 3, 32);
            cfg.head_dim = 16;
            snprintf(cfg.cell, sizeof cfg.cell, "%s", cell[c]);
            const char *kernel[] = {"", "alternating", "fused", "persistent"};
            if (k) cr_assert_eq(logt_cfg_set_knob(&cfg, "kernel", kernel[k]), LOGT_OK);
            logt_layout l;
            memset(&l, 0, sizeof l);
            const logt_status s = logt_model_layout(ops, &cfg, &l);
            if (!refused) {
                cr_assert_eq(s, LOGT_OK, "%s: %s", cell[c], logt_errmsg());
                continue;
            }
            cr_assert_eq(s, LOGT_EINVAL);
            cr_assert(strstr(logt_errmsg(), "no kernel 'persistent'") && strstr(logt_errmsg(), "kernel = fused")
                          && strstr(logt_errmsg(), "alternating"),
                      "%s", logt_errmsg());
        }
}

Test(flashrnn_cells, states_they_refuse)
{
    const int B = 3, D = 4;
    logt_tensor x = tensor3(2, B, 3, NULL), z = tensor3(1, B, D, NULL), z2 = tensor3(1, B + 1, D, NULL);
    fill(x.data, x.numel, 1);
    logt_tensor_zero(&z), logt_tensor_zero(&z2);
    const logt_tensor *h;

    /* elman has no cell state */
    logt_net *net = make_net("elman", 3, D, 2, 1, 1);
    cr_assert_eq(logt_net_set_state(net, &z, &z), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_net_forward(net, &x, &h, NULL), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "flashrnn with cell elman has no cell state c0: set only h0"), "%s",
              logt_errmsg());
    /* n0 and m0 are the slstm's */
    cr_assert_eq(flashrnn_set_slstm_state(net, &z, NULL), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "n0 and m0 are initial states of flashrnn's slstm cell, and this "
                                    "net is flashrnn cell elman"), "%s", logt_errmsg());
    logt_net_destroy(net);

    net = make_net("slstm", 3, D, 2, 1, 1);
    /* a normaliser between 0 and 1, negative, or not finite; an m0 not finite */
    const double bad_n[] = {0.5, -1, NAN};
    for (int k = 0; k < 3; k++) {
        ((double *)z.data)[5] = bad_n[k];
        cr_assert_eq(flashrnn_set_slstm_state(net, &z, NULL), LOGT_EINVAL);
        cr_assert(strstr(logt_errmsg(), "the slstm's initial state n0 has") && strstr(logt_errmsg(), "at [0][1][1]")
                      && strstr(logt_errmsg(), "is 0 (a fresh state) or at least 1"), "%s", logt_errmsg());
    }
    ((double *)z.data)[5] = INFINITY;
    cr_assert_eq(flashrnn_set_slstm_state(net, NULL, &z), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "m0 has inf at [0][1][1]: it must be finite"), "%s", logt_errmsg());
    ((double *)z.data)[5] = 1.0;
    /* a shape other than [L][B][D], and a batch other than x's */
    logt_tensor wide = tensor3(1, B, D + 1, NULL);
    logt_tensor_zero(&wide);
    cr_assert_eq(flashrnn_set_slstm_state(net, &wide, NULL), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "n0 must be a cpu f64 tensor [layers=1][B][D=4]"), "%s", logt_errmsg());
    cr_assert_eq(flashrnn_set_slstm_state(net, &z, &z2), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "n0 and m0 have batches 3 and 4"), "%s", logt_errmsg());
    cr_assert_eq(flashrnn_set_slstm_state(net, NULL, &z2), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_net_forward(net, &x, &h, NULL), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "the initial state m0 has batch 4 but x has B = 3"), "%s", logt_errmsg());
    /* a fresh unit (n0 = 0) has no stabiliser to carry: m0 is 0 there */
    logt_tensor n0 = tensor3(1, B, D, NULL), m0 = tensor3(1, B, D, NULL);
    logt_tensor_zero(&n0), logt_tensor_zero(&m0);
    ((double *)m0.data)[6] = 800;
    cr_assert_eq(flashrnn_set_slstm_state(net, &n0, &m0), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "m0 has 800 at [0][1][2] where n0 is 0"), "%s", logt_errmsg());
    ((double *)n0.data)[6] = 1;
    cr_assert_eq(flashrnn_set_slstm_state(net, &n0, &m0), LOGT_OK, "%s", logt_errmsg());
    logt_tensor_free(&n0), logt_tensor_free(&m0);
    cr_assert_eq(flashrnn_set_slstm_state(net, &z, &z), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_net_forward(net, &x, &h, NULL), LOGT_OK, "%s", logt_errmsg());
    logt_tensor_free(&wide);
    logt_net_destroy(net);

    /* forget_init has no gate to set in an elman */
    logt_model_cfg cfg;
    logt_model_cfg_init(&cfg, "flashrnn", LOGT_CPU, 3, D);
    snprintf(cfg.cell, sizeof cfg.cell, "elman");
    cr_assert_eq(logt_cfg_set_knob(&cfg, "forget_init", "1"), LOGT_OK);
    cr_assert_eq(logt_net_create(&cfg, &net), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "(cell 'elman') has no gate that keeps its state"), "%s", logt_errmsg());
    logt_tensor_free(&x), logt_tensor_free(&z), logt_tensor_free(&z2);
}
