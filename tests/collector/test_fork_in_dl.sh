#!/bin/bash
# timeout: 60
# A fork while another thread is inside dl_iterate_phdr (progs/fork_in_dl.c): the child
# inherits the loader lock held, and a collector that scans modules or unwinds there
# with dl_iterate_phdr hangs it (and the parent in waitpid). The child must run to its
# end with its 0.3 s of CPU sampled, leaf-only (burn_cpu; every sample counted in
# unwind_skipped); the parent's 0.3 s keeps full stacks (burn_cpu under parent_work).
source "$HPC_ROOT/tests/lib.sh"

"$PROGS/collector/fork_in_dl" | grep -qx "child exit 0" || fail "fork_in_dl fails even plain"
"$HPCOLLECT" -q -p hi -o f "$PROGS/collector/fork_in_dl" >f.out || fail "under hpcollect: $(cat f.out)"
grep -qx "child exit 0" f.out || fail "child: $(cat f.out)"

PROG="$PROGS/collector/fork_in_dl" PYTHONPATH="$HPC_ROOT/tests/collector" $SYSPY - <<'PY'
import os
from expdata import load, check, function_cpu, symbols
procs = load("f.hpc").procs
check(sorted(procs) == ["main", "main.f1"], f"processes {sorted(procs)}")
exe = os.environ["PROG"]
child, parent = procs["main.f1"], procs["main"]
c = function_cpu(child, exe, ["burn_cpu"])["burn_cpu"] / 1e9
check(0.27 <= c <= 0.36, f"main.f1: {c:.3f} s of CPU in burn_cpu (burned 0.3 s)")
skipped = sum(t.stats.get("unwind_skipped", 0) for t in child.threads.values())
check(skipped == child.samples() > 0,
      f"main.f1: every sample leaf-only ({skipped} skipped of {child.samples()})")
check(child.end["status"] == 0, "main.f1: exit status 0")
p = function_cpu(parent, exe, ["burn_cpu"])["burn_cpu"] / 1e9
check(0.27 <= p <= 0.36, f"main: {p:.3f} s of CPU in burn_cpu (burned 0.3 s)")
lo, hi = symbols(exe)["parent_work"]
bias = [r for r in parent.all("module_load") if r["flags"] & 1][0]["bias"]
under = sum(ns for t in parent.threads.values() for n, ns in t.leaf_cpu.items()
            if n and any(lo <= pc - bias < hi for pc in t.stack(n))) / 1e9
check(0.27 <= under <= 0.36, f"main: {under:.3f} s of CPU under parent_work (full stacks)")
PY
