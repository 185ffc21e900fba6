/* train.h — what every model trains with: a linear readout and its loss, Adam,
 * global-norm gradient clipping, and the training step that ties them together.
 *
 * The readout is small (D -> O on the steps that carry targets) and runs on the
 * host in f64, or on the GPU in f32 when asked (a cuda f32 model whose batches carry many
 * target rows: readout_cuda.h); its parameters stay on the host either way. The model's own parameters
 * stay on the model's device, where Adam updates them (a CUDA kernel for cuda, a loop for cpu). Clipping uses the norm
 * of all gradients together: the model's and the readout's.
 * Nothing here writes files: the runner appends losses and saves checkpoints.
 */
#ifndef LOGT_TRAIN_H
#define LOGT_TRAIN_H

#include "../core/ctx.h"
#include "../datasets/dataset.h"
#include "../models/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- readout and losses (host, f64) ------------------------------------------ */
typedef struct logt_readout {
    int D, O;
    logt_tensor w, dw;   /* host f64, flat: V [O][D] then c [O] */
} logt_readout;

logt_status logt_readout_init(logt_readout *r, int D, int O, uint64_t seed);
void logt_readout_free(logt_readout *r);
/* Loss of N rows h[N][D] against target (MSE: [N][O]; xent: [N] class ids):
 * mean over the N rows (MSE also averages over O). Overwrites r->dw with its
 * gradient and writes dh[N][D] = dL/dh. acc: fraction of rows classified right
 * (xent) or NAN (MSE). dh may be NULL (evaluation). */
logt_status logt_readout_loss(logt_readout *r, logt_loss loss, const double *h, int64_t N,
                              const double *target, double *dh, double *out_loss, double *acc);

/* ---- optimizer ------------------------------------------------------------------ */
typedef struct logt_adam {
    double lr, beta1, beta2, eps;
    int64_t t;                  /* steps taken */
    logt_tensor m, v;           /* moments, same device and dtype as the parameters */
} logt_adam;

logt_status logt_adam_init(logt_adam *a, const logt_tensor *w, double lr);
void logt_adam_free(logt_adam *a);
/* w -= lr * mhat / (sqrt(vhat) + eps), with g scaled by `scale` first (clipping).
 * Increments a->t. Runs where w lives. */
logt_status logt_adam_step(logt_adam *a, logt_tensor *w, const logt_tensor *g, double scale,
                           logt_ctx *ctx);
/* Sum of squares of g, accumulated in f64. */
logt_status logt_sqnorm(const logt_tensor *g, double *out, logt_ctx *ctx);
/* The factor that brings a gradient of norm `norm` down to `max_norm` (1 when it
 * is already below, or when max_norm <= 0: no clipping). */
double logt_clip_scale(double norm, double max_norm);

/* ---- one training step --------------------------------------------------------- */
typedef struct logt_train_cfg {
    int batch;
    double lr, clip;            /* clip <= 0: off */
} logt_train_cfg;

typedef struct logt_trainer {
    logt_net *net;
    logt_dataset ds;
    logt_train_cfg cfg;
    logt_ctx *ctx;
    logt_readout ro;
    logt_adam adam_net, adam_ro;
    int64_t step;               /* steps taken; the next batch index of the train split */
    logt_tensor x, dh;          /* on the model's device: [T][B][I], [T][B][D]           */
    double *x_host, *target, *h_last, *dh_last;   /* host scratch */
    int32_t *code;     /* one-hot datasets: the batch's codes, instead of x_host */
    int device_readout;   /* 1: the readout on the GPU, in f32 (readout_cuda.h; cuda f32 models
                           * only); 0, as created: on the host in f64. Set after create. */
    void *ro_gpu;         /* its scratch, made on first use */
    int relax;            /* times the run relaxed its solvers after a failed step (a model's
                           * on_fail = retry): the models see it as ctx->relax, and the step as
                           * ctx->step, during the trainer's calls. 0 as created */
    int64_t nan_step;     /* a fault for tests: the first time step number nan_step (the batch
                           * index, tr->step before it) runs, its input x gets a NaN, as a bad
                           * batch would; -1, as created: none */
} logt_trainer;

/* What a failed training step goes back to (on_fail = retry): the step, the net's and the
 * readout's parameters, Adam's moments and step counts, copied on their own devices. */
typedef struct logt_train_snapshot {
    int64_t step, adam_net_t, adam_ro_t;
    logt_tensor w, ro_w, net_m, net_v, ro_m, ro_v;
} logt_train_snapshot;

logt_status logt_trainer_create(logt_net *net, const logt_dataset *ds, const logt_train_cfg *cfg,
                                logt_ctx *ctx, logt_trainer **out);
void logt_trainer_destroy(logt_trainer *tr);
/* One step on train batch number tr->step: forward, loss, backward, clip, Adam. */
logt_status logt_trainer_step(logt_trainer *tr, double *loss, double *grad_norm);
/* Mean loss and accuracy (NAN for MSE) over `batches` batches of a split. */
logt_status logt_trainer_eval(logt_trainer *tr, int split, int batches, double *loss, double *acc);
/* Copy tr's state into snap (its buffers made on the first call, then reused); restore it into
 * tr (the net's parameters marked written); free snap's buffers. */
logt_status logt_trainer_snapshot(logt_trainer *tr, logt_train_snapshot *snap);
logt_status logt_trainer_restore(logt_trainer *tr, logt_train_snapshot *snap);
void logt_train_snapshot_free(logt_train_snapshot *snap);

#ifdef __cplusplus
}
#endif
#endif
