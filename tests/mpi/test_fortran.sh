#!/bin/bash
# timeout: 60
# Fortran calls are counted (progs/fcount.f90 through Open MPI's `use mpi` binding,
# 2 ranks): exact sends, receives and bytes per rank and per call, MPI_STATUSES_IGNORE
# from Fortran, a collective's bytes, and call sites in the Fortran source.
source "$HPC_ROOT/tests/lib.sh"
[ -x "$HPCOLLECT" ] || skip "hpcollect not built yet (the collector has not landed)"
[ -f "$HPC_LIB/libhpcollect-mpi.so" ] || skip "lib/libhpcollect-mpi.so not built"
[ -x "$PROGS/mpi/fcount" ] || skip "no Fortran test program (mpif90 missing?)"
export PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/mpi"
mpirun --oversubscribe -np 2 "$HPCOLLECT" -q -o f.hpc "$PROGS/mpi/fcount"
$SYSPY - <<'PY'
from hpctest import check
from mpitest import *

rep = mpi_report("f.hpc")
rk = ranks(rep)
for r in (0, 1):
    expect(rk[r], f"rank {r}", mpi_sends=3, mpi_bytes_sent=180, mpi_receives=3,
           mpi_bytes_received=180)
    expect(per_rank_call(rep, "MPI_Send")[r], f"rank {r} MPI_SEND", calls=2, sends=2, bytes_sent=80)
    expect(per_rank_call(rep, "MPI_Waitall")[r], f"rank {r} MPI_WAITALL", calls=1, receives=1,
           bytes_received=100)
    expect(per_rank_call(rep, "MPI_Allreduce")[r], f"rank {r} MPI_ALLREDUCE", calls=1,
           coll_bytes_sent=24, coll_bytes_received=24)
    expect(per_rank_call(rep, "MPI_Comm_split")[r], f"rank {r} MPI_COMM_SPLIT", calls=1)
sends = [s for s in rep["sites"] if s["name"] == "MPI_Send"]
check(sends and all(s["file"].endswith("fcount.f90") for s in sends),
      f"MPI_SEND call sites in fcount.f90: {[s['location'] for s in sends]}")
for r in (0, 1):
    calls = records(f"f.hpc/rank{r}/t0.hpe", "mpi_call")
    check(calls and all(c["flags"] & 4 for c in calls), f"rank {r}: calls flagged Fortran")
PY
