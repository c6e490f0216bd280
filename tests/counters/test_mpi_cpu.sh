#!/bin/bash
# timeout: 120
# The sampled MPI metric (mpi_cpu, "MPI CPU"): clock samples taken inside MPI calls carry
# HPC_STATE_MPI, and their CPU time is a metric of its own, inclusive in the callers of
# the MPI call. tests/mpi/progs/slowrank.c, 2 ranks: rank 0 waits in MPI_Recv (Open MPI
# polls, so on the CPU) while rank 1 computes for 0.6 s of CPU time, then sends. So rank
# 0's main() has nearly all its CPU time as MPI CPU, rank 1's main() nearly none; the
# `mpi` alias selects the metric, and it is shown by default in an MPI experiment.
# (CPU time, not wall time: on a loaded machine 0.6 s of wall time may hold less
# computing than MPI_Init and MPI_Finalize take, which is MPI CPU.)
source "$HPC_ROOT/tests/lib.sh"
[ -f "$HPC_LIB/libhpcollect-mpi.so" ] || skip "lib/libhpcollect-mpi.so not built"
mpirun --oversubscribe -np 2 "$HPCOLLECT" -q -S off -p hi -o m.hpc "$PROGS/mpi/slowrank" 0.6 cpu ||
    fail "slowrank under hpcollect"

PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/counters" $SYSPY - <<'PY'
from ctrtest import *
r0 = functions("m.hpc", "--ranks", "0")["main"]
r1 = functions("m.hpc", "--ranks", "1")["main"]
print(f"# rank 0 main: cpu {r0['incl_cpu_s']:.3f} s, MPI CPU {r0['incl_mpi_cpu_s']:.3f} s; "
      f"rank 1 main: cpu {r1['incl_cpu_s']:.3f} s, MPI CPU {r1['incl_mpi_cpu_s']:.3f} s")
# sampled shares: 80% and 20% with 5 binomial standard deviations for main's samples
lo, hi = 0.8 - share_tol(0.8, r0["incl_samples"]), 0.2 + share_tol(0.2, r1["incl_samples"])
check(r0["incl_mpi_cpu_s"] >= lo * r0["incl_cpu_s"],
      f"rank 0: its waiting CPU time is MPI CPU (>= {100 * lo:.1f}% of {r0['incl_samples']} samples)")
check(r1["incl_mpi_cpu_s"] <= hi * r1["incl_cpu_s"],
      f"rank 1: computing is not MPI CPU (<= {100 * hi:.1f}% of {r1['incl_samples']} samples)")
check(r0["excl_mpi_cpu_s"] == 0, "main() itself has no exclusive MPI CPU: it is in the MPI library")
text = analyze("m.hpc", "functions", fmt="text")
check("Excl. MPI" in text and "Incl. MPI" in text, "MPI CPU shown by default in an MPI experiment")
csv = analyze("m.hpc", "metrics", "i.mpi", "functions", fmt="csv")
header = [l for l in csv.splitlines() if l.startswith("name,")][0].split(",")
check("incl_mpi_cpu_s" in header and "excl_cpu_s" not in header, f"metrics i.mpi: {header}")
PY
