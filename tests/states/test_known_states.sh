#!/bin/bash
# timeout: 120
# Thread states against the kernel's own clocks: known_states runs one function per state
# (user spin, system reads, nanosleep, stopped by SIGSTOP, a mutex another thread holds, two threads pinned to
# one CPU, major page faults on a file dropped from the page cache) and prints what its
# thread's clocks measured in each (wall, CPU, rusage user/system, schedstat run delay).
# Each state's time must land on its function within 5% or 20 ms of that truth (CPU
# time: plus one sampling interval at each edge of the phase; a preemption while
# computing: plus what the phase lost after its last sample, charged at the next one,
# which the program measures), and each thread's Total
# Thread (with the CPU after its last sample) within 2% of its recorded life. Three runs:
# the default mechanism, the same as an unprivileged user (perf_event_paranoid 2 allows
# only user-space counting there), and the fallback without perf_event buffers, where
# page-fault sleeps count as Other Wait and header and statistics say so.
source "$HPC_ROOT/tests/lib.sh"

PROG="$PROGS/states/known_states"
mkdir -p data nobody && chmod 777 data nobody

run() { # NAME [ENV...]: collect into NAME.hpc, phases into NAME.out
    local name=$1
    shift
    env "$@" "$HPCOLLECT" -q -o "$name" "$PROG" "$PWD/data" >"$name.out" ||
        fail "$name: known_states failed: $(cat "$name.out")"
}

run perf
runs="perf"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
    # nobody, in a directory of its own (the lock file of the others is root's)
    (cd nobody && setpriv --reuid=65534 --regid=65534 --clear-groups "$HPCOLLECT" -q \
        -o user "$PROG" "$PWD/../data") >nobody/user.out 2>&1 ||
        fail "nobody: known_states failed as nobody: $(cat nobody/user.out)"
    runs="$runs nobody/user"
else
    note "not root: the default run is the unprivileged one"
fi
run calls HPCOLLECT_STATES=2
runs="$runs calls"

for r in $runs; do
    "$HPANALYZE" "$r.hpc" header >"$r.header"
done
grep -q "Thread states: context-switch records" perf.header ||
    fail "header does not name the mechanism: $(grep -A2 'Thread states' perf.header)"
grep -q "Thread states: blocking-call times (fallback)" calls.header &&
    grep -q "cannot tell: page-fault sleeps count as Other Wait" calls.header ||
    fail "header does not name the fallback and what it cannot tell: $(grep -A3 'Thread states' calls.header)"
"$HPANALYZE" calls.hpc statistics | grep -q "Cannot tell: page-fault sleeps" ||
    fail "statistics does not name what the fallback cannot tell"

RUNS="$runs" check_py '
import os
interval = 0.010
def phases(run):
    out = {}
    for l in open(run + ".out"):
        f = l.split()
        if f and f[0] == "phase":
            wall, cpu, ut, st, rd, mf, tail, gap = map(float, f[3:11])
            out[(f[1], int(f[2]))] = dict(wall=wall, cpu=cpu, user=ut, system=st, wait=rd,
                                          sleep=max(wall - cpu - rd, 0.0), majflt=mf,
                                          tail=tail, gap=gap)
    return out

def funcs(run, seq):
    d = analyze(run + ".hpc", "--threads", str(seq), "functions")
    return {f["name"]: f for f in d["functions"]}

def within(got, want, what, edges=0):
    """the issue: 5% or 20 ms; CPU time also one sampling interval per phase edge"""
    near(got, want, max(0.05 * want, 0.020) + edges * interval, what)

def waiting(wait, other, p, what):
    """A thread that wants to run waits for a CPU: the run queue delay (schedstat), and on
    a virtual machine the hypervisor steal time, which no clock of the thread sees (its
    CPU clock leaves it out: wall - CPU - run delay is steal for a thread that never
    sleeps). Wait CPU holds both in the default mechanism; the fallback cannot tell steal
    from a sleep it did not see (Other Wait). Time off the CPU while computing is charged
    at the next clock sample: what the phase lost after its last one (p["tail"], measured
    by the program; a few ms on an idle machine, a long preemption on a loaded one) lands
    in the next phase; the run delay between the previous phase and this one (p["gap"])
    comes to the first sample of this phase."""
    tol = max(0.05 * (p["wall"] - p["cpu"]), 0.020) + 2 * interval + p["tail"] + p["gap"]
    near(wait + other, p["wall"] - p["cpu"], tol, what + ": Wait CPU + Other Wait = wall - CPU")
    rd = p["wait"]
    check(wait >= rd - tol, f"{what}: Wait CPU {wait:.4f} holds the run delay {rd:.4f}")

for run in os.environ["RUNS"].split():
    ph = phases(run)
    main, t = funcs(run, 0), {}
    def m(f, key, th=None):
        return (main if th is None else t[th])[f].get("incl_%s_s" % key, 0.0)

    p = ph[("spin_user", 0)]
    within(m("spin_user", "user"), p["user"], run + ": spin_user User CPU", edges=2)
    waiting(m("spin_user", "wait_cpu"), m("spin_user", "other_wait"), p, run + ": spin_user")
    p = ph[("sys_reads", 0)]
    if run == "nobody/user":
        # unprivileged, the clock counts user mode only (exclude_kernel): a loop that is
        # all kernel time gets no sample of its own; its CPU time goes to the next sample
        # wherever it is (a known limit of clock profiling at perf_event_paranoid 2)
        print("# nobody/user: System CPU of a kernel-bound loop not checked")
    else:
        within(m("sys_reads", "system"), p["system"], run + ": sys_reads System CPU", edges=2)
        within(m("sys_reads", "user"), p["user"], run + ": sys_reads User CPU", edges=2)
    p = ph[("sleeper", 0)]
    if run == "calls":
        # the fallback cannot tell which blocked call a run delay was (it shares the run
        # delay of a window among its calls by number, as header says): only the sum
        within(m("sleeper", "other_wait") + m("sleeper", "wait_cpu"), p["sleep"] + p["wait"],
               run + ": sleeper Other Wait + Wait CPU")
    else:
        within(m("sleeper", "other_wait"), p["sleep"], run + ": sleeper Other Wait")
        within(m("sleeper", "wait_cpu"), p["wait"], run + ": sleeper Wait CPU")
    check(m("sleeper", "user_lock") == 0, run + ": no User Lock in nanosleep")
    # a stop, outside every call: charged at the next clock sample, which the 30 ms of CPU
    # after it bring to the same function. Its run delay also holds preemptions of those
    # 30 ms, and what came after their last sample lands in the next phase: Wait CPU is
    # bounded by it, not equal to it
    # The stop itself is known: 0.5 s (known_states.c: a timer continues it). What else the
    # phase spent neither on a CPU nor in the run queue (p["sleep"] beyond the stop) is the
    # steal time of the hypervisor, seen by no clock of the thread (38 ms at load 6 made the
    # "sleep" of the stop 0.5387 against an Other Wait of 0.5001, the stop): Wait CPU holds it
    p = ph[("stopped", 0)]
    ow, wc = m("stopped", "other_wait"), m("stopped", "wait_cpu")
    sl, rd, stop = p["sleep"], p["wait"], 0.5
    steal = max(sl - stop, 0.0)
    tol = max(0.05 * sl, 0.020)
    if run == "calls":
        check(stop - tol <= ow + wc <= sl + rd + tol,
              f"{run}: stopped Other Wait + Wait CPU {ow + wc:.4f}: the stop of {sl:.4f} and at most its run delay {rd:.4f}")
    else:
        within(ow, stop, run + ": stopped Other Wait")
        # (unprivileged, sys_reads kernel loop has no sample of its own: its CPU and Wait
        # CPU go to the next sample, which is here after the sleeper sleeps in its call)
        # (and the wake-up of the sleeper before it, whose run delay after its call comes to
        # the next sample too: 0.128 against the stop own 0.101 s failed at load 11; and
        # the run delay between the two phases, p["gap"]: 0.2604 against 0.2190 + 0.0144
        # failed at load 7)
        if run != "nobody/user":
            prev, gap = ph[("sleeper", 0)]["wait"], p["gap"]
            check(wc <= rd + steal + prev + gap + tol, f"{run}: stopped Wait CPU {wc:.4f} within its "
                  f"run delay {rd:.4f}, steal {steal:.4f}, that of the sleeper before it {prev:.4f} "
                  f"and between them {gap:.4f}")
    check(m("stopped", "user_lock") == 0, run + ": no User Lock in stopped")
    p = ph[("lock_waiter", 0)]
    ul = m("lock_waiter", "user_lock")
    if run == "calls":
        # as the sleeper's: the fallback shares a window's run delay among its calls, so the
        # waiter's run delay after the lock's release (61 ms at load 5) may stay in its call:
        # the sum, and User Lock between the sleep and the sleep with the run delay
        within(ul + m("lock_waiter", "wait_cpu"), p["sleep"] + p["wait"],
               run + ": lock_waiter User Lock + Wait CPU")
        sl, rd = p["sleep"], p["wait"]
        tol = max(0.05 * sl, 0.020)
        check(sl - tol <= ul <= sl + rd + tol,
              f"{run}: lock_waiter User Lock {ul:.4f}: its sleep {sl:.4f} and at most its run delay {rd:.4f}")
    else:
        within(ul, p["sleep"], run + ": lock_waiter User Lock")
    check(m("lock_waiter", "other_wait") < 0.020, run + ": lock_waiter: no Other Wait")
    for th, seq in ((1, 2), (2, 3)): # the contenders are the 2nd and 3rd threads made
        t[seq] = funcs(run, seq)
        p = ph[("contend", th)]
        waiting(m("contend", "wait_cpu", seq), m("contend", "other_wait", seq), p,
                f"{run}: contend t{seq}")
        within(m("contend", "user", seq) + m("contend", "system", seq), p["cpu"],
               f"{run}: contend t{seq} CPU", edges=2)
    p = ph[("touch_file", 0)]
    pf, other = m("touch_file", "data_pf"), m("touch_file", "other_wait")
    tol = max(0.05 * p["sleep"], 0.020)
    if p["majflt"] < 100:
        mf = p["majflt"]
        print(f"# {run}: only {mf:.0f} major faults: page faults not checked")
    elif run == "calls":
        check(pf == 0, "calls: no Data Page Fault in the fallback")
        check(other >= p["sleep"] - 0.5 * p["cpu"] - tol, "calls: the fault sleeps are Other Wait")
    else:
        # wall - CPU - run delay holds the steal time of the faults kernel work as well
        sl = p["sleep"]
        check(sl - 0.5 * p["cpu"] - tol <= pf <= sl + tol,
              f"{run}: touch_file Data Page Fault {pf:.4f}: the sleeps of {sl:.4f}")
        check(m("touch_file", "text_pf") < 0.010, run + ": touch_file: no Text Page Fault")

    # every thread: Total Thread (+ the CPU after its last sample) is its life
    st = analyze(run + ".hpc", "statistics")["processes"][0]
    for th in st["thread_list"]:
        tail, seq = max(th.get("thread_cpu_s", 0) - th["sampled_cpu_s"], 0), th["seq"]
        near(th["total_thread_s"] + tail, th["life_s"], 0.02 * th["life_s"],
             f"{run}: thread {seq}: Total Thread and its life")
    ts = st["thread_states"]
    k = ts["kernel"]
    near(ts["user_s"] + ts["system_s"] + st["tail_cpu_s"], k["user_s"] + k["system_s"],
         0.02 * (k["user_s"] + k["system_s"]) + 4 * interval * len(st["thread_list"]),
         run + ": statistics: sampled CPU beside rusage")
    w, rd = ts["wait_cpu_s"], k["run_delay_s"]
    check(w >= rd - max(0.05 * rd, 0.020),
          f"{run}: statistics: Wait CPU {w:.4f} beside schedstat run delay {rd:.4f}")
    near(ts["total_thread_s"] - ts["user_s"] - ts["system_s"], k["lives_s"] - k["run_s"],
         0.02 * k["lives_s"], run + ": statistics: off the CPU beside lives - run time")
'
