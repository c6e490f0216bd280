#!/bin/bash
# timeout: 60
# A sleep inside open() and inside fclose() is charged to the call's stack (the I/O
# tracer's hand-written wrappers carry thread states' part, as the generated ones do):
# progs/open_blocks opens a FIFO that a writer opens 0.3 s later, and closes a stream
# whose full buffer the pipe takes only as a reader drains it 0.3 s later, with 30 ms of
# CPU after each (the next clock sample's stack: where the sleeps went before). The
# program measures each sleep with its thread's clocks (wall - CPU - run delay). Default
# mechanism and the fallback (call times), with and without -i on.
source "$HPC_ROOT/tests/lib.sh"

PROG="$PROGS/states/open_blocks"
runs=""
for r in "perf" "calls HPCOLLECT_STATES=2" "io -i on"; do
    set -- $r
    name=$1
    shift
    opts=() envs=()
    for a in "$@"; do
        case $a in *=*) envs+=("$a") ;; *) opts+=("$a") ;; esac
    done
    env "${envs[@]}" "$HPCOLLECT" -q -o "$name" "${opts[@]}" "$PROG" "$PWD" >"$name.out" ||
        fail "$name: open_blocks failed: $(cat "$name.out")"
    runs="$runs $name"
done

RUNS="$runs" check_py '
import os
for run in os.environ["RUNS"].split():
    calls = {}
    for l in open(run + ".out"):
        f = l.split()
        if f and f[0] == "call":
            wall, cpu, rd = map(float, f[2:5])
            calls[f[1]] = dict(wall=wall, cpu=cpu, wait=rd, sleep=max(wall - cpu - rd, 0.0))
    d = analyze(run + ".hpc", "--threads", "0", "functions")
    fn = {f["name"]: f for f in d["functions"]}
    def m(name, key):
        return fn.get(name, {}).get("incl_%s_s" % key, 0.0)
    for call, func in (("open", "opener"), ("fclose", "closer")):
        c = calls[call]
        check(c["sleep"] > 0.15, f"{run}: {call} slept ({c})")
        tol = max(0.05 * c["sleep"], 0.020) + c["wait"]
        if run == "calls":
            # the fallback cannot tell a run delay inside a call from a sleep (header says so)
            near(m(func, "other_wait") + m(func, "wait_cpu"), c["wall"] - c["cpu"], tol,
                 f"{run}: {func}: the sleep in {call} (Other Wait + Wait CPU)")
        else:
            near(m(func, "other_wait"), c["sleep"], tol, f"{run}: {func}: the sleep in {call} (Other Wait)")
        # (the fallback counts a preemption outside calls as Other Wait: not checked there,
        # the sleep found on the call above is the check)
        after = "after_" + ("open" if call == "open" else "close")
        ow = m(after, "other_wait")
        if run != "calls":
            check(ow < 0.020, f"{run}: {after} (the next sample) has no Other Wait: {ow:.4f}")
'
