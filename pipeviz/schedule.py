"""What a schedule module declares about itself: its `ENTRY`.

Kept apart from `pipeviz.registry` (which imports every schedule module to collect
the entries) so that a schedule module can be imported on its own.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from .closed_form import ClosedForm
from .config import Config
from .order import Order
from .text import template


@dataclass(frozen=True, kw_only=True)
class Schedule:
    name: str  # as used in the app, the CLI, URLs and exports
    position: int  # where it sits in lists (the article's order)
    placement: str  # "loop": stage s on rank s mod P; "v": rank r holds r and 2P-1-r
    fixed_V: int | None  # the only V this schedule runs, or None for any V >= 1
    ops_per_chunk: int  # ops per micro-batch and chunk: 2 (F, B) or 3 (F, I, W)
    generate: Callable[[Config], Order]
    closed_form: Callable[[Config], ClosedForm]
    check: Callable[[Config], None] | None = None  # further constraints, raising ConfigError
    takes_G: bool = False
    # The smallest V at which the schedule is itself (interleaved 1F1B at V = 1 is 1F1B):
    # a comparison row or a sweep asks it for V, and choosing it moves V up to it.
    least_V: int = 1
    # The texts of the formulas its closed form shows, by name (the page's twin reads them as data).
    formulas: Mapping[str, str] = field(default_factory=dict)

    def title(self, lang: str = "en") -> str:
        return template(f"sched.{self.name}.title", lang)

    def summary(self, lang: str = "en") -> str:
        return template(f"sched.{self.name}.summary", lang)

    def chunks_per_rank(self, V: int) -> int:
        return self.fixed_V or V

    def own_V(self, V: int) -> int:
        """The V this schedule shows where `V` is asked for all schedules at once (a
        table's row, a sweep's line): its fixed V, or `V` but at least least_V."""
        return self.fixed_V or max(V, self.least_V)

    def n_ops(self, cfg: Config) -> int:
        return self.ops_per_chunk * self.chunks_per_rank(cfg.V) * cfg.m * cfg.P

    def as_data(self) -> dict:
        """What the standalone page needs to know (its strings travel in the table)."""
        return {
            "name": self.name, "placement": self.placement, "fixedV": self.fixed_V,
            "opsPerChunk": self.ops_per_chunk, "takesG": self.takes_G, "leastV": self.least_V,
            "formulas": dict(self.formulas),
        }
