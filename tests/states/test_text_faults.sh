#!/bin/bash
# timeout: 60
# A major fault on code is Text Page Fault, not Data: text_faults runs code from copies of
# libbigtext.so that are not in the page cache (progs/text_faults.c), so its first calls
# into them sleep in major faults whose address is the faulting instruction's own. In the
# period the program's sample points put around the calls:
#   - Text Page Fault holds those sleeps: more than nothing, no more than the thread's
#     time off the CPU around the calls (wall - CPU);
#   - no Data Page Fault.
# A fault's sleep loses its run-queue delay to Wait CPU; on a loaded machine that can be
# all of it (the read was quick, the wait for a CPU long): such a run cannot show the
# text fault and is run again, up to 3 times. A Data Page Fault fails at once.
source "$HPC_ROOT/tests/lib.sh"
mkdir -p data
for attempt in 1 2 3; do
    rm -rf tf.hpc
    "$HPCOLLECT" -q -o tf "$PROGS/states/text_faults" "$PROGS/states/libbigtext.so" "$PWD/data" \
        >tf.out || fail "text_faults failed: $(cat tf.out)"
    read -r _ _ _ wall cpu _ _ rd majflt < <(grep "^phase run_text" tf.out)
    [ "${majflt:-0}" -ge 1 ] ||
        skip "no major fault on the copies' code (majflt ${majflt:-?}): page cache kept them"
    rc=0
    WALL=$wall CPU=$cpu RD=$rd check_py '
import os
# (the loader may fault on data before the period: dlopen of the original relocates its
# pages; and the copies have no unwind information, so their faults stacks stop there)
tot = {f["name"]: f for f in analyze("tf.hpc", "--samples", "run_text done", "functions")["functions"]}["<Total>"]
off = float(os.environ["WALL"]) - float(os.environ["CPU"])
rd = float(os.environ["RD"])
tp, dp, wc = (tot.get(f"incl_{k}_s", 0) for k in ("text_pf", "data_pf", "wait_cpu"))
check(dp == 0, f"no Data Page Fault while run_text ran ({dp:.6f} s)")
check(tp <= off + 0.002, f"Text Page Fault {tp:.6f} s: no more than the time off the CPU around the calls ({off:.6f} s)")
if tp == 0:
    check(wc > 0, f"no Text Page Fault: the sleeps all went to Wait CPU ({wc:.6f} s; run delay {rd:.6f} s)")
    raise SystemExit(3)
check(tp > 0, f"Text Page Fault {tp:.6f} s while run_text ran: the code fault is text")
' || rc=$?
    case $rc in
    0) exit 0 ;;
    3) note "attempt $attempt: the faults' sleeps were all run-queue delay; again" ;;
    *) exit 1 ;;
    esac
done
fail "3 runs without a Text Page Fault"
