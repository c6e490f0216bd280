#!/bin/bash
# -t 0.3-0.6: only samples between 0.3 s and 0.6 s after the process started are
# recorded (the others are counted as paused), and limit records mark both ends.
source "$HPC_ROOT/tests/lib.sh"

"$HPCOLLECT" -q -p hi -t 0.3-0.6 -o win "$PROGS/collector/window" 1.0

PYTHONPATH="$HPC_ROOT/tests/collector" $SYSPY - <<'PY'
import json, os, subprocess
from expdata import load, check, DUMP
p = load("win.hpc").procs["main"]
start = p.begin["time"]
times = [json.loads(l)["time"] for l in subprocess.run([DUMP, "win.hpc/main/t0.hpe"],
         capture_output=True, text=True).stdout.splitlines() if '"sample_clock"' in l]
rel = [(t - start) / 1e9 for t in times]
check(rel and min(rel) >= 0.3 and max(rel) < 0.6 + 0.002,
      f"{len(rel)} samples between {min(rel):.4f} s and {max(rel):.4f} s")
check(p.stats["paused"] > 100, f"{p.stats['paused']} samples outside the window")
what = sorted(r["what"] for r in p.all("limit"))
check(what == [2, 3], f"limit records for the window start and end: {what}")
check(p.settings["tstart_ns"] == 300000000 and p.settings["tend_ns"] == 600000000,
      "settings record the window")
PY
