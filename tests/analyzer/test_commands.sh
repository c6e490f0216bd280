#!/bin/bash
# timeout: 120
# The er_print command set against one real run of progs/phases.c (two threads of equal
# work; the main thread's phase_a and phase_b separated by sample points "A done" and
# "B done"; kernel_x 30%, kernel_y 20%, spin 50% of the work; kernel_x called 2:1 from
# phase_a and phase_b; the truth is the CPU time each call took, which the program
# measures and prints). One profiled run serves every check:
#   - functions, fsummary, callers-callees, csingle, calltree, lines, source, pcs, disasm:
#     times within 5 binomial standard deviations for the samples behind them
#     (hpctest.share_tol), the right callers, callees, lines and instructions
#   - filters: --threads halves the total, partitions by thread and cpu add up exactly,
#     --time and --samples (by number and by label) select the phases, combined filters
#   - metrics, sort, limit, overview, experiment_list, header, statistics
#   - several commands: one JSON array; -script FILE, -COMMAND forms and stdin run the same
source "$HPC_ROOT/tests/lib.sh"
[ -x "$HPCOLLECT" ] || skip "hpcollect not built yet (the collector has not landed)"
command -v objdump >/dev/null || skip "objdump (binutils) missing: disasm cannot run"
export PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/analyzer"
SRC="$HPC_ROOT/tests/analyzer/progs/phases.c"
mark() { grep -n "$1 \*/" "$SRC" | cut -d: -f1; }
# -p 0.5: about 2000 samples, so the sampled shares are known within about 5 points
"$HPCOLLECT" -q -p 0.5 -S off -o ph.hpc "$PROGS/analyzer/phases" >ph.out

# script and stdin forms
cat >cmds.txt <<'EOF'
# a comment, then commands with arguments
limit 3
sort "i.cpu"
functions
callers-callees kernel_x
EOF
"$HPANALYZE" --format json ph.hpc -script cmds.txt >script.json
"$HPANALYZE" --format json ph.hpc <cmds.txt >stdin.json
"$HPANALYZE" --format json -limit 3 -sort i.cpu -functions -callers-callees kernel_x ph.hpc >dash.json
"$HPANALYZE" --format json ph.hpc limit 3 sort i.cpu functions callers-callees kernel_x >args.json
printf 'functions\nnosuchcommand\n' >bad.txt
rc=0
"$HPANALYZE" ph.hpc -script bad.txt >bad.out 2>bad.err || rc=$?
[ $rc = 2 ] && grep -q "bad.txt:2: unknown command 'nosuchcommand'" bad.err && [ ! -s bad.out ] ||
    fail "a bad script line: exit $rc, $(cat bad.err)"

$SYSPY - "$(mark 'HOT kernel_x')" "$(mark 'CALL phase_a kernel_x')" <<'PY'
import json, sys
from hpctest import check, near, near_share, near_time_share
from anatest import *

HOT_X, CALL_AX = int(sys.argv[1]), int(sys.argv[2])
E = "ph.hpc"
f = funcs(E)
tot, n = f["<Total>"]["incl_cpu_s"], f["<Total>"]["incl_samples"]
pct = lambda v: 100 * v / tot
print(f"# total {tot:.3f} s, {n} samples")
# the truth: {(caller, function): CPU s} and each thread's CPU, as phases measured them
cpu = {tuple(l.split()[1:3]): float(l.split()[3]) for l in open("ph.out") if l.startswith("cpu ")}
thread_cpu = {l.split()[1]: float(l.split()[2]) for l in open("ph.out") if l.startswith("thread ")}
truth = lambda caller="", fn="": sum(v for (c, g), v in cpu.items() if caller in (c, "") and fn in (g, ""))
for name in ("spin", "kernel_x", "kernel_y"):
    near_time_share(f[name]["excl_cpu_s"], truth(fn=name), tot, n, f"{name} exclusive CPU s")
near_time_share(f["phase_a"]["incl_cpu_s"], truth("phase_a"), tot, n, "phase_a inclusive CPU s")
near_time_share(f["phase_b"]["incl_cpu_s"], truth("phase_b"), tot, n, "phase_b inclusive CPU s")

# fsummary: the functions' numbers plus where they are
fs = {x["name"]: x for x in js(E, "fsummary")["functions"]}
check(set(fs) == set(f), "fsummary lists the functions of `functions`")
near(fs["kernel_x"]["excl_cpu_s"], f["kernel_x"]["excl_cpu_s"], 1e-9, "fsummary kernel_x time")
check(fs["kernel_x"]["source_file"].endswith("tests/analyzer/progs/phases.c") and
      fs["kernel_x"]["size"] > 0 and fs["kernel_x"]["load_object"].endswith("/phases"),
      f"fsummary kernel_x: {fs['kernel_x']['source_file']}, size {fs['kernel_x']['size']}")
check("\tExclusive Total CPU Time" in run(E, "fsummary")[0].replace("     ", ""), "fsummary text")

# callers-callees and csingle
b = js(E, "callers-callees", "kernel_x")["functions"][0]
callers = {x["name"]: x["attr_cpu_s"] for x in b["callers"]}
check(set(callers) == {"phase_a", "phase_b"} and not b["callees"], f"kernel_x's callers {callers}")
near_time_share(callers["phase_a"], truth("phase_a", "kernel_x"), b["incl_cpu_s"], b["incl_samples"],
                "kernel_x from phase_a CPU s")
b = js(E, "callers-callees", "phase_a")["functions"][0]
# (and its clock reads, phases' measurement of the kernels, when a sample fell in one)
callees = {x["name"]: x["attr_cpu_s"] for x in b["callees"] if "clock_gettime" not in x["name"]}
check(set(callees) == {"kernel_x", "kernel_y"} and [x["name"] for x in b["callers"]] == ["main"],
      f"phase_a: callers main, callees {callees}")
near_time_share(callees["kernel_x"], truth("phase_a", "kernel_x"), b["incl_cpu_s"], b["incl_samples"],
                "phase_a -> kernel_x CPU s")
cs = js(E, "csingle", "kernel_x")
check(cs["report"] == "csingle" and {x["name"] for x in cs["functions"][0]["callers"]} ==
      {"phase_a", "phase_b"}, "csingle json")
t = run(E, "csingle", "kernel_x")[0]
sec = [l.split("= ")[-1].strip() for l in t.splitlines() if "=====" in l]
check(sec == ["Callers", "Stack Fragment", "No Callees"], f"csingle sections {sec}")
body = t.split("Stack Fragment")[1].split("=====")[0]
check(body.strip().endswith("kernel_x"), "csingle stack fragment is kernel_x")

# calltree: main > phase_a > kernel_x holds 2 of the 10 units of work
nodes = js(E, "calltree")["nodes"]
by = {n["id"]: n for n in nodes}
def path(n):
    p = []
    while n["parent"] >= 0:
        p.append(n["name"]); n = by[n["parent"]]
    return p[::-1]
ax = [n for n in nodes if path(n)[-3:] == ["main", "phase_a", "kernel_x"]]
check(len(ax) == 1, "calltree has main > phase_a > kernel_x")
near_time_share(ax[0]["attr_cpu_s"], truth("phase_a", "kernel_x"), tot, n, "calltree main > phase_a > kernel_x CPU s")

# lines and source: the hot loop line, and the call line carrying its callee's time
lines = js(E, "lines")["lines"]
best = max((l for l in lines if l["function"] == "kernel_x"), key=lambda l: l["excl_cpu_s"])
check(best["line"] == HOT_X, f"kernel_x's hottest line {best['line']}, expected {HOT_X}")
src = js(E, "source", "kernel_x")
check(src["file"].endswith("phases.c") and src["readable"], "source kernel_x finds phases.c")
sl = {l["line"]: l for l in src["lines"]}
near_share(sl[HOT_X]["excl_cpu_s"] / f["kernel_x"]["excl_cpu_s"], 1, f["kernel_x"]["excl_samples"],
           "source: kernel_x time on its HOT line")
check("HOT kernel_x" in sl[HOT_X]["text"], "source line text")
near(sl[CALL_AX]["incl_cpu_s"], ax[0]["attr_cpu_s"], 0.02, "source: phase_a's call line holds the call's time")
check(js(E, "source", "phases.c")["file"] == src["file"], "source by file name = by function")
tsrc = run(E, "source", "phases.c")[0]
check(any(l.startswith("##") and "HOT spin" in l for l in tsrc.splitlines()),
      "source text marks the hottest line ##")

# pcs and disasm: the function's instructions hold exactly its exclusive time
pcs = js(E, "pcs")["pcs"]
xs = [p for p in pcs if p["function"] == "kernel_x"]
near(sum(p["excl_cpu_s"] for p in xs), f["kernel_x"]["excl_cpu_s"], 1e-9, "pcs of kernel_x sum to its time")
check(all(p["name"].startswith("kernel_x + 0x") for p in xs), "pcs names: function + offset")
d = js(E, "disasm", "kernel_x")
ins = d["instructions"]
near(sum(i["excl_cpu_s"] for i in ins), f["kernel_x"]["excl_cpu_s"], 1e-9, "disasm kernel_x sums to its time")
hot = [i for i in ins if i["excl_cpu_s"] > 0]
# (a sample now and then lands in the call's entry or return, off the loop's line: a
# fresh-clone run had one; at most 2% of the function's time there)
off = sum(i["excl_cpu_s"] for i in hot if i["line"] != HOT_X)
check(hot and off <= 0.02 * f["kernel_x"]["excl_cpu_s"],
      f"disasm: sampled instructions on line {HOT_X} ({off:.4f} s elsewhere)")
check(int(ins[0]["address"], 16) == int(d["start"], 16) and d["size"] > 0, "disasm starts at the function")
da = js(E, "disasm", "phase_a")["instructions"]
calls = [i for i in da if i["text"].startswith("call") and "kernel_" in i["text"]]
check(len(calls) == 2 and all(i["incl_cpu_s"] > 0 for i in calls), "disasm phase_a: time on its two kernel calls")
check(" [%d] " % HOT_X in run(E, "disasm", "kernel_x")[0], "disasm text shows line numbers")

# filters
def total(*a):
    return js(E, *a, "functions")["functions"][0]["incl_cpu_s"]
t0, t1 = total("--threads", "0"), total("--threads", "1")
# each thread's total is its CPU time (samples weigh the CPU since the previous one), not a
# share of samples: the two threads do equal work, apart from the main thread's start
near(100 * t0 / tot, 100 * thread_cpu["main"] / sum(thread_cpu.values()), 3,
     "--threads 0: the main thread's share of the CPU (%)")
near(t0 + t1, tot, 1e-9, "thread 0 + thread 1 = total")
check("spin" not in funcs(E, "--threads", "0") and "kernel_x" not in funcs(E, "--threads", "1"),
      "each thread has its own functions")
ncpu = js(E, "header")["experiments"][0]["processes"][0]["ncpus"]
near(sum(total("--cpus", str(c)) for c in range(ncpu)), tot, 1e-9, f"the {ncpu} cpus partition the total")
ov = js(E, "overview")
per = ov["processes"][0]["periods"]
check([p["label"] for p in per[:2]] == ["A done", "B done"], f"overview periods {[p['label'] for p in per]}")
a_end = per[0]["end_s"]
s1 = funcs(E, "--samples", "1")
check("phase_b" not in s1, "--samples 1 has no phase_b")
near(s1["phase_a"]["incl_cpu_s"], f["phase_a"]["incl_cpu_s"], 1e-9, "--samples 1 has all of phase_a")
s2 = funcs(E, "--samples", "B done")
check("phase_a" not in s2, "--samples 'B done' has no phase_a")
near(s2["phase_b"]["incl_cpu_s"], f["phase_b"]["incl_cpu_s"], 1e-9, "--samples 'B done' has all of phase_b")
# (a sample point the program records charges its thread's CPU so far where it calls, so
# the thread's tail at its end is not charged to phase_b, which it left before the point)
# (its CPU: with thread states on, an off-CPU state may be charged there at a later sample)
s3 = funcs(E, "--samples", "3")
check(s3.get("phase_b", {}).get("incl_cpu_s", 0) == 0, "--samples 3 (after 'B done') has no CPU of phase_b")
# (the 'start' point comes before the main thread's first sample: once it came after the
# module scan, and a sample taken during the scan fell in no period, 1 run in 20)
near(total("--samples", "1-2,3"), tot, 1e-9, "--samples 1-2,3 keeps everything")
near(100 * (per[0]["user_s"] + per[0]["system_s"]) / total("--samples", "A done"), 100, 5,
     "period 1's rusage CPU vs its sampled CPU (%)")
tw = funcs(E, "--time", f"0-{a_end + 1e-6:.9f}")
check("phase_b" not in tw, "--time before 'A done' has no phase_b")
near(tw["phase_a"]["incl_cpu_s"], f["phase_a"]["incl_cpu_s"], 0.003, "--time before 'A done' has phase_a")
tb = funcs(E, "--time", f"{a_end:.9f}-")
check("phase_a" not in tb, "--time after 'A done' has no phase_a")
c = funcs(E, "--samples", "1", "--threads", "0")
check(set(c) >= {"phase_a", "kernel_x"} and "spin" not in c and "phase_b" not in c,
      "--samples 1 --threads 0: phase_a only")
near(c["phase_a"]["incl_cpu_s"], f["phase_a"]["incl_cpu_s"], 1e-9, "--samples 1 --threads 0 has all of phase_a")
# the rest of thread 0 in period 1 is start-up and the hand-offs to the worker: a few
# samples (0.3 ms to 3.4 ms seen, more on a loaded machine), not a phase's 0.26 s
near(c["<Total>"]["incl_cpu_s"], f["phase_a"]["incl_cpu_s"], 0.02, "--samples 1 --threads 0 total = phase_a")

# metrics, sort, limit
m = js(E, "metrics", "e.%cpu:i.samples")
check(m["current"] == "e.%cpu:i.samples:name", f"metrics current {m['current']}")
row = js(E, "--metrics", "e.%cpu:i.samples", "functions")["functions"][1]
check("excl_cpu_s" in row and "incl_samples" in row and "incl_cpu_s" not in row,
      "--metrics selects the columns")
th = run(E, "--metrics", "i.samples:e.%cpu", "functions")[0].splitlines()[2]
check(th.startswith("Incl. Samples") and "Excl. Total" in th, f"text columns in selection order: {th!r}")
run(E, "--metrics", "e.bogus", "functions", expect=2)
arr = json.load(open("args.json"))
check([x["report"] for x in arr] == ["limit", "sort", "functions", "callers-callees"],
      "several commands: one JSON array of their documents")
fl = arr[2]["functions"]
inc = [x["incl_cpu_s"] for x in fl[1:]]
check(len(fl) == 4 and inc == sorted(inc, reverse=True) and arr[1]["key"] == "i.cpu" and
      inc[0] == max(r["incl_cpu_s"] for n, r in f.items() if n != "<Total>"),
      f"sort i.cpu + limit 3: {[x['name'] for x in fl]}")
for other in ("script.json", "stdin.json", "dash.json"):
    check(json.load(open(other)) == arr, f"{other}: the same results as commands on the command line")

# overview, experiment_list, header, statistics
check(ov["experiments"][0]["threads"] == 2 and ov["metrics"][0]["key"] == "cpu", "overview")
near(ov["metrics"][0]["total"], tot, 1e-9, "overview cpu total")
el = js(E, "experiment_list")["experiments"][0]["processes"]
check(len(el) == 1 and el[0]["threads"] == 2 and el[0]["selected"], "experiment_list")
st = js(E, "statistics")["processes"][0]
near(st["sampled_cpu_s"], tot, 1e-6, "statistics total = functions total")
PY
