#!/bin/bash
# timeout: 300
# Memory per merge rank as the job grows and as merge ranks are added (issue 25): the
# same synthetic job (mkjob, 1 thread per rank, 3 iterations) at 64 and 512 ranks,
# merged serially and with `mpirun -np 2`; hpmerge --stats gives each merge rank's peak
# anonymous memory. What each added job rank costs (the slope between the two sizes,
# which cancels what does not grow: libraries, MPI, OTF2's buffers):
#   - serially at most 32 KiB per job rank (13 measured). Before the lean open and the
#     shared member lists it was 98 KiB at these sizes, 112 between 128 and 1024 ranks,
#     growing with the job (every process's schema and records held, and each
#     communicator's N members copied per process: quadratic);
#   - on merge rank 1 of 2 (its share of the processes: it opens only those, rank 0 the
#     whole job) at most half the serial slope (0.33 measured). Before merge ranks > 0
#     opened only their share, every merge rank held every process lean and its
#     locations: 0.63;
#   - on merge rank 0 of 2 (the whole job lean, every process's summary, its share's
#     definitions: the others' are unified as they come and let go of) at most 0.88 times
#     the serial slope (0.79 measured; 0.95 when it held every process's definitions).
# The outputs of the serial and the parallel merge of 512 ranks are identical (summary,
# every definition and event file), as test_parallel.sh checks on a small job.
source "$HPC_ROOT/tests/lib.sh"
# the OTF2 validator reads these traces for a minute; test_memory.sh validates the same
# shape at 256 ranks
export HPMERGE_VALIDATE=0
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" # Open MPI leaks at exit
peak() { sed -n "s/.*rank $2: .*peak anon memory \([0-9]*\) kB.*/\1/p" "$1"; }
for n in 64 512; do
    "$PROGS/merge/mkjob" j$n.hpc --ranks $n --threads 1 --iters 3 --samples 2
    "$HPMERGE" -q --stats --no-progress j$n.hpc 2>serial$n.err || { cat serial$n.err; fail "serial merge of $n ranks failed"; }
done
s64=$(peak serial64.err 0) s512=$(peak serial512.err 0)
[ -n "$s64" ] && [ -n "$s512" ] || fail "no memory figures in --stats"
serial_slope=$(((s512 - s64) * 1000 / 448)) # bytes-ish (kB * 1000) per job rank
note "serial: $s64 kB at 64 ranks, $s512 kB at 512: $((serial_slope / 1000)).$(((serial_slope % 1000) / 100)) kB per job rank"
if [ "${SANITIZE:-0}" = 1 ]; then
    note "SANITIZE=1: memory bounds not checked (ASan quarantine); outputs still are"
else
    [ "$serial_slope" -le 32000 ] || fail "a serial merge holds $((serial_slope / 1000)) kB per job rank (more than 32)"
fi
command -v mpirun >/dev/null || skip "mpirun not installed (serial bound checked)"
mv j512.hpc/otf2 serial.otf2
mv j512.hpc/summary.json serial.json
for n in 64 512; do
    rm -rf j$n.hpc/otf2 j$n.hpc/summary.*
    mpirun -np 2 --oversubscribe "$HPMERGE" -q --stats --no-progress j$n.hpc >par$n.err 2>&1 ||
        { cat par$n.err; fail "mpirun -np 2 hpmerge of $n ranks failed"; }
done
r64=$(peak par64.err 0) r512=$(peak par512.err 0)
[ -n "$r64" ] && [ -n "$r512" ] || { cat par512.err; fail "no memory figures from merge rank 0"; }
root_slope=$(((r512 - r64) * 1000 / 448))
note "merge rank 0 of 2: $r64 kB at 64 ranks, $r512 kB at 512: $((root_slope / 1000)).$(((root_slope % 1000) / 100)) kB per job rank"
if [ "${SANITIZE:-0}" != 1 ]; then
    [ "$((root_slope * 100))" -le "$((serial_slope * 88))" ] ||
        fail "merge rank 0 of 2 holds $((root_slope / 1000)) kB per job rank, serial $((serial_slope / 1000)): not less than 0.88 of it"
fi
p64=$(peak par64.err 1) p512=$(peak par512.err 1)
[ -n "$p64" ] && [ -n "$p512" ] || { cat par512.err; fail "no memory figures from merge rank 1"; }
par_slope=$(((p512 - p64) * 1000 / 448))
note "merge rank 1 of 2: $p64 kB at 64 ranks, $p512 kB at 512: $((par_slope / 1000)).$(((par_slope % 1000) / 100)) kB per job rank"
if [ "${SANITIZE:-0}" != 1 ]; then
    [ "$((par_slope * 100))" -le "$((serial_slope * 50))" ] ||
        fail "merge rank 1 of 2 holds $((par_slope / 1000)) kB per job rank, serial $((serial_slope / 1000)): more than half"
fi
cmp serial.json j512.hpc/summary.json || fail "512 ranks: the parallel summary.json differs"
(cd serial.otf2 && find . -type f ! -name traces.otf2 | sort) >files.serial
(cd j512.hpc/otf2 && find . -type f ! -name traces.otf2 | sort) >files.par
cmp files.serial files.par || fail "512 ranks: the archives hold different files"
while read -r f; do
    cmp -s "serial.otf2/$f" "j512.hpc/otf2/$f" || fail "512 ranks: $f differs"
done <files.serial
note "512 ranks: $(wc -l <files.serial) archive files and summary.json identical, serial and np 2"
