/* test_deer_cuda.c — deer's CUDA forward (models/deer/deer_cuda.cu): Newton (mode = quasi, and
 * full for a state of 1) by both routes (newton_kernel = persistent, launches), mode = full
 * by the matrix scan, mode = damped (its step against Thomas's algorithm, too), and the two sequential baselines (solver = launch, fused) against
 * the float64 CPU reference on the same f32 parameters and f32-rounded inputs, for the gru,
 * lstm and tanh cells, odd B, T = 1, with an initial state; the adjoint backward's
 * gradients against the reference's (BPTT's); the report of a run that does not converge
 * and its fall-back; what the CUDA side refuses; and the safety knobs: jacobian_clamp's
 * count on every route, a clamped solve against the reference, tol_schedule and the
 * relaxation read from the context.
 *
 * Tolerance: f32 arithmetic on a contracting recurrence; Newton stops at residual 1e-6, so
 * h is within ~1e-5 of the reference; 1e-4 of max|h| is allowed (a wrong index is off by
 * order 1). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/cuda.h"
#include "../models/deer/deer.h"
#include "../models/model.h"
#include "check.h"
#include "gpu.h"
#include "gradcheck.h"

static logt_model_cfg cfg_of(logt_device dev, const char *cell, const char *knobs, int I, int D)
{
    return test_cfg("deer", dev, cell, knobs, I, D, 21);
}

/* Forward of cfg's net on x (and h0, c0): h to the host; w in (NULL: its own) and out. */
static logt_status forward(const logt_model_cfg *cfg, int T, int B, const double *x, const double *h0,
                           const double *c0, const double *w, double **h, double **w_out,
                           deer_model *report)
{
    logt_net *net = NULL;
    logt_status s = logt_net_create(cfg, &net);
    if (s != LOGT_OK) return s;
    if (w) cr_assert_eq(logt_tensor_from_f64(&net->w, w), LOGT_OK, "%s", logt_errmsg());
    if (w_out) *w_out = host_copy(&net->w);
    logt_ctx *ctx = NULL;
    cr_assert_eq(logt_ctx_create(cfg->device, &ctx), LOGT_OK, "%s", logt_errmsg());
    const int D = cfg->hidden_size, I = cfg->input_size;
    if (h0) {
        logt_tensor th = tensor3(1, B, D, h0), tc = tensor3(1, B, D, c0);
        cr_assert_eq(logt_net_set_state(net, &th, c0 ? &tc : NULL), LOGT_OK, "%s", logt_errmsg());
        logt_tensor_free(&th), logt_tensor_free(&tc);
    }
    logt_tensor tx = cfg_tensor3(cfg, T, B, I, x);
    const logt_tensor *ht;
    s = logt_net_forward(net, &tx, &ht, ctx);
    if (s == LOGT_OK) s = logt_ctx_sync(ctx);
    if (s == LOGT_OK) *h = host_copy(ht);
    if (report) *report = *(deer_model *)net->layer[0];
    logt_tensor_free(&tx);
    logt_net_destroy(net);
    logt_ctx_destroy(ctx);
    return s;
}

static void expect_matches(const char *cell, const char *knobs, int T, int B, int D)
{
    const int I = 3, lstm = !strcmp(cell, "lstm");
    char label[160];
    snprintf(label, sizeof label, "deer cuda %s [%s] T=%d B=%d D=%d", cell, knobs, T, B, D);
    double *x = random_array((int64_t)T * B * I, 31, 1, 1.0, LOGT_F32);
    double *h0 = random_array((int64_t)B * D, 31, 2, 0.5, LOGT_F32);
    double *c0 = lstm ? random_array((int64_t)B * D, 31, 3, 0.5, LOGT_F32) : NULL;
    logt_model_cfg gpu = cfg_of(LOGT_CUDA, cell, knobs, I, D), cpu = cfg_of(LOGT_CPU, cell, "mode=full", I, D);
    double *hg, *hc, *w;
    deer_model rep;
    cr_assert_eq(forward(&gpu, T, B, x, h0, c0, NULL, &hg, &w, &rep), LOGT_OK, "%s: %s", label, logt_errmsg());
    cr_assert_eq(forward(&cpu, T, B, x, h0, c0, w, &hc, NULL, NULL), LOGT_OK, "%s: %s", label, logt_errmsg());
    double scale = 0;
    for (int64_t i = 0; i < (int64_t)T * B * D; i++) scale = fmax(scale, fabs(hc[i]));
    check_result c = check_close("h", hg, hc, (int64_t)T * B * D, 1e-4 * fmax(scale, 1e-30), 0);
    cr_expect(c.ok, "%s (%s): %s", label, rep.base.detail, c.msg);
    if (strstr(knobs, "newton_kernel=persistent"))   /* the route asked for is the one taken */
        cr_expect(strstr(rep.base.detail, "kernel=persistent"), "%s: %s", label, rep.base.detail);
    free(hg), free(hc), free(w), free(x), free(h0), free(c0);
}

Test(deer_cuda, newton_and_baselines_match_the_reference)
{
    SKIP_WITHOUT_GPU("deer on cuda vs the f64 CPU reference");
    const char *cells[] = {"gru", "lstm", "tanh"};
    /* auto takes the persistent route for states of 1-4 (the first three shapes but lstm's
     * 200 × 3 × 4), the launches route otherwise */
    const char *knobs[] = {"mode=quasi,tol=1e-6", "mode=quasi,tol=1e-6,newton_kernel=launches",
                           "solver=launch", "solver=fused"};
    for (int c = 0; c < 3; c++)
        for (int k = 0; k < 4; k++) {
            expect_matches(cells[c], knobs[k], 1, 1, 1);
            expect_matches(cells[c], knobs[k], 200, 3, 4);
            expect_matches(cells[c], knobs[k], 1000, 16, 1);
            expect_matches(cells[c], knobs[k], 77, 5, 33);
        }
    expect_matches("gru", "mode=full,tol=1e-6", 3000, 16, 1);   /* a state of 1: full is quasi */
}

/* The persistent kernel's grid on awkward shapes: one sequence (256 runs a block), B = 40
 * (two groups of sequences, the second partial), T = 1 and T = 100000 (hundreds of chunks),
 * every instantiated state width. */
Test(deer_cuda, persistent_route_matches_the_reference)
{
    SKIP_WITHOUT_GPU("deer's persistent Newton kernel vs the f64 CPU reference");
    const char *k = "mode=quasi,tol=1e-6,newton_kernel=persistent";
    expect_matches("gru", k, 1, 1, 1);
    expect_matches("gru", k, 5000, 1, 1);
    expect_matches("gru", k, 333, 40, 2);
    expect_matches("gru", k, 100000, 2, 1);
    expect_matches("gru", k, 1001, 7, 3);
    expect_matches("gru", k, 999, 16, 4);
    expect_matches("tanh", k, 2047, 5, 3);
    expect_matches("lstm", k, 700, 9, 1);
    expect_matches("lstm", k, 300, 33, 2);
}

Test(deer_cuda, persistent_route_refuses_what_it_is_not_built_for)
{
    SKIP_WITHOUT_GPU("deer's persistent Newton kernel");
    double *x = random_array(10 * 2 * 3, 33, 1, 1.0, LOGT_F32), *h;
    logt_model_cfg cfg = cfg_of(LOGT_CUDA, "gru", "mode=quasi,newton_kernel=persistent", 3, 5);
    cr_assert_eq(forward(&cfg, 10, 2, x, NULL, NULL, NULL, &h, NULL, NULL), LOGT_EUNSUPPORTED);
    cr_assert(strstr(logt_errmsg(), "states of 1 to 4") && strstr(logt_errmsg(), "newton_kernel = launches"),
              "%s", logt_errmsg());
    cfg = cfg_of(LOGT_CUDA, "gru", "mode=damped,newton_kernel=persistent", 3, 2);
    cr_assert_eq(forward(&cfg, 10, 2, x, NULL, NULL, NULL, &h, NULL, NULL), LOGT_EUNSUPPORTED);
    cr_assert(strstr(logt_errmsg(), "mode = damped runs on the launches route"), "%s", logt_errmsg());
    free(x);
}

Test(deer_cuda, non_convergence_is_reported_or_falls_back)
{
    SKIP_WITHOUT_GPU("deer on cuda");
    const int T = 500, B = 4, I = 3, D = 8;
    double *x = random_array(T * B * I, 32, 1, 1.0, LOGT_F32), *h;
    logt_model_cfg cfg = cfg_of(LOGT_CUDA, "gru", "mode=quasi,max_iter=1,tol=1e-7", I, D);
    deer_model rep;
    cr_assert_eq(forward(&cfg, T, B, x, NULL, NULL, NULL, &h, NULL, &rep), LOGT_ENUMERIC);
    cr_assert(strstr(logt_errmsg(), "did not converge") && strstr(logt_errmsg(), "after 1 iterations"),
              "%s", logt_errmsg());
    expect_matches("gru", "mode=quasi,max_iter=1,tol=1e-7,on_fail=sequential", T, B, D);
    /* the persistent route (a state of 2) says the same */
    cfg = cfg_of(LOGT_CUDA, "gru", "mode=quasi,max_iter=1,tol=1e-7,newton_kernel=persistent", I, 2);
    cr_assert_eq(forward(&cfg, T, B, x, NULL, NULL, NULL, &h, NULL, &rep), LOGT_ENUMERIC);
    cr_assert(strstr(logt_errmsg(), "did not converge") && strstr(logt_errmsg(), "after 1 iterations"),
              "%s", logt_errmsg());
    cr_assert_eq(rep.nres, 2, "residuals of iterations 0 and 1 reported, not %d", rep.nres);
    free(x);
    expect_matches("gru", "mode=quasi,max_iter=1,tol=1e-7,on_fail=sequential,newton_kernel=persistent",
                   T, B, 2);
}

Test(deer_cuda, what_cuda_refuses_says_so)
{
    SKIP_WITHOUT_GPU("deer on cuda");
    struct { const char *knobs; int D; const char *says; } cases[] = {
        {"mode=full", 65, "mode = full on cuda is built for states of at most 64"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        logt_model_cfg cfg = cfg_of(LOGT_CUDA, "gru", cases[i].knobs, 2, cases[i].D);
        logt_net *net = NULL;
        cr_assert_eq(logt_net_create(&cfg, &net), LOGT_EUNSUPPORTED, "case %zu", i);
        cr_assert(strstr(logt_errmsg(), cases[i].says), "case %zu: %s", i, logt_errmsg());
    }

}

/* The adjoint backward on cuda against the CPU reference's (which equals BPTT, test_deer.c):
 * the parameters' gradients, dx and dh0 (dc0), on the same f32 weights, inputs and dh.
 * Tolerance 1e-3 of each group's max|ref| (f32 forward at tol 1e-6, f32 sums over T·B). */
static void expect_gradients(const char *cell, const char *knobs, int T, int B, int D)
{
    const int I = 3, lstm = !strcmp(cell, "lstm");
    char label[160];
    snprintf(label, sizeof label, "deer cuda backward %s [%s] T=%d B=%d D=%d", cell, knobs, T, B, D);
    double *x = random_array((int64_t)T * B * I, 41, 1, 1.0, LOGT_F32);
    double *dh = random_array((int64_t)T * B * D, 41, 2, 1.0, LOGT_F32);
    double *h0 = random_array((int64_t)B * D, 41, 3, 0.5, LOGT_F32);
    double *c0 = lstm ? random_array((int64_t)B * D, 41, 4, 0.5, LOGT_F32) : NULL;
    logt_model_cfg gpu = cfg_of(LOGT_CUDA, cell, knobs, I, D), cpu = cfg_of(LOGT_CPU, cell, "mode=full", I, D);
    double *gw = NULL, *gdx = NULL, *gdh0 = NULL, *gdc0 = NULL, *cw = NULL, *cdx = NULL, *cdh0 = NULL, *cdc0 = NULL;
    double *w = NULL;
    int64_t nw = 0;
    char detail[512] = "";
    for (int side = 0; side < 2; side++) {
        const logt_model_cfg *cfg = side ? &cpu : &gpu;
        logt_net *net = NULL;
        cr_assert_eq(logt_net_create(cfg, &net), LOGT_OK, "%s: %s", label, logt_errmsg());
        if (side) cr_assert_eq(logt_tensor_from_f64(&net->w, w), LOGT_OK, "%s", logt_errmsg());
        else w = host_copy(&net->w);
        logt_ctx *ctx = NULL;
        cr_assert_eq(logt_ctx_create(cfg->device, &ctx), LOGT_OK, "%s", logt_errmsg());
        logt_tensor th = tensor3(1, B, D, h0), tc = tensor3(1, B, D, c0);
        cr_assert_eq(logt_net_set_state(net, &th, lstm ? &tc : NULL), LOGT_OK, "%s", logt_errmsg());
        logt_tensor_free(&th), logt_tensor_free(&tc);
        logt_tensor tx = cfg_tensor3(cfg, T, B, I, x), tdh = cfg_tensor3(cfg, T, B, D, dh);
        logt_tensor tdx = cfg_tensor3(cfg, T, B, I, NULL);
        const logt_tensor *h;
        cr_assert_eq(logt_net_forward(net, &tx, &h, ctx), LOGT_OK, "%s: %s", label, logt_errmsg());
        cr_assert_eq(logt_net_backward(net, &tdh, &tdx, ctx), LOGT_OK, "%s: %s", label, logt_errmsg());
        cr_assert_eq(logt_ctx_sync(ctx), LOGT_OK, "%s", logt_errmsg());
        double **pw = side ? &cw : &gw, **pdx = side ? &cdx : &gdx, **pdh0 = side ? &cdh0 : &gdh0;
        *pw = host_copy(&net->dw), *pdx = host_copy(&tdx), *pdh0 = host_copy(&net->dh0);
        if (lstm) *(side ? &cdc0 : &gdc0) = host_copy(&net->dc0);
        nw = net->dw.numel;
        if (!side) snprintf(detail, sizeof detail, "%s", net->layer[0]->detail);
        logt_tensor_free(&tx), logt_tensor_free(&tdh), logt_tensor_free(&tdx);
        logt_net_destroy(net);
        logt_ctx_destroy(ctx);
    }
    struct { const char *what; const double *got, *ref; int64_t n; } g[] = {
        {"dparams", gw, cw, nw}, {"dx", gdx, cdx, (int64_t)T * B * I}, {"dh0", gdh0, cdh0, (int64_t)B * D},
        {"dc0", gdc0, cdc0, lstm ? (int64_t)B * D : 0}};
    for (size_t i = 0; i < sizeof g / sizeof g[0]; i++) {
        if (!g[i].n) continue;
        double scale = 0;
        for (int64_t k = 0; k < g[i].n; k++) scale = fmax(scale, fabs(g[i].ref[k]));
        check_result c = check_close(g[i].what, g[i].got, g[i].ref, g[i].n, 1e-3 * fmax(scale, 1e-30), 0);
        cr_expect(c.ok, "%s (%s): %s", label, detail, c.msg);
    }
    fprintf(stderr, "%s: %s\n", label, detail);
    free(gw), free(gdx), free(gdh0), free(gdc0), free(cw), free(cdx), free(cdh0), free(cdc0), free(w);
    free(x), free(dh), free(h0), free(c0);
}

Test(deer_cuda, adjoint_gradients_match_the_reference)
{
    SKIP_WITHOUT_GPU("deer's adjoint backward on cuda vs the f64 CPU reference");
    const char *cells[] = {"gru", "lstm", "tanh"};
    for (int c = 0; c < 3; c++) {
        expect_gradients(cells[c], "mode=quasi,tol=1e-6", 1, 1, 1);
        expect_gradients(cells[c], "mode=quasi,tol=1e-6", 300, 3, 1);
        expect_gradients(cells[c], "mode=quasi,tol=1e-6", 200, 5, 4);
        expect_gradients(cells[c], "mode=quasi,tol=1e-6", 77, 2, 33);
        expect_gradients(cells[c], "mode=quasi,tol=1e-6,newton_kernel=launches", 500, 16, 2);
    }
    expect_gradients("gru", "solver=fused", 400, 4, 8);   /* the sequential forward, the same adjoint */
}

/* warm = on: a second call on the same input starts from the first's solution and stops at
 * once (0 iterations); a call on a nearby input still matches the reference. Both routes. */
Test(deer_cuda, warm_start_from_the_last_solution)
{
    SKIP_WITHOUT_GPU("deer's warm start on cuda");
    const int T = 2000, B = 4, I = 3;
    const int Ds[] = {2, 8};   /* the persistent route, the launches route */
    for (int i = 0; i < 2; i++) {
        const int D = Ds[i];
        double *x = random_array((int64_t)T * B * I, 51, 1, 1.0, LOGT_F32);
        logt_model_cfg cfg = cfg_of(LOGT_CUDA, "gru", "mode=quasi,tol=1e-6,warm=on", I, D);
        logt_net *net = NULL;
        cr_assert_eq(logt_net_create(&cfg, &net), LOGT_OK, "%s", logt_errmsg());
        logt_ctx *ctx = NULL;
        cr_assert_eq(logt_ctx_create(LOGT_CUDA, &ctx), LOGT_OK);
        int its[3];
        double *h = NULL;
        for (int call = 0; call < 3; call++) {
            if (call == 2)
                for (int64_t k = 0; k < (int64_t)T * B * I; k++) x[k] = round_to(LOGT_F32, x[k] * 1.01);
            logt_tensor tx = cfg_tensor3(&cfg, T, B, I, x);
            const logt_tensor *ht;
            cr_assert_eq(logt_net_forward(net, &tx, &ht, ctx), LOGT_OK, "%s", logt_errmsg());
            cr_assert_eq(logt_ctx_sync(ctx), LOGT_OK);
            its[call] = ((deer_model *)net->layer[0])->iterations;
            cr_expect(strstr(net->layer[0]->detail, call ? " warm" : "kernel="), "%s", net->layer[0]->detail);
            if (call == 2) h = host_copy(ht);
            logt_tensor_free(&tx);
        }
        cr_expect(its[0] >= 2 && its[1] == 0 && its[2] < its[0], "D=%d iterations %d, %d, %d", D,
                  its[0], its[1], its[2]);
        double *w = host_copy(&net->w), *ref = NULL;
        logt_net_destroy(net);
        logt_ctx_destroy(ctx);
        logt_model_cfg cpu = cfg_of(LOGT_CPU, "gru", "mode=full", I, D);
        cr_assert_eq(forward(&cpu, T, B, x, NULL, NULL, w, &ref, NULL, NULL), LOGT_OK, "%s", logt_errmsg());
        double scale = 0;
        for (int64_t k = 0; k < (int64_t)T * B * D; k++) scale = fmax(scale, fabs(ref[k]));
        check_result c = check_close("h", h, ref, (int64_t)T * B * D, 1e-4 * scale, 0);
        cr_expect(c.ok, "D=%d warm third call: %s", D, c.msg);
        free(x), free(h), free(w), free(ref);
    }
}

/* expect_matches for gru, lstm and tanh at four (T, B, D). */
static void expect_every_cell(const char *knobs, const int shapes[4][3])
{
    const char *cells[] = {"gru", "lstm", "tanh"};
    for (int c = 0; c < 3; c++)
        for (int k = 0; k < 4; k++) expect_matches(cells[c], knobs, shapes[k][0], shapes[k][1], shapes[k][2]);
}

/* A gru (T = 2000, B = 4, I = 3, D = 8, input from `seed`) solved twice on the same weights, on
 * device da with knobs ka and on db with kb: the two reports, and a line of their iterations. */
static void two_solves(logt_device da, const char *ka, logt_device db, const char *kb, uint64_t seed,
                       deer_model *ra, deer_model *rb)
{
    const int T = 2000, B = 4, I = 3, D = 8;
    double *x = random_array((int64_t)T * B * I, seed, 1, 1.0, LOGT_F32), *h, *w;
    logt_model_cfg ca = cfg_of(da, "gru", ka, I, D), cb = cfg_of(db, "gru", kb, I, D);
    cr_assert_eq(forward(&ca, T, B, x, NULL, NULL, NULL, &h, &w, ra), LOGT_OK, "%s", logt_errmsg());
    free(h);
    cr_assert_eq(forward(&cb, T, B, x, NULL, NULL, w, &h, NULL, rb), LOGT_OK, "%s", logt_errmsg());
    free(h), free(w), free(x);
    fprintf(stderr, "deer gru T=%d B=%d D=%d: [%s] %d iterations, [%s] %d\n", T, B, D, ka, ra->iterations,
            kb, rb->iterations);
}

/* mode = full with a state wider than 1: the whole Jacobians and the chunked matrix scan in
 * float64, against the reference; full Newton converges quadratically, so in a few
 * iterations (the CPU's deer-convergence: 3-25). The widest state built, 64 (gru D = 64,
 * lstm D = 32), and T = 1 and odd B. */
Test(deer_cuda, full_newton_matches_the_reference)
{
    SKIP_WITHOUT_GPU("deer mode = full on cuda vs the f64 CPU reference");
    const int shapes[4][3] = {{1, 1, 2}, {200, 3, 4}, {1000, 16, 8}, {77, 5, 16}};
    expect_every_cell("mode=full,tol=1e-6", shapes);
    expect_matches("gru", "mode=full,tol=1e-6", 300, 2, 64);
    expect_matches("lstm", "mode=full,tol=1e-6", 300, 2, 32);
    expect_matches("gru", "mode=full,tol=1e-6,warm=on", 500, 4, 6);
    expect_gradients("gru", "mode=full,tol=1e-6", 200, 5, 4);   /* the adjoint after full Newton */
    /* full Newton's few iterations against quasi's */
    deer_model full, quasi;
    two_solves(LOGT_CUDA, "mode=full,tol=1e-6", LOGT_CUDA, "mode=quasi,tol=1e-6", 61, &full, &quasi);
    cr_expect(full.iterations <= 25 && full.iterations <= quasi.iterations,
              "full %d iterations, quasi %d", full.iterations, quasi.iterations);
}

/* mode = damped's step on its own (deer_cuda_damped.cu) against Thomas's algorithm in float64
 * (deer_damped_thomas), channel by channel, on the same f32-rounded a, b, g, s0: T from 1 to
 * past the chunking's one step a chunk, C from 1 to past the threads of the carry kernel's
 * block, λ from 1e-3 to 100, gates up to 1.5 (an expanding recurrence) where λ keeps the
 * system diagonally dominant. Tolerance 1e-4 of max|ref|; a wrong carry is off by order 1. */
#ifdef LOGT_HAVE_CUDA   /* deer_damped_step_cuda exists only in a cuda build */
Test(deer_cuda, damped_step_equals_thomas)
{
    SKIP_WITHOUT_GPU("deer's damped step on cuda vs Thomas in f64");
    logt_ctx *ctx = NULL;
    cr_assert_eq(logt_ctx_create(LOGT_CUDA, &ctx), LOGT_OK, "%s", logt_errmsg());
    const struct { int64_t T, C; double lambda, amax; } cases[] = {
        {1, 1, 1.0, 0.9},      {2, 3, 1e-3, 0.9},    {7, 1, 100.0, 1.5},   {1000, 3, 1.0, 1.5},
        {1000, 300, 1e-3, 0.9}, {33753, 2, 1.0, 0.9}, {100000, 1, 1e-3, 0.9}, {4096, 1000, 100.0, 1.5},
        {200000, 16, 1.0, 1.5},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const int64_t T = cases[i].T, C = cases[i].C, n = T * C;
        double *a = random_array(n, 71, 1, cases[i].amax, LOGT_F32), *b = random_array(n, 71, 2, 1.0, LOGT_F32);
        double *g = random_array(n, 71, 3, 2.0, LOGT_F32), *s0 = random_array(C, 71, 4, 1.0, LOGT_F32);
        logt_tensor da, db, dg, ds0, dout;
        logt_tensor *all[] = {&da, &db, &dg, &ds0, &dout};
        double *host[] = {a, b, g, s0, NULL};
        for (int k = 0; k < 5; k++) {
            cr_assert_eq(logt_tensor_new1(all[k], LOGT_CUDA, LOGT_F32, k == 3 ? C : n), LOGT_OK, "%s", logt_errmsg());
            if (host[k]) cr_assert_eq(logt_tensor_from_f64(all[k], host[k]), LOGT_OK, "%s", logt_errmsg());
        }
        cr_assert_eq(deer_damped_step_cuda(ctx, T, C, cases[i].lambda, da.data, db.data, dg.data, ds0.data,
                                           dout.data), LOGT_OK, "%s", logt_errmsg());
        double *got = host_copy(&dout), *ref = malloc(sizeof(double) * (size_t)n);
        double *ca = malloc(sizeof(double) * 4 * (size_t)T), *cb = ca + T, *cg = cb + T, *ch = cg + T;
        cr_assert(ref && ca, "out of host memory");
        for (int64_t c = 0; c < C; c++) {   /* channel c as contiguous arrays */
            for (int64_t t = 0; t < T; t++) ca[t] = a[t * C + c], cb[t] = b[t * C + c], cg[t] = g[t * C + c];
            cr_assert_eq(deer_damped_thomas(T, ca, cb, cg, s0[c], cases[i].lambda, ch), LOGT_OK);
            for (int64_t t = 0; t < T; t++) ref[t * C + c] = ch[t];
        }
        double scale = 0;
        for (int64_t k = 0; k < n; k++) scale = fmax(scale, fabs(ref[k]));
        check_result r = check_close("h", got, ref, n, 1e-4 * scale, 0);
        cr_expect(r.ok, "T=%lld C=%lld lambda=%g gates up to %g: %s", (long long)T, (long long)C,
                  cases[i].lambda, cases[i].amax, r.msg);
        for (int k = 0; k < 5; k++) logt_tensor_free(all[k]);
        free(a), free(b), free(g), free(s0), free(got), free(ref), free(ca);
    }
    float one = 1.0f;
    cr_assert_eq(deer_damped_step_cuda(ctx, 0, 1, 1.0, &one, &one, &one, NULL, &one), LOGT_EINVAL);
    cr_assert(strstr(logt_errmsg(), "T = 0"), "%s", logt_errmsg());
    logt_ctx_destroy(ctx);
}
#endif

/* mode = damped on cuda (the launches route with the damped step) against the reference's
 * answer, every cell, odd B, T = 1, an initial state, λ small and large; then the adjoint
 * after it; and the damped iterations against the cpu's damped iterations, which follow the
 * same λ schedule (equal up to f32 rounding of the residuals, ±2). */
Test(deer_cuda, damped_mode_matches_the_reference)
{
    SKIP_WITHOUT_GPU("deer mode = damped on cuda vs the f64 CPU reference");
    const int shapes[4][3] = {{1, 1, 1}, {200, 3, 4}, {1000, 16, 1}, {77, 5, 33}};
    expect_every_cell("mode=damped,tol=1e-6", shapes);
    expect_matches("gru", "mode=damped,tol=1e-6,lambda=100", 3000, 4, 2);
    expect_matches("gru", "mode=damped,tol=1e-6,lambda=1e-3", 100000, 2, 1);
    expect_matches("gru", "mode=damped,tol=1e-6,max_iter=1,on_fail=sequential", 500, 4, 8);
    expect_gradients("gru", "mode=damped,tol=1e-6", 200, 5, 4);
    expect_gradients("lstm", "mode=damped,tol=1e-6", 300, 3, 2);
    deer_model gpu, cpu;
    two_solves(LOGT_CUDA, "mode=damped,tol=1e-5", LOGT_CPU, "mode=damped,tol=1e-5", 62, &gpu, &cpu);
    cr_expect(strstr(gpu.base.detail, "mode=damped kernel=launches"), "%s", gpu.base.detail);
    cr_expect(abs(gpu.iterations - cpu.iterations) <= 2, "damped iterations: cuda %d, cpu %d",
              gpu.iterations, cpu.iterations);
}

/* ---- the safety knobs: jacobian_clamp, tol_schedule, relaxation ------------------------------ */

/* deer's parameters for cfg with W = 0, b = 0 and every entry of R = 3 (cell tanh): from zeros
 * on zero input the guess is the solution, and every entry of J = (1 - tanh²) R^T is 3. */
static double *all_threes(const logt_model_cfg *cfg)
{
    logt_layout l;
    memset(&l, 0, sizeof l);
    cr_assert_eq(logt_model_layout(logt_model_find("deer"), cfg, &l), LOGT_OK, "%s", logt_errmsg());
    double *w = calloc((size_t)l.numel, sizeof *w);
    const logt_slice *r = logt_layout_find(&l, "R");
    for (int64_t i = 0; i < r->numel; i++) w[r->offset + i] = 3.0;
    return w;
}

/* Every route counts each entry it clamps, once per evaluation: the persistent kernel, the
 * launches route, the damped step, the matrix scan of mode = full, full with a state of 1. */
Test(deer_cuda, jacobian_clamp_counts_each_entry_it_clamps)
{
    SKIP_WITHOUT_GPU("deer's jacobian_clamp on cuda");
    const int T = 300, B = 3, I = 2;
    const struct { const char *knobs; int D; int64_t per_row; } cases[] = {
        {"mode=quasi,jacobian_clamp=1,newton_kernel=persistent", 2, 2},
        {"mode=quasi,jacobian_clamp=1,newton_kernel=launches", 8, 8},
        {"mode=damped,jacobian_clamp=2.5", 4, 4},
        {"mode=full,jacobian_clamp=1", 4, 16},
        {"mode=full,jacobian_clamp=1", 1, 1},
        {"mode=quasi,jacobian_clamp=3.5", 4, 0},
    };
    double *x = calloc((size_t)T * B * I, sizeof *x);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        logt_model_cfg cfg = cfg_of(LOGT_CUDA, "tanh", cases[i].knobs, I, cases[i].D);
        double *w = all_threes(&cfg), *h = NULL;
        deer_model rep;
        cr_assert_eq(forward(&cfg, T, B, x, NULL, NULL, w, &h, NULL, &rep), LOGT_OK, "%s: %s",
                     cases[i].knobs, logt_errmsg());
        cr_expect_eq(rep.iterations, 0, "%s: %s", cases[i].knobs, rep.base.detail);
        cr_expect_eq(rep.base.clamped, (int64_t)T * B * cases[i].per_row, "%s D=%d: %lld clamped (%s)",
                     cases[i].knobs, cases[i].D, (long long)rep.base.clamped, rep.base.detail);
        free(w), free(h);
    }
    free(x);
}

/* Clamped, Newton takes other steps to the same solution: the reference's, unclamped. */
Test(deer_cuda, a_clamped_solve_matches_the_reference)
{
    SKIP_WITHOUT_GPU("deer's jacobian_clamp on cuda");
    expect_matches("tanh", "mode=quasi,jacobian_clamp=0.3,r_scale=2,newton_kernel=persistent", 100, 3, 2);
    expect_matches("tanh", "mode=quasi,jacobian_clamp=0.3,r_scale=2,newton_kernel=launches", 100, 3, 8);
    expect_matches("gru", "mode=quasi,jacobian_clamp=0.5", 100, 3, 8);
    expect_matches("tanh", "mode=full,jacobian_clamp=0.3,r_scale=2", 100, 3, 4);
    expect_matches("tanh", "mode=damped,jacobian_clamp=0.3,r_scale=2", 100, 3, 4);
}

/* The forward's tol is tol_schedule's at ctx->step, relaxed ctx->relax times, on both routes of
 * the element-wise solve, and the solve stops there. */
Test(deer_cuda, tol_schedule_and_relaxation_come_from_the_context)
{
    SKIP_WITHOUT_GPU("deer's tol_schedule on cuda");
    const int T = 400, B = 2, I = 3, Ds[] = {2, 8};
    double *x = random_array((int64_t)T * B * I, 61, 1, 1.0, LOGT_F32);
    for (int i = 0; i < 2; i++) {
        logt_model_cfg cfg = cfg_of(LOGT_CUDA, "gru", "mode=quasi,tol_schedule=1e-2:1e-6:4", I, Ds[i]);
        logt_net *net = NULL;
        logt_ctx *ctx = NULL;
        cr_assert_eq(logt_net_create(&cfg, &net), LOGT_OK, "%s", logt_errmsg());
        cr_assert_eq(logt_ctx_create(LOGT_CUDA, &ctx), LOGT_OK, "%s", logt_errmsg());
        logt_tensor tx = cfg_tensor3(&cfg, T, B, I, x);
        const logt_tensor *h;
        deer_model *m = (deer_model *)net->layer[0];
        const struct { int64_t step; int relax; double tol; int max_iter; } at[] = {
            {-1, 0, 1e-6, 200}, {2, 0, 1e-4, 200}, {2, 1, 1e-3, 400}, {9, 2, 1e-4, 800}};
        for (int k = 0; k < 4; k++) {
            ctx->step = at[k].step, ctx->relax = at[k].relax;
            cr_assert_eq(logt_net_forward(net, &tx, &h, ctx), LOGT_OK, "%s", logt_errmsg());
            cr_expect(fabs(m->tol - at[k].tol) <= 1e-9 * at[k].tol && m->max_iter == at[k].max_iter,
                      "D=%d step %lld relax %d: tol %g, max_iter %d", Ds[i], (long long)at[k].step,
                      at[k].relax, m->tol, m->max_iter);
            cr_expect(m->converged && m->residual[m->nres - 1] <= m->tol, "%s", net->layer[0]->detail);
        }
        logt_tensor_free(&tx);
        logt_ctx_destroy(ctx);
        logt_net_destroy(net);
    }
    free(x);
}
