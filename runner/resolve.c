/* resolve.c — an experiment resolved for one backend: [S.cpu] / [S.cuda] over [S], --set
 * over both, defaults for what is not written; the kinds, models, sweep keys, run settings,
 * each model's knobs and the plots, into the fields of logt_experiment that the runs read.
 */
#include "config_internal.h"

#include <stdio.h>
#include <string.h>

#include "../models/kernels.h"

/* ---- resolving for a backend ------------------------------------------------------ */

static int from_set(const logt_entry *en) { return !strncmp(en->where, "--set", 5); }

/* The entry of key in [sec.BACKEND], else [sec]; NULL when neither has it. A --set of [sec]
 * beats the file's [sec.BACKEND] (`--set train.T=512` means T = 512 on every backend); a
 * --set of [sec.BACKEND] beats both. */
const logt_entry *cfg_get(const logt_experiment *e, const char *sec, const char *key)
{
    char with[160];
    snprintf(with, sizeof with, "%s.%s", sec, logt_device_name(e->device));
    const logt_entry *specific = cfg_find_entry(e, with, key), *general = cfg_find_entry(e, sec, key);
    if (specific && general && from_set(general) && !from_set(specific)) return general;
    return specific ? specific : general;
}

const char *cfg_getv(const logt_experiment *e, const char *sec, const char *key,
                     const char *dflt)
{
    const logt_entry *en = cfg_get(e, sec, key);
    return en ? en->value : dflt;
}

const char *logt_exp_backend(const logt_experiment *e)
{
    const logt_entry *en = cfg_find_entry(e, "experiment", "backend");
    return en ? en->value : "auto";
}

void logt_exp_name(const logt_experiment *e, char *buf, size_t n)
{
    const logt_entry *en = cfg_find_entry(e, "experiment", "name");
    if (en) {
        snprintf(buf, n, "%s", en->value);
        return;
    }
    const char *slash = strrchr(e->dir, '/');
    snprintf(buf, n, "%s", slash ? slash + 1 : e->dir);
}

int cfg_is_true(const char *s)
{
    return !strcmp(s, "true") || !strcmp(s, "yes") || !strcmp(s, "1");
}

/* zip = K1, K2, ...: the keys' lists must be of one length once resolved for the kind. */
static logt_status resolve_zip(logt_experiment *e, int kind)
{
    const char *sec = logt_kind_names[kind];
    const logt_entry *en = cfg_get(e, sec, "zip");
    if (!en) en = cfg_get(e, "sweep", "zip");
    e->zip[kind] = 0;
    if (!en) return LOGT_OK;
    logt_list l;
    LOGT_TRY(logt_list_split(en->value, ',', &l));
    const logt_list *ax = e->axis[kind];
    int first = logt_axis_index(l.v[0]);
    for (int i = 0; i < l.n; i++) {
        int a = logt_axis_index(l.v[i]);
        if (ax[a].n != ax[first].n)
            return LOGT_USER_FAIL(LOGT_EINVAL,
                                  "%s: zip = %s walks its keys together, so their lists need one "
                                  "length, but %s has %d values and %s has %d (%s runs on %s)",
                                  en->where, en->value, l.v[0], ax[first].n, l.v[i], ax[a].n, sec,
                                  e->backend);
        e->zip[kind] |= 1u << a;
    }
    return LOGT_OK;
}

/* The kinds of run, in the order listed, each once. */
static logt_status resolve_kinds(logt_experiment *e)
{
    logt_list l;
    LOGT_TRY(logt_list_split(cfg_getv(e, "experiment", "kind", "speed"), ',', &l));
    e->nkinds = 0;
    for (int i = 0; i < l.n; i++) {
        int k = !strcmp(l.v[i], "train") ? LOGT_KIND_TRAIN
                : !strcmp(l.v[i], "kernel") ? LOGT_KIND_KERNEL : LOGT_KIND_SPEED;
        int dup = 0;
        for (int j = 0; j < e->nkinds; j++) dup |= e->kinds[j] == k;
        if (!dup) e->kinds[e->nkinds++] = k;
    }
    return LOGT_OK;
}

/* [experiment] models: registry models (kernels for a kernel experiment), * for every one
 * that runs on dev. */
static logt_status resolve_models(logt_experiment *e, logt_device dev)
{
    logt_list l;
    /* a kernel experiment names kernels (models/kernels.c), the others registry models */
    const int kernels = e->kinds[0] == LOGT_KIND_KERNEL;
    const logt_entry *models = cfg_get(e, "experiment", "models");
    if (!models) {
        char known[512];
        if (kernels) logt_kernel_names(known, sizeof known);
        else logt_model_names(known, sizeof known);
        return LOGT_USER_FAIL(LOGT_EINVAL, "%s: [experiment] needs models = ... (known%s: %s; or * for "
                         "every %s that runs on the backend)", e->file, kernels ? " kernels" : "",
                         known, kernels ? "kernel" : "model");
    }
    LOGT_TRY(logt_list_split(models->value, ',', &l));
    e->models.n = 0;
    for (int i = 0; i < l.n; i++) {
        if (logt_peer_of(l.v[i])) {   /* a peer runs where its adapter says it can */
            for (int k = 0; k < e->nkinds; k++)
                if (e->kinds[k] == LOGT_KIND_TRAIN)
                    return LOGT_USER_FAIL(LOGT_EINVAL, "%s: %s in an experiment of kind = train: a peer "
                                          "times speed and kernel runs only; put it in a speed or "
                                          "kernel experiment", models->where, l.v[i]);
            LOGT_TRY(logt_peer_check(l.v[i]));
            if (e->models.n == LOGT_LIST_MAX)
                return LOGT_USER_FAIL(LOGT_EINVAL, "%s: more than %d models", models->where, LOGT_LIST_MAX);
            if (logt_list_find(&e->models, l.v[i]) < 0)
                snprintf(e->models.v[e->models.n++], LOGT_WORD, "%s", l.v[i]);
            continue;
        }
        int n = kernels ? logt_kernel_count() : logt_model_count(), found = !strcmp(l.v[i], "*");
        for (int m = 0; m < n; m++) {
            const char *name = kernels ? logt_kernel_at(m)->name : logt_model_at(m)->name;
            unsigned devices = kernels ? logt_kernel_at(m)->devices : logt_model_at(m)->devices;
            int take = !strcmp(l.v[i], "*") ? (devices & (1u << dev)) != 0 : !strcmp(l.v[i], name);
            found |= take;
            if (take && logt_list_find(&e->models, name) < 0)
                snprintf(e->models.v[e->models.n++], LOGT_WORD, "%s", name);
        }
        if (!found) {   /* kind set per backend ([experiment.cuda] kind = kernel) */
            char known[512];
            if (kernels) logt_kernel_names(known, sizeof known);
            else logt_model_names(known, sizeof known);
            return LOGT_USER_FAIL(LOGT_EINVAL, "%s: unknown %s '%s' for kind = %s on %s (known: %s)",
                                  models->where, kernels ? "kernel" : "model", l.v[i],
                                  logt_kind_names[e->kinds[0]], logt_device_name(dev), known);
        }
    }
    if (e->models.n == 0)
        return LOGT_USER_FAIL(LOGT_EINVAL, "%s: models = %s selects no %s that runs on %s",
                         models->where, models->value, kernels ? "kernel" : "model",
                         logt_device_name(dev));
    return LOGT_OK;
}

/* Each axis's list for each kind: [KIND], else [sweep], else the default. */
static logt_status resolve_axes(logt_experiment *e, logt_device dev)
{
    for (int k = 0; k < LOGT_NKIND; k++)
        for (int a = 0; a < logt_naxes; a++) {
            const char *v = cfg_getv(e, logt_kind_names[k], logt_axes[a].name, NULL);
            if (!v) v = cfg_getv(e, "sweep", logt_axes[a].name, NULL);
            if (!v) v = logt_axis_default(&logt_axes[a], dev);
            if (!*v) {
                e->axis[k][a].n = 1;
                e->axis[k][a].v[0][0] = '\0';
            } else {
                LOGT_TRY(logt_list_split(v, ',', &e->axis[k][a]));
            }
        }
    for (int kk = 0; kk < e->nkinds; kk++) LOGT_TRY(resolve_zip(e, e->kinds[kk]));
    return LOGT_OK;
}

/* [speed], [kernel] and [train] settings. */
static logt_status resolve_settings(logt_experiment *e)
{
    int64_t iv;
    logt_parse_i64(cfg_getv(e, "speed", "warmup", "1"), &iv), e->warmup[LOGT_KIND_SPEED] = (int)iv;
    logt_parse_i64(cfg_getv(e, "speed", "repeats", "5"), &iv), e->repeats[LOGT_KIND_SPEED] = (int)iv;
    logt_parse_i64(cfg_getv(e, "speed", "head_start_us", "0"), &iv), e->head_start_us = (int)iv;
    e->checksum = cfg_is_true(cfg_getv(e, "speed", "checksum", "false"));
    logt_parse_i64(cfg_getv(e, "kernel", "warmup", "3"), &iv), e->warmup[LOGT_KIND_KERNEL] = (int)iv;
    logt_parse_i64(cfg_getv(e, "kernel", "repeats", "20"), &iv), e->repeats[LOGT_KIND_KERNEL] = (int)iv;
    logt_strlcpy(e->task, sizeof e->task, cfg_getv(e, "train", "task", "adding"));
    logt_parse_i64(cfg_getv(e, "train", "steps", "200"), &iv), e->steps = (int)iv;
    logt_parse_i64(cfg_getv(e, "train", "eval_every", "50"), &iv), e->eval_every = (int)iv;
    logt_parse_i64(cfg_getv(e, "train", "eval_batches", "4"), &iv), e->eval_batches = (int)iv;
    logt_parse_i64(cfg_getv(e, "train", "test_batches", "16"), &iv), e->test_batches = (int)iv;
    logt_parse_f64(cfg_getv(e, "train", "lr", "0.01"), &e->lr);
    logt_parse_f64(cfg_getv(e, "train", "clip", "1.0"), &e->clip);
    logt_parse_f64(cfg_getv(e, "train", "solve_acc", "0"), &e->solve_acc);
    if (e->solve_acc > 1)
        return LOGT_FAIL(LOGT_EINVAL, "[train] solve_acc = %g: a validation accuracy in (0, 1] at which "
                         "a run counts as solved and stops, or 0 (off)", e->solve_acc);
    logt_parse_f64(cfg_getv(e, "train", "max_train_s", "0"), &e->max_train_s);
    logt_parse_f64(cfg_getv(e, "train", "diverge", "1e6"), &e->diverge);
    if (e->diverge != 0 && !(e->diverge > 1))
        return LOGT_FAIL(LOGT_EINVAL, "[train] diverge = %g: the factor over a run's first loss at "
                         "which it counts as diverging and fails (above 1; default 1e6), or 0 (off)",
                         e->diverge);
    e->keep_checkpoint = cfg_is_true(cfg_getv(e, "train", "keep_checkpoint", "true"));
    const char *ro = cfg_getv(e, "train", "readout", "host");
    if (strcmp(ro, "host") && strcmp(ro, "gpu"))
        return LOGT_FAIL(LOGT_EINVAL, "[train] readout = '%s': host (f64, the default) or gpu (f32, "
                         "cuda f32 models)", ro);
    e->gpu_readout = !strcmp(ro, "gpu");
    return LOGT_OK;
}

/* [train] curriculum = T1, T2, ...: increasing lengths, which need solve_acc. */
static logt_status resolve_curriculum(logt_experiment *e)
{
    e->ncurriculum = 0;
    const char *cu = cfg_getv(e, "train", "curriculum", NULL);
    if (cu) {
        logt_list l;
        LOGT_TRY(logt_list_split(cu, ',', &l));
        if (l.n > LOGT_MAX_STAGES)
            return LOGT_FAIL(LOGT_EINVAL, "[train] curriculum = %s: %d lengths, at most %d", cu, l.n,
                             LOGT_MAX_STAGES);
        for (int i = 0; i < l.n; i++) {
            int64_t t;
            logt_parse_i64(l.v[i], &t);
            if (i > 0 && t <= e->curriculum[i - 1])
                return LOGT_FAIL(LOGT_EINVAL, "[train] curriculum = %s: the lengths must increase "
                                 "(%s after %d)", cu, l.v[i], e->curriculum[i - 1]);
            e->curriculum[e->ncurriculum++] = (int)t;
        }
        if (e->solve_acc <= 0)
            return LOGT_FAIL(LOGT_EINVAL, "[train] curriculum = %s: each length is trained until it "
                             "solves, so it needs solve_acc (a validation accuracy in (0, 1])", cu);
    }
    return LOGT_OK;
}

/* knob axes: the keys of [model.M] and [model.M.BACKEND], in file order; a sweep key there
 * limits M to the values listed */
static logt_status resolve_knobs(logt_experiment *e, logt_device dev)
{
    e->nknob = e->nonly = 0;
    for (int m = 0; m < e->models.n; m++) {
        char sec[LOGT_WORD + 8], secb[LOGT_WORD + 16];
        snprintf(sec, sizeof sec, "model.%s", e->models.v[m]);
        snprintf(secb, sizeof secb, "%s.%s", sec, logt_device_name(dev));
        int per_model = 0;
        for (int i = 0; i < e->nent; i++) {
            if (strcmp(e->ent[i].section, sec) && strcmp(e->ent[i].section, secb)) continue;
            const int a = logt_axis_index(e->ent[i].key);
            if (a >= 0) {   /* a sweep key: this model runs only at the values listed */
                int seen = 0;
                for (int j = 0; j < e->nonly; j++)
                    seen |= !strcmp(e->only[j].model, e->models.v[m]) && e->only[j].axis == a;
                if (seen) continue;
                if (e->nonly == LOGT_MAX_KNOB_AXES)
                    return LOGT_USER_FAIL(LOGT_EINVAL, "%s: too many model settings", e->ent[i].where);
                logt_only *o = &e->only[e->nonly++];
                logt_strlcpy(o->model, sizeof o->model, e->models.v[m]);
                o->axis = a;
                LOGT_TRY(logt_list_split(cfg_getv(e, sec, e->ent[i].key, ""), ',', &o->vals));
                continue;
            }
            int seen = 0;
            for (int j = 0; j < e->nknob; j++)
                seen |= !strcmp(e->knob[j].model, e->models.v[m]) && !strcmp(e->knob[j].key, e->ent[i].key);
            if (seen) continue;
            if (e->nknob == LOGT_MAX_KNOB_AXES || per_model == LOGT_MAX_KNOBS)
                return LOGT_USER_FAIL(LOGT_EINVAL, "%s: too many model settings", e->ent[i].where);
            logt_knob_axis *k = &e->knob[e->nknob++];
            per_model++;
            logt_strlcpy(k->model, sizeof k->model, e->models.v[m]);
            logt_strlcpy(k->key, sizeof k->key, e->ent[i].key);
            LOGT_TRY(logt_list_split(cfg_getv(e, sec, k->key, ""), ',', &k->vals));
        }
    }
    return LOGT_OK;
}

/* plots: every [plot.P] or [plot.P.BACKEND] of this backend, in file order */
static logt_status resolve_plots(logt_experiment *e, logt_device dev)
{
    e->nplot = 0;
    for (int i = 0; i < e->nent; i++) {
        char name[128], backend[16];
        if (cfg_parse_section(e->ent[i].section, name, sizeof name, backend, sizeof backend) != S_PLOT)
            continue;
        if (*backend && strcmp(backend, logt_device_name(dev))) continue;
        int seen = 0;
        for (int j = 0; j < e->nplot; j++) seen |= !strcmp(e->plot[j].name, name);
        if (!seen) LOGT_TRY(cfg_resolve_plot(e, name));
    }
    return LOGT_OK;
}

/* A --set into [model.M] or [model.M.BACKEND] that no run of this sweep reads (M not among
 * its models, or another backend) is an error, not a setting silently ignored. */
static logt_status check_model_sets(const logt_experiment *e, logt_device dev)
{
    for (int i = 0; i < e->nent; i++) {
        const logt_entry *en = &e->ent[i];
        char name[LOGT_WORD + 8], backend[16];
        if (strncmp(en->where, "--set ", 6) ||
            cfg_parse_section(en->section, name, sizeof name, backend, sizeof backend) != S_MODEL)
            continue;
        if (logt_list_find(&e->models, name) < 0) {
            char known[512] = "";
            size_t used = 0;
            for (int m = 0; m < e->models.n && used < sizeof known; m++)
                used += (size_t)snprintf(known + used, sizeof known - used, "%s%s", m ? ", " : "",
                                         e->models.v[m]);
            return LOGT_USER_FAIL(LOGT_EINVAL, "%s: %s is not among this experiment's models (%s): "
                                  "the setting would change no run. HINT: add it with --set "
                                  "experiment.models=%s,%s, or leave the setting out", en->where,
                                  name, known, known, name);
        }
        if (*backend && strcmp(backend, logt_device_name(dev)))
            return LOGT_USER_FAIL(LOGT_EINVAL, "%s: this sweep runs on %s, and [%s] is read on %s "
                                  "only: the setting would change no run. HINT: set [model.%s] "
                                  "instead, or run with --backend %s", en->where,
                                  logt_device_name(dev), en->section, backend, name, backend);
    }
    return LOGT_OK;
}

logt_status logt_exp_resolve(logt_experiment *e, logt_device dev)
{
    e->device = dev;
    logt_exp_name(e, e->name, sizeof e->name);
    logt_strlcpy(e->description, sizeof e->description, cfg_getv(e, "experiment", "description", ""));
    logt_strlcpy(e->backend, sizeof e->backend, logt_device_name(dev));

    LOGT_TRY(resolve_kinds(e));
    LOGT_TRY(resolve_models(e, dev));
    LOGT_TRY(resolve_axes(e, dev));
    LOGT_TRY(resolve_settings(e));
    LOGT_TRY(resolve_curriculum(e));
    LOGT_TRY(resolve_knobs(e, dev));
    LOGT_TRY(check_model_sets(e, dev));
    return resolve_plots(e, dev);
}
