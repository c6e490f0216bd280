#!/bin/bash
# timeout: 60
# MPI_Pcontrol(0) stops collection and MPI_Pcontrol(1) restarts it (progs/pcontrol.c,
# 2 ranks): of 5 x 10 B sent while off and 3 x 1000 B after, only the 3 are recorded;
# both MPI_Pcontrol calls are, with their levels, in order.
source "$HPC_ROOT/tests/lib.sh"
[ -x "$HPCOLLECT" ] || skip "hpcollect not built yet (the collector has not landed)"
[ -f "$HPC_LIB/libhpcollect-mpi.so" ] || skip "lib/libhpcollect-mpi.so not built"
export PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/mpi"
mpirun --oversubscribe -np 2 "$HPCOLLECT" -q -o pc.hpc "$PROGS/mpi/pcontrol"
$SYSPY - <<'PY'
from hpctest import check
from mpitest import *

rep = mpi_report("pc.hpc")
rk = ranks(rep)
expect(rk[0], "rank 0", mpi_sends=3, mpi_bytes_sent=3000, mpi_receives=0)
expect(rk[1], "rank 1", mpi_receives=3, mpi_bytes_received=3000, mpi_sends=0)
expect(per_rank_call(rep, "MPI_Send")[0], "rank 0 MPI_Send", calls=3)
expect(per_rank_call(rep, "MPI_Recv")[1], "rank 1 MPI_Recv", calls=3)
for r in (0, 1):
    levels = [p["level"] for p in records(f"pc.hpc/rank{r}/t0.hpe", "mpi_pcontrol")]
    check(levels == [0, 1], f"rank {r}: mpi_pcontrol levels {levels}")
PY
