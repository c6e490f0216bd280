"""Helpers for test assertions in Python (run with Debian's /usr/bin/python3)."""
import json
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


def check(cond, what):
    if not cond:
        sys.exit(f"FAIL: {what}")
    print(f"ok: {what}")
