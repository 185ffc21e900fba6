/* checkpoint.c — a training run's state in its results file, so that a killed run resumes.
 *
 * At each evaluation the training state (the net's weights, the readout's, Adam's moments
 * of both, the step and Adam's step counts) goes to one of two slots, checkpoint/0 and
 * checkpoint/1, and only once it is flushed does checkpoint's `latest` attribute point at
 * it: a kill mid-write leaves the previous checkpoint intact.
 */
#include "run_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static logt_tensor host_view(double *p, int64_t n)
{
    logt_tensor t;
    memset(&t, 0, sizeof t);
    t.data = p;
    t.dtype = LOGT_F64;
    t.device = LOGT_CPU;
    t.ndim = 1;
    t.shape[0] = t.numel = n;
    return t;
}

typedef struct ckpt_part {
    const char *name;
    logt_tensor *t;
} ckpt_part;

static int ckpt_parts(logt_trainer *tr, ckpt_part *p)
{
    p[0] = (ckpt_part){"w", &tr->net->w};
    p[1] = (ckpt_part){"ro_w", &tr->ro.w};
    p[2] = (ckpt_part){"adam_net_m", &tr->adam_net.m};
    p[3] = (ckpt_part){"adam_net_v", &tr->adam_net.v};
    p[4] = (ckpt_part){"adam_ro_m", &tr->adam_ro.m};
    p[5] = (ckpt_part){"adam_ro_v", &tr->adam_ro.v};
    return 6;
}

logt_status ckpt_save(logt_store *st, int64_t id, logt_trainer *tr, double wall,
                      int64_t neval, int stage, int *fatal)
{
    logt_status s = LOGT_OK;
    ckpt_part parts[8];
    int np = ckpt_parts(tr, parts);
    int64_t latest = -1;
    double *host = NULL;
    if (logt_store_has(st, id, "checkpoint", "latest"))
        STORE(logt_store_get_i64(st, id, "checkpoint", "latest", &latest));
    const int slot = latest == 0 ? 1 : 0;
    char obj[64], path[96];
    snprintf(obj, sizeof obj, "checkpoint/%d", slot);
    for (int i = 0; i < np; i++) {
        double *grown = realloc(host, (size_t)(parts[i].t->numel + 1) * sizeof *host);
        if (!grown) {
            s = LOGT_FAIL(LOGT_ENOMEM, "out of host memory for a checkpoint");
            goto done;
        }
        host = grown;
        if ((s = logt_tensor_to_f64(parts[i].t, host)) != LOGT_OK) goto done;
        snprintf(path, sizeof path, "%s/%s", obj, parts[i].name);
        STORE(logt_store_write(st, id, path, host, parts[i].t->numel));
    }
    STORE(logt_store_set_i64(st, id, obj, "step", tr->step));
    STORE(logt_store_set_i64(st, id, obj, "adam_net_t", tr->adam_net.t));
    STORE(logt_store_set_i64(st, id, obj, "adam_ro_t", tr->adam_ro.t));
    STORE(logt_store_set_i64(st, id, obj, "n_eval", neval));
    STORE(logt_store_set_f64(st, id, obj, "wall_s", wall));
    STORE(logt_store_set_i64(st, id, obj, "stage", stage));
    STORE(logt_store_flush(st));
    STORE(logt_store_set_i64(st, id, "checkpoint", "latest", slot));
    STORE(logt_store_flush(st));
done:
    free(host);
    return s;
}

/* Restore the latest checkpoint into tr; *wall and *neval from it. */
logt_status ckpt_load(logt_store *st, int64_t id, logt_trainer *tr, double *wall,
                      int64_t *neval, int *fatal)
{
    logt_status s = LOGT_OK;
    ckpt_part parts[8];
    int np = ckpt_parts(tr, parts);
    int64_t latest, step, t_net, t_ro;
    double *host = NULL;
    STORE(logt_store_get_i64(st, id, "checkpoint", "latest", &latest));
    char obj[64], path[96];
    snprintf(obj, sizeof obj, "checkpoint/%d", (int)latest);
    STORE(logt_store_get_i64(st, id, obj, "step", &step));
    STORE(logt_store_get_i64(st, id, obj, "adam_net_t", &t_net));
    STORE(logt_store_get_i64(st, id, obj, "adam_ro_t", &t_ro));
    STORE(logt_store_get_i64(st, id, obj, "n_eval", neval));
    STORE(logt_store_get_f64(st, id, obj, "wall_s", wall));
    logt_net_params_written(tr->net);   /* the loop writes net->w (models/model.h) */
    for (int i = 0; i < np; i++) {
        int64_t n;
        free(host);
        snprintf(path, sizeof path, "%s/%s", obj, parts[i].name);
        STORE(logt_store_read(st, id, path, &host, &n));
        if (n != parts[i].t->numel) {
            s = LOGT_FAIL(LOGT_EINVAL, "the checkpoint's %s has %lld values but the model has %lld",
                          parts[i].name, (long long)n, (long long)parts[i].t->numel);
            goto done;
        }
        logt_tensor src = host_view(host, n);
        if ((s = logt_tensor_copy(parts[i].t, &src)) != LOGT_OK) goto done;
    }
    tr->step = step;
    tr->adam_net.t = t_net;
    tr->adam_ro.t = t_ro;
done:
    free(host);
    return s;
}

/* The stage of a curriculum run (r->curriculum: shorter lengths trained first, each until it
 * solves) that the latest checkpoint is in; 0 for every other run. */
logt_status ckpt_stage(logt_store *st, int64_t id, int *stage, int *fatal)
{
    logt_status s = LOGT_OK;
    int64_t latest, k = 0;
    char obj[64];
    STORE(logt_store_get_i64(st, id, "checkpoint", "latest", &latest));
    snprintf(obj, sizeof obj, "checkpoint/%d", (int)latest);
    if (logt_store_has(st, id, obj, "stage")) STORE(logt_store_get_i64(st, id, obj, "stage", &k));
done:
    *stage = (int)k;
    return s;
}
