#!/bin/bash
# fork and exec descendants: with -F on (default) the forked child is main.f1 and the
# exec'd image main.x1, each with its own samples (0.3 s of CPU each, sampled as the kernel
# accounted it: expdata.accounted); with -F off only
# main is recorded and the exec'd image's environment has no trace of the collector.
source "$HPC_ROOT/tests/lib.sh"

"$HPCOLLECT" -q -o on "$PROGS/collector/descend" >on.out || fail "descend: $(cat on.out)"
"$HPCOLLECT" -q -F off -o off "$PROGS/collector/descend" >off.out || fail "descend -F off"
grep -q "child exit 7" on.out || fail "fork child's status lost: $(cat on.out)"
grep -q "exec image: 0 collector variables" off.out ||
    fail "-F off left collector variables: $(cat off.out)"
note "$(tr '\n' ' ' <off.out)"

"$HPANALYZE" --format json on.hpc statistics >on.json || fail "statistics"
PYTHONPATH="$HPC_ROOT/tests/collector" $SYSPY - <<'PY'
from expdata import accounted, load, check
on = load("on.hpc").procs
check(sorted(on) == ["main", "main.f1", "main.x1"], f"-F on: {sorted(on)}")
for name in on:
    accounted("on.json", name, 0.3)
check(on["main"].end["reason"] == 1, "main: proc_end reason exec")
check(on["main.f1"].begin["descent"] == 1 and on["main.f1"].begin["parent"] == "main",
      "main.f1: fork descendant of main")
check(on["main.f1"].end["status"] == 7, "main.f1: exit status 7")
check(on["main.x1"].begin["descent"] == 2 and on["main.x1"].begin["parent"] == "main",
      "main.x1: exec descendant of main")
check(on["main.x1"].begin["pid"] == on["main"].begin["pid"], "main.x1: same pid as main")
off = load("off.hpc").procs
check(sorted(off) == ["main"], f"-F off: {sorted(off)}")
check(off["main"].settings["follow"] == 0, "-F off recorded in settings")
PY
