"""How long the served app's deferred refresh holds the server's loop.

    .venv/bin/python benchmarks/refresh.py [--changes N]

After a change the explorer sends the chart and readout at once and the comparison
table (an engine run per schedule, and the encoder's placements) view/state.LATER_MS
later. That refresh runs one engine run per tick (pipeviz/slicing.py), so a slider
move that reaches the server meanwhile waits for one run, not the whole table. In
process, result cache cleared before each refresh (as for a value not seen yet):
the refresh in one go against the longest of its slices, medians in ms.
"""

from __future__ import annotations

import argparse
import statistics
import time
from functools import partial


class Ticks:
    """A session's document as the deferred refresh uses it: next-tick callbacks queued."""

    def __init__(self):
        self.queue = []

    def add_next_tick_callback(self, callback):
        self.queue.append(callback)


def fresh(app, run_cached) -> None:
    """As for a value not seen yet: no result cached, no table kept."""
    run_cached.cache_clear()
    app.session._table, app.session._places = (None, []), (None, [])  # the rows it keeps


def timed(f) -> float:
    t0 = time.perf_counter()
    f()
    return (time.perf_counter() - t0) * 1e3


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--changes", type=int, default=8)
    args = ap.parse_args()
    from pipeviz.served import Explorer
    from pipeviz.served.session import run_cached

    print("deferred refresh, server side (ms): in one go | the longest slice (slices)")
    for label, params in [
        ("defaults (1f1b, 4, 8, 1)", dict()),
        ("interleaved (16, 64, 4)", dict(schedule="interleaved", P=16, m=64, V=4)),
        ("interleaved (32, 128, 8)", dict(schedule="interleaved", P=32, m=128, V=8)),
        ("1f1b (4, 8, 1) + encoder", dict(encoder="bubbles")),
    ]:
        app = Explorer(**params)
        app.deferred.changed = lambda: None  # each refresh is run here, timed
        whole, longest, slices = [], [], []
        for i in range(args.changes):
            app.session.m += -1 if i % 2 == 0 else 1
            fresh(app, run_cached)
            whole.append(timed(partial(app.refresh_later, run_cached)))
            fresh(app, run_cached)
            doc = app.deferred.doc = Ticks()
            took = [timed(partial(app.deferred.slice, None, None))]
            while doc.queue:
                took.append(timed(doc.queue.pop()))
            longest.append(max(took))
            slices.append(len(took))
        print(f"  {label:<28} {statistics.median(whole):6.1f} | {statistics.median(longest):6.1f} "
              f"({statistics.median(slices):.0f})")


if __name__ == "__main__":
    main()
