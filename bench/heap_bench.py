#!/usr/bin/python3
"""Heap tracing overhead (not a test): bench/heap_work.c (N malloc/free pairs across 2
threads) plain, under hpcollect -H on (-p off: the heap tracer alone, and -p on), and
under heaptrack, alternating, RUNS times each. Reports the median CPU time (user +
system of the whole run, from wait4) and wall time, each as a ratio to the plain runs;
the time added per malloc/free pair; hpcollect's bytes written per heap event.

    bench/heap_bench.py BIN_DIR HEAP_WORK [RUNS] [N]
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

from benchrun import loadavg, run


def analyze(bindir, exp, report):
    out = subprocess.run([os.path.join(bindir, "hpanalyze"), "--format", "json", exp, report],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def main():
    bindir, prog = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    n = sys.argv[4] if len(sys.argv) > 4 else "10000000"
    hpc = os.path.join(bindir, "hpcollect")
    heaptrack = shutil.which("heaptrack")
    res = {}
    load_before = loadavg()
    with tempfile.TemporaryDirectory() as tmp:
        run([prog, n], tmp)  # warm the page cache
        for i in range(runs):
            res.setdefault("plain", []).append(run([prog, n], tmp))
            for p in ("off", "on"):
                cmd = [hpc, "-q", "-a", "off", "-p", p, "-H", "on", "-o", f"h{p}{i}", prog, n]
                res.setdefault(f"hpcollect -H on -p {p}", []).append(run(cmd, tmp))
            if heaptrack:
                cmd = [heaptrack, "-o", os.path.join(tmp, f"ht{i}"), prog, n]
                res.setdefault("heaptrack", []).append(run(cmd, tmp, quiet=True))
        print(f"load average {load_before} -> {loadavg()}; {runs} runs each, alternating; "
              f"N = {n} allocations")
        base_cpu = statistics.median(r[1] for r in res["plain"])
        base_wall = statistics.median(r[0] for r in res["plain"])
        print("| config | CPU s (median) | CPU ratio | wall s (median) | wall ratio | "
              "ns added per pair (CPU) |")
        print("|---|---|---|---|---|---|")
        for name, rs in res.items():
            cpu = statistics.median(r[1] for r in rs)
            wall = statistics.median(r[0] for r in rs)
            per = (cpu - base_cpu) * 1e9 / int(n)
            print(f"| {name} | {cpu:.3f} | {cpu / base_cpu:.2f} | {wall:.3f} | "
                  f"{wall / base_wall:.2f} | {per:.0f} |")
        exp = os.path.join(tmp, "hoff0.hpc")
        h = analyze(bindir, exp, "heap")["processes"][0]
        st = analyze(bindir, exp, "statistics")["processes"][0]["stats"]
        events = h["allocs"] + h["frees"]
        print(f"\nhpcollect -H on -p off: {events} heap events, {st['records']} records, "
              f"{st['bytes']} bytes written (call-tree nodes and headers included): "
              f"{st['bytes'] / max(events, 1):.1f} bytes per event")


if __name__ == "__main__":
    main()
