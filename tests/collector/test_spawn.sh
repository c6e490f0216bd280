#!/bin/bash
# posix_spawn and system() descendants: with -F on the spawned child is main.x1 and
# system()'s shell main.x2, whose own fork+exec of the command is main.x2.f1.x1; each
# child's 0.2 s of CPU is recorded (sampled as the kernel accounted it, expdata.accounted).
# With -F off only main. Statuses come back either way.
source "$HPC_ROOT/tests/lib.sh"

"$HPCOLLECT" -q -p hi -o on "$PROGS/collector/spawn" >on.out || fail "spawn: $(cat on.out)"
"$HPCOLLECT" -q -p hi -F off -o off "$PROGS/collector/spawn" >off.out || fail "spawn -F off"
grep -qx "spawn 3 system 3" on.out || fail "statuses: $(cat on.out)"

"$HPANALYZE" --format json on.hpc statistics >on.json || fail "statistics"
PYTHONPATH="$HPC_ROOT/tests/collector" $SYSPY - <<'PY'
from expdata import accounted, load, check
on = load("on.hpc").procs
check({"main", "main.x1", "main.x2"} <= set(on), f"-F on: {sorted(on)}")
check(on["main.x1"].begin["descent"] == 3 and on["main.x1"].begin["parent"] == "main",
      "main.x1: spawn descendant of main")
check(on["main.x2"].begin["descent"] == 3, "main.x2 (system's shell): spawn descendant")
burners = [n for n, p in on.items() if n != "main" and p.sampled_cpu_ns() > 0.1e9]
check(len(burners) == 2, f"two children burned CPU: {burners}")
for n in ["main"] + burners:
    accounted("on.json", n, 0.2)
check(sorted(load("off.hpc").procs) == ["main"], "-F off: main only")
PY
