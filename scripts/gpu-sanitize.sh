#!/bin/sh
# gpu-sanitize.sh — the CUDA tests under compute-sanitizer, one test a process, on a GPU machine,
# after `make bundle`: memcheck for every CUDA test, racecheck and synccheck for the fused
# flashrnn kernels' and the scan's tests. Each test's log goes to $OUT/sanitize/, one summary
# line a test to $OUT/sanitize.txt (tool, test, exit, compute-sanitizer's error summary).
#
#   scripts/gpu-sanitize.sh [-t SECONDS_PER_TEST] [-j PARALLEL] [-b BUDGET_SECONDS] [-l LIST] [BUNDLE_DIR]
#
# -l LIST runs only LIST's lines ("TOOL SUITE/TEST", e.g. "racecheck scan_cuda/staged_tiles");
# "TOOL SUITE/TEST#N" runs only the test's N-th case (from 0; LOGT_TEST_CASE, tests/gpu.h: the
# flashrnn and scan CUDA tests), for a test too slow under a sanitizer as a whole. A third
# field checks only the kernels whose names contain it ("racecheck
# flashrnn_cuda/grad_overlap_matches_the_reference#0 flashrnn_bwd": compute-sanitizer's
# --kernel-name kns=...; the others run unchecked).
# A run is clean (no report), clean with no CUDA call (the test touches no GPU), no test ran
# (it skipped: too few GPUs, say), reports in cuBLAS only (racecheck's hazards all inside
# cuBLAS's own kernels, not logt's), reports in NCCL only (memcheck's, all raised inside
# NCCL's communicator setup), REPORTS (look at its log), a failed test, or TIMEOUT; a
# run not started within BUDGET seconds is not run, and none ends after BUDGET + SECONDS.
# synccheck tracks 65536 barriers, far past its default: the fused kernels' blocks have several,
# and at 4096 a grid-synchronised dense head overflowed the tracking ("results might be
# incorrect") and the test's next cuBLAS call failed under the tool.
#
# The tests run with LOGT_TEST_SMALL=1: those that loop over knob variants run the first only
# (tests/test_flashrnn_cuda.c). The tests whose point is a large shape (2^31 elements, the
# 16-bit step tag's wrap, a full-size layer) are left out here, as named in SKIP. A test that
# outlasts its time is reported as such, not as clean.
set -u
per=240 par=4 budget=540 list=""
while getopts t:j:b:l: o; do
    case $o in
    t) per=$OPTARG ;;
    j) par=$OPTARG ;;
    b) budget=$OPTARG ;;
    l) list=$OPTARG ;;
    *) echo "usage: $0 [-t SECONDS_PER_TEST] [-j PARALLEL] [-b BUDGET_SECONDS] [-l LIST] [BUNDLE_DIR]" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
bundle=${1:-bundle}
out=${OUT:-/tmp/logt-gpu}
rm -rf "$out/sanitize"
mkdir -p "$out/sanitize"
: > "$out/sanitize.txt"
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
[ -x "$san" ] || { echo "gpu-sanitize: compute-sanitizer not found (install the CUDA toolkit's)" >&2; exit 1; }

# the CUDA suites: every *_cuda suite, and the multi-GPU ones (which run with G = 1 on one GPU)
MULTI_SUITES='scan_multi deer_multi'
RACE_SUITES='flashrnn_cuda scan_cuda'
# large shapes by design: 2^31 elements; 2^16 + steps to wrap the step tag; T = 1024, D = 768
SKIP='scan_cuda/beyond_2_to_31_elements sqnorm_cuda/beyond_2_to_31_elements'
SKIP="$SKIP flashrnn_cuda/grid_exchange_past_the_16_bit_step_tag flashrnn_cuda/proj_overlap_full_size_ends"

"$bundle/run" logt-tests --list 2>&1 | awk '
    /^[^ │├└]/ { suite = $1; sub(/:.*/, "", suite); next }
    { name = $NF; if (name != "") print suite "/" name }' > "$out/sanitize/all.txt"

jobs=$out/sanitize/jobs.txt
: > "$jobs"
[ -n "$list" ] && grep '^[a-z]' "$list" > "$jobs"
[ -n "$list" ] || while read -r t; do
    suite=${t%%/*}
    case " $SKIP " in *" $t "*) echo "skip $t (large shape by design)" >> "$out/sanitize.txt"; continue ;; esac
    case "$suite" in *_cuda) ;; *) case " $MULTI_SUITES " in *" $suite "*) ;; *) continue ;; esac ;; esac
    echo "memcheck $t" >> "$jobs"
    case " $RACE_SUITES " in *" $suite "*) echo "racecheck $t" >> "$jobs"; echo "synccheck $t" >> "$jobs" ;; esac
done < "$out/sanitize/all.txt"
echo "gpu-sanitize: $(wc -l < "$jobs") runs, $par at a time, ${per} s each at most, ${budget} s in all" >&2

start=$(date +%s)
export LOGT_TEST_SMALL=1 san per bundle out start budget
# shellcheck disable=SC2016
xargs -P "$par" -L 1 sh -c '
    tool=$1 t=${2%%#*} log=$out/sanitize/$1-$(echo "$2" | tr /# _-).log
    tcase=""; case $2 in *#*) tcase=${2##*#} ;; esac
    left=$(( budget + per - ($(date +%s) - start) ))   # no run ends later than budget + per
    if [ $(( $(date +%s) - start )) -ge "$budget" ]; then echo "$tool $2: not run (budget spent)"; exit 0; fi
    [ "$left" -lt "$per" ] && per=$left
    extra=""; [ "$tool" = synccheck ] && extra="--num-cuda-barriers 65536"
    [ -n "${3:-}" ] && extra="$extra --kernel-name kns=$3"
    # shellcheck disable=SC2086
    LOGT_TEST_CASE=$tcase timeout -s KILL "$per" "$san" --tool "$tool" $extra --error-exitcode 86 \
        --print-limit 10000 "$bundle/run" logt-tests --filter "$t" --jobs 1 > "$log" 2>&1
    rc=$?
    sum=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | sort | uniq -c | tr -s " " | tr "\n" ";")
    passed=$(grep -c "Tested: 1 | Passing: 1 | Failing: 0 | Crashing: 0" "$log")
    ours=$(grep -E "Race reported|Barrier error|Invalid |Program hit" "$log" | grep -Evc "nvjet_|cutlass|xmma|cublas")
    # reports whose host backtrace runs through NCCL: its communicator setup probes kernel
    # images this GPU has none of (cudaErrorNoKernelImageForDevice), handled inside NCCL
    notnccl=$(awk "/^========= (Program hit|Invalid )/ { n++; open = 1; seen = 0 }
                   open && /libnccl/ { seen = 1 }
                   open && /^========= *\$/ { if (seen) k++; open = 0 }
                   END { print n - k }" "$log")
    case $rc in
    0) what=clean ;;
    86) if [ "$tool" = racecheck ] && [ "$ours" -eq 0 ] && [ "$passed" -eq 1 ]; then what="reports in cuBLAS only"
        elif [ "$tool" = memcheck ] && [ "$notnccl" -eq 0 ] && [ "$passed" -eq 1 ]; then what="reports in NCCL only"
        else what=REPORTS; fi ;;
    137) what="TIMEOUT after $per s" ;;
    *) if grep -q "terminated before first instrumented API call" "$log" && [ "$passed" -eq 1 ]; then
           what="clean, no CUDA call"; else what="exit $rc"; fi ;;
    esac
    if grep -q "Tested: 0 | Passing: 0 | Failing: 0 | Crashing: 0" "$log"; then
        what="no test ran (it skipped, or the filter names none)"
    elif [ -n "$tcase" ] && [ "$passed" -eq 1 ] && ! grep -q "test case $tcase ran" "$log"; then
        what="no case $tcase ran (the test has fewer cases)"
    elif [ "$passed" -ne 1 ]; then
        case $what in TIMEOUT*) ;; *) what="$what; the test FAILED" ;; esac
    fi
    echo "$tool $2${3:+ (kernels *$3*)}: $what [$sum]"
' _ < "$jobs" >> "$out/sanitize.txt"
echo "gpu-sanitize: done in $(( $(date +%s) - start )) s; $(grep ": clean" "$out/sanitize.txt" | grep -vc FAILED) clean, $(grep -c "cuBLAS only" "$out/sanitize.txt") with reports in cuBLAS only, $(grep -c "NCCL only" "$out/sanitize.txt") in NCCL only, $(grep -Ec "REPORTS|exit |FAILED" "$out/sanitize.txt") with reports or errors, $(grep -c TIMEOUT "$out/sanitize.txt") timed out, $(grep -c "not run" "$out/sanitize.txt") not run" | tee -a "$out/sanitize.txt" >&2
