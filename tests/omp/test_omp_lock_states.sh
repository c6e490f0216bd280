#!/bin/bash
# timeout: 120
# Thread states of OpenMP lock waits (progs/omp_lock_sleep.c, gcc and clang builds, both
# on LLVM libomp): a thread holds an omp_lock_t, then an omp_nest_lock_t, for 0.7 s asleep
# in nanosleep while the other waits for it in omp_set_lock; each prints its own clocks
# around its wait. libomp's futex locks (KMP_LOCK_KIND=futex) sleep in the kernel through
# syscall(), which no wrapper sees: the OpenMP tool's mutex callbacks (hpcollect_wait_begin
# and _end) make the sleep User Lock, on lock_waiter, all of it under <OMP-lock_wait>
# (the wait is OpenMP Wait), within 5% or 20 ms of the waiter's own clocks (wall - CPU -
# run delay); the holder's sleep is Other Wait on holder. libomp's default lock spins and
# yields: no User Lock then, and the wait's time is its CPU time plus Wait CPU / Other
# Wait as the thread's own clocks say.
source "$HPC_ROOT/tests/lib.sh"
[ -x "$HPCOLLECT" ] || skip "hpcollect not built yet"
export PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/omp" OMP_WAIT_POLICY=passive
for cc in gcc clang; do
    prog="$PROGS/omp/omp_lock_sleep"
    [ $cc = gcc ] || prog="$prog.clang"
    KMP_LOCK_KIND=futex "$HPCOLLECT" -q -o $cc.futex.hpc "$prog" >$cc.futex.out ||
        fail "$cc, futex locks: omp_lock_sleep failed"
    "$HPCOLLECT" -q -o $cc.spin.hpc "$prog" >$cc.spin.out || fail "$cc: omp_lock_sleep failed"
done
$SYSPY - <<'PY'
from hpctest import check, near
from omptest import js, run

interval = 0.010
tol = lambda x: max(0.05 * x, 0.020)

def truth(out, fn):
    """the program's own clocks around its waits in fn, summed: wall, CPU, run delay"""
    t = [0.0, 0.0, 0.0]
    for l in open(out):
        f = l.split()
        if f[:2] == ["phase", fn]:
            t = [a + float(b) for a, b in zip(t, f[3:6])]
    return dict(wall=t[0], cpu=t[1], wait=t[2], sleep=max(t[0] - t[1] - t[2], 0.0))

def explain(exp, fn):
    """What a failure needs to be understood (one run in 40 of the suite at load 4-6 found
    0.23 s of the holder's 1.4 s Other Wait missing; not reproduced alone): where each
    function's states went, and the experiment's accounting of them"""
    for name, f in fn.items():
        st = {k[5:-2]: round(v, 4) for k, v in f.items()
              if k.startswith("incl_") and k.endswith("_s") and v >= 0.005}
        if st and (name in ("holder", "lock_waiter", "nanosleep") or not name.startswith("_")):
            print(f"# {exp}: {name}: {st}")
    out = run(exp, "statistics")[0]
    for l in out.splitlines():
        if any(w in l for w in ("Wait", "Lock", "Off the", "Asleep", "lost", "Unwind e")):
            print(f"# {exp}: {l.strip()}")

for cc in ("gcc", "clang"):
    exp = f"{cc}.futex.hpc"
    fn = {f["name"]: f for f in js(exp, "functions")["functions"]}
    w, h = truth(f"{cc}.futex.out", "lock_waiter"), truth(f"{cc}.futex.out", "holder")
    check(w["sleep"] > 1.0, f"{exp}: the waiter slept for the lock ({w['sleep']:.3f} s)")
    lw = fn["lock_waiter"]
    # the run delay after a wakeup is shared among a window's sleeps by their number
    # (sigsafe_states_window.c): a sleep may carry some of another's, or give its own
    # away, at most the run delay around it (its phase's, w["wait"]; 0.095 s of it at
    # load 13 put the waiter's User Lock at 1.2106 for a sleep of 1.3054)
    near(lw["incl_user_lock_s"], w["sleep"], tol(w["sleep"]) + w["wait"],
         f"{exp}: lock_waiter User Lock")
    near(fn["<OMP-lock_wait>"]["incl_user_lock_s"], lw["incl_user_lock_s"], 0.001,
         f"{exp}: the User Lock is all under <OMP-lock_wait>")
    near(lw["incl_omp_wait_s"], lw["incl_total_thread_s"], tol(lw["incl_total_thread_s"]),
         f"{exp}: lock_waiter's time is OpenMP Wait")
    check(lw["incl_other_wait_s"] < 0.020, f"{exp}: lock_waiter: no Other Wait")
    ho = fn["holder"]
    if abs(ho["incl_other_wait_s"] - h["sleep"]) > tol(h["sleep"]) + h["wait"]:
        explain(exp, fn)
    near(ho["incl_other_wait_s"], h["sleep"], tol(h["sleep"]) + h["wait"],
         f"{exp}: holder Other Wait")
    check(ho["incl_user_lock_s"] < 0.020, f"{exp}: holder: no User Lock")

    exp = f"{cc}.spin.hpc"
    fn = {f["name"]: f for f in js(exp, "functions")["functions"]}
    w, lw = truth(f"{cc}.spin.out", "lock_waiter"), fn["lock_waiter"]
    check(lw["incl_user_lock_s"] < 0.020, f"{exp}: a spinning lock wait is no User Lock")
    near(lw["incl_user_s"] + lw["incl_system_s"], w["cpu"], tol(w["cpu"]) + 2 * interval,
         f"{exp}: lock_waiter's CPU time")
    near(lw["incl_wait_cpu_s"] + lw["incl_other_wait_s"], w["wall"] - w["cpu"],
         tol(w["wall"] - w["cpu"]) + 2 * interval, f"{exp}: lock_waiter's time off the CPU")
    check(lw["incl_wait_cpu_s"] >= w["wait"] - tol(w["wait"]) - 2 * interval,
          f"{exp}: lock_waiter's Wait CPU holds its run delay ({w['wait']:.3f} s)")
PY
