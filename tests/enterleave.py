"""What a reader that takes only Enter and Leave sees of an OTF2 archive.

The OTF2 library emulates Enter/Leave for CallingContextEnter/Leave when a reader
registers Enter and Leave callbacks but none for calling contexts (OTF2_Events.h); trace
tools built that way (and ones that skip event types they do not know, as LLNL's pipit
does) see only those. read(anchor) registers exactly these two callbacks with the OTF2
reader and returns, per location, the list of (time, "Enter"|"Leave", region).

Run by Debian's /usr/bin/python3 (the one with `import otf2`).
"""
import collections

import _otf2
import otf2
from otf2 import events
from otf2.event_reader import BufferedEventReader


class EnterLeaveReader(BufferedEventReader):
    def _set_global_event_reader_callbacks(self, cbs):
        _otf2.GlobalEvtReaderCallbacks_SetEnterCallback(cbs, self._enter)
        _otf2.GlobalEvtReaderCallbacks_SetLeaveCallback(cbs, self._leave)

    def _append(self, event_type, location_ref, time, _, attribute_list, *args):
        event = event_type._construct(self.reader.definitions, time, *args)
        location = self.reader.definitions.locations[location_ref]
        self.buffer.append((location, event))


def read(anchor):
    """{location: [(time, kind, region)]} and the definitions' locations."""
    out = collections.defaultdict(list)
    with otf2.reader.open(anchor) as tr:
        tr._event_reader = EnterLeaveReader(tr, tr.batch_events)
        for loc, ev in tr.events:
            kind = "Enter" if isinstance(ev, events.Enter) else "Leave"
            out[loc].append((ev.time, kind, ev.region))
    return out


def intervals(evs):
    """[(region, begin, end, depth)] of one location's properly nested Enter/Leave;
    raises ValueError where they do not nest."""
    stack, out = [], []
    for t, kind, region in evs:
        if kind == "Enter":
            stack.append((region, t))
        else:
            if not stack or stack[-1][0] is not region:
                raise ValueError(f"Leave of {region.name} at {t} does not close the innermost")
            r, b = stack.pop()
            out.append((r, b, t, len(stack)))
    if stack:
        raise ValueError(f"{len(stack)} regions never left")
    return out
