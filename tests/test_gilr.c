/* test_gilr.c — gilr and gilr-lstm. The float64 CPU reference: a hand-worked case each, every
 * gradient of a two-layer stack against central differences, two layers equal to two chained
 * nets, and the configuration errors. CUDA (f32, bf16 and f16) against that reference on the same
 * parameters: h, every parameter slice's gradient, dx, dh0 and dc0 at awkward shapes; and
 * the CUDA scratch buffers reused across calls and shapes. GPU tests skip without a GPU. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/rng.h"
#include "../models/model.h"
#include "check.h"
#include "gpu.h"
#include "gradcheck.h"

static double sig(double a) { return 1 / (1 + exp(-a)); }

static logt_net *make_net(const char *model, int I, int D, int layers, uint64_t seed)
{
    logt_model_cfg cfg;
    logt_model_cfg_init(&cfg, model, LOGT_CPU, I, D);
    cfg.layers = layers;
    cfg.seed = seed;
    logt_net *net;
    cr_assert_eq(logt_net_create(&cfg, &net), LOGT_OK, "%s", logt_errmsg());
    return net;
}

Test(gilr_cpu, one_unit_two_steps_by_hand)
{
    /* D = 1, I = 1: W = [wg wi], b = [bg bi]; from h0 = 0.7 */
    logt_net *net = make_net("gilr", 1, 1, 1, 1);
    double p[4] = {0.5, -1.2, /* W */ 0.3, 0.1 /* b */};
    memcpy(net->w.data, p, sizeof p);
    logt_tensor x = tensor3(2, 1, 1, (double[]){1.0, -2.0}), s0 = tensor3(1, 1, 1, (double[]){0.7});
    cr_assert_eq(logt_net_set_state(net, &s0, NULL), LOGT_OK, "%s", logt_errmsg());
    const logt_tensor *h;
    cr_assert_eq(logt_net_forward(net, &x, &h, NULL), LOGT_OK, "%s", logt_errmsg());
    double g0 = sig(0.5 + 0.3), i0 = tanh(-1.2 + 0.1), h_0 = g0 * 0.7 + (1 - g0) * i0;
    double g1 = sig(-1.0 + 0.3), i1 = tanh(2.4 + 0.1), h_1 = g1 * h_0 + (1 - g1) * i1;
    cr_assert_float_eq(((double *)h->data)[0], h_0, 1e-15);
    cr_assert_float_eq(((double *)h->data)[1], h_1, 1e-15);
    logt_tensor_free(&x), logt_tensor_free(&s0);
    logt_net_destroy(net);
}

Test(gilr_lstm_cpu, one_unit_two_steps_by_hand)
{
    /* D = 1, I = 1: Ws = [vg vj], bs = [bg bj], W = [wi wf wz wo], U = [ui uf uz uo],
     * b = [bi bf bz bo]; from h̃_{-1} = 0.4 (h0) and c_{-1} = -0.6 (c0). */
    logt_net *net = make_net("gilr-lstm", 1, 1, 1, 1);
    double p[16] = {0.9, -0.7,           /* Ws */ 0.2, -0.1,           /* bs */
                    0.5, -0.3, 0.8, 0.1, /* W  */ 0.2, 0.4, -0.6, 0.9, /* U  */
                    0.0, 1.0, -0.1, 0.3 /* b */};
    memcpy(net->w.data, p, sizeof p);
    logt_tensor x = tensor3(2, 1, 1, (double[]){1.0, -2.0});
    logt_tensor hs0 = tensor3(1, 1, 1, (double[]){0.4}), c0 = tensor3(1, 1, 1, (double[]){-0.6});
    cr_assert_eq(logt_net_set_state(net, &hs0, &c0), LOGT_OK, "%s", logt_errmsg());
    const logt_tensor *h;
    cr_assert_eq(logt_net_forward(net, &x, &h, NULL), LOGT_OK, "%s", logt_errmsg());
    /* step 0: the gates read h̃_{-1} = 0.4 */
    double s = 0.4;
    double i0 = sig(0.5 + 0.2 * s), f0 = sig(-0.3 + 0.4 * s + 1.0);
    double z0 = tanh(0.8 - 0.6 * s - 0.1), o0 = sig(0.1 + 0.9 * s + 0.3);
    double c_0 = f0 * -0.6 + i0 * z0, h_0 = o0 * c_0;
    double g0 = sig(0.9 + 0.2), j0 = tanh(-0.7 - 0.1);
    s = g0 * s + (1 - g0) * j0;   /* h̃_0 */
    /* step 1: the gates read h̃_0 */
    double i1 = sig(-1.0 + 0.2 * s), f1 = sig(0.6 + 0.4 * s + 1.0);
    double z1 = tanh(-1.6 - 0.6 * s - 0.1), o1 = sig(-0.2 + 0.9 * s + 0.3);
    double c_1 = f1 * c_0 + i1 * z1, h_1 = o1 * c_1;
    cr_assert_float_eq(((double *)h->data)[0], h_0, 1e-15);
    cr_assert_float_eq(((double *)h->data)[1], h_1, 1e-15);
    logt_tensor_free(&x), logt_tensor_free(&hs0), logt_tensor_free(&c0);
    logt_net_destroy(net);
}


/* Every gradient of a two-layer stack, from a given initial state or from zeros. */
static void gradcheck(const char *model, int with_state)
{
    const int T = 6, B = 2, I = 3, D = 4, L = 2;
    logt_net *net = make_net(model, I, D, L, 3);
    const int nstate = net->ops->nstate;
    logt_tensor x = tensor3(T, B, I, NULL), dh = tensor3(T, B, D, NULL), dx = tensor3(T, B, I, NULL);
    logt_tensor h0 = tensor3(L, B, D, NULL), c0 = tensor3(L, B, D, NULL);
    fill(x.data, x.numel, 1), fill(dh.data, dh.numel, 2);
    fill(h0.data, h0.numel, 3), fill(c0.data, c0.numel, 4);
    if (with_state)
        cr_assert_eq(logt_net_set_state(net, &h0, nstate > 1 ? &c0 : NULL), LOGT_OK, "%s", logt_errmsg());

    loss_of(net, &x, dh.data);
    cr_assert_eq(logt_net_backward(net, &dh, &dx, NULL), LOGT_OK, "%s", logt_errmsg());

    struct { const char *what; double *p, *g; int64_t n; } groups[] = {
        {"parameters", net->w.data, net->dw.data, net->w.numel},
        {"x", x.data, dx.data, x.numel},
        {"h0", net->h0.data, net->dh0.data, net->h0.numel},
        {"c0", net->c0.data, net->dc0.data, net->c0.numel},
    };
    int ngroups = with_state ? 2 + nstate : 2;
    for (int k = 0; k < ngroups; k++)
        expect_grad(net, &x, dh.data, model, groups[k].what, groups[k].p, groups[k].g, groups[k].n);
    logt_tensor_free(&x), logt_tensor_free(&dh), logt_tensor_free(&dx);
    logt_tensor_free(&h0), logt_tensor_free(&c0);
    logt_net_destroy(net);
}

Test(gilr_cpu, gradients_match_finite_differences) { gradcheck("gilr", 1); }
Test(gilr_cpu, gradients_from_zero_state_match_finite_differences) { gradcheck("gilr", 0); }
Test(gilr_lstm_cpu, gradients_match_finite_differences) { gradcheck("gilr-lstm", 1); }
Test(gilr_lstm_cpu, gradients_from_zero_state_match_finite_differences) { gradcheck("gilr-lstm", 0); }

/* layers = 2 through logt_net is layer 0 then layer 1, each with its own weights and state. */
static void two_layers_chain(const char *model)
{
    const int T = 5, B = 3, I = 2, D = 4;
    logt_net *net = make_net(model, I, D, 2, 11);
    logt_net *first = make_net(model, I, D, 1, 1), *second = make_net(model, D, D, 1, 1);
    const int nstate = net->ops->nstate;
    int64_t n0 = net->layout[0].numel;
    cr_assert_eq(first->w.numel + second->w.numel, net->w.numel);
    memcpy(first->w.data, net->w.data, sizeof(double) * (size_t)n0);
    memcpy(second->w.data, (double *)net->w.data + n0, sizeof(double) * (size_t)second->w.numel);

    logt_tensor x = tensor3(T, B, I, NULL), h0 = tensor3(2, B, D, NULL), c0 = tensor3(2, B, D, NULL);
    fill(x.data, x.numel, 5), fill(h0.data, h0.numel, 6), fill(c0.data, c0.numel, 7);
    cr_assert_eq(logt_net_set_state(net, &h0, nstate > 1 ? &c0 : NULL), LOGT_OK, "%s", logt_errmsg());
    for (int l = 0; l < 2; l++) {
        int64_t shape[3] = {1, B, D};
        logt_tensor hl = logt_tensor_view(&h0, l * B * D, 3, shape);
        logt_tensor cl = logt_tensor_view(&c0, l * B * D, 3, shape);
        cr_assert_eq(logt_net_set_state(l ? second : first, &hl, nstate > 1 ? &cl : NULL), LOGT_OK);
    }
    const logt_tensor *h, *h1, *h2;
    cr_assert_eq(logt_net_forward(net, &x, &h, NULL), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_net_forward(first, &x, &h1, NULL), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_net_forward(second, h1, &h2, NULL), LOGT_OK, "%s", logt_errmsg());
    cr_assert(!memcmp(h->data, h2->data, sizeof(double) * (size_t)h->numel),
              "%s: two layers differ from two nets", model);
    logt_tensor_free(&x), logt_tensor_free(&h0), logt_tensor_free(&c0);
    logt_net_destroy(net), logt_net_destroy(first), logt_net_destroy(second);
}

Test(gilr_cpu, two_layers_are_two_chained_layers) { two_layers_chain("gilr"); }
Test(gilr_lstm_cpu, two_layers_are_two_chained_layers) { two_layers_chain("gilr-lstm"); }

static void zero_state_is_no_state(const char *model)
{
    logt_net *net = make_net(model, 2, 3, 1, 1);
    logt_tensor x = tensor3(5, 2, 2, NULL), z = tensor3(1, 2, 3, NULL);
    fill(x.data, x.numel, 7);
    logt_tensor_zero(&z);
    const logt_tensor *h;
    cr_assert_eq(logt_net_forward(net, &x, &h, NULL), LOGT_OK);
    double a[30];
    memcpy(a, h->data, sizeof a);
    cr_assert_eq(logt_net_set_state(net, &z, net->ops->nstate > 1 ? &z : NULL), LOGT_OK);
    cr_assert_eq(logt_net_forward(net, &x, &h, NULL), LOGT_OK);
    cr_assert(!memcmp(a, h->data, sizeof a), "%s: a zero initial state changed the output", model);
    logt_tensor_free(&x), logt_tensor_free(&z);
    logt_net_destroy(net);
}

Test(gilr_cpu, zero_state_equals_no_state) { zero_state_is_no_state("gilr"); }
Test(gilr_lstm_cpu, zero_state_equals_no_state) { zero_state_is_no_state("gilr-lstm"); }

static void expect_cfg_error(logt_model_cfg *cfg, logt_status want, const char *msg)
{
    logt_net *net = NULL;
    logt_errclear();
    cr_assert_eq(logt_net_create(cfg, &net), want, "%s: %s", cfg->model, logt_errmsg());
    cr_assert_null(net);
    cr_assert(strstr(logt_errmsg(), msg), "%s: got '%s', want '%s'", cfg->model, logt_errmsg(), msg);
}

Test(gilr_cpu, bad_configurations_say_what_is_wrong)
{
    const char *models[] = {"gilr", "gilr-lstm"};
    for (int i = 0; i < 2; i++) {
        logt_model_cfg cfg;
        logt_model_cfg_init(&cfg, models[i], LOGT_CPU, 3, 4);
        cfg.dtype = LOGT_F32;
        expect_cfg_error(&cfg, LOGT_EUNSUPPORTED, "on cpu computes in f64, not f32: set dtype = f64");
        logt_model_cfg_init(&cfg, models[i], LOGT_CPU, 3, 4);
        cfg.head_dim = 2;
        expect_cfg_error(&cfg, LOGT_EINVAL, "head_dim must be 0 or D = 4, not 2");
        logt_model_cfg_init(&cfg, models[i], LOGT_CUDA, 3, 4);
#ifdef LOGT_HAVE_CUDA
        cfg.dtype = LOGT_F64;   /* refused by the layout, before any device memory is touched */
        expect_cfg_error(&cfg, LOGT_EUNSUPPORTED, "on cuda takes f32, bf16 or f16 activations, not f64: "
                                                  "set dtype = f32, bf16 or f16");
#else
        expect_cfg_error(&cfg, LOGT_EUNSUPPORTED, "this build of logt has no cuda backend");
#endif

        logt_model_cfg_init(&cfg, models[i], LOGT_CPU, 3, 4);
        cr_assert_eq(logt_cfg_set_knob(&cfg, "scan", "fast"), LOGT_OK);
        expect_cfg_error(&cfg, LOGT_EINVAL, "scan = fast: the valid values are parallel");
        logt_model_cfg_init(&cfg, models[i], LOGT_CPU, 3, 4);
        cfg.head_dim = 4;   /* D itself is fine */
        logt_net *net;
        cr_assert_eq(logt_net_create(&cfg, &net), LOGT_OK, "%s", logt_errmsg());
        logt_net_destroy(net);
    }
    /* gilr has h only: a cell state is refused */
    logt_net *net = make_net("gilr", 2, 3, 1, 1);
    logt_tensor z = tensor3(1, 2, 3, NULL);
    logt_tensor_zero(&z);
    cr_assert_eq(logt_net_set_state(net, NULL, &z), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "model gilr has no cell state c0"), "%s", logt_errmsg());
    logt_tensor_free(&z);
    logt_net_destroy(net);
}

Test(gilr_cpu, registered_with_their_layouts)
{
    const logt_model_ops *g = logt_model_find("gilr"), *gl = logt_model_find("gilr-lstm");
    cr_assert(g && gl);
    cr_assert_eq(g->nstate, 1);
    cr_assert_eq(gl->nstate, 2);
    const unsigned devices = LOGT_BIT(LOGT_CPU) | LOGT_BIT(LOGT_CUDA);   /* declared; built or not */
    cr_assert_eq(g->devices, devices);
    cr_assert_eq(gl->devices, devices);
    logt_net *net = make_net("gilr", 3, 4, 1, 1);   /* W [2D][I], b [2D] */
    cr_assert_eq(net->w.numel, 2 * 4 * 3 + 2 * 4);
    logt_net_destroy(net);
    net = make_net("gilr-lstm", 3, 4, 1, 1);        /* Ws [2D][I], bs [2D], W [4D][I], U [4D][D], b [4D] */
    cr_assert_eq(net->w.numel, 2 * 4 * 3 + 2 * 4 + 4 * 4 * 3 + 4 * 4 * 4 + 4 * 4);
    logt_net_destroy(net);
}

/* ---- CUDA against the f64 CPU reference ---------------------------------------------------- */

typedef struct gcase {
    int T, B, I, D, L;
    int state;     /* 1: random h0 (and c0), and their gradients are compared */
    int want_dx;   /* 0: backward with dx = NULL */
} gcase;

/* T = 1, 33, 1000; B odd; D not a multiple of 32; I below and above D; one and two layers.
 * {2100, 4, 3, 20}: T·B = 8400 rows, enough for the weight gradients' sums to be cut into
 * chunks (logt_gemm_f32_tn_long), U's D × D included.
 * {2, 131, 3, 259}: C = B·D = 33929 channels, past the scan's channel-parallel threshold
 * (256 per SM: 33792 on an H200's 132 SMs), so both of its routes are used. */
static const gcase gcases[] = {
    {1, 1, 3, 5, 2, 1, 1},    {1, 3, 7, 33, 2, 0, 1},   {33, 5, 4, 37, 2, 1, 0},
    {33, 3, 40, 33, 1, 0, 1}, {2, 131, 3, 259, 1, 1, 1}, {1000, 7, 6, 45, 2, 1, 1},
    {1000, 3, 5, 70, 2, 0, 1}, {2100, 4, 3, 20, 1, 1, 1},
};

typedef struct gproblem {
    double *x, *dh, *h0, *c0;   /* [T][B][I], [T][B][D], [L][B][D], [L][B][D] */
} gproblem;

typedef struct goutcome {
    double *h, *dw, *dx, *dh0, *dc0;
    int64_t nw;
    int nslices;
    char slice[2 * LOGT_MAX_SLICES][40];
    int64_t slice_off[2 * LOGT_MAX_SLICES], slice_len[2 * LOGT_MAX_SLICES];
    char impl[160];
} goutcome;

/* Uniform in [-scale, scale]; rounded to a 16-bit dt (round_to: f32 and f64 are left alone),
 * so that the reference and the 16-bit model see the very same inputs. */
static double *gvalues(int64_t n, uint64_t stream, double scale, logt_dtype dt)
{
    double *p = malloc((size_t)(n ? n : 1) * sizeof *p);
    cr_assert(p, "out of host memory");
    for (int64_t i = 0; i < n; i++) {
        p[i] = scale * (2 * logt_uniform(77, stream, (uint64_t)i) - 1);
        if (dt == LOGT_BF16 || dt == LOGT_F16) p[i] = round_to(dt, p[i]);
    }
    return p;
}

static gproblem gproblem_make(const gcase *c, logt_dtype dt)
{
    int64_t nx = (int64_t)c->T * c->B * c->I, nh = (int64_t)c->T * c->B * c->D;
    int64_t ns = (int64_t)c->L * c->B * c->D;
    gproblem p = {gvalues(nx, 1, 1.0, dt), gvalues(nh, 2, 1.0, dt), gvalues(ns, 3, 0.5, dt),
                  gvalues(ns, 4, 0.5, dt)};
    return p;
}

static void gproblem_free(gproblem *p) { free(p->x), free(p->dh), free(p->h0), free(p->c0); }

static void goutcome_free(goutcome *o)
{
    free(o->h), free(o->dw), free(o->dx), free(o->dh0), free(o->dc0);
    memset(o, 0, sizeof *o);
}



/* One forward and backward of `net` on case c; results into o (host, f64). */
static void gpass(logt_net *net, logt_ctx *ctx, const gcase *c, const gproblem *p, goutcome *o)
{
    const logt_model_cfg *cfg = &net->cfg;
    memset(o, 0, sizeof *o);
    if (c->state) {
        logt_tensor h0 = tensor3(c->L, c->B, c->D, p->h0), c0 = tensor3(c->L, c->B, c->D, p->c0);
        cr_assert_eq(logt_net_set_state(net, &h0, net->ops->nstate > 1 ? &c0 : NULL), LOGT_OK,
                     "%s", logt_errmsg());
        logt_tensor_free(&h0), logt_tensor_free(&c0);
    } else
        cr_assert_eq(logt_net_set_state(net, NULL, NULL), LOGT_OK, "%s", logt_errmsg());
    logt_tensor x = cfg_tensor3(cfg, c->T, c->B, c->I, p->x);
    logt_tensor dh = cfg_tensor3(cfg, c->T, c->B, c->D, p->dh);
    logt_tensor dx = cfg_tensor3(cfg, c->T, c->B, c->I, NULL);
    const logt_tensor *h;
    cr_assert_eq(logt_net_forward(net, &x, &h, ctx), LOGT_OK, "%s forward: %s", cfg->model, logt_errmsg());
    cr_assert_eq(logt_net_backward(net, &dh, c->want_dx ? &dx : NULL, ctx), LOGT_OK,
                 "%s backward: %s", cfg->model, logt_errmsg());
    if (ctx) cr_assert_eq(logt_ctx_sync(ctx), LOGT_OK, "%s: %s", cfg->model, logt_errmsg());
    o->h = host_copy(h);
    o->dw = host_copy(&net->dw);
    o->nw = net->dw.numel;
    if (c->want_dx) o->dx = host_copy(&dx);
    if (c->state) {
        o->dh0 = host_copy(&net->dh0);
        if (net->ops->nstate > 1) o->dc0 = host_copy(&net->dc0);
    }
    o->nslices = logt_net_nslices(net);
    cr_assert(o->nslices <= 2 * LOGT_MAX_SLICES);
    for (int i = 0; i < o->nslices; i++)
        logt_net_slice(net, i, o->slice[i], sizeof o->slice[i], &o->slice_off[i], &o->slice_len[i]);
    snprintf(o->impl, sizeof o->impl, "%s", net->layer[0]->impl);
    logt_tensor_free(&x), logt_tensor_free(&dh), logt_tensor_free(&dx);
}

static logt_net *gnet(const char *model, logt_device dev, logt_dtype dt, const gcase *c)
{
    logt_model_cfg cfg;
    logt_model_cfg_init(&cfg, model, dev, c->I, c->D);
    cfg.dtype = dt;
    cfg.layers = c->L;
    cfg.seed = 5;
    logt_net *net;
    cr_assert_eq(logt_net_create(&cfg, &net), LOGT_OK, "%s: %s", model, logt_errmsg());
    return net;
}

/* max|x - ref| / max|ref| (the project's acceptance measure); NaN anywhere gives NaN. */
static double rel_err(const double *x, const double *ref, int64_t n)
{
    double d = 0, s = 0;
    for (int64_t i = 0; i < n; i++) {
        double e = fabs(x[i] - ref[i]);
        if (!(e <= d)) d = e;
        if (fabs(ref[i]) > s) s = fabs(ref[i]);
    }
    return s > 0 ? d / s : d;
}

static void expect_rel(const char *label, const char *what, const double *x, const double *ref,
                       int64_t n, double bound)
{
    double e = rel_err(x, ref, n);
    cr_expect(e <= bound, "%s: %s: max|cuda - ref| / max|ref| = %.3g, bound %.0e", label, what, e,
              bound);
}

/* Everything of got against ref: h within fwd, every gradient within grad. */
static void expect_outcome(const char *label, const gcase *c, const goutcome *got,
                           const goutcome *ref, double fwd, double grad)
{
    int64_t nh = (int64_t)c->T * c->B * c->D, nx = (int64_t)c->T * c->B * c->I;
    int64_t ns = (int64_t)c->L * c->B * c->D;
    cr_assert_eq(got->nw, ref->nw, "%s: %lld vs %lld parameters", label, (long long)got->nw,
                 (long long)ref->nw);
    expect_rel(label, "h", got->h, ref->h, nh, fwd);
    for (int i = 0; i < ref->nslices; i++) {
        char what[64];
        snprintf(what, sizeof what, "d%s", ref->slice[i]);
        expect_rel(label, what, got->dw + ref->slice_off[i], ref->dw + ref->slice_off[i],
                   ref->slice_len[i], grad);
    }
    if (c->want_dx) expect_rel(label, "dx", got->dx, ref->dx, nx, grad);
    if (c->state) expect_rel(label, "dh0", got->dh0, ref->dh0, ns, grad);
    if (c->state && ref->dc0) expect_rel(label, "dc0", got->dc0, ref->dc0, ns, grad);
}

static void cuda_vs_cpu(const char *model, logt_dtype dt, double fwd, double grad)
{
    logt_ctx *ctx;
    cr_assert_eq(logt_ctx_create(LOGT_CUDA, &ctx), LOGT_OK, "%s", logt_errmsg());
    for (size_t k = 0; k < sizeof gcases / sizeof gcases[0]; k++) {
        const gcase *c = &gcases[k];
        gproblem p = gproblem_make(c, dt);
        logt_net *cpu = gnet(model, LOGT_CPU, LOGT_F64, c), *gpu = gnet(model, LOGT_CUDA, dt, c);
        goutcome ref, got;
        gpass(cpu, NULL, c, &p, &ref);
        gpass(gpu, ctx, c, &p, &got);
        char label[160];
        snprintf(label, sizeof label, "%s %s T=%d B=%d I=%d D=%d layers=%d %s%s", model,
                 logt_dtype_name(dt), c->T, c->B, c->I, c->D, c->L,
                 c->state ? "with initial state" : "zero state", c->want_dx ? "" : ", dx = NULL");
        cr_expect(strstr(got.impl, "cuda") && strstr(got.impl, logt_dtype_name(dt)),
                  "%s: impl '%s' should say cuda and the dtype", label, got.impl);
        expect_outcome(label, c, &got, &ref, fwd, grad);
        goutcome_free(&ref), goutcome_free(&got);
        logt_net_destroy(cpu), logt_net_destroy(gpu);
        gproblem_free(&p);
    }
    logt_ctx_destroy(ctx);
}

/* f32 against f64: h within a few f32 roundings (the scans contract, so the error does not
 * grow with T); gradients sum over T·B rows in the weight GEMMs and the column sums, so
 * they get 10x more room. */
#define F32_FWD 1e-5
#define F32_GRAD 1e-4
/* bf16 x, h, dh, dx and states: the inputs are rounded to bf16 for the reference too, so what
 * is left is the rounding (2^-9 ≈ 2e-3 relative) of each layer's h and of the gradients
 * passed between layers and out; everything inside is f32. A wrong index or a missing term
 * gives errors of order 1. */
#define BF16_FWD 1e-2
#define BF16_GRAD 3e-2
/* f16 the same way: an 11-bit significand rounds at 2^-11 ≈ 4.9e-4 relative, a quarter of
 * bf16's, so a quarter of its bounds (the margins over one rounding stay 5x and 15x). The
 * values here (|x|, |dh| <= 1, states <= 0.5) and their sums stay far inside f16's range. */
#define F16_FWD 2.5e-3
#define F16_GRAD 7.5e-3

Test(gilr_cuda, matches_cpu_reference_f32)
{
    SKIP_WITHOUT_GPU("gilr on cuda vs the f64 CPU reference");
    cuda_vs_cpu("gilr", LOGT_F32, F32_FWD, F32_GRAD);
}

Test(gilr_lstm_cuda, matches_cpu_reference_f32)
{
    SKIP_WITHOUT_GPU("gilr-lstm on cuda vs the f64 CPU reference");
    cuda_vs_cpu("gilr-lstm", LOGT_F32, F32_FWD, F32_GRAD);
}

Test(gilr_cuda, bf16_matches_cpu_reference)
{
    SKIP_WITHOUT_GPU("gilr on cuda in bf16 vs the f64 CPU reference");
    cuda_vs_cpu("gilr", LOGT_BF16, BF16_FWD, BF16_GRAD);
}

Test(gilr_lstm_cuda, bf16_matches_cpu_reference)
{
    SKIP_WITHOUT_GPU("gilr-lstm on cuda in bf16 vs the f64 CPU reference");
    cuda_vs_cpu("gilr-lstm", LOGT_BF16, BF16_FWD, BF16_GRAD);
}

Test(gilr_cuda, f16_matches_cpu_reference)
{
    SKIP_WITHOUT_GPU("gilr on cuda in f16 vs the f64 CPU reference");
    cuda_vs_cpu("gilr", LOGT_F16, F16_FWD, F16_GRAD);
}

Test(gilr_lstm_cuda, f16_matches_cpu_reference)
{
    SKIP_WITHOUT_GPU("gilr-lstm on cuda in f16 vs the f64 CPU reference");
    cuda_vs_cpu("gilr-lstm", LOGT_F16, F16_FWD, F16_GRAD);
}

/* The scratch buffers are kept between calls and regrown when the shape changes: one net
 * running shape a, then b, then a again must give what fresh nets give, and its backward
 * must not have consumed the forward's activations (a second backward repeats the first). */
static void scratch_reuse(const char *model, logt_dtype dt)
{
    const gcase a = {40, 3, 5, 37, 2, 1, 1}, b = {7, 9, 5, 37, 2, 0, 1};
    logt_ctx *ctx;
    cr_assert_eq(logt_ctx_create(LOGT_CUDA, &ctx), LOGT_OK, "%s", logt_errmsg());
    gproblem pa = gproblem_make(&a, LOGT_F64), pb = gproblem_make(&b, LOGT_F64);
    logt_net *net = gnet(model, LOGT_CUDA, dt, &a);
    goutcome fa, fb, ra, rb, again;
    logt_net *fresh = gnet(model, LOGT_CUDA, dt, &a);
    gpass(fresh, ctx, &a, &pa, &fa);
    logt_net_destroy(fresh);
    fresh = gnet(model, LOGT_CUDA, dt, &b);
    gpass(fresh, ctx, &b, &pb, &fb);
    logt_net_destroy(fresh);

    gpass(net, ctx, &a, &pa, &ra);
    gpass(net, ctx, &b, &pb, &rb);
    goutcome_free(&ra);
    gpass(net, ctx, &a, &pa, &ra);
    /* a second backward from the same forward: x must outlive both (the model keeps a view
     * of it, model.h), so this forward has its own, and the state of gpass is still set */
    logt_tensor x = cfg_tensor3(&net->cfg, a.T, a.B, a.I, pa.x);
    logt_tensor dh = cfg_tensor3(&net->cfg, a.T, a.B, a.D, pa.dh);
    const logt_tensor *h;
    cr_assert_eq(logt_net_forward(net, &x, &h, ctx), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_net_backward(net, &dh, NULL, ctx), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_net_backward(net, &dh, NULL, ctx), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_ctx_sync(ctx), LOGT_OK, "%s", logt_errmsg());
    again.dw = host_copy(&net->dw);
    logt_tensor_free(&x);

    char label[96];
    snprintf(label, sizeof label, "%s %s, one net over shapes a, b, a", model, logt_dtype_name(dt));
    /* the same GEMMs on the same data: only the scan's order of combination may differ */
    expect_outcome(label, &a, &ra, &fa, 1e-6, 1e-6);
    expect_outcome(label, &b, &rb, &fb, 1e-6, 1e-6);
    expect_rel(label, "dw of a second backward", again.dw, ra.dw, ra.nw, 1e-6);
    free(again.dw);
    logt_tensor_free(&dh);
    goutcome_free(&fa), goutcome_free(&fb), goutcome_free(&ra), goutcome_free(&rb);
    gproblem_free(&pa), gproblem_free(&pb);
    logt_net_destroy(net);
    logt_ctx_destroy(ctx);
}

/* scan = serial (Martin & Cundy's baseline kernel, forward and backward) computes what the
 * parallel scan computes: the same recurrences, added up in another order (the look-back
 * route composes tile maps), so they agree to a few f32 roundings. C = B·D = 135 channels
 * takes the look-back route, T = 1000 several tiles. */
static void serial_equals_parallel(const char *model)
{
    const gcase c = {1000, 3, 5, 45, 2, 1, 1};
    logt_ctx *ctx;
    cr_assert_eq(logt_ctx_create(LOGT_CUDA, &ctx), LOGT_OK, "%s", logt_errmsg());
    gproblem p = gproblem_make(&c, LOGT_F64);
    goutcome par, ser;
    logt_net *net = gnet(model, LOGT_CUDA, LOGT_F32, &c);
    gpass(net, ctx, &c, &p, &par);
    logt_net_destroy(net);
    logt_model_cfg cfg;
    logt_model_cfg_init(&cfg, model, LOGT_CUDA, c.I, c.D);
    cfg.dtype = LOGT_F32, cfg.layers = c.L, cfg.seed = 5;
    cr_assert_eq(logt_cfg_set_knob(&cfg, "scan", "serial"), LOGT_OK);
    cr_assert_eq(logt_net_create(&cfg, &net), LOGT_OK, "%s", logt_errmsg());
    gpass(net, ctx, &c, &p, &ser);
    cr_assert(strstr(ser.impl, "scan = serial"), "%s", ser.impl);
    char label[64];
    snprintf(label, sizeof label, "%s scan = serial vs parallel", model);
    expect_outcome(label, &c, &ser, &par, 1e-5, 1e-5);
    goutcome_free(&par), goutcome_free(&ser);
    gproblem_free(&p);
    logt_net_destroy(net);
    logt_ctx_destroy(ctx);
}

Test(gilr_cuda, serial_scan_equals_parallel)
{
    SKIP_WITHOUT_GPU("gilr with scan = serial");
    serial_equals_parallel("gilr");
}

Test(gilr_lstm_cuda, serial_scan_equals_parallel)
{
    SKIP_WITHOUT_GPU("gilr-lstm with scan = serial");
    serial_equals_parallel("gilr-lstm");
}

Test(gilr_cuda, scratch_reused_across_calls_and_shapes)
{
    SKIP_WITHOUT_GPU("gilr's CUDA scratch buffers");
    scratch_reuse("gilr", LOGT_F32);
    scratch_reuse("gilr", LOGT_BF16);
    scratch_reuse("gilr", LOGT_F16);
}

Test(gilr_lstm_cuda, scratch_reused_across_calls_and_shapes)
{
    SKIP_WITHOUT_GPU("gilr-lstm's CUDA scratch buffers");
    scratch_reuse("gilr-lstm", LOGT_F32);
    scratch_reuse("gilr-lstm", LOGT_BF16);
    scratch_reuse("gilr-lstm", LOGT_F16);
}
