#!/bin/bash
# timeout: 60
# MPI_THREAD_MULTIPLE (progs/threads.c, 2 ranks x 2 threads, blocking and non-blocking
# exchanges at once): every message of every thread counted exactly, each thread's
# calls among its own records.
source "$HPC_ROOT/tests/lib.sh"
[ -x "$HPCOLLECT" ] || skip "hpcollect not built yet (the collector has not landed)"
[ -f "$HPC_LIB/libhpcollect-mpi.so" ] || skip "lib/libhpcollect-mpi.so not built"
export PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/mpi"
mpirun --oversubscribe -np 2 "$HPCOLLECT" -q -o th.hpc "$PROGS/mpi/threads"
$SYSPY - <<'PY'
from hpctest import check
from mpitest import *

rep = mpi_report("th.hpc")
rk = ranks(rep)
for r in (0, 1):
    expect(rk[r], f"rank {r}", mpi_sends=200, mpi_bytes_sent=9600, mpi_receives=200,
           mpi_bytes_received=9600, events_dropped=0)
    expect(per_rank_call(rep, "MPI_Waitall")[r], f"rank {r} MPI_Waitall", calls=100,
           receives=100, bytes_received=3200)
    per_thread = sorted(len(v) for v in thread_records("th.hpc", f"rank{r}", "mpi_call").values())
    check(per_thread[-2:] == [200, 200], f"rank {r}: 200 calls in each worker's records {per_thread}")
PY
