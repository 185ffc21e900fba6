/* test_flashrnn_cuda.c — flashrnn on CUDA (models/flashrnn/flashrnn_cuda.cu and fused_*.cu)
 * against the float64 CPU reference: every cell, every dtype, both kernels (fused and
 * alternating), every instantiated k_slice reached (dh from 16 to 256, warps_k 1 to 8), heads
 * split over several blocks (both ways they meet: a thread-block cluster, and the exchange
 * through global memory), T = 1, H = 1, odd B, B above one batch
 * tile, an initial state (h0, c0) and its gradients. The CUDA net runs first; its f32
 * parameters are given to the reference, and the inputs are rounded to the CUDA dtype, so
 * only the arithmetic differs.
 *
 * Tolerances (|got - ref| <= atol·max|ref| + rtol·|ref|, per group, printed on failure):
 *   f32: every product is a TF32 tensor-core product (10-bit mantissa, ~5e-4 relative per
 *     operand) summed in fp32; h after T steps of a contracting recurrence stays within ~1e-3
 *     of max|h|: 5e-3 allowed; gradients sum T·B such products: 1e-2.
 *   bf16: R and h enter the products rounded to 8 bits (2^-9 relative each) and h is stored
 *     in bf16 (2^-8): 2e-2 on h; the recurrent dL/d(R h) is rounded to bf16 as the operand of
 *     the backward product too: 4e-2 on the gradients. A wrong index is off by order 1.
 *   f16: 11 significant bits against bf16's 8, so each rounding (R, h and dL/d(R h) as the
 *     products' operands, h, dx and dh0 as stored) is at most 2^-11 relative, 8 times less than
 *     bf16's. That is the rounding of a TF32 operand (10 explicit bits too), which the f32 path
 *     already pays in every product beside the same fast tanh and σ (2^-10.9, 2^-11.9): f32's
 *     tolerances, 5e-3 on h and 1e-2 on the gradients, 4 times tighter than bf16's. The values
 *     here (|x|, |dh| <= 1, |h| <= 1 for the lstm) are far inside f16's range (6e-5 to 65504,
 *     and what underflows is below 1e-7 of the largest, inside atol).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../models/flashrnn/flashrnn.h"
#include "../models/flashrnn/fused.h"
#include "../models/model.h"
#include "check.h"
#include "gpu.h"
#include "gradcheck.h"

typedef struct shape { int T, B, I, D, dh, state; } shape;
typedef struct tol { double h, g; } tol;

static const tol TOL_F32 = {5e-3, 1e-2};
static const tol TOL_BF16 = {2e-2, 4e-2};
static const tol TOL_F16 = {5e-3, 1e-2};

typedef struct result {
    double *w, *h, *dw, *dx, *dh0, *dc0, *dn0, *dm0;
    int64_t nw;
    char impl[160], detail[512];
} result;

static void free_result(result *r)
{
    free(r->w), free(r->h), free(r->dw), free(r->dx), free(r->dh0), free(r->dc0);
    free(r->dn0), free(r->dm0);
}

/* Set by a test whose path differs on a net's later forwards: run() runs forward once more
 * first, on -x. */
static int forward_twice;

/* Set by the slstm tests: with a state, run() also gives the net the slstm's n0 (in [1, 3],
 * 0 in every third unit: a fresh unit beside carried ones) and m0 (in [-2, 2], 0 where n0 is),
 * with c0 0 where n0 is, and keeps their gradients; extreme_if > 0 makes the rows i and f of b about ±extreme_if
 * (and W's 4 times larger) before the first run, whose parameters the reference takes. */
static int slstm_nm;
static double extreme_if;
/* c0's scale: 0.5, or more where a test wants |h| > 1 (an slstm whose c0 is large beside n0) */
static double c0_scale = 0.5;
/* h0's scale, likewise (an elman's h0 beyond 1: its h_t is within 1 from the first step) */
static double h0_scale = 0.5;

/* The cells with a cell state c0: lstm (also the default, cell empty) and slstm. */
static int has_c0(const char *cell) { return !*cell || !strcmp(cell, "lstm") || !strcmp(cell, "slstm"); }

/* n0 and m0 [1][B][D] of slstm_nm, as host tensors. */
static void slstm_states(int B, int D, logt_tensor *n0, logt_tensor *m0)
{
    *n0 = tensor3(1, B, D, NULL), *m0 = tensor3(1, B, D, NULL);
    double *n = n0->data, *m = m0->data;
    for (int64_t i = 0; i < n0->numel; i++) {
        const int fresh = i % 3 == 0;
        n[i] = fresh ? 0.0 : 1.0 + 2.0 * logt_uniform(91, 5, (uint64_t)i);
        m[i] = fresh ? 0.0 : -2.0 + 4.0 * logt_uniform(91, 6, (uint64_t)i);
    }
}

/* b's i and f rows to ±extreme_if·(0.9 .. 1), signs mixed, and W's rows of them 4 times
 * larger (x moves i, f by a few units a step): pre-activations |i|, |f| up to about 80. */
static void make_extreme(logt_net *net, int I, int D)
{
    double *w = host_copy(&net->w);
    int64_t ob = -1, oW = -1, off, len;
    char name[64];
    for (int k = 0; k < logt_net_nslices(net); k++) {
        cr_assert_eq(logt_net_slice(net, k, name, sizeof name, &off, &len), LOGT_OK);
        if (!strcmp(name, "l0.b")) ob = off;
        if (!strcmp(name, "l0.W")) oW = off;
    }
    cr_assert(ob >= 0 && oW >= 0);
    for (int r = 0; r < 2 * D; r++) {
        w[ob + r] = extreme_if * (0.9 + 0.1 * logt_uniform(5, 9, (uint64_t)r)) * ((r * 7 / 3) % 2 ? 1 : -1);
        for (int k = 0; k < I; k++) w[oW + (int64_t)r * I + k] *= 4;
    }
    cr_assert_eq(logt_tensor_from_f64(&net->w, w), LOGT_OK, "%s", logt_errmsg());
    logt_net_params_written(net);
    free(w);
}

/* How many of a test's n knob variants to run: all, or with LOGT_TEST_SMALL=1 (the sanitizer's
 * runs, scripts/gpu-sanitize.sh, which are 10-100 times slower) the first only. */
static int small_run(void)
{
    const char *e = getenv("LOGT_TEST_SMALL");
    return e && *e && strcmp(e, "0");
}
static int variants(int n) { return small_run() ? 1 : n; }

/* Build cfg's net (parameters w unless NULL), run forward and backward, copy back in f64. */
static logt_status run(const logt_model_cfg *cfg, shape s, const double *x, const double *dh,
                       const double *h0, const double *c0, const double *w, result *r)
{
    memset(r, 0, sizeof *r);
    logt_net *net = NULL;
    logt_status st = logt_net_create(cfg, &net);
    if (st != LOGT_OK) return st;
    if (w) cr_assert_eq(logt_tensor_from_f64(&net->w, w), LOGT_OK, "%s", logt_errmsg());
    logt_ctx *ctx = NULL;
    cr_assert_eq(logt_ctx_create(cfg->device, &ctx), LOGT_OK, "%s", logt_errmsg());
    const int lstm = has_c0(cfg->cell), nm = slstm_nm && s.state && !strcmp(cfg->cell, "slstm");
    if (extreme_if > 0 && !w) make_extreme(net, s.I, s.D);
    if (s.state) {
        logt_tensor th = tensor3(1, s.B, s.D, h0), tc = tensor3(1, s.B, s.D, c0);
        cr_assert_eq(logt_net_set_state(net, &th, lstm ? &tc : NULL), LOGT_OK, "%s", logt_errmsg());
        logt_tensor_free(&th), logt_tensor_free(&tc);
    }
    if (nm) {   /* c0 is 0 where n0 is (a fresh unit: the states an sLSTM reaches) */
        logt_tensor n0, m0;
        slstm_states(s.B, s.D, &n0, &m0);
        logt_tensor tc = tensor3(1, s.B, s.D, c0), th = tensor3(1, s.B, s.D, h0);
        for (int64_t i = 0; i < tc.numel; i++)
            if (((double *)n0.data)[i] == 0.0) ((double *)tc.data)[i] = 0.0;
        cr_assert_eq(logt_net_set_state(net, &th, &tc), LOGT_OK, "%s", logt_errmsg());
        logt_tensor_free(&th), logt_tensor_free(&tc);
        cr_assert_eq(flashrnn_set_slstm_state(net, &n0, &m0), LOGT_OK, "%s", logt_errmsg());
        logt_tensor_free(&n0), logt_tensor_free(&m0);
    }
    logt_tensor tx = cfg_tensor3(cfg, s.T, s.B, s.I, x), tdh = cfg_tensor3(cfg, s.T, s.B, s.D, dh);
    logt_tensor tdx = cfg_tensor3(cfg, s.T, s.B, s.I, NULL);
    const logt_tensor *h;
    if (forward_twice) {   /* first on -x: what it leaves behind (W x) is wrong for x */
        const int64_t n = (int64_t)s.T * s.B * s.I;
        double *xn = malloc((size_t)n * sizeof *xn);
        cr_assert(xn);
        for (int64_t i = 0; i < n; i++) xn[i] = -x[i];
        logt_tensor txn = cfg_tensor3(cfg, s.T, s.B, s.I, xn);
        st = logt_net_forward(net, &txn, &h, ctx);
        if (st == LOGT_OK) st = logt_ctx_sync(ctx);
        logt_tensor_free(&txn);
        free(xn);
    }
    if (st == LOGT_OK) st = logt_net_forward(net, &tx, &h, ctx);
    if (st == LOGT_OK) st = logt_net_backward(net, &tdh, &tdx, ctx);
    if (st == LOGT_OK) st = logt_ctx_sync(ctx);
    if (st == LOGT_OK) {
        r->w = host_copy(&net->w), r->h = host_copy(h), r->dw = host_copy(&net->dw);
        r->nw = net->dw.numel, r->dx = host_copy(&tdx);
        if (s.state) {
            r->dh0 = host_copy(&net->dh0);
            if (lstm) r->dc0 = host_copy(&net->dc0);
        }
        if (nm) {
            const flashrnn_model *fm = (const flashrnn_model *)net->layer[0];
            r->dn0 = host_copy(&fm->dn0), r->dm0 = host_copy(&fm->dm0);
        }
        snprintf(r->impl, sizeof r->impl, "%s", net->layer[0]->impl);
        snprintf(r->detail, sizeof r->detail, "%s", net->layer[0]->detail);
    }
    logt_tensor_free(&tx), logt_tensor_free(&tdh), logt_tensor_free(&tdx);
    logt_net_destroy(net);
    logt_ctx_destroy(ctx);
    return st;
}

static double max_abs(const double *a, int64_t n)
{
    double m = 0;
    for (int64_t i = 0; i < n; i++) m = fmax(m, fabs(a[i]));
    return m;
}

/* The worst |got - ref| / max|ref| of a group (for the log) and whether it is within tol. */
static int group_ok(const char *what, const double *got, const double *ref, int64_t n, double t,
                    char *msg, size_t len, double *worst)
{
    const double scale = fmax(max_abs(ref, n), 1e-30);
    double w = 0;
    for (int64_t i = 0; i < n; i++) w = fmax(w, fabs(got[i] - ref[i]) / scale);
    *worst = fmax(*worst, w);
    check_result c = check_close(what, got, ref, n, t * scale, t);
    if (!c.ok) snprintf(msg, len, "%s", c.msg);
    return c.ok;
}

/* kernel: "fused" or "alternating", optionally followed by more knobs ("fused,warps_k=2"). */
static void expect_matches(const char *cell, const char *kernel, logt_dtype dt, shape s)
{
    if (!test_only_case()) return;
    logt_model_cfg cfg;
    logt_model_cfg_init(&cfg, "flashrnn", LOGT_CUDA, s.I, s.D);
    snprintf(cfg.cell, sizeof cfg.cell, "%s", cell);
    cfg.head_dim = s.dh;
    cfg.dtype = dt;
    cfg.seed = 3 + (uint64_t)s.T;
    char knobs[128];
    snprintf(knobs, sizeof knobs, "kernel=%s", kernel);
    set_knobs(&cfg, knobs);
    const int lstm = has_c0(cell), nm = slstm_nm && s.state && !strcmp(cell, "slstm");
    double *x = random_array((int64_t)s.T * s.B * s.I, 91, 1, 1.0, dt);
    double *dh = random_array((int64_t)s.T * s.B * s.D, 91, 2, 1.0, dt);
    double *h0 = random_array((int64_t)s.B * s.D, 91, 3, h0_scale, dt);
    double *c0 = random_array((int64_t)s.B * s.D, 91, 4, c0_scale, dt);
    result got, ref;
    char label[160];
    snprintf(label, sizeof label, "flashrnn %s %s %s T=%d B=%d I=%d D=%d dh=%d %s%s%s", cell, kernel,
             logt_dtype_name(dt), s.T, s.B, s.I, s.D, s.dh, s.state ? "with h0, c0" : "zero state",
             nm ? ", n0, m0" : "", extreme_if > 0 ? ", extreme i, f" : "");
    cr_assert_eq(run(&cfg, s, x, dh, h0, c0, NULL, &got), LOGT_OK, "%s: %s", label, logt_errmsg());
    logt_model_cfg c = cfg;
    c.device = LOGT_CPU, c.dtype = LOGT_F64, c.nknobs = 0;
    cr_assert_eq(run(&c, s, x, dh, h0, c0, got.w, &ref), LOGT_OK, "%s reference: %s", label, logt_errmsg());

    const tol t = dt == LOGT_BF16 ? TOL_BF16 : dt == LOGT_F16 ? TOL_F16 : TOL_F32;
    char msg[600] = "";
    double wh = 0, wg = 0;
    const int64_t nh = (int64_t)s.T * s.B * s.D, nx = (int64_t)s.T * s.B * s.I, ns = (int64_t)s.B * s.D;
    int ok = group_ok("h", got.h, ref.h, nh, t.h, msg, sizeof msg, &wh)
             && group_ok("dparams", got.dw, ref.dw, ref.nw, t.g, msg, sizeof msg, &wg)
             && group_ok("dx", got.dx, ref.dx, nx, t.g, msg, sizeof msg, &wg)
             && (!s.state || group_ok("dh0", got.dh0, ref.dh0, ns, t.g, msg, sizeof msg, &wg))
             && (!s.state || !lstm || group_ok("dc0", got.dc0, ref.dc0, ns, t.g, msg, sizeof msg, &wg))
             && (!nm || group_ok("dn0", got.dn0, ref.dn0, ns, t.g, msg, sizeof msg, &wg))
             && (!nm || group_ok("dm0", got.dm0, ref.dm0, ns, t.g, msg, sizeof msg, &wg));
    fprintf(stderr, "%s: max error / max|ref|: h %.2e, gradients %.2e [%s]\n", label, wh, wg,
            got.detail);
    cr_expect(ok, "%s (%s; %s): %s", label, got.impl, got.detail, msg);
    const char *hs = strstr(kernel, "head_sync=");   /* a forced way of meeting was the one run */
    if (hs) {
        const int cluster = !strncmp(hs + 10, "cluster", 7);
        cr_expect(strstr(got.detail, cluster ? "sync=cluster" : "sync=grid")
                      && !strstr(got.detail, cluster ? "sync=grid" : "sync=cluster"),
                  "%s: %s", label, got.detail);
        const char *gs = strstr(kernel, "grid_share=");   /* the backward's sharing: never forward, */
        if (gs) {                                         /* on always, auto where it can be */
            const char *bwd = strstr(got.detail, "backward:"), *f = strstr(got.detail, "share=");
            const char *wk = bwd ? strstr(bwd, " wk=") : NULL;   /* it can: wk > 1, no twins */
            const int can = wk && atoi(wk + 4) > 1 && !strncmp(strstr(wk, "split=") + 6, "1", 1);
            const int want = !strncmp(gs + 11, "on", 2) || (!strncmp(gs + 11, "auto", 4) && can);
            cr_expect(bwd && (want ? f && f > bwd : !f), "%s: %s", label, got.detail);
        }
        const char *cs = strstr(kernel, "cluster_store=");
        if (cs) {
            const int copy = !strncmp(cs + 14, "copy", 4);
            cr_expect(!strstr(got.detail, copy ? "sync=cluster/cell" : "sync=cluster/copy"), "%s: %s",
                      label, got.detail);
        }
    }
    free_result(&got), free_result(&ref);
    free(x), free(dh), free(h0), free(c0);
}

/* dh 16 .. 256 over the k_slices 16, 32, 64 (bf16) and 16, 32 (f32): warps_k 1 .. 8; dh = 256
 * splits a head over blocks in both dtypes; B = 17 is three batch tiles with padding. */
static const shape SHAPES[] = {
    {1, 1, 5, 16, 16, 1},   {9, 3, 7, 64, 16, 1},   {33, 5, 20, 64, 64, 1},
    {20, 16, 8, 128, 32, 0}, {12, 17, 16, 256, 128, 1}, {6, 4, 8, 256, 256, 1},
};
#define NSHAPES ((int)(sizeof SHAPES / sizeof SHAPES[0]))

static void all_shapes(const char *cell, const char *kernel, logt_dtype dt)
{
    for (int i = 0; i < NSHAPES; i++) expect_matches(cell, kernel, dt, SHAPES[i]);
}

Test(flashrnn_cuda, lstm_fused_bf16) { SKIP_WITHOUT_GPU("flashrnn cuda"); all_shapes("lstm", "fused", LOGT_BF16); }
Test(flashrnn_cuda, lstm_fused_f32) { SKIP_WITHOUT_GPU("flashrnn cuda"); all_shapes("lstm", "fused", LOGT_F32); }
Test(flashrnn_cuda, gru_fused_bf16) { SKIP_WITHOUT_GPU("flashrnn cuda"); all_shapes("gru", "fused", LOGT_BF16); }
Test(flashrnn_cuda, gru_fused_f32) { SKIP_WITHOUT_GPU("flashrnn cuda"); all_shapes("gru", "fused", LOGT_F32); }
Test(flashrnn_cuda, lstm_alternating_bf16) { SKIP_WITHOUT_GPU("flashrnn cuda"); all_shapes("lstm", "alternating", LOGT_BF16); }
Test(flashrnn_cuda, lstm_alternating_f32) { SKIP_WITHOUT_GPU("flashrnn cuda"); all_shapes("lstm", "alternating", LOGT_F32); }
Test(flashrnn_cuda, gru_alternating_bf16) { SKIP_WITHOUT_GPU("flashrnn cuda"); all_shapes("gru", "alternating", LOGT_BF16); }
Test(flashrnn_cuda, gru_alternating_f32) { SKIP_WITHOUT_GPU("flashrnn cuda"); all_shapes("gru", "alternating", LOGT_F32); }
Test(flashrnn_cuda, elman_alternating_bf16) { SKIP_WITHOUT_GPU("flashrnn cuda"); all_shapes("elman", "alternating", LOGT_BF16); }
Test(flashrnn_cuda, elman_alternating_f32) { SKIP_WITHOUT_GPU("flashrnn cuda"); all_shapes("elman", "alternating", LOGT_F32); }
Test(flashrnn_cuda, slstm_alternating_bf16) { SKIP_WITHOUT_GPU("flashrnn cuda"); all_shapes("slstm", "alternating", LOGT_BF16); }
Test(flashrnn_cuda, slstm_alternating_f32) { SKIP_WITHOUT_GPU("flashrnn cuda"); all_shapes("slstm", "alternating", LOGT_F32); }
Test(flashrnn_cuda, slstm_fused_bf16) { SKIP_WITHOUT_GPU("flashrnn cuda"); all_shapes("slstm", "fused", LOGT_BF16); }
Test(flashrnn_cuda, slstm_fused_f32) { SKIP_WITHOUT_GPU("flashrnn cuda"); all_shapes("slstm", "fused", LOGT_F32); }

/* The slstm from carried states (n0 and m0 beside h0 and c0; fresh units among them) and
 * with pre-activations |i|, |f| up to about 80, where exp would overflow without the
 * stabiliser; both dtypes, both kernels, the fused one with whole heads and with a head
 * split over blocks both ways they meet (the backward's dn0, dm0 come from the block that
 * holds the unit). */
Test(flashrnn_cuda, slstm_states_and_extreme_gates)
{
    SKIP_WITHOUT_GPU("flashrnn cuda");
    slstm_nm = 1;
    const char *kernels[] = {"alternating", "fused", "fused,head_sync=grid", "fused,head_sync=cluster"};
    for (int e = 0; e < 2; e++) {
        extreme_if = e ? 76 : 0;
        for (int d = 0; d < 2; d++) {
            const logt_dtype dt = d ? LOGT_BF16 : LOGT_F32;
            for (int k = 0; k < 2; k++) {
                expect_matches("slstm", kernels[k], dt, (shape){9, 5, 7, 64, 16, 1});
                expect_matches("slstm", kernels[k], dt, (shape){4, 3, 5, 32, 32, 1});
            }
            for (int k = 2; k < 2 + variants(2); k++) expect_matches("slstm", kernels[k], dt, (shape){5, 9, 8, 256, 256, 1});
        }
    }
    extreme_if = 0, slstm_nm = 0;
}

/* An slstm's h is c / n scaled by σ(o): with c0 large beside n0 it exceeds 1 in the first steps,
 * and a split head's exchange must carry it whole (the dtype's words, not the 16-bit words
 * that hold |h| <= 1 only). c0 up to 6 with n0 in [1, 3]: |h| up to about 3. */
Test(flashrnn_cuda, slstm_h_beyond_one_through_the_exchange)
{
    SKIP_WITHOUT_GPU("flashrnn cuda");
    slstm_nm = 1, c0_scale = 6.0;
    const char *kernels[] = {"fused,head_sync=grid", "fused,head_sync=cluster"};
    for (int k = 0; k < variants(2); k++)
        for (int d = 0; d < 2; d++)
            expect_matches("slstm", kernels[k], d ? LOGT_F16 : LOGT_BF16, (shape){4, 5, 8, 256, 256, 1});
    slstm_nm = 0, c0_scale = 0.5;
}

/* With the kernel unset every cell runs fused, and with kernel = alternating alternating. */
Test(flashrnn_cuda, each_cell_takes_its_kernel)
{
    SKIP_WITHOUT_GPU("flashrnn cuda");
    const char *cells[] = {"lstm", "gru", "slstm", "elman"};
    for (int i = 0; i < 8; i++) {
        logt_model_cfg cfg;
        logt_model_cfg_init(&cfg, "flashrnn", LOGT_CUDA, 8, 32);
        snprintf(cfg.cell, sizeof cfg.cell, "%s", cells[i % 4]);
        cfg.head_dim = 16;
        if (i >= 4) set_knobs(&cfg, "kernel=alternating");
        result r;
        cr_assert_eq(run(&cfg, (shape){3, 2, 8, 32, 16, 0}, NULL, NULL, NULL, NULL, NULL, &r), LOGT_OK,
                     "%s", logt_errmsg());
        cr_expect(strstr(r.impl, i >= 4 ? "alternating" : "fused persistent"), "%s: %s", cells[i % 4], r.impl);
        free_result(&r);
    }
}
Test(flashrnn_cuda, elman_fused_bf16) { SKIP_WITHOUT_GPU("flashrnn cuda"); all_shapes("elman", "fused", LOGT_BF16); }
Test(flashrnn_cuda, elman_fused_f32) { SKIP_WITHOUT_GPU("flashrnn cuda"); all_shapes("elman", "fused", LOGT_F32); }

/* The elman's h is a tanh, within 1 whatever h0 is: a split head exchanges it in the 16-bit
 * words that hold |h| <= 1 (as the lstm's), here from an h0 of up to 4, through both ways a
 * split head's blocks meet. */
Test(flashrnn_cuda, elman_large_h0_through_the_exchange)
{
    SKIP_WITHOUT_GPU("flashrnn cuda");
    h0_scale = 4.0;
    const char *kernels[] = {"fused,head_sync=grid", "fused,head_sync=cluster"};
    for (int k = 0; k < variants(2); k++)
        for (int d = 0; d < 2; d++)
            expect_matches("elman", kernels[k], d ? LOGT_F16 : LOGT_BF16, (shape){4, 5, 8, 256, 256, 1});
    h0_scale = 0.5;
}

/* One dense head of 768 in bf16: 48 blocks of one unit group each, 12 warps per group. */
Test(flashrnn_cuda, dense_head_768_bf16)
{
    SKIP_WITHOUT_GPU("flashrnn cuda");
    expect_matches("lstm", "fused", LOGT_BF16, (shape){5, 16, 8, 768, 768, 1});
    expect_matches("gru", "fused", LOGT_BF16, (shape){5, 16, 8, 768, 768, 1});
}

/* What does not fit is an error that names the limit, never a crash. */
Test(flashrnn_cuda, too_large_head_is_a_clear_error)
{
    SKIP_WITHOUT_GPU("flashrnn cuda");
    logt_model_cfg cfg;
    logt_model_cfg_init(&cfg, "flashrnn", LOGT_CUDA, 8, 4096);
    cfg.dtype = LOGT_F32;
    result r;
    logt_status s = run(&cfg, (shape){2, 16, 8, 4096, 4096, 0}, NULL, NULL, NULL, NULL, NULL, &r);
    cr_assert_eq(s, LOGT_EUNSUPPORTED, "%s", logt_errmsg());
    cr_assert(strstr(logt_errmsg(), "no tiling fits") && strstr(logt_errmsg(), "largest dh"), "%s",
              logt_errmsg());
}

/* A split head's ways of meeting each step, forced: one thread-block cluster (distributed
 * shared memory and the cluster's barrier; the cell's own stores, or a block's copy after a
 * barrier, or the kernel's choice between them per pass) and the exchange through global
 * memory. dh = 256 bf16 splits over 8 blocks, f32 over 16 (the largest cluster); B = 17 is
 * three batch tiles, three clusters a head. A dense head of 768 needs 48 blocks, more than a
 * cluster: asking for a cluster there is a clear error. */
Test(flashrnn_cuda, head_sync_cluster_and_grid_match_the_reference)
{
    SKIP_WITHOUT_GPU("flashrnn cuda");
    const char *knobs[] = {"fused,head_sync=cluster", "fused,head_sync=grid",
                           "fused,head_sync=cluster,cluster_store=cell",
                           "fused,head_sync=cluster,cluster_store=copy"};
    for (int k = 0; k < variants(4); k++) {
        expect_matches("lstm", knobs[k], LOGT_BF16, (shape){6, 4, 8, 256, 256, 1});
        expect_matches("gru", knobs[k], LOGT_BF16, (shape){6, 4, 8, 256, 256, 1});
        expect_matches("lstm", knobs[k], LOGT_BF16, (shape){12, 17, 16, 512, 256, 0});
        expect_matches("lstm", knobs[k], LOGT_F32, (shape){6, 4, 8, 256, 256, 1});
        expect_matches("gru", knobs[k], LOGT_F32, (shape){5, 3, 8, 128, 128, 1});
    }
    logt_model_cfg cfg;
    logt_model_cfg_init(&cfg, "flashrnn", LOGT_CUDA, 8, 768);
    cfg.dtype = LOGT_BF16;
    set_knobs(&cfg, "kernel=fused,head_sync=cluster");
    result r;
    logt_status s = run(&cfg, (shape){2, 16, 8, 768, 768, 0}, NULL, NULL, NULL, NULL, NULL, &r);
    cr_assert_eq(s, LOGT_EUNSUPPORTED, "%s", logt_errmsg());
    cr_assert(strstr(logt_errmsg(), "cluster") && strstr(logt_errmsg(), "head_sync = grid"), "%s",
              logt_errmsg());
}

/* The forward's exchange through global memory tags each of the gru's bf16 values with its
 * step's low 16 bits: past 65,536 steps the tags wrap, and every step must still take its own
 * values (an older word's tag differs by two steps in either buffer); the lstm's values carry
 * a one-bit tag that alternates every two steps. dh = 64 split over 4 blocks (warps_k = 4),
 * T = 65,600; the backward (counter barrier) runs the same length. */
Test(flashrnn_cuda, grid_exchange_past_the_16_bit_step_tag, .timeout = 300)
{
    SKIP_WITHOUT_GPU("flashrnn cuda");
    expect_matches("gru", "fused,head_sync=grid,warps_k=4", LOGT_BF16, (shape){65600, 3, 4, 64, 64, 1});
    expect_matches("lstm", "fused,head_sync=grid,warps_k=4", LOGT_BF16, (shape){65600, 3, 4, 64, 64, 1});
}

/* A NaN made in one unit reaches every unit of its batch row through the next step's R h,
 * also across the dense head's exchange through global memory, where the lstm's 16-bit words
 * (bf16 and f16) have no room for a NaN's bits beside the tag (TaggedUnit,
 * models/flashrnn/exchange.cuh): c0 NaN at one position, and the output's NaNs must be the
 * reference's. */
static void nan_through_grid(logt_dtype dt)
{
    const shape s = {3, 3, 8, 768, 768, 1};
    logt_model_cfg cfg;
    logt_model_cfg_init(&cfg, "flashrnn", LOGT_CUDA, s.I, s.D);
    cfg.head_dim = s.dh, cfg.dtype = dt, cfg.seed = 5;
    set_knobs(&cfg, "kernel=fused,head_sync=grid");
    double *x = random_array((int64_t)s.T * s.B * s.I, 92, 1, 1.0, dt);
    double *dh = random_array((int64_t)s.T * s.B * s.D, 92, 2, 1.0, dt);
    double *h0 = random_array((int64_t)s.B * s.D, 92, 3, 0.5, dt);
    double *c0 = random_array((int64_t)s.B * s.D, 92, 4, 0.5, dt);
    c0[1 * s.D + 5] = NAN;   /* batch row 1, unit 5 */
    result got, ref;
    cr_assert_eq(run(&cfg, s, x, dh, h0, c0, NULL, &got), LOGT_OK, "%s", logt_errmsg());
    logt_model_cfg c = cfg;
    c.device = LOGT_CPU, c.dtype = LOGT_F64, c.nknobs = 0;
    cr_assert_eq(run(&c, s, x, dh, h0, c0, got.w, &ref), LOGT_OK, "%s", logt_errmsg());
    int64_t nnan = 0, differ = 0;
    for (int64_t i = 0; i < (int64_t)s.T * s.B * s.D; i++) {
        nnan += isnan(ref.h[i]) != 0;
        differ += (isnan(got.h[i]) != 0) != (isnan(ref.h[i]) != 0);
    }
    /* the reference: unit 5 at step 0, then the whole row at steps 1 and 2 */
    const char *dn = logt_dtype_name(dt);
    cr_expect_eq(nnan, 1 + 2 * s.D, "%s: the reference has %lld NaNs", dn, (long long)nnan);
    cr_expect_eq(differ, 0, "%s: %lld outputs NaN in one and not the other (%s)", dn, (long long)differ,
                 got.detail);
    cr_expect(strstr(got.detail, "sync=grid"), "%s: %s", dn, got.detail);
    free_result(&got), free_result(&ref);
    free(x), free(dh), free(h0), free(c0);
}

Test(flashrnn_cuda, grid_exchange_carries_a_nan)
{
    SKIP_WITHOUT_GPU("flashrnn cuda");
    nan_through_grid(LOGT_BF16);
    nan_through_grid(LOGT_F16);
}

/* Tilings the tuner does not pick at these sizes, forced through the knobs: the products
 * split over 2 and 4 warps, the cell on one warp or shared by twins. */
Test(flashrnn_cuda, forced_tilings_match_the_reference)
{
    SKIP_WITHOUT_GPU("flashrnn cuda");
    const char *knobs[] = {"fused,warps_k=2,cell_split=1", "fused,warps_k=4,cell_split=2",
                           "fused,warps_k=1,cell_split=1"};
    for (int k = 0; k < 3; k++) {
        expect_matches("lstm", knobs[k], LOGT_BF16, (shape){17, 9, 8, 128, 64, 1});
        expect_matches("gru", knobs[k], LOGT_BF16, (shape){17, 9, 8, 128, 64, 1});
    }
    expect_matches("lstm", "fused,warps_k=2,cell_split=2", LOGT_F32, (shape){9, 5, 8, 128, 64, 1});
}

/* Where a unit group's products split over warps_k > 1 warps, the partial sums and the cell
 * on one warp (cell_spread = off) or on the group's first 4 warps, one position a thread
 * (on): the dense head of 768 (12 warps a group, through global memory), dh = 256 (split
 * over a cluster; bf16 with twins, f32 without), dh = 64 in whole heads with warps_k = 4
 * forced, B = 9 (a part-empty second batch tile), with the initial state. */
Test(flashrnn_cuda, spread_cell_matches_the_reference)
{
    SKIP_WITHOUT_GPU("flashrnn cuda");
    const char *knobs[] = {"fused,cell_spread=on", "fused,cell_spread=off"};
    for (int k = 0; k < variants(2); k++) {
        expect_matches("lstm", knobs[k], LOGT_BF16, (shape){5, 9, 8, 768, 768, 1});
        expect_matches("gru", knobs[k], LOGT_BF16, (shape){5, 9, 8, 768, 768, 1});
        expect_matches("lstm", knobs[k], LOGT_BF16, (shape){6, 9, 8, 256, 256, 1});
        expect_matches("gru", knobs[k], LOGT_F32, (shape){6, 9, 8, 256, 256, 1});
    }
    expect_matches("lstm", "fused,warps_k=4,cell_split=1,cell_spread=on", LOGT_BF16, (shape){7, 9, 8, 128, 64, 1});
    expect_matches("gru", "fused,warps_k=4,cell_split=1,cell_spread=on", LOGT_BF16, (shape){7, 9, 8, 128, 64, 1});
}

/* The split dense head's forward with each warp's products on every gate of its k slice
 * (all), or on 2 or 1 gates over a slice 2 or 4 times as long (fewer partial sums), and auto
 * (1), against the reference: the lstm in bf16, dh = 768, B = 9 (the second batch tile 1 row),
 * with and without the initial state, T = 37 (both operand buffers many times over). The
 * run's detail names the gates a warp had. Asking for 1 or 2 where the tiling has no such
 * kernel (a gru, f32, a head of 64 in whole blocks) is a clear error. */
Test(flashrnn_cuda, warp_gates_match_the_reference)
{
    SKIP_WITHOUT_GPU("flashrnn cuda");
    const char *knobs[] = {"fused,warp_gates=all", "fused,warp_gates=2", "fused,warp_gates=1",
                           "fused,warp_gates=auto"};
    for (int k = 0; k < variants(4); k++) {
        expect_matches("lstm", knobs[k], LOGT_BF16, (shape){5, 9, 8, 768, 768, 1});
        expect_matches("lstm", knobs[k], LOGT_BF16, (shape){37, 16, 24, 768, 768, 0});
        logt_model_cfg cfg;   /* the run's detail says what ran */
        logt_model_cfg_init(&cfg, "flashrnn", LOGT_CUDA, 8, 768);
        cfg.dtype = LOGT_BF16;
        cfg.head_dim = 768;
        char kn[64];
        snprintf(kn, sizeof kn, "kernel=%s", knobs[k]);
        set_knobs(&cfg, kn);
        result r;
        cr_assert_eq(run(&cfg, (shape){3, 16, 8, 768, 768, 0}, NULL, NULL, NULL, NULL, NULL, &r), LOGT_OK,
                     "%s", logt_errmsg());
        const char *fwd = strstr(r.detail, "forward: "), *bwd = strstr(r.detail, "backward: ");
        cr_assert(fwd && bwd, "%s", r.detail);
        const char *g = strstr(fwd, " gates=");
        const int gates = g && g < bwd ? atoi(g + 7) : 4;
        const int want[] = {4, 2, 1, 1};   /* auto: 1 */
        cr_assert_eq(gates, want[k], "%s: %s", knobs[k], r.detail);
        free_result(&r);
    }
    const struct { const char *cell; logt_dtype dt; int D, dh; } no[] = {
        {"gru", LOGT_BF16, 768, 768}, {"lstm", LOGT_F32, 256, 256}, {"lstm", LOGT_BF16, 128, 64}};
    for (int i = 0; i < 3; i++) {
        logt_model_cfg cfg;
        logt_model_cfg_init(&cfg, "flashrnn", LOGT_CUDA, 8, no[i].D);
        snprintf(cfg.cell, sizeof cfg.cell, "%s", no[i].cell);
        cfg.dtype = no[i].dt;
        cfg.head_dim = no[i].dh;
        set_knobs(&cfg, "kernel=fused,warp_gates=1");
        result r;
        logt_status s = run(&cfg, (shape){2, 16, 8, no[i].D, no[i].dh, 0}, NULL, NULL, NULL, NULL, NULL, &r);
        cr_assert_eq(s, LOGT_EUNSUPPORTED, "%s", logt_errmsg());
        cr_assert(strstr(logt_errmsg(), "warp_gates = 1") && strstr(logt_errmsg(), "warp_gates = auto or all"),
                  "%s", logt_errmsg());
    }
}

/* A split head exchanging through global memory, the backward's blocks in clusters that
 * share the step's reload (grid_share = on: multicast by the copy engine; auto: where the
 * tiling lets it) or not (off): the dense head of 768 (48 blocks a head, clusters of 16;
 * B = 9 leaves the second batch tile 1 row), dh = 256 gru with warps_k = 4 (a warp's k slice
 * of 192 gate columns crosses a gate's end), f32 dh = 128 with warps_k = 4; and dh = 256 at
 * B = 64 (twins: no sharing; a block of 32 rows polls more words forward than a thread holds
 * at once, the poll's walk). The run's detail says which it was. */
Test(flashrnn_cuda, grid_share_matches_the_reference)
{
    SKIP_WITHOUT_GPU("flashrnn cuda");
    const char *knobs[] = {"fused,head_sync=grid,grid_share=on", "fused,head_sync=grid,grid_share=off",
                           "fused,head_sync=grid,grid_share=auto"};
    for (int k = 0; k < variants(3); k++) {
        expect_matches("lstm", knobs[k], LOGT_BF16, (shape){5, 9, 8, 768, 768, 1});
        expect_matches("gru", knobs[k], LOGT_BF16, (shape){5, 16, 8, 768, 768, 1});
        char kn[96];
        snprintf(kn, sizeof kn, "%s,warps_k=4,cell_split=1", knobs[k]);
        expect_matches("gru", kn, LOGT_BF16, (shape){6, 17, 8, 512, 256, 1});
        expect_matches("lstm", kn, LOGT_F32, (shape){6, 5, 8, 128, 128, 1});
        if (k) expect_matches("lstm", knobs[k], LOGT_BF16, (shape){3, 64, 8, 768, 256, 1});
    }
}

/* An overlap test's dense head (one head of 768, 48 blocks of 12 warps), or with
 * LOGT_TEST_SMALL=1 one head of 256 split through global memory with warps_k = 4 and no twins
 * (as the dense head's backward, which shares its reload), at T_small steps: the same chunks
 * beside the kernel and the same exchange, where racecheck's run of the dense head's steps
 * outlasts any time a sanitizer run gets (scripts/gpu-sanitize.sh). */
static void expect_dense_overlap(const char *cell, const char *knobs, shape dense, int T_small)
{
    if (!small_run()) {
        expect_matches(cell, knobs, LOGT_BF16, dense);
        return;
    }
    char kn[160];
    snprintf(kn, sizeof kn, "%s%s,warps_k=4,cell_split=1", knobs, strstr(knobs, "head_sync=") ? "" : ",head_sync=grid");
    expect_matches(cell, kn, LOGT_BF16, (shape){T_small, dense.B, dense.I, 256, 256, dense.state});
}

/* The weights' gradients beside the fused backward, in chunks of steps, each waited for by a
 * second stream on the blocks' step counters (grad_overlap = auto where the backward shares
 * its reload, T >= 64), or after it (off): the dense head of 768 at T = 70 (2 chunks of 35;
 * under LOGT_TEST_SMALL a split head of 256 at T = 64, expect_dense_overlap), dh = 256 gru
 * with warps_k = 4 at T = 100 (3 chunks of 33 and 34), f32 dh = 128. The timeout is for
 * compute-sanitizer. */
Test(flashrnn_cuda, grad_overlap_matches_the_reference, .timeout = 900)
{
    SKIP_WITHOUT_GPU("flashrnn cuda");
    const char *knobs[] = {"fused,head_sync=grid,grad_overlap=auto", "fused,head_sync=grid,grad_overlap=off"};
    for (int k = 0; k < variants(2); k++) {
        expect_dense_overlap("lstm", knobs[k], (shape){70, 5, 8, 768, 768, 1}, 64);
        char kn[96];
        snprintf(kn, sizeof kn, "%s,warps_k=4,cell_split=1", knobs[k]);
        expect_matches("gru", kn, LOGT_BF16, (shape){100, 3, 8, 512, 256, 1});
        expect_matches("lstm", kn, LOGT_F32, (shape){64, 3, 8, 256, 128, 0});
    }
}

/* The forward's input projection in chunks of steps, all but the first beside the kernel on
 * a second stream that counts them for the kernel's prefetch (proj_overlap = auto where T
 * splits into chunks of 16 steps or more), or whole before it (off): the dense head at T = 64
 * (4 chunks of 16) and T = 70 (2 of 35; under LOGT_TEST_SMALL split heads of 256 at T = 32,
 * 2 chunks of 16, expect_dense_overlap),
 * whole heads of 64 at T = 48 (3 of 16), an f32 gru split over 2 blocks at T = 32 (2 of 16);
 * each net runs its forward twice, the second time on the second stream as the first (on -x)
 * left it. late makes each chunk only once the kernel asks for it, so that the kernel's wait
 * is what stands between it and W x not yet made (a build without the wait fails this test).
 * The timeout is for compute-sanitizer. */
Test(flashrnn_cuda, proj_overlap_matches_the_reference, .timeout = 900)
{
    SKIP_WITHOUT_GPU("flashrnn cuda");
    forward_twice = 1;
    const char *knobs[] = {"fused,proj_overlap=auto", "fused,proj_overlap=off", "fused,proj_overlap=late"};
    for (int k = 0; k < variants(3); k++) {
        expect_dense_overlap("lstm", knobs[k], (shape){64, 5, 8, 768, 768, 1}, 32);
        expect_dense_overlap("gru", knobs[k], (shape){70, 16, 8, 768, 768, 0}, 32);
        expect_matches("lstm", knobs[k], LOGT_BF16, (shape){48, 3, 8, 128, 64, 1});
        expect_matches("gru", knobs[k], LOGT_F32, (shape){32, 7, 8, 256, 128, 1});
    }
    forward_twice = 0;
}

/* proj_overlap at a full-size shape, against itself off: the gru f32 forward at D = I = 768,
 * dh = 16, B = 16, T = 1024 (16 chunks of 64 steps beside 96 blocks), whose chunk GEMMs, before
 * they were told the SMs left to them, waited for SMs the kernel held until its time-out. Too
 * large for the float64 reference: the two runs' h and gradients must agree to TF32's
 * rounding of W x (the chunks and the whole may take different GEMM kernels). */
Test(flashrnn_cuda, proj_overlap_full_size_ends, .timeout = 300)
{
    SKIP_WITHOUT_GPU("flashrnn cuda");
    const shape s = {1024, 16, 768, 768, 16, 0};
    result r[2];
    const char *knobs[] = {"kernel=fused,proj_overlap=auto", "kernel=fused,proj_overlap=off"};
    double *x = random_array((int64_t)s.T * s.B * s.I, 92, 1, 1.0, LOGT_F32);
    double *dh = random_array((int64_t)s.T * s.B * s.D, 92, 2, 1.0, LOGT_F32);
    for (int k = 0; k < 2; k++) {
        logt_model_cfg cfg;
        logt_model_cfg_init(&cfg, "flashrnn", LOGT_CUDA, s.I, s.D);
        snprintf(cfg.cell, sizeof cfg.cell, "gru");
        cfg.head_dim = s.dh, cfg.dtype = LOGT_F32, cfg.seed = 5;
        set_knobs(&cfg, knobs[k]);
        cr_assert_eq(run(&cfg, s, x, dh, NULL, NULL, NULL, &r[k]), LOGT_OK, "%s: %s", knobs[k], logt_errmsg());
    }
    char msg[600] = "";
    double wh = 0, wg = 0;
    const int64_t nh = (int64_t)s.T * s.B * s.D;
    const int ok = group_ok("h", r[0].h, r[1].h, nh, 1e-3, msg, sizeof msg, &wh)
                   && group_ok("dparams", r[0].dw, r[1].dw, r[1].nw, 1e-3, msg, sizeof msg, &wg);
    fprintf(stderr, "proj_overlap auto against off, gru f32 T=1024 B=16 D=I=768 dh=16: h %.2e, "
                    "gradients %.2e [%s]\n", wh, wg, r[0].detail);
    cr_expect(ok, "%s", msg);
    free_result(&r[0]), free_result(&r[1]);
    free(x), free(dh);
}

/* B = 128 at D = 768, dh = 64: the tuner gives a block 16 batch rows (two 8-row tiles per step,
 * the reduction slots alternating between them). */
Test(flashrnn_cuda, batch_tiles_above_eight_rows)
{
    SKIP_WITHOUT_GPU("flashrnn cuda");
    expect_matches("lstm", "fused", LOGT_BF16, (shape){3, 128, 8, 768, 64, 1});
    expect_matches("lstm", "fused,warps_k=2", LOGT_BF16, (shape){3, 128, 8, 768, 64, 0});
}

/* f16 (IEEE half: 16-bit operands, fp32 accumulation, as bf16) on shapes that line up with
 * nothing: T prime, B = 5 or 9 (a batch tile and a part of one), I != D. The fused kernels
 * at dh = 64 in whole heads over each k_slice (warps_k 1, 2, 4: 64, 32, 16) and the tuner's
 * choice, then a head split over blocks both ways they meet (cluster; grid: the lstm's 16-bit
 * tagged words, the gru's 32-bit ones) and the dense head of 768 (the lstm's forward with
 * warp_gates); the alternating path for every cell. */
static const shape F16_WHOLE = {13, 5, 20, 128, 64, 1};
static const shape F16_SPLIT = {7, 9, 12, 256, 256, 1};
static const shape F16_DENSE = {5, 9, 11, 768, 768, 1};
static const shape F16_ALT[] = {{13, 5, 20, 128, 64, 1}, {11, 9, 7, 96, 32, 0}, {1, 5, 3, 16, 16, 1}};

static void fused_f16(const char *cell)
{
    const char *knobs[] = {"fused", "fused,warps_k=1", "fused,warps_k=2", "fused,warps_k=4"};
    for (int k = 0; k < 4; k++) expect_matches(cell, knobs[k], LOGT_F16, F16_WHOLE);
    const char *split[] = {"fused", "fused,head_sync=cluster", "fused,head_sync=grid"};
    for (int k = 0; k < variants(3); k++) expect_matches(cell, split[k], LOGT_F16, F16_SPLIT);
    expect_matches(cell, "fused,head_sync=grid", LOGT_F16, F16_DENSE);
}

static void alternating_f16(const char *cell)
{
    for (int i = 0; i < (int)(sizeof F16_ALT / sizeof F16_ALT[0]); i++)
        expect_matches(cell, "alternating", LOGT_F16, F16_ALT[i]);
}

Test(flashrnn_cuda, lstm_fused_f16) { SKIP_WITHOUT_GPU("flashrnn cuda"); fused_f16("lstm"); }
Test(flashrnn_cuda, gru_fused_f16) { SKIP_WITHOUT_GPU("flashrnn cuda"); fused_f16("gru"); }
Test(flashrnn_cuda, lstm_alternating_f16) { SKIP_WITHOUT_GPU("flashrnn cuda"); alternating_f16("lstm"); }
Test(flashrnn_cuda, gru_alternating_f16) { SKIP_WITHOUT_GPU("flashrnn cuda"); alternating_f16("gru"); }
Test(flashrnn_cuda, elman_alternating_f16) { SKIP_WITHOUT_GPU("flashrnn cuda"); alternating_f16("elman"); }
Test(flashrnn_cuda, elman_fused_f16) { SKIP_WITHOUT_GPU("flashrnn cuda"); fused_f16("elman"); }
Test(flashrnn_cuda, slstm_fused_f16)
{
    SKIP_WITHOUT_GPU("flashrnn cuda");
    fused_f16("slstm");
    slstm_nm = 1;
    expect_matches("slstm", "fused", LOGT_F16, (shape){9, 5, 7, 64, 16, 1});
    slstm_nm = 0;
}
Test(flashrnn_cuda, slstm_alternating_f16)
{
    SKIP_WITHOUT_GPU("flashrnn cuda");
    alternating_f16("slstm");
    slstm_nm = 1;   /* from carried n0, m0 too, fresh units among them */
    expect_matches("slstm", "alternating", LOGT_F16, (shape){9, 5, 7, 64, 16, 1});
    slstm_nm = 0;
}

/* The lstm's dense head in f16 with a warp's gates (warp_gates) forced to each of 1, 2 and
 * all, and the f16 run's tilings the bf16 run's (the tuner sees the same sizes and the same
 * register counts for both). */
Test(flashrnn_cuda, dense_head_768_f16_warp_gates)
{
    SKIP_WITHOUT_GPU("flashrnn cuda");
    const char *knobs[] = {"fused,head_sync=grid,warp_gates=1", "fused,head_sync=grid,warp_gates=2",
                           "fused,head_sync=grid,warp_gates=all"};
    for (int k = 0; k < variants(3); k++) expect_matches("lstm", knobs[k], LOGT_F16, (shape){5, 9, 8, 768, 768, 1});
    result r[2];
    const logt_dtype dts[2] = {LOGT_BF16, LOGT_F16};
    for (int d = 0; d < 2; d++) {
        logt_model_cfg cfg;
        logt_model_cfg_init(&cfg, "flashrnn", LOGT_CUDA, 8, 768);
        cfg.dtype = dts[d], cfg.head_dim = 768;
        set_knobs(&cfg, "kernel=fused");
        cr_assert_eq(run(&cfg, (shape){2, 9, 8, 768, 768, 0}, NULL, NULL, NULL, NULL, NULL, &r[d]), LOGT_OK,
                     "%s: %s", logt_dtype_name(dts[d]), logt_errmsg());
    }
    cr_expect_str_eq(r[0].detail, r[1].detail, "bf16 and f16 plan alike");
    cr_expect(strstr(r[1].impl, "f16 tensor cores") && !strstr(r[1].impl, "bf16"), "%s", r[1].impl);
    free_result(&r[0]), free_result(&r[1]);
}

/* The 16-bit copies of W and R are made once per change of the parameters: a bf16 net whose
 * parameters are rewritten (and said to be, logt_net_params_written) between two forwards
 * gives, the second time, the bits of a fresh net given those parameters before its first;
 * and not the first forward's h. A forward that kept its first copies fails here. */
Test(flashrnn_cuda, rewritten_parameters_reach_the_next_forward)
{
    SKIP_WITHOUT_GPU("flashrnn cuda");
    const shape s = {6, 3, 8, 32, 16, 0};
    logt_model_cfg cfg;
    logt_model_cfg_init(&cfg, "flashrnn", LOGT_CUDA, s.I, s.D);
    cfg.head_dim = s.dh, cfg.dtype = LOGT_BF16, cfg.seed = 7;
    set_knobs(&cfg, "kernel=fused");
    double *x = random_array((int64_t)s.T * s.B * s.I, 91, 1, 1.0, cfg.dtype);
    logt_tensor tx = cfg_tensor3(&cfg, s.T, s.B, s.I, x);
    logt_ctx *ctx = NULL;
    cr_assert_eq(logt_ctx_create(cfg.device, &ctx), LOGT_OK, "%s", logt_errmsg());
    logt_net *net = NULL, *fresh = NULL;
    cr_assert_eq(logt_net_create(&cfg, &net), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_net_create(&cfg, &fresh), LOGT_OK, "%s", logt_errmsg());
    const logt_tensor *h;
    cr_assert_eq(logt_net_forward(net, &tx, &h, ctx), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_ctx_sync(ctx), LOGT_OK, "%s", logt_errmsg());
    double *h1 = host_copy(h), *w = host_copy(&net->w);
    for (int64_t i = 0; i < net->w.numel; i++) w[i] = -1.5 * w[i];
    cr_assert_eq(logt_tensor_from_f64(&net->w, w), LOGT_OK, "%s", logt_errmsg());
    logt_net_params_written(net);
    cr_assert_eq(logt_net_forward(net, &tx, &h, ctx), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_ctx_sync(ctx), LOGT_OK, "%s", logt_errmsg());
    double *h2 = host_copy(h);
    cr_assert_eq(logt_tensor_from_f64(&fresh->w, w), LOGT_OK, "%s", logt_errmsg());
    logt_net_params_written(fresh);
    cr_assert_eq(logt_net_forward(fresh, &tx, &h, ctx), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_ctx_sync(ctx), LOGT_OK, "%s", logt_errmsg());
    double *h3 = host_copy(h);
    const int64_t n = (int64_t)s.T * s.B * s.D;
    int64_t same_as_first = 0;
    for (int64_t i = 0; i < n; i++) {
        cr_assert_eq(h2[i], h3[i], "h[%lld]: %g after the rewrite, %g from a fresh net", (long long)i, h2[i], h3[i]);
        same_as_first += h2[i] == h1[i];
    }
    cr_expect_lt(same_as_first, n / 2, "%lld of %lld values of h unchanged by new parameters",
                 (long long)same_as_first, (long long)n);
    free(x), free(w), free(h1), free(h2), free(h3);
    logt_tensor_free(&tx);
    logt_net_destroy(net), logt_net_destroy(fresh);
    logt_ctx_destroy(ctx);
}

#ifdef LOGT_HAVE_CUDA
/* The table: the k_slices the tuner is told of are the instantiated ones. */
Test(flashrnn_cuda, instantiation_table)
{
    int n = 0;
    const flashrnn_instance *t = flashrnn_fused_table(&n);
    cr_assert_geq(n, 4);
    int slstm = 0;
    for (int i = 0; i < n; i++) {
        cr_assert(t[i].G == 1 || t[i].G == 3 || t[i].G == 4);
        cr_assert(!t[i].slstm || t[i].G == 4);
        slstm += t[i].slstm;
        cr_assert(t[i].k_slice % 16 == 0 && t[i].k_slice <= FLASHRNN_MAX_KSLICE);
        cr_assert(t[i].dtype == LOGT_F32 || t[i].dtype == LOGT_BF16 || t[i].dtype == LOGT_F16);
        cr_assert_eq(t[i].dtype_bytes, (int)logt_dtype_size(t[i].dtype));
        cr_assert(flashrnn_fused_k_slices(t[i].G, t[i].slstm, t[i].dtype) >> (t[i].k_slice / 16) & 1);
    }
    cr_assert_gt(slstm, 0);
    /* the slstm, gru and elman have the lstm's k_slices: the tuner offers them the same heads */
    for (int d = 0; d < 3; d++) {
        const logt_dtype dt = d == 0 ? LOGT_BF16 : d == 1 ? LOGT_F16 : LOGT_F32;
        const unsigned lstm = flashrnn_fused_k_slices(4, 0, dt);
        cr_assert_eq(flashrnn_fused_k_slices(4, 1, dt), lstm);
        cr_assert_eq(flashrnn_fused_k_slices(3, 0, dt), lstm);
        cr_assert_eq(flashrnn_fused_k_slices(1, 0, dt), lstm);
    }
    for (int G = 3; G <= 4; G++) {   /* f16 has bf16's kernels: the same tilings fit */
        cr_assert_eq(flashrnn_fused_k_slices(G, 0, LOGT_F16), flashrnn_fused_k_slices(G, 0, LOGT_BF16));
        cr_assert_neq(flashrnn_fused_k_slices(G, 0, LOGT_F16), 0u);
    }
}
#endif
