#!/bin/bash
# timeout: 120
# OpenMP code as -O2 leaves it (progs/omp_tail.c, built -O2 by gcc and by clang), with
# known CPU: 5 repetitions of 10 ms units.
#   tail calls   a parallel body that is only `work_par();` (the outlined body jumps to
#                it): the user view has work_par under main > par_tail with its CPU
#                (2 threads x 5 x 10 ms); task bodies { a(); b(); } (gcc jumps to b):
#                work_task_a and work_task_b under main > task_tail with theirs (2 tasks
#                x 5 x 10 ms each); the expert view names the bodies of c0..c9
#                "cK -- OMP parallel region from line N" though none has a frame.
#   identity     ten constructs c0..c9 reached through one helper, each fork a tail
#                call (one code address for all ten): ten rows of `omp regions`, each
#                named by its function and its pragma's line, 5 executions each.
#   inlining     a region in a static function inlined into main: its row is named
#                hourglass at its pragma's line, not main.
# On main before this issue: work_par and work_task_b were missing, the ten rows were one
# (run_constructs), the inlined one read main.
source "$HPC_ROOT/tests/lib.sh"
[ -x "$HPCOLLECT" ] || skip "hpcollect not built yet (the collector has not landed)"
export PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/omp"
"$HPCOLLECT" -q -p hi -o gcc.hpc "$PROGS/omp/omp_tail" 5 10 2 >/dev/null
"$HPCOLLECT" -q -p hi -o clang.hpc "$PROGS/omp/omp_tail.clang" 5 10 2 >/dev/null
$SYSPY - "$HPC_ROOT/tests/omp/progs/omp_tail.c" <<'PY'
import re, sys
from hpctest import check, near, near_time_share
from omptest import *

lines = {m.group(1): i + 1 for i, l in enumerate(open(sys.argv[1]))
         for m in [re.search(r"CONSTRUCT (\w+)", l)] if m}
unit, reps = 0.010, 5
for exp in ("gcc.hpc", "clang.hpc"):
    nodes = calltree(exp, "user")
    print(f"# {exp}: work_par from {called_from(nodes, 'work_par')}, "
          f"work_task_b from {called_from(nodes, 'work_task_b')}")
    # sampled CPU: a share of the run's samples, within 5 binomial standard deviations
    t = js(exp, "functions")["functions"][0]
    near_time_share(under(nodes, ["main", "par_tail", "work_par"]), 2 * reps * unit,
                    t["incl_cpu_s"], t["incl_samples"], f"{exp}: work_par under main > par_tail (s)")
    for f in ("work_task_a", "work_task_b"):
        near_time_share(under(nodes, ["main", "task_tail", f]), 2 * reps * unit, t["incl_cpu_s"],
                        t["incl_samples"], f"{exp}: {f} under main > task_tail (s)")
    check(called_from(nodes, "work_par") == {("main", "par_tail", "work_par")},
          f"{exp}: work_par nowhere else")
    regs = {r["function"]: r for r in omp(exp)["regions"]}
    print(f"# {exp}: rows {sorted((f, r['line']) for f, r in regs.items())}")
    for name in [f"c{k}" for k in range(10)] + ["par_tail", "task_tail", "hourglass"]:
        r = regs.get(name)
        check(r is not None and r["line"] == lines[name] and r["executions"] == reps,
              f"{exp}: a row {name} at line {lines[name]}, {reps} executions "
              f"({r and (r['line'], r['executions'])})")
    check(len(regs) == 13 and "main" not in regs and "run_constructs" not in regs,
          f"{exp}: 13 rows, none named main or run_constructs ({sorted(regs)})")
    expert = {n["name"] for n in calltree(exp, "expert")}
    for k in range(10):
        name = f"c{k} -- OMP parallel region from line {lines[f'c{k}']}"
        check(name in expert, f"{exp}: expert view has '{name}'")
PY
