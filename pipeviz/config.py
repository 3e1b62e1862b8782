"""One run's parameters, checked before anything is computed."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from .costs import Costs
from .errors import ConfigError

# Refuse anything past this many ops. benchmarks/engine.py times generate + simulate +
# measure at about 0.25 us per op on a 2-core machine (interleaved (64,512,4), 262k
# ops: 72 ms), so the largest accepted run stays near a third of a second.
MAX_OPS = 1_000_000


@dataclass(frozen=True)
class Config:
    schedule: str = "1f1b"
    P: int = 4  # pipeline ranks
    m: int = 8  # micro-batches per iteration
    V: int = 1  # model chunks per rank
    costs: Costs = field(default_factory=Costs)
    G: int | None = None  # interleaved: micro-batch group size (None: P, or PyTorch's rule)

    def __post_init__(self) -> None:
        for name in ("P", "m", "V"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                raise ConfigError(f"{name} must be a whole number, got {value!r}")
            if value < 1:
                raise ConfigError(f"{name} must be at least 1, got {value}")
        if self.G is not None and (not isinstance(self.G, int) or isinstance(self.G, bool) or self.G < 1):
            raise ConfigError(f"G must be a whole number of at least 1, got {self.G!r}")

    def replace(self, **changes) -> "Config":
        return replace(self, **changes)
