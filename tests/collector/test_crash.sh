#!/bin/bash
# A program that segfaults after about one second of CPU: hpcollect dies the same way
# (the shell sees 139), and the experiment has about a second of samples (within 3% of
# the CPU the kernel accounted) and says the process died of SIGSEGV. The same for a
# program killed with SIGKILL: only the launcher can tell (launcher_exit), and the
# samples up to the kill are all there.
source "$HPC_ROOT/tests/lib.sh"

set +e
"$HPCOLLECT" -q -o segv "$PROGS/collector/crash" segv 2>segv.err
rc=$?
set -e
[ $rc = 139 ] || fail "segfaulting program: hpcollect exit $rc, expected 139"
note "segfault: exit $rc"

"$HPCOLLECT" -q -o killed "$PROGS/collector/crash" wait "$PWD/ready" &
launcher=$!
for i in $(seq 1 300); do [ -e ready ] && break; sleep 0.05; done
[ -e ready ] || fail "crash wait never got ready"
prog=$(pgrep -P $launcher)
kill -KILL "$prog"
set +e
wait $launcher
rc=$?
set -e
[ $rc = 137 ] || fail "SIGKILLed program: hpcollect exit $rc, expected 137"
note "SIGKILL: exit $rc"

PYTHONPATH="$HPC_ROOT/tests/collector" $SYSPY - <<'PY'
from expdata import load, check
for exp, sig in (("segv", 11), ("killed", 9)):
    p = load(exp + ".hpc").procs["main"]
    le = p.launcher_exit
    check(le["exited"] == 0 and le["status"] == sig, f"{exp}: launcher_exit killed by {sig}")
    cpu = (le["utime_ns"] + le["stime_ns"]) / 1e9
    sampled = p.sampled_cpu_ns() / 1e9
    check(cpu >= 0.95, f"{exp}: program used {cpu:.3f} s of CPU")
    check(abs(sampled - cpu) <= 0.03 * cpu,
          f"{exp}: sampled {sampled:.3f} s vs {cpu:.3f} s accounted (within 3%)")
segv = load("segv.hpc").procs["main"]
check(segv.end and segv.end["reason"] == 2 and segv.end["status"] == 11,
      "segv: proc_end says death by signal 11")
check(load("killed.hpc").procs["main"].end is None, "killed: no proc_end (SIGKILL)")
PY
