#!/usr/bin/env python3
"""The sync tracer's overhead (make bench-sync): sync_pairs.c's uncontended lock/unlock
pairs timed by the program itself, plain and under hpcollect -p off with -s off, -s on
(the common case: every pair below the calibrated threshold) and -s all (every lock
recorded with its stack; N/50 pairs), and under gprofng collect -p off -s on and -s all;
runs alternate, medians reported, with the floor (two clock_gettime reads) the program
measures.

Usage: sync_bench.py BINDIR PROG RUNS N
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchrun import loadavg  # noqa: E402


def main():
    bindir, prog = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    runs, n = int(sys.argv[3]), sys.argv[4]
    hp = os.path.join(bindir, "hpcollect")
    gp = shutil.which("gprofng")
    confs = [("plain", []),
             ("hpcollect -p off -s off", [hp, "-q", "-p", "off", "-s", "off"]),
             ("hpcollect -p off -s on", [hp, "-q", "-p", "off", "-s", "on"]),
             ("hpcollect -p off -s all", [hp, "-q", "-p", "off", "-s", "all"])]
    if gp:
        confs += [("gprofng collect -p off -s on", [gp, "collect", "app", "-p", "off", "-s", "on"]),
                  ("gprofng collect -p off -s all", [gp, "collect", "app", "-p", "off", "-s", "all"])]
    res = {c: [] for c, _ in confs}
    floor, tsc = [], []
    print(f"load before: {loadavg()}")
    with tempfile.TemporaryDirectory() as d:
        for r in range(runs):
            for name, pre in confs:
                exp = ["-o", f"r{r}.hpc"] if pre and pre[0] == hp else (
                    ["-O", f"r{r}.er"] if pre else [])
                # every call recorded costs microseconds: fewer of them
                count = str(max(int(n) // 50, 1000)) if "all" in name else n
                out = subprocess.run(pre + exp + [prog, count], cwd=d, capture_output=True,
                                     text=True)
                line = [l for l in out.stdout.split("\n") if l.startswith("pair_ns")]
                if out.returncode or not line:
                    sys.exit(f"{name}: failed: {out.stderr[-500:]}")
                f = line[0].split()
                res[name].append(float(f[1]))
                floor.append(float(f[3]))
                tsc.append(float(f[5]))
                for e in os.listdir(d):
                    shutil.rmtree(os.path.join(d, e), ignore_errors=True)
    print(f"load after: {loadavg()}")
    plain = statistics.median(res["plain"])
    print(f"floor: two clock_gettime(CLOCK_MONOTONIC) reads {statistics.median(floor):.1f} ns, "
          f"one TSC read {statistics.median(tsc):.1f} ns\n")
    print("| configuration | ns per pair (median) | added ns | / plain |")
    print("|---|---|---|---|")
    for name, _ in confs:
        m = statistics.median(res[name])
        print(f"| `{name}` | {m:.1f} | {m - plain:.1f} | {m / plain:.2f} |")


main()
