#!/bin/bash
# timeout: 60
# Fortran calls are counted, through both of Open MPI's Fortran bindings: progs/fcount.f90
# (`use mpi`, the mpif.h binding) and progs/f08count.f90 (`use mpi_f08`, IERROR left
# out), 2 ranks each: exact sends, receives and bytes per rank and per call,
# MPI_STATUS(ES)_IGNORE from Fortran, a collective's bytes, call sites in the source.
# Under MPICH (mpiexec.mpich, mpif90.mpich), whose mpif.h binding calls the C functions:
# the same exact counts for progs/fcount.f90; and for progs/f08count.f90 through its
# mpi_f08 binding, whose routines without a choice buffer call MPICH's PMPI_ functions
# (MPI_INIT, MPI_WAITALL with MPI_STATUSES_IGNORE: its receive's source and bytes from
# mpi_f08's status layout, MPI_COMM_SPLIT, MPI_BARRIER: the Fortran wrappers) and those
# with one the C functions (MPI_SEND, MPI_ALLREDUCE: the C wrappers), each call once
# (no nested calls), every call at its line in f08count.f90 (and fcount.f90's calls in
# fcount.f90), not inside MPICH's binding.
source "$HPC_ROOT/tests/lib.sh"
[ -x "$HPCOLLECT" ] || skip "hpcollect not built yet (the collector has not landed)"
[ -f "$HPC_LIB/libhpcollect-mpi.so" ] || skip "lib/libhpcollect-mpi.so not built"
[ -x "$PROGS/mpi/fcount" ] && [ -x "$PROGS/mpi/f08count" ] ||
    skip "no Fortran test programs (mpif90 missing?)"
export PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/mpi"
mpirun --oversubscribe -np 2 "$HPCOLLECT" -q -o f.hpc "$PROGS/mpi/fcount"
mpirun --oversubscribe -np 2 "$HPCOLLECT" -q -o f08.hpc "$PROGS/mpi/f08count"
[ -x "$PROGS/mpi/mpich/fcount" ] || fail "no MPICH Fortran test program (mpif90.mpich missing? make deps)"
mpiexec.mpich -n 2 "$HPCOLLECT" -q -o mpich.hpc "$PROGS/mpi/mpich/fcount"
mpiexec.mpich -n 2 "$HPCOLLECT" -q -o mpich08.hpc "$PROGS/mpi/mpich/f08count"
$SYSPY - <<'PY'
import os
from hpctest import check
from mpitest import *

rep = mpi_report("mpich.hpc")
rk = ranks(rep)
for r in (0, 1):
    expect(rk[r], f"mpich.hpc: rank {r}", mpi_sends=3, mpi_bytes_sent=180, mpi_receives=3,
           mpi_bytes_received=180)
def sites_in(rep, exp, src, names):
    """every call site of these functions is a line of src (not MPICH's binding)"""
    for name in names:
        at = [s["location"] for s in rep["sites"] if s["name"] == name]
        check(at and all(s["file"].endswith(src) for s in rep["sites"] if s["name"] == name),
              f"{exp}: {name} called at {at}, in {src}")
sites_in(rep, "mpich.hpc", "fcount.f90", ("MPI_Send", "MPI_Recv", "MPI_Allreduce", "MPI_Waitall"))
rep = mpi_report("mpich08.hpc")
rk = ranks(rep)
for r in (0, 1):
    expect(rk[r], f"mpich08.hpc: rank {r}", mpi_sends=3, mpi_bytes_sent=180, mpi_receives=3,
           mpi_bytes_received=180, coll_bytes_sent=24, coll_bytes_received=24, nested_calls=0)
    expect(per_rank_call(rep, "MPI_Send")[r], f"mpich08.hpc: rank {r} MPI_SEND", calls=2, sends=2,
           bytes_sent=80)
    expect(per_rank_call(rep, "MPI_Waitall")[r], f"mpich08.hpc: rank {r} MPI_WAITALL", calls=1,
           receives=1, bytes_received=100)
    for name in ("MPI_Comm_split", "MPI_Barrier", "MPI_Comm_free", "MPI_Comm_rank"):
        expect(per_rank_call(rep, name)[r], f"mpich08.hpc: rank {r} {name}", calls=1)
src = open(os.environ["HPC_ROOT"] + "/tests/mpi/progs/f08count.f90").read().split("\n")
lines = {n: next(i + 1 for i, t in enumerate(src) if "call " + n.upper() + "(" in t)
         for n in ("MPI_Comm_rank", "MPI_Waitall", "MPI_Comm_split", "MPI_Barrier")}
sites_in(rep, "mpich08.hpc", "f08count.f90", ("MPI_Send", "MPI_Recv", "MPI_Isend", "MPI_Irecv",
                                              "MPI_Allreduce"))
for s in rep["sites"]:
    if s["name"] in lines:
        check(s["file"].endswith("f08count.f90") and s["line"] == lines[s["name"]],
              f"mpich08.hpc: {s['name']} at {s['location']}, expected f08count.f90:{lines[s['name']]}")
for exp, src in (("f.hpc", "fcount.f90"), ("f08.hpc", "f08count.f90")):
    rep = mpi_report(exp)
    rk = ranks(rep)
    for r in (0, 1):
        expect(rk[r], f"{exp}: rank {r}", mpi_sends=3, mpi_bytes_sent=180, mpi_receives=3,
               mpi_bytes_received=180)
        expect(per_rank_call(rep, "MPI_Send")[r], f"{exp}: rank {r} MPI_SEND", calls=2, sends=2, bytes_sent=80)
        expect(per_rank_call(rep, "MPI_Waitall")[r], f"{exp}: rank {r} MPI_WAITALL", calls=1, receives=1,
               bytes_received=100)
        expect(per_rank_call(rep, "MPI_Allreduce")[r], f"{exp}: rank {r} MPI_ALLREDUCE", calls=1,
               coll_bytes_sent=24, coll_bytes_received=24)
        expect(per_rank_call(rep, "MPI_Comm_split")[r], f"{exp}: rank {r} MPI_COMM_SPLIT", calls=1)
    sends = [s for s in rep["sites"] if s["name"] == "MPI_Send"]
    check(sends and all(s["file"].endswith(src) for s in sends),
          f"{exp}: MPI_SEND call sites in {src}: {[s['location'] for s in sends]}")
    for r in (0, 1):
        calls = records(f"{exp}/rank{r}/t0.hpe", "mpi_call")
        check(calls and all(c["flags"] & 4 for c in calls), f"{exp}: rank {r}: calls flagged Fortran")
PY
