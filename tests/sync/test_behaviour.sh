#!/bin/bash
# The program's behaviour under -s all (behaviour.c): every answer of the threads library
# (EBUSY, ETIMEDOUT, EDEADLK, EPERM, EOWNERDEAD, errno of sem_timedwait and sem_trywait,
# a cancelled condition wait whose cleanup holds the mutex, a process-shared mutex across
# fork, C11's thrd_timedout) and the exit status are what they are without hpcollect.
# And they are recorded as they happened: the timed-out lock with result ETIMEDOUT after
# 20 ms at least, the robust lock with EOWNERDEAD, the forked child's wait for the
# shared mutex (20 ms at least) in the child's own sub-experiment. The same answers under
# -s on, where a mutex lock the real trylock gets at once (the uncontended case: an
# error-checking mutex locked again, a recursive one taken 3 times, a robust one whose
# owner died) is not timed (collector/sync.c).
source "$HPC_ROOT/tests/lib.sh"

PROG="$PROGS/sync/behaviour"
set +e
"$PROG" >plain.out
plain=$?
"$HPCOLLECT" -q -s all -o b "$PROG" >traced.out
traced=$?
"$HPCOLLECT" -q -s on -o on "$PROG" >on.out
on=$?
set -e
[ $plain = 0 ] && [ $traced = 0 ] || fail "exit status: $plain without hpcollect, $traced with -s all"
[ $on = 0 ] || fail "exit status: $on with -s on"
diff plain.out traced.out || fail "-s all changed what the program saw"
diff plain.out on.out || fail "-s on changed what the program saw"
grep -q "join cancelled: 0 PTHREAD_CANCELED" plain.out || fail "the program: $(cat plain.out)"
"$HPANALYZE" b.hpc dump >dump.txt

check_py "$(cat <<'PY'

import errno, re
procs, cur = {}, None
for l in open("dump.txt"):
    m = re.match(r"== b.hpc/([^/]+)/t\d+\.hpe", l)
    if m:
        cur = m.group(1)
    if l.startswith("sync_wait ") and cur:
        f = dict(kv.split("=", 1) for kv in l.split()[2:])
        procs.setdefault(cur, []).append(
            (int(f["kind"]), int(f["result"]), int(f["time_grant"]) - int(f["time_request"])))
main = procs["main"]
timed = [d for k, r, d in main if k == 1 and r == errno.ETIMEDOUT]
check(len(timed) == 1 and timed[0] >= 20000000, f"the timed-out lock recorded: {timed}")
check([r for k, r, d in main if r == errno.EOWNERDEAD] == [errno.EOWNERDEAD],
      "the robust lock recorded with EOWNERDEAD")
conds = [d for k, r, d in main if k == 4 and r == errno.ETIMEDOUT]
check(len(conds) == 1 and conds[0] >= 20000000, f"the timed-out condition wait recorded: {conds}")
child = [p for p in procs if p != "main"]
check(len(child) == 1, f"the forked child's sub-experiment: {list(procs)}")
waits = [d for k, r, d in procs[child[0]] if k == 1 and r == 0]
check(any(d >= 20000000 for d in waits), f"{child[0]}: its wait for the shared mutex: {waits}")
PY
)"
