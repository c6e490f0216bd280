#!/bin/bash
# timeout: 60
# Non-MPI programs are unaffected: hpcollect does not preload the MPI wrappers (nor so an
# MPI library) into a program that does not need the MPI library, with or without mpirun
# around it; an MPI program gets them; a program built with an MPI library hpcollect has
# no wrappers for (stand-ins named libmpi.so.20, Open MPI 2's, and libmpi_abi.so, the MPI
# standard ABI's) runs untraced, with a note naming that library, and its mpi report
# names the library whose calls were not traced. The mpi report of a non-MPI experiment
# says there is no MPI data.
source "$HPC_ROOT/tests/lib.sh"
[ -x "$HPCOLLECT" ] || skip "hpcollect not built yet (the collector has not landed)"
[ -f "$HPC_LIB/libhpcollect-mpi.so" ] || skip "lib/libhpcollect-mpi.so not built"
none=$'mpi-wrappers: no\nmpi-library: no'
out=$("$HPCOLLECT" -q -o plain.hpc "$PROGS/mpi/plain")
[ "$out" = "$none" ] || fail "plain program under hpcollect: $out"
out=$(mpirun --oversubscribe -np 2 "$HPCOLLECT" -q -o plain2.hpc "$PROGS/mpi/plain" | sort -u)
[ "$out" = "$(sort -u <<<"$none")" ] || fail "plain program under mpirun + hpcollect: $out"
"$HPANALYZE" plain.hpc mpi | grep -q "No MPI data" || fail "mpi report of a non-MPI experiment"

mkdir other
echo 'int other_mpi_init(void) { return 0; }' >other/fake.c
for so in libmpi.so.20 libmpi_abi.so.0; do
    gcc -shared -fPIC -Wl,-soname,$so -o other/$so other/fake.c
    gcc -o other/prog "$HPC_ROOT/tests/mpi/progs/plain.c" -Wl,--no-as-needed other/$so \
        -Wl,-rpath,"$PWD/other"
    out=$("$HPCOLLECT" -q -o other-$so.hpc other/prog 2>other.err)
    [ "$out" = $'mpi-wrappers: no\nmpi-library: yes' ] || fail "program of another MPI ($so): $out"
    grep -q "loads $so .*which hpcollect has no MPI wrappers for" other.err ||
        fail "no note for another MPI ($so): $(cat other.err)"
    "$HPANALYZE" other-$so.hpc mpi | grep -q "loaded $so, but its MPI calls were not traced" ||
        fail "mpi report of a program of another MPI ($so): $("$HPANALYZE" other-$so.hpc mpi)"
done
grep -q "MPI standard ABI is not supported yet" other.err || fail "libmpi_abi: no reason given"

mpirun --oversubscribe -np 2 "$HPCOLLECT" -q -o mpi.hpc "$PROGS/mpi/pcontrol"
for r in 0 1; do
    grep -q libhpcollect-mpi.so "mpi.hpc/rank$r/process.hpe" ||
        fail "rank $r of an MPI program: libhpcollect-mpi.so not in its load map"
done
note "ok: wrappers only where the MPI library they were built for is"
