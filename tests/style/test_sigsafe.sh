#!/bin/bash
# The signal-safe boundary (collector/sigsafe.h): every object built from a sigsafe_*.c
# file (collector/, experiment/, mpi_wrap/) calls only functions of other sigsafe
# objects and the async-signal-safe functions of tests/style/sigsafe_allowed.txt, each
# listed with its reason; data may be touched. A malloc, a printf, a mutex in code a
# signal handler can reach fails here, naming the object and the function.
source "$HPC_ROOT/tests/lib.sh"
objdir=$(dirname "$HPC_TESTDIR")/obj/preload
allowed="$HPC_ROOT/tests/style/sigsafe_allowed.txt"
objs=$(ls "$objdir"/*/sigsafe_*.o 2>/dev/null)
[ "$(echo "$objs" | wc -w)" -ge 10 ] || fail "sigsafe objects not found under $objdir: $objs"
# what the sigsafe objects define (text), and the data the libraries define
defined=$(for o in $objs; do nm --defined-only -g "$o" | awk '$2 ~ /[TtWi]/ {print $3}'; done | sort -u)
data=$(for l in "$HPC_LIB"/libhpcollect*.so; do nm --defined-only "$l" | awk '$2 ~ /[BbDdRrVv]/ {print $3}'; done | sort -u)
global=$(grep -v '^#' "$allowed" | awk 'NF && $1 !~ /:/ {print $1}' | sort -u)
bad=""
n=0
for o in $objs; do
    base=$(basename "$o")
    mine=$(grep -v '^#' "$allowed" | awk -v o="$base" 'split($1, p, ":") == 2 && p[1] == o {print p[2]}')
    for s in $(nm -u "$o" | awk '{print $2}'); do
        n=$((n + 1))
        case $s in # the sanitizers' checks the compiler inserts (make check SANITIZE=1)
        __asan_* | __ubsan_* | __sanitizer_*) continue ;;
        esac
        grep -qxF "$s" <<<"$defined" && continue
        grep -qxF "$s" <<<"$global" && continue
        grep -qxF "$s" <<<"$data" && continue
        [ -n "$mine" ] && grep -qxF "$s" <<<"$mine" && continue
        bad="$bad ${o#$objdir/}:$s"
    done
done
[ -z "$bad" ] || fail "signal handler code calls what is not signal-safe (or lives outside sigsafe_*.c):$bad"
echo "ok: $(echo "$objs" | wc -w) sigsafe objects, $n imports, each sigsafe code or allowed"
