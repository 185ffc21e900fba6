/* model.c — configuration knobs and parameter layouts shared by every model. */
#include "model.h"

#include <stdio.h>
#include <string.h>

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

logt_status logt_cfg_require_param_dtype(const logt_model_cfg *cfg)
{
    logt_dtype want = logt_param_dtype(cfg->device);
    if (cfg->dtype != want)
        return LOGT_FAIL(LOGT_EUNSUPPORTED, "%s on %s computes in %s, not %s: set dtype = %s",
                         cfg->model, logt_device_name(cfg->device), logt_dtype_name(want),
                         logt_dtype_name(cfg->dtype), logt_dtype_name(want));
    return LOGT_OK;
}

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
