#!/usr/bin/python3
"""Thread start cost (make bench-threads; not a test).

Runs bench/thread_churn (THREADS threads created and joined, and 0 threads) plain and
under `hpcollect` with default settings, alternating, RUNS times each, and reports the
median wall and CPU time (user + system, wait4) of each, the ratio to plain, and what
one thread costs more than plain: ((hpc(N) - hpc(0)) - (plain(N) - plain(0))) / N, so
the launcher's and the process's fixed costs drop out. The CPU time is the steadier
figure on a shared machine. Then the same per thread for the loop's CPU as the program
measures it, split by who pays: the main thread (pthread_create, pthread_join and its
context switches) and the threads (their start and end).

    bench/thread_bench.py BIN_DIR PROGRAM [RUNS] [THREADS]

OLD_BIN_DIR (environment): the hpcollect of another build too, in the same alternation
(an A/B: git worktree add --detach /tmp/old REV && make -C /tmp/old lib/libhpcollect.so
bin/hpcollect). HPCOLLECT_* settings in the environment reach the collected runs only.
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

from benchrun import loadavg


def run(cmd, cwd, env=None):
    """wall, CPU (wait4), main's and the threads' loop CPU (the program's own line)."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE)
    out = p.stdout.read().decode()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    if status != 0:
        sys.exit(f"bench: {cmd} failed: status {status}")
    f = out.split()
    return wall, ru.ru_utime + ru.ru_stime, float(f[1]), float(f[3])


def main():
    bindir, prog = sys.argv[1], os.path.abspath(sys.argv[2])
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 15
    n = int(sys.argv[4]) if len(sys.argv) > 4 else 1000
    builds = {"hpc": bindir}
    if os.environ.get("OLD_BIN_DIR"):
        builds = {"old": os.environ["OLD_BIN_DIR"], "new": bindir}
    plain_env = {k: v for k, v in os.environ.items() if not k.startswith("HPCOLLECT_")}
    res = {}
    load_before = loadavg()
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(runs):
            for count in ("0", str(n)):
                res.setdefault(("plain", count), []).append(run([prog, count], tmp, plain_env))
                for tag, d in builds.items():
                    hpc = os.path.join(os.path.abspath(d), "hpcollect")
                    cmd = [hpc, "-q", "-a", "off", "-o", f"{tag}{i}_{count}", prog, count]
                    res.setdefault((tag, count), []).append(run(cmd, tmp))
    print(f"runs: {runs} of each, alternating; {n} threads; load average before "
          f"{load_before}, after {loadavg()}")
    names = ("wall", "CPU", "main CPU", "threads CPU")
    for i, what in enumerate(names):
        med = {k: statistics.median(r[i] for r in v) for k, v in res.items()}
        plain = med[("plain", str(n))] - med[("plain", "0")]
        line = f"{what:11} plain {plain / n * 1e6:6.1f} us per thread"
        for tag in builds:
            per = (med[(tag, str(n))] - med[(tag, "0")] - plain) / n
            line += f"; {tag} +{per * 1e6:5.1f} us"
            if i == 1:
                line += f" (ratio {med[(tag, str(n))] / med[('plain', str(n))]:.2f})"
        print(line)


if __name__ == "__main__":
    main()
