"""One run's parameters, checked before anything is computed."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from .costs import Costs
from .errors import ConfigError
from .stages import check_weights

if TYPE_CHECKING:
    from .encoder import Encoder

# Refuse anything past this many ops. benchmarks/engine.py times generate + simulate +
# measure well under a microsecond per op on a 2-core machine, so the largest
# accepted run stays within a fraction of a second.
MAX_OPS = 1_000_000


def whole(name: str, value, low: int = 1) -> int:
    """`value` if it is a whole number >= low (bool is not a number here)."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise ConfigError("config.whole", name=name, value=str(value))
    if value < low:
        raise ConfigError("config.low", name=name, low=low, value=value)
    return value


@dataclass(frozen=True)
class Config:
    schedule: str = "1f1b"
    P: int = 4  # pipeline ranks
    m: int = 8  # micro-batches per iteration
    V: int = 1  # model chunks per rank
    costs: Costs = field(default_factory=Costs)
    G: int | None = None  # interleaved: micro-batch group size (None: the smallest Megatron accepts)
    encoder: Encoder | None = None  # independent work in the bubbles (pipeviz.encoder)
    balance: str | None = None  # "bpipe": activation balancing (pipeviz.balance)
    # One weight per stage (SPEC.md "Per-stage costs"): an op on stage s costs its usual
    # cost times w_s. None: every stage 1. The length is checked against the schedule's
    # stage count in registry.check.
    stage_weights: tuple[float, ...] | None = None

    def __post_init__(self) -> None:
        for name in ("P", "m", "V"):
            whole(name, getattr(self, name))
        if self.G is not None:
            whole("G", self.G)
        # The closing section's settings; their modules import the order IR, which imports this one.
        from .balance import check_mode
        from .encoder import Encoder

        if self.encoder is not None and not isinstance(self.encoder, Encoder):
            raise ConfigError("config.encoder", value=str(self.encoder))
        check_mode(self.balance)
        if self.stage_weights is not None:
            object.__setattr__(self, "stage_weights", check_weights(self.stage_weights))

    def replace(self, **changes) -> Config:
        return replace(self, **changes)
