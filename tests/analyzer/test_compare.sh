#!/bin/bash
# Several experiments (progs/synth.c, exact contents): s.hpc as written, f.hpc with leaf_a
# at 250 ms instead of 500 ms. Aggregated by default (sums); --compare on|delta|ratio puts
# them side by side in functions and lines (values, differences, ratios to the first);
# other reports say they show the sum; --compare needs two experiments.
source "$HPC_ROOT/tests/lib.sh"
export PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/analyzer"
"$PROGS/analyzer/synth" s.hpc
"$PROGS/analyzer/synth" f.hpc --faster
rc=0
"$HPANALYZE" --compare delta s.hpc functions >/dev/null 2>err.txt || rc=$?
[ $rc = 2 ] && grep -q "two or more experiments" err.txt || fail "--compare with one experiment: exit $rc"
"$HPANALYZE" --compare delta s.hpc f.hpc callers-callees leaf_a >/dev/null 2>note.txt
grep -q "callers-callees shows the experiments summed" note.txt || fail "no note for callers-callees"
$SYSPY - <<'PY'
from hpctest import check, near
from anatest import *

agg = {r["name"]: r for r in js("s.hpc", "f.hpc", "functions")["functions"]}
near(agg["<Total>"]["incl_cpu_s"], 1.16 + 0.91, 1e-9, "aggregated total")
near(agg["leaf_a"]["excl_cpu_s"], 0.75, 1e-9, "aggregated leaf_a")

def cmp(mode, *a):
    d = js("s.hpc", "f.hpc", "--compare", mode, *a)
    check(d["compare"] == mode and d["experiments"] == ["s.hpc", "f.hpc"], f"compare {mode} header")
    return d
d = cmp("delta", "functions")
rows = {r["name"]: r for r in d["functions"]}
near(rows["leaf_a"]["e1_excl_cpu_s"], 0.5, 1e-9, "delta: leaf_a in #1")
near(rows["leaf_a"]["e2_excl_cpu_s"], 0.25, 1e-9, "delta: leaf_a in #2")
near(rows["leaf_a"]["e2_excl_cpu_delta_s"], -0.25, 1e-9, "delta: leaf_a #2 - #1")
near(rows["leaf_b"]["e2_excl_cpu_delta_s"], 0, 1e-9, "delta: leaf_b unchanged")
near(rows["<Total>"]["e2_incl_cpu_delta_s"], -0.25, 1e-9, "delta: total")
near(rows["main"]["e2_incl_cpu_delta_s"], -0.25, 1e-9, "delta: main inclusive")
check(rows["leaf_a"]["e2_excl_samples_delta"] == -250, "delta: leaf_a samples")
r = {x["name"]: x for x in cmp("ratio", "functions")["functions"]}
near(r["leaf_a"]["e2_excl_cpu_ratio"], 0.5, 1e-9, "ratio: leaf_a")
near(r["leaf_c"]["e2_excl_cpu_ratio"], 1.0, 1e-9, "ratio: leaf_c")
check(r["caller_x"]["e2_excl_cpu_ratio"] is None, "ratio: undefined where #1 is 0 (null)")
on = {x["name"]: x for x in cmp("on", "functions")["functions"]}
check("e2_excl_cpu_delta_s" not in on["leaf_a"] and on["leaf_a"]["e2_excl_cpu_s"] == 0.25, "compare on: values only")
ln = [x for x in cmp("delta", "lines")["lines"] if x["function"] == "leaf_a"]
check(len(ln) == 1 and abs(ln[0]["e2_excl_cpu_delta_s"] + 0.25) < 1e-9, "delta: leaf_a's line")
c = {x["name"]: x for x in csv_rows("s.hpc", "f.hpc", "--compare", "delta", "functions")}
near(float(c["leaf_a"]["e2_excl_cpu_delta_s"]), -0.25, 1e-9, "csv delta")
t = run("s.hpc", "f.hpc", "--compare", "delta", "functions")[0].splitlines()
row = [l for l in t if l.endswith(" leaf_a")][0].split()
check(t[1].startswith("#1 = s.hpc") and row[:2] == ["0.500", "-0.250"], f"text delta: {row}")
rt = [l for l in run("s.hpc", "f.hpc", "--compare", "ratio", "functions")[0].splitlines() if l.endswith(" leaf_a")][0]
check(rt.split()[1] == "x0.500", f"text ratio: {rt}")
PY
