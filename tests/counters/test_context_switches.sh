#!/bin/bash
# -h context-switches,1 on a program that sleeps N times (nanosleep, usleep, poll) in
# sleep_often() and then computes: every sleep is a voluntary context switch of the
# function that sleeps, so sleep_often() has at least N of them, and the total is what
# the kernel counted (ru_nvcsw + ru_nivcsw of the run, within 5%). The counter's
# overflow happens as the thread leaves the CPU; the collector must not let its signal
# wake the sleeper: the program checks that no sleep came back early.
source "$HPC_ROOT/tests/lib.sh"
N=150
"$HPCOLLECT" -q -o cs.hpc -S off -p off -h context-switches,1 "$PROGS/counters/sleeper" $N >cs.out ||
    fail "sleeper under hpcollect (exit $?): $(cat cs.out): sleeps were cut short"
note "$(cat cs.out)"
grep -q " early 0 " cs.out || fail "sleeps came back early: $(cat cs.out)"

PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/counters" N=$N $SYSPY - <<'PY'
import os
from ctrtest import *
n = int(os.environ["N"])
rows = functions("cs.hpc")
total = rows["<Total>"]["incl_context-switches"]
sleeper = metric(rows, "sleep_often", "incl_context-switches")
check(sleeper >= n, f"sleep_often() has {sleeper} context switches for {n} sleeps")
le = load("cs.hpc").procs["main"].launcher_exit
kernel = le["nvcsw"] + le["nivcsw"]
check(abs(total - kernel) <= max(2, 0.05 * kernel), f"total {total} vs the kernel's {kernel} (5%)")
check(sleeper >= 0.95 * le["nvcsw"] - 2, f"sleep_often() has the voluntary ones ({le['nvcsw']})")
PY
