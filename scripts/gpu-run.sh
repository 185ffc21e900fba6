#!/bin/sh
# gpu-run.sh — one call on a GPU machine, everything into $OUT: the device's description,
# the test suite, the kernel workbenches, then each experiment named, each under its own
# time limit (SIGINT: a sweep cut short keeps its finished runs and resumes when rerun).
#
#   scripts/gpu-run.sh [-t TEST_SECONDS] [-f TEST_FILTER] [-d DEV_SECONDS] [EXP[:SECONDS]]...
#
# -t 0 skips the tests, -d 0 the workbenches (bundle/bin/*-dev). EXP is a directory under
# experiments/, run by `logt reproduce EXP --backend cuda` into results/local/EXP.h5 (resuming
# what an earlier call left there: carry results/local/ to the machine), copied to $OUT/EXP.h5,
# with its log and claims table in $OUT/EXP.log. Run from the repository root after
# `make bundle`, with LOGT_COMMIT set to the commit the bundle was built from
# (git rev-parse --short HEAD), so the results files record it.
set -u
out=${OUT:-/tmp/logt-gpu}
tests=300 filter="" dev=0
while getopts t:f:d: o; do
    case $o in
    t) tests=$OPTARG ;;
    f) filter=$OPTARG ;;
    d) dev=$OPTARG ;;
    *) echo "usage: $0 [-t TEST_SECONDS] [-f TEST_FILTER] [-d DEV_SECONDS] [EXP[:SECONDS]]..." >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv \
    > "$out/smi.txt" 2>&1
bundle/run logt info > "$out/info.txt" 2>&1
if [ "$tests" -gt 0 ]; then
    timeout -s INT "$tests" bundle/run logt-tests --jobs 4 ${filter:+--filter "$filter"} \
        > "$out/tests.log" 2>&1
    echo "tests: exit $? ($(tail -1 "$out/tests.log"))" | tee -a "$out/info.txt"
fi
if [ "$dev" -gt 0 ]; then
    for b in bundle/bin/*-dev; do
        [ -e "$b" ] || continue
        name=$(basename "$b")
        timeout -s INT "$dev" bundle/run "$name" > "$out/$name.txt" 2>&1
        echo "$name: exit $?" | tee -a "$out/info.txt"
    done
fi
for arg in "$@"; do
    exp=${arg%%:*} secs=${arg#*:}
    [ "$secs" = "$arg" ] && secs=300
    start=$(date +%s)
    timeout -s INT "$secs" bundle/run logt reproduce "$exp" --backend cuda > "$out/$exp.log" 2>&1
    echo "$exp: exit $? in $(( $(date +%s) - start )) s" | tee -a "$out/info.txt"
    [ -e "results/local/$exp.h5" ] && cp "results/local/$exp.h5" "$out/$exp.h5"
done
