/* test_seq_parallel.c — gpus = N for gilr and gilr-lstm on the CPU: every linear scan of the
 * training pass split in time into N pieces (kernels/scan_multi.h's float64 reference of the
 * sequence-parallel path), against the same net in one piece. The pieces compose the scan's
 * maps in another order, so the values agree to rounding, not to the bit; gpus = 1 is the
 * plain pass's own bits. */
#include "recompute.h"

static setup with_knobs(const char *model, const char *knobs, int T, int state)
{
    setup s = {model, NULL, knobs, LOGT_CPU, LOGT_F64, T, 2, 3, 4, 0, 2, state};
    return s;
}

/* h and every gradient of knobs' pass against the plain pass's, within tol of their largest. */
static void expect_like_plain(const char *model, const char *knobs, int T, int state, double tol)
{
    setup plain = with_knobs(model, NULL, T, state), split = with_knobs(model, knobs, T, state);
    pass ref = run(&plain, NULL), p = run(&split, NULL);
    char what[96];
    snprintf(what, sizeof what, "off, %s at T = %d%s", knobs, T, state ? " with h0, c0" : "");
    same("h", what, p.h, ref.h, ref.nh, tol);
    same("dw", what, p.dw, ref.dw, ref.nw, tol);
    same("dx", what, p.dx, ref.dx, ref.nx, tol);
    same("dh0", what, p.dh0, ref.dh0, ref.ns, tol);
    same("dc0", what, p.dc0, ref.dc0, ref.ns, tol);
    free_pass(&p), free_pass(&ref);
}

/* T = 10 in 2, 3 (4 + 3 + 3) and 16 pieces (10 of one step), T = 7 in 5, T = 2 and 1 in 3 (one
 * piece a step, one piece); two layers, from zeros and from given states. */
static void pieces_like_one(const char *model)
{
    const struct { const char *knobs; int T; } cases[] = {
        {"gpus=2", 10}, {"gpus=3", 10}, {"gpus=16", 10}, {"gpus=5", 7}, {"gpus=3", 2}, {"gpus=3", 1}};
    for (int state = 0; state < 2; state++) {
        for (int i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++)
            expect_like_plain(model, cases[i].knobs, cases[i].T, state, 1e-13);
        expect_like_plain(model, "gpus=1", 10, state, 0);
    }
}

Test(seq_parallel, gilr_pieces_equal_one_piece) { pieces_like_one("gilr"); }
Test(seq_parallel, gilr_lstm_pieces_equal_one_piece) { pieces_like_one("gilr-lstm"); }

/* The layers say what they run: their scans in N pieces, or one serial scan. */
Test(seq_parallel, impl_names_the_pieces)
{
    const char *models[] = {"gilr", "gilr-lstm"};
    for (int i = 0; i < 2; i++)
        for (int g = 1; g <= 3; g += 2) {
            logt_model_cfg cfg;
            logt_model_cfg_init(&cfg, models[i], LOGT_CPU, 3, 4);
            cfg.layers = 2;
            char v[8];
            snprintf(v, sizeof v, "%d", g);
            cr_assert_eq(logt_cfg_set_knob(&cfg, "gpus", v), LOGT_OK);
            logt_net *net = NULL;
            cr_assert_eq(logt_net_create(&cfg, &net), LOGT_OK, "%s", logt_errmsg());
            for (int l = 0; l < 2; l++) {
                const char *impl = net->layer[l]->impl;
                cr_assert(g == 1 ? strstr(impl, "a serial linear scan") != NULL : strstr(impl, "in 3 pieces of time") != NULL,
                          "%s gpus = %d, layer %d: %s", models[i], g, l, impl);
            }
            logt_net_destroy(net);
        }
}

/* With recomputation each segment's scans are split again: the same pass to rounding. */
Test(seq_parallel, pieces_with_recompute)
{
    for (int state = 0; state < 2; state++) {
        expect_like_plain("gilr", "gpus=3,recompute=4", 10, state, 1e-13);
        expect_like_plain("gilr-lstm", "gpus=2,recompute=3", 10, state, 1e-13);
    }
}

/* Bad values are named at configuration time; more than one piece on cuda is refused there. */
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
    logt_model_cfg_init(&cfg, "lstm", LOGT_CPU, 3, 4);
    cr_assert_eq(logt_cfg_set_knob(&cfg, "gpus", "2"), LOGT_OK);
    logt_net *net = NULL;
    cr_assert_neq(logt_net_create(&cfg, &net), LOGT_OK, "lstm has no gpus knob");
    cr_assert(strstr(logt_errmsg(), "gpus"), "%s", logt_errmsg());
}
