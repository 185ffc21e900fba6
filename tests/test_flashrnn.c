/* test_flashrnn.c — the float64 CPU reference of flashrnn (models/flashrnn/flashrnn.h): every
 * gradient against central differences for the lstm and gru cells (one head and several, odd B, T = 1,
 * with and without an initial state, one layer and two), a GRU step worked by hand, the
 * block-diagonal structure (H heads = H separate one-head models), the lstm cell with one
 * head against the `lstm` model, and the configurations it must refuse. The slstm and elman
 * cells: test_flashrnn_cells.c. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../models/model.h"
#include "check.h"
#include "gradcheck.h"

static double sig(double a) { return 1 / (1 + exp(-a)); }

static logt_net *make_net(const char *model, const char *cell, int I, int D, int dh, int L,
                          uint64_t seed)
{
    logt_model_cfg cfg;
    logt_model_cfg_init(&cfg, model, LOGT_CPU, I, D);
    snprintf(cfg.cell, sizeof cfg.cell, "%s", cell);
    cfg.head_dim = dh;
    cfg.layers = L;
    cfg.seed = seed;
    logt_net *net;
    cr_assert_eq(logt_net_create(&cfg, &net), LOGT_OK, "%s", logt_errmsg());
    return net;
}

/* Layer 0's slice `name` of the parameters (or, with grad, of the gradients). */
static double *slice(logt_net *net, const char *name, int grad)
{
    const logt_slice *s = logt_layout_find(&net->layout[0], name);
    cr_assert(s, "no slice %s", name);
    return (double *)(grad ? net->dw.data : net->w.data) + net->layer_offset[0] + s->offset;
}

/* ---- gradients ------------------------------------------------------------------------ */

typedef struct gc_case {
    const char *cell;
    int T, B, I, D, dh, L, with_state;
} gc_case;

/* Every parameter slice of every layer, dx, and dh0 (and dc0 for lstm) when a state is set,
 * against central differences of L = sum(dh ⊙ h). */
static void gradcheck(gc_case c)
{
    const int lstm = strcmp(c.cell, "gru") != 0;
    char label[96];
    snprintf(label, sizeof label, "flashrnn %s T=%d B=%d D=%d dh=%d L=%d %s", c.cell, c.T, c.B,
             c.D, c.dh, c.L, c.with_state ? "with state" : "from zeros");
    logt_net *net = make_net("flashrnn", c.cell, c.I, c.D, c.dh, c.L, 5);
    cr_assert_eq(logt_net_nslices(net), c.L * (lstm ? 3 : 4), "%s: slices W, R, b%s per layer",
                 label, lstm ? "" : ", bn");
    logt_tensor x = tensor3(c.T, c.B, c.I, NULL), dh = tensor3(c.T, c.B, c.D, NULL);
    logt_tensor dx = tensor3(c.T, c.B, c.I, NULL);
    logt_tensor h0 = tensor3(c.L, c.B, c.D, NULL), c0 = tensor3(c.L, c.B, c.D, NULL);
    fill(x.data, x.numel, 1), fill(dh.data, dh.numel, 2);
    fill(h0.data, h0.numel, 3), fill(c0.data, c0.numel, 4);
    if (c.with_state)
        cr_assert_eq(logt_net_set_state(net, &h0, lstm ? &c0 : NULL), LOGT_OK, "%s", logt_errmsg());

    loss_of(net, &x, dh.data);
    cr_assert_eq(logt_net_backward(net, &dh, &dx, NULL), LOGT_OK, "%s", logt_errmsg());

    for (int s = 0; s < logt_net_nslices(net); s++) {   /* one slice at a time: W, R, b, bn */
        char name[64];
        int64_t off, len;
        cr_assert_eq(logt_net_slice(net, s, name, sizeof name, &off, &len), LOGT_OK);
        expect_grad(net, &x, dh.data, label, name, (double *)net->w.data + off,
                    (double *)net->dw.data + off, len);
    }
    expect_grad(net, &x, dh.data, label, "dx", x.data, dx.data, x.numel);
    if (c.with_state) {
        expect_grad(net, &x, dh.data, label, "dh0", net->h0.data, net->dh0.data, net->h0.numel);
        if (lstm)
            expect_grad(net, &x, dh.data, label, "dc0", net->c0.data, net->dc0.data, net->c0.numel);
    }
    logt_tensor_free(&x), logt_tensor_free(&dh), logt_tensor_free(&dx);
    logt_tensor_free(&h0), logt_tensor_free(&c0);
    logt_net_destroy(net);
}

/* cell, T, B, I, D, dh, L, with_state. B odd throughout; I != D so that W is not square. */
static const gc_case lstm_cases[] = {
    {"lstm", 5, 3, 3, 4, 0, 1, 1},   /* one head (dh = D)                 */
    {"lstm", 5, 3, 4, 6, 2, 1, 1},   /* H = 3 heads of 2                   */
    {"lstm", 5, 3, 4, 6, 2, 1, 0},   /* ... from a zero state              */
    {"lstm", 1, 3, 4, 6, 3, 1, 1},   /* T = 1: only the initial state recurs */
    {"lstm", 4, 1, 3, 4, 2, 2, 1},   /* two layers, B = 1                  */
};
static const gc_case gru_cases[] = {
    {"gru", 5, 3, 3, 4, 0, 1, 1},
    {"gru", 5, 3, 4, 6, 2, 1, 1},
    {"gru", 5, 3, 4, 6, 2, 1, 0},
    {"gru", 1, 3, 4, 6, 3, 1, 1},
    {"gru", 4, 1, 3, 4, 2, 2, 1},
};

Test(flashrnn_cpu, lstm_gradients_match_finite_differences)
{
    for (size_t i = 0; i < sizeof lstm_cases / sizeof lstm_cases[0]; i++) gradcheck(lstm_cases[i]);
}

Test(flashrnn_cpu, gru_gradients_match_finite_differences)
{
    for (size_t i = 0; i < sizeof gru_cases / sizeof gru_cases[0]; i++) gradcheck(gru_cases[i]);
}

Test(flashrnn_cpu, empty_cell_is_lstm)
{
    logt_net *a = make_net("flashrnn", "", 3, 4, 2, 1, 7), *b = make_net("flashrnn", "lstm", 3, 4, 2, 1, 7);
    cr_assert_eq(a->w.numel, b->w.numel);
    logt_tensor x = tensor3(3, 3, 3, NULL);
    fill(x.data, x.numel, 8);
    const logt_tensor *ha, *hb;
    cr_assert_eq(logt_net_forward(a, &x, &ha, NULL), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_net_forward(b, &x, &hb, NULL), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(memcmp(ha->data, hb->data, sizeof(double) * (size_t)ha->numel), 0);
    logt_tensor_free(&x);
    logt_net_destroy(a), logt_net_destroy(b);
}

/* ---- the gru convention, by hand -------------------------------------------------------- */

Test(flashrnn_cpu, gru_two_steps_by_hand)
{
    /* D = 1, I = 1, one head: W = [wr wz wn], R[0][0] = [rr rz rn], b = [br bz bn], bn = [bq].
     * bq != 0 and h0 != 0 tell PyTorch's r ⊙ (R_n h + b_hn) apart from the variant that
     * multiplies r into h before R_n (r·rn·h + bq), which would give another number. */
    logt_net *net = make_net("flashrnn", "gru", 1, 1, 0, 1, 1);
    const double p[10] = {0.5, -0.3, 0.8, /* W */ 0.2, 0.4, -0.6, /* R */ 0.1, -0.2, 0.3, /* b */ 0.7};
    cr_assert_eq(net->w.numel, 10);
    memcpy(net->w.data, p, sizeof p);
    const double xs[2] = {1.0, -2.0}, hinit = 0.6;
    logt_tensor x = tensor3(2, 1, 1, xs), h0 = tensor3(1, 1, 1, &hinit);
    cr_assert_eq(logt_net_set_state(net, &h0, NULL), LOGT_OK, "%s", logt_errmsg());
    const logt_tensor *h;
    cr_assert_eq(logt_net_forward(net, &x, &h, NULL), LOGT_OK, "%s", logt_errmsg());
    double hp = hinit, want[2];
    for (int t = 0; t < 2; t++) {
        double r = sig(0.5 * xs[t] + 0.1 + 0.2 * hp), z = sig(-0.3 * xs[t] - 0.2 + 0.4 * hp);
        double n = tanh(0.8 * xs[t] + 0.3 + r * (-0.6 * hp + 0.7));
        want[t] = hp = (1 - z) * n + z * hp;
    }
    cr_assert_float_eq(((double *)h->data)[0], want[0], 1e-15);
    cr_assert_float_eq(((double *)h->data)[1], want[1], 1e-15);
    logt_tensor_free(&x), logt_tensor_free(&h0);
    logt_net_destroy(net);
}

/* ---- structure --------------------------------------------------------------------------- */

/* R is block-diagonal: a model of H heads of dh is H one-head models of hidden size dh, each
 * given its head's rows of W, b (and bn), its R[k] and its part of the initial state. */
static void heads_are_separate(const char *cell)
{
    const int T = 4, B = 3, I = 3, D = 6, dh = 2, H = D / dh, G = strcmp(cell, "gru") ? 4 : 3;
    const int lstm = G == 4;
    logt_net *big = make_net("flashrnn", cell, I, D, dh, 1, 11);
    logt_tensor x = tensor3(T, B, I, NULL), h0 = tensor3(1, B, D, NULL), c0 = tensor3(1, B, D, NULL);
    fill(x.data, x.numel, 1), fill(h0.data, h0.numel, 2), fill(c0.data, c0.numel, 3);
    cr_assert_eq(logt_net_set_state(big, &h0, lstm ? &c0 : NULL), LOGT_OK, "%s", logt_errmsg());
    const logt_tensor *hb;
    cr_assert_eq(logt_net_forward(big, &x, &hb, NULL), LOGT_OK, "%s", logt_errmsg());
    const double *W = slice(big, "W", 0), *R = slice(big, "R", 0), *b = slice(big, "b", 0);

    for (int k = 0; k < H; k++) {
        logt_net *one = make_net("flashrnn", cell, I, dh, 0, 1, 12);
        double *w1 = slice(one, "W", 0), *r1 = slice(one, "R", 0), *b1 = slice(one, "b", 0);
        for (int q = 0; q < G; q++)
            for (int j = 0; j < dh; j++) {
                memcpy(w1 + (q * dh + j) * I, W + (q * D + k * dh + j) * I, sizeof(double) * I);
                b1[q * dh + j] = b[q * D + k * dh + j];
            }
        memcpy(r1, R + k * dh * G * dh, sizeof(double) * dh * G * dh);
        if (!lstm) memcpy(slice(one, "bn", 0), slice(big, "bn", 0) + k * dh, sizeof(double) * dh);
        logt_tensor h0k = tensor3(1, B, dh, NULL), c0k = tensor3(1, B, dh, NULL);
        for (int n = 0; n < B; n++)
            for (int j = 0; j < dh; j++) {
                ((double *)h0k.data)[n * dh + j] = ((double *)h0.data)[n * D + k * dh + j];
                ((double *)c0k.data)[n * dh + j] = ((double *)c0.data)[n * D + k * dh + j];
            }
        cr_assert_eq(logt_net_set_state(one, &h0k, lstm ? &c0k : NULL), LOGT_OK, "%s", logt_errmsg());
        const logt_tensor *h1;
        cr_assert_eq(logt_net_forward(one, &x, &h1, NULL), LOGT_OK, "%s", logt_errmsg());
        double *got = malloc(sizeof(double) * T * B * dh);
        for (int n = 0; n < T * B; n++)
            for (int j = 0; j < dh; j++) got[n * dh + j] = ((double *)hb->data)[n * D + k * dh + j];
        check_result r = check_close("head's h", got, h1->data, T * B * dh, 1e-14, 1e-13);
        cr_assert(r.ok, "%s, head %d of %d: %s", cell, k, H, r.msg);
        free(got);
        logt_tensor_free(&h0k), logt_tensor_free(&c0k);
        logt_net_destroy(one);
    }
    logt_tensor_free(&x), logt_tensor_free(&h0), logt_tensor_free(&c0);
    logt_net_destroy(big);
}

Test(flashrnn_cpu, lstm_heads_are_separate_recurrences) { heads_are_separate("lstm"); }
Test(flashrnn_cpu, gru_heads_are_separate_recurrences) { heads_are_separate("gru"); }

/* With one head, the lstm cell is the `lstm` model: same W and b, R transposed
 * (flashrnn R[0][m][q·D + j] = lstm R[q·D + j][m]). Outputs and every gradient agree. */
Test(flashrnn_cpu, one_head_lstm_equals_lstm_model)
{
    const int T = 5, B = 3, I = 3, D = 4;
    logt_net *fr = make_net("flashrnn", "lstm", I, D, 0, 1, 21);
    logt_net *ls = make_net("lstm", "", I, D, 0, 1, 22);
    cr_assert_eq(fr->w.numel, ls->w.numel);
    memcpy(slice(fr, "W", 0), slice(ls, "W", 0), sizeof(double) * 4 * D * I);
    memcpy(slice(fr, "b", 0), slice(ls, "b", 0), sizeof(double) * 4 * D);
    const double *Rl = slice(ls, "R", 0);
    double *Rf = slice(fr, "R", 0);
    for (int r = 0; r < 4 * D; r++)
        for (int m = 0; m < D; m++) Rf[m * 4 * D + r] = Rl[r * D + m];

    logt_tensor x = tensor3(T, B, I, NULL), dh = tensor3(T, B, D, NULL);
    logt_tensor h0 = tensor3(1, B, D, NULL), c0 = tensor3(1, B, D, NULL);
    logt_tensor dxf = tensor3(T, B, I, NULL), dxl = tensor3(T, B, I, NULL);
    fill(x.data, x.numel, 1), fill(dh.data, dh.numel, 2);
    fill(h0.data, h0.numel, 3), fill(c0.data, c0.numel, 4);
    logt_net *nets[2] = {fr, ls};
    logt_tensor *dxs[2] = {&dxf, &dxl};
    const logt_tensor *hs[2];
    for (int k = 0; k < 2; k++) {
        cr_assert_eq(logt_net_set_state(nets[k], &h0, &c0), LOGT_OK, "%s", logt_errmsg());
        cr_assert_eq(logt_net_forward(nets[k], &x, &hs[k], NULL), LOGT_OK, "%s", logt_errmsg());
        cr_assert_eq(logt_net_backward(nets[k], &dh, dxs[k], NULL), LOGT_OK, "%s", logt_errmsg());
    }
    /* the same sums in another order (W x + b before R h): a few ulps apart */
    const double atol = 1e-14, rtol = 1e-12;
    double *dRt = malloc(sizeof(double) * 4 * D * D);   /* flashrnn's dR in lstm's layout */
    const double *dRf = slice(fr, "R", 1);
    for (int r = 0; r < 4 * D; r++)
        for (int m = 0; m < D; m++) dRt[r * D + m] = dRf[m * 4 * D + r];
    struct { const char *what; const double *f, *l; int64_t n; } cmp[] = {
        {"h", hs[0]->data, hs[1]->data, T * B * D},
        {"dW", slice(fr, "W", 1), slice(ls, "W", 1), 4 * D * I},
        {"dR", dRt, slice(ls, "R", 1), 4 * D * D},
        {"db", slice(fr, "b", 1), slice(ls, "b", 1), 4 * D},
        {"dx", dxf.data, dxl.data, T * B * I},
        {"dh0", fr->dh0.data, ls->dh0.data, B * D},
        {"dc0", fr->dc0.data, ls->dc0.data, B * D},
    };
    for (size_t k = 0; k < sizeof cmp / sizeof cmp[0]; k++) {
        check_result r = check_close(cmp[k].what, cmp[k].f, cmp[k].l, cmp[k].n, atol, rtol);
        cr_assert(r.ok, "flashrnn lstm (one head) vs lstm: %s", r.msg);
    }
    free(dRt);
    logt_tensor_free(&x), logt_tensor_free(&dh), logt_tensor_free(&h0), logt_tensor_free(&c0);
    logt_tensor_free(&dxf), logt_tensor_free(&dxl);
    logt_net_destroy(fr), logt_net_destroy(ls);
}

/* ---- registration, layout, refusals -------------------------------------------------------- */

Test(flashrnn_cpu, registered_with_its_layout)
{
    const logt_model_ops *ops = logt_model_find("flashrnn");
    cr_assert(ops, "flashrnn is not in the registry");
    cr_assert(ops->devices & (1u << LOGT_CPU));
#ifdef LOGT_HAVE_CUDA
    cr_assert(ops->devices & (1u << LOGT_CUDA));
#endif
    cr_assert_eq(ops->nstate, 2);
    struct { const char *cell; int G; } cells[] = {{"lstm", 4}, {"gru", 3}};
    for (int c = 0; c < 2; c++) {
        logt_net *net = make_net("flashrnn", cells[c].cell, 5, 12, 4, 1, 1);   /* H = 3, dh = 4 */
        const int G = cells[c].G;
        const logt_slice *W = logt_layout_find(&net->layout[0], "W");
        const logt_slice *R = logt_layout_find(&net->layout[0], "R");
        const logt_slice *b = logt_layout_find(&net->layout[0], "b");
        const logt_slice *bn = logt_layout_find(&net->layout[0], "bn");
        cr_assert(W && W->offset == 0 && W->ndim == 2 && W->shape[0] == G * 12 && W->shape[1] == 5);
        cr_assert(R && R->offset == W->numel && R->ndim == 3);
        cr_assert(R->shape[0] == 3 && R->shape[1] == 4 && R->shape[2] == G * 4, "R is [H][dh][G·dh]");
        cr_assert(b && b->offset == R->offset + R->numel && b->numel == G * 12);
        if (G == 3) cr_assert(bn && bn->offset == b->offset + b->numel && bn->numel == 12);
        else cr_assert_null(bn);
        cr_assert_eq(net->w.numel, G * 12 * 5 + 3 * 4 * G * 4 + G * 12 + (G == 3 ? 12 : 0));
        cr_assert_float_eq(R->init_bound, 0.5, 1e-15, "R's fan-in is dh = 4");
        logt_net_destroy(net);
    }
}

Test(flashrnn_cpu, bad_configurations_say_what_would_be_right)
{
    logt_model_cfg cfg;
    logt_net *net = NULL;
    const logt_model_ops *ops = logt_model_find("flashrnn");
    cr_assert(ops);
    logt_layout l;

    /* a head dim that does not divide D: through the net, and asked of the model directly */
    logt_model_cfg_init(&cfg, "flashrnn", LOGT_CPU, 3, 6);
    cfg.head_dim = 4;
    cr_assert_eq(logt_net_create(&cfg, &net), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "head dim 4 does not divide the hidden size D = 6: choose one "
                                    "of 1, 2, 3, 6"), "%s", logt_errmsg());
    memset(&l, 0, sizeof l);
    cr_assert_eq(logt_model_layout(ops, &cfg, &l), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "head dim 4 does not divide the hidden size D = 6: choose "
                                    "one of 1, 2, 3, 6 (or 0 for one head of dh = D)"), "%s", logt_errmsg());
    cfg.head_dim = 12;   /* larger than D */
    memset(&l, 0, sizeof l);
    cr_assert_eq(logt_model_layout(ops, &cfg, &l), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "head dim 12 does not divide the hidden size D = 6"), "%s", logt_errmsg());

    /* an unknown cell */
    logt_model_cfg_init(&cfg, "flashrnn", LOGT_CPU, 3, 6);
    snprintf(cfg.cell, sizeof cfg.cell, "mlstm");
    cr_assert_eq(logt_net_create(&cfg, &net), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "flashrnn has no cell 'mlstm': the valid cells are lstm (the "
                                    "default, also when cell is empty), gru, slstm and elman"), "%s",
              logt_errmsg());

    /* cuda: a head dim off the tensor-core tile, an unknown kernel; kernel on the cpu */
    logt_model_cfg_init(&cfg, "flashrnn", LOGT_CUDA, 3, 48);
    cfg.head_dim = 8;
    memset(&l, 0, sizeof l);
    cr_assert_eq(logt_model_layout(ops, &cfg, &l), LOGT_EUNSUPPORTED);
    cr_assert(strstr(logt_errmsg(), "head dim dh = 8 is not a multiple of 16 (the tensor-core "
                                    "tile)"), "%s", logt_errmsg());
    cfg.head_dim = 16;
    cr_assert_eq(logt_cfg_set_knob(&cfg, "kernel", "fast"), LOGT_OK);
    memset(&l, 0, sizeof l);
    cr_assert_eq(logt_model_layout(ops, &cfg, &l), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "flashrnn has no kernel 'fast': use kernel = fused"), "%s",
              logt_errmsg());
    cr_assert_eq(logt_cfg_set_knob(&cfg, "kernel", "fused"), LOGT_OK);
    cr_assert_eq(logt_cfg_set_knob(&cfg, "warps_k", "two"), LOGT_OK);
    memset(&l, 0, sizeof l);
    cr_assert_eq(logt_model_layout(ops, &cfg, &l), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "warps_k = 'two': it fixes the fused cuda kernel's warps"),
              "%s", logt_errmsg());
    const char *delay[] = {"-5", "fast", "", "100001"};   /* poll_delay: cycles, 0 to 100000, or auto */
    logt_model_cfg_init(&cfg, "flashrnn", LOGT_CUDA, 3, 48);
    cfg.head_dim = 16;
    for (int i = 0; i < 4; i++) {
        cr_assert_eq(logt_cfg_set_knob(&cfg, "poll_delay", delay[i]), LOGT_OK);
        memset(&l, 0, sizeof l);
        cr_assert_eq(logt_model_layout(ops, &cfg, &l), LOGT_EINVAL, "poll_delay = '%s'", delay[i]);
        cr_assert(strstr(logt_errmsg(), "poll_delay = '") && strstr(logt_errmsg(), "0 to 100000, or auto"),
                  "%s", logt_errmsg());
    }
    cr_assert_eq(logt_cfg_set_knob(&cfg, "poll_delay", "300"), LOGT_OK);
    memset(&l, 0, sizeof l);
    cr_assert_eq(logt_model_layout(ops, &cfg, &l), LOGT_OK, "%s", logt_errmsg());
    logt_model_cfg_init(&cfg, "flashrnn", LOGT_CPU, 3, 6);
    cr_assert_eq(logt_cfg_set_knob(&cfg, "poll_delay", "300"), LOGT_OK);
    cr_assert_eq(logt_net_create(&cfg, &net), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "poll_delay") && strstr(logt_errmsg(), "only with the cuda backend"),
              "%s", logt_errmsg());
    logt_model_cfg_init(&cfg, "flashrnn", LOGT_CPU, 3, 6);
    cr_assert_eq(logt_cfg_set_knob(&cfg, "warps_k", "2"), LOGT_OK);
    cr_assert_eq(logt_net_create(&cfg, &net), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "only with the cuda backend and kernel = fused"), "%s", logt_errmsg());
    /* the fused kernel's choice knobs: a value not among the options, or any choice on the cpu */
    const char *choice[][3] = {{"head_sync", "barrier", "grid (through global memory) or cluster"},
                               {"cluster_store", "both", "cell (the cell stores each value"},
                               {"cell_split", "3", "1 (one warp runs a unit group's cell) or 2"},
                               {"cell_spread", "maybe", "off (one warp adds the partial sums"},
                               {"grid_share", "yes", "on (the head's blocks in thread-block clusters"},
                               {"grad_overlap", "on", "off (the weights' gradients after the fused backward)"},
                               {"proj_overlap", "early", "off (the forward's input projection whole, before"},
                               {"warp_gates", "3", "all (each warp's products cover every gate"}};
    for (int i = 0; i < (int)(sizeof choice / sizeof choice[0]); i++) {
        logt_model_cfg_init(&cfg, "flashrnn", LOGT_CUDA, 3, 48);
        cfg.head_dim = 16;
        cr_assert_eq(logt_cfg_set_knob(&cfg, choice[i][0], choice[i][1]), LOGT_OK);
        memset(&l, 0, sizeof l);
        cr_assert_eq(logt_model_layout(ops, &cfg, &l), LOGT_EINVAL);
        cr_assert(strstr(logt_errmsg(), choice[i][0]) && strstr(logt_errmsg(), choice[i][1])
                      && strstr(logt_errmsg(), choice[i][2]), "%s", logt_errmsg());
    }
    logt_model_cfg_init(&cfg, "flashrnn", LOGT_CPU, 3, 6);
    cr_assert_eq(logt_cfg_set_knob(&cfg, "head_sync", "grid"), LOGT_OK);
    cr_assert_eq(logt_net_create(&cfg, &net), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "head_sync = 'grid'") && strstr(logt_errmsg(), "only with the cuda backend"),
              "%s", logt_errmsg());
    logt_model_cfg_init(&cfg, "flashrnn", LOGT_CPU, 3, 6);
    cr_assert_eq(logt_cfg_set_knob(&cfg, "kernel", "alternating"), LOGT_OK);
    cr_assert_eq(logt_net_create(&cfg, &net), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "the cpu reference has one loop"), "%s", logt_errmsg());

    /* the cpu reference computes in f64 */
    logt_model_cfg_init(&cfg, "flashrnn", LOGT_CPU, 3, 6);
    cfg.dtype = LOGT_F32;
    cr_assert_eq(logt_net_create(&cfg, &net), LOGT_EUNSUPPORTED);
    cr_assert(strstr(logt_errmsg(), "set dtype = f64"), "%s", logt_errmsg());

    /* a gru has no cell state */
    net = make_net("flashrnn", "gru", 3, 6, 2, 1, 1);
    logt_tensor x = tensor3(2, 3, 3, NULL), z = tensor3(1, 3, 6, NULL);
    fill(x.data, x.numel, 1);
    logt_tensor_zero(&z);
    cr_assert_eq(logt_net_set_state(net, &z, &z), LOGT_OK, "%s", logt_errmsg());
    const logt_tensor *h;
    cr_assert_eq(logt_net_forward(net, &x, &h, NULL), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "flashrnn with cell gru has no cell state c0: set only h0"), "%s",
              logt_errmsg());
    cr_assert_eq(logt_net_set_state(net, &z, NULL), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_net_forward(net, &x, &h, NULL), LOGT_OK, "%s", logt_errmsg());
    logt_tensor_free(&x), logt_tensor_free(&z);
    logt_net_destroy(net);
}
