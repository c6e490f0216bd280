#!/bin/bash
# timeout: 120
# OpenMP Work and Wait against ground truth (progs/omp_imbalance.c), gcc and clang builds:
# 40 regions of 2 threads, thread t burns t+1 units of 5 ms of CPU, then the implicit
# barrier. Work is 3/4 and wait 1/4 of the threads' time, each within 3 percentage points,
# for the sampled CPU metrics and for the traced wall-clock ones. The gcc build links
# libgomp: hpcollect runs it on LLVM libomp (--omp-runtime auto).
#
# On Linux OpenMP Wait is CPU time (reference: clock profiling for OpenMP programs): a
# waiting thread counts only while it spins. OMP_WAIT_POLICY=active makes the waits spin,
# as libomp's default does for waits shorter than KMP_BLOCKTIME (200 ms).
source "$HPC_ROOT/tests/lib.sh"
[ -x "$HPCOLLECT" ] || skip "hpcollect not built yet (the collector has not landed)"
export PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/omp" OMP_WAIT_POLICY=active
"$HPCOLLECT" -q -p hi -o gcc.hpc "$PROGS/omp/omp_imbalance" 40 5 >/dev/null
"$HPCOLLECT" -q -p hi -o clang.hpc "$PROGS/omp/omp_imbalance.clang" 40 5 >/dev/null
$SYSPY - <<'PY'
from hpctest import check, near
from omptest import *

for exp in ("gcc.hpc", "clang.hpc"):
    j = omp(exp)
    check(j["ompt"] and j["processes"][0]["runtime"].startswith("LLVM libomp"),
          f"{exp}: ran on LLVM libomp with OMPT: {j['processes'][0]['runtime']}")
    th = j["threads"]
    check(len(th) == 2, f"{exp}: 2 threads ({len(th)})")
    work = sum(t["omp_work_s"] for t in th)
    wait = sum(t["omp_wait_s"] for t in th)
    other = sum(t["omp_idle_s"] + t["omp_overhead_s"] for t in th)
    tot = work + wait + other
    print(f"# {exp}: work {work:.3f} wait {wait:.3f} idle+overhead {other:.3f} s")
    near(100 * work / tot, 75, 3, f"{exp}: OpenMP Work % of thread time (CPU)")
    near(100 * wait / tot, 25, 3, f"{exp}: OpenMP Wait % of thread time (CPU)")
    barrier = sum(t["omp_wait_implicit_barrier_s"] for t in th)
    near(barrier / wait, 1.0, 0.02, f"{exp}: the wait is at the implicit barrier")
    m0, m1 = sorted(th, key=lambda t: t["thread"])
    near(m0["omp_wait_s"] / m0["omp_work_s"], 1.0, 0.15, f"{exp}: master waits as long as it works")
    near(m1["omp_wait_s"] / m1["omp_work_s"], 0.0, 0.05, f"{exp}: the worker hardly waits")
    ww = sum(t["omp_work_wall_s"] for t in th)
    wt = sum(t["omp_wait_wall_s"] for t in th)
    near(100 * ww / (ww + wt), 75, 3, f"{exp}: traced work % of thread time (wall)")
    near(100 * wt / (ww + wt), 25, 3, f"{exp}: traced wait % of thread time (wall)")
    regs = j["regions"]
    check(len(regs) == 1 and regs[0]["function"] == "imbalanced",
          f"{exp}: one region, in imbalanced: {[(r['function'], r['line']) for r in regs]}")
    r = regs[0]
    check(r["executions"] == 40 and r["threads"] == 2,
          f"{exp}: 40 executions of 2 threads ({r['executions']}, {r['threads']})")
    near(r["imbalance"], 4 / 3, 0.07, f"{exp}: imbalance max/mean thread work")
    near(r["wall_s"], 40 * 0.010, 0.1, f"{exp}: region wall time (s)")
PY
