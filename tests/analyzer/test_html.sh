#!/bin/bash
# timeout: 240
# The page of `export html` in headless Chromium (puppeteer-core, tests/web/report.mjs),
# opened from disk as a user would, for programs whose time, traffic and OpenMP regions
# are known in advance. What the page shows (tooltips, bar labels, table cells: the text
# a user reads) is checked against that ground truth and against the text reports:
#   - every page: no console message, no request beyond the file, a timeline row per rank
#     and thread in order ("rank R thread T", "main thread T"), screenshots (kept in the test's folder); a
#     section per tracer of the page's table (its metrics per rank, or how to record it)
#   - mpi/slowrank 0.4 cpu (rank 1 computes 0.4 s of CPU, rank 0 waits in MPI_Recv):
#     where the time goes: rank 1 computing >= 0.4 s less 3 samples' weight and = its
#     main thread's CPU outside MPI calls,
#     rank 0's MPI part = its traced MPI time; the tooltip of rank 0's MPI_Recv: peer
#     rank 1, 4 bytes, call site slowrank.c:<the line of the call>, lasting >= 0.3 s and as
#     long as the mpi report says; the MPI bars = the mpi report's times
#   - mpi/traffic (4 ranks): every cell of the communication matrix, by hovering it, = the
#     program's known sends (messages and bytes); the tooltip of MPI_Sendrecv: 64 bytes
#     each way, its call site; the calls table's min/mean/max/COV across ranks = the mpi
#     report's
#   - analyzer/hybrid (2 ranks x 2 OpenMP threads, libomp, 4 rounds): rank 0's main row
#     draws 4 omp parallel, 4 MPI_Send, 4 MPI_Recv, 4 MPI_Allreduce; its worker 4 implicit
#     tasks; the region's tooltip names the pragma's line; the OpenMP bars = the omp
#     report's work and wait, the worker's work 0.08 s (it burns 4 x 20 ms)
#   - the demo's solver (examples/heat_mpi.c, 2 ranks x 2 threads): the tooltip of
#     MPI_Allreduce names a line of heat_mpi.c calling it; the flame graph per rank and
#     metric = `--ranks R functions` totals; the functions table searches and sorts
#   - sync/mutex_hold with -s on (the sync tracer, no MPI): the sync section's objects table
#     shows the_lock at the address the program printed, waiting as long as the syncs
#     report says and within 5% of the program's own clock; its per-process Sync Wait Time
#     and the summary's sync part = the process's Sync Wait Time
#   - heap/heap_known with -H on: the heap section's functions table shows each function's
#     known allocations (leak_x 7, calloc_z 3, churn_y 50, peak_p 10, produce 20)
# Skips where Chromium, node or the npm packages are missing.
source "$HPC_ROOT/tests/lib.sh"
[ -x "$HPCOLLECT" ] || skip "hpcollect not built yet"
command -v mpirun >/dev/null || skip "mpirun not installed"
command -v chromium >/dev/null || skip "chromium not installed (make deps installs it)"
command -v node >/dev/null || skip "node not installed"
WEB="$HPC_TESTDIR/web"
[ -f "$WEB/installed" ] || skip "puppeteer-core not installed: $(tail -2 "$WEB/npm.log" 2>/dev/null)"
export PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/analyzer"
run() { # run NAME NP PROG ARGS...: the experiment NAME.hpc and its page NAME.html
    local name=$1 np=$2
    shift 2
    OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive mpirun --oversubscribe -np "$np" -x OMP_NUM_THREADS \
        -x OMP_WAIT_POLICY "$HPCOLLECT" -q -p hi -o "$name.hpc" "$@" >"$name.out" ||
        fail "$name: mpirun exit $?"
    "$HPANALYZE" "$name.hpc" export html -o "$name.html" >/dev/null || fail "$name: export html"
}
run slow 2 "$PROGS/mpi/slowrank" 0.4 cpu
run traffic 4 "$PROGS/mpi/traffic"
run hybrid 2 "$PROGS/analyzer/hybrid" 4
run heat 2 "$PROGS/merge/heat_mpi" 256 150
if [ -x "$PROGS/heap/heap_known" ]; then # the heap tracer's section, when it has data
    "$HPCOLLECT" -q -H on -o heap.hpc "$PROGS/heap/heap_known" >heap.out || fail "heap_known: exit $?"
    "$HPANALYZE" heap.hpc export html -o heap.html >/dev/null || fail "heap: export html"
fi
if [ -x "$PROGS/sync/mutex_hold" ]; then # the sync tracer's section, when it has data
    "$HPCOLLECT" -q -s on -o sync.hpc "$PROGS/sync/mutex_hold" >sync.out || fail "mutex_hold: exit $?"
    "$HPANALYZE" sync.hpc export html -o sync.html >/dev/null || fail "sync: export html"
fi

cat >plan.json <<'EOF'
[{"page": "slow.html", "out": "slow", "summary": true, "hover": [{"name": "MPI_Recv", "row": 0}],
  "texts": ["#mpi-bars .bar-text", "section[id^=tracer-]"]},
 {"page": "traffic.html", "out": "traffic", "matrix": true, "hover": [{"name": "MPI_Sendrecv", "row": 0}],
  "tables": ["mpi-calls"]},
 {"page": "hybrid.html", "out": "hybrid", "hover": [{"name": "omp parallel", "row": 0}],
  "counts": [{"name": "omp parallel", "row": 0}, {"name": "MPI_Send", "row": 0},
             {"name": "MPI_Recv", "row": 0}, {"name": "MPI_Allreduce", "row": 0}],
  "texts": ["#omp-bars .label", "#omp-bars .bar-text"]},
 {"page": "heat.html", "out": "heat", "hover": [{"name": "MPI_Allreduce", "row": 0}],
  "flame": [["all", "cpu"], ["p0", "cpu"], ["p1", "cpu"], ["all", "mpi_time"]],
  "search": "source_heat", "sort": "Excl. Total CPU (s)", "messages": true}]
EOF
$SYSPY - <<'PY'
import json, os
plan = json.load(open("plan.json"))
if os.path.exists("sync.html"):
    plan.append({"page": "sync.html", "out": "sync", "summary": True, "tables": ["tracer-sync-objects", "tracer-sync-ranks"]})
if os.path.exists("heap.html"):
    plan.append({"page": "heap.html", "out": "heap", "tables": ["tracer-heap-functions"]})
json.dump(plan, open("plan.json", "w"))
PY
ln -s "$WEB/node_modules" node_modules # ES modules resolve from the script's folder
cp "$HPC_ROOT/tests/web/report.mjs" .
timeout 200 node report.mjs plan.json >pages.json 2>node.err || fail "report.mjs: $(tail -5 node.err)"

$SYSPY - "$HPC_ROOT" <<'PY'
import json, re, sys
from hpctest import check, near
from anatest import js, funcs, page_data

root = sys.argv[1]
pages = {p["page"].split(".")[0]: p for p in json.load(open("pages.json"))}
def lines_of(path, pattern):
    return [i + 1 for i, l in enumerate(open(path)) if re.search(pattern, l)]
def secs(text):  # "2.565 s", "302.582 ms", "12.30 µs" -> seconds
    v, u = re.match(r"([0-9.,]+) (s|ms|µs)$", text.strip()).groups()
    return float(v.replace(",", "")) * {"s": 1, "ms": 1e-3, "µs": 1e-6}[u]
def tip(t):  # "title\nkey: value..." -> {key: value}
    return dict(l.split(": ", 1) for l in t.splitlines()[1:] if ": " in l)
def shown(v):  # the half unit of the last digit fmtS shows: the test's tolerance
    return 5e-4 if v >= 1 else 5e-7 if v >= 1e-3 else 5e-9

# every page: clean console, nothing requested, a row per rank and thread in order
for name, p in pages.items():
    check(not p["console"], f"{name}: no console messages {p['console'][:3]}")
    check(not p["requests"], f"{name}: nothing loaded from elsewhere {p['requests'][:3]}")
    want = []
    for e in js(f"{name}.hpc", "experiment_list")["experiments"]:
        for pr in sorted(e["processes"], key=lambda x: x["rank"]):
            who = f"rank {pr['rank']}" if pr["rank"] >= 0 else pr["name"]
            want += [f"{who} thread {t}" for t in range(pr["threads"])]
    check([r["label"] for r in p["rows"]] == want, f"{name}: a timeline row per rank and thread {[r['label'] for r in p['rows']]}")
    check(name in ("sync", "heap") or p["rows"][0]["items"] > 0, f"{name}: rank 0's main row draws calls")

# slowrank: where the time goes, the MPI_Recv tooltip, the MPI bars
p = pages["slow"]
parts = {(s["rank"], s["part"]): secs(tip(s["tip"])["time"]) for s in p["summary"]}
# the bars leave out the MPI runtime's helper threads (asleep): the main threads' numbers
f1, f0 = [funcs("slow.hpc", "--ranks", r, "--threads", "0")["<Total>"] for r in ("1", "0")]
comp1 = parts.get((1, "compute"), 0)
# a sample weighs the thread's CPU since the one before: the compute phase's first and last
# samples may carry a little of MPI_Init's and MPI_Send's, or give some of it to them
slack = 3 * f1["excl_cpu_s"] / max(1, f1["samples"])
check(comp1 >= 0.4 - slack, f"slow: rank 1 computing {comp1} s, it computed 0.4 s of CPU (slack {slack:.4f} s)")
near(comp1, f1["excl_cpu_s"] - f1["excl_mpi_cpu_s"], shown(comp1), "slow: rank 1 computing = its main thread's CPU outside MPI")
near(parts[(0, "mpi")], f0["excl_mpi_time_s"], shown(parts[(0, "mpi")]), "slow: rank 0's MPI part = its main thread's traced MPI time")
check(parts.get((0, "compute"), 0) < 0.1 * comp1, f"slow: rank 0 hardly computes ({parts.get((0, 'compute'))})")
h = p["hovers"][0]
t = tip(h["tip"])
line = lines_of(f"{root}/tests/mpi/progs/slowrank.c", r"MPI_Recv\(")[0]
check(h["tip"].startswith("MPI_Recv\n") and t.get("peer") == "rank 1" and t.get("bytes received") == "4 B"
      and t.get("call site", "").endswith(f"slowrank.c:{line}"), f"slow: MPI_Recv's tooltip {h}")
rep = js("slow.hpc", "mpi")
recv0 = [c for c in rep["calls"] if c["name"] == "MPI_Recv"][0]
r0 = [r for r in recv0["ranks"] if r["rank"] == 0][0]["time_s"]
d = secs(t["duration"])
check(d >= 0.3, f"slow: rank 0 waited {d} s in MPI_Recv for rank 1's 0.4 s of CPU")
near(d, r0, shown(d), "slow: MPI_Recv's tooltip duration = the mpi report's")
bars = p["texts"]["#mpi-bars .bar-text"]
for r, txt in zip(rep["ranks"], bars):
    m, a = re.match(r"(.+) MPI of (.+) \(", txt).groups()
    near(secs(m), r["mpi_time_s"], shown(r["mpi_time_s"]), f"slow: rank {r['rank']}'s MPI bar")
    near(secs(a), r["app_time_s"], shown(r["app_time_s"]), f"slow: rank {r['rank']}'s AppTime bar")

# a section per tracer: its metrics per rank when recorded, else how to record it
data = page_data("slow.html")
secs_ = {t.split("\n")[0]: t for t in p["texts"]["section[id^=tracer-]"]}
check([t["title"] for t in data["tracers"]] == list(secs_), f"slow: a section per tracer {list(secs_)}")
for t in data["tracers"]:
    used = [data["metrics"][m] for m in t["metrics"] if data["metrics"][m]["total"]]
    text = secs_[t["title"]]
    if used:
        check(all(m["title"] in text for m in used), f"slow: {t['title']}: its metrics per rank")
    else:
        check(f"Not recorded in this experiment. To record it: {t['record']}." in text,
              f"slow: {t['title']}: not recorded, how to record it")

# traffic: the matrix, cell by cell as shown; MPI_Sendrecv's tooltip; spread across ranks
p = pages["traffic"]
want = {}
for r in range(4):
    want[(r, (r + 1) % 4)] = (8, 3000 + 512 + 400 + 64 + 256)
    want[(r, (r + 2) % 4)] = (2, 768 + 2048) if r < 2 else (1, 768)
got = {}
for c in p["matrix"]:
    t = tip(c["tip"])
    got[(c["from"], c["to"])] = (int(t["messages"].replace(",", "")), int(t["bytes"].split()[0].replace(",", "")))
check(len(got) == 16 and all(got[k] == want.get(k, (0, 0)) for k in got), f"traffic: the matrix as shown {sorted(got.items())}")
h = p["hovers"][0]
t = tip(h["tip"])
line = lines_of(f"{root}/tests/mpi/progs/traffic.c", r"MPI_Sendrecv\(")[0]
check(h["tip"].startswith("MPI_Sendrecv\n") and t.get("bytes sent") == "64 B" and t.get("bytes received") == "64 B"
      and t.get("call site", "").endswith(f"traffic.c:{line}"), f"traffic: MPI_Sendrecv's tooltip {h}")
tab = p["tables"]["mpi-calls"]
col = {k: i for i, k in enumerate(tab["head"])}
rep = {c["name"]: c for c in js("traffic.hpc", "mpi")["calls"]}
check(len(tab["rows"]) == len(rep), f"traffic: a row per call ({len(tab['rows'])})")
for row in tab["rows"]:
    c = rep[row[0]]
    ts = [x["time_s"] for x in c["ranks"]]
    for k, v in (("Rank min (s)", min(ts)), ("Rank mean (s)", sum(ts) / len(ts)), ("Rank max (s)", max(ts)),
                 ("COV", c["cov"]), ("Calls", c["calls"])):
        near(float(row[col[k]].replace(",", "")), v, 5e-7 if k != "COV" else 5e-3, f"traffic: {row[0]} {k}")

# hybrid: OpenMP on the timeline and in the bars
p = pages["hybrid"]
n = {c["name"]: c["n"] for c in p["counts"]}
check(n == {"omp parallel": 4, "MPI_Send": 4, "MPI_Recv": 4, "MPI_Allreduce": 4}, f"hybrid: rank 0's main row {n}")
om = js("hybrid.hpc", "omp")
h = p["hovers"][0]
pragma = lines_of(f"{root}/tests/analyzer/progs/hybrid/hybrid.c", r"#pragma omp parallel")[0]
loc = tip(h["tip"]).get("location", "")
check(h["tip"].startswith("omp parallel\n") and re.search(rf"hybrid\.c:({pragma}|{pragma + 1})$", loc),
      f"hybrid: the region's tooltip names its pragma (line {pragma}) {h}")
labels, texts = p["texts"]["#omp-bars .label"], p["texts"]["#omp-bars .bar-text"]
ot = {f"rank {t['rank']} thread {t['thread']}": t for t in om["threads"]}
check(sorted(labels) == sorted(ot), f"hybrid: an OpenMP bar per thread {labels}")
work = {}
for l, txt in zip(labels, texts):
    v = dict((k, float(x)) for k, x in re.findall(r"(\w+) ([0-9.]+) s", txt))
    near(v["work"], ot[l]["omp_work_s"], 5e-4, f"hybrid: {l} work")
    near(v["wait"], ot[l]["omp_wait_s"], 5e-4, f"hybrid: {l} wait")
    work[l] = v["work"]
for r in (0, 1):
    w = max(v for l, v in work.items() if l.startswith(f"rank {r} ") and not l.endswith(" thread 0"))
    # +-2 samples of 1 ms at each end of the 4 regions, and the regions' own start-up
    near(w, 0.08, 0.02, f"hybrid: rank {r}'s worker burned 4 x 20 ms")
    near(work[f"rank {r} thread 0"], 0.04, 0.02, f"hybrid: rank {r}'s master burned 4 x 10 ms")
workers = [i for i, r in enumerate(p["rows"]) if r["role"].startswith("OpenMP")]
check(len(workers) == 2, f"hybrid: one OpenMP worker row per rank {[r['role'] for r in p['rows']]}")

# the demo's solver: a call site, flame graphs per rank, the functions table
p = pages["heat"]
h = p["hovers"][0]
lines = lines_of(f"{root}/examples/heat_mpi.c", r"MPI_Allreduce\(")
site = tip(h["tip"]).get("call site", "")
check(h["tip"].startswith("MPI_Allreduce\n") and any(site.endswith(f"heat_mpi.c:{l}") for l in lines),
      f"heat: MPI_Allreduce's tooltip names its call (lines {lines}) {h}")
for f in p["flame"]:
    args = [] if f["scope"] == "all" else ["--ranks", f["scope"][1:]]
    tot = funcs("heat.hpc", *args)["<Total>"][f"incl_{f['metric']}_s"]
    near(f["total"], tot, 1e-6, f"heat: flame graph of {f['scope']}, {f['metric']}")
fs = p["functions"]
check("source_heat" in fs["after_search"] and all("source_heat" in x for x in fs["after_search"]),
      f"heat: searching the functions {fs['after_search'][:5]}")
cpu = lambda x: float(x.split()[0].replace(",", ""))
a, b = [cpu(x) for x in fs["sorted"]], [cpu(x) for x in fs["sorted_again"]]
check(len(a) > 10 and a == sorted(a, reverse=True) and b == sorted(b) and a[0] > b[0],
      f"heat: the functions sorted by exclusive CPU, down then up {a[:5]} {b[:5]}")
fn = funcs("heat.hpc")
near(a[0], max(x["excl_cpu_s"] for n, x in fn.items() if n != "<Total>"), 5e-4, "heat: the top function's CPU")
PY
if [ -f heap.html ]; then # progs/heap/heap_known (-H on): the heap section's functions
    $SYSPY - <<'PY'
import json
from hpctest import check
p = [x for x in json.load(open("pages.json")) if x["page"] == "heap.html"][0]
check(not p["console"], f"heap: no console messages {p['console'][:3]}")
tab = p["tables"]["tracer-heap-functions"]
check(tab and tab["head"][2] == "Excl. Allocations", f"heap: functions by allocations {tab and tab['head']}")
got = {r[0]: int(r[2].split()[0].replace(",", "")) for r in tab["rows"]}
for fn, n in (("leak_x", 7), ("calloc_z", 3), ("churn_y", 50), ("peak_p", 10), ("produce", 20)):
    check(got.get(fn) == n, f"heap: {fn} allocates {n} blocks (shown {got.get(fn)})")
PY
fi
[ -f sync.html ] || { note "ok: screenshots in $PWD/{slow,traffic,hybrid,heat}/"; exit 0; }

# progs/sync/mutex_hold (-s on; no MPI): the sync section's tables and the summary's part
$SYSPY - <<'PY'
import json
from hpctest import check, near
from anatest import js, funcs, page_data
p = [x for x in json.load(open("pages.json")) if x["page"] == "sync.html"][0]
check(not p["console"], f"sync: no console messages {p['console'][:3]}")
f = open("sync.out").read().split()
addr, truth = f[1], int(f[5]) * 1e-9
rep = {o["name"]: o for o in js("sync.hpc", "syncs")["objects"]}
tab = p["tables"]["tracer-sync-objects"]
col = {k: i for i, k in enumerate(tab["head"])}
row = [r for r in tab["rows"] if r[col["name"]] == "the_lock"]
check(len(row) == 1 and row[0][col["address"]] == addr, f"sync: the_lock at {addr} in the objects table {tab['rows'][:3]}")
shown = float(row[0][col["wait_s"]])
near(shown, rep["the_lock"]["wait_s"], 5e-7, "sync: the_lock's wait time as the syncs report says")
near(shown, truth, 0.05 * truth, "sync: the_lock's wait time = the program's own clock around its lock calls")
check(int(row[0][col["waits"]].replace(",", "")) >= 20, "sync: the_lock's 20 contended waits")
ranks = p["tables"]["tracer-sync-ranks"]
tot = funcs("sync.hpc")["<Total>"]
title = [m["title"] for m in page_data("sync.html")["metrics"] if m["key"] == "sync_wait"][0]
c = ranks["head"].index(title + " (s)")
near(float(ranks["rows"][0][c]), tot["excl_sync_wait_s"], 5e-4, "sync: the section's Sync Wait Time per process")
part = [x for x in p["summary"] if x["part"] == "sync"]
check(len(part) == 1, f"sync: where the time goes has a sync part {[x['part'] for x in p['summary']]}")
t = float(part[0]["tip"].split("time: ")[1].split()[0]) * (1e-3 if " ms" in part[0]["tip"] else 1)
near(t, tot["excl_sync_wait_s"], 5e-4 * max(1, t), "sync: the sync part = the process's Sync Wait Time")
check(t >= truth - 0.005, f"sync: the sync part holds the program's {truth:.4f} s of waiting for the lock")
PY
note "ok: screenshots in $PWD/{slow,traffic,hybrid,heat,sync}/"
