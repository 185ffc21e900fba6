/* test_recompute_deer.c — recompute = K (net.c) for deer: a training pass in segments against
 * the plain pass (recompute.h), for every cell and Newton mode, and the sequential baselines.
 *
 * Newton over a segment starts from zeros over that segment, not over the whole sequence, so
 * it stops at another iterate: both passes' states are within the solve's tolerance (the
 * residual max |s_t − f(s_{t-1})| <= tol) of the sequential answer, not the same bits. Each
 * comparison is held to 10 tol relative to its largest value: on the cpu tol = 1e-10 and
 * the worst seen is 3.6e-10 (mode = damped, lstm), so 1e-9; on cuda, at tol = 1e-6 (as
 * test_deer_cuda.c solves), h comes within ~1e-5 of its size, dh0 within 1.06e-4 (an H100),
 * and 3e-4 is allowed.
 * Where the states are the sequential loop's (on_fail = sequential after a solve that stops
 * short) the cpu gives the same bits: its adjoint is the exact loop too. On cuda the adjoint
 * is iterated as well, stopping at tol of its first residual, so the sequential baselines
 * (solver = launch, fused) are held to 3e-4 too. The lstm cell
 * hands on h and c, the gru and tanh cells h alone (no c0). */
#include "recompute.h"

static void cpu(const char *cell, const char *knobs, double tol)
{
    for (int state = 0; state < 2; state++) {
        setup s = {"deer", cell, knobs, LOGT_CPU, LOGT_F64, 10, 2, 3, 4, 0, 2, state};
        expect_same(&s, AWKWARD, tol);
    }
}

static const char *const CELLS[] = {"gru", "lstm", "tanh"};

Test(recompute_deer, cpu_full_close)
{
    for (int c = 0; c < 3; c++) cpu(CELLS[c], "mode=full", 1e-9);
}

Test(recompute_deer, cpu_quasi_close)
{
    for (int c = 0; c < 3; c++) cpu(CELLS[c], "mode=quasi", 1e-9);
}

Test(recompute_deer, cpu_damped_close)
{
    for (int c = 0; c < 3; c++) cpu(CELLS[c], "mode=damped", 1e-9);
}

Test(recompute_deer, cpu_clamped_close) { cpu("gru", "mode=quasi,jacobian_clamp=0.1", 1e-9); }

/* two iterations fall short, and the loop answers: the states of the sequential loop */
Test(recompute_deer, cpu_sequential_fallback_same_bits)
{
    for (int c = 0; c < 3; c++) cpu(CELLS[c], "max_iter=2,on_fail=sequential", 0);
}

/* The gru and tanh cells' states are their output: the backward restores each segment from
 * it (ops->restore) and solves none again; the lstm's c is not in its output, so it solves
 * every segment but the last again. T = 10, K = 3: 4 segments. */
Test(recompute_deer, gru_and_tanh_restore_lstm_solves_again)
{
    for (int c = 0; c < 3; c++) {
        const setup s = {"deer", CELLS[c], "mode=quasi", LOGT_CPU, LOGT_F64, 10, 2, 3, 4, 0, 2, 1};
        pass p = run(&s, "3");
        const int lstm = !strcmp(CELLS[c], "lstm");
        cr_assert(p.S == 4 && p.restored == (lstm ? 0 : 3 * 2) && p.recomputed == (lstm ? 3 * 2 : 0),
                  "%s: %lld segments, %lld restored, %lld solved again", CELLS[c], (long long)p.S,
                  (long long)p.restored, (long long)p.recomputed);
        free_pass(&p);
    }
}

/* One layer's backward after restore (x and the h a forward gave) against its backward after
 * that forward: the same bits on the cpu (the states are copied, W x + b formed as the
 * forward forms it); on cuda within tol. */
static void restore_same(logt_device dev, const char *cell, const char *knobs, double tol)
{
    const int64_t T = 9, B = 2, I = 3, D = 5;
    const logt_dtype dt = dev == LOGT_CPU ? LOGT_F64 : LOGT_F32;
    logt_tensor x = filled(dev, dt, T, B, I, 1, 1.0), dh = filled(dev, dt, T, B, D, 2, 1.0);
    logt_tensor h0 = filled(dev, dt, 1, B, D, 3, 0.8), h = {0}, dx[2] = {{0}};
    double *dw[2], *g[2], *dh0[2];
    logt_ctx *ctx = NULL;
    cr_assert_eq(logt_ctx_create(dev, &ctx), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_tensor_new3(&h, dev, dt, T, B, D), LOGT_OK);
    for (int k = 0; k < 2; k++) {   /* k = 0: forward, backward; 1: restore, backward */
        logt_model_cfg cfg;
        logt_model_cfg_init(&cfg, "deer", dev, I, D);
        snprintf(cfg.cell, sizeof cfg.cell, "%s", cell);
        cfg.dtype = dt, cfg.seed = 5;
        set_knobs(&cfg, knobs);
        logt_net *net = NULL;
        cr_assert_eq(logt_net_create(&cfg, &net), LOGT_OK, "%s", logt_errmsg());
        cr_assert_eq(logt_net_set_state(net, &h0, NULL), LOGT_OK, "%s", logt_errmsg());
        logt_model *m = net->layer[0];
        cr_assert_eq(logt_tensor_new3(&dx[k], dev, dt, T, B, I), LOGT_OK);
        if (k == 0) {
            cr_assert_eq(net->ops->forward(m, &x, &h, ctx), LOGT_OK, "%s", logt_errmsg());
        } else {
            int done = 0;
            cr_assert_eq(net->ops->restore(m, &x, &h, ctx, &done), LOGT_OK, "%s", logt_errmsg());
            cr_assert(done, "%s: restore declined", cell);
        }
        cr_assert_eq(net->ops->backward(m, &dh, &dx[k], ctx), LOGT_OK, "%s", logt_errmsg());
        cr_assert_eq(logt_ctx_sync(ctx), LOGT_OK, "%s", logt_errmsg());
        dw[k] = host(&net->dw), g[k] = host(&dx[k]), dh0[k] = host(&net->dh0);
        const int64_t nw = net->dw.numel;
        logt_net_destroy(net);
        if (k) {
            char what[64];
            snprintf(what, sizeof what, "restore, %s", cell);
            same("dw", what, dw[1], dw[0], nw, tol);
            same("dx", what, g[1], g[0], T * B * I, tol);
            same("dh0", what, dh0[1], dh0[0], B * D, tol);
        }
    }
    for (int k = 0; k < 2; k++) free(dw[k]), free(g[k]), free(dh0[k]), logt_tensor_free(&dx[k]);
    logt_tensor_free(&x), logt_tensor_free(&dh), logt_tensor_free(&h0), logt_tensor_free(&h);
    logt_ctx_destroy(ctx);
}

Test(recompute_deer, cpu_restore_same_bits)
{
    for (int c = 0; c < 3; c += 2) {   /* gru, tanh */
        restore_same(LOGT_CPU, CELLS[c], "mode=quasi", 0);
        restore_same(LOGT_CPU, CELLS[c], "mode=full", 0);
    }
    logt_model_cfg cfg;   /* the lstm's state [h; c] is wider than h: declined */
    logt_model_cfg_init(&cfg, "deer", LOGT_CPU, 3, 4);
    snprintf(cfg.cell, sizeof cfg.cell, "lstm");
    logt_net *net = NULL;
    cr_assert_eq(logt_net_create(&cfg, &net), LOGT_OK, "%s", logt_errmsg());
    logt_tensor x = filled(LOGT_CPU, LOGT_F64, 5, 2, 3, 1, 1.0), h = filled(LOGT_CPU, LOGT_F64, 5, 2, 4, 2, 0.5);
    int done = 1;
    cr_assert_eq(net->ops->restore(net->layer[0], &x, &h, NULL, &done), LOGT_OK, "%s", logt_errmsg());
    cr_assert(!done, "the lstm cell restored from h alone");
    logt_tensor_free(&x), logt_tensor_free(&h);
    logt_net_destroy(net);
}

Test(recompute_deer, cuda_restore_matches)
{
    SKIP_WITHOUT_GPU("deer restore");
    for (int c = 0; c < 3; c += 2) {
        restore_same(LOGT_CUDA, CELLS[c], "mode=quasi,tol=1e-6", 1e-6);
        restore_same(LOGT_CUDA, CELLS[c], "solver=launch", 1e-6);
    }
}

/* warm = on starts from the previous call's solution: with segments, another segment's */
Test(recompute_deer, warm_is_refused)
{
    logt_model_cfg cfg;
    logt_model_cfg_init(&cfg, "deer", LOGT_CPU, 3, 4);
    cr_assert_eq(logt_cfg_set_knob(&cfg, "warm", "on"), LOGT_OK);
    cr_assert_eq(logt_cfg_set_knob(&cfg, "recompute", "4"), LOGT_OK);
    logt_net *net = NULL;
    cr_assert_eq(logt_net_create(&cfg, &net), LOGT_EUNSUPPORTED);
    cr_assert(strstr(logt_errmsg(), "warm = on") && strstr(logt_errmsg(), "recompute runs") &&
              strstr(logt_errmsg(), "leave warm off"), "%s", logt_errmsg());
    cr_assert_null(net);
    logt_model_cfg_init(&cfg, "deer", LOGT_CPU, 3, 4);   /* a wavefront's segments too */
    cfg.layers = 2;
    cr_assert_eq(logt_cfg_set_knob(&cfg, "warm", "on"), LOGT_OK);
    cr_assert_eq(logt_cfg_set_knob(&cfg, "layers_wavefront", "on"), LOGT_OK);
    cr_assert_eq(logt_net_create(&cfg, &net), LOGT_EUNSUPPORTED);
    cr_assert(strstr(logt_errmsg(), "layers_wavefront runs"), "%s", logt_errmsg());
}

/* The gru and tanh cells refuse a c0, in segments too (they hand on h alone). */
Test(recompute_deer, c0_refused)
{
    for (int seg = 0; seg < 2; seg++) {
        logt_model_cfg cfg;
        logt_model_cfg_init(&cfg, "deer", LOGT_CPU, 3, 4);
        if (seg) cr_assert_eq(logt_cfg_set_knob(&cfg, "recompute", "4"), LOGT_OK);
        logt_net *net = NULL;
        cr_assert_eq(logt_net_create(&cfg, &net), LOGT_OK, "%s", logt_errmsg());
        logt_tensor h0 = filled(LOGT_CPU, LOGT_F64, 1, 2, 4, 3, 0.5), c0 = filled(LOGT_CPU, LOGT_F64, 1, 2, 4, 4, 0.5);
        logt_tensor x = filled(LOGT_CPU, LOGT_F64, 5, 2, 3, 1, 1.0);
        cr_assert_eq(logt_net_set_state(net, &h0, &c0), LOGT_OK, "%s", logt_errmsg());
        const logt_tensor *h;
        cr_assert_eq(logt_net_forward(net, &x, &h, NULL), LOGT_EINVAL);
        cr_assert(strstr(logt_errmsg(), "has no cell state c0"), "%s", logt_errmsg());
        logt_tensor_free(&h0), logt_tensor_free(&c0), logt_tensor_free(&x);
        logt_net_destroy(net);
    }
}

static const char *const CUDA_RCS[] = {"8", "1", "36", "auto", "100", NULL};

static void cuda(const char *cell, const char *knobs, int D, double tol)
{
    char k[200];
    snprintf(k, sizeof k, "%s,tol=1e-6", knobs);
    for (int state = 0; state < 2; state++) {
        setup s = {"deer", cell, k, LOGT_CUDA, LOGT_F32, 37, 5, 7, D, 0, 2, state};
        expect_same(&s, CUDA_RCS, tol);
    }
}

Test(recompute_deer, cuda_newton_matches)
{
    SKIP_WITHOUT_GPU("deer recompute (Newton)");
    for (int c = 0; c < 3; c++) {
        cuda(CELLS[c], "mode=quasi", 24, 3e-4);
        cuda(CELLS[c], "mode=full", 24, 3e-4);
        cuda(CELLS[c], "mode=damped", 24, 3e-4);
    }
}

/* states of 1 to 4: the whole solve in one cooperative kernel */
Test(recompute_deer, cuda_persistent_matches)
{
    SKIP_WITHOUT_GPU("deer recompute (persistent Newton kernel)");
    cuda("gru", "mode=quasi,newton_kernel=persistent", 3, 3e-4);
    cuda("lstm", "mode=quasi,newton_kernel=persistent", 2, 3e-4);
}

Test(recompute_deer, cuda_sequential_matches)
{
    SKIP_WITHOUT_GPU("deer recompute (sequential baselines)");
    for (int c = 0; c < 3; c++) {
        cuda(CELLS[c], "solver=launch", 24, 3e-4);
        cuda(CELLS[c], "solver=fused", 24, 3e-4);
    }
}
