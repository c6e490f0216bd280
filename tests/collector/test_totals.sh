#!/bin/bash
# Read through hpanalyze: two threads doing equal work (0.4 s of CPU each) get about
# half each, and their total is about twice that of the same work on one thread; the
# sampled CPU is within 3% of the operating system's accounting.
source "$HPC_ROOT/tests/lib.sh"
[ -x "$HPANALYZE" ] || skip "hpanalyze not built yet"

"$HPCOLLECT" -q -p hi -o one "$PROGS/collector/threads" 1 1 400 >/dev/null
"$HPCOLLECT" -q -p hi -o two "$PROGS/collector/threads" 2 2 400 >/dev/null

# Thread totals are CPU time (each sample weighs the CPU since the previous one), not
# shares of samples; the worker function's share of all samples is one (binomial bound,
# hpctest.share_tol, with 2% for the main thread's start-up and joins outside it).
check_py '
tot = lambda exp, *a: [r for r in analyze(exp, *a, "functions")["functions"]
                       if r["name"] == "<Total>"][0]["incl_cpu_s"]
one, two = tot("one.hpc"), tot("two.hpc")
t1, t2 = tot("two.hpc", "--threads", "1"), tot("two.hpc", "--threads", "2")
near(t1 / two, 0.5, 0.03, "thread 1 share of the two-thread total")
near(t2 / two, 0.5, 0.03, "thread 2 share of the two-thread total")
near(two / one, 2.0, 0.1, "two-thread total / one-thread total")
fs = {r["name"]: r for r in analyze("two.hpc", "functions")["functions"]}
near_share(fs["worker"]["incl_cpu_s"] / two, 1.0, fs["<Total>"]["incl_samples"],
           "worker share of the total", slack=0.02)
for exp in ("one.hpc", "two.hpc"):
    p = analyze(exp, "statistics")["processes"][0]
    near(p["sampled_cpu_s"] / p["os_cpu_s"], 1.0, 0.03, f"{exp}: sampled CPU / OS CPU")
'
