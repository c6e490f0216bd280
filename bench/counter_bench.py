#!/usr/bin/python3
"""Counter sampling overhead benchmark (make bench-counters; not a test).

Runs bench/counter_work plain and under hpcollect with counters at their default
intervals (software events: the hardware ones cannot be opened on these machines), and
page-faults also at hi (10x the samples) and lo (a tenth), which separates the cost of
each sample from the kernel's cost of counting every fault,
alternating the configurations RUNS times, and reports per configuration the median
wall time and CPU time (user+system of the program and hpcollect, from wait4) as a ratio
to the plain run, and the counter samples recorded per run. -p off and -S off throughout,
so the ratios show counters alone over the collector's fixed cost ("-h none").

    bench/counter_bench.py BIN_DIR PROGRAM [RUNS] [UNITS]
"""
import os
import statistics
import subprocess
import sys
import tempfile

from benchrun import loadavg, run

CONFIGS = {
    "plain": None,
    "-h none": [],
    "-h page-faults": ["-h", "page-faults"],
    "-h page-faults,hi": ["-h", "page-faults,hi"],
    "-h page-faults,lo": ["-h", "page-faults,lo"],
    "-h context-switches": ["-h", "context-switches"],
    "-h task-clock": ["-h", "task-clock"],
    "-h page-faults,context-switches,cpu-migrations":
        ["-h", "page-faults,context-switches,cpu-migrations"],
}


def counter_samples(exp):
    dump = os.path.join(os.environ.get("HPC_TESTDIR", "build/tests"), "tools", "hpexp-dump")
    out = subprocess.run([dump, exp], capture_output=True, text=True).stdout
    return out.count('"record":"sample_counter"')


def main():
    bindir, prog = sys.argv[1], os.path.abspath(sys.argv[2])
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 15
    units = sys.argv[4] if len(sys.argv) > 4 else "50"
    hpc = os.path.join(os.path.abspath(bindir), "hpcollect")
    res = {k: [] for k in CONFIGS}
    samples = {}
    load_before = loadavg()
    with tempfile.TemporaryDirectory() as tmp:
        run([prog, units], tmp)
        for i in range(runs):
            for k, (name, opts) in enumerate(CONFIGS.items()):
                if opts is None:
                    cmd = [prog, units]
                else:
                    cmd = [hpc, "-q", "-o", f"r{i}_{k}", "-p", "off", "-S", "off"] + opts + [prog, units]
                res[name].append(run(cmd, tmp))
                if opts and i == 0:
                    samples[name] = counter_samples(os.path.join(tmp, f"r{i}_{k}.hpc"))
    base_wall = statistics.median(w for w, _ in res["plain"])
    base_cpu = statistics.median(c for _, c in res["plain"])
    print(f"load average {load_before} -> {loadavg()}; {runs} alternating runs of "
          f"{os.path.basename(prog)} {units}")
    print(f"plain: median wall {base_wall:.3f} s, CPU {base_cpu:.3f} s\n")
    print("| configuration | wall / plain | CPU / plain | counter samples per run |")
    print("|---|---|---|---|")
    for name, r in res.items():
        if name == "plain":
            continue
        wall = statistics.median(w / base_wall for w, _ in r)
        cpu = statistics.median(c / base_cpu for _, c in r)
        print(f"| `{name}` | {wall:.3f} | {cpu:.3f} | {samples.get(name, 0)} |")


if __name__ == "__main__":
    main()
