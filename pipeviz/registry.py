"""The one list of schedules: generator, placement, constraints and closed forms.

Adding a schedule means writing its module in `pipeviz.schedules` and one entry here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .closed_form import ClosedForm
from .config import MAX_OPS, Config
from .errors import ConfigError
from .order import Order
from .schedules import gpipe, interleaved, one_f_one_b, zb_h1, zb_h2, zb_v


@dataclass(frozen=True)
class Schedule:
    name: str  # as used in the app, the CLI, URLs and exports
    title: str
    summary: str  # one line, for the schedule selector
    placement: str  # "loop": stage s on rank s mod P; "v": rank r holds r and 2P-1-r
    split_backward: bool  # B and W are separate ops
    fixed_V: int | None  # the only V this schedule runs, or None for any V >= 1
    generate: Callable[[Config], Order]
    closed_form: Callable[[Config], ClosedForm]
    check: Callable[[Config], None] | None = None  # further constraints, raising ConfigError
    takes_G: bool = False

    def chunks_per_rank(self, V: int) -> int:
        return self.fixed_V or V

    def ops_per_rank(self, cfg: Config) -> int:
        return (3 if self.split_backward else 2) * self.chunks_per_rank(cfg.V) * cfg.m


SCHEDULES: dict[str, Schedule] = {
    s.name: s
    for s in [
        Schedule(
            "gpipe", "GPipe", "all forwards, then all backwards: every rank holds all m activations",
            "loop", False, 1, gpipe.generate, gpipe.closed_form,
        ),
        Schedule(
            "1f1b", "1F1B", "warm-up, then one forward and one backward: at most P-r activations on rank r",
            "loop", False, 1, one_f_one_b.generate, one_f_one_b.closed_form,
        ),
        Schedule(
            "interleaved", "Interleaved 1F1B",
            "V chunks per rank (Megatron's order): the fill shrinks V-fold, warm-up memory grows",
            "loop", False, None, interleaved.generate, interleaved.closed_form, interleaved.check, takes_G=True,
        ),
        Schedule(
            "zb-h1", "ZB-H1", "1F1B with W split off the backward: W's fill the drain at 1F1B's memory",
            "loop", True, 1, zb_h1.generate, zb_h1.closed_form,
        ),
        Schedule(
            "zb-h2", "ZB-H2", "up to 2P-1 micro-batches in flight: W's fill warm-up and drain, zero steady bubble",
            "loop", True, 1, zb_h2.generate, zb_h2.closed_form,
        ),
        Schedule(
            "zb-v", "ZB-V", "two chunks per rank in a V: about zero bubble at about P micro-batches on every rank",
            "v", True, 2, zb_v.generate, zb_v.closed_form,
        ),
    ]
}

NAMES = tuple(SCHEDULES)


def get(name: str) -> Schedule:
    try:
        return SCHEDULES[name]
    except (KeyError, TypeError):
        raise ConfigError(f"unknown schedule {name!r}; choose one of {', '.join(NAMES)}") from None


def check(cfg: Config) -> Schedule:
    """The schedule for `cfg`, or a ConfigError saying what is wrong and what is valid."""
    spec = get(cfg.schedule)
    if spec.fixed_V is not None and cfg.V != spec.fixed_V:
        if spec.fixed_V == 1:
            raise ConfigError(
                f"{spec.name} runs one model chunk per rank, so V must be 1 (got V={cfg.V}); "
                "for V > 1 choose interleaved"
            )
        raise ConfigError(
            f"{spec.name} places exactly {spec.fixed_V} chunks per rank in a V, so V must be "
            f"{spec.fixed_V} (got V={cfg.V})"
        )
    if cfg.G is not None and not spec.takes_G:
        raise ConfigError(f"the group size G only applies to interleaved, not {spec.name}; leave G unset")
    # Size first: the schedule's own checks may search for a valid m, which must stay cheap.
    n_ops = spec.ops_per_rank(cfg) * cfg.P
    if n_ops > MAX_OPS:
        per_mb = n_ops // cfg.m
        raise ConfigError(
            f"{spec.name} with P={cfg.P}, m={cfg.m}, V={cfg.V} has {n_ops:,} ops, more than the "
            f"{MAX_OPS:,} pipeviz times quickly; use m <= {MAX_OPS // per_mb} at this P and V"
        )
    if spec.check:
        spec.check(cfg)
    return spec
