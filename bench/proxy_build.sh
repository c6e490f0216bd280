#!/bin/bash
# proxy_build.sh - fetch and build LULESH 2.0 (LLNL's unstructured-mesh hydrodynamics proxy
# application) for bench/proxy_bench.py: clang++ -O2 -g -fopenmp, no MPI. Never committed:
# the source is taken at a fixed commit from LULESH_SRC, a clone of
# https://github.com/LLNL/LULESH (a git directory, bare or not), else cloned from GitHub.
#
#     bench/proxy_build.sh OUT_DIR        # makes OUT_DIR/lulesh2.0
set -eu
out=${1:?usage: proxy_build.sh OUT_DIR}
commit=3e01c40b3281aadb7f996525cdd4a3354f6d3801 # LULESH 2.0.3 + stdint fix (2019)
src=${LULESH_SRC:-}
if [ -z "$src" ] && [ -d /work/.mirror/LLNL+LULESH/repo ]; then
    src=/work/.mirror/LLNL+LULESH/repo # the shared machine's mirror
fi
mkdir -p "$out"
if [ -x "$out/lulesh2.0" ] && [ "$(cat "$out/commit" 2>/dev/null)" = "$commit" ]; then
    exit 0
fi
rm -rf "$out/src"
mkdir -p "$out/src"
if [ -z "$src" ]; then
    git clone -q https://github.com/LLNL/LULESH "$out/src/.clone"
    src="$out/src/.clone"
fi
gitdir=$src
[ -d "$src/.git" ] && gitdir="$src/.git"
git --git-dir="$gitdir" archive "$commit" | tar -x -C "$out/src"
(cd "$out/src" && clang++ -O2 -g -fopenmp -DUSE_MPI=0 -I. -o "$out/lulesh2.0" \
    lulesh.cc lulesh-comm.cc lulesh-viz.cc lulesh-util.cc lulesh-init.cc)
echo "$commit" >"$out/commit"
