#!/bin/bash
# Periodic sample points come at their period while every thread of the program waits,
# without a thread of ours, and the waits do not notice: idle_points waits 0.2 s in each
# of nanosleep (two threads), read (the points timer's SIGPROF, restarted), pause (ended
# by the program's own SIGUSR1), poll, select, epoll_wait, usleep, clock_nanosleep and
# sigtimedwait, then 1 s in sleep. Under -S 0.04:
#   - each call returns what it returns plain (its timeout, the byte read, EINTR with one
#     run of the program's handler, select's timeout left at 0) and waits as long;
#   - every window holds at least one periodic point (a wait that spans a due time wakes
#     for it and writes it before it returns; the timer fires a grace time after it).
#     Load cannot break this: due times stay on the grid of the period, and each wait
#     spans several; read, the one wait that relies on the timer's signal, ends only
#     after main woke inside it (idle_points --await-wake: a loaded machine may deliver
#     the signal late, and then read 0 points in 0.2 s);
#   - no bursts: at most one periodic point per period of the run.
# (periodic.c, quiet_wait.c)
source "$HPC_ROOT/tests/lib.sh"
PROG="$PROGS/collector/idle_points"
"$PROG" plain.win >plain.out || fail "idle_points plain: $(cat plain.out)"
"$HPCOLLECT" -q -o i.hpc -S 0.04 "$PROG" hpc.win --await-wake >hpc.out ||
    fail "idle_points under hpcollect: $(cat hpc.out)"
diff plain.out hpc.out >/dev/null || fail "the waits differ under hpcollect: $(diff plain.out hpc.out)"
grep -q SHORT hpc.out && fail "a wait ended early: $(grep SHORT hpc.out)"
PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/collector" $SYSPY - <<'PY'
from expdata import load
from hpctest import check
PERIOD = 40_000_000
p = load("i.hpc").procs["main"]
pts = p.all("sample_point")
periodic = [r["time"] for r in pts if r["reason"] == 1]  # HPC_SAMPLE_PERIODIC
run = pts[-1]["time"] - pts[0]["time"]
check(periodic == sorted(periodic), "periodic points in time order")
check(len(periodic) <= run // PERIOD + 1,
      f"{len(periodic)} periodic points in a run of {run / 1e9:.3f} s: at most one per period")
counts = []
for line in open("hpc.win"):
    phase, start, end = line.split()
    inside = [t for t in periodic if int(start) < t < int(end)]
    counts.append(f"{phase} {len(inside)}")
    check(inside, f"{phase}: {len(inside)} periodic points in its "
          f"{(int(end) - int(start)) / 1e9:.3f} s wait, at least one")
print("# periodic points per wait:", ", ".join(counts))
PY
