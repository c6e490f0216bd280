#!/usr/bin/python3
"""A/B of two builds of the collector (not a test): the same program under each build's
hpcollect, alternating, RUNS times, at -p on and -p hi (-a off: archiving is not the
collector's cost), with plain runs between; reports each build's median CPU time (user +
system of hpcollect and the program, from wait4) as a ratio to the plain runs.

    bench/collector_ab.py OLD_BIN_DIR NEW_BIN_DIR PROGRAM [RUNS] [UNITS]

An old build: git worktree add --detach /tmp/old REV && make -C /tmp/old lib/libhpcollect.so
bin/hpcollect.
"""
import os
import statistics
import sys
import tempfile

from benchrun import loadavg, run


def main():
    old, new, prog = sys.argv[1], sys.argv[2], os.path.abspath(sys.argv[3])
    runs = int(sys.argv[4]) if len(sys.argv) > 4 else 10
    units = sys.argv[5] if len(sys.argv) > 5 else "150"
    res = {}
    load_before = loadavg()
    with tempfile.TemporaryDirectory() as tmp:
        run([prog, units], tmp)  # warm the page cache
        for i in range(runs):
            res.setdefault("plain", []).append(run([prog, units], tmp))
            for p in ("on", "hi"):
                for tag, bindir in (("old", old), ("new", new)):
                    hpc = os.path.join(os.path.abspath(bindir), "hpcollect")
                    cmd = [hpc, "-q", "-a", "off", "-o", f"{tag}{p}{i}", "-p", p, prog, units]
                    res.setdefault(f"-p {p} {tag}", []).append(run(cmd, tmp))
    print(f"load average {load_before} -> {loadavg()}; {runs} runs each, alternating")
    base = statistics.median(r[1] for r in res["plain"])
    print("| config | CPU s (median) | min | ratio to plain |")
    print("|---|---|---|---|")
    for name, rs in res.items():
        cpu = [r[1] for r in rs]
        print(f"| {name} | {statistics.median(cpu):.3f} | {min(cpu):.3f} | "
              f"{statistics.median(cpu) / base:.4f} |")


if __name__ == "__main__":
    main()
