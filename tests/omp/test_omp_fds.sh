#!/bin/bash
# The program's descriptors survive its first OpenMP parallel region (issue 24: libunwind's
# default memory reader once closed the program's descriptors 3 and 4 as the first samples
# unwound; the collector reads memory with its own accessor since). progs/omp_fds.c puts
# two files of its own on descriptors 3 and 4, runs a first region of 2 threads x 50 ms of
# CPU under hpcollect -p hi (gcc's build on libgomp and clang's on libomp), then finds the
# same files there (device, inode) and writes a line through each. Checked: both "same",
# the lines in the files, and clock samples in both threads of the region (the unwinder
# ran while the descriptors were open). The gcc build again with the worker's first clock
# muted (HPCOLLECT_DEBUG_LAZY_TIMER_MUTE, as where the kernel's tick keeps missing a
# preempted thread: a fresh-clone run had the worker's 50 ms of CPU unsampled): its one
# implicit task takes it to its perf event at once (collector/source.h, hpc_clock_check).
source "$HPC_ROOT/tests/lib.sh"
[ -x "$HPCOLLECT" ] || skip "hpcollect not built yet (the collector has not landed)"
for cc in gcc clang mute; do
    prog="$PROGS/omp/omp_fds"
    [ $cc = clang ] && prog="$prog.clang"
    mkdir -p $cc
    mute=0
    [ $cc = mute ] && mute=1
    HPCOLLECT_DEBUG_LAZY_TIMER_MUTE=$mute "$HPCOLLECT" -q -p hi -o $cc.hpc "$prog" "$PWD/$cc" 50 >$cc.out 2>$cc.err ||
        fail "$cc: omp_fds failed under hpcollect: $(cat $cc.out $cc.err)"
    [ "$(cat $cc.out)" = "$(printf 'fd 3 same\nfd 4 same')" ] ||
        fail "$cc: the program's descriptors 3 and 4 did not survive its first region: $(cat $cc.out $cc.err)"
    [ "$(cat $cc/three)" = three ] && [ "$(cat $cc/four)" = four ] ||
        fail "$cc: the lines written through 3 and 4 are not in their files: $(cat $cc/three $cc/four)"
    "$HPANALYZE" --format json $cc.hpc statistics >$cc.json || fail "$cc: statistics"
    CC=$cc check_py '
import json, os
cc = os.environ["CC"]
ths = json.load(open(cc + ".json"))["processes"][0]["thread_list"]
busy = [t["seq"] for t in ths if t["samples_read"] > 1]
check(len(busy) >= 2, f"{cc}: clock samples in both threads of the region: threads {busy}")
'
done
