#!/bin/bash
# -L 1: a program whose every sample has a new deep stack reaches 1 MB quickly;
# recording stops, the program goes on to its end, and the experiment says so (a limit
# record, samples counted as dropped), with the thread stream within the limit.
source "$HPC_ROOT/tests/lib.sh"

"$HPCOLLECT" -q -p hi -L 1 -o lim "$PROGS/collector/deepstack" 1.5 >lim.out ||
    fail "deepstack under -L 1 failed"
grep -qx done lim.out || fail "the program did not go on to its end"
size=$(stat -c %s lim.hpc/main/t0.hpe)
note "t0.hpe: $size bytes"

PYTHONPATH="$HPC_ROOT/tests/collector" SIZE=$size $SYSPY - <<'PY'
import os
from expdata import load, check
p = load("lim.hpc").procs["main"]
limits = p.all("limit")
check(len(limits) == 1 and limits[0]["what"] == 1, f"one size-limit record: {limits}")
check(p.stats["dropped_limit"] > 100, f"{p.stats['dropped_limit']} samples dropped")
check(p.samples() > 10, f"{p.samples()} samples recorded before the limit")
# the budget counts record bytes; the file adds its header and chunk padding
check(int(os.environ["SIZE"]) <= (1 << 20) + 4096, "t0.hpe within 1 MB (+ 4 KiB of padding)")
check(p.settings["size_limit"] == 1 << 20, "settings record the limit")
check(p.end and p.end["status"] == 0, "the program ended normally")
PY
