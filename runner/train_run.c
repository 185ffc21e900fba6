/* train_run.c — training runs of a sweep: a model trained on a task, its losses appended to
 * the results file as it goes, checkpointed at every evaluation (checkpoint.c) so that a
 * killed run resumes.
 *
 * loss, grad_norm, wall_s, newton_iterations grow by one value per step (written in
 * batches: every FLUSH_STEPS steps, every FLUSH_SECONDS, and at each evaluation);
 * eval_step, eval_loss, eval_acc, eval_wall_s by one per evaluation, and eval_bpc
 * (eval_loss in bits: / ln 2) for a task that reports bits per character (charlm), whose
 * last value is also the run's final_eval_bpc. A rerun resumes from the latest checkpoint,
 * cutting the per-step datasets back to the checkpoint's step.
 *
 * A model whose on_fail is retry (logt_model.retry: deer) has a training step that fails
 * numerically (a loss or gradient not finite, a solver that does not converge) retried: the
 * state of the last checkpoint (kept in memory, or the run's start) comes back, the per-step
 * datasets are cut back to it, the solvers are relaxed once more (tr->relax: tol x10 and
 * max_iter x2 for each retry, for the rest of the run) and training goes on; a line on stderr
 * says so, and the run's attribute `retries` counts them (read back on a resume, so that the
 * relaxation continues). MAX_RETRIES in a row (without getting past the step that failed)
 * fail the run. A model that clamps (logt_model.clamping: deer's jacobian_clamp) adds the
 * per-step dataset jacobian_clamps and its total, the attribute of the same name.
 *
 * Test hooks (tests/test_runner.c): LOGT_TEST_DIE_AFTER_STEPS=N makes the process
 * _exit(137) after training step N, like a kill -9; LOGT_TEST_FAIL_AFTER_STEPS=N makes
 * training step N fail (as a NaN would, never retried); LOGT_TEST_NAN_AT_STEP=N puts a NaN in
 * the input of training step N, the first time it runs (tr->nan_step).
 */
#include "run_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../datasets/dataset.h"

#define FLUSH_STEPS 256
#define FLUSH_SECONDS 5.0
#define FINAL_LOSS_STEPS 10   /* final_loss: mean of the last this many steps */

/* newton_iterations: the first layer's solver iterations in the step's forward (its trace's
 * length − 1: deer, sru route = newton), NaN for a model without a solver; jacobian_clamps
 * (the last, only for a model that clamps): the entries the step's forward clamped, all layers */
#define NSTEP_SETS 5
#define CLAMP_SET 4
static const char *const step_sets[NSTEP_SETS] = {"loss", "grad_norm", "wall_s", "newton_iterations",
                                                  "jacobian_clamps"};
#define MAX_RETRIES 3   /* on_fail = retry: retries in a row before the run fails */
#define NEVAL_SETS 5   /* eval_bpc only for a task that reports bits per character */
static const char *const eval_sets[NEVAL_SETS] = {"eval_step", "eval_loss", "eval_acc", "eval_wall_s",
                                                  "eval_bpc"};

/* One length of a training run: its dataset, a net and the net's trainer. A run without a
 * curriculum has one; a curriculum run makes one per stage in turn, each loading the
 * checkpoint the one before saved as it ended (the nets' buffers are sized by T, their
 * weights not): a stage starts as a resumed run would. */
typedef struct stage {
    logt_dataset ds;
    logt_net *net;
    logt_trainer *tr;
} stage;

static void stage_close(stage *g)
{
    logt_trainer_destroy(g->tr);
    logt_net_destroy(g->net);
    logt_dataset_close(&g->ds);
    memset(g, 0, sizeof *g);
}

static logt_status stage_open(logt_ctx *ctx, const logt_run_spec *r, int T, stage *g)
{
    memset(g, 0, sizeof *g);
    logt_status s = logt_dataset_open(r->task, T, r->cfg.seed, &g->ds);
    logt_model_cfg cfg = r->cfg;
    cfg.input_size = g->ds.input_size;
    if (s == LOGT_OK) s = logt_net_create(&cfg, &g->net);
    logt_train_cfg tc = {.batch = r->B, .lr = r->lr, .clip = r->clip};
    if (s == LOGT_OK) s = logt_trainer_create(g->net, &g->ds, &tc, ctx, &g->tr);
    if (s == LOGT_OK) g->tr->device_readout = r->gpu_readout;
    if (s != LOGT_OK) stage_close(g);
    return s;
}

/* The length of stage k of r: its curriculum's, then (k = ncurriculum) the run's own. */
static int stage_T(const logt_run_spec *r, int k) { return k < r->ncurriculum ? r->curriculum[k] : r->T; }

typedef struct train_result {
    double final_loss, final_eval_loss, final_eval_acc, final_eval_bpc, test_loss, test_acc;
    double solve_s;          /* solve_acc: the training time at the evaluation that reached it */
    int64_t solve_step;      /* and its step; -1 not solved (or solve_acc off)               */
    int64_t budget_step;     /* max_train_s: the step at which the budget stopped it; -1 not */
    int64_t input_size, peak;
    char impl[160];
    int interrupted, resumed_at;
    int64_t stopped_at;     /* the step a signal stopped it at */
    int stopped_short;       /* a curriculum run that ended before its own T: the length it was at */
} train_result;

static logt_status flush_steps(logt_store *st, int64_t id, double *buf[NSTEP_SETS], int nsets, int *nbuf)
{
    for (int k = 0; k < nsets; k++) LOGT_TRY(logt_store_append(st, id, step_sets[k], buf[k], *nbuf));
    *nbuf = 0;
    return logt_store_flush(st);
}

/* The run's first training loss, the yardstick of [train] diverge: NAN before its first step,
 * else (a resumed run) the first value stored. */
static double first_loss(const logt_run_spec *r, logt_store *st, int64_t id, int64_t step)
{
    double *v = NULL, first = NAN;
    int64_t n = 0;
    if (r->diverge > 0 && step > 0 && logt_store_read(st, id, "loss", &v, &n) == LOGT_OK && n > 0)
        first = v[0];
    free(v);
    return first;
}

/* max_train_s: a run stops once its training time (its wall_s, resumes included) reaches it */
static int over_budget(const logt_run_spec *r, double wall)
{
    return r->max_train_s > 0 && wall >= r->max_train_s;
}

/* on_fail = retry: what a failed step goes back to, and the retries so far. */
typedef struct rollback {
    int on;                    /* a layer's model asks for it (logt_model.retry)        */
    logt_train_snapshot snap;  /* the state at the last checkpoint, or the run's start  */
    int64_t retries;           /* over the run, resumes included: tr->relax              */
    int in_row;                /* retries since training last got past failed_at        */
    int64_t failed_at;         /* the furthest step that failed                         */
} rollback;

/* What a training run carries from phase to phase: its stage, how far it got, and the
 * per-step values not yet written. */
typedef struct train_state {
    stage g;
    int k;                     /* the stage: the run trains at stage_T(r, k) */
    double wall;               /* training seconds, resumes included         */
    int64_t neval;             /* evaluations so far                         */
    double *buf[NSTEP_SETS];   /* per-step values since the last flush       */
    int nbuf, nsets;           /* nsets: step_sets written (CLAMP_SET + 1 for a model that clamps) */
    rollback rb;
} train_state;

/* 1 when a layer of net retries a failed step (what = 0) or clamps (what = 1). */
static int any_layer(const logt_net *net, int what)
{
    for (int l = 0; l < net->L; l++)
        if (what ? net->layer[l]->clamping : net->layer[l]->retry) return 1;
    return 0;
}

/* The entries the layers of net clamped in the last forward. */
static double clamped_of(const logt_net *net)
{
    double n = 0;
    for (int l = 0; l < net->L; l++) n += (double)net->layer[l]->clamped;
    return n;
}

/* The run's start: at its latest checkpoint's stage and state when it resumes, else afresh;
 * the datasets cut back to that point, and the step buffers made. */
static logt_status train_open(logt_ctx *ctx, const logt_run_spec *r, logt_store *st, int64_t id,
                              int resume, train_state *ts, train_result *res, int *fatal)
{
    logt_status s = LOGT_OK;
    const int nstage = r->ncurriculum;   /* stages before the run's own T */
    int64_t latest = -1;   /* -1: a run started afresh and killed before its first checkpoint */
    if (logt_store_has(st, id, "checkpoint", "latest"))
        STORE(logt_store_get_i64(st, id, "checkpoint", "latest", &latest));
    if (resume && latest >= 0) {
        if ((s = ckpt_stage(st, id, &ts->k, fatal)) != LOGT_OK) goto done;
        if (ts->k > nstage) {
            s = LOGT_FAIL(LOGT_EINVAL, "the checkpoint is at curriculum stage %d, but this run has %d "
                          "stages before its T = %d", ts->k, nstage, r->T);
            goto done;
        }
    }
    if ((s = stage_open(ctx, r, stage_T(r, ts->k), &ts->g)) != LOGT_OK) goto done;
    if (nstage && ts->g.ds.loss != LOGT_LOSS_XENT) {
        s = LOGT_FAIL(LOGT_EINVAL, "[train] curriculum: a stage ends when its validation accuracy reaches "
                      "solve_acc, and task '%s' has no accuracy (a regression, MSE): use a classification "
                      "task of any length (2b, selcopy, parity, modsum, charlm) or no curriculum", r->task);
        goto done;
    }
    res->input_size = ts->g.ds.input_size;
    STORE(logt_store_set_i64(st, id, "", "input_size", ts->g.ds.input_size));
    STORE(logt_store_set_i64(st, id, "", "parameters", ts->g.net->w.numel + ts->g.tr->ro.w.numel));
    if (resume && latest >= 0) {
        if ((s = ckpt_load(st, id, ts->g.tr, &ts->wall, &ts->neval, fatal)) != LOGT_OK) goto done;
        res->resumed_at = (int)ts->g.tr->step;
    }
    if (!resume && logt_store_has(st, id, "checkpoint", "latest"))
        STORE(logt_store_set_i64(st, id, "checkpoint", "latest", -1));   /* start afresh */
    ts->nsets = any_layer(ts->g.net, 1) ? CLAMP_SET + 1 : CLAMP_SET;
    for (int j = 0; j < NSTEP_SETS; j++) STORE(logt_store_truncate(st, id, step_sets[j], ts->g.tr->step));
    for (int j = 0; j < NEVAL_SETS; j++) STORE(logt_store_truncate(st, id, eval_sets[j], ts->neval));
    if (nstage) STORE(logt_store_truncate(st, id, "eval_T", ts->neval));
    STORE(logt_store_flush(st));

    for (int j = 0; j < NSTEP_SETS; j++)
        if (!(ts->buf[j] = malloc(FLUSH_STEPS * sizeof(double)))) {
            s = LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
            goto done;
        }
done:
    return s;
}

/* on_fail = retry: the retries of an earlier invocation (a resumed run continues their
 * relaxation), and the state a failed step goes back to: the run's start here. */
static logt_status rollback_open(logt_store *st, int64_t id, const train_result *res, train_state *ts,
                                 int *fatal)
{
    logt_status s = LOGT_OK;
    rollback *rb = &ts->rb;
    rb->on = any_layer(ts->g.net, 0);
    rb->retries = 0, rb->in_row = 0, rb->failed_at = -1;
    if (!rb->on) return LOGT_OK;
    if (res->resumed_at > 0 && logt_store_has(st, id, "", "retries"))
        STORE(logt_store_get_i64(st, id, "", "retries", &rb->retries));
    STORE(logt_store_set_i64(st, id, "", "retries", rb->retries));
    ts->g.tr->relax = (int)rb->retries;
    s = logt_trainer_snapshot(ts->g.tr, &rb->snap);
done:
    return s;
}

/* A training step failed with status `failed` under on_fail = retry: back to the snapshot, the
 * per-step values since then cut off, the solvers relaxed once more, a line on stderr. After
 * MAX_RETRIES in a row, the run's error instead. */
static logt_status retry_step(logt_status failed, logt_store *st, int64_t id, const progress *pr,
                              train_state *ts, int *fatal)
{
    logt_status s = LOGT_OK;
    rollback *rb = &ts->rb;
    logt_trainer *tr = ts->g.tr;
    const long long step = (long long)tr->step + 1;   /* counted from 1, as the progress lines */
    char msg[1536];
    logt_strlcpy(msg, sizeof msg, logt_errmsg());
    if (rb->in_row == MAX_RETRIES)
        return logt_fail_at(failed, "", 0, "step %lld failed again after %d retries in a row from "
                            "step %lld (on_fail = retry, tol x%g and max_iter x%.0f by now): %s",
                            step, MAX_RETRIES, (long long)rb->snap.step, pow(10.0, (double)rb->retries),
                            ldexp(1.0, (int)rb->retries), msg);
    rb->retries++, rb->in_row++;
    if (step > rb->failed_at) rb->failed_at = step;
    tr->relax = (int)rb->retries;
    if ((s = logt_trainer_restore(tr, &rb->snap)) != LOGT_OK) goto done;
    ts->nbuf = 0;
    for (int j = 0; j < NSTEP_SETS; j++) STORE(logt_store_truncate(st, id, step_sets[j], tr->step));
    STORE(logt_store_set_i64(st, id, "", "retries", rb->retries));
    STORE(logt_store_flush(st));
    fprintf(stderr, "%s        retry %d of %d: %s; back to step %lld, tol x%g and max_iter x%.0f from "
            "now on\n", pr->tty ? "\r\033[K" : "", rb->in_row, MAX_RETRIES, msg, (long long)tr->step,
            pow(10.0, (double)rb->retries), ldexp(1.0, (int)rb->retries));
done:
    return s;
}

/* solve_acc: a run stops at the first evaluation that reaches it (also one resumed after
 * reaching it: its evaluations so far are in the file); a curriculum run, at the first one
 * at its own T (eval_T says where each was) */
static logt_status solved_earlier(const logt_run_spec *r, logt_store *st, int64_t id, int64_t neval,
                                  train_result *res, int *fatal)
{
    logt_status s = LOGT_OK;
    const int nstage = r->ncurriculum;
    res->solve_step = -1, res->solve_s = NAN;
    if (r->solve_acc > 0 && neval > 0) {
        double *acc = NULL, *at = NULL, *when = NULL, *evT = NULL;
        int64_t na, nt, nw, nT = 0;
        STORE(logt_store_read(st, id, "eval_acc", &acc, &na));
        s = logt_store_read(st, id, "eval_step", &at, &nt);
        if (s == LOGT_OK) s = logt_store_read(st, id, "eval_wall_s", &when, &nw);
        if (s == LOGT_OK && nstage) s = logt_store_read(st, id, "eval_T", &evT, &nT);
        for (int64_t j = 0; s == LOGT_OK && res->solve_step < 0 && j < na && j < nt && j < nw; j++)
            if (acc[j] >= r->solve_acc && (!nstage || (j < nT && evT[j] == r->T)))
                res->solve_step = (int64_t)at[j], res->solve_s = when[j];
        free(acc), free(at), free(when), free(evT);
        if (s != LOGT_OK) {
            *fatal = 1;
            goto done;
        }
    }
done:
    return s;
}

/* An evaluation after step `step` (training loss `loss`): the validation split, its values
 * appended, a checkpoint, the next curriculum stage when this one is solved, and the
 * progress line. */
static logt_status evaluate(logt_ctx *ctx, const logt_run_spec *r, logt_store *st, int64_t id,
                            progress *pr, int64_t step, double loss, double cost_now, train_state *ts,
                            train_result *res, int *fatal)
{
    logt_status s = LOGT_OK;
    const int nstage = r->ncurriculum;
    char what[160];
    double el, ea, ev_step = (double)step, ev_T = stage_T(r, ts->k);
    if ((s = logt_trainer_eval(ts->g.tr, LOGT_SPLIT_VALID, r->eval_batches, &el, &ea)) != LOGT_OK)
        goto done;
    STORE(logt_store_append(st, id, "eval_step", &ev_step, 1));
    STORE(logt_store_append(st, id, "eval_loss", &el, 1));
    STORE(logt_store_append(st, id, "eval_acc", &ea, 1));
    STORE(logt_store_append(st, id, "eval_wall_s", &ts->wall, 1));
    if (nstage) STORE(logt_store_append(st, id, "eval_T", &ev_T, 1));
    const double bpc = el / log(2.0);
    if (ts->g.ds.report_bpc) STORE(logt_store_append(st, id, "eval_bpc", &bpc, 1));
    ts->neval++;
    /* a stage solved: its checkpoint already belongs to the next length, so that a run
     * killed or failing from here on resumes there; the next length starts from it now,
     * unless the run ends with this evaluation (a continued run takes it up) */
    const int stage_solved = ts->k < nstage && ea >= r->solve_acc;
    if (r->solve_acc > 0 && res->solve_step < 0 && ts->k == nstage && ea >= r->solve_acc)
        res->solve_step = step, res->solve_s = ts->wall;
    if ((s = ckpt_save(st, id, ts->g.tr, ts->wall, ts->neval, ts->k + stage_solved, fatal)) != LOGT_OK)
        goto done;
    char staged[64] = "";
    if (stage_solved && step < r->steps && !over_budget(r, ts->wall)) {
        stage_close(&ts->g);
        if ((s = stage_open(ctx, r, stage_T(r, ts->k + 1), &ts->g)) != LOGT_OK) goto done;
        if ((s = ckpt_load(st, id, ts->g.tr, &ts->wall, &ts->neval, fatal)) != LOGT_OK) goto done;
        ts->k++;
        snprintf(staged, sizeof staged, "  (T = %d solved: now T = %d)", (int)ev_T, stage_T(r, ts->k));
    } else if (stage_solved) {
        snprintf(staged, sizeof staged, "  (T = %d solved: T = %d when continued)", (int)ev_T,
                 stage_T(r, ts->k + 1));
    }
    if (ts->g.ds.report_bpc) snprintf(what, sizeof what, "step %lld/%d  loss %.4g  valid %.4g bpc",
                                      (long long)step, r->steps, loss, bpc);
    else if (isnan(ea)) snprintf(what, sizeof what, "step %lld/%d  loss %.4g  valid %.4g",
                                 (long long)step, r->steps, loss, el);
    else snprintf(what, sizeof what, "step %lld/%d  loss %.4g  valid %.4g acc %.3f%s",
                  (long long)step, r->steps, loss, el, ea, staged);
    if (!pr->tty && step < r->steps)
        fprintf(stderr, "        %s%s%s%s\n", what, *pr->shard ? "  (" : "", pr->shard,
                *pr->shard ? ")" : "");
    else if (pr->tty) progress_line(pr, r, what, cost_now, 0);
done:
    return s;
}

/* The run's end: why it stopped, the test split, and its final values over the whole run
 * (earlier invocations included). */
static logt_status train_finish(const logt_run_spec *r, logt_store *st, int64_t id, train_state *ts,
                                train_result *res, int *fatal)
{
    logt_status s = LOGT_OK;
    const int nstage = r->ncurriculum;
    double *v = NULL;
    if (ts->nbuf) STORE(flush_steps(st, id, ts->buf, ts->nsets, &ts->nbuf));
    if (!res->interrupted && ts->g.tr->step < r->steps && res->solve_step < 0 && over_budget(r, ts->wall))
        res->budget_step = ts->g.tr->step;
    /* finished: the test split, at the run's own T (a curriculum run that stopped short of it
     * has no test and no final values: they would be a shorter length's, in a row saying T) */
    if (ts->k < nstage) res->stopped_short = stage_T(r, ts->k);
    if (!res->interrupted && !res->stopped_short &&
        (ts->g.tr->step >= r->steps || res->solve_step >= 0 || res->budget_step >= 0) &&
        (s = logt_trainer_eval(ts->g.tr, LOGT_SPLIT_TEST, r->test_batches, &res->test_loss,
                               &res->test_acc)) != LOGT_OK)
        goto done;
    if (nstage && !res->interrupted) STORE(logt_store_set_i64(st, id, "", "curriculum_T", stage_T(r, ts->k)));
    res->peak = (int64_t)logt_mem_peak();
    logt_strlcpy(res->impl, sizeof res->impl, ts->g.net->layer[0]->impl);

    int64_t n;
    STORE(logt_store_read(st, id, "loss", &v, &n));
    double sum = 0;
    int64_t from = n > FINAL_LOSS_STEPS ? n - FINAL_LOSS_STEPS : 0;
    for (int64_t i = from; i < n; i++) sum += v[i];
    res->final_loss = n > from ? sum / (double)(n - from) : NAN;
    free(v), v = NULL;
    STORE(logt_store_read(st, id, "eval_loss", &v, &n));
    res->final_eval_loss = n && !res->stopped_short ? v[n - 1] : NAN;
    free(v), v = NULL;
    STORE(logt_store_read(st, id, "eval_acc", &v, &n));
    res->final_eval_acc = n && !res->stopped_short ? v[n - 1] : NAN;
    if (ts->g.ds.report_bpc && n && !res->stopped_short) {
        res->final_eval_bpc = res->final_eval_loss / log(2.0);
        STORE(logt_store_set_f64(st, id, "", "final_eval_bpc", res->final_eval_bpc));
    }
    if (ts->nsets > CLAMP_SET) {   /* the run's total over its steps, resumes included */
        free(v), v = NULL;
        STORE(logt_store_read(st, id, step_sets[CLAMP_SET], &v, &n));
        double total = 0;
        for (int64_t i = 0; i < n; i++) total += v[i];
        STORE(logt_store_set_i64(st, id, "", step_sets[CLAMP_SET], (int64_t)total));
    }
    if (ts->rb.on) STORE(logt_store_set_i64(st, id, "", "retries", ts->rb.retries));
done:
    free(v);
    return s;
}

static logt_status train_run(logt_ctx *ctx, const logt_run_spec *r, logt_store *st, int64_t id,
                             int resume, progress *pr, train_result *res, int *fatal)
{
    logt_status s = LOGT_OK;
    train_state ts;
    const int die_at = run_env_int("LOGT_TEST_DIE_AFTER_STEPS");
    const int fail_at = run_env_int("LOGT_TEST_FAIL_AFTER_STEPS");
    const int nan_at = run_env_int("LOGT_TEST_NAN_AT_STEP");
    logt_mem_reset_peak();
    memset(&ts, 0, sizeof ts);   /* closed at done whatever happens */
    if ((s = train_open(ctx, r, st, id, resume, &ts, res, fatal)) != LOGT_OK) goto done;
    if ((s = rollback_open(st, id, res, &ts, fatal)) != LOGT_OK) goto done;
    if (nan_at > 0) ts.g.tr->nan_step = nan_at - 1;   /* the batch index of step nan_at */
    double last_flush = logt_now(), loss = NAN;
    if ((s = solved_earlier(r, st, id, ts.neval, res, fatal)) != LOGT_OK) goto done;
    double first = first_loss(r, st, id, ts.g.tr->step);
    res->budget_step = -1;
    while (ts.g.tr->step < r->steps && res->solve_step < 0 && !over_budget(r, ts.wall)) {
        if (run_stop_requested) {
            res->interrupted = 1;
            res->stopped_at = ts.g.tr->step;
            break;
        }
        double gn, t0 = logt_now();
        s = logt_trainer_step(ts.g.tr, &loss, &gn);
        if (s == LOGT_ENUMERIC && ts.rb.on) {   /* on_fail = retry */
            s = retry_step(s, st, id, pr, &ts, fatal);
            ts.wall += logt_now() - t0;   /* the failed step's time was spent training */
            if (*fatal) goto done;
            if (s == LOGT_OK) continue;
        }
        if (s == LOGT_OK && ts.rb.in_row && ts.g.tr->step >= ts.rb.failed_at) ts.rb.in_row = 0;
        if (s == LOGT_OK && fail_at > 0 && ts.g.tr->step == fail_at)
            s = LOGT_FAIL(LOGT_ENUMERIC, "step %d failed: injected by LOGT_TEST_FAIL_AFTER_STEPS",
                          fail_at);
        if (s == LOGT_OK && isnan(first)) first = loss;
        if (s == LOGT_OK && r->diverge > 0 && first > 0 && loss > r->diverge * first)
            s = LOGT_FAIL(LOGT_ENUMERIC, "training step %lld: the loss %.4g is %.3g times its first "
                          "value %.4g, past diverge = %g: the run diverges. HINT: lower the learning "
                          "rate or set a gradient clip ([train] diverge = 0 turns this check off)",
                          (long long)ts.g.tr->step, loss, loss / first, first, r->diverge);
        if (s != LOGT_OK) {
            char msg[2048];   /* keep the losses so far, and the run's error message */
            logt_strlcpy(msg, sizeof msg, logt_errmsg());
            STORE(flush_steps(st, id, ts.buf, ts.nsets, &ts.nbuf));
            logt_fail_at(s, "", 0, "%s", msg);
            goto done;
        }
        ts.wall += logt_now() - t0;
        const int ntrace = ts.g.net->layer[0]->ntrace;
        ts.buf[0][ts.nbuf] = loss, ts.buf[1][ts.nbuf] = gn, ts.buf[2][ts.nbuf] = ts.wall;
        ts.buf[3][ts.nbuf] = ntrace > 0 ? ntrace - 1 : NAN;
        ts.buf[CLAMP_SET][ts.nbuf] = clamped_of(ts.g.net);
        ts.nbuf++;
        const int64_t step = ts.g.tr->step;
        /* evaluated (and checkpointed) also where the budget stops it: its last point is known */
        const int eval_now = step % r->eval_every == 0 || step == r->steps || over_budget(r, ts.wall);
        if (eval_now || ts.nbuf == FLUSH_STEPS || logt_now() - last_flush > FLUSH_SECONDS) {
            STORE(flush_steps(st, id, ts.buf, ts.nsets, &ts.nbuf));
            last_flush = logt_now();
        }
        double cost_now = pr->cost_done + r->cost * (double)step / r->steps;
        if (eval_now) {
            if ((s = evaluate(ctx, r, st, id, pr, step, loss, cost_now, &ts, res, fatal)) != LOGT_OK)
                goto done;
            if (ts.rb.on) {   /* the checkpoint just saved is what a failed step goes back to */
                ts.g.tr->relax = (int)ts.rb.retries;   /* a new curriculum stage's trainer too */
                if ((s = logt_trainer_snapshot(ts.g.tr, &ts.rb.snap)) != LOGT_OK) goto done;
            }
        } else if (pr->tty && logt_now() - pr->last_print > 0.5) {
            char what[160];
            snprintf(what, sizeof what, "step %lld/%d  loss %.4g", (long long)step, r->steps, loss);
            progress_line(pr, r, what, cost_now, 0);
        }
        if (die_at > 0 && step == die_at) _exit(137);
    }
    s = train_finish(r, st, id, &ts, res, fatal);
done:
    for (int j = 0; j < NSTEP_SETS; j++) free(ts.buf[j]);
    logt_train_snapshot_free(&ts.rb.snap);
    stage_close(&ts.g);
    return s;
}

logt_status one_train_run(logt_ctx *ctx, const logt_run_spec *r, logt_store *st, int64_t id,
                          int resume, progress *pr, logt_summary_row *row, char *what, size_t nwhat,
                          int *budget_stopped, int *interrupted, int *fatal)
{
    train_result tr = {.final_loss = NAN, .final_eval_bpc = NAN, .test_loss = NAN, .test_acc = NAN,
                       .solve_s = NAN, .solve_step = -1, .budget_step = -1};
    logt_status s = train_run(ctx, r, st, id, resume, pr, &tr, fatal), w = LOGT_OK;
    row->peak_mem_bytes = tr.peak;
    row->input_size = tr.input_size ? tr.input_size : row->input_size;
    logt_strlcpy(row->impl, sizeof row->impl, tr.impl);
    row->final_loss = tr.final_loss;
    row->final_eval_loss = tr.final_eval_loss;
    row->final_eval_acc = tr.final_eval_acc;
    row->test_loss = tr.test_loss;
    row->test_acc = tr.test_acc;
    row->solve_s = tr.solve_s;
    if (r->solve_acc > 0 && !tr.interrupted) w = logt_store_set_i64(st, id, "", "solve_step", tr.solve_step);
    /* the budget, and where it stopped the run (-1: it did not); written also when a run
     * stopped by an earlier budget is continued without one */
    if (w == LOGT_OK && !tr.interrupted &&
        (r->max_train_s > 0 || logt_store_has(st, id, "", "budget_stop_step"))) {
        w = logt_store_set_f64(st, id, "", "max_train_s", r->max_train_s);
        if (w == LOGT_OK) w = logt_store_set_i64(st, id, "", "budget_stop_step", tr.budget_step);
    }
    if (w != LOGT_OK) {
        *fatal = 1;
        return w;
    }
    *budget_stopped = tr.budget_step >= 0;
    if (tr.interrupted) {   /* where it stopped, and where it resumes from */
        *interrupted = 1;
        int64_t latest = -1, at = -1;
        char slot[32];
        if (logt_store_has(st, id, "checkpoint", "latest") &&
            logt_store_get_i64(st, id, "checkpoint", "latest", &latest) == LOGT_OK) {
            snprintf(slot, sizeof slot, "checkpoint/%lld", (long long)latest);
            if (logt_store_get_i64(st, id, slot, "step", &at) != LOGT_OK) at = -1;
        }
        if (at >= 0)
            snprintf(what, nwhat, "its run %06lld stopped at step %lld of %d; its checkpoint "
                     "(/runs/%06lld/%s, step %lld) is in %s: the same command resumes it from "
                     "there", (long long)id, (long long)tr.stopped_at, r->steps, (long long)id,
                     slot, (long long)at, logt_store_path(st));
        else
            snprintf(what, nwhat, "its run %06lld stopped at step %lld of %d, before its first "
                     "checkpoint: the same command starts it again", (long long)id,
                     (long long)tr.stopped_at, r->steps);
        return LOGT_OK;
    }
    if (s == LOGT_OK && !isnan(tr.final_eval_bpc))
        snprintf(what, nwhat, "loss %.4g  valid %.4g bpc  test %.4g bpc%s", row->final_loss,
                 tr.final_eval_bpc, row->test_loss / log(2.0), tr.resumed_at ? "  (resumed)" : "");
    else if (s == LOGT_OK)
        snprintf(what, nwhat, "loss %.4g  valid %.4g  test %.4g%s", row->final_loss,
                 row->final_eval_loss, row->test_loss, tr.resumed_at ? "  (resumed)" : "");
    if (s == LOGT_OK && tr.solve_step >= 0) {
        const size_t len = strlen(what);
        snprintf(what + len, nwhat - len, "  solved at step %lld (%.3g s)", (long long)tr.solve_step,
                 tr.solve_s);
    }
    if (s == LOGT_OK && tr.budget_step >= 0) {
        const size_t len = strlen(what);
        snprintf(what + len, nwhat - len, "  stopped by max_train_s = %g s at step %lld",
                 r->max_train_s, (long long)tr.budget_step);
    }
    if (s == LOGT_OK && tr.stopped_short) {
        const size_t len = strlen(what);
        snprintf(what + len, nwhat - len, "  (curriculum at T = %d: no test)", tr.stopped_short);
    }
    return s;
}
