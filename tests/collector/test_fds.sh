#!/bin/bash
# The program's descriptors are its own (fds.c, source_perf_clock.c, sigsafe_unwind.c):
#   - open_many, with 4 threads alive, opens exactly as many files under hpcollect as
#     alone: with a soft and hard limit of 16 (16 less the 3-4 descriptors its parent left
#     open could open alone, 4 less collected before the descriptors moved), with
#     a soft limit of 16 under a hard one of 1024, and when the program itself raises
#     that soft limit of 16 to 40, then lowers it to 20 (our descriptor, above 16, is
#     moved above 40 by the setrlimit that put it inside the program's range)
#   - limit_watch (below): the soft limit a move raises for a moment is never the program's
#   - fd_reuse closes every descriptor it did not open and reuses the numbers for a pipe
#     of its own while it is sampled where the unwinder guesses (no unwind information):
#     libunwind's address check wrote into and read from that pipe (chromium's zygote
#     children hung in it); the pipe must hold exactly what the program wrote
source "$HPC_ROOT/tests/lib.sh"
OPEN="$PROGS/collector/open_many"
same() { # same NAME PRLIMIT_ARGS -- PROGRAM ARGS...
    local name=$1 lim=$2
    shift 3
    prlimit $lim "$@" >plain.$name 2>start.$name || fail "$name plain: $(cat plain.$name)"
    prlimit $lim "$HPCOLLECT" -q -o $name.hpc "$@" >hpc.$name || fail "$name: $(cat hpc.$name)"
    diff plain.$name hpc.$name >/dev/null ||
        fail "$name: different under hpcollect: $(diff plain.$name hpc.$name | tr '\n' ' ')"
    note "ok: $name: $(tr '\n' ';' <hpc.$name)"
}
same hard16 --nofile=16 -- "$OPEN"
same soft16 --nofile=16:1024 -- "$OPEN"
same setrlimit --nofile=16:1024 -- "$OPEN" 16 40 20
# alone, it opens all the limit leaves (its parent's descriptors below it counted at its start)
inherited=$(sed -n 's/^open at start //p' start.hard16)
grep -q "soft limit 16: opened $((16 - inherited))," plain.hard16 ||
    fail "plain open_many, $inherited open at start: $(cat plain.hard16)"

"$HPCOLLECT" -q -p hi -o r.hpc "$PROGS/collector/fd_reuse" >r.out || fail "fd_reuse: $(cat r.out)"
grep -qx "pipe intact" r.out || fail "fd_reuse: $(cat r.out)"
"$HPANALYZE" --format json r.hpc statistics >r.json || fail "fd_reuse: statistics"
check_py '
import json
p = json.load(open("r.json"))["processes"][0]
n = p["samples_read"]
check(n >= 10, f"fd_reuse: {n} samples, its CPU time sampled at 1 ms")
'

# A move raises the soft limit for a moment (collector/sigsafe_fds.c): the program never
# sees it. HPCOLLECT_DEBUG_FD_MOVE_WAIT=1 keeps each move of a thread's descriptors raised
# until the program has read its limit 16 times or sets it; limit_watch reads it through
# getrlimit, prlimit, getdtablesize and sysconf (4 reads) around a raw prlimit64 system
# call, so the raw call falls inside every moment: it saw one ("raw raised yes": a move was
# tested), the C library's readers never did ("seen 0"), and a setrlimit made during a
# move is what the program has after it ("set kept yes"; the move's putting back of the
# limit it found undid it before)
HPCOLLECT_DEBUG_FD_MOVE_WAIT=1 prlimit --nofile=1000:4096 "$HPCOLLECT" -q -o lw.hpc \
    "$PROGS/collector/limit_watch" >lw.out || fail "limit_watch: $(cat lw.out)"
for want in "raw raised yes" "seen 0" "set during a move yes" "set kept yes"; do
    grep -qx "$want" lw.out || fail "limit_watch: want \"$want\": $(tr '\n' ';' <lw.out)"
done
note "ok: limit_watch: $(tr '\n' ';' <lw.out)"
