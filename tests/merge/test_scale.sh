#!/bin/bash
# timeout: 300
# Memory per merge rank as the job grows and as merge ranks are added (issue 25): the
# same synthetic job (mkjob, 1 thread per rank, 3 iterations) at 128 and 1024 ranks,
# merged serially and with `mpirun -np 2`; hpmerge --stats gives each merge rank's peak
# anonymous memory. What each added job rank costs (the slope between the two sizes,
# which cancels what does not grow: libraries, MPI, OTF2's buffers):
#   - serially at most 32 KiB per job rank. Before the lean open and the shared member
#     lists it was about 110 KiB at these sizes and grew with the job (every process's
#     schema and records held, and each communicator's N members copied per process:
#     quadratic);
#   - on merge rank 1 of 2 (its share of the processes, plus what every merge rank keeps
#     of every process: the lean process and its locations) at most 0.85 times the
#     serial slope (0.73 measured: the shares halve, the lean processes do not).
# The outputs of the serial and the parallel merge of 1024 ranks are identical (summary,
# every definition and event file), as test_parallel.sh checks on a small job.
source "$HPC_ROOT/tests/lib.sh"
# the OTF2 validator reads these traces for a minute; test_memory.sh validates the same
# shape at 256 ranks
export HPMERGE_VALIDATE=0
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" # Open MPI leaks at exit
peak() { sed -n "s/.*rank $2: .*peak anon memory \([0-9]*\) kB.*/\1/p" "$1"; }
for n in 128 1024; do
    "$PROGS/merge/mkjob" j$n.hpc --ranks $n --threads 1 --iters 3 --samples 2
    "$HPMERGE" -q --stats --no-progress j$n.hpc 2>serial$n.err || { cat serial$n.err; fail "serial merge of $n ranks failed"; }
done
s128=$(peak serial128.err 0) s1024=$(peak serial1024.err 0)
[ -n "$s128" ] && [ -n "$s1024" ] || fail "no memory figures in --stats"
serial_slope=$(((s1024 - s128) * 1000 / 896)) # bytes-ish (kB * 1000) per job rank
note "serial: $s128 kB at 128 ranks, $s1024 kB at 1024: $((serial_slope / 1000)).$(((serial_slope % 1000) / 100)) kB per job rank"
if [ "${SANITIZE:-0}" = 1 ]; then
    note "SANITIZE=1: memory bounds not checked (ASan quarantine); outputs still are"
else
    [ "$serial_slope" -le 32768 ] || fail "a serial merge holds $((serial_slope / 1000)) kB per job rank (more than 32)"
fi
command -v mpirun >/dev/null || skip "mpirun not installed (serial bound checked)"
mv j1024.hpc/otf2 serial.otf2
mv j1024.hpc/summary.json serial.json
for n in 128 1024; do
    rm -rf j$n.hpc/otf2 j$n.hpc/summary.*
    mpirun -np 2 --oversubscribe "$HPMERGE" -q --stats --no-progress j$n.hpc >par$n.err 2>&1 ||
        { cat par$n.err; fail "mpirun -np 2 hpmerge of $n ranks failed"; }
done
p128=$(peak par128.err 1) p1024=$(peak par1024.err 1)
[ -n "$p128" ] && [ -n "$p1024" ] || { cat par1024.err; fail "no memory figures from merge rank 1"; }
par_slope=$(((p1024 - p128) * 1000 / 896))
note "merge rank 1 of 2: $p128 kB at 128 ranks, $p1024 kB at 1024: $((par_slope / 1000)).$(((par_slope % 1000) / 100)) kB per job rank"
if [ "${SANITIZE:-0}" != 1 ]; then
    [ "$((par_slope * 100))" -le "$((serial_slope * 85))" ] ||
        fail "merge rank 1 of 2 holds $par_slope/1000 kB per job rank, serial $serial_slope/1000: not less"
fi
cmp serial.json j1024.hpc/summary.json || fail "1024 ranks: the parallel summary.json differs"
(cd serial.otf2 && find . -type f ! -name traces.otf2 | sort) >files.serial
(cd j1024.hpc/otf2 && find . -type f ! -name traces.otf2 | sort) >files.par
cmp files.serial files.par || fail "1024 ranks: the archives hold different files"
while read -r f; do
    cmp -s "serial.otf2/$f" "j1024.hpc/otf2/$f" || fail "1024 ranks: $f differs"
done <files.serial
note "1024 ranks: $(wc -l <files.serial) archive files and summary.json identical, serial and np 2"
