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
