#!/bin/bash
# The page-fault test's program with a hardware event (cycles), through the same code
# path: where the machine lets perf_event count cycles, compute() - the loop without
# page faults - has most of them; where it does not (virtual machines), hpcollect says
# why and exits 2 before starting the program, and the test is skipped with that reason.
source "$HPC_ROOT/tests/lib.sh"
rc=0
"$HPCOLLECT" -q -o hw.hpc -S off -h cycles,1000003 "$PROGS/counters/touch_pages" 5000 100000000 \
    >hw.out 2>hw.err || rc=$?
if [ $rc = 2 ] && grep -q "cycles: not supported on this machine (perf_event_open:" hw.err; then
    [ ! -e hw.hpc ] || fail "an experiment was created although the event cannot be opened"
    [ ! -s hw.out ] || fail "the program ran although the event cannot be opened"
    skip "$(cat hw.err)"
fi
[ $rc = 0 ] || fail "hpcollect -h cycles: exit $rc: $(cat hw.err)"

PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/counters" $SYSPY - <<'PY'
from ctrtest import *
rows = functions("hw.hpc")
total = rows["<Total>"]["incl_cycles"]
compute = metric(rows, "compute", "excl_cycles")
n = len(counter_samples("hw.hpc"))
low = 0.8 - share_tol(0.8, n)  # a sampled share: 5 binomial standard deviations below 80%
check(total > 0 and compute >= low * total, f"compute() has {compute} of {total} cycles (>= {100 * low:.1f}%, {n} samples)")
PY
