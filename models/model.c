/* model.c — what every model shares: its configuration and the one check of it against the
 * model's declared capabilities, knobs, and parameter layouts. */
#include "model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../kernels/scan_multi.h"


void logt_model_cfg_init(logt_model_cfg *cfg, const char *model, logt_device dev, int input_size,
                         int hidden_size)
{
    memset(cfg, 0, sizeof *cfg);
    snprintf(cfg->model, sizeof cfg->model, "%s", model);
    cfg->device = dev;
    cfg->dtype = logt_param_dtype(dev);
    cfg->input_size = input_size;
    cfg->hidden_size = hidden_size;
    cfg->layers = 1;
    cfg->seed = 1;
}

logt_dtype logt_param_dtype(logt_device dev) { return dev == LOGT_CPU ? LOGT_F64 : LOGT_F32; }

logt_status logt_cfg_set_knob(logt_model_cfg *cfg, const char *key, const char *val)
{
    if (strlen(key) >= sizeof cfg->knobs[0].key || strlen(val) >= sizeof cfg->knobs[0].val)
        return LOGT_FAIL(LOGT_EINVAL, "model setting '%s = %s' is too long", key, val);
    for (int i = 0; i < cfg->nknobs; i++)
        if (!strcmp(cfg->knobs[i].key, key)) {
            snprintf(cfg->knobs[i].val, sizeof cfg->knobs[i].val, "%s", val);
            return LOGT_OK;
        }
    if (cfg->nknobs == LOGT_MAX_KNOBS)
        return LOGT_FAIL(LOGT_EINVAL, "more than %d model settings", LOGT_MAX_KNOBS);
    logt_knob *k = &cfg->knobs[cfg->nknobs++];
    snprintf(k->key, sizeof k->key, "%s", key);
    snprintf(k->val, sizeof k->val, "%s", val);
    return LOGT_OK;
}

const char *logt_cfg_knob(const logt_model_cfg *cfg, const char *key, const char *dflt)
{
    for (int i = 0; i < cfg->nknobs; i++)
        if (!strcmp(cfg->knobs[i].key, key)) return cfg->knobs[i].val;
    return dflt;
}

void logt_layout_add(logt_layout *l, const char *name, double init_bound, int ndim, int64_t a,
                     int64_t b, int64_t c)
{
    if (l->n == LOGT_MAX_SLICES) return;
    logt_slice *s = &l->s[l->n++];
    snprintf(s->name, sizeof s->name, "%s", name);
    s->init_bound = init_bound;
    s->ndim = ndim;
    s->shape[0] = a;
    s->shape[1] = ndim > 1 ? b : 1;
    s->shape[2] = ndim > 2 ? c : 1;
    s->numel = s->shape[0] * s->shape[1] * s->shape[2];
    s->offset = l->numel;
    s->keep = s->nkeep = 0, s->neg = -1;
    l->numel += s->numel;
}

void logt_layout_memory_gate(logt_layout *l, const char *name, int64_t keep, int64_t n, int64_t neg)
{
    for (int i = 0; i < l->n; i++)
        if (!strcmp(l->s[i].name, name)) l->s[i].keep = keep, l->s[i].nkeep = n, l->s[i].neg = neg;
}

const logt_slice *logt_layout_find(const logt_layout *l, const char *name)
{
    for (int i = 0; i < l->n; i++)
        if (!strcmp(l->s[i].name, name)) return &l->s[i];
    return NULL;
}

logt_tensor logt_model_param(const logt_model *m, const logt_tensor *flat, const char *name)
{
    const logt_slice *s = logt_layout_find(&m->layout, name);
    if (!s) {
        logt_tensor none;
        memset(&none, 0, sizeof none);
        return none;
    }
    return logt_tensor_view(flat, s->offset, s->ndim, s->shape);
}

/* ---- the one check of a configuration against the model's capabilities ---------------- */

/* "a, b or c" of the names whose bits are set in `set`, into buf. */
static const char *name_list(char *buf, size_t n, unsigned set, int count,
                             const char *(*name)(int))
{
    int total = 0, k = 0;
    for (int i = 0; i < count; i++) total += !!(set & LOGT_BIT(i));
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < count && used < n; i++)
        if (set & LOGT_BIT(i)) {
            const char *sep = !k ? "" : k == total - 1 ? " or " : ", ";
            used += (size_t)snprintf(buf + used, n - used, "%s%s", sep, name(i));
            k++;
        }
    return buf;
}
static const char *device_name(int d) { return logt_device_name((logt_device)d); }
static const char *dtype_name(int d) { return logt_dtype_name((logt_dtype)d); }

static logt_status check_device_dtype(const logt_model_ops *ops, const logt_model_cfg *cfg)
{
    char list[64];
    const char *dev = logt_device_name(cfg->device);
    if (!(ops->devices & LOGT_BIT(cfg->device)))
        return LOGT_FAIL(LOGT_EUNSUPPORTED, "model %s does not run on the %s backend (it runs on %s)",
                         ops->name, dev,
                         name_list(list, sizeof list, ops->devices, LOGT_CUDA + 1, device_name));
    const unsigned dts = ops->dtypes[cfg->device];
    if (!(dts & LOGT_BIT(cfg->dtype))) {
        name_list(list, sizeof list, dts, LOGT_NDTYPES, dtype_name);
        if (!(dts & (dts - 1)))   /* one dtype */
            return LOGT_FAIL(LOGT_EUNSUPPORTED, "%s on %s computes in %s, not %s: set dtype = %s",
                             ops->name, dev, list, logt_dtype_name(cfg->dtype), list);
        return LOGT_FAIL(LOGT_EUNSUPPORTED, "%s on %s takes %s activations, not %s: set dtype = %s",
                         ops->name, dev, list, logt_dtype_name(cfg->dtype), list);
    }
    return LOGT_OK;
}

static logt_status check_heads(const logt_model_ops *ops, const logt_model_cfg *cfg)
{
    const int D = cfg->hidden_size, d = cfg->head_dim;
    if (!ops->heads && d != 0 && d != D) {
        char heads[128] = "";
        size_t used = 0;
        for (int i = 0; i < logt_model_count() && used < sizeof heads; i++)
            if (logt_model_at(i)->heads)
                used += (size_t)snprintf(heads + used, sizeof heads - used, "%s%s", used ? ", " : "",
                                         logt_model_at(i)->name);
        return LOGT_FAIL(LOGT_EINVAL, "%s has one head: head_dim must be 0 or D = %d, not %d "
                         "(the models with heads: %s)", ops->name, D, d, heads);
    }
    if (d < 0 || (d > 0 && D % d != 0)) {
        char divs[256];
        size_t used = 0;
        for (int k = 1; k <= D && used < sizeof divs - 16; k++)
            if (D % k == 0)
                used += (size_t)snprintf(divs + used, sizeof divs - used, "%s%d", used ? ", " : "", k);
        return LOGT_FAIL(LOGT_EINVAL, "head dim %d does not divide the hidden size D = %d: choose "
                         "one of %s (or 0 for one head of dh = D)", d, D, divs);
    }
    return LOGT_OK;
}

int logt_model_cell(const logt_model_ops *ops, const logt_model_cfg *cfg)
{
    if (!ops->cells) return cfg->cell[0] ? -1 : 0;
    if (!cfg->cell[0]) return 0;
    for (int i = 0; ops->cells[i]; i++)
        if (!strcmp(cfg->cell, ops->cells[i])) return i;
    return -1;
}

static logt_status check_cell(const logt_model_ops *ops, const logt_model_cfg *cfg)
{
    if (logt_model_cell(ops, cfg) >= 0) return LOGT_OK;
    if (!ops->cells)
        return LOGT_FAIL(LOGT_EINVAL, "%s has no choice of cell: leave cell empty, not '%s'",
                         ops->name, cfg->cell);
    char list[128];
    size_t used = (size_t)snprintf(list, sizeof list, "%s (the default, also when cell is empty)",
                                   ops->cells[0]);
    for (int i = 1; ops->cells[i] && used < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s",
                                 ops->cells[i + 1] ? ", " : " and ", ops->cells[i]);
    return LOGT_FAIL(LOGT_EINVAL, "%s has no cell '%s': the valid cells are %s", ops->name,
                     cfg->cell, list);
}

/* The models whose ops have `segments`, as "a, b and c". */
static void segment_models(char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < logt_model_count() && used < n; i++)
        if (logt_model_at(i)->segments)
            used += (size_t)snprintf(buf + used, n - used, "%s%s", used ? ", " : "", logt_model_at(i)->name);
}

static logt_status check_knobs(const logt_model_ops *ops, const logt_model_cfg *cfg)
{
    for (int i = 0; i < cfg->nknobs; i++) {
        int ok = 0;
        for (const char *const *k = ops->knobs; k && *k; k++)
            if (!strcmp(*k, cfg->knobs[i].key)) ok = 1;
        for (const char *const *k = logt_net_knobs; *k; k++)
            if (!strcmp(*k, cfg->knobs[i].key)) ok = 1;
        if (!ok) {
            char list[256];
            size_t used = 0;
            for (const char *const *k = ops->knobs; k && *k && used < sizeof list; k++)
                used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "", *k);
            for (const char *const *k = logt_net_knobs; *k && used < sizeof list; k++)
                used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "", *k);
            return LOGT_FAIL(LOGT_EINVAL, "model %s has no setting '%s' (it takes: %s)", ops->name,
                             cfg->knobs[i].key, list);
        }
    }
    int K, wave;
    LOGT_TRY(logt_net_recompute_of(cfg, &K));
    LOGT_TRY(logt_net_wavefront_of(cfg, &wave));
    if ((K || wave) && !ops->segments) {
        char list[256];
        segment_models(list, sizeof list);
        return LOGT_FAIL(LOGT_EUNSUPPORTED, "model %s cannot run its sequence in segments: leave "
                         "%s = off (the models that can: %s)", ops->name,
                         K ? "recompute" : "layers_wavefront", list);
    }
    return LOGT_OK;
}

logt_status logt_model_check(const logt_model_ops *ops, const logt_model_cfg *cfg)
{
    LOGT_TRY(check_device_dtype(ops, cfg));
    if (cfg->input_size < 1)
        return LOGT_FAIL(LOGT_EINVAL, "input size %d: it must be at least 1", cfg->input_size);
    if (cfg->hidden_size < 1)
        return LOGT_FAIL(LOGT_EINVAL, "hidden size D = %d: it must be at least 1", cfg->hidden_size);
    LOGT_TRY(check_heads(ops, cfg));
    LOGT_TRY(check_cell(ops, cfg));
    return check_knobs(ops, cfg);
}

logt_status logt_model_layout(const logt_model_ops *ops, const logt_model_cfg *cfg, logt_layout *out)
{
    LOGT_TRY(logt_model_check(ops, cfg));
    memset(out, 0, sizeof *out);
    return ops->layout(cfg, out);
}

logt_status logt_model_gpus(const logt_model_cfg *cfg, int cuda, int *out)
{
    const char *v = logt_cfg_knob(cfg, "gpus", "1");
    char *end;
    const long n = strtol(v, &end, 10);
    if (!*v || *end || n < 1 || n > SCAN_MULTI_MAX)
        return LOGT_FAIL(LOGT_EINVAL, "%s: gpus = '%s': the GPUs the sequence is split over in time, "
                         "a whole number from 1 to %d", cfg->model, v, SCAN_MULTI_MAX);
    if (n > 1 && cfg->device != LOGT_CPU && !cuda)
        return LOGT_FAIL(LOGT_EUNSUPPORTED, "%s: gpus = %ld on %s: its sequence splits in time on the "
                         "cpu only (the float64 pieces reference; on cuda, deer's does); use gpus = 1 "
                         "there, or the cpu backend", cfg->model, n, logt_device_name(cfg->device));
    *out = (int)n;
    return LOGT_OK;
}
