"""Helpers for test assertions in Python (run with Debian's /usr/bin/python3)."""
import json
import math
import os
import subprocess
import sys

BIN = os.environ.get("HPC_BIN", os.path.join(os.path.dirname(__file__), "..", "bin"))


def analyze(exp, *args, fmt="json"):
    """Run hpanalyze with --format fmt and return parsed JSON (or text)."""
    cmd = [os.path.join(BIN, "hpanalyze"), "--format", fmt, exp] + list(args)
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)}: exit {r.returncode}: {r.stderr.strip()}")
    return json.loads(r.stdout) if fmt == "json" else r.stdout


def near(value, expected, tol, what):
    """Assert |value - expected| <= tol with a readable message."""
    if abs(value - expected) > tol:
        sys.exit(f"FAIL: {what}: {value:.4f}, expected {expected:.4f} +- {tol}")
    print(f"ok: {what}: {value:.4f} (expected {expected:.4f} +- {tol})")


# Bounds on sampled shares. A share p estimated from n samples drawn independently at
# random has the binomial standard deviation sqrt(p (1 - p) / n); SIGMAS of them are
# exceeded by chance about once in 1.7 million checks (normal tail at 5). The collector's
# samples are regular in each thread's CPU time, which scatters them less than random
# draws do, so these bounds are on the safe side. For a share near 0 or 1 the variance
# is taken as at least 1/n (a few samples either way are always allowed).
SIGMAS = 5.0


def share_tol(p, n, sigmas=SIGMAS):
    """Half-width (a fraction) within which a share p measured from n samples stays."""
    n = max(int(n), 1)
    p = min(max(float(p), 0.0), 1.0)
    return sigmas * math.sqrt(max(p * (1 - p), 1.0 / n) / n)


def shares_tol(p, n1, n2, sigmas=SIGMAS):
    """The same for the difference of two independent shares near p, of n1 and n2 samples."""
    return math.hypot(share_tol(p, n1, sigmas), share_tol(p, n2, sigmas))


def nsamples(seconds, interval_s):
    """Samples behind `seconds` of sampled CPU time at clock interval interval_s (each
    sample weighs the CPU time since the previous one: the interval), for reports that
    give times but no sample counts."""
    return max(1, round(seconds / interval_s))


def near_share(value, expected, n, what, scale=1.0, slack=0.0, sigmas=SIGMAS):
    """Assert a sampled share is expected within share_tol(expected, n) (+ slack, for what
    is not sampling: say why where it is used). scale=100 for percentages."""
    tol = scale * (share_tol(expected / scale, n, sigmas) + slack)
    near(value, expected, round(tol, 6), f"{what} ({int(n)} samples)")


def near_time_share(value_s, expected_s, total_s, n, what, slack_s=0.0, sigmas=SIGMAS):
    """Assert the sampled time of a part of total_s seconds (n samples in all) is
    expected_s within total_s * share_tol(expected_s / total_s, n) (+ slack_s)."""
    p = expected_s / total_s if total_s > 0 else 0.0
    tol = total_s * share_tol(p, n, sigmas) + slack_s
    near(value_s, expected_s, round(tol, 6), f"{what} ({int(n)} samples)")


def interposers():
    """The names the collector interposes (collector/interpose.def and the tables it
    includes). A sample that falls in the few instructions of an interposer (malloc, free,
    pthread_create ...) shows it, in the user view, by the name the program called."""
    import glob
    import re
    names = set()
    for path in glob.glob(os.path.join(os.path.dirname(__file__), "..", "collector", "*.def")):
        with open(path) as f:
            names |= set(re.findall(r"^HPC_FN\((\w+),", f.read(), re.M))
    return names


def check(cond, what):
    if not cond:
        sys.exit(f"FAIL: {what}")
    print(f"ok: {what}")
