/* test_deer_multi.c — quasi-DEER over a sequence split into pieces (models/deer/deer_multi.h).
 *
 * CPU: the float64 pieces algorithm (G = 1, 2, 3, 7; pieces of one step, uneven pieces, B odd;
 * gru, lstm, tanh) against deer's own float64 reference on the whole sequence with mode =
 * quasi (deer_forward_cpu, deer_backward_cpu through logt_net): the same iterations, the
 * residuals, h and every gradient (parameters, dx, dh0, dc0) to rounding. Tolerances: the
 * forward stops at 1e-10 in both, so the iterates differ by rounding only (1e-12 of max|h|);
 * the reference's backward is exact (a sequential walk), the pieces' adjoint iterates to
 * 1e-10 of its first residual: 1e-8 of each gradient's max.
 * GPUs (NCCL; skipped without CUDA, NCCL or a second GPU): G = 1 and 2 against the one-GPU
 * deer on CUDA (mode = quasi, newton_kernel = launches, the same f32 parameters): iterations
 * equal (G = 2: one apart only where a residual is within rounding of tol), residuals, h and
 * every gradient to f32 rounding.
 * Both: bad arguments fail with a message naming the argument and what would be right.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../models/deer/deer.h"
#include "../models/deer/deer_multi.h"
#include "../models/model.h"
#include "check.h"
#include "gpu.h"
#include "gradcheck.h"

#define OK(call) cr_assert_eq((call), LOGT_OK, "%s", logt_errmsg())

static deer_cell cell_of(const char *name)
{
    return !strcmp(name, "lstm") ? DEER_LSTM : !strcmp(name, "tanh") ? DEER_TANH : DEER_GRU;
}

static double max_abs(const double *x, int64_t n)
{
    double m = 0;
    for (int64_t i = 0; i < n; i++) m = fmax(m, fabs(x[i]));
    return m;
}

/* got against ref, atol = rel · max|ref|. */
static void expect_close(const char *label, const char *what, const double *got, const double *ref,
                         int64_t n, double rel)
{
    const double atol = rel * fmax(max_abs(ref, n), 1e-30);
    check_result c = check_close(what, got, ref, n, atol, 0);
    cr_expect(c.ok, "%s: %s", label, c.msg);
}

/* What the one-layer deer net (whole sequence) gives: its parameters, h, the report, and the
 * backward from dh: dw, dx, dh0, dc0. */
typedef struct whole {
    double *w, *h, *dw, *dx, *dh0, *dc0;
    int64_t nw;
    deer_model rep;
} whole;

static void whole_free(whole *r)
{
    free(r->w), free(r->h), free(r->dw), free(r->dx), free(r->dh0), free(r->dc0);
}

/* cfg's deer on the whole sequence; its parameters are w_in when given (else its own). */
static whole run_whole(const logt_model_cfg *cfg, int64_t T, int64_t B, const double *x, const double *h0,
                       const double *c0, const double *dh, const double *w_in)
{
    const int64_t I = cfg->input_size, D = cfg->hidden_size;
    whole r;
    memset(&r, 0, sizeof r);
    logt_net *net = NULL;
    OK(logt_net_create(cfg, &net));
    if (w_in) OK(logt_tensor_from_f64(&net->w, w_in));
    r.w = host_copy(&net->w), r.nw = net->w.numel;
    logt_ctx *ctx = NULL;
    OK(logt_ctx_create(cfg->device, &ctx));
    logt_tensor th = tensor3(1, B, D, h0), tc = tensor3(1, B, D, c0);
    OK(logt_net_set_state(net, &th, c0 ? &tc : NULL));
    logt_tensor_free(&th), logt_tensor_free(&tc);
    logt_tensor tx = cfg_tensor3(cfg, T, B, I, x), tdh = cfg_tensor3(cfg, T, B, D, dh);
    logt_tensor tdx = cfg_tensor3(cfg, T, B, I, NULL);
    const logt_tensor *h;
    OK(logt_net_forward(net, &tx, &h, ctx));
    OK(logt_net_backward(net, &tdh, &tdx, ctx));
    OK(logt_ctx_sync(ctx));
    r.h = host_copy(h), r.dw = host_copy(&net->dw), r.dx = host_copy(&tdx), r.dh0 = host_copy(&net->dh0);
    if (c0) r.dc0 = host_copy(&net->dc0);
    r.rep = *(deer_model *)net->layer[0];
    logt_tensor_free(&tx), logt_tensor_free(&tdh), logt_tensor_free(&tdx);
    logt_net_destroy(net);
    logt_ctx_destroy(ctx);
    return r;
}

static logt_model_cfg cfg_of(logt_device dev, const char *cell, const char *knobs, int I, int D)
{
    return test_cfg("deer", dev, cell, knobs, I, D, 23);
}

/* ---- CPU: the pieces algorithm against deer's reference --------------------------------------- */

static void expect_pieces_cpu(const char *cell, int G, const int64_t *Tp, int64_t B, int64_t D)
{
    const int64_t I = 2, lstm = !strcmp(cell, "lstm"), S = lstm ? 2 * D : D;
    int64_t T = 0, start[SCAN_MULTI_MAX];
    for (int p = 0; p < G; p++) start[p] = T, T += Tp[p];
    char label[160];
    snprintf(label, sizeof label, "deer_multi cpu %s G=%d T=%lld B=%lld D=%lld", cell, G, (long long)T,
             (long long)B, (long long)D);
    double *x = random_array(T * B * I, 71, 1, 1.0, LOGT_F64), *dh = random_array(T * B * D, 71, 2, 1.0, LOGT_F64);
    double *h0 = random_array(B * D, 71, 3, 0.5, LOGT_F64), *c0 = lstm ? random_array(B * D, 71, 4, 0.5, LOGT_F64) : NULL;
    logt_model_cfg mc = cfg_of(LOGT_CPU, cell, "mode=quasi", (int)I, (int)D);
    whole ref = run_whole(&mc, T, B, x, h0, c0, dh, NULL);

    deer_multi_cfg cfg = {cell_of(cell), B, I, D, ref.rep.tol, ref.rep.max_iter};
    cr_assert_eq(deer_multi_layout_of(cfg.cell, I, D).n, ref.nw, "%s: the flat layout's length", label);
    double *st = malloc(T * B * S * sizeof(double)), *h = malloc(T * B * D * sizeof(double));
    double *dx = malloc(T * B * I * sizeof(double)), *dw = malloc(ref.nw * sizeof(double));
    double *dh0 = malloc(B * D * sizeof(double)), *dc0 = malloc(B * D * sizeof(double));
    const double *px[SCAN_MULTI_MAX], *pdh[SCAN_MULTI_MAX], *pst_c[SCAN_MULTI_MAX];
    double *pst[SCAN_MULTI_MAX], *ph[SCAN_MULTI_MAX], *pdx[SCAN_MULTI_MAX];
    for (int p = 0; p < G; p++) {
        px[p] = x + start[p] * B * I, pdh[p] = dh + start[p] * B * D;
        pst[p] = st + start[p] * B * S, pst_c[p] = pst[p], ph[p] = h + start[p] * B * D;
        pdx[p] = dx + start[p] * B * I;
    }
    deer_multi_report rep;
    OK(deer_multi_forward_cpu(&cfg, G, Tp, ref.w, px, h0, c0, pst, ph, &rep));
    cr_expect(rep.converged && rep.iterations == ref.rep.iterations, "%s: %d iterations, the whole "
              "sequence's %d", label, rep.iterations, ref.rep.iterations);
    check_result c = check_close("residuals", rep.residual, ref.rep.residual,
                                 rep.nres < ref.rep.nres ? rep.nres : ref.rep.nres, 1e-12, 1e-6);
    cr_expect(c.ok, "%s: %s", label, c.msg);
    expect_close(label, "h", h, ref.h, T * B * D, 1e-12);
    OK(deer_multi_backward_cpu(&cfg, G, Tp, ref.w, px, h0, c0, pst_c, pdh, dw, pdx, dh0, lstm ? dc0 : NULL, &rep));
    cr_expect(rep.adjoint_iterations >= 1 && rep.adjoint_residual <= cfg.tol * rep.adjoint_r0,
              "%s: adjoint %d iterations, residual %.3g of %.3g", label, rep.adjoint_iterations,
              rep.adjoint_residual, rep.adjoint_r0);
    expect_close(label, "dparams", dw, ref.dw, ref.nw, 1e-8);
    expect_close(label, "dx", dx, ref.dx, T * B * I, 1e-8);
    expect_close(label, "dh0", dh0, ref.dh0, B * D, 1e-8);
    if (lstm) expect_close(label, "dc0", dc0, ref.dc0, B * D, 1e-8);
    whole_free(&ref);
    free(x), free(dh), free(h0), free(c0), free(st), free(h), free(dx), free(dw), free(dh0), free(dc0);
}

Test(deer_multi, cpu_pieces_equal_the_whole_sequence)
{
    const int64_t one[] = {23}, two[] = {9, 14}, three[] = {1, 21, 1}, seven[] = {1, 2, 3, 5, 1, 4, 7};
    const int64_t singles[] = {1, 1, 1, 1, 1, 1, 1};
    struct { int G; const int64_t *T; } splits[] = {{1, one}, {2, two}, {3, three}, {7, seven}, {7, singles}};
    const char *cells[] = {"gru", "lstm", "tanh"};
    for (int c = 0; c < 3; c++)
        for (size_t s = 0; s < sizeof splits / sizeof splits[0]; s++)
            expect_pieces_cpu(cells[c], splits[s].G, splits[s].T, 3, s % 2 ? 4 : 3);
    const int64_t longer[] = {300, 211, 1};
    expect_pieces_cpu("gru", 3, longer, 5, 8);
}

/* deer's flat parameter layout (deer.c's deer_layout) is the one deer_multi reads. */
Test(deer_multi, layout_is_deers)
{
    const char *cells[] = {"gru", "lstm", "tanh"};
    for (int c = 0; c < 3; c++) {
        logt_model_cfg mc = cfg_of(LOGT_CPU, cells[c], "mode=quasi", 5, 7);
        logt_layout l;
        memset(&l, 0, sizeof l);
        OK(logt_model_layout(logt_model_find("deer"), &mc, &l));
        const deer_multi_layout m = deer_multi_layout_of(cell_of(cells[c]), 5, 7);
        cr_expect_eq(logt_layout_find(&l, "W")->offset, m.W, "%s W", cells[c]);
        cr_expect_eq(logt_layout_find(&l, "R")->offset, m.R, "%s R", cells[c]);
        cr_expect_eq(logt_layout_find(&l, "b")->offset, m.b, "%s b", cells[c]);
        const logt_slice *bn = logt_layout_find(&l, "bn");
        cr_expect_eq(bn ? bn->offset : -1, m.bn, "%s bn", cells[c]);
        cr_expect_eq(l.numel, m.n, "%s length", cells[c]);
    }
}

Test(deer_multi, cpu_non_convergence_is_reported)
{
    const int64_t T[] = {40, 41}, B = 2, I = 2, D = 4;
    double *x = random_array(81 * B * I, 73, 1, 1.0, LOGT_F64), *w = random_array(200, 73, 2, 0.5, LOGT_F64);
    double *st = malloc(81 * B * D * sizeof(double)), *h = malloc(81 * B * D * sizeof(double));
    const double *px[] = {x, x + 40 * B * I};
    double *pst[] = {st, st + 40 * B * D}, *ph[] = {h, h + 40 * B * D};
    deer_multi_cfg cfg = {DEER_GRU, B, I, D, 1e-12, 1};
    deer_multi_report rep;
    cr_assert_eq(deer_multi_forward_cpu(&cfg, 2, T, w, px, NULL, NULL, pst, ph, &rep), LOGT_ENUMERIC);
    cr_expect(strstr(logt_errmsg(), "did not converge") && strstr(logt_errmsg(), "after 1 iterations"),
              "%s", logt_errmsg());
    cr_expect(rep.nres == 2 && !rep.converged, "residuals of iterations 0 and 1, not %d", rep.nres);
    free(x), free(w), free(st), free(h);
}

Test(deer_multi, cpu_bad_arguments_say_what_is_wrong)
{
    const int64_t T[] = {4, 0}, T2[] = {4, 4};
    double v[4096] = {0};
    const double *px[] = {v, v};
    double *pst[] = {v, v}, *ph[] = {v, NULL};
    deer_multi_cfg cfg = {DEER_GRU, 2, 3, 4, 1e-10, 50};
    struct { deer_multi_cfg cfg; int G; const int64_t *T; const char *says; } cases[] = {
        {cfg, 2, T, "piece 1 has T = 0 steps"},
        {cfg, 0, T2, "G = 0 pieces: 1 to 16"},
        {cfg, 17, T2, "G = 17 pieces: 1 to 16"},
        {{DEER_GRU, 0, 3, 4, 1e-10, 50}, 2, T2, "B = 0, I = 3, D = 4: each must be at least 1"},
        {{DEER_GRU, 2, 3, 4, -1, 50}, 2, T2, "tol = -1"},
        {{DEER_GRU, 2, 3, 4, 1e-10, 0}, 2, T2, "max_iter = 0"},
        {{(deer_cell)9, 2, 3, 4, 1e-10, 50}, 2, T2, "DEER_GRU, DEER_LSTM or DEER_TANH"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cr_assert_eq(deer_multi_forward_cpu(&cases[i].cfg, cases[i].G, cases[i].T, v, px, NULL, NULL, pst,
                                            pst, NULL), LOGT_EINVAL, "case %zu", i);
        cr_expect(strstr(logt_errmsg(), cases[i].says), "case %zu: %s", i, logt_errmsg());
    }
    cr_assert_eq(deer_multi_forward_cpu(&cfg, 2, T2, v, px, NULL, NULL, pst, ph, NULL), LOGT_EINVAL);
    cr_expect(strstr(logt_errmsg(), "piece 1: h is NULL"), "%s", logt_errmsg());
    cr_assert_eq(deer_multi_forward_cpu(&cfg, 2, T2, v, px, NULL, v, pst, pst, NULL), LOGT_EINVAL);
    cr_expect(strstr(logt_errmsg(), "c0 is the lstm's cell state"), "%s", logt_errmsg());
    const double *pdh[] = {v, NULL};
    cr_assert_eq(deer_multi_backward_cpu(&cfg, 2, T2, v, px, NULL, NULL, px, pdh, v, NULL, NULL, NULL, NULL),
                 LOGT_EINVAL);
    cr_expect(strstr(logt_errmsg(), "piece 1: dh"), "%s", logt_errmsg());
}

/* ---- GPUs: against the one-GPU deer on CUDA ---------------------------------------------------- */
#ifdef LOGT_HAVE_CUDA
#include <cuda_runtime.h>

/* Skips the test unless n GPUs are visible and deer_multi can drive them (CUDA and NCCL). */
static void need_gpus(int n, const char *what)
{
    SKIP_WITHOUT_GPU(what);
    int have = 0;
    if (cudaGetDeviceCount(&have) != cudaSuccess) have = 0;
    if (have < n) cr_skip_test("%d GPU(s) visible, %s needs %d (nvidia-h200-x2)", have, what, n);
    deer_multi_cfg cfg = {DEER_GRU, 1, 1, 1, 1e-5, 10};
    deer_multi *m = NULL;
    const logt_status s = deer_multi_create(n, &cfg, &m);
    if (s == LOGT_EUNSUPPORTED && strstr(logt_errmsg(), "without NCCL")) cr_skip_test("%s", logt_errmsg());
    OK(s);
    deer_multi_destroy(m);
}

/* A [n] f32 tensor on GPU p holding host (NULL: uninitialised). */
static logt_tensor on_gpu(int p, int64_t n, const double *host)
{
    cr_assert_eq(cudaSetDevice(p), cudaSuccess);
    logt_tensor t;
    OK(logt_tensor_new1(&t, LOGT_CUDA, LOGT_F32, n ? n : 1));
    if (host) OK(logt_tensor_from_f64(&t, host));
    return t;
}

static void from_gpu(int p, const logt_tensor *t, double *host)
{
    cr_assert_eq(cudaSetDevice(p), cudaSuccess);
    OK(logt_tensor_to_f64(t, host));
}

/* deer_multi on G GPUs (pieces Tp) against the one-GPU deer on the whole sequence, same f32
 * parameters, inputs, h0 (c0) and dh. Tolerances: both stop Newton at 1e-6 with the same
 * kernels, the scans compose in another order: h within 2e-5 of max|h|; the gradients are
 * sums over T·B rows split in G partial GEMMs and an all-reduce: 1e-4 of each one's max. */
static void expect_gpus(const char *cell, int G, const int64_t *Tp, int64_t B, int64_t D, int64_t I)
{
    const int lstm = !strcmp(cell, "lstm");
    int64_t T = 0, start[SCAN_MULTI_MAX];
    for (int p = 0; p < G; p++) start[p] = T, T += Tp[p];
    char label[160];
    snprintf(label, sizeof label, "deer_multi cuda %s G=%d T=%lld (first piece %lld) B=%lld D=%lld I=%lld",
             cell, G, (long long)T, (long long)Tp[0], (long long)B, (long long)D, (long long)I);
    double *x = random_array(T * B * I, 81, 1, 1.0, LOGT_F32), *dh = random_array(T * B * D, 81, 2, 1.0, LOGT_F32);
    double *h0 = random_array(B * D, 81, 3, 0.5, LOGT_F32), *c0 = lstm ? random_array(B * D, 81, 4, 0.5, LOGT_F32) : NULL;
    cr_assert_eq(cudaSetDevice(0), cudaSuccess);
    logt_model_cfg mc = cfg_of(LOGT_CUDA, cell, "mode=quasi,tol=1e-6,newton_kernel=launches", (int)I, (int)D);
    whole ref = run_whole(&mc, T, B, x, h0, c0, dh, NULL);

    deer_multi_cfg cfg = {cell_of(cell), B, I, D, ref.rep.tol, ref.rep.max_iter};
    deer_multi *m = NULL;
    OK(deer_multi_create(G, &cfg, &m));
    logt_tensor tw[SCAN_MULTI_MAX], tx[SCAN_MULTI_MAX], th[SCAN_MULTI_MAX], tdh[SCAN_MULTI_MAX];
    logt_tensor tdw[SCAN_MULTI_MAX], tdx[SCAN_MULTI_MAX];
    const float *w[SCAN_MULTI_MAX], *xs[SCAN_MULTI_MAX], *dhs[SCAN_MULTI_MAX];
    float *hs[SCAN_MULTI_MAX], *dws[SCAN_MULTI_MAX], *dxs[SCAN_MULTI_MAX];
    for (int p = 0; p < G; p++) {
        tw[p] = on_gpu(p, ref.nw, ref.w), tx[p] = on_gpu(p, Tp[p] * B * I, x + start[p] * B * I);
        th[p] = on_gpu(p, Tp[p] * B * D, NULL), tdh[p] = on_gpu(p, Tp[p] * B * D, dh + start[p] * B * D);
        tdw[p] = on_gpu(p, ref.nw, NULL), tdx[p] = on_gpu(p, Tp[p] * B * I, NULL);
        w[p] = (const float *)tw[p].data, xs[p] = (const float *)tx[p].data, dhs[p] = (const float *)tdh[p].data;
        hs[p] = (float *)th[p].data, dws[p] = (float *)tdw[p].data, dxs[p] = (float *)tdx[p].data;
    }
    logt_tensor th0 = on_gpu(0, B * D, h0), tc0 = on_gpu(0, B * D, c0), tdh0 = on_gpu(0, B * D, NULL);
    logt_tensor tdc0 = on_gpu(0, B * D, NULL);
    deer_multi_report rep;
    deer_multi_times tf, tb;
    OK(deer_multi_forward(m, Tp, w, xs, (const float *)th0.data, lstm ? (const float *)tc0.data : NULL, hs, &rep, &tf));
    OK(deer_multi_backward(m, dhs, dws, dxs, (float *)tdh0.data, lstm ? (float *)tdc0.data : NULL, &rep, &tb));

    double *h = malloc(T * B * D * sizeof(double)), *dx = malloc(T * B * I * sizeof(double));
    double *dw = malloc(ref.nw * sizeof(double)), *dw0 = malloc(ref.nw * sizeof(double));
    double *dh0 = malloc(B * D * sizeof(double)), *dc0 = malloc(B * D * sizeof(double));
    for (int p = 0; p < G; p++) {
        from_gpu(p, &th[p], h + start[p] * B * D), from_gpu(p, &tdx[p], dx + start[p] * B * I);
        from_gpu(p, &tdw[p], p ? dw : dw0);
        if (p) {   /* every GPU holds the sum (NCCL's ring and tree hand every rank the same bits;
                    * allowed: rounding) */
            check_result c = check_close("dparams on every GPU", dw, dw0, ref.nw, 1e-6 * max_abs(dw0, ref.nw), 0);
            cr_expect(c.ok, "%s: GPU %d against GPU 0: %s", label, p, c.msg);
        }
    }
    from_gpu(0, &tdh0, dh0), from_gpu(0, &tdc0, dc0);
    /* one GPU runs deer's own kernels and scan: the same iterations. Split, the scans compose in
     * another order: the same, unless a residual lies within rounding of tol (then one apart,
     * both residuals where they part within 1.5·tol) */
    const int fewer = rep.iterations < ref.rep.iterations ? rep.iterations : ref.rep.iterations;
    const double parting = fewer < ref.rep.nres && fewer < rep.nres
                               ? fmax(ref.rep.residual[fewer], rep.residual[fewer]) : INFINITY;
    cr_expect(rep.converged && (rep.iterations == ref.rep.iterations ||
                                (G > 1 && abs(rep.iterations - ref.rep.iterations) == 1 && parting <= 1.5 * cfg.tol)),
              "%s: %d iterations, one GPU's %d", label, rep.iterations, ref.rep.iterations);
    check_result c = check_close("residuals", rep.residual, ref.rep.residual,
                                 rep.nres < ref.rep.nres ? rep.nres : ref.rep.nres, 1e-6, 1e-3);
    cr_expect(c.ok, "%s: %s", label, c.msg);
    expect_close(label, "h", h, ref.h, T * B * D, 2e-5);
    expect_close(label, "dparams", dw0, ref.dw, ref.nw, 1e-4);
    expect_close(label, "dx", dx, ref.dx, T * B * I, 1e-4);
    expect_close(label, "dh0", dh0, ref.dh0, B * D, 1e-4);
    if (lstm) expect_close(label, "dc0", dc0, ref.dc0, B * D, 1e-4);
    fprintf(stderr, "%s: %d iterations (one GPU %d), adjoint %d; forward %.3f ms (boundary %.3f, scans "
            "%.3f), backward %.3f ms (boundary %.3f, scans %.3f, all-reduce %.3f)\n", label, rep.iterations,
            ref.rep.iterations, rep.adjoint_iterations, tf.wall_ms, tf.boundary_ms, tf.scan_ms, tb.wall_ms,
            tb.boundary_ms, tb.scan_ms, tb.reduce_ms);
    for (int p = 0; p < G; p++) {
        cr_assert_eq(cudaSetDevice(p), cudaSuccess);
        logt_tensor *all[] = {&tw[p], &tx[p], &th[p], &tdh[p], &tdw[p], &tdx[p]};
        for (int i = 0; i < 6; i++) logt_tensor_free(all[i]);
    }
    cr_assert_eq(cudaSetDevice(0), cudaSuccess);
    logt_tensor_free(&th0), logt_tensor_free(&tc0), logt_tensor_free(&tdh0), logt_tensor_free(&tdc0);
    deer_multi_destroy(m);
    whole_free(&ref);
    free(x), free(dh), free(h0), free(c0), free(h), free(dx), free(dw), free(dw0), free(dh0), free(dc0);
}

Test(deer_multi, one_gpu_equals_deer_on_cuda)
{
    need_gpus(1, "deer_multi on one GPU");
    const int64_t T[] = {2001};
    expect_gpus("gru", 1, T, 5, 4, 3);
    expect_gpus("lstm", 1, T, 3, 3, 3);
}

Test(deer_multi, two_gpus_equal_deer_on_one)
{
    need_gpus(2, "deer_multi on two GPUs");
    const int64_t uneven[] = {1201, 800}, ones[] = {1, 1}, short_first[] = {1, 700}, longer[] = {60001, 39998};
    const char *cells[] = {"gru", "lstm", "tanh"};
    for (int c = 0; c < 3; c++) {
        expect_gpus(cells[c], 2, uneven, 5, 4, 3);    /* W x in the kernels (G·D·I <= 256) */
        expect_gpus(cells[c], 2, uneven, 3, 40, 8);   /* W x by a GEMM, its rows exchanged */
        expect_gpus(cells[c], 2, ones, 7, 3, 2);
        expect_gpus(cells[c], 2, short_first, 1, 5, 4);
    }
    expect_gpus("gru", 2, longer, 3, 2, 4);
}

Test(deer_multi, gpu_bad_arguments_say_what_is_wrong)
{
    need_gpus(1, "deer_multi's argument checks");
    deer_multi_cfg cfg = {DEER_GRU, 2, 3, 4, 1e-5, 50};
    deer_multi *m = NULL;
    cr_assert_eq(deer_multi_create(0, &cfg, &m), LOGT_EINVAL);
    cr_expect(strstr(logt_errmsg(), "G = 0 pieces: 1 to 16"), "%s", logt_errmsg());
    int have = 0;
    cr_assert_eq(cudaGetDeviceCount(&have), cudaSuccess);
    if (have < SCAN_MULTI_MAX) {
        cr_assert_neq(deer_multi_create(have + 1, &cfg, &m), LOGT_OK);
        cr_expect(strstr(logt_errmsg(), "visible"), "%s", logt_errmsg());
    }
    OK(deer_multi_create(1, &cfg, &m));
    const int64_t T[] = {6}, T0[] = {0};
    const int64_t P = deer_multi_layout_of(DEER_GRU, 3, 4).n;
    logt_tensor tw = on_gpu(0, P, NULL), tx = on_gpu(0, 6 * 2 * 3, NULL), th = on_gpu(0, 6 * 2 * 4, NULL);
    OK(logt_tensor_zero(&tw));
    OK(logt_tensor_zero(&tx));
    const float *w[] = {(const float *)tw.data}, *x[] = {(const float *)tx.data}, *nox[] = {NULL};
    float *h[] = {(float *)th.data}, *dw[] = {(float *)tw.data};
    const float *dh[] = {(const float *)th.data};
    cr_assert_eq(deer_multi_backward(m, dh, dw, NULL, NULL, NULL, NULL, NULL), LOGT_EINVAL);
    cr_expect(strstr(logt_errmsg(), "run a forward that succeeds first"), "%s", logt_errmsg());
    cr_assert_eq(deer_multi_forward(m, T0, w, x, NULL, NULL, h, NULL, NULL), LOGT_EINVAL);
    cr_expect(strstr(logt_errmsg(), "piece 0 has T = 0 steps"), "%s", logt_errmsg());
    cr_assert_eq(deer_multi_forward(m, T, w, nox, NULL, NULL, h, NULL, NULL), LOGT_EINVAL);
    cr_expect(strstr(logt_errmsg(), "x[0] is NULL"), "%s", logt_errmsg());
    float host[6 * 2 * 3] = {0};
    const float *xh[] = {host};
    cr_assert_eq(deer_multi_forward(m, T, w, xh, NULL, NULL, h, NULL, NULL), LOGT_EINVAL);
    cr_expect(strstr(logt_errmsg(), "x[0] is host memory, not memory of GPU 0"), "%s", logt_errmsg());
    cr_assert_eq(deer_multi_forward(m, T, w, x, host, NULL, h, NULL, NULL), LOGT_EINVAL);
    cr_expect(strstr(logt_errmsg(), "h0 is host memory"), "%s", logt_errmsg());
    cr_assert_eq(deer_multi_forward(m, T, w, x, NULL, (const float *)tx.data, h, NULL, NULL), LOGT_EINVAL);
    cr_expect(strstr(logt_errmsg(), "c0 is the lstm's cell state"), "%s", logt_errmsg());
    OK(deer_multi_forward(m, T, w, x, NULL, NULL, h, NULL, NULL));   /* zeros: converged at once */
    cr_assert_eq(deer_multi_backward(m, dh, NULL, NULL, NULL, NULL, NULL, NULL), LOGT_EINVAL);
    cr_expect(strstr(logt_errmsg(), "dw is NULL"), "%s", logt_errmsg());
    deer_multi_destroy(m);
    if (have >= 2) {   /* a piece's array on another GPU */
        const int64_t T2[] = {3, 3};
        const float *w2[] = {w[0], w[0]}, *x2[] = {x[0], x[0]};
        float *h2[] = {h[0], h[0]};
        OK(deer_multi_create(2, &cfg, &m));
        cr_assert_eq(deer_multi_forward(m, T2, w2, x2, NULL, NULL, h2, NULL, NULL), LOGT_EINVAL);
        cr_expect(strstr(logt_errmsg(), "w[1] is on GPU 0, not GPU 1"), "%s", logt_errmsg());
        deer_multi_destroy(m);
    }
    logt_tensor_free(&tw), logt_tensor_free(&tx), logt_tensor_free(&th);
}

Test(deer_multi, gpu_non_convergence_is_reported)
{
    need_gpus(1, "deer_multi's report");
    const int64_t T[] = {500}, B = 4, I = 3, D = 8;
    deer_multi_cfg cfg = {DEER_GRU, B, I, D, 1e-7, 1};
    const int64_t P = deer_multi_layout_of(DEER_GRU, I, D).n;
    double *wv = random_array(P, 83, 1, 0.5, LOGT_F32), *xv = random_array(T[0] * B * I, 83, 2, 1.0, LOGT_F32);
    deer_multi *m = NULL;
    OK(deer_multi_create(1, &cfg, &m));
    logt_tensor tw = on_gpu(0, P, wv), tx = on_gpu(0, T[0] * B * I, xv), th = on_gpu(0, T[0] * B * D, NULL);
    const float *w[] = {(const float *)tw.data}, *x[] = {(const float *)tx.data}, *dh[] = {(const float *)th.data};
    float *h[] = {(float *)th.data}, *dw[] = {(float *)tw.data};
    deer_multi_report rep;
    cr_assert_eq(deer_multi_forward(m, T, w, x, NULL, NULL, h, &rep, NULL), LOGT_ENUMERIC);
    cr_expect(strstr(logt_errmsg(), "did not converge") && strstr(logt_errmsg(), "after 1 iterations"),
              "%s", logt_errmsg());
    cr_expect(rep.nres == 2 && !rep.converged, "residuals of iterations 0 and 1, not %d", rep.nres);
    cr_assert_eq(deer_multi_backward(m, dh, dw, NULL, NULL, NULL, NULL, NULL), LOGT_EINVAL);
    cr_expect(strstr(logt_errmsg(), "run a forward that succeeds first"), "%s", logt_errmsg());
    logt_tensor_free(&tw), logt_tensor_free(&tx), logt_tensor_free(&th);
    deer_multi_destroy(m);
    free(wv), free(xv);
}
#endif
