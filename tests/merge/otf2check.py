"""Read an OTF2 archive back with the OTF2 Python reader and check what hpmerge promises.

Run by Debian's /usr/bin/python3 (the one with `import otf2`). read(anchor) returns a
Trace with per-rank counts and the messages; its `errors` list the broken rules of
tests/otf2validate.py (order, nesting, calling contexts and unwind distances, pairs,
requests, references, counts, clock), which every read applies.
match(trace) pairs every send with its receive (same communicator, sender, receiver,
tag, in order) and returns the unmatched ones.
"""
import collections
import os
import sys

import otf2

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import otf2validate  # noqa: E402

SENDS = ("MpiSend", "MpiIsend")
RECVS = ("MpiRecv", "MpiIrecv")


class Trace:
    def __init__(self):
        self.errors = []
        self.count = collections.Counter()           # event type -> n
        self.by_rank = collections.defaultdict(collections.Counter)  # group id -> counter
        self.sends = []   # (comm, src_group, dst_group, tag, bytes, time)
        self.recvs = []   # (comm, src_group, dst_group, tag, bytes, time)
        self.regions = collections.Counter()         # region name -> Enters (either kind)
        self.first = {}   # (group, event type) -> first time
        self.locations = {}
        self.clock = None
        self.nevents = 0
        self.metrics = collections.defaultdict(int)  # (group, metric name) -> last value


def comm_rank_to_group(comm, rank):
    members = comm.group.members
    if rank >= len(members):
        return None
    return members[rank].group._ref


def read(anchor):
    t = Trace()
    with otf2.reader.open(anchor) as tr:
        d = tr.definitions
        v = otf2validate.Validator(d)
        t.clock = d.clock_properties
        for loc in d.locations:
            t.locations[loc._ref] = loc
        for loc, ev in tr.events:
            v.event(loc, ev)
            kind = type(ev).__name__
            g = loc.group._ref
            t.nevents += 1
            t.count[kind] += 1
            t.by_rank[g][kind] += 1
            t.first.setdefault((g, kind), ev.time)
            if kind == "Enter" and ev.region is not None:
                t.regions[ev.region.name] += 1
            elif kind == "CallingContextEnter" and ev.calling_context is not None:
                t.regions[ev.calling_context.region.name] += 1
            elif kind in SENDS or kind in RECVS:
                if ev.communicator is None:
                    continue
                peer = ev.receiver if kind in SENDS else ev.sender
                pg = comm_rank_to_group(ev.communicator, peer)
                if pg is None:
                    v.error(f"location {loc._ref}: {kind} peer {peer} beyond its communicator")
                    continue
                rec = (ev.communicator._ref, g if kind in SENDS else pg,
                       pg if kind in SENDS else g, ev.msg_tag, ev.msg_length, ev.time)
                (t.sends if kind in SENDS else t.recvs).append(rec)
                t.by_rank[g]["bytes_sent" if kind in SENDS else "bytes_received"] += ev.msg_length
            elif kind == "MpiCollectiveEnd":
                t.by_rank[g]["coll_bytes_sent"] += ev.size_sent
            elif kind == "CallingContextSample" and ev.interrupt_generator is not None:
                t.by_rank[g]["samples_" + ev.interrupt_generator.name] += 1
            elif kind == "Metric" and ev.metric is not None:
                cls = getattr(ev.metric, "metric_class", ev.metric)  # a MetricInstance's class
                name = cls.members[0].name
                t.metrics[(g, name)] = max(t.metrics[(g, name)], ev.values[0])
        v.finish(t.locations)
    t.errors = v.errors
    return t


def match(t):
    """Pair sends and receives in order per (comm, src, dst, tag): (pairs, lone sends,
    lone receives)."""
    queues = collections.defaultdict(collections.deque)
    for s in sorted(t.sends, key=lambda s: s[5]):
        queues[s[:4]].append(s)
    pairs, lone_recvs = [], []
    for r in sorted(t.recvs, key=lambda r: r[5]):
        q = queues.get(r[:4])
        if q:
            s = q.popleft()
            pairs.append((s, r))
        else:
            lone_recvs.append(r)
    lone_sends = [s for q in queues.values() for s in q]
    return pairs, lone_sends, lone_recvs
