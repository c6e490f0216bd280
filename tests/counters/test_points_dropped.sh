#!/bin/bash
# -l SIGUSR2: every delivery becomes a sample point or is counted in points_dropped
# (statistics, text and JSON), none is lost silently. point_burst (-S off, so that only
# its signals make points):
#   1. holds the process-stream lock (the collector's hpcollect_proc_lock) and raises
#      SIGUSR2 200 times: the queue keeps 64 points, 136 are dropped, and the 64 are
#      written as it unlocks, stamped inside that window
#   2. raises it 100 times with the lock free: 100 points, written by their handlers
#   3. four threads raise it 500 times each at once, meeting each other's lock
# Ground truth: 64 + 100 points in the first two windows, 136 dropped, and points +
# dropped = the 2300 deliveries; the points in time order (no negative period).
source "$HPC_ROOT/tests/lib.sh"
USR2=$(kill -l USR2)
rc=0
"$HPCOLLECT" -q -o b.hpc -S off -l SIGUSR2 "$PROGS/counters/point_burst" $USR2 200 100 4 500 \
    times.txt >b.out || rc=$?
[ $rc = 77 ] && skip "$(tail -1 b.out)"
[ $rc = 0 ] || fail "point_burst under -l: exit $rc: $(cat b.out)"
grep -qx "raised 2300" b.out || fail "point_burst: $(cat b.out)"
"$HPANALYZE" b.hpc statistics >stats.txt || fail "statistics"
grep -Eq "Sample points dropped: +[0-9]+$" stats.txt ||
    fail "statistics text: $(grep -i "points" stats.txt)"

PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/counters" $SYSPY - <<'PY'
import re
from ctrtest import *
from hpctest import analyze
win = {l.split()[0]: (int(l.split()[1]), int(l.split()[2])) for l in open("times.txt")}
pts = load("b.hpc").procs["main"].all("sample_point")
sig = [p["time"] for p in pts if p["label"] == "SIGUSR2"]
def within(w):
    return sum(1 for t in sig if win[w][0] <= t <= win[w][1])
check(within("held") == 64, f"{within('held')} points while the lock was held, want the 64 queued")
check(within("free") == 100, f"{within('free')} points with the lock free, want 100")
st = analyze("b.hpc", "statistics")["processes"][0]["stats"]
dropped = st["points_dropped"]
check(dropped >= 136, f"points_dropped {dropped}: at least the 200 - 64 of the held window")
check(len(sig) + dropped == 2300,
      f"{len(sig)} SIGUSR2 points + {dropped} dropped = the 2300 deliveries")
times = [p["time"] for p in pts]
check(times == sorted(times), "sample points in time order")
text = open("stats.txt").read()
m = re.search(r"Sample points dropped: +(\d+)", text)
check(int(m.group(1)) == dropped, f"statistics text says {m.group(1)} dropped")
h = analyze("b.hpc", "header")["experiments"][0]["processes"][0]
check(h["sample_signal"] == "SIGUSR2" and h["pause_signal"] == "" and h["counters"] == [],
      f"header --format json: sample signal {h['sample_signal']!r}, no pause signal, no counters")
PY
