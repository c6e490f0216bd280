#!/bin/bash
# timeout: 120
# Symbolization of real hpcollect runs: a PIE executable, a linked shared library and a
# dlopen'd (then dlclose'd) library resolved by name; a stripped binary shown as
# module+offset with one row per function; C++ names demangled.
source "$HPC_ROOT/tests/lib.sh"
[ -x "$HPCOLLECT" ] || skip "hpcollect not built yet (the collector has not landed)"
export PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/analyzer"
T="$PROGS/analyzer"
"$HPCOLLECT" -q -p hi -o libs.hpc "$T/libs" "$T/libana_dl.so" >libs.out
"$HPCOLLECT" -q -p hi -o stripped.hpc "$T/split_stripped" 4000000 >stripped.out
"$HPCOLLECT" -q -p hi -o cxx.hpc "$T/demangle" >/dev/null
$SYSPY - <<'PY'
from hpctest import check, near, near_time_share
from anatest import *

# the truth: the CPU time each part took, as the program measured it (equal work is not
# equal time on a shared machine)
cpu = {l.split()[1]: float(l.split()[2]) for l in open("libs.out") if l.startswith("cpu ")}
f = funcs("libs.hpc")
tot, n = f["<Total>"]["incl_cpu_s"], f["<Total>"]["incl_samples"]
for name, module in (("exe_work", "libs"), ("shared_work", "libana_shared.so"),
                     ("dl_work", "libana_dl.so")):
    check(name in f and f[name]["module"] == module, f"{name} resolved in {module}")
    near_time_share(f[name]["excl_cpu_s"], cpu[name], tot, n, f"{name} CPU s")

f = funcs("stripped.hpc")
tot, n = f["<Total>"]["incl_cpu_s"], f["<Total>"]["incl_samples"]
check(not any(n in f for n in ("leaf1", "leaf2", "leaf3")), "stripped: no symbol names")
rows = sorted((r for r in f.values() if r["name"].startswith("split_stripped+0x")),
              key=lambda r: -r["excl_cpu_s"])
check(len(rows) >= 3, "stripped: module+offset rows %s" % [r["name"] for r in rows[:5]])
# the truth: each leaf's CPU time as split measured it (leaves 50/30/20 of the work), largest first
cpu = {}
for l in open("stripped.out"):
    if l.startswith("cpu "):
        cpu[l.split()[2]] = cpu.get(l.split()[2], 0) + float(l.split()[3])
for r, want in zip(rows[:3], sorted(cpu.values(), reverse=True)):
    near_time_share(r["excl_cpu_s"], want, tot, n, "stripped: one row per function, CPU s")
check(all(r["module"] == "split_stripped" for r in rows), "stripped: module named")

f = funcs("cxx.hpc")
names = list(f)
check("ana::Box<double>::spin(long)" in f, "C++ member of a class template demangled: %s" % names)
check("ana::twirl(long, int)" in f, "C++ free function demangled")
PY
