/* test_sru.c — the float64 CPU sru: a hand-worked case, every gradient of a two-layer stack
 * against central differences (v on and zero, I == D and I != D, highway scale on and off),
 * the v = 0 scan route against the element-wise loop, and the configuration errors. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/rng.h"
#include "../models/model.h"
#include "check.h"
#include "gradcheck.h"

static double sig(double a) { return 1 / (1 + exp(-a)); }

/* knobs: "key=val,key=val" or NULL */
static logt_status try_net(const char *knobs, int I, int D, int layers, logt_net **net)
{
    logt_model_cfg cfg;
    logt_model_cfg_init(&cfg, "sru", LOGT_CPU, I, D);
    cfg.layers = layers;
    cfg.seed = 3;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", knobs ? knobs : "");
    for (char *kv = strtok(buf, ","); kv; kv = strtok(NULL, ",")) {
        char *eq = strchr(kv, '=');
        cr_assert(eq);
        *eq = '\0';
        cr_assert_eq(logt_cfg_set_knob(&cfg, kv, eq + 1), LOGT_OK);
    }
    *net = NULL;
    return logt_net_create(&cfg, net);
}

static logt_net *make_net(const char *knobs, int I, int D, int layers)
{
    logt_net *net;
    cr_assert_eq(try_net(knobs, I, D, layers, &net), LOGT_OK, "%s", logt_errmsg());
    return net;
}

Test(sru_cpu, one_unit_two_steps_by_hand)
{
    /* D = I = 1: W = [w wf wr], v = [vf vr], b = [bf br]; from c_{-1} = 0.7 (the h0 slot);
     * highway scale 2 so that α shows */
    logt_net *net = make_net("highway_scale=2", 1, 1, 1);
    double p[7] = {0.5, -1.2, 0.8, /* W */ 0.4, -0.9, /* v */ 0.3, 0.1 /* b */};
    cr_assert_eq(net->w.numel, 7);
    memcpy(net->w.data, p, sizeof p);
    logt_tensor x = tensor3(2, 1, 1, (double[]){1.0, -2.0}), s0 = tensor3(1, 1, 1, (double[]){0.7});
    cr_assert_eq(logt_net_set_state(net, &s0, NULL), LOGT_OK, "%s", logt_errmsg());
    const logt_tensor *h;
    cr_assert_eq(logt_net_forward(net, &x, &h, NULL), LOGT_OK, "%s", logt_errmsg());
    double c = 0.7, out[2], xs[2] = {1.0, -2.0};
    for (int t = 0; t < 2; t++) {
        double f = sig(-1.2 * xs[t] + 0.4 * c + 0.3), r = sig(0.8 * xs[t] - 0.9 * c + 0.1);
        c = f * c + (1 - f) * 0.5 * xs[t];
        out[t] = r * c + (1 - r) * 2 * xs[t];
    }
    /* step 0 by hand: f = σ(-1.2 + 0.28 + 0.3) = σ(-0.62), r = σ(0.8 - 0.63 + 0.1) = σ(0.27) */
    double f0 = sig(-0.62), r0 = sig(0.27), c_0 = f0 * 0.7 + (1 - f0) * 0.5;
    cr_assert_float_eq(out[0], r0 * c_0 + (1 - r0) * 2.0, 1e-15);
    cr_assert_float_eq(((double *)h->data)[0], out[0], 1e-15);
    cr_assert_float_eq(((double *)h->data)[1], out[1], 1e-15);
    logt_tensor_free(&x), logt_tensor_free(&s0);
    logt_net_destroy(net);
}

Test(sru_cpu, projection_when_input_and_hidden_differ)
{
    /* I = 2, D = 1: W [3][2], Wp [1][2], v [2], b [2]; no initial state */
    logt_net *net = make_net("highway_scale=sqrt3", 2, 1, 1);
    double p[12] = {0.5, 0.2, -1.2, 0.3, 0.8, -0.4, /* W */ 0.6, -0.7, /* Wp */
                    0.4, -0.9, /* v */ 0.3, 0.1 /* b */};
    cr_assert_eq(net->w.numel, 12);
    memcpy(net->w.data, p, sizeof p);
    logt_tensor x = tensor3(1, 1, 2, (double[]){1.0, -2.0});
    const logt_tensor *h;
    cr_assert_eq(logt_net_forward(net, &x, &h, NULL), LOGT_OK, "%s", logt_errmsg());
    double z = 0.5 - 0.4, f = sig(-1.2 - 0.6 + 0.3), r = sig(0.8 + 0.8 + 0.1), xp = 0.6 + 1.4;
    double c = (1 - f) * z;   /* c_{-1} = 0 */
    cr_assert_float_eq(((double *)h->data)[0], r * c + (1 - r) * sqrt(3.0) * xp, 1e-15);
    logt_tensor_free(&x);
    logt_net_destroy(net);
}

/* Every gradient of a two-layer stack: layer 0 maps I to D, layer 1 D to D. */
static void gradcheck(const char *knobs, int I, int with_state)
{
    const int T = 5, B = 2, D = 3, L = 2;
    logt_net *net = make_net(knobs, I, D, L);
    logt_tensor x = tensor3(T, B, I, NULL), dh = tensor3(T, B, D, NULL), dx = tensor3(T, B, I, NULL);
    logt_tensor c0 = tensor3(L, B, D, NULL);
    fill(x.data, x.numel, 1), fill(dh.data, dh.numel, 2), fill(c0.data, c0.numel, 3);
    if (with_state) cr_assert_eq(logt_net_set_state(net, &c0, NULL), LOGT_OK, "%s", logt_errmsg());

    loss_of(net, &x, dh.data);
    cr_assert_eq(logt_net_backward(net, &dh, &dx, NULL), LOGT_OK, "%s", logt_errmsg());

    struct { const char *what; double *p, *g; int64_t n; } groups[] = {
        {"parameters", net->w.data, net->dw.data, net->w.numel},
        {"x", x.data, dx.data, x.numel},
        {"c0 (the h0 slot)", net->h0.data, net->dh0.data, net->h0.numel},
    };
    char label[128];
    snprintf(label, sizeof label, "sru [%s] I=%d", knobs ? knobs : "", I);
    for (int k = 0; k < (with_state ? 3 : 2); k++)
        expect_grad(net, &x, dh.data, label, groups[k].what, groups[k].p, groups[k].g, groups[k].n);
    logt_tensor_free(&x), logt_tensor_free(&dh), logt_tensor_free(&dx), logt_tensor_free(&c0);
    logt_net_destroy(net);
}

Test(sru_cpu, gradients_v_on)                      { gradcheck(NULL, 3, 1); }
Test(sru_cpu, gradients_v_on_from_zero_state)      { gradcheck(NULL, 3, 0); gradcheck(NULL, 2, 0); }
Test(sru_cpu, gradients_v_on_projection)           { gradcheck(NULL, 2, 1); }
Test(sru_cpu, gradients_v_on_scaled)               { gradcheck("highway_scale=sqrt3", 3, 1); gradcheck("highway_scale=sqrt3", 2, 1); }
Test(sru_cpu, gradients_v_zero_scan)               { gradcheck("v=zero", 3, 1); gradcheck("v=zero", 2, 1); }
Test(sru_cpu, gradients_v_zero_scan_scaled)        { gradcheck("v=zero,highway_scale=sqrt3", 3, 1); gradcheck("v=zero,highway_scale=1.7", 2, 0); }
Test(sru_cpu, gradients_v_zero_loop)               { gradcheck("v=zero,route=loop", 3, 1); gradcheck("v=zero,route=loop,highway_scale=sqrt3", 2, 1); }

/* v = 0: the scan route and the element-wise loop. The forward is bit-exact: both compute
 * c_t = f_t·c_{t-1} + (1 − f_t)·z_t with the same operations in the same order (scan_cpu's
 * a·h + b with b = (1 − f)·z; no FMA contraction on the x86-64 baseline). The backward is
 * not: the scan's backward forms dL/df as g·c_{t-1} − g·z where the loop forms
 * g·(c_{t-1} − z), so the gradients agree to rounding, checked at 1e-13 relative. */
static void routes_agree(int I)
{
    const int T = 7, B = 3, D = 4, L = 2;
    logt_net *scan = make_net("v=zero", I, D, L), *loop = make_net("v=zero,route=loop", I, D, L);
    cr_assert_eq(scan->w.numel, loop->w.numel);
    cr_assert(strstr(scan->layer[0]->impl, "linear scan"), "%s", scan->layer[0]->impl);
    cr_assert(strstr(loop->layer[0]->impl, "step by step"), "%s", loop->layer[0]->impl);
    memcpy(loop->w.data, scan->w.data, sizeof(double) * (size_t)scan->w.numel);
    logt_tensor x = tensor3(T, B, I, NULL), dh = tensor3(T, B, D, NULL), c0 = tensor3(L, B, D, NULL);
    logt_tensor dx1 = tensor3(T, B, I, NULL), dx2 = tensor3(T, B, I, NULL);
    fill(x.data, x.numel, 4), fill(dh.data, dh.numel, 5), fill(c0.data, c0.numel, 6);
    cr_assert_eq(logt_net_set_state(scan, &c0, NULL), LOGT_OK);
    cr_assert_eq(logt_net_set_state(loop, &c0, NULL), LOGT_OK);
    const logt_tensor *h1, *h2;
    cr_assert_eq(logt_net_forward(scan, &x, &h1, NULL), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_net_forward(loop, &x, &h2, NULL), LOGT_OK, "%s", logt_errmsg());
    cr_assert(!memcmp(h1->data, h2->data, sizeof(double) * (size_t)h1->numel),
              "the scan route's h differs from the loop's: %s",
              check_close("h", h1->data, h2->data, h1->numel, 0, 0).msg);
    cr_assert_eq(logt_net_backward(scan, &dh, &dx1, NULL), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_net_backward(loop, &dh, &dx2, NULL), LOGT_OK, "%s", logt_errmsg());
    check_result r = check_close("dw", scan->dw.data, loop->dw.data, scan->dw.numel, 1e-15, 1e-13);
    cr_assert(r.ok, "%s", r.msg);
    r = check_close("dx", dx1.data, dx2.data, dx1.numel, 1e-15, 1e-13);
    cr_assert(r.ok, "%s", r.msg);
    r = check_close("dc0", scan->dh0.data, loop->dh0.data, scan->dh0.numel, 1e-15, 1e-13);
    cr_assert(r.ok, "%s", r.msg);
    logt_tensor_free(&x), logt_tensor_free(&dh), logt_tensor_free(&c0);
    logt_tensor_free(&dx1), logt_tensor_free(&dx2);
    logt_net_destroy(scan), logt_net_destroy(loop);
}

Test(sru_cpu, v_zero_scan_route_equals_loop) { routes_agree(4); routes_agree(3); }

static void expect_error(const char *knobs, int I, int D, logt_status want, const char *msg)
{
    logt_net *net;
    logt_errclear();
    cr_assert_eq(try_net(knobs, I, D, 1, &net), want, "[%s]: %s", knobs, logt_errmsg());
    cr_assert_null(net);
    cr_assert(strstr(logt_errmsg(), msg), "[%s]: got '%s', want '%s'", knobs, logt_errmsg(), msg);
}

Test(sru_cpu, bad_configurations_say_what_is_wrong)
{
    expect_error("v=off", 3, 4, LOGT_EINVAL, "v = 'off' is not a choice: use on");
    expect_error("v=off", 3, 4, LOGT_EINVAL, "or zero");
    expect_error("route=fast", 3, 4, LOGT_EINVAL, "route = 'fast' is not a route: choose auto, loop or scan");
    expect_error("route=scan", 3, 4, LOGT_EINVAL, "route = scan needs v = zero");
    expect_error("highway_scale=on", 3, 4, LOGT_EINVAL, "use off (1), sqrt3");
    expect_error("highway_scale=-1", 3, 4, LOGT_EINVAL, "or a positive number");
    expect_error("highway_scale=2x", 3, 4, LOGT_EINVAL, "highway_scale = '2x' is not a scale");
    expect_error("gamma=1", 3, 4, LOGT_EINVAL, "model sru has no setting 'gamma' (it takes: v, route, highway_scale)");

    logt_model_cfg cfg;
    logt_net *net = NULL;
    logt_model_cfg_init(&cfg, "sru", LOGT_CPU, 3, 4);
    cfg.dtype = LOGT_F32;
    cr_assert_eq(logt_net_create(&cfg, &net), LOGT_EUNSUPPORTED);
    cr_assert(strstr(logt_errmsg(), "on cpu computes in f64, not f32: set dtype = f64"), "%s", logt_errmsg());
    logt_model_cfg_init(&cfg, "sru", LOGT_CPU, 3, 4);
    cfg.head_dim = 2;
    cr_assert_eq(logt_net_create(&cfg, &net), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "head_dim must be 0 or D = 4, not 2"), "%s", logt_errmsg());
    logt_model_cfg_init(&cfg, "sru", LOGT_CUDA, 3, 4);
    cr_assert_eq(logt_net_create(&cfg, &net), LOGT_EUNSUPPORTED);
    cr_assert(strstr(logt_errmsg(), "(it runs on cpu only)"), "%s", logt_errmsg());

    /* the state is c, in the h0 slot: a separate c0 is refused */
    net = make_net(NULL, 2, 3, 1);
    logt_tensor z = tensor3(1, 2, 3, NULL);
    logt_tensor_zero(&z);
    cr_assert_eq(logt_net_set_state(net, NULL, &z), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "model sru has no cell state c0"), "%s", logt_errmsg());
    logt_tensor_free(&z);
    logt_net_destroy(net);
}

Test(sru_cpu, registered_with_its_layouts)
{
    const logt_model_ops *ops = logt_model_find("sru");
    cr_assert(ops);
    cr_assert_eq(ops->nstate, 1);
    struct { const char *knobs; int I; int64_t numel; } cases[] = {
        {NULL, 4, 3 * 4 * 4 + 2 * 4 + 2 * 4},               /* W, v, b        */
        {NULL, 3, 3 * 4 * 3 + 4 * 3 + 2 * 4 + 2 * 4},       /* W, Wp, v, b    */
        {"v=zero", 4, 3 * 4 * 4 + 2 * 4},                   /* W, b           */
        {"v=zero", 3, 3 * 4 * 3 + 4 * 3 + 2 * 4},           /* W, Wp, b       */
    };
    for (int i = 0; i < 4; i++) {
        logt_net *net = make_net(cases[i].knobs, cases[i].I, 4, 1);
        cr_assert_eq(net->w.numel, cases[i].numel, "case %d", i);
        const logt_slice *W = logt_layout_find(&net->layout[0], "W");
        const logt_slice *Wp = logt_layout_find(&net->layout[0], "Wp");
        cr_assert(W && W->offset == 0 && W->shape[0] == 12);
        cr_assert((cases[i].I != 4) == (Wp != NULL));
        if (Wp) cr_assert_eq(Wp->offset, W->numel, "[W; Wp] must be one matrix");
        cr_assert_eq(logt_layout_find(&net->layout[0], "v") != NULL, cases[i].knobs == NULL);
        logt_net_destroy(net);
    }
}
