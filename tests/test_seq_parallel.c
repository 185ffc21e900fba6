/* test_seq_parallel.c — gpus = N on the CPU, the float64 reference of the sequence-parallel
 * path, against the same net in one piece. gilr, gilr-lstm and sru (v = zero): every linear
 * scan of the training pass split in time into N pieces (kernels/scan_multi.h); the pieces
 * compose the scan's maps in another order, so the values agree to rounding, not to the bit,
 * and gpus = 1 is the plain pass's own bits. deer (mode = quasi): Newton over the pieces and
 * the adjoint by reversed scans (deer_multi.h), against the whole sequence's Newton and exact
 * adjoint: both stop within the solver's tolerance. */
#include "recompute.h"

static setup with_knobs(const char *model, const char *knobs, int T, int state)
{
    setup s = {model, NULL, knobs, LOGT_CPU, LOGT_F64, T, 2, 3, 4, 0, 2, state};
    return s;
}

/* h and every gradient of knobs' pass (base, plus knobs) against base's pass, within tol of
 * their largest. */
static void expect_like_plain(const char *model, const char *base, const char *knobs, int T, int state,
                              double tol)
{
    char all[128];
    snprintf(all, sizeof all, "%s%s%s", base ? base : "", base ? "," : "", knobs);
    setup plain = with_knobs(model, base, T, state), split = with_knobs(model, all, T, state);
    pass ref = run(&plain, NULL), p = run(&split, NULL);
    char what[96];
    snprintf(what, sizeof what, "off, %s at T = %d%s", knobs, T, state ? " with h0, c0" : "");
    same_pass(what, &p, &ref, tol, tol);
    free_pass(&p), free_pass(&ref);
}

/* T = 10 in 2, 3 (4 + 3 + 3) and 16 pieces (10 of one step), T = 7 in 5, T = 2 and 1 in 3 (one
 * piece a step, one piece); two layers, from zeros and from given states. */
static void pieces_like_one(const char *model, const char *base)
{
    const struct { const char *knobs; int T; } cases[] = {
        {"gpus=2", 10}, {"gpus=3", 10}, {"gpus=16", 10}, {"gpus=5", 7}, {"gpus=3", 2}, {"gpus=3", 1}};
    for (int state = 0; state < 2; state++) {
        for (int i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++)
            expect_like_plain(model, base, cases[i].knobs, cases[i].T, state, 1e-13);
        expect_like_plain(model, base, "gpus=1", 10, state, 0);
    }
}

Test(seq_parallel, gilr_pieces_equal_one_piece) { pieces_like_one("gilr", NULL); }
Test(seq_parallel, gilr_lstm_pieces_equal_one_piece) { pieces_like_one("gilr-lstm", NULL); }
Test(seq_parallel, sru_pieces_equal_one_piece) { pieces_like_one("sru", "v=zero"); }

/* The pieces are really taken, forward and backward: their maps compose in another order
 * than one serial scan, which moves some last bits of h and of dx (a model that left its
 * scans whole would match exactly). */
Test(seq_parallel, pieces_round_otherwise)
{
    const char *models[] = {"gilr", "gilr-lstm", "sru"}, *base[] = {NULL, NULL, "v=zero"};
    for (int i = 0; i < 3; i++) {
        char knobs[64];
        snprintf(knobs, sizeof knobs, "%s%sgpus=3", base[i] ? base[i] : "", base[i] ? "," : "");
        setup plain = with_knobs(models[i], base[i], 10, 1), split = with_knobs(models[i], knobs, 10, 1);
        pass ref = run(&plain, NULL), p = run(&split, NULL);
        int differ = 0, gdiffer = 0;
        for (int64_t k = 0; k < ref.nh; k++) differ += p.h[k] != ref.h[k];
        for (int64_t k = 0; k < ref.nx; k++) gdiffer += p.dx[k] != ref.dx[k];
        cr_assert(differ > 0, "%s gpus = 3: h is bit for bit one serial scan's", models[i]);
        cr_assert(gdiffer > 0, "%s gpus = 3: dx is bit for bit one serial backward's", models[i]);
        free_pass(&p), free_pass(&ref);
    }
}

/* The layers say what they run: their scans in N pieces, or one serial scan. */
Test(seq_parallel, impl_names_the_pieces)
{
    const char *models[] = {"gilr", "gilr-lstm", "sru"};
    for (int i = 0; i < 3; i++)
        for (int g = 1; g <= 3; g += 2) {
            logt_model_cfg cfg;
            logt_model_cfg_init(&cfg, models[i], LOGT_CPU, 3, 4);
            cfg.layers = 2;
            char v[8];
            snprintf(v, sizeof v, "%d", g);
            cr_assert_eq(logt_cfg_set_knob(&cfg, "gpus", v), LOGT_OK);
            if (i == 2) cr_assert_eq(logt_cfg_set_knob(&cfg, "v", "zero"), LOGT_OK);
            logt_net *net = NULL;
            cr_assert_eq(logt_net_create(&cfg, &net), LOGT_OK, "%s", logt_errmsg());
            for (int l = 0; l < 2; l++) {
                const char *impl = net->layer[l]->impl;
                cr_assert(g == 1 ? strstr(impl, "serial linear scan") != NULL : strstr(impl, "in 3 pieces of time") != NULL,
                          "%s gpus = %d, layer %d: %s", models[i], g, l, impl);
            }
            logt_net_destroy(net);
        }
}

/* With recomputation each segment's scans are split again: the same pass to rounding. */
Test(seq_parallel, pieces_with_recompute)
{
    for (int state = 0; state < 2; state++) {
        expect_like_plain("gilr", "recompute=4", "gpus=3", 10, state, 1e-13);
        expect_like_plain("gilr-lstm", "recompute=3", "gpus=2", 10, state, 1e-13);
        expect_like_plain("sru", "v=zero,recompute=3", "gpus=2", 10, state, 1e-13);
    }
}

/* deer, mode = quasi, every cell: T = 10 in 3 pieces, T = 7 in 5, two layers, from zeros and
 * from given states. */
Test(seq_parallel, deer_quasi_pieces_equal_the_whole)
{
    const char *cells[] = {"gru", "lstm", "tanh"};
    const struct { const char *knobs; int T; } cases[] = {{"gpus=3", 10}, {"gpus=5", 7}, {"gpus=16", 10}};
    for (int c = 0; c < 3; c++)
        for (int state = 0; state < 2; state++)
            for (int i = 0; i < 3; i++) {
                setup plain = {"deer", cells[c], "mode=quasi", LOGT_CPU, LOGT_F64, cases[i].T, 2, 3, 4, 0, 2, state};
                char knobs[64];
                snprintf(knobs, sizeof knobs, "mode=quasi,%s", cases[i].knobs);
                setup split = plain;
                split.knobs = knobs;
                pass ref = run(&plain, NULL), p = run(&split, NULL);
                char what[96];
                snprintf(what, sizeof what, "off, deer %s %s at T = %d%s", cells[c], knobs, cases[i].T,
                         state ? " with h0, c0" : "");
                same_pass(what, &p, &ref, 1e-10, 1e-10);
                free_pass(&p), free_pass(&ref);
            }
}

/* deer's forward says it ran in pieces, and how many (T = 2 in at most 2). */
Test(seq_parallel, deer_detail_names_the_pieces)
{
    const struct { const char *gpus; int T; const char *want; } cases[] = {
        {"3", 10, "pieces=3"}, {"3", 2, "pieces=2"}, {"1", 10, NULL}};
    for (int i = 0; i < 3; i++) {
        logt_model_cfg cfg;
        logt_model_cfg_init(&cfg, "deer", LOGT_CPU, 3, 4);
        set_knobs(&cfg, "mode=quasi");
        cr_assert_eq(logt_cfg_set_knob(&cfg, "gpus", cases[i].gpus), LOGT_OK);
        logt_net *net = NULL;
        cr_assert_eq(logt_net_create(&cfg, &net), LOGT_OK, "%s", logt_errmsg());
        logt_tensor x = filled(LOGT_CPU, LOGT_F64, cases[i].T, 2, 3, 1, 1.0);
        const logt_tensor *h;
        cr_assert_eq(logt_net_forward(net, &x, &h, NULL), LOGT_OK, "%s", logt_errmsg());
        const char *detail = net->layer[0]->detail;
        cr_assert(cases[i].want ? strstr(detail, cases[i].want) != NULL : strstr(detail, "pieces") == NULL,
                  "gpus = %s, T = %d: %s", cases[i].gpus, cases[i].T, detail);
        logt_tensor_free(&x);
        logt_net_destroy(net);
    }
}

/* cpu model with knobs and gpus = 2: its net is refused with status want (the message is
 * the caller's to check). */
static void refused_with_two(const char *model, const char *knobs, logt_status want)
{
    logt_model_cfg cfg;
    logt_model_cfg_init(&cfg, model, LOGT_CPU, 3, 4);
    set_knobs(&cfg, knobs);
    cr_assert_eq(logt_cfg_set_knob(&cfg, "gpus", "2"), LOGT_OK);
    logt_net *net = NULL;
    cr_assert_eq(logt_net_create(&cfg, &net), want, "%s %s, gpus = 2", model, knobs);
}

/* Bad values are named at configuration time; more than one piece on cuda is refused there,
 * but for deer's. */
Test(seq_parallel, bad_values_are_named)
{
    const char *bad[] = {"0", "17", "two", "2.5", ""};
    for (int i = 0; i < 5; i++) {
        logt_model_cfg cfg;
        logt_model_cfg_init(&cfg, "gilr", LOGT_CPU, 3, 4);
        cr_assert_eq(logt_cfg_set_knob(&cfg, "gpus", bad[i]), LOGT_OK);
        logt_net *net = NULL;
        cr_assert_eq(logt_net_create(&cfg, &net), LOGT_EINVAL, "gpus = '%s'", bad[i]);
        cr_assert(strstr(logt_errmsg(), "gpus = '") && strstr(logt_errmsg(), "from 1 to 16"), "%s",
                  logt_errmsg());
    }
    logt_model_cfg cfg;
    logt_model_cfg_init(&cfg, "gilr-lstm", LOGT_CUDA, 3, 4);
    cfg.dtype = LOGT_F32;
    cr_assert_eq(logt_cfg_set_knob(&cfg, "gpus", "2"), LOGT_OK);
    logt_layout lay;
    cr_assert_eq(logt_model_layout(logt_model_find("gilr-lstm"), &cfg, &lay), LOGT_EUNSUPPORTED);
    cr_assert(strstr(logt_errmsg(), "gpus = 2 on cuda") && strstr(logt_errmsg(), "gpus = 1"), "%s",
              logt_errmsg());
    /* deer's pieces have their GPUs' path */
    logt_model_cfg_init(&cfg, "deer", LOGT_CUDA, 3, 4);
    cfg.dtype = LOGT_F32;
    set_knobs(&cfg, "mode=quasi,gpus=2");
    cr_assert_eq(logt_model_layout(logt_model_find("deer"), &cfg, &lay), LOGT_OK, "%s", logt_errmsg());
    /* by Newton, its kernels launched per iteration */
    const char *solvers[] = {"solver=launch", "solver=fused", "newton_kernel=persistent"};
    for (int i = 0; i < 3; i++) {
        logt_model_cfg_init(&cfg, "deer", LOGT_CUDA, 3, 4);
        cfg.dtype = LOGT_F32;
        set_knobs(&cfg, "mode=quasi,gpus=2");
        set_knobs(&cfg, solvers[i]);
        cr_assert_eq(logt_model_layout(logt_model_find("deer"), &cfg, &lay), LOGT_EUNSUPPORTED, "%s", solvers[i]);
        cr_assert(strstr(logt_errmsg(), "solver = newton and newton_kernel = auto or launches"), "%s", logt_errmsg());
    }
    /* the sru's loop and Newton routes are not scans */
    const char *routes[] = {"v=on", "v=zero,route=loop"};
    for (int i = 0; i < 2; i++) {
        refused_with_two("sru", routes[i], LOGT_EINVAL);
        cr_assert(strstr(logt_errmsg(), "gpus = 2 splits the scan route") && strstr(logt_errmsg(), "v = zero"),
                  "%s", logt_errmsg());
    }
    /* deer's pieces solve quasi-DEER from zeros over the whole sequence */
    const char *deer[] = {"mode=full", "mode=damped", "mode=quasi,warm=on", "mode=quasi,on_fail=sequential",
                          "mode=quasi,jacobian_clamp=10", "mode=quasi,recompute=4"};
    const char *needs[] = {"mode = quasi", "mode = quasi", "warm = off", "on_fail = error or retry",
                           "jacobian_clamp off", "recompute and layers_wavefront off"};
    for (int i = 0; i < 6; i++) {
        refused_with_two("deer", deer[i], LOGT_EUNSUPPORTED);
        cr_assert(strstr(logt_errmsg(), "gpus = 2 splits the sequence in time, and needs") &&
                      strstr(logt_errmsg(), needs[i]), "%s: %s", deer[i], logt_errmsg());
    }
    logt_model_cfg_init(&cfg, "lstm", LOGT_CPU, 3, 4);
    cr_assert_eq(logt_cfg_set_knob(&cfg, "gpus", "2"), LOGT_OK);
    logt_net *net = NULL;
    cr_assert_neq(logt_net_create(&cfg, &net), LOGT_OK, "lstm has no gpus knob");
    cr_assert(strstr(logt_errmsg(), "gpus"), "%s", logt_errmsg());
}

/* deer's pieces on CUDA (deer_pieces_cuda.cu), the model's tensors on GPU 0: with two GPUs, h
 * and every gradient of gpus = 2 (two layers, from given states, pieces of uneven length)
 * against the one-GPU deer on CUDA, twice (the second pass reuses the handle and the copies);
 * with fewer, the forward's error says how many GPUs it asked for and how many are visible. */
#ifdef LOGT_HAVE_CUDA
#include <cuda_runtime.h>

Test(seq_parallel, deer_gpus_on_cuda, .timeout = 120)
{
    SKIP_WITHOUT_GPU("deer gpus = 2 on cuda");
    int have = 0;
    if (cudaGetDeviceCount(&have) != cudaSuccess) have = 0;
    const char *cells[] = {"gru", "lstm"};
    for (int c = 0; c < 2; c++) {
        setup one = {"deer", cells[c], "mode=quasi,tol=1e-6", LOGT_CUDA, LOGT_F32, 2001, 3, 5, 4, 0, 2, 1};
        setup two = one;
        two.knobs = "mode=quasi,tol=1e-6,gpus=2";
        if (have < 2) {
            logt_model_cfg cfg;
            logt_model_cfg_init(&cfg, "deer", LOGT_CUDA, 5, 4);
            snprintf(cfg.cell, sizeof cfg.cell, "%s", cells[c]);
            set_knobs(&cfg, two.knobs);
            logt_net *net = NULL;
            cr_assert_eq(logt_net_create(&cfg, &net), LOGT_OK, "%s", logt_errmsg());
            logt_tensor x = filled(LOGT_CUDA, LOGT_F32, 9, 3, 5, 1, 1.0);
            logt_ctx *ctx = NULL;
            cr_assert_eq(logt_ctx_create(LOGT_CUDA, &ctx), LOGT_OK, "%s", logt_errmsg());
            const logt_tensor *h = NULL;
            cr_assert_neq(logt_net_forward(net, &x, &h, ctx), LOGT_OK, "gpus = 2 with %d GPU visible", have);
            cr_assert(strstr(logt_errmsg(), "deer gpus = 2") && (strstr(logt_errmsg(), "2 GPUs asked for, 1 visible") ||
                                                                   strstr(logt_errmsg(), "without NCCL")),
                      "%s", logt_errmsg());
            logt_ctx_destroy(ctx);
            logt_tensor_free(&x);
            logt_net_destroy(net);
            continue;
        }
        pass ref = run_pass(&one, NULL, 1), p = run_pass(&two, NULL, 1);
        cr_assert(strstr(p.detail, "gpus=2") && strstr(p.detail, "backward ms"), "gpus = 2 ran: %s", p.detail);
        char what[64];
        snprintf(what, sizeof what, "off, deer %s gpus = 2 on cuda", cells[c]);
        same_pass(what, &p, &ref, 1e-4, 1e-3);
        free_pass(&p), free_pass(&ref);
    }
}
#endif
