#!/bin/bash
# A signal that kills the process while the collector writes one of the thread's records
# (its stream busy: tests/mpi/test_death once lost the MPI call a rank died in, as the
# thread-state code wrote a record when mpirun's SIGTERM came) ends the process once
# the record is written, and the end's own records are then there. progs/die_in_write
# holds its stream busy through collector_api.h, sends itself SIGTERM there, burns
# 100 ms of CPU (its clock samples blocked meanwhile) and lets go:
#   - it is still alive after the kill ("held": the end waited), dead at the let-go (no
#     "survived"), killed by SIGTERM (exit 143, proc_end says so);
#   - samples were blocked while it held the stream, and the 300 ms of CPU are all
#     sampled: the CPU after its last sample is charged at the end (within 5% of the
#     kernel's rusage in proc_end; before, the end found the stream busy and charged
#     nothing).
source "$HPC_ROOT/tests/lib.sh"
rc=0
"$HPCOLLECT" -q -o d.hpc "$PROGS/collector/die_in_write" 200 100 >d.out 2>d.err || rc=$?
[ $rc = 143 ] || fail "die_in_write exited $rc, want 143 (SIGTERM): $(cat d.out d.err)"
grep -qx held d.out || fail "it died at the kill, inside the write: $(cat d.out)"
! grep -q survived d.out || fail "it survived SIGTERM"
"$HPANALYZE" --format json d.hpc statistics >d.json || fail "statistics"
check_py '
import json
p = json.load(open("d.json"))["processes"][0]
check(p["end"] == "killed by signal 15 (SIGTERM)", "proc_end: " + p["end"])
b = p["stats"]["blocked"]
check(b >= 1, f"{b} samples blocked while the stream was held")
near(p["sampled_cpu_s"], p["os_cpu_s"], 0.05 * p["os_cpu_s"], "sampled CPU beside the kernel at the end")
check(p["os_cpu_s"] >= 0.3, "it burnt 300 ms of CPU")
'
