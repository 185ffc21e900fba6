/* test_recompute.c — recompute = K (net.c): a training pass in segments, each recomputed in
 * the backward, against the plain pass of the same net (recompute.h). On the CPU the float64
 * references give the same bits (every sum runs in the same order); on CUDA the two agree to
 * the dtype's rounding. Shapes are awkward: T not a multiple of K, K = 1, K = T - 1, K >= T
 * (no recomputation), auto; two layers; from a given initial state and from zeros. */
#include "recompute.h"

Test(recompute, lstm_cpu_same_bits) { cpu_case("lstm", NULL, NULL, 0); }

Test(recompute, lstm_cuda_matches)
{
    SKIP_WITHOUT_GPU("lstm recompute");
    for (int state = 0; state < 2; state++) {
        setup s = {"lstm", NULL, NULL, LOGT_CUDA, LOGT_F32, 37, 5, 7, 24, 0, 2, state};
        static const char *const rcs[] = {"8", "1", "36", "auto", "100", NULL};
        expect_same(&s, rcs, 2e-5);
    }
}

/* Three layers as a wavefront of segments: on the CPU the same order of sums, so the same
 * bits; on CUDA, each layer on its own stream. */
Test(recompute, lstm_wavefront_cpu_same_bits)
{
    for (int state = 0; state < 2; state++) {
        setup s = {"lstm", NULL, NULL, LOGT_CPU, LOGT_F64, 10, 2, 3, 4, 0, 3, state};
        expect_wavefront(&s, AWKWARD, 0);
    }
}

Test(recompute, lstm_wavefront_cuda_matches)
{
    SKIP_WITHOUT_GPU("lstm wavefront");
    for (int state = 0; state < 2; state++) {
        setup s = {"lstm", NULL, NULL, LOGT_CUDA, LOGT_F32, 37, 5, 7, 24, 0, 3, state};
        static const char *const rcs[] = {"8", "1", "auto", "100", NULL};
        expect_wavefront(&s, rcs, 2e-5);
    }
}

/* Every model with segments as a wavefront of three layers on CUDA, each layer on its own
 * stream, against its plain pass: flashrnn's fused kernel (bf16, and an f32 shape whose
 * segments split their input projection into chunks: the wavefront turns that overlap off)
 * and its alternating path, sru, gilr-lstm and quasi-DEER. */
Test(recompute, every_model_wavefront_cuda_matches, .timeout = 300)
{
    SKIP_WITHOUT_GPU("wavefront of every model");
    static const char *const rcs[] = {"8", "auto", NULL};
    const setup cases[] = {
        {"flashrnn", "lstm", "kernel=fused", LOGT_CUDA, LOGT_BF16, 37, 5, 7, 64, 16, 3, 1},
        {"flashrnn", "gru", "kernel=fused", LOGT_CUDA, LOGT_F32, 256, 4, 8, 256, 128, 3, 0},
        {"flashrnn", "lstm", "kernel=alternating", LOGT_CUDA, LOGT_F32, 37, 5, 7, 64, 16, 3, 1},
        {"sru", NULL, NULL, LOGT_CUDA, LOGT_F32, 37, 5, 7, 24, 0, 3, 1},
        {"gilr-lstm", NULL, NULL, LOGT_CUDA, LOGT_F32, 37, 5, 7, 24, 0, 3, 1},
        {"deer", "gru", "mode=quasi,tol=1e-6", LOGT_CUDA, LOGT_F32, 37, 5, 7, 24, 0, 3, 1},
    };
    /* flashrnn f32: TF32 products over GEMMs of other shapes (test_recompute_flashrnn.c) */
    const double tol[] = {3e-2, 1e-3, 1e-3, 2e-5, 2e-5, 3e-4};
    for (int i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++) expect_wavefront(&cases[i], rcs, tol[i]);
}

/* Bad values are named at configuration time; a model without segments says which have them. */
Test(recompute, bad_values_are_named)
{
    const char *bad[] = {"0", "-3", "many", "2.5", ""};
    for (int i = 0; i < 5; i++) {
        logt_model_cfg cfg;
        logt_model_cfg_init(&cfg, "lstm", LOGT_CPU, 3, 4);
        cr_assert_eq(logt_cfg_set_knob(&cfg, "recompute", bad[i]), LOGT_OK);
        logt_net *net = NULL;
        cr_assert_eq(logt_net_create(&cfg, &net), LOGT_EINVAL, "recompute = '%s'", bad[i]);
        cr_assert(strstr(logt_errmsg(), "recompute") && strstr(logt_errmsg(), "auto"), "%s", logt_errmsg());
    }
    logt_model_cfg cfg;
    logt_model_cfg_init(&cfg, "lstm-cudnn", LOGT_CUDA, 3, 4);
    cr_assert_eq(logt_cfg_set_knob(&cfg, "recompute", "4"), LOGT_OK);
    logt_layout lay;
    cr_assert_eq(logt_model_layout(logt_model_find("lstm-cudnn"), &cfg, &lay), LOGT_EUNSUPPORTED);
    cr_assert(strstr(logt_errmsg(), "lstm-cudnn cannot run its sequence in segments") && strstr(logt_errmsg(), "lstm"),
              "%s", logt_errmsg());
    logt_model_cfg_init(&cfg, "lstm", LOGT_CPU, 3, 4);
    cr_assert_eq(logt_cfg_set_knob(&cfg, "layers_wavefront", "yes"), LOGT_OK);
    logt_net *net = NULL;
    cr_assert_eq(logt_net_create(&cfg, &net), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "layers_wavefront = 'yes'") && strstr(logt_errmsg(), "off"), "%s", logt_errmsg());
}

/* recompute = auto: K near sqrt(T), or the model's segment_min elements where that is longer
 * (gilr's and sru's kernels are parallel over T, gilr's floor the larger; the lstm has none);
 * K >= T recomputes nothing. */
Test(recompute, auto_takes_sqrt_T_or_the_floor)
{
    const struct { const char *model; int64_t T, B, D, K; } cases[] = {
        {"lstm", 1000, 4, 64, 32},     {"lstm", 1 << 20, 4, 64, 1024},
        {"gilr", 1 << 20, 4, 64, 131072}, {"gilr", 1000, 4, 64, 0},
        {"gilr", 1 << 20, 1024, 64, 1024}, {"gilr", 1 << 20, 64, 64, 8192},
        {"gilr", 1 << 20, 32, 64, 16384}, {"gilr-lstm", 1 << 20, 4, 64, 131072},
        {"sru", 1 << 23, 16, 16, 16384},
        {"deer", 1 << 23, 16, 16, 16384}};
    /* the wavefront takes T / (4 layers) where auto or K leaves the sequence whole */
    const struct { const char *model, *rc; int64_t T, K; } waves[] = {
        {"gilr", "auto", 1000, 125}, {"gilr", "2000", 1000, 125}, {"gilr", "100", 1000, 100}, {"lstm", "auto", 1000, 32}};
    for (int i = 0; i < 4; i++) {
        logt_model_cfg cfg;
        logt_model_cfg_init(&cfg, waves[i].model, LOGT_CPU, 4, 64);
        cfg.layers = 2;
        cr_assert_eq(logt_cfg_set_knob(&cfg, "recompute", waves[i].rc), LOGT_OK);
        cr_assert_eq(logt_cfg_set_knob(&cfg, "layers_wavefront", "on"), LOGT_OK);
        logt_net *net = NULL;
        cr_assert_eq(logt_net_create(&cfg, &net), LOGT_OK, "%s: %s", waves[i].model, logt_errmsg());
        const int64_t K = logt_net_segment_length(net, waves[i].T, 4);
        cr_assert_eq(K, waves[i].K, "%s recompute = %s, wavefront, T = %lld: K = %lld, want %lld", waves[i].model,
                     waves[i].rc, (long long)waves[i].T, (long long)K, (long long)waves[i].K);
        logt_net_destroy(net);
    }
    for (int i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++) {
        logt_model_cfg cfg;
        logt_model_cfg_init(&cfg, cases[i].model, LOGT_CPU, 4, (int)cases[i].D);
        cr_assert_eq(logt_cfg_set_knob(&cfg, "recompute", "auto"), LOGT_OK);
        logt_net *net = NULL;
        cr_assert_eq(logt_net_create(&cfg, &net), LOGT_OK, "%s: %s", cases[i].model, logt_errmsg());
        const int64_t K = logt_net_segment_length(net, cases[i].T, cases[i].B);
        cr_assert_eq(K, cases[i].K, "%s T = %lld, B = %lld, D = %lld: K = %lld, want %lld", cases[i].model,
                     (long long)cases[i].T, (long long)cases[i].B, (long long)cases[i].D, (long long)K,
                     (long long)cases[i].K);
        logt_net_destroy(net);
    }
}
