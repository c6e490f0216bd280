#!/bin/bash
# timeout: 240
# Real programs under hpcollect -s on (the mutex lock interposer tries the real trylock
# first: collector/sync.c) print what they print without it, with the same status:
#   C++ threads  (compiled here with g++): 4 threads each take a std::mutex 20000 times
#                around a shared counter, one waits on a std::condition_variable for the
#                others: the count is exact, and every one of its 80000 std::mutex locks,
#                the condition waits and the 4 joins is recorded or screened (exactly:
#                recorded + screened = the calls the traced run counts itself)
#   python3      a script whose 4 threads add under a threading.Lock and meet at a
#                threading.Barrier (the GIL's mutexes and conditions, semaphores)
#   gcc          compiles and links a file (cc1, as, collect2, ld exec'd)
source "$HPC_ROOT/tests/lib.sh"
cd "$HPC_TMP"
same() {
    local name=$1
    shift
    local want got rc_want rc_got
    want=$("$@" 2>plain.$name.err) && rc_want=0 || rc_want=$?
    got=$("$HPCOLLECT" -q -s on -o "$name.hpc" -- "$@" 2>hpc.$name.err) && rc_got=0 || rc_got=$?
    [ "$rc_got" = "$rc_want" ] ||
        fail "$name: exit status $rc_got under -s on, $rc_want plain; stderr: $(tail -5 hpc.$name.err)"
    [ "$got" = "$want" ] ||
        fail "$name: output differs under -s on: $(diff <(echo "$want") <(echo "$got") | head -10)"
    echo "$got" >"$name.out"
    note "ok: $name: same output ($(echo "$want" | wc -l) lines) and status $rc_want"
}

command -v g++ >/dev/null || skip "g++ not installed"
cat >threads.cpp <<'CPP'
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>
static std::mutex m;
static std::condition_variable cv;
static long counter, waits;
static int done;
int main()
{
    std::vector<std::thread> ts;
    for (int t = 0; t < 4; t++)
        ts.emplace_back([t] {
            for (int i = 0; i < 20000; i++) {
                std::lock_guard<std::mutex> g(m);
                counter += t + 1;
            }
            std::unique_lock<std::mutex> g(m); /* one more lock each */
            if (++done == 4)
                cv.notify_all();
            while (done < 4) {
                waits++; /* a condition wait, counted under the lock */
                cv.wait(g);
            }
        });
    for (auto &t : ts)
        t.join();
    /* sync calls: 80000 + 4 locks, the condition waits, 4 joins */
    std::printf("counter %ld calls %ld\n", counter, 80000 + 4 + waits + 4);
    return 7;
}
CPP
g++ -O1 -g -pthread -o threads threads.cpp
same cxx ./threads
"$HPANALYZE" cxx.hpc dump | grep -c '^sync_wait ' >recorded || true
check_py "
out = open('cxx.out').read().split()  # the traced run's own count of its calls
counter, calls = int(out[1]), int(out[3])
check(counter == 20000 * (1 + 2 + 3 + 4), f'the count {counter} is exact')
rec = int(open('recorded').read())
st = analyze('cxx.hpc', 'statistics')['processes'][0]['stats']
check(rec + st['trace_screened'] == calls, f'{rec} recorded + {st[\"trace_screened\"]} screened = {calls} sync calls')
check(st['events_dropped'] == 0, 'no event dropped')
"

command -v python3 >/dev/null || skip "python3 not installed"
cat >threads.py <<'PY'
import threading
lock, total = threading.Lock(), [0]
barrier = threading.Barrier(4)
def work(k):
    for i in range(20000):
        with lock:
            total[0] += k
    barrier.wait()
ts = [threading.Thread(target=work, args=(k,)) for k in range(1, 5)]
for t in ts:
    t.start()
for t in ts:
    t.join()
print("total", total[0])
PY
same python3 python3 threads.py

command -v gcc >/dev/null || skip "gcc not installed"
printf '#include <stdio.h>\nint main(void) { puts("hello from gcc"); return 3; }\n' >hello.c
same gcc gcc -O1 -o hello hello.c
./hello >/dev/null || [ $? = 3 ] || fail "the program gcc built under -s on does not run"
