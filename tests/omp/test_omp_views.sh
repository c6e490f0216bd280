#!/bin/bash
# timeout: 120
# The user, expert and machine views (progs/omp_imbalance.c with roles alternating, so
# both threads work and wait), gcc and clang builds:
#   user     on every thread, the region's work (burn_cpu) and its barrier wait
#            (<OMP-implicit_barrier>) are under main > imbalanced, the function holding
#            the construct; no runtime frames; a worker's time between regions is <OMP-idle>
#   expert   the outlined body is "imbalanced -- OMP parallel region from line N"
#   machine  libomp's frames are visible
source "$HPC_ROOT/tests/lib.sh"
[ -x "$HPCOLLECT" ] || skip "hpcollect not built yet (the collector has not landed)"
export PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/omp" OMP_WAIT_POLICY=active
LINE=$(grep -n "CONSTRUCT imbalanced" "$HPC_ROOT/tests/omp/progs/omp_imbalance.c" | cut -d: -f1)
"$HPCOLLECT" -q -p hi -o gcc.hpc "$PROGS/omp/omp_imbalance" 20 5 alt >/dev/null
"$HPCOLLECT" -q -p hi -o clang.hpc "$PROGS/omp/omp_imbalance.clang" 20 5 alt >/dev/null
$SYSPY - "$LINE" <<'PY'
import sys
from hpctest import check, near
from omptest import *

line = int(sys.argv[1])
for exp in ("gcc.hpc", "clang.hpc"):
    for t in (0, 1):
        nodes = calltree(exp, "user", threads=t)
        tot = total(nodes)
        work = under(nodes, ["main", "imbalanced", "burn_cpu"])
        wait = under(nodes, ["main", "imbalanced", "<OMP-implicit_barrier>"])
        print(f"# {exp} thread {t}: total {tot:.3f} work {work:.3f} wait {wait:.3f}")
        near(work / tot, 0.75, 0.05, f"{exp} thread {t}: burn_cpu under main > imbalanced")
        near(wait / tot, 0.25, 0.05,
             f"{exp} thread {t}: <OMP-implicit_barrier> under main > imbalanced")
        mods = {n["module"] for n in nodes}
        check(not [m for m in mods if m.startswith(("libomp", "libgomp", "libhpcollect"))],
              f"{exp} thread {t}: no runtime frames in the user view ({mods})")
    expert = {n["name"] for n in calltree(exp, "expert")}
    name = f"imbalanced -- OMP parallel region from line {line}"
    check(name in expert, f"{exp}: expert view shows '{name}'")
    machine = calltree(exp, "machine")
    check(any(n["module"].startswith("libomp") for n in machine),
          f"{exp}: machine view shows libomp frames")
    check(not any(n["name"].startswith("<OMP-") for n in machine),
          f"{exp}: machine view has no <OMP-...> pseudo frames")
PY
