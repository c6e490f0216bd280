"""What the Python benchmarks share: timing one run of a command, the load average."""
import os
import subprocess
import sys
import time


def run(cmd, cwd, quiet=False):
    """Run cmd in cwd, its output discarded (and its stderr too if quiet); return its
    wall time and its CPU time (user + system, from wait4), or exit if it failed."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL if quiet else None)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    if status != 0:
        sys.exit(f"bench: {cmd} failed: status {status}")
    return wall, ru.ru_utime + ru.ru_stime


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])
