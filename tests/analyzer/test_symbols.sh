#!/bin/bash
# timeout: 120
# Symbolization of real hpcollect runs: a PIE executable, a linked shared library and a
# dlopen'd (then dlclose'd) library resolved by name; a stripped binary shown as
# module+offset with one row per function; C++ names demangled.
source "$HPC_ROOT/tests/lib.sh"
[ -x "$HPCOLLECT" ] || skip "hpcollect not built yet (the collector has not landed)"
export PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/analyzer"
T="$PROGS/analyzer"
"$HPCOLLECT" -q -p hi -o libs.hpc "$T/libs" "$T/libana_dl.so" >/dev/null
"$HPCOLLECT" -q -p hi -o stripped.hpc "$T/split_stripped" 4000000 >/dev/null
"$HPCOLLECT" -q -p hi -o cxx.hpc "$T/demangle" >/dev/null
$SYSPY - <<'PY'
from hpctest import check, near, near_share
from anatest import *

f = funcs("libs.hpc")
tot, n = f["<Total>"]["incl_cpu_s"], f["<Total>"]["incl_samples"]
for name, module in (("exe_work", "libs"), ("shared_work", "libana_shared.so"),
                     ("dl_work", "libana_dl.so")):
    check(name in f and f[name]["module"] == module, f"{name} resolved in {module}")
    near_share(100 * f[name]["excl_cpu_s"] / tot, 100 / 3, n, f"{name} share %", 100)

f = funcs("stripped.hpc")
tot, n = f["<Total>"]["incl_cpu_s"], f["<Total>"]["incl_samples"]
check(not any(n in f for n in ("leaf1", "leaf2", "leaf3")), "stripped: no symbol names")
rows = sorted((r for r in f.values() if r["name"].startswith("split_stripped+0x")),
              key=lambda r: -r["excl_cpu_s"])
check(len(rows) >= 3, "stripped: module+offset rows %s" % [r["name"] for r in rows[:5]])
shares = [100 * r["excl_cpu_s"] / tot for r in rows[:3]]
for got, want in zip(shares, (50, 30, 20)):
    near_share(got, want, n, "stripped: one row per function, share %", 100)
check(all(r["module"] == "split_stripped" for r in rows), "stripped: module named")

f = funcs("cxx.hpc")
names = list(f)
check("ana::Box<double>::spin(long)" in f, "C++ member of a class template demangled: %s" % names)
check("ana::twirl(long, int)" in f, "C++ free function demangled")
PY
