#!/bin/bash
# timeout: 60
# Sample handlers against a program thread inside dl_iterate_phdr (progs/dl_contend.c):
# its callback holds the loader lock until main makes progress, so a handler of main
# that waits for the lock stalls both (the helper gives up after 5 s and says so). With
# HPCOLLECT_DEBUG_UNWIND_NOCACHE=1 every unwind calls dl_iterate_phdr; an unwind that
# meets the helper inside must give way (dl_guard.c). The collector before the fix
# stalled in 3 of 3 runs here. Checks: no stall; main's 1 s of CPU all sampled; some
# unwinds gave way (unwind_skipped, leaf kept) and most stacks are full (reach main).
source "$HPC_ROOT/tests/lib.sh"

HPCOLLECT_DEBUG_UNWIND_NOCACHE=1 "$HPCOLLECT" -q -p hi -o c "$PROGS/collector/dl_contend" 1 >c.out ||
    fail "dl_contend under hpcollect: $(cat c.out)"
grep -qx "rounds [0-9]* stalled 0" c.out || fail "dl_contend: $(cat c.out)"

PROG="$PROGS/collector/dl_contend" PYTHONPATH="$HPC_ROOT/tests/collector" $SYSPY - <<'PY'
import os
from expdata import load, check, symbols
p = load("c.hpc").procs["main"]
main = p.threads[0]
cpu = main.cpu_ns / 1e9
check(0.95 <= cpu <= 1.08, f"main thread: {cpu:.3f} s of CPU sampled (burned 1 s)")
skipped = main.stats.get("unwind_skipped", 0)
check(skipped >= 0.01 * main.samples,
      f"main thread: {skipped} of {main.samples} unwinds gave way (the helper is inside "
      f"the loader's walk about a tenth of the time)")
lo, hi = symbols(os.environ["PROG"])["main"]
bias = [r for r in p.all("module_load") if r["flags"] & 1][0]["bias"]
full = sum(ns for n, ns in main.leaf_cpu.items()
           if n and any(lo <= pc - bias < hi for pc in main.stack(n)))
check(full >= 0.6 * main.cpu_ns,
      f"main thread: {full / main.cpu_ns:.2f} of its CPU with stacks reaching main")
PY
