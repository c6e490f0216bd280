#!/bin/bash
# timeout: 120
# Worksharing constructs with known imbalance in one parallel region (progs/omp_loops.c,
# -O2, gcc and clang builds; 10 repetitions, 10 ms units): loop A gives thread 0 three
# units and thread 1 one (imbalance, the largest thread's work over the mean: 1.5), loop B
# two and one (1.33), loop C one each (1.0). `omp regions` has a row inside the region
# for each loop with that imbalance (its CPU work per thread, sampled, which the scheduler
# does not stretch as it does wall-clock time): clang's loops report themselves, gcc's
# static loops only their barrier, whose row's work is the time since the previous one
# (the last loop's barrier is the region's: its row is the region's end).
# Each row lies in the loop's lines, ran 10 times on 2 threads, and its threads' work
# adds up to the loop's CPU (2 threads' units x 10 ms x 10); its wait is the barrier where
# the thread with less work waits.
source "$HPC_ROOT/tests/lib.sh"
[ -x "$HPCOLLECT" ] || skip "hpcollect not built yet (the collector has not landed)"
export PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/omp" OMP_WAIT_POLICY=active
"$HPCOLLECT" -q -p hi -o gcc.hpc "$PROGS/omp/omp_loops" 10 10 >/dev/null
"$HPCOLLECT" -q -p hi -o clang.hpc "$PROGS/omp/omp_loops.clang" 10 10 >/dev/null
$SYSPY - "$HPC_ROOT/tests/omp/progs/omp_loops.c" <<'PY'
import re, sys
from hpctest import check, near, near_time_share, nsamples, share_tol
from omptest import *

src = open(sys.argv[1]).read().splitlines()
lines = {m.group(1): i + 1 for i, l in enumerate(src) for m in [re.search(r"LOOP (\w)", l)] if m}
units = {"A": (3, 1), "B": (2, 1), "C": (1, 1)}
for exp in ("gcc.hpc", "clang.hpc"):
    regs = omp(exp)["regions"]
    t = js(exp, "functions")["functions"][0]
    check(len(regs) == 1 and regs[0]["function"] == "loops" and regs[0]["executions"] == 10,
          f"{exp}: one region, 'loops', 10 executions ({[(r['function'], r['executions']) for r in regs]})")
    parts = regs[0]["parts"]
    for p in parts:
        print(f"# {exp}: {p['kind']} line {p['line']}: work {p['omp_work_s']:.3f} wait "
              f"{p['omp_wait_s']:.3f} imbalance {p['imbalance']:.3f} ({p['imbalance_wall']:.3f} wall)")
    rows = [p for p in parts if p["omp_work_s"] > 0.005]
    check(len(rows) == 3, f"{exp}: a row for each loop: {[(p['kind'], p['line']) for p in rows]}")
    for p, (loop, (u0, u1)) in zip(rows, units.items()):
        first = lines[loop]
        # gcc merges the last loop's barrier into the region's: its row is the region's end
        where = (p["line"] == regs[0]["line"] if p["kind"] == "implicit_barrier"
                 else first <= p["line"] <= first + 3)
        check(where, f"{exp}: loop {loop}: row {p['kind']} at line {p['line']} (loop at {first})")
        check(p["executions"] == 10 and p["threads"] == 2,
              f"{exp}: loop {loop}: 10 executions on 2 threads ({p['executions']}, {p['threads']})")
        # sampled CPU: a share of the run's samples (5 binomial standard deviations), and
        # 20 ms for the edges: a sample weighs its thread's CPU since the previous one
        # (1 ms apart), so each of the loop's 10 executions on 2 threads may take or lose
        # about a sample's worth at its end
        near_time_share(p["omp_work_s"], (u0 + u1) * 0.1, t["incl_cpu_s"], t["incl_samples"],
                        f"{exp}: loop {loop}: its threads' work (s)", slack_s=0.02)
        # max / mean of two threads = 2 x the busier thread's share of the loop's work
        n = nsamples(p["omp_work_s"], 0.001)
        near(p["imbalance"], max(u0, u1) / ((u0 + u1) / 2), 2 * share_tol(max(u0, u1) / (u0 + u1), n),
             f"{exp}: loop {loop}: imbalance ({n} samples)")
PY
