#!/bin/bash
# I/O in hpmerge's OTF2 trace (-i), against tests/io/progs/io_pattern.c's known I/O: per
# file, the I/O handles (paradigm POSIX or ISOC) and their IoCreateHandle (access mode,
# creation flags from the open's flags) and IoDestroyHandle, one IoOperationBegin/
# Complete per read or write with its bytes asked and done (256 writes of 4096 bytes,
# 100 preads of 1 MiB, 50 fprintf of 9 bytes, 51 fgets of 450 bytes in all, 20 one-byte
# writes), each inside the region of the function the program called, whose caller is
# the program's function that called it; the failing open is a region without handle.
# The trace passes otf2-print -Werror and tests/otf2validate.py's I/O rules ($HPMERGE).
source "$HPC_ROOT/tests/lib.sh"
$SYSPY -c 'import otf2' 2>/dev/null || skip "the OTF2 Python reader (python3-otf2) is not installed"
mkdir traced
"$HPCOLLECT" -q -i on -o io "$PROGS/io/io_pattern" "$PWD/traced" ||
    fail "the program failed under -i on"
"$HPMERGE" -q io.hpc || fail "hpmerge failed (or its trace broke the OTF2 rules)"
otf2-print -Werror io.hpc/otf2/traces.otf2 >/dev/null || fail "otf2-print -Werror refused the trace"
D="$PWD/traced"
check_py "
import sys; sys.path.insert(0, '$HPC_ROOT/tests/io')
from iotest import *
MiB = 1 << 20
hs, regions = trace_io('io.hpc/otf2/traces.otf2')
W, R, RW = 1, 0, 2  # OTF2_IO_ACCESS_MODE_*
CT = 3  # OTF2_IO_CREATION_FLAG_CREATE | TRUNCATE

def one(path, paradigm, mode, flags, ops, what):
    h = by_file(hs, path)
    equal(len(h), 1, f'{what}: handles')
    h = h[0]
    expect(h, what, paradigm=paradigm, creates=1, destroys=1, create_modes=[(mode, flags)])
    equal(h['ops'], ops, f'{what}: operations (mode, asked, done, region, caller)')

one('$D/seq.dat', 'POSIX', W, CT, [('WRITE', 4096, 4096, 'write', 'write_seq')] * 256, 'seq.dat')
one('$D/rand.dat', 'POSIX', RW, CT,
    [('READ', MiB, MiB, 'pread', 'read_rand')] * 100, 'rand.dat')
one('$D/ab.dat', 'POSIX', W, CT, [('WRITE', 1, 1, 'write', 'put')] * 20, 'ab.dat')
text = by_file(hs, '$D/text.txt')
equal([h['paradigm'] for h in text], ['ISOC', 'ISOC'], 'text.txt: two stdio handles')
expect(text[0], 'text.txt written', creates=1, destroys=1, create_modes=[(W, CT)])
equal(text[0]['ops'], [('WRITE', 9, 9, 'fprintf', 'stdio_text')] * 50, 'text.txt: 50 fprintf')
expect(text[1], 'text.txt read', creates=1, destroys=1,
       create_modes=[(R, 0)])
equal(text[1]['ops'], [('READ', 63, 9, 'fgets', 'stdio_text')] * 50 +
      [('READ', 63, 0, 'fgets', 'stdio_text')], 'text.txt: 50 lines and the end by fgets')
equal(by_file(hs, '$D/missing/none'), [], 'the failing open made no handle')
expect(regions, 'I/O regions entered', open=4, close=3, write=276, pread=100, fopen=2,
       fclose=2, fprintf=50, fgets=51, ftruncate=1)
"
