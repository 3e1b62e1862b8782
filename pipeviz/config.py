"""One run's parameters, checked before anything is computed."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from .costs import Costs, check_cost
from .errors import ConfigError
from .stages import check_weights

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


# Where an encoder's ops go (pipeviz/encoder.py places them) and the activation
# balancing modes (pipeviz/balance.py): settings a Config carries and checks here.
PLACES = ("stage0", "separate", "bubbles")
MODES = ("bpipe",)


@dataclass(frozen=True)
class Encoder:
    """The encoder's settings: costs per micro-batch (same units as t_f), placement,
    and whether it is frozen (no backward)."""

    ef: float = 0.5
    eb: float = 1.0
    place: str = "bubbles"
    frozen: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "ef", check_cost("e_f", self.ef))
        object.__setattr__(self, "eb", check_cost("e_b", self.eb))
        if self.place not in PLACES:
            raise ConfigError("encoder.place", place=str(self.place), valid=", ".join(PLACES))
        if not isinstance(self.frozen, bool):
            raise ConfigError("encoder.frozen", value=str(self.frozen))

    def replace(self, **changes) -> Encoder:
        return replace(self, **changes)

    @property
    def work(self) -> float:
        """Encoder time per micro-batch."""
        return self.ef + (0.0 if self.frozen else self.eb)


def check_mode(mode) -> str | None:
    if mode is None or mode in MODES:
        return mode
    raise ConfigError("balance.mode", mode=str(mode), valid=", ".join(MODES))


@dataclass(frozen=True)
class Config:
    schedule: str = "1f1b"
    P: int = 4  # pipeline ranks
    m: int = 8  # micro-batches per iteration
    V: int = 1  # model chunks per rank
    costs: Costs = field(default_factory=Costs)
    G: int | None = None  # interleaved: micro-batch group size (None: the smallest Megatron accepts)
    encoder: Encoder | None = None  # independent work in the bubbles (placed by pipeviz.encoder)
    balance: str | None = None  # "bpipe": activation balancing (done by pipeviz.balance)
    # One weight per stage (docs/model.md, "Per-stage costs"): an op on stage s costs its usual
    # cost times w_s. None: every stage 1. The length is checked against the schedule's
    # stage count in registry.check.
    stage_weights: tuple[float, ...] | None = None

    def __post_init__(self) -> None:
        for name in ("P", "m", "V"):
            whole(name, getattr(self, name))
        if self.G is not None:
            whole("G", self.G)
        if self.encoder is not None and not isinstance(self.encoder, Encoder):
            raise ConfigError("config.encoder", value=str(self.encoder))
        check_mode(self.balance)
        if self.stage_weights is not None:
            object.__setattr__(self, "stage_weights", check_weights(self.stage_weights))

    def replace(self, **changes) -> Config:
        return replace(self, **changes)
