#!/bin/bash
# timeout: 60
# Threads cancelled inside stdio (progs/cancel_stdio.c): glibc runs its cleanup handlers
# (the FILE's lock) as it unwinds the thread with libgcc_s. The collector must not
# change whose _Unwind_* functions libgcc_s calls: with libunwind.so before libgcc_s
# in the process (collector/module.mk), the lock stayed held and the program hung. Every
# cancelled thread is in the experiment with its thread_begin and thread_end.
# The collector's own cancellation points (the thread's stream being created, a
# sample's chunk change or libunwind's validating read) hold cancellation off, so a
# cancel acts only at the program's own. Before that, a cancel 1 ms after pthread_create
# on a loaded machine often caught the thread inside the collector's set-up (4 of 4 runs
# lost 6-14 of the 50 streams).
# Run with -p off: with clock samples, about 1 run in 80 still hangs (a cancelled
# thread that never ends), not fixed yet.
source "$HPC_ROOT/tests/lib.sh"

"$PROGS/collector/cancel_stdio" 50 | grep -qx "cancelled 50" || fail "cancel_stdio fails even plain"
"$HPCOLLECT" -q -p off -o c "$PROGS/collector/cancel_stdio" 50 >c.out ||
    fail "cancel_stdio under hpcollect: $(cat c.out)"
grep -qx "cancelled 50" c.out || fail "cancel_stdio under hpcollect: $(cat c.out)"

PYTHONPATH="$HPC_ROOT/tests/collector" $SYSPY - <<'PY'
from expdata import load, check
p = load("c.hpc").procs["main"]
check(sorted(p.threads) == list(range(51)), f"streams t0..t50 ({len(p.threads)})")
ended = [s for s, t in p.threads.items() if s and t.begin and t.end]
check(len(ended) == 50, f"{len(ended)} of 50 cancelled threads with thread_begin and thread_end")
PY
