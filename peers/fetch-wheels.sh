#!/usr/bin/env bash
# fetch-wheels.sh — download the peers' packages for the GPU machine, which has no package access:
# Python 3.12, manylinux x86_64, with torch, jax, numpy and triton already there (not fetched).
#   flashrnn, sru, accelerated-scan   the originals (pure-Python wheels; their CUDA kernels are
#                                     compiled on that machine at import or first call)
#   einops, ninja, packaging          what they import beyond torch/triton (packaging is
#                                     imported by flashrnn without being declared)
# Usage: peers/fetch-wheels.sh [DEST]   (default peers/wheels); then, on the GPU machine,
# peers/install-wheels.sh. Prints each wheel and the total size.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dest=${1:-$here/wheels}
pip=${PIP:-python3 -m pip}
mkdir -p "$dest"

# pinned: the versions the adapters were written against (peers/README.md)
originals=(flashrnn==1.0.8 sru==2.6.0 accelerated-scan==0.3.1)
helpers=(einops ninja packaging)

platforms=()
for p in manylinux_2_28_x86_64 manylinux_2_17_x86_64 manylinux2014_x86_64 manylinux_2_12_x86_64 \
         manylinux2010_x86_64 manylinux_2_5_x86_64 manylinux1_x86_64; do
    platforms+=(--platform "$p")
done

$pip download --dest "$dest" --no-deps --only-binary=:all: --python-version 3.12 \
    --implementation cp --abi cp312 "${platforms[@]}" "${originals[@]}" "${helpers[@]}" >&2

echo "wheels in $dest:"
total=0
for f in "$dest"/*.whl; do
    n=$(stat -c %s "$f")
    total=$((total + n))
    printf '  %9d  %s\n' "$n" "$(basename "$f")"
done
awk -v t="$total" 'BEGIN { printf "total %d bytes (%.2f MB)\n", t, t / 1e6 }'
if [ "$total" -gt 30000000 ]; then
    echo "warning: over 30 MB, more than the device copy should carry" >&2
fi
