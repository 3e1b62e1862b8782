"""Op costs, in the units of docs/model.md ("Costs").

Costs are per rank's full share of the model (L/P layers). An op on one chunk costs
its cost divided by the chunks a rank holds, so every schedule does the same work per
rank. A backward that is not split into B and W costs t_b + t_w. An overlapped F&B
(DualPipe) costs t_fb, by default t_f + t_b + t_w (no gain from overlapping).

Every cost is 0 (where 0 is allowed) or between COST_MIN and COST_MAX: wide enough
for any unit (seconds to microseconds), narrow enough that sums of a million ops
stay finite and exact fractions stay small.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .errors import ConfigError

COST_MIN = 1e-6
COST_MAX = 1e6
NAMES = ("tf", "tb", "tw", "comm", "tfb")
MAY_BE_ZERO = ("tw", "comm")


def check_cost(name: str, value) -> float:
    """`value` as a float if it is a valid cost for `name`, else a ConfigError."""
    zero_ok = name in MAY_BE_ZERO
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
        raise ConfigError("cost.number", name=name, value=str(value), low=COST_MIN, high=COST_MAX)
    if value == 0 and zero_ok:
        return 0.0
    if not COST_MIN <= value <= COST_MAX:
        key = "cost.range0" if zero_ok else "cost.range"
        raise ConfigError(key, name=name, value=float(value), low=COST_MIN, high=COST_MAX)
    return float(value)


@dataclass(frozen=True)
class Costs:
    tf: float = 1.0  # forward
    tb: float = 1.0  # input-gradient backward (B)
    tw: float = 1.0  # weight-gradient backward (W)
    comm: float = 0.0  # latency added to every cross-rank dependency
    tfb: float | None = None  # overlapped F&B; None: tf + tb + tw

    def __post_init__(self) -> None:
        for name in NAMES:
            value = getattr(self, name)
            if name == "tfb" and value is None:
                continue
            object.__setattr__(self, name, check_cost(name, value))

    @property
    def fb(self) -> float:
        """The cost of an overlapped F&B."""
        return self.tf + self.tb + self.tw if self.tfb is None else self.tfb

    def as_dict(self) -> dict[str, float]:
        out = {"tf": self.tf, "tb": self.tb, "tw": self.tw, "comm": self.comm}
        if self.tfb is not None:
            out["tfb"] = self.tfb
        return out

    def scaled(self, k: float) -> Costs:
        return Costs(self.tf * k, self.tb * k, self.tw * k, self.comm * k, None if self.tfb is None else self.tfb * k)

    @property
    def uniform(self) -> bool:
        """t_f = t_b = t_w and no comm: the article's costs up to a time unit."""
        return self.tf == self.tb == self.tw and self.comm == 0


DEFAULT_COSTS = Costs()
