#!/bin/sh
# bundle.sh DIR BINARY... — a folder that runs on a machine with only the NVIDIA
# driver and the CUDA 13 libraries (cuBLAS, cuDNN): the binaries in DIR/bin (a shared
# library, NAME.so, in DIR/lib), every shared library they load that such a machine may
# lack in DIR/lib (found with ldd; the binaries carry rpath $ORIGIN/../lib), and DIR/run,
# a wrapper that finds the machine's CUDA libraries and runs one of the binaries, or any
# other command with those libraries on its path; and DIR.tar.xz, the same compressed (a
# quarter of the size), for copies with a size limit:
#     DIR/run logt info        DIR/run logt-tests --jobs 1
#     LOGT_LIB=DIR/lib/liblogt.so DIR/run python3 python/tests/test_torch.py
# Not bundled: the C runtime (glibc, libstdc++, libgcc_s: the target's are newer)
# and the NVIDIA libraries (driver, CUDA runtime, cuBLAS, cuDNN, cuRAND, NCCL).
# Where logt links Open MPI, its runtime comes too, in DIR/openmpi (a relocated Open MPI
# prefix: mpirun, orted, the MCA plugins, help texts and settings), found by DIR/run through
# OPAL_PREFIX, with mpirun on its PATH: `DIR/run mpirun -np 2 DIR/bin/logt run EXP --mpi`.
set -eu
dir=$1; shift
rm -rf "$dir"
mkdir -p "$dir/bin" "$dir/lib"
skip='^(linux-vdso|ld-linux|libc\.so|libm\.so|libdl\.so|libpthread\.so|librt\.so|libresolv\.so|libstdc\+\+|libgcc_s|libcuda\.so|libcudart|libcublas|libcudnn|libcurand|libnccl|libnvrtc|libnvJitLink)'
# the libraries FILE loads that a bare machine may lack, into DIR/lib (once each)
deps() {
    ldd "$1" | awk '/=> \// { print $1, $3 }' | while read -r name path; do
        if echo "$name" | grep -Eq "$skip"; then continue; fi
        [ -e "$dir/lib/$name" ] || { cp -L "$path" "$dir/lib/$name" && strip --strip-debug "$dir/lib/$name"; }
    done
}
for bin in "$@"; do
    case $bin in *.so) dest=lib ;; *) dest=bin ;; esac
    cp "$bin" "$dir/$dest/"
    strip --strip-debug "$dir/$dest/$(basename "$bin")"   # symbols stay for backtraces; -g is for here
    deps "$bin"
done
# Open MPI's runtime, where libmpi came in above: its install paths as ompi_info gives them,
# rebased under DIR/openmpi (OPAL_PREFIX moves every path under the prefix; the settings'
# folder, outside it, goes by OPAL_SYSCONFDIR)
if ls "$dir/lib" | grep -q '^libmpi\.so' && command -v ompi_info >/dev/null 2>&1; then
    path_of() { ompi_info --path "$1" --parsable | sed -n "s/^path:$1://p"; }
    prefix=$(path_of prefix) bindir=$(path_of bindir) pkglib=$(path_of pkglibdir)
    pkgdata=$(path_of pkgdatadir) sysconf=$(path_of sysconfdir)
    mpi=$dir/openmpi
    mkdir -p "$mpi/bin" "$mpi/${pkglib#"$prefix"/}" "$mpi/${pkgdata#"$prefix"/}" "$mpi/etc"
    for b in orterun orted; do
        [ -x "$bindir/$b" ] || continue
        cp -L "$bindir/$b" "$mpi/bin/$b"
        deps "$bindir/$b"
    done
    ln -sf orterun "$mpi/bin/mpirun"
    for p in "$pkglib"/*.so; do cp -L "$p" "$mpi/${pkglib#"$prefix"/}/"; deps "$p"; done
    cp -r "$pkgdata"/. "$mpi/${pkgdata#"$prefix"/}/"
    [ -d "$sysconf" ] && cp -L "$sysconf"/*.conf "$mpi/etc/" 2>/dev/null || true
fi
cat > "$dir/run" <<'WRAP'
#!/bin/sh
# Run a bundled logt binary with the machine's CUDA libraries on the library path.
here=$(cd "$(dirname "$0")" && pwd)
libs="$here/lib"
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
    [ -d "$d" ] && libs="$libs:$d"
done
# Each NVIDIA library from the system, /usr/local/cuda, or a Python environment's wheel.
for pair in cudnn:libcudnn.so.9 cublas:libcublas.so.13 cuda_runtime:libcudart.so.13 nccl:libnccl.so.2; do
    mod=${pair%%:*} lib=${pair#*:}
    ldconfig -p 2>/dev/null | grep -q "$lib " && continue
    hit=""
    for d in $(echo "$libs" | tr ':' ' ') /opt/*/.venv/lib/python3*/site-packages/nvidia/$mod/lib \
             /usr/local/lib/python3*/dist-packages/nvidia/$mod/lib; do
        if [ -e "$d/$lib" ]; then hit=$d; break; fi
    done
    if [ -z "$hit" ] && command -v python3 >/dev/null 2>&1; then
        hit=$(python3 -c "import nvidia.$mod as m; print(list(m.__path__)[0] + '/lib')" 2>/dev/null) || hit=""
    fi
    [ -n "$hit" ] && [ -e "$hit/$lib" ] && libs="$libs:$hit"
done
export LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# the bundled Open MPI (bundle.sh): its prefix, its mpirun first on the path, the ranks of one
# host meeting through shared memory (unless the caller chose), and, as root (the GPU
# machines), mpirun told that is meant
if [ -d "$here/openmpi" ]; then
    export OPAL_PREFIX="$here/openmpi" OPAL_SYSCONFDIR="$here/openmpi/etc"
    export PATH="$here/openmpi/bin:$PATH"
    export OMPI_MCA_btl="${OMPI_MCA_btl:-self,vader}" OMPI_MCA_pml="${OMPI_MCA_pml:-ob1}"
    [ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
prog=$1; shift
[ -e "$here/bin/$prog" ] && exec "$here/bin/$prog" "$@"
exec "$prog" "$@"
WRAP
chmod +x "$dir/run"
# and one compressed file of it, a quarter of its size, for copies with a size limit
tar cJf "$dir.tar.xz" "$dir"
echo "bundle: $dir ($(du -sh "$dir" | cut -f1); $dir.tar.xz $(du -sh "$dir.tar.xz" | cut -f1)); libraries: $(ls "$dir/lib" | tr '\n' ' ')"
