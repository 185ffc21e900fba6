/* test_sru.c — the float64 CPU sru: a hand-worked case, every gradient of a two-layer stack
 * against central differences (v on and zero, I == D and I != D, highway scale on and off),
 * the v = 0 scan route against the element-wise loop, and the configuration errors.
 * Then the CUDA sru (suite sru_cuda) against that reference on the same parameters: f32,
 * bf16, f16 and math = tf32, each with its tolerance; the scan and loop routes against each other;
 * the bare recurrence kernel against a host loop. GPU tests skip themselves without a GPU. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/rng.h"
#include "../models/model.h"
#include "../models/sru/sru.h"
#include "check.h"
#include "gpu.h"
#include "gradcheck.h"

static double sig(double a) { return 1 / (1 + exp(-a)); }

/* knobs: "key=val,key=val" or NULL */
static logt_status try_net(const char *knobs, int I, int D, int layers, logt_net **net)
{
    logt_model_cfg cfg;
    logt_model_cfg_init(&cfg, "sru", LOGT_CPU, I, D);
    cfg.layers = layers;
    cfg.seed = 3;
    set_knobs(&cfg, knobs);
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

/* route = newton (v on): Newton over the sequence with the exact, diagonal Jacobian gives
 * the loop's c to 1e-12 and the same gradients; quadratic convergence: few iterations. */
static void newton_agrees(int I, double vscale)
{
    const int T = 300, B = 3, D = 4, L = 1;
    logt_net *nw = make_net("route=newton", I, D, L), *loop = make_net("route=loop", I, D, L);
    cr_assert(strstr(nw->layer[0]->impl, "Newton"), "%s", nw->layer[0]->impl);
    const logt_slice *vs = logt_layout_find(&nw->layout[0], "v");
    cr_assert(vs);
    for (int64_t i = 0; i < vs->numel; i++) ((double *)nw->w.data)[vs->offset + i] *= vscale;
    memcpy(loop->w.data, nw->w.data, sizeof(double) * (size_t)nw->w.numel);
    logt_tensor x = tensor3(T, B, I, NULL), dh = tensor3(T, B, D, NULL), c0 = tensor3(L, B, D, NULL);
    logt_tensor dx1 = tensor3(T, B, I, NULL), dx2 = tensor3(T, B, I, NULL);
    fill(x.data, x.numel, 7), fill(dh.data, dh.numel, 8), fill(c0.data, c0.numel, 9);
    cr_assert_eq(logt_net_set_state(nw, &c0, NULL), LOGT_OK);
    cr_assert_eq(logt_net_set_state(loop, &c0, NULL), LOGT_OK);
    const logt_tensor *h1, *h2;
    cr_assert_eq(logt_net_forward(nw, &x, &h1, NULL), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_net_forward(loop, &x, &h2, NULL), LOGT_OK, "%s", logt_errmsg());
    const sru_model *m = (const sru_model *)nw->layer[0];
    cr_assert(m->iterations >= 1 && m->iterations <= 12, "%d Newton iterations (v x %g)",
              m->iterations, vscale);
    check_result r = check_close("h", h1->data, h2->data, h1->numel, 1e-11, 0);
    cr_assert(r.ok, "v x %g: %s", vscale, r.msg);
    cr_assert_eq(logt_net_backward(nw, &dh, &dx1, NULL), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_net_backward(loop, &dh, &dx2, NULL), LOGT_OK, "%s", logt_errmsg());
    r = check_close("dw", nw->dw.data, loop->dw.data, nw->dw.numel, 1e-9, 1e-9);
    cr_assert(r.ok, "%s", r.msg);
    r = check_close("dx", dx1.data, dx2.data, dx1.numel, 1e-9, 1e-9);
    cr_assert(r.ok, "%s", r.msg);
    logt_tensor_free(&x), logt_tensor_free(&dh), logt_tensor_free(&c0);
    logt_tensor_free(&dx1), logt_tensor_free(&dx2);
    logt_net_destroy(nw), logt_net_destroy(loop);
}

Test(sru_cpu, newton_route_equals_loop) { newton_agrees(4, 1.0); newton_agrees(3, 4.0); }

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
    expect_error("route=fast", 3, 4, LOGT_EINVAL, "route = 'fast' is not a route: choose auto, loop, scan or newton");
    expect_error("v=zero,route=newton", 3, 4, LOGT_EINVAL, "route = newton is for v = on");
    expect_error("route=scan", 3, 4, LOGT_EINVAL, "route = scan needs v = zero");
    expect_error("highway_scale=on", 3, 4, LOGT_EINVAL, "use off (1), sqrt3");
    expect_error("highway_scale=-1", 3, 4, LOGT_EINVAL, "or a positive number");
    expect_error("highway_scale=2x", 3, 4, LOGT_EINVAL, "highway_scale = '2x' is not a scale");
    expect_error("gamma=1", 3, 4, LOGT_EINVAL, "model sru has no setting 'gamma' (it takes: v, route, highway_scale, math, forget_init, gpus, recompute, layers_wavefront)");
    expect_error("math=fp16", 3, 4, LOGT_EINVAL, "math = 'fp16' is not a math mode: choose fp32 (strict), tf32");
    expect_error("math=tf32", 3, 4, LOGT_EINVAL, "math = tf32 sets the cuda GEMMs; on cpu the reference computes in f64");

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
#ifdef LOGT_HAVE_CUDA
    cfg.dtype = LOGT_F64;   /* refused in layout, before any device memory */
    cr_assert_eq(logt_net_create(&cfg, &net), LOGT_EUNSUPPORTED);
    cr_assert(strstr(logt_errmsg(), "sru on cuda takes f32, bf16 or f16 activations, not f64: set "
                                    "dtype = f32, bf16 or f16"), "%s", logt_errmsg());
    cfg.dtype = LOGT_F32;
    cr_assert_eq(logt_cfg_set_knob(&cfg, "math", "fp64"), LOGT_OK);
    cr_assert_eq(logt_net_create(&cfg, &net), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "math = 'fp64' is not a math mode"), "%s", logt_errmsg());
#else
    cr_assert_eq(logt_net_create(&cfg, &net), LOGT_EUNSUPPORTED);
    cr_assert(strstr(logt_errmsg(), "this build of logt has no cuda backend"), "%s", logt_errmsg());
#endif

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

Test(sru_cpu, recurrence_byte_count)
{
    /* T = 10, B = 2, D = 3: 60 elements. f32, I == D, c0, v: 60·(3·4 + 4 + 4 + 4) + 6·4 + 4·3·4 */
    cr_assert_eq(sru_recurrence_bytes(10, 2, 3, LOGT_F32, 0, 1, 1), 60 * 24 + 24 + 48);
    /* bf16, projection (x' an fp32 plane), no c0, no v: 60·(3·4 + 4 + 4 + 2) + 2·3·4 */
    cr_assert_eq(sru_recurrence_bytes(10, 2, 3, LOGT_BF16, 1, 0, 0), 60 * 22 + 24);
    /* bf16, I == D: 60·(3·4 + 2 + 4 + 2) */
    cr_assert_eq(sru_recurrence_bytes(10, 2, 3, LOGT_BF16, 0, 0, 0), 60 * 20 + 24);
    cr_assert_eq(sru_recurrence_bytes(10, 2, 3, LOGT_F16, 0, 0, 0), 60 * 20 + 24);   /* as bf16 */
}

/* ---- CUDA against the f64 reference ---------------------------------------------------------
 * Each comparison builds the CUDA net first, reads its f32 parameters back and gives exactly
 * those to the f64 CPU net, and feeds both the same inputs already rounded to the CUDA dtype:
 * what differs is only the arithmetic (and, in bf16, the rounding of what is stored). */

typedef struct problem {
    int T, B, I, D, L;
    int state;                  /* 1: a random c_{-1} for every layer; dL/dc_{-1} compared  */
    int want_dx;                /* 0: backward with dx = NULL                                */
    double *x, *dh, *c0;        /* [T][B][I], [T][B][D], [L][B][D], rounded to the dtype     */
} problem;

#define MAX_SLICES 16

typedef struct result {
    double *w, *h, *dw, *dx, *dc0;
    int64_t nw;
    int ns;                     /* the parameter slices, to name the one that is off */
    char sname[MAX_SLICES][40];
    int64_t soff[MAX_SLICES], slen[MAX_SLICES];
    char impl[160];
} result;

static problem make_problem(int T, int B, int I, int D, int L, int state, int want_dx,
                            logt_dtype dt)
{
    problem p = {T, B, I, D, L, state, want_dx, NULL, NULL, NULL};
    p.x = random_array((int64_t)T * B * I, 77, 1, 1.0, dt);
    p.dh = random_array((int64_t)T * B * D, 77, 2, 1.0, dt);
    p.c0 = random_array((int64_t)L * B * D, 77, 3, 0.5, dt);
    return p;
}

static void free_problem(problem *p) { free(p->x), free(p->dh), free(p->c0); }

static void free_result(result *r) { free(r->w), free(r->h), free(r->dw), free(r->dx), free(r->dc0); }



/* Build cfg's net (parameters w when not NULL, else its own from the seed), run forward and
 * backward on p, copy everything back to the host in f64. */
static void run(const logt_model_cfg *cfg, const problem *p, const double *w, result *r)
{
    memset(r, 0, sizeof *r);
    logt_net *net = NULL;
    cr_assert_eq(logt_net_create(cfg, &net), LOGT_OK, "%s", logt_errmsg());
    if (w) cr_assert_eq(logt_tensor_from_f64(&net->w, w), LOGT_OK, "%s", logt_errmsg());
    logt_ctx *ctx = NULL;
    cr_assert_eq(logt_ctx_create(cfg->device, &ctx), LOGT_OK, "%s", logt_errmsg());
    if (p->state) {
        logt_tensor c0 = tensor3(p->L, p->B, p->D, p->c0);
        cr_assert_eq(logt_net_set_state(net, &c0, NULL), LOGT_OK, "%s", logt_errmsg());
        logt_tensor_free(&c0);
    }
    logt_tensor x = cfg_tensor3(cfg, p->T, p->B, p->I, p->x);
    logt_tensor dh = cfg_tensor3(cfg, p->T, p->B, p->D, p->dh);
    logt_tensor dx = cfg_tensor3(cfg, p->T, p->B, p->I, NULL);
    const logt_tensor *h;
    cr_assert_eq(logt_net_forward(net, &x, &h, ctx), LOGT_OK, "%s forward: %s", cfg->model,
                 logt_errmsg());
    cr_assert_eq(logt_net_backward(net, &dh, p->want_dx ? &dx : NULL, ctx), LOGT_OK,
                 "%s backward: %s", cfg->model, logt_errmsg());
    cr_assert_eq(logt_ctx_sync(ctx), LOGT_OK, "%s", logt_errmsg());
    r->w = host_copy(&net->w);
    r->h = host_copy(h);
    r->dw = host_copy(&net->dw);
    r->nw = net->dw.numel;
    if (p->want_dx) r->dx = host_copy(&dx);
    if (p->state) r->dc0 = host_copy(&net->dh0);
    r->ns = logt_net_nslices(net);
    cr_assert(r->ns <= MAX_SLICES);
    for (int i = 0; i < r->ns; i++)
        logt_net_slice(net, i, r->sname[i], sizeof r->sname[i], &r->soff[i], &r->slen[i]);
    snprintf(r->impl, sizeof r->impl, "%s", net->layer[0]->impl);
    logt_tensor_free(&x), logt_tensor_free(&dh), logt_tensor_free(&dx);
    logt_net_destroy(net);
    logt_ctx_destroy(ctx);
}

/* cfg (on cuda) and the f64 CPU reference on its parameters: got and ref. */
static void run_pair(const logt_model_cfg *cfg, const problem *p, result *got, result *ref)
{
    run(cfg, p, NULL, got);
    logt_model_cfg c = *cfg;
    c.device = LOGT_CPU;
    c.dtype = LOGT_F64;
    cr_assert_eq(logt_cfg_set_knob(&c, "math", "fp32"), LOGT_OK);   /* tf32 is cuda's only */
    run(&c, p, got->w, ref);
}

static double max_abs(const double *a, int64_t n)
{
    double m = 0;
    for (int64_t i = 0; i < n; i++) m = fmax(m, fabs(a[i]));
    return m;
}

/* One group: |x − ref| <= atol_frac·max|ref| + rtol·|ref| element by element (gradient
 * entries that cancel to near zero have no meaningful relative error of their own). */
static int close_group(const char *what, const double *x, const double *ref, int64_t n,
                       double rtol, double atol_frac, char *msg, size_t len)
{
    check_result c = check_close(what, x, ref, n, atol_frac * max_abs(ref, n) + 1e-300, rtol);
    if (!c.ok) snprintf(msg, len, "%s", c.msg);
    return c.ok;
}

typedef struct tol { double h_rtol, h_atol, g_rtol, g_atol, x_rtol, x_atol; } tol;

/* Everything of got against ref; the first group out of tolerance goes into msg (with the
 * parameter slice, for dw). Returns 1 when all are within. */
static int close_all(const problem *p, const result *got, const result *ref, tol t, char *msg,
                     size_t len)
{
    const int64_t nh = (int64_t)p->T * p->B * p->D, nx = (int64_t)p->T * p->B * p->I;
    const int64_t ns = (int64_t)p->L * p->B * p->D;
    if (got->nw != ref->nw) {
        snprintf(msg, len, "%lld vs %lld parameters", (long long)got->nw, (long long)ref->nw);
        return 0;
    }
    if (!close_group("h", got->h, ref->h, nh, t.h_rtol, t.h_atol, msg, len)) return 0;
    for (int i = 0; i < ref->ns; i++) {
        char what[64];
        snprintf(what, sizeof what, "d%s", ref->sname[i]);
        /* atol from the largest gradient of the whole net: a layer's slice may be tiny */
        double scale = max_abs(ref->dw, ref->nw) / fmax(max_abs(ref->dw + ref->soff[i], ref->slen[i]), 1e-300);
        if (!close_group(what, got->dw + ref->soff[i], ref->dw + ref->soff[i], ref->slen[i],
                         t.g_rtol, t.g_atol * scale, msg, len))
            return 0;
    }
    if (p->want_dx && !close_group("dx", got->dx, ref->dx, nx, t.x_rtol, t.x_atol, msg, len)) return 0;
    if (p->state && !close_group("dc0 (the dh0 slot)", got->dc0, ref->dc0, ns, t.x_rtol, t.x_atol, msg, len))
        return 0;
    return 1;
}

typedef struct shape { int T, B, I, D, L, state, want_dx; } shape;

static problem problem_of(shape s, logt_dtype dt)
{
    return make_problem(s.T, s.B, s.I, s.D, s.L, s.state, s.want_dx, dt);
}

/* One case: the cuda net of (knobs, dtype) against the reference; a failure names it all. */
static void expect_matches(const char *knobs, logt_dtype dt, shape s, uint64_t seed, tol t)
{
    logt_model_cfg cfg;
    logt_model_cfg_init(&cfg, "sru", LOGT_CUDA, s.I, s.D);
    cfg.dtype = dt;
    cfg.layers = s.L;
    cfg.seed = seed;
    set_knobs(&cfg, knobs);
    problem p = problem_of(s, dt);
    result got, ref;
    run_pair(&cfg, &p, &got, &ref);
    char msg[600] = "";
    cr_expect(close_all(&p, &got, &ref, t, msg, sizeof msg),
              "sru cuda %s [%s] T=%d B=%d I=%d D=%d layers=%d %s%s (%s): %s", logt_dtype_name(dt),
              knobs ? knobs : "", s.T, s.B, s.I, s.D, s.L, s.state ? "with c0" : "zero state",
              s.want_dx ? "" : ", dx = NULL", got.impl, msg);
    int scan = knobs && strstr(knobs, "v=zero") && !strstr(knobs, "route=loop");
    cr_expect(strstr(got.impl, scan ? "linear scan" : "element-wise loop"), "impl '%s' should say %s",
              got.impl, scan ? "linear scan" : "element-wise loop");
    free_result(&got), free_result(&ref), free_problem(&p);
}

/* The tolerances, as fractions (rtol, and atol relative to the largest reference value).
 * f32 against f64: h is a GEMM over I <= 70 terms and an element-wise walk whose errors are
 * damped by f < 1: ~1e-6 of max|h| is expected, 1e-5 allowed. Gradients sum up to T·B = 1000
 * products and come back through T steps: 1e-4. */
static const tol TOL_F32 = {1e-5, 1e-5, 1e-4, 1e-4, 1e-4, 1e-4};
/* bf16, one layer, inputs already bf16: only the stores round. h, dx and dc0 are rounded
 * once to 8 significant bits (relative error up to 2^-8 at the bottom of a binade; the f32
 * value may sit across a rounding boundary from the f64 one: 2^-7 allowed), while dW comes
 * from fp32 planes and the exact bf16 inputs, so it keeps the f32 tolerance. */
static const tol TOL_BF16_ONE_LAYER = {1.0 / 128, 1e-5, 1e-4, 1e-4, 1.0 / 128, 1e-4};
/* bf16, two layers: the layers pass h and dL/dh to each other rounded to bf16, and every later
 * result inherits a few such roundings: 2e-2 (a wrong mapping is off by order 1). */
static const tol TOL_BF16 = {2e-2, 2e-2, 2e-2, 2e-2, 2e-2, 2e-2};
/* f16, one layer: as bf16 with 11 significant bits, h, dx and dc0 rounded once (up to 2^-11
 * relative at the bottom of a binade, 2^-10 allowed); f16's subnormals (below 2^-14) fall
 * under the atol. */
static const tol TOL_F16_ONE_LAYER = {1.0 / 1024, 1e-5, 1e-4, 1e-4, 1.0 / 1024, 1e-4};
/* f16, two layers: a few roundings of 2^-11 ≈ 4.9e-4 passed between the layers, as TOL_BF16
 * counts them for bf16's 2^-8: 3e-3. */
static const tol TOL_F16 = {3e-3, 3e-3, 3e-3, 3e-3, 3e-3, 3e-3};
/* The tolerance of a 16-bit dtype (f32: TOL_F32) for a net of `layers` layers. */
static tol tol_of(logt_dtype dt, int layers)
{
    if (dt == LOGT_BF16) return layers == 1 ? TOL_BF16_ONE_LAYER : TOL_BF16;
    if (dt == LOGT_F16) return layers == 1 ? TOL_F16_ONE_LAYER : TOL_F16;
    return TOL_F32;
}
/* math = tf32: GEMM inputs keep 10 mantissa bits (~5e-4 relative each); 5e-3 on h, 1e-2 on
 * the gradients. */
static const tol TOL_TF32 = {5e-3, 5e-3, 1e-2, 1e-2, 1e-2, 1e-2};

/* T = 1, B odd, D = 1 and D not a multiple of 32, I != D and I == D, one and two layers,
 * with and without c0 and dx. */
static const shape SHAPES[] = {
    {1, 1, 5, 1, 1, 1, 1},   {1, 3, 33, 33, 2, 1, 1},  {7, 3, 17, 33, 1, 0, 1},
    {64, 5, 45, 45, 2, 1, 0}, {200, 3, 20, 70, 1, 1, 1}, {33, 7, 70, 70, 2, 0, 1},
};
#define NSHAPES ((int)(sizeof SHAPES / sizeof SHAPES[0]))

Test(sru_cuda, f32_matches_cpu_reference)
{
    SKIP_WITHOUT_GPU("sru on cuda (f32) vs the f64 CPU reference");
    const char *knobs[] = {NULL, "v=zero", "v=zero,route=loop", "highway_scale=sqrt3",
                           "v=zero,highway_scale=1.7"};
    for (int k = 0; k < 5; k++)
        for (int i = 0; i < NSHAPES; i++)
            expect_matches(knobs[k], LOGT_F32, SHAPES[i], 10 + (uint64_t)(k * NSHAPES + i), TOL_F32);
}

Test(sru_cuda, bf16_matches_cpu_reference)
{
    SKIP_WITHOUT_GPU("sru on cuda (bf16) vs the f64 CPU reference");
    const char *knobs[] = {NULL, "v=zero", "v=zero,route=loop", "highway_scale=sqrt3"};
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < NSHAPES; i++)
            expect_matches(knobs[k], LOGT_BF16, SHAPES[i], 40 + (uint64_t)(k * NSHAPES + i),
                           tol_of(LOGT_BF16, SHAPES[i].L));
}

/* f16 on the routes bf16 runs (loop, scan, scan as a loop, a highway scale), every shape. */
Test(sru_cuda, f16_matches_cpu_reference)
{
    SKIP_WITHOUT_GPU("sru on cuda (f16) vs the f64 CPU reference");
    const char *knobs[] = {NULL, "v=zero", "v=zero,route=loop", "highway_scale=sqrt3"};
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < NSHAPES; i++)
            expect_matches(knobs[k], LOGT_F16, SHAPES[i], 140 + (uint64_t)(k * NSHAPES + i),
                           tol_of(LOGT_F16, SHAPES[i].L));
}

Test(sru_cuda, tf32_matches_cpu_reference)
{
    SKIP_WITHOUT_GPU("sru on cuda with math = tf32 vs the f64 CPU reference");
    const char *knobs[] = {"math=tf32", "v=zero,math=tf32"};
    const shape shapes[] = {{50, 8, 64, 128, 1, 1, 1}, {20, 3, 33, 33, 2, 1, 1}};
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < 2; i++) {
            logt_model_cfg cfg;
            logt_model_cfg_init(&cfg, "sru", LOGT_CUDA, shapes[i].I, shapes[i].D);
            cfg.layers = shapes[i].L;
            cfg.seed = 70 + (uint64_t)(2 * k + i);
            set_knobs(&cfg, knobs[k]);
            problem p = problem_of(shapes[i], LOGT_F32);
            result got, ref;
            run_pair(&cfg, &p, &got, &ref);
            char msg[600] = "";
            cr_expect(close_all(&p, &got, &ref, TOL_TF32, msg, sizeof msg), "[%s] %s: %s", knobs[k],
                      got.impl, msg);
            cr_expect(strstr(got.impl, "math=tf32"), "impl '%s' should say math=tf32", got.impl);
            free_result(&got), free_result(&ref), free_problem(&p);
        }
}

/* math = 3xtf32: fp32's accuracy from TF32 tensor cores, so held to the strict-f32 tolerance
 * on every shape (a 3xTF32 product that dropped its low parts would be off by TF32's 5e-4).
 * SHAPES all have T·B <= 4096, where dW is one product over stacked planes; the last two
 * shapes here have more rows, where the backward runs its products one after another. */
Test(sru_cuda, three_tf32_matches_cpu_reference_to_f32_tolerance)
{
    SKIP_WITHOUT_GPU("sru on cuda with math = 3xtf32 vs the f64 CPU reference");
    const char *knobs[] = {"math=3xtf32", "v=zero,math=3xtf32"};
    const shape many_rows[] = {{1100, 4, 20, 24, 1, 1, 1}, {700, 7, 24, 24, 2, 0, 1}};
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < NSHAPES; i++)
            expect_matches(knobs[k], LOGT_F32, SHAPES[i], 80 + (uint64_t)(k * NSHAPES + i), TOL_F32);
        for (int i = 0; i < 2; i++)
            expect_matches(knobs[k], LOGT_F32, many_rows[i], 95 + (uint64_t)(2 * k + i), TOL_F32);
    }
}

/* A route on the GPU against the element-wise loop on the same net (knobs, then route = loop),
 * f32, bf16 and f16, forward and gradients; `says`: what the route's impl line must contain.
 * Shapes on both sides of the scan's channel-parallel threshold (on an H200, B·D = 40000
 * goes channel-parallel, B·D = 80 over T = 1000 does not), a projection, two layers, a
 * zero state. */
static void routes_agree_cuda(const char *knobs, const char *says, uint64_t seed)
{
    const shape shapes[] = {{1000, 2, 40, 40, 1, 1, 1}, {50, 40, 1000, 1000, 1, 1, 1},
                            {7, 3, 17, 33, 2, 1, 1}, {1, 5, 9, 9, 1, 1, 0}};
    static const logt_dtype dts[] = {LOGT_F32, LOGT_BF16, LOGT_F16};
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 3; k++) {
            const logt_dtype dt = dts[k];
            logt_model_cfg cfg;
            logt_model_cfg_init(&cfg, "sru", LOGT_CUDA, shapes[i].I, shapes[i].D);
            cfg.layers = shapes[i].L;
            cfg.dtype = dt;
            cfg.seed = seed + (uint64_t)i;
            set_knobs(&cfg, knobs);
            problem p = problem_of(shapes[i], dt);
            result route, loop;
            run(&cfg, &p, NULL, &route);
            cr_assert_eq(logt_cfg_set_knob(&cfg, "route", "loop"), LOGT_OK);
            run(&cfg, &p, route.w, &loop);
            cr_expect(strstr(route.impl, says) && strstr(loop.impl, "element-wise loop"),
                      "impl: '%s' and '%s'", route.impl, loop.impl);
            /* 16-bit: both round h, dx, dc0 from nearly equal f32 values, at most one step of
             * the dtype apart; with two layers such a step also feeds the next layer */
            const tol t = tol_of(dt, shapes[i].L);
            char msg[600] = "";
            cr_expect(close_all(&p, &route, &loop, t, msg, sizeof msg),
                      "[%s] %s T=%d B=%d I=%d D=%d layers=%d: against the loop: %s", knobs,
                      logt_dtype_name(dt), shapes[i].T, shapes[i].B, shapes[i].I, shapes[i].D,
                      shapes[i].L, msg);
            free_result(&route), free_result(&loop), free_problem(&p);
        }
}

/* v = 0: the shared scan. Not bit-equal (the scan forms (1 − f)·z before its FMA, the loop
 * after): f32 within TOL_F32. */
Test(sru_cuda, v_zero_scan_route_equals_loop)
{
    SKIP_WITHOUT_GPU("sru on cuda: scan route vs loop route");
    routes_agree_cuda("v=zero,highway_scale=sqrt3", "linear scan", 90);
}

/* v on, route = newton: Newton with the exact diagonal Jacobian and the shared scan; the
 * backward is the loop's, on Newton's c. */
Test(sru_cuda, newton_route_equals_loop)
{
    SKIP_WITHOUT_GPU("sru on cuda: newton route vs loop route");
    routes_agree_cuda("route=newton", "Newton", 95);
}

/* The comparison itself fails on a wrong model: the reference against itself passes, against a
 * highway scale off by 1e-3 (or v off) it does not. Runs on the CPU, so it runs everywhere. */
Test(sru_cpu, cuda_comparison_can_fail)
{
    const shape s = {7, 3, 5, 4, 2, 1, 1};
    problem p = problem_of(s, LOGT_F32);
    logt_model_cfg cfg;
    logt_model_cfg_init(&cfg, "sru", LOGT_CPU, s.I, s.D);
    cfg.layers = s.L;
    result a, b;
    run(&cfg, &p, NULL, &a);
    run(&cfg, &p, a.w, &b);
    char msg[600] = "";
    cr_assert(close_all(&p, &b, &a, TOL_F32, msg, sizeof msg), "itself: %s", msg);
    free_result(&b);
    set_knobs(&cfg, "highway_scale=1.001");
    run(&cfg, &p, a.w, &b);
    cr_assert_not(close_all(&p, &b, &a, TOL_F32, msg, sizeof msg), "α off by 1e-3 passed");
    cr_assert(strstr(msg, "h: max abs err"), "%s", msg);
    free_result(&b);
    free_result(&a), free_problem(&p);
}

/* sru_recurrence_cuda alone, against a host loop over the same planes. */
Test(sru_cuda, recurrence_kernel_matches_a_host_loop)
{
    SKIP_WITHOUT_GPU("the bare sru recurrence kernel");
#ifdef LOGT_HAVE_CUDA
    logt_ctx *ctx;
    cr_assert_eq(logt_ctx_create(LOGT_CUDA, &ctx), LOGT_OK, "%s", logt_errmsg());
    const int64_t T = 37, B = 3, D = 45, N = T * B, ND = N * D;
    static const logt_dtype dts[] = {LOGT_F32, LOGT_BF16, LOGT_F16};
    for (int c = 0; c < 12; c++) {
        const int proj = c & 1, with_v = (c >> 1) & 1;
        const logt_dtype dt = dts[c >> 2];
        const int64_t K = proj ? 4 : 3;
        double *G = random_array(K * ND, 77, 20, 2.0, LOGT_F32), *x = random_array(ND, 77, 21, 1.0, dt);
        double *v = random_array(2 * D, 77, 22, 1.2, LOGT_F32), *b = random_array(2 * D, 77, 23, 0.5, LOGT_F32);
        double *c0 = random_array(B * D, 77, 24, 0.5, dt), *C = malloc(sizeof(double) * ND);
        double *H = malloc(sizeof(double) * ND);
        cr_assert(C && H);
        const double alpha = 1.25;
        for (int64_t t = 0; t < T; t++)
            for (int64_t j = 0; j < B * D; j++) {
                const int64_t e = t * B * D + j, d = j % D;
                const double cp = t ? C[e - B * D] : c0[j];
                const double pf = G[ND + e] + (with_v ? v[d] * cp : 0) + b[d];
                const double pr = G[2 * ND + e] + (with_v ? v[D + d] * cp : 0) + b[D + d];
                const double f = 1 / (1 + exp(-pf)), r = 1 / (1 + exp(-pr));
                const double xp = proj ? G[3 * ND + e] : x[e];
                C[e] = f * cp + (1 - f) * G[e];
                H[e] = r * C[e] + (1 - r) * alpha * xp;
            }
        logt_tensor dG, dx, dv, db, dc0, dC, dH;
        cr_assert_eq(logt_tensor_new1(&dG, LOGT_CUDA, LOGT_F32, K * ND), LOGT_OK);
        cr_assert_eq(logt_tensor_new1(&dx, LOGT_CUDA, dt, ND), LOGT_OK);
        cr_assert_eq(logt_tensor_new1(&dv, LOGT_CUDA, LOGT_F32, 2 * D), LOGT_OK);
        cr_assert_eq(logt_tensor_new1(&db, LOGT_CUDA, LOGT_F32, 2 * D), LOGT_OK);
        cr_assert_eq(logt_tensor_new1(&dc0, LOGT_CUDA, dt, B * D), LOGT_OK);
        cr_assert_eq(logt_tensor_new1(&dC, LOGT_CUDA, LOGT_F32, ND), LOGT_OK);
        cr_assert_eq(logt_tensor_new1(&dH, LOGT_CUDA, dt, ND), LOGT_OK);
        cr_assert_eq(logt_tensor_from_f64(&dG, G), LOGT_OK);
        cr_assert_eq(logt_tensor_from_f64(&dx, x), LOGT_OK);
        cr_assert_eq(logt_tensor_from_f64(&dv, v), LOGT_OK);
        cr_assert_eq(logt_tensor_from_f64(&db, b), LOGT_OK);
        cr_assert_eq(logt_tensor_from_f64(&dc0, c0), LOGT_OK);
        cr_assert_eq(sru_recurrence_cuda(ctx, T, B, D, dt, dG.data, proj, proj ? NULL : dx.data,
                                         with_v ? dv.data : NULL, db.data, (float)alpha, dc0.data,
                                         dC.data, dH.data),
                     LOGT_OK, "%s", logt_errmsg());
        cr_assert_eq(logt_ctx_sync(ctx), LOGT_OK, "%s", logt_errmsg());
        double *gotC = host_copy(&dC), *gotH = host_copy(&dH);
        char what[40];
        snprintf(what, sizeof what, "recurrence %s proj=%d v=%d: c", logt_dtype_name(dt), proj, with_v);
        check_result r = check_close(what, gotC, C, ND, 1e-5, 1e-5);
        cr_expect(r.ok, "%s", r.msg);
        snprintf(what, sizeof what, "recurrence %s proj=%d v=%d: h", logt_dtype_name(dt), proj, with_v);
        /* h rounded to 16 bits: 2^-8 (bf16) or 2^-11 (f16) at most, twice that allowed */
        const double h_rtol = dt == LOGT_BF16 ? 1.0 / 128 : dt == LOGT_F16 ? 1.0 / 1024 : 1e-5;
        r = check_close(what, gotH, H, ND, 1e-5, h_rtol);
        cr_expect(r.ok, "%s", r.msg);
        free(G), free(x), free(v), free(b), free(c0), free(C), free(H), free(gotC), free(gotH);
        logt_tensor *all[] = {&dG, &dx, &dv, &db, &dc0, &dC, &dH};
        for (int i = 0; i < 7; i++) logt_tensor_free(all[i]);
    }
    logt_ctx_destroy(ctx);
#endif
}
