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

PROG="$PROGS/collector/fork_in_dl" PYTHONPATH="$HPC_ROOT/tests/collector:$HPC_ROOT/tests" $SYSPY - <<'PY'
import os
from expdata import load, check, function_cpu, symbols
from hpctest import near_time_share

def near_burn(value_s, proc, what):
    """0.3 s of the process's sampled CPU, within 5 binomial standard deviations; slack
    10 ms: the process's CPU before its first sample and after its last is not sampled
    (a child loses up to about 5 ms there), and burn_cpu's own start and end."""
    near_time_share(value_s, 0.3, proc.sampled_cpu_ns() / 1e9, proc.samples(), what, slack_s=0.01)

procs = load("f.hpc").procs
check(sorted(procs) == ["main", "main.f1"], f"processes {sorted(procs)}")
exe = os.environ["PROG"]
child, parent = procs["main.f1"], procs["main"]
c = function_cpu(child, exe, ["burn_cpu"])["burn_cpu"] / 1e9
near_burn(c, child, "main.f1: CPU in burn_cpu (burned 0.3 s)")
skipped = sum(t.stats.get("unwind_skipped", 0) for t in child.threads.values())
# one sample more per thread, at its end: the CPU time after its last (tail.c)
check(skipped == child.samples() - len(child.threads) > 0,
      f"main.f1: every sample leaf-only ({skipped} skipped of {child.samples()}, "
      f"{len(child.threads)} charged at the thread's end)")
check(child.end["status"] == 0, "main.f1: exit status 0")
p = function_cpu(parent, exe, ["burn_cpu"])["burn_cpu"] / 1e9
near_burn(p, parent, "main: CPU in burn_cpu (burned 0.3 s)")
lo, hi = symbols(exe)["parent_work"]
bias = [r for r in parent.all("module_load") if r["flags"] & 1][0]["bias"]
under = sum(ns for t in parent.threads.values() for n, ns in t.leaf_cpu.items()
            if n and any(lo <= pc - bias < hi for pc in t.stack(n))) / 1e9
near_burn(under, parent, "main: CPU under parent_work (full stacks)")
PY
