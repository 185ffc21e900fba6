/* expand.c — the sweep expanded into its runs: every point of the sweep keys (crossed, or
 * walked together where `zip` says) and of each model's knobs, as a logt_run_spec with its
 * canonical key, label and estimated cost.
 */
#include "config_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Does kind vary axis a? The others keep their first value. */
static int axis_used(int kind, int a) { return logt_axes[a].kinds >> kind & 1; }

static int cmp_knob(const void *a, const void *b)
{
    return strcmp(((const logt_knob *)a)->key, ((const logt_knob *)b)->key);
}

static void fill_spec(const logt_experiment *e, int kind, const char *model, const int *ai,
                      const logt_knob_axis *const *kx, const int *ki, int nk, logt_run_spec *r)
{
    const logt_list *ax = e->axis[kind];
    memset(r, 0, sizeof *r);
    r->kind = kind;
    logt_model_cfg_init(&r->cfg, model, e->device, 0, 0);
    for (int a = 0; a < logt_naxes; a++) logt_axis_set(&logt_axes[a], r, ax[a].v[ai[a]]);
    logt_knob knobs[LOGT_MAX_KNOBS];
    for (int k = 0; k < nk; k++) {
        logt_strlcpy(knobs[k].key, sizeof knobs[k].key, kx[k]->key);
        logt_strlcpy(knobs[k].val, sizeof knobs[k].val, kx[k]->vals.v[ki[k]]);
        logt_cfg_set_knob(&r->cfg, knobs[k].key, knobs[k].val);
    }
    qsort(knobs, (size_t)nk, sizeof knobs[0], cmp_knob);
    size_t used = 0;   /* 16 knobs of at most 31 + 63 characters fit: nothing is cut */
    for (int k = 0; k < nk && used < sizeof r->knobs; k++)
        used += (size_t)snprintf(r->knobs + used, sizeof r->knobs - used, "%s%s=%s", k ? "," : "",
                                 knobs[k].key, knobs[k].val);
    const double T = r->T, B = r->B, D = r->cfg.hidden_size, I = r->cfg.input_size;
    double per_token = D * (D + I) * r->cfg.layers;
    char extra[256] = "";   /* for the label only, which cuts it short anyway */
    size_t eu = 0;
    for (int a = 0; a < logt_naxes && eu < sizeof extra; a++)
        if (logt_axes[a].label && axis_used(kind, a) && ax[a].n > 1)
            eu += (size_t)snprintf(extra + eu, sizeof extra - eu, " %s=%s", logt_axes[a].name,
                                   ax[a].v[ai[a]]);
    for (int k = 0; k < nk && eu < sizeof extra; k++)
        eu += (size_t)snprintf(extra + eu, sizeof extra - eu, " %s=%s", kx[k]->key,
                               kx[k]->vals.v[ki[k]]);
    char axes[256] = "";   /* the axes' fields of the key; LOGT_KEY_IF_SET ones go at its end */
    if (kind == LOGT_KIND_SPEED) {
        r->warmup = e->warmup[kind];
        r->repeats = e->repeats[kind];
        r->head_start_us = e->head_start_us;
        r->checksum = e->checksum;
        char hs[64] = "";   /* only when set: keys of runs without them stay as they were */
        if (r->head_start_us) snprintf(hs, sizeof hs, " head_start_us=%d", r->head_start_us);
        if (r->checksum) logt_strlcpy(hs + strlen(hs), sizeof hs - strlen(hs), " checksum=1");
        logt_axes_key(kind, 0, r, axes, sizeof axes);
        snprintf(r->key, sizeof r->key, "speed model=%s backend=%s%s knobs=%s warmup=%d repeats=%d%s",
                 model, e->backend, axes, r->knobs, r->warmup, r->repeats, hs);
        snprintf(r->label, sizeof r->label, "%s T=%d B=%d D=%d %s%.150s", model, r->T, r->B,
                 r->cfg.hidden_size, r->pass, extra);
        r->cost = T * B * per_token * (!strcmp(r->pass, "fwdbwd") ? 3 : 1) *
                  (r->warmup + r->repeats) + 1e6;
    } else if (kind == LOGT_KIND_KERNEL) {
        /* only T, B, D, dtype, seed matter: the key leaves the rest out */
        r->pass[0] = '\0';
        r->warmup = e->warmup[kind];
        r->repeats = e->repeats[kind];
        logt_axes_key(kind, 0, r, axes, sizeof axes);
        /* a peer's knobs choose what it runs; logt's kernels have none */
        char pk[sizeof r->knobs + 8] = "";
        if (logt_peer_of(model)) snprintf(pk, sizeof pk, " knobs=%s", r->knobs);
        snprintf(r->key, sizeof r->key, "kernel model=%s backend=%s%s%s warmup=%d repeats=%d", model,
                 e->backend, axes, pk, r->warmup, r->repeats);
        snprintf(r->label, sizeof r->label, "%s T=%d C=%lld (B=%d D=%d)%.150s", model, r->T,
                 (long long)r->B * r->cfg.hidden_size, r->B, r->cfg.hidden_size, extra);
        r->cost = T * B * D * 2 * (r->warmup + r->repeats) + 1e6;
    } else {
        snprintf(r->pass, sizeof r->pass, "train");
        logt_strlcpy(r->task, sizeof r->task, e->task);
        r->steps = e->steps;
        r->eval_every = e->eval_every;
        r->eval_batches = e->eval_batches;
        r->test_batches = e->test_batches;   /* not in the key: it does not change the training */
        r->lr = e->lr;
        r->clip = e->clip;
        r->solve_acc = e->solve_acc;
        r->max_train_s = e->max_train_s;   /* not in the key: a budget, not a different training */
        r->keep_checkpoint = e->keep_checkpoint;   /* not in the key either */
        r->diverge = e->diverge;   /* nor this: it stops a training, never changes one */
        r->gpu_readout = e->gpu_readout;
        char solve[256] = "";   /* in the key only when set: keys of earlier runs stay as they were */
        if (r->solve_acc > 0) snprintf(solve, sizeof solve, " solve_acc=%.17g", r->solve_acc);
        if (r->gpu_readout) snprintf(solve + strlen(solve), sizeof solve - strlen(solve), " readout=gpu");
        /* the curriculum's lengths below this run's T: at the shortest T of a sweep there are none */
        r->ncurriculum = 0;
        for (int i = 0; i < e->ncurriculum && e->curriculum[i] < r->T; i++) {
            r->curriculum[r->ncurriculum++] = e->curriculum[i];
            snprintf(solve + strlen(solve), sizeof solve - strlen(solve), "%s%d",
                     i ? "," : " curriculum=", e->curriculum[i]);
        }
        logt_axes_key(kind, 0, r, axes, sizeof axes);
        snprintf(r->key, sizeof r->key,
                 "train model=%s backend=%s task=%s%s knobs=%s steps=%d lr=%.17g clip=%.17g "
                 "eval_every=%d eval_batches=%d%s",
                 model, e->backend, r->task, axes, r->knobs, r->steps, r->lr, r->clip, r->eval_every,
                 r->eval_batches, solve);
        snprintf(r->label, sizeof r->label, "%s train %s T=%d B=%d D=%d%.150s", model, r->task, r->T,
                 r->B, r->cfg.hidden_size, extra);
        r->cost = T * B * per_token *
                      (3.0 * r->steps + (double)r->eval_batches * r->steps / r->eval_every) + 1e6;
    }
    logt_axes_key(kind, 1, r, r->key, sizeof r->key);
}

/* Add r to runs unless the same key is there already (training ignores input_size, a
 * kernel everything but T, B, D, dtype and seed): keep one. */
static logt_status push_spec(logt_run_spec **runs, int *count, int *cap, const logt_run_spec *r)
{
    for (int j = 0; j < *count; j++)
        if (!strcmp((*runs)[j].key, r->key)) return LOGT_OK;
    if (*count == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        logt_run_spec *grown = realloc(*runs, (size_t)*cap * sizeof *grown);
        if (!grown) return LOGT_USER_FAIL(LOGT_ENOMEM, "out of host memory");
        *runs = grown;
    }
    (*runs)[(*count)++] = *r;
    return LOGT_OK;
}

/* The odometer over the sweep keys, last key fastest: advance ai, return 1 when it
 * wraps around (the sweep is done). Keys the kind does not use stay at their first
 * value; zipped keys move as one, at the place of the first of them. */
static int next_point(const logt_experiment *e, int kind, int *ai)
{
    const logt_list *ax = e->axis[kind];
    const unsigned zip = e->zip[kind];
    int lead = -1;
    for (int a = 0; a < logt_naxes && lead < 0; a++)
        if ((zip >> a & 1) && axis_used(kind, a)) lead = a;
    for (int a = logt_naxes - 1; a >= 0; a--) {
        if (!axis_used(kind, a) || ((zip >> a & 1) && a != lead)) continue;
        int wrapped = ++ai[a] == ax[a].n;
        if (wrapped) ai[a] = 0;
        if (a == lead)
            for (int b = 0; b < logt_naxes; b++)
                if (zip >> b & 1) ai[b] = ai[a];
        if (!wrapped) return 0;
    }
    return 1;
}

/* Does the sweep point ai lie within what [model.M] allows of its sweep keys? */
static int allowed(const logt_experiment *e, int kind, const char *model, const int *ai)
{
    for (int j = 0; j < e->nonly; j++) {
        const logt_only *o = &e->only[j];
        if (strcmp(o->model, model)) continue;
        const char *v = e->axis[kind][o->axis].v[ai[o->axis]];
        int in = 0;
        for (int k = 0; k < o->vals.n && !in; k++) in = !strcmp(o->vals.v[k], v);
        if (!in) return 0;
    }
    return 1;
}

/* A model that a sweep key of its [model.M] section leaves without a run is an error naming
 * that setting: otherwise the sweep silently skips it (or, with one model, writes nothing). */
static logt_status model_has_runs(const logt_experiment *e, const char *model, const logt_run_spec *runs,
                                  int n)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(runs[i].cfg.model, model)) return LOGT_OK;
    for (int j = 0; j < e->nonly; j++) {
        const logt_only *o = &e->only[j];
        if (strcmp(o->model, model)) continue;
        const char *name = logt_axes[o->axis].name, *where = "?", *value = "";
        char sec[LOGT_WORD + 8];
        snprintf(sec, sizeof sec, "model.%s", model);
        for (int i = 0; i < e->nent; i++)
            if (!strcmp(e->ent[i].key, name) && !strncmp(e->ent[i].section, sec, strlen(sec)))
                where = e->ent[i].where, value = e->ent[i].value;
        char have[512] = "";
        size_t used = 0;
        for (int k = 0; k < e->nkinds; k++) {
            const logt_list *l = &e->axis[e->kinds[k]][o->axis];
            for (int v = 0; v < l->n && used < sizeof have; v++)
                used += (size_t)snprintf(have + used, sizeof have - used, "%s%s", used ? ", " : "", l->v[v]);
        }
        return LOGT_USER_FAIL(LOGT_EINVAL,
                              "%s: %s = %s leaves %s no run: the sweep's %s is %s. HINT: a sweep key "
                              "in [model.%s] runs %s only at those of the sweep's values; to run "
                              "%s = %s, set it in [sweep] (--set sweep.%s=...)",
                              where, name, value, model, name, have, model, model, name, value, name);
    }
    return LOGT_OK;
}

/* A kernel run of model at sweep point ai for each combination of its knobs (only a peer has
 * knobs among a kernel experiment's models). */
static logt_status push_kernel_runs(const logt_experiment *e, const char *model, const int *ai,
                                    logt_run_spec *r, logt_run_spec **runs, int *count, int *cap)
{
    const logt_knob_axis *kx[LOGT_MAX_KNOBS];
    int nk = 0, ki[LOGT_MAX_KNOBS] = {0};
    for (int j = 0; j < e->nknob; j++)
        if (!strcmp(e->knob[j].model, model)) kx[nk++] = &e->knob[j];
    for (;;) {
        fill_spec(e, LOGT_KIND_KERNEL, model, ai, kx, ki, nk, r);
        LOGT_TRY(push_spec(runs, count, cap, r));
        int k = nk - 1;
        for (; k >= 0 && ++ki[k] == kx[k]->vals.n; k--) ki[k] = 0;
        if (k < 0) return LOGT_OK;
    }
}

logt_status logt_exp_runs(const logt_experiment *e, logt_run_spec **out, int *n)
{
    *out = NULL;
    *n = 0;
    int cap = 0, count = 0;
    logt_run_spec *runs = NULL, *r = malloc(sizeof *r);
    logt_status s = r ? LOGT_OK : LOGT_USER_FAIL(LOGT_ENOMEM, "out of host memory");
    for (int kk = 0; s == LOGT_OK && kk < e->nkinds; kk++) {
        int kind = e->kinds[kk];
        if (kind == LOGT_KIND_KERNEL) {
            /* the kernels innermost: one shape's inputs serve every kernel in a row */
            int ai[LOGT_MAX_AXES] = {0};
            do {
                for (int m = 0; s == LOGT_OK && m < e->models.n; m++)
                    if (allowed(e, kind, e->models.v[m], ai))
                        s = push_kernel_runs(e, e->models.v[m], ai, r, &runs, &count, &cap);
            } while (s == LOGT_OK && !next_point(e, kind, ai));
            continue;
        }
        for (int m = 0; s == LOGT_OK && m < e->models.n; m++) {
            const logt_knob_axis *kx[LOGT_MAX_KNOBS];
            int nk = 0;
            for (int j = 0; j < e->nknob; j++)
                if (!strcmp(e->knob[j].model, e->models.v[m])) kx[nk++] = &e->knob[j];
            int ai[LOGT_MAX_AXES] = {0}, ki[LOGT_MAX_KNOBS] = {0};
            for (;;) {
                fill_spec(e, kind, e->models.v[m], ai, kx, ki, nk, r);
                if (allowed(e, kind, e->models.v[m], ai)
                    && (s = push_spec(&runs, &count, &cap, r)) != LOGT_OK)
                    break;
                /* knobs innermost, then the sweep keys */
                int carry = 1;
                for (int k = nk - 1; k >= 0 && carry; k--) {
                    if (++ki[k] < kx[k]->vals.n) carry = 0;
                    else ki[k] = 0;
                }
                if (carry && next_point(e, kind, ai)) break;
            }
        }
    }
    free(r);
    for (int m = 0; s == LOGT_OK && m < e->models.n; m++) s = model_has_runs(e, e->models.v[m], runs, count);
    if (s != LOGT_OK) {
        free(runs);
        return s;
    }
    *out = runs;
    *n = count;
    return LOGT_OK;
}
