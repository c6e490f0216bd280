#!/bin/bash
# timeout: 150
# What OTF2 readers see of the demo's MPI + OpenMP solver (examples/heat_mpi.c: 4 ranks x
# 2 threads, 100 steps; per step and rank 2 MPI_Irecv, 2 MPI_Isend, 1 MPI_Waitall, 1
# MPI_Allreduce and 2 parallel regions; the heat sources, source_heat, on rank 0 only).
#   - hybrid trace (the default): every trace passes tests/otf2validate.py (hpmerge-checked);
#     a reader with only Enter/Leave callbacks (tests/enterleave.py; the OTF2 library
#     emulates them from CallingContextEnter/Leave) sees exactly the program's MPI calls
#     and parallel regions, properly nested, on every rank
#   - hpmerge --enter-leave: no calling-context events at all; the Enter/Leave-only reader
#     and the full reader as LLNL's pipit uses it see main on every rank's master thread,
#     source_heat on rank 0 only, and on each thread exactly the functions of the hybrid
#     trace's sampled paths, nested
source "$HPC_ROOT/tests/lib.sh"
[ -x "$HPCOLLECT" ] || skip "hpcollect not built yet"
command -v mpirun >/dev/null || skip "mpirun not installed"
[ -f "$HPC_LIB/libhpcollect-mpi.so" ] || skip "lib/libhpcollect-mpi.so not built"
OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive mpirun --oversubscribe -np 4 -x OMP_NUM_THREADS \
    -x OMP_WAIT_POLICY "$HPCOLLECT" -q -o heat.hpc "$PROGS/merge/heat_mpi" 256 100 >heat.out
"$HPMERGE" -q heat.hpc || fail "hpmerge (hybrid) failed"
cp -r heat.hpc/otf2 hybrid
"$HPMERGE" -q --enter-leave heat.hpc || fail "hpmerge --enter-leave failed"
export PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/merge"
$SYSPY - <<'PY'
import collections
import otf2
from hpctest import check
import enterleave, otf2check

STEPS = 100
per_rank = {"MPI_Irecv": 2 * STEPS, "MPI_Isend": 2 * STEPS, "MPI_Waitall": STEPS,
            "MPI_Allreduce": STEPS, "MPI_Init_thread": 1, "MPI_Finalize": 1}

def by_thread(d):
    return {(loc.group.name, loc.name): evs for loc, evs in d.items()}

# ---- hybrid: what an Enter/Leave-only reader gets through the library's emulation
h = otf2check.read("hybrid/traces.otf2")
check(h.count["CallingContextSample"] > 0 and h.count["Enter"] == 0, "hybrid: samples, no plain Enter")
el = by_thread(enterleave.read("hybrid/traces.otf2"))
for r in range(4):
    iv = enterleave.intervals(el[(f"rank {r}", "thread 0")])
    c = collections.Counter(reg.name for reg, b, e, dep in iv if reg.paradigm != otf2.Paradigm.SAMPLING)
    for name, n in per_rank.items():
        check(c[name] == n, f"hybrid, Enter/Leave reader: rank {r}: {n} {name} (got {c[name]})")
    par = sum(v for k, v in c.items() if k.startswith("#pragma omp parallel @heat_mpi.c:"))
    check(par == 2 * STEPS, f"hybrid, Enter/Leave reader: rank {r}: {2 * STEPS} parallel regions")
    check(not [k for k in c if k == "main"], "hybrid: sampled functions are not regions")

# the functions on each thread's sampled paths, from the hybrid trace
sampled = collections.defaultdict(set)
with otf2.reader.open("hybrid/traces.otf2") as tr:
    for loc, ev in tr.events:
        if type(ev).__name__ == "CallingContextSample":
            cc = ev.calling_context
            while cc is not None:
                if cc.region.paradigm == otf2.Paradigm.SAMPLING:
                    sampled[(loc.group.name, loc.name)].add(cc.region.name)
                cc = cc.parent

# ---- --enter-leave
p = otf2check.read("heat.hpc/otf2/traces.otf2")
cc = sum(p.count[k] for k in ("CallingContextEnter", "CallingContextLeave", "CallingContextSample"))
check(cc == 0 and p.count["Enter"] == p.count["Leave"] > 0, f"--enter-leave: plain Enter/Leave only ({cc} calling-context events)")
check(p.regions["main"] >= 4, "--enter-leave, full reader (as pipit reads): main entered")
el = by_thread(enterleave.read("heat.hpc/otf2/traces.otf2"))
heat_on_0 = False
for key, evs in el.items():
    iv = enterleave.intervals(evs)
    funcs = {reg.name for reg, b, e, dep in iv if reg.paradigm == otf2.Paradigm.SAMPLING}
    check(funcs == sampled[key], f"--enter-leave: {key}: the functions of the sampled paths "
          f"(missing {sorted(sampled[key] - funcs)[:3]}, extra {sorted(funcs - sampled[key])[:3]})")
    if key[1] == "thread 0":
        outer = [reg.name for reg, b, e, dep in iv if dep == 3]
        check("main" in outer, f"--enter-leave: {key}: main below _start/__libc_start_main/__libc_start_call_main")
    c = collections.Counter(reg.name for reg, b, e, dep in iv if reg.paradigm != otf2.Paradigm.SAMPLING)
    if key[1] == "thread 0":
        for name, n in per_rank.items():
            check(c[name] == n, f"--enter-leave: {key}: {n} {name} regions")
    if key[0] != "rank 0":
        check("source_heat" not in funcs, f"--enter-leave: {key}: source_heat only on rank 0")
    heat_on_0 = heat_on_0 or (key[0] == "rank 0" and "source_heat" in funcs)
# (every thread is sampled at least at its end now: MPI's own threads too, without it)
check(heat_on_0, "--enter-leave: source_heat on a thread of rank 0")
PY
