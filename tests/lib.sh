# tests/lib.sh - shared helpers for test scripts; source it first.
#   HPC_ROOT HPC_BIN HPC_LIB HPC_TESTDIR HPC_TMP come from tests/run-tests.sh.
set -eu
: "${HPC_ROOT:=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
: "${HPC_BIN:=$HPC_ROOT/bin}" "${HPC_LIB:=$HPC_ROOT/lib}"
: "${HPC_TESTDIR:=$HPC_ROOT/build/tests}" "${HPC_TMP:=$(mktemp -d)}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
HPCOLLECT="$HPC_BIN/hpcollect"
HPANALYZE="$HPC_BIN/hpanalyze"
HPMERGE_BIN="$HPC_BIN/hpmerge"          # the real one; $HPMERGE validates what it writes
export HPMERGE_BIN
HPMERGE="$HPC_ROOT/tests/hpmerge-checked"
SYSPY=/usr/bin/python3          # Debian's python: the one with the otf2 module
PROGS="$HPC_TESTDIR"            # compiled test programs: $PROGS/<area>/<name>

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "skipped: $*"; exit 77; }
note() { echo "# $*"; }

# check_py EXPR...: evaluate python assertions with helpers from tests/hpctest.py
check_py() { PYTHONPATH="$HPC_ROOT/tests" $SYSPY -c "from hpctest import *; $*"; }
