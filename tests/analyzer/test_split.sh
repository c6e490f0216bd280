#!/bin/bash
# timeout: 120
# Ground truth with real hpcollect runs: three leaves doing 50/30/20 of identical work
# under two callers doing 70/30 (progs/split.c), at -p hi and -p on; the truth is the CPU
# time each call took, which the program measures and prints (equal work is not equal
# time on a shared machine).
#   - each leaf's exclusive time, the callers' inclusive times, within 5 binomial
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
"$HPCOLLECT" -q -p hi -o hi.hpc "$PROGS/analyzer/split" 12000000 >hi.out
"$HPCOLLECT" -q -p on -o on.hpc "$PROGS/analyzer/split" 12000000 >on.out
$SYSPY - "$(hot leaf1)" "$(hot leaf2)" "$(hot leaf3)" <<'PY'
import sys
from hpctest import check, interposers, near, near_share, near_time_share
from anatest import *

def truth(out):
    """{(caller, leaf): CPU s} as split printed it."""
    return {tuple(l.split()[1:3]): float(l.split()[3]) for l in open(out) if l.startswith("cpu ")}

hot = {"leaf1": int(sys.argv[1]), "leaf2": int(sys.argv[2]), "leaf3": int(sys.argv[3])}
for exp in ("hi.hpc", "on.hpc"):
    f = funcs(exp)
    tot, n = f["<Total>"]["incl_cpu_s"], f["<Total>"]["incl_samples"]
    print(f"# {exp}: total {tot:.3f} s, samples {n}")
    cpu = truth(exp.replace(".hpc", ".out"))
    for leaf in ("leaf1", "leaf2", "leaf3"):
        want = sum(t for (c, l), t in cpu.items() if l == leaf)
        near_time_share(f[leaf]["excl_cpu_s"], want, tot, n, f"{exp}: {leaf} exclusive CPU s")
    for caller in ("caller_a", "caller_b"):
        want = sum(t for (c, l), t in cpu.items() if c == caller)
        near_time_share(f[caller]["incl_cpu_s"], want, tot, n, f"{exp}: {caller} inclusive CPU s")
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
    for caller in ("caller_a", "caller_b"):
        near_time_share(callers[caller], cpu[caller, "leaf1"], b["incl_cpu_s"], nb,
                        f"{exp}: leaf1 from {caller} CPU s")
    b = js(exp, "callers-callees", "caller_a")["functions"][0]
    callees = {x["name"]: x["attr_cpu_s"] for x in b["callees"]}
    check(set(callees) == {"leaf1", "leaf2", "leaf3"}, f"{exp}: caller_a's callees {set(callees)}")
    for leaf in ("leaf1", "leaf2", "leaf3"):
        near_time_share(callees[leaf], cpu["caller_a", leaf], b["incl_cpu_s"], b["incl_samples"],
                        f"{exp}: caller_a -> {leaf} CPU s")
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
