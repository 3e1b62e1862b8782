"""Errors a person can act on: each says what is wrong and what would be valid.

Every error carries a `Msg` (a key in the strings table and its arguments), so the
served app, the standalone page and the CLI say the same thing in either language.
`str(error)` is the English text.
"""

from __future__ import annotations

from .text import Msg


class PipevizError(ValueError):
    def __init__(self, key: str, /, **args):
        self.msg = Msg(key, args)
        super().__init__(self.msg.text())

    def text(self, lang: str = "en") -> str:
        return self.msg.text(lang)


class ConfigError(PipevizError):
    """A configuration that no schedule can run, or that is too large to compute quickly."""


class OrderError(PipevizError):
    """An order that is not a valid schedule: a missing or repeated op, a stage on the wrong rank."""


class TraceError(PipevizError):
    """A profiled step pipeviz cannot read: a file that is not a trace, one cut short,
    traces that disagree (pipeviz.trace)."""


class DeadlockError(RuntimeError):
    """An order that cannot finish. `blocked` lists, for every stuck rank, the op it is
    stuck at and the op that one waits for, as (rank, op index, op text, awaited index,
    awaited text, awaited rank)."""

    def __init__(self, blocked: list[tuple[int, int, str, int, str, int]], timed=None, start=None, end=None):
        self.blocked = blocked
        # What ran before the order stuck, as the simulator timed it: `timed` marks the
        # ops that ran, `start` and `end` hold their times (None when not known).
        self.timed, self.start, self.end = timed, start, end
        parts = [Msg("deadlock.part", dict(rank=r, op=op, dep=dep, dep_rank=dr)) for r, _, op, _, dep, dr in blocked]
        self.msg = Msg("deadlock", dict(parts="; ".join(p.text() for p in parts)))
        self.parts = parts
        super().__init__(self.msg.text())

    def text(self, lang: str = "en") -> str:
        sep = "；" if lang == "zh" else "; "
        return Msg("deadlock", dict(parts=sep.join(p.text(lang) for p in self.parts))).text(lang)
