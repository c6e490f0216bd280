#!/bin/bash
# timeout: 120
# A contended critical section and a contended lock (progs/omp_contention.c), gcc and
# clang builds: 2 threads each take the mutex 60 times and hold it for 2 ms of CPU, so on
# an idle machine each waits about half of its time. The wait must have the right kind in
# the right region, and match the program's own measurement of its time waiting to enter
# (sampled: within 5 binomial standard deviations for the region's samples, -p hi: one per
# ms of CPU; traced wall clock within 3%, less the run delay inside the program's windows:
# preemption between its clock and the runtime's callback is not the wait's).
source "$HPC_ROOT/tests/lib.sh"
[ -x "$HPCOLLECT" ] || skip "hpcollect not built yet (the collector has not landed)"
export PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/omp" OMP_WAIT_POLICY=active
"$HPCOLLECT" -q -p hi -o gcc.hpc "$PROGS/omp/omp_contention" 60 2000 >gcc.out
"$HPCOLLECT" -q -p hi -o clang.hpc "$PROGS/omp/omp_contention.clang" 60 2000 >clang.out
$SYSPY - <<'PY'
from hpctest import check, near, near_share, nsamples
from omptest import *

for cc in ("gcc", "clang"):
    exp = f"{cc}.hpc"
    tr = truths(f"{cc}.out")
    regs = {r["function"]: r for r in omp(exp)["regions"]}
    check(set(regs) == {"critical_phase", "lock_phase"}, f"{exp}: regions {sorted(regs)}")
    for fn, kind, other in (("critical_phase", "critical", "lock"),
                            ("lock_phase", "lock", "critical")):
        r = regs[fn]
        t = r["omp_work_s"] + r["omp_wait_s"]
        mine = truth_sum(tr, f"{kind}_wait")
        print(f"# {exp} {fn}: work {r['omp_work_s']:.3f} wait {r['omp_wait_s']:.3f}; "
              f"{kind} wait {r[f'omp_wait_{kind}_s']:.3f}, program {mine:.3f}")
        n = nsamples(t, 0.001)
        near_share(100 * r[f"omp_wait_{kind}_s"] / t, 100 * mine / t, n, f"{exp}: {fn}: {kind} wait % (CPU)", 100)
        waited = truth_sum(tr, f"{kind}_wait", wall=True)
        check(waited > 0.05, f"{cc}: {fn}: the threads contend (waited {waited:.3f} s)")
        near_share(r[f"omp_wait_{other}_s"] / t, 0.0, n, f"{exp}: {fn}: no {other} wait")
    nodes = calltree(exp)
    for fn, leaf, kind in (("critical_phase", "<OMP-critical_section_wait>", "critical"),
                           ("lock_phase", "<OMP-lock_wait>", "lock")):
        check(called_from(nodes, leaf) <= {("main", fn, leaf)},
              f"{exp}: user view: {leaf} only under main > {fn} ({called_from(nodes, leaf)})")
        near(under(nodes, ["main", fn, leaf]), regs[fn][f"omp_wait_{kind}_s"], 0.002,
             f"{exp}: user view: {leaf} holds the {kind} wait (s)")
    th = omp(exp)["threads"]
    for kind in ("critical", "lock"):
        wall = sum(t[f"omp_wait_{kind}_wall_s"] for t in th)
        traced_within(wall, tr, f"{kind}_wait", 0.03, f"{exp}: traced {kind} wait (wall s)")
PY
