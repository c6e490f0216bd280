#!/bin/bash
# tests/repeat/demo_trace.sh [N] - the demo's MPI + OpenMP run (examples/heat_mpi.c,
# 4 ranks x 2 threads, as `make demo-mpi`) N times (default 20), each merged by hpmerge
# and held to what issue 19 asks of its trace: the OTF2 validator passes
# (tests/otf2validate.py: nesting, pairing, every message and collective inside its MPI
# call), every MPI call lasts in OTF2 exactly what its record says (hpanalyze's numbers
# come from the same records), and the summary names every repair. Not part of
# `make check` (minutes); run after `make all build/examples/heat_mpi`. Prints one line
# per run and exits non-zero if any run breaks a promise.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
export HPC_ROOT=$root HPC_BIN=$root/bin HPC_LIB=$root/lib HPC_TESTDIR=$root/build/tests
source "$root/tests/lib.sh"
set +e
n=${1:-20}
prog=$root/build/examples/heat_mpi
[ -x "$prog" ] || { echo "demo_trace: $prog not built (make build/examples/heat_mpi)" >&2; exit 2; }
work=$(mktemp -d)
export OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive PYTHONPATH="$root/tests:$root/tests/omp"
bad=0
for i in $(seq 1 "$n"); do
    exp=$work/heat$i.hpc
    mpirun --oversubscribe -np 4 -x OMP_NUM_THREADS -x OMP_WAIT_POLICY \
        "$HPCOLLECT" -q -o "$exp" "$prog" >/dev/null 2>"$work/run$i.err" ||
        { echo "run $i: hpcollect failed: $(head -3 "$work/run$i.err")"; bad=1; continue; }
    "$HPMERGE" -q "$exp" 2>"$work/merge$i.err" ||
        { echo "run $i: hpmerge or the validator failed: $(head -5 "$work/merge$i.err")"; bad=1; continue; }
    $SYSPY - "$exp" "$work/merge$i.err" <<'PY' || bad=1
import json, sys
from omptest import recorded_mpi_calls, otf2_mpi_calls
exp, err = sys.argv[1], sys.argv[2]
rec = recorded_mpi_calls(exp)
got, errors = otf2_mpi_calls(exp + "/otf2/traces.otf2")
ncalls = sum(len(v) for v in rec.values())
diff = [k for k in rec if [l - b for b, l in rec[k]] != [l - b for b, l in got.get(k, [])]]
probs = json.load(open(exp + "/summary.json"))["problems"]
ok = not errors and not diff
print(f"run {exp.rsplit('heat', 1)[1].split('.')[0]}: {ncalls} MPI calls, "
      f"{'all as recorded' if not diff else f'durations differ on {diff}'}; "
      f"{len(errors)} nesting errors; problems: {probs if probs else 'none'}")
sys.exit(0 if ok else 1)
PY
    rm -rf "$exp"
done
rm -rf "$work"
exit $bad
