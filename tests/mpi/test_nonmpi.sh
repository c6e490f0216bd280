#!/bin/bash
# timeout: 60
# Non-MPI programs are unaffected: hpcollect does not preload the MPI wrappers into a
# program that does not need an MPI library, with or without mpirun around it; an MPI
# program gets them. The mpi report of a non-MPI experiment says there is no MPI data.
source "$HPC_ROOT/tests/lib.sh"
[ -x "$HPCOLLECT" ] || skip "hpcollect not built yet (the collector has not landed)"
[ -f "$HPC_LIB/libhpcollect-mpi.so" ] || skip "lib/libhpcollect-mpi.so not built"
out=$("$HPCOLLECT" -q -o plain.hpc "$PROGS/mpi/plain")
[ "$out" = "mpi-wrappers: no" ] || fail "plain program under hpcollect: $out"
out=$(mpirun --oversubscribe -np 2 "$HPCOLLECT" -q -o plain2.hpc "$PROGS/mpi/plain" | sort -u)
[ "$out" = "mpi-wrappers: no" ] || fail "plain program under mpirun + hpcollect: $out"
"$HPANALYZE" plain.hpc mpi | grep -q "No MPI data" || fail "mpi report of a non-MPI experiment"
mpirun --oversubscribe -np 2 "$HPCOLLECT" -q -o mpi.hpc "$PROGS/mpi/pcontrol"
for r in 0 1; do
    grep -q libhpcollect-mpi.so "mpi.hpc/rank$r/process.hpe" ||
        fail "rank $r of an MPI program: libhpcollect-mpi.so not in its load map"
done
note "ok: wrappers only where MPI is"
