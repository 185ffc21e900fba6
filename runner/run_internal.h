/* run_internal.h — shared by the sources of `logt run` only: sweep.c (the sweep, resume),
 * speed.c (speed and kernel runs), train_run.c (training runs), checkpoint.c (their
 * checkpoints), progress.c (the progress line) and shard.c (shards).
 *
 * Each kind of run has one function that does its part of a run of the sweep: it runs
 * the point, fills the summary row and the line `what` printed when it ends, and writes
 * its per-run datasets. It returns the run's status; *fatal says the status is a
 * results-file (or out-of-memory) error that stops the sweep rather than failing the run.
 */
#ifndef LOGT_RUNNER_RUN_INTERNAL_H
#define LOGT_RUNNER_RUN_INTERNAL_H

#include <signal.h>

#include "../train/train.h"
#include "run.h"
#include "store.h"

/* ---- sweep.c ------------------------------------------------------------------------- */

/* Set by SIGINT/SIGTERM during a sweep: a training run stops at its next step, the sweep
 * before its next run. */
extern volatile sig_atomic_t run_stop_requested;
/* An environment variable as an integer, 0 when unset or empty (the test hooks). */
int run_env_int(const char *name);

/* ---- progress.c ---------------------------------------------------------------------- */

typedef struct progress {
    int tty, total, index;
    double t0, cost_total, cost_done, last_print;
    char shard[48];          /* "shard I/N" when sharded, else ""                   */
} progress;

/* tty: rewrite one line in place; otherwise print only when `final`. */
void progress_line(progress *p, const logt_run_spec *r, const char *what, double cost_now, int final);

/* ---- shard.c ------------------------------------------------------------------------- */

/* Refuse to add runs to a file of another shard, or shard runs to a whole sweep's file. */
logt_status run_check_shard_file(const char *path, const logt_store_meta *m);

/* ---- speed.c ------------------------------------------------------------------------- */

/* The q-quantile of v[n], linear between order statistics; NaN when n = 0. */
double run_quantile(const double *v, int n, double q);
/* Free the inputs kept for the next run of the same shape. */
void run_inputs_free(void);
/* detail[ndetail]: what the model says of its last call (its `detail`), "" if nothing. */
logt_status one_speed_run(logt_ctx *ctx, const logt_run_spec *r, logt_store *st, int64_t id,
                          logt_summary_row *row, char *what, size_t nwhat, char *detail,
                          size_t ndetail, int *fatal);
logt_status one_kernel_run(logt_ctx *ctx, const logt_run_spec *r, logt_store *st, int64_t id,
                           logt_summary_row *row, char *what, size_t nwhat, int *fatal);

/* ---- peer_run.c ---------------------------------------------------------------------- */

/* A run of model peer:NAME (peer.h), speed or kernel. *skipped: the peer cannot run here
 * (a package, interpreter or GPU missing; the error says what to install); *interrupted:
 * stopped by a signal (the row is then not to be recorded, what says so). */
logt_status one_peer_run(const logt_run_spec *r, logt_store *st, int64_t id, logt_summary_row *row,
                         char *what, size_t nwhat, int *skipped, int *interrupted, int *fatal);

/* ---- train_run.c --------------------------------------------------------------------- */

/* resume: go on from the run's latest checkpoint. *interrupted: stopped by a signal (the
 * row is then not to be recorded); *budget_stopped: max_train_s ended it. */
logt_status one_train_run(logt_ctx *ctx, const logt_run_spec *r, logt_store *st, int64_t id,
                          int resume, progress *pr, logt_summary_row *row, char *what, size_t nwhat,
                          int *budget_stopped, int *interrupted, int *fatal);

/* ---- checkpoint.c -------------------------------------------------------------------- */

/* Results-file errors stop the sweep; everything else fails only the run. For functions
 * with a `logt_status s`, an `int *fatal` and a `done:` label. */
#define STORE(call)                     \
    do {                                \
        logt_status st_s_ = (call);     \
        if (st_s_ != LOGT_OK) {         \
            *fatal = 1;                 \
            s = st_s_;                  \
            goto done;                  \
        }                               \
    } while (0)

/* Save tr's state into the slot `latest` does not name, then point `latest` at it. wall:
 * training seconds so far; neval: evaluations so far; stage: the curriculum stage. */
logt_status ckpt_save(logt_store *st, int64_t id, logt_trainer *tr, double wall, int64_t neval,
                      int stage, int *fatal);
/* Restore the latest checkpoint into tr; *wall and *neval from it. */
logt_status ckpt_load(logt_store *st, int64_t id, logt_trainer *tr, double *wall, int64_t *neval,
                      int *fatal);
/* The curriculum stage the latest checkpoint is in (0 for a run without a curriculum). */
logt_status ckpt_stage(logt_store *st, int64_t id, int *stage, int *fatal);

#endif
