#!/bin/bash
# timeout: 120
# Communicator records (progs/comms.c, 4 ranks): every kind of constructor recorded in
# every member with its members' world ranks (and the remote group's for the
# intercommunicator); members agree on the global id, distinct communicators differ;
# MPI_COMM_NULL (rank 0 outside MPI_Comm_create's group) gives no record.
# Clock offsets: every rank measured at MPI_Init and MPI_Finalize; all ranks share one
# host clock here, so the true offset is 0 and the estimate must lie within the
# measurement's own bound, rtt/2 (rank 0 is the reference: 0).
source "$HPC_ROOT/tests/lib.sh"
[ -x "$HPCOLLECT" ] || skip "hpcollect not built yet (the collector has not landed)"
[ -f "$HPC_LIB/libhpcollect-mpi.so" ] || skip "lib/libhpcollect-mpi.so not built"
export PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/mpi"
mpirun --oversubscribe -np 4 "$HPCOLLECT" -q -o comms.hpc "$PROGS/mpi/comms"
$SYSPY - <<'PY'
from collections import defaultdict
from hpctest import check
from mpitest import *

DUP, SPLIT, CREATE, CART, GRAPH, INTER, MERGE = 3, 4, 5, 6, 7, 8, 9
half = lambda r: [0, 1] if r < 2 else [2, 3]
want = {  # per rank: (kind, members, remote) in creation order (WORLD and SELF first)
    r: [(1, [0, 1, 2, 3], []), (2, [r], []), (DUP, [0, 1, 2, 3], []), (SPLIT, half(r), [])]
    + ([(CREATE, [1, 2, 3], [])] if r else [])
    + [(CART, [0, 1, 2, 3], []), (CART, half(r), []), (GRAPH, [0, 1, 2, 3], []),
       (GRAPH, [0, 1, 2, 3], []), (INTER, half(r), half(3 - r)),
       (MERGE, [0, 1, 2, 3], [])]
    for r in range(4)
}
gids = defaultdict(set)
for r in range(4):
    recs = records(f"comms.hpc/rank{r}/process.hpe", "mpi_comm")
    got = [(c["kind"], varints(c["members"]), varints(c["remote"])) for c in recs]
    check(got == want[r], f"rank {r}: communicators (kind, members, remote) {got}")
    for c in recs:
        check(c["rank"] == varints(c["members"]).index(r), f"rank {r}: its rank in comm {c['id']}")
        check(c["gid_seq"] > 0, f"rank {r}: comm {c['id']} has an agreed global id")
        if c["kind"] != 2:  # SELF is each process's own
            everyone = tuple(sorted(varints(c["members"]) + varints(c["remote"])))
            gids[(c["gid_root"], c["gid_seq"])].add((c["kind"], everyone))
# a global id names one communicator: same kind and processes wherever it is recorded
for gid, comms in gids.items():
    check(len(comms) == 1, f"gid {gid} names one communicator: {comms}")
check(len(gids) == 12, f"12 distinct communicators besides SELF: {len(gids)}")

for r in range(4):
    offs = records(f"comms.hpc/rank{r}/process.hpe", "clock_offset")
    check([o["phase"] for o in offs] == [0, 1], f"rank {r}: clock offsets at MPI_Init and MPI_Finalize")
    for o in offs:
        if r == 0:
            check(o["offset_ns"] == 0 and o["rtt_ns"] == 0, "rank 0 is the reference")
        else:
            check(0 < o["rtt_ns"] and abs(o["offset_ns"]) <= o["rtt_ns"] / 2,
                  f"rank {r} phase {o['phase']}: |offset| {abs(o['offset_ns'])} ns <= rtt/2 "
                  f"({o['rtt_ns'] / 2:.0f} ns)")
PY
