#!/bin/bash
# Tracing changes nothing a program sees of its I/O (tests/io/progs/io_semantics.c):
# return values, errno after failures and successes, short counts, end of file, EINTR of
# an interrupted read: the traced run prints exactly what the plain run prints. The
# seven failures are the seven I/O Error calls, each on its function, the interrupted read
# on the pipe's handle (first met: its path is the kernel's name of the pipe).
source "$HPC_ROOT/tests/lib.sh"
PROG="$PROGS/io/io_semantics"
mkdir plain traced
"$PROG" "$PWD/plain" >plain.out || { cat plain.out; fail "the program failed on its own"; }
"$HPCOLLECT" -q -i on -o sem "$PROG" "$PWD/traced" >traced.out ||
    { cat traced.out; fail "the program failed under -i on"; }
sed "s|$PWD/traced|DIR|g" traced.out >t.out
sed "s|$PWD/plain|DIR|g" plain.out >p.out
diff p.out t.out || fail "output differs under tracing"
note "$(wc -l <t.out) results identical"

check_py "
import sys; sys.path.insert(0, '$HPC_ROOT/tests/io')
from iotest import *
fn = functions('sem.hpc')
equal(fn['<Total>']['incl_ioerrorcnt'], 7, 'I/O errors')
for name, errors in (('open', 1), ('read', 2), ('close', 1), ('fopen', 1), ('lseek', 1),
                     ('write', 1)):
    equal(fn[name]['excl_ioerrorcnt'], errors, f'{name} errors')
pipes = [f for p, f in files('sem.hpc').items() if p.startswith('pipe:')]
equal(len(pipes), 1, 'one pipe')
expect(pipes[0], 'the pipe', error_count=2, read_count=0)
h = files('sem.hpc')['$PWD/traced/hundred']
# read 100, read 0 at the end, pread 0 beyond it, fgets 100, fgets NULL
expect(h, 'hundred', write_bytes=100, read_bytes=200, read_count=5)
"
