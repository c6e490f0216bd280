#!/bin/bash
# timeout: 120
# A pthread worker whose first clock, its CPU timer, never fires (HPCOLLECT_DEBUG_LAZY_
# TIMER_MUTE: as where the kernel's tick keeps missing a preempted thread) is still
# sampled once it has blocked a clock interval's worth: its thread states and its clock
# take their perf events then (collector/source.h, hpc_clock_check). progs/phases.c's
# worker waits for the main thread's rounds (sem_wait) and spins: spin's exclusive CPU is
# what the worker measured around it, within 5 binomial standard deviations for the
# samples (on the old rule: none, its CPU charged at its end to the thread's root).
source "$HPC_ROOT/tests/lib.sh"
export PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/analyzer"
HPCOLLECT_DEBUG_LAZY_TIMER_MUTE=1 "$HPCOLLECT" -q -p 1 -o mute.hpc "$PROGS/analyzer/phases" 4000000 >mute.out
$SYSPY - <<'PY'
from hpctest import check, near_time_share
from anatest import *

cpu = {tuple(l.split()[1:3]): float(l.split()[3]) for l in open("mute.out") if l.startswith("cpu ")}
w = funcs("mute.hpc", "--threads", "1")
tot, n = w["<Total>"]["incl_cpu_s"], w["<Total>"]["incl_samples"]
check(n >= 20, f"the worker took clock samples ({n})")
near_time_share(w.get("spin", {}).get("excl_cpu_s", 0.0), cpu["worker", "spin"], tot, n,
                "the worker: spin exclusive CPU s")
PY
