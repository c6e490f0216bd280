#!/bin/bash
# timeout: 90
# Threads that end before their first clock sample (collector/states.h: lazy) still have
# their whole life accounted: short_threads runs 200 threads of 2 ms of CPU and a 3 ms
# nanosleep each (no sample, no state event ever opened), 8 nappers whose sleep takes a
# clock interval (their events open at its end) and 8 burners that compute 30 ms (their
# events open at the first sample), each sleeping 5 ms after. In the default mechanism
# and the fallback:
#   - every thread's Total Thread is its recorded life (within 2%);
#   - the short threads' and the nappers' sleeping functions hold their nanosleeps as
#     Other Wait + Wait CPU: at least the time asked for (each call sleeps that long at
#     least) and at most the calls' wall time as the program measured it around them
#     (our bookkeeping after a call is in that wall time, not in the call); the burners'
#     at most that wall time;
#   - the short threads' CPU lands on them (their start routine: they had no sample)
#     within 5% of what they measured at their ends;
#   - the process's states beside the kernel's own account (rusage, schedstat), every
#     thread in it.
source "$HPC_ROOT/tests/lib.sh"

PROG="$PROGS/states/short_threads"
N=200
for run in perf calls; do
    env $([ $run = calls ] && echo HPCOLLECT_STATES=2) "$HPCOLLECT" -q -o $run "$PROG" $N \
        >$run.out || fail "$run: short_threads failed under hpcollect: $(cat $run.out)"
done

N=$N check_py '
import os
n = int(os.environ["N"])
asked = {"short_nap": 0.003 * n, "long_nap": 8 * 0.015, "late_nap": 8 * 0.005, "burner_nap": 8 * 0.005}
for run in ("perf", "calls"):
    nap, cpu = {}, {}
    for l in open(run + ".out"):
        f = l.split()
        if f[0] == "nap":
            nap[f[1]] = float(f[2])
            check(int(f[3]) == (n if f[1] == "short_nap" else 8), f"{run}: {f[1]}: {f[3]} calls")
        elif f[0] == "cpu":
            cpu[f[1]] = float(f[2])
        elif f[0] == "off":
            burn_off = float(f[2])
    st = analyze(run + ".hpc", "statistics")["processes"][0]
    ths = st["thread_list"]
    check(len(ths) == n + 17, f"{run}: {len(ths)} threads recorded, want {n + 17}")
    for th in ths:
        tail, seq = max(th.get("thread_cpu_s", 0) - th["sampled_cpu_s"], 0), th["seq"]
        near(th["total_thread_s"] + tail, th["life_s"], 0.02 * th["life_s"],
             f"{run}: thread {seq}: Total Thread and its life")
    def funcs(*threads):
        return {x["name"]: x for x in analyze(run + ".hpc", *threads, "functions")["functions"]}
    def off(fn, f):
        return fn.get(f, {}).get("incl_other_wait_s", 0) + fn.get(f, {}).get("incl_wait_cpu_s", 0)
    # a state below one interval that is left at the end of a thread goes where that state
    # was last written (sigsafe_states.c: write_left): the late_nap of a napper to its
    # long_nap; a burner may have written Other Wait at its first sample (its time off the
    # CPU before, beyond its run delay: steal), and its burner_nap may go there, and what
    # long_burn lost off the CPU after its last sample goes to burner_nap at the end
    # (0.0941 against a wall of 0.0831 failed at load 14): bounded above only, by the
    # naps and that loss, the sums are checked by Total Thread above
    fn, naps = funcs(), funcs("--threads", f"{n + 1}-{n + 8}")
    for fs, fn_of in ((("short_nap",), fn), (("long_nap", "late_nap"), naps), (("burner_nap",), None)):
        want, wall = (sum(d[f] for f in fs) for d in (asked, nap))
        got = sum(off(fn_of or fn, f) for f in fs)
        what = " + ".join(fs)
        extra = burn_off if fs == ("burner_nap",) else 0
        check((0.99 * want if fn_of else 0) <= got <= wall + extra + 0.001,
              f"{run}: {what}: Other Wait + Wait CPU {got:.4f} between the sleeps asked for "
              f"{want:.4f} and their wall time {wall:.4f} (+ {extra:.4f} lost in long_burn)")
        for f in fs:
            check(fn.get(f, {}).get("incl_user_lock_s", 0) == 0, f"{run}: {f}: no User Lock")
    s = fn["short_thread"]
    near(s["incl_user_s"] + s["incl_system_s"], cpu["short_thread"], 0.05 * cpu["short_thread"],
         f"{run}: the CPU of the short threads on short_thread")
    ts = st["thread_states"]
    k = ts["kernel"]
    kt = k["threads"]
    check(kt == n + 17, f"{run}: the kernel account of {kt} threads, want {n + 17}")
    near(ts["user_s"] + ts["system_s"] + st["tail_cpu_s"], k["user_s"] + k["system_s"],
         0.02 * (k["user_s"] + k["system_s"]), run + ": statistics: sampled CPU beside rusage")
    near(ts["total_thread_s"] - ts["user_s"] - ts["system_s"], k["lives_s"] - k["run_s"],
         0.02 * k["lives_s"], run + ": statistics: off the CPU beside lives - run time")
'
