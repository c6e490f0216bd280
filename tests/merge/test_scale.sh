#!/bin/bash
# timeout: 300
# Memory per merge rank as the job grows and as merge ranks are added (issue 25): the
# same synthetic job (mkjob, 1 thread per rank, 3 iterations) at 64 and 512 ranks,
# merged serially and with `mpirun -np K`, K = 2 and 4; hpmerge --stats gives each merge
# rank's peak anonymous memory. What each added job rank costs (the slope between the two
# sizes, which cancels what does not grow: libraries, MPI, OTF2's buffers):
#   - serially at most 32 KiB per job rank (14.6 measured): every process's definitions
#     and summary until they are unified, the job lean. Before the lean open and the
#     shared member lists it was 98 KiB at these sizes, 112 between 128 and 1024 ranks,
#     growing with the job (every process's schema and records held, and each
#     communicator's N members copied per process: quadratic);
#   - on every merge rank r of K, rank 0 included, at most the serial slope times
#     1/K + 1/8: each merges a share of about 1/K of the processes (rank 0 the first),
#     opening only those, and holds what they cost serially; rank 0 holds besides an entry
#     per job process (its place, name, threads: about 100 bytes), the job-wide summary
#     tables and definitions, for which (and the noise of the 448-rank difference, about
#     0.05 of the serial slope) the eighth is. Measured on rank 0: 0.38-0.44 of the serial
#     slope with K = 2, 0.14 with K = 4; ranks > 0 0.33 (K = 2) and 0.12-0.17 (K = 4).
#     Before rank 0 kept entries instead of the lean job, its processes' summaries and
#     mg_procs, and let the others write their mapping tables, it held 0.79 of the serial
#     slope whatever K (0.95 before it unified the parts' definitions as they came).
# The outputs of the serial and the parallel merges of 512 ranks are identical (summary,
# every definition and event file), as test_parallel.sh checks on a small job.
source "$HPC_ROOT/tests/lib.sh"
# the OTF2 validator reads these traces for a minute; test_memory.sh validates the same
# shape at 256 ranks
export HPMERGE_VALIDATE=0
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" # Open MPI leaks at exit
peak() { sed -n "s/.*rank $2: .*peak anon memory \([0-9]*\) kB.*/\1/p" "$1"; }
# slope A B: kB * 1000 per job rank between 64 and 512 ranks
slope() { echo $((($2 - $1) * 1000 / 448)); }
for n in 64 512; do
    "$PROGS/merge/mkjob" j$n.hpc --ranks $n --threads 1 --iters 3 --samples 2
    "$HPMERGE" -q --stats --no-progress j$n.hpc 2>serial$n.err || { cat serial$n.err; fail "serial merge of $n ranks failed"; }
done
s64=$(peak serial64.err 0) s512=$(peak serial512.err 0)
[ -n "$s64" ] && [ -n "$s512" ] || fail "no memory figures in --stats"
serial_slope=$(slope "$s64" "$s512")
note "serial: $s64 kB at 64 ranks, $s512 kB at 512: $((serial_slope / 1000)).$(((serial_slope % 1000) / 100)) kB per job rank"
if [ "${SANITIZE:-0}" = 1 ]; then
    note "SANITIZE=1: memory bounds not checked (ASan quarantine); outputs still are"
else
    [ "$serial_slope" -le 32000 ] || fail "a serial merge holds $((serial_slope / 1000)) kB per job rank (more than 32)"
fi
command -v mpirun >/dev/null || skip "mpirun not installed (serial bound checked)"
mv j512.hpc/otf2 serial.otf2
mv j512.hpc/summary.json serial.json
(cd serial.otf2 && find . -type f ! -name traces.otf2 | sort) >files.serial
for k in 2 4; do
    for n in 64 512; do
        rm -rf j$n.hpc/otf2 j$n.hpc/summary.*
        mpirun -np $k --oversubscribe "$HPMERGE" -q --stats --no-progress j$n.hpc >par$k.$n.err 2>&1 ||
            { cat par$k.$n.err; fail "mpirun -np $k hpmerge of $n ranks failed"; }
    done
    for r in $(seq 0 $((k - 1))); do
        a=$(peak par$k.64.err $r) b=$(peak par$k.512.err $r)
        [ -n "$a" ] && [ -n "$b" ] || { cat par$k.512.err; fail "no memory figures from merge rank $r of $k"; }
        rs=$(slope "$a" "$b")
        note "merge rank $r of $k: $a kB at 64 ranks, $b kB at 512: $((rs / 1000)).$(((rs % 1000) / 100)) kB per job rank ($((rs * 100 / serial_slope))% of serial)"
        # rs / serial_slope <= 1/k + 1/8, in integers
        [ "${SANITIZE:-0}" = 1 ] || [ $((rs * 8 * k)) -le $((serial_slope * (8 + k))) ] ||
            fail "merge rank $r of $k holds $((rs / 1000)) kB per job rank, serial $((serial_slope / 1000)): more than 1/$k + 1/8 of it"
    done
    cmp serial.json j512.hpc/summary.json || fail "512 ranks: the summary.json of np $k differs"
    (cd j512.hpc/otf2 && find . -type f ! -name traces.otf2 | sort) >files.par
    cmp files.serial files.par || fail "512 ranks, np $k: the archives hold different files"
    while read -r f; do
        cmp -s "serial.otf2/$f" "j512.hpc/otf2/$f" || fail "512 ranks, np $k: $f differs"
    done <files.serial
    note "512 ranks: $(wc -l <files.serial) archive files and summary.json identical, serial and np $k"
done
