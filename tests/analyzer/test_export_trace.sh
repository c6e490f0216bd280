#!/bin/bash
# timeout: 150
# The trace exports of a real MPI + OpenMP job: mpirun -np 2 of progs/hybrid/hybrid.c
# (clang, libomp): per rank 4 parallel regions of 2 threads, 4 MPI_Send, 4 MPI_Recv and 4
# MPI_Allreduce; 8 messages, 4 each way.
#   - chrome: the JSON parses; a track per rank and per thread of each; exactly those MPI
#     slices per rank, "omp parallel" on the master, an implicit task per region on each
#     team member; one flow arrow per message from its send to its receive (right ranks,
#     tags and bytes, send before receive); slices in whole microseconds, nested per
#     thread, names without instance numbers; one entry of the samples array per sample,
#     stacks resolved, weights its CPU time
#   - --ranks: the two ranks partition the total
#   - html: the MPI chart's per-rank MPI and app times are the mpi report's, the OpenMP
#     chart's per-thread work and wait are the omp report's; Chromium loads it cleanly
source "$HPC_ROOT/tests/lib.sh"
[ -x "$HPCOLLECT" ] || skip "hpcollect not built yet (the collector has not landed)"
command -v mpirun >/dev/null || skip "mpirun not installed"
[ -f "$HPC_LIB/libhpcollect-mpi.so" ] || skip "lib/libhpcollect-mpi.so not built"
export PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/analyzer"
mpirun --oversubscribe -np 2 "$HPCOLLECT" -q -p hi -o hy.hpc "$PROGS/analyzer/hybrid" 4 >/dev/null
H=$HPANALYZE
$H hy.hpc export chrome -o trace.json >/dev/null
$H hy.hpc --ranks 1 export chrome -o rank1.json >/dev/null
$H hy.hpc export html -o report.html >/dev/null

$SYSPY - <<'PY'
import collections, json, re
from hpctest import check, near
from anatest import *

d = json.load(open("trace.json"))
ev = d["traceEvents"]
procs = {e["pid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
check(sorted(procs.values()) == ["rank 0", "rank 1"], f"chrome: a track per rank {procs}")
rank_pid = {int(v.split()[1]): k for k, v in procs.items()}
el = {p["name"]: p for e in js("hy.hpc", "experiment_list")["experiments"] for p in e["processes"]}
threads = collections.defaultdict(set)
for e in ev:
    if e["ph"] == "M" and e["name"] == "thread_name":
        threads[e["pid"]].add(e["tid"])
for r in (0, 1):
    check(len(threads[rank_pid[r]]) == el[f"rank{r}"]["threads"],
          f"chrome: rank {r} has a track per thread ({len(threads[rank_pid[r]])})")
X = collections.Counter((e["pid"], e["tid"], e["name"]) for e in ev if e["ph"] == "X")
for r in (0, 1):
    p = rank_pid[r]
    for name, n in (("MPI_Send", 4), ("MPI_Recv", 4), ("MPI_Allreduce", 4), ("MPI_Finalize", 1),
                    ("omp parallel", 4), ("omp implicit task", 4)):
        check(X[(p, 0, name)] == n, f"chrome: rank {r} thread 0: {X[(p, 0, name)]} x {name}, expected {n}")
    check(X[(p, 0, "MPI_Init")] + X[(p, 0, "MPI_Init_thread")] == 1, f"chrome: rank {r} MPI_Init")
    workers = [t for t in threads[p] if t != 0 and X[(p, t, "omp implicit task")]]
    check(len(workers) == 1 and X[(p, workers[0], "omp implicit task")] == 4,
          f"chrome: rank {r}: one OpenMP worker with 4 implicit tasks")
    check(not any(k[0] == p and k[1] != 0 and k[2].startswith("MPI_") for k in X),
          f"chrome: rank {r}: MPI calls only on the main thread")
mpi = [e for e in ev if e["ph"] == "X" and e["cat"] == "MPI"]
check(all(e["dur"] >= 0 and e["ts"] >= 0 for e in mpi), "chrome: slices have ts >= 0, dur >= 0")
sends = [e for e in mpi if e["name"] == "MPI_Send"]
check(all(e["args"]["bytes_sent"] == (1000 if e["pid"] == rank_pid[0] else 2000) for e in sends),
      "chrome: MPI_Send slices carry their bytes")
s = {e["id"]: e for e in ev if e["ph"] == "s"}
f_ = {e["id"]: e for e in ev if e["ph"] == "f"}
check(len(s) == 8 and set(s) == set(f_), f"chrome: 8 flow arrows ({len(s)} starts, {len(f_)} ends)")
for i in s:
    a, b = s[i], f_[i]
    check(a["pid"] != b["pid"] and a["args"]["tag"] == b["args"]["tag"] and
          a["args"]["bytes"] == b["args"]["bytes"] == (1000 if a["pid"] == rank_pid[0] else 2000)
          and a["ts"] <= b["ts"] and b.get("bp") == "e", f"chrome: message {i} {a['pid']}->{b['pid']} tag {a['args']['tag']}")
check(sorted(x["args"]["tag"] for x in s.values()) == [0, 0, 1, 1, 2, 2, 3, 3], "chrome: each round's two messages")
samples = [x for x in d["samples"] if "sf" in x]
fn = funcs("hy.hpc")
check(len(samples) == fn["<Total>"]["samples"] and d["otherData"]["samples_per_event"] == 1,
      f"chrome: one entry of the samples array per sample ({len(samples)})")
sf = d["stackFrames"]
def stack(i):
    out = []
    while i:
        out.append(sf[i]["name"]); i = sf[i].get("parent")
    return out[::-1]
burn = [x for x in samples if stack(x["sf"])[-1] == "burn"]
check(burn and all("main" in stack(x["sf"]) for x in burn), "chrome: samples in burn have stacks main ... burn")
near(sum(x["weight"] for x in burn) / 1e6, fn["burn"]["excl_cpu_s"], 1e-3 + len(burn) * 1e-6,
     "chrome: burn's sample weights add up (s)")
# a sample's weight is the time to the next entry of its thread (an off-CPU marker)
by_thread = collections.defaultdict(list)
for x in d["samples"]:
    by_thread[(x["pid"], x["tid"])].append(x)
check(all(all(a["ts"] <= b["ts"] for a, b in zip(v, v[1:])) for v in by_thread.values()),
      "chrome: samples in time order per thread")
check(all(b["ts"] - a["ts"] == a["weight"] for v in by_thread.values() for a, b in zip(v, v[1:]) if "sf" in a),
      "chrome: each sample lasts its weight, then off-CPU")
# slices: whole microseconds, nested per thread (a child ends no later than its parent)
xs = collections.defaultdict(list)
for e in ev:
    if e["ph"] == "X":
        xs[(e["pid"], e["tid"])].append((e["ts"], e["ts"] + e["dur"], e["name"]))
check(all(isinstance(e["ts"], int) and isinstance(e["dur"], int) for e in ev if e["ph"] == "X"),
      "chrome: slices in whole microseconds")
bad = 0
for v in xs.values():
    v.sort(key=lambda x: (x[0], -x[1]))
    st = []
    for b, e, name in v:
        while st and st[-1] <= b and not (st[-1] == b == e):
            st.pop()
        bad += bool(st and e > st[-1])
        st.append(e)
check(bad == 0, f"chrome: slices nest per thread ({bad} overlaps)")
check(not [e for e in ev if e["ph"] == "X" and re.search(r"[0-9]", e["name"]) and e["cat"] == "OpenMP"],
      "chrome: OpenMP slice names carry no instance numbers")
rt = [js("hy.hpc", "--ranks", str(r), "functions")["functions"][0]["incl_cpu_s"] for r in (0, 1)]
check(min(rt) > 0, f"--ranks: each rank has samples {rt}")
near(sum(rt), fn["<Total>"]["incl_cpu_s"], 1e-9, "--ranks 0 + --ranks 1 = the total")
d1 = json.load(open("rank1.json"))
check({e["args"]["name"] for e in d1["traceEvents"] if e["name"] == "process_name"} == {"rank 1"}
      and not [e for e in d1["traceEvents"] if e["ph"] == "s"], "chrome --ranks 1: rank 1 only, no half messages")

html = open("report.html").read()
rep = js("hy.hpc", "mpi")
ranks = {r["rank"]: r for r in rep["ranks"]}
bars = re.findall(r'<g class="mpi-rank" data-rank="(\d+)" data-app-s="([^"]+)" data-mpi-s="([^"]+)"', html)
check(sorted(int(r) for r, _, _ in bars) == [0, 1], "html: an MPI bar per rank")
for r, app, m in bars:
    near(float(m), ranks[int(r)]["mpi_time_s"], 1e-6, f"html: rank {r} MPI time = the mpi report's")
    near(float(app), ranks[int(r)]["app_time_s"], 1e-6, f"html: rank {r} AppTime = the mpi report's")
om = js("hy.hpc", "omp")
ot = {(t["rank"], t["thread"]): t for t in om["threads"]}
obars = re.findall(r'<g class="omp-thread" data-rank="(\d+)" data-thread="(\d+)" data-work-s="([^"]+)" data-wait-s="([^"]+)"', html)
check(len(obars) >= 4, f"html: OpenMP bars for the team threads ({len(obars)})")
for r, t, w, wt in obars:
    near(float(w), ot[(int(r), int(t))]["omp_work_s"], 1e-6, f"html: rank {r} thread {t} OpenMP work = the omp report's")
    near(float(wt), ot[(int(r), int(t))]["omp_wait_s"], 1e-6, f"html: rank {r} thread {t} OpenMP wait = the omp report's")
PY

command -v chromium >/dev/null || skip "chromium not installed (make deps installs it)"
rm -rf prof
timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$PWD/prof" --enable-logging=stderr --v=0 --window-size=1280,2400 \
    --screenshot="$PWD/report.png" --dump-dom "file://$PWD/report.html" >report.dom 2>chrome.log ||
    fail "chromium: exit $?"
rm -rf prof
if grep CONSOLE chrome.log; then fail "report.html: console messages"; fi
grep -q 'data-ready="1"' report.dom || fail "report.html: the flame graph's script did not run"
[ "$(stat -c %s report.png)" -gt 20000 ] || fail "no screenshot"
note "ok: report.html loads without console messages; screenshot $PWD/report.png"
