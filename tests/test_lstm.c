/* test_lstm.c — the float64 CPU reference LSTM: a hand-worked step, and every
 * gradient of a two-layer stack with an initial state against central differences. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/rng.h"
#include "../models/model.h"
#include "check.h"
#include "gradcheck.h"

static double sig(double a) { return 1 / (1 + exp(-a)); }

Test(lstm_cpu, one_unit_two_steps_by_hand)
{
    /* D = 1, I = 1: W = [wi wf wg wo], R = [ri rf rg ro], b = [bi bf bg bo]. */
    logt_model_cfg cfg;
    logt_model_cfg_init(&cfg, "lstm", LOGT_CPU, 1, 1);
    logt_net *net;
    cr_assert_eq(logt_net_create(&cfg, &net), LOGT_OK);
    double p[12] = {0.5, -0.3, 0.8, 0.1, /* W */ 0.2, 0.4, -0.6, 0.9, /* R */ 0.0, 1.0, -0.1, 0.3 /* b */};
    memcpy(net->w.data, p, sizeof p);
    logt_tensor x;
    cr_assert_eq(logt_tensor_new3(&x, LOGT_CPU, LOGT_F64, 2, 1, 1), LOGT_OK);
    ((double *)x.data)[0] = 1.0, ((double *)x.data)[1] = -2.0;
    const logt_tensor *h;
    cr_assert_eq(logt_net_forward(net, &x, &h, NULL), LOGT_OK);
    /* step 0, h_prev = c_prev = 0 */
    double i0 = sig(0.5), f0 = sig(-0.3 + 1.0), g0 = tanh(0.8 - 0.1), o0 = sig(0.1 + 0.3);
    double c0 = i0 * g0, h0 = o0 * tanh(c0);
    (void)f0;
    /* step 1 */
    double i1 = sig(-1.0 + 0.2 * h0), f1 = sig(0.6 + 0.4 * h0 + 1.0);
    double g1 = tanh(-1.6 - 0.6 * h0 - 0.1), o1 = sig(-0.2 + 0.9 * h0 + 0.3);
    double c1 = f1 * c0 + i1 * g1, h1 = o1 * tanh(c1);
    cr_assert_float_eq(((double *)h->data)[0], h0, 1e-15);
    cr_assert_float_eq(((double *)h->data)[1], h1, 1e-15);
    logt_tensor_free(&x);
    logt_net_destroy(net);
}


/* Every gradient of a two-layer stack, from a given initial state or from zeros. */
static void gradcheck(int with_state)
{
    const int T = 6, B = 2, I = 3, D = 4, L = 2;
    logt_model_cfg cfg;
    logt_model_cfg_init(&cfg, "lstm", LOGT_CPU, I, D);
    cfg.layers = L;
    cfg.seed = 3;
    logt_net *net;
    cr_assert_eq(logt_net_create(&cfg, &net), LOGT_OK, "%s", logt_errmsg());
    logt_tensor x, dh, dx, h0, c0;
    logt_tensor_new3(&x, LOGT_CPU, LOGT_F64, T, B, I);
    logt_tensor_new3(&dh, LOGT_CPU, LOGT_F64, T, B, D);
    logt_tensor_new3(&dx, LOGT_CPU, LOGT_F64, T, B, I);
    logt_tensor_new3(&h0, LOGT_CPU, LOGT_F64, L, B, D);
    logt_tensor_new3(&c0, LOGT_CPU, LOGT_F64, L, B, D);
    fill(x.data, x.numel, 1), fill(dh.data, dh.numel, 2);
    fill(h0.data, h0.numel, 3), fill(c0.data, c0.numel, 4);
    if (with_state) cr_assert_eq(logt_net_set_state(net, &h0, &c0), LOGT_OK, "%s", logt_errmsg());

    loss_of(net, &x, dh.data);
    cr_assert_eq(logt_net_backward(net, &dh, &dx, NULL), LOGT_OK, "%s", logt_errmsg());

    struct { const char *what; double *p, *g; int64_t n; } groups[] = {
        {"parameters", net->w.data, net->dw.data, net->w.numel},
        {"x", x.data, dx.data, x.numel},
        {"h0", net->h0.data, net->dh0.data, net->h0.numel},
        {"c0", net->c0.data, net->dc0.data, net->c0.numel},
    };
    for (size_t k = 0; k < (with_state ? 4u : 2u); k++)
        expect_grad(net, &x, dh.data, "lstm", groups[k].what, groups[k].p, groups[k].g, groups[k].n);
    logt_tensor_free(&x), logt_tensor_free(&dh), logt_tensor_free(&dx);
    logt_tensor_free(&h0), logt_tensor_free(&c0);
    logt_net_destroy(net);
}

Test(lstm_cpu, gradients_match_finite_differences) { gradcheck(1); }
Test(lstm_cpu, gradients_from_zero_state_match_finite_differences) { gradcheck(0); }

Test(lstm_cpu, zero_state_equals_no_state)
{
    logt_model_cfg cfg;
    logt_model_cfg_init(&cfg, "lstm", LOGT_CPU, 2, 3);
    logt_net *net;
    cr_assert_eq(logt_net_create(&cfg, &net), LOGT_OK);
    logt_tensor x, z;
    logt_tensor_new3(&x, LOGT_CPU, LOGT_F64, 5, 2, 2);
    fill(x.data, x.numel, 7);
    const logt_tensor *h;
    cr_assert_eq(logt_net_forward(net, &x, &h, NULL), LOGT_OK);
    double a[30];
    memcpy(a, h->data, sizeof a);
    logt_tensor_new3(&z, LOGT_CPU, LOGT_F64, 1, 2, 3);
    logt_tensor_zero(&z);
    cr_assert_eq(logt_net_set_state(net, &z, &z), LOGT_OK);
    cr_assert_eq(logt_net_forward(net, &x, &h, NULL), LOGT_OK);
    cr_assert_eq(memcmp(a, h->data, sizeof a), 0);
    logt_tensor_free(&z);
    logt_tensor_new3(&z, LOGT_CPU, LOGT_F64, 1, 3, 3);   /* batch 3 != 2 */
    logt_tensor_zero(&z);
    cr_assert_eq(logt_net_set_state(net, &z, NULL), LOGT_OK);
    cr_assert_eq(logt_net_forward(net, &x, &h, NULL), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "initial state h0 has batch 3 but x has B = 2"), "%s", logt_errmsg());
    cr_assert_eq(logt_net_set_state(net, NULL, &z), LOGT_OK);   /* c0 alone, of the wrong batch */
    cr_assert_eq(logt_net_forward(net, &x, &h, NULL), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "initial state c0 has batch 3 but x has B = 2"), "%s", logt_errmsg());
    logt_tensor_free(&x), logt_tensor_free(&z);
    logt_net_destroy(net);
}
