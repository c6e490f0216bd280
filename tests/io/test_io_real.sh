#!/bin/bash
# timeout: 200
# Real programs under -i on run as without it (same output, same files, same status),
# and their I/O is what they did, known from the files themselves:
#   python3  writes data.bin (3 writes, 300000 bytes) and reads it back: 300000 bytes
#            written and read on that file, by the main process
#   gcc      -c hello.c: cc1 reads all of hello.c, as writes all of hello.o, and the
#            assembler file cc1 writes is the one as reads (two processes; as peeks at
#            its first character with getc and ungetc before it freads it all)
#   C++      4 std::threads each write their own file with std::ofstream (10000 bytes),
#            then main reads each back with std::ifstream: exact bytes per file, and
#            each thread's transfers on each file at the offsets they really had
source "$HPC_ROOT/tests/lib.sh"
# same NAME CMD...: CMD run in plain/ and, under -i on, in traced/: same stdout and status
same() {
    local name=$1 want got rc_want rc_got
    shift
    want=$(cd plain && "$@" 2>../plain.$name.err) && rc_want=0 || rc_want=$?
    got=$(cd traced && "$HPCOLLECT" -q -i on -o "../$name.hpc" -- "$@" 2>../hpc.$name.err) &&
        rc_got=0 || rc_got=$?
    [ "$rc_got" = "$rc_want" ] ||
        fail "$name: exit status $rc_got under -i on, $rc_want plain: $(tail -3 hpc.$name.err)"
    [ "$got" = "$want" ] || fail "$name: output differs: $(diff <(echo "$want") <(echo "$got") | head)"
    note "ok: $name: same output ($(echo "$want" | wc -l) lines), status $rc_want"
}
mkdir plain traced

cat >prog.py <<'PY'
import hashlib, os
data = bytes(range(256)) * 390 + b"x" * 160   # 100000 bytes
with open("data.bin", "wb") as f:
    for _ in range(3):
        f.write(data)
with open("data.bin", "rb") as f:
    back = f.read()
print(len(back), hashlib.sha256(back).hexdigest())
PY
same python "$SYSPY" "$PWD/prog.py"
cmp plain/data.bin traced/data.bin || fail "python: data.bin differs"

printf '#include <stdio.h>\nint main(void) { puts("hello"); return 0; }\n' >hello.c
cp hello.c plain/ && cp hello.c traced/
same gcc gcc -O1 -c -o hello.o hello.c
cmp plain/hello.o traced/hello.o || fail "gcc: hello.o differs"

cat >threads.cpp <<'CPP'
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>
static void writer(int t)
{
    std::ofstream out("t" + std::to_string(t) + ".txt");
    char line[16];
    for (int i = 0; i < 1000; i++) {
        std::snprintf(line, sizeof line, "%04d %04d\n", t, i); // 10 bytes
        out << line;
    }
}
int main()
{
    std::vector<std::thread> ts;
    for (int t = 0; t < 4; t++)
        ts.emplace_back(writer, t);
    for (auto &t : ts)
        t.join();
    size_t total = 0;
    for (int t = 0; t < 4; t++) {
        std::ifstream in("t" + std::to_string(t) + ".txt");
        std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        total += s.size();
    }
    std::printf("%zu\n", total);
}
CPP
g++ -O1 -pthread -o threads threads.cpp || fail "g++ failed"
same cxx "$PWD/threads"
for t in 0 1 2 3; do cmp plain/t$t.txt traced/t$t.txt || fail "C++: t$t.txt differs"; done

T="$PWD/traced"
check_py "
import sys; sys.path.insert(0, '$HPC_ROOT/tests/io')
from iotest import *
py = files('python.hpc')
expect(py['$T/data.bin'], 'python data.bin', write_bytes=300000, read_bytes=300000,
       error_count=0)
equal([p['process'] for p in py['$T/data.bin']['processes']], ['main'], 'python: by main')

g = files('gcc.hpc')
expect(g['$T/hello.c'], 'gcc hello.c', read_bytes=$(wc -c <hello.c), write_bytes=0)
expect(g['$T/hello.o'], 'gcc hello.o', write_bytes=$(wc -c <traced/hello.o), read_bytes=0)
asm = [f for p, f in g.items() if p.endswith('.s') and f['write_bytes'] and f['read_bytes']]
equal(len(asm), 1, 'gcc: one assembler file written and read')
# as peeks at the first character (getc, then ungetc) before it freads the whole file:
# the stdio calls gave it one byte more than the file has
equal(asm[0]['read_bytes'], asm[0]['write_bytes'] + 1, 'gcc: as reads what cc1 wrote (+1 peeked)')
check(asm[0]['shared'] and len(asm[0]['processes']) >= 2, 'gcc: shared by the processes (driver, cc1, as)')

c = files('cxx.hpc')
for t in range(4):
    expect(c[f'$T/t{t}.txt'], f'C++ t{t}.txt', write_bytes=10000, read_bytes=10000,
           error_count=0)
fn = functions('cxx.hpc')
check(fn['main']['incl_ioreadbytes'] >= 40000, 'C++: main read the 4 files')
# each thread's transfers on each t file start at 0 and follow each other (libstdc++ opens
# with fopen and writes with writev on the stream's descriptor: a descriptor first met
# in a transfer; its offset was once read after the call moved it)
for (stream, path), ops in raw_transfers('cxx.hpc').items():
    if path.startswith('$T/t'):
        want = [sum(d for o, d in ops[:i]) for i in range(len(ops))]
        equal([o for o, d in ops], want, f'C++: {path} by {stream}: offsets of its transfers')
"
