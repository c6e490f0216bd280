#!/bin/bash
# timeout: 120
# Robustness (progs/omp_kitchen.c), gcc and clang builds, and clang with 2 active levels:
# worksharing of every schedule, sections, single, master, ordered, atomic (also the
# lock-based kind), critical, nest and test locks, reductions, tasks with dependences,
# taskloop, taskgroup, cancellation points, host teams, nested regions, regions from two
# pthreads. The program checks its results under the tool; nothing is damaged or lost;
# every construct is counted exactly (3 rounds) in the function that holds it; every view
# works.
source "$HPC_ROOT/tests/lib.sh"
[ -x "$HPCOLLECT" ] || skip "hpcollect not built yet (the collector has not landed)"
export PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/omp"
"$HPCOLLECT" -q -p hi -o gcc.hpc "$PROGS/omp/omp_kitchen" 3 >gcc.out
"$HPCOLLECT" -q -p hi -o clang.hpc "$PROGS/omp/omp_kitchen.clang" 3 >clang.out
OMP_MAX_ACTIVE_LEVELS=2 "$HPCOLLECT" -q -p hi -o nested.hpc "$PROGS/omp/omp_kitchen.clang" 3 \
    >nested.out
$SYSPY - <<'PY'
from hpctest import check, near
from omptest import *

for name in ("gcc", "clang", "nested"):
    exp = f"{name}.hpc"
    out = open(f"{name}.out").read()
    check("3 rounds, 0 failures" in out, f"{name}: the program's own checks pass ({out.strip()})")
    st = js(exp, "statistics")["processes"][0]
    lost = {k: v for k, v in st["stats"].items()
            if k in ("dropped_limit", "dropped_io", "events_dropped") and v}
    check(not lost and st["damaged_records"] == 0 and st["missing_node_refs"] == 0,
          f"{exp}: nothing lost or damaged ({lost})")
    j = omp(exp)
    execs = {}
    for r in j["regions"]:
        execs[r["function"]] = execs.get(r["function"], 0) + r["executions"]
    for fn in ("worksharing", "mutexes", "tasking", "cancelling"):
        check(execs.get(fn) == 3, f"{exp}: {fn}: 3 executions ({execs.get(fn)})")
    check(execs.get("two_initial_threads", 0) + execs.get("from_pthread", 0) == 6,
          f"{exp}: 6 regions from two pthreads ({execs})")
    check(not [f for f in execs if "omp" in f or f.startswith(("<", "GOMP", "__kmp"))],
          f"{exp}: every construct is in a program function ({sorted(execs)})")
    ordered = sum(t["omp_wait_ordered_wall_s"] for t in j["threads"])
    check(ordered > 0, f"{exp}: ordered waits traced ({ordered:.6f} s)")
    for view in ("user", "expert", "machine"):
        tot = total(calltree(exp, view))
        near(tot, st["sampled_cpu_s"], 0.0015, f"{exp}: {view} view keeps every sample (s)")
PY
