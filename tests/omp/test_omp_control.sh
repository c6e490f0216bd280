#!/bin/bash
# timeout: 60
# omp_control_tool (progs/omp_control.c), gcc and clang builds: the program pauses the
# profiler around the second of three phases of 2 x 100 ms of CPU. The tool answers
# success, and the profile holds the CPU burnt in phases 1 and 3 (0.2 s each; waits at
# their barriers come on top), nothing of phase 2. phase1() and phase3() reach the same
# construct (in phase()) from the same stack depth: the per-thread cache of construct call
# paths (ompt/context.c) must tell them apart by the return addresses on the stack, or
# phase 3's time would show under phase1.
source "$HPC_ROOT/tests/lib.sh"
[ -x "$HPCOLLECT" ] || skip "hpcollect not built yet (the collector has not landed)"
export PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/omp"
"$HPCOLLECT" -q -p hi -o gcc.hpc "$PROGS/omp/omp_control" >gcc.out
"$HPCOLLECT" -q -p hi -o clang.hpc "$PROGS/omp/omp_control.clang" >clang.out
$SYSPY - <<'PY'
from hpctest import check, near, near_time_share
from omptest import *

for cc in ("gcc", "clang"):
    out = open(f"{cc}.out").read()
    check("control pause=0 start=0" in out, f"{cc}: the tool answered success ({out.strip()})")
    nodes = calltree(f"{cc}.hpc")
    t = js(f"{cc}.hpc", "functions")["functions"][0]
    for fn, want in (("phase1", 0.2), ("phase2", 0.0), ("phase3", 0.2)):
        near_time_share(under(nodes, ["main", fn, "phase", "burn_cpu"]), want, t["incl_cpu_s"],
                        t["incl_samples"], f"{cc}: {fn}'s burn_cpu recorded (s)")
PY
