#!/bin/bash
# The demo's traced example (examples/pipeline.c, `make demo-trace`) finds what it says
# it will, with the counts the program fixes:
#   syncs       queue_lock (-s all: every call is a wait): 400 locks by the producers
#               at the loop's lock, 401 by the writer (400 blocks and the last look), 2 at
#               the producers' end; waits let go where a producer releases it after
#               checksum_locked (the lock held across the checksum): at the unlock, or at
#               the wait for room when the queue was full. (Whose holds are longest is
#               chance: a writer preempted while holding it outweighed the producers
#               once on a quiet machine.)
#   leaks       remember's malloc: 40 blocks (every tenth of 400) of 32 784 bytes
#   ioactivity  pipeline.out: 400 blocks of 32 KiB written in 512-byte fwrites: 13 107 200
#               bytes in 25 600 writes, all of 100-1K bytes, nothing read
source "$HPC_ROOT/tests/lib.sh"
SRC="$HPC_ROOT/examples/pipeline.c"
gcc -O2 -g -pthread -o pipeline "$SRC" || fail "cannot build $SRC"
"$HPCOLLECT" -q -s all -H on -i on -o pipe ./pipeline 400 "$PWD/pipeline.out" >run.out ||
    fail "pipeline failed under hpcollect: $(cat run.out)"
line() { grep -n "$1" "$SRC" | head -1 | cut -d: -f1; }
LOCK=$(line "pthread_mutex_lock(&queue_lock);")     # the producers' loop (first in the file)
LAST=$(grep -n "pthread_mutex_lock(&queue_lock);" "$SRC" | sed -n 2p | cut -d: -f1)
POP=$(grep -n "pthread_mutex_lock(&queue_lock);" "$SRC" | sed -n 3p | cut -d: -f1)
UNLOCK=$(line "pthread_mutex_unlock(&queue_lock);")  # after the checksum and the push
FULL=$(line "pthread_cond_wait(&nonfull, &queue_lock);")  # after the checksum, the queue full
LEAK=$(line "block \*copy = malloc")
check_py "
s = {o['name']: o for o in analyze('pipe.hpc', 'syncs')['objects']}
q = s.get('queue_lock') or sys.exit('FAIL: queue_lock not among the sync objects')
sites = {x['location']: x['waits'] for x in q['sites']}
want = {'producer pipeline.c:$LOCK': 400, 'main pipeline.c:$POP': 401, 'producer pipeline.c:$LAST': 2}
check(sites == want, f'queue_lock waits by site {sites}, expected {want}')
after = ('producer pipeline.c:$UNLOCK', 'producer pipeline.c:$FULL')
held = [(h['location'], h['waits'], round(h['hold_s'], 3)) for h in q['holders'] if h['location'] in after]
check(sum(w for _, w, _ in held) > 0 and sum(t for _, _, t in held) > 0,
      f'waits let go after the checksum (holder site, waits, held s): {held}')
l = analyze('pipe.hpc', 'leaks')['leaks']
mine = [x for x in l if x['stack'][0]['function'] == 'remember']
check(len(mine) == 1, f'one leak at remember: {len(mine)}')
x = mine[0]
check((x['instances'], x['bytes'], x['stack'][0]['line']) == (40, 40 * 32784, $LEAK),
      f'remember leak: {x[\"instances\"]} blocks, {x[\"bytes\"]} bytes at line {x[\"stack\"][0][\"line\"]}')
io = {f['path']: f for f in analyze('pipe.hpc', 'ioactivity')['files']}
f = io.get('$PWD/pipeline.out') or sys.exit(f'FAIL: pipeline.out not in {list(io)}')
got = (f['write_bytes'], f['write_count'], f['read_bytes'], f['read_count'])
check(got == (13107200, 25600, 0, 0), f'pipeline.out written, read: {got}')
check(f['sizes']['write'] == [0, 25600] + [0] * 8, f'write sizes by bucket {f[\"sizes\"][\"write\"]}')
"
