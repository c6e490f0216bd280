#!/bin/bash
# timeout: 240
# Real programs under hpcollect -H on print what they print without it, with the same
# status, and their heap is what they did:
#   C++ threads  (compiled here with g++): 4 threads each churn 1000 new/delete of 48
#                bytes and leak 5 new char[77]: inclusive on churn() 4000 allocations,
#                192000 bytes, no leak; on leak_some() 20 leaks of 1540 bytes in all;
#                std::thread's own allocations leave no leak of ours
#   Fortran      (gfortran) ALLOCATE through malloc: leaky keeps 1000 real(8) (8000 bytes,
#                a leak), churn allocates and deallocates 500 of them 100 times
#   python3      a script that makes a bytearray of 50000000 bytes: the largest
#                allocation site holds it, and the peak is at least that
#   gcc          compiles and links a file (cc1, as, collect2, ld exec'd): every process
#                has its heap, every free of a traced block matched
# Leaks, frees and totals agree between `heap`, `leaks` and `functions` in each.
source "$HPC_ROOT/tests/lib.sh"
cd "$HPC_TMP"
# same NAME CMD...: run CMD plain and under hpcollect -H on; same stdout, same status
same() {
    local name=$1
    shift
    local want got rc_want rc_got
    want=$("$@" 2>plain.$name.err) && rc_want=0 || rc_want=$?
    got=$("$HPCOLLECT" -q -H on -o "$name.hpc" -- "$@" 2>hpc.$name.err) && rc_got=0 || rc_got=$?
    [ "$rc_got" = "$rc_want" ] ||
        fail "$name: exit status $rc_got under -H on, $rc_want plain; stderr: $(tail -5 hpc.$name.err)"
    [ "$got" = "$want" ] ||
        fail "$name: output differs under -H on: $(diff <(echo "$want") <(echo "$got") | head -10)"
    note "ok: $name: same output ($(echo "$want" | wc -l) lines) and status $rc_want"
}
# consistent EXP: in every process, the functions' exclusive sums are the heap report's
consistent() {
    check_py "
H, F, L = analyze('$1', 'heap', 'functions', 'leaks')  # one load, three reports
h = H['processes']
f = F['functions'][0]
check(f['name'] == '<Total>', 'total row')
check(f['excl_heap_allocs'] == sum(p['allocs'] for p in h), '$1: allocations: functions == heap')
check(f['excl_heap_leaked_bytes'] == sum(p['leaked_bytes'] for p in h), '$1: bytes leaked: functions == heap')
check(L['instances'] == sum(p['leaks'] for p in h) and L['bytes'] == sum(p['leaked_bytes'] for p in h), '$1: leaks report == heap')
for p in h:
    check(p['ended'], f'$1 {p[\"process\"]}: {p[\"allocs\"]} allocations, ended')
    check(p['end_bytes'] == p['leaked_bytes'], f'$1 {p[\"process\"]}: in use at the end == leaked')
"
}

command -v g++ >/dev/null || skip "g++ not installed"
cat >threads.cpp <<'CPP'
#include <cstdio>
#include <thread>
#include <vector>
static char *volatile sink;
__attribute__((noinline)) void churn()
{
    for (int i = 0; i < 1000; i++) {
        char *p = new char[48];
        sink = p;
        delete[] p;
    }
}
__attribute__((noinline)) void leak_some()
{
    for (int i = 0; i < 5; i++)
        sink = new char[77];
}
int main()
{
    std::vector<std::thread> ts;
    for (int t = 0; t < 4; t++)
        ts.emplace_back([] { churn(); leak_some(); });
    for (auto &t : ts)
        t.join();
    std::printf("threads done\n");
}
CPP
g++ -O1 -g -pthread -o threads threads.cpp
same cxx ./threads
consistent cxx.hpc
check_py "
rows = {r['name']: r for r in analyze('cxx.hpc', 'functions')['functions']}
def row(prefix):
    m = [r for n, r in rows.items() if n.startswith(prefix)]
    check(len(m) == 1, f'one function {prefix}')
    return m[0]
c, l = row('churn'), row('leak_some')
check((c['incl_heap_allocs'], c['incl_heap_bytes'], c['incl_heap_leaks']) == (4000, 192000, 0), f'churn: 4000 allocations, 192000 bytes, no leak')
check((l['incl_heap_allocs'], l['incl_heap_leaks'], l['incl_heap_leaked_bytes']) == (20, 20, 1540), 'leak_some: 20 leaks, 1540 bytes')
check(len(analyze('cxx.hpc', 'heap')['processes']) == 1, 'one process')
"

if command -v gfortran >/dev/null; then
    cat >fa.f90 <<'F90'
module work
  implicit none
  real(8), pointer :: kept(:) => null()
contains
  subroutine leaky()
    allocate(kept(1000))
    kept = 1.0d0
  end subroutine leaky
  subroutine churn()
    real(8), allocatable :: a(:)
    integer :: i
    do i = 1, 100
      allocate(a(500))
      a = real(i, 8)
      if (a(500) < 0) print *, 'never'
      deallocate(a)
    end do
  end subroutine churn
end module work
program fa
  use work
  call leaky()
  call churn()
  print '(a,f8.1)', 'sum ', sum(kept)
end program fa
F90
    gfortran -O1 -g -o fa fa.f90
    same fortran ./fa
    consistent fortran.hpc
    check_py "
rows = {r['name']: r for r in analyze('fortran.hpc', 'functions')['functions']}
l = [r for n, r in rows.items() if 'leaky' in n]
c = [r for n, r in rows.items() if 'churn' in n]
check(len(l) == 1 and (l[0]['incl_heap_allocs'], l[0]['incl_heap_leaks'], l[0]['incl_heap_leaked_bytes']) == (1, 1, 8000), 'Fortran leaky: one ALLOCATE of 8000 bytes, leaked')
check(len(c) == 1 and (c[0]['incl_heap_allocs'], c[0]['incl_heap_bytes'], c[0]['incl_heap_leaks']) == (100, 400000, 0), 'Fortran churn: 100 ALLOCATEs of 4000 bytes, all deallocated')
"
else
    note "gfortran not installed: the Fortran part skipped"
fi

cat >prog.py <<'PY'
def big():
    b = bytearray(50000000)
    return len(b)
print(big())
print(sum(len(str(i)) for i in range(100000)))
PY
same python $SYSPY prog.py   # the interpreter itself, not a shim that execs it
consistent python.hpc
check_py "
h = analyze('python.hpc', 'heap')['processes'][0]
check(h['peak_bytes'] >= 50000000, f'python: peak {h[\"peak_bytes\"]} >= the bytearray')
a = analyze('python.hpc', 'allocs')['allocations'][0]
check(a['bytes'] >= 50000000 and a['bytes'] < 50000000 + 1000000, f'python: the largest site holds the bytearray ({a[\"bytes\"]})')
"

cat >hello.c <<'C'
#include <stdio.h>
int main(void) { puts("hello from gcc"); return 3; }
C
same gcc sh -c 'gcc -O1 -o hello hello.c && ./hello; echo "status $?"'
consistent gcc.hpc
check_py "
h = analyze('gcc.hpc', 'heap')['processes']
names = [p['process'] for p in h]
check(len(h) >= 4, f'gcc: the driver and its helpers, each with its heap: {names}')
n = sum(p['allocs'] for p in h)
check(n > 10000, f'gcc: {n} allocations in all')
"
note "ok: real programs unchanged under -H on, their heaps consistent"
