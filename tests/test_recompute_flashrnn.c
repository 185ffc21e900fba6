/* test_recompute_flashrnn.c — recompute = K with the flashrnn model (recompute.h): a training
 * pass in segments against the plain pass of the same net, every output and gradient. The
 * float64 reference gives the same bits (its weight gradients sum over the steps from the last,
 * as the segments run); on CUDA the fused kernels and the alternating path agree with their
 * own plain pass to the dtype's rounding: f32 to TF32's (the products' operands keep 11 bits,
 * 2^-11 = 4.9e-4, and the segments' GEMMs are other shapes than the whole pass's, so their
 * sums round differently: up to 1.9e-4 of the largest gradient seen on an H100), bf16 to the
 * rounding of the states and their gradients carried between segments in bf16. A gru or elman hands on
 * h alone (no c0). The slstm's n and m are states the
 * segments do not carry: recompute or a wavefront with it is refused at configuration time. */
#include "recompute.h"

/* ---- cpu: the same bits ------------------------------------------------------------------- */

/* T = 10, B = 2, I = 3, D = 4 (cpu_case's net), two heads of 2 (dh = 2) or one (dh = 0). */
static void cpu(const char *cell, int dh)
{
    for (int state = 0; state < 2; state++) {
        setup s = {"flashrnn", cell, NULL, LOGT_CPU, LOGT_F64, 10, 2, 3, 4, dh, 2, state};
        expect_same(&s, AWKWARD, 0);
    }
}

Test(recompute_flashrnn, lstm_cpu_same_bits) { cpu_case("flashrnn", "lstm", NULL, 2), cpu_case("flashrnn", "lstm", NULL, 0); }
Test(recompute_flashrnn, gru_cpu_same_bits) { cpu("gru", 2), cpu("gru", 0); }
Test(recompute_flashrnn, elman_cpu_same_bits) { cpu("elman", 2), cpu("elman", 0); }

/* The layers as a wavefront of segments (layers_wavefront = on), with its own segments and
 * with each K, against the plain pass: the same bits. */
Test(recompute_flashrnn, wavefront_cpu_same_bits)
{
    const char *const cells[] = {"lstm", "gru", "elman"};
    for (int c = 0; c < 3; c++)
        for (int state = 0; state < (c ? 1 : 2); state++) {   /* run's state has a c0: lstm only */
            setup s = {"flashrnn", cells[c], NULL, LOGT_CPU, LOGT_F64, 10, 2, 3, 4, 2, 2, state};
            expect_wavefront(&s, AWKWARD, 0);
        }
}

/* The slstm's normaliser and stabiliser are not among the states the net hands between
 * segments: any recompute but off, and layers_wavefront = on, are refused by the layout, with
 * what would work. */
Test(recompute_flashrnn, slstm_refuses_segments)
{
    const char *const on[] = {"4", "auto", "1000"};
    for (int i = 0; i < 3; i++) {
        logt_model_cfg cfg;
        logt_model_cfg_init(&cfg, "flashrnn", LOGT_CPU, 3, 4);
        snprintf(cfg.cell, sizeof cfg.cell, "slstm");
        cr_assert_eq(logt_cfg_set_knob(&cfg, "recompute", on[i]), LOGT_OK);
        logt_layout lay;
        cr_assert_eq(logt_model_layout(logt_model_find("flashrnn"), &cfg, &lay), LOGT_EUNSUPPORTED,
                     "recompute = %s", on[i]);
        const char *msg = logt_errmsg();
        cr_assert(strstr(msg, "cell slstm cannot recompute") && strstr(msg, "normaliser n")
                  && strstr(msg, "leave recompute = off") && strstr(msg, "cell lstm, gru or elman"), "%s", msg);
        logt_net *net = NULL;
        cr_assert_eq(logt_net_create(&cfg, &net), LOGT_EUNSUPPORTED, "recompute = %s", on[i]);
        cr_assert(strstr(logt_errmsg(), "cell slstm cannot recompute"), "%s", logt_errmsg());
    }
    logt_model_cfg cfg;
    logt_model_cfg_init(&cfg, "flashrnn", LOGT_CPU, 3, 4);
    snprintf(cfg.cell, sizeof cfg.cell, "slstm");
    cfg.layers = 2;
    cr_assert_eq(logt_cfg_set_knob(&cfg, "layers_wavefront", "on"), LOGT_OK);
    logt_net *net = NULL;
    cr_assert_eq(logt_net_create(&cfg, &net), LOGT_EUNSUPPORTED);
    cr_assert(strstr(logt_errmsg(), "cell slstm cannot run as a layers_wavefront")
              && strstr(logt_errmsg(), "leave layers_wavefront = off"), "%s", logt_errmsg());
    cr_assert_eq(logt_cfg_set_knob(&cfg, "layers_wavefront", "off"), LOGT_OK);
    cr_assert_eq(logt_cfg_set_knob(&cfg, "recompute", "off"), LOGT_OK);
    cr_assert_eq(logt_net_create(&cfg, &net), LOGT_OK, "%s", logt_errmsg());
    logt_net_destroy(net);
}

/* ---- cuda: the plain pass to the dtype's rounding -------------------------------------------- */

/* T = 37 (prime: every K leaves a short last segment), B = 5, I = 7, D = 64 in heads of dh,
 * two layers, from zeros and from a state; K = 8, 1, 36 (T - 1), auto (7) and 100 (none). */
static void cuda(const char *cell, const char *kernel, logt_dtype dt, int dh)
{
    static const char *const rcs[] = {"8", "1", "36", "auto", "100", NULL};
    char knobs[64];
    snprintf(knobs, sizeof knobs, "kernel=%s", kernel);
    for (int state = 0; state < 2; state++) {
        setup s = {"flashrnn", cell, knobs, LOGT_CUDA, dt, 37, 5, 7, 64, dh, 2, state};
        expect_same(&s, rcs, dt == LOGT_BF16 ? 3e-2 : 1e-3);
    }
}

Test(recompute_flashrnn, fused_lstm_cuda_matches)
{
    SKIP_WITHOUT_GPU("flashrnn recompute");
    for (int dh = 16; dh <= 64; dh *= 4) cuda("lstm", "fused", LOGT_F32, dh), cuda("lstm", "fused", LOGT_BF16, dh);
}

Test(recompute_flashrnn, fused_gru_cuda_matches)
{
    SKIP_WITHOUT_GPU("flashrnn recompute");
    for (int dh = 16; dh <= 64; dh *= 4) cuda("gru", "fused", LOGT_F32, dh), cuda("gru", "fused", LOGT_BF16, dh);
}

Test(recompute_flashrnn, alternating_cuda_matches)
{
    SKIP_WITHOUT_GPU("flashrnn recompute");
    for (int dh = 16; dh <= 64; dh *= 4) {
        cuda("lstm", "alternating", LOGT_F32, dh), cuda("lstm", "alternating", LOGT_BF16, dh);
        cuda("gru", "alternating", LOGT_F32, dh), cuda("gru", "alternating", LOGT_BF16, dh);
    }
}

/* A head split over blocks that meet through global memory, whose weight gradients run beside
 * the fused backward (grad_overlap, T >= 64): K = 70 of T = 100 leaves a first segment of 70
 * steps, which adds its overlapped gradients to the last segment's; auto (K = 10) segments
 * run the split kernels from a carried state and its gradient. The shapes of
 * test_flashrnn_cuda.c's grad_overlap test. */
Test(recompute_flashrnn, fused_split_heads_and_grad_overlap_match, .timeout = 600)
{
    SKIP_WITHOUT_GPU("flashrnn recompute");
    static const char *const rcs[] = {"70", "auto", NULL};
    const char *knobs = "kernel=fused,head_sync=grid,warps_k=4,cell_split=1";
    setup gru = {"flashrnn", "gru", knobs, LOGT_CUDA, LOGT_BF16, 100, 3, 8, 512, 256, 2, 1};
    expect_same(&gru, rcs, 3e-2);
    setup lstm = {"flashrnn", "lstm", knobs, LOGT_CUDA, LOGT_F32, 100, 3, 8, 256, 128, 2, 1};
    expect_same(&lstm, rcs, 1e-3);
}
