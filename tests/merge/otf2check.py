"""Read an OTF2 archive back with the OTF2 Python reader and check what hpmerge promises.

Run by Debian's /usr/bin/python3 (the one with `import otf2`). read(anchor) returns a
Trace with per-rank counts and the messages; its `errors` list the broken promises:
  - per location, timestamps never decrease
  - Enter/Leave are properly nested and balanced
  - every event refers to a defined region, communicator, calling context, metric
  - each Location's number_of_events equals the events read for it
  - every timestamp lies in [global_offset, global_offset + trace_length)
  - non-blocking requests pair up: MpiIsendComplete after its MpiIsend, MpiIrecv after
    its MpiIrecvRequest (same request id, same location)
match(trace) pairs every send with its receive (same communicator, sender, receiver,
tag, in order) and returns the unmatched ones.
"""
import collections
import otf2

SENDS = ("MpiSend", "MpiIsend")
RECVS = ("MpiRecv", "MpiIrecv")


class Trace:
    def __init__(self):
        self.errors = []
        self.count = collections.Counter()           # event type -> n
        self.by_rank = collections.defaultdict(collections.Counter)  # group id -> counter
        self.sends = []   # (comm, src_group, dst_group, tag, bytes, time)
        self.recvs = []   # (comm, src_group, dst_group, tag, bytes, time)
        self.regions = collections.Counter()         # region name -> Enters
        self.region_ids = set()
        self.first = {}   # (group, event type) -> first time
        self.locations = {}
        self.clock = None
        self.nevents = 0
        self.metrics = collections.defaultdict(int)  # (group, metric name) -> last value

    def error(self, msg):
        if len(self.errors) < 50:
            self.errors.append(msg)


def comm_rank_to_group(comm, rank):
    members = comm.group.members
    if rank >= len(members):
        return None
    return members[rank].group._ref


def read(anchor):
    t = Trace()
    with otf2.reader.open(anchor) as tr:
        d = tr.definitions
        t.clock = d.clock_properties
        lo = t.clock.global_offset
        hi = lo + t.clock.trace_length
        for loc in d.locations:
            t.locations[loc._ref] = loc
        last = {}
        stacks = collections.defaultdict(list)
        isends = collections.defaultdict(set)
        irecvs = collections.defaultdict(set)
        seen = collections.Counter()
        for loc, ev in tr.events:
            kind = type(ev).__name__
            g = loc.group._ref
            t.nevents += 1
            seen[loc._ref] += 1
            t.count[kind] += 1
            t.by_rank[g][kind] += 1
            t.first.setdefault((g, kind), ev.time)
            if ev.time < last.get(loc._ref, 0):
                t.error(f"location {loc._ref}: time goes back to {ev.time}")
            last[loc._ref] = ev.time
            if not lo <= ev.time < hi:
                t.error(f"location {loc._ref}: time {ev.time} outside the clock properties")
            if kind == "Enter":
                if ev.region is None:
                    t.error(f"location {loc._ref}: Enter of an undefined region")
                    continue
                stacks[loc._ref].append(ev.region._ref)
                t.regions[ev.region.name] += 1
            elif kind == "Leave":
                st = stacks[loc._ref]
                if ev.region is None or not st or st[-1] != ev.region._ref:
                    t.error(f"location {loc._ref}: Leave of {ev.region} at {ev.time} does not "
                            f"close the innermost region")
                else:
                    st.pop()
            if kind == "MpiIsend":
                isends[loc._ref].add(ev.request_id)
            elif kind == "MpiIsendComplete":
                if ev.request_id not in isends[loc._ref]:
                    t.error(f"location {loc._ref}: MpiIsendComplete of request {ev.request_id} without its MpiIsend")
                isends[loc._ref].discard(ev.request_id)
            elif kind == "MpiIrecvRequest":
                irecvs[loc._ref].add(ev.request_id)
            elif kind == "MpiIrecv":
                if ev.request_id not in irecvs[loc._ref]:
                    t.error(f"location {loc._ref}: MpiIrecv of request {ev.request_id} without its MpiIrecvRequest")
                irecvs[loc._ref].discard(ev.request_id)
            if kind in SENDS or kind in RECVS:
                if ev.communicator is None:
                    t.error(f"location {loc._ref}: {kind} on an undefined communicator")
                    continue
                peer = ev.receiver if kind in SENDS else ev.sender
                pg = comm_rank_to_group(ev.communicator, peer)
                if pg is None:
                    t.error(f"location {loc._ref}: {kind} peer {peer} beyond its communicator")
                    continue
                rec = (ev.communicator._ref, g if kind in SENDS else pg,
                       pg if kind in SENDS else g, ev.msg_tag, ev.msg_length, ev.time)
                (t.sends if kind in SENDS else t.recvs).append(rec)
                t.by_rank[g]["bytes_sent" if kind in SENDS else "bytes_received"] += ev.msg_length
            elif kind == "MpiCollectiveEnd":
                if ev.communicator is None:
                    t.error(f"location {loc._ref}: collective on an undefined communicator")
                t.by_rank[g]["coll_bytes_sent"] += ev.size_sent
            elif kind == "CallingContextSample":
                if ev.calling_context is None or ev.interrupt_generator is None:
                    t.error(f"location {loc._ref}: sample with an undefined context or generator")
                    continue
                t.by_rank[g]["samples_" + ev.interrupt_generator.name] += 1
            elif kind == "Metric":
                if ev.metric is None:
                    t.error(f"location {loc._ref}: metric event of an undefined metric")
                    continue
                name = ev.metric.members[0].name
                t.metrics[(g, name)] = max(t.metrics[(g, name)], ev.values[0])
            elif kind in ("ThreadTeamBegin", "ThreadTeamEnd"):
                if ev.thread_team is None:
                    t.error(f"location {loc._ref}: {kind} of an undefined team")
        for ref, st in stacks.items():
            if st:
                t.error(f"location {ref}: {len(st)} regions never left")
        for ref, loc in t.locations.items():
            if loc.number_of_events != seen[ref]:
                t.error(f"location {ref}: {seen[ref]} events, definition says "
                        f"{loc.number_of_events}")
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
