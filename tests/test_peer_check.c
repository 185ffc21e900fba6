/* test_peer_check.c — each original implementation computes the same function as logt's own
 * model: logt's float64 CPU model makes its parameters (all layers, in its flat layout) and a
 * forward on a fixed random input; the peer's adapter gets the same x and parameters as a check
 * request (peers/README.md), runs one forward in float64 and writes its h, and the two agree to
 * 1e-10 of the output's scale. Pairs: torch-lstm and lstm, torch-gru and a one-head flashrnn gru,
 * FlashRNN's own (pure-PyTorch) backend and flashrnn with heads, every cell (lstm, gru, slstm
 * with its stabiliser, elman), the SRU authors' layer and sru (v on and zero, I = D and I != D),
 * and DEER's JAX code and deer (gru, tanh).
 *
 * Needs the peers' packages (peers/README.md, "Getting the packages"): where the adapter
 * answers that one is missing, the test skips and says what. LOGT_PYTHON picks the interpreter
 * (a venv with torch, say), LOGT_DEER_PATH the DEER checkout.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../models/model.h"
#include "../runner/peer.h"
#include "../runner/util.h"
#include "repo.h"

static char tmp[64];

static void setup(void)
{
    char peers[PATH_MAX + 16];
    repo_path(peers, sizeof peers, "peers");
    setenv("LOGT_PEERS", peers, 0);
    snprintf(tmp, sizeof tmp, "/tmp/logt-peercheck-XXXXXX");
    cr_assert_not_null(mkdtemp(tmp));
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    if (system(cmd) != 0) cr_log_warn("could not remove %s", tmp);
}

TestSuite(peer_check, .init = setup, .fini = teardown, .timeout = 600);

static void write_f64(const char *path, const double *v, int64_t n)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "cannot write %s", path);
    cr_assert_eq(fwrite(v, sizeof *v, (size_t)n, f), (size_t)n);
    fclose(f);
}

/* One comparison: logt's model (cell, head_dim, knobs "k=v,...") against peer with its knobs
 * (a JSON object's members, "" for none). */
typedef struct pair {
    const char *peer, *peer_knobs, *model, *cell, *knobs;
    int T, B, I, D, dh, L;
} pair;

static void expect_same_function(pair p)
{
    char label[256];
    snprintf(label, sizeof label, "%s {%s} against %s %s [%s] T=%d B=%d I=%d D=%d dh=%d L=%d", p.peer,
             p.peer_knobs, p.model, p.cell, p.knobs, p.T, p.B, p.I, p.D, p.dh, p.L);
    logt_model_cfg cfg;
    logt_model_cfg_init(&cfg, p.model, LOGT_CPU, p.I, p.D);
    snprintf(cfg.cell, sizeof cfg.cell, "%s", p.cell);
    cfg.head_dim = p.dh;
    cfg.layers = p.L;
    cfg.seed = 3;
    char knobs[128];
    snprintf(knobs, sizeof knobs, "%s", p.knobs);
    for (char *k = strtok(knobs, ","); k; k = strtok(NULL, ",")) {
        char *eq = strchr(k, '=');
        cr_assert_not_null(eq);
        *eq = '\0';
        cr_assert_eq(logt_cfg_set_knob(&cfg, k, eq + 1), LOGT_OK, "%s", logt_errmsg());
    }
    logt_net *net;
    cr_assert_eq(logt_net_create(&cfg, &net), LOGT_OK, "%s: %s", label, logt_errmsg());
    logt_tensor x = {0};
    cr_assert_eq(logt_tensor_new3(&x, LOGT_CPU, LOGT_F64, p.T, p.B, p.I), LOGT_OK);
    srand(5);
    for (int64_t i = 0; i < x.numel; i++) ((double *)x.data)[i] = 2.0 * rand() / RAND_MAX - 1.0;
    const logt_tensor *h;
    cr_assert_eq(logt_net_forward(net, &x, &h, NULL), LOGT_OK, "%s: %s", label, logt_errmsg());

    char xp[96], wp[96], hp[96], req[1024];
    snprintf(xp, sizeof xp, "%s/x", tmp);
    snprintf(wp, sizeof wp, "%s/w", tmp);
    snprintf(hp, sizeof hp, "%s/h", tmp);
    write_f64(xp, x.data, x.numel);
    write_f64(wp, net->w.data, net->w.numel);
    unlink(hp);
    snprintf(req, sizeof req,
             "{\"peer\": \"%s\", \"kind\": \"speed\", \"T\": %d, \"B\": %d, \"D\": %d, \"input_size\": %d, "
             "\"head_dim\": %d, \"layers\": %d, \"dtype\": \"f32\", \"cell\": \"%s\", \"pass\": \"forward\", "
             "\"warmup\": 0, \"repeats\": 1, \"seed\": 1, \"device\": \"cpu\", \"knobs\": {%s}, "
             "\"check\": {\"x\": \"%s\", \"w\": \"%s\", \"h\": \"%s\"}}",
             p.peer, p.T, p.B, p.D, p.I, p.dh, p.L, p.cell, p.peer_knobs, xp, wp, hp);
    logt_peer_reply r;
    cr_assert_eq(logt_peer_call(p.peer, req, &r), LOGT_OK, "%s", logt_errmsg());
    if (r.outcome == PEER_SKIP) {
        logt_tensor_free(&x);
        logt_net_destroy(net);
        cr_skip_test("%s", r.message);
    }
    cr_assert_eq(r.outcome, PEER_OK, "%s: %s", label, r.message);

    const int64_t n = (int64_t)p.T * p.B * p.D;
    double *theirs = malloc((size_t)n * sizeof *theirs);
    FILE *f = fopen(hp, "rb");
    cr_assert_not_null(f, "%s: the adapter wrote no h", label);
    cr_assert_eq(fread(theirs, sizeof *theirs, (size_t)n, f), (size_t)n, "%s: h is short", label);
    fclose(f);
    const double *ours = h->data;
    double scale = 0, err = 0;
    for (int64_t i = 0; i < n; i++) {
        scale = fmax(scale, fabs(ours[i]));
        err = fmax(err, fabs(ours[i] - theirs[i]));
    }
    cr_expect_leq(err, 1e-10 * fmax(scale, 1e-30), "%s: max |h - logt's h| = %.3g (max |h| %.3g)", label,
                  err, scale);
    cr_log_info("%s: max |h - logt's h| = %.3g (max |h| %.3g)", label, err, scale);
    free(theirs);
    logt_peer_reply_free(&r);
    logt_tensor_free(&x);
    logt_net_destroy(net);
}

Test(peer_check, torch_lstm_is_logt_lstm)
{
    expect_same_function((pair){"torch-lstm", "", "lstm", "", "", 9, 3, 5, 4, 0, 2});
}

Test(peer_check, torch_gru_is_flashrnn_gru_with_one_head)
{
    expect_same_function((pair){"torch-gru", "", "flashrnn", "gru", "", 9, 3, 5, 4, 0, 2});
}

Test(peer_check, flashrnn_is_logt_flashrnn_with_heads)
{
    expect_same_function((pair){"flashrnn", "\"route\": \"vanilla\"", "flashrnn", "lstm", "", 7, 3, 5, 8, 4, 2});
    expect_same_function((pair){"flashrnn", "\"route\": \"vanilla\"", "flashrnn", "gru", "", 7, 3, 5, 8, 4, 2});
}

/* FlashRNN's vanilla sLSTM (flashrnn/vanilla/slstm.py): 2 heads, 2 layers, I != D; from logt's
 * initialisation, and with chrono forget biases up to log 49, which make lf = log σ(f) + m
 * win the stabiliser's max against i. */
Test(peer_check, flashrnn_slstm_is_logt_flashrnn_slstm)
{
    expect_same_function((pair){"flashrnn", "\"route\": \"vanilla\"", "flashrnn", "slstm", "", 7, 3, 5, 8, 4, 2});
    expect_same_function((pair){"flashrnn", "\"route\": \"vanilla\"", "flashrnn", "slstm",
                                "forget_init=chrono:50", 9, 3, 5, 8, 4, 2});
}

Test(peer_check, flashrnn_elman_is_logt_flashrnn_elman)
{
    expect_same_function((pair){"flashrnn", "\"route\": \"vanilla\"", "flashrnn", "elman", "", 7, 3, 5, 8, 4, 2});
}

Test(peer_check, sru_authors_layer_is_logt_sru)
{
    expect_same_function((pair){"sru", "", "sru", "", "", 8, 3, 4, 4, 0, 2});
    expect_same_function((pair){"sru", "\"v\": \"zero\"", "sru", "", "v=zero", 8, 3, 5, 4, 0, 2});
}

Test(peer_check, deer_jax_is_logt_deer)
{
    if (!getenv("LOGT_DEER_PATH")) cr_skip_test("LOGT_DEER_PATH is not set (a checkout of machine-discovery/deer)");
    expect_same_function((pair){"deer-jax", "", "deer", "gru", "", 200, 4, 3, 5, 0, 1});
    expect_same_function((pair){"deer-jax", "", "deer", "tanh", "", 200, 4, 3, 5, 0, 1});
}
