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


def trace_io(anchor):
    """The OTF2 trace's I/O per handle: {handle: {'name', 'paradigm', 'flags', 'creates',
    'destroys', 'ops': [(mode, bytes requested, bytes done, region, caller region)],
    'create_modes': [...], 'group': location group name}}, and the names of every I/O
    region entered (Counter). Begin and Complete are paired by matching id."""
    import collections
    import otf2
    out, regions = {}, collections.Counter()
    with otf2.reader.open(anchor) as tr:
        for h in tr.definitions.io_handles:
            out[h] = dict(name=h.name, paradigm=h.io_paradigm.identification,
                          file=h.file.name if h.file else None,
                          flags=h.io_handle_flags, parent=h.parent, creates=0, destroys=0,
                          ops=[], create_modes=[], groups=set())
        stacks, begun = collections.defaultdict(list), {}
        for loc, ev in tr.events:
            kind = type(ev).__name__
            st = stacks[loc]
            if kind == "CallingContextEnter":
                st.append(ev.calling_context)
                if ev.calling_context.region.region_role in (otf2.RegionRole.FILE_IO,
                                                            otf2.RegionRole.FILE_IO_METADATA):
                    regions[ev.calling_context.region.name] += 1
            elif kind == "CallingContextLeave":
                st.pop()
            elif kind == "IoCreateHandle":
                out[ev.handle]["creates"] += 1
                out[ev.handle]["create_modes"].append((ev.mode.value, ev.creation_flags.value))
                out[ev.handle]["groups"].add(loc.group.name)
            elif kind == "IoDestroyHandle":
                out[ev.handle]["destroys"] += 1
            elif kind == "IoOperationBegin":
                begun[(loc, ev.matching_id)] = ev
            elif kind == "IoOperationComplete":
                b = begun.pop((loc, ev.matching_id))
                cc = st[-1]
                caller = cc.parent.region.name if cc.parent else None
                out[ev.handle]["ops"].append((str(b.mode).split(".")[-1], b.bytes_request, ev.bytes_result,
                                              cc.region.name, caller))
                out[ev.handle]["groups"].add(loc.group.name)
    return out, regions


def by_file(handles, path):
    """The trace's handles on the file at path, in definition order."""
    return [h for h in handles.values() if h["file"] == path]


def raw_transfers(exp):
    """Every io_op record that moved bytes, from the raw streams (hpexp-dump): {(stream
    file, path): [(offset, done), ...]} in the order the thread made them."""
    import json
    import os
    import subprocess
    dump = os.path.join(os.environ["HPC_TESTDIR"], "tools", "hpexp-dump")
    recs = [json.loads(l) for l in subprocess.run([dump, exp], capture_output=True, text=True,
                                                  check=True).stdout.splitlines()
            if l.startswith('{"file"')]
    paths = {r["handle"]: r["path"] for r in recs if r["record"] == "io_handle"}
    out = {}
    for r in recs:
        if r["record"] == "io_op" and r["done"] > 0 and r["handle"] in paths:
            out.setdefault((r["file"], paths[r["handle"]]), []).append((r["offset"], r["done"]))
    return out
