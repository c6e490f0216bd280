#!/usr/bin/python3
"""The kernel's cost per context switch of a sampled thread (make bench-switch; not a test;
issue 24). Runs bench/switch_floor (two threads pinned to one CPU yielding to each other,
every yield a switch) with each set of per-thread perf events the collector opens, then
under hpcollect (-p on, with and without thread states; -p off) and perf record, alternating,
RUNS rounds; prints the median CPU time per switch and what it adds to the bare switch.

    bench/switch_bench.py BIN_DIR SWITCH_FLOOR [RUNS] [N]
"""
import os
import statistics
import subprocess
import sys
import tempfile

from benchrun import loadavg

MODES = ["none", "count", "clock", "clock+page", "switches", "faults", "all"]


def main():
    hpc = os.path.join(os.path.abspath(sys.argv[1]), "hpcollect")
    prog = os.path.abspath(sys.argv[2])
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    n = sys.argv[4] if len(sys.argv) > 4 else "100000"
    configs = {f"events: {m}": ([prog, n, m], {}) for m in MODES}
    configs["hpcollect -p off"] = ([hpc, "-q", "-o", "off", "-p", "off", prog, n, "none"], {})
    configs["hpcollect -p on, states off"] = ([hpc, "-q", "-o", "nost", prog, n, "none"],
                                              {"HPCOLLECT_STATES": "0"})
    configs["hpcollect -p on"] = ([hpc, "-q", "-o", "on", prog, n, "none"], {})
    configs["perf record -F 100 -g"] = (["perf", "record", "-q", "-F", "100", "-g", "-o",
                                         "p100.data", prog, n, "none"], {})
    configs["perf record -F 1000 -g"] = (["perf", "record", "-q", "-F", "1000", "-g", "-o",
                                          "p1000.data", prog, n, "none"], {})
    res = {k: [] for k in configs}
    loads = [loadavg()]
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(runs):
            for name, (cmd, extra) in configs.items():
                out = subprocess.run(cmd, cwd=tmp, env=dict(os.environ, **extra),
                                     capture_output=True, text=True, check=True).stdout
                res[name].append(float(out.split()[1]))
                subprocess.run(["rm", "-rf", f"{tmp}/off.hpc", f"{tmp}/nost.hpc", f"{tmp}/on.hpc",
                                f"{tmp}/p100.data", f"{tmp}/p1000.data"])
            loads.append(loadavg())
    print(f"switch_floor {n} (2 threads on one CPU, 2 x {n} switches); {runs} rounds, "
          f"alternating; load average after each round: {' / '.join(loads)}")
    base = statistics.median(res["events: none"])
    print("\n| per-thread events | us CPU per switch, median (min-max) | added |")
    print("|---|---|---|")
    for name, xs in res.items():
        m = statistics.median(xs)
        print(f"| {name} | {m:.2f} ({min(xs):.2f}-{max(xs):.2f}) | {m - base:+.2f} |")


if __name__ == "__main__":
    main()
