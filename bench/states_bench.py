#!/usr/bin/python3
"""Thread states' overhead (make bench-states; not a test).

Runs a blocking-heavy program (bench/states_blocking.c: two threads passing a token
over pipes, about 10 000 context switches per second each) and a CPU-bound one
(bench/cpu_bound.c) plain, under `hpcollect -p on` with thread states off
(HPCOLLECT_STATES=0: what -p on was before them), on (the default) and in the fallback
(HPCOLLECT_STATES=2), alternating, RUNS times each. Prints per configuration the median
wall and CPU time (user + system of the whole run, from wait4) as ratios to the plain
run and to states off, and for the blocking program the cost per context switch of the
state accounting: (CPU with states - CPU without) / context switches (the plain run's
voluntary + involuntary, from wait4).

    bench/states_bench.py BIN_DIR BLOCKING CPU_BOUND [RUNS] [ROUNDS] [WORK_US] [UNITS]
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

from benchrun import loadavg


def run(cmd, cwd, env):
    """wall, CPU (user + system) and context switches of one run of cmd."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    if status != 0:
        sys.exit(f"bench: {cmd} failed: status {status}")
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_nvcsw + ru.ru_nivcsw


def main():
    bindir, blocking, cpu_bound = sys.argv[1], os.path.abspath(sys.argv[2]), \
        os.path.abspath(sys.argv[3])
    runs = int(sys.argv[4]) if len(sys.argv) > 4 else 9
    rounds = sys.argv[5] if len(sys.argv) > 5 else "20000"
    work = sys.argv[6] if len(sys.argv) > 6 else "50"
    units = sys.argv[7] if len(sys.argv) > 7 else "40"
    hpc = os.path.join(os.path.abspath(bindir), "hpcollect")
    configs = {"plain": None, "states off": "0", "states on": "1", "call times": "2"}
    programs = {"blocking": [blocking, rounds, work], "cpu-bound": [cpu_bound, units]}
    res = {(p, c): [] for p in programs for c in configs}
    load_before = loadavg()
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(runs):
            for pname, prog in programs.items():
                for cname, states in configs.items():
                    env = dict(os.environ)
                    cmd = prog
                    if states is not None:
                        env["HPCOLLECT_STATES"] = states
                        cmd = [hpc, "-q", "-o", f"r{i}-{pname}-{states}"] + prog
                    res[(pname, cname)].append(run(cmd, tmp, env))
    load_after = loadavg()
    print(f"load average before: {load_before}, after: {load_after}; {runs} runs each, "
          "alternating; medians")
    for pname in programs:
        med = {c: [statistics.median(x[k] for x in res[(pname, c)]) for k in range(3)]
               for c in configs}
        print(f"\n{pname}: {' '.join(programs[pname][1:])}")
        print(f"{'':12} {'wall s':>8} {'CPU s':>8} {'wall/plain':>11} {'wall/off':>9} "
              f"{'CPU/off':>8} {'switches':>9}")
        for c in configs:
            w, cpu, sw = med[c]
            print(f"{c:12} {w:8.3f} {cpu:8.3f} {w / med['plain'][0]:11.3f} "
                  f"{w / med['states off'][0]:9.3f} {cpu / med['states off'][1]:8.3f} {sw:9.0f}")
        sw = med["plain"][2]
        if pname == "blocking" and sw:
            for c in ("states on", "call times"):
                per = (med[c][1] - med["states off"][1]) / sw * 1e6
                print(f"cost per context switch, {c}: {per:.2f} us "
                      f"({sw:.0f} switches, {sw / med['plain'][0]:.0f}/s plain)")


if __name__ == "__main__":
    main()
