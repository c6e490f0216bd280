#!/usr/bin/python3
"""Thread start cost (make bench-threads; not a test).

Runs bench/thread_churn (THREADS threads created and joined, and 0 threads) plain and
under `hpcollect` with default settings, alternating, RUNS times each, and reports the
median wall and CPU time (user + system, wait4) of each, the ratio to plain, and what
one thread costs more than plain: ((hpc(N) - hpc(0)) - (plain(N) - plain(0))) / N, so
the launcher's and the process's fixed costs drop out. The CPU time is the steadier
figure on a shared machine.

    bench/thread_bench.py BIN_DIR PROGRAM [RUNS] [THREADS]
"""
import os
import statistics
import sys
import tempfile

from benchrun import loadavg, run


def main():
    bindir, prog = sys.argv[1], os.path.abspath(sys.argv[2])
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 15
    n = int(sys.argv[4]) if len(sys.argv) > 4 else 1000
    hpc = os.path.join(os.path.abspath(bindir), "hpcollect")
    res = {k: [] for k in ("plain 0", "plain N", "hpc 0", "hpc N")}
    load_before = loadavg()
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(runs):
            for k in res:
                count = "0" if k.endswith("0") else str(n)
                cmd = [prog, count]
                if k.startswith("hpc"):
                    cmd = [hpc, "-q", "-a", "off", "-o", f"r{i}{k[-1]}"] + cmd
                res[k].append(run(cmd, tmp))
    print(f"runs: {runs} of each, alternating; {n} threads; load average before "
          f"{load_before}, after {loadavg()}")
    for i, what in ((0, "wall"), (1, "CPU")):
        med = {k: statistics.median(r[i] for r in v) for k, v in res.items()}
        per = ((med["hpc N"] - med["hpc 0"]) - (med["plain N"] - med["plain 0"])) / n
        print(f"{what:5} " + "  ".join(f"{k} {med[k]:.4f} s" for k in res))
        print(f"{what:5} {n} threads: {med['hpc N']:.4f} s under hpcollect, "
              f"{med['plain N']:.4f} s plain (ratio {med['hpc N'] / med['plain N']:.2f}); "
              f"each thread {per * 1e6:.1f} us more than plain")


if __name__ == "__main__":
    main()
