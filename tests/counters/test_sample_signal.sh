#!/bin/bash
# -l SIGUSR2: the program raises SIGUSR2 between its three phases, so the sample points
# start, SIGUSR2, SIGUSR2, end cut the run into periods 1, 2, 3 = phase_one, phase_two,
# phase_three. overview lists them with their rusage: phase_two touches 9000 pages,
# the others 3000. --samples 2 keeps phase_two alone in any report, --samples 1,3 the
# other two. -S 0.05 adds periodic points whose periods' fault counts add up to the
# run's.
source "$HPC_ROOT/tests/lib.sh"
PROG="$PROGS/counters/phases"
USR2=$(kill -l USR2)
"$HPCOLLECT" -q -o l.hpc -S off -l SIGUSR2 -h page-faults "$PROG" $USR2 >l.out ||
    fail "phases under -l: $(cat l.out)"
grep -qx "handled 0" l.out || fail "-l: the program's handler ran: $(cat l.out)"
"$HPCOLLECT" -q -o s.hpc -S 0.05 "$PROG" $USR2 >s.out || fail "phases under -S 0.05"

PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/counters" $SYSPY - <<'PY'
from ctrtest import *
ps = periods("l.hpc")
check([(p["sample"], p["label"], p["reason"]) for p in ps] ==
      [(1, "SIGUSR2", "signal"), (2, "SIGUSR2", "signal"), (3, "end", "end")],
      f"periods: {[(p['sample'], p['label'], p['reason']) for p in ps]}")
flt = [p["minflt"] for p in ps]
check(flt[1] >= 9000 and flt[0] < 9000 and flt[2] < 9000 and flt[0] >= 3000 and flt[2] >= 3000,
      f"minor faults per period {flt}: phase_two touched 9000 pages, the others 3000")
names = ("phase_one", "phase_two", "phase_three")
two = functions("l.hpc", "--samples", "2")
check(metric(two, "phase_two", "incl_cpu_s") > 0 and
      metric(two, "phase_two", "incl_page-faults") > 0, "--samples 2: phase_two")
check(all(n not in two for n in ("phase_one", "phase_three")), "--samples 2: nothing else")
other = functions("l.hpc", "--samples", "1,3")
check("phase_two" not in other and "phase_one" in other and "phase_three" in other,
      "--samples 1,3: phase_one and phase_three only")
sp = periods("s.hpc")
periodic = [p for p in sp if p["reason"] == "periodic"]
check(len(periodic) >= 1, f"-S 0.05: {len(periodic)} periodic sample points")
pr = load("s.hpc").procs["main"]
pts = pr.all("sample_point")
check(sum(p["minflt"] for p in sp) == pts[-1]["minflt"] - pts[0]["minflt"],
      "the periods' fault counts add up to the run's")
check(pr.settings["sample_period_ns"] == 50000000, "settings record -S 0.05")
PY
