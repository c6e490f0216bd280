#!/bin/bash
# timeout: 60
# An OpenMP runtime outside the global scope (progs/omp_dlopen.c opens an OpenMP library
# with RTLD_LOCAL, as Python opens its extensions; the program links no runtime): the
# library's fork calls bind to the collector's entry points first (ompt/fork.c), which
# must find the library's own runtime. The gcc-built library (GNU libgomp) and the
# clang-built one (LLVM libomp) both compute their sum (1000 iterations: 499500) and exit
# 0; with libomp, OMPT starts and the region is recorded, named after the library's
# function plugin_run, one execution.
source "$HPC_ROOT/tests/lib.sh"
[ -x "$HPCOLLECT" ] || skip "hpcollect not built yet (the collector has not landed)"
export PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/omp"
for cc in gcc clang; do
    out=$("$HPCOLLECT" -q -o $cc.hpc "$PROGS/omp/omp_dlopen" "$PROGS/omp/libomp_plugin.$cc.so") ||
        fail "$cc: the program failed under hpcollect (exit $?): $out"
    [ "$out" = "sum 499500" ] || fail "$cc: wrong output: $out"
done
$SYSPY - <<'PY'
from hpctest import check
from omptest import *

regs = omp("clang.hpc")["regions"]
check([(r["function"], r["executions"]) for r in regs] == [("plugin_run", 1)],
      f"clang: the plugin's region is recorded ({[(r['function'], r['executions']) for r in regs]})")
PY
