# tests/mpi/mpilibs.sh - run a test under every MPI library hpcollect supports (sourced
# after tests/lib.sh). mk/deps.sh installs both, so a missing one fails the test.
#
#   for lib in $MPI_LIBS; do mpi_run $lib 4 "$HPCOLLECT" "$(mpi_prog $lib traffic)"; done

MPI_LIBS="openmpi mpich"

[ -f "$HPC_LIB/libhpcollect-mpi.so" ] || fail "lib/libhpcollect-mpi.so (Open MPI) not built"
[ -f "$HPC_LIB/libhpcollect-mpi-mpich.so" ] ||
    fail "lib/libhpcollect-mpi-mpich.so not built (is mpicc.mpich installed? make deps)"
command -v mpiexec.mpich >/dev/null || fail "mpiexec.mpich not installed (make deps)"

# mpi_run LIB NP COMMAND...: COMMAND on NP ranks under LIB's own launcher (Open MPI's
# mpirun, MPICH's Hydra mpiexec)
mpi_run() {
    local lib=$1 np=$2
    shift 2
    case $lib in
    openmpi) mpirun --oversubscribe -np "$np" "$@" ;;
    mpich) mpiexec.mpich -n "$np" "$@" ;;
    *) fail "mpi_run: unknown MPI library $lib" ;;
    esac
}

# mpi_prog LIB NAME: tests/mpi/progs/NAME.c built against LIB
mpi_prog() {
    case $1 in
    openmpi) echo "$PROGS/mpi/$2" ;;
    *) echo "$PROGS/mpi/$1/$2" ;;
    esac
}
