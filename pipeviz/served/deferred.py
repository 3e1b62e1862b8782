"""What follows the chart a little later: the comparison table, the encoder's
placements, the sweep, the play cursor's steps and the URL. A keypress sends the chart
and its readout first; this runs LATER_MS after the latest change, once however many
changes come in between, so a drag is never slowed by it (view/state.LATER_MS, the
page's twin in static/explorer.js).

Its engine runs go one per slice (pipeviz/slicing.py), each slice in the next tick
of the session's event loop, so a key that comes meanwhile waits for one run, not the
whole table; a newer change stops the older chain, and its own timer starts again.
Without a session (tests, notebooks) the work runs at once.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import panel as pn

from ..config import Config
from ..engine import Result
from ..slicing import Sliced, SlicedRun
from ..view.state import LATER_MS

Work = Callable[[Callable[[Config], Result]], None]


class Deferred:
    """`work(run)` later, in slices; `run` is the engine the work must use."""

    def __init__(self, work: Work, run: Callable[[Config], Result], later_ms: int = LATER_MS):
        self.work, self.run, self.later_ms = work, run, later_ms
        self.generation = 0  # changes so far: a slice of an older one's work stops
        self.pending = False  # the timer is set
        # The session's document, taken while the session is built: in a later callback
        # `pn.state.curdoc` is whatever Panel's context variable holds there (callbacks
        # inherit it from whoever scheduled them), not necessarily this session's.
        self.doc = pn.state.curdoc
        self.served = self.doc is not None and self.doc.session_context is not None

    def changed(self) -> None:
        """A change was shown: run the work LATER_MS from now (once for a burst)."""
        self.generation += 1
        if not self.served:
            self.work(self.run)
        elif not self.pending:
            self.pending = True
            self.doc.add_timeout_callback(partial(self.slice, None, None), self.later_ms)

    def slice(self, generation: int | None, done: dict | None) -> None:
        """One slice, the next in the next tick. generation None: the timer's, the
        work of the newest change starts (with no runs done)."""
        if generation is None:
            self.pending = False
            generation, done = self.generation, {}
        if generation != self.generation:
            return
        try:
            self.work(SlicedRun(self.run, done))
        except Sliced:
            self.doc.add_next_tick_callback(partial(self.slice, generation, done))
