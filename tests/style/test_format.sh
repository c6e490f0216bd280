#!/bin/bash
# Every C source and header is as clang-format makes it with the project's .clang-format
# (`make format` fixes it); the test names the files that are not.
source "$HPC_ROOT/tests/lib.sh"
command -v clang-format >/dev/null || skip "clang-format not installed"
cd "$HPC_ROOT"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    files=$(git ls-files '*.c' '*.h')
else
    files=$(find . -path ./build -prune -o \( -name '*.c' -o -name '*.h' \) -print)
fi
[ -n "$files" ] || fail "no C files found under $HPC_ROOT"
bad=""
for f in $files; do
    clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || bad="$bad $f"
done
[ -z "$bad" ] || fail "not clang-formatted (run make format):$bad"
echo "ok: $(echo "$files" | wc -w) files formatted"
