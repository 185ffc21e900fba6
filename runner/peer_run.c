/* peer_run.c — a sweep's run of a peer (peer.h): the request made from the run's spec, the
 * peer's times into the run's row and its datasets as for logt's own speed and kernel runs,
 * the peer's version and the adapter's command into the run's attributes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../models/kernels.h"
#include "peer.h"
#include "run_internal.h"

typedef struct text {
    char *buf;
    size_t n, used;
} text;

static void put(text *t, const char *fmt, const char *s)
{
    if (t->used < t->n) t->used += (size_t)snprintf(t->buf + t->used, t->n - t->used, fmt, s);
}

/* s as a JSON string (the config's words need no escapes but '"' and '\' are kept safe). */
static void put_str(text *t, const char *s)
{
    put(t, "%s", "\"");
    for (; *s; s++) {
        char c[3] = {*s, 0, 0};
        if (*s == '"' || *s == '\\') c[0] = '\\', c[1] = *s;
        put(t, "%s", (unsigned char)*s < 0x20 ? "?" : c);
    }
    put(t, "%s", "\"");
}

static void put_int(text *t, const char *key, long long v)
{
    char num[48];
    snprintf(num, sizeof num, "%lld", v);
    put(t, ", \"%s\": ", key);
    put(t, "%s", num);
}

/* The request for run r (peers/README.md, "The protocol"); *kernel: the kernel a kernel run
 * asks for (its knob `kernel`, default scan), which is not passed among the knobs. */
static void request_of(const logt_run_spec *r, const char *name, char *buf, size_t n, char *kernel,
                       size_t nkernel)
{
    const logt_model_cfg *c = &r->cfg;
    const int is_kernel = r->kind == LOGT_KIND_KERNEL;
    text t = {buf, n, 0};
    put(&t, "%s", "{\"peer\": ");
    put_str(&t, name);
    put(&t, "%s", ", \"kind\": ");
    put_str(&t, is_kernel ? "kernel" : "speed");
    logt_strlcpy(kernel, nkernel, logt_cfg_knob(c, "kernel", "scan"));
    if (is_kernel) {
        put(&t, "%s", ", \"kernel\": ");
        put_str(&t, kernel);
    }
    put_int(&t, "T", r->T);
    put_int(&t, "B", r->B);
    put_int(&t, "D", c->hidden_size);
    put_int(&t, "input_size", c->input_size);
    put_int(&t, "head_dim", c->head_dim);
    put_int(&t, "layers", c->layers);
    put_int(&t, "warmup", r->warmup);
    put_int(&t, "repeats", r->repeats);
    put_int(&t, "seed", (long long)c->seed);
    const char *strs[][2] = {{"dtype", logt_dtype_name(c->dtype)}, {"cell", c->cell},
                             {"pass", r->pass}, {"device", logt_device_name(c->device)}};
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) {
        put(&t, ", \"%s\": ", strs[i][0]);
        put_str(&t, strs[i][1]);
    }
    put(&t, "%s", ", \"knobs\": {");
    for (int k = 0, first = 1; k < c->nknobs; k++) {
        if (is_kernel && !strcmp(c->knobs[k].key, "kernel")) continue;
        put(&t, "%s", first ? "" : ", ");
        put_str(&t, c->knobs[k].key);
        put(&t, "%s", ": ");
        put_str(&t, c->knobs[k].val);
        first = 0;
    }
    put(&t, "%s", "}, \"check\": null}");
    if (t.used >= n) buf[0] = '\0';   /* cut short: no request rather than broken JSON */
}

/* The row's times from the reply: medians, and for a kernel run its bandwidth against the
 * peer's own copy, as one_kernel_run computes them. */
static logt_status fill_row(const logt_run_spec *r, const char *kernel, const logt_peer_reply *p,
                            logt_summary_row *row, char *what, size_t nwhat)
{
    row->median_ms = run_quantile(p->times_ms, p->ntimes, 0.5);
    row->p10_ms = run_quantile(p->times_ms, p->ntimes, 0.1);
    row->p90_ms = run_quantile(p->times_ms, p->ntimes, 0.9);
    row->peak_mem_bytes = p->peak_mem_bytes;
    logt_strlcpy(row->impl, sizeof row->impl, p->impl);
    if (r->kind != LOGT_KIND_KERNEL) {
        row->tokens_per_s = (double)r->T * r->B / (row->median_ms * 1e-3);
        snprintf(what, nwhat, "median %.4g ms (p10 %.4g, p90 %.4g)", row->median_ms, row->p10_ms,
                 row->p90_ms);
        return LOGT_OK;
    }
    const logt_kernel *k = logt_kernel_find(kernel);
    if (!k)
        return LOGT_USER_FAIL(LOGT_EINVAL, "%s: kernel = %s is none of logt's kernels, whose traffic "
                              "gives the bandwidth", r->cfg.model, kernel);
    const double n = (double)r->T * r->B * r->cfg.hidden_size * logt_dtype_size(r->cfg.dtype);
    row->bytes = (k->nin + k->nout) * n;
    row->gbps = row->median_ms > 0 ? row->bytes / row->median_ms * 1e-6 : NAN;
    if (p->ncopy > 0) {
        const double copy_median = run_quantile(p->copy_ms, p->ncopy, 0.5);
        row->copy_gbps = copy_median > 0 ? 2 * n / copy_median * 1e-6 : NAN;
        row->pct_of_copy = 100 * row->gbps / row->copy_gbps;
    }
    if (p->ncopy > 0)
        snprintf(what, nwhat, "median %.4g ms, %.4g GB/s = %.1f%% of its copy", row->median_ms, row->gbps,
                 row->pct_of_copy);
    else
        snprintf(what, nwhat, "median %.4g ms, %.4g GB/s (no copy timed)", row->median_ms, row->gbps);
    return LOGT_OK;
}

logt_status one_peer_run(const logt_run_spec *r, logt_store *st, int64_t id, logt_summary_row *row,
                         char *what, size_t nwhat, int *skipped, int *interrupted, int *fatal)
{
    const char *name = logt_peer_of(r->cfg.model);
    char request[4096], kernel[64];
    request_of(r, name, request, sizeof request, kernel, sizeof kernel);
    if (!request[0])
        return LOGT_USER_FAIL(LOGT_EINVAL, "peer:%s: the run's request exceeds %zu bytes (its knobs)", name,
                              sizeof request);
    run_inputs_free();   /* the peer's process has the GPU's memory to itself */
    logt_peer_reply p;
    logt_status s = logt_peer_call(name, request, &p);
    if (s != LOGT_OK) return *fatal = 1, s;
    logt_status w = logt_store_set_str(st, id, "", "peer_command", p.command);
    if (w == LOGT_OK && p.version[0]) w = logt_store_set_str(st, id, "", "peer_version", p.version);
    if (p.outcome == PEER_INTERRUPTED) {
        *interrupted = 1;
        logt_strlcpy(what, nwhat, p.message);
    } else if (p.outcome == PEER_SKIP) {
        *skipped = 1;
        s = LOGT_USER_FAIL(LOGT_EUNSUPPORTED, "%s", p.message);
    } else if (p.outcome == PEER_FAIL) {
        s = LOGT_USER_FAIL(LOGT_EINVAL, "%s", p.message);
    } else if (p.ntimes != r->repeats || (p.ncopy != 0 && p.ncopy != p.ntimes)) {
        s = LOGT_USER_FAIL(LOGT_EINVAL, "peer:%s answered %d times_ms and %d copy_ms for repeats = %d: "
                           "an adapter times each of the repeats (and its copy, if any, as often)",
                           name, p.ntimes, p.ncopy, r->repeats);
    } else {
        s = fill_row(r, kernel, &p, row, what, nwhat);
        if (s == LOGT_OK && w == LOGT_OK) w = logt_store_write(st, id, "time_ms", p.times_ms, p.ntimes);
        if (s == LOGT_OK && w == LOGT_OK && p.ncopy > 0)
            w = logt_store_write(st, id, "copy_ms", p.copy_ms, p.ncopy);
    }
    logt_peer_reply_free(&p);
    if (w != LOGT_OK) *fatal = 1, s = w;
    return s;
}
