"""The deferred refresh's engine runs, one per slice (served/deferred.Deferred.slice; the page's
twin is Explorer.slice in static/explorer.js).

The comparison table runs the engine for every schedule, and at the sliders' ends
one run takes tens of ms. Each slice of the refresh does one run not done yet in
this refresh and ends at the next (`Sliced`); the runs done are kept for the next
slice whatever the result cache evicts. A key that comes meanwhile waits for one
run, not for the whole table.
"""

from __future__ import annotations

from collections.abc import Callable

from .config import Config
from .engine import Result
from .errors import ConfigError


class Sliced(Exception):
    """This slice has done its run: the next one goes on from the runs done."""


class SlicedRun:
    """`run` for one slice. `done`: Config -> (result, None) or (None, its ConfigError),
    shared by the slices of one refresh."""

    def __init__(self, run: Callable[[Config], Result], done: dict) -> None:
        self._run, self._done = run, done
        self._ran = False

    def ready(self, cfg: Config) -> Result | None:
        """cfg's result if a slice of this refresh has it, else None (never runs)."""
        got = self._done.get(cfg)
        return got[0] if got is not None else None

    def __call__(self, cfg: Config) -> Result:
        got = self._done.get(cfg)
        if got is None:
            if self._ran:
                raise Sliced
            self._ran = True
            try:
                got = (self._run(cfg), None)
            except ConfigError as e:  # the table shows it in the schedule's row
                got = (None, e)
            self._done[cfg] = got
        if got[1] is not None:
            raise got[1]
        return got[0]
