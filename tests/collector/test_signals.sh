#!/bin/bash
# The program's own use of SIGPROF works as without the collector, and the collector's
# samples stay intact:
#  - own_sigprof: its handler runs for kill, raise, sigqueue and tgkill (right si_code),
#    sigaction/signal report its handler back
#  - own_itimer: every expiration of its own ITIMER_PROF (at least 50, counted by
#    getitimer) reaches its handler, and each is a foreign SIGPROF the collector passed on;
#    also with periodic sample points every 10 ms (-S 0.01: their timer's signal)
#  - block_sigprof: blocked SIGPROF for the whole run, still sampled; its raise() is
#    delivered when it unblocks
# Each at -p hi: the sampled CPU is within 3% of the CPU time the kernel accounted.
source "$HPC_ROOT/tests/lib.sh"

for prog in own_sigprof own_itimer block_sigprof; do
    "$HPCOLLECT" -q -p hi -o "$prog" "$PROGS/collector/$prog" >"$prog.out" ||
        fail "$prog failed under hpcollect: $(cat "$prog.out")"
    note "$(cat "$prog.out")"
done
# the periodic points' timer every 10 ms: its signal must not cost the program any of
# its own (a process-directed SIGPROF pending made the kernel drop 20-38 of 50)
"$HPCOLLECT" -q -p hi -S 0.01 -o itimer_points "$PROGS/collector/own_itimer" >itimer_points.out ||
    fail "own_itimer under -S 0.01: $(cat itimer_points.out)"
note "-S 0.01: $(cat itimer_points.out)"

PYTHONPATH="$HPC_ROOT/tests/collector" $SYSPY - <<'PY'
from expdata import load, check
import re
ticks = int(re.search(r"ticks: (\d+) of", open("own_itimer.out").read()).group(1))
expect_foreign = {"own_sigprof": 5, "own_itimer": ticks, "block_sigprof": 2}
for prog, foreign in expect_foreign.items():
    p = load(prog + ".hpc").procs["main"]
    le = p.launcher_exit
    cpu = (le["utime_ns"] + le["stime_ns"]) / 1e9
    sampled = p.sampled_cpu_ns() / 1e9
    check(p.samples() > 300, f"{prog}: {p.samples()} samples")
    check(abs(sampled - cpu) <= 0.03 * cpu,
          f"{prog}: sampled CPU {sampled:.3f} s vs rusage {cpu:.3f} s (within 3%)")
    check(p.stats["foreign_signals"] >= foreign,
          f"{prog}: {p.stats['foreign_signals']} foreign SIGPROFs passed to the program")
    check(p.end and p.end["status"] == 0, f"{prog}: proc_end with status 0")
PY
