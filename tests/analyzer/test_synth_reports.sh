#!/bin/bash
# Every report over an experiment with known contents, written with the experiment writer
# API by tests/analyzer/progs/synth.c (no collector involved): exact shares, callers and
# callees, recursion counted once, PIE and shared-library symbols, lines, formats agreeing.
source "$HPC_ROOT/tests/lib.sh"
"$PROGS/analyzer/synth" s.hpc
export PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/analyzer"
LEAF_A_LINE=$(grep -n '^__attribute__((noinline)) void leaf_a' "$HPC_ROOT/tests/analyzer/progs/synth.c" | cut -d: -f1)
LEAF_A_END=$((LEAF_A_LINE + 3))
$SYSPY - <<PY
from hpctest import check, near
from anatest import *

f = funcs("s.hpc")
tot = f["<Total>"]["incl_cpu_s"]
near(tot, 1.16, 1e-9, "<Total> CPU")
for name, excl, incl in [("leaf_a", .5, .5), ("leaf_b", .3, .3), ("leaf_c", .2, .2),
                         ("caller_x", 0, .7), ("caller_y", 0, .35), ("main", 0, 1.15),
                         ("rec", .1, .1), ("qsort", .05, .05), ("<no stack>", .01, .01)]:
    near(f[name]["excl_cpu_s"], excl, 1e-9, name + " exclusive")
    near(f[name]["incl_cpu_s"], incl, 1e-9, name + " inclusive (recursion counted once)")
check(f["leaf_a"]["samples"] == 500, "leaf_a samples")
check(f["leaf_a"]["module"] == "synth", "PIE function's module")
check(f["qsort"]["module"] == "libc.so.6", "shared library function resolved by name")
near(f["caller_x"]["incl_cpu_pct"], 70 / 1.16, 1e-6, "caller_x inclusive percent")
names = [x["name"] for x in js("s.hpc", "functions")["functions"]]
check(names[0] == "<Total>" and names[1:4] == ["leaf_a", "leaf_b", "leaf_c"],
      "sorted by exclusive CPU, <Total> first: %s" % names[:4])

# csv and text agree with json
c = {r["name"]: r for r in csv_rows("s.hpc", "functions")}
check(set(c) == set(f), "csv rows = json rows")
for name in f:
    for key in ("excl_cpu_s", "incl_cpu_s", "excl_cpu_pct", "incl_cpu_pct", "samples"):
        near(float(c[name][key]), f[name][key], 1e-6, "csv %s %s" % (name, key))
t = text_funcs("s.hpc")
check(set(t) == set(f), "text rows = json rows")
for name in f:
    near(t[name][0], f[name]["excl_cpu_s"], 0.0005, "text excl " + name)
    near(t[name][2], f[name]["incl_cpu_s"], 0.0005, "text incl " + name)
    near(t[name][3], f[name]["incl_cpu_pct"], 0.005, "text incl %% " + name)

# --sort and --limit
byname = [x["name"] for x in js("s.hpc", "functions", "--sort", "name")["functions"]][1:]
check(byname == sorted(byname), "--sort name")
incl = [x["name"] for x in js("s.hpc", "--sort", "incl_cpu", "functions")["functions"]]
check(incl[1] == "main" and incl[2] == "caller_x", "--sort incl_cpu: %s" % incl[:3])
check(len(js("s.hpc", "functions", "--limit", "3")["functions"]) == 4, "--limit 3 (+ <Total>)")

# callers-callees
def cc(func):
    b = js("s.hpc", "callers-callees", func)["functions"][0]
    return ({x["name"]: x["attr_cpu_s"] for x in b["callers"]},
            {x["name"]: x["attr_cpu_s"] for x in b["callees"]}, b)
callers, callees, b = cc("leaf_b")
check(set(callers) == {"caller_x", "caller_y"} and not callees, "leaf_b callers/callees")
near(callers["caller_x"], .2, 1e-9, "leaf_b from caller_x")
near(callers["caller_y"], .1, 1e-9, "leaf_b from caller_y")
near(b["callers"][0]["attr_cpu_pct"], 100 * .2 / .3, 1e-6, "attributed %% of leaf_b")
callers, callees, b = cc("caller_y")
check(callers == {"main": .35} or abs(callers["main"] - .35) < 1e-9, "caller_y caller main")
check(set(callees) == {"leaf_b", "leaf_c", "qsort"}, "caller_y callees")
near(callees["leaf_c"], .2, 1e-9, "caller_y -> leaf_c")
near(callees["qsort"], .05, 1e-9, "caller_y -> qsort")
callers, callees, b = cc("rec")
near(callers["main"], .1, 1e-9, "rec called from main")
near(callers["rec"], .1, 1e-9, "rec called from rec")
near(callees["rec"], .1, 1e-9, "rec calls rec")
tb = text_rows(run("s.hpc", "callers-callees", "leaf_b")[0])
check([r[1] for r in tb] == ["caller_x", "caller_y", "leaf_b"] and tb[2][2],
      "text callers-callees: callers above, *leaf_b marked: %s" % tb)
allcc = js("s.hpc", "callers-callees")["functions"]
check(allcc[0]["name"] == "<Total>" and len(allcc) == len(f), "callers-callees of every function")
ccsv = csv_rows("s.hpc", "callers-callees", "leaf_b")
check([(r["role"], r["name"]) for r in ccsv] ==
      [("caller", "caller_x"), ("caller", "caller_y"), ("self", "leaf_b")], "callers-callees csv")

# calltree
nodes = js("s.hpc", "calltree")["nodes"]
byid = {n["id"]: n for n in nodes}
def path(n):
    p = []
    while n["parent"] >= 0:
        p.append(n["name"]); n = byid[n["parent"]]
    return ">".join(reversed(p))
paths = {path(n): n["attr_cpu_s"] for n in nodes if n["id"]}
near(paths["main>caller_x>leaf_a"], .5, 1e-9, "calltree main>caller_x>leaf_a")
near(paths["main>caller_y>leaf_b"], .1, 1e-9, "calltree main>caller_y>leaf_b")
near(paths["main>rec>rec>rec"], .1, 1e-9, "calltree recursion path")
tt = run("s.hpc", "calltree")[0]
check("+-<Total>" in tt and "|  +-leaf_a" in tt, "calltree text drawing")
check(len(csv_rows("s.hpc", "calltree")) == len(nodes), "calltree csv rows")

# lines
lines = js("s.hpc", "lines")["lines"]
la = [l for l in lines if l["function"] == "leaf_a"]
check(len(la) == 1 and la[0]["file"].endswith("synth.c") and
      $LEAF_A_LINE <= la[0]["line"] <= $LEAF_A_END, "leaf_a's line in synth.c: %s" % la)
near(la[0]["excl_cpu_s"], .5, 1e-9, "leaf_a line exclusive")
tl = run("s.hpc", "lines")[0]
check('leaf_a, line %d in "synth.c"' % la[0]["line"] in tl, "lines text name")

# header, statistics, dump
h = js("s.hpc", "header")["experiments"][0]["processes"][0]
check(h["name"] == "main" and h["clock_source"] == "perf_event task-clock" and
      h["clock_interval_ns"] == 1000000, "header facts")
s = js("s.hpc", "statistics")["processes"][0]
check(s["samples_read"] == 1160 and s["stats"]["samples"] == 1160, "statistics sample counts")
near(s["sampled_cpu_s"], 1.16, 1e-9, "statistics sampled CPU")
near(s["os_cpu_s"], 1.16, 1e-9, "statistics OS CPU")
check(len(s["thread_list"]) == 2, "statistics threads")
st = run("s.hpc", "statistics")[0]
for label in ("Samples recorded", "Dropped: size limit", "Blocked", "Unwind faults",
              "Sampled CPU", "OS CPU, user+system", "Difference"):
    check(label in st, "statistics text shows " + label)
d = run("s.hpc", "dump")[0]
check(d.count("\nsample_clock @") == 1160, "dump shows every sample")
dj = js("s.hpc", "dump")["records"]
check(sum(1 for r in dj if r["record"] == "cct_node") == 12, "dump json: every cct node")
check(len(csv_rows("s.hpc", "dump")) == len(dj), "dump csv = json records")

# filters apply per sample before aggregation
ft = funcs("s.hpc", "--threads", "1")
near(ft["<Total>"]["incl_cpu_s"], 0.1, 1e-9, "--threads 1: only the recursive thread")
check("leaf_a" not in ft, "--threads 1: thread 0's functions gone")
fw = funcs("s.hpc", "--time", "0-0.5005")
near(fw["<Total>"]["incl_cpu_s"], 0.6, 1e-9, "--time 0-0.5005: the first 500 ms of each thread")
near(fw["leaf_a"]["excl_cpu_s"], 0.5, 1e-9, "--time: leaf_a's phase")
check("leaf_c" not in fw, "--time: later phases gone")
fc = funcs("s.hpc", "--cpus", "0")
near(fc["leaf_a"]["excl_cpu_s"], 0.25, 1e-9, "--cpus 0: half of leaf_a's samples")
near(funcs("s.hpc", "--ranks", "0")["<Total>"]["incl_cpu_s"], 0, 1e-9, "--ranks 0: not an MPI process")

PY

# several experiments are aggregated
"$PROGS/analyzer/synth" s2.hpc
$SYSPY - <<'PY'
from hpctest import check, near
from anatest import *
two = {x["name"]: x for x in json.loads(run("--format", "json", "s.hpc", "s2.hpc", "functions")[0])["functions"]}
near(two["<Total>"]["incl_cpu_s"], 2.32, 1e-9, "two experiments: totals add")
near(two["leaf_a"]["excl_cpu_s"], 1.0, 1e-9, "two experiments: the same function is one row")

# several commands in one call
out = run("s.hpc", "functions", "callers-callees", "leaf_a", "lines")[0]
check(out.count("sorted by metric") >= 3, "several commands in one call")
PY

# a stack of only the collector's internal frames (a leaf-only sample in its module scan)
# is kept as recorded in every view; it used to leave an empty path and crash the reports
"$PROGS/analyzer/synth" c.hpc --as-collector
$SYSPY - <<'PY'
from hpctest import check, near
from anatest import *
for view in ("user", "expert", "machine"):
    f = funcs("c.hpc", "--view", view)
    near(f["<Total>"]["incl_cpu_s"], 1.18, 1e-9, f"--view {view}: <Total> with the collector's 20 ms")
    near(f["internal_work"]["excl_cpu_s"], 0.02, 1e-9, f"--view {view}: internal_work kept")
    near(f["leaf_a"]["excl_cpu_s"], 0.5, 1e-9, f"--view {view}: entry points kept (leaf_a)")
    near(f["caller_x"]["incl_cpu_s"], 0.7, 1e-9, f"--view {view}: entry points kept (caller_x)")
for cmd in (["calltree"], ["lines"], ["csingle", "internal_work"], ["pcs"]):
    run("c.hpc", *cmd)
PY
