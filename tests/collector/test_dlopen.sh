#!/bin/bash
# dlopen/dlclose: a plugin loaded by bare name through the program's RUNPATH loads as it
# does without the collector; the load map records it (module_load flagged dlopen, then
# module_unload after dlclose), and its 0.3 s of CPU is attributed to its function.
source "$HPC_ROOT/tests/lib.sh"

"$PROGS/collector/dlopen_prog" | grep -qx "plugin done 1" || fail "plugin does not load even plain"
"$HPCOLLECT" -q -p hi -o dl "$PROGS/collector/dlopen_prog" >dl.out ||
    fail "under hpcollect: $(cat dl.out)"
grep -qx "plugin done 1" dl.out || fail "plugin output: $(cat dl.out)"

PYTHONPATH="$HPC_ROOT/tests/collector" $SYSPY - <<'PY'
from expdata import load, check
p = load("dl.hpc").procs["main"]
loads = [r for r in p.all("module_load") if r["path"].endswith("/libhpcplug.so")]
check(len(loads) == 1 and loads[0]["flags"] & 2, f"plugin module_load flagged dlopen: {loads}")
unl = [r for r in p.all("module_unload") if r["id"] == loads[0]["id"]]
check(len(unl) == 1, "plugin module_unload after dlclose")
PY
if [ -x "$HPANALYZE" ]; then
    check_py '
f = {r["name"]: r for r in analyze("dl.hpc", "functions")["functions"]}
t = f["<Total>"]
near_time_share(f["hpcplug_work"]["excl_cpu_s"], 0.3, t["incl_cpu_s"], t["incl_samples"],
                "CPU in the plugin function (s)")
check(f["hpcplug_work"]["module"] == "libhpcplug.so", "plugin function in its module")
'
fi
