#!/bin/bash
# timeout: 60
# A major fault on code is Text Page Fault, not Data: text_faults runs code from a copy of
# libbigtext.so that is not in the page cache (progs/text_faults.c), so its first call
# into it sleeps in a major fault whose address is the faulting instruction's own. The
# thread's Text Page Fault holds that sleep (no more than wall - CPU - run delay around
# the calls, which holds it), its Data Page Fault stays empty.
source "$HPC_ROOT/tests/lib.sh"
mkdir -p data
"$HPCOLLECT" -q -o tf "$PROGS/states/text_faults" "$PROGS/states/libbigtext.so" "$PWD/data" \
    >tf.out || fail "text_faults failed: $(cat tf.out)"
read -r _ _ _ wall cpu _ _ rd majflt < <(grep "^phase run_text" tf.out)
[ "${majflt:-0}" -ge 1 ] || skip "no major fault on the copy's code (majflt ${majflt:-?}): page cache kept it"
check_py "
st = analyze('tf.hpc', 'statistics')['processes'][0]['thread_states']
sleep = $wall - $cpu - $rd
tp = st['text_pf_s']
check(tp > 0, f'Text Page Fault {tp:.6f} s: the code fault is text')
check(st['text_pf_s'] <= sleep + 0.002, f'no more than the sleep around the calls ({sleep:.6f} s)')
check(st['data_pf_s'] == 0, 'no Data Page Fault')
"
