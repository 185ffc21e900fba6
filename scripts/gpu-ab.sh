#!/bin/sh
# gpu-ab.sh — two builds of logt timed in one call on a GPU machine, alternating, so that their
# rows compare (times move between calls, much less within one). Each of ROUNDS rounds runs
# every spec with build A then build B (B first in even rounds). A spec is one line of SPECFILE:
# an experiment under experiments/ and the --set options that narrow its sweep, e.g.
#     flashrnn-headdim --set experiment.models=flashrnn --set sweep.head_dim=64,768
# Every run starts from an empty results file. The runs' lines go to $OUT/ab.log, tagged with
# the build and the round; $OUT/ab.txt is the table: each row's median over the rounds for A
# and for B with how many rounds gave one, and B / A (above 1: B is slower); a row one build
# did not give (its run failed: ab.log says why) shows "-".
#
#   scripts/gpu-ab.sh [-r ROUNDS] BUNDLE_A BUNDLE_B SPECFILE     (from the repository's root)
set -u -f   # -f: a spec's arguments are words, never file patterns
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
total=$((rounds * nspec * 2)) ran=0 start=$(date +%s)

run_one() { # run_one LABEL BUNDLE ROUND EXP ARGS...
    label=$1 bundle=$2 round=$3 exp=$4
    shift 4
    rm -f "$tmp/r.h5"
    "$bundle/run" logt run "experiments/$exp" --backend cuda --out "$tmp/r.h5" "$@" < /dev/null 2>&1 |
        sed "s|^|$label r$round $exp |" >> "$out/ab.log"
    ran=$((ran + 1))
    el=$(( $(date +%s) - start ))
    echo "gpu-ab: $ran/$total runs of logt, ${el} s elapsed, ETA $(( el * (total - ran) / ran )) s" >&2
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
awk '
    function med(s,   n, v, i, j, x) {   # the median of the space-separated numbers in s
        n = split(s, v, " ")
        for (i = 2; i <= n; i++) { x = v[i]; for (j = i - 1; j >= 1 && v[j] + 0 > x + 0; j--) v[j + 1] = v[j]; v[j + 1] = x }
        return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
    }
    / median [0-9.e+-]+ ms/ && $3 ~ /^[^ ]+$/ && match($0, /\] .*  median /) {
        row = $3 " " substr($0, RSTART + 2, RLENGTH - 11)
        v = substr($0, RSTART + RLENGTH); sub(/ .*/, "", v)
        vals[row, $1] = vals[row, $1] " " v; n[row, $1]++; rows[row] = 1
    }
    END {
        for (k in rows) {
            a = n[k, "A"] ? sprintf("%10.4g", med(vals[k, "A"])) : sprintf("%10s", "-")
            b = n[k, "B"] ? sprintf("%10.4g", med(vals[k, "B"])) : sprintf("%10s", "-")
            r = n[k, "A"] && n[k, "B"] && a + 0 > 0 ? sprintf("%7.3f", b / a) : sprintf("%7s", "-")
            printf "%-100s %s (%d) %s (%d) %s\n", k, a, n[k, "A"], b, n[k, "B"], r
        }
    }' "$out/ab.log" | sort > "$out/ab.rows"
{ printf "%-100s %14s %14s %7s\n" "row" "A ms (rounds)" "B ms (rounds)" "B / A"; cat "$out/ab.rows"; } > "$out/ab.txt"
rm -f "$out/ab.rows"
cat "$out/ab.txt"
