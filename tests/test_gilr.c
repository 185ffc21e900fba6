/* test_gilr.c — the float64 CPU gilr and gilr-lstm: a hand-worked case each, every gradient of
 * a two-layer stack against central differences, two layers equal to two chained nets, and
 * the configuration errors. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/rng.h"
#include "../models/model.h"
#include "check.h"
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
        expect_cfg_error(&cfg, LOGT_EUNSUPPORTED, "does not run on the cuda backend (it runs on cpu only)");

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
    logt_net *net = make_net("gilr", 3, 4, 1, 1);   /* W [2D][I], b [2D] */
    cr_assert_eq(net->w.numel, 2 * 4 * 3 + 2 * 4);
    logt_net_destroy(net);
    net = make_net("gilr-lstm", 3, 4, 1, 1);        /* Ws [2D][I], bs [2D], W [4D][I], U [4D][D], b [4D] */
    cr_assert_eq(net->w.numel, 2 * 4 * 3 + 2 * 4 + 4 * 4 * 3 + 4 * 4 * 4 + 4 * 4);
    logt_net_destroy(net);
}
