"""Check an OTF2 archive against the rules of the OTF2 specification that otf2-print and
the OTF2 reader do not enforce, the ones strict readers (Vampir, Scalasca, pipit, Score-P's
own tools) rely on.

Run by Debian's /usr/bin/python3 (the one with `import otf2`):

    python3 tests/otf2validate.py EXP/otf2/traces.otf2     # exit 1 and one line per error

tests/hpmerge-checked runs it on every trace the tests make. The rules, per location:
  order       timestamps never decrease
  exclusive   CallingContextEnter/Leave/Sample and plain Enter/Leave never both appear
              in one trace ("mutually exclusive", OTF2_Events.h)
  nesting     Leave closes the innermost open Enter (same region); CallingContextLeave
              the innermost open CallingContextEnter (same context); a context entered
              lies below the innermost open one in the calling-context tree
  samples     a CallingContextSample lies at or below the innermost open entered context
  unwind      the node an unwind distance points at lies on the previous event's path
              (for a CallingContextLeave: on its parent's), or is the root reached after
              distance - 1 steps; with an entered context open it is that context's
              parent or below it (the spec's upper bound)
  pairs       every begin has its end, in order and inside what encloses it: Enter and
              CallingContextEnter by the end of the location, ThreadTeamBegin/End (same
              team), ThreadFork/Join, MpiCollectiveBegin/End; MPI communication records
              (sends, receives, collectives) lie inside an open MPI region
  requests    MpiIsendComplete after its MpiIsend, MpiIrecv after its MpiIrecvRequest
  I/O         an I/O handle is active in its process between IoCreateHandle (or
              IoDuplicateHandle making it, or from the start when pre-created) and
              IoDestroyHandle: never created twice while active, operated on, duplicated
              or destroyed only while active; each IoOperationBegin has its
              IoOperationComplete (same handle and matching id, same location) before
              another begins on that location, and no Complete comes without its Begin;
              I/O records lie inside an open I/O region (role file_io, file_io metadata)
              or MPI region (MPI-IO); a pre-created handle has its IoPreCreatedHandleState
  references  events name defined regions, contexts, communicators, teams, metrics
  metrics     a MetricInstance's values come from its recorder location only
  counts      each Location's number_of_events equals the events read for it
  clock       every timestamp lies in [global_offset, global_offset + trace_length] (writers
              differ on whether the length counts the last tick)
"""
import collections
import sys

import otf2

IO_HANDLE_EVENTS = ("IoCreateHandle", "IoDestroyHandle", "IoDuplicateHandle", "IoSeek",
                    "IoOperationBegin", "IoOperationComplete", "IoChangeStatusFlags",
                    "IoDeleteFile")
IO_ROLES = (otf2.RegionRole.FILE_IO, otf2.RegionRole.FILE_IO_METADATA)
MPI_COMM = ("MpiSend", "MpiIsend", "MpiRecv", "MpiIrecv", "MpiCollectiveBegin",
            "MpiCollectiveEnd")
CC_EVENTS = ("CallingContextEnter", "CallingContextLeave", "CallingContextSample")
PLAIN_EVENTS = ("Enter", "Leave")


def path(cc):
    """Nodes from cc up to the root, cc first."""
    out = []
    while cc is not None and len(out) < 100000:
        out.append(cc)
        cc = cc.parent
    return out


def drop(stack, x):
    """Close x: the innermost entry that is x (one error per broken Leave, not a cascade)."""
    for i in range(len(stack) - 1, -1, -1):
        if stack[i] is x:
            del stack[i]
            return


def is_below(cc, anc):
    """cc is anc or lies below it."""
    return any(n is anc for n in path(cc))


class LocState:
    def __init__(self):
        self.last = None
        self.plain = []       # open Enter regions
        self.ctx = []         # open CallingContextEnter contexts
        self.prev = None      # previous calling context (None: none yet / the root)
        self.have_prev = False
        self.teams = []
        self.forks = 0
        self.coll_open = False
        self.isends = set()
        self.irecvs = set()
        self.io_open = None   # (handle, matching id) of the operation begun, not completed
        self.n = 0


class Validator:
    """Feed events in reader order with event(loc, ev); finish() adds end-of-trace errors."""

    def __init__(self, defs, max_errors=50):
        self.errors = []
        self.max_errors = max_errors
        self.locs = collections.defaultdict(LocState)
        self.kinds = collections.Counter()
        clock = defs.clock_properties
        self.lo = clock.global_offset
        self.hi = clock.global_offset + clock.trace_length
        self.defs = defs
        # active I/O handles per location group; pre-created ones are active from the start
        self.pre = {h for h in defs.io_handles
                    if h.io_handle_flags & otf2.IoHandleFlag.PRE_CREATED}
        self.active = collections.defaultdict(lambda: set(self.pre))
        states = {s.io_handle for s in defs.io_pre_created_handle_states}
        for h in self.pre - states:
            self.error(f"I/O handle {h.name}: pre-created without IoPreCreatedHandleState")

    def error(self, msg):
        if len(self.errors) < self.max_errors:
            self.errors.append(msg)

    def in_mpi(self, st):
        regions = [r for r in st.plain] + [c.region for c in st.ctx]
        return any(r is not None and r.paradigm == otf2.Paradigm.MPI for r in regions)

    def unwind(self, where, st, cc, dist):
        """Check cc's unwind distance against the previous context; cc becomes it."""
        p = path(cc)
        if dist == 0:
            if st.have_prev and st.prev is not cc:
                self.error(f"{where}: unwind distance 0 but the context changed")
        elif dist - 1 < len(p):
            node = p[dist - 1]
            prev_path = path(st.prev) if st.have_prev else []
            if st.have_prev and not any(n is node for n in prev_path):
                self.error(f"{where}: unwind distance {dist} points at {node.region.name}, "
                           f"which is not on the previous context's path")
            if st.ctx:
                top = st.ctx[-1]
                bound = top.parent
                if bound is not None and not is_below(node, bound):
                    self.error(f"{where}: unwind distance {dist} reaches above the open "
                               f"region {top.region.name}")
        elif dist - 1 > len(p):
            self.error(f"{where}: unwind distance {dist} beyond the root (depth {len(p)})")
        elif st.ctx and st.ctx[-1].parent is not None:
            self.error(f"{where}: unwind distance {dist} reaches the root with "
                       f"{st.ctx[-1].region.name} open")
        st.prev = cc
        st.have_prev = True

    def in_io(self, st):
        top = st.ctx[-1].region if st.ctx else st.plain[-1] if st.plain else None
        return top is not None and (top.region_role in IO_ROLES or
                                    top.paradigm == otf2.Paradigm.MPI)

    def io_event(self, where, kind, loc, st, ev):
        if not self.in_io(st):
            self.error(f"{where}: outside every I/O or MPI region")
        if kind == "IoDeleteFile":
            if ev.file is None or ev.io_paradigm is None:
                self.error(f"{where}: undefined file or I/O paradigm")
            return
        active = self.active[loc.group._ref]
        handles = (ev.old_handle, ev.new_handle) if kind == "IoDuplicateHandle" else (ev.handle,)
        if any(h is None for h in handles):
            self.error(f"{where}: undefined I/O handle")
            return
        h = handles[0]
        if kind == "IoCreateHandle":
            if h in active:
                self.error(f"{where}: creates {h.name}, which is active")
            active.add(h)
            return
        if h not in active:
            self.error(f"{where}: on {h.name}, which is not active")
            active.add(h)  # one error per handle, not a cascade
        if kind == "IoDestroyHandle":
            active.discard(h)
        elif kind == "IoDuplicateHandle":
            if ev.new_handle in active:
                self.error(f"{where}: duplicates into {ev.new_handle.name}, which is active")
            active.add(ev.new_handle)
        elif kind == "IoOperationBegin":
            if st.io_open is not None:
                self.error(f"{where}: begins inside another operation")
            st.io_open = (h, ev.matching_id)
        elif kind == "IoOperationComplete":
            if st.io_open != (h, ev.matching_id):
                self.error(f"{where}: completes operation {ev.matching_id} on {h.name} "
                           f"without its IoOperationBegin")
            st.io_open = None

    def event(self, loc, ev):
        kind = type(ev).__name__
        self.kinds[kind] += 1
        st = self.locs[loc._ref]
        st.n += 1
        where = f"location {loc._ref} ({loc.name}) {kind} at {ev.time}"
        if st.last is not None and ev.time < st.last:
            self.error(f"{where}: time goes back from {st.last}")
        st.last = ev.time
        if not self.lo <= ev.time <= self.hi:
            self.error(f"{where}: outside the clock properties [{self.lo}, {self.hi}]")
        if kind in MPI_COMM and not self.in_mpi(st):
            self.error(f"{where}: outside every MPI region")
        if kind in IO_HANDLE_EVENTS:
            self.io_event(where, kind, loc, st, ev)
        if kind == "Enter":
            if ev.region is None:
                self.error(f"{where}: undefined region")
            st.plain.append(ev.region)
        elif kind == "Leave":
            if not st.plain or st.plain[-1] is not ev.region:
                inner = st.plain[-1].name if st.plain and st.plain[-1] else "nothing"
                self.error(f"{where}: Leave of {ev.region.name if ev.region else None} "
                           f"while {inner} is the innermost open region")
            drop(st.plain, ev.region)
        elif kind == "CallingContextEnter":
            cc = ev.calling_context
            if cc is None:
                self.error(f"{where}: undefined calling context")
                return
            if st.ctx and not (cc.parent is not None and is_below(cc.parent, st.ctx[-1])):
                self.error(f"{where}: {cc.region.name} entered outside the open "
                           f"{st.ctx[-1].region.name}")
            self.unwind(where, st, cc, ev.unwind_distance)
            st.ctx.append(cc)
        elif kind == "CallingContextLeave":
            cc = ev.calling_context
            if not st.ctx or st.ctx[-1] is not cc:
                inner = st.ctx[-1].region.name if st.ctx else "nothing"
                self.error(f"{where}: leaves {cc.region.name if cc else None} while "
                           f"{inner} is the innermost open context")
            drop(st.ctx, cc)
            st.prev = cc.parent if cc is not None else None
            st.have_prev = True
        elif kind == "CallingContextSample":
            cc = ev.calling_context
            if cc is None or ev.interrupt_generator is None:
                self.error(f"{where}: undefined context or interrupt generator")
                return
            if st.ctx and not is_below(cc, st.ctx[-1]):
                self.error(f"{where}: sample at {cc.region.name} is not below the open "
                           f"region {st.ctx[-1].region.name}")
            self.unwind(where, st, cc, ev.unwind_distance)
        elif kind == "ThreadTeamBegin":
            if ev.thread_team is None:
                self.error(f"{where}: undefined team")
            st.teams.append(ev.thread_team)
        elif kind == "ThreadTeamEnd":
            if not st.teams or st.teams[-1] is not ev.thread_team:
                self.error(f"{where}: ends a team that is not the innermost begun")
            if st.teams:
                st.teams.pop()
        elif kind == "ThreadFork":
            st.forks += 1
        elif kind == "ThreadJoin":
            if st.forks == 0:
                self.error(f"{where}: ThreadJoin without ThreadFork")
            st.forks = max(0, st.forks - 1)
        elif kind == "MpiCollectiveBegin":
            if st.coll_open:
                self.error(f"{where}: a collective begins inside another")
            st.coll_open = True
        elif kind == "MpiCollectiveEnd":
            if not st.coll_open:
                self.error(f"{where}: MpiCollectiveEnd without its MpiCollectiveBegin")
            st.coll_open = False
            if ev.communicator is None:
                self.error(f"{where}: undefined communicator")
        elif kind == "MpiIsend":
            st.isends.add(ev.request_id)
        elif kind == "MpiIsendComplete":
            if ev.request_id not in st.isends:
                self.error(f"{where}: request {ev.request_id} without its MpiIsend")
            st.isends.discard(ev.request_id)
        elif kind == "MpiIrecvRequest":
            st.irecvs.add(ev.request_id)
        elif kind == "MpiIrecv":
            if ev.request_id not in st.irecvs:
                self.error(f"{where}: request {ev.request_id} without its MpiIrecvRequest")
            st.irecvs.discard(ev.request_id)
        elif kind == "Metric":
            if ev.metric is None:
                self.error(f"{where}: undefined metric")
            elif getattr(ev.metric, "recorder", loc) != loc:
                self.error(f"{where}: a value of a metric instance recorded by "
                           f"{ev.metric.recorder.name}, not this location")
        if kind in ("MpiSend", "MpiIsend", "MpiRecv", "MpiIrecv") and ev.communicator is None:
            self.error(f"{where}: undefined communicator")

    def finish(self, locations):
        if any(self.kinds[k] for k in CC_EVENTS) and any(self.kinds[k] for k in PLAIN_EVENTS):
            self.error("CallingContext events and Enter/Leave in one trace (mutually exclusive): "
                       + ", ".join(f"{k} {self.kinds[k]}" for k in CC_EVENTS + PLAIN_EVENTS))
        for ref, loc in locations.items():
            st = self.locs.get(ref, LocState())
            name = f"location {ref} ({loc.name})"
            if st.plain:
                self.error(f"{name}: {len(st.plain)} regions never left")
            if st.ctx:
                self.error(f"{name}: {len(st.ctx)} calling contexts never left")
            if st.teams:
                self.error(f"{name}: {len(st.teams)} thread teams never ended")
            if st.forks:
                self.error(f"{name}: {st.forks} ThreadFork without ThreadJoin")
            if st.coll_open:
                self.error(f"{name}: a collective never ended")
            if st.io_open:
                self.error(f"{name}: an I/O operation never completed")
            if loc.number_of_events != st.n:
                self.error(f"{name}: {st.n} events, the definition says {loc.number_of_events}")


def validate(anchor, max_errors=50):
    """Read the archive at anchor; returns (errors, event counts by type)."""
    with otf2.reader.open(anchor) as tr:
        v = Validator(tr.definitions, max_errors)
        for loc, ev in tr.events:
            v.event(loc, ev)
        v.finish({loc._ref: loc for loc in tr.definitions.locations})
    return v.errors, v.kinds


def main(argv):
    if len(argv) != 2:
        print("usage: otf2validate.py ANCHOR.otf2", file=sys.stderr)
        return 2
    errors, kinds = validate(argv[1])
    for e in errors:
        print(f"{argv[1]}: {e}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
