#!/bin/bash
# -F =REGEX follows only the descendants whose executable (basename) or sub-experiment
# name matches, as gprofng's collect: the others are not recorded, but their own
# descendants still are when they match (as <SUBEXP>.p<pid>). Ground truth: descend
# (fork child and exec'd image, 0.3 s each) and `sh -c spawn` (three spawn processes
# through posix_spawn and system(), 0.2 s each, behind shells that do not match); each
# recorded process is sampled in full: its sampled CPU is the kernel's for it within 5%
# or 3 ms, and that is at least what it burned (the spawn parent spends more: its fork
# for system() and the collector's steps around it, 36 ms once at load 4.5).
source "$HPC_ROOT/tests/lib.sh"

"$HPCOLLECT" -q -p hi -F '=\.f1$' -o lineage "$PROGS/collector/descend" >lineage.out ||
    fail "descend: $(cat lineage.out)"
grep -q "child exit 7" lineage.out || fail "the fork child's status: $(cat lineage.out)"
"$HPCOLLECT" -q -p hi -F '=^spawn$' -o exe sh -c "$PROGS/collector/spawn; true" >exe.out ||
    fail "sh -c spawn: $(cat exe.out)"
grep -qx "spawn 3 system 3" exe.out || fail "statuses: $(cat exe.out)"
"$HPCOLLECT" -q -F '=nothing_matches' -o none sh -c "$PROGS/collector/spawn; true" >/dev/null

for e in lineage exe; do "$HPANALYZE" --format json $e.hpc statistics >$e.json || fail "$e: statistics"; done
PYTHONPATH="$HPC_ROOT/tests/collector" $SYSPY - <<'PY'
import os
from expdata import accounted, load, check
p = load("lineage.hpc").procs
check(sorted(p) == ["main", "main.f1"], f"=\\.f1$: the founder and the fork child only: {sorted(p)}")
accounted("lineage.json", "main.f1", 0.3)
check(p["main"].settings["follow_regex"] == "\\.f1$", "the expression is in the settings")

p = load("exe.hpc").procs
exe = {n: os.path.basename(q.begin["exe"]) for n, q in p.items()}
spawns = sorted(n for n in p if n != "main")
check(exe["main"] in ("sh", "dash", "bash") and len(spawns) == 3 and all(exe[n] == "spawn" for n in spawns),
      f"=^spawn$: the founder sh and three spawn processes, no other shell: {exe}")
for n in spawns:
    accounted("exe.json", n, 0.2)
check(sorted(load("none.hpc").procs) == ["main"], "=nothing_matches: the founder only")
PY
