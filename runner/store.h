/* store.h — the results file: one HDF5 file per experiment.
 *
 *   /                 attrs (UTF-8 strings): format, logt_version, git_commit, created,
 *                     updated, host, device, driver_version, cuda_runtime_version,
 *                     cudnn_version, cublas_version, experiment, backend, experiment_ini;
 *                     a shard file (int64): shard_index, shard_count, sweep_runs
 *   /runs/NNNNNN/     one group per run, attrs describing it (key, model, T, ..., status;
 *                     in a shard file sweep_index, the run's place in the whole sweep)
 *       time_ms, loss, grad_norm, wall_s, eval_* ...   f64 datasets
 *       checkpoint/   training state, see checkpoint.c
 *   /summary          compound, one row per finished run (logt_summary_row); files
 *                     written before a column existed are read with it NaN
 *
 * Growing datasets are chunked with an unlimited maximum size. A writer holds the file in
 * memory and commits it whole (logt_store_flush: a copy beside it, renamed over it), under a
 * lock of its own (PATH.lock): nothing here writes a file in place, truncates or deletes it.
 * An existing file must be whole and belong to the same experiment. Every HDF5 call is checked and a failure
 * is an error naming the file and the object; HDF5's own printing is off.
 * Paths inside a run ("checkpoint/0/w") create their groups as needed.
 */
#ifndef LOGT_RUNNER_STORE_H
#define LOGT_RUNNER_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "../core/status.h"

typedef struct logt_store logt_store;

/* What the root of a new file records (NULL: not written). A shard file (`logt run
 * --shard`, shard_count > 0) also records shard_index, shard_count and sweep_runs, the
 * number of runs in the whole sweep. */
typedef struct logt_store_meta {
    const char *experiment, *experiment_ini, *backend, *git_commit, *host, *device;
    const char *driver_version, *cuda_runtime_version, *cudnn_version, *cublas_version;
    int64_t shard_index, shard_count, sweep_runs;
} logt_store_meta;

/* Open `path` for writing, creating it (and its directory) when missing. An
 * existing file must be HDF5, writable and written for meta->experiment. */
logt_status logt_store_open(const char *path, const logt_store_meta *meta, logt_store **out);
logt_status logt_store_open_read(const char *path, logt_store **out);
/* Commit (a writer) and close, releasing the lock; st may be NULL. */
logt_status logt_store_close(logt_store *st);
/* A writer's commit: the whole file, atomically, to its path (store_file.c). */
logt_status logt_store_flush(logt_store *st);
const char *logt_store_path(const logt_store *st);
/* A string attribute of the root ("" and an error when it is missing). */
logt_status logt_store_root_str(logt_store *st, const char *name, char *buf, size_t n);
/* The same, whole, in a malloc'd string (for experiment_ini). */
logt_status logt_store_root_text(logt_store *st, const char *name, char **out);
logt_status logt_store_root_i64(logt_store *st, const char *name, int64_t *value);
int logt_store_root_has(logt_store *st, const char *name);
logt_status logt_store_set_root_str(logt_store *st, const char *name, const char *value);

/* ---- runs ---------------------------------------------------------------------- */
/* A run's state in a results file: none yet, started but not finished, finished ok or
 * failed, or skipped (a peer whose package or GPU is missing: run again by the next sweep). */
typedef enum { LOGT_RUN_NONE, LOGT_RUN_INTERRUPTED, LOGT_RUN_OK, LOGT_RUN_FAILED, LOGT_RUN_SKIPPED } logt_run_state;

/* The run stored under `key` (*id = -1 and LOGT_RUN_NONE when there is none). */
void logt_store_find(const logt_store *st, const char *key, int64_t *id, logt_run_state *state);
int logt_store_nruns(const logt_store *st);
/* The i-th run in id order. */
void logt_store_run_at(const logt_store *st, int i, int64_t *id, const char **key,
                       logt_run_state *state);
/* A new run group /runs/NNNNNN with its key. */
logt_status logt_store_run_new(logt_store *st, const char *key, int64_t *id);
/* Forget the outcome of a run about to be redone (its status and error). */
logt_status logt_store_run_reset(logt_store *st, int64_t id);
/* Copy run src_id of src, whole (attributes, datasets, checkpoints), into dst as run
 * dst_id, which must not exist there yet. Its summary row is not copied: see
 * logt_store_add_rows. */
logt_status logt_store_copy_run(logt_store *dst, logt_store *src, int64_t src_id, int64_t dst_id);

/* Attributes of an object of run `id`: obj "" is the run group itself. */
logt_status logt_store_set_str(logt_store *st, int64_t id, const char *obj, const char *name,
                               const char *value);
logt_status logt_store_set_i64(logt_store *st, int64_t id, const char *obj, const char *name,
                               int64_t value);
logt_status logt_store_set_f64(logt_store *st, int64_t id, const char *obj, const char *name,
                               double value);
logt_status logt_store_get_str(logt_store *st, int64_t id, const char *obj, const char *name,
                               char *buf, size_t n);
logt_status logt_store_get_i64(logt_store *st, int64_t id, const char *obj, const char *name,
                               int64_t *value);
logt_status logt_store_get_f64(logt_store *st, int64_t id, const char *obj, const char *name,
                               double *value);
/* Does the object (dataset or group, or attribute when name != NULL) exist? */
int logt_store_has(logt_store *st, int64_t id, const char *obj, const char *attr);
/* Delete an attribute of an object of run `id` (nothing when it is not there). */
logt_status logt_store_unset(logt_store *st, int64_t id, const char *obj, const char *name);

/* Delete an object (group or dataset) of run `id` (nothing when it is not there). HDF5 reuses
 * the space for what is written before the file is closed, but a file never shrinks by itself:
 * logt_store_compact gives the rest back. logt_store_removed: how many objects were deleted
 * since the store was opened. */
logt_status logt_store_remove(logt_store *st, int64_t id, const char *obj);
int logt_store_removed(const logt_store *st);

/* Rewrite the closed results file `path` without the space of deleted objects: every object
 * and root attribute is copied into PATH.compact, which then replaces PATH (a rename, so
 * that a failure at any point leaves PATH as it was). *before and *after: the sizes in bytes
 * (*after -1 on failure). */
logt_status logt_store_compact(const char *path, int64_t *before, int64_t *after);

/* f64 datasets of a run. write: fixed size, replacing what was there.
 * append: chunked, extensible. truncate: shrink to n (no-op when missing).
 * read: *v malloc'd, NULL and *n = 0 when the dataset is missing. */
logt_status logt_store_write(logt_store *st, int64_t id, const char *path, const double *v,
                             int64_t n);
logt_status logt_store_append(logt_store *st, int64_t id, const char *path, const double *v,
                              int64_t n);
logt_status logt_store_truncate(logt_store *st, int64_t id, const char *path, int64_t n);
logt_status logt_store_read(logt_store *st, int64_t id, const char *path, double **v, int64_t *n);

/* ---- the summary ----------------------------------------------------------------- */
/* Its fields are /summary's columns, in order; the sweep axes' columns (pass, dtype, cell,
 * T, ..., seed) are named by their rows in runner/axes.c. */
typedef struct logt_summary_row {
    int64_t run;
    char kind[8], model[32], backend[8], pass[16], dtype[8], cell[16], task[16];
    int64_t T, B, D, input_size, head_dim, layers;
    uint64_t seed;
    char knobs[256], impl[160], status[8];
    double median_ms, p10_ms, p90_ms, tokens_per_s;
    int64_t peak_mem_bytes;
    double final_loss, final_eval_loss, final_eval_acc;   /* NaN where not applicable */
    /* kernel runs (NaN for the others): minimum traffic of a call, bytes / median time
     * (GB/s), a device-to-device copy in the same run (GB/s), and 100·gbps / copy_gbps */
    double bytes, gbps, copy_gbps, pct_of_copy;
    /* iterative models (a trace of one residual per evaluation, deer): its length − 1 */
    double iterations;
    /* training runs that finished: the test split's loss and accuracy after the last step */
    double test_loss, test_acc;
    /* training runs with solve_acc: the training time (s) at the first evaluation reaching it */
    double solve_s;
} logt_summary_row;

/* Does the file's /summary have this column? Files of an older logt lack the newer
 * ones: reading them fills those with NaN ("" for text, 0 for integers); a row that
 * needs one cannot be written there (logt_store_run_finish says so). */
int logt_store_summary_has(const logt_store *st, const char *column);

/* Record a run's outcome: status ("ok", "failed", "skipped") and error attributes on its group,
 * its summary row (replacing an earlier row of the same run), then flush. */
logt_status logt_store_run_finish(logt_store *st, const logt_summary_row *row, const char *error);
/* Every summary row; *rows malloc'd. */
logt_status logt_store_summary(logt_store *st, logt_summary_row **rows, int64_t *n);
/* Append n rows to /summary as they are (runs copied with logt_store_copy_run), then flush. */
logt_status logt_store_add_rows(logt_store *st, const logt_summary_row *rows, int64_t n);

#endif
