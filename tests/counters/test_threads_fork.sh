#!/bin/bash
# Counters follow threads and fork children as the clock does: a pthread and a fork
# child each open their own group. The main thread touches A pages in main_touch(), a
# pthread B in thread_touch(), a fork child C in child_touch(): each function's
# page-fault count is its number of pages, within 5% (the tail after a thread's last
# sample is at most one interval).
source "$HPC_ROOT/tests/lib.sh"
"$HPCOLLECT" -q -o tf.hpc -S off -h page-faults,31 "$PROGS/counters/threads_fork" 6000 9000 12000 ||
    fail "threads_fork under hpcollect"

PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/counters" $SYSPY - <<'PY'
from ctrtest import *
rows = functions("tf.hpc")
for fn, pages in (("main_touch", 6000), ("thread_touch", 9000), ("child_touch", 12000)):
    got = metric(rows, fn, "incl_page-faults")
    check(abs(got - pages) <= 0.05 * pages, f"{fn}: {got} page faults, touched {pages} pages")
e = load("tf.hpc")
check(sorted(e.procs) == ["main", "main.f1"], f"processes {sorted(e.procs)}")
files = {s["file"].rsplit("/", 2)[-2] + "/" + s["file"].rsplit("/", 1)[-1] for s in counter_samples("tf.hpc")}
check({"main/t0.hpe", "main/t1.hpe", "main.f1/t0.hpe"} <= files,
      f"counter samples in the main thread, the pthread and the fork child: {sorted(files)}")
check(all(len(p.all("counter_def")) == 1 for p in e.procs.values()), "each process has its counter_def")
PY
