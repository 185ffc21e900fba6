/* merge.h — `logt merge`: join the shard files of one sweep into one results file.
 *
 * The shards (files of `logt run --shard I/N`) must come from one experiment as run
 * (the same experiment_ini, backend and sweep), one git commit and one logt version,
 * and be distinct: a shard given twice, or one run in two files, is refused. So is an
 * incomplete set (a shard missing, or a run not finished in its shard) unless `partial`
 * is set, which merges the finished runs there are.
 *
 * The runs are copied whole (attributes, datasets, checkpoints) in sweep order and
 * numbered from 0, with their summary rows in the same order: what one `logt run` of
 * the sweep writes, less the shard attributes (shard_index, shard_count, sweep_runs at
 * the root, sweep_index on each run). The root takes the shards' attributes: created
 * the earliest, updated the latest, host, device and versions their distinct values
 * joined by "; ". The file is written beside OUT under a temporary name and moved to
 * OUT at the end: OUT must not exist, and an error leaves no OUT and no temporary file.
 */
#ifndef LOGT_RUNNER_MERGE_H
#define LOGT_RUNNER_MERGE_H

#include <stddef.h>

#include "../core/status.h"
#include "util.h"

typedef struct logt_merge_report {
    char experiment[LOGT_WORD];
    int shards, nshards;    /* files joined, of the N shards of the sweep             */
    int sweep_total;        /* runs in the whole sweep                                 */
    int runs, ok, failed;   /* runs written to OUT                                     */
    int skipped;            /* of those, peers that could not run (status "skipped")   */
} logt_merge_report;

logt_status logt_merge(const char *out, char *const *in, int nin, int partial,
                       logt_merge_report *rep);

/* The results file a shard file's name belongs to: results/x.shard-1-of-4.h5 ->
 * results/x.h5. Returns 0, or -1 when the name is not of that form. */
int logt_merge_out_name(const char *shard_path, char *buf, size_t n);

#endif
