#!/bin/bash
# timeout: 90
# Two threads that block about 20000 times each (a counter passed over two pipes): the
# program's output (the counter) is what it is without hpcollect, every context switch
# is accounted (no record lost, Total Thread = each thread's life), and each thread's time
# off the CPU lands on its function: Other Wait (asleep in read) and Wait CPU (woken,
# waiting for a CPU) within 5% or 20 ms of what its own clocks measured (wall - CPU -
# schedstat run delay, and the run delay), in the default mechanism and the fallback.
source "$HPC_ROOT/tests/lib.sh"

PROG="$PROGS/states/pingpong"
N=20000
"$PROG" $N >plain.out || fail "pingpong failed without hpcollect"
for run in perf calls; do
    env $([ $run = calls ] && echo HPCOLLECT_STATES=2) "$HPCOLLECT" -q -o $run "$PROG" $N \
        >$run.out || fail "$run: pingpong failed under hpcollect: $(cat $run.out)"
    diff <(grep counter plain.out) <(grep counter $run.out) ||
        fail "$run: the program's output changed under hpcollect"
done

check_py '
interval = 0.010
for run in ("perf", "calls"):
    truth = {}
    for l in open(run + ".out"):
        f = l.split()
        if f[0] == "thread":
            wall, cpu, rd, sw = map(float, f[2:6])
            truth[f[1]] = dict(sleep=wall - cpu - rd, wait=rd, cpu=cpu, switches=sw)
    st = analyze(run + ".hpc", "statistics")["processes"][0]
    check(st["stats"]["states_lost"] == 0, run + ": no context-switch record lost")
    for th in st["thread_list"]:
        tail, seq = max(th.get("thread_cpu_s", 0) - th["sampled_cpu_s"], 0), th["seq"]
        near(th["total_thread_s"] + tail, th["life_s"], 0.02 * th["life_s"],
             f"{run}: thread {seq}: Total Thread and its life")
    for seq, fn in ((0, "ping"), (1, "pong")):
        t = truth[fn]
        sw = t["switches"]
        check(sw > 10000, f"{run}: {fn}: {sw:.0f} context switches")
        f = {x["name"]: x for x in analyze(run + ".hpc", "--threads", str(seq),
                                          "functions")["functions"]}[fn]
        # wall - CPU - run delay holds steal time too (the hypervisor of a virtual machine
        # running something else while the thread ran: up to its CPU time), Wait CPU too
        off, other, wait = t["sleep"] + t["wait"], f["incl_other_wait_s"], f["incl_wait_cpu_s"]
        tol = max(0.05 * off, 0.020)
        near(other + wait, off, tol, f"{run}: {fn}: Other Wait + Wait CPU = wall - CPU")
        sl = t["sleep"]
        check(sl - t["cpu"] - tol <= other <= sl + tol,
              f"{run}: {fn}: Other Wait in read {other:.4f}, asleep {sl:.4f}")
        check(wait >= t["wait"] - tol, f"{run}: {fn}: Wait CPU {wait:.4f} holds the run delay")
        check(f["incl_user_lock_s"] == 0, f"{run}: {fn}: no User Lock")
'
