#!/bin/bash
# timeout: 60
# A fork child that resets every signal handler with raw system calls after its parent
# blocked every signal for the fork (progs/fork_reset.c, as chromium's LaunchProcess
# does before its exec): the collector's clock must not kill it. SIGPROF's default
# action ended such a child (chromium's unsandboxed zygote, then "GPU process isn't
# usable"); the collector keeps its signals blocked in such a child until the program
# unblocks them with our handler in place. Ground truth: both children exit 0, as
# without hpcollect; the child that keeps its handlers is sampled again once it restores
# its mask: its sampled CPU is its own 0.1 s within one interval at each end. The reset
# child then execs, and the new image gets back the signals its program did not block:
# a grandchild it forks the plain way is sampled too (it was not while the exec'd image
# took the held signal for one its program had blocked). A third child keeps every
# signal blocked but SIGSEGV and recovers from a fault of its own: a hold must not block
# the fault signals (it died of signal 11 when the hold blocked every owned signal).
source "$HPC_ROOT/tests/lib.sh"

PROG="$PROGS/collector/fork_reset"
"$PROG" >plain.out || fail "fork_reset failed without hpcollect"
"$HPCOLLECT" -q -o fr "$PROG" >fr.out || fail "fork_reset failed under hpcollect: $(cat fr.out)"
for name in reset keep segv; do
    grep -qx "child $name exit 0" plain.out || fail "without hpcollect: $(grep "child $name" plain.out)"
    grep -qx "child $name exit 0" fr.out ||
        fail "the $name child did not exit 0 under hpcollect: $(grep "child $name" fr.out)"
done
grep -qx "grandchild exit 0" fr.out || fail "the grandchild did not exit 0: $(grep grandchild fr.out)"
[ -d fr.hpc/main.f2 ] && [ -d fr.hpc/main.f1.x1.f1 ] ||
    fail "no experiment of the keep child or the grandchild: $(ls fr.hpc)"
check_py '
cpu = {l.split()[1]: float(l.split()[2]) for l in open("fr.out") if l.startswith("cpu ")}
st = analyze("fr.hpc/main.f2", "statistics")["processes"][0]
got = st["sampled_cpu_s"] + st.get("tail_cpu_s", 0.0)
near(got, cpu["keep"], 0.05 * cpu["keep"] + 2 * 0.010, "keep child: sampled CPU and its own")
check(st["samples_read"] >= 5, "keep child: sampled again after its mask came back (%d samples)" % st["samples_read"])
st = analyze("fr.hpc/main.f1.x1.f1", "statistics")["processes"][0]
check(st["samples_read"] >= 5, "grandchild after the exec: sampled (%d samples for %.3f s)" % (st["samples_read"], cpu["grandchild"]))
'
