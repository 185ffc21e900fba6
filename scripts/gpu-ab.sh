#!/bin/sh
# gpu-ab.sh — two builds of logt timed in one call on a GPU machine, alternating, so that their
# rows compare (times move between calls, much less within one). Each of ROUNDS rounds runs
# every spec with build A then build B (B first in even rounds). A spec is one line of SPECFILE:
# an experiment under experiments/ and the --set options that narrow its sweep, e.g.
#     flashrnn-headdim --set experiment.models=flashrnn --set sweep.head_dim=64,768
# Every run starts from an empty results file. The runs' lines go to $OUT/ab.log, tagged with
# the build and the round; $OUT/ab.txt is the table: each row's median over the rounds for A
# and for B, and B / A (above 1: B is slower).
#
#   scripts/gpu-ab.sh [-r ROUNDS] BUNDLE_A BUNDLE_B SPECFILE
set -u
rounds=2
while getopts r: o; do
    case $o in
    r) rounds=$OPTARG ;;
    *) echo "usage: $0 [-r ROUNDS] BUNDLE_A BUNDLE_B SPECFILE" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -eq 3 ] || { echo "usage: $0 [-r ROUNDS] BUNDLE_A BUNDLE_B SPECFILE" >&2; exit 2; }
a=$1 b=$2 specs=$3
out=${OUT:-/tmp/logt-gpu}
tmp=$(mktemp -d)
mkdir -p "$out"
: > "$out/ab.log"
nspec=$(grep -c '^[^#]' "$specs")
total=$((rounds * nspec * 2)) done=0 start=$(date +%s)

run_one() { # run_one LABEL BUNDLE ROUND EXP ARGS...
    label=$1 bundle=$2 round=$3 exp=$4
    shift 4
    rm -f "$tmp/r.h5"
    "$bundle/run" logt run "experiments/$exp" --backend cuda --out "$tmp/r.h5" "$@" < /dev/null 2>&1 |
        sed "s|^|$label r$round $exp |" >> "$out/ab.log"
    done=$((done + 1))
    el=$(( $(date +%s) - start ))
    echo "gpu-ab: $done/$total runs of logt, ${el} s elapsed, ETA $(( el * (total - done) / done )) s" >&2
}

grep '^[^#]' "$specs" > "$tmp/specs"
r=1
while [ "$r" -le "$rounds" ]; do
    while read -r exp args; do
        # shellcheck disable=SC2086
        if [ $((r % 2)) -eq 1 ]; then
            run_one A "$a" "$r" "$exp" $args; run_one B "$b" "$r" "$exp" $args
        else
            run_one B "$b" "$r" "$exp" $args; run_one A "$a" "$r" "$exp" $args
        fi
    done < "$tmp/specs"
    r=$((r + 1))
done
rm -rf "$tmp"

# the table: per row (experiment and the run's description), the median of each build's medians
grep ' median ' "$out/ab.log" | sed -E 's/^([AB]) r[0-9]+ ([^ ]+) \[[0-9]+\/[0-9]+\] (.*)  median ([0-9.e+-]+) ms.*/\1\t\2 \3\t\4/' |
    sort -t '	' -k2,2 -k1,1 -k3,3g | awk -F '\t' '
    function med(s,   n, v) { n = split(s, v, " "); return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }
    { vals[$2, $1] = vals[$2, $1] " " $3; rows[$2] = 1 }
    END {
        for (k in rows) {
            ma = med(vals[k, "A"]); mb = med(vals[k, "B"])
            printf "%-100s %10.4g %10.4g %7.3f\n", k, ma, mb, (ma > 0 ? mb / ma : 0)
        }
    }' | sort > "$tmp.rows"
{ printf "%-100s %10s %10s %7s\n" "row" "A ms" "B ms" "B / A"; cat "$tmp.rows"; } > "$out/ab.txt"
rm -f "$tmp.rows"
cat "$out/ab.txt"
