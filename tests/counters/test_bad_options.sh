#!/bin/bash
# Bad -h, -S, -l and -y values: hpcollect names the option and the value (or the event
# and why it cannot be counted), exits 2, and neither runs the program nor creates an
# experiment. `-h list` lists the aliases, the PMU's events and the software events and
# exits 0 (saying why hardware counters cannot be opened where they cannot).
source "$HPC_ROOT/tests/lib.sh"
PROG="$PROGS/counters/touch_pages"
cases=(
    "-h nosuchevent|nosuchevent: unknown event (libpfm4: event not found)"
    "-h page-faults,0|-h: bad value '0'"
    "-h page-faults,99999999999999999999|-h: bad value '99999999999999999999'"
    "-h ,page-faults|-h: bad value ',page-faults'"
    "-h 100|-h: bad value '100'"
    "-h page-faults,10,page-faults,20|page-faults: asked for twice"
    "-h page-faults:nosuchmod|page-faults:nosuchmod: unknown event"
    "-S 0|-S: bad value '0'"
    "-S fast|-S: bad value 'fast'"
    "-S -1|-S: bad value '-1'"
    "-l SIGNOPE|-l: bad value 'SIGNOPE'"
    "-l SIGKILL|-l: bad value 'SIGKILL': it cannot be caught"
    "-l SIGPROF|-l: bad value 'SIGPROF': the collector samples with it"
    "-l 99|-l: bad value '99'"
    "-y USR1,x|-y: bad value 'USR1,x'"
    "-y SIGSEGV|-y: bad value 'SIGSEGV'"
    "-l USR1 -y SIGUSR1|-l and -y: the same signal (USR1)"
)
for c in "${cases[@]}"; do
    args=${c%%|*} want=${c#*|}
    rc=0
    # shellcheck disable=SC2086
    "$HPCOLLECT" -o bad.hpc $args "$PROG" 10 10 >out 2>err || rc=$?
    [ $rc = 2 ] || fail "hpcollect $args: exit $rc, expected 2"
    grep -qF -- "$want" err || fail "hpcollect $args: message '$(cat err)' lacks '$want'"
    [ ! -e bad.hpc ] || fail "hpcollect $args: created an experiment"
    [ ! -s out ] || fail "hpcollect $args: the program ran"
    note "$args: $(cat err)"
done

"$HPCOLLECT" -h list >list.out || fail "-h list: exit $?"
for want in "Aliases (hardware):" "cycles,10000003" "insts," "cache-misses," "branch-misses," \
    "Software events" "task-clock," "page-faults," "context-switches," "cpu-migrations,"; do
    grep -qF -- "$want" list.out || fail "-h list lacks '$want'"
done
awk '/^Aliases/{a=NR} /^PMU events of/{p=NR} /^Software events/{s=NR} END{exit !(a && s && a<s && (!p || (a<p && p<s)))}' list.out ||
    fail "-h list: aliases, then the PMU's events, then software events"
if ! "$HPCOLLECT" -q -o c.hpc -S off -h cycles "$PROG" 10 10 >/dev/null 2>&1; then
    grep -q "Hardware counters cannot be opened on this machine" list.out ||
        fail "-h list does not say that hardware counters cannot be opened here"
fi
note "$(head -8 list.out)"
