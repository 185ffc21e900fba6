/* test_deer.c — the float64 CPU reference of deer (models/deer/deer.h): Newton in every mode
 * against the sequential loop (flashrnn's gru and lstm with the same parameters, and a tanh
 * loop written here), the analytic Jacobians against central differences, the chunked
 * associative matrix scan against the serial one, the adjoint gradients against BPTT
 * (flashrnn's) and against finite differences, warm starts, the report and the fall-back of
 * a run that does not converge, the memory refusal, and the configurations it must refuse. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../models/deer/deer.h"
#include "../models/model.h"
#include "check.h"
#include "gradcheck.h"

static logt_net *make_net(const char *model, const char *cell, const char *knobs, int I, int D)
{
    logt_model_cfg cfg;
    logt_model_cfg_init(&cfg, model, LOGT_CPU, I, D);
    snprintf(cfg.cell, sizeof cfg.cell, "%s", cell);
    cfg.seed = 11;
    set_knobs(&cfg, knobs);
    logt_net *net;
    cr_assert_eq(logt_net_create(&cfg, &net), LOGT_OK, "%s", logt_errmsg());
    return net;
}

static double *param(logt_net *net, const char *name, int grad)
{
    const logt_slice *s = logt_layout_find(&net->layout[0], name);
    cr_assert(s, "no slice %s", name);
    return (double *)(grad ? net->dw.data : net->w.data) + net->layer_offset[0] + s->offset;
}

static deer_model *layer(logt_net *net) { return (deer_model *)net->layer[0]; }

/* Scale the recurrent weights (harder problems: stronger coupling between steps). */
static void scale_R(logt_net *net, double k)
{
    const logt_slice *s = logt_layout_find(&net->layout[0], "R");
    double *R = param(net, "R", 0);
    for (int64_t i = 0; i < s->numel; i++) R[i] *= k;
}

typedef struct run { double *h, *dw, *dx, *dh0, *dc0; int64_t nw; } run;

static void run_free(run *r) { free(r->h), free(r->dw), free(r->dx), free(r->dh0), free(r->dc0); }

/* forward and backward of net on (x, dh, h0, c0); everything copied out */
static logt_status run_net2(logt_net *net, int T, int B, int I, int D, const double *x,
                            const double *dh, const double *h0, const double *c0, run *r)
{
    memset(r, 0, sizeof *r);
    logt_tensor tx = tensor3(T, B, I, x), tdh = tensor3(T, B, D, dh), tdx = tensor3(T, B, I, NULL);
    if (h0) {
        logt_tensor th = tensor3(1, B, D, h0), tc = tensor3(1, B, D, c0);
        cr_assert_eq(logt_net_set_state(net, &th, c0 ? &tc : NULL), LOGT_OK, "%s", logt_errmsg());
        logt_tensor_free(&th), logt_tensor_free(&tc);
    }
    const logt_tensor *h;
    logt_status s = logt_net_forward(net, &tx, &h, NULL);
    if (s == LOGT_OK) s = logt_net_backward(net, &tdh, &tdx, NULL);
    if (s == LOGT_OK) {
        r->h = host_copy(h), r->dw = host_copy(&net->dw), r->dx = host_copy(&tdx);
        r->nw = net->dw.numel;
        if (h0) r->dh0 = host_copy(&net->dh0);
        if (c0) r->dc0 = host_copy(&net->dc0);
    }
    logt_tensor_free(&tx), logt_tensor_free(&tdh), logt_tensor_free(&tdx);
    return s;
}

static logt_status run_net(logt_net *net, int T, int B, int I, int D, const double *x,
                           const double *dh, const double *h0, run *r)
{
    return run_net2(net, T, B, I, D, x, dh, h0, NULL, r);
}

static void expect_same(const char *what, const double *a, const double *b, int64_t n, double tol,
                        const char *label)
{
    check_result c = check_close(what, a, b, n, tol, 0);
    cr_expect(c.ok, "%s: %s", label, c.msg);
}

/* ---- Newton against the loop, gradients against BPTT (gru, lstm: flashrnn's, same weights) */

static void cell_against_flashrnn(const char *cell, const char *knobs, double rscale, int T, int B,
                                  int D, double tol)
{
    const int I = 3, lstm = !strcmp(cell, "lstm");
    char label[160];
    snprintf(label, sizeof label, "deer %s [%s] R x %g T=%d B=%d D=%d", cell, knobs, rscale, T, B, D);
    logt_net *deer = make_net("deer", cell, knobs, I, D);
    logt_net *ref = make_net("flashrnn", cell, NULL, I, D);
    scale_R(deer, rscale);
    cr_assert_eq(deer->w.numel, ref->w.numel, "%s: the layouts differ", label);
    memcpy(ref->w.data, deer->w.data, sizeof(double) * (size_t)deer->w.numel);
    double *x = random_array((int64_t)T * B * I, 5, 1, 1.0, LOGT_F64);
    double *dh = random_array((int64_t)T * B * D, 5, 2, 1.0, LOGT_F64);
    double *h0 = random_array((int64_t)B * D, 5, 3, 0.5, LOGT_F64);
    double *c0 = lstm ? random_array((int64_t)B * D, 5, 4, 0.5, LOGT_F64) : NULL;
    run a, b;
    cr_assert_eq(run_net2(deer, T, B, I, D, x, dh, h0, c0, &a), LOGT_OK, "%s: %s", label, logt_errmsg());
    cr_assert_eq(run_net2(ref, T, B, I, D, x, dh, h0, c0, &b), LOGT_OK, "%s: %s", label, logt_errmsg());
    cr_expect(layer(deer)->converged, "%s: %s", label, deer->layer[0]->detail);
    expect_same("h", a.h, b.h, (int64_t)T * B * D, tol, label);
    expect_same("dparams", a.dw, b.dw, a.nw, 1e-9, label);
    expect_same("dx", a.dx, b.dx, (int64_t)T * B * I, 1e-9, label);
    expect_same("dh0", a.dh0, b.dh0, (int64_t)B * D, 1e-9, label);
    if (lstm) expect_same("dc0", a.dc0, b.dc0, (int64_t)B * D, 1e-9, label);
    run_free(&a), run_free(&b);
    free(x), free(dh), free(h0), free(c0);
    logt_net_destroy(deer), logt_net_destroy(ref);
}

Test(deer_cpu, full_newton_equals_the_loop_and_bptt)
{
    cell_against_flashrnn("gru", "mode=full", 1, 40, 3, 4, 1e-10);
    cell_against_flashrnn("gru", "mode=full", 3, 64, 2, 7, 1e-10);
    cell_against_flashrnn("gru", "mode=full", 1, 1, 1, 1, 1e-10);
}

/* The residual bounds the error only up to the recurrence's gain (error ≈ residual / (1 −
 * contraction)): a linearly converging mode stops at tol = 1e-12 to be within 1e-10. */
Test(deer_cpu, lstm_cell_in_every_mode_equals_the_loop_and_bptt)
{
    cell_against_flashrnn("lstm", "mode=full", 1, 40, 3, 4, 1e-10);
    cell_against_flashrnn("lstm", "mode=full", 2, 30, 2, 6, 1e-10);
    cell_against_flashrnn("lstm", "mode=quasi,tol=1e-12", 1, 40, 3, 4, 1e-10);
    cell_against_flashrnn("lstm", "mode=damped,tol=1e-12", 1, 30, 2, 5, 1e-10);
}

Test(deer_cpu, quasi_and_damped_equal_the_loop)
{
    cell_against_flashrnn("gru", "mode=quasi,tol=1e-12", 1, 40, 3, 4, 1e-10);
    cell_against_flashrnn("gru", "mode=damped,tol=1e-12", 1, 40, 3, 4, 1e-10);
    cell_against_flashrnn("gru", "mode=damped,lambda=10,tol=1e-12", 2, 50, 2, 5, 1e-10);
}

/* Full Newton is exact after at most T iterations (the system is triangular in time) and
 * quadratic near the answer: a few iterations on a contractive problem. */
Test(deer_cpu, full_newton_needs_few_iterations)
{
    logt_net *net = make_net("deer", "gru", "mode=full", 3, 4);
    double *x = random_array(200 * 2 * 3, 6, 1, 1.0, LOGT_F64), *dh = random_array(200 * 2 * 4, 6, 2, 1.0, LOGT_F64);
    run a;
    cr_assert_eq(run_net(net, 200, 2, 3, 4, x, dh, NULL, &a), LOGT_OK, "%s", logt_errmsg());
    deer_model *m = layer(net);
    cr_assert(m->converged && m->iterations <= 12, "%s", net->layer[0]->detail);
    cr_assert_eq(m->nres, m->iterations + 1);
    for (int k = 1; k < m->nres; k++)
        cr_assert_leq(m->residual[k], m->residual[k - 1], "residuals must fall: %s", net->layer[0]->detail);
    run_free(&a), free(x), free(dh);
    logt_net_destroy(net);
}

/* ---- tanh: a loop written here, and central differences for the gradients ------------------- */

Test(deer_cpu, tanh_cell_equals_its_loop_and_its_gradients_check)
{
    const int T = 30, B = 2, I = 3, D = 5;
    const char *modes[] = {"mode=full", "mode=quasi", "mode=damped"};
    for (int k = 0; k < 3; k++) {
        logt_net *net = make_net("deer", "tanh", modes[k], I, D);
        double *x = random_array(T * B * I, 7, 1, 1.0, LOGT_F64), *dh = random_array(T * B * D, 7, 2, 1.0, LOGT_F64);
        const double *W = param(net, "W", 0), *R = param(net, "R", 0), *b = param(net, "b", 0);
        double *ref = calloc(T * B * D, sizeof *ref);
        for (int t = 0; t < T; t++)
            for (int bb = 0; bb < B; bb++)
                for (int j = 0; j < D; j++) {
                    double a = b[j];
                    for (int i = 0; i < I; i++) a += W[j * I + i] * x[(t * B + bb) * I + i];
                    if (t)
                        for (int mm = 0; mm < D; mm++) a += ref[((t - 1) * B + bb) * D + mm] * R[mm * D + j];
                    ref[(t * B + bb) * D + j] = tanh(a);
                }
        run r;
        cr_assert_eq(run_net(net, T, B, I, D, x, dh, NULL, &r), LOGT_OK, "%s", logt_errmsg());
        expect_same("h", r.h, ref, T * B * D, 1e-10, modes[k]);
        /* gradients against central differences of L = sum(dh ⊙ h) */
        logt_tensor tx = tensor3(T, B, I, x);
        expect_grad(net, &tx, dh, modes[k], "dparams", net->w.data, r.dw, net->w.numel);
        expect_grad(net, &tx, dh, modes[k], "dx", tx.data, r.dx, tx.numel);
        logt_tensor_free(&tx);
        run_free(&r), free(ref), free(x), free(dh);
        logt_net_destroy(net);
    }
}

/* ---- the pieces ------------------------------------------------------------------------------ */

Test(deer_cpu, jacobians_match_central_differences)
{
    const int D = 6;
    const char *names[] = {"gru", "tanh", "lstm"};
    const deer_cell cells[] = {DEER_GRU, DEER_TANH, DEER_LSTM};
    const int gates[] = {3, 1, 4};
    for (int c = 0; c < 3; c++) {
        logt_net *net = make_net("deer", names[c], NULL, 2, D);
        scale_R(net, 2.0);
        const deer_cell cell = cells[c];
        const int G = gates[c], S = (int)deer_state_size(cell, D);
        const double *R = param(net, "R", 0), *bn = cell == DEER_GRU ? param(net, "bn", 0) : NULL;
        double *xa = random_array(G * D, 8, 1, 1.0, LOGT_F64), *sp = random_array(S, 8, 2, 0.8, LOGT_F64);
        double f[2 * D], fu[2 * D], fd[2 * D], J[4 * D * D], jd[2 * D], work[4 * D];
        deer_cell_eval(cell, D, R, bn, xa, sp, f, J, jd, work);
        for (int mm = 0; mm < S; mm++) {
            const double keep = sp[mm], eps = 1e-6;
            sp[mm] = keep + eps;
            deer_cell_eval(cell, D, R, bn, xa, sp, fu, NULL, NULL, work);
            sp[mm] = keep - eps;
            deer_cell_eval(cell, D, R, bn, xa, sp, fd, NULL, NULL, work);
            sp[mm] = keep;
            for (int j = 0; j < S; j++)
                cr_expect(fabs((fu[j] - fd[j]) / (2 * eps) - J[j * S + mm]) < 1e-8,
                          "%s J[%d][%d] = %.12g, central difference %.12g", names[c], j, mm,
                          J[j * S + mm], (fu[j] - fd[j]) / (2 * eps));
        }
        for (int j = 0; j < S; j++) cr_expect_eq(jd[j], J[j * S + j], "%s: the diagonal is J's", names[c]);
        free(xa), free(sp);
        logt_net_destroy(net);
    }
}

Test(deer_cpu, chunked_matrix_scan_equals_the_loop)
{
    const int64_t Ts[] = {1, 2, 7, 33, 100}, Ds[] = {1, 3, 8}, chunks[] = {1, 4, 16, 1000};
    for (size_t a = 0; a < 5; a++)
        for (size_t d = 0; d < 3; d++)
            for (size_t c = 0; c < 4; c++) {
                const int64_t T = Ts[a], D = Ds[d];
                double *A = random_array(T * D * D, 9, 1, 0.9 / sqrt((double)D), LOGT_F64);
                double *b = random_array(T * D, 9, 2, 1.0, LOGT_F64), *h0 = random_array(D, 9, 3, 1.0, LOGT_F64);
                double *h1 = malloc(sizeof(double) * T * D), *h2 = malloc(sizeof(double) * T * D);
                deer_mscan_serial(T, D, A, b, h0, h1);
                cr_assert_eq(deer_mscan_chunked(T, D, A, b, h0, chunks[c], h2), LOGT_OK);
                char label[64];
                snprintf(label, sizeof label, "T=%lld D=%lld chunk=%lld", (long long)T, (long long)D,
                         (long long)chunks[c]);
                expect_same("h", h2, h1, T * D, 1e-12, label);
                free(A), free(b), free(h0), free(h1), free(h2);
            }
}

/* The damped step's tridiagonal solve in scan form (2×2 Möbius maps, then two linear scans)
 * against Thomas: gates up to 1.5 (an expanding recurrence), λ from 1e-3 to 100, every chunk
 * size from 1 to past T. A wrong composition order or carry is off by order 1. */
Test(deer_cpu, damped_solve_in_scan_form_equals_thomas)
{
    const int64_t Ts[] = {1, 2, 7, 100, 1000}, chunks[] = {1, 3, 64, 5000};
    const double lambdas[] = {1e-3, 1.0, 100.0};
    for (size_t i = 0; i < 5; i++)
        for (size_t k = 0; k < 3; k++)
            for (size_t c = 0; c < 4; c++) {
                const int64_t T = Ts[i];
                double *a = random_array(T, 13, 1, 1.5, LOGT_F64), *b = random_array(T, 13, 2, 1.0, LOGT_F64);
                double *g = random_array(T, 13, 3, 2.0, LOGT_F64);
                double *h1 = malloc(sizeof(double) * T), *h2 = malloc(sizeof(double) * T);
                cr_assert_eq(deer_damped_thomas(T, a, b, g, 0.7, lambdas[k], h1), LOGT_OK);
                cr_assert_eq(deer_damped_chunked(T, a, b, g, 0.7, lambdas[k], chunks[c], h2), LOGT_OK);
                char label[80];
                snprintf(label, sizeof label, "T=%lld lambda=%g chunk=%lld", (long long)T, lambdas[k],
                         (long long)chunks[c]);
                expect_same("h", h2, h1, T, 1e-10, label);
                free(a), free(b), free(g), free(h1), free(h2);
            }
    double x = 0;
    cr_assert_eq(deer_damped_chunked(0, &x, &x, &x, 0, 1, 4, &x), LOGT_EINVAL);
    cr_assert_eq(deer_damped_chunked(3, &x, &x, &x, 0, 1, 0, &x), LOGT_EINVAL);
}

/* ---- warm start, failure, memory, configuration -------------------------------------------- */

Test(deer_cpu, warm_start_from_the_previous_solution)
{
    logt_net *net = make_net("deer", "gru", "mode=quasi,warm=on", 3, 4);
    double *x = random_array(50 * 2 * 3, 10, 1, 1.0, LOGT_F64), *dh = random_array(50 * 2 * 4, 10, 2, 1.0, LOGT_F64);
    run a, b;
    cr_assert_eq(run_net(net, 50, 2, 3, 4, x, dh, NULL, &a), LOGT_OK, "%s", logt_errmsg());
    const int first = layer(net)->iterations;
    cr_assert_eq(run_net(net, 50, 2, 3, 4, x, dh, NULL, &b), LOGT_OK, "%s", logt_errmsg());
    cr_assert(first > 1, "%s", net->layer[0]->detail);
    cr_assert_eq(layer(net)->iterations, 0, "the previous solution is already converged: %s",
                 net->layer[0]->detail);
    expect_same("h", b.h, a.h, 50 * 2 * 4, 1e-10, "warm");
    run_free(&a), run_free(&b), free(x), free(dh);
    logt_net_destroy(net);
}

Test(deer_cpu, non_convergence_is_reported_or_falls_back)
{
    const int T = 60, B = 2, I = 3, D = 4;
    double *x = random_array(T * B * I, 12, 1, 1.0, LOGT_F64), *dh = random_array(T * B * D, 12, 2, 1.0, LOGT_F64);
    run a;
    logt_net *net = make_net("deer", "gru", "mode=quasi,max_iter=2", I, D);
    scale_R(net, 4.0);
    cr_assert_eq(run_net(net, T, B, I, D, x, dh, NULL, &a), LOGT_ENUMERIC);
    const char *msg = logt_errmsg();
    cr_assert(strstr(msg, "did not converge") && strstr(msg, "after 2 iterations") &&
              strstr(msg, "on_fail = sequential"), "%s", msg);
    cr_assert_eq(layer(net)->nres, 3, "residuals of iterations 0, 1, 2");
    cr_assert(!layer(net)->converged);
    logt_net_destroy(net);

    net = make_net("deer", "gru", "mode=quasi,max_iter=2,on_fail=sequential", I, D);
    logt_net *ref = make_net("flashrnn", "gru", NULL, I, D);
    scale_R(net, 4.0);
    memcpy(ref->w.data, net->w.data, sizeof(double) * (size_t)net->w.numel);
    run b, c;
    cr_assert_eq(run_net(net, T, B, I, D, x, dh, NULL, &b), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(run_net(ref, T, B, I, D, x, dh, NULL, &c), LOGT_OK, "%s", logt_errmsg());
    cr_assert(layer(net)->fell_back && !layer(net)->converged, "%s", net->layer[0]->detail);
    cr_assert(strstr(net->layer[0]->detail, "fell_back=1"), "%s", net->layer[0]->detail);
    expect_same("h", b.h, c.h, T * B * D, 1e-12, "fall-back");
    expect_same("dparams", b.dw, c.dw, b.nw, 1e-9, "fall-back");
    run_free(&b), run_free(&c), free(x), free(dh);
    logt_net_destroy(net), logt_net_destroy(ref);
}

Test(deer_cpu, full_mode_memory_is_refused_before_allocating)
{
    /* D = 64, T = 100000, B = 16: 16·1e5·64²·8 bytes = 48.8 GiB of Jacobians */
    cr_assert_eq(deer_check_memory(DEER_FULL, 100000, 16, 64, 8.0 * 1073741824.0), LOGT_ENOMEM);
    cr_assert(strstr(logt_errmsg(), "mode = full needs 48.8 GiB") && strstr(logt_errmsg(), "mode = quasi"),
              "%s", logt_errmsg());
    cr_assert_eq(deer_check_memory(DEER_QUASI, 100000, 16, 64, 8.0 * 1073741824.0), LOGT_OK);
    cr_assert_eq(deer_check_memory(DEER_FULL, 1000, 16, 8, 8.0 * 1073741824.0), LOGT_OK);
}

Test(deer_cpu, bad_configurations_say_what_would_be_right)
{
    struct { const char *cell, *knob, *val, *says; logt_status want; } cases[] = {
        {"gru", "mode", "newton", "choose full", LOGT_EINVAL},
        {"elman", NULL, NULL, "no cell 'elman': the valid cells are gru", LOGT_EINVAL},
        {"gru", "on_fail", "ignore", "error (report and fail), sequential (report and solve step "
                                     "by step) or retry", LOGT_EINVAL},
        {"gru", "tol", "-1", "tol = '-1'", LOGT_EINVAL},
        {"gru", "max_iter", "0", "1 to 1000000", LOGT_EINVAL},
        {"gru", "warm", "yes", "warm = 'yes'", LOGT_EINVAL},
        {"gru", "tol_schedule", "1e-8:1e-4:100", "ends looser than it starts (END 0.0001 > START "
                                                 "1e-08): a schedule tightens, END <= START", LOGT_EINVAL},
        {"gru", "tol_schedule", "1e-4:1e-8:0", "STEPS must be a whole number of training steps, at "
                                               "least 1", LOGT_EINVAL},
        {"gru", "tol_schedule", "1e-4:1e-8:2.5", "STEPS must be a whole number", LOGT_EINVAL},
        {"gru", "tol_schedule", "1e-4:0:100", "START and END must be tolerances above 0", LOGT_EINVAL},
        {"gru", "tol_schedule", "1e-4,1e-8", "START:END:STEPS, e.g. 1e-4:1e-8:1000", LOGT_EINVAL},
        {"gru", "tol_schedule", "1e-4:1e-8:", "START:END:STEPS", LOGT_EINVAL},
        {"gru", "jacobian_clamp", "0", "jacobian_clamp = '0': a bound X > 0", LOGT_EINVAL},
        {"gru", "jacobian_clamp", "-1", "jacobian_clamp = '-1': a bound X > 0", LOGT_EINVAL},
        {"gru", "jacobian_clamp", "big", "jacobian_clamp = 'big'", LOGT_EINVAL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        logt_model_cfg cfg;
        logt_model_cfg_init(&cfg, "deer", LOGT_CPU, 3, 4);
        snprintf(cfg.cell, sizeof cfg.cell, "%s", cases[i].cell);
        if (cases[i].knob) cr_assert_eq(logt_cfg_set_knob(&cfg, cases[i].knob, cases[i].val), LOGT_OK);
        logt_net *net = NULL;
        cr_assert_eq(logt_net_create(&cfg, &net), cases[i].want, "case %zu", i);
        cr_assert(strstr(logt_errmsg(), cases[i].says), "case %zu: %s", i, logt_errmsg());
    }
}

/* A forward that fails (a NaN in x: Newton cannot converge) leaves the net with no backward:
 * its layers' saved state is part the failed call's. */
Test(deer_cpu, a_failed_forward_leaves_no_backward)
{
    const int T = 20, B = 2, I = 3, D = 4;
    logt_net *net = make_net("deer", "gru", "mode=quasi", I, D);
    logt_tensor x = tensor3(T, B, I, NULL), dh = tensor3(T, B, D, NULL);
    fill(x.data, x.numel, 1);
    fill(dh.data, dh.numel, 2);
    const logt_tensor *h;
    cr_assert_eq(logt_net_forward(net, &x, &h, NULL), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_net_backward(net, &dh, NULL, NULL), LOGT_OK, "%s", logt_errmsg());
    ((double *)x.data)[7] = NAN;
    cr_assert_neq(logt_net_forward(net, &x, &h, NULL), LOGT_OK);
    cr_assert_eq(logt_net_backward(net, &dh, NULL, NULL), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "backward called before forward"), "%s", logt_errmsg());
    logt_tensor_free(&x), logt_tensor_free(&dh);
    logt_net_destroy(net);
}

/* ---- the safety net: tol_schedule, jacobian_clamp, on_fail = retry ---------------------------- */

/* A forward of net on x with the context at training step `step`, relaxed `relax` times. */
static logt_status forward_at(logt_net *net, const logt_tensor *x, int64_t step, int relax)
{
    logt_ctx *ctx;
    cr_assert_eq(logt_ctx_create(LOGT_CPU, &ctx), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(ctx->step, -1, "a context starts outside training");
    ctx->step = step, ctx->relax = relax;
    const logt_tensor *h;
    logt_status s = logt_net_forward(net, x, &h, ctx);
    logt_ctx_destroy(ctx);
    return s;
}

/* Geometric from START at step 0 to END at step STEPS, then END; END outside training; the
 * forward solves to the step's tolerance, relaxed tenfold (and its cap doubled) per relax. */
Test(deer_cpu, tol_schedule_tightens_geometrically_then_stays)
{
    const int T = 30, B = 2, I = 3, D = 4;
    logt_net *net = make_net("deer", "gru", "mode=quasi,tol_schedule=1e-4:1e-8:100", I, D);
    deer_model *m = layer(net);
    const struct { int64_t step; double tol; } at[] = {
        {0, 1e-4}, {25, 1e-5}, {50, 1e-6}, {75, 1e-7}, {100, 1e-8}, {5000, 1e-8}, {-1, 1e-8}};
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++)
        cr_expect(fabs(deer_tol_at(m, at[i].step) - at[i].tol) <= 1e-9 * at[i].tol, "step %lld: %g, not %g",
                  (long long)at[i].step, deer_tol_at(m, at[i].step), at[i].tol);
    cr_assert(strstr(net->layer[0]->impl, "tol 0.0001 to 1e-08 over 100 steps"), "%s", net->layer[0]->impl);

    logt_tensor x = tensor3(T, B, I, NULL);
    fill(x.data, x.numel, 3);
    cr_assert_eq(forward_at(net, &x, 50, 0), LOGT_OK, "%s", logt_errmsg());
    cr_expect(fabs(m->tol - 1e-6) <= 1e-15 && m->max_iter == 200, "tol %g, max_iter %d", m->tol, m->max_iter);
    cr_expect(m->converged && m->residual[m->nres - 1] <= 1e-6, "%s", net->layer[0]->detail);
    cr_expect(strstr(net->layer[0]->detail, "tol=1e-06 max_iter=200"), "%s", net->layer[0]->detail);
    const int at50 = m->iterations;
    cr_assert_eq(forward_at(net, &x, 100, 0), LOGT_OK, "%s", logt_errmsg());
    cr_expect(m->iterations >= at50, "tighter, no fewer iterations: %d then %d", at50, m->iterations);
    cr_assert_eq(forward_at(net, &x, 100, 2), LOGT_OK, "%s", logt_errmsg());
    cr_expect(fabs(m->tol - 1e-6) <= 1e-15 && m->max_iter == 800, "relaxed twice: tol %g, max_iter %d",
              m->tol, m->max_iter);
    logt_tensor_free(&x);
    logt_net_destroy(net);

    /* without a schedule, tol at every step; the cap stops at max_iter's own limit */
    net = make_net("deer", "gru", "mode=quasi,tol=1e-7,max_iter=600000", I, D);
    cr_expect_eq(deer_tol_at(layer(net), 0), 1e-7);
    cr_expect_eq(deer_tol_at(layer(net), 123456), 1e-7);
    logt_ctx ctx = {.device = LOGT_CPU, .step = 7, .relax = 1};
    deer_settings(layer(net), &ctx);
    cr_expect(fabs(layer(net)->tol - 1e-6) <= 1e-18 && layer(net)->max_iter == 1000000, "tol %g, max_iter %d",
              layer(net)->tol, layer(net)->max_iter);
    logt_net_destroy(net);


    /* both: one of them says where the tolerance comes from */
    logt_model_cfg cfg;
    logt_model_cfg_init(&cfg, "deer", LOGT_CPU, I, D);
    set_knobs(&cfg, "tol_schedule=1e-4:1e-8:100,tol=1e-6");
    cr_assert_eq(logt_net_create(&cfg, &net), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "tol = 1e-6 and tol_schedule = 1e-4:1e-8:100: set one of them"), "%s",
              logt_errmsg());
}

/* tanh cell with W = 0, b = 0 and every entry of R = 3, from zeros on zero input: the guess
 * is the solution (one evaluation) and every entry of J = (1 - tanh²) R^T is 3. */
static logt_net *all_threes(const char *knobs, int I, int D)
{
    logt_net *net = make_net("deer", "tanh", knobs, I, D);
    memset(net->w.data, 0, sizeof(double) * (size_t)net->w.numel);
    const logt_slice *r = logt_layout_find(&net->layout[0], "R");
    for (int64_t i = 0; i < r->numel; i++) param(net, "R", 0)[i] = 3.0;
    return net;
}

/* Each entry of the Jacobian Newton uses past the bound is clamped and counted: the diagonal in
 * quasi and damped mode, the whole matrix in full mode; none where none is past it. */
Test(deer_cpu, jacobian_clamp_counts_each_entry_it_clamps)
{
    const int T = 7, B = 3, I = 2, D = 4;
    logt_tensor x = tensor3(T, B, I, NULL);
    memset(x.data, 0, sizeof(double) * (size_t)x.numel);
    const struct { const char *knobs; int64_t want; } cases[] = {
        {"mode=quasi,jacobian_clamp=1", T * B * D},
        {"mode=damped,jacobian_clamp=2.5", T * B * D},
        {"mode=full,jacobian_clamp=1", T * B * D * D},
        {"mode=full,jacobian_clamp=3.5", 0},
        {"mode=quasi", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        logt_net *net = all_threes(cases[i].knobs, I, D);
        cr_assert_eq(forward_at(net, &x, 0, 0), LOGT_OK, "%s: %s", cases[i].knobs, logt_errmsg());
        cr_expect_eq(layer(net)->iterations, 0, "%s: %s", cases[i].knobs, net->layer[0]->detail);
        cr_expect_eq(net->layer[0]->clamped, cases[i].want, "%s: %lld clamped, not %lld", cases[i].knobs,
                     (long long)net->layer[0]->clamped, (long long)cases[i].want);
        cr_expect_eq(net->layer[0]->clamping, strstr(cases[i].knobs, "clamp") != NULL, "%s", cases[i].knobs);
        logt_net_destroy(net);
    }
    logt_tensor_free(&x);
}

/* A clamped Jacobian changes Newton's steps, not its answer: the residual is f's own. */
Test(deer_cpu, a_clamped_newton_solves_the_same_recurrence)
{
    const int T = 40, B = 2, I = 3, D = 4;
    double *x = random_array(T * B * I, 14, 1, 1.0, LOGT_F64), *dh = random_array(T * B * D, 14, 2, 1.0, LOGT_F64);
    const char *modes[] = {"quasi", "full", "damped"};
    for (int k = 0; k < 3; k++) {
        char plain[64], clamped[96];
        snprintf(plain, sizeof plain, "mode=%s", modes[k]);
        snprintf(clamped, sizeof clamped, "mode=%s,jacobian_clamp=0.3", modes[k]);
        logt_net *a = make_net("deer", "tanh", plain, I, D), *b = make_net("deer", "tanh", clamped, I, D);
        scale_R(a, 2.0), scale_R(b, 2.0);
        run ra, rb;
        cr_assert_eq(run_net(a, T, B, I, D, x, dh, NULL, &ra), LOGT_OK, "%s: %s", plain, logt_errmsg());
        cr_assert_eq(run_net(b, T, B, I, D, x, dh, NULL, &rb), LOGT_OK, "%s: %s", clamped, logt_errmsg());
        const int64_t n = b->layer[0]->clamped, most = (int64_t)(layer(b)->iterations + 1) * T * B *
                                                           (k == 1 ? D * D : D);
        cr_expect(n > 0 && n < most, "%s: %lld clamped of at most %lld", clamped, (long long)n, (long long)most);
        cr_expect(layer(b)->converged, "%s: %s", clamped, b->layer[0]->detail);
        cr_expect(strstr(b->layer[0]->detail, "clamped="), "%s", b->layer[0]->detail);
        expect_same("h", rb.h, ra.h, T * B * D, 1e-9, clamped);
        expect_same("dparams", rb.dw, ra.dw, ra.nw, 1e-8, clamped);   /* the adjoint is exact */
        run_free(&ra), run_free(&rb);
        logt_net_destroy(a), logt_net_destroy(b);
    }
    free(x), free(dh);
}

/* on_fail = retry fails the call as error does, and says that a training step is to be retried. */
Test(deer_cpu, on_fail_retry_fails_the_call_and_asks_for_a_retry)
{
    const int T = 60, B = 2, I = 3, D = 4;
    double *x = random_array(T * B * I, 12, 1, 1.0, LOGT_F64), *dh = random_array(T * B * D, 12, 2, 1.0, LOGT_F64);
    logt_net *net = make_net("deer", "gru", "mode=quasi,max_iter=2,on_fail=retry", I, D);
    cr_assert(net->layer[0]->retry);
    scale_R(net, 4.0);
    run a;
    cr_assert_eq(run_net(net, T, B, I, D, x, dh, NULL, &a), LOGT_ENUMERIC);
    cr_assert(strstr(logt_errmsg(), "did not converge") && strstr(logt_errmsg(), "or retry"), "%s", logt_errmsg());
    cr_assert(!layer(net)->fell_back);
    logt_net_destroy(net);
    net = make_net("deer", "gru", "mode=quasi", I, D);
    cr_assert(!net->layer[0]->retry && !net->layer[0]->clamping);
    logt_net_destroy(net);
    free(x), free(dh);
}
