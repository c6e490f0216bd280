#!/bin/bash
# The timer fallback (forced with HPCOLLECT_CLOCK_SOURCE=timer) gives the same shares as
# perf task-clock: part_a does 60% of split's work, part_b 40%; each source's share is
# within 5 binomial standard deviations of part_a's share of the CPU time as split measured
# it, for its number of samples (the timer ticks at the kernel's rate, fewer samples), and
# the two sources' errors agree as closely; the sampled CPU
# within 3% of rusage, and the mechanism is recorded per process and per thread.
source "$HPC_ROOT/tests/lib.sh"

"$HPCOLLECT" -q -p hi -o perf "$PROGS/collector/split" >perf.out
HPCOLLECT_CLOCK_SOURCE=timer "$HPCOLLECT" -q -p hi -o timer "$PROGS/collector/split" >timer.out

PYTHONPATH="$HPC_ROOT/tests/collector:$HPC_ROOT/tests" EXE="$PROGS/collector/split" $SYSPY - <<'PY'
import os
from expdata import load, check, function_cpu
from hpctest import near_share, shares_tol
shares, counts = {}, {}
for exp, src in (("perf", 1), ("timer", 2)):
    p = load(exp + ".hpc").procs["main"]
    check(p.settings["clock_source"] == src, f"{exp}: settings.clock_source {src}")
    check(p.threads[0].begin["clock_source"] == src, f"{exp}: thread_begin.clock_source {src}")
    cpu = function_cpu(p, os.environ["EXE"], ["part_a", "part_b"])
    n = sum(function_cpu(p, os.environ["EXE"], ["part_a", "part_b"], samples=True).values())
    truth = {l.split()[1]: float(l.split()[2]) for l in open(exp + ".out") if l.startswith("cpu ")}
    want = truth["part_a"] / (truth["part_a"] + truth["part_b"])
    share = cpu["part_a"] / (cpu["part_a"] + cpu["part_b"])
    shares[exp], counts[exp] = share - want, n
    near_share(share, want, n, f"{exp}: part_a share")
    le = p.launcher_exit
    ru = le["utime_ns"] + le["stime_ns"]
    check(abs(p.sampled_cpu_ns() - ru) <= 0.03 * ru,
          f"{exp}: sampled {p.sampled_cpu_ns() / 1e9:.3f} s vs rusage {ru / 1e9:.3f} s")
timer = load("timer.hpc").procs["main"]
check("timer" in timer.settings["clock_note"], f"note: {timer.settings['clock_note']}")
tol = shares_tol(0.6, counts["perf"], counts["timer"])
check(abs(shares["perf"] - shares["timer"]) <= tol,
      f"perf and timer shares err alike: {shares['perf']:+.3f}, {shares['timer']:+.3f} (+- {tol:.3f})")
PY
