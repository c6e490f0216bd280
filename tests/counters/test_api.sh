#!/bin/bash
# The collector API (include/hpcollect.h): api_phases.c is built with -I include and no
# library, so it has weak, undefined references to hpc_sample/hpc_pause/hpc_resume and
# no dependency on libhpcollect.so. On its own it runs and the calls do nothing; under
# hpcollect, hpc_sample("setup") and hpc_sample("solve") end periods with those labels
# (--samples setup / --samples solve select each phase's function alone) and
# checkpoint(), run between hpc_pause() and hpc_resume(), is not recorded.
source "$HPC_ROOT/tests/lib.sh"
gcc -O1 -g -Wall -Werror -I"$HPC_ROOT/include" -o api_phases "$HPC_ROOT/tests/counters/api_phases.c" ||
    fail "api_phases.c does not build with include/hpcollect.h"
readelf -d api_phases | grep -q 'NEEDED.*hpcollect' && fail "api_phases depends on our library"
nm api_phases | grep -Eq '^ +w hpc_sample$' || fail "hpc_sample is not a weak reference: $(nm api_phases | grep hpc_)"
./api_phases >alone.out || fail "api_phases without the collector: exit $?"
grep -q "^done " alone.out || fail "api_phases without the collector: $(cat alone.out)"

"$HPCOLLECT" -q -o api.hpc -S off ./api_phases >api.out || fail "api_phases under hpcollect"

PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/counters" $SYSPY - <<'PY'
from ctrtest import *
ps = periods("api.hpc")
check([(p["label"], p["reason"]) for p in ps] ==
      [("setup", "api"), ("solve", "api"), ("pause", "pause"), ("resume", "resume"), ("", "api"),
       ("end", "end")], f"periods {[(p['label'], p['reason']) for p in ps]}")
allf = functions("api.hpc")
check("checkpoint" not in allf, "checkpoint() between hpc_pause and hpc_resume is not recorded")
check(all(metric(allf, f, "incl_cpu_s") > 0 for f in ("setup", "solve", "finish")),
      "setup, solve and finish are recorded")
for label, want in (("setup", "setup"), ("solve", "solve")):
    rows = functions("api.hpc", "--samples", label)
    got = {f for f in ("setup", "solve", "finish", "checkpoint") if f in rows}
    check(got == {want}, f"--samples {label}: {sorted(got)}")
PY
