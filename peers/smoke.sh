#!/bin/sh
# smoke.sh — every adapter once at the gallery's shapes on this machine, each request under a
# time limit: the request and the adapter's response, one pair a line, to stdout (stderr, with
# the JIT builds' output, to $PEERS_LOG). For trying a machine before a sweep that needs the peers.
#
#   peers/smoke.sh [SECONDS_PER_REQUEST]
#
# Install the wheels first (peers/install-wheels.sh); deer-jax needs LOGT_DEER_PATH.
set -u
here=$(cd "$(dirname "$0")" && pwd)
per=${1:-180}
log=${PEERS_LOG:-/dev/null}
ask() {  # PEER JSON
    start=$(date +%s%N)
    resp=$(echo "$2" | timeout "$per" python3 "$here/$1.py" 2>>"$log")
    rc=$?
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    printf '%s\t%s\trc=%s\t%s ms\t%s\n' "$1" "$2" "$rc" "$ms" "${resp:-<no response>}"
}
rnn='"T": 1024, "B": 16, "D": 768, "input_size": 768, "layers": 1, "warmup": 3, "repeats": 10, "seed": 1, "check": null'
for pass in forward fwdbwd; do
    for dt in f32 bf16 f16; do
        ask torch-lstm "{\"peer\": \"torch-lstm\", \"kind\": \"speed\", $rnn, \"head_dim\": 0, \"dtype\": \"$dt\", \"cell\": \"lstm\", \"pass\": \"$pass\", \"knobs\": {}}"
    done
    ask sru "{\"peer\": \"sru\", \"kind\": \"speed\", $rnn, \"head_dim\": 0, \"dtype\": \"f32\", \"cell\": \"sru\", \"pass\": \"$pass\", \"knobs\": {}}"
done
for tb in 1024:65536 16384:65536 1048576:1024 4194304:32; do
    T=${tb%%:*} B=${tb#*:}
    for peer in accelerated-scan jax-scan; do
        ask $peer "{\"peer\": \"$peer\", \"kind\": \"kernel\", \"kernel\": \"scan\", \"T\": $T, \"B\": $B, \"D\": 1, \"dtype\": \"f32\", \"warmup\": 3, \"repeats\": 10, \"seed\": 1, \"knobs\": {}}"
    done
done
for D in 1 16; do
    for m in deer sequential; do
        ask deer-jax "{\"peer\": \"deer-jax\", \"kind\": \"speed\", \"T\": 100000, \"B\": 16, \"D\": $D, \"input_size\": 4, \"head_dim\": 0, \"layers\": 1, \"dtype\": \"f32\", \"cell\": \"gru\", \"pass\": \"forward\", \"warmup\": 1, \"repeats\": 5, \"seed\": 1, \"knobs\": {\"method\": \"$m\"}, \"check\": null}"
    done
done
# FlashRNN last: its first request of a configuration builds CUDA code (minutes).
for pass in forward fwdbwd; do
    for be in cuda_fused cuda triton; do
        ask flashrnn "{\"peer\": \"flashrnn\", \"kind\": \"speed\", $rnn, \"head_dim\": 64, \"dtype\": \"bf16\", \"cell\": \"lstm\", \"pass\": \"$pass\", \"knobs\": {\"backend\": \"$be\"}}"
    done
done
