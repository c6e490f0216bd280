#!/bin/bash
# The OTF2 validator (tests/otf2validate.py, run on every trace the tests make) finds each
# broken rule: small traces written with the OTF2 Python writer (tests/merge/badtraces.py),
# each breaking one rule, must fail with that rule's message; the one that breaks none
# must pass. A validator that passed everything would pass every real trace too.
source "$HPC_ROOT/tests/lib.sh"
$SYSPY -c 'import otf2' 2>/dev/null || skip "the OTF2 Python reader (python3-otf2) is not installed"
$SYSPY "$HPC_ROOT/tests/merge/badtraces.py" .
expect() { # CASE PATTERN: the validator fails on CASE with a message matching PATTERN
    local rc=0
    $SYSPY "$HPC_ROOT/tests/otf2validate.py" "$1/traces.otf2" 2>"$1.err" || rc=$?
    [ $rc = 1 ] || fail "$1: validator exit $rc, expected 1"
    grep -q -- "$2" "$1.err" || fail "$1: no '$2' in: $(cat "$1.err")"
    [ "$(wc -l <"$1.err")" = 1 ] || fail "$1: more than the one broken rule: $(cat "$1.err")"
    echo "ok: $1: $(cat "$1.err")"
}
$SYSPY "$HPC_ROOT/tests/otf2validate.py" good/traces.otf2 || fail "the good trace was refused"
expect mixed "mutually exclusive"
expect crossed "Leave of main while MPI_Send is the innermost open region"
expect unclosed "1 calling contexts never left"
expect sample_outside "sample at work is not below the open region MPI_Send"
expect bad_unwind "unwind distance 1 points at work, which is not on the previous context's path"
expect coll_outside "MpiCollectiveEnd at 60: outside every MPI region"
expect io_inactive "IoOperationBegin at 12: on out.dat, which is not active"
expect io_twice "IoCreateHandle at 21: creates out.dat, which is active"
expect io_unpaired "completes operation 7 on out.dat without its IoOperationBegin"
expect io_outside "IoCreateHandle at 11: outside every I/O or MPI region"
expect metric_elsewhere "a value of a metric instance recorded by thread 1, not this location"
