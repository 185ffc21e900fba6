/* run.h — executing an experiment's sweep into its results file.
 *
 * Speed runs time `repeats` passes after `warmup` untimed ones; training runs
 * train a model on a synthetic task, appending losses as they go and saving a
 * checkpoint at every evaluation so that a killed run resumes. A run that fails
 * is recorded as failed and the sweep goes on; a results-file error stops it.
 * A shard (--shard I/N) runs every N-th run of the sweep from run I into a file of
 * its own, each run marked with its place in the sweep, for `logt merge` to join.
 */
#ifndef LOGT_RUNNER_RUN_H
#define LOGT_RUNNER_RUN_H

#include "../core/ctx.h"
#include "config.h"

typedef struct logt_run_opts {
    const char *out;        /* results file; NULL: results/local/NAME.h5, or for a shard
                             * results/local/NAME.shard-I-of-N.h5                        */
    int retry_failed;       /* redo runs stored as failed                          */
    int shard, nshards;     /* nshards > 0: only the runs k of the sweep with
                             * k % nshards == shard, into a shard file              */
} logt_run_opts;

typedef struct logt_run_report {
    int total, skipped, ran, ok, failed;   /* of this shard's runs, when sharded     */
    int unavailable;        /* of those ran, peers that could not run here (skipped) */
    int sweep_total;        /* runs in the whole sweep                             */
    int interrupted;        /* stopped by SIGINT/SIGTERM: rerun to resume          */
    int signal;             /* which of the two                                    */
    char stopped[1536];     /* the training run it stopped, and its checkpoint ("") */
    char out[4096];         /* the results file used                               */
} logt_run_report;

/* Run the sweep of a resolved experiment on ctx's backend. Returns an error only
 * for what stops the whole sweep (results file, out of memory); failed runs are
 * counted in rep->failed. */
logt_status logt_run_experiment(const logt_experiment *e, logt_ctx *ctx, const logt_run_opts *opts,
                                logt_run_report *rep);

/* The device as the results file records it. */
typedef struct logt_device_desc {
    char device[300], driver[32], runtime[32], cudnn[32], cublas[32];
    int have_versions;
} logt_device_desc;
void logt_describe_device(logt_device dev, logt_device_desc *d);

/* results/local/NAME.h5: where this machine's runs go (results/ itself holds the references,
 * which a run never writes unless --out names one) */
void logt_default_out(const char *name, char *buf, size_t n);
/* results/NAME.h5: the reference file of an experiment */
void logt_reference_path(const char *name, char *buf, size_t n);

/* "I/N" (--shard): shard I of N, counted from 0. An error saying what is wrong and
 * what would be right. */
logt_status logt_shard_parse(const char *s, int *shard, int *nshards);
/* The file of shard I of N beside the results file `out`:
 * results/x.h5 -> results/x.shard-I-of-N.h5. */
void logt_shard_path(const char *out, int shard, int nshards, char *buf, size_t n);

#endif
