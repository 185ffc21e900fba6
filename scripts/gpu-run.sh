#!/bin/sh
# gpu-run.sh — one call on a GPU machine: the bundle's info, the lstm-vs-cudnn sweep,
# every test, and the quickstart, each under a time limit, everything into $OUT.
#   LOGT_COMMIT=$(git rev-parse --short HEAD) scripts/gpu-run.sh     (after make bundle)
set -u
out=${OUT:-/tmp/logt-gpu}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv \
    > "$out/smi.txt" 2>&1
bundle/run logt info > "$out/info.txt" 2>&1
timeout -s INT 260 bundle/run logt run experiments/lstm-vs-cudnn --backend cuda \
    --out "$out/lstm-vs-cudnn.h5" > "$out/lstm-vs-cudnn.log" 2>&1
echo "lstm-vs-cudnn: exit $?" | tee -a "$out/info.txt"
timeout -s INT 120 bundle/run logt-tests --jobs 8 > "$out/tests.log" 2>&1
echo "tests: exit $?" | tee -a "$out/info.txt"
timeout -s INT 45 bundle/run logt run experiments/quickstart --backend cuda \
    --out "$out/quickstart.h5" > "$out/quickstart.log" 2>&1
echo "quickstart: exit $?" | tee -a "$out/info.txt"
tail -3 "$out/tests.log"
cat "$out/info.txt"
