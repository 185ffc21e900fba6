#!/usr/bin/env bash
# install-wheels.sh — install peers/wheels (from fetch-wheels.sh) into peers/site, offline: no
# index, no dependency resolution (torch, jax, numpy, triton are the machine's own), no root,
# and no clash with a system Python that refuses pip (PEP 668). The adapters put peers/site on
# sys.path and peers/site/bin (ninja) on PATH themselves (common.py).
# Usage: peers/install-wheels.sh [WHEELS] [SITE]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
wheels=${1:-$here/wheels}
site=${2:-$here/site}
pip=${PIP:-python3 -m pip}
if ! ls "$wheels"/*.whl >/dev/null 2>&1; then
    echo "no wheels in $wheels: run peers/fetch-wheels.sh on a machine with pip access, and carry" \
         "peers/wheels here" >&2
    exit 1
fi
$pip install --no-index --no-deps --upgrade --target "$site" "$wheels"/*.whl >&2
echo "installed into $site:"
ls "$site" | grep -E '\.dist-info$' | sed 's/\.dist-info$//; s/^/  /'
