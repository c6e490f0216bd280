#!/usr/bin/python3
"""The anchors at 1 ms on the same CPU-bound program (make bench-anchors; not a test).

Runs bench/cpu_bound plain, under `hpcollect -p hi`, under GNU gprofng's
`collect -p hi` and under `perf record -e task-clock -c 1000000 -g` (perf's 1 ms
task-clock with kernel call chains), alternating, RUNS times each. Prints the median wall
and CPU time (user + system of everything the command ran, from wait4) as ratios to the
plain run, and the CPU seconds each tool's own report accounts for (hpanalyze's <Total>,
gprofng's <Total>, perf's task-clock event count), next to the plain run's CPU time:
a low overhead is worth little if the profile does not see the time.

    bench/anchor_bench.py BIN_DIR PROGRAM [RUNS] [UNITS]
"""
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

from benchrun import loadavg, run


def clean(cwd):
    for name in os.listdir(cwd):
        path = os.path.join(cwd, name)
        shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)


def seen_hpcollect(bindir, cwd):
    out = subprocess.run([os.path.join(bindir, "hpanalyze"), "--format", "csv", "x.hpc",
                          "functions"], cwd=cwd, capture_output=True, text=True).stdout
    for line in out.splitlines():
        if "<Total>" in line:
            return float(line.split(",")[2])  # name,module,excl_cpu_s,...
    return float("nan")


def seen_gprofng(cwd):
    out = subprocess.run(["gprofng", "display", "text", "-functions", "x.er"], cwd=cwd,
                         capture_output=True, text=True).stdout
    m = re.search(r"^\s*([0-9.]+)\s+100\.00\s+[0-9.]+\s+100\.00\s+<Total>", out, re.M)
    return float(m.group(1)) if m else float("nan")


def seen_perf(cwd):
    out = subprocess.run(["perf", "report", "-i", "x.data", "--stdio"], cwd=cwd,
                         capture_output=True, text=True).stdout
    m = re.search(r"# Event count \(approx\.\): (\d+)", out)  # task-clock: ns
    return int(m.group(1)) * 1e-9 if m else float("nan")


def main():
    bindir, prog = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    units = sys.argv[4] if len(sys.argv) > 4 else "150"
    hp = os.path.join(bindir, "hpcollect")
    configs = [
        ("plain", [prog, units], None),
        ("hpcollect -p hi", [hp, "-q", "-p", "hi", "-o", "x.hpc", prog, units],
         lambda d: seen_hpcollect(bindir, d)),
        ("gprofng collect -p hi", ["gprofng", "collect", "app", "-p", "hi", "-o", "x.er",
                                   prog, units], seen_gprofng),
        ("perf record -e task-clock -c 1000000 -g",
         ["perf", "record", "-q", "-e", "task-clock", "-c", "1000000", "-g", "-o", "x.data",
          prog, units], seen_perf),
    ]
    times = {name: [] for name, _, _ in configs}
    seen = {name: [] for name, _, _ in configs}
    print("load average before", loadavg())
    with tempfile.TemporaryDirectory() as d:
        for _ in range(runs):
            for name, cmd, measure in configs:
                clean(d)
                times[name].append(run(cmd, d, quiet=True))
                if measure:
                    seen[name].append(measure(d))
    print("load average after", loadavg())
    pw = statistics.median(w for w, _ in times["plain"])
    pc = statistics.median(c for _, c in times["plain"])
    print("| tool | wall s | ratio | CPU s | ratio | CPU s in its profile |")
    print("|---|---|---|---|---|---|")
    for name, _, _ in configs:
        w = statistics.median(x for x, _ in times[name])
        c = statistics.median(y for _, y in times[name])
        s = f"{statistics.median(seen[name]):.3f}" if seen[name] else f"({pc:.3f} used)"
        print(f"| {name} | {w:.3f} | {w / pw:.4f} | {c:.3f} | {c / pc:.4f} | {s} |")


if __name__ == "__main__":
    main()
