#!/bin/bash
# 8 threads and 1 000 000 uncontended lock/unlock pairs (uncontended.c), under -s on: the
# same output (a checksum of the work under the locks) and exit status (3) as without
# hpcollect; every one of the program's sync calls (the locks and 8 joins) is either
# recorded or screened by the calibrated threshold, exactly; and most are screened (the
# common case: a lock nobody holds takes about the calibrated call's time).
source "$HPC_ROOT/tests/lib.sh"

PROG="$PROGS/sync/uncontended"
set +e
"$PROG" >plain.out
plain=$?
"$HPCOLLECT" -q -s on -o u "$PROG" >u.out
traced=$?
set -e
[ $plain = 3 ] && [ $traced = 3 ] || fail "exit status: $plain without hpcollect, $traced with -s on"
diff plain.out u.out || fail "-s on changed the program's output"
"$HPANALYZE" u.hpc dump | grep -c '^sync_wait ' >recorded || true

check_py "$(cat <<'PY'

calls = int(open("u.out").read().split()[5])
rec = int(open("recorded").read())
st = analyze("u.hpc", "statistics")["processes"][0]["stats"]
check(rec + st["trace_screened"] == calls,
      f"{rec} recorded + {st['trace_screened']} screened = {calls} sync calls")
check(st["trace_screened"] > calls // 2, f"{st['trace_screened']} of {calls} calls screened")
check(st["events_dropped"] == 0, "no event dropped")
PY
)"
