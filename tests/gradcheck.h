/* gradcheck.h — the pieces of a finite-difference gradient check through logt_net.
 *
 * The loss is L = sum(dh ⊙ h), so dL/dh = dh and a backward from dh gives dL/dθ for
 * every parameter, input and initial state; numgrad measures the same by central
 * differences along one scalar.
 */
#ifndef LOGT_TEST_GRADCHECK_H
#define LOGT_TEST_GRADCHECK_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/rng.h"
#include "../models/model.h"
#include "check.h"

/* A [a][b][c] f64 cpu tensor holding vals (uninitialised when vals is NULL). */
static inline logt_tensor tensor3(int64_t a, int64_t b, int64_t c, const double *vals)
{
    logt_tensor t;
    cr_assert_eq(logt_tensor_new3(&t, LOGT_CPU, LOGT_F64, a, b, c), LOGT_OK);
    if (vals) memcpy(t.data, vals, sizeof(double) * (size_t)t.numel);
    return t;
}

/* Any tensor's values as a malloc'd f64 host array (the caller frees it). */
static inline double *host_copy(const logt_tensor *t)
{
    double *p = malloc((size_t)(t->numel ? t->numel : 1) * sizeof *p);
    cr_assert(p, "out of host memory");
    cr_assert_eq(logt_tensor_to_f64(t, p), LOGT_OK, "%s", logt_errmsg());
    return p;
}

/* A [a][b][c] tensor on cfg's device in cfg's dtype, holding host (converted) unless NULL. */
static inline logt_tensor cfg_tensor3(const logt_model_cfg *cfg, int64_t a, int64_t b, int64_t c,
                                      const double *host)
{
    logt_tensor t;
    cr_assert_eq(logt_tensor_new3(&t, cfg->device, cfg->dtype, a, b, c), LOGT_OK, "%s", logt_errmsg());
    if (host) cr_assert_eq(logt_tensor_from_f64(&t, host), LOGT_OK, "%s", logt_errmsg());
    return t;
}

/* Set knobs "key=val,key=val" (NULL or "": none) on cfg. */
static inline void set_knobs(logt_model_cfg *cfg, const char *knobs)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", knobs ? knobs : "");
    for (char *kv = strtok(buf, ","); kv; kv = strtok(NULL, ",")) {
        char *eq = strchr(kv, '=');
        cr_assert(eq, "knob '%s' is not key=value", kv);
        *eq = '\0';
        cr_assert_eq(logt_cfg_set_knob(cfg, kv, eq + 1), LOGT_OK, "%s", logt_errmsg());
    }
}

/* A one-layer cfg of `model` on dev (f32 on cuda, f64 on cpu) with cell, knobs and seed. */
static inline logt_model_cfg test_cfg(const char *model, logt_device dev, const char *cell, const char *knobs,
                                      int I, int D, uint64_t seed)
{
    logt_model_cfg cfg;
    logt_model_cfg_init(&cfg, model, dev, I, D);
    snprintf(cfg.cell, sizeof cfg.cell, "%s", cell);
    cfg.dtype = dev == LOGT_CUDA ? LOGT_F32 : LOGT_F64;
    cfg.seed = seed;
    set_knobs(&cfg, knobs);
    return cfg;
}

/* v rounded to what dtype dt holds (f64 unchanged). */
static inline double round_to(logt_dtype dt, double v)
{
    if (dt == LOGT_F32) return (float)v;
    if (dt == LOGT_BF16) return logt_bf16_to_f32(logt_f32_to_bf16((float)v));
    if (dt == LOGT_F16) return logt_f16_to_f32(logt_f32_to_f16((float)v));
    return v;
}

/* n values uniform in ±scale from (seed, stream), already rounded to dt; malloc'd. */
static inline double *random_array(int64_t n, uint64_t seed, uint64_t stream, double scale,
                                   logt_dtype dt)
{
    double *p = malloc((size_t)(n ? n : 1) * sizeof *p);
    cr_assert(p, "out of host memory");
    for (int64_t i = 0; i < n; i++)
        p[i] = round_to(dt, scale * (2 * logt_uniform(seed, stream, (uint64_t)i) - 1));
    return p;
}

/* L = sum(dh ⊙ h): its gradient with respect to h is dh. */
static inline double loss_of(logt_net *net, const logt_tensor *x, const double *dh)
{
    const logt_tensor *h;
    cr_assert_eq(logt_net_forward(net, x, &h, NULL), LOGT_OK, "%s", logt_errmsg());
    double L = 0;
    for (int64_t i = 0; i < h->numel; i++) L += dh[i] * ((double *)h->data)[i];
    return L;
}

static inline void fill(double *p, int64_t n, uint64_t stream)
{
    for (int64_t i = 0; i < n; i++) p[i] = 2 * logt_uniform(99, stream, (uint64_t)i) - 1;
}

/* Central difference of L along one scalar p. Step 1e-5: truncation ~1e-10, rounding ~1e-11. */
static inline double numgrad(logt_net *net, const logt_tensor *x, const double *dh, double *p)
{
    const double eps = 1e-5, keep = *p;
    *p = keep + eps;
    double up = loss_of(net, x, dh);
    *p = keep - eps;
    double down = loss_of(net, x, dh);
    *p = keep;
    return (up - down) / (2 * eps);
}

/* One group of gradients g[n], as the last backward left them, against central differences
 * along each of the n scalars p (atol 1e-9, rtol 1e-6). A failure names `label` and the
 * group and, when the group is the net's parameters, the first slice that is off. */
static inline void expect_grad(logt_net *net, const logt_tensor *x, const double *dh,
                               const char *label, const char *what, double *p, const double *g,
                               int64_t n)
{
    double *num = malloc(sizeof(double) * (size_t)n), *ana = malloc(sizeof(double) * (size_t)n);
    cr_assert(num && ana);
    memcpy(ana, g, sizeof(double) * (size_t)n);
    for (int64_t i = 0; i < n; i++) num[i] = numgrad(net, x, dh, &p[i]);
    check_result r = check_close(what, ana, num, n, 1e-9, 1e-6);
    if (!r.ok && p == (double *)net->w.data)
        for (int s = 0; s < logt_net_nslices(net); s++) {
            char name[64];
            int64_t off, len;
            logt_net_slice(net, s, name, sizeof name, &off, &len);
            check_result rs = check_close(name, ana + off, num + off, len, 1e-9, 1e-6);
            cr_assert(rs.ok, "%s: %s", label, rs.msg);
        }
    cr_assert(r.ok, "%s: %s", label, r.msg);
    free(num), free(ana);
}

#endif
