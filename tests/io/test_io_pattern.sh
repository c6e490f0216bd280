#!/bin/bash
# I/O tracing (-i) against a program whose I/O is known in advance
# (tests/io/progs/io_pattern.c): 256 sequential 4 KiB writes, 100 preads of 1 MiB at
# offsets ((i * 7) % 16) MiB, 50 fprintf and 51 fgets on a text file, a failing open,
# and 20 one-byte writes from one call site reached through two callers in turn (the
# stacks the collector caches by call site and stack pointer stay apart).
# Every count and byte exact per function (the I/O function, its caller, the caller's
# inclusive sums) and per file (ioactivity: classes, access sizes, sequential and
# consecutive transfers from the offsets, handles, processes); iodetail per handle; the
# program's own checks of every return value hold and its files are byte for byte those
# of a run without hpcollect; -i off records no I/O.
source "$HPC_ROOT/tests/lib.sh"
PROG="$PROGS/io/io_pattern"
mkdir plain traced off
"$PROG" "$PWD/plain" || fail "the program failed on its own"
"$HPCOLLECT" -q -i on -o io "$PROG" "$PWD/traced" || fail "the program failed under -i on"
"$HPCOLLECT" -q -o noio "$PROG" "$PWD/off" || fail "the program failed without -i"
for f in seq.dat text.txt; do
    cmp "plain/$f" "traced/$f" || fail "$f differs under tracing"
done

D="$PWD/traced"
check_py "
import sys; sys.path.insert(0, '$HPC_ROOT/tests/io')
from iotest import *
MiB = 1 << 20
fn = functions('io.hpc')
expect(fn['write'], 'write', excl_iowritecnt=256 + 20, excl_iowritebytes=256 * 4096 + 20,
       excl_ioreadcnt=0, excl_ioothercnt=0, excl_ioerrorcnt=0)
expect(fn['write_seq'], 'write_seq (inclusive)', incl_iowritecnt=256,
       incl_iowritebytes=1 << 20, incl_ioothercnt=2, excl_iowritecnt=0)
expect(fn['pread'], 'pread', excl_ioreadcnt=100, excl_ioreadbytes=100 * MiB)
expect(fn['ftruncate'], 'ftruncate', excl_ioothercnt=1)
expect(fn['read_rand'], 'read_rand (inclusive)', incl_ioreadcnt=100,
       incl_ioreadbytes=100 * MiB, incl_ioothercnt=3, incl_iowritecnt=0)
expect(fn['fprintf'], 'fprintf', excl_iowritecnt=50, excl_iowritebytes=450)
expect(fn['fgets'], 'fgets', excl_ioreadcnt=51, excl_ioreadbytes=450, excl_ioerrorcnt=0)
expect(fn['fopen'], 'fopen', excl_ioothercnt=2)
expect(fn['fclose'], 'fclose', excl_ioothercnt=2)
expect(fn['stdio_text'], 'stdio_text (inclusive)', incl_ioreadcnt=51, incl_iowritecnt=50,
       incl_ioothercnt=4)
expect(fn['fail_open'], 'fail_open (inclusive)', incl_ioerrorcnt=1, incl_ioothercnt=0)
expect(fn['open'], 'open', excl_ioothercnt=3, excl_ioerrorcnt=1)
expect(fn['close'], 'close', excl_ioothercnt=3)
expect(fn['via_a'], 'via_a (inclusive)', incl_iowritecnt=10, incl_iowritebytes=10)
expect(fn['via_b'], 'via_b (inclusive)', incl_iowritecnt=10, incl_iowritebytes=10)
expect(fn['put'], 'put (inclusive)', incl_iowritecnt=20)
expect(fn['<Total>'], 'total', incl_ioreadcnt=151, incl_ioreadbytes=100 * MiB + 450,
       incl_iowritecnt=326, incl_iowritebytes=MiB + 470, incl_ioothercnt=11, incl_ioerrorcnt=1)
check(fn['write']['excl_iowritetime_s'] > 0 and fn['pread']['excl_ioreadtime_s'] > 0,
      'read and write times are there')

fs = files('io.hpc')
equal(sorted(fs), sorted(['$D/seq.dat', '$D/rand.dat', '$D/text.txt', '$D/missing/none',
                          '$D/ab.dat']),
      'the files')
s = fs['$D/seq.dat']
expect(s, 'seq.dat', write_count=256, write_bytes=MiB, read_count=0, other_count=2,
       error_count=0, write_placed=256, write_sequential=256, write_consecutive=256,
       handles=1, shared=False)
equal(s['sizes']['write'], [0, 0, 256, 0, 0, 0, 0, 0, 0, 0], 'seq.dat write sizes')
r = fs['$D/rand.dat']
offs = [((i * 7) % 16) * MiB for i in range(100)]
seq, consec = placement(offs, [MiB] * 100)
expect(r, 'rand.dat', read_count=100, read_bytes=100 * MiB, other_count=3, write_count=0,
       read_placed=100, read_sequential=seq, read_consecutive=consec)
equal(r['sizes']['read'], [0, 0, 0, 0, 0, 100, 0, 0, 0, 0], 'rand.dat read sizes')
t = fs['$D/text.txt']
expect(t, 'text.txt', write_count=50, write_bytes=450, read_count=51, read_bytes=450,
       other_count=4, handles=2, write_sequential=50, write_consecutive=50,
       read_sequential=51, read_consecutive=51)
equal(t['sizes']['read'][0], 51, 'text.txt reads of 0-100 bytes')
expect(fs['$D/missing/none'], 'missing/none', error_count=1, other_count=0, read_count=0)
expect(fs['$D/ab.dat'], 'ab.dat', write_count=20, write_bytes=20, write_consecutive=20)
equal([p['process'] for p in s['processes']], ['main'], 'seq.dat used by main only')
expect(s['processes'][0], 'seq.dat: main', write_bytes=MiB, write_count=256)

hs = analyze('io.hpc', 'iodetail', 'text.txt')['handles']
equal([(h['paradigm'], h['write_count'], h['read_count']) for h in hs],
      [('ISO C', 50, 0), ('ISO C', 0, 51)], 'text.txt handles: fopen w, fopen r')
check(all(h['path'] == '$D/text.txt' for h in hs), 'iodetail FILE matches by last component')

fo = functions('noio.hpc')
check('ioreadcnt' not in str(analyze('noio.hpc', 'metrics')), 'no I/O metrics without -i')
equal(analyze('noio.hpc', 'ioactivity')['files'], [], 'no files without -i')
"
