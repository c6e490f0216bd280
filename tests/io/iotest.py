"""Helpers for the I/O tracing tests (tests/io): functions and files by name."""
import sys

from hpctest import analyze, check


def functions(exp, *args):
    """Function rows of `functions` by name."""
    return {r["name"]: r for r in analyze(exp, *args, "functions")["functions"]}


def files(exp, *args):
    """ioactivity's files by path."""
    return {f["path"]: f for f in analyze(exp, *args, "ioactivity")["files"]}


def equal(got, want, what):
    if got != want:
        sys.exit(f"FAIL: {what}: {got}, expected {want}")
    print(f"ok: {what}: {got}")


def expect(row, what, **want):
    """Each key of want equals row[key]."""
    for k, v in want.items():
        equal(row.get(k), v, f"{what} {k}")


def placement(offsets, sizes):
    """Darshan's sequential and consecutive counts of transfers in this order (the first
    compared with offset 0), as io_stats.h defines them."""
    end, seq, consec = 0, 0, 0
    for o, n in zip(offsets, sizes):
        seq += o >= end
        consec += o == end
        end = o + n
    return seq, consec
