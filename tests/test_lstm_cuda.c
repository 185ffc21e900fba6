/* test_lstm_cuda.c — the CUDA LSTMs against the float64 CPU reference and each other.
 *
 *   lstm on cuda (f32) vs lstm on cpu (f64): h and every gradient, awkward shapes
 *   lstm-cudnn vs lstm, both on the GPU in fp32: algo = standard and auto
 *   lstm-cudnn in bf16 and with math = tf32 or allow_conversion, against fp32, and in f16
 *   against the f64 reference, with their own tolerances
 *   lstm-cudnn's inference-mode forward against its training-mode forward, and parameters
 *   written between forwards (by hand, by the trainer) seen by the next forward
 *   the row-major GEMM helper against a loop (a failing lstm test points here first)
 *   bad configurations refused with a message saying what would be right
 * Every net of a comparison is built from the same seed, so the same parameters
 * (f64 on the CPU, rounded to f32 on CUDA); inputs are made in f64 on the host.
 * GPU tests skip themselves where no GPU is present.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/rng.h"
#include "../models/model.h"
#include "../train/train.h"
#include "check.h"
#include "gpu.h"
#ifdef LOGT_HAVE_CUDA
#include "../kernels/gemm.h"
#endif

/* ---- one forward + backward of a net, results in f64 on the host ---------------- */

typedef struct problem {
    int T, B, I, D;
    int state;                    /* 1: random h0, c0 (and their gradients are compared) */
    double *x, *dh, *h0, *c0;     /* [T][B][I], [T][B][D], [B][D], [B][D] */
} problem;

typedef struct result {
    double *h, *dw, *dx, *dh0, *dc0;
    int64_t nw;
    char impl[160];
} result;

static double *random_array(int64_t n, uint64_t stream, double scale)
{
    double *p = malloc((size_t)(n ? n : 1) * sizeof *p);
    cr_assert(p, "out of host memory");
    for (int64_t i = 0; i < n; i++) p[i] = scale * (2 * logt_uniform(2024, stream, (uint64_t)i) - 1);
    return p;
}

static problem make_problem(int T, int B, int I, int D, int state)
{
    problem p = {T, B, I, D, state, NULL, NULL, NULL, NULL};
    p.x = random_array((int64_t)T * B * I, 1, 1.0);
    p.dh = random_array((int64_t)T * B * D, 2, 1.0);
    p.h0 = random_array((int64_t)B * D, 3, 0.5);
    p.c0 = random_array((int64_t)B * D, 4, 0.5);
    return p;
}

static void free_problem(problem *p) { free(p->x), free(p->dh), free(p->h0), free(p->c0); }

static void free_result(result *r) { free(r->h), free(r->dw), free(r->dx), free(r->dh0), free(r->dc0); }

static void shape_name(char *buf, size_t n, const problem *p)
{
    snprintf(buf, n, "T=%d B=%d I=%d D=%d %s", p->T, p->B, p->I, p->D,
             p->state ? "with h0,c0" : "zero state");
}

static logt_tensor device_tensor(const logt_model_cfg *cfg, int64_t T, int64_t B, int64_t W,
                                 const double *host)
{
    logt_tensor t;
    cr_assert_eq(logt_tensor_new3(&t, cfg->device, cfg->dtype, T, B, W), LOGT_OK, "%s", logt_errmsg());
    if (host) cr_assert_eq(logt_tensor_from_f64(&t, host), LOGT_OK, "%s", logt_errmsg());
    return t;
}

static double *to_host(const logt_tensor *t)
{
    double *p = malloc((size_t)(t->numel ? t->numel : 1) * sizeof *p);
    cr_assert(p, "out of host memory");
    cr_assert_eq(logt_tensor_to_f64(t, p), LOGT_OK, "%s", logt_errmsg());
    return p;
}

/* Build cfg's net, run forward and backward on p, copy everything back. Returns
 * the status of logt_net_create or of the forward (so a caller may skip on
 * LOGT_EUNSUPPORTED); a later failure fails the test. want_dx = 0 passes dx = NULL. */
static logt_status run(const logt_model_cfg *cfg, const problem *p, int want_dx, result *r)
{
    memset(r, 0, sizeof *r);
    logt_net *net = NULL;
    logt_status s = logt_net_create(cfg, &net);
    if (s != LOGT_OK) return s;
    logt_ctx *ctx = NULL;
    cr_assert_eq(logt_ctx_create(cfg->device, &ctx), LOGT_OK, "%s", logt_errmsg());
    if (p->state) {
        logt_tensor h0, c0;
        cr_assert_eq(logt_tensor_new3(&h0, LOGT_CPU, LOGT_F64, 1, p->B, p->D), LOGT_OK);
        cr_assert_eq(logt_tensor_new3(&c0, LOGT_CPU, LOGT_F64, 1, p->B, p->D), LOGT_OK);
        memcpy(h0.data, p->h0, sizeof(double) * (size_t)(p->B * p->D));
        memcpy(c0.data, p->c0, sizeof(double) * (size_t)(p->B * p->D));
        cr_assert_eq(logt_net_set_state(net, &h0, &c0), LOGT_OK, "%s", logt_errmsg());
        logt_tensor_free(&h0), logt_tensor_free(&c0);
    }
    logt_tensor x = device_tensor(cfg, p->T, p->B, p->I, p->x);
    logt_tensor dh = device_tensor(cfg, p->T, p->B, p->D, p->dh);
    logt_tensor dx = device_tensor(cfg, p->T, p->B, p->I, NULL);
    const logt_tensor *h;
    s = logt_net_forward(net, &x, &h, ctx);
    if (s == LOGT_OK) {
        cr_assert_eq(logt_net_backward(net, &dh, want_dx ? &dx : NULL, ctx), LOGT_OK,
                     "%s backward: %s", cfg->model, logt_errmsg());
        cr_assert_eq(logt_ctx_sync(ctx), LOGT_OK, "%s: %s", cfg->model, logt_errmsg());
        r->h = to_host(h);
        r->dw = to_host(&net->dw);
        r->nw = net->dw.numel;
        if (want_dx) r->dx = to_host(&dx);
        if (p->state) {
            r->dh0 = to_host(&net->dh0);
            r->dc0 = to_host(&net->dc0);
        }
        snprintf(r->impl, sizeof r->impl, "%s", net->layer[0]->impl);
    }
    logt_tensor_free(&x), logt_tensor_free(&dh), logt_tensor_free(&dx);
    logt_net_destroy(net);
    logt_ctx_destroy(ctx);
    return s;
}

/* ---- comparisons ---------------------------------------------------------------- */

static double max_abs(const double *a, int64_t n)
{
    double m = 0;
    for (int64_t i = 0; i < n; i++) m = fmax(m, fabs(a[i]));
    return m;
}

/* Element-wise: |x - ref| <= atol + rtol·|ref| with atol = atol_frac · max|ref|
 * (gradient entries that cancel to near zero have no meaningful relative error). */
static void expect_close(const char *shape, const char *what, const double *x, const double *ref,
                         int64_t n, double rtol, double atol_frac)
{
    double atol = atol_frac * max_abs(ref, n) + 1e-30;
    check_result c = check_close(what, x, ref, n, atol, rtol);
    cr_expect(c.ok, "%s: %s", shape, c.msg);
}

/* The project's acceptance measure: max|x - ref| / max|ref|. */
static double rel_max(const double *x, const double *ref, int64_t n)
{
    double d = 0;
    for (int64_t i = 0; i < n; i++) d = fmax(d, fabs(x[i] - ref[i]));
    double s = max_abs(ref, n);
    return s > 0 ? d / s : d;
}

static void expect_rel(const char *shape, const char *what, const char *impl, const double *x,
                       const double *ref, int64_t n, double bound)
{
    double e = rel_max(x, ref, n);
    cr_expect(e <= bound, "%s, %s: %s max|a-b|/max|b| = %.3g > %.1g", shape, impl, what, e, bound);
}

/* All of a result against a reference, with a bound for h and one for the gradients. */
static void expect_all_rel(const problem *p, const result *got, const result *ref, int want_dx,
                           double fwd, double grad)
{
    char shape[96];
    shape_name(shape, sizeof shape, p);
    int64_t nh = (int64_t)p->T * p->B * p->D, nx = (int64_t)p->T * p->B * p->I;
    int64_t ns = (int64_t)p->B * p->D;
    cr_expect_eq(got->nw, ref->nw, "%s: %lld vs %lld parameters", shape, (long long)got->nw,
                 (long long)ref->nw);
    expect_rel(shape, "h", got->impl, got->h, ref->h, nh, fwd);
    expect_rel(shape, "dw", got->impl, got->dw, ref->dw, ref->nw, grad);
    if (want_dx) expect_rel(shape, "dx", got->impl, got->dx, ref->dx, nx, grad);
    if (p->state) {
        expect_rel(shape, "dh0", got->impl, got->dh0, ref->dh0, ns, grad);
        expect_rel(shape, "dc0", got->impl, got->dc0, ref->dc0, ns, grad);
    }
}

/* ---- lstm on cuda vs the f64 reference ---------------------------------------------- */

/* f32 against f64. h stays within a few f32 ulps of |h| < 1 per step. Gradients
 * sum T·B products and travel back through T steps, so they get 10x more room;
 * both bounds are sized for T <= 300 (the error grows slowly with T). */
#define H_RTOL 1e-4
#define H_ATOL 1e-5
#define G_RTOL 1e-3
#define G_ATOL 1e-4

Test(lstm_cuda, matches_cpu_reference)
{
    SKIP_WITHOUT_GPU("lstm on cuda vs the f64 CPU reference");
    /* T = 3000 with B = 3: T·B = 9000 rows, so that the weight gradients' sums are cut into
     * chunks (logt_gemm_f32_tn_long); one shape of it suffices. */
    const int Ts[] = {1, 7, 300, 3000}, Bs[] = {1, 3}, Ds[] = {1, 33, 256};
    int n = 0;
    for (int ti = 0; ti < 4; ti++)
        for (int bi = 0; bi < 2; bi++)
            for (int di = 0; di < 3; di++)
                for (int state = 1; state >= 0; state--) {
                    if (!state && Ts[ti] >= 300) continue;   /* the zero state: short runs suffice */
                    if (Ts[ti] == 3000 && (Bs[bi] != 3 || Ds[di] != 33)) continue;
                    int I = n++ % 2 ? 5 : 17;
                    problem p = make_problem(Ts[ti], Bs[bi], I, Ds[di], state);
                    logt_model_cfg cfg;
                    logt_model_cfg_init(&cfg, "lstm", LOGT_CPU, I, Ds[di]);
                    cfg.seed = 11;
                    result ref, got;
                    cr_assert_eq(run(&cfg, &p, 1, &ref), LOGT_OK, "%s", logt_errmsg());
                    cfg.device = LOGT_CUDA;
                    cfg.dtype = LOGT_F32;
                    cr_assert_eq(run(&cfg, &p, 1, &got), LOGT_OK, "%s", logt_errmsg());

                    char shape[96];
                    shape_name(shape, sizeof shape, &p);
                    int64_t nh = (int64_t)p.T * p.B * p.D, nx = (int64_t)p.T * p.B * p.I;
                    cr_assert_eq(got.nw, ref.nw);
                    expect_close(shape, "h", got.h, ref.h, nh, H_RTOL, H_ATOL);
                    expect_close(shape, "dw", got.dw, ref.dw, ref.nw, G_RTOL, G_ATOL);
                    expect_close(shape, "dx", got.dx, ref.dx, nx, G_RTOL, G_ATOL);
                    if (state) {
                        expect_close(shape, "dh0", got.dh0, ref.dh0, (int64_t)p.B * p.D, G_RTOL, G_ATOL);
                        expect_close(shape, "dc0", got.dc0, ref.dc0, (int64_t)p.B * p.D, G_RTOL, G_ATOL);
                    }
                    free_result(&ref), free_result(&got), free_problem(&p);
                }
}

/* ---- lstm-cudnn vs lstm on the GPU ---------------------------------------------------- */

/* Both fp32 on the same parameters: the forward must agree to 1e-5 (the project's
 * acceptance bar), gradients, summed over T·B in other orders, to 1e-4. cuDNN's
 * persistent algorithms get 3e-5 on the forward: on an H200 their h was 1.1-1.2e-5
 * from the f64 reference where STANDARD's and lstm's were 2-4e-7 (their kernels
 * are less exact; the difference is theirs, not lstm's).
 * Returns how many shapes ran; shapes a fixed algorithm refuses are skipped. */
static int cudnn_vs_lstm(const char *algo, int may_refuse)
{
    static const int shapes[][4] = {   /* T, B, I, D */
        {1, 1, 5, 1}, {7, 3, 17, 33}, {300, 3, 17, 256}, {64, 16, 64, 128}, {50, 8, 32, 64},
    };
    int ran = 0;
    for (int si = 0; si < (int)(sizeof shapes / sizeof shapes[0]); si++)
        for (int state = 1; state >= 0; state--) {
            const int *sh = shapes[si];
            int want_dx = (si + state) % 2 == 0 ? 1 : 0;   /* also exercise dx = NULL */
            problem p = make_problem(sh[0], sh[1], sh[2], sh[3], state);
            logt_model_cfg cfg;
            logt_model_cfg_init(&cfg, "lstm-cudnn", LOGT_CUDA, sh[2], sh[3]);
            cfg.seed = 3;
            cr_assert_eq(logt_cfg_set_knob(&cfg, "algo", algo), LOGT_OK);
            cr_assert_eq(logt_cfg_set_knob(&cfg, "math", "fp32"), LOGT_OK);
            result ref, got;
            logt_status s = run(&cfg, &p, want_dx, &got);
            if (s == LOGT_EUNSUPPORTED && may_refuse) {
                cr_log_info("algo=%s refused T=%d B=%d I=%d D=%d: %s", algo, sh[0], sh[1], sh[2],
                            sh[3], logt_errmsg());
                free_problem(&p);
                continue;
            }
            cr_assert_eq(s, LOGT_OK, "lstm-cudnn algo=%s: %s", algo, logt_errmsg());
            logt_model_cfg_init(&cfg, "lstm", LOGT_CUDA, sh[2], sh[3]);
            cfg.seed = 3;
            cr_assert_eq(run(&cfg, &p, want_dx, &ref), LOGT_OK, "%s", logt_errmsg());
            cr_expect(strstr(got.impl, "math=fp32"), "impl '%s' should say math=fp32", got.impl);
            if (!strcmp(algo, "auto"))   /* the backward switched to the fastest training step */
                cr_expect(strstr(got.impl, "fastest training step"), "impl '%s' should say so", got.impl);
            if (strcmp(algo, "auto")) {
                char want[32];
                snprintf(want, sizeof want, "%s ", algo);
                for (char *c = want; *c; c++) *c = (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c);
                cr_expect(strstr(got.impl, want), "impl '%s' should name %s", got.impl, want);
            }
            double fwd = strstr(got.impl, "PERSIST") ? 3e-5 : 1e-5;
            expect_all_rel(&p, &got, &ref, want_dx, fwd, 1e-4);
            free_result(&ref), free_result(&got), free_problem(&p);
            ran++;
        }
    return ran;
}

Test(lstm_cuda, cudnn_standard_matches_lstm)
{
    SKIP_WITHOUT_GPU("lstm-cudnn vs lstm");
    cudnn_vs_lstm("standard", 0);
}

Test(lstm_cuda, cudnn_auto_matches_lstm)
{
    SKIP_WITHOUT_GPU("lstm-cudnn vs lstm");
    cudnn_vs_lstm("auto", 0);
}

Test(lstm_cuda, cudnn_persistent_match_lstm_where_supported)
{
    SKIP_WITHOUT_GPU("lstm-cudnn's persistent algorithms vs lstm");
    cr_expect(cudnn_vs_lstm("persist_static", 1) > 0, "persist_static ran no shape at all");
    cr_expect(cudnn_vs_lstm("persist_static_small_h", 1) > 0,
              "persist_static_small_h ran no shape at all");
}

/* bf16 keeps 8 significant bits (2^-8 ≈ 4e-3 relative per rounding of x, W, h);
 * these bounds catch a wrong mapping (errors of order 1), not precision. */
Test(lstm_cuda, cudnn_bf16_close_to_fp32)
{
    SKIP_WITHOUT_GPU("lstm-cudnn in bf16");
    problem p = make_problem(50, 4, 16, 64, 1);
    logt_model_cfg cfg;
    logt_model_cfg_init(&cfg, "lstm", LOGT_CUDA, 16, 64);
    result ref, got;
    cr_assert_eq(run(&cfg, &p, 1, &ref), LOGT_OK, "%s", logt_errmsg());
    logt_model_cfg_init(&cfg, "lstm-cudnn", LOGT_CUDA, 16, 64);
    cfg.dtype = LOGT_BF16;
    logt_status s = run(&cfg, &p, 1, &got);
    if (s == LOGT_EUNSUPPORTED && strstr(logt_errmsg(), "needs cuDNN >= 9.13")) {
        free_result(&ref), free_problem(&p);
        cr_skip_test("%s", logt_errmsg());
    }
    cr_assert_eq(s, LOGT_OK, "%s", logt_errmsg());
    cr_expect(strstr(got.impl, "bf16"), "impl '%s' should say bf16", got.impl);
    expect_all_rel(&p, &got, &ref, 1, 3e-2, 1e-1);
    free_result(&ref), free_result(&got), free_problem(&p);
}

/* lstm-cudnn in f32 with `math` against our lstm in fp32, within TF32's bounds (10 mantissa
 * bits, about 5e-4 relative per product); its impl must name one of the math modes in
 * `want` ("tf32", or "tf32 fp32" for fastest: whichever cuDNN ran faster). */
static void cudnn_math_close_to_fp32(const char *math, const char *want)
{
    problem p = make_problem(50, 8, 64, 128, 1);
    logt_model_cfg cfg;
    logt_model_cfg_init(&cfg, "lstm", LOGT_CUDA, 64, 128);
    result ref, got;
    cr_assert_eq(run(&cfg, &p, 1, &ref), LOGT_OK, "%s", logt_errmsg());
    logt_model_cfg_init(&cfg, "lstm-cudnn", LOGT_CUDA, 64, 128);
    cr_assert_eq(logt_cfg_set_knob(&cfg, "math", math), LOGT_OK);
    cr_assert_eq(run(&cfg, &p, 1, &got), LOGT_OK, "%s", logt_errmsg());
    char mode[5] = "";   /* the 4 letters after "math=" */
    const char *m = strstr(got.impl, "math=");
    if (m) snprintf(mode, sizeof mode, "%s", m + 5);
    cr_expect(*mode && strstr(want, mode), "math = %s: impl '%s' should say math= one of %s", math,
              got.impl, want);
    expect_all_rel(&p, &got, &ref, 1, 1e-2, 5e-2);
    free_result(&ref), free_result(&got), free_problem(&p);
}

Test(lstm_cuda, cudnn_tf32_close_to_fp32)
{
    SKIP_WITHOUT_GPU("lstm-cudnn with math = tf32");
    cudnn_math_close_to_fp32("tf32", "tf32");
}

Test(lstm_cuda, cudnn_fastest_math_close_to_fp32)
{
    SKIP_WITHOUT_GPU("lstm-cudnn with math = fastest");
    cudnn_math_close_to_fp32("fastest", "tf32 fp32 allow_conversion");
}

/* f32 data rounded to f16 for the tensor cores: f16 keeps 11 significant bits as TF32 does,
 * so TF32's bounds apply. */
Test(lstm_cuda, cudnn_allow_conversion_close_to_fp32)
{
    SKIP_WITHOUT_GPU("lstm-cudnn with math = allow_conversion");
    cudnn_math_close_to_fp32("allow_conversion", "allow_conversion");
}

/* ---- lstm-cudnn in f16 against the f64 reference ---------------------------------------- */

/* f16 keeps 11 significant bits (unit roundoff u = 2^-11, about 4.9e-4): x, W, R, b, h0, c0
 * and every h_t are rounded to it, and h_{t-1}'s error feeds step t through R, which the
 * gates keep from growing. h gets 5e-3 of max|h| (about 10 u); the gradients, sums of T·B
 * products of rounded factors carried back through T steps and stored in f16, 2e-2 (40 u).
 * Sized for T <= 64. (bf16's bounds above are 6x wider for its 8 bits.) */
#define F16_H 5e-3
#define F16_G 2e-2

/* lstm-cudnn in f16 with `algo` against lstm's CPU f64 reference, on the same parameters;
 * returns how many shapes ran (a fixed algorithm may refuse some when may_refuse). */
static int cudnn_f16_vs_reference(const char *algo, int may_refuse)
{
    static const int shapes[][4] = {{1, 1, 5, 1}, {7, 3, 17, 33}, {50, 4, 16, 64}, {64, 16, 64, 128}};
    int ran = 0;
    for (int si = 0; si < (int)(sizeof shapes / sizeof shapes[0]); si++)
        for (int state = 1; state >= 0; state--) {
            const int *sh = shapes[si];
            const int want_dx = (si + state) % 2 == 0;
            problem p = make_problem(sh[0], sh[1], sh[2], sh[3], state);
            logt_model_cfg cfg;
            logt_model_cfg_init(&cfg, "lstm-cudnn", LOGT_CUDA, sh[2], sh[3]);
            cfg.dtype = LOGT_F16;
            cfg.seed = 3;
            cr_assert_eq(logt_cfg_set_knob(&cfg, "algo", algo), LOGT_OK);
            result ref, got;
            logt_status s = run(&cfg, &p, want_dx, &got);
            if (s == LOGT_EUNSUPPORTED && may_refuse) {
                cr_log_info("f16 algo=%s refused T=%d B=%d I=%d D=%d: %s", algo, sh[0], sh[1], sh[2],
                            sh[3], logt_errmsg());
                free_problem(&p);
                continue;
            }
            cr_assert_eq(s, LOGT_OK, "lstm-cudnn f16 algo=%s: %s", algo, logt_errmsg());
            cr_expect(strstr(got.impl, "f16 with fp32 accumulation"), "impl '%s' should say f16", got.impl);
            logt_model_cfg_init(&cfg, "lstm", LOGT_CPU, sh[2], sh[3]);
            cfg.seed = 3;
            cr_assert_eq(run(&cfg, &p, want_dx, &ref), LOGT_OK, "%s", logt_errmsg());
            expect_all_rel(&p, &got, &ref, want_dx, F16_H, F16_G);
            free_result(&ref), free_result(&got), free_problem(&p);
            ran++;
        }
    return ran;
}

Test(lstm_cuda, cudnn_f16_matches_cpu_reference)
{
    SKIP_WITHOUT_GPU("lstm-cudnn in f16 vs the f64 CPU reference");
    cudnn_f16_vs_reference("standard", 0);
    cudnn_f16_vs_reference("auto", 0);
}

Test(lstm_cuda, cudnn_f16_persist_static_matches_where_supported)
{
    SKIP_WITHOUT_GPU("lstm-cudnn's PERSIST_STATIC in f16 vs the f64 CPU reference");
    cr_expect(cudnn_f16_vs_reference("persist_static", 1) > 0, "persist_static in f16 ran no shape at all");
}

/* ---- lstm-cudnn's forward modes and its packed parameters -------------------------------- */

/* Forward (and backward when dh is not NULL) of net on one context, ctx->inference set to
 * `inference` for the forward; h, and with dh the gradients dw and dx, copied to the host. */
static void pass(logt_net *net, logt_ctx *ctx, int inference, const logt_tensor *x,
                 const logt_tensor *dh, logt_tensor *dx, result *r)
{
    const logt_tensor *h;
    memset(r, 0, sizeof *r);
    ctx->inference = inference;
    cr_assert_eq(logt_net_forward(net, x, &h, ctx), LOGT_OK, "forward: %s", logt_errmsg());
    if (dh) cr_assert_eq(logt_net_backward(net, dh, dx, ctx), LOGT_OK, "backward: %s", logt_errmsg());
    cr_assert_eq(logt_ctx_sync(ctx), LOGT_OK, "%s", logt_errmsg());
    ctx->inference = 0;
    r->h = to_host(h);
    if (dh) r->dw = to_host(&net->dw), r->dx = to_host(dx), r->nw = net->dw.numel;
    snprintf(r->impl, sizeof r->impl, "%s", net->layer[0]->impl);
}

/* On one net (so one choice of candidates): a training-mode forward, then an inference-mode
 * forward (ctx->inference = 1), which must give the same h within `fwd` and say so in its
 * impl; cuDNN may run other kernels in the two modes (the training one also writes the
 * reserve space), so not bit for bit. Then a backward right after an inference forward (it
 * runs the training forward first) against a backward after a training forward: the same
 * candidate on the same data, within 1e-6. Returns 0 when cuDNN refused the algorithm. */
static int inference_vs_training(logt_dtype dt, const char *algo, double fwd)
{
    problem p = make_problem(40, 5, 24, 48, 1);
    logt_model_cfg cfg;
    logt_model_cfg_init(&cfg, "lstm-cudnn", LOGT_CUDA, p.I, p.D);
    cfg.dtype = dt;
    cfg.seed = 5;
    cr_assert_eq(logt_cfg_set_knob(&cfg, "algo", algo), LOGT_OK);
    logt_net *net;
    cr_assert_eq(logt_net_create(&cfg, &net), LOGT_OK, "%s", logt_errmsg());
    logt_ctx *ctx;
    cr_assert_eq(logt_ctx_create(LOGT_CUDA, &ctx), LOGT_OK, "%s", logt_errmsg());
    logt_tensor x = device_tensor(&cfg, p.T, p.B, p.I, p.x), dh = device_tensor(&cfg, p.T, p.B, p.D, p.dh);
    logt_tensor dx = device_tensor(&cfg, p.T, p.B, p.I, NULL);
    const logt_tensor *h;
    logt_status s = logt_net_forward(net, &x, &h, ctx);
    int ran = s == LOGT_OK;
    if (s == LOGT_EUNSUPPORTED && strcmp(algo, "auto") && strcmp(algo, "standard"))
        cr_log_info("%s %s refused: %s", logt_dtype_name(dt), algo, logt_errmsg());
    else
        cr_assert_eq(s, LOGT_OK, "%s %s: %s", logt_dtype_name(dt), algo, logt_errmsg());
    if (ran) {
        char what[64];
        snprintf(what, sizeof what, "%s algo=%s", logt_dtype_name(dt), algo);
        result train, infer, grad_after_infer, grad_after_train;
        pass(net, ctx, 0, &x, NULL, NULL, &train);
        pass(net, ctx, 1, &x, NULL, NULL, &infer);
        cr_expect(strstr(train.impl, "training mode"), "impl '%s' should say training mode", train.impl);
        cr_expect(strstr(infer.impl, "inference mode"), "impl '%s' should say inference mode", infer.impl);
        const int64_t nh = (int64_t)p.T * p.B * p.D, nx = (int64_t)p.T * p.B * p.I;
        expect_rel(what, "h inference vs training", infer.impl, infer.h, train.h, nh, fwd);
        pass(net, ctx, 1, &x, &dh, &dx, &grad_after_infer);   /* the backward follows anyway */
        pass(net, ctx, 0, &x, &dh, &dx, &grad_after_train);
        expect_rel(what, "dw after an inference forward", grad_after_infer.impl, grad_after_infer.dw,
                   grad_after_train.dw, grad_after_train.nw, 1e-6);
        expect_rel(what, "dx after an inference forward", grad_after_infer.impl, grad_after_infer.dx,
                   grad_after_train.dx, nx, 1e-6);
        free_result(&train), free_result(&infer), free_result(&grad_after_infer), free_result(&grad_after_train);
    }
    logt_tensor_free(&x), logt_tensor_free(&dh), logt_tensor_free(&dx);
    logt_net_destroy(net);
    logt_ctx_destroy(ctx);
    free_problem(&p);
    return ran;
}

/* f32 within the project's 1e-5; f16 within 2e-3 (4 u: an output rounded the other way
 * after a differently ordered sum, twice). */
Test(lstm_cuda, cudnn_inference_forward_equals_training_forward)
{
    SKIP_WITHOUT_GPU("lstm-cudnn's inference-mode forward");
    inference_vs_training(LOGT_F32, "standard", 1e-5);
    inference_vs_training(LOGT_F32, "auto", 1e-5);
    inference_vs_training(LOGT_F32, "persist_static", 1e-5);
    inference_vs_training(LOGT_F16, "standard", 2e-3);
    inference_vs_training(LOGT_F16, "auto", 2e-3);
    inference_vs_training(LOGT_F16, "persist_static", 2e-3);
}

/* The weight space is packed once per change of the parameters: a write of net->w between two
 * forwards (said with logt_net_params_written, as every writer does) must reach the second.
 * The same algorithm on the same parameters and input gives the same h (bit for bit expected;
 * 1e-6 allowed), and the new parameters must change h by far more than that. */
Test(lstm_cuda, cudnn_sees_parameters_written_after_a_forward)
{
    SKIP_WITHOUT_GPU("lstm-cudnn's packed parameters");
    problem p = make_problem(20, 3, 8, 16, 1);
    logt_model_cfg cfg;
    logt_model_cfg_init(&cfg, "lstm-cudnn", LOGT_CUDA, p.I, p.D);
    cr_assert_eq(logt_cfg_set_knob(&cfg, "algo", "standard"), LOGT_OK);
    cfg.seed = 3;
    logt_net *a, *b;
    cr_assert_eq(logt_net_create(&cfg, &a), LOGT_OK, "%s", logt_errmsg());
    cfg.seed = 9;
    cr_assert_eq(logt_net_create(&cfg, &b), LOGT_OK, "%s", logt_errmsg());
    logt_ctx *ctx;
    cr_assert_eq(logt_ctx_create(LOGT_CUDA, &ctx), LOGT_OK, "%s", logt_errmsg());
    logt_tensor x = device_tensor(&cfg, p.T, p.B, p.I, p.x);
    const int64_t nh = (int64_t)p.T * p.B * p.D;
    result first, second, other, again;
    pass(a, ctx, 0, &x, NULL, NULL, &first);
    pass(b, ctx, 0, &x, NULL, NULL, &other);
    double *wb = to_host(&b->w);
    cr_assert_eq(logt_tensor_from_f64(&a->w, wb), LOGT_OK, "%s", logt_errmsg());
    logt_net_params_written(a);
    pass(a, ctx, 0, &x, NULL, NULL, &second);
    expect_rel("T=20 B=3 I=8 D=16", "h after new parameters vs a net made with them", second.impl,
               second.h, other.h, nh, 1e-6);
    cr_expect(rel_max(first.h, other.h, nh) > 1e-2, "the two parameter sets give the same h: the test "
              "cannot tell a stale weight space (max rel difference %.3g)", rel_max(first.h, other.h, nh));
    a->cfg.seed = 3;   /* logt_net_init_params writes them too: back to the first parameters */
    cr_assert_eq(logt_net_init_params(a), LOGT_OK, "%s", logt_errmsg());
    pass(a, ctx, 1, &x, NULL, NULL, &again);
    expect_rel("T=20 B=3 I=8 D=16", "h after re-initialising vs the first forward", again.impl, again.h,
               first.h, nh, 1e-5);
    free(wb);
    free_result(&first), free_result(&second), free_result(&other), free_result(&again);
    logt_tensor_free(&x);
    logt_net_destroy(a), logt_net_destroy(b);
    logt_ctx_destroy(ctx);
    free_problem(&p);
}

/* The trainer's optimizer step writes the parameters after each step's forward: after two
 * steps, a forward of the trained net (of the trainer's batch shape, so that nothing else sets
 * cuDNN up anew) must equal that of a fresh net given the trained parameters (1e-6, bit for
 * bit expected), and differ from the untrained net's by far more (lr = 1e-2 moves every
 * weight). */
Test(lstm_cuda, cudnn_trainer_steps_reach_the_next_forward)
{
    SKIP_WITHOUT_GPU("lstm-cudnn trained by the trainer");
    logt_dataset ds;
    cr_assert_eq(logt_dataset_open("adding", 12, 5, &ds), LOGT_OK, "%s", logt_errmsg());
    logt_train_cfg tcfg = {.batch = 4, .lr = 1e-2, .clip = 0};
    problem p = make_problem(ds.T, tcfg.batch, ds.input_size, 16, 0);
    logt_model_cfg cfg;
    logt_model_cfg_init(&cfg, "lstm-cudnn", LOGT_CUDA, p.I, p.D);
    cr_assert_eq(logt_cfg_set_knob(&cfg, "algo", "standard"), LOGT_OK);
    cfg.seed = 3;
    logt_net *trained, *fresh, *untrained;
    cr_assert_eq(logt_net_create(&cfg, &trained), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_net_create(&cfg, &fresh), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_net_create(&cfg, &untrained), LOGT_OK, "%s", logt_errmsg());
    logt_ctx *ctx;
    cr_assert_eq(logt_ctx_create(LOGT_CUDA, &ctx), LOGT_OK, "%s", logt_errmsg());
    logt_trainer *tr;
    cr_assert_eq(logt_trainer_create(trained, &ds, &tcfg, ctx, &tr), LOGT_OK, "%s", logt_errmsg());
    double loss, norm;
    for (int s = 0; s < 2; s++)
        cr_assert_eq(logt_trainer_step(tr, &loss, &norm), LOGT_OK, "%s", logt_errmsg());
    double *w = to_host(&trained->w);
    cr_assert_eq(logt_tensor_from_f64(&fresh->w, w), LOGT_OK, "%s", logt_errmsg());
    logt_net_params_written(fresh);
    logt_tensor x = device_tensor(&cfg, p.T, p.B, p.I, p.x);
    const int64_t nh = (int64_t)p.T * p.B * p.D;
    result got, want, before;
    pass(trained, ctx, 0, &x, NULL, NULL, &got);
    pass(fresh, ctx, 0, &x, NULL, NULL, &want);
    pass(untrained, ctx, 0, &x, NULL, NULL, &before);
    expect_rel("T=12 B=4", "h of the trained net vs a fresh net with its parameters", got.impl, got.h,
               want.h, nh, 1e-6);
    cr_expect(rel_max(before.h, want.h, nh) > 1e-3, "two steps barely changed h (max rel %.3g): the "
              "test cannot tell a stale weight space", rel_max(before.h, want.h, nh));
    free(w);
    free_result(&got), free_result(&want), free_result(&before);
    logt_tensor_free(&x);
    logt_trainer_destroy(tr);
    logt_net_destroy(trained), logt_net_destroy(fresh), logt_net_destroy(untrained);
    logt_ctx_destroy(ctx);
    free_problem(&p);
    logt_dataset_close(&ds);
}

/* ---- the GEMM helper ------------------------------------------------------------------ */

Test(lstm_cuda, gemm_helper_matches_a_loop)
{
    SKIP_WITHOUT_GPU("the row-major cuBLAS GEMM helper");
#ifdef LOGT_HAVE_CUDA
    logt_ctx *ctx;
    cr_assert_eq(logt_ctx_create(LOGT_CUDA, &ctx), LOGT_OK, "%s", logt_errmsg());
    static const int sizes[][3] = {{5, 7, 3}, {33, 17, 65}, {1, 9, 4}, {6, 2, 0}};
    for (int si = 0; si < 4; si++)
        for (int ta = 0; ta < 2; ta++)
            for (int tb = 0; tb < 2; tb++)
                for (int batch = 1; batch <= 3; batch += 2) {
                    int64_t M = sizes[si][0], N = sizes[si][1], K = sizes[si][2];
                    int64_t na = M * K, nb = K * N, nc = M * N;
                    double *A = random_array(batch * na, 10, 1.0), *B = random_array(batch * nb, 11, 1.0);
                    double *C = random_array(batch * nc, 12, 1.0), *ref = malloc(sizeof(double) * (size_t)(batch * nc));
                    float alpha = 0.75f, beta = K ? 0.5f : 0.0f;
                    for (int64_t i = 0; i < batch * na; i++) A[i] = (float)A[i];   /* exact in f32 */
                    for (int64_t i = 0; i < batch * nb; i++) B[i] = (float)B[i];
                    for (int64_t i = 0; i < batch * nc; i++) C[i] = (float)C[i];
                    for (int64_t q = 0; q < batch; q++)
                        for (int64_t i = 0; i < M; i++)
                            for (int64_t j = 0; j < N; j++) {
                                double s = 0;
                                for (int64_t k = 0; k < K; k++) {
                                    double a = ta ? A[q * na + k * M + i] : A[q * na + i * K + k];
                                    double b = tb ? B[q * nb + j * K + k] : B[q * nb + k * N + j];
                                    s += a * b;
                                }
                                ref[q * nc + i * N + j] = alpha * s + beta * C[q * nc + i * N + j];
                            }
                    logt_tensor dA, dB, dC;
                    cr_assert_eq(logt_tensor_new1(&dA, LOGT_CUDA, LOGT_F32, batch * na), LOGT_OK);
                    cr_assert_eq(logt_tensor_new1(&dB, LOGT_CUDA, LOGT_F32, batch * nb), LOGT_OK);
                    cr_assert_eq(logt_tensor_new1(&dC, LOGT_CUDA, LOGT_F32, batch * nc), LOGT_OK);
                    cr_assert_eq(logt_tensor_from_f64(&dA, A), LOGT_OK, "%s", logt_errmsg());
                    cr_assert_eq(logt_tensor_from_f64(&dB, B), LOGT_OK, "%s", logt_errmsg());
                    cr_assert_eq(logt_tensor_from_f64(&dC, C), LOGT_OK, "%s", logt_errmsg());
                    logt_status s = batch == 1
                        ? logt_gemm_f32(ctx, ta, tb, M, N, K, alpha, dA.data, dB.data, beta, dC.data)
                        : logt_gemm_f32_batched(ctx, ta, tb, M, N, K, alpha, dA.data, na, dB.data, nb,
                                                beta, dC.data, nc, batch);
                    cr_assert_eq(s, LOGT_OK, "%s", logt_errmsg());
                    cr_assert_eq(logt_ctx_sync(ctx), LOGT_OK, "%s", logt_errmsg());
                    double *got = to_host(&dC);
                    char what[96];
                    snprintf(what, sizeof what, "gemm M=%lld N=%lld K=%lld transA=%d transB=%d batch=%d",
                             (long long)M, (long long)N, (long long)K, ta, tb, batch);
                    check_result c = check_close(what, got, ref, batch * nc, 1e-5, 1e-5);
                    cr_expect(c.ok, "%s", c.msg);
                    free(A), free(B), free(C), free(ref), free(got);
                    logt_tensor_free(&dA), logt_tensor_free(&dB), logt_tensor_free(&dC);
                }
    logt_ctx_destroy(ctx);
#endif
}

/* ---- bad configurations ------------------------------------------------------------------ */

Test(lstm_cuda, lstm_bf16_on_cuda_is_refused_naming_f32)
{
#ifndef LOGT_HAVE_CUDA
    cr_skip_test("built without CUDA: lstm has no cuda backend to refuse bf16 on");
#endif
    logt_model_cfg cfg;
    logt_model_cfg_init(&cfg, "lstm", LOGT_CUDA, 5, 8);
    cfg.dtype = LOGT_BF16;
    logt_net *net = NULL;
    cr_assert_eq(logt_net_create(&cfg, &net), LOGT_EUNSUPPORTED, "%s", logt_errmsg());
    cr_assert(strstr(logt_errmsg(), "set dtype = f32"), "%s", logt_errmsg());
}

Test(lstm_cuda, cudnn_unknown_algo_names_the_valid_ones)
{
    logt_model_cfg cfg;
    logt_model_cfg_init(&cfg, "lstm-cudnn", LOGT_CUDA, 5, 8);
    cr_assert_eq(logt_cfg_set_knob(&cfg, "algo", "fastest"), LOGT_OK);
    logt_net *net = NULL;
    cr_assert_eq(logt_net_create(&cfg, &net), LOGT_EINVAL, "%s", logt_errmsg());
    const char *m = logt_errmsg();
    cr_assert(strstr(m, "'fastest'") && strstr(m, "auto") && strstr(m, "standard") &&
                  strstr(m, "persist_static ") && strstr(m, "persist_static_small_h"),
              "%s", m);
}

Test(lstm_cuda, cudnn_unknown_math_names_the_valid_ones)
{
    logt_model_cfg cfg;
    logt_model_cfg_init(&cfg, "lstm-cudnn", LOGT_CUDA, 5, 8);
    cr_assert_eq(logt_cfg_set_knob(&cfg, "math", "fp16"), LOGT_OK);
    logt_net *net = NULL;
    cr_assert_eq(logt_net_create(&cfg, &net), LOGT_EINVAL, "%s", logt_errmsg());
    cr_assert(strstr(logt_errmsg(), "fp32") && strstr(logt_errmsg(), "tf32") && strstr(logt_errmsg(), "fastest") &&
                  strstr(logt_errmsg(), "allow_conversion"),
              "%s", logt_errmsg());
}

Test(lstm_cuda, cudnn_tf32_needs_f32_data)
{
    logt_model_cfg cfg;
    logt_model_cfg_init(&cfg, "lstm-cudnn", LOGT_CUDA, 5, 8);
    cfg.dtype = LOGT_BF16;
    cr_assert_eq(logt_cfg_set_knob(&cfg, "math", "tf32"), LOGT_OK);
    logt_net *net = NULL;
    cr_assert_eq(logt_net_create(&cfg, &net), LOGT_EINVAL, "%s", logt_errmsg());
    cr_assert(strstr(logt_errmsg(), "dtype = f32"), "%s", logt_errmsg());
}

/* tf32 and allow_conversion are ways to multiply f32 data: refused for bf16 and f16 data,
 * naming the dtype that takes them. */
Test(lstm_cuda, cudnn_f32_maths_need_f32_data)
{
    static const char *const maths[] = {"tf32", "allow_conversion"};
    static const logt_dtype dts[] = {LOGT_BF16, LOGT_F16};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            logt_model_cfg cfg;
            logt_model_cfg_init(&cfg, "lstm-cudnn", LOGT_CUDA, 5, 8);
            cfg.dtype = dts[j];
            cr_assert_eq(logt_cfg_set_knob(&cfg, "math", maths[i]), LOGT_OK);
            logt_layout l;
            cr_assert_eq(logt_model_layout(logt_model_find("lstm-cudnn"), &cfg, &l), LOGT_EINVAL,
                         "math = %s in %s: %s", maths[i], logt_dtype_name(dts[j]), logt_errmsg());
            const char *m = logt_errmsg();
            cr_assert(strstr(m, maths[i]) && strstr(m, "dtype = f32") && strstr(m, logt_dtype_name(dts[j])),
                      "%s", m);
        }
}

/* lstm-cudnn declares f16 on cuda, and its knobs take it: the check and the layout pass without a GPU. */
Test(lstm_cuda, cudnn_takes_f16)
{
    static const char *const maths[] = {"fp32", "fastest"};
    for (int i = 0; i < 2; i++) {
        logt_model_cfg cfg;
        logt_model_cfg_init(&cfg, "lstm-cudnn", LOGT_CUDA, 5, 8);
        cfg.dtype = LOGT_F16;
        cr_assert_eq(logt_cfg_set_knob(&cfg, "math", maths[i]), LOGT_OK);
        cr_assert_eq(logt_cfg_set_knob(&cfg, "algo", "persist_static"), LOGT_OK);
        logt_layout l;
        cr_assert_eq(logt_model_layout(logt_model_find("lstm-cudnn"), &cfg, &l), LOGT_OK, "%s", logt_errmsg());
        cr_assert_eq(l.numel, 4 * 8 * 5 + 4 * 8 * 8 + 4 * 8);
    }
}

Test(lstm_cuda, cudnn_on_cpu_is_refused)
{
    logt_model_cfg cfg;
    logt_model_cfg_init(&cfg, "lstm-cudnn", LOGT_CPU, 5, 8);
    logt_net *net = NULL;
    cr_assert_eq(logt_net_create(&cfg, &net), LOGT_EUNSUPPORTED, "%s", logt_errmsg());
    cr_assert(strstr(logt_errmsg(), "cuda"), "%s", logt_errmsg());
}
