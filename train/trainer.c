/* trainer.c — one training step: batch -> net forward -> readout loss -> net
 * backward -> global-norm clipping -> Adam on the net and on the readout.
 *
 * Only the last S = ds.out_steps steps of h carry targets, so only they travel
 * to the host ([S][B][D], small) and only their dL/dh travels back: the device
 * dh [T][B][D] is zeroed once at create and its first T-S steps stay zero. Where
 * they are many (charlm: every step), a cuda f32 model's readout can run on the
 * GPU instead (tr->device_readout, readout_cuda.h) and nothing of h travels.
 * Batch n of the train split is used by step n, so a run is reproducible and a
 * resumed run (tr->step set) continues with the data it would have seen.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "train.h"
#ifdef LOGT_HAVE_CUDA
#include "readout_cuda.h"
#endif

static logt_status check(const logt_net *net, const logt_dataset *ds, const logt_train_cfg *cfg,
                         const logt_ctx *ctx)
{
    if (net->cfg.input_size != ds->input_size)
        return LOGT_FAIL(LOGT_EINVAL, "the model takes inputs of size %d but dataset %s gives %d: "
                         "set the model's input size to %d",
                         net->cfg.input_size, ds->name, ds->input_size, ds->input_size);
    if (ds->T < 1 || ds->out_steps < 1 || ds->out_steps > ds->T || ds->output_size < 1)
        return LOGT_FAIL(LOGT_EINVAL, "dataset '%s' is not open (use logt_dataset_open)", ds->name);
    if (cfg->batch < 1)
        return LOGT_FAIL(LOGT_EINVAL, "batch size %d: it must be at least 1", cfg->batch);
    if (!(cfg->lr > 0) || !isfinite(cfg->lr))
        return LOGT_FAIL(LOGT_EINVAL, "learning rate %g: it must be a positive number", cfg->lr);
    if (isnan(cfg->clip))
        return LOGT_FAIL(LOGT_EINVAL, "gradient clip is NaN: give a norm, or 0 for no clipping");
    if (net->cfg.device == LOGT_CUDA && (!ctx || ctx->device != LOGT_CUDA))
        return LOGT_FAIL(LOGT_EINVAL, "the model is on cuda: the trainer needs a cuda context");
    return LOGT_OK;
}

logt_status logt_trainer_create(logt_net *net, const logt_dataset *ds, const logt_train_cfg *cfg,
                                logt_ctx *ctx, logt_trainer **out)
{
    *out = NULL;
    LOGT_TRY(check(net, ds, cfg, ctx));
    logt_trainer *tr = calloc(1, sizeof *tr);
    if (!tr) return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    tr->net = net;
    tr->ds = *ds;
    tr->cfg = *cfg;
    tr->ctx = ctx;
    tr->nan_step = -1;
    const int64_t T = ds->T, B = cfg->batch, I = ds->input_size, D = net->cfg.hidden_size;
    const int64_t S = ds->out_steps;
    logt_device dev = net->cfg.device;
    logt_dtype dt = net->cfg.dtype;

    logt_status s = logt_readout_init(&tr->ro, (int)D, ds->output_size, net->cfg.seed);
    if (s == LOGT_OK) s = logt_adam_init(&tr->adam_net, &net->w, cfg->lr);
    if (s == LOGT_OK) s = logt_adam_init(&tr->adam_ro, &tr->ro.w, cfg->lr);
    if (s == LOGT_OK) s = logt_tensor_new3(&tr->x, dev, dt, T, B, I);
    if (s == LOGT_OK) s = logt_tensor_new3(&tr->dh, dev, dt, T, B, D);
    if (s == LOGT_OK) s = logt_tensor_zero(&tr->dh);
    if (s == LOGT_OK) {
        if (ds->onehot) tr->code = malloc((size_t)(T * B) * sizeof *tr->code);   /* x as codes */
        else tr->x_host = malloc((size_t)(T * B * I) * sizeof(double));
        tr->target = malloc((size_t)logt_dataset_target_size(ds, (int)B) * sizeof(double));
        tr->h_last = malloc((size_t)(S * B * D) * sizeof(double));
        tr->dh_last = malloc((size_t)(S * B * D) * sizeof(double));
        if (!(tr->x_host || tr->code) || !tr->target || !tr->h_last || !tr->dh_last)
            s = LOGT_FAIL(LOGT_ENOMEM, "out of host memory for the trainer's buffers");
    }
    if (s != LOGT_OK) {
        logt_trainer_destroy(tr);
        return s;
    }
    *out = tr;
    return LOGT_OK;
}

void logt_trainer_destroy(logt_trainer *tr)
{
    if (!tr) return;
    logt_readout_free(&tr->ro);
    logt_adam_free(&tr->adam_net);
    logt_adam_free(&tr->adam_ro);
    logt_tensor_free(&tr->x);
    logt_tensor_free(&tr->dh);
    free(tr->x_host);
    free(tr->code);
    free(tr->target);
    free(tr->h_last);
    free(tr->dh_last);
#ifdef LOGT_HAVE_CUDA
    logt_readout_gpu_free(tr->ro_gpu);
#endif
    free(tr->ro_gpu);
    free(tr);
}

/* Batch `index` of `split` through the net and the readout: loss, accuracy, and
 * (when dh_last is non-NULL) dL/dh of the last S steps into tr->dh_last. */
static logt_status forward_loss(logt_trainer *tr, int split, uint64_t index, int with_grad,
                                double *loss, double *acc)
{
    const int64_t T = tr->ds.T, B = tr->cfg.batch, D = tr->net->cfg.hidden_size;
    const int64_t S = tr->ds.out_steps;
    if (tr->code) {   /* one-hot input: T·B codes travel, the device writes x */
        LOGT_TRY(logt_dataset_codes(&tr->ds, split, index, (int)B, tr->code, tr->target));
        LOGT_TRY(logt_tensor_onehot(&tr->x, tr->code, tr->ds.input_size));
    } else {
        LOGT_TRY(logt_dataset_batch(&tr->ds, split, index, (int)B, tr->x_host, tr->target));
        LOGT_TRY(logt_tensor_from_f64(&tr->x, tr->x_host));
    }
    if (with_grad && split == LOGT_SPLIT_TRAIN && (int64_t)index == tr->nan_step) {
        const double nan = NAN;   /* the fault for tests: x's first value, once */
        const int64_t one = 1;
        logt_tensor first = logt_tensor_view(&tr->x, 0, 1, &one);
        LOGT_TRY(logt_tensor_from_f64(&first, &nan));
        tr->nan_step = -1;
    }
    const logt_tensor *h;
    LOGT_TRY(logt_net_forward(tr->net, &tr->x, &h, tr->ctx));
    int64_t shape[3] = {S, B, D};
    logt_tensor h_last = logt_tensor_view(h, (T - S) * B * D, 3, shape);
    if (tr->device_readout && (tr->net->cfg.device != LOGT_CUDA || tr->net->cfg.dtype != LOGT_F32))
        return LOGT_FAIL(LOGT_EUNSUPPORTED, "the readout on the GPU takes a cuda f32 model, not %s %s: "
                         "leave the readout on the host", logt_device_name(tr->net->cfg.device),
                         logt_dtype_name(tr->net->cfg.dtype));
#ifndef LOGT_HAVE_CUDA
    if (tr->device_readout)
        return LOGT_FAIL(LOGT_EUNSUPPORTED, "the readout on the GPU needs a build with CUDA");
#else
    if (tr->device_readout) {   /* dL/dh of the last S steps straight into the device dh */
        if (!tr->ro_gpu && !(tr->ro_gpu = calloc(1, sizeof(logt_readout_gpu))))
            return LOGT_FAIL(LOGT_ENOMEM, "out of host memory for the GPU readout");
        float *dh = with_grad ? (float *)tr->dh.data + (T - S) * B * D : NULL;
        return logt_readout_loss_cuda(&tr->ro, tr->ro_gpu, tr->ds.loss, (const float *)h_last.data, S * B,
                                      tr->target, dh, loss, acc, tr->ctx);
    }
#endif
    LOGT_TRY(logt_tensor_to_f64(&h_last, tr->h_last));
    return logt_readout_loss(&tr->ro, tr->ds.loss, tr->h_last, S * B, tr->target,
                             with_grad ? tr->dh_last : NULL, loss, acc);
}

/* The models see the training step and the relaxation through the context for the length of
 * a trainer's call (ctx->step, ctx->relax); what the context held before comes back after. */
typedef struct ctx_saved { int64_t step; int relax; } ctx_saved;

static ctx_saved ctx_enter(logt_trainer *tr)
{
    ctx_saved old = {-1, 0};
    if (tr->ctx) {
        old = (ctx_saved){tr->ctx->step, tr->ctx->relax};
        tr->ctx->step = tr->step, tr->ctx->relax = tr->relax;
    }
    return old;
}

static void ctx_leave(logt_trainer *tr, ctx_saved old)
{
    if (tr->ctx) tr->ctx->step = old.step, tr->ctx->relax = old.relax;
}

static logt_status train_step(logt_trainer *tr, double *loss, double *grad_norm)
{
    const int64_t T = tr->ds.T, B = tr->cfg.batch, D = tr->net->cfg.hidden_size;
    const int64_t S = tr->ds.out_steps;
    const long long step = (long long)tr->step;
    double acc;
    *loss = *grad_norm = NAN;
    LOGT_TRY(forward_loss(tr, LOGT_SPLIT_TRAIN, (uint64_t)tr->step, 1, loss, &acc));
    if (!isfinite(*loss))
        return LOGT_FAIL(LOGT_ENUMERIC,
                         "training step %lld: the loss is %g. HINT: lower the learning rate or "
                         "set a gradient clip",
                         step, *loss);

    int64_t shape[3] = {S, B, D};
    logt_tensor dh_last = logt_tensor_view(&tr->dh, (T - S) * B * D, 3, shape);
    if (!tr->device_readout) LOGT_TRY(logt_tensor_from_f64(&dh_last, tr->dh_last));
    LOGT_TRY(logt_net_backward(tr->net, &tr->dh, NULL, tr->ctx));

    double sq_net, sq_ro;
    LOGT_TRY(logt_sqnorm(&tr->net->dw, &sq_net, tr->ctx));
    LOGT_TRY(logt_sqnorm(&tr->ro.dw, &sq_ro, NULL));
    *grad_norm = sqrt(sq_net + sq_ro);
    if (!isfinite(*grad_norm))
        return LOGT_FAIL(LOGT_ENUMERIC,
                         "training step %lld: the gradient norm is %g (model %g, readout %g) at "
                         "loss %g. HINT: lower the learning rate or set a gradient clip",
                         step, *grad_norm, sqrt(sq_net), sqrt(sq_ro), *loss);

    double scale = logt_clip_scale(*grad_norm, tr->cfg.clip);
    logt_net_params_written(tr->net);   /* Adam writes net->w: said first, failure or not */
    LOGT_TRY(logt_adam_step(&tr->adam_net, &tr->net->w, &tr->net->dw, scale, tr->ctx));
    LOGT_TRY(logt_adam_step(&tr->adam_ro, &tr->ro.w, &tr->ro.dw, scale, NULL));
    tr->step++;
    return LOGT_OK;
}

logt_status logt_trainer_step(logt_trainer *tr, double *loss, double *grad_norm)
{
    const ctx_saved old = ctx_enter(tr);
    const logt_status s = train_step(tr, loss, grad_norm);
    ctx_leave(tr, old);
    return s;
}

static logt_status eval_batches(logt_trainer *tr, int split, int batches, double *loss, double *acc)
{
    *loss = *acc = NAN;
    if (batches < 1)
        return LOGT_FAIL(LOGT_EINVAL, "evaluation over %d batches: need at least 1", batches);
    double sum_loss = 0, sum_acc = 0;
    for (int i = 0; i < batches; i++) {
        double l, a;
        LOGT_TRY(forward_loss(tr, split, (uint64_t)i, 0, &l, &a));
        if (!isfinite(l))
            return LOGT_FAIL(LOGT_ENUMERIC, "evaluation after step %lld: split %d batch %d has loss %g",
                             (long long)tr->step, split, i, l);
        sum_loss += l;
        sum_acc += a;
    }
    *loss = sum_loss / batches;
    *acc = tr->ds.loss == LOGT_LOSS_XENT ? sum_acc / batches : NAN;
    return LOGT_OK;
}

logt_status logt_trainer_eval(logt_trainer *tr, int split, int batches, double *loss, double *acc)
{
    const ctx_saved old = ctx_enter(tr);
    const logt_status s = eval_batches(tr, split, batches, loss, acc);
    ctx_leave(tr, old);
    return s;
}

/* ---- snapshots: what a failed step goes back to ---------------------------------------------- */

typedef struct snap_part { logt_tensor *live, *kept; } snap_part;

static int snap_parts(logt_trainer *t, logt_train_snapshot *snap, snap_part *p)
{
    p[0] = (snap_part){&t->net->w, &snap->w};
    p[1] = (snap_part){&t->ro.w, &snap->ro_w};
    p[2] = (snap_part){&t->adam_net.m, &snap->net_m};
    p[3] = (snap_part){&t->adam_net.v, &snap->net_v};
    p[4] = (snap_part){&t->adam_ro.m, &snap->ro_m};
    p[5] = (snap_part){&t->adam_ro.v, &snap->ro_v};
    return 6;
}

logt_status logt_trainer_snapshot(logt_trainer *tr, logt_train_snapshot *snap)
{
    snap_part p[6];
    const int np = snap_parts(tr, snap, p);
    for (int i = 0; i < np; i++) {
        const logt_tensor *t = p[i].live;
        if (!p[i].kept->data) LOGT_TRY(logt_tensor_new(p[i].kept, t->device, t->dtype, t->ndim, t->shape));
        LOGT_TRY(logt_tensor_copy(p[i].kept, t));
    }
    snap->step = tr->step, snap->adam_net_t = tr->adam_net.t, snap->adam_ro_t = tr->adam_ro.t;
    return LOGT_OK;
}

logt_status logt_trainer_restore(logt_trainer *tr, logt_train_snapshot *snap)
{
    snap_part p[6];
    const int np = snap_parts(tr, snap, p);
    if (!snap->w.data)
        return LOGT_FAIL(LOGT_EINVAL, "no snapshot to restore: take one with logt_trainer_snapshot first");
    logt_net_params_written(tr->net);   /* the copy below writes net->w (models/model.h) */
    for (int i = 0; i < np; i++) LOGT_TRY(logt_tensor_copy(p[i].live, p[i].kept));
    tr->step = snap->step, tr->adam_net.t = snap->adam_net_t, tr->adam_ro.t = snap->adam_ro_t;
    return LOGT_OK;
}

void logt_train_snapshot_free(logt_train_snapshot *snap)
{
    logt_tensor *all[] = {&snap->w, &snap->ro_w, &snap->net_m, &snap->net_v, &snap->ro_m, &snap->ro_v};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) logt_tensor_free(all[i]);
    memset(snap, 0, sizeof *snap);
}
