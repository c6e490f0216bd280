#!/bin/bash
# -h page-faults,INTERVAL on a program that touches N fresh pages in touch() and computes
# in compute() (clock profiling on as well, in the same run): at least 95% of the
# page-fault counts land on touch() (less 5 binomial standard deviations for the number of
# samples: hpctest.share_tol), the total is within 5% of the faults the kernel
# counted for the run (wait4's ru_minflt in launcher.hpe), each sample carries what was
# counted since the previous one (>= the interval), and every report shows the metric:
# functions, callers-callees, calltree, lines, with `metrics` choosing the columns;
# header lists the counter (text and JSON).
source "$HPC_ROOT/tests/lib.sh"
N=20000
"$HPCOLLECT" -q -o pf.hpc -S off -h page-faults,97 "$PROGS/counters/touch_pages" $N 30000000 \
    >pf.out || fail "touch_pages under hpcollect: $(cat pf.out)"
note "$(cat pf.out)"

PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/counters" $SYSPY - <<'PY'
from ctrtest import *
rows = functions("pf.hpc")
total = rows["<Total>"]["incl_page-faults"]
touch = metric(rows, "touch", "excl_page-faults")
check(total > 0, f"page-fault samples recorded: {total} faults")
n = len(counter_samples("pf.hpc"))
low = 0.95 - share_tol(0.95, n)
check(touch >= low * total, f"touch() has {touch} of {total} page faults (>= {100 * low:.1f}%, {n} samples)")
check(metric(rows, "compute", "excl_cpu_s") > 0, "clock profiling in the same run: compute() has CPU time")
check(metric(rows, "compute", "excl_page-faults") == 0, "compute() touches no new page: 0 faults")
e = load("pf.hpc")
p = e.procs["main"]
kernel = p.launcher_exit["minflt"] + p.launcher_exit["majflt"]
check(abs(total - kernel) <= 0.05 * kernel, f"total {total} within 5% of the kernel's {kernel}")
samples = counter_samples("pf.hpc")
check(samples and min(s["value"] for s in samples) >= 97,
      f"each of {len(samples)} samples counts >= 97 faults since the previous one")
check(sum(s["value"] for s in samples) == total, "the report's total is the samples' sum")
defs = p.all("counter_def")
check(len(defs) == 1 and defs[0]["name"] == "page-faults" and defs[0]["interval"] == 97,
      "one counter_def: page-faults, interval 97")
# header lists the counter, in JSON as in text
hj = analyze("pf.hpc", "header")["experiments"][0]["processes"][0]
ctr = [(c["name"], c["spec"], c["kind"], c["interval"], c["unit"]) for c in hj["counters"]]
check(ctr == [("page-faults", "page-faults", "software", 97, "events")],
      f"header --format json: counters {ctr}")
check("Software counter-profiling: page-faults, interval = 97 events (page-faults)"
      in analyze("pf.hpc", "header", fmt="text"), "header text: the counter line")
check(p.stats["counter_samples"] >= total // 97 - 1,
      f"{p.stats['counter_samples']} counter samples for {total} faults at interval 97")
# every report shows the metric, `metrics` selects and orders the columns
for report in ("callers-callees", "calltree", "lines"):
    text = analyze("pf.hpc", report, fmt="text")
    check("page-faults" in text, f"{report} shows page-faults")
csv = analyze("pf.hpc", "metrics", "e.cpu:i.page-faults", "functions", fmt="csv")
header = [l for l in csv.splitlines() if l.startswith("name,")][0].split(",")
check(header[2:4] == ["excl_cpu_s", "excl_cpu_pct"] and "incl_page-faults" in header
      and "excl_page-faults" not in header and "incl_cpu_s" not in header,
      f"metrics e.cpu:i.page-faults: columns {header}")
check(header.index("excl_cpu_s") < header.index("incl_page-faults"), "in the order asked")
PY
