#!/usr/bin/python3
"""The sampling throttle's effect (make bench-throttle; not a test).

Runs bench/deep_work (DIVES times a 400-deep recursion with fixed work at its bottom)
plain, under `hpcollect -p hi` (1 ms) and under `hpcollect -p 50u`, alternating, RUNS
times each, and reports the median wall and CPU time (user + system, wait4) of each and
the ratios. Without the throttle a 50 us interval is shorter than one unwind and the
program never finishes; issue 23 asks -p 50u to finish within 2x of -p hi.

    bench/throttle_bench.py BIN_DIR DEEP_WORK [RUNS] [DIVES]
"""
import os
import statistics
import sys
import tempfile

from benchrun import loadavg, run


def main():
    bindir, prog = sys.argv[1], os.path.abspath(sys.argv[2])
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    dives = sys.argv[4] if len(sys.argv) > 4 else "500"
    hpc = os.path.join(os.path.abspath(bindir), "hpcollect")
    setups = {"plain": [], "-p hi": ["-p", "hi"], "-p 50u": ["-p", "50u"]}
    res = {k: [] for k in setups}
    load_before = loadavg()
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(runs):
            for k, opts in setups.items():
                cmd = [prog, dives]
                if opts:
                    cmd = [hpc, "-q", "-a", "off", "-o", f"r{i}{len(opts[1])}"] + opts + cmd
                res[k].append(run(cmd, tmp))
    print(f"runs: {runs} of each, alternating; deep_work {dives} dives of 400 frames; load average before "
          f"{load_before}, after {loadavg()}")
    for i, what in ((0, "wall"), (1, "CPU")):
        med = {k: statistics.median(r[i] for r in v) for k, v in res.items()}
        print(f"{what:5} " + "  ".join(f"{k} {med[k]:.3f} s" for k in res) +
              f"  -p 50u / -p hi {med['-p 50u'] / med['-p hi']:.2f}"
              f"  -p 50u / plain {med['-p 50u'] / med['plain']:.2f}")


if __name__ == "__main__":
    main()
