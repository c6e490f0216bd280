#!/bin/bash
# timeout: 90
# Archiving an MPI job (-a ldobjects, the default): the two ranks' launchers archive
# their processes' load objects into the one job experiment, each distinct object (name
# and build id) stored once, none half-written. When the archive is lost (launchers killed
# before their end), hpmerge makes it again at merge time.
source "$HPC_ROOT/tests/lib.sh"
[ -f "$HPC_LIB/libhpcollect-mpi.so" ] || skip "lib/libhpcollect-mpi.so not built"
mpirun --oversubscribe -np 2 "$HPCOLLECT" -q -o job.hpc "$PROGS/mpi/threads" >/dev/null
expect_archive() { # the archive holds exactly one file per distinct object of all ranks
    PYTHONPATH="$HPC_ROOT/tests/collector" $SYSPY - "$1" <<'PY'
import os, sys
from expdata import load, check
e = load("job.hpc")
want = {}
for name, p in e.procs.items():
    for m in p.all("module_load"):
        if not (m["flags"] & 4) and not m["archived"] and m["build_id"]:
            want[os.path.basename(m["path"]) + "." + m["build_id"]] = m["path"]
have = set(os.listdir("job.hpc/archive/objects"))
check(len(e.procs) == 2 and len(want) > 20, f"{sys.argv[1]}: 2 ranks, {len(want)} distinct objects")
check(have == set(want), f"{sys.argv[1]}: one archived copy per distinct object "
      f"(missing {sorted(set(want) - have)[:3]}, extra {sorted(have - set(want))[:3]})")
bad = [n for n in have if os.path.getsize("job.hpc/archive/objects/" + n) != os.path.getsize(want[n])]
check(not bad, f"{sys.argv[1]}: every copy complete (as large as its original) {bad[:3]}")
PY
}
expect_archive "by the launchers"
rm -r job.hpc/archive
"$HPMERGE" job.hpc 2>merge.err >/dev/null || fail "hpmerge: $(cat merge.err)"
grep -q "hpmerge: job.hpc: archived [0-9]* load objects" merge.err || fail "hpmerge: $(cat merge.err)"
expect_archive "at merge time"
"$HPMERGE" job.hpc 2>merge2.err >/dev/null
grep -q "archived" merge2.err && fail "hpmerge archived again: $(cat merge2.err)"
echo "ok: a second merge copies nothing"
