#!/bin/bash
# timeout: 60
# The wrapper generator (mpi_wrap/gen_wrappers.py) and what it produced:
#   - the real tables pass the check against Open MPI's mpi.h and MPICH's (which has
#     MPI 4.0's functions and large-count variants), each wrapped function once
#   - a prototype that does not match mpi.h, a function mpi.h has but no table lists,
#     and an unknown directive each stop it with a message naming the file and line
#   - lib/libhpcollect-mpi.so wraps every function the reference lists, and has a
#     Fortran wrapper for every entry of both Fortran bindings of the MPI library (bar
#     MPI_SIZEOF, the _cptr variants and status conversions, which have no C prototype,
#     and MPI_WTIME/WTICK)
#   - the generated files carry no time, host or user: two runs give the same bytes
source "$HPC_ROOT/tests/lib.sh"
[ -f "$HPC_LIB/libhpcollect-mpi.so" ] || skip "lib/libhpcollect-mpi.so not built"
GEN="$HPC_ROOT/mpi_wrap/gen_wrappers.py"
PROTOS="$HPC_ROOT/mpi_wrap/protos"
# decls MPICC: mpi.h of that MPI as mpi_wrap/module.mk gives it to the generator
decls() {
    printf '#include <mpi.h>\nint hpcw_mpi_version_ = MPI_VERSION * 100 + MPI_SUBVERSION;\n' |
        $1 -E -P -DOMPI_OMIT_MPI1_COMPAT_DECLS=0 -x c -
}
decls mpicc >decls.i

$SYSPY "$GEN" --decls decls.i --out a "$PROTOS"/*.txt || fail "the real tables do not pass"
if command -v mpicc.mpich >/dev/null; then
    decls mpicc.mpich >mpich.i
    $SYSPY "$GEN" --decls mpich.i --out m --fortran none "$PROTOS"/*.txt ||
        fail "the real tables do not pass against MPICH's mpi.h"
    for f in MPI_Send_c MPI_Alltoallv_c MPI_Isendrecv MPI_Session_init; do
        [ "$(grep -c "^HPCW_EXPORT int $f(" m/wrappers_c.c)" = 1 ] || fail "MPICH: $f not wrapped once"
    done
    [ -s m/wrappers_f.c ] && grep -q "^HPCW_EXPORT" m/wrappers_f.c && fail "MPICH: Fortran wrappers written"
    grep -q "^HPCW_EXPORT int MPI_Send_c(" a/wrappers_c.c && fail "Open MPI 4: MPI_Send_c wrapped"
    note "ok: tables pass Open MPI's and MPICH's mpi.h"
fi
$SYSPY "$GEN" --decls decls.i --out b "$PROTOS"/*.txt
cmp -s a/wrappers_c.c b/wrappers_c.c && cmp -s a/wrappers_f.c b/wrappers_f.c ||
    fail "two runs of the generator differ"
grep -qE "20[0-9][0-9]-[01][0-9]-|[0-2][0-9]:[0-5][0-9]:[0-5][0-9]" a/*.c a/*.h &&
    fail "generated files carry a date or time"
grep -qw "$(hostname)" a/*.c a/*.h && fail "generated files carry the host name"

# expect_fail NAME MESSAGE: the generator on tables in NAME/ must fail with MESSAGE
expect_fail() {
    if $SYSPY "$GEN" --decls decls.i --out "$1.out" "$1"/*.txt 2>"$1.err"; then
        fail "$1: the generator accepted the broken tables"
    fi
    grep -qF -- "$2" "$1.err" || fail "$1: message lacks '$2': $(cat "$1.err")"
    note "ok: $1: $(head -1 "$1.err")"
}
cp -r "$PROTOS" mismatch
sed -i 's/^int MPI_Send(const void \*buf, int count,/int MPI_Send(const void *buf, long count,/' mismatch/p2p.txt
expect_fail mismatch "p2p.txt:7: MPI_Send does not match mpi.h"
cp -r "$PROTOS" missing
sed -i '/^int MPI_Barrier(MPI_Comm comm)$/,+1d' missing/coll.txt
expect_fail missing "mpi.h declares MPI_Barrier, which no table lists"
cp -r "$PROTOS" baddir
sed -i 's/^    send count=count type=datatype peer=dest tag=tag comm=comm$/    sned count=count/' baddir/p2p.txt
expect_fail baddir "p2p.txt:8: unknown directive 'sned'"

exported=$(nm -D --defined-only "$HPC_LIB/libhpcollect-mpi.so" | awk '{print $3}')
missing=$(grep -v '^#' "$HPC_ROOT/tests/mpi/reference_functions.txt" | while read -r f; do
    grep -qx "$f" <<<"$exported" || echo "$f"; done)
[ -z "$missing" ] || fail "reference functions not wrapped: $missing"
note "ok: all $(grep -vc '^#' "$HPC_ROOT/tests/mpi/reference_functions.txt") reference functions wrapped"

# fortran_missing LIB SUFFIX: entry points mpi_*SUFFIX of LIB (from its pmpi_*SUFFIX) we lack
fortran_missing() {
    nm -D --defined-only "$1" | awk '{print $3}' | grep "^pmpi_.*[^_]$2\$" | sed 's/^p//' |
        grep -vE '^mpi_(sizeof_|wtime_|wtick_|aint_|f_sync_reg_|status_f2f08|status_f082f)|_cptr_|_cptr_f08_$' |
        while read -r f; do grep -qx "$f" <<<"$exported" || echo "$f"; done
}
for spec in "libmpi_mpifh _" "libmpi_usempif08 _f08_"; do
    set -- $spec
    lib=$(ls /usr/lib/x86_64-linux-gnu/$1.so.* 2>/dev/null | head -1)
    [ -n "$lib" ] || continue
    missing=$(fortran_missing "$lib" "$2")
    [ -z "$missing" ] || fail "Fortran bindings of $1 not wrapped: $missing"
    note "ok: every Fortran binding of $lib is wrapped"
done
