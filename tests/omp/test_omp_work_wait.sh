#!/bin/bash
# timeout: 120
# OpenMP Work and Wait against ground truth (progs/omp_imbalance.c), gcc and clang builds:
# 40 regions of 2 threads; thread t burns t+1 units of 5 ms of CPU, then the barrier.
# Work is 3/4 and wait 1/4 of the threads' time; the profile must match: the sampled CPU
# metrics (OpenMP Work/Wait) within 5 binomial standard deviations for their number of
# samples (hpctest.share_tol, -p hi: one per ms of CPU), the traced wall-clock ones within
# 3 percentage points. The gcc build links libgomp: hpcollect runs it on LLVM libomp
# (--omp-runtime auto).
#
# On Linux OpenMP Wait is CPU time (reference: clock profiling for OpenMP programs): a
# waiting thread counts while it spins. OMP_WAIT_POLICY=active makes every wait spin (as
# libomp's default does for waits shorter than KMP_BLOCKTIME, 200 ms). How much CPU a
# spinning wait gets depends on how the scheduler shares the 2 cores with the rest of
# the machine (libomp's spin loops also call sched_yield), so the program measures its own
# work and wait (thread CPU and wall clock around the work and the barrier) and the
# profile is compared with that: on an idle machine it is 3/4 and 1/4.
#
# The issue's ground truth itself (work 75%, wait 25% of thread time, within 3 points,
# both compilers) holds only where the program has the cores to itself: with other work
# on the machine the scheduler stretches the two threads unequally (at load 3-4 on the 2
# cores the traced wall-clock split measured 74-81%, the sampled CPU split 70-92%). So a
# second run of each build is made under SCHED_FIFO (chrt -f 1: for its 0.7 s nothing
# else runs on the cores but what the kernel's RT throttling lets through, 5% of each
# second), which gives it an idle machine: there both the traced and the sampled split
# must be 75/25 within 3 points (measured 75.0 +- 0.2). Where real-time scheduling is not
# allowed (no CAP_SYS_NICE) that part is left out with a note.
source "$HPC_ROOT/tests/lib.sh"
[ -x "$HPCOLLECT" ] || skip "hpcollect not built yet (the collector has not landed)"
export PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/omp" OMP_WAIT_POLICY=active
collect() {
    rm -rf gcc.hpc clang.hpc gcc_rt.hpc clang_rt.hpc
    "$HPCOLLECT" -q -p hi -o gcc.hpc "$PROGS/omp/omp_imbalance" 40 5 explicit >gcc.out
    "$HPCOLLECT" -q -p hi -o clang.hpc "$PROGS/omp/omp_imbalance.clang" 40 5 explicit >clang.out
    RT=0
    if chrt -f 1 true 2>/dev/null; then
        RT=1
        chrt -f 1 "$HPCOLLECT" -q -p hi -o gcc_rt.hpc "$PROGS/omp/omp_imbalance" 40 5 explicit >gcc_rt.out
        chrt -f 1 "$HPCOLLECT" -q -p hi -o clang_rt.hpc "$PROGS/omp/omp_imbalance.clang" 40 5 explicit \
            >clang_rt.out
    else
        note "real-time scheduling not allowed here: the 75/25 ground-truth checks are left out"
    fi
}

check_split() {
    RT=$RT $SYSPY - <<'PY'
import os
from hpctest import check, near, near_share, nsamples, share_tol
from omptest import *

MS = 0.001  # -p hi

def near_split(value, want, seconds, what, wall):
    """A work or wait share (%): traced within 3 points, sampled within share_tol."""
    if wall:
        near(value, want, 3, what)
    else:
        near_share(value, want, nsamples(seconds, MS), what, 100)

def split(th, wall):
    """Work and wait of the regions' threads: sampled CPU, or traced wall clock (the
    regions only: the program's serial code is neither)."""
    if wall:
        work = sum(t["omp_in_region_wall_s"] - t["omp_wait_wall_s"] for t in th)
        wait = sum(t["omp_wait_wall_s"] for t in th)
    else:
        work, wait = sum(t["omp_work_s"] for t in th), sum(t["omp_wait_s"] for t in th)
    return work, wait

for cc in ("gcc", "clang") if os.environ["RT"] == "1" else ():
    exp = f"{cc}_rt.hpc"
    th = omp(exp)["threads"]
    for wall, what in ((True, "traced wall-clock"), (False, "sampled CPU")):
        work, wait = split(th, wall)
        print(f"# {exp} {what}: work {work:.3f} wait {wait:.3f}")
        near_split(100 * work / (work + wait), 75, work + wait,
                   f"{exp}: ground truth: OpenMP Work % ({what})", wall)
        near_split(100 * wait / (work + wait), 25, work + wait,
                   f"{exp}: ground truth: OpenMP Wait % ({what})", wall)

for cc in ("gcc", "clang"):
    exp = f"{cc}.hpc"
    tr = truths(f"{cc}.out")
    j = omp(exp)
    check(j["ompt"] and j["processes"][0]["runtime"].startswith("LLVM libomp"),
          f"{exp}: ran on LLVM libomp with OMPT: {j['processes'][0]['runtime']}")
    hdr = js(exp, "header")["experiments"][0]["processes"][0]["omp_runtime"]
    check(hdr.startswith("LLVM libomp") and "states recorded" in hdr, f"{exp}: header: {hdr!r}")
    th = sorted(j["threads"], key=lambda t: t["thread"])
    check(len(th) == 2, f"{exp}: 2 threads ({len(th)})")
    # Traced work of the regions only: the program's own truth does not see its serial
    # code, whose wall-clock time (start-up, between regions) grows on a loaded machine.
    for t in th:
        t["omp_work_wall_s"] = t["omp_in_region_wall_s"] - t["omp_wait_wall_s"]
    for wall, key in ((False, "omp_%s_s"), (True, "omp_%s_wall_s")):
        what = "wall-clock, traced" if wall else "CPU, sampled"
        tw, tt = truth_sum(tr, "work", wall), truth_sum(tr, "wait", wall)
        work = sum(t[key % "work"] for t in th)
        wait = sum(t[key % "wait"] for t in th)
        print(f"# {exp} {what}: program work {tw:.3f} wait {tt:.3f}; "
              f"profile work {work:.3f} wait {wait:.3f}")
        if not wall and abs(100 * tw / (tw + tt) - 75) > 3:
            print(f"# note: the program itself worked {100 * tw / (tw + tt):.1f}% (75% on "
                  "an idle machine): the scheduler shared the cores unevenly")
        near_split(100 * work / (work + wait), 100 * tw / (tw + tt), work + wait,
                   f"{exp}: OpenMP Work % ({what})", wall)
        near_split(100 * wait / (work + wait), 100 * tt / (tw + tt), work + wait,
                   f"{exp}: OpenMP Wait % ({what})", wall)
        # Per thread: the master measured its barrier wait and its wait at the region's
        # end; the worker only its barrier wait (its time between leaving its body and the
        # region's end is implicit-barrier wait it cannot see, more of it when the master
        # is kept from running).
        for t in th:
            n = t["thread"]
            mine = tr[(n, "wait")][1 if wall else 0]
            # gcc's GOMP_barrier: libomp cannot tell an explicit barrier there ("barrier")
            bar = "wait_explicit_barrier" if cc == "clang" else "wait_barrier"
            prof = t[key % "wait"] if n == 0 else t[key % bar]
            both = t[key % "work"] + prof
            near_split(100 * prof / both, 100 * mine / (tr[(n, "work")][1 if wall else 0] + mine),
                       both, f"{exp}: thread {n} {'' if n == 0 else 'barrier '}wait % ({what})", wall)
    wait = sum(t["omp_wait_s"] for t in th)
    barriers = sum(t["omp_wait_explicit_barrier_s"] + t["omp_wait_implicit_barrier_s"] +
                   t["omp_wait_barrier_s"] for t in th)
    check(sum(t["omp_wait_explicit_barrier_s" if cc == "gcc" else "omp_wait_barrier_s"]
              for t in th) == 0,
          f"{exp}: the explicit barrier is {'a barrier libomp cannot tell' if cc == 'gcc' else 'explicit'}")
    near(barriers / wait, 1.0, 0.01, f"{exp}: all the wait is at barriers")
    regs = j["regions"]
    check(len(regs) == 1 and regs[0]["function"] == "imbalanced",
          f"{exp}: one region, in imbalanced: {[(r['function'], r['line']) for r in regs]}")
    r = regs[0]
    check(r["executions"] == 40 and r["threads"] == 2,
          f"{exp}: 40 executions of 2 threads ({r['executions']}, {r['threads']})")
    # max/mean of the two threads' sampled work = 2 x the busier thread's share (2/3)
    n_work = nsamples(sum(t["omp_work_s"] for t in th), MS)
    near(r["imbalance"], 4 / 3, 2 * share_tol(2 / 3, n_work),
         f"{exp}: imbalance (max/mean thread work, {n_work} samples)")
PY
}

# The machine's noise (another process, or the hypervisor running something else on
# our virtual cores: steal time) can move one run's split by more than 3 points; a
# second run is made before the test fails. An error of the profile fails both.
steal_ms() { awk '/^cpu /{print $9 * 10}' /proc/stat; }
for attempt in 1 2; do
    s0=$(steal_ms)
    collect
    if check_split >check.$attempt.log 2>&1; then
        cat check.$attempt.log
        exit 0
    fi
    note "attempt $attempt ($(($(steal_ms) - s0)) ms of steal time): $(grep FAIL check.$attempt.log)"
done
cat check.2.log
exit 1
