#!/bin/sh
# Install the Debian packages hpcollect needs; quick (no apt) when all are present.
set -e
PKGS="build-essential clang libomp-dev libclang-rt-14-dev libunwind-dev libpfm4-dev libdw-dev
libelf-dev libopenmpi-dev openmpi-bin mpich libmpich-dev libopen-trace-format2-dev otf2-tools python3-otf2
python3 gfortran binutils chromium gdb heaptrack"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "deps: installing$missing"
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get install -y --no-install-recommends $missing ||
    { $SUDO apt-get update && $SUDO apt-get install -y --no-install-recommends $missing; }
