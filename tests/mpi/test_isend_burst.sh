#!/bin/bash
# timeout: 120
# Many small MPI_Isends that complete at once (progs/isend_burst.c: 500 sends of 4 bytes
# from rank 0, completed by MPI_Waitall over 200, MPI_Wait each, MPI_Testall, MPI_Waitsome),
# under Open MPI (which hands out one request handle for all of them) and MPICH: in the
# OTF2 trace every MPI_ISEND has exactly one MPI_ISEND_COMPLETE with its request id, and
# `mpi` counts 500 sends, 2000 bytes, no dropped event. With 3 more Isends never
# completed ("leak"), rank 0 counts exactly 3 events dropped: no completion lost silently.
source "$HPC_ROOT/tests/lib.sh"
[ -x "$HPCOLLECT" ] || skip "hpcollect not built yet (the collector has not landed)"
source "$HPC_ROOT/tests/mpi/mpilibs.sh"
export PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/mpi"
for lib in $MPI_LIBS; do
    mpi_run $lib 2 "$HPCOLLECT" -q -o $lib.hpc "$(mpi_prog $lib isend_burst)"
    "$HPMERGE" -q $lib.hpc || fail "$lib: hpmerge failed"
    otf2-print -Werror $lib.hpc/otf2/traces.otf2 >$lib.otf2.txt || fail "$lib: otf2-print -Werror"
    $SYSPY - $lib <<'PY'
import re, sys
from hpctest import check
from mpitest import *

lib = sys.argv[1]
starts, done = [], []
for line in open(f"{lib}.otf2.txt"):
    w = line.split()
    if len(w) > 1 and w[1] == "0" and w[0] in ("MPI_ISEND", "MPI_ISEND_COMPLETE"):
        rid = int(re.search(r"Request: (\d+)", line).group(1))
        (starts if w[0] == "MPI_ISEND" else done).append(rid)
check(len(starts) == 500, f"{lib}: 500 MPI_ISEND on rank 0, got {len(starts)}")
check(len(done) == 500 and len(set(done)) == 500,
      f"{lib}: 500 distinct MPI_ISEND_COMPLETE on rank 0, got {len(done)} ({len(set(done))} ids)")
check(sorted(starts) == sorted(done), f"{lib}: every MPI_ISEND's request completes once")
rk = ranks(mpi_report(f"{lib}.hpc"))
expect(rk[0], f"{lib}: rank 0", mpi_sends=500, mpi_bytes_sent=2000, events_dropped=0)
expect(rk[1], f"{lib}: rank 1", mpi_receives=500, mpi_bytes_received=2000, events_dropped=0)
PY
    note "ok: $lib: 500 Isends, 500 completions, one each"
    mpi_run $lib 2 "$HPCOLLECT" -q -o $lib-leak.hpc "$(mpi_prog $lib isend_burst)" leak
    check_py "import sys; sys.path.insert(0, '$HPC_ROOT/tests/mpi'); from mpitest import *
rk = ranks(mpi_report('$lib-leak.hpc'))
expect(rk[0], '$lib leak: rank 0', mpi_sends=503, events_dropped=3)
expect(rk[1], '$lib leak: rank 1', mpi_receives=503, events_dropped=0)"
done
