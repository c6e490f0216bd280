#!/bin/bash
# The preloaded libraries export only what they must (docs/DEVELOPING.md): each exported
# name of libhpcollect.so is either declared by one of our public headers
# (collector/collector_api.h, include/hpcollect.h) or defined by the system library it
# interposes (libc, the OpenMP runtimes), plus OMPT's tool entry point; the MPI
# wrappers export MPI's names only. And they link the experiment writer
# only: no symbol of the reader (experiment/module.mk's EXP_WRITER_SRCS) is in them, not
# even a hidden one.
source "$HPC_ROOT/tests/lib.sh"
objdir=$(dirname "$HPC_TESTDIR")/obj
syms() { nm -D --defined-only "$1" | awk '{print $3}' | sed 's/@.*//'; }

declared=$(cat "$HPC_ROOT/collector/collector_api.h" "$HPC_ROOT/include/hpcollect.h" |
    grep -oE '\b(hpcollect|hpc)_[a-z_]+ *\(' | tr -d ' (' | sort -u)
check_lib() { # check_lib LIB SYSTEM_LIBS...: every export declared by us or interposed
    local lib=$1 bad="" s
    shift
    [ -f "$lib" ] || fail "$lib not built"
    local theirs
    theirs=$(for l in "$@"; do [ -f "$l" ] && syms "$l"; done | sort -u)
    [ -n "$theirs" ] || fail "none of the system libraries found: $*"
    for s in $(syms "$lib"); do
        grep -qx "$s" <<<"$declared" && continue
        grep -qx "$s" <<<"$theirs" && continue
        [ "$s" = ompt_start_tool ] && continue
        bad="$bad $s"
    done
    [ -z "$bad" ] || fail "$(basename "$lib") exports names that are neither our API nor interposed:$bad"
    note "$(basename "$lib"): $(syms "$lib" | wc -l) exports, each our API or interposed"
}
libc=$(gcc -print-file-name=libc.so.6)
gomp=$(gcc -print-file-name=libgomp.so.1)
omp=$(ls /usr/lib/llvm-*/lib/libomp.so* /usr/lib/x86_64-linux-gnu/libomp.so.5 2>/dev/null | head -1)
check_lib "$HPC_LIB/libhpcollect.so" "$libc" "$gomp" "$omp"
# The MPI wrappers: every export in the MPI standard's namespaces (the wrappers of
# every MPI ABI the generator knows, so not each one is in this libmpi).
for lib in "$HPC_LIB"/libhpcollect-mpi*.so; do # one per MPI ABI
    [ -f "$lib" ] || continue
    bad=$(syms "$lib" | grep -Ev '^(P?MPI|p?mpi)_' | grep -vxF "$declared" || true)
    [ -z "$bad" ] || fail "$(basename "$lib") exports names outside MPI's namespace and our API: $(echo $bad)"
    note "$(basename "$lib"): $(syms "$lib" | wc -l) exports, all MPI names"
done

# The reader's functions: what the full experiment library defines beyond the writer.
[ -f "$objdir/libhpcexp.a" ] && [ -f "$objdir/preload/libhpcexp-writer.a" ] ||
    fail "experiment libraries not found under $objdir"
def() { nm -g --defined-only "$1" 2>/dev/null | awk 'NF == 3 {print $3}' | sort -u; }
reader=$(comm -23 <(def "$objdir/libhpcexp.a") <(def "$objdir/preload/libhpcexp-writer.a"))
grep -qx hpc_reader_open <<<"$reader" && grep -qx hpc_exp_open <<<"$reader" ||
    fail "the reader's symbols were not told apart from the writer's"
for lib in "$HPC_LIB"/libhpcollect*.so; do
    leaked=$(comm -12 <(echo "$reader") <(nm --defined-only "$lib" | awk 'NF == 3 {print $3}' | sort -u))
    [ -z "$leaked" ] || fail "$(basename "$lib") links reader code: $(echo $leaked)"
    note "$(basename "$lib"): no reader symbol ($(echo "$reader" | wc -l) checked)"
done
