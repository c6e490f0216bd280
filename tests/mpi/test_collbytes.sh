#!/bin/bash
# timeout: 120
# Collective bytes follow the documented rule (README.md "MPI numbers", mpi_wrap/coll.c):
# a rank's bytes sent are what its send buffer arguments describe, its bytes received
# what its receive buffer gets. progs/collbytes.c on 3 ranks, under Open MPI and MPICH:
#   MPI_Bcast of 400 bytes from rank 0: rank 0 sent 400, received 0; the others 0 / 400
#   MPI_Alltoall of 40-byte blocks: every rank sent 3 x 40 = 120, received 120
#   MPI_Alltoallv, rank r sends 4(r+1)(j+1) bytes to rank j: sent = received = 24(r+1)
#   MPI_Allgather of 20 bytes (rank 1 MPI_IN_PLACE): sent 20, received 3 x 20 = 60
# in `hpanalyze mpi` (per function, per rank) and in hpmerge's summary.json.
source "$HPC_ROOT/tests/lib.sh"
[ -x "$HPCOLLECT" ] || skip "hpcollect not built yet (the collector has not landed)"
source "$HPC_ROOT/tests/mpi/mpilibs.sh"
export PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/mpi"
for lib in $MPI_LIBS; do
    mpi_run $lib 3 "$HPCOLLECT" -q -o $lib.hpc "$(mpi_prog $lib collbytes)"
    "$HPMERGE" -q $lib.hpc || fail "$lib: hpmerge failed"
    $SYSPY - $lib <<'PY'
import json, sys
from hpctest import check
from mpitest import *

lib = sys.argv[1]
rep = mpi_report(f"{lib}.hpc")
want = {  # function: rank -> (bytes sent, bytes received)
    "MPI_Bcast": {0: (400, 0), 1: (0, 400), 2: (0, 400)},
    "MPI_Alltoall": {r: (120, 120) for r in range(3)},
    "MPI_Alltoallv": {r: (24 * (r + 1), 24 * (r + 1)) for r in range(3)},
    "MPI_Allgather": {r: (20, 60) for r in range(3)},
}
for name, per in want.items():
    got = per_rank_call(rep, name)
    for r, (s, rv) in per.items():
        expect(got.get(r, {}), f"{lib}: {name} on rank {r}", calls=1, coll_bytes_sent=s,
               coll_bytes_received=rv)
summ = json.load(open(f"{lib}.hpc/summary.json"))
calls = {c["call"]: c for c in summ["mpi_calls"]}
for name, per in want.items():
    c = calls[name]
    s = sum(v[0] for v in per.values()); rv = sum(v[1] for v in per.values())
    check((c.get("coll_bytes_sent"), c.get("coll_bytes_received")) == (s, rv),
          f"{lib}: summary.json {name}: collective bytes sent/received {c.get('coll_bytes_sent')}/"
          f"{c.get('coll_bytes_received')}, want {s}/{rv}")
PY
    note "ok: $lib: collective bytes as the rule says"
done
