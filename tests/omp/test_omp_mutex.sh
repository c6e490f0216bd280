#!/bin/bash
# timeout: 120
# A contended critical section and a contended lock (progs/omp_contention.c), gcc and
# clang builds: 2 threads each take the mutex 60 times and hold it for 2 ms of CPU, so
# each waits about half of its time, and the wait has the right kind in the right region.
source "$HPC_ROOT/tests/lib.sh"
[ -x "$HPCOLLECT" ] || skip "hpcollect not built yet (the collector has not landed)"
export PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/omp" OMP_WAIT_POLICY=active
"$HPCOLLECT" -q -p hi -o gcc.hpc "$PROGS/omp/omp_contention" 60 2000 >/dev/null
"$HPCOLLECT" -q -p hi -o clang.hpc "$PROGS/omp/omp_contention.clang" 60 2000 >/dev/null
$SYSPY - <<'PY'
from hpctest import check, near
from omptest import *

for exp in ("gcc.hpc", "clang.hpc"):
    regs = {r["function"]: r for r in omp(exp)["regions"]}
    check(set(regs) == {"critical_phase", "lock_phase"}, f"{exp}: regions {sorted(regs)}")
    for fn, kind, other in (("critical_phase", "critical", "lock"),
                            ("lock_phase", "lock", "critical")):
        r = regs[fn]
        t = r["omp_work_s"] + r["omp_wait_s"]
        print(f"# {exp} {fn}: work {r['omp_work_s']:.3f} wait {r['omp_wait_s']:.3f}")
        near(r[f"omp_wait_{kind}_s"] / t, 0.5, 0.1, f"{exp}: {fn}: {kind} wait share")
        near(r[f"omp_wait_{other}_s"] / t, 0.0, 0.01, f"{exp}: {fn}: no {other} wait")
        near(r["omp_wait_wall_s"] / (r["omp_work_wall_s"] + r["omp_wait_wall_s"]), 0.5, 0.1,
             f"{exp}: {fn}: traced wait share")
    nodes = calltree(exp)
    for fn, leaf in (("critical_phase", "<OMP-critical_section_wait>"),
                     ("lock_phase", "<OMP-lock_wait>")):
        check(under(nodes, ["main", fn, leaf]) > 0.1,
              f"{exp}: user view: {leaf} under main > {fn} ({paths_of(nodes, leaf)})")
PY
