#!/bin/bash
# Sampling throttles itself (collector/sigsafe_throttle.c). deepstack's stacks are 600
# deep (512 unwound): one sample costs far more than a 50 us interval, which without the
# throttle never let a program finish. Under -p 50u, for 0.5 s of CPU, at the default
# share (25%) and at HPCOLLECT_THROTTLE_PCT=10:
#   - the experiment says so: statistics' interval_raised >= 1 (the clock's interval
#     doubled from 50 us), and far fewer samples than 0.5 s / 50 us = 10000;
#   - the handlers kept to their share: thread_end.handler_cpu_ns <= share x the thread's
#     CPU + 10 ms (earnings pay for a sample before it runs: one sample's overshoot);
#   - nothing of the CPU time is lost: skipped signals' time goes into the next sample,
#     so the sampled CPU is the kernel's within 5%.
source "$HPC_ROOT/tests/lib.sh"
PROG="$PROGS/collector/deepstack"
"$HPCOLLECT" -q -a off -p 50u -o d25.hpc "$PROG" 0.5 >d25.out || fail "deepstack -p 50u: $(cat d25.out)"
HPCOLLECT_THROTTLE_PCT=10 "$HPCOLLECT" -q -a off -p 50u -o d10.hpc "$PROG" 0.5 >d10.out ||
    fail "deepstack -p 50u, share 10%: $(cat d10.out)"
for e in d25 d10; do
    "$HPANALYZE" --format json $e.hpc statistics >$e.json || fail "$e: statistics"
done
PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/collector" $SYSPY - <<'PY'
import json
from expdata import load
from hpctest import check
for name, share in (("d25", 25), ("d10", 10)):
    st = json.load(open(name + ".json"))["processes"][0]
    p = load(name + ".hpc").procs["main"]
    check(p.settings["throttle_pct"] == share, f"{name}: settings.throttle_pct {p.settings['throttle_pct']}, want {share}")
    s = st["stats"]
    check(s["interval_raised"] >= 1, f"{name}: interval_raised {s['interval_raised']}: the interval grew")
    check(s["samples"] < 10000 // 4,
          f"{name}: {s['samples']} samples in 0.5 s of CPU at -p 50u: under a quarter of 10000")
    t = p.threads[0]
    cpu, hnd = t.end["cpu_ns"], t.end["handler_cpu_ns"]
    check(hnd > 0, f"{name}: handler_cpu_ns {hnd}")
    check(hnd <= cpu * share / 100 + 10_000_000,
          f"{name}: handlers took {hnd / 1e6:.1f} ms of {cpu / 1e6:.1f} ms: at most {share}% + 10 ms")
    sampled, os_cpu = st["sampled_cpu_s"], st["os_cpu_s"]
    check(abs(sampled - os_cpu) <= 0.05 * os_cpu,
          f"{name}: sampled CPU {sampled:.4f} s, the kernel says {os_cpu:.4f} s (within 5%)")
    print(f"# {name}: {s['samples']} samples, interval raised {s['interval_raised']}x, "
          f"{s['throttled']} skipped, handlers {100 * hnd / cpu:.1f}% of the CPU")
PY
