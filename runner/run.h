/* run.h — executing an experiment's sweep into its results file.
 *
 * Speed runs time `repeats` passes after `warmup` untimed ones; training runs
 * train a model on a synthetic task, appending losses as they go and saving a
 * checkpoint at every evaluation so that a killed run resumes. A run that fails
 * is recorded as failed and the sweep goes on; a results-file error stops it.
 */
#ifndef LOGT_RUNNER_RUN_H
#define LOGT_RUNNER_RUN_H

#include "../core/ctx.h"
#include "config.h"

typedef struct logt_run_opts {
    const char *out;        /* results file; NULL: results/NAME.h5                 */
    int retry_failed;       /* redo runs stored as failed                          */
} logt_run_opts;

typedef struct logt_run_report {
    int total, skipped, ran, ok, failed;
    int interrupted;        /* stopped by SIGINT/SIGTERM: rerun to resume          */
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

/* results/NAME.h5 */
void logt_default_out(const char *name, char *buf, size_t n);

#endif
