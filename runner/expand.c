/* expand.c — the sweep expanded into its runs: every point of the sweep keys (crossed, or
 * walked together where `zip` says) and of each model's knobs, as a logt_run_spec with its
 * canonical key, label and estimated cost.
 */
#include "config_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The sweep keys a kind of run uses; the others keep their first value. Training has
 * no pass (and ignores input_size: its duplicates are dropped by key); a kernel sees
 * only T, C = B·D, dtype and seed. */
static int axis_used(int kind, int a)
{
    if (kind == LOGT_KIND_TRAIN) return a != AX_PASS;
    if (kind == LOGT_KIND_KERNEL)
        return a == AX_T || a == AX_B || a == AX_D || a == AX_DTYPE || a == AX_SEED;
    return 1;
}

static int cmp_knob(const void *a, const void *b)
{
    return strcmp(((const logt_knob *)a)->key, ((const logt_knob *)b)->key);
}

static void fill_spec(const logt_experiment *e, int kind, const char *model, const int *ai,
                      const logt_knob_axis *const *kx, const int *ki, int nk, logt_run_spec *r)
{
    const logt_list *ax = e->axis[kind];
    int64_t T, B, D, I, H, L;
    uint64_t seed;
    logt_parse_i64(ax[AX_T].v[ai[AX_T]], &T);
    logt_parse_i64(ax[AX_B].v[ai[AX_B]], &B);
    logt_parse_i64(ax[AX_D].v[ai[AX_D]], &D);
    logt_parse_i64(ax[AX_INPUT].v[ai[AX_INPUT]], &I);
    logt_parse_i64(ax[AX_HEAD].v[ai[AX_HEAD]], &H);
    logt_parse_i64(ax[AX_LAYERS].v[ai[AX_LAYERS]], &L);
    logt_parse_u64(ax[AX_SEED].v[ai[AX_SEED]], &seed);
    if (I == 0) I = D;

    memset(r, 0, sizeof *r);
    r->kind = kind;
    logt_model_cfg_init(&r->cfg, model, e->device, (int)I, (int)D);
    logt_dtype_parse(ax[AX_DTYPE].v[ai[AX_DTYPE]], &r->cfg.dtype);
    r->cfg.head_dim = (int)H;
    r->cfg.layers = (int)L;
    r->cfg.seed = seed;
    logt_strlcpy(r->cfg.cell, sizeof r->cfg.cell, ax[AX_CELL].v[ai[AX_CELL]]);
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
    r->T = (int)T;
    r->B = (int)B;
    const char *dtype = logt_dtype_name(r->cfg.dtype);
    double per_token = (double)D * (double)(D + I) * (double)L;
    char extra[256] = "";   /* for the label only, which cuts it short anyway */
    size_t eu = 0;
    for (int a = AX_INPUT; a < LOGT_NAXIS && eu < sizeof extra; a++)
        if (a != AX_PASS && axis_used(kind, a) && ax[a].n > 1)
            eu += (size_t)snprintf(extra + eu, sizeof extra - eu, " %s=%s", logt_axis_names[a],
                                   ax[a].v[ai[a]]);
    for (int k = 0; k < nk && eu < sizeof extra; k++)
        eu += (size_t)snprintf(extra + eu, sizeof extra - eu, " %s=%s", kx[k]->key,
                               kx[k]->vals.v[ki[k]]);
    if (kind == LOGT_KIND_SPEED) {
        logt_strlcpy(r->pass, sizeof r->pass, ax[AX_PASS].v[ai[AX_PASS]]);
        r->warmup = e->warmup[kind];
        r->repeats = e->repeats[kind];
        r->head_start_us = e->head_start_us;
        char hs[40] = "";   /* only when set: keys of runs without one stay as they were */
        if (r->head_start_us) snprintf(hs, sizeof hs, " head_start_us=%d", r->head_start_us);
        snprintf(r->key, sizeof r->key,
                 "speed model=%s backend=%s T=%d B=%d D=%d input_size=%d head_dim=%d layers=%d "
                 "dtype=%s seed=%llu cell=%s pass=%s knobs=%s warmup=%d repeats=%d%s",
                 model, e->backend, r->T, r->B, (int)D, (int)I, (int)H, (int)L, dtype,
                 (unsigned long long)seed, r->cfg.cell, r->pass, r->knobs, r->warmup, r->repeats, hs);
        snprintf(r->label, sizeof r->label, "%s T=%d B=%d D=%d %s%.150s", model, r->T, r->B, (int)D,
                 r->pass, extra);
        r->cost = (double)T * (double)B * per_token * (!strcmp(r->pass, "fwdbwd") ? 3 : 1) *
                  (r->warmup + r->repeats) + 1e6;
    } else if (kind == LOGT_KIND_KERNEL) {
        /* only T, B, D, dtype, seed matter: the key leaves the rest out */
        r->warmup = e->warmup[kind];
        r->repeats = e->repeats[kind];
        snprintf(r->key, sizeof r->key,
                 "kernel model=%s backend=%s T=%d B=%d D=%d dtype=%s seed=%llu warmup=%d repeats=%d",
                 model, e->backend, r->T, r->B, (int)D, dtype, (unsigned long long)seed, r->warmup,
                 r->repeats);
        snprintf(r->label, sizeof r->label, "%s T=%d C=%lld (B=%d D=%d)%.150s", model, r->T,
                 (long long)B * D, r->B, (int)D, extra);
        r->cost = (double)T * (double)B * (double)D * 2 * (r->warmup + r->repeats) + 1e6;
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
        snprintf(r->key, sizeof r->key,
                 "train model=%s backend=%s task=%s T=%d B=%d D=%d head_dim=%d layers=%d dtype=%s "
                 "seed=%llu cell=%s knobs=%s steps=%d lr=%.17g clip=%.17g eval_every=%d "
                 "eval_batches=%d%s",
                 model, e->backend, r->task, r->T, r->B, (int)D, (int)H, (int)L, dtype,
                 (unsigned long long)seed, r->cfg.cell, r->knobs, r->steps, r->lr, r->clip,
                 r->eval_every, r->eval_batches, solve);
        snprintf(r->label, sizeof r->label, "%s train %s T=%d B=%d D=%d%.150s", model, r->task, r->T,
                 r->B, (int)D, extra);
        r->cost = (double)T * (double)B * per_token *
                      (3.0 * r->steps + (double)r->eval_batches * r->steps / r->eval_every) + 1e6;
    }
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
    for (int a = 0; a < LOGT_NAXIS && lead < 0; a++)
        if ((zip >> a & 1) && axis_used(kind, a)) lead = a;
    for (int a = LOGT_NAXIS - 1; a >= 0; a--) {
        if (!axis_used(kind, a) || ((zip >> a & 1) && a != lead)) continue;
        int wrapped = ++ai[a] == ax[a].n;
        if (wrapped) ai[a] = 0;
        if (a == lead)
            for (int b = 0; b < LOGT_NAXIS; b++)
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
            int ai[LOGT_NAXIS] = {0};
            do {
                for (int m = 0; s == LOGT_OK && m < e->models.n; m++) {
                    fill_spec(e, kind, e->models.v[m], ai, NULL, NULL, 0, r);
                    s = push_spec(&runs, &count, &cap, r);
                }
            } while (s == LOGT_OK && !next_point(e, kind, ai));
            continue;
        }
        for (int m = 0; s == LOGT_OK && m < e->models.n; m++) {
            const logt_knob_axis *kx[LOGT_MAX_KNOBS];
            int nk = 0;
            for (int j = 0; j < e->nknob; j++)
                if (!strcmp(e->knob[j].model, e->models.v[m])) kx[nk++] = &e->knob[j];
            int ai[LOGT_NAXIS] = {0}, ki[LOGT_MAX_KNOBS] = {0};
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
    if (s != LOGT_OK) {
        free(runs);
        return s;
    }
    *out = runs;
    *n = count;
    return LOGT_OK;
}
