#!/bin/sh
# setup.sh — install what logt needs to build and run, on Debian or Ubuntu.
#   HDF5 (headers, library, h5dump), libinih, Criterion, gnuplot (no X), pkg-config,
#   Open MPI (headers and mpirun, for `logt run --mpi` and its test).
# Installs only what is missing and says what; without root it says what to ask for.
set -eu

missing=""
need() { # need PACKAGE TEST-COMMAND...
    pkg=$1; shift
    if ! "$@" >/dev/null 2>&1; then missing="$missing $pkg"; fi
}
need pkg-config      command -v pkg-config
need libhdf5-dev     pkg-config --exists hdf5-serial
need hdf5-tools      command -v h5dump
need libinih-dev     pkg-config --exists inih
need libcriterion-dev pkg-config --exists criterion
need gnuplot-nox     command -v gnuplot
need libopenmpi-dev  pkg-config --exists ompi-c
need openmpi-bin     command -v mpirun

[ -z "$missing" ] && exit 0

echo "logt setup: installing$missing" >&2
if [ "$(id -u)" = 0 ]; then SUDO=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO="sudo -n"
else
    cat >&2 <<MSG
logt setup: these packages are missing:$missing
  and this user cannot install them (not root, no password-less sudo). Either ask an
  administrator to run:
      apt-get install$missing
  or build them into a prefix of your own and point the build at it:
      export PKG_CONFIG_PATH=\$HOME/.local/lib/pkgconfig PATH=\$HOME/.local/bin:\$PATH
MSG
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >&2
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >&2
echo "logt setup: done" >&2
