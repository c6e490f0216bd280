#!/bin/bash
# Unwinding trouble is counted, never fatal, and costs no CPU time in the profile:
#  - unwind_fault spins with its stack pointer on an inaccessible page; libunwind's own
#    memory validation turns that into unwind errors (or a fault we recover from)
#  - HPCOLLECT_DEBUG_UNWIND_FAULT=3 faults on purpose in every third unwind: the SIGSEGV
#    is recovered (siglongjmp), a third of the samples count as unwind faults
# Either way every sample is recorded with its weight: sampled CPU within 3% of rusage.
source "$HPC_ROOT/tests/lib.sh"

"$HPCOLLECT" -q -p hi -o bad "$PROGS/collector/unwind_fault" >bad.out ||
    fail "unwind_fault died under hpcollect: $(cat bad.out)"
HPCOLLECT_DEBUG_UNWIND_FAULT=3 "$HPCOLLECT" -q -p hi -o forced "$PROGS/collector/window" 0.5 ||
    fail "window died with forced unwind faults"

PYTHONPATH="$HPC_ROOT/tests/collector" $SYSPY - <<'PY'
from expdata import load, check
for exp in ("bad", "forced"):
    p = load(exp + ".hpc").procs["main"]
    le = p.launcher_exit
    cpu = le["utime_ns"] + le["stime_ns"]
    check(abs(p.sampled_cpu_ns() - cpu) <= 0.03 * cpu,
          f"{exp}: sampled {p.sampled_cpu_ns() / 1e9:.3f} s vs rusage {cpu / 1e9:.3f} s")
bad = load("bad.hpc").procs["main"]
trouble = bad.stats["unwind_faults"] + bad.stats["unwind_errors"]
check(trouble >= 0.9 * bad.samples(), f"bad: {trouble} of {bad.samples()} unwinds in trouble")
forced = load("forced.hpc").procs["main"]
n, faults = forced.samples(), forced.stats["unwind_faults"]
check(abs(faults - n / 3) <= 2, f"forced: {faults} recovered faults in {n} samples")
PY
