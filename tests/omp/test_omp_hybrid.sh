#!/bin/bash
# timeout: 120
# MPI + OpenMP: everything per rank and per thread. 2 ranks (mpirun) of the clang build
# of progs/omp_imbalance.c, 10 regions of 2 threads each: every rank has its own regions
# and threads, and each thread's OpenMP Work is the CPU it burnt (thread t: (t+1) x 10 x
# 5 ms), within 5 binomial standard deviations of the share of the thread's samples
# (-p hi: one per ms of CPU).
source "$HPC_ROOT/tests/lib.sh"
[ -x "$HPCOLLECT" ] || skip "hpcollect not built yet (the collector has not landed)"
command -v mpirun >/dev/null || skip "mpirun not installed"
export PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/omp"
mpirun -np 2 --oversubscribe "$HPCOLLECT" -q -p hi -o hyb.hpc \
    "$PROGS/omp/omp_imbalance.clang" 10 5 explicit >/dev/null
$SYSPY - <<'PY'
from hpctest import check, near, near_time_share, nsamples
from omptest import *

j = omp("hyb.hpc")
ranks = sorted(p["rank"] for p in j["processes"])
check(ranks == [0, 1] and all(p["ompt"] for p in j["processes"]),
      f"two ranks with OpenMP states ({j['processes']})")
for rank in (0, 1):
    regs = [r for r in j["regions"] if r["rank"] == rank]
    check(len(regs) == 1 and regs[0]["executions"] == 10 and regs[0]["threads"] == 2,
          f"rank {rank}: one region, 10 executions of 2 threads")
    th = sorted((t for t in j["threads"] if t["rank"] == rank), key=lambda t: t["thread"])
    check([t["thread"] for t in th] == [0, 1], f"rank {rank}: threads 0 and 1")
    # slack 5 ms: the master's serial code counts as work too
    for t in th:
        tot = t["omp_work_s"] + t["omp_wait_s"] + t["omp_idle_s"] + t["omp_overhead_s"]
        near_time_share(t["omp_work_s"], (t["thread"] + 1) * 0.05, tot, nsamples(tot, 0.001),
                        f"rank {rank} thread {t['thread']}: OpenMP Work (s)", slack_s=0.005)
PY
