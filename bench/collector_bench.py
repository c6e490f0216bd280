#!/usr/bin/python3
"""Collector overhead and size benchmark (make bench-collector; not a test).

Runs bench/cpu_bound plain and under `hpcollect -p off|on|hi`,
alternating, RUNS times each, and reports per configuration the median wall time and
CPU time (user+system of the program and hpcollect, from wait4) as a ratio to the plain
run, plus bytes on disk per sample of the main thread's stream (steady stack).

    bench/collector_bench.py BIN_DIR PROGRAM [RUNS] [UNITS] [SIGNAL_FLOOR]

SIGNAL_FLOOR (bench/signal_floor.c) adds three rows: the same perf_event clock with an
empty handler and no collector, at 10 ms and 1 ms: what the kernel alone costs; and the
1 ms event with no signal at all (the timer and overflow alone).
"""
import os
import statistics
import subprocess
import sys
import tempfile

from benchrun import loadavg, run


def main():
    bindir, prog = sys.argv[1], os.path.abspath(sys.argv[2])
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    units = sys.argv[4] if len(sys.argv) > 4 else "40"
    floor = os.path.abspath(sys.argv[5]) if len(sys.argv) > 5 else None
    hpc = os.path.join(os.path.abspath(bindir), "hpcollect")
    # -p off: the launcher and the library without samples (the fixed cost)
    configs = {"plain": [], "-p off": ["-p", "off"], "-p on": ["-p", "on"],
               "-p hi": ["-p", "hi"]}
    if floor:  # the kernel's own cost: same perf event, empty handler, no collector
        configs["floor 10ms"] = ["floor", "10000000"]
        configs["floor 1ms"] = ["floor", "1000000"]
        configs["timer 1ms, no signal"] = ["floor", "1000000", "nosig"]
    res = {k: [] for k in configs}
    load_before = loadavg()
    with tempfile.TemporaryDirectory() as tmp:
        run([prog, units], tmp)  # warm the page cache
        for i in range(runs):
            for name, opts in configs.items():
                if name == "plain":
                    cmd = [prog, units]
                elif opts[0] == "floor":
                    cmd = [floor, opts[1], units] + opts[2:]
                else:
                    cmd = [hpc, "-q", "-o", f"r{i}{opts[1]}"] + opts + [prog, units]
                res[name].append(run(cmd, tmp))
        sizes = {}
        for name, opts in configs.items():
            if name in ("plain", "-p off") or opts[0] == "floor":
                continue
            t0 = os.path.join(tmp, f"r0{opts[1]}.hpc", "main", "t0.hpe")
            dump = os.path.join(os.environ.get("HPC_TESTDIR", "build/tests"), "tools",
                                "hpexp-dump")
            out = subprocess.run([dump, t0], capture_output=True, text=True).stdout
            samples = out.count('"record":"sample_clock"')
            sizes[name] = (os.path.getsize(t0), samples)
    load_after = loadavg()
    base_wall = statistics.median(w for w, _ in res["plain"])
    base_cpu = statistics.median(c for _, c in res["plain"])
    print(f"runs: {runs} of each, alternating; load average before {load_before}, "
          f"after {load_after}")
    print(f"{'config':10} {'wall s':>8} {'ratio':>7} {'cpu s':>8} {'ratio':>7} "
          f"{'samples':>8} {'bytes/sample':>13}")
    for name in configs:
        wall = statistics.median(w for w, _ in res[name])
        cpu = statistics.median(c for _, c in res[name])
        line = (f"{name:10} {wall:8.3f} {wall / base_wall:7.4f} {cpu:8.3f} "
                f"{cpu / base_cpu:7.4f}")
        if name in sizes:
            size, n = sizes[name]
            line += f" {n:8d} {size / max(n, 1):13.1f}"
        print(line)


if __name__ == "__main__":
    main()
