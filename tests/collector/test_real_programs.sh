#!/bin/bash
# timeout: 240
# Real programs run under hpcollect (default settings) exactly as without it: the same
# standard output and exit status, and an experiment of each process.
#   python3        a small computation and a subprocess
#   gcc            compiles and links a C file (cc1, as, collect2, ld: exec'd helpers)
#   make -j2       two compiles in parallel and a failing rule (status 2 either way)
#   chromium       --headless --dump-dom of a page whose script edits the DOM (zygote,
#                  utility and renderer processes; it aborted when our sampler thread
#                  made its zygote multi-threaded, and its network service crashed again
#                  and again when our exit closed a descriptor chromium had reused)
#   unshare        --user --map-root-user id: CLONE_NEWUSER needs a single-threaded
#                  caller ("Invalid argument" while our sampler thread ran)
# A program that is not installed is skipped with a note; the test fails on any
# difference.
source "$HPC_ROOT/tests/lib.sh"
ran=0
# same NAME CMD...: run CMD plain and under hpcollect; same stdout, same status
same() {
    local name=$1
    shift
    command -v "$1" >/dev/null || { note "$name: $1 not installed; skipped"; return 0; }
    local want got rc_want rc_got
    want=$("$@" 2>plain.$name.err) && rc_want=0 || rc_want=$?
    got=$("$HPCOLLECT" -q -o "$name.hpc" -- "$@" 2>hpc.$name.err) && rc_got=0 || rc_got=$?
    [ "$rc_got" = "$rc_want" ] ||
        fail "$name: exit status $rc_got under hpcollect, $rc_want plain; stderr: $(head -40 hpc.$name.err)"
    [ "$got" = "$want" ] ||
        fail "$name: output differs under hpcollect: $(diff <(echo "$want") <(echo "$got") | head -10)"
    [ -f "$name.hpc/main/process.hpe" ] || fail "$name: no experiment of the main process"
    note "ok: $name: same output ($(echo "$want" | wc -l) lines) and status $rc_want"
    ran=$((ran + 1))
}

cat >prog.py <<'PY'
import subprocess, sys
print(sum(i * i for i in range(200000)))
print(subprocess.run([sys.executable, "-c", "print('child')"], capture_output=True, text=True).stdout.strip())
PY
same python python3 prog.py

cat >hello.c <<'C'
#include <stdio.h>
int main(void) { puts("hello from gcc"); return 3; }
C
same gcc sh -c 'gcc -O1 -o hello hello.c && ./hello; echo "status $?"'

mkdir -p mk && cat >mk/Makefile <<'MK'
all: a.o b.o
	@echo linked
%.o: %.c
	@gcc -c -o $@ $<
bad:
	@echo failing; exit 3
MK
printf 'int a(void) { return 1; }\n' >mk/a.c
printf 'int b(void) { return 2; }\n' >mk/b.c
same make sh -c 'rm -f mk/*.o; make -s -C mk -j2 all && make -s -C mk bad; echo "status $?"'

same unshare unshare --user --map-root-user id -u

cat >page.html <<'HTML'
<html><body><p id="x">static</p><script>document.getElementById("x").textContent = "dom " + (6 * 7);</script></body></html>
HTML
# (--no-sandbox: chromium refuses to run as root without it)
same chromium chromium --headless --no-sandbox --disable-gpu --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$PWD/chrome-profile" --dump-dom "file://$PWD/page.html"
[ $ran -gt 0 ] || skip "none of python3, gcc, make, unshare, chromium is installed"
