#!/bin/bash
# timeout: 60
# Sample handlers against dl_iterate_phdr callers (progs/dl_contend.c). A helper thread's
# callback holds the loader lock until main makes progress, so a handler of main that
# waits for the lock stalls both (the helper gives up after 5 s and says so). With
# HPCOLLECT_DEBUG_UNWIND_NOCACHE=1 libunwind's cache is flushed before every unwind, so
# each step calls dl_iterate_phdr with libunwind's cache lock held, as any cache miss
# does; one that meets the helper inside must give way (sigsafe_dl_guard.c) and let go of that
# lock: the collector that waited stalled in 3 of 3 runs here, and the one that gave way
# by siglongjmp out of libunwind left the lock held (every later sample of the process
# waited for it: 3 of 3 runs hung, and so did test_export_trace now and then). Checks: no stall; main's 1.3 s of CPU all sampled; some unwinds gave
# way (how many depends on scheduling: on a loaded machine most do, so no more is
# asked); main's 0.3 s inside its own walk's callback keeps whole stacks (its own call
# is no reason to give way; nor is a thread that ended itself inside its callback
# before, and that thread must have left the loader lock free: it did not when
# libunwind.so came before libgcc_s.so in the process, see collector/module.mk).
source "$HPC_ROOT/tests/lib.sh"

HPCOLLECT_DEBUG_UNWIND_NOCACHE=1 "$HPCOLLECT" -q -p hi -o c "$PROGS/collector/dl_contend" 1 >c.out ||
    fail "dl_contend under hpcollect: $(cat c.out)"
grep -qx "rounds [0-9]* stalled 0" c.out || fail "dl_contend: $(cat c.out)"

PROG="$PROGS/collector/dl_contend" PYTHONPATH="$HPC_ROOT/tests/collector:$HPC_ROOT/tests" $SYSPY - <<'PY'
import os
from expdata import load, check, symbols
from hpctest import near_time_share
p = load("c.hpc").procs["main"]
main = p.threads[0]
cpu = main.cpu_ns / 1e9
check(1.25 <= cpu <= 1.40, f"main thread: {cpu:.3f} s of CPU sampled (burned 1.3 s)")
skipped = main.stats.get("unwind_skipped", 0)
check(skipped > 0, f"main thread: {skipped} of {main.samples} unwinds gave way to the helper")
syms = symbols(os.environ["PROG"])
bias = [r for r in p.all("module_load") if r["flags"] & 1][0]["bias"]
def under(name, stack):
    lo, hi = syms[name]
    return any(lo <= pc - bias < hi for pc in stack)
own = sum(ns for n, ns in main.leaf_cpu.items()
          if n and under("inside_own_walk", main.stack(n)) and under("main", main.stack(n)))
# a sampled share of main's samples (5 binomial standard deviations); slack 10 ms for the
# edges of the burn inside the callback
near_time_share(own / 1e9, 0.3, cpu, main.samples, "main thread: under main > own_walk > "
                "inside_own_walk (burned 0.3 s)", slack_s=0.01)
PY
