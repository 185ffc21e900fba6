#!/bin/sh
# slurm-sweep.sh — an experiment's sweep spread over a Slurm job array, then merged.
#
#   experiments/slurm-sweep.sh EXP_DIR N [logt run options, e.g. --backend cuda]
#
# Run it on a login node of the cluster, in a built repository (make). It submits two jobs:
#   1. an array of N tasks, sbatch --array=0-(N-1); task i (i = $SLURM_ARRAY_TASK_ID) runs
#        build/bin/logt run EXP_DIR --shard i/N --out results/NAME.shard-i-of-N.h5 [options]
#      and logs to results/NAME.shard-i-of-N.log;
#   2. once every task has ended (--dependency=afterany), the merge:
#        build/bin/logt merge --out results/NAME.h5 results/NAME.shard-{0..N-1}-of-N.h5
#      logging to results/NAME.merge.log. It waits for tasks that failed too: a run that
#      fails is a result (logt run exits 1 for it), and logt merge itself refuses a set of
#      shards with runs missing, naming the shards.
# NAME is the experiment's [experiment] name (else its directory's name); LOGT_OUT=FILE
# puts the merged file elsewhere (the shards go beside it). After a task fails or runs out
# of time, run the same command again: each shard resumes where it stopped and the
# finished ones have nothing left to do. The merge never replaces an existing results file.
#
# Resources: LOGT_SBATCH_ARGS goes to the array's sbatch (e.g. "--partition=gpu
# --gpus-per-task=1 --time=02:00:00"); sbatch's own SBATCH_* variables (SBATCH_ACCOUNT,
# SBATCH_PARTITION, ...) apply to both jobs. LOGT=PATH runs another logt binary.
set -eu

usage() {
    echo "usage: $0 EXP_DIR N [logt run options]   (N: the number of shards, one array task each)" >&2
    exit 2
}

role=submit
case "${1:-}" in --task | --merge) role=${1#--}; shift ;; esac
[ $# -ge 2 ] || usage
exp=$1 n=$2
shift 2
case "$n" in '' | *[!0-9]*) echo "slurm-sweep.sh: N is a number of shards (1 or more), got '$n'" >&2; exit 2 ;; esac
[ "$n" -ge 1 ] || { echo "slurm-sweep.sh: N is a number of shards (1 or more), got '$n'" >&2; exit 2; }
[ -f "$exp/experiment.ini" ] || { echo "slurm-sweep.sh: no experiment at $exp (no experiment.ini)" >&2; exit 2; }

name=$(sed -n '/^\[experiment\]/,/^\[/ s/^name *= *\([A-Za-z0-9._-]*\).*/\1/p' "$exp/experiment.ini" | head -n 1)
[ -n "$name" ] || name=$(basename "$exp")
out=${LOGT_OUT:-results/$name.h5}
stem=${out%.h5}
logt=${LOGT:-build/bin/logt}

case $role in
task)
    i=${SLURM_ARRAY_TASK_ID:?slurm-sweep.sh --task runs inside the job array it submits}
    exec "$logt" run "$exp" --shard "$i/$n" --out "$stem.shard-$i-of-$n.h5" "$@"
    ;;
merge)
    set --
    i=0
    while [ "$i" -lt "$n" ]; do
        set -- "$@" "$stem.shard-$i-of-$n.h5"
        i=$((i + 1))
    done
    exec "$logt" merge --out "$out" "$@"
    ;;
esac

# submit: both jobs run in the repository's root, whatever the directory they are sent from
root=$(cd "$(dirname "$0")/.." && pwd)
here=$(cd "$exp" && pwd)
case "$here" in "$root"/*) exp=${here#"$root"/} ;; *) exp=$here ;; esac
cd "$root"
command -v sbatch >/dev/null 2>&1 || { echo "slurm-sweep.sh: sbatch not found: run this where Slurm is" >&2; exit 1; }
[ -x "$logt" ] || { echo "slurm-sweep.sh: no logt at $root/$logt: build it (make) or set LOGT" >&2; exit 1; }
mkdir -p "$(dirname "$out")"
# shellcheck disable=SC2086  # LOGT_SBATCH_ARGS is a list of options
array=$(sbatch --parsable ${LOGT_SBATCH_ARGS:-} --chdir="$root" --job-name="logt-$name" \
    --array="0-$((n - 1))" --output="$stem.shard-%a-of-$n.log" \
    "$root/experiments/slurm-sweep.sh" --task "$exp" "$n" "$@")
array=${array%%;*}   # --parsable prints JOBID or JOBID;CLUSTER
merge=$(sbatch --parsable --chdir="$root" --job-name="logt-$name-merge" \
    --dependency="afterany:$array" --output="$stem.merge.log" \
    "$root/experiments/slurm-sweep.sh" --merge "$exp" "$n")
merge=${merge%%;*}
echo "slurm-sweep.sh: job $array runs the $n shards of $name ($stem.shard-*-of-$n.h5, .log);"
echo "  job $merge merges them into $out when all have ended (log $stem.merge.log)"
