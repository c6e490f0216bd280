#!/bin/bash
# -y SIGUSR1: the program raises SIGUSR1 before and after phase_two(); the collector
# owns the signal (the program's own handler for it does not run) and each delivery
# toggles recording, so phase_two() is absent from the profile - clock and counter
# samples alike - while phase_one() and phase_three() are there. With -y SIGUSR1,r the
# run starts paused: only phase_two() is recorded. Without the collector owning the
# signal, the program's handler runs twice.
source "$HPC_ROOT/tests/lib.sh"
PROG="$PROGS/counters/phases"
USR1=$(kill -l USR1)

"$PROG" $USR1 >plain.out
grep -qx "handled 2" plain.out || fail "without the collector: $(cat plain.out)"
"$HPCOLLECT" -q -o plain.hpc -S off "$PROG" $USR1 >watched.out
grep -qx "handled 2" watched.out || fail "without -y, the program's handler must run: $(cat watched.out)"

"$HPCOLLECT" -q -o y.hpc -S off -y SIGUSR1 -h page-faults,53 "$PROG" $USR1 >y.out ||
    fail "phases under -y: $(cat y.out)"
grep -qx "handled 0" y.out || fail "-y: the program's handler ran: $(cat y.out)"
"$HPCOLLECT" -q -o yr.hpc -S off -y USR1,r -h page-faults,53 "$PROG" $USR1 >yr.out ||
    fail "phases under -y USR1,r: $(cat yr.out)"

PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/counters" $SYSPY - <<'PY'
from ctrtest import *
def phases(exp):
    rows = functions(exp)
    return {f: (metric(rows, f, "incl_cpu_s"), metric(rows, f, "incl_page-faults"))
            for f in ("phase_one", "phase_two", "phase_three")}
y = phases("y.hpc")
check(y["phase_two"] == (0, 0), f"-y: phase_two absent (cpu, faults) = {y['phase_two']}")
check(all(v[0] > 0 and v[1] > 0 for k, v in y.items() if k != "phase_two"),
      f"-y: phase_one and phase_three recorded: {y}")
yr = phases("yr.hpc")
check(yr["phase_one"] == (0, 0) and yr["phase_three"] == (0, 0),
      f"-y USR1,r: phase_one and phase_three absent: {yr}")
check(yr["phase_two"][0] > 0 and yr["phase_two"][1] > 0, f"-y USR1,r: phase_two recorded: {yr}")
reasons = [p["reason"] for p in periods("y.hpc")]
check(reasons[:2] == ["pause", "resume"], f"-y: the sample points say pause, resume: {reasons}")
s = load("y.hpc").procs["main"].settings
check(s["pause_signal"] == 10 and s["start_paused"] == 0, "settings record -y SIGUSR1")
check(load("yr.hpc").procs["main"].settings["start_paused"] == 1, "settings record ,r")
PY
