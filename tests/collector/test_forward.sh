#!/bin/bash
# Signals sent to hpcollect (SIGTERM, SIGUSR1, SIGINT...) go on to the program: a
# sleeping program killed through the launcher dies of SIGTERM, hpcollect too (143),
# and launcher.hpe says so.
source "$HPC_ROOT/tests/lib.sh"

"$HPCOLLECT" -q -o fwd sleep 30 &
launcher=$!
for i in $(seq 1 100); do pgrep -P $launcher >/dev/null && break; sleep 0.05; done
prog=$(pgrep -P $launcher) || fail "the program did not start"
sleep 0.2
kill -TERM $launcher
set +e
wait $launcher
rc=$?
set -e
[ $rc = 143 ] || fail "hpcollect exit $rc after SIGTERM, expected 143"
kill -0 "$prog" 2>/dev/null && fail "the program is still running"
PYTHONPATH="$HPC_ROOT/tests/collector" $SYSPY -c '
from expdata import load, check
le = load("fwd.hpc").procs["main"].launcher_exit
check(le["exited"] == 0 and le["status"] == 15, "launcher_exit: killed by SIGTERM")'
