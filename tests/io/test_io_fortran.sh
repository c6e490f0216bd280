#!/bin/bash
# timeout: 200
# MPI-IO from Fortran as I/O (-i), exactly as from C (tests/io/test_io_mpiio.sh): 4 ranks
# of tests/mpi/progs/fio.f90 (`use mpi`, the mpif.h binding) under Open MPI and MPICH, and
# of f08io.f90 (`use mpi_f08`) under both. Per rank, on fio.dat (its name passed
# blank-padded): 3 x 4 KiB MPI_FILE_WRITE_AT and MPI_FILE_READ_AT at (3R + i) * 4 KiB,
# 8 KiB of MPI_INTEGERs by MPI_FILE_WRITE_AT_ALL / READ_AT_ALL at 48 KiB + R * 8 KiB, a
# 1 KiB MPI_FILE_IREAD_AT, and through a view displaced to 80 KiB + R * 2 KiB an
# individual-pointer MPI_FILE_WRITE and MPI_FILE_READ of 256 doubles; on shared.dat the
# shared file pointer's WRITE_ORDERED (MPI_STATUS_IGNORE), WRITE_SHARED (rank 0), SEEK_SHARED and
# READ_ORDERED (offset unknown: -1) and a split collective READ_ALL_BEGIN at byte 0. Exact:
# each rank's MPI-IO operations on each file in order (kind, bytes asked and done, byte
# offset), the
# file in ioactivity (bytes, counts, sequential and consecutive transfers, shared by 4,
# per rank) and iodetail (one MPI-IO handle per rank, opened at the MPI_FILE_OPEN line of
# the source), each MPI_FILE_* function's own bytes and counts per rank, the failing open
# of missing/none (1 error, named) and gone.dat (open, close, delete). Open MPI's Fortran
# bindings call the C PMPI_ functions, MPICH's mpif.h binding the C MPI_ ones, its mpi_f08
# binding the C MPI_ ones for routines with a buffer (transfers) and PMPI_ ones for the
# others (open, close, seek: its Fortran wrappers): either way the bytes count once; each
# wrapper is shown under one name (mpi_file_write_at_ for Open MPI's mpif.h binding,
# mpi_file_write_at_f08_ for its mpi_f08, MPI_File_write_at for MPICH's, and
# mpi_file_open_f08_ for MPICH's mpi_f08 open), never another of its spellings.
source "$HPC_ROOT/tests/lib.sh"
source "$HPC_ROOT/tests/mpi/mpilibs.sh"
[ -x "$PROGS/mpi/fio" ] && [ -x "$PROGS/mpi/f08io" ] ||
    fail "no Fortran test programs (mpif90 missing? make deps)"
[ -x "$PROGS/mpi/mpich/fio" ] || fail "no MPICH Fortran test program (mpif90.mpich missing? make deps)"
[ -x "$PROGS/mpi/mpich/f08io" ] || fail "no MPICH mpi_f08 test program (mpif90.mpich missing? make deps)"
RUNS="openmpi:fio openmpi:f08io mpich:fio mpich:f08io"
for run in $RUNS; do
    lib=${run%%:*} prog=${run#*:}
    mkdir "$lib-$prog"
    mpi_run $lib 4 "$HPCOLLECT" -q -i on -o "$lib-$prog/job" "$(mpi_prog $lib $prog)" \
        "$PWD/$lib-$prog" || fail "$lib: $prog failed under -i on"
done
check_py "
import json, re, subprocess, sys
sys.path[:0] = ['$HPC_ROOT/tests/io', '$HPC_ROOT/tests/mpi']
from hpctest import analyze
from iotest import *
from mpitest import DUMP
KiB = 1024
ids = re.findall(r'^HPC_IO_FN\((\w+)', open('$HPC_ROOT/experiment/io_fns.def').read(), re.M)
FN = {n: i + 1 for i, n in enumerate(ids)}

def open_line(prog):
    '''the line of prog's source that opens fio.dat'''
    src = open(f'$HPC_ROOT/tests/mpi/progs/{prog}.f90').read().split('\n')
    return 1 + next(i for i, l in enumerate(src) if 'call MPI_FILE_OPEN(MPI_COMM_WORLD' in l)

def ops(r):
    '''rank r's MPI-IO operations on fio.dat: (kind, asked, done, byte offset)'''
    w = [('write', 4 * KiB, (3 * r + i) * 4 * KiB) for i in range(3)]
    w.append(('write', 8 * KiB, 48 * KiB + r * 8 * KiB))
    rd = [('read', 4 * KiB, (3 * r + i) * 4 * KiB) for i in range(3)]
    rd += [('read', 8 * KiB, 48 * KiB + r * 8 * KiB), ('read', KiB, 3 * r * 4 * KiB)]
    view = 80 * KiB + r * 2 * KiB
    return ([('open', 0, -1)] + w + rd + [('write', 2 * KiB, view), ('sync', 0, -1),
            ('seek', 0, -1), ('read', 2 * KiB, view), ('close', 0, -1)])

def shared(r):
    '''rank r's on shared.dat: the shared pointer's offsets are unknown (-1)'''
    return ([('open', 0, -1), ('write', KiB, -1)] + [('write', 512, -1)] * (r == 0) +
            [('seek', 0, -1), ('read', KiB, -1), ('read', 256, 0), ('close', 0, -1)])

def canon(name):
    '''a Fortran wrapper's symbol (mpi_file_read_at__, MPI_FILE_READ_AT, _f08_) or the C one'''
    return re.sub(r'_f08$', '', name.lower().rstrip('_'))

for run in '$RUNS'.split():
    lib, prog = run.split(':')
    exp, D = f'{lib}-{prog}/job.hpc', f'$PWD/{lib}-{prog}'
    dump = subprocess.run([DUMP, exp], capture_output=True, text=True, check=True).stdout
    recs = [json.loads(l) for l in dump.splitlines() if l.startswith('{\"file\"')]
    fs = files(exp)
    f = fs[f'{D}/fio.dat']
    placed = [placement([o for k, n, o in ops(r) if k == kind], [n for k, n, o in ops(r) if k == kind])
              for r in range(4) for kind in ('read', 'write')]
    expect(f, f'{run}: fio.dat', shared=True, handles=4, write_bytes=4 * 22 * KiB, write_count=20,
           read_bytes=4 * 23 * KiB, read_count=24, other_count=16, error_count=0,
           read_sequential=sum(s for s, c in placed[0::2]), read_consecutive=sum(c for s, c in placed[0::2]),
           write_sequential=sum(s for s, c in placed[1::2]), write_consecutive=sum(c for s, c in placed[1::2]))
    equal([(p['rank'], p['write_bytes'], p['write_count'], p['read_bytes'], p['read_count'])
           for p in f['processes']], [(r, 22 * KiB, 5, 23 * KiB, 6) for r in range(4)],
          f'{run}: fio.dat per rank (write bytes and count, read bytes and count)')
    expect(fs[f'{D}/shared.dat'], f'{run}: shared.dat', shared=True, handles=4, write_bytes=4 * KiB + 512,
           write_count=5, read_bytes=4 * 1280, read_count=8, other_count=12, error_count=0,
           write_placed=0, read_placed=4)
    expect(fs[f'{D}/missing/none'], f'{run}: the failing open', error_count=1, other_count=0)
    expect(fs[f'{D}/gone.dat'], f'{run}: gone.dat', other_count=3, error_count=0, shared=False)
    hs = analyze(exp, 'iodetail', f'{D}/fio.dat')['handles']
    equal(sorted((h['rank'], h['paradigm'], h['read_count'], h['write_count'], h['other_count'])
                 for h in hs), [(r, 'MPI-IO', 6, 5, 4) for r in range(4)],
          f'{run}: iodetail: one MPI-IO handle per rank (reads, writes, other)')
    for h in hs:
        site = next(s for s in h['opened_at'] if s['file'].endswith('.f90'))
        equal((site['file'].split('/')[-1], site['line']), (prog + '.f90', open_line(prog)),
              f'{run}: rank {h[\"rank\"]} opened the file at')
    for r in range(4):
        mine = [x for x in recs if x['file'].startswith(f'rank{r}/')]
        kind = {FN['MPI_File_' + k]: k for k in ('open', 'read', 'write', 'sync', 'seek', 'close')}
        for name, want in (('fio.dat', ops(r)), ('shared.dat', shared(r))):
            handle = [x['handle'] for x in mine if x['record'] == 'io_handle' and x['path'] == f'{D}/{name}']
            equal(len(handle), 1, f'{run}: rank {r}: handles on {name}')
            got = [(kind.get(x['fn'], x['fn']), x['requested'], x['done'], x['offset'])
                   for x in mine if x['record'] == 'io_op' and x['handle'] == handle[0]]
            equal(got, [(k, n, n, o) for k, n, o in want],
                  f'{run}: rank {r}: operations on {name} (kind, asked, done, byte offset)')
        # each wrapper under one name (its other spellings are weak aliases): gfortran's
        # for Open MPI's bindings, the C function MPICH's mpif.h binding calls
        c_name = lambda n: 'MPI_File_' + n[len('mpi_file_'):]
        spell = {'openmpi:fio': lambda n: n + '_', 'openmpi:f08io': lambda n: n + '_f08_',
                 'mpich:fio': c_name,
                 'mpich:f08io': lambda n: c_name(n) if 'read' in n or 'write' in n else n + '_f08_'}[run]
        fn = {}
        for row in analyze(exp, '--ranks', str(r), 'functions')['functions']:
            # (MPICH's mpi_f08 routines with a buffer, mpi_file_read_at_f08ts_, are its own
            # frames above the C wrapper, not wrappers)
            if (canon(row['name']).startswith('mpi_file_') and not row['name'].startswith('pmpi')
                    and not row['name'].endswith('_f08ts_')):
                fn[canon(row['name'])] = row
                equal(row['name'], spell(canon(row['name'])), f'{run}: rank {r}: the name of a wrapper')
        want = {'mpi_file_write_at': (3, 12 * KiB, 0, 0), 'mpi_file_write_at_all': (1, 8 * KiB, 0, 0),
                'mpi_file_write': (1, 2 * KiB, 0, 0), 'mpi_file_read_at': (0, 0, 3, 12 * KiB),
                'mpi_file_read_at_all': (0, 0, 1, 8 * KiB), 'mpi_file_iread_at': (0, 0, 1, KiB),
                'mpi_file_read': (0, 0, 1, 2 * KiB), 'mpi_file_write_ordered': (1, KiB, 0, 0),
                'mpi_file_write_shared': (1, 512, 0, 0) if r == 0 else (0, 0, 0, 0), 'mpi_file_read_ordered': (0, 0, 1, KiB),
                'mpi_file_read_all_begin': (0, 0, 1, 256), 'mpi_file_read_all_end': (0, 0, 0, 0)}
        for name, w in want.items():
            row = fn.get(name, {})
            equal(tuple(row.get(k, 0) for k in ('excl_iowritecnt', 'excl_iowritebytes', 'excl_ioreadcnt',
                                                 'excl_ioreadbytes')), w,
                  f'{run}: rank {r}: {name} (write count, bytes, read count, bytes)')
"
