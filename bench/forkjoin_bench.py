#!/usr/bin/python3
"""Fork/join cost of an OpenMP parallel region under hpcollect next to a timestamp-only OMPT
tool (make bench-forkjoin; not a test; issue 24: "fork/join within 1.3x of the
timestamp-only OMPT tool's added cost").

    bench/forkjoin_bench.py BIN_DIR OMP_OVERHEAD LIBOMPT_STAMP [ROUNDS] [REGIONS]

Runs `omp_overhead empty REGIONS` (REGIONS empty parallel regions of 2 threads, the
EPCC syncbench PARALLEL case) plain, with bench/ompt_stamp.c as the OMPT tool (its
callbacks read the clock and nothing else), under `hpcollect -p off` (OMPT records, no
clock) and under hpcollect's default (-p on), the four alternating round by round. The
program times its own loop; each configuration's cost per region is its time minus the
plain run's in the same round (the machine's speed drifts between rounds), divided by
REGIONS; the median over rounds, and the ratio of hpcollect's median added cost to the
stamp tool's. stamp-record: the stamp tool storing a 32-byte record per callback in
memory (the least a tool that keeps its events does). The same with 1 thread (`empty1`: no waiting, the callbacks' own CPU).
"""
import glob
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

from benchrun import loadavg


def once(cmd, env, cwd):
    out = subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True, check=True).stdout
    f = out.split()
    return float(f[2]), float(f[4])  # loop seconds (wall), main thread CPU seconds


def instructions(pre, env, prog, regions, tmp):
    """Instructions the program's process executes per empty 1-thread region: callgrind's
    total for 2 x regions minus that for regions, over regions. Independent of the load
    (the wall and CPU times above are not, on a shared 2-core VM)."""
    totals = []
    for n in (regions, 2 * regions):
        for f in glob.glob(f"{tmp}/cg.*"):
            os.unlink(f)
        subprocess.run(["valgrind", "--tool=callgrind", "--trace-children=yes",
                        f"--callgrind-out-file={tmp}/cg.%p"] + pre + [prog, "empty1", str(n)],
                       env=env, cwd=tmp, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       check=True)
        subprocess.run(["rm", "-rf", f"{tmp}/b.hpc"])
        for f in glob.glob(f"{tmp}/cg.*"):
            text = open(f).read()
            if f"cmd: {prog}" in text.replace("cmd:  ", "cmd: "):
                totals.append(int(text.split("\nsummary: ")[1].split()[0]))
    return (totals[1] - totals[0]) / regions


def main():
    hpc = os.path.join(os.path.abspath(sys.argv[1]), "hpcollect")
    prog = os.path.abspath(sys.argv[2])
    stamp = os.path.abspath(sys.argv[3])
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 21
    regions = int(sys.argv[5]) if len(sys.argv) > 5 else 20000
    configs = {
        "plain": ([], {}),
        "stamp": ([], {"OMP_TOOL_LIBRARIES": stamp}),
        "stamp-record": ([], {"OMP_TOOL_LIBRARIES": stamp, "OMPT_STAMP": "record"}),
        "off": ([hpc, "-q", "-a", "off", "-p", "off", "-o", "b.hpc"], {}),
        "on": ([hpc, "-q", "-a", "off", "-o", "b.hpc"], {}),
    }
    loads = [loadavg()]
    with tempfile.TemporaryDirectory() as tmp:
        for mode in ("empty", "empty1"):
            res = {n: [] for n in configs}
            for _ in range(rounds):
                for n, (pre, extra) in configs.items():
                    env = dict(os.environ, **extra)
                    res[n].append(once(pre + [prog, mode, str(regions)], env, tmp))
                    subprocess.run(["rm", "-rf", f"{tmp}/b.hpc"])
            loads.append(loadavg())
            col = 0 if mode == "empty" else 1
            what = "wall" if col == 0 else "main thread CPU"
            print(f"\n`omp_overhead {mode} {regions}` ({2 if mode == 'empty' else 1} "
                  f"thread(s)), {rounds} rounds, {what} of the program's loop:\n")
            print("| config | us per region, median (min-max) | added ns per region, "
                  "median of paired (min-max) | added / stamp tool's |")
            print("|---|---|---|---|")
            added = {}
            for n in configs:
                per = [r[col] / regions * 1e6 for r in res[n]]
                row = f"| {n} | {statistics.median(per):.3f} ({min(per):.3f}-{max(per):.3f}) |"
                if n == "plain":
                    print(row + " | |")
                    continue
                d = [(r[col] - p[col]) / regions * 1e9 for r, p in zip(res[n], res["plain"])]
                added[n] = statistics.median(d)
                ratio = added[n] / added["stamp"] if n != "stamp" and added["stamp"] > 0 else 1.0
                print(f"{row} {added[n]:.0f} ({min(d):.0f}-{max(d):.0f}) | {ratio:.2f} |")
        if shutil.which("valgrind"):
            print(f"\nInstructions per empty 1-thread region (valgrind callgrind, {regions} "
                  f"against {2 * regions} regions; plain, then added):\n")
            print("| config | instructions per region | added | added / stamp tool's |")
            print("|---|---|---|---|")
            base = None
            for n, (pre, extra) in configs.items():
                ins = instructions(pre, dict(os.environ, **extra), prog, regions, tmp)
                if base is None:
                    base = ins
                    print(f"| {n} | {ins:.0f} | | |")
                    continue
                if n == "stamp":
                    stamp_added = ins - base
                print(f"| {n} | {ins:.0f} | {ins - base:.0f} | {(ins - base) / stamp_added:.2f} |")
    print(f"\nLoad average (1, 5, 15 min) at the start and after each mode: {' / '.join(loads)}")


if __name__ == "__main__":
    main()
