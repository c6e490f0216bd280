#!/bin/bash
# timeout: 60
# Threads cancelled inside stdio (progs/cancel_stdio.c): glibc runs its cleanup handlers
# (the FILE's lock) as it unwinds the thread with libgcc_s. The collector must not
# change whose _Unwind_* functions libgcc_s calls: with libunwind.so before libgcc_s
# in the process (collector/module.mk), the lock stayed held and the program hung. Every
# cancelled thread is in the experiment with its thread_begin and thread_end.
# Run with -p off: with clock samples, about 1 run in 10 hangs for another reason, not
# fixed yet. A cancel can arrive while a sample's unwind is in libunwind's memory
# validation, whose read() is a cancellation point that waits for SIGCANCEL, and our
# handler blocks that signal (see the closing note of stop 11).
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
