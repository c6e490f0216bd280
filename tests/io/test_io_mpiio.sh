#!/bin/bash
# timeout: 200
# MPI-IO calls as I/O (-i), under Open MPI and MPICH, against tests/mpi/progs/mpiio.c's
# known calls on 4 ranks: per rank, 2 writes (64 KiB of MPI_BYTE at an explicit offset,
# 8192 MPI_INTs collectively: count x type size), 5 reads (4 of 4 KiB at the individual
# file pointer after a seek, 1 KiB non-blocking), open, sync, seek, close; rank 0's
# failing open and a file opened, closed and deleted. Exact in ioactivity (per file and
# rank: bytes, counts, sequential and consecutive transfers from the byte offsets, the
# file shared by 4) and in functions (each MPI_File_* wrapper its own bytes); the POSIX
# calls the MPI library makes for them are not counted again. In hpmerge's trace each
# rank has an MPI-IO handle on the file with these operations, inside the MPI calls'
# regions, and no POSIX handle on it; the trace passes otf2-print -Werror and
# tests/otf2validate.py, and `mpirun -np 2 hpmerge` writes it byte for byte as the serial
# merge does (the I/O definitions travel between merge ranks: part.c).
source "$HPC_ROOT/tests/lib.sh"
source "$HPC_ROOT/tests/mpi/mpilibs.sh"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" # Open MPI leaks at exit (mpirun hpmerge)
$SYSPY -c 'import otf2' 2>/dev/null || skip "the OTF2 Python reader (python3-otf2) is not installed"
for lib in $MPI_LIBS; do
    mkdir "$lib"
    mpi_run $lib 4 "$HPCOLLECT" -q -i on -o "$lib/job" "$(mpi_prog $lib mpiio)" "$PWD/$lib" ||
        fail "$lib: the job failed under -i on"
    "$HPMERGE" -q "$lib/job.hpc" || fail "$lib: hpmerge failed (or its trace broke the OTF2 rules)"
    otf2-print -Werror "$lib/job.hpc/otf2/traces.otf2" >/dev/null ||
        fail "$lib: otf2-print -Werror refused the trace"
    if [ $lib = openmpi ]; then # a parallel merge writes the same I/O definitions and events
        mv "$lib/job.hpc/otf2" serial.otf2
        mpirun --oversubscribe -np 2 "$HPMERGE" -q "$lib/job.hpc" >pmerge.out 2>&1 ||
            { cat pmerge.out; fail "mpirun -np 2 hpmerge failed"; }
        (cd serial.otf2 && find . -type f ! -name traces.otf2 | sort) >files.serial
        (cd "$lib/job.hpc/otf2" && find . -type f ! -name traces.otf2 | sort) >files.par
        [ -s files.serial ] && cmp files.serial files.par ||
            fail "the parallel merge's archive holds other files"
        while read -r f; do
            cmp "serial.otf2/$f" "$lib/job.hpc/otf2/$f" || fail "parallel merge: $f differs"
        done <files.serial
    fi
    D="$PWD/$lib"
    check_py "
import sys; sys.path.insert(0, '$HPC_ROOT/tests/io')
from iotest import *
KiB, lib, exp = 1024, '$lib', '$lib/job.hpc'
fs = files(exp)
f = fs['$D/mpiio.dat']
ws = [placement([r * 64 * KiB, 256 * KiB + r * 32 * KiB], [64 * KiB, 32 * KiB]) for r in range(4)]
rs = [placement([r * 64 * KiB + i * 4096 for i in range(4)] + [r * 64 * KiB], [4096] * 4 + [1024])
      for r in range(4)]
expect(f, f'{lib}: mpiio.dat', shared=True, write_bytes=4 * 96 * KiB, write_count=8,
       read_bytes=4 * (16 + 1) * KiB, read_count=20, other_count=16,
       write_sequential=sum(s for s, c in ws), write_consecutive=sum(c for s, c in ws),
       read_sequential=sum(s for s, c in rs), read_consecutive=sum(c for s, c in rs))
equal([(p['rank'], p['write_bytes'], p['read_bytes']) for p in f['processes']],
      [(r, 96 * KiB, 17 * KiB) for r in range(4)], f'{lib}: mpiio.dat per rank')
expect(fs['$D/gone.dat'], f'{lib}: gone.dat', other_count=3, write_bytes=0, shared=False)
expect(fs['$D/missing/none'], f'{lib}: the failing open', error_count=1)
for r in range(4):
    fn = functions(exp, '--ranks', str(r))
    expect(fn['MPI_File_write_at'], f'{lib}: MPI_File_write_at on rank {r}',
           excl_iowritecnt=1, excl_iowritebytes=64 * KiB)
    expect(fn['MPI_File_write_at_all'], f'{lib}: MPI_File_write_at_all on rank {r}',
           excl_iowritecnt=1, excl_iowritebytes=32 * KiB)
    expect(fn['MPI_File_read'], f'{lib}: MPI_File_read on rank {r}', excl_ioreadcnt=4,
           excl_ioreadbytes=16 * KiB)
    expect(fn['MPI_File_iread_at'], f'{lib}: MPI_File_iread_at on rank {r}', excl_ioreadcnt=1,
           excl_ioreadbytes=KiB)
    expect(fn['shared_file'], f'{lib}: shared_file (inclusive) on rank {r}',
           incl_iowritebytes=96 * KiB, incl_ioreadbytes=17 * KiB, incl_ioothercnt=4)
hs, regions = trace_io(exp + '/otf2/traces.otf2')
mine = by_file(hs, '$D/mpiio.dat')
equal(sorted(h['paradigm'] for h in mine), ['MPI-IO'] * 4, f'{lib}: mpiio.dat handles')
ops = [('WRITE', 64 * KiB, 64 * KiB, 'MPI_File_write_at'),
       ('WRITE', 32 * KiB, 32 * KiB, 'MPI_File_write_at_all'), ('FLUSH', 0, 0, 'MPI_File_sync')]
ops += [('READ', 4096, 4096, 'MPI_File_read')] * 4 + [('READ', KiB, KiB, 'MPI_File_iread_at')]
for h in mine:
    expect(h, f'{lib}: an MPI-IO handle', creates=1, destroys=1)
    equal([o[:4] for o in h['ops']], ops, f'{lib}: its operations (mode, asked, done, region)')
equal(sorted(len(h['groups']) for h in mine), [1] * 4, f'{lib}: one handle per rank')
"
done
