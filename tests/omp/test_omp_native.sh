#!/bin/bash
# timeout: 60
# --omp-runtime native: a gcc-built program runs on GNU libgomp, which has no OMPT. The
# experiment says which runtime ran, reports say OpenMP states are unavailable and show
# the machine view (without the collector's trampolines and internal functions in the
# user view); sampling works as for any program. A bad value is refused.
# --omp-runtime auto (the default) on the same gcc-built program runs it on LLVM libomp
# instead of the libgomp it links: `header`, `omp` and hpmerge's summary say so and name
# --omp-runtime native (libomp schedules differently: schedule(dynamic,1) ran about 4x
# slower there); for a clang-built program, which links libomp, none of them says it.
source "$HPC_ROOT/tests/lib.sh"
[ -x "$HPCOLLECT" ] || skip "hpcollect not built yet (the collector has not landed)"
export PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/omp"
"$HPCOLLECT" -q -p hi --omp-runtime native -o native.hpc "$PROGS/omp/omp_imbalance" 20 5 >/dev/null
"$HPCOLLECT" -q -p hi -o auto.hpc "$PROGS/omp/omp_imbalance" 2 5 >/dev/null
"$HPCOLLECT" -q -p hi -o clang.hpc "$PROGS/omp/omp_imbalance.clang" 2 5 >/dev/null
"$HPMERGE" -q auto.hpc && "$HPMERGE" -q clang.hpc || fail "hpmerge failed"
if "$HPCOLLECT" -q --omp-runtime bogus -o bad.hpc "$PROGS/omp/omp_imbalance" 1 1 2>err.txt; then
    fail "--omp-runtime bogus was accepted"
fi
grep -q -- "--omp-runtime" err.txt || fail "no message naming --omp-runtime: $(cat err.txt)"
[ ! -e bad.hpc ] || fail "an experiment was made for a bad command line"
$SYSPY - <<'PY'
import json
from hpctest import check, interposers, near
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
# what stays of ours are interposers by the name the program called (pthread_create,
# close at exit, any of collector/*.def's, and GOMP_parallel... when a sample falls in the
# few instructions of its stub, before the jump to libgomp's): never the trampolines or
# internal functions
entries = {n for n in ours_u if n in interposers() or n.startswith("GOMP_")}
check(ours_u == entries and "thread_start" in ours_m,
      f"user view: no collector trampolines or internals ({sorted(ours_u)}; machine {sorted(ours_m)})")
check({f["name"] for f in user} - ours_u == {f["name"] for f in machine} - ours_m,
      "user view falls back to the machine view (but for the collector's frames)")
check(any(f["module"].startswith("libgomp") for f in machine), "libgomp frames are there")
hdr = js("native.hpc", "header")["experiments"][0]["processes"][0]["omp_runtime"]
check(hdr.startswith("GNU libgomp") and "unavailable" in hdr, f"header: {hdr!r}")

said = "in place of the program's GNU libgomp"
for exp, replaced in (("auto.hpc", True), ("clang.hpc", False)):
    header, _ = run(exp, "header")
    report, _ = run(exp, "omp")
    summary = open(f"{exp}/summary.txt").read()
    sj = json.load(open(f"{exp}/summary.json"))["processes"][0]["omp_runtime"]
    jr = omp(exp)["processes"][0]
    for what, text in (("header", header), ("omp", report), ("summary.txt", summary),
                       ("summary.json", sj), ("omp JSON", jr["runtime_text"])):
        says = said in text and "--omp-runtime native" in text
        check(says == replaced, f"{exp}: {what} {'says' if replaced else 'does not say'} that "
              f"libomp replaced libgomp")
    check(jr["runtime_replaced"] == replaced and jr["ompt"], f"{exp}: JSON runtime_replaced")
PY
