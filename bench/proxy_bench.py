#!/usr/bin/python3
"""Overhead on a real OpenMP proxy application (make bench-proxy; not a test; issue 24).

Runs LULESH 2.0 (bench/proxy_build.sh: clang++ -O2 -fopenmp, OMP_NUM_THREADS=2) plain
and under each configuration, alternating round by round, RUNS rounds; reports per
configuration the median and min-max of the wall time, of the CPU time (user + system
of the whole run, from wait4), of the program's own timed loop (LULESH's grind time x
elements x iterations: no start-up, no archiving) and the context switches, each median
as a ratio to the plain runs' median, and the ratio within each round to that round's plain
run (median and min-max over the rounds: the machine's speed drifts between rounds).

    bench/proxy_bench.py BIN_DIR LULESH [RUNS] [SIZE] [ITERS] [CONFIG,...]

CONFIG names (default: plain,off,on,hi,perf100,perf1000): plain; off, on, hi
(hpcollect -p ...); perf100, perf1000 (perf record -F ... -g); and the breakdown's
variants: stamp (the program alone with bench/ompt_stamp.c as its OMPT tool, from
build/bench/libompt_stamp.so: libomp's own cost of running a tool), on-nostates (HPCOLLECT_STATES=0), on-noompt and off-noompt (OMP_TOOL=disabled),
on-nopoints (-S off), hi-nostates. A name ending in @old runs that configuration with the
hpcollect of OLD_BIN_DIR (environment) instead, for an A/B of two builds (an old build:
git worktree add --detach /tmp/old REV && make -C /tmp/old lib/libhpcollect.so bin/hpcollect).
"""
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

from benchrun import loadavg

CONFIGS = {
    "plain": ([], {}),
    "off": (["-p", "off"], {}),
    "on": (["-p", "on"], {}),
    "hi": (["-p", "hi"], {}),
    "on-nostates": (["-p", "on"], {"HPCOLLECT_STATES": "0"}),
    "hi-nostates": (["-p", "hi"], {"HPCOLLECT_STATES": "0"}),
    "on-noompt": (["-p", "on"], {"OMP_TOOL": "disabled"}),
    "off-noompt": (["-p", "off"], {"OMP_TOOL": "disabled"}),
    "on-nopoints": (["-p", "on", "-S", "off"], {}),
    "stamp": ([], {"OMP_TOOL_LIBRARIES": "STAMP"}),
    "stamp-all": ([], {"OMP_TOOL_LIBRARIES": "STAMP", "OMPT_STAMP": "all"}),
    "perf100": (["perf", "100"], {}),
    "perf1000": (["perf", "1000"], {}),
}


def one(cmd, cwd, env):
    """wall, CPU, the program's own loop time and context switches of one run."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    if status != 0:
        sys.exit(f"bench: {cmd} failed: status {status}")
    grind = re.search(r"Grind time \(us/z/c\)\s*=\s*([0-9.]+)", out)
    size = re.search(r"Problem size\s*=\s*(\d+)", out)
    iters = re.search(r"Iteration count\s*=\s*(\d+)", out)
    if not (grind and size and iters):
        sys.exit(f"bench: {cmd}: no grind time in its output")
    loop = float(grind.group(1)) * int(size.group(1)) ** 3 * int(iters.group(1)) / 1e6
    return wall, ru.ru_utime + ru.ru_stime, loop, ru.ru_nvcsw + ru.ru_nivcsw


def fmt(xs, base):
    return f"{statistics.median(xs):.3f} ({min(xs):.3f}-{max(xs):.3f}) | " \
           f"{statistics.median(xs) / base:.3f}"


def main():
    hpc = os.path.join(os.path.abspath(sys.argv[1]), "hpcollect")
    prog = os.path.abspath(sys.argv[2])
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 7
    size = sys.argv[4] if len(sys.argv) > 4 else "30"
    iters = sys.argv[5] if len(sys.argv) > 5 else "50"
    names = (sys.argv[6] if len(sys.argv) > 6 else "plain,off,on,hi,perf100,perf1000").split(",")
    if "plain" not in names:
        names.insert(0, "plain")
    args = [prog, "-s", size, "-i", iters]
    stamp = os.path.join(os.path.dirname(os.path.dirname(prog)), "libompt_stamp.so")
    old = os.path.join(os.path.abspath(os.environ.get("OLD_BIN_DIR", "old-bin-dir-unset")),
                       "hpcollect")
    res = {n: [] for n in names}
    loads = [loadavg()]
    with tempfile.TemporaryDirectory() as tmp:
        env0 = dict(os.environ, OMP_NUM_THREADS="2")
        one(args, tmp, env0)  # warm the page cache
        for i in range(runs):
            for n in names:
                opts, extra = CONFIGS[n.removesuffix("@old")]
                launcher = old if n.endswith("@old") else hpc
                env = dict(env0, **extra)
                if env.get("OMP_TOOL_LIBRARIES") == "STAMP":
                    env["OMP_TOOL_LIBRARIES"] = stamp
                if n == "plain" or n.startswith("stamp"):
                    cmd = args
                elif opts[0] == "perf":
                    cmd = ["perf", "record", "-q", "-F", opts[1], "-g", "-o",
                           f"{tmp}/perf{i}{n}.data", "--"] + args
                else:
                    cmd = [launcher, "-q", "-o", f"{tmp}/r{i}{n}"] + opts + args
                res[n].append(one(cmd, tmp, env))
                subprocess.run(["rm", "-rf", f"{tmp}/r{i}{n}.hpc", f"{tmp}/perf{i}{n}.data"])
            loads.append(loadavg())
    print(f"LULESH 2.0 -s {size} -i {iters}, OMP_NUM_THREADS=2; {runs} rounds, configurations "
          f"alternating; load average (1, 5, 15 min) before and after each round: "
          f"{' / '.join(loads)}")
    base = [statistics.median(r[k] for r in res["plain"]) for k in range(4)]
    print("\n| config | wall s median (min-max) | / plain | CPU s | / plain | "
          "loop s (program's timer) | / plain | switches | / plain |")
    print("|---|---|---|---|---|---|---|---|---|")
    for n in names:
        cols = " | ".join(fmt([r[k] for r in res[n]], base[k]) for k in range(3))
        sw = statistics.median(r[3] for r in res[n])
        print(f"| {n} | {cols} | {sw:.0f} | {sw / base[3]:.2f} |")
    # The machine's speed drifts between rounds by more than the effect (identical plain
    # runs spread 20-30% on this VM even when quiet): the ratio within each round, to the
    # plain run next to it, cancels the drift that medians of the columns above keep.
    print("\nPaired: each round's run over that round's plain run, median (min-max) over rounds\n")
    print("| config | wall / plain | CPU / plain | loop / plain | wall: mean +- 2 standard errors |")
    print("|---|---|---|---|---|")
    for n in names:
        if n == "plain":
            continue
        cols = []
        for k in range(3):
            q = [r[k] / p[k] for r, p in zip(res[n], res["plain"])]
            cols.append(f"{statistics.median(q):.3f} ({min(q):.3f}-{max(q):.3f})")
        q = [r[0] / p[0] for r, p in zip(res[n], res["plain"])]
        se = statistics.stdev(q) / len(q) ** 0.5 if len(q) > 1 else 0.0
        cols.append(f"{statistics.mean(q):.3f} +- {2 * se:.3f}")
        print(f"| {n} | {' | '.join(cols)} |")


if __name__ == "__main__":
    main()
