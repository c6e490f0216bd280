#!/bin/bash
# -l SIGUSR2 with 200 deliveries in a row while the sampler thread cannot run (it and the
# program share CPU 0, the program runs SCHED_FIFO during the burst): the queue holds 64
# points, which are written (64 SIGUSR2 periods, then the end), and the other 136 are
# counted in the points_dropped statistic (statistics: text and JSON).
source "$HPC_ROOT/tests/lib.sh"
USR2=$(kill -l USR2)
rc=0
"$HPCOLLECT" -q -o b.hpc -S off -l SIGUSR2 "$PROGS/counters/point_burst" $USR2 200 >b.out || rc=$?
[ $rc = 77 ] && skip "$(tail -1 b.out)"
[ $rc = 0 ] || fail "point_burst under -l: exit $rc: $(cat b.out)"
grep -qx "raised 200" b.out || fail "point_burst: $(cat b.out)"
"$HPANALYZE" b.hpc statistics >stats.txt || fail "statistics"
grep -Eq "Sample points dropped \(queue full\): 136$" stats.txt ||
    fail "statistics text: $(grep -i "points" stats.txt)"

PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/counters" $SYSPY - <<'PY'
from ctrtest import *
from hpctest import analyze
ps = periods("b.hpc")
sig = [p for p in ps if p["reason"] == "signal"]
check(len(sig) == 64 and ps[-1]["reason"] == "end" and len(ps) == 65,
      f"64 SIGUSR2 periods and the end: {len(sig)} signal periods of {len(ps)}")
st = analyze("b.hpc", "statistics")["processes"][0]["stats"]
check(st["points_dropped"] == 136, f"points_dropped {st['points_dropped']}, want 200 - 64")
h = analyze("b.hpc", "header")["experiments"][0]["processes"][0]
check(h["sample_signal"] == "SIGUSR2" and h["pause_signal"] == "" and h["counters"] == [],
      f"header --format json: sample signal {h['sample_signal']!r}, no pause signal, no counters")
PY
