#!/bin/bash
# timeout: 60
# --omp-runtime native: a gcc-built program runs on GNU libgomp, which has no OMPT. The
# experiment says which runtime ran, reports say OpenMP states are unavailable and show
# the machine view (without the collector's trampolines and internal functions in the
# user view); sampling works as for any program. A bad value is refused.
source "$HPC_ROOT/tests/lib.sh"
[ -x "$HPCOLLECT" ] || skip "hpcollect not built yet (the collector has not landed)"
export PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/omp"
"$HPCOLLECT" -q -p hi --omp-runtime native -o native.hpc "$PROGS/omp/omp_imbalance" 20 5 >/dev/null
if "$HPCOLLECT" -q --omp-runtime bogus -o bad.hpc "$PROGS/omp/omp_imbalance" 1 1 2>err.txt; then
    fail "--omp-runtime bogus was accepted"
fi
grep -q -- "--omp-runtime" err.txt || fail "no message naming --omp-runtime: $(cat err.txt)"
[ ! -e bad.hpc ] || fail "an experiment was made for a bad command line"
$SYSPY - <<'PY'
from hpctest import check, near
from omptest import *

text, err = run("native.hpc", "omp")
check("OpenMP states are unavailable" in text and "GNU libgomp" in text,
      f"omp report says states are unavailable on GNU libgomp: {text!r}")
j = omp("native.hpc")
check(not j["ompt"] and j["processes"][0]["runtime"].startswith("GNU libgomp"),
      f"JSON: ompt false, runtime {j['processes'][0]['runtime']!r}")
out, err = run("--view", "user", "native.hpc", "functions")
check("OpenMP states are unavailable" in err, f"functions: note on stderr ({err!r})")
user = js("native.hpc", "functions", opts=["--view", "user"])["functions"]
machine = js("native.hpc", "functions", opts=["--view", "machine"])["functions"]
ours_u = {f["name"] for f in user if f["module"].startswith("libhpcollect")}
ours_m = {f["name"] for f in machine if f["module"].startswith("libhpcollect")}
check(ours_u <= {"pthread_create"} and "thread_start" in ours_m,
      f"user view: no collector trampolines or internals ({sorted(ours_u)}; machine {sorted(ours_m)})")
check({f["name"] for f in user} - ours_u == {f["name"] for f in machine} - ours_m,
      "user view falls back to the machine view (but for the collector's frames)")
check(any(f["module"].startswith("libgomp") for f in machine), "libgomp frames are there")
hdr = js("native.hpc", "header")["experiments"][0]["processes"][0]["omp_runtime"]
check(hdr.startswith("GNU libgomp") and "unavailable" in hdr, f"header: {hdr!r}")
PY
