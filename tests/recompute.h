/* recompute.h — the harness of the recompute = K tests (test_recompute*.c): a net's training
 * pass in segments against its plain pass, on every output and gradient. */
#ifndef LOGT_TEST_RECOMPUTE_H
#define LOGT_TEST_RECOMPUTE_H

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/rng.h"
#include "../models/model.h"
#include "gpu.h"

typedef struct pass {
    double *h, *dw, *dx, *dh0, *dc0;
    int64_t nh, nw, nx, ns;
    int keep;              /* the net's last pass kept its segments (net.c)       */
    int64_t S, recomputed; /* its segments, and those its backward ran again     */
    int64_t restored;      /* and those it took from the forward's output instead */
    char detail[512];      /* layer 0's account of its last call                  */
} pass;

static inline double *host(const logt_tensor *t)
{
    double *p = malloc((size_t)t->numel * sizeof *p);
    cr_assert(p);
    cr_assert_eq(logt_tensor_to_f64(t, p), LOGT_OK, "%s", logt_errmsg());
    return p;
}

static inline logt_tensor filled(logt_device dev, logt_dtype dt, int64_t a, int64_t b, int64_t c,
                          uint64_t stream, double scale)
{
    const int64_t n = a * b * c;
    double *v = malloc((size_t)n * sizeof *v);
    cr_assert(v);
    logt_uniform_fill(7, stream, v, n, -scale, scale);
    logt_tensor t;
    cr_assert_eq(logt_tensor_new3(&t, dev, dt, a, b, c), LOGT_OK, "%s", logt_errmsg());
    cr_assert_eq(logt_tensor_from_f64(&t, v), LOGT_OK, "%s", logt_errmsg());
    free(v);
    return t;
}

typedef struct setup {
    const char *model, *cell, *knobs;   /* knobs: "k=v,k=v" beside recompute */
    logt_device dev;
    logt_dtype dt;
    int T, B, I, D, dh, L, state;
} setup;

static inline void set_knobs(logt_model_cfg *cfg, const char *knobs)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", knobs ? knobs : "");
    for (char *save = NULL, *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        cr_assert(eq, "knob '%s'", kv);
        *eq = 0;
        cr_assert_eq(logt_cfg_set_knob(cfg, kv, eq + 1), LOGT_OK, "%s", logt_errmsg());
    }
}

/* One forward and backward of s's net with recompute = `rc` (NULL: off); with `rewrite`, a
 * first pass, then the parameters rewritten, then the pass returned. */
static inline pass run_pass(const setup *s, const char *rc, int rewrite)
{
    logt_model_cfg cfg;
    logt_model_cfg_init(&cfg, s->model, s->dev, s->I, s->D);
    if (s->cell) snprintf(cfg.cell, sizeof cfg.cell, "%s", s->cell);
    cfg.dtype = s->dt;
    cfg.head_dim = s->dh;
    cfg.layers = s->L;
    cfg.seed = 11;
    set_knobs(&cfg, s->knobs);
    if (rc) cr_assert_eq(logt_cfg_set_knob(&cfg, "recompute", rc), LOGT_OK);
    logt_net *net;
    cr_assert_eq(logt_net_create(&cfg, &net), LOGT_OK, "%s %s: %s", s->model, rc ? rc : "off", logt_errmsg());
    const int two = (net->layer[0]->nslots ? net->layer[0]->nslots : net->ops->nstate) > 1;
    logt_tensor h0 = {0}, c0 = {0};
    if (s->state) {
        h0 = filled(s->dev, s->dt, s->L, s->B, s->D, 3, 0.8);
        if (two) c0 = filled(s->dev, s->dt, s->L, s->B, s->D, 4, 0.8);
        cr_assert_eq(logt_net_set_state(net, &h0, two ? &c0 : NULL), LOGT_OK, "%s", logt_errmsg());
    }
    logt_tensor x = filled(s->dev, s->dt, s->T, s->B, s->I, 1, 1.0);
    logt_tensor dh = filled(s->dev, s->dt, s->T, s->B, s->D, 2, 1.0);
    logt_tensor dx;
    cr_assert_eq(logt_tensor_new3(&dx, s->dev, s->dt, s->T, s->B, s->I), LOGT_OK);
    logt_ctx *ctx = NULL;
    cr_assert_eq(logt_ctx_create(s->dev, &ctx), LOGT_OK, "%s", logt_errmsg());
    const logt_tensor *h;
    for (int k = 0; k <= rewrite; k++) {
        if (k) {   /* every layer (and whatever keeps a copy of it) must see the new values */
            double *w = host(&net->w);
            for (int64_t i = 0; i < net->w.numel; i++) w[i] = 0.75 * w[i] + 0.01;
            cr_assert_eq(logt_tensor_from_f64(&net->w, w), LOGT_OK, "%s", logt_errmsg());
            logt_net_params_written(net);
            free(w);
        }
        cr_assert_eq(logt_net_forward(net, &x, &h, ctx), LOGT_OK, "%s %s forward: %s", s->model, rc ? rc : "off", logt_errmsg());
        cr_assert_eq(logt_net_backward(net, &dh, &dx, ctx), LOGT_OK, "%s %s backward: %s", s->model, rc ? rc : "off", logt_errmsg());
    }
    cr_assert_eq(logt_ctx_sync(ctx), LOGT_OK, "%s", logt_errmsg());
    pass p = {host(h), host(&net->dw), host(&dx), NULL, NULL, h->numel, net->dw.numel, dx.numel, 0,
              net->keep, net->K ? (s->T + net->K - 1) / net->K : 1, net->recomputed, net->restored, ""};
    snprintf(p.detail, sizeof p.detail, "%s", net->layer[0]->detail);
    if (s->state) {
        p.dh0 = host(&net->dh0), p.ns = net->dh0.numel;
        if (two) p.dc0 = host(&net->dc0);
    }
    logt_ctx_destroy(ctx);
    logt_tensor_free(&x), logt_tensor_free(&dh), logt_tensor_free(&dx);
    logt_tensor_free(&h0), logt_tensor_free(&c0);
    logt_net_destroy(net);
    return p;
}

static inline pass run(const setup *s, const char *rc) { return run_pass(s, rc, 0); }

static inline void free_pass(pass *p) { free(p->h), free(p->dw), free(p->dx), free(p->dh0), free(p->dc0); }

/* |a - b| <= tol · max|b| everywhere (tol 0: the same bits). */
static inline void same(const char *what, const char *rc, const double *a, const double *b, int64_t n, double tol)
{
    if (!a && !b) return;
    double scale = 0, worst = 0;
    int64_t at = 0;
    for (int64_t i = 0; i < n; i++) scale = fmax(scale, fabs(b[i]));
    for (int64_t i = 0; i < n; i++) {
        const double d = fabs(a[i] - b[i]);
        if (!(d <= worst)) worst = d, at = i;
    }
    if (tol == 0)
        cr_assert(worst == 0, "recompute = %s: %s differs from the plain pass at %lld: %.17g against %.17g",
                  rc, what, (long long)at, a[at], b[at]);
    else
        cr_assert(worst <= tol * fmax(scale, 1e-30), "recompute = %s: %s off by %.3g of its largest %.3g "
                  "at %lld (tolerance %.1g)", rc, what, worst / fmax(scale, 1e-30), scale, (long long)at, tol);
}

/* h within tol_h and every gradient within tol_g of ref's (same, above). */
static inline void same_pass(const char *what, const pass *p, const pass *ref, double tol_h, double tol_g)
{
    same("h", what, p->h, ref->h, ref->nh, tol_h);
    same("dw", what, p->dw, ref->dw, ref->nw, tol_g);
    same("dx", what, p->dx, ref->dx, ref->nx, tol_g);
    same("dh0", what, p->dh0, ref->dh0, ref->ns, tol_g);
    same("dc0", what, p->dc0, ref->dc0, ref->ns, tol_g);
}

/* Every recompute value in rcs against the plain pass. */
static inline void expect_same(const setup *s, const char *const *rcs, double tol)
{
    pass ref = run(s, NULL);
    for (int i = 0; rcs[i]; i++) {
        pass p = run(s, rcs[i]);
        same_pass(rcs[i], &p, &ref, tol, tol);
        free_pass(&p);
    }
    free_pass(&ref);
}

/* The layers as a wavefront (layers_wavefront = on, beside s's knobs) with its own segments
 * and with each recompute value in rcs, against the plain pass of s (its knobs, no wavefront),
 * each the second pass after the parameters are rewritten. The wavefront's own segments are
 * kept (no segment run again); recompute's run every segment but the last again, a layer, or
 * restore it from the forward's output (ops->restore). */
static inline void expect_wavefront(const setup *s, const char *const *rcs, double tol)
{
    pass ref = run_pass(s, NULL, 1);
    setup w = *s;
    char knobs[256];
    snprintf(knobs, sizeof knobs, "%s%slayers_wavefront=on", s->knobs ? s->knobs : "", s->knobs ? "," : "");
    w.knobs = knobs;
    for (int i = -1; i < 0 || rcs[i]; i++) {
        const char *rc = i < 0 ? NULL : rcs[i];
        pass p = run_pass(&w, rc, 1);
        const char *what = rc ? rc : "off, wavefront on";
        /* the wavefront's own segments: 1 yes, 0 no, -1 either (auto's K may reach T) */
        const int own = !rc ? 1 : !strcmp(rc, "auto") ? -1 : atoi(rc) >= s->T;
        if (own == 1 || (own == -1 && p.keep))
            cr_assert(p.keep && p.S > 1 && p.recomputed + p.restored == 0, "recompute = %s, wavefront: %lld "
                      "segments, kept %d, %lld run again, %lld restored (want kept, none)", what, (long long)p.S,
                      p.keep, (long long)p.recomputed, (long long)p.restored);
        else
            cr_assert(!p.keep && p.recomputed + p.restored == (p.S - 1) * s->L, "recompute = %s, wavefront: %lld "
                      "segments, kept %d, %lld run again, %lld restored (want %lld in all)", what, (long long)p.S,
                      p.keep, (long long)p.recomputed, (long long)p.restored, (long long)((p.S - 1) * s->L));
        same_pass(what, &p, &ref, tol, tol);
        free_pass(&p);
    }
    free_pass(&ref);
}

/* T = 10: K = 3 (3, 3, 3, 1), 4 (4, 4, 2), 1, 9, auto (4), and 10 and 50 (none). */
static const char *const AWKWARD[] __attribute__((unused)) = {"3", "4", "1", "9", "auto", "10", "50", NULL};

static inline void cpu_case(const char *model, const char *cell, const char *knobs, int dh)
{
    for (int state = 0; state < 2; state++) {
        setup s = {model, cell, knobs, LOGT_CPU, LOGT_F64, 10, 2, 3, 4, dh, 2, state};
        expect_same(&s, AWKWARD, 0);
    }
}

#endif
