#!/bin/bash
# timeout: 150
# An MPI job's I/O (tests/io/progs/io_mpi.c, 4 ranks, Open MPI): each rank writes its
# own file with POSIX ((R + 1) * 16 writes of 4 KiB) and 1 MiB of one shared file with
# MPI-IO (MPI_File_write_at, which Open MPI's ompio does with POSIX calls of its own).
# Per file and per rank, bytes and counts exact in hpanalyze's ioactivity, the shared
# file shared by the 4 ranks and each rank's file by its rank alone; --ranks filters the
# I/O metrics of functions; hpmerge's summary (JSON and text) says the same, file by file
# and rank by rank; the files are those of a run without hpcollect.
source "$HPC_ROOT/tests/lib.sh"
PROG="$PROGS/io/io_mpi"
mkdir out plain
mpirun --oversubscribe -np 4 "$PROG" "$PWD/plain" || fail "the job failed on its own"
mpirun --oversubscribe -np 4 "$HPCOLLECT" -q -i on -o job "$PROG" "$PWD/out" ||
    fail "the job failed under -i on"
for f in shared.dat rank0.dat rank1.dat rank2.dat rank3.dat; do
    cmp "plain/$f" "out/$f" || fail "$f differs under tracing"
done
"$HPMERGE" -q --top 1000 job.hpc || fail "hpmerge failed"
D="$PWD/out"
check_py "
import json, sys; sys.path.insert(0, '$HPC_ROOT/tests/io')
from iotest import *
KiB, MiB = 1024, 1 << 20
fs = files('job.hpc')
sh = fs['$D/shared.dat']
expect(sh, 'shared.dat', write_bytes=4 * MiB, shared=True)
equal([(p['rank'], p['write_bytes']) for p in sh['processes']],
      [(r, MiB) for r in range(4)], 'shared.dat: 1 MiB from each rank')
for r in range(4):
    f = fs[f'$D/rank{r}.dat']
    expect(f, f'rank{r}.dat', write_bytes=(r + 1) * 64 * KiB, write_count=(r + 1) * 16,
           write_sequential=(r + 1) * 16, shared=False, other_count=2)
    equal([p['rank'] for p in f['processes']], [r], f'rank{r}.dat used by rank {r} alone')
    fn = functions('job.hpc', '--ranks', str(r))
    expect(fn['own_file'], f'own_file on rank {r}', incl_iowritecnt=(r + 1) * 16,
           incl_iowritebytes=(r + 1) * 64 * KiB)
equal(functions('job.hpc')['own_file']['incl_iowritecnt'], 160, 'own_file, all ranks')

s = json.load(open('job.hpc/summary.json'))['io']
sf = {f['path']: f for f in s['files']}
expect(sf['$D/shared.dat'], 'summary: shared.dat', shared=True, write_bytes=4 * MiB)
equal([(p['rank'], p['write_bytes']) for p in sf['$D/shared.dat']['processes']],
      [(r, MiB) for r in range(4)], 'summary: shared.dat per rank')
for r in range(4):
    f = sf[f'$D/rank{r}.dat']
    expect(f, f'summary: rank{r}.dat', shared=False, write_bytes=(r + 1) * 64 * KiB)
    equal([p['rank'] for p in f['processes']], [r], f'summary: rank{r}.dat by rank {r}')
equal([p['rank'] for p in s['processes']], [0, 1, 2, 3], 'summary: I/O per rank')
for p in s['processes']:
    # every rank wrote its own file and its MiB of the shared one, and Open MPI a little
    check(p['write_bytes'] >= MiB + (p['rank'] + 1) * 64 * KiB, f'rank {p[\"rank\"]} writes')
txt = open('job.hpc/summary.txt').read()
line = [l for l in txt.splitlines() if l.endswith('$D/shared.dat')]
check(len(line) == 1 and 'shared by 4' in line[0], 'summary.txt: shared.dat shared by 4')
for r in range(4):
    line = [l for l in txt.splitlines() if l.endswith(f'$D/rank{r}.dat')]
    check(len(line) == 1 and f'rank {r} ' in line[0], f'summary.txt: rank{r}.dat by rank {r}')
"
