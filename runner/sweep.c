/* sweep.c — `logt run`: the runs of an experiment's sweep (or of one shard of it) into its
 * results file, resuming what an earlier run of the same file left.
 *
 * A run already stored as ok (or failed, unless --retry-failed) is skipped; one stored
 * without a status was interrupted and is redone in its group, a training run from its
 * checkpoint. Each run's group gets its attributes when it starts and its outcome (status,
 * values, summary row) when it ends; Ctrl-C stops the sweep between runs, or a training
 * run at its next step. The kinds of run are in speed.c and train_run.c.
 *
 * Test hook (tests/test_runner.c, tests/test_shard.c): LOGT_TEST_DIE_AFTER_RUNS=N makes
 * the process _exit(137) once N runs have finished in it, like a kill -9.
 */
#include "run_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/cuda.h"
#include "peer.h"

/* ---- stopping on Ctrl-C -------------------------------------------------------------- */

volatile sig_atomic_t run_stop_requested;
static void on_signal(int sig)
{
    run_stop_requested = sig;   /* which one, for the exit status */
}

int run_env_int(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? atoi(v) : 0;
}

/* ---- the device ---------------------------------------------------------------------- */

static void version3(char *buf, size_t n, long v, long major_div)
{
    snprintf(buf, n, "%ld.%ld.%ld", v / major_div, v % major_div / 100, v % 100);
}

void logt_describe_device(logt_device dev, logt_device_desc *d)
{
    memset(d, 0, sizeof *d);
    char cpu[256];
    logt_cpu_name(cpu, sizeof cpu);
    snprintf(d->device, sizeof d->device, "cpu: %s (%ld cores)", cpu, sysconf(_SC_NPROCESSORS_ONLN));
#ifdef LOGT_HAVE_CUDA
    logt_device_info info;
    if (dev == LOGT_CUDA && logt_cuda_info(&info) == LOGT_OK) {
        logt_strlcpy(d->device, sizeof d->device, info.name);
        snprintf(d->driver, sizeof d->driver, "%d.%d", info.driver_version / 1000,
                 info.driver_version % 1000 / 10);
        snprintf(d->runtime, sizeof d->runtime, "%d.%d", info.runtime_version / 1000,
                 info.runtime_version % 1000 / 10);
        /* cuDNN 9 counts major*10000, earlier major*1000; cuBLAS 12 major*10000 */
        version3(d->cudnn, sizeof d->cudnn, (long)info.cudnn_version,
                 info.cudnn_version >= 90000 ? 10000 : 1000);
        version3(d->cublas, sizeof d->cublas, info.cublas_version,
                 info.cublas_version >= 100000 ? 10000 : 1000);
        d->have_versions = 1;
    }
#else
    (void)dev;
    (void)version3;
#endif
}

void logt_default_out(const char *name, char *buf, size_t n) { snprintf(buf, n, "results/local/%s.h5", name); }
void logt_reference_path(const char *name, char *buf, size_t n) { snprintf(buf, n, "results/%s.h5", name); }

/* ---- a run of the sweep -------------------------------------------------------------- */

static void row_init(logt_summary_row *row, const logt_run_spec *r, int64_t id)
{
    memset(row, 0, sizeof *row);
    row->run = id;
    logt_strlcpy(row->kind, sizeof row->kind, logt_kind_names[r->kind]);
    logt_strlcpy(row->model, sizeof row->model, r->cfg.model);
    logt_strlcpy(row->backend, sizeof row->backend, logt_device_name(r->cfg.device));
    logt_strlcpy(row->task, sizeof row->task, r->task);
    logt_strlcpy(row->knobs, sizeof row->knobs, r->knobs);
    for (int a = 0; a < logt_naxes; a++) logt_axis_to_row(&logt_axes[a], r, row);
    row->median_ms = row->p10_ms = row->p90_ms = row->tokens_per_s = NAN;
    row->final_loss = row->final_eval_loss = row->final_eval_acc = NAN;
    row->bytes = row->gbps = row->copy_gbps = row->pct_of_copy = row->iterations = NAN;
    row->test_loss = row->test_acc = row->solve_s = NAN;
}

/* The attributes a run group carries from its start; in a shard file also sweep_index,
 * the run's place in the whole sweep (-1: not a shard). */
static logt_status run_attrs(logt_store *st, int64_t id, const logt_run_spec *r, int64_t sweep_index,
                             const logt_device_desc *dd, const char *commit, const char *host)
{
    char now[64];
    logt_iso8601(now, sizeof now);
    const logt_model_cfg *c = &r->cfg;
    const char *strs[][2] = {
        {"kind", logt_kind_names[r->kind]},
        {"model", c->model},
        {"backend", logt_device_name(c->device)},
        {"knobs", r->knobs},
        {"label", r->label},
        {"started", now},
        {"host", host},
        {"device", dd->device},
        {"git_commit", commit},
        {"logt_version", LOGT_VERSION},
    };
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
        LOGT_TRY(logt_store_set_str(st, id, "", strs[i][0], strs[i][1]));
    for (int a = 0; a < logt_naxes; a++) {   /* numbers as int64 attributes, the rest as text */
        const logt_axis *ax = &logt_axes[a];
        char v[LOGT_WORD];
        logt_axis_text(ax, r, v, sizeof v);
        LOGT_TRY(logt_axis_is_number(ax) ? logt_store_set_i64(st, id, "", ax->name, logt_axis_i64(ax, r))
                                         : logt_store_set_str(st, id, "", ax->name, v));
    }
    if (r->kind == LOGT_KIND_SPEED || r->kind == LOGT_KIND_KERNEL) {
        LOGT_TRY(logt_store_set_i64(st, id, "", "warmup", r->warmup));
        LOGT_TRY(logt_store_set_i64(st, id, "", "repeats", r->repeats));
    }
    if (r->kind == LOGT_KIND_SPEED) LOGT_TRY(logt_store_set_i64(st, id, "", "head_start_us", r->head_start_us));
    if (r->kind == LOGT_KIND_KERNEL) {
        LOGT_TRY(logt_store_set_i64(st, id, "", "C", (int64_t)r->B * c->hidden_size));
    } else if (r->kind == LOGT_KIND_TRAIN) {
        LOGT_TRY(logt_store_set_str(st, id, "", "task", r->task));
        LOGT_TRY(logt_store_set_i64(st, id, "", "steps", r->steps));
        LOGT_TRY(logt_store_set_i64(st, id, "", "eval_every", r->eval_every));
        LOGT_TRY(logt_store_set_i64(st, id, "", "eval_batches", r->eval_batches));
        LOGT_TRY(logt_store_set_i64(st, id, "", "test_batches", r->test_batches));
        LOGT_TRY(logt_store_set_f64(st, id, "", "lr", r->lr));
        LOGT_TRY(logt_store_set_f64(st, id, "", "clip", r->clip));
    }
    if (sweep_index >= 0) LOGT_TRY(logt_store_set_i64(st, id, "", "sweep_index", sweep_index));
    return logt_store_flush(st);
}

/* Run one point; returns a fatal (results file) error, else OK with the row filled. */
static logt_status one_run(logt_ctx *ctx, const logt_run_spec *r, logt_store *st, int64_t id,
                           int resume, progress *pr, logt_summary_row *row, char *err, size_t nerr,
                           int *interrupted)
{
    logt_status s = LOGT_OK;
    int fatal = 0;
    char what[160] = "", detail[sizeof ((logt_model *)0)->detail] = "";
    int budget_stopped = 0, skipped = 0;
    row_init(row, r, id);
    err[0] = '\0';
    if (logt_peer_of(r->cfg.model)) {
        s = one_peer_run(r, st, id, row, what, sizeof what, &skipped, interrupted, &fatal);
        if (*interrupted) {
            logt_strlcpy(err, nerr, what);
            return LOGT_OK;
        }
    } else if (r->kind == LOGT_KIND_SPEED) {
        s = one_speed_run(ctx, r, st, id, row, what, sizeof what, detail, sizeof detail, &fatal);
    } else if (r->kind == LOGT_KIND_KERNEL) {
        s = one_kernel_run(ctx, r, st, id, row, what, sizeof what, &fatal);
    } else {
        run_inputs_free();   /* the training run's peak memory is its own */
        s = one_train_run(ctx, r, st, id, resume, pr, row, what, sizeof what, &budget_stopped,
                          interrupted, &fatal);
        if (*interrupted) {   /* where it stopped, for the sweep's last word */
            logt_strlcpy(err, nerr, what);
            return LOGT_OK;
        }
    }
    if (fatal) return s;
    logt_strlcpy(row->status, sizeof row->status, s == LOGT_OK ? "ok" : skipped ? "skipped" : "failed");
    if (s != LOGT_OK) logt_strlcpy(err, nerr, logt_user_msg());
    const struct { const char *name; double v; } vals[] = {
        {"median_ms", row->median_ms}, {"p10_ms", row->p10_ms}, {"p90_ms", row->p90_ms},
        {"tokens_per_s", row->tokens_per_s}, {"final_loss", row->final_loss},
        {"final_eval_loss", row->final_eval_loss}, {"final_eval_acc", row->final_eval_acc},
        {"bytes", row->bytes}, {"gbps", row->gbps}, {"copy_gbps", row->copy_gbps},
        {"pct_of_copy", row->pct_of_copy}, {"iterations", row->iterations},
        {"test_loss", row->test_loss}, {"test_acc", row->test_acc}, {"solve_s", row->solve_s},
    };
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++)
        if (!isnan(vals[i].v)) LOGT_TRY(logt_store_set_f64(st, id, "", vals[i].name, vals[i].v));
    LOGT_TRY(logt_store_set_i64(st, id, "", "peak_mem_bytes", row->peak_mem_bytes));
    LOGT_TRY(logt_store_set_str(st, id, "", "impl", row->impl));
    if (detail[0]) LOGT_TRY(logt_store_set_str(st, id, "", "detail", detail));
    /* a training run finished ok is not resumed (unless its time budget stopped it: a larger
     * budget continues it, when keep_checkpoint is on): its checkpoint, weights and Adam's
     * moments twice, would only make the file several times larger than its results. Removed
     * before the status is written and flushed, so that both last; the file gets the space
     * back when the sweep ends (logt_store_compact). */
    if (r->kind == LOGT_KIND_TRAIN && s == LOGT_OK && (!budget_stopped || !r->keep_checkpoint))
        LOGT_TRY(logt_store_remove(st, id, "checkpoint"));
    LOGT_TRY(logt_store_run_finish(st, row, err));
    pr->cost_done += r->cost;
    if (s == LOGT_OK) {
        progress_line(pr, r, what, pr->cost_done, 1);
    } else {
        if (pr->tty) fprintf(stderr, "\r\033[K");
        fprintf(stderr, "[%d/%d%s%s] %s  %s: %s\n", pr->index, pr->total,
                *pr->shard ? " of " : "", pr->shard, r->label, skipped ? "SKIPPED" : "FAILED", err);
    }
    return LOGT_OK;
}

/* A training run finished ok because its time budget stopped it, checkpoint kept, continues
 * under a larger budget or none (max_train_s is not part of the key): time-limited jobs can
 * train one run in turns. */
static int extendable(logt_store *st, int64_t id, const logt_run_spec *r)
{
    int64_t at;
    double was;
    if (r->kind != LOGT_KIND_TRAIN || id < 0 || !logt_store_has(st, id, "", "budget_stop_step") ||
        !logt_store_has(st, id, "checkpoint", "latest"))
        return 0;
    if (logt_store_get_i64(st, id, "", "budget_stop_step", &at) != LOGT_OK || at < 0 ||
        logt_store_get_f64(st, id, "", "max_train_s", &was) != LOGT_OK)
        return 0;
    return r->max_train_s <= 0 || r->max_train_s > was;
}

/* HDF5 does not give back the space of deleted objects: a sweep that removed checkpoints
 * (weights and Adam's moments, often most of a training file) rewrites the file without them.
 * A failure leaves the file as it was, whole, and is only a warning. */
static void compact(const char *path, int removed)
{
    int64_t before, after;
    char b[32], a[32];
    if (logt_store_compact(path, &before, &after) != LOGT_OK) {
        fprintf(stderr, "logt: warning: %s keeps the space of %d removed checkpoint%s: %s "
                "(h5repack gives it back)\n", path, removed, removed == 1 ? "" : "s", logt_errmsg());
        return;
    }
    logt_fmt_bytes((double)before, b, sizeof b);
    logt_fmt_bytes((double)after, a, sizeof a);
    fprintf(stderr, "logt: %s compacted, %s -> %s (the space of %d removed checkpoint%s)\n", path, b, a,
            removed, removed == 1 ? "" : "s");
}

/* ---- the sweep's phases -------------------------------------------------------------- */

/* The runs of the sweep this process runs: all of them, or a shard's, runs k = shard,
 * shard + nshards, ...: place[j] is run j's k. */
static logt_status shard_runs(const logt_experiment *e, const logt_run_opts *opts, logt_run_report *rep,
                              logt_run_spec **out, int **out_place, int *out_n)
{
    logt_run_spec *runs = NULL;
    int nruns = 0;
    LOGT_TRY(logt_exp_runs(e, &runs, &nruns));
    rep->sweep_total = nruns;
    const int sharded = opts->nshards > 0;
    int *place = malloc((size_t)(nruns > 0 ? nruns : 1) * sizeof *place);
    if (!place) {
        free(runs);
        return LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    }
    int kept = 0;
    for (int k = 0; k < nruns; k++)
        if (!sharded || k % opts->nshards == opts->shard) {
            runs[kept] = runs[k];
            place[kept++] = k;
        }
    nruns = kept;
    rep->total = nruns;
    *out = runs, *out_place = place, *out_n = nruns;
    return LOGT_OK;
}

/* Where the results go: --out, else results/local/NAME.h5, or a shard's file beside it. */
static void results_path(const logt_experiment *e, const logt_run_opts *opts, logt_run_report *rep)
{
    if (opts->out) logt_strlcpy(rep->out, sizeof rep->out, opts->out);
    else logt_default_out(e->name, rep->out, sizeof rep->out);
    if (opts->nshards > 0 && !opts->out) {
        char whole[sizeof rep->out];
        logt_strlcpy(whole, sizeof whole, rep->out);
        logt_shard_path(whole, opts->shard, opts->nshards, rep->out, sizeof rep->out);
    }
}

/* Where the runs run, as each run group records it. */
typedef struct machine {
    char commit[128], host[256];
    logt_device_desc dd;
} machine;

/* The results file rep->out opened for the sweep (created when missing), after the checks
 * that it may take these runs. */
static logt_status open_results(const logt_experiment *e, logt_ctx *ctx, const logt_run_opts *opts,
                                const logt_run_report *rep, machine *m, logt_store **out)
{
    const int sharded = opts->nshards > 0;
    logt_git_commit(m->commit, sizeof m->commit);
    logt_hostname(m->host, sizeof m->host);
    logt_describe_device(ctx->device, &m->dd);
    const logt_device_desc *dd = &m->dd;
    char *text = logt_exp_text(e);
    logt_store_meta meta = {
        .experiment = e->name, .experiment_ini = text, .backend = e->backend,
        .git_commit = m->commit, .host = m->host, .device = dd->device,
        .driver_version = dd->have_versions ? dd->driver : NULL,
        .cuda_runtime_version = dd->have_versions ? dd->runtime : NULL,
        .cudnn_version = dd->have_versions ? dd->cudnn : NULL,
        .cublas_version = dd->have_versions ? dd->cublas : NULL,
        .shard_index = sharded ? opts->shard : 0, .shard_count = sharded ? opts->nshards : 0,
        .sweep_runs = sharded ? rep->sweep_total : 0,
    };
    logt_store *st = NULL;
    logt_status s = text ? run_check_shard_file(rep->out, &meta)
                         : LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    if (s == LOGT_OK) s = logt_store_open(rep->out, &meta, &st);
    free(text);
    for (int k = 0; s == LOGT_OK && k < e->nkinds; k++)
        if (e->kinds[k] == LOGT_KIND_KERNEL && !logt_store_summary_has(st, "gbps")) {
            s = LOGT_USER_FAIL(LOGT_EINVAL,
                               "%s was written by an older logt: its /summary has no columns for "
                               "kernel runs (bytes, gbps, copy_gbps, pct_of_copy). HINT: write them "
                               "to a new file with --out NEW.h5", rep->out);
            logt_store_close(st);
        }
    if (s == LOGT_OK) *out = st;
    return s;
}

/* What is left to do, todo[ntodo] (indices into runs), and its cost for the ETA; said on
 * stderr. */
static logt_status plan(const logt_experiment *e, const logt_run_opts *opts, const logt_run_spec *runs,
                        int nruns, logt_store *st, logt_run_report *rep, progress *pr, int **out_todo,
                        int *out_ntodo)
{
    logt_status s = LOGT_OK;
    int *todo = malloc((size_t)(nruns > 0 ? nruns : 1) * sizeof *todo), ntodo = 0;
    if (!todo) s = LOGT_FAIL(LOGT_ENOMEM, "out of host memory");
    for (int i = 0; s == LOGT_OK && i < nruns; i++) {
        int64_t id;
        logt_run_state state;
        logt_store_find(st, runs[i].key, &id, &state);
        if ((state == LOGT_RUN_OK && !extendable(st, id, &runs[i])) ||
            (state == LOGT_RUN_FAILED && !opts->retry_failed)) {
            rep->skipped++;
            if (state == LOGT_RUN_FAILED) rep->failed++;
            continue;
        }
        todo[ntodo++] = i;
        pr->cost_total += runs[i].cost;
    }
    pr->total = ntodo;
    if (s == LOGT_OK) {
        if (opts->nshards > 0)
            fprintf(stderr, "logt: %s on %s: shard %d/%d: %d of the sweep's %d runs", e->name,
                    e->backend, opts->shard, opts->nshards, nruns, rep->sweep_total);
        else
            fprintf(stderr, "logt: %s on %s: %d runs", e->name, e->backend, nruns);
        if (rep->skipped)
            fprintf(stderr, ", %d already in %s (skipped%s)", rep->skipped, rep->out,
                    rep->failed ? "; --retry-failed redoes the failed ones" : "");
        fprintf(stderr, ", %d to run -> %s\n", ntodo, rep->out);
    }
    *out_todo = todo, *out_ntodo = ntodo;
    return s;
}

static void count(logt_run_report *rep, const logt_summary_row *row)
{
    if (!strcmp(row->status, "ok")) rep->ok++;
    else if (!strcmp(row->status, "skipped")) rep->unavailable++;
    else rep->failed++;
}

/* The runs todo[ntodo] one after the other, until the end, a results-file error or Ctrl-C;
 * counted in rep. place: each run's place in the whole sweep (for a shard file). */
static logt_status run_todo(logt_ctx *ctx, const logt_run_opts *opts, const logt_run_spec *runs,
                            const int *place, const int *todo, int ntodo, logt_store *st,
                            const machine *m, progress *pr, logt_run_report *rep)
{
    logt_status s = LOGT_OK;
    const int sharded = opts->nshards > 0;
    const int die_after = run_env_int("LOGT_TEST_DIE_AFTER_RUNS");
    for (int k = 0; s == LOGT_OK && k < ntodo; k++) {
        if (run_stop_requested) {
            rep->interrupted = 1;
            break;
        }
        const logt_run_spec *r = &runs[todo[k]];
        int64_t id;
        logt_run_state state;
        logt_store_find(st, r->key, &id, &state);
        /* an interrupted run resumes from its checkpoint, and so does one its time budget
         * stopped when the budget grew; a failed one starts over; one finished meanwhile (the
         * same key twice in the sweep) is not run again */
        if (state == LOGT_RUN_OK && !extendable(st, id, r)) {
            rep->skipped++;
            continue;
        }
        int resume = state == LOGT_RUN_INTERRUPTED || state == LOGT_RUN_OK;
        if (id >= 0) s = logt_store_run_reset(st, id);
        else s = logt_store_run_new(st, r->key, &id);
        if (s == LOGT_OK) s = run_attrs(st, id, r, sharded ? place[todo[k]] : -1, &m->dd, m->commit, m->host);
        if (s != LOGT_OK) break;
        pr->index = k + 1;
        progress_line(pr, r, "", pr->cost_done, 0);
        logt_summary_row row;
        char err[2048];
        int interrupted = 0;
        s = one_run(ctx, r, st, id, resume, pr, &row, err, sizeof err, &interrupted);
        if (s != LOGT_OK) break;
        if (interrupted || run_stop_requested) {
            rep->interrupted = 1;
            if (interrupted) snprintf(rep->stopped, sizeof rep->stopped, "%s: %s", r->label, err);
            else {   /* the run finished before the signal was seen */
                rep->ran++;
                count(rep, &row);
            }
            break;
        }
        rep->ran++;
        count(rep, &row);
        if (die_after > 0 && rep->ran == die_after) _exit(137);
    }
    return s;
}

logt_status logt_run_experiment(const logt_experiment *e, logt_ctx *ctx, const logt_run_opts *opts,
                                logt_run_report *rep)
{
    memset(rep, 0, sizeof *rep);
    logt_run_spec *runs = NULL;
    int *place = NULL, nruns = 0;
    LOGT_TRY(shard_runs(e, opts, rep, &runs, &place, &nruns));
    const int sharded = opts->nshards > 0;
    results_path(e, opts, rep);
    machine m;
    logt_store *st = NULL;
    logt_status s = open_results(e, ctx, opts, rep, &m, &st);
    if (s != LOGT_OK) {
        free(place);
        free(runs);
        return s;
    }

    progress pr = {.tty = isatty(2), .t0 = logt_now()};
    if (sharded) snprintf(pr.shard, sizeof pr.shard, "shard %d/%d", opts->shard, opts->nshards);
    int *todo = NULL, ntodo = 0;
    s = plan(e, opts, runs, nruns, st, rep, &pr, &todo, &ntodo);

    struct sigaction sa = {0}, old_int, old_term, old_hup;
    sa.sa_handler = on_signal;
    sa.sa_flags = (int)SA_RESETHAND;   /* a second Ctrl-C kills at once */
    sigemptyset(&sa.sa_mask);
    run_stop_requested = 0;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    sigaction(SIGHUP, &sa, &old_hup);   /* a closed terminal: a peer's process group must go too */
    if (s == LOGT_OK) s = run_todo(ctx, opts, runs, place, todo, ntodo, st, &m, &pr, rep);
    run_inputs_free();
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGHUP, &old_hup, NULL);
    rep->signal = rep->interrupted ? (int)run_stop_requested : 0;
    if (pr.tty && ntodo) fprintf(stderr, "\r\033[K");
    if (s == LOGT_OK) {
        char el[32];
        logt_fmt_duration(logt_now() - pr.t0, el, sizeof el);
        char un[48] = "";
        if (rep->unavailable) snprintf(un, sizeof un, ", %d skipped", rep->unavailable);
        fprintf(stderr, "logt: %s%s%s: ran %d of %d runs in %s (%d ok, %d failed%s) -> %s\n", e->name,
                sharded ? ", " : "", pr.shard, rep->ran, ntodo, el, rep->ok, rep->ran - rep->ok - rep->unavailable, un, rep->out);
    }
    free(todo);
    free(place);
    free(runs);
    char msg[2048];
    logt_strlcpy(msg, sizeof msg, logt_errmsg());
    const int removed = st ? logt_store_removed(st) : 0;
    logt_status c = logt_store_close(st);
    if (s == LOGT_OK && c == LOGT_OK && removed > 0 && !rep->interrupted) compact(rep->out, removed);
    if (s != LOGT_OK) logt_fail_at(s, "", 0, "%s", strncmp(msg, ":0: ", 4) ? msg : msg + 4);
    return s != LOGT_OK ? s : c;
}
