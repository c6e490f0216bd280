#!/bin/bash
# timeout: 240
# `mpirun -np K hpmerge EXP` (OTF2's MPI collective callbacks, processes shared among
# merge ranks) writes the same archive and summary as a serial merge: every definition
# and event file byte for byte (the anchor differs only in OTF2's random trace id), and
# identical summary.txt and summary.json.
source "$HPC_ROOT/tests/lib.sh"
command -v mpirun >/dev/null || skip "mpirun not installed"
# Open MPI itself leaks at exit; the sanitizer would report that as our failure.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
"$PROGS/merge/mkjob" job.hpc --ranks 5 --threads 3 --iters 8 --counters --offset-ns 5000 \
    --drift-ppm 20
"$HPMERGE" -q job.hpc || fail "serial merge failed"
mv job.hpc/otf2 serial.otf2
cp job.hpc/summary.txt serial.txt
cp job.hpc/summary.json serial.json
otf2-print -A serial.otf2/traces.otf2 | grep -v "^Trace identifier" >serial.print
for np in 2 3; do
    rm -rf job.hpc/otf2 job.hpc/summary.*
    mpirun -np $np --oversubscribe "$HPMERGE" -q job.hpc >mpi.out 2>&1 ||
        { cat mpi.out; fail "mpirun -np $np hpmerge failed"; }
    cmp serial.json job.hpc/summary.json || fail "np $np: summary.json differs"
    cmp serial.txt job.hpc/summary.txt || fail "np $np: summary.txt differs"
    (cd serial.otf2 && find . -type f ! -name traces.otf2 | sort) >files.serial
    (cd job.hpc/otf2 && find . -type f ! -name traces.otf2 | sort) >files.par
    cmp files.serial files.par || fail "np $np: the archives hold different files"
    while read -r f; do
        cmp "serial.otf2/$f" "job.hpc/otf2/$f" || fail "np $np: $f differs"
    done <files.serial
    otf2-print -A job.hpc/otf2/traces.otf2 | grep -v "^Trace identifier" >par.print
    cmp serial.print par.print || fail "np $np: otf2-print -A output differs"
    note "np $np: $(wc -l <files.serial) files identical, otf2-print -A identical"
done
# more merge ranks than processes: some ranks merge nothing
rm -rf job.hpc/otf2 job.hpc/summary.*
"$PROGS/merge/mkjob" small.hpc --ranks 2 --threads 1 --iters 3
"$HPMERGE" -q small.hpc && mv small.hpc/summary.json small.serial.json
mpirun -np 4 --oversubscribe "$HPMERGE" -q small.hpc >mpi.out 2>&1 ||
    { cat mpi.out; fail "mpirun -np 4 on a 2-process job failed"; }
cmp small.serial.json small.hpc/summary.json || fail "np 4 on 2 processes: summary differs"
otf2-print --silent -Werror small.hpc/otf2/traces.otf2 >/dev/null || fail "np 4: archive unreadable"
# a missing rank in the share of merge rank 2 of 3 (each merge rank > 0 opens only its
# share and learns from rank 0 which ranks are missing): the messages of its neighbours
# (merged by ranks 1 and 2) to it are counted the same as serially
"$PROGS/merge/mkjob" gap.hpc --ranks 6 --threads 2 --iters 6 --missing 4
"$HPMERGE" -q gap.hpc 2>/dev/null || fail "serial merge of gap.hpc failed"
grep -q "messages to or from ranks that left no data" gap.hpc/summary.txt ||
    fail "the serial summary counts no messages to the missing rank"
mv gap.hpc/otf2 gap.serial.otf2
mv gap.hpc/summary.txt gap.serial.txt
mpirun -np 3 --oversubscribe "$HPMERGE" -q gap.hpc >mpi.out 2>&1 ||
    { cat mpi.out; fail "mpirun -np 3 on a job with a missing rank failed"; }
cmp gap.serial.txt gap.hpc/summary.txt || fail "np 3, a missing rank: summary.txt differs"
(cd gap.serial.otf2 && find . -type f ! -name traces.otf2 | sort) >files.serial
while read -r f; do
    cmp "gap.serial.otf2/$f" "gap.hpc/otf2/$f" || fail "np 3, a missing rank: $f differs"
done <files.serial
note "np 3, rank 4 of 6 missing: $(wc -l <files.serial) files and summary.txt identical"
