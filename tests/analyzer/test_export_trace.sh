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
#   - html: the page's data carries the mpi and omp reports as they print; each rank's
#     main row has the same MPI and OpenMP slices, unbinned, and the 8 messages (what the
#     page shows in a browser: tests/analyzer/test_html.sh)
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

# html: the page carries the mpi and omp reports as they print, and the timeline's slices
page = page_data("report.html")
check(page["reports"]["mpi"] == js("hy.hpc", "mpi"), "html: the mpi report as `mpi --format json` prints it")
check(page["reports"]["omp"] == js("hy.hpc", "omp"), "html: the omp report as `omp --format json` prints it")
tl = page["timeline"]
row_of = {(r["rank"], r["seq"]): i for i, r in enumerate(page["rows"])}
for r in (0, 1):
    row = [x for x in tl["rows"] if x["r"] == row_of[(r, 0)]][0]
    names = collections.Counter(tl["names"][n] for n in row["nm"])
    for name in ("MPI_Send", "MPI_Recv", "MPI_Allreduce", "omp parallel", "omp implicit task"):
        check(names[name] == 4, f"html: rank {r}'s main row: {names[name]} x {name}, expected 4")
    check(row["bin_ns"] == 0 and row["slices"] == len(row["b"]), "html: every slice kept (no binning)")
check(tl["msgs"]["total"] == 8 and sorted(tl["msgs"]["bytes"]) == [1000] * 4 + [2000] * 4,
      f"html: the 8 messages {tl['msgs']}")
PY
