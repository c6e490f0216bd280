#!/bin/bash
# timeout: 120
# Ground truth with real hpcollect runs: three leaves doing 50/30/20 of identical work
# under two callers doing 70/30 (progs/split.c), at -p hi and -p on.
#   - each leaf's exclusive share, the callers' inclusive shares, within 5 binomial
#     standard deviations of the truth for the run's number of samples (hpctest.share_tol)
#   - callers-callees: the right callers and callees with the right attributed shares
#   - lines: the hot loop line of each leaf carries its time
#   - sampled total CPU within 3% of the process's rusage user+system
#   - csv and json agree with text
source "$HPC_ROOT/tests/lib.sh"
[ -x "$HPCOLLECT" ] || skip "hpcollect not built yet (the collector has not landed)"
export PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/analyzer"
SRC="$HPC_ROOT/tests/analyzer/progs/split.c"
hot() { grep -n "HOT $1 \*/" "$SRC" | cut -d: -f1; }
# -p hi: 2 s of work (about 2000 samples: a leaf's share within about 5 points); -p on:
# 2 s (about 200 samples: within about 17 points, the structure is what it checks)
"$HPCOLLECT" -q -p hi -o hi.hpc "$PROGS/analyzer/split" 12000000 >/dev/null
"$HPCOLLECT" -q -p on -o on.hpc "$PROGS/analyzer/split" 12000000 >/dev/null
$SYSPY - "$(hot leaf1)" "$(hot leaf2)" "$(hot leaf3)" <<'PY'
import sys
from hpctest import check, interposers, near, near_share
from anatest import *

hot = {"leaf1": int(sys.argv[1]), "leaf2": int(sys.argv[2]), "leaf3": int(sys.argv[3])}
for exp in ("hi.hpc", "on.hpc"):
    f = funcs(exp)
    tot, n = f["<Total>"]["incl_cpu_s"], f["<Total>"]["incl_samples"]
    print(f"# {exp}: total {tot:.3f} s, samples {n}")
    for leaf, want in (("leaf1", 50), ("leaf2", 30), ("leaf3", 20)):
        near_share(100 * f[leaf]["excl_cpu_s"] / tot, want, n, f"{exp}: {leaf} exclusive share %", 100)
    for caller, want in (("caller_a", 70), ("caller_b", 30)):
        near_share(100 * f[caller]["incl_cpu_s"] / tot, want, n, f"{exp}: {caller} inclusive share %", 100)
    # outside main: the process's start-up and exit (the loader, the collector's
    # constructor), at most a few ms of CPU: slack 0.5% beside the sampling
    near_share(100 * f["main"]["incl_cpu_s"] / tot, 100, n, f"{exp}: main inclusive share %", 100,
               slack=0.005)
    # of ours, only an interposer by the name the program called (a sample in the few
    # instructions of malloc's or free's wrapper: the program's exit frees), never internals
    ours = {n for n, r in f.items() if r["module"].startswith("libhpcollect")}
    check(ours <= interposers(), f"{exp}: the collector's own frames are hidden in the user view {sorted(ours)}")

    # callers-callees
    b = js(exp, "callers-callees", "leaf1")["functions"][0]
    callers = {x["name"]: x["attr_cpu_s"] for x in b["callers"]}
    check(set(callers) == {"caller_a", "caller_b"}, f"{exp}: leaf1's callers {set(callers)}")
    nb = b["incl_samples"]
    near_share(100 * callers["caller_a"] / b["incl_cpu_s"], 80, nb, f"{exp}: leaf1 from caller_a %", 100)
    near_share(100 * callers["caller_b"] / b["incl_cpu_s"], 20, nb, f"{exp}: leaf1 from caller_b %", 100)
    b = js(exp, "callers-callees", "caller_a")["functions"][0]
    callees = {x["name"]: x["attr_cpu_s"] for x in b["callees"]}
    check(set(callees) == {"leaf1", "leaf2", "leaf3"}, f"{exp}: caller_a's callees {set(callees)}")
    for leaf, want in (("leaf1", 4 / 7), ("leaf2", 2 / 7), ("leaf3", 1 / 7)):
        near_share(100 * callees[leaf] / b["incl_cpu_s"], 100 * want, b["incl_samples"],
                   f"{exp}: caller_a -> {leaf} %", 100)
    check([x["name"] for x in b["callers"]] == ["main"], f"{exp}: caller_a called by main")
    rows = text_rows(run(exp, "callers-callees", "caller_b")[0])
    names = [r[1] for r in rows]
    check(names[0] == "main" and rows[1][2] and names[1] == "caller_b" and
          set(names[2:]) == {"leaf1", "leaf2", "leaf3"}, f"{exp}: text callers-callees {names}")

    # lines: each leaf's hot loop line holds (nearly) all of its time
    lines = js(exp, "lines")["lines"]
    for leaf, line in hot.items():
        mine = [l for l in lines if l["function"] == leaf]
        best = max(mine, key=lambda l: l["excl_cpu_s"])
        check(best["line"] == line and best["file"].endswith("split.c"),
              f"{exp}: {leaf}'s hottest line {best['file']}:{best['line']}, expected split.c:{line}")
        near_share(best["excl_cpu_s"] / f[leaf]["excl_cpu_s"], 1.0, f[leaf]["excl_samples"],
                   f"{exp}: {leaf} time on its hot line")

    # sampled CPU vs rusage
    s = js(exp, "statistics")["processes"][0]
    near(100 * (s["sampled_cpu_s"] - s["os_cpu_s"]) / s["os_cpu_s"], 0, 3.0,
         f"{exp}: sampled CPU vs rusage user+system (%)")
    near(s["sampled_cpu_s"], tot, 1e-6, f"{exp}: statistics total = functions total")

    # formats agree
    c = {r["name"]: r for r in csv_rows(exp, "functions")}
    t = text_funcs(exp)
    check(set(c) == set(f) == set(t), f"{exp}: same rows in csv, json and text")
    for name in f:
        near(float(c[name]["excl_cpu_s"]), f[name]["excl_cpu_s"], 1e-6, f"{exp}: csv {name}")
        near(t[name][0], f[name]["excl_cpu_s"], 0.0005, f"{exp}: text {name}")
PY
