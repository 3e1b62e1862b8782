"""Op costs, in the units SPEC.md fixes.

Costs are per rank's full share of the model (L/P layers). An op on one chunk costs
its cost divided by the chunks a rank holds, so every schedule does the same work per
rank. A backward that is not split into B and W costs t_b + t_w.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from .errors import ConfigError


@dataclass(frozen=True)
class Costs:
    tf: float = 1.0  # forward
    tb: float = 1.0  # input-gradient backward (B)
    tw: float = 1.0  # weight-gradient backward (W)
    comm: float = 0.0  # latency added to every cross-rank dependency

    def __post_init__(self) -> None:
        for name in ("tf", "tb", "tw", "comm"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
                raise ConfigError(f"{name} must be a finite number, got {value!r}")
        if self.tf <= 0 or self.tb <= 0:
            raise ConfigError(f"tf and tb must be > 0 (got tf={self.tf:g}, tb={self.tb:g})")
        if self.tw < 0 or self.comm < 0:
            raise ConfigError(f"tw and comm must be >= 0 (got tw={self.tw:g}, comm={self.comm:g})")

    def as_dict(self) -> dict[str, float]:
        return asdict(self)

    def scaled(self, k: float) -> "Costs":
        return Costs(self.tf * k, self.tb * k, self.tw * k, self.comm * k)

    @property
    def uniform(self) -> bool:
        """t_f = t_b = t_w and no comm: the article's costs up to a time unit."""
        return self.tf == self.tb == self.tw and self.comm == 0


DEFAULT_COSTS = Costs()
