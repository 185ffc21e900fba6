/* test_train_retry.c — what the trainer gives a run's on_fail = retry (train/train.h): a
 * snapshot that restores the training state so that the same steps repeat bit for bit, the
 * training step and the relaxation passed to the models through the context (deer's
 * tol_schedule and relaxed tol, max_iter), and the test fault that puts a NaN in one step's
 * input once. The runner's side (rollback, counts, messages) is in test_faults.c. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/ctx.h"
#include "../models/deer/deer.h"
#include "../train/train.h"
#include "gradcheck.h"

#define OK(expr) cr_assert_eq((expr), LOGT_OK, "%s: %s", #expr, logt_errmsg())

typedef struct rig {
    logt_dataset ds;
    logt_net *net;
    logt_ctx *ctx;
    logt_trainer *tr;
} rig;

/* A cpu net of `model` with knobs, its trainer on the adding problem at T = 8, batch 3. */
static void rig_open(rig *g, const char *model, const char *knobs)
{
    OK(logt_dataset_open("adding", 8, 1, &g->ds));
    logt_model_cfg cfg;
    logt_model_cfg_init(&cfg, model, LOGT_CPU, g->ds.input_size, 4);
    cfg.seed = 5;
    set_knobs(&cfg, knobs);
    OK(logt_net_create(&cfg, &g->net));
    OK(logt_ctx_create(LOGT_CPU, &g->ctx));
    logt_train_cfg tc = {.batch = 3, .lr = 1e-2, .clip = 1};
    OK(logt_trainer_create(g->net, &g->ds, &tc, g->ctx, &g->tr));
}

static void rig_close(rig *g)
{
    logt_trainer_destroy(g->tr);
    logt_ctx_destroy(g->ctx);
    logt_net_destroy(g->net);
    logt_dataset_close(&g->ds);
}

/* Restored, the trainer repeats the steps after the snapshot exactly: the parameters, the
 * readout, Adam's moments and counts and the step all came back. */
Test(train_retry, a_snapshot_restores_the_state_and_the_steps_repeat)
{
    rig g;
    rig_open(&g, "lstm", NULL);
    double loss, gn, first[3], again[3];
    OK(logt_trainer_step(g.tr, &loss, &gn));
    OK(logt_trainer_step(g.tr, &loss, &gn));
    logt_train_snapshot snap = {0};
    OK(logt_trainer_snapshot(g.tr, &snap));
    cr_assert_eq(snap.step, 2);
    for (int i = 0; i < 3; i++) OK(logt_trainer_step(g.tr, &first[i], &gn));
    const int64_t n = g.net->w.numel;
    double *w = malloc(sizeof(double) * (size_t)n);
    memcpy(w, g.net->w.data, sizeof(double) * (size_t)n);
    OK(logt_trainer_restore(g.tr, &snap));
    cr_assert_eq(g.tr->step, 2);
    cr_assert_eq(g.tr->adam_net.t, 2);
    cr_assert(!memcmp(g.net->w.data, snap.w.data, sizeof(double) * (size_t)n));
    for (int i = 0; i < 3; i++) OK(logt_trainer_step(g.tr, &again[i], &gn));
    for (int i = 0; i < 3; i++) cr_expect_eq(again[i], first[i], "step %d: %.17g then %.17g", i + 3, first[i], again[i]);
    cr_expect(!memcmp(g.net->w.data, w, sizeof(double) * (size_t)n), "the parameters after the same steps");
    free(w);
    logt_train_snapshot_free(&snap);
    logt_train_snapshot snap_none = {0};
    cr_assert_eq(logt_trainer_restore(g.tr, &snap_none), LOGT_EINVAL);
    rig_close(&g);
}

/* During a step or an evaluation the models see the step and the relaxation in the context;
 * after it, the context holds what it held before. */
Test(train_retry, the_models_see_the_step_and_the_relaxation)
{
    rig g;
    rig_open(&g, "deer", "mode=quasi,tol_schedule=1e-2:1e-6:4");
    deer_model *m = (deer_model *)g.net->layer[0];
    const double want[] = {1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-6};
    double loss, gn, acc;
    for (int k = 0; k < 6; k++) {
        OK(logt_trainer_step(g.tr, &loss, &gn));
        cr_expect(fabs(m->tol - want[k]) <= 1e-9 * want[k], "step %d: tol %g, not %g", k, m->tol, want[k]);
        cr_expect(m->converged, "step %d: %s", k, g.net->layer[0]->detail);
    }
    cr_assert_eq(g.ctx->step, -1, "the context is left as it was");
    g.tr->relax = 2;
    OK(logt_trainer_eval(g.tr, LOGT_SPLIT_VALID, 1, &loss, &acc));
    cr_expect(fabs(m->tol - 1e-4) <= 1e-13 && m->max_iter == 800, "relaxed twice: tol %g, max_iter %d",
              m->tol, m->max_iter);
    cr_assert(g.ctx->step == -1 && g.ctx->relax == 0, "the context is left as it was");
    rig_close(&g);
}

/* nan_step: that step's input gets a NaN the first time it runs, and the step fails as a bad
 * batch would (deer: Newton's iterate is not finite; lstm: the loss); run again, it passes. */
Test(train_retry, a_nan_at_a_chosen_step_fails_it_once)
{
    const char *models[][2] = {{"deer", "mode=quasi,on_fail=retry"}, {"lstm", NULL}};
    const char *says[] = {"the iterate is not finite", "step 2: the loss is"};
    for (int i = 0; i < 2; i++) {
        rig g;
        rig_open(&g, models[i][0], models[i][1]);
        cr_assert_eq(g.tr->nan_step, -1, "no fault unless asked");
        g.tr->nan_step = 2;
        double loss, gn;
        OK(logt_trainer_step(g.tr, &loss, &gn));
        OK(logt_trainer_step(g.tr, &loss, &gn));
        cr_assert_eq(logt_trainer_step(g.tr, &loss, &gn), LOGT_ENUMERIC, "%s", models[i][0]);
        cr_assert(strstr(logt_errmsg(), says[i]), "%s: %s", models[i][0], logt_errmsg());
        cr_assert(g.tr->step == 2 && g.tr->nan_step == -1, "%s: step %lld", models[i][0], (long long)g.tr->step);
        OK(logt_trainer_step(g.tr, &loss, &gn));
        cr_assert(isfinite(loss) && g.tr->step == 3);
        rig_close(&g);
    }
}
