#!/bin/bash
# timeout: 120
# 1000 short threads (50 alive at a time), then 200 alive at once, then 100 with only
# 40 file descriptors (a thread's clock and stream keep none): no crash, every thread in
# the experiment (streams are reused by later threads: each thread's records are read
# from its own thread_begin on), thread_begin/thread_end, samples whose weights add up
# to its CPU time (thread_end = sampled + tail after the last sample), and that CPU at
# least what it burned.
source "$HPC_ROOT/tests/lib.sh"

"$HPCOLLECT" -q -p 0.5 -o many "$PROGS/collector/threads" 1000 50 2 >many.out ||
    fail "threads 1000 50 2: $(cat many.out)"
"$HPCOLLECT" -q -p 0.5 -o wide "$PROGS/collector/threads" 200 200 5 >wide.out ||
    fail "threads 200 200 5: $(cat wide.out)"
# few descriptors
(ulimit -n 40 && "$HPCOLLECT" -q -p 0.5 -o lowfd "$PROGS/collector/threads" 100 50 5 >lowfd.out) ||
    fail "threads 100 50 5 with ulimit -n 40: $(cat lowfd.out)"

PYTHONPATH="$HPC_ROOT/tests/collector" $SYSPY - <<'PY'
from expdata import load, check, fail
for exp, n, ms in (("many", 1000, 2.0), ("wide", 200, 5.0), ("lowfd", 100, 5.0)):
    e = load(exp + ".hpc")
    check(not e.damage, f"{exp}: no damage reported")
    p = e.procs["main"]
    check(sorted(p.threads) == list(range(n + 1)), f"{exp}: streams t0..t{n}")
    bad = []
    for seq in range(1, n + 1):
        t = p.threads[seq]
        if not t.begin or not t.end or t.begin["parent_seq"] != 0:
            bad.append(f"t{seq}: begin/end missing")
            continue
        if t.samples < 1 and t.begin["clock_source"] == 1:
            bad.append(f"t{seq}: no samples")
            continue
        total = t.end["cpu_ns"]
        accounted = t.cpu_ns + t.end["tail_cpu_ns"]
        if accounted > total:
            bad.append(f"t{seq}: sampled {t.cpu_ns} + tail {t.end['tail_cpu_ns']} vs {total}")
        # (no upper bound: on a loaded machine kernel work in the thread, such as TLB
        # shootdowns waiting for busy CPUs, is CPU time too)
        if accounted < 0.95 * ms * 1e6:
            bad.append(f"t{seq}: sampled + tail {accounted / 1e6:.2f} ms, burned {ms} ms")
    if bad:
        fail(f"{exp}: {len(bad)} threads wrong, e.g. " + "; ".join(bad[:5]))
    check(True, f"{exp}: all {n} threads with begin, end and samples; weights add up")
    check(p.end["nthreads"] == n + 1, f"{exp}: proc_end counts {p.end['nthreads']} threads")
PY
