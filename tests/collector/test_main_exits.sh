#!/bin/bash
# timeout: 60
# main leaves with pthread_exit while a worker goes on (progs/main_exits.c): glibc ends
# the process when the worker ends, because the last thread calls exit(0). The
# collector's sampler thread (periodic points, on by default) must not keep the process
# alive. Before last_thread.c it did, for ever. Checks: the program ends, with status 0,
# and its atexit handler ran. main's 0.1 s and the worker's 0.4 s are sampled in their
# functions. Both threads have thread_end. The process ends by exit with status 0.
source "$HPC_ROOT/tests/lib.sh"

"$PROGS/collector/main_exits" >plain.out || fail "main_exits fails even plain"
timeout 20 "$HPCOLLECT" -q -p hi -o m "$PROGS/collector/main_exits" >m.out
rc=$?
[ $rc = 124 ] && fail "main_exits under hpcollect did not end within 20 s after main's pthread_exit"
[ $rc = 0 ] || fail "main_exits under hpcollect: exit status $rc"
diff <(sort plain.out) <(sort m.out) >/dev/null || fail "output differs: $(cat m.out)"
grep -qx "atexit ran" m.out || fail "atexit handler did not run: $(cat m.out)"

PROG="$PROGS/collector/main_exits" PYTHONPATH="$HPC_ROOT/tests/collector:$HPC_ROOT/tests" $SYSPY - <<'PY'
import os
from expdata import load, check, function_cpu
from hpctest import near_time_share
p = load("m.hpc").procs["main"]
check(sorted(p.threads) == [0, 1], f"threads {sorted(p.threads)}")
check(all(t.end for t in p.threads.values()), "thread_end for main and the worker")
check(p.end and p.end["status"] == 0 and p.end["reason"] == 0, f"proc_end: exit, status 0 ({p.end})")
cpu = function_cpu(p, os.environ["PROG"], ["main_work", "worker_work"])
# shares of the process's samples (5 binomial standard deviations), 5 ms for the edges
for name, want in (("main_work", 0.1), ("worker_work", 0.4)):
    near_time_share(cpu[name] / 1e9, want, p.sampled_cpu_ns() / 1e9, p.samples(),
                    f"{name}: sampled (burned {want} s)", slack_s=0.005)
PY
