#!/bin/bash
# timeout: 60
# A fork child of an OpenMP program runs on the runtime its parent started, with the
# tool's callbacks inherited (progs/omp_fork.c: a region of 2 threads burning 100 ms of
# CPU each in the parent, then the same in a fork child). The child's sub-experiment
# must say which runtime ran (it used to fall back to the module list and report GNU
# libgomp or "no OMPT", with no OpenMP states), and show its own region and threads:
# 1 execution each, every thread 0.100 s of OpenMP work, the parent's main thread also
# the CPU time its waitpid took, which the program measures (within 5 binomial standard
# deviations of its share of the thread's samples). gcc and clang builds.
source "$HPC_ROOT/tests/lib.sh"
[ -x "$HPCOLLECT" ] || skip "hpcollect not built yet (the collector has not landed)"
export PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/omp"
"$HPCOLLECT" -q -p hi -o gcc.hpc "$PROGS/omp/omp_fork" 100000 >gcc.out
"$HPCOLLECT" -q -p hi -o clang.hpc "$PROGS/omp/omp_fork.clang" 100000 >clang.out
$SYSPY - <<'PY'
from hpctest import check, near, near_time_share, nsamples
from omptest import *

for exp in ("gcc.hpc", "clang.hpc"):
    text, err = run(exp, "omp")
    check("no OMPT" not in err and "unavailable" not in text,
          f"{exp}: no process said to lack OMPT ({err.strip()!r})")
    j = omp(exp)
    rts = [p["runtime"] for p in j["processes"]]
    check(len(rts) == 2 and all(r.startswith("LLVM libomp") for r in rts),
          f"{exp}: parent and child ran on LLVM libomp ({rts})")
    regions = sorted((r["process"], r["function"], r["executions"]) for r in j["regions"])
    check(regions == [("main", "region", 1), ("main.f1", "region", 1)],
          f"{exp}: one region execution in each process ({regions})")
    threads = [(t["process"], t["thread"]) for t in j["threads"]]
    check(sorted(threads) == [("main", 0), ("main", 1), ("main.f1", 0), ("main.f1", 1)],
          f"{exp}: two OpenMP threads in each process ({threads})")
    # slack 5 ms: the master's code around the region counts as work too, and so does
    # the parent's CPU time in waitpid (the program measures it: 39 ms of system time
    # once at load 19, when the ending child's teardown was charged to it)
    waited = float(open(exp.split(".")[0] + ".out").read().split("waited ")[1].split()[0])
    for t in j["threads"]:
        tot = t["omp_work_s"] + t["omp_wait_s"] + t["omp_idle_s"] + t["omp_overhead_s"]
        want = 0.100 + (waited if (t["process"], t["thread"]) == ("main", 0) else 0)
        near_time_share(t["omp_work_s"], want, tot, nsamples(tot, 0.001),
                        f"{exp}: {t['process']} thread {t['thread']}: work (CPU s)", slack_s=0.005)
PY
