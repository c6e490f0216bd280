"""Helpers for the MPI tests (tests/mpi/test_*.sh): the `mpi` report and raw records.

Used with tests/hpctest.py (check, near).
"""
import json
import os
import subprocess
import sys

BIN = os.environ.get("HPC_BIN", os.path.join(os.path.dirname(__file__), "..", "..", "bin"))
TESTDIR = os.environ.get("HPC_TESTDIR", os.path.join(os.path.dirname(__file__), "..", "..",
                                                     "build", "tests"))
DUMP = os.path.join(TESTDIR, "tools", "hpexp-dump")


def mpi_report(exp):
    """hpanalyze --format json EXP mpi, parsed."""
    p = subprocess.run([os.path.join(BIN, "hpanalyze"), "--format", "json", exp, "mpi"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"FAIL: hpanalyze {exp} mpi: exit {p.returncode}\n{p.stderr}")
    return json.loads(p.stdout)


def ranks(rep):
    """{rank: row} of the per-rank table."""
    return {r["rank"]: r for r in rep["ranks"]}


def per_rank_call(rep, name):
    """{rank: sums} of one MPI function (empty if never called)."""
    for c in rep["calls"]:
        if c["name"] == name:
            return {r["rank"]: r for r in c["ranks"]}
    return {}


def records(path, kind=None):
    """Records of one stream file as dicts (hpexp-dump), optionally of one kind."""
    out = subprocess.run([DUMP, path], capture_output=True, text=True).stdout
    recs = [json.loads(l) for l in out.splitlines() if l.startswith('{"file"')]
    return [r for r in recs if kind is None or r["record"] == kind]


def thread_records(exp, proc, kind=None):
    """{thread label "PROC/t<seq>.hpe": its records} of one process, optionally of one kind.
    Per thread, not per file: a stream holds the threads that reused it one after another
    (hpexp-dump of the experiment names each thread's records by its seq)."""
    out = subprocess.run([DUMP, exp], capture_output=True, text=True).stdout
    per = {}
    for line in out.splitlines():
        if not line.startswith('{"file"'):
            continue
        r = json.loads(line)
        if r["file"].startswith(proc + "/t"):
            lst = per.setdefault(r["file"], [])
            if kind is None or r["record"] == kind:
                lst.append(r)
    return per


def varints(hexstr):
    """Decode a packed-varint BYTES field as hpexp-dump prints it (hex)."""
    b, vals, v, shift = bytes.fromhex(hexstr), [], 0, 0
    for x in b:
        v |= (x & 0x7F) << shift
        shift += 7
        if not x & 0x80:
            vals.append(v)
            v, shift = 0, 0
    return vals


def expect(row, what, **want):
    """Check that row[key] == value for every key=value, naming what failed."""
    bad = {k: (row.get(k), v) for k, v in want.items() if row.get(k) != v}
    if bad:
        sys.exit(f"FAIL: {what}: " + ", ".join(f"{k} = {g}, expected {w}"
                                               for k, (g, w) in bad.items()))
    print(f"ok: {what}: " + ", ".join(f"{k} = {v}" for k, v in want.items()))
