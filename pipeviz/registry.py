"""The one list of schedules: each `pipeviz/schedules/*.py` module declares its own
`ENTRY`, and this module collects them (in the order their `position` gives).

Adding a schedule means writing its module (generator, closed form, entry and
strings) and its JavaScript twin in `static/schedules/`; nothing here.
"""

from __future__ import annotations

import importlib
import pkgutil

from . import schedules
from .config import MAX_OPS, Config
from .errors import ConfigError
from .schedule import Schedule
from .stages import check_length

__all__ = ["NAMES", "SCHEDULES", "Schedule", "check", "get"]


def _collect() -> dict[str, Schedule]:
    entries = []
    for info in pkgutil.iter_modules(schedules.__path__):
        module = importlib.import_module(f"{schedules.__name__}.{info.name}")
        entry = getattr(module, "ENTRY", None)
        if isinstance(entry, Schedule):
            entries.append(entry)
    entries.sort(key=lambda e: e.position)
    return {e.name: e for e in entries}


SCHEDULES: dict[str, Schedule] = _collect()
NAMES = tuple(SCHEDULES)


def get(name) -> Schedule:
    try:
        return SCHEDULES[name]
    except (KeyError, TypeError):
        raise ConfigError("schedule.unknown", name=str(name), names=", ".join(NAMES)) from None


def check(cfg: Config) -> Schedule:
    """The schedule for `cfg`, or a ConfigError saying what is wrong and what is valid."""
    spec = get(cfg.schedule)
    if spec.fixed_V is not None and cfg.V != spec.fixed_V:
        key = "schedule.fixed_v1" if spec.fixed_V == 1 else "schedule.fixed_v"
        raise ConfigError(key, name=spec.name, fixed=spec.fixed_V, V=cfg.V)
    if cfg.G is not None and not spec.takes_G:
        raise ConfigError("schedule.no_G", name=spec.name)
    check_length(cfg.stage_weights, spec.chunks_per_rank(cfg.V) * cfg.P, spec.name)
    # Size first: the schedule's own checks may search for a valid m, which must stay cheap.
    n_ops = spec.n_ops(cfg)
    if n_ops > MAX_OPS:
        per_mb = n_ops // cfg.m
        if per_mb > MAX_OPS:
            raise ConfigError("schedule.too_big_P", name=spec.name, P=cfg.P, V=cfg.V, n=f"{per_mb:,}",
                              max=f"{MAX_OPS:,}")
        raise ConfigError("schedule.too_big", name=spec.name, P=cfg.P, m=cfg.m, V=cfg.V, n=f"{n_ops:,}",
                          max=f"{MAX_OPS:,}", m_max=MAX_OPS // per_mb)
    if spec.check:
        spec.check(cfg)
    return spec
