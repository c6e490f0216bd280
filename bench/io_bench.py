#!/usr/bin/python3
"""Cost of a traced I/O call (make bench-io; not a test; issue 16's target: at most 150 ns
added per 4 KiB read or write in the page cache).

Runs bench/io_calls (N pwrite + N pread of 4 KiB, and 0 of them) plain, under
`hpcollect -i on` and under `hpcollect -i off` (the same collector, clock profiling at
its default, no I/O tracing), alternating, RUNS times each, and reports the median wall
and CPU times, the ratio of -i on to plain for the 2N calls, and what one call costs more
than plain, ((hpc(N) - hpc(0)) - (plain(N) - plain(0))) / 2N, so that fixed costs drop
out; the same against -i off is the tracer's own share; and the same round by round (each
run against the plain runs of its round, which saw about the same load of a shared
machine): the median and quartiles of the rounds.

OLD_BIN_DIR (environment): `-i on` under that build's hpcollect too ("-i on@old"), in the
same alternation: an A/B of two builds, round by round.

    bench/io_bench.py BIN_DIR PROGRAM [RUNS] [N]
"""
import os
import statistics
import sys
import tempfile

from benchrun import loadavg, run


def main():
    bindir, prog = sys.argv[1], os.path.abspath(sys.argv[2])
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 11
    n = int(sys.argv[4]) if len(sys.argv) > 4 else 200000
    hpc = os.path.join(os.path.abspath(bindir), "hpcollect")
    old = os.environ.get("OLD_BIN_DIR")
    kinds = ("plain", "-i off", "-i on") + (("-i on@old",) if old else ())
    res = {(k, c): [] for k in kinds for c in (0, n)}
    load_before = loadavg()
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(runs):
            for k, c in res:
                cmd = [prog, str(c), os.path.join(tmp, "data")]
                if k != "plain":
                    exe = os.path.join(os.path.abspath(old), "hpcollect") if "@old" in k else hpc
                    cmd = [exe, "-q", "-a", "off", "-i", k.split()[1].split("@")[0], "-O", "r"] + cmd
                res[(k, c)].append(run(cmd, tmp))
    print(f"runs: {runs} of each, alternating; {2 * n} calls (N = {n} pwrite + N pread, "
          f"4 KiB); load average before {load_before}, after {loadavg()}")
    for i, what in ((0, "wall"), (1, "CPU")):
        med = {key: statistics.median(r[i] for r in v) for key, v in res.items()}
        calls = {k: med[(k, n)] - med[(k, 0)] for k in kinds}
        print(f"{what:4}  " + "  ".join(f"{k}: {med[(k, n)]:.4f} s ({calls[k] / (2 * n) * 1e9:.0f} ns/call)"
                                       for k in kinds))
        print(f"{what:4}  -i on / plain over the calls: {calls['-i on'] / calls['plain']:.2f}; "
              f"per call {(calls['-i on'] - calls['plain']) / (2 * n) * 1e9:.0f} ns more than "
              f"plain, {(calls['-i on'] - calls['-i off']) / (2 * n) * 1e9:.0f} ns more than -i off")
        # the same per round (each run against the plain runs of its own round, which saw
        # about the same load): the median and quartiles of the rounds
        for k in kinds[1:]:
            per = sorted(((res[(k, n)][r][i] - res[(k, 0)][r][i]) -
                          (res[("plain", n)][r][i] - res[("plain", 0)][r][i])) / (2 * n) * 1e9
                         for r in range(runs))
            print(f"{what:4}  {k} per call, paired by round: median {statistics.median(per):+.0f} ns, "
                  f"quartiles {per[runs // 4]:+.0f} {per[(3 * runs) // 4]:+.0f}")
        if old:  # the two builds against each other, round by round (adjacent runs)
            per = sorted(((res[("-i on", n)][r][i] - res[("-i on", 0)][r][i]) -
                          (res[("-i on@old", n)][r][i] - res[("-i on@old", 0)][r][i])) / (2 * n) * 1e9
                         for r in range(runs))
            print(f"{what:4}  -i on - -i on@old per call, paired by round: median "
                  f"{statistics.median(per):+.0f} ns, quartiles {per[runs // 4]:+.0f} "
                  f"{per[(3 * runs) // 4]:+.0f}")


if __name__ == "__main__":
    main()
